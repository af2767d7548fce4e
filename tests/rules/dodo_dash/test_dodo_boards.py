"""Dodorado Jungle traps and Dodorado Temple drifting and charms."""

import pytest
from .dodo_helpers import choose_all, pos

from rules.dodo_dash import Choose, Hits, Roll, new_game

JUNGLE = {"loop": True, "hexes": 36, "traps": [5, 10, 20]}
HANDS = {"A": ["normal-01", "normal-02", "normal-07", "dash-02"], "B": ["normal-03", "normal-04"],
         "C": ["normal-05", "normal-06"]}


def jungle(traps, positions=None, **kw):
    return new_game(players=["A", "B", "C"], board="jungle", layout=dict(JUNGLE), traps=traps, seed=1,
                    hands=kw.pop("hands", HANDS), positions=positions or {"A": 2, "B": -1, "C": -1}, **kw)


def settle(g, events):
    """Answer damage discards with the first legal choice, collecting events."""
    events.extend(g.last_events)
    while g.pending and g.pending["kind"] == "discard":
        events.extend(g.push(g.legal_actions()[0]))
    return events


def a_turn(g, card="normal-01"):
    """A's turn (A moves first), with the events from A's trap up to B's turn."""
    events = []
    for pid, c in (("A", card), ("B", "normal-03"), ("C", "normal-05")):
        g.push(Choose(pid, c))
        settle(g, events)
    k = [e.kind for e in events]
    start = k.index("turn")
    end = k.index("turn", start + 1) if "turn" in k[start + 1:] else len(k)
    return events[start:end]


def moved(seg, cause):
    return [e.data["to"] for e in seg if e.kind == "move" and e.data["racer"] == "A" and e.data["cause"] == cause]


def drew(seg):
    return sum(len(e.data["cards"]) for e in seg if e.kind == "draw" and e.data["racer"] == "A")


def discarded(seg):
    return sum(len(e.data["discarded"]) for e in seg if e.kind == "damage" and e.data["racer"] == "A")


# A plays a Speed-3 Normal card from hex 2 and ends its movement on the trap at hex 5.
@pytest.mark.parametrize("tile,trap_moves,cards_drawn,cards_lost", [
    ("trap-back-2", [3], 0, 0),                 # Go back 2 hexes.
    ("trap-advance-2", [7], 0, 0),              # Advance 2 hexes.
    ("trap-damage-2", [], 0, 2),                # Take 2 damage.
    ("trap-draw-2", [], 2, 0),                  # Draw 2 cards.
    ("trap-damage-1-advance-3", [8], 0, 1),     # Take 1 damage and advance 3 hexes.
    ("trap-draw-1-back-1", [4], 1, 0),          # Draw 1 card and move back 1 hex.
    ("trap-dash-draw-2", [], 0, 0),             # Dash-only: A played a Normal card.
])
def test_immediate_traps(tile, trap_moves, cards_drawn, cards_lost):
    g = jungle({5: tile})
    seg = a_turn(g)
    assert ("trap_revealed", {"hex": 5, "tile": tile}) in [(e.kind, e.data) for e in seg]
    assert moved(seg, "trap") == trap_moves
    assert drew(seg) == cards_drawn and discarded(seg) == cards_lost
    assert g.state["traps"]["5"]["revealed"]


def test_roll_a_die_trap_advances_the_roll():
    g = jungle({5: "trap-roll-advance"})
    seg = a_turn(g)
    roll = next(e.data["rolls"] for e in seg if e.kind == "rolled")
    assert moved(seg, "trap") == [5 + roll[0]]


def test_dash_trap_draws_two_when_a_dash_card_ends_there():
    g = jungle({5: "trap-dash-draw-2"}, positions={"A": 1, "B": -1, "C": -1})
    seg = a_turn(g, card="dash-02")  # Speed 4: 1 -> 5
    assert drew(seg) == 2


def test_a_trap_reached_by_moving_back_triggers():
    cards = {"B": ["thunderbolt", "normal-04"], "A": ["normal-01", "normal-02", "normal-07"], "C": ["normal-05", "normal-06"]}
    g = new_game(players=["B", "A", "C"], board="jungle", layout=dict(JUNGLE), traps={5: "trap-draw-2"}, seed=1,
                 hands=cards, positions={"B": -3, "A": 6, "C": -3})
    choose_all(g, {"B": "thunderbolt", "A": "normal-01", "C": "normal-05"})
    ev = g.last_events
    i = next(j for j, e in enumerate(ev) if e.kind == "move" and e.data["cause"] == "effect")
    assert ev[i].data == {"racer": "A", "to": 5, "by": -1, "cause": "effect"}
    assert ev[i + 1].kind == "trap_revealed" and ev[i + 2].kind == "trap"
    assert ev[i + 3].kind == "draw" and len(ev[i + 3].data["cards"]) == 2


def test_zone_damage_from_the_zone_tile_up_to_the_next_trap_once_revealed():
    # the zone at 5 runs over 5..9 (10 is the next trap hex)
    g = jungle({5: "zone-damage-1"}, positions={"A": 5, "B": -1, "C": -1})
    seg = a_turn(g)  # 5 -> 8: the tile is still face down: no zone yet
    assert discarded(seg) == 0
    g = jungle({5: "zone-damage-1"}, positions={"A": 5, "B": -1, "C": -1})
    g.state["traps"]["5"]["revealed"] = True
    seg = a_turn(g)  # 5 -> 8 inside the revealed zone
    assert discarded(seg) == 1
    g = jungle({5: "zone-damage-1"}, positions={"A": 7, "B": -1, "C": -1})
    g.state["traps"]["5"]["revealed"] = True
    seg = a_turn(g)  # 7 -> 10: the next trap hex is not in the zone
    assert discarded(seg) == 0


def test_zone_normal_card_speed_is_duplicated():
    g = jungle({5: "zone-normal-double"}, positions={"A": 2, "B": -1, "C": -1})
    g.state["traps"]["5"]["revealed"] = True
    seg = a_turn(g)  # 2 -> 5 (in the zone) and 3 more
    assert moved(seg, "speed") == [5] and moved(seg, "trap") == [8]
    g = jungle({5: "zone-normal-double"}, positions={"A": 1, "B": -1, "C": -1})
    g.state["traps"]["5"]["revealed"] = True
    seg = a_turn(g, card="dash-02")  # a Dash card is not doubled
    assert moved(seg, "trap") == []


def test_zone_reaction_card_advances_three():
    g = jungle({5: "zone-reaction-advance-3"}, positions={"A": 2, "B": -1, "C": -1},
               hands=dict(HANDS, A=["normal-01", "fast-legs", "normal-02"]))
    g.state["traps"]["5"]["revealed"] = True
    for pid, c in (("A", "normal-01"), ("B", "normal-03"), ("C", "normal-05")):
        g.push(Choose(pid, c))
    assert pos(g, "A") == 5 and g.pending["kind"] == "reactions"
    from rules.dodo_dash import PlayReaction
    ev = g.push(PlayReaction("A", "fast-legs"))
    assert [e.data["to"] for e in ev if e.kind == "move" and e.data["racer"] == "A"][:2] == [8, 10]


def test_zone_aggressive_card_is_not_canceled_by_enraged():
    hands = {"A": ["thunderbolt", "normal-02"], "B": ["aggressive-01", "normal-04"], "C": ["aggressive-02", "normal-06"]}
    g = jungle({5: "zone-aggressive-unenraged"}, positions={"A": 3, "B": 8, "C": 8}, hands=hands)
    g.state["traps"]["5"]["revealed"] = True
    choose_all(g, {"A": "thunderbolt", "B": "aggressive-01", "C": "aggressive-02"})
    ev = g.last_events
    assert any(e.kind == "enraged" for e in ev)
    assert any(e.kind == "zone" and e.data["zone"] == "aggressive_ignores_enraged" for e in ev)
    assert [e.data["racer"] for e in ev if e.kind == "move" and e.data["cause"] == "effect"] == ["B", "C"]


def test_a_trap_move_does_not_trigger_another_trap():
    g = new_game(players=["A", "B", "C"], board="jungle", layout={"loop": True, "hexes": 36, "traps": [5, 7]},
                 traps={5: "trap-advance-2", 7: "trap-back-2"}, hands=HANDS, positions={"A": 2, "B": -1, "C": -1})
    seg = a_turn(g)
    assert moved(seg, "trap") == [7] and not g.state["traps"]["7"]["revealed"]


# -- Temple ----------------------------------------------------------------------------------------
TEMPLE = {"loop": True, "hexes": 36, "drift": [{"start": 4, "hexes": [{"need": 2}, {"need": 3}]}], "charms": [12]}


def temple(positions, **kw):
    return new_game(players=["A", "B", "C"], board="temple", layout=dict(TEMPLE), dice="table", seed=2,
                    hands=kw.pop("hands", HANDS), positions=positions, **kw)


def test_drifting_only_when_advancing_onto_the_first_hex():
    g = temple({"A": 4, "B": -1, "C": -1})  # already on the start: no drift
    for pid, c in (("A", "normal-01"), ("B", "normal-03"), ("C", "normal-05")):
        g.push(Choose(pid, c))
    assert pos(g, "A") == 7 + 1  # no roll asked; +1 as the Lead Racer at the End of Round


def test_drifting_not_triggered_by_moving_back_onto_it():
    hands = {"B": ["thunderbolt", "normal-04"], "A": ["normal-01", "normal-02"], "C": ["normal-05", "normal-06"]}
    g = new_game(players=["B", "A", "C"], board="temple", layout=dict(TEMPLE), dice="table", seed=2,
                 hands=hands, positions={"B": -3, "A": 5, "C": -3})
    choose_all(g, {"B": "thunderbolt", "A": "normal-01", "C": "normal-05"})
    # Thunderbolt moves A back onto hex 4 (a drift start): no roll asked; then A's own turn advances
    assert [e.data for e in g.last_events if e.kind == "move" and e.data["racer"] == "A"][0]["to"] == 4
    assert pos(g, "A") == 7 + 1 and not any(e.kind == "drift_start" for e in g.last_events)


def test_drift_completing_the_sequence_then_the_remaining_speed():
    g = temple({"A": 2, "B": -1, "C": -1})
    for pid, c in (("A", "normal-01"), ("B", "normal-03"), ("C", "normal-05")):
        g.push(Choose(pid, c))
    assert pos(g, "A") == 4
    g.push(Roll(2))
    ev = g.push(Roll(5))
    assert "drift_complete" in [e.kind for e in ev]
    assert [e.data["to"] for e in ev if e.kind == "move" and e.data["racer"] == "A"][0] == 6 + 1


def charm_game(roll, tile_faces=None):
    g = temple({"A": 10, "B": -1, "C": -1}, charm_tiles={12: "charm-tile-1"}, charm_deck_top=["charm-2"])
    for pid, c in (("A", "normal-01"), ("B", "normal-03"), ("C", "normal-05")):
        g.push(Choose(pid, c))
    assert g.state["charm_hexes"]["12"]["revealed"]  # passed by advancing: revealed ...
    assert g.pending["kind"] == "roll" and pos(g, "A") == 13  # ... and triggered at the end of the move
    ev = g.push(Roll(roll))
    return g, ev


def test_charm_1_2_resolves_as_feather():
    g, ev = charm_game(1)
    assert g.pending == {"kind": "hits", "projectile": "feather", "by": "A"}
    g.push(Hits(()))


def test_charm_3_4_advance_1_and_draw_1():
    g, ev = charm_game(4)
    assert [e.data["to"] for e in ev if e.kind == "move" and e.data["racer"] == "A"][0] == 14
    assert [len(e.data["cards"]) for e in ev if e.kind == "draw" and e.data["racer"] == "A"][0] == 1


def test_charm_5_6_resolves_a_charm_card_and_places_a_new_tile():
    g, ev = charm_game(6)
    assert next(e.data for e in ev if e.kind == "charm_card") == {"racer": "A", "card": "charm-2"}
    assert "charm:charm-2" in g.state["box"]
    slot = g.state["charm_hexes"]["12"]
    assert slot["tile"] != "charm-tile-1" and slot["revealed"] is False
    assert "charm-tile-1" in g.state["charm_pool"]


def test_moving_back_does_not_trigger_a_charm():
    hands = {"B": ["thunderbolt", "normal-04"], "A": ["normal-01", "normal-02"], "C": ["normal-05", "normal-06"]}
    g = new_game(players=["B", "A", "C"], board="temple", layout=dict(TEMPLE), dice="table", seed=2,
                 hands=hands, positions={"B": -3, "A": 13, "C": -3})
    choose_all(g, {"B": "thunderbolt", "A": "normal-01", "C": "normal-05"})
    assert not g.state["charm_hexes"]["12"]["revealed"]
    assert [e.data for e in g.last_events if e.kind == "move" and e.data["racer"] == "A"][0]["to"] == 12


def test_connecting_tile_path_finishes_at_its_length():
    g = new_game(players=["A", "B", "C"], board="jungle", track="connected", seed=3,
                 positions={"A": 46, "B": 0, "C": 0}, hands=HANDS)
    assert g.track.finish == 50 and not g.track.loop
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    while g.pending and g.pending["kind"] == "discard":
        g.push(g.legal_actions()[0])
    assert g.outcome() is not None and g.outcome().winners == ("A",)
