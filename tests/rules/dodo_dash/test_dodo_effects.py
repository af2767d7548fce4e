"""Damage, costs, blocking chains, drawing and stealing, projectiles, targets, abilities and powers."""

import pytest
from .dodo_helpers import catalogue_with, choose_all, close_windows, hand, kinds, plain_game, pos

from rules.dodo_dash import (
    CardNotInHand, Decide, Discard, DodoDashError, EndReactions, Hits, NotYourDecision, PlayReaction, Target,
    UsePower,
)

FILL = {"B": ["normal-03", "normal-04", "normal-07"], "C": ["normal-05", "normal-06", "normal-08"]}


def game_with(card_fields, a_hand, **kw):
    """A plays aggressive-01 (given ``card_fields``) first; B and C play Normal cards."""
    cat = catalogue_with(aggressive_01=card_fields)
    hands = dict(FILL, A=a_hand)
    hands.update(kw.pop("hands", {}))
    return plain_game(cards=cat, hands=hands, **kw)


def start(g, a_card="aggressive-01"):
    choose_all(g, {"A": a_card, "B": "normal-03", "C": "normal-05"})


# -- Damage --------------------------------------------------------------------------------------
def test_damage_lets_the_player_choose_the_discards():
    g = game_with({"effects": [{"op": "damage", "target": "others", "n": 1}]}, ["aggressive-01", "normal-01"])
    start(g)
    assert g.pending == {"kind": "discard", "player": "B", "n": 1}
    assert g.legal_actions() == [Discard("B", ("normal-04",)), Discard("B", ("normal-07",))]
    with pytest.raises(DodoDashError, match="exactly 1"):
        g.push(Discard("B", ("normal-04", "normal-07")))
    with pytest.raises(CardNotInHand):
        g.push(Discard("B", ("boring",)))
    with pytest.raises(NotYourDecision):
        g.push(Discard("C", ("normal-06",)))
    g.push(Discard("B", ("normal-07",)))
    assert hand(g, "B") == ["normal-04"]
    assert g.pending == {"kind": "discard", "player": "C", "n": 1}
    g.push(Discard("C", ("normal-06",)))
    assert hand(g, "C") == ["normal-08"]


def test_over_damage_discards_everything_and_recovers_at_the_end_of_the_turn():
    g = game_with({"effects": [{"op": "damage", "target": "ahead", "n": 5}]}, ["aggressive-01", "normal-01"],
                  positions={"A": -3, "B": 10, "C": -3})
    start(g)
    ev = g.last_events
    dmg = next(e for e in ev if e.kind == "damage")
    assert dmg.data == {"racer": "B", "n": 5, "discarded": ["normal-04", "normal-07"], "over": 3}
    k = kinds(ev)
    assert k.index("damage") < k.index("recover")
    assert next(e for e in ev if e.kind == "recover").data == {"racer": "B"}


def test_cost_without_enough_cards_cancels_the_whole_effect_without_discarding():
    fields = {"effects": [{"op": "cost", "n": 2}, {"op": "move", "target": "others", "n": -2}]}
    g = game_with(fields, ["aggressive-01", "normal-01"], positions={"A": -3, "B": 5, "C": 5})
    start(g)
    assert any(e.kind == "canceled" and e.data["by"] == "cost" for e in g.last_events)
    assert not any(e.kind == "damage" for e in g.last_events)  # nothing discarded
    assert not [e for e in g.last_events if e.kind == "move" and e.data["cause"] == "effect"]


def test_cost_paid_then_the_effect_resolves():
    fields = {"effects": [{"op": "cost", "n": 1}, {"op": "move", "target": "others", "n": -2}]}
    g = game_with(fields, ["aggressive-01", "normal-01", "normal-02"], positions={"A": -3, "B": 5, "C": 5})
    start(g)
    assert g.pending == {"kind": "discard", "player": "A", "n": 1}
    ev = g.push(Discard("A", ("normal-02",)))
    assert [e.data for e in ev if e.kind == "move" and e.data["cause"] == "effect"] == [
        {"racer": "B", "to": 3, "by": -2, "cause": "effect"}, {"racer": "C", "to": 3, "by": -2, "cause": "effect"}]


def test_overpower_in_the_catalogue_has_a_cost():
    g = plain_game(hands=dict(FILL, A=["overpower"]), positions={"A": 0, "B": 0, "C": 0})
    start(g, "overpower")
    assert any(e.kind == "canceled" and e.data["by"] == "cost" for e in g.last_events)


# -- Blocking chains -----------------------------------------------------------------------------
def test_a_chain_of_three_cancels_resolves_from_the_top():
    cat = catalogue_with(aggressive_01={"effects": [{"op": "move", "target": "ahead", "n": -1}]},
                         reaction_01={"effects": [{"op": "cancel"}]})
    g = plain_game(cards=cat, hands={"A": ["aggressive-01", "normal-01", "reaction-01"],
                                     "B": ["normal-03", "fine-blocking", "normal-04"],
                                     "C": ["normal-05", "great-blocking", "normal-06"]},
                   positions={"A": -3, "B": 5, "C": 5})
    start(g)
    g.push(PlayReaction("B", "fine-blocking"))   # cancels A's card
    g.push(PlayReaction("C", "great-blocking"))  # cancels Fine Blocking, 1 damage to B
    ev = g.push(PlayReaction("A", "reaction-01"))  # cancels Great Blocking
    canceled = [e.data["card"] for e in ev if e.kind == "canceled"]
    assert canceled == ["great-blocking", "aggressive-01"]  # so Fine Blocking stands
    assert not any(e.kind == "damage" for e in ev)
    assert not [e for e in ev if e.kind == "move" and e.data["cause"] == "effect"]  # nobody moved back


def test_a_non_cancel_reaction_after_the_effect():
    g = plain_game(hands={"A": ["boring", "fast-legs"], "B": ["normal-03"], "C": ["normal-05"]},
                   positions={"A": 0, "B": 0, "C": 0})
    start(g, "boring")
    assert g.pending == {"kind": "reactions", "stage": "effect"}
    g.push(EndReactions())
    assert g.pending == {"kind": "reactions", "stage": "after"}
    g.push(PlayReaction("A", "fast-legs"))
    moves = [e.data for e in g.last_events if e.kind == "move" and e.data["racer"] == "A"]
    assert moves[:2] == [{"racer": "A", "to": 7, "by": 2, "cause": "effect"},
                         {"racer": "A", "to": 4, "by": -3, "cause": "recover"}]  # then an empty hand


# -- Drawing, stealing, reshuffling --------------------------------------------------------------
def test_an_empty_deck_is_refilled_by_shuffling_the_discard_pile():
    g = game_with({"effects": [{"op": "draw", "target": "self", "n": 3}]}, ["aggressive-01"])
    g.state["discard"] = g.state["deck"][2:]
    g.state["deck"] = g.state["deck"][:2]
    start(g)
    ev = g.last_events
    assert "reshuffle" in kinds(ev)
    draws = next(e for e in ev if e.kind == "draw" and e.data["racer"] == "A")
    assert len(draws.data["cards"]) == 3


def test_steal_takes_random_cards_seeded_and_recorded():
    g = game_with({"effects": [{"op": "steal", "target": "others", "n": 1}]}, ["aggressive-01"])
    start(g)
    steals = [e.data for e in g.last_events if e.kind == "steal"]
    assert [s["victim"] for s in steals] == ["B", "C"]
    assert all(s["card"] in FILL[s["victim"]] for s in steals)
    again = game_with({"effects": [{"op": "steal", "target": "others", "n": 1}]}, ["aggressive-01"])
    start(again)
    assert [e.data for e in again.last_events if e.kind == "steal"] == steals  # same seed, same steal


def test_choose_other_asks_for_a_target():
    g = game_with({"effects": [{"op": "move", "target": "choose_other", "n": -2}]}, ["aggressive-01"],
                  positions={"A": 0, "B": 6, "C": 6})
    start(g)
    assert g.pending == {"kind": "target", "player": "A", "options": ["B", "C"]}
    with pytest.raises(DodoDashError, match="choose one of"):
        g.push(Target("A", "A"))
    ev = g.push(Target("A", "C"))
    assert [e.data for e in ev if e.kind == "move" and e.data["cause"] == "effect"] == [
        {"racer": "C", "to": 4, "by": -2, "cause": "effect"}]


# -- Projectiles ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind,touched,hit", [
    ("meteorite", ("B", "A", "C"), ["B", "A", "C"]),  # any racers touched, your own included
    ("log", ("A",), ["A"]),
    ("banana", ("C", "B"), ["C", "B"]),
    ("feather", ("C", "B"), ["C"]),                    # only the first racer touched
    ("dodo", ("B", "C"), ["B"]),
    ("meteorite", (), []),                            # a miss
])
def test_projectiles_hit_the_racers_touched(kind, touched, hit):
    eff = {"op": "projectile", "kind": kind, "damage": 1}
    g = game_with({"effects": [eff]}, ["aggressive-01", "normal-01", "normal-02"],
                  positions={"A": 0, "B": 4, "C": 8})
    start(g)
    assert g.pending == {"kind": "hits", "projectile": kind, "by": "A"}
    g.push(Hits(touched))
    assert next(e for e in g.last_events if e.kind == "hit").data["racers"] == hit
    damaged = []
    while g.pending and g.pending["kind"] == "discard":
        damaged.append(g.pending["player"])
        g.push(g.legal_actions()[0])
    damaged += [e.data["racer"] for e in g.last_events if e.kind == "damage"]
    assert sorted(set(damaged)) == sorted(hit)


def test_the_egg_cannot_hit_racers_on_the_throwers_hex():
    g = game_with({"effects": [{"op": "projectile", "kind": "egg", "damage": 1}]}, ["aggressive-01"],
                  positions={"A": 0, "B": 2, "C": 5})
    start(g)  # A moves 2 onto B's hex
    assert pos(g, "A") == pos(g, "B") == 2
    with pytest.raises(DodoDashError, match="Egg"):
        g.push(Hits(("B",)))
    assert Hits(("B",)) not in g.legal_actions() and Hits(("C",)) in g.legal_actions()


def test_the_dodo_gains_dodo_idol_power_cards_when_it_hits():
    g = plain_game(hands=dict(FILL, A=["dodo"]), positions={"A": 0, "B": 4, "C": 8},
                   power_deck_top=["power-03"])
    start(g, "dodo")
    g.push(Hits(("C", "B")))
    assert g.racer("A")["powers"] == ["power-03"] and len(g.state["power_deck"]) == 11
    g2 = plain_game(hands=dict(FILL, A=["dodo"]), positions={"A": 0, "B": 4, "C": 8})
    start(g2, "dodo")
    g2.push(Hits(()))
    assert g2.racer("A")["powers"] == []


# -- Abilities and powers -------------------------------------------------------------------------
def powered_catalogue():
    cat = catalogue_with()
    cat["powers"][0].update({"trigger": "end_of_round", "may": True,
                             "effects": [{"op": "move", "target": "self", "n": 2}]})
    cat["powers"][1].update({"trigger": "reaction", "effects": [{"op": "draw", "target": "self", "n": 2}]})
    cat["racers"][1].update({"ability": {"trigger": "after_reveal", "effects": [{"op": "draw", "target": "self", "n": 1}]}})
    return cat


def test_end_of_round_power_is_optional_and_in_turn_order():
    g = plain_game(cards=powered_catalogue(), hands=dict(FILL, A=["normal-01", "normal-02"]),
                   positions={"A": 0, "B": 0, "C": 0})
    g.state["racers"][2]["powers"] = ["power-01"]
    g.state["racers"][0]["powers"] = ["power-01"]
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    close_windows(g)
    assert g.pending == {"kind": "may", "player": "A", "what": "power-01"}
    g.push(Decide("A", False))
    assert g.pending == {"kind": "may", "player": "C", "what": "power-01"}
    g.push(Decide("C", True))
    assert g.racer("C")["powers"] == [] and g.state["power_deck"][-1] == "power-01"


def test_after_reveal_racer_ability_and_a_reaction_power():
    g = plain_game(cards=powered_catalogue(), racers=["racer-1", "racer-2", "racer-3"],
                   hands=dict(FILL, A=["normal-01", "normal-02"]), positions={"A": 0, "B": 0, "C": 0})
    g.state["racers"][0]["powers"] = ["power-02"]
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    assert [e.data for e in g.last_events if e.kind == "ability"] == [{"racer": "B", "what": "racer-2"}]
    assert g.pending["kind"] == "reactions"
    assert UsePower("A", "power-02") in g.legal_actions()
    g.push(UsePower("A", "power-02"))
    close_windows(g)
    assert g.racer("A")["powers"] == []


def test_damage_triggers_resolve_before_the_discards():
    cat = catalogue_with(aggressive_01={"effects": [{"op": "damage", "target": "others", "n": 1}]})
    cat["racers"][1]["ability"] = {"trigger": "damage_taken", "effects": [{"op": "draw", "target": "self", "n": 1}]}
    cat["racers"][0]["ability"] = {"trigger": "damage_dealt", "effects": [{"op": "move", "target": "self", "n": 1}]}
    g = plain_game(cards=cat, racers=["racer-1", "racer-2", "racer-3"],
                   hands=dict(FILL, A=["aggressive-01", "normal-01"]), positions={"A": 0, "B": 5, "C": 5})
    start(g)
    # A's "when dealing damage" move and B's "when taking damage" draw come (in turn order) before
    # B chooses the discard, which now has 3 cards to choose from
    assert [e.data for e in g.last_events if e.kind == "ability"] == [
        {"racer": "A", "what": "racer-1"}, {"racer": "B", "what": "racer-2"}]
    assert "damage" not in kinds(g.last_events)
    assert g.pending == {"kind": "discard", "player": "B", "n": 1} and len(g.racer("B")["hand"]) == 3


def test_hit_trigger_fires_for_each_racer_hit_in_turn_order():
    cat = catalogue_with(aggressive_01={"effects": [{"op": "projectile", "kind": "meteorite", "damage": 0}]})
    for i in range(3):
        cat["racers"][i]["ability"] = {"trigger": "hit", "effects": [{"op": "draw", "target": "self", "n": 1}]}
    g = plain_game(cards=cat, racers=["racer-1", "racer-2", "racer-3"],
                   hands=dict(FILL, A=["aggressive-01", "normal-01"]), positions={"A": 0, "B": 5, "C": 5})
    start(g)
    ev = g.push(Hits(("C", "B")))
    assert [e.data["racer"] for e in ev if e.kind == "ability"] == ["B", "C"]


def test_a_player_without_cards_plays_none_that_round():
    g = plain_game(hands=dict(FILL, A=[]), positions={"A": 0, "B": 0, "C": 0})
    g.state["deck"], g.state["discard"] = [], []
    choose_all(g, {"B": "normal-03", "C": "normal-05"})
    assert g.state["round"] >= 1 and "reveal" in kinds(g.last_events)
