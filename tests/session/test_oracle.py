"""The oracle detector: simulator truth → Observation in mat mm with the documented noise."""

from __future__ import annotations

import numpy as np
import pytest

from session.oracle import OracleConfig, OracleDetector
from sim.live import LiveFrame
from sim.scene import PieceState, Scene


def piece(pid, kind, x, y, z=0.0, r=10.0, h=5.0, **attrs):
    return PieceState(pid, kind, x, y, r, h, 0.0, (), z, attributes=attrs)


def frame(pieces, index=0, truth=None):
    return LiveFrame(index, index / 30, Scene("dino-dunk", "dino-dunk/crater-court", pieces, index / 30), truth=truth)


@pytest.fixture
def det(board):
    return OracleDetector(board("dino-dunk/crater-court"), OracleConfig(), seed=1)


@pytest.mark.parametrize("pieces, kept", [
    ([piece("a", "disc-large", 100, 100)], ["a"]),                                   # an ordinary disc
    ([piece("bb", "backboard", 10, 10, static=True)], []),                           # set pieces belong to the board
    ([piece("far", "disc-small", -400, 100)], []),                                   # far off the mat: out of view
    ([piece("edge", "disc-small", -100, 100)], ["edge"]),                            # just off the mat: still seen
    ([piece("a", "disc-large", 100, 100), piece("ball", "ball", 130, 100)], ["a", "ball"]),
])
def test_which_pieces_are_reported(det, pieces, kept):
    obs = det(frame(pieces))
    assert det.last_ids == kept
    assert len(obs) == len(kept)


def test_hidden_pieces_are_dropped_when_the_frame_was_rendered(det):
    f = frame([piece("a", "disc-large", 100, 100), piece("b", "disc-large", 300, 100)],
              truth={"a": {"visible": 0.3}, "b": {"visible": 0.9}})
    det(f)
    assert det.last_ids == ["b"]


def test_readable_attributes_only_never_the_identity(det):
    f = frame([piece("home:triceratops", "disc-medium", 100, 100, team="home", name="triceratops"),
               PieceState("card-1", "card", 400, 300, 0.0, 0.5, 0.0, (63.0, 88.0), 0.0, attributes={"card": "dog", "face_up": False})])
    obs = det(f)
    assert "name" not in obs.attributes
    assert list(obs.attribute("team")) == ["home", ""]
    assert list(obs.attribute("card")) == ["", "back"]  # a face-down card shows its back


@pytest.mark.parametrize("z, quality, sigma", [
    (0.0, "full", 0.7),   # settled, full resolution
    (0.0, "fast", 1.5),   # the cheaper detection during motion
    (60.0, "full", 3.0),  # in the air
])
def test_noise_matches_the_claimed_sigma(board, z, quality, sigma):
    det = OracleDetector(board("dino-dunk/crater-court"), seed=3)
    errs = []
    for i in range(800):
        obs = det(frame([piece("a", "disc-large", 200, 200, z=z)], index=i), quality)
        assert obs.sigma[0] == pytest.approx(sigma)
        errs.append(obs.xy[0] - [200, 200])
    std = np.std(np.array(errs), axis=0)
    assert np.all(np.abs(std - sigma) < 0.12 * sigma)
    assert obs.height[0] == pytest.approx(z + 5.0, abs=5.0)


def test_same_frame_same_noise(board):
    a = OracleDetector(board("dino-dunk/crater-court"), seed=5)
    b = OracleDetector(board("dino-dunk/crater-court"), seed=5)
    f = frame([piece("a", "disc-large", 200, 200)], index=42)
    assert np.array_equal(a(f).xy, b(f).xy)


def test_needs_simulator_frames(det):
    with pytest.raises(ValueError, match="sim://"):
        det(object())


def test_angles_carry_their_stated_noise_and_leave_the_places_noise_as_it_was(board):
    b = board("dino-dunk/crater-court")
    pieces = [piece(f"p{i}", "disc-small", 60.0 + 25 * i, 100) for i in range(10)]
    for i, p in enumerate(pieces):
        p.angle_deg = 10.0 * i
    exact = OracleDetector(b, OracleConfig(angle_sigma_deg=0.0), seed=3)
    noisy = OracleDetector(b, OracleConfig(angle_sigma_deg=2.0), seed=3)
    errs = []
    for k in range(40):
        a, n = exact(frame(pieces, index=k)), noisy(frame(pieces, index=k))
        assert np.array_equal(a.xy, n.xy)  # the angle's noise is drawn apart from the places'
        assert np.allclose(a.angle, [10.0 * i for i in range(10)])
        errs += list(n.angle - a.angle)
    assert 1.6 < np.std(errs) < 2.4 and abs(np.mean(errs)) < 0.3
