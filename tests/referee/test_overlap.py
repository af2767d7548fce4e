"""Overlap, out of bounds and slides: exact table-driven geometry and a raster brute force."""

import numpy as np
import pytest
import shapely
from hypothesis import given, settings, strategies as st

from referee.core import RefereeError
from referee.overlap import out_of_bounds_calls, overlap_calls, overlap_margin, slide_onto, slide_out_of
from referee.regions import signed_distance

from .helpers import circle_region, grid, polygon_region, raster_disc, raster_polygon, raster_region, rect_region

ZONE = circle_region(95, 305, 55, "scoring-zone")
SQUARE = polygon_region([(0, 0), (100, 0), (100, 100), (0, 100)], "square")
TRIANGLE = polygon_region([(0, 0), (100, 0), (0, 100)], "triangle")
MAT = rect_region(0, 0, 914, 610, "mat")
R = 9.5  # the ball


@pytest.mark.parametrize("xy, r, region, answer, margin, err", [
    ([95 + 55 + R, 305], R, ZONE, "too_close", 0.0, None),        # tangent discs: exactly on the threshold
    ([95 + 55 + R - 0.1, 305], R, ZONE, "yes", 0.1, None),        # 0.1 mm over the zone's edge
    ([95 + 55 + R + 0.1, 305], R, ZONE, "no", -0.1, None),        # 0.1 mm short
    ([95, 305], R, ZONE, "yes", 55 + R, None),                    # dead centre
    ([95, 305 - 55 - R + 0.1], R, ZONE, "yes", 0.1, None),        # from above
    ([-R - 0.1, 50], R, SQUARE, "no", -0.1, None),                # left of a polygon's side
    ([-R + 0.1, 50], R, SQUARE, "yes", 0.1, None),
    ([-R / np.sqrt(2) - 0.1, -R / np.sqrt(2) - 0.1], R, SQUARE, "no", -0.1 * np.sqrt(2), None),  # off a corner, diagonally
    ([-R / np.sqrt(2) + 0.05, -R / np.sqrt(2) + 0.05], R, SQUARE, "yes", 0.05 * np.sqrt(2), None),  # corner just clipped
    ([100 + R - 0.1, 100], R, SQUARE, "yes", 0.1, None),          # at the far corner, along the side
    ([50, 50], R, TRIANGLE, "yes", 50 / np.sqrt(2) * 0 + R + 0.0, "skip"),  # (margin checked below)
    ([], R, ZONE, None, None, None),                              # empty in, empty out
    ([[1, 2, 3]], R, ZONE, None, None, ValueError),               # not (n, 2)
])
def test_overlap_table(xy, r, region, answer, margin, err):
    if err is ValueError:
        with pytest.raises(ValueError):
            overlap_calls(xy, r, 0.0, region, k=3)
        return
    verdicts = overlap_calls(xy, r, 0.0, region, k=3)
    if answer is None:
        assert verdicts == []
        return
    (v,) = verdicts
    assert v.answer == answer
    if err != "skip":
        assert v.margin == pytest.approx(margin, abs=1e-9)


def test_overlap_inside_triangle_is_distance_to_hypotenuse():
    m, _ = overlap_margin([[10, 10]], R, TRIANGLE)
    assert m[0] == pytest.approx(R + min(10, 10, (100 - 20) / np.sqrt(2)))


def test_sigma_makes_near_calls_too_close():
    (v,) = overlap_calls([[95 + 55 + R - 0.1, 305]], R, 0.05, ZONE, k=3)
    assert v.answer == "too_close" and v.leaning == "yes"
    (v,) = overlap_calls([[95 + 55 + R - 0.2, 305]], R, 0.05, ZONE, k=3)
    assert v.answer == "yes"


@pytest.mark.parametrize("xy, r, answer, margin", [
    ([-R - 0.1, 300], R, "yes", 0.1),          # completely off the left edge by 0.1
    ([-R + 0.1, 300], R, "no", -0.1),          # a sliver still on the mat
    ([-R, 300], R, "too_close", 0.0),          # touching the edge from outside
    ([-R / np.sqrt(2) - 0.1, -R / np.sqrt(2) - 0.1], R, "yes", 0.1 * np.sqrt(2)),  # off the corner
    ([457, 305], R, "no", -(305 + R)),         # mid-court
])
def test_out_of_bounds_table(xy, r, answer, margin):
    (v,) = out_of_bounds_calls([xy], r, 0.0, MAT, k=3)
    assert v.answer == answer and v.margin == pytest.approx(margin, abs=1e-9)
    (w,) = out_of_bounds_calls([xy], r, 0.0, shapely.box(0, 0, 914, 610), k=3)  # a plain polygon too
    assert w.answer == answer and w.margin == pytest.approx(margin, abs=1e-9)


def test_clipped_three_point_region_is_exact_inside():
    from calibration.board import load_board

    tp = load_board("dino-dunk/crater-court").region("three-point-home")
    d = signed_distance([[95 + 200, 305], [5, 305], [95 + 261, 305]], tp)  # arc, baseline, just outside
    assert d[0] == pytest.approx(-60) and d[1] == pytest.approx(-5) and d[2] == pytest.approx(1)


@pytest.mark.parametrize("xy, r, region, expected", [
    ([100, 305], 19, ZONE, [55 + 19 - 5, 0]),                    # radial, out of a circle
    ([95 + 55 + 19, 305], 19, ZONE, [0, 0]),                     # already tangent: stays
    ([50, 5], 9.5, SQUARE, [0, -(5 + 9.5)]),                      # out through the nearest side
    ([95, 305], 9.5, ZONE, [55 + 9.5, 0]),                        # dead centre: +x by convention
])
def test_slide_out_of(xy, r, region, expected):
    v = slide_out_of([xy], r, region)[0]
    assert v == pytest.approx(expected, abs=1e-3)
    assert overlap_margin([np.add(xy, v)], r, region)[0][0] <= 1e-3


@pytest.mark.parametrize("xy, r, area, expected", [
    ([5, 300], 19, MAT, [14, 0]),                 # partly off the left edge
    ([-10, -10], 19, MAT, [29, 29]),              # off a corner
    ([400, 300], 19, MAT, [0, 0]),                # inside already
    ([5, 50], 9.5, TRIANGLE, None),               # non-rect area: ends fully inside, shortest
])
def test_slide_onto(xy, r, area, expected):
    v = slide_onto([xy], r, area)[0]
    if expected is not None:
        assert v == pytest.approx(expected, abs=1e-9)
    else:
        assert signed_distance([np.add(xy, v)], area)[0] <= -r + 1e-3  # now wholly inside
        assert np.hypot(*v) == pytest.approx(9.5 - 5, abs=1e-2)      # out through the left side only


def test_empty_slides():
    assert slide_out_of([], 9.5, ZONE).shape == (0, 2)
    assert slide_onto([], 9.5, MAT).shape == (0, 2)


def test_empty_region_raises_typed_error():
    bad = circle_region(-500, -500, 10).__class__("off", "circle", (-500.0, -500.0, 10.0), clip_to=(0, 0, 914, 610))
    with pytest.raises(RefereeError):
        signed_distance([[0, 0]], bad)


# ---- property tests against a 0.05 mm raster ----------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(cx=st.floats(-20, 20), cy=st.floats(-20, 20), r=st.floats(2, 10), R_=st.floats(2, 15),
       poly=st.booleans())
def test_overlap_matches_raster(cx, cy, r, R_, poly):
    if poly:
        pts = [(-R_, -R_ / 2), (R_, -R_), (R_ / 3, R_)]
        region = polygon_region(pts)
    else:
        region = circle_region(0, 0, R_)
    margin = overlap_margin([[cx, cy]], r, region)[0][0]
    if abs(margin) < 0.1:  # the raster cannot see closer than its pitch
        return
    X, Y = grid(cx - r - 0.1, cy - r - 0.1, cx + r + 0.1, cy + r + 0.1)
    disc = raster_disc(X, Y, (cx, cy), r)
    inside = raster_polygon(X, Y, pts) if poly else raster_region(X, Y, region)
    assert bool((disc & inside).any()) == (margin > 0)
