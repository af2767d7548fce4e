"""Random legal games (hypothesis): invariants after every action, pop, JSON, and termination."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core import action_from_dict, action_to_dict
from rules.dino_dunk import (ACTIONS, Activate, DunkResult, Game, MoveResult, PassResult, ShotResult,
                             new_game)
from rules.dino_dunk.game import SHOT_CLOCK_TURNS

MAX_ACTIONS = 3000


def random_fact(game, rnd):
    pend = game.pending()
    s = game.state
    pid = pend["piece"]
    on_mat = [p for p, v in sorted(s["pieces"].items()) if v["status"] == "on_mat" and p != pid]
    expects = pend["expects"]
    if expects == "MoveResult":
        struck = tuple(rnd.sample(on_mat, rnd.choice([0, 0, 1, 2])))
        return MoveResult(out_of_bounds=rnd.random() < 0.1, struck=struck,
                          carrier_struck=rnd.random() < 0.1, carrier_inside_three=rnd.random() < 0.5,
                          touched_ball=rnd.random() < 0.4,
                          knocked_out=tuple(p for p in struck if rnd.random() < 0.3),
                          overlaps_scoring_zone=rnd.random() < 0.5)
    if expects == "PassResult":
        if rnd.random() < 0.7 and on_mat:
            catcher = rnd.choice(on_mat)
            friendly = catcher.split(":")[0] == pid.split(":")[0]
            return PassResult(caught_by=catcher, automatic=friendly and rnd.random() < 0.3)
        return PassResult(out_of_bounds=rnd.random() < 0.2)
    if expects == "ShotResult":
        made = rnd.random() < 0.5
        return ShotResult(overlaps_zone=made, shooter_outside_three=rnd.random() < 0.3,
                          out_of_bounds=not made and rnd.random() < 0.1,
                          touched_backboard=game.rules.backboard and rnd.random() < 0.3)
    assert expects == "DunkResult"
    return DunkResult(overlaps_zone=rnd.random() < 0.5, ball_on_top=rnd.random() < 0.7,
                      out_of_bounds=rnd.random() < 0.1)


def choose(game, rnd):
    if game.pending()["kind"] == "fact":
        return random_fact(game, rnd)
    legal = game.legal_actions()
    scoring = [a for a in legal if isinstance(a, Activate) and a.action in ("shoot", "dunk", "layup")]
    if scoring and rnd.random() < 0.6:
        return rnd.choice(scoring)
    return rnd.choice(legal)


def check_invariants(game):
    s = game.state
    ball = s["ball"]
    # The ball has at most one carrier, who is on the mat; it is never both held and loose.
    assert ball["carrier"] is None or isinstance(ball["carrier"], str)
    if ball["carrier"] is not None:
        assert not ball["loose"]
        assert s["pieces"][ball["carrier"]]["status"] == "on_mat"
    if ball["on_top"]:
        assert ball["carrier"] is not None
    # Each team has five dinosaurs, on or off the mat.
    if s["pieces"]:
        for side in s["sides"]:
            mine = [v for pid, v in s["pieces"].items() if pid.startswith(side + ":")]
            assert len(mine) == 5
            assert all(v["status"] in ("on_mat", "removed") for v in mine)
    # The clock stays on its track and belongs to the offense.
    assert 0 <= s["clock"]["space"] <= SHOT_CLOCK_TURNS
    if s["phase"] in ("play", "reset"):
        assert s["clock"]["side"] == s["offense"]
    if s["phase"] == "reset":
        assert s["clock"]["space"] == 0  # every reset puts the token on the offense's starting space
    # Scores never pass the target by more than a 3-pointer's overshoot.
    assert all(0 <= v < s["target_score"] + 3 for v in s["score"].values())
    assert (s["phase"] == "over") == (game.outcome() is not None)


def play_random(rnd, setup, check_every=1):
    game = new_game(**setup)
    for step in range(MAX_ACTIONS):
        if game.outcome() is not None:
            assert game.legal_actions() == []
            return game, step
        action = choose(game, rnd)
        # Actions round-trip through their dict form (lists become tuples).
        assert action_from_dict(json.loads(json.dumps(action_to_dict(action))), ACTIONS) == action
        before = game.to_json()
        game.push(action)
        check_invariants(game)
        if step % check_every == 0:
            after = game.to_json()
            # JSON round-trips.
            again = Game.from_json(after)
            assert again.to_json() == after
            assert again.legal_actions() == game.legal_actions()
            # pop() restores the exact previous state.
            assert game.pop() == action
            assert game.to_json() == before
            game.push(action)
            assert game.to_json() == after
    raise AssertionError(f"no winner after {MAX_ACTIONS} actions: {game.summary()}")


SETUPS = st.sampled_from([
    {},
    {"variants": ["exhibition"]},
    {"variants": ["backboard", "layup"]},
    {"options": {"out_of_bounds_reset": "full", "friendly_strike_is_foul": False,
                 "fouled_out_return_on_reset": False, "clock_counts_steal_turn": False,
                 "struck_out_of_bounds_cannot_act": True, "swift_swimming_mandatory": True,
                 "fouled_shot_uses_card_actions": False, "layup_requires_shoot_action": False,
                 "ball_call_caught_by_other": "as_pass", "three_point_judged_by": "whole_disc"},
     "variants": ["layup"]},
])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False), setup=SETUPS, target=st.sampled_from([2, 4, 6]))
def test_random_games_keep_invariants_and_end(rnd, setup, target):
    game, steps = play_random(rnd, {**setup, "target_score": target}, check_every=7)
    assert game.outcome().winners[0] in game.state["sides"]
    assert max(game.state["score"].values()) >= target


@settings(max_examples=10, deadline=None)
@given(rnd=st.randoms(use_true_random=False))
def test_random_games_from_roster_choice(rnd):
    # From the very start: rosters chosen through legal actions, ball flip, placement.
    game, _ = play_random(rnd, {"target_score": 2}, check_every=1)
    assert game.state["rosters"]["home"] and game.state["rosters"]["away"]
