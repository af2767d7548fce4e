"""Actions: Move, Pass, Shoot, Dunk and their outcomes as facts."""

from __future__ import annotations

import pytest
from .dino_dunk_helpers import move, play, start

from rules.core import IllegalActionError
from rules.dino_dunk import (Activate, DunkResult, FactError, MoveResult, PassResult, ShotResult, Skip)

# --- Move --------------------------------------------------------------------------------------


def test_carrier_moves_and_places_the_ball_adjacent():
    game = start(carrier="home:stegosaurus")
    kinds = move(game, "home:stegosaurus")
    assert "ball_placed_adjacent" in kinds and game.state["ball"]["carrier"] == "home:stegosaurus"


def test_mover_out_of_bounds_cannot_act_for_the_rest_of_the_turn():
    game = start()
    kinds = move(game, "home:stegosaurus", MoveResult(out_of_bounds=True))
    assert "out_of_bounds" in kinds
    assert game.state["pieces"]["home:stegosaurus"]["out_this_turn"]


def test_carrier_out_of_bounds_is_a_turnover_and_the_defense_picks_a_carrier():
    game = start(carrier="home:stegosaurus")
    kinds = move(game, "home:stegosaurus", MoveResult(out_of_bounds=True))
    assert "turnover" in kinds
    st = game.state
    assert st["offense"] == "away" and st["clock"] == {"side": "away", "space": 0}
    # "The defensive team then chooses a player to gain possession of the ball according to step 7"
    assert game.pending() == {"kind": "carrier", "side": "away"}
    from rules.dino_dunk import ChooseCarrier

    game.push(ChooseCarrier("away:pterodactyl"))
    # Option out_of_bounds_reset="step7": the turn goes on; home still has one activation.
    assert st["phase"] == "play" and st["turn"]["side"] == "home" and len(st["turn"]["activated"]) == 1


def test_out_of_bounds_full_reset_option():
    game = start(carrier="home:stegosaurus", options={"out_of_bounds_reset": "full"})
    kinds = move(game, "home:stegosaurus", MoveResult(out_of_bounds=True))
    assert "reset" in kinds and game.state["reset"]["full"] is True


def test_a_disc_overlapping_a_scoring_zone_is_slid_out():
    game = start()
    kinds = move(game, "home:stegosaurus", MoveResult(overlaps_scoring_zone=True))
    assert "slid_out_of_zone" in kinds and game.state["score"] == {"home": 0, "away": 0}


def test_touching_the_ball_of_an_opponent_steals_it():
    game = start()
    move(game, "home:stegosaurus")
    move(game, "home:brontosaurus")
    kinds = move(game, "away:mauisaurus", MoveResult(touched_ball=True))
    assert "turnover" in kinds and game.state["ball"]["carrier"] == "away:mauisaurus"


def test_struck_dinosaurs_knocked_out_return_to_the_edge():
    game = start()
    kinds = move(game, "home:stegosaurus", MoveResult(struck=("away:mauisaurus",), knocked_out=("away:mauisaurus",)))
    assert "returned_to_edge" in kinds
    assert not game.state["pieces"]["away:mauisaurus"]["out_this_turn"]  # literal reading (option)


@pytest.mark.parametrize("fact, message", [
    (MoveResult(struck=("away:nobody",)), "unknown piece"),
    (MoveResult(struck=("home:stegosaurus",)), "its own flick"),
])
def test_inconsistent_move_facts(fact, message):
    game = start()
    game.push(Activate("home:stegosaurus", "move"))
    with pytest.raises(FactError, match=message):
        game.push(fact)


# --- Pass --------------------------------------------------------------------------------------


def _pass(game, result, piece="home:triceratops"):
    game.push(Activate(piece, "pass"))
    if game.offers():
        game.push(Skip())
    return play(game, result)


@pytest.mark.parametrize("result, carrier, loose, offense, extra", [
    (PassResult(caught_by="home:stegosaurus"), "home:stegosaurus", False, "home", None),      # caught
    (PassResult(caught_by="home:stegosaurus", automatic=True), "home:stegosaurus", False, "home", None),
    (PassResult(caught_by="away:mauisaurus"), "away:mauisaurus", False, "away", "turnover"),  # intercepted
    (PassResult(), None, True, "home", "loose_ball"),                                          # no hit
    (PassResult(out_of_bounds=True), None, False, "away", "turnover"),                        # out
])
def test_pass_outcomes(result, carrier, loose, offense, extra):
    game = start()
    kinds = _pass(game, result)
    st = game.state
    assert st["ball"]["carrier"] == carrier and st["ball"]["loose"] == loose and st["offense"] == offense
    if extra:
        assert extra in kinds


@pytest.mark.parametrize("result, error", [
    (PassResult(caught_by="away:mauisaurus", automatic=True), IllegalActionError),  # automatic: friendly only
    (PassResult(caught_by="home:stegosaurus", out_of_bounds=True), FactError),        # caught and out
    (PassResult(caught_by="home:triceratops"), FactError),                            # the passer itself
    (PassResult(automatic=True), FactError),                                          # automatic to nobody
])
def test_bad_pass_facts(result, error):
    game = start()
    game.push(Activate("home:triceratops", "pass"))
    game.push(Skip())
    with pytest.raises(error):
        game.push(result)


# --- Shoot -------------------------------------------------------------------------------------


def _shoot(game, result, piece="home:triceratops"):
    game.push(Activate(piece, "shoot"))
    if game.offers():
        game.push(Skip())
    return play(game, result)


@pytest.mark.parametrize("result, score, phase, loose, offense", [
    (ShotResult(overlaps_zone=True), 2, "reset", False, "away"),                              # 2 points
    (ShotResult(overlaps_zone=True, shooter_outside_three=True), 3, "reset", False, "away"),  # 3 points
    (ShotResult(), 0, "play", True, "home"),                                                  # miss: loose
    (ShotResult(out_of_bounds=True), 0, "reset", False, "away"),                              # out: turnover
])
def test_shot_outcomes(result, score, phase, loose, offense):
    game = start()
    _shoot(game, result)
    st = game.state
    assert st["score"]["home"] == score and st["phase"] == phase
    assert st["ball"]["loose"] == loose and st["offense"] == offense


def test_after_a_score_the_other_team_resets_and_starts():
    game = start()
    _shoot(game, ShotResult(overlaps_zone=True))
    assert game.pending() == {"kind": "carrier", "side": "away"}
    from .dino_dunk_helpers import events

    from rules.dino_dunk import ChooseCarrier, PlacementDone

    play(game, ChooseCarrier("away:spinosaurus"), PlacementDone("away"), PlacementDone("home"))
    assert game.state["turn"]["side"] == "away" and game.state["turn"]["number"] == 2
    assert events(game, "turn") == [{"number": 2, "side": "away"}]


@pytest.mark.parametrize("result", [
    ShotResult(overlaps_zone=True, touched_backboard=True),   # no backboard without the variant
    ShotResult(overlaps_zone=True, out_of_bounds=True),       # contradictory
])
def test_bad_shot_facts(result):
    game = start()
    game.push(Activate("home:triceratops", "shoot"))
    game.push(Skip())
    with pytest.raises(FactError):
        game.push(result)


# --- Dunk --------------------------------------------------------------------------------------


@pytest.mark.parametrize("result, score, carrier, loose, offense", [
    (DunkResult(overlaps_zone=True, ball_on_top=True), 2, None, False, "away"),        # Dunk: 2 points
    (DunkResult(overlaps_zone=True, ball_on_top=False), 0, None, True, "home"),       # ball fell: loose
    (DunkResult(overlaps_zone=False, ball_on_top=True), 0, "home:tyrannosaurus_rex", False, "home"),  # short
    (DunkResult(overlaps_zone=False, ball_on_top=True, out_of_bounds=True), 0, None, False, "away"),
])
def test_dunk_outcomes(result, score, carrier, loose, offense):
    game = start(carrier="home:tyrannosaurus_rex")
    game.push(Activate("home:tyrannosaurus_rex", "dunk"))
    play(game, result)
    st = game.state
    assert st["score"]["home"] == score and st["ball"]["carrier"] == carrier
    assert st["ball"]["loose"] == loose and st["offense"] == offense
