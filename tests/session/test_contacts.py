"""The contact evidence the sessions add to :mod:`vision.contacts` (tracks in mat mm built by hand):
bounces seen as a turn or a kink, a nudge too small to move the other piece, noise-scaled
thresholds, and a resting neighbour that is not a striker."""

from __future__ import annotations

import numpy as np
import pytest

from vision.contacts import ContactConfig, deflected_by, kinked_by, noise_config, table_contacts
from vision.track import Track

DT = 1 / 30


def track(tid, points, radius=10.0, kind="disc-small", t0=0.0):
    t = [t0 + i * DT for i in range(len(points))]
    return Track(tid, kind, radius, {}, f"p{tid}", t, [tuple(map(float, p)) for p in points])


def still(tid, x, y, n, radius=10.0):
    return track(tid, [(x, y)] * n, radius)


def bounce_path():
    """A token (r 10) runs +x at 30 mm/frame into a piece at x=150 (r 10): contact at x=130, then back."""
    xs = [10, 40, 70, 100, 124, 106, 94, 86, 82, 80, 80, 80]
    return track(1, [(x, 100) for x in xs])


@pytest.mark.parametrize("fn", [
    lambda p, ts: deflected_by(p, ts, 0.0, ContactConfig(touch_mm=3.0)),
    lambda p, ts: kinked_by(p, ts, 0.0, sigma_mm=0.5),
])
def test_a_bounce_is_a_touch_even_when_no_sample_shows_it(fn):
    target, bystander = still(2, 150, 100, 12), still(3, 150, 200, 12)
    found = fn(bounce_path(), [target, bystander])
    assert [c.b for c in found] == [2]
    assert 3 * DT <= found[0].t <= 6 * DT  # between the samples around the bounce (an estimate)


def test_a_straight_pass_is_no_kink():
    path = track(1, [(10 + 30 * i, 100) for i in range(10)])
    assert kinked_by(path, [still(2, 150, 125, 10)], 0.0, sigma_mm=0.5) == []


@pytest.mark.parametrize("sigma, rest, start", [
    (0.0, 1.5, 40.0),                                        # no noise: the defaults stand
    (0.7, 5 * 0.7 * np.sqrt(2), 5 * 0.7 * np.sqrt(2) / DT),  # a still piece's jitter stays under 5 σ√2
    (1.5, 5 * 1.5 * np.sqrt(2), 5 * 1.5 * np.sqrt(2) / DT),
])
def test_noise_config(sigma, rest, start):
    cfg = noise_config(ContactConfig(), sigma, DT)
    assert cfg.rest_mm == pytest.approx(rest)
    assert cfg.start_mm_s == pytest.approx(start)


def test_a_nudge_smaller_than_the_noise_is_found_from_the_path():
    """The mover stops touching a piece that does not visibly move: 'touched' evidence."""
    mover = track(1, [(10, 100)] * 3 + [(40, 100), (70, 100), (95, 100), (109.5, 100), (110.5, 100), (110.5, 100)])
    other = still(2, 131, 100, 9)
    found = table_contacts([mover, other], 0.0, noise_config(ContactConfig(), 0.7, DT), known_starts={1: 2 * DT})
    assert [(c.a, c.b, c.evidence) for c in found] == [(1, 2, "touched")]
    assert found[0].gap_mm <= 3.0  # within the path tolerance (path_mm)


def test_a_resting_neighbour_is_no_striker():
    """A flicked piece sliding away from a neighbour it was resting against: no contact either way."""
    mover = track(1, [(100, 100)] * 4 + [(110, 100), (130, 100), (145, 100), (150, 100), (150, 100)])
    neighbour = still(2, 79, 100, 9)
    found = table_contacts([mover, neighbour], 0.0, noise_config(ContactConfig(), 0.7, DT), known_starts={1: 3 * DT})
    assert found == []
