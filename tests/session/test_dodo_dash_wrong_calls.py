"""Throws of the tuning suite (``dodo-dash/throws``, seeds 0-3) once called wrong, each for its own
reason: the session's calls on every racer are now the simulator's truth or wait for a person,
never a confident call against it."""

from __future__ import annotations

import pytest

from session.bench import _StubDodoDash, play_scene
from session.dodo_dash import DodoDashSession
from sim.suites import _board, make_scenario
from sim.truth import dodo_dash_answers


def calls(seed: int, index: int) -> tuple[dict, set]:
    scn = make_scenario("dodo-dash/throws", index, seed)
    board = _board(scn.board)
    session, _, _, _ = play_scene(scn, board, lambda d: DodoDashSession(board, d, game=_StubDodoDash(scn.meta)), seed=index)
    (flick,) = session.flicks
    return {v.detail["racer"]: v for v in flick.ruling.verdicts}, set(dodo_dash_answers(scn, board)["touched_racers"])


@pytest.mark.parametrize("seed, index, why", [
    (2, 464, "an egg stopped dead by a racer between two frames (a 'slide' speeding up, and more speed lost than friction takes)"),
    (2, 452, "an egg turned by a racer between two frames (one curve fitted across the turn)"),
    (0, 20, "an egg flicked into a racer and back before the first frame in motion (its start unseen)"),
    (2, 68, "an egg that barely moved after touching a racer in its unseen start"),
    (1, 607, "a log seen once in the air: it landed after that sample, not at it"),
    (3, 291, "a feather whose flight ends in a lone sample: the landing carried on along its chord"),
    (0, 161, "a dodo turned by a racer just before the last sample in the air"),
    (1, 643, "a log released from the hand beside the thrower"),
    (3, 790, "a banana spun by a racer as it landed beside it"),
    (0, 883, "a log that landed on a racer, was pushed off and slid to rest"),
    (0, 214, "a banana that came down onto a racer it was passing over: that touch turned it, not a racer beside"),
    (0, 262, "a banana spun where it came down onto one racer and landed on another, not by a third"),
    (0, 286, "a banana spun as it came down onto the racer it passed over"),
    (0, 15, "a feather turned as it came down onto the racer it passed over"),
    (0, 105, "a feather over a racer's footprint at the onset that came down below its top while closing on it"),
], ids=lambda x: str(x) if isinstance(x, int) else "")
def test_once_wrong_throws_are_right_or_asked(seed, index, why):
    verdicts, truth = calls(seed, index)
    for racer, v in verdicts.items():
        if v.answer != "too_close":
            assert (v.answer == "yes") == (racer in truth), (why, racer, v.answer, v.margin, v.detail["evidence"])
