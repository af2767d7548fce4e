"""The Scoreboard Reference: the scoring token flips when a team exceeds the score track's maximum."""

from __future__ import annotations

import json

import pytest
from .dino_dunk_helpers import play, start

from rules.dino_dunk import Activate, SetupError, ShotResult, Skip, new_game


def three_pointer(game, shooter="home:triceratops"):
    game.push(Activate(shooter, "shoot"))
    game.push(Skip())  # Follow Through
    return game.push(ShotResult(overlaps_zone=True, shooter_outside_three=True))


def test_the_scoring_tokens_start_logo_up_on_zero():
    game = new_game()
    # Setup step 2: "place a scoring token with the team logo visible on the '0' space"
    assert game.state["score_tokens"] == {"home": {"space": 0, "side": "logo", "flips": 0},
                                          "away": {"space": 0, "side": "logo", "flips": 0}}
    assert game.state["options"]["score_track_max"] == 9


def test_exceeding_the_track_flips_the_token_and_returns_it_to_zero():
    game = start(target_score=20)
    game.state["score"]["home"] = 8  # as if home had scored 8 already
    game.state["score_tokens"]["home"]["space"] = 8
    ev = three_pointer(game)
    kinds = [e.kind for e in ev]
    assert kinds.index("score") < kinds.index("score_token_flipped") < kinds.index("reset")
    flip = next(e.data for e in ev if e.kind == "score_token_flipped")
    assert flip == {"side": "home", "token_side": "flipped", "space": 1, "flips": 1, "total": 11, "track_max": 9}
    assert game.state["score"]["home"] == 11  # the numeric score is kept
    # 9 -> (exceeds 9) flip, back to '0' -> 1: the flipped side plus the space shows 11
    assert game.state["score_tokens"]["home"] == {"space": 1, "side": "flipped", "flips": 1}
    assert game.state["score_tokens"]["away"] == {"space": 0, "side": "logo", "flips": 0}
    game.pop()
    assert game.state["score_tokens"]["home"] == {"space": 8, "side": "logo", "flips": 0}


def test_reaching_the_maximum_does_not_flip():
    game = start(target_score=20)
    game.state["score"]["home"] = 6
    game.state["score_tokens"]["home"]["space"] = 6
    ev = three_pointer(game)
    assert "score_token_flipped" not in [e.kind for e in ev]
    assert game.state["score_tokens"]["home"] == {"space": 9, "side": "logo", "flips": 0}


def test_a_short_track_flips_in_play_and_flips_back():
    game = start(target_score=20, options={"score_track_max": 1})
    ev = three_pointer(game)  # 0 -> 1 -> flip, 0 -> 1
    flips = [e.data for e in ev if e.kind == "score_token_flipped"]
    assert [f["token_side"] for f in flips] == ["flipped"]
    assert game.state["score_tokens"]["home"] == {"space": 1, "side": "flipped", "flips": 1}
    json.loads(json.dumps(game.state))  # plain JSON
    # a second 3-pointer by home: 1 -> flip (logo again), 0 -> 1 -> flip (flipped), 0
    ended = game.score("home", 3, "shot", reset=False)  # through the game's own scoring helper
    assert not ended
    assert game.state["score_tokens"]["home"] == {"space": 0, "side": "flipped", "flips": 3}
    assert game.state["score"]["home"] == 6


@pytest.mark.parametrize("bad", [0, -1, True, "9", 2.5])
def test_the_track_maximum_option_is_a_whole_number(bad):
    with pytest.raises(SetupError, match="score_track_max"):
        new_game(options={"score_track_max": bad})


def test_a_flip_at_the_winning_shot_is_recorded_before_the_game_ends():
    game = start(target_score=3, options={"score_track_max": 2})
    kinds = play(game, Activate("home:triceratops", "shoot"), Skip(),
                 ShotResult(overlaps_zone=True, shooter_outside_three=True))
    assert kinds[-3:] == ["score", "score_token_flipped", "game_over"]
