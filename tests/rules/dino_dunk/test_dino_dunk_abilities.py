"""The abilities printed in the rulebook, one test (or more) each."""

from __future__ import annotations

import pytest
from .dino_dunk_helpers import events, move, play, quiet_turn, skip_offers, start

from rules.core import IllegalActionError
from rules.dino_dunk import (Activate, DunkResult, MoveResult, PassResult, ShotResult, Skip, UseAbility)


def offered(game):
    return [(o["piece"], o["ability"]) for o in game.offers()]


def test_roar_and_run_free_move_after_a_pass():
    game = start(carrier="home:tyrannosaurus_rex")
    game.push(Activate("home:tyrannosaurus_rex", "pass"))
    game.push(PassResult(caught_by="home:stegosaurus"))
    assert offered(game) == [("home:tyrannosaurus_rex", "roar_and_run")]
    game.push(UseAbility("home:tyrannosaurus_rex", "roar_and_run"))
    assert game.pending()["expects"] == "MoveResult" and game.state["stack"][-1]["free"]
    game.push(MoveResult())
    assert game.pending()["kind"] == "activation"
    assert game.state["turn"]["activated"] == ["home:tyrannosaurus_rex"]  # a free action, not an activation


@pytest.mark.parametrize("piece, action, ability, token", [
    ("home:triceratops", "pass", "bounce_pass", "ball"),      # within one long card length
    ("home:triceratops", "shoot", "follow_through", "ball"),  # within one short card length
    ("home:velociraptor", "pass", "point_guard", "self"),
    ("home:velociraptor", "move", "swift_seizer", "self"),
    ("away:mauisaurus", "move", "swift_swimming", "self"),    # anywhere within water terrain
    ("away:ankylosaurus", "pass", "tail_fake", "tail"),
    ("away:ankylosaurus", "shoot", "tail_fake", "tail"),
])
def test_placement_abilities_before_an_action(piece, action, ability, token):
    game = start(carrier=piece)
    game.push(Activate(piece, action))
    assert offered(game) == [(piece, ability)]
    game.push(UseAbility(piece, ability))
    assert events(game, "placed")[0]["token"] == token
    assert game.pending()["kind"] == "fact"  # then the action itself


def test_swift_swimming_can_be_mandatory():
    game = start(carrier="away:mauisaurus", options={"swift_swimming_mandatory": True})
    game.push(Activate("away:mauisaurus", "move"))
    assert game.legal_actions() == [UseAbility("away:mauisaurus", "swift_swimming")]
    with pytest.raises(IllegalActionError, match="cannot be declined"):
        game.push(Skip())


def test_boxing_out_targets_struck_opponents_of_equal_or_smaller_size():
    game = start()
    game.push(Activate("home:stegosaurus", "move"))
    game.push(MoveResult(struck=("away:mauisaurus", "away:spinosaurus", "away:pterodactyl", "home:brontosaurus")))
    offer = game.offers()[0]
    assert offer["ability"] == "boxing_out"
    assert offer["targets"] == ["away:mauisaurus", "away:pterodactyl"]  # not the large Spinosaurus
    with pytest.raises(IllegalActionError, match="target must be one of"):
        game.push(UseAbility("home:stegosaurus", "boxing_out", target="away:spinosaurus"))
    game.push(UseAbility("home:stegosaurus", "boxing_out", target="away:pterodactyl"))
    assert events(game, "placed")[0]["piece"] == "away:pterodactyl"


def test_tail_whip_only_for_the_team_whose_turn_it_is():
    game = start(carrier="away:spinosaurus")
    game.push(Activate("away:spinosaurus", "pass"))
    game.push(PassResult(caught_by="home:brontosaurus"))  # intercepted by home on away's turn
    assert game.state["offense"] == "home"
    assert ("home:brontosaurus", "tail_whip") not in offered(game)


def test_ferocious_d_after_gaining_the_ball_by_moving():
    game = start()
    game.push(Activate("home:triceratops", "shoot"))
    game.push(Skip())
    game.push(ShotResult())  # loose ball
    move(game, "home:stegosaurus")
    game.push(Activate("away:spinosaurus", "move"))
    game.push(MoveResult(touched_ball=True))
    assert game.state["offense"] == "away"
    offer = game.offers()[0]
    assert (offer["ability"], offer["choices"]) == ("ferocious_d", ["pass", "dunk"])
    game.push(UseAbility("away:spinosaurus", "ferocious_d", choice="dunk"))
    play(game, DunkResult(overlaps_zone=True))
    assert game.state["score"]["away"] == 2


def test_ferocious_d_not_offered_without_gaining_the_ball():
    game = start()
    quiet_turn(game)
    game.push(Activate("away:spinosaurus", "move"))
    game.push(MoveResult())
    assert offered(game) == []


def test_synchronized_swimmer_free_pass_after_moving_with_the_ball():
    game = start(carrier="away:mauisaurus")
    game.push(Activate("away:mauisaurus", "move"))
    game.push(Skip())
    game.push(MoveResult())
    assert offered(game) == [("away:mauisaurus", "synchronized_swimmer")]
    game.push(UseAbility("away:mauisaurus", "synchronized_swimmer"))
    assert game.pending()["expects"] == "PassResult"


def test_ball_call_shoot_without_the_ball():
    game = start(carrier="away:mauisaurus")
    game.push(Activate("away:parasaurolophus", "shoot"))
    # Without the ball the free pass is required (the only way the Shoot can happen).
    assert game.legal_actions() == [UseAbility("away:parasaurolophus", "ball_call", "away:mauisaurus", "")]
    game.push(UseAbility("away:parasaurolophus", "ball_call", target="away:mauisaurus"))
    assert game.pending()["piece"] == "away:mauisaurus" and game.pending()["expects"] == "PassResult"
    game.push(PassResult(caught_by="away:parasaurolophus"))
    assert game.pending() == {"kind": "fact", "expects": "ShotResult", "piece": "away:parasaurolophus",
                              "action": "shoot", "side": "away"}
    play(game, ShotResult(overlaps_zone=True, shooter_outside_three=True))
    assert game.state["score"]["away"] == 3


@pytest.mark.parametrize("catcher", ["away:spinosaurus", "home:stegosaurus", ""])
def test_ball_call_missed_is_a_loose_ball(catcher):
    # "At the end of the pass, if this dinosaur does not possess the ball, the ball is considered a
    # loose ball."
    game = start(carrier="away:mauisaurus")
    game.push(Activate("away:parasaurolophus", "shoot"))
    game.push(UseAbility("away:parasaurolophus", "ball_call", target="away:mauisaurus"))
    kinds = play(game, PassResult(caught_by=catcher))
    assert "loose_ball" in kinds and "shot_cancelled" in kinds
    assert game.state["ball"]["loose"] and game.state["offense"] == "away"
    assert game.pending()["kind"] == "activation"


def test_ball_call_needs_a_friendly_carrier():
    game = start(carrier="home:triceratops")
    quiet_turn(game)
    with pytest.raises(IllegalActionError, match="possession"):
        game.push(Activate("away:parasaurolophus", "shoot"))


def test_tail_guard_after_a_move_and_tail_fake_after_gaining_the_ball():
    game = start(carrier="away:mauisaurus")
    game.push(Activate("away:ankylosaurus", "move"))
    game.push(MoveResult())
    assert offered(game) == [("away:ankylosaurus", "tail_guard")]
    game.push(UseAbility("away:ankylosaurus", "tail_guard"))
    game.push(Activate("away:mauisaurus", "pass"))
    game.push(PassResult(caught_by="away:ankylosaurus"))
    assert offered(game) == [("away:ankylosaurus", "tail_fake")]


def test_fifty_foot_vertical_soar_until_the_next_turn():
    game = start(carrier="away:pterodactyl")
    assert not game.is_legal(Activate("away:spinosaurus", "soar"))
    kinds = play(game, Activate("away:pterodactyl", "soar"))
    assert "soar" in kinds and game.state["ball"]["on_top"]
    move(game, "away:spinosaurus")  # away's turn ends
    assert game.state["ball"]["on_top"]  # through home's turn
    quiet_turn(game)
    # "until the beginning of your next turn"
    assert not game.state["ball"]["on_top"]
    assert game.state["turn"]["side"] == "away"


def test_abilities_are_skipped_as_a_whole():
    game = start(carrier="home:velociraptor")
    game.push(Activate("home:velociraptor", "pass"))
    assert offered(game) == [("home:velociraptor", "point_guard")]
    skip_offers(game)
    assert game.pending()["expects"] == "PassResult"


# -- Tail Fake when the Ankylosaurus gets the ball in setup step 7 ------------------------------------
def _setup_to_step_7(offense="away"):
    from .dino_dunk_helpers import METEORS, TROPICS

    from rules.dino_dunk import new_game

    return new_game(rosters={"home": list(METEORS), "away": list(TROPICS)}, offense=offense)


def test_tail_fake_is_offered_when_the_ankylosaurus_gets_the_ball_in_setup_step_7():
    from rules.dino_dunk import ChooseCarrier, PlacementDone, WrongTimeError

    game = _setup_to_step_7()
    game.push(ChooseCarrier("away:ankylosaurus"))
    # "... or after gaining possession of the ball, this dinosaur may place their tail token"
    assert game.pending()["kind"] == "ability"
    assert offered(game) == [("away:ankylosaurus", "tail_fake")]
    assert game.legal_actions() == [UseAbility("away:ankylosaurus", "tail_fake"), Skip()]
    with pytest.raises(WrongTimeError, match="Tail Fake"):
        game.push(PlacementDone("away"))
    game.push(UseAbility("away:ankylosaurus", "tail_fake"))
    placed = events(game, "placed")
    assert placed == [{"ability": "tail_fake", "piece": "away:ankylosaurus", "token": "tail",
                       "within": "adjacent (standard placement)"}]
    assert game.pending() == {"kind": "placement", "side": "away"}  # then step 8
    assert game.state["ball"]["carrier"] == "away:ankylosaurus"
    game.pop()
    assert offered(game) == [("away:ankylosaurus", "tail_fake")]  # undoable
    game.push(Skip())  # "may": it can be declined
    assert game.pending() == {"kind": "placement", "side": "away"}


def test_tail_fake_is_not_offered_to_other_step_7_carriers():
    from rules.dino_dunk import ChooseCarrier

    game = _setup_to_step_7()
    game.push(ChooseCarrier("away:spinosaurus"))
    assert game.pending() == {"kind": "placement", "side": "away"}


def test_tail_fake_after_an_out_of_bounds_turnover_then_the_turn_goes_on():
    from rules.dino_dunk import ChooseCarrier

    game = start(carrier="home:stegosaurus")
    move(game, "home:stegosaurus", MoveResult(out_of_bounds=True))
    assert game.pending() == {"kind": "carrier", "side": "away"}
    game.push(ChooseCarrier("away:ankylosaurus"))
    assert offered(game) == [("away:ankylosaurus", "tail_fake")]
    game.push(UseAbility("away:ankylosaurus", "tail_fake"))
    st = game.state
    assert st["phase"] == "play" and st["turn"]["side"] == "home" and len(st["turn"]["activated"]) == 1
    assert game.pending()["kind"] == "activation"
