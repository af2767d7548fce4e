"""The Dogo Dash session: the reveal read from the seats once every card in the round shows a face."""

from __future__ import annotations

import pytest

from session.bench import play_scene
from session.dogo_dash import DogoDashSession
from sim.suites import _board, make_scenario
from sim.truth import dogo_dash_answers


class Round:
    def __init__(self, players, active=None):
        self.state = {"players": [f"P{i}" for i in range(players)], "active": list(range(players)) if active is None else active,
                      "phase": "choose"}
        self.pushed = []

    def push(self, action):
        self.pushed.append(action)
        self.state["phase"] = "dash"
        return []


def revealed(index, active=None):
    scn = make_scenario("dogo-dash/reveals", index, 0)
    board = _board(scn.board)
    n = scn.meta["players"]
    game = Round(n, active)
    session, _, _, _ = play_scene(scn, board, lambda d: DogoDashSession(board, d, game=game), seed=index)
    return scn, board, dogo_dash_answers(scn, board), session, game


@pytest.mark.parametrize("index", range(8))
def test_reveal_equals_the_truth(index):
    scn, board, truth, session, game = revealed(index)
    (reveal,) = game.pushed
    seats = board.seats[scn.meta["players"]]
    assert reveal.cards == tuple(truth["revealed"].get(s) for s in seats)
    flick = session.flicks[-1]
    assert flick.index_settle >= 0 and flick.status == "applied"
    # read once, after the cards turned: never while they were face down (15 still frames come first)
    assert flick.index_start >= 15 + scn.meta["reveal_at_s"] * scn.run.fps


def test_a_seat_out_of_the_round_reveals_nothing():
    scn, board, truth, session, game = revealed(1, active=[0])
    (reveal,) = game.pushed
    assert reveal.cards[1:] == (None,) * (len(reveal.cards) - 1)
