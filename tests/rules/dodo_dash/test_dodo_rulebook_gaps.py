"""Rules the first version left as ``unimplemented`` / placeholders: Overpower's self-damage cost as a
catalogue entry in the effect vocabulary, the Plesiododo direction reversal, the placeholder Charm
tiles marked for the user."""

from .dodo_helpers import close_windows, plain_game, pos

from rules.dodo_dash import Choose, Discard, Roll, catalogue, new_game
from rules.dodo_dash.layout import Track

FILL = {"B": ["normal-03", "normal-04", "normal-07"], "C": ["normal-05", "normal-06", "normal-08"]}


def _ops(effects):
    for e in effects:
        yield e["op"]
        yield from _ops(e.get("on_hit", []))


def _all_effects(cat):
    for c in cat["movement"] + cat["charms"] + cat["traps"]:
        yield c["id"], c.get("effects", [])
    for r in cat["racers"]:
        if r.get("ability"):
            yield r["id"], r["ability"].get("effects", [])
    for p in cat["powers"]:
        yield p["id"], p.get("effects", [])
    for t in cat["charm_tiles"]:
        for face, effs in t["faces"].items():
            yield f"{t['id']}[{face}]", effs


def test_the_shipped_catalogue_has_no_unimplemented_step():
    cat = catalogue.load()
    left = [ident for ident, effs in _all_effects(cat) if "todo" in _ops(effs)]
    assert left == []
    assert [p for p in catalogue.validate(cat) if p.level == "error"] == []


# -- Overpower ------------------------------------------------------------------------------------
def _overpower(a_hand):
    g = plain_game(hands=dict(FILL, A=a_hand), positions={"A": 0, "B": 0, "C": 0})
    for pid, card in (("A", "overpower"), ("B", "normal-03"), ("C", "normal-05")):
        g.push(Choose(pid, card))
    return g


def test_overpower_is_described_with_the_effect_vocabulary():
    card = next(c for c in catalogue.load()["movement"] if c["id"] == "overpower")
    # Damage: "the required amount of damage from a Movement card you play (like Overpower)"
    assert card["effects"][0]["op"] == "cost"
    assert set(_ops(card["effects"])) <= set(catalogue.OPS) - {"todo"}
    assert "not in the rulebook" in card["todo"]  # the rest of the printed card is for the user


def test_overpower_with_enough_cards_pays_its_damage_and_reports_nothing_unimplemented():
    g = _overpower(["overpower", "normal-01", "normal-02", "dash-01"])
    assert g.pending == {"kind": "discard", "player": "A", "n": 2}  # you choose the discards
    ev = g.push(Discard("A", ("normal-01", "dash-01")))
    kinds = [e.kind for e in ev]
    assert "unimplemented" not in kinds
    assert next(e.data for e in ev if e.kind == "damage") == {
        "racer": "A", "n": 2, "discarded": ["normal-01", "dash-01"], "over": 0}
    assert sorted(g.racer("A")["hand"]) == ["normal-02"]


def test_overpower_with_exactly_enough_cards_discards_them_all_then_recovers():
    g = _overpower(["overpower", "normal-01", "normal-02"])
    ev = g.last_events
    assert next(e.data for e in ev if e.kind == "damage")["discarded"] == ["normal-01", "normal-02"]
    assert not any(e.kind == "canceled" for e in ev)
    assert any(e.kind == "recover" and e.data == {"racer": "A"} for e in ev)


def test_overpower_without_enough_cards_cancels_the_whole_effect_without_discarding():
    g = _overpower(["overpower", "normal-01"])
    ev = g.last_events
    assert next(e.data for e in ev if e.kind == "canceled") == {"racer": "A", "card": "overpower", "by": "cost"}
    assert not any(e.kind in ("damage", "unimplemented") for e in ev)
    assert g.racer("A")["hand"] == ["normal-01"]


# -- Plesiododo ------------------------------------------------------------------------------------
TEMPLE = {"loop": True, "hexes": 36, "drift": [{"start": 4, "hexes": [{"need": 2}, {"need": 3}]}], "charms": [12]}
HANDS = {"A": ["normal-01", "normal-02"], "B": ["normal-03", "normal-04"], "C": ["normal-05", "normal-06"]}


def plesiododo_game(positions):
    """A (first player) passes the Charm tile on hex 12, rolls 6: the top Charm card is Plesiododo."""
    g = new_game(players=["A", "B", "C"], board="temple", layout=dict(TEMPLE), dice="table", seed=2,
                 hands=HANDS, positions=positions, charm_tiles={12: "charm-tile-1"},
                 charm_deck_top=["plesiododo"])
    for pid, c in (("A", "normal-01"), ("B", "normal-03"), ("C", "normal-05")):
        g.push(Choose(pid, c))
    assert g.pending["kind"] == "roll" and pos(g, "A") == 13
    return g, g.push(Roll(6))


def test_plesiododo_reverses_the_race_last_becomes_lead():
    g, ev = plesiododo_game({"A": 10, "B": 2, "C": 20})
    kinds = [e.kind for e in ev]
    assert "unimplemented" not in kinds
    rev = next(e.data for e in ev if e.kind == "reversed")
    # before: C (hex 20) leads, A (hex 13), B (hex 2) last; the miniatures stay where they are
    assert rev == {"against_arrows": True, "by": "A", "positions": {"A": 22, "B": 33, "C": 15}, "lead": ["B"]}
    assert g.state["reversed"] is True
    assert {k: g.track.hex(q) for k, q in rev["positions"].items()} == {"A": 13, "B": 2, "C": 20}
    assert "charm:plesiododo" in g.state["box"]
    # B now advances against the printed arrows: hex 2 -> 1 -> 0 -> across the finish line onto 35
    moves = [e.data for e in ev if e.kind == "move" and e.data["cause"] == "speed"]
    assert moves == [{"racer": "B", "to": 36, "by": 3, "cause": "speed"},
                     {"racer": "C", "to": 18, "by": 3, "cause": "speed"}]
    assert g.track.hex(36) == 35 and g.track.hex(18) == 17
    # End of Round: B, the Lead Racer, advances 1 (to hex 34); "The game still ends when a Racer
    # crosses the finish line."
    assert g.positions()["B"] == {"progress": 37, "hex": 34}
    assert g.outcome() is not None and g.outcome().winners == ("B",)
    g.pop()
    assert g.state["reversed"] is False and pos(g, "B") == 2  # undone with the push


def test_plesiododo_a_racer_behind_the_finish_line_must_complete_the_lap_in_the_new_direction():
    g, ev = plesiododo_game({"A": 10, "B": -1, "C": -2})
    rev = next(e.data for e in ev if e.kind == "reversed")
    # B on hex 35 and C on hex 34 had not crossed the line: the whole lap is still ahead of them
    assert rev["positions"] == {"A": 22, "B": 0, "C": 1}
    finish = g.track.finish
    assert finish - rev["positions"]["B"] == 36
    # moving back (across the line, with the arrows) and advancing afterwards does not win
    before = g.state["racers"][1]["pos"]
    assert before - 2 + 3 < finish


def test_plesiododo_reversed_track_charms_and_drifting():
    tr = Track(dict(TEMPLE, traps=[], treasure_bases=[]), reversed=True)
    assert [tr.hex(q) for q in (0, 1, 35, 36, -1)] == [35, 34, 0, 35, 0]
    assert all(tr.hex(tr.progress_of(h)) == h for h in range(36))
    # hex 12 stands on progress 23: reached or passed by advancing from 20 to 24, not from 24 to 30
    assert tr.charms_between(20, 24) == [12] and tr.charms_between(24, 30) == []
    # Drifting runs along the printed arrows from its first hex: not triggered going the other way
    assert tr.drift_start_between(20, 40) is None
    assert Track(dict(TEMPLE, traps=[], treasure_bases=[])).drift_start_between(0, 5) == (0, 4)


def test_after_plesiododo_a_charm_is_triggered_by_advancing_in_the_new_direction():
    g, ev = plesiododo_game({"A": 10, "B": -1, "C": 20})
    # C stood on hex 20 (progress 15) and advanced 3 against the arrows to hex 17: 12 not reached
    assert g.positions()["C"] == {"progress": 18, "hex": 17}
    assert g.positions()["B"] == {"progress": 3, "hex": 32}
    # End of Round: A, now the Lead Racer on hex 13, advances 1 against the arrows onto hex 12
    assert [e.data for e in ev if e.kind == "lead"] == [{"racers": ["A"]}]
    assert g.positions()["A"] == {"progress": 23, "hex": 12}
    assert g.state["charm_hexes"]["12"]["revealed"] is True  # the new tile: revealed and triggered
    assert g.pending == {"kind": "roll", "why": "charm", "racer": "A"}
    assert g.progress_for_hex("C", 12) == 23  # camera readings map back through the reversal


# -- Charm tiles -----------------------------------------------------------------------------------
def test_the_placeholder_charm_tiles_are_marked_for_the_user_to_fill_in():
    cat = catalogue.load()
    example, *others = cat["charm_tiles"]
    assert "todo" not in example and example["source"] == "Charms: the Charm tile example"
    assert len(others) == 4
    for t in others:  # marked like the other cards the rulebook does not list
        assert t["name"].endswith("(fill in)")
        assert t["source"].startswith("placeholder")
        assert t["todo"].startswith("not in the rulebook: fill in")
    warned = [p.where for p in catalogue.validate(cat) if p.where.startswith("charm_tiles")]
    assert warned == [f"charm_tiles[{i}] (charm-tile-{i + 1})" for i in range(1, 5)]


# -- Traps and Charms in Other Tracks ----------------------------------------------------------------
def test_traps_and_charms_can_be_mixed_on_one_track():
    # "For a more Charming experience you may want to mix Traps and Charms all over the place."
    layout = {"loop": True, "hexes": 36, "traps": [5, 20], "charms": [12]}
    for board in ("jungle", "temple"):
        g = new_game(players=["A", "B", "C"], board=board, layout=dict(layout), dice="table", seed=2,
                     hands=HANDS, positions={"A": 10, "B": -1, "C": -1}, traps={5: "trap-back-2", 20: "trap-draw-2"},
                     charm_tiles={12: "charm-tile-1"})
        assert sorted(g.state["traps"]) == ["20", "5"] and list(g.state["charm_hexes"]) == ["12"]
        for pid, c in (("A", "normal-01"), ("B", "normal-03"), ("C", "normal-05")):
            g.push(Choose(pid, c))
        assert g.state["charm_hexes"]["12"]["revealed"] and g.pending == {"kind": "roll", "why": "charm", "racer": "A"}
