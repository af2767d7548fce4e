"""Scheming, Running, End of Round and End of Race."""

import pytest
from .dodo_helpers import catalogue_with, choose_all, close_windows, kinds, plain_game, pos

from rules.core import IllegalActionError
from rules.dodo_dash import CardNotInHand, Choose, DodoDashError, EndReactions, NotYourDecision, PlayReaction


def three(**kw):
    kw.setdefault("hands", {"A": ["normal-01", "normal-02"], "B": ["normal-03", "normal-04"],
                            "C": ["normal-05", "normal-06"]})
    return plain_game(**kw)


# -- Scheming ------------------------------------------------------------------------------------
def test_choices_are_secret_until_everyone_has_chosen():
    g = three()
    ev = g.push(Choose("A", "normal-01"))
    assert kinds(ev) == ["chosen"] and ev[0].data == {"racer": "A"}
    assert g.pending == {"kind": "choose"}
    g.push(Choose("B", "normal-03"))
    ev = g.push(Choose("C", "normal-05"))
    reveal = next(e for e in ev if e.kind == "reveal")
    assert reveal.data["cards"] == {"A": "normal-01", "B": "normal-03", "C": "normal-05"}


@pytest.mark.parametrize("action,error,message", [
    (Choose("A", "boring"), CardNotInHand, "no 'boring' in hand"),          # not in hand
    (Choose("A", "fine-blocking"), CardNotInHand, "Reaction cards are played"),  # a Reaction
    (Choose("Z", "normal-01"), DodoDashError, "no racer 'Z'"),              # unknown player
    (EndReactions(), NotYourDecision, "Scheming phase"),                    # wrong time
])
def test_scheming_errors(action, error, message):
    g = three(hands={"A": ["normal-01", "fine-blocking"], "B": ["normal-03"], "C": ["normal-05"]})
    before = g.to_json()
    with pytest.raises(error, match=message):
        g.push(action)
    assert g.to_json() == before


def test_a_player_cannot_choose_twice():
    g = three()
    g.push(Choose("A", "normal-01"))
    with pytest.raises(IllegalActionError, match="already chose"):
        g.push(Choose("A", "normal-02"))


def test_a_hand_of_only_reactions_plays_one_for_its_speed():
    g = three(hands={"A": ["fine-blocking", "great-blocking"], "B": ["normal-03", "normal-04"],
                     "C": ["normal-05", "normal-06"]})
    assert Choose("A", "fine-blocking") in g.legal_actions()
    choose_all(g, {"A": "fine-blocking", "B": "normal-03", "C": "normal-05"})
    assert pos(g, "A") == -2 + 1  # Speed 1, no effect


@pytest.mark.parametrize("players,aggressive,enraged", [
    (3, 2, False),   # limit 2 with 1-4 players: 2 is fine
    (3, 3, True),    # 3 exceed it
    (5, 3, False),   # limit 3 with 5+ players
    (6, 4, True),
])
def test_aggressive_limit_and_enraged(players, aggressive, enraged):
    ids = [f"P{i}" for i in range(players)]
    cards = ["aggressive-%02d" % (i + 1) if i < aggressive else "normal-%02d" % (i + 1) for i in range(players)]
    cat = catalogue_with(**{f"aggressive_{i:02d}": {"effects": [{"op": "draw", "target": "self", "n": 1}]}
                            for i in range(1, 7)})
    g = plain_game(players=ids, cards=cat, hands={p: [c, "normal-%02d" % (20 + i)] for i, (p, c) in
                                                  enumerate(zip(ids, cards))})
    choose_all(g, dict(zip(ids, cards)))
    close_windows(g)
    assert g.state["round"] == 2
    history = [e for e in g.last_events]
    assert any(e.kind == "enraged" for e in history) == enraged
    canceled = [e.data["racer"] for e in history if e.kind == "canceled" and e.data["by"] == "enraged"]
    resolved = [e.data["racer"] for e in history if e.kind == "resolve"]
    if enraged:
        assert canceled == ids[:aggressive] and resolved == []  # effects canceled ...
    else:
        assert canceled == [] and resolved == ids[:aggressive]
    speeds = [e.data["racer"] for e in history if e.kind == "speed"]
    assert speeds == ids  # ... Speed values always resolve


# -- Running -------------------------------------------------------------------------------------
def test_turns_go_clockwise_from_the_first_player():
    g = three(first_player="B")
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    turns = [e.data["racer"] for e in g.last_events if e.kind == "turn"]
    assert turns == ["B", "C", "A"]


def test_blocking_needs_an_effect_to_cancel():
    g = three(hands={"A": ["boring", "normal-02"], "B": ["normal-03", "fine-blocking", "fast-legs"],
                     "C": ["normal-05", "normal-06"]})
    choose_all(g, {"A": "boring", "B": "normal-03", "C": "normal-05"})
    assert g.pending["kind"] == "reactions"  # B could still play Fast Legs
    assert PlayReaction("B", "fine-blocking") not in g.legal_actions()
    with pytest.raises(DodoDashError, match="Blocking: there is no effect left to cancel"):
        g.push(PlayReaction("B", "fine-blocking"))


def test_blocking_cancels_the_effect_not_the_speed():
    g = three(hands={"A": ["thunderbolt", "normal-02"], "B": ["normal-03", "fine-blocking", "normal-04"],
                     "C": ["normal-05", "normal-06"]}, positions={"A": -3, "B": 3, "C": 3})
    choose_all(g, {"A": "thunderbolt", "B": "normal-03", "C": "normal-05"})
    assert pos(g, "A") == -1
    ev = g.push(PlayReaction("B", "fine-blocking"))
    assert any(e.kind == "canceled" and e.data["card"] == "thunderbolt" for e in ev)
    assert not [e for e in ev if e.kind == "move" and e.data["cause"] == "effect"]  # nobody moved back
    assert pos(g, "A") == -1


def test_the_played_card_goes_to_the_discard_pile_at_the_end_of_the_turn():
    g = three()
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    assert g.state["discard"][:3] == ["normal-01", "normal-03", "normal-05"]


# -- End of Round --------------------------------------------------------------------------------
def test_end_of_round_lead_advances_others_draw_marker_passes():
    g = three(positions={"A": 0, "B": 0, "C": 0})
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    ev = g.last_events
    assert [e.data for e in ev if e.kind == "lead"] == [{"racers": ["A", "B", "C"]}]  # all tied at 3
    assert [R["pos"] for R in g.state["racers"]] == [4, 4, 4]
    assert not any(e.kind == "draw" for e in ev)  # everyone was a Lead Racer: nobody draws
    assert g.state["first"] == 1 and g.state["round"] == 2


def test_end_of_round_draws_start_with_the_first_non_lead():
    g = three(positions={"A": 5, "B": 0, "C": 0})
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    assert [e.data["racer"] for e in g.last_events if e.kind == "draw"] == ["B", "C"]
    assert pos(g, "A") == 5 + 3 + 1


def test_lead_crossing_the_finish_line_at_the_end_of_round_wins():
    g = three(positions={"A": 32, "B": 0, "C": 0})
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    assert pos(g, "A") == 36 and g.outcome().winners == ("A",)
    assert g.outcome().reason == "finish_line" and g.legal_actions() == []
    with pytest.raises(DodoDashError, match="race is over"):
        g.push(Choose("B", "normal-04"))


def test_end_of_race_furthest_then_most_cards_then_shared():
    g = three(positions={"A": 34, "B": 34, "C": 0},
              hands={"A": ["normal-01", "normal-02", "normal-07"], "B": ["normal-03", "normal-04"],
                     "C": ["normal-05", "normal-06"]})
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    assert pos(g, "A") == pos(g, "B") == 38
    assert g.outcome().winners == ("A",)  # tied on the hex: A has more cards in hand
    g = three(positions={"A": 34, "B": 34, "C": 0})
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    assert g.outcome().winners == ("A", "B")  # still tied: victory is shared


def test_recovery_moves_back_three_and_draws_six():
    g = three(hands={"A": ["normal-01"], "B": ["normal-03", "normal-04"], "C": ["normal-05", "normal-06"]},
              positions={"A": 10, "B": 0, "C": 0})
    choose_all(g, {"A": "normal-01", "B": "normal-03", "C": "normal-05"})
    assert pos(g, "A") == 10 and len(g.racer("A")["hand"]) == 6  # 10 + 3, then back 3
    close_windows(g)  # A may hold Reactions now
    assert pos(g, "A") == 10 + 1  # the Lead Racer at the End of Round


def test_a_judge_can_correct_a_position_at_any_time_without_triggers():
    from rules.dodo_dash import Correct

    g = three()
    g.push(Choose("A", "normal-01"))
    ev = g.push(Correct("B", 12))
    assert [e.data for e in ev] == [{"racer": "B", "was": -1, "to": 12}]
    assert pos(g, "B") == 12 and g.pending == {"kind": "choose"}
    g.pop()
    assert pos(g, "B") == -1


def test_positions_and_camera_hex_to_progress():
    g = three(positions={"A": -1, "B": 34, "C": 40})
    assert g.positions() == {"A": {"progress": -1, "hex": 35}, "B": {"progress": 34, "hex": 34},
                             "C": {"progress": 40, "hex": 4}}
    assert g.progress_for_hex("A", 1) == 1      # two hexes ahead, across the line
    assert g.progress_for_hex("B", 33) == 33    # one back
    assert g.progress_for_hex("C", 2) == 38     # C completed a lap: stays on its lap
