"""The Morris session: the eggs that slid off the toucan, colour and face, as the engine's Landed."""

from __future__ import annotations

import pytest

from session.bench import play_scene
from session.morris import MorrisSession
from sim.suites import _board, make_scenario


class Toucan:
    """A Morris engine waiting for the slide of the loaded eggs."""

    def __init__(self, colours):
        self.state = {"phase": "slide", "toucan": list(colours)}
        self.pushed = []

    def push(self, action):
        self.pushed.append(action)
        self.state["phase"] = "resolve"
        return []


def slide(index, min_confidence=None):
    from referee.config import load_config

    scn = make_scenario("morris/eggs", index, 0)
    board = _board(scn.board)
    eggs = [p for p in scn.final.pieces if p.kind == "egg"]
    config = load_config() if min_confidence is None else load_config().with_(min_confidence=min_confidence)
    game = Toucan([p.attributes["colour"] for p in eggs])
    session, _, _, _ = play_scene(scn, board, lambda d: MorrisSession(board, d, game=game, referee=config), seed=index)
    return eggs, session, game


@pytest.mark.parametrize("index", range(8))
def test_landed_eggs_equal_the_truth(index):
    eggs, session, game = slide(index)
    assert len(game.pushed) == 1
    want = sorted((p.attributes["colour"], p.attributes["face"]) for p in eggs)
    assert sorted(game.pushed[0].eggs) == want


def test_an_unsure_face_waits_for_a_person():
    eggs, session, game = slide(0, min_confidence=0.99)  # the oracle reads with confidence 0.97
    assert not game.pushed and session.pending is not None
    open_ = session.pending.ruling.open_facts()
    assert any(f.endswith(".face") for f in open_)
    session.confirm(by="judge")  # the classifier's own reading ("leaning")
    assert sorted(game.pushed[0].eggs) == sorted((p.attributes["colour"], p.attributes["face"]) for p in eggs)
