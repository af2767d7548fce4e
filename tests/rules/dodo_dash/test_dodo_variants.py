"""Treasure Hunt variant and the solo / 2-player Challengers."""

import pytest
from .dodo_helpers import catalogue_with, choose_all, close_windows, drain, pos

from rules.dodo_dash import Choose, Roll, new_game

# -- Treasure Hunt -------------------------------------------------------------------------------


def test_treasure_hunt_setup():
    g = new_game(players=list("ABCD"), variant="treasure", seed=1)
    st = g.state
    assert st["board"] == "temple" and st["track"] == "outer" and st["charm_hexes"] == {}
    assert [R["pos"] for R in st["racers"]] == st["layout"]["treasure_bases"] == [4, 13, 22, 30]
    assert all(R["tokens"] == 3 and len(R["powers"]) == 1 and R["boost"] == 0 for R in st["racers"])
    assert len(st["power_deck"]) == 8
    g3 = new_game(players=list("ABC"), variant="treasure", seed=1)
    assert g3.state["track"] == "inner" and [R["pos"] for R in g3.state["racers"]] == [0, 9, 19]


TH_LAYOUT = {"loop": True, "hexes": 36, "treasure_bases": [0, 9, 18, 27]}


def th(**kw):
    kw.setdefault("hands", {"A": ["normal-01", "normal-02"], "B": ["normal-03", "normal-04"],
                            "C": ["normal-05", "normal-06"], "D": ["normal-07", "normal-08"]})
    return new_game(players=list("ABCD"), variant="treasure", layout=dict(TH_LAYOUT), seed=4, **kw)


def test_boost_card_adds_speed_and_steps_on_each_round():
    g = th(positions={"A": 1, "B": 10, "C": 19, "D": 28}, boost={"A": 5, "B": 5, "C": 5, "D": 5})
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05", "D": "normal-07"})
    close_windows(g)
    assert [e.data["speed"] for e in g.last_events if e.kind == "speed"] == [3 + 2] * 4
    assert all(R["boost"] == 6 for R in g.state["racers"])
    assert not any(e.kind == "lead" for e in g.last_events)  # no Lead Racer advance in this variant


def test_ahead_and_behind_mean_all_other_players():
    cat = catalogue_with(aggressive_01={"effects": [{"op": "move", "target": "ahead", "n": -1}]})
    g = th(cards=cat, hands={"A": ["aggressive-01", "normal-01"], "B": ["normal-03", "normal-04"],
                             "C": ["normal-05", "normal-06"], "D": ["normal-07", "normal-08"]},
           positions={"A": 2, "B": 11, "C": 20, "D": 29})
    choose_all(g, {"A": "aggressive-01", "B": "normal-03", "C": "normal-05", "D": "normal-07"})
    close_windows(g)
    effect_moves = [e.data["racer"] for e in g.last_events if e.kind == "move" and e.data["cause"] == "effect"]
    assert effect_moves == ["B", "C", "D"]


def test_hunted_racer_is_immune_to_damage_from_others_until_it_leaves_the_base():
    cat = catalogue_with(aggressive_01={"effects": [{"op": "damage", "target": "others", "n": 1}]})
    g = th(cards=cat, hands={"A": ["aggressive-01", "normal-01"], "B": ["normal-03", "normal-04", "normal-09"],
                             "C": ["normal-05", "normal-06"], "D": ["normal-07", "normal-08"]},
           positions={"A": 2, "B": 9, "C": 20, "D": 29})
    g.state["racers"][1]["immune"] = True
    g.state["racers"][1]["base"] = 9
    choose_all(g, {"A": "aggressive-01", "B": "normal-03", "C": "normal-05", "D": "normal-07"})
    ev = drain(g)
    assert next(e.data for e in ev if e.kind == "immune") == {"racer": "B", "damage": 1}
    assert {"racer": "B"} in [e.data for e in ev if e.kind == "immunity_lost"]  # B's own move leaves the Base
    assert not g.racer("B")["immune"]


def test_a_token_from_every_opponent_wins_at_once():
    g = th(positions={"A": 1, "B": 3, "C": 20, "D": 29}, taken={"A": ["C", "D"]})
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05", "D": "normal-07"})
    assert g.outcome().winners == ("A",) and g.outcome().reason == "treasure_from_everyone"
    assert g.outcome().scores["A"] == 3 + 3 and g.legal_actions() == []


def test_the_hunt_ends_one_round_after_the_plus_11_step():
    g = th(positions={"A": 1, "B": 10, "C": 19, "D": 28}, boost={p: 10 for p in "ABCD"},
           hands={"A": ["normal-01", "normal-02", "normal-11"], "B": ["normal-03", "normal-04"],
                  "C": ["normal-05", "normal-06"], "D": ["normal-07", "normal-08"]})
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05", "D": "normal-07"})
    close_windows(g)
    assert g.state["final_round"] and g.outcome() is None
    for R in g.state["racers"]:
        card = next(c for c in R["hand"] if g.cat["cards"][c]["type"] != "reaction")
        g.push(Choose(R["id"], card))
    close_windows(g)
    while g.outcome() is None:
        g.push(g.legal_actions()[0])
    assert g.outcome().reason == "most_treasure"
    assert set(g.outcome().winners) <= set("ABCD")


# -- Challengers -----------------------------------------------------------------------------------
def solo(challenger_cards, difficulty="normal", cards=None, **kw):
    hands = {"Me": ["normal-01", "normal-02", "normal-03"], "challenger-1": challenger_cards,
             "challenger-2": ["normal-20", "normal-21", "normal-22"]}
    return new_game(players=["Me"], challengers=[difficulty, "easy"], cards=cards, hands=hands, dice="table",
                    layout={"loop": True, "hexes": 36}, seed=9,
                    positions={"Me": 0, "challenger-1": 0, "challenger-2": 0}, **kw)


@pytest.mark.parametrize("icon,difficulty,expected", [
    ("paw", "easy", 3 + 1), ("paw", "normal", 3 + 2), ("paw", "hard", 3 + 3),
    ("claw", "easy", 3 * 2), ("claw", "normal", 3 * 3), ("claw", "hard", 3 * 4),
    ("bag", "easy", 2), ("bag", "normal", 2 + 2), ("bag", "hard", 2 + 2 + 2),   # dice of 2
    ("wing", "easy", 4), ("wing", "normal", 5), ("wing", "hard", 6),
])
def test_challenger_difficulty_table(icon, difficulty, expected):
    cat = catalogue_with(normal_30={"icon": icon, "speed": 3}, normal_20={"icon": "wing"})
    g = solo(["normal-30", "normal-31", "normal-32"], difficulty, cards=cat)
    events = list(g.push(Choose("Me", "normal-01")))
    while g.pending and g.pending["kind"] != "choose":
        act = Roll(2) if g.pending["kind"] == "roll" else g.legal_actions()[0]
        events += g.push(act)
    speed = [e.data["speed"] for e in events if e.kind == "speed" and e.data["racer"] == "challenger-1"]
    assert speed == [expected]


def test_claw_deals_two_damage_to_human_players_unless_enraged():
    cat = catalogue_with(normal_30={"icon": "claw", "speed": 1})
    g = solo(["normal-30", "normal-31"], "easy", cards=cat)
    ev = g.push(Choose("Me", "normal-01"))
    assert next(e.data for e in ev if e.kind == "damage") == {
        "racer": "Me", "n": 2, "discarded": ["normal-02", "normal-03"], "over": 0}
    # Enraged: 3 Aggressive cards revealed (the human's and both Challengers') cancel the damage
    cat = catalogue_with(aggressive_10={"icon": "claw", "speed": 1}, aggressive_11={"icon": "paw"})
    hands = {"Me": ["aggressive-12", "normal-02", "normal-03"], "challenger-1": ["aggressive-10", "normal-31"],
             "challenger-2": ["aggressive-11", "normal-22"]}
    g = new_game(players=["Me"], cards=cat, hands=hands, layout={"loop": True, "hexes": 36}, seed=9)
    g.push(Choose("Me", "aggressive-12"))
    close_windows(g)
    ev = g.last_events
    assert any(e.kind == "enraged" for e in ev)
    assert not any(e.kind == "damage" and e.data["racer"] == "Me" for e in ev)


def test_damage_to_a_challenger_discards_from_its_deck_then_it_recovers():
    cat = catalogue_with(aggressive_01={"effects": [{"op": "damage", "target": "others", "n": 2}]},
                         normal_30={"icon": "paw"}, normal_20={"icon": "paw"})
    hands = {"Me": ["aggressive-01", "normal-02"], "challenger-1": ["normal-30", "normal-31", "normal-32"],
             "challenger-2": ["normal-20", "normal-21"]}
    g = new_game(players=["Me"], cards=cat, hands=hands, layout={"loop": True, "hexes": 36}, seed=9,
                 positions={"Me": 0, "challenger-1": 5, "challenger-2": 5})
    g.push(Choose("Me", "aggressive-01"))
    ev = g.last_events
    dmg = {e.data["racer"]: e.data["discarded"] for e in ev if e.kind == "damage"}
    assert dmg == {"challenger-1": ["normal-31", "normal-32"], "challenger-2": ["normal-21"]}
    assert [e.data["racer"] for e in ev if e.kind == "recover"] == ["challenger-1", "challenger-2"]
    moves = [e.data for e in ev if e.kind == "move" and e.data["racer"] == "challenger-2"]
    assert moves[0] == {"racer": "challenger-2", "to": 2, "by": -3, "cause": "recover"}


def test_challengers_ignore_traps():
    cat = catalogue_with(normal_30={"icon": "wing"})
    hands = {"Me": ["normal-01", "normal-02"], "challenger-1": ["normal-30", "normal-31"],
             "challenger-2": ["normal-20", "normal-21"]}
    g = new_game(players=["Me"], board="jungle", cards=cat, hands=hands, seed=9, challengers=["normal", "normal"],
                 layout={"loop": True, "hexes": 36, "traps": [5, 20]}, traps={5: "trap-back-2"},
                 positions={"Me": -10, "challenger-1": 0, "challenger-2": -10})
    g.push(Choose("Me", "normal-01"))
    close_windows(g)
    assert pos(g, "challenger-1") in (5, 6) and not g.state["traps"]["5"]["revealed"]


def test_challengers_draw_into_their_deck_at_the_end_of_round():
    cat = catalogue_with(normal_30={"icon": "wing"}, normal_20={"icon": "paw", "speed": 1})
    hands = {"Me": ["normal-01", "normal-02"], "challenger-1": ["normal-30", "normal-31"],
             "challenger-2": ["normal-20", "normal-21"]}
    g = new_game(players=["Me"], cards=cat, hands=hands, seed=9, layout={"loop": True, "hexes": 36},
                 deck_top=["boring"], positions={"Me": 0, "challenger-1": 0, "challenger-2": 0})
    ev = drain(g)
    ev = drain(g, list(g.push(Choose("Me", "normal-01"))))
    lead = next(e.data["racers"] for e in ev if e.kind == "lead")
    drawers = [e.data["racer"] for e in ev if e.kind == "draw"]
    assert drawers == [r for r in ("Me", "challenger-1", "challenger-2") if r not in lead]
    first = next(e.data for e in ev if e.kind == "draw")
    assert first["cards"] == ["boring"] and g.racer(first["racer"])["hand"][-1] == "boring"  # deck bottom


def test_passing_several_racers_hunts_each_one_you_have_no_token_from():
    g = th(positions={"A": 1, "B": 3, "C": 4, "D": 29}, taken={"A": ["C"]})
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05", "D": "normal-07"})
    ev = drain(g)
    hunts = [e.data for e in ev if e.kind in ("hunt", "hunt_immune")]
    assert hunts[0] == {"hunter": "A", "prey": "B"}  # C is passed too, but A already holds C's token
    assert g.racer("A")["taken"] == ["C", "B"]
    sent = [e.data for e in ev if e.kind == "move" and e.data["cause"] == "hunted"]
    assert sent == [{"racer": "B", "to": 0, "by": -3, "cause": "hunted"}]  # the nearest Base behind B


@pytest.mark.parametrize("tokens,hands,winners", [
    ({"A": (3, ["B"]), "B": (2, []), "C": (3, []), "D": (3, [])}, {}, ["A"]),          # 4 tokens
    ({"A": (3, []), "B": (3, []), "C": (3, []), "D": (3, [])}, {"B": 5}, ["B"]),        # tie: most cards
    ({"A": (3, []), "B": (3, []), "C": (3, []), "D": (3, [])}, {"B": 5, "C": 5}, ["B", "C"]),  # shared
])
def test_end_of_hunt_tie_breaks(tokens, hands, winners):
    from rules.dodo_dash import treasure

    g = th()
    for R in g.state["racers"]:
        R["tokens"], R["taken"] = tokens[R["id"]][0], list(tokens[R["id"]][1])
        R["hand"] = ["x"] * hands.get(R["id"], 2)
    g._events = []
    treasure.end_of_hunt(g)
    assert g.outcome().winners == tuple(winners) and g.outcome().reason == "most_treasure"
