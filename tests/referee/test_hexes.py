"""Dodo Dash: hex of each racer, race order, zone-trap hexes, projectile footprints."""

import numpy as np
import pytest

from calibration.board import Track, load_board
from referee.core import RefereeError
from referee.hexes import footprint_gaps, hex_calls, hit_calls, in_zone_calls, nearest_hex, race_order, zone_hexes

OUTER = load_board("dodo-dash/dodorado-jungle").tracks["outer"]
LINE = Track("line", 40.0, ((0.0, 0.0), (40.0, 0.0), (80.0, 0.0), (120.0, 0.0)), closed=False, traps=(1, 3))


@pytest.mark.parametrize("x, y, hex_, answer, margin", [
    (0, 0, 0, "yes", 20.0),          # on a centre
    (19.9, 0, 0, "yes", 0.1),        # 0.1 mm before the shared edge
    (20.1, 0, 1, "yes", 0.1),        # 0.1 mm past it
    (20.0, 0, 0, "too_close", 0.0),  # on the edge
    (60, 5, 1, "too_close", 0.0),    # on the edge between hexes 1 and 2 (5 mm off the axis)
    (0, 30, 0, "too_close", None),   # off the track (beyond the circumradius 23.1 mm)
])
def test_hex_table(x, y, hex_, answer, margin):
    (v,) = hex_calls([[x, y]], 0.0, LINE, k=3)
    assert v.answer == answer
    assert hex_ in (v.detail["hex"], v.detail["runner_up"])
    if margin is not None:
        assert v.margin == pytest.approx(margin, abs=1e-9)
    if answer == "yes":
        assert v.finding == f"line:{hex_}"


def test_hex_margin_on_a_curve_is_the_bisector_distance():
    c = OUTER.centres()
    p = c[10] + 0.3 * (c[11] - c[10])
    i, j, m, _ = nearest_hex([p], c)
    assert (i[0], j[0]) == (10, 11)
    assert m[0] == pytest.approx(0.2 * np.hypot(*(c[11] - c[10])))


def test_nearest_hex_empty_and_bad_track():
    i, j, m, d = nearest_hex([], OUTER.centres())
    assert len(i) == len(m) == 0
    with pytest.raises(RefereeError):
        nearest_hex([[0, 0]], [[0, 0]])
    assert hex_calls([], 0.1, OUTER, k=3) == []


@pytest.mark.parametrize("hexes, laps, uncertain, expected", [
    ([3, 5, 4], None, None, [([1], True), ([2], True), ([0], True)]),
    ([3, 3, 1], None, None, [([0, 1], True), ([2], True)]),                # a tie on hex 3
    ([3, 5, 4], None, [False, False, True], [([0, 1, 2], False)]),          # an unsure racer joins its neighbours
    ([49, 1], [0, 1], None, [([1], True), ([0], True)]),                    # laps count
    ([], None, None, []),
])
def test_race_order(hexes, laps, uncertain, expected):
    assert race_order(hexes, laps, 50, uncertain) == expected


def test_zone_hexes_follow_the_rulebook():
    assert zone_hexes(OUTER, 46) == [46, 47, 48, 49, 0, 1, 2, 3]  # wraps past the finish line
    assert zone_hexes(OUTER, 4) == [4, 5, 6, 7, 8, 9, 10]         # the next trap (11) excluded
    assert zone_hexes(LINE, 3) == [3]                             # open track: stops at its end
    with pytest.raises(RefereeError):
        zone_hexes(OUTER, 5)


def test_in_zone_calls():
    (a, b, c) = in_zone_calls([[40, 0], [100.1, 0], [21, 0]], 0.0, LINE, 1, k=3)
    assert a.answer == "yes" and a.margin == pytest.approx(20)
    assert b.answer == "no" and b.margin == pytest.approx(-0.1)       # hex 3 is the next trap
    assert c.answer == "yes" and c.margin == pytest.approx(1.0)       # just inside hex 1


@pytest.mark.parametrize("racer, footprint, gap", [
    ([30, 0], {"xy": (0, 0), "radius": 11}, 30 - 11 - 12.5),                            # disc, clear
    ([23.5, 0], {"xy": (0, 0), "radius": 11}, 0.0),                                     # tangent
    ([0, 21.5], {"xy": (0, 0), "size": (40, 18), "angle": 0}, 21.5 - 9 - 12.5),          # log lying along x
    ([0, 21.5], {"xy": (0, 0), "size": (40, 18), "angle": 90}, 21.5 - 20 - 12.5),        # log turned
    ([48, 13], {"xy": (0, 0), "size": (40, 18)}, np.hypot(28, 4) - 12.5),                  # off the corner (20, 9)
])
def test_footprint_gaps(racer, footprint, gap):
    g, _ = footprint_gaps([racer], 12.5, footprint)
    assert g[0] == pytest.approx(gap)


def test_hit_calls():
    verdicts = hit_calls([[0, 0], [23.4, 0], [23.6, 0], [100, 0]], 12.5, 0.0, {"xy": (0, 0), "radius": 11}, 0.0, k=3,
                         projectile="banana")
    assert [v.answer for v in verdicts] == ["yes", "yes", "no", "no"]
    assert verdicts[0].question == "banana touched racer 0"
    assert hit_calls([], 12.5, 0.0, {"xy": (0, 0), "radius": 11}, 0.0, k=3) == []
