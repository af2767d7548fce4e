"""Fouling and Foul Shots."""

from __future__ import annotations

import pytest
from .dino_dunk_helpers import move, play, quiet_turn, start

from rules.core import IllegalActionError
from rules.dino_dunk import (Activate, ChooseCarrier, MoveResult, PlacementDone, ShotResult, Skip,
                             UseAbility)

FOUL = MoveResult(struck=("home:triceratops",))
SHOOTING_FOUL = MoveResult(struck=("home:triceratops",), carrier_inside_three=True)


def _to_away_turn_with_clock(game, space):
    """Home (offense, Triceratops holding the ball) and away play quiet turns until the clock shows
    ``space`` and it is away's turn."""
    quiet_turn(game)
    while game.state["clock"]["space"] < space:
        quiet_turn(game)
        quiet_turn(game)
    assert game.state["turn"]["side"] == "away"


def test_opposing_foul_removes_the_mover_and_moves_the_clock_back():
    game = start()
    _to_away_turn_with_clock(game, 2)
    number = game.state["turn"]["number"]
    kinds = move(game, "away:mauisaurus", FOUL)
    st = game.state
    assert kinds[:3] == ["foul", "removed", "clock"]
    assert st["pieces"]["away:mauisaurus"]["status"] == "removed"
    assert st["clock"] == {"side": "home", "space": 1}
    assert st["ball"]["carrier"] == "home:triceratops"  # no possession change
    # It comes back "at the end of the fouling team's next turn": not this one, the one after.
    move(game, "away:spinosaurus")
    assert st["pieces"]["away:mauisaurus"]["status"] == "removed"
    quiet_turn(game)  # home
    assert st["turn"] == {"number": number + 2, "side": "away", "activated": [], "stole": False}
    with pytest.raises(IllegalActionError, match="removed from the play area"):
        game.push(Activate("away:mauisaurus", "move"))
    st = game.state  # a refused push restores its snapshot: take the state again
    move(game, "away:spinosaurus")
    kinds = move(game, "away:ankylosaurus")
    assert "returned" in kinds and st["pieces"]["away:mauisaurus"]["status"] == "on_mat"


def test_foul_on_the_starting_space_does_not_move_the_clock():
    game = start()
    quiet_turn(game)
    game.state["clock"]["space"] = 0  # as if the clock were on its starting space
    kinds = move(game, "away:mauisaurus", FOUL)
    assert "foul" in kinds and "clock" not in kinds and game.state["clock"]["space"] == 0


def test_a_foul_gains_no_possession_even_when_the_ball_was_touched():
    game = start()
    quiet_turn(game)
    move(game, "away:mauisaurus", MoveResult(struck=("home:triceratops",), touched_ball=True))
    assert game.state["ball"]["carrier"] == "home:triceratops" and game.state["offense"] == "home"


def test_causing_another_dinosaur_to_strike_the_carrier_is_a_foul():
    game = start()
    quiet_turn(game)
    kinds = move(game, "away:mauisaurus", MoveResult(struck=("away:spinosaurus",), carrier_struck=True))
    assert "foul" in kinds and game.state["pieces"]["away:mauisaurus"]["status"] == "removed"


def test_friendly_strike_stuns_the_carrier():
    game = start()
    kinds = move(game, "home:stegosaurus", FOUL)
    st = game.state
    assert "stunned" in kinds and st["pieces"]["home:triceratops"]["stunned"]
    assert st["pieces"]["home:stegosaurus"]["status"] == "removed"  # option friendly_strike_is_foul
    with pytest.raises(IllegalActionError, match="stunned"):
        game.push(Activate("home:triceratops", "pass"))
    move(game, "home:brontosaurus")
    assert not game.state["pieces"]["home:triceratops"]["stunned"]  # only for the rest of that turn


def test_friendly_strike_only_stuns_with_the_option_off():
    game = start(options={"friendly_strike_is_foul": False})
    move(game, "home:stegosaurus", FOUL)
    assert game.state["pieces"]["home:stegosaurus"]["status"] == "on_mat"
    assert game.state["pieces"]["home:triceratops"]["stunned"]


def _shooting_foul(game):
    quiet_turn(game)
    game.push(Activate("away:mauisaurus", "move"))
    game.push(Skip())
    return play(game, SHOOTING_FOUL)


def test_shooting_foul_made_shot_then_one_foul_shot_then_reset():
    game = start()
    kinds = _shooting_foul(game)
    assert kinds[:2] == ["foul", "removed"]
    # "The fouled dinosaur may then attempt a Shoot or Dunk action" (Triceratops: Shoot only).
    assert game.offers() == [{"piece": "home:triceratops", "ability": "shooting_foul", "targets": [],
                              "choices": ["shoot"], "required": False}]
    game.push(UseAbility("home:triceratops", "shooting_foul", choice="shoot"))
    kinds = play(game, ShotResult(overlaps_zone=True))
    # "If the result of the Shoot or Dunk action is a successful score, then the offensive team may
    # attempt one foul shot".
    assert kinds[-2:] == ["score", "foul_shots"] and game.state["score"]["home"] == 2
    assert game.pending()["expects"] == "ShotResult"
    kinds = play(game, ShotResult(overlaps_zone=True))
    assert game.state["score"]["home"] == 3
    # "After resolving all foul shots ... reset ... with the defensive team gaining possession".
    assert "reset" in kinds and game.pending() == {"kind": "carrier", "side": "away"}
    # A full reset brings the fouled-out dinosaur back (option fouled_out_return_on_reset).
    assert game.state["pieces"]["away:mauisaurus"]["status"] == "on_mat"
    play(game, ChooseCarrier("away:spinosaurus"), PlacementDone("away"), PlacementDone("home"))
    # Step 11: the offensive team (away, who fouled on its own turn) takes the first turn.
    assert game.state["turn"]["side"] == "away"


@pytest.mark.parametrize("how", ["miss", "decline"])
def test_shooting_foul_miss_or_decline_gives_two_foul_shots(how):
    game = start()
    _shooting_foul(game)
    if how == "miss":
        game.push(UseAbility("home:triceratops", "shooting_foul", choice="shoot"))
        kinds = play(game, ShotResult())
    else:
        kinds = play(game, Skip())
    assert kinds[-1] == "foul_shots" and game.state["stack"][-1]["context"]["remaining"] == 2
    play(game, ShotResult(), ShotResult(overlaps_zone=True))
    assert game.state["score"]["home"] == 1 and game.state["phase"] == "reset"


def test_shooting_foul_on_a_carrier_that_can_neither_shoot_nor_dunk():
    game = start(carrier="home:velociraptor")
    quiet_turn(game)
    game.push(Activate("away:mauisaurus", "move"))
    game.push(Skip())
    kinds = play(game, MoveResult(struck=("home:velociraptor",), carrier_inside_three=True))
    assert kinds[-1] == "foul_shots" and game.state["stack"][-1]["context"]["remaining"] == 2


def test_fouled_out_dinosaurs_wait_through_a_reset_with_the_option_off():
    game = start(options={"fouled_out_return_on_reset": False})
    _shooting_foul(game)
    game.push(Skip())
    play(game, ShotResult(), ShotResult())
    assert game.state["pieces"]["away:mauisaurus"]["status"] == "removed"
    with pytest.raises(IllegalActionError, match="removed"):
        game.push(ChooseCarrier("away:mauisaurus"))
