"""Line of sight: exact cases and a 0.05 mm raster brute force."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from referee.core import RefereeError
from referee.sight import best_segment, segment_clearance, sight, sight_calls

from .helpers import PX, grid, raster_disc

MED = 19.0


@pytest.mark.parametrize("blockers, radii, mode, answer, clearance", [
    ([], [], "any_segment", "yes", np.inf),                                     # nothing in the way
    ([[50, 0]], [14.5], "any_segment", "yes", 19 - 14.5),                       # a small disc dead centre: go round by the edges
    ([[50, 0]], [14.5], "centre", "no", -14.5),                                 # ... but the centre line is blocked
    ([[50, 0]], [19.0], "any_segment", "too_close", 0.0),                       # same size: only the tangent edge line
    ([[50, 0]], [19.1], "any_segment", "no", -0.1),                             # a bigger disc blocks every segment
    ([[50, 19 + 14.5 + 0.1], [50, -19 - 14.5 - 0.1]], [14.5, 14.5], "any_segment", "yes", 19.1),  # a wide gap
    ([[50, 14.5 + 0.1], [50, -14.5 - 0.1]], [14.5, 14.5], "any_segment", "yes", 0.1),  # a 0.2 mm slot on the centre line
    ([[50, 14.5 - 0.1], [50, -14.5 + 0.1]], [14.5, 14.5], "any_segment", "no", -0.1),  # the slot closed
    ([[50, 40]], [10], "centre", "yes", 30),                                    # off to the side
])
def test_sight_table(blockers, radii, mode, answer, clearance):
    xy = np.array([[0, 0], [100, 0]] + blockers, dtype=float)
    r = np.array([MED, MED] + radii, dtype=float)
    (v,) = sight_calls(xy, r, 0.0, [(0, 1)], k=3, mode=mode)
    assert v.answer == answer
    assert v.margin == pytest.approx(clearance, abs=1e-4)


def test_sight_sigma_includes_binding_blocker():
    xy = [[0, 0], [100, 0], [50, 0], [50, 300]]
    (v,) = sight_calls(xy, [MED, MED, 14.5, MED], [0.1, 0.2, 0.2, 5.0], [(0, 1)], k=3)
    assert v.sigma == pytest.approx(np.hypot(0.2, 0.2))  # max of the pair, the binding blocker; the far disc does not bind


def test_sight_errors_and_empty():
    with pytest.raises(RefereeError):
        sight_calls([[0, 0]], [MED], 0, [(0, 0)], k=3)
    with pytest.raises(RefereeError):
        sight([0, 0], 1, [1, 1], 1, [], [], mode="telepathy")
    assert sight_calls([], [], 0, [], k=3) == []


def test_blocker_mask():
    xy = [[0, 0], [100, 0], [50, 0]]
    (v,) = sight_calls(xy, MED, 0.0, [(0, 1)], k=3, blockers=[True, True, False])  # the ball does not block
    assert v.answer == "yes" and v.margin == np.inf


def _brute_force(a, ra, b, rb, blockers, radii, n=120):
    """Rasterise the blockers at 0.05 mm; try n × n boundary-to-boundary segments sampled at the
    raster pitch; True when one of them crosses no blocker pixel."""
    pts = np.vstack([a, b, blockers])
    rr = np.concatenate([[ra, rb], radii])
    x0, y0 = (pts - rr[:, None]).min(0) - 1
    x1, y1 = (pts + rr[:, None]).max(0) + 1
    X, Y = grid(x0, y0, x1, y1)
    mask = np.zeros(X.shape, dtype=bool)
    for c, r in zip(blockers, radii):
        mask |= raster_disc(X, Y, c, r)
    th = np.linspace(0, 2 * np.pi, n, endpoint=False)
    P = np.asarray(a) + ra * np.column_stack([np.cos(th), np.sin(th)])
    Q = np.asarray(b) + rb * np.column_stack([np.cos(th), np.sin(th)])
    length = np.hypot(*(np.asarray(b) - np.asarray(a))) + ra + rb
    t = np.linspace(0, 1, int(length / PX) + 2)
    for p in P:
        seg = p[None, None, :] + t[None, :, None] * (Q - p)[:, None, :]  # (n, T, 2)
        ix = np.clip(((seg[..., 0] - x0) / PX).astype(int), 0, X.shape[1] - 1)
        iy = np.clip(((seg[..., 1] - y0) / PX).astype(int), 0, X.shape[0] - 1)
        if (~mask[iy, ix].any(axis=1)).any():
            return True
    return False


@settings(max_examples=20, deadline=None)
@given(bx=st.floats(10, 30), by=st.floats(-12, 12), r1=st.floats(2, 7),
       cx=st.floats(10, 30), cy=st.floats(-12, 12), r2=st.floats(2, 7), ra=st.floats(3, 8), rb=st.floats(3, 8))
def test_sight_matches_raster(bx, by, r1, cx, cy, r2, ra, rb):
    a, b = np.array([0.0, 0.0]), np.array([40.0, 0.0])
    blockers = np.array([[bx, by], [cx, cy]])
    radii = np.array([r1, r2])
    # keep the blockers off the two tokens (real discs do not overlap)
    if any(np.hypot(*(c - p)) < r + rp for c, r in zip(blockers, radii) for p, rp in ((a, ra), (b, rb))):
        return
    clear, p, q = best_segment(a, ra, b, rb, blockers, radii)
    assert segment_clearance(p, q, blockers, radii)[0] == pytest.approx(clear)  # a real segment
    if abs(clear) < 0.5:  # closer than the brute force's angular sampling can resolve
        return
    assert _brute_force(a, ra, b, rb, blockers, radii) == (clear > 0)
