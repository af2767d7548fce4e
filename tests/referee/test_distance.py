"""Edge-to-edge distance, card lengths, standard placement, placement areas."""

import cv2
import numpy as np
import pytest
import shapely
from hypothesis import given, settings, strategies as st

from calibration.specs import load_specs
from referee.core import RefereeError
from referee.distance import (distance_calls, edge_gaps, placement_area, standard_placement_calls, within_calls)

from .helpers import PX, grid, raster_disc

SPECS = load_specs()
SHORT, LONG, GAP = SPECS.short_card_mm, SPECS.long_card_mm, SPECS.placement_gap_mm
MED, LRG, BALL = 19.0, 25.5, 9.5


def test_measures_come_from_specs():
    assert (SHORT, LONG, GAP) == (63.5, 88.9, 9.0)


@pytest.mark.parametrize("a, ra, b, rb, limit, answer, margin, err", [
    ([0, 0], MED, [2 * MED, 0], MED, 0.0, "too_close", 0.0, None),              # tangent discs, limit 0
    ([0, 0], MED, [2 * MED + SHORT, 0], MED, SHORT, "too_close", 0.0, None),    # exactly one short card apart
    ([0, 0], MED, [2 * MED + SHORT - 0.1, 0], MED, SHORT, "yes", 0.1, None),    # 0.1 mm inside
    ([0, 0], MED, [2 * MED + SHORT + 0.1, 0], MED, SHORT, "no", -0.1, None),    # 0.1 mm outside
    ([0, 0], LRG, [0, LRG + BALL + LONG - 0.1], BALL, LONG, "yes", 0.1, None),  # long card, vertical
    ([0, 0], MED, [10, 0], MED, SHORT, "yes", SHORT, None),                     # overlapping reads as touching
    ([0, 0], MED, [[1, 1], [2, 2]], MED, SHORT, None, None, RefereeError),      # pairs not aligned
])
def test_within_table(a, ra, b, rb, limit, answer, margin, err):
    if err:
        with pytest.raises(err):
            within_calls([a], ra, 0.0, b, rb, 0.0, limit, k=3)
        return
    (v,) = within_calls([a], ra, 0.0, [b], rb, 0.0, limit, k=3)
    assert v.answer == answer and v.margin == pytest.approx(margin, abs=1e-9)


def test_within_sigma_is_both_pieces_in_quadrature():
    (v,) = within_calls([[0, 0]], MED, 0.3, [[2 * MED + SHORT - 1, 0]], MED, 0.4, SHORT, k=3)
    assert v.sigma == pytest.approx(0.5) and v.answer == "too_close"
    (v,) = within_calls([[0, 0]], MED, 0.3, [[2 * MED + SHORT - 1.6, 0]], MED, 0.4, SHORT, k=3)
    assert v.answer == "yes"


@pytest.mark.parametrize("gap, answer", [
    (0.0, "yes"),        # touching: the usual standard placement
    (GAP - 0.1, "yes"),
    (GAP, "too_close"),
    (GAP + 0.1, "no"),
    (-0.5, "yes"),       # a measured overlap is touching
])
def test_standard_placement(gap, answer):
    (v,) = standard_placement_calls([[0, 0]], BALL, 0.0, [[MED + BALL + gap, 0]], MED, 0.0, GAP, k=3)
    assert v.answer == answer


def test_empty():
    assert edge_gaps([], 1, [[0, 0]], 1).shape == (0, 1)
    assert within_calls([], 1, 0, [], 1, 0, SHORT, k=3) == []
    assert distance_calls([], 1, 0, [], 1, 0, k=3) == []


def test_distance_call_reports_the_gap():
    (v,) = distance_calls([[0, 0]], MED, 0.1, [[100, 0]], BALL, 0.1, k=3)
    assert v.value == pytest.approx(100 - MED - BALL) and v.answer == "yes"


def test_placement_area_is_the_annulus_minus_others_and_off_mat():
    area = placement_area([300, 300], MED, BALL, SHORT, mat=shapely.box(0, 0, 914, 610))
    inner, outer = MED + BALL, MED + BALL + SHORT
    assert area.area == pytest.approx(np.pi * (outer ** 2 - inner ** 2), rel=1e-3)
    corner = placement_area([20, 20], MED, BALL, SHORT, mat=shapely.box(0, 0, 914, 610))
    assert corner.area < area.area and corner.bounds[0] >= BALL - 1e-9
    blocked = placement_area([100, 100], MED, BALL, SHORT, others_xy=[[160, 100]], others_radius=[MED])
    assert not blocked.contains(shapely.Point(150, 100)) and blocked.contains(shapely.Point(40, 100))
    # every centre in the area is a legal placement by the exact call
    pts = np.array([[300 + outer - 0.5, 300], [300 - inner - 0.5, 300]])
    assert all(shapely.contains_xy(area, *p) for p in pts)
    assert all(v.answer == "yes" for v in within_calls(np.full((2, 2), 300.0), MED, 0, pts, BALL, 0, SHORT, k=3))


@settings(max_examples=25, deadline=None)
@given(ax=st.floats(-5, 5), ay=st.floats(-5, 5), bx=st.floats(15, 35), by=st.floats(-15, 15),
       ra=st.floats(2, 8), rb=st.floats(2, 8))
def test_edge_gap_matches_raster(ax, ay, bx, by, ra, rb):
    gap = edge_gaps([[ax, ay]], ra, [[bx, by]], rb)[0, 0]
    x0, y0 = min(ax - ra, bx - rb) - 1, min(ay - ra, by - rb) - 1
    x1, y1 = max(ax + ra, bx + rb) + 1, max(ay + ra, by + rb) + 1
    X, Y = grid(x0, y0, x1, y1)
    A = raster_disc(X, Y, (ax, ay), ra)
    B = raster_disc(X, Y, (bx, by), rb)
    if gap <= 0:
        assert (A & B).any() or gap > -2 * PX
        return
    dist = cv2.distanceTransform((~A).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE) * PX
    brute = dist[B].min()
    assert brute == pytest.approx(gap, abs=2 * PX)
