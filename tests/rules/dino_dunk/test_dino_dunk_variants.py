"""Variant Game Modes: Exhibition Match, Backboard, Layup; and the options that change readings."""

from __future__ import annotations

import pytest
from .dino_dunk_helpers import move, play, quiet_turn, start

from rules.core import IllegalActionError
from rules.dino_dunk import Activate, MoveResult, ShotResult, Skip, UseAbility


def test_exhibition_actions_and_abilities_come_from_the_card_of_the_disc_size():
    game = start(variants=["exhibition"])
    pieces = game.state["pieces"]
    # Triceratops, Stegosaurus, Brontosaurus are medium: same Exhibition Card for all three.
    for pid in ("home:triceratops", "home:stegosaurus", "home:brontosaurus", "away:mauisaurus"):
        assert pieces[pid]["abilities"] == ["bounce_pass", "layup"]
    assert pieces["home:tyrannosaurus_rex"]["abilities"] == []  # its card's Roar and Run is ignored


def test_exhibition_layup_ability():
    game = start(variants=["exhibition"], carrier="home:stegosaurus")
    game.push(Activate("home:stegosaurus", "layup"))
    kinds = play(game, MoveResult(overlaps_scoring_zone=True))
    assert "layup" in kinds and game.state["score"]["home"] == 2 and game.state["phase"] == "reset"


def test_exhibition_has_no_fouls_but_a_knocked_out_carrier_earns_two_foul_shots():
    game = start(variants=["exhibition"])
    quiet_turn(game)
    kinds = move(game, "away:mauisaurus", MoveResult(struck=("home:triceratops",)))
    assert "foul" not in kinds and game.state["pieces"]["away:mauisaurus"]["status"] == "on_mat"
    kinds = move(game, "away:spinosaurus", MoveResult(struck=("home:triceratops",), knocked_out=("home:triceratops",)))
    assert "knocked_out_carrier" in kinds and kinds[-1] == "foul_shots"
    kinds = play(game, ShotResult(overlaps_zone=True), ShotResult(overlaps_zone=True))
    assert game.state["score"]["home"] == 2
    assert game.pending() == {"kind": "carrier", "side": "away"}  # the defense gains possession


def test_backboard_contact_allowed_with_the_variant():
    game = start(variants=["backboard"])
    game.push(Activate("home:triceratops", "shoot"))
    game.push(Skip())
    play(game, ShotResult(overlaps_zone=True, touched_backboard=True))
    assert game.state["score"]["home"] == 2


def test_layup_variant_needs_snow():
    game = start(variants=["layup"], carrier="home:stegosaurus")
    with pytest.raises(IllegalActionError, match="snow"):
        game.push(Activate("home:stegosaurus", "layup", overlaps_snow=False))
    game.push(Activate("home:stegosaurus", "layup", overlaps_snow=True))
    kinds = play(game, MoveResult(overlaps_scoring_zone=False))
    assert game.state["score"]["home"] == 0 and "ball_placed_adjacent" in kinds  # a missed layup is a move


def test_layup_variant_off_by_default():
    game = start(carrier="home:stegosaurus")
    assert not game.is_legal(Activate("home:stegosaurus", "layup", overlaps_snow=True))


def test_layup_requires_a_shoot_action_by_default():
    game = start(variants=["layup"], carrier="home:tyrannosaurus_rex")
    assert not game.is_legal(Activate("home:tyrannosaurus_rex", "layup", overlaps_snow=True))
    game = start(variants=["layup"], carrier="home:tyrannosaurus_rex",
                 options={"layup_requires_shoot_action": False})
    assert game.is_legal(Activate("home:tyrannosaurus_rex", "layup", overlaps_snow=True))


def test_steal_turn_does_not_count_with_the_option_off():
    game = start(options={"clock_counts_steal_turn": False})
    quiet_turn(game)
    move(game, "away:mauisaurus", MoveResult(touched_ball=True))
    move(game, "away:spinosaurus")
    assert game.state["clock"] == {"side": "away", "space": 0}


def test_struck_out_of_bounds_cannot_act_option():
    game = start(options={"struck_out_of_bounds_cannot_act": True})
    quiet_turn(game)
    move(game, "away:mauisaurus", MoveResult(struck=("home:stegosaurus",), knocked_out=("home:stegosaurus",)))
    assert game.state["pieces"]["home:stegosaurus"]["out_this_turn"]


def test_fouled_shot_any_action_option():
    game = start(carrier="home:velociraptor", options={"fouled_shot_uses_card_actions": False})
    quiet_turn(game)
    game.push(Activate("away:mauisaurus", "move"))
    game.push(Skip())
    game.push(MoveResult(struck=("home:velociraptor",), carrier_inside_three=True))
    assert game.offers()[0]["choices"] == ["shoot", "dunk"]
    game.push(UseAbility("home:velociraptor", "shooting_foul", choice="dunk"))
    assert game.pending()["expects"] == "DunkResult"


def test_ball_call_caught_by_other_as_pass_option():
    game = start(carrier="away:mauisaurus", options={"ball_call_caught_by_other": "as_pass"})
    game.push(Activate("away:parasaurolophus", "shoot"))
    game.push(UseAbility("away:parasaurolophus", "ball_call", target="away:mauisaurus"))
    from rules.dino_dunk import PassResult

    kinds = play(game, PassResult(caught_by="home:stegosaurus"))
    assert "turnover" in kinds and "shot_cancelled" in kinds
    assert game.state["ball"]["carrier"] == "home:stegosaurus" and game.state["offense"] == "home"
