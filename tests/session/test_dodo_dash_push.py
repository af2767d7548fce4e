"""Which racer's push can have turned a thrown token (:func:`session.dodo_dash._push_can_turn`,
:func:`session.dodo_dash._push_can_turn_air`), checked against the physics it stands for written
plainly (a cone of non-negative combinations, solved by non-negative least squares), and on tuning
throws where a racer beside the one that turned the token had been blamed as much as it."""

from __future__ import annotations

import numpy as np
import pytest

from session.dodo_dash import _nearest_point, _push_can_turn, _push_can_turn_air
from tests.session.test_dodo_dash_wrong_calls import calls

MU, K = 0.6, 4.5
TINY = 1e-4  # σ small enough for the noise-free answer


def in_cone(v, gens) -> bool:
    """Whether ``v`` is a non-negative combination of the vectors ``gens`` (non-negative least
    squares: no residual)."""
    from scipy.optimize import nnls

    A = np.column_stack([g / np.hypot(*g) for g in gens])
    _, res = nnls(A, np.asarray(v, float) / np.hypot(*v))
    return res < 1e-9


def reachable(v_in, v_out, n, mu: float, air: bool) -> bool:
    """The physics, plainly: a push J = j n + j_t u (j ≥ 0, |j_t| ≤ mu j, u ⟂ n) after (or
    before) the token kept a fraction a of its velocity (a = 1 in the air, 0 ≤ a ≤ 1 else) gives a
    velocity along v_out (in the air: equal to v_out). Apart from the air, only directions count,
    so v_out lies in the cone of non-negative combinations of v_in and n ± mu u."""
    n = np.asarray(n, float) / np.hypot(*n)
    u = np.array([-n[1], n[0]])
    v_in, v_out = np.asarray(v_in, float), np.asarray(v_out, float)
    if air:
        dv = v_out - v_in
        j = dv @ n
        return bool(j >= 0 and abs(dv @ u) <= mu * j + 1e-9 * np.hypot(*dv))
    return in_cone(v_out, [v_in, n + mu * u, n - mu * u])


def rotated(v, deg: float) -> np.ndarray:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        v_in = rng.normal(size=2) * 800
        v_out = rng.normal(size=2) * 500
        th = rng.uniform(-np.pi, np.pi)
        yield v_in, v_out, np.array([np.cos(th), np.sin(th)])


def test_the_sector_of_a_slowed_token_matches_a_brute_force_search():
    """Noise-free (σ tiny), away from the sector's edges, the answer is the brute force's."""
    checked, yes = 0, 0
    for v_in, v_out, n in _cases(1, 400):
        got = _push_can_turn(v_in, TINY, v_out, TINY, 25.0 * n, np.zeros(2), TINY, 12.5, MU, K)
        want = reachable(v_in, v_out, n, MU, air=False)
        # (a way out within a tenth of a degree of the cone's edge is left to the noise)
        if any(reachable(v_in, rotated(v_out, d), n, MU, air=False) != want for d in (-0.1, 0.1)):
            continue
        assert got == want, (v_in, v_out, n)
        checked += 1
        yes += got
    assert checked > 380 and 20 < yes < checked - 20


def test_in_the_air_the_change_of_velocity_is_the_push_s_own():
    checked, yes = 0, 0
    for v_in, v_out, n in _cases(2, 400):
        got = _push_can_turn_air(v_in, v_out, TINY, 25.0 * n, np.zeros(2), TINY, 12.5, MU, K)
        assert got == reachable(v_in, v_out, n, MU, air=True), (v_in, v_out, n)
        checked += 1
        yes += got
    assert checked == 400 and 20 < yes < 380  # (both answers are met)


def test_noise_widens_what_a_push_can_have_done():
    """A token flying along +x turned to +y: a racer below it (normal +y) pushed it; one above it
    (normal −y) cannot have, unless the way out is too slow or too loosely measured to tell."""
    v_in, v_out = np.array([1000.0, 0.0]), np.array([900.0, 400.0])
    below, above = np.array([0.0, 25.0]), np.array([0.0, -25.0])  # contact − racer centre
    q = np.zeros(2)
    assert _push_can_turn_air(v_in, v_out, 30.0, below, q, 1.0, 12.5, MU, K)
    assert not _push_can_turn_air(v_in, v_out, 30.0, above, q, 1.0, 12.5, MU, K)
    assert _push_can_turn_air(v_in, v_out, 150.0, above, q, 1.0, 12.5, MU, K)  # 410 mm/s within 4.5 σ of no change
    assert _push_can_turn(v_in, 30.0, v_out, 30.0, below, q, 1.0, 12.5, MU, K)
    assert not _push_can_turn(v_in, 30.0, v_out, 30.0, above, q, 1.0, 12.5, MU, K)
    # slowed to a crawl after: the way out's direction is not known well enough
    assert _push_can_turn(v_in, 30.0, v_out / 20.0, 30.0, above, q, 1.0, 12.5, MU, K)
    # a racer dead ahead (normal −x) stops it and may send it anywhere back, and a racer whose
    # place is known only loosely may have pushed it from a wide range of ways
    assert _push_can_turn(v_in, 30.0, np.array([-50.0, 300.0]), 30.0, np.array([-25.0, 0.0]), q, 1.0, 12.5, MU, K)
    assert _push_can_turn(v_in, 30.0, v_out, 30.0, above, q, 15.0, 12.5, MU, K)


def test_an_unknown_velocity_rules_out_no_racer():
    """A velocity or σ that is not a number (a fit that failed) says nothing: every push can have
    done it."""
    nan = float("nan")
    above, q = np.array([0.0, -25.0]), np.zeros(2)
    v_in, v_out = np.array([1000.0, 0.0]), np.array([900.0, 400.0])
    assert not _push_can_turn(v_in, 30.0, v_out, 30.0, above, q, 1.0, 12.5, MU, K)  # (known: ruled out)
    assert _push_can_turn(np.array([nan, 0.0]), 30.0, v_out, 30.0, above, q, 1.0, 12.5, MU, K)
    assert _push_can_turn(v_in, nan, v_out, 30.0, above, q, 1.0, 12.5, MU, K)
    assert _push_can_turn_air(v_in, np.array([nan, nan]), 30.0, above, q, 1.0, 12.5, MU, K)
    assert _push_can_turn_air(v_in, v_out, nan, above, q, 1.0, 12.5, MU, K)


@pytest.mark.parametrize("size, angle, q, want", [
    (None, 0.0, (30.0, 0.0), (11.0, 0.0)),  # a disc's nearest point: on its edge toward q
    (None, 0.0, (3.0, 4.0), (3.0, 4.0)),  # inside: q itself
    ((60.0, 16.0), 0.0, (0.0, 40.0), (0.0, 8.0)),  # a box beside its long side
    ((60.0, 16.0), 0.0, (50.0, 20.0), (30.0, 8.0)),  # off a corner
    ((60.0, 16.0), np.pi / 2, (40.0, 0.0), (8.0, 0.0)),  # turned a quarter
])
def test_the_nearest_point_of_the_token(size, angle, q, want):
    got = _nearest_point(np.zeros(2), angle, size, 11.0, np.array(q))
    assert np.allclose(got, want, atol=1e-9)


@pytest.mark.parametrize("index, turned_by, beside", [
    (131, "racer-3", "racer-2"),  # a Dodo coming down between two racers, sent back by the one ahead
    (281, "racer-3", "racer-1"),  # the same, the racer behind it within the noise of its last sample
])
def test_a_bounce_is_put_on_the_racer_whose_push_can_have_turned_the_token(index, turned_by, beside):
    """Tuning throws (seed 0): the token came within the noise of a racer it had passed just before
    the bounce, so both racers were asked "which one?". A push acts along the normal from the
    racer (give or take friction): the racer behind it would have sent the token on, not back. The
    bounce is the racer ahead's, for sure (the other is still judged on its own evidence)."""
    verdicts, truth = calls(0, index)
    assert turned_by in truth and beside not in truth
    assert verdicts[turned_by].answer == "yes" and verdicts[turned_by].detail["evidence"] == "bounce"
    assert verdicts[beside].detail["evidence"] != "bounce, which racer unsure"  # (the bounce is not shared)
    assert verdicts[beside].answer in ("no", "too_close")


def test_a_token_sent_back_in_its_unseen_start_was_turned_by_the_one_racer_it_can_have_reached():
    """Tuning throw (0, 14): an Egg flicked out to a racer and back before the first frame in
    motion, its resting place ahead of the way it was first seen going. No ray shows what turned
    it; of the racers it came near, only one can it have reached from its rest and come back from
    to its first sample in a frame (:meth:`DodoDashSession._start_reach`): that one, for sure; the
    others, farther, are "no" by the path."""
    verdicts, truth = calls(0, 14)
    assert truth == {"racer-5"}
    assert verdicts["racer-5"].answer == "yes" and verdicts["racer-5"].detail["evidence"] == "bounce"
    assert all(v.answer == "no" for r, v in verdicts.items() if r != "racer-5")
