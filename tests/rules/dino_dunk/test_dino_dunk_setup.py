"""Game Setup (steps 1-11), the card list and new_game's checks."""

from __future__ import annotations

import json

import pytest
from .dino_dunk_helpers import METEORS, TROPICS, play, start

from rules.core import IllegalActionError
from rules.dino_dunk import (ChooseCarrier, ChooseRoster, FlipBall, PlacementDone, SetupError, new_game)
from rules.dino_dunk.cards import CARDS_PATH, load_catalogue, valid_rosters


def test_cards_json_holds_twenty_cards_with_the_unknown_ones_marked():
    with open(CARDS_PATH, encoding="utf-8") as fh:
        data = json.load(fh)
    cards = data["cards"]
    assert len(cards) == 20
    for team in ("mesozoic_meteors", "triassic_tropics"):
        mine = [c for c in cards if c["team"] == team]
        assert len(mine) == 10
        assert sum(1 for c in mine if c["complete"]) == 5
        for c in mine:
            if not c["complete"]:
                assert c["name"] is None and "NOT PRINTED IN THE RULEBOOK" in c["todo"]
    assert set(k for k in data["exhibition"] if not k.startswith("_")) == {"small", "medium", "large"}
    assert data["exhibition"]["medium"]["abilities"] == ["bounce_pass", "layup"]


def test_the_printed_cards_allow_exactly_one_roster_per_team():
    cat = load_catalogue()
    assert valid_rosters(cat, "mesozoic_meteors") == [tuple(sorted(METEORS))]
    assert valid_rosters(cat, "triassic_tropics") == [tuple(sorted(TROPICS))]


@pytest.mark.parametrize("cards, message", [
    (METEORS[:4], "five different"),                                        # too few
    (METEORS[:4] + [METEORS[0]], "five different"),                         # a duplicate
    (METEORS[:4] + ["spinosaurus"], "not one of the ten"),                  # another team's card
    (METEORS[:4] + ["mesozoic_meteors_card_6"], "not transcribed"),         # a card not in the rulebook
])
def test_bad_rosters_are_refused(cards, message):
    game = new_game()
    with pytest.raises(IllegalActionError, match=message):
        game.push(ChooseRoster("home", tuple(cards)))
    assert game.state["rosters"]["home"] is None


def test_roster_needs_one_small_three_medium_one_large():
    # Complete two placeholder cards so that a roster with two large dinosaurs can be named.
    overrides = {"mesozoic_meteors_card_6": {"name": "Allosaurus", "size": "large", "actions": ["move"],
                                             "abilities": []}}
    game = new_game(card_overrides=overrides)
    bad = ("tyrannosaurus_rex", "mesozoic_meteors_card_6", "stegosaurus", "velociraptor", "brontosaurus")
    with pytest.raises(IllegalActionError, match="exactly one small dinosaur, three medium"):
        game.push(ChooseRoster("home", bad))
    good = ("mesozoic_meteors_card_6", "triceratops", "stegosaurus", "velociraptor", "brontosaurus")
    game.push(ChooseRoster("home", good))  # a completed card is usable


def test_rosters_are_revealed_together_then_the_ball_is_flipped():
    game = new_game()
    kinds = play(game, ChooseRoster("home", tuple(METEORS)))
    assert kinds == ["roster_chosen"] and game.state["pieces"] == {}
    with pytest.raises(IllegalActionError, match="already chosen"):
        game.push(ChooseRoster("home", tuple(METEORS)))
    kinds = play(game, ChooseRoster("away", tuple(TROPICS)))
    assert kinds == ["roster_chosen", "rosters_revealed"]
    assert len(game.state["pieces"]) == 10 and game.state["phase"] == "flip"
    assert game.state["pieces"]["home:tyrannosaurus_rex"]["actions"] == ["move", "pass", "dunk"]
    play(game, FlipBall("away"))
    # Step 10: the possession token is on the starting space of the offensive team's shot clock.
    assert game.state["offense"] == "away" and game.state["clock"] == {"side": "away", "space": 0}
    assert game.pending() == {"kind": "carrier", "side": "away"}


def test_setup_steps_7_to_11_in_order():
    game = new_game(rosters={"home": METEORS, "away": TROPICS}, offense="home")
    with pytest.raises(IllegalActionError, match="step 7"):
        game.push(ChooseCarrier("away:spinosaurus"))  # the offensive team chooses
    with pytest.raises(IllegalActionError, match="step 7"):
        game.push(PlacementDone("home"))  # carrier first
    game.push(ChooseCarrier("home:velociraptor"))
    assert game.state["ball"]["carrier"] == "home:velociraptor"
    with pytest.raises(IllegalActionError, match="step 8"):
        game.push(PlacementDone("away"))  # the offense places before the defense
    game.push(PlacementDone("home"))
    kinds = play(game, PlacementDone("away", positions=(("away:spinosaurus", 100, 200),)))
    # Tail Guard: "This dinosaur begins the game by placing their tail token adjacent".
    assert kinds == ["placed", "placed_team", "turn"]
    # Step 11: "The offensive team then takes the first turn and activates two dinosaurs."
    assert game.state["turn"] == {"number": 1, "side": "home", "activated": [], "stole": False}
    assert game.state["positions"] == {"away:spinosaurus": [100, 200]}


@pytest.mark.parametrize("setup, message", [
    ({"options": {"nope": 1}}, "unknown option"),
    ({"options": {"three_point_judged_by": "toes"}}, "must be one of"),
    ({"options": {"friendly_strike_is_foul": "yes"}}, "true or false"),
    ({"variants": ["street"]}, "unknown variant"),
    ({"target_score": 0}, "target score"),
    ({"teams": {"home": "mesozoic_meteors"}}, "two teams"),
    ({"teams": {"home": "x", "away": "triassic_tropics"}}, "unknown team"),
    ({"card_overrides": {"t": {"team": "mesozoic_meteors", "size": "huge", "actions": []}}}, "size"),
    ({"offense": "home"}, "rosters first"),
])
def test_new_game_refuses_bad_setups(setup, message):
    with pytest.raises(SetupError, match=message):
        new_game(**setup)


def test_variant_names_are_normalised():
    assert new_game(variants=["Exhibition Match", "backboard"]).state["variants"] == ["backboard", "exhibition"]


def test_any_target_score():
    game = start(target_score=4)
    assert game.state["target_score"] == 4
    assert "(to 4)" in game.summary()
