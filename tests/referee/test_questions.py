"""The --ask syntax: each form reaches its call; bad questions say what is accepted."""

import pytest

from calibration.board import BoardError, load_board
from referee.config import load_config
from referee.core import RefereeError
from referee.questions import QuestionError, ask
from vision.core import Observation

DD = load_board("dino-dunk/crater-court")
CFG = load_config()
OBS = Observation.from_pieces([
    {"xy": [95 + 55 + 9.5 - 2, 305], "radius": 9.5, "kind": "ball", "sigma": 0.1},
    {"xy": [400, 305], "radius": 19, "kind": "disc-medium", "sigma": 0.1, "attributes": {"name": "home:stego"}},
    {"xy": [500, 305], "radius": 19, "kind": "disc-medium", "sigma": 0.1, "attributes": {"name": "away:rex"}},
    {"xy": [450, 305], "radius": 14.5, "kind": "disc-small", "sigma": 0.1, "attributes": {"name": "away:raptor"}},
    {"xy": [-30, 100], "radius": 19, "kind": "disc-large", "sigma": 0.1},
], frame_index=3)


@pytest.mark.parametrize("question, answer, err", [
    ("ball overlaps scoring-zone-home", "yes", None),
    ("ball OVERLAPS scoring-zone-home", "yes", None),                       # keywords in any case (names exact)
    ("home:stego outside three-point-home", "yes", None),
    ("home:stego inside three-point-home by whole", "no", None),
    ("ball inside three-point-home by any", "yes", None),
    ("ball behind foul-line-home", "no", None),
    ("disc-large out-of-bounds", "yes", None),
    ("home:stego within short card of away:rex", "yes", None),               # gap 62 mm < 63.5
    ("home:stego within 50 mm of away:rex", "no", None),
    ("home:stego adjacent to away:raptor", "no", None),                      # gap 50 - 19 - 14.5 = 16.5 mm > 9
    ("distance between home:stego and away:rex", "yes", None),
    ("line-of-sight home:stego to away:rex", "yes", None),                   # round the small raptor
    ("line-of-sight home:stego to away:rex by centre", "no", None),
    ("disc-medium#1 within long card of disc-medium#0", "yes", None),
    ("#0 overlaps scoring-zone-home", "yes", None),
    ("ball overlaps nowhere", None, BoardError),                             # unknown region (the board says which exist)
    ("disc-medium overlaps scoring-zone-home", None, RefereeError),          # ambiguous piece
    ("ghost overlaps scoring-zone-home", None, RefereeError),
    ("ball flies", None, QuestionError),
    ("line-of-sight home:stego to away:rex by magic", None, QuestionError),
])
def test_ask(question, answer, err):
    if err:
        with pytest.raises(err):
            ask(question, DD, OBS, CFG)
        return
    (v,) = ask(question, DD, OBS, CFG)
    assert v.answer == answer, v.summary()
    assert v.frame_ids == (3,)


def test_dodo_dash_questions():
    board = load_board("dodo-dash/dodorado-jungle")
    obs = Observation.from_pieces([
        {"xy": [410.0, 455.0], "radius": 12.5, "kind": "racer", "attributes": {"name": "red"}, "sigma": 0.2},
        {"xy": [415.0, 470.0], "radius": 13, "kind": "banana", "sigma": 0.2},
    ])
    (v,) = ask("red on hex of outer", board, obs, CFG)
    assert (v.answer, v.finding) == ("yes", "outer:0")
    (v,) = ask("red in zone of outer:46", board, obs, CFG)
    assert v.answer == "yes"
    (v,) = ask("banana touches red", board, obs, CFG)
    assert v.answer == "yes"


def test_classifier_question():
    obs = Observation.from_pieces([{"xy": [10, 10], "radius": 15, "kind": "egg", "confidence": 0.95,
                                    "attributes": {"face": "broken"}}])
    (v,) = ask("egg face", load_board("morris/waterfall"), obs, CFG)
    assert (v.answer, v.finding) == ("yes", "broken")


def test_within_card_shows_where_the_piece_may_be_placed():
    (v,) = ask("home:stego within short card of away:rex", DD, OBS, CFG)
    areas = [s for s in v.evidence if getattr(s, "role", "") == "area"]
    assert areas and v.detail["placement_area_mm2"] > 0
