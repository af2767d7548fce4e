"""Turn Overview, Shot Clock, Loose Ball and Game End."""

from __future__ import annotations

import pytest
from .dino_dunk_helpers import move, play, quiet_turn, start

from rules.core import IllegalActionError
from rules.dino_dunk import (Activate, EndTurn, MoveResult, PassResult, ShotResult, Skip, WrongTimeError)


@pytest.mark.parametrize("action, message", [
    (Activate("away:spinosaurus", "move"), "it is home's turn"),              # not your turn
    (Activate("home:tyrannosaurus_rex", "shoot"), "grey icon"),               # Shoot not on its card
    (Activate("home:stegosaurus", "pass"), "must be in possession"),          # Pass without the ball
    (Activate("home:stegosaurus", "dunk"), "grey icon"),                      # Dunk not on its card
    (Activate("home:triceratops", "fly"), "unknown action"),                  # no such action
    (Activate("home:trex", "move"), "no dinosaur"),                           # no such piece
    (PassResult(), "not expected now"),                                       # a fact with no flick
    (Skip(), "no ability is offered"),                                        # nothing to decline
])
def test_illegal_activations_name_the_rule(action, message):
    game = start()
    before = game.to_json()
    with pytest.raises(IllegalActionError, match=message):
        game.push(action)
    assert game.to_json() == before


def test_two_different_dinosaurs_per_turn():
    game = start()
    move(game, "home:stegosaurus")
    # "A team is not allowed to activate the same dinosaur twice during the same turn."
    with pytest.raises(IllegalActionError, match="twice during the same turn"):
        game.push(Activate("home:stegosaurus", "move"))
    # "A team must always activate two different dinosaurs on their turn"
    with pytest.raises(IllegalActionError, match="must always activate two"):
        game.push(EndTurn())
    kinds = move(game, "home:brontosaurus")
    assert "end_turn" in kinds and game.state["turn"]["side"] == "away"


def test_the_current_action_finishes_before_another_activation():
    game = start()
    game.push(Activate("home:stegosaurus", "move"))
    with pytest.raises(WrongTimeError, match="finish the current action"):
        game.push(Activate("home:brontosaurus", "move"))
    with pytest.raises(WrongTimeError, match="waiting for a MoveResult"):
        game.push(ShotResult(overlaps_zone=True))


def test_end_turn_only_when_no_dinosaur_can_act():
    game = start()
    for pid, p in game.state["pieces"].items():
        if pid.startswith("home:"):
            p["out_this_turn"] = True
    assert game.legal_actions() == [EndTurn()]
    kinds = play(game, EndTurn())
    assert "end_turn" in kinds and game.state["turn"]["side"] == "away"
    # "cannot take actions for the remainder of the turn": the bar ended with the turn.
    assert not any(p["out_this_turn"] for p in game.state["pieces"].values())


def test_shot_clock_advances_at_the_end_of_the_offense_turn_only():
    game = start()
    quiet_turn(game)
    assert game.state["clock"] == {"side": "home", "space": 1}
    quiet_turn(game)  # the defense's turn does not move the clock
    assert game.state["clock"] == {"side": "home", "space": 1}


def test_shot_clock_expires_after_six_offense_turns():
    game = start()
    for _ in range(5):
        quiet_turn(game)
        quiet_turn(game)
    assert game.state["clock"] == {"side": "home", "space": 5}
    game.push(Activate("home:stegosaurus", "move"))
    game.push(MoveResult())
    game.push(Activate("home:brontosaurus", "move"))
    kinds = play(game, MoveResult())
    # "if the possession token has advanced to the starting space of the defensive team's shot clock,
    # the result is a turnover ... Both teams then reset the play area according to steps 7-11".
    assert "shot_clock_expired" in kinds and "reset" in kinds
    st = game.state
    assert st["offense"] == "away" and st["clock"] == {"side": "away", "space": 0}
    assert st["phase"] == "reset" and game.pending() == {"kind": "carrier", "side": "away"}
    assert st["ball"] == {"carrier": None, "loose": False, "on_top": False}


def test_loose_ball_stops_the_clock_and_offense_recovery_advances_it():
    game = start()
    game.push(Activate("home:triceratops", "pass"))
    game.push(Skip())
    play(game, PassResult())  # hit nobody: loose ball
    assert game.state["ball"] == {"carrier": None, "loose": True, "on_top": False}
    move(game, "home:stegosaurus")
    # "Do not advance the possession token when there is a loose ball."
    assert game.state["clock"]["space"] == 0 and game.state["offense"] == "home"
    quiet_turn(game)
    # "When the offensive team gains possession of a loose ball, advance the possession token"
    kinds = move(game, "home:brontosaurus", MoveResult(touched_ball=True))
    assert "possession" in kinds and game.state["ball"]["carrier"] == "home:brontosaurus"
    assert game.state["clock"]["space"] == 1


def test_defense_recovering_a_loose_ball_is_a_turnover():
    game = start()
    game.push(Activate("home:triceratops", "shoot"))
    game.push(Skip())
    play(game, ShotResult(overlaps_zone=False))  # a miss: loose ball
    assert game.state["ball"]["loose"]
    move(game, "home:stegosaurus")
    kinds = move(game, "away:mauisaurus", MoveResult(touched_ball=True))
    assert "turnover" in kinds
    assert game.state["offense"] == "away" and game.state["clock"] == {"side": "away", "space": 0}


def test_game_ends_at_the_target_score():
    game = start(target_score=3)
    game.push(Activate("home:triceratops", "shoot"))
    game.push(Skip())
    kinds = play(game, ShotResult(overlaps_zone=True, shooter_outside_three=True))
    assert kinds[-2:] == ["score", "game_over"]
    out = game.outcome()
    assert out.winners == ("home",) and out.scores == {"home": 3, "away": 0}
    assert game.legal_actions() == []
    with pytest.raises(IllegalActionError, match="Game End"):
        game.push(Activate("home:stegosaurus", "move"))
    assert "winner home" in game.summary()
    game.pop()
    assert game.outcome() is None


def test_recovering_a_loose_ball_on_space_five_expires_the_clock_at_the_end_of_the_turn():
    game = start()
    game.push(Activate("home:triceratops", "shoot"))
    game.push(Skip())
    game.push(ShotResult())  # loose ball
    move(game, "home:stegosaurus")
    quiet_turn(game)
    game.state["clock"]["space"] = 5  # as after five turns of this possession
    move(game, "home:stegosaurus", MoveResult(touched_ball=True))
    # The token reaches the defense's starting space mid-turn; the turnover comes "At the end of the
    # offensive team's turn".
    assert game.state["clock"] == {"side": "home", "space": 6} and game.state["offense"] == "home"
    kinds = move(game, "home:brontosaurus")
    assert "shot_clock_expired" in kinds
    assert game.state["offense"] == "away" and game.state["clock"] == {"side": "away", "space": 0}
