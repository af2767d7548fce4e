"""Classifier calls: confidence in place of a distance."""

import pytest

from calibration.board import load_board
from referee.classify import egg_calls, label_calls, seat_card_calls
from referee.core import RefereeError
from vision.core import Observation


@pytest.mark.parametrize("label, conf, answer", [
    ("broken", 0.95, "yes"),
    ("broken", 0.90, "yes"),         # exactly the threshold stands
    ("broken", 0.89, "too_close"),   # below it: a person reads it
    ("", 0.99, "too_close"),         # unknown label
])
def test_label_calls(label, conf, answer):
    (v,) = label_calls([label], [conf], 0.9, what="face")
    assert v.answer == answer and v.unit == "confidence" and v.finding == label


def test_label_calls_errors_and_empty():
    with pytest.raises(RefereeError):
        label_calls(["a"], [1.5], 0.9, what="face")
    with pytest.raises(RefereeError):
        label_calls(["a", "b"], [0.5], 0.9, what="face")
    assert label_calls([], [], 0.9, what="face") == []


def test_egg_calls_use_per_attribute_confidence():
    obs = Observation.from_pieces([
        {"xy": [400, 300], "radius": 15, "kind": "egg", "confidence": 0.99,
         "attributes": {"colour": "red", "face": "broken", "face_confidence": 0.6}},
        {"xy": [100, 100], "radius": 35, "kind": "shelter"},
    ])
    colour, face = egg_calls(obs, 0.9)
    assert (colour.finding, colour.answer) == ("red", "yes")
    assert (face.finding, face.answer) == ("broken", "too_close")


def test_seat_cards():
    board = load_board("dogo-dash/table")
    seats = board.seats[2]
    centres = [board.region(s).geometry.centroid for s in seats]
    obs = Observation.from_pieces([
        {"xy": [centres[0].x, centres[0].y], "radius": 50, "kind": "card", "confidence": 0.97, "attributes": {"card": "dog"}},
    ])
    a, b = seat_card_calls(obs, board, 2, 0.9)
    assert (a.finding, a.answer) == ("dog", "yes")
    assert (b.finding, b.answer) == ("", "too_close")  # nothing seen in the second seat
    with pytest.raises(RefereeError):
        seat_card_calls(obs, board, 9, 0.9)
