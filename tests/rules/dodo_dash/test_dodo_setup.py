"""Setup: 1-9 players, tracks by player count, start hexes, hands, decks, tiles, Challengers."""

import pytest
from .dodo_helpers import movement_total

from rules.dodo_dash import SetupError, new_game


@pytest.mark.parametrize("n", range(1, 10))
def test_every_player_count_deals_six_and_keeps_84_cards(n):
    g = new_game(players=[f"P{i}" for i in range(n)], seed=n)
    racers = g.state["racers"]
    assert len(racers) == (n + 2 if n <= 2 else n)  # solo and 2-player add 2 Challengers
    assert all(len(R["hand"]) == 6 for R in racers)
    assert len(g.state["deck"]) == 84 - 6 * len(racers)
    assert movement_total(g) == 84
    assert len(g.state["power_deck"]) == 12
    assert g.pending == {"kind": "choose"} and g.state["round"] == 1


@pytest.mark.parametrize("n,track", [(1, "outer"), (3, "outer"), (4, "outer"), (5, "inner"), (9, "inner")])
def test_outer_track_up_to_four_racers_inner_from_five(n, track):
    assert new_game(players=[f"P{i}" for i in range(n)]).state["track"] == track


def test_start_hexes_from_the_last_player_counter_clockwise():
    # first player P0: turn order P0..P5; the last 2 (P5, P4) on the 1st hex behind the line,
    # the next 2 (P3, P2) on the 2nd, the rest (P1, P0) on the 3rd.
    g = new_game(players=[f"P{i}" for i in range(6)])
    assert [R["pos"] for R in g.state["racers"]] == [-3, -3, -2, -2, -1, -1]
    g = new_game(players=[f"P{i}" for i in range(6)], first_player="P2")
    assert {R["id"]: R["pos"] for R in g.state["racers"]} == {
        "P0": -1, "P1": -1, "P2": -3, "P3": -3, "P4": -2, "P5": -2}


def test_jungle_places_a_face_down_trap_on_each_trap_hex():
    g = new_game(players=["A", "B", "C"], board="jungle", seed=2)
    traps = g.state["traps"]
    assert sorted(int(h) for h in traps) == g.state["layout"]["traps"] and len(traps) == 7
    assert not any(t["revealed"] for t in traps.values())
    assert len([b for b in g.state["box"] if b.startswith("trap:")]) == 5  # unused tiles to the box
    inner = new_game(players=list("ABCDE"), board="jungle", seed=2)
    assert len(inner.state["traps"]) == 5
    assert len(new_game(players=list("AB"), board="jungle", track="connected").state["traps"]) == 12


def test_temple_places_one_charm_tile_and_shuffles_the_charm_deck():
    g = new_game(players=["A", "B", "C"], board="temple")
    assert list(g.state["charm_hexes"]) == ["19"]
    assert len(g.state["charm_pool"]) == 4 and len(g.state["charm_deck"]) == 6
    assert len(new_game(players=list("AB"), board="temple", track="connected").state["charm_hexes"]) == 2


def test_challengers_take_the_difficulty_on_their_racer_card_by_default():
    g = new_game(players=["Solo"], racers=["racer-1"])
    assert [(R["racer"], R["difficulty"]) for R in g.state["racers"][1:]] == [("racer-2", "hard"), ("racer-3", "easy")]


def test_challengers_get_a_face_down_deck_of_six_and_a_difficulty():
    g = new_game(players=["Solo"], challengers=["easy", {"difficulty": "hard", "id": "Rex"}])
    ch = g.state["racers"][1:]
    assert [(R["id"], R["human"], R["difficulty"], len(R["hand"])) for R in ch] == [
        ("challenger-1", False, "easy", 6), ("Rex", False, "hard", 6)]


@pytest.mark.parametrize("kwargs,message", [
    (dict(players=[f"P{i}" for i in range(10)]), "1 to 9 players"),
    (dict(players=["A", "A"]), "distinct"),
    (dict(players=["A"], challengers=[]), "add 2 Challengers"),
    (dict(players=["A", "B", "C"], challengers=["easy"]), "only used with 1 or 2"),
    (dict(players=list("ABCDE"), variant="treasure"), "3-4 players"),
    (dict(players=["A", "B", "C"], board="moon"), "jungle"),
    (dict(players=["A", "B", "C"], dice="loaded"), "dice"),
    (dict(players=["A", "B", "C"], hands={"A": ["boring", "boring"]}), "no 'boring' left"),
    (dict(players=["A", "B", "C"], layout={"loop": True, "hexes": 3}), "hexes"),
    (dict(players=["A", "B", "C"], cards={"movement": []}), "catalogue has errors"),
])
def test_setup_errors_name_the_rule(kwargs, message):
    with pytest.raises(SetupError, match=message):
        new_game(**kwargs)


def test_layout_override_is_a_new_game_option():
    g = new_game(players=["A", "B", "C"], layout={"loop": True, "hexes": 20, "traps": [4, 9]})
    assert g.track.size == 20 and len(g.state["traps"]) == 2
