"""Match logs: the example log replays through rules.core and the CLI; JSON and dict forms round-trip."""

from __future__ import annotations

import json
import os

import pytest

from rules.core import ReplayError, action_from_dict, action_to_dict, replay
from rules.dino_dunk import ACTIONS, Game, MoveResult, PassResult, new_game

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "rules", "dino_dunk", "examples",
                       "worked_example.jsonl")


def _lines():
    with open(EXAMPLE, encoding="utf-8") as fh:
        return fh.readlines()


def test_example_log_replays():
    steps = list(replay("dino-dunk", _lines()))
    game = steps[-1][2]
    st = game.state
    assert st["score"] == {"home": 3, "away": 0}
    assert st["offense"] == "away" and st["ball"] == {"carrier": "away:pterodactyl", "loose": False, "on_top": True}
    assert st["turn"]["side"] == "home" and st["clock"] == {"side": "away", "space": 1}
    assert game.outcome() is None
    # The same through the engine module's own replay.
    from rules import dino_dunk

    assert list(dino_dunk.replay(_lines()))[-1][2] == game


def test_example_log_replays_through_the_cli(capsys):
    from cli.main import main

    assert main(["rules", "replay", "dino-dunk", EXAMPLE]) == 0
    out = capsys.readouterr().out
    assert "home 3 - away 0 (to 4)" in out and out.strip().endswith("outcome: in progress")


def test_a_bad_line_is_named():
    lines = _lines()[:4] + [json.dumps({"type": "ShotResult", "overlaps_zone": True}) + "\n"]
    with pytest.raises(ReplayError, match="line 5"):
        list(replay("dino-dunk", lines))


def test_every_example_action_round_trips_through_its_dict():
    for raw in _lines()[1:]:
        data = json.loads(raw)
        action = action_from_dict(data, ACTIONS)
        assert action_to_dict(action) == data


def test_tuples_round_trip():
    a = MoveResult(struck=("away:mauisaurus",), positions=(("home:stegosaurus", 1.5, 2.0),))
    assert action_from_dict(json.loads(json.dumps(action_to_dict(a))), ACTIONS) == a
    assert action_from_dict(action_to_dict(PassResult(caught_by="x")), ACTIONS) == PassResult(caught_by="x")


def test_json_form_round_trips_mid_game():
    game = list(replay("dino-dunk", _lines()[:10]))[-1][2]
    text = game.to_json()
    again = Game.from_json(text)
    assert again == game and again.to_json() == text
    assert again.legal_actions() == game.legal_actions()
    assert again.summary() == game.summary()


def test_copy_is_independent_and_pop_restores():
    game = new_game(rosters={"home": ["tyrannosaurus_rex", "triceratops", "stegosaurus", "velociraptor",
                                      "brontosaurus"],
                             "away": ["spinosaurus", "mauisaurus", "parasaurolophus", "ankylosaurus",
                                      "pterodactyl"]}, offense="home")
    before = game.to_json()
    other = game.copy()
    other.push(other.legal_actions()[0])
    assert game.to_json() == before
    other.pop()
    assert other.to_json() == before
