"""Three-point line (three readings) and the foul line."""

import pytest

from calibration.board import load_board
from referee.core import RefereeError
from referee.lines import behind_calls, outside_calls

BOARD = load_board("dino-dunk/crater-court")
TP = BOARD.region("three-point-home")  # circle (95, 305, 260) clipped to the mat
FOUL = BOARD.lines["foul-line-home"]  # x = 265, the basket at x = 95
R = 19.0


@pytest.mark.parametrize("x, mode, answer, margin", [
    (95 + 260 + 0.1, "centre", "yes", 0.1),            # centre 0.1 mm outside
    (95 + 260 - 0.1, "centre", "no", -0.1),
    (95 + 260, "centre", "too_close", 0.0),            # centre on the line
    (95 + 260 + R + 0.1, "whole_disc", "yes", 0.1),    # whole disc outside by 0.1
    (95 + 260 + R - 0.1, "whole_disc", "no", -0.1),    # still touching the line
    (95 + 260 - R + 0.1, "any_part", "yes", 0.1),      # a sliver outside
    (95 + 260 - R - 0.1, "any_part", "no", -0.1),      # wholly inside
])
def test_three_point_readings(x, mode, answer, margin):
    (v,) = outside_calls([[x, 305]], R, 0.0, TP, k=3, mode=mode)
    assert v.answer == answer and v.margin == pytest.approx(margin, abs=1e-9)


def test_three_point_bad_mode_and_empty():
    with pytest.raises(RefereeError):
        outside_calls([[0, 0]], R, 0, TP, k=3, mode="half")
    assert outside_calls([], R, 0, TP, k=3) == []


@pytest.mark.parametrize("x, mode, answer, margin", [
    (265 + 9.5 + 0.1, "whole_disc", "yes", 0.1),   # ball wholly behind by 0.1
    (265 + 9.5 - 0.1, "whole_disc", "no", -0.1),   # ball on the line
    (265 + 0.1, "centre", "yes", 0.1),
    (200, "centre", "no", -65),                    # in front (towards the basket)
])
def test_foul_line(x, mode, answer, margin):
    (v,) = behind_calls([[x, 305]], 9.5, 0.0, FOUL, (95, 305), k=3, mode=mode)
    assert v.answer == answer and v.margin == pytest.approx(margin, abs=1e-9)


def test_foul_line_reference_on_the_line_raises():
    with pytest.raises(RefereeError):
        behind_calls([[300, 305]], 9.5, 0, FOUL, (265, 100), k=3)
