"""Where a throw's doubts come from (``DodoDashSession.throw_events``): a racer the token cannot
have reached in its unseen start is no suspect of it, and a touch seen for sure stays sure though
a doubt on the same racer came before it. Tuning throw 74 of seed 0: an Egg flicked from rest,
seen once in motion, then turned back off racer-2 between two frames; racer-1 lies 17 mm behind
where it rested."""

from __future__ import annotations

from session.bench import _StubDodoDash, play_scene
from session.dodo_dash import DodoDashSession
from sim.suites import _board, make_scenario
from sim.truth import dodo_dash_answers


def _throw(seed: int, index: int):
    scn = make_scenario("dodo-dash/throws", index, seed)
    board = _board(scn.board)
    seen = {}
    orig = DodoDashSession.throw_events

    def events(self, *a, **k):
        seen["events"] = out = orig(self, *a, **k)
        return out

    session = None
    try:
        DodoDashSession.throw_events = events
        session, _, _, _ = play_scene(scn, board, lambda d: DodoDashSession(board, d, game=_StubDodoDash(scn.meta)), seed=index)
    finally:
        DodoDashSession.throw_events = orig
    (flick,) = session.flicks
    return ({v.detail["racer"]: v for v in flick.ruling.verdicts}, set(dodo_dash_answers(scn, board)["touched_racers"]),
            seen["events"])


def test_a_racer_out_of_reach_of_the_unseen_start_and_a_sure_touch_after_a_doubt():
    verdicts, truth, events = _throw(0, 74)
    assert truth == {"racer-2"}
    # racer-1: out from the rest to it and back to the first sample in motion is farther than the
    # fastest throw goes in that frame; it had been in doubt as a racer the path came near
    assert verdicts["racer-1"].answer == "no" and verdicts["racer-1"].detail["evidence"] == "path"
    # racer-2: in doubt in the unseen start (it can have been touched there), then surely the racer
    # the token turned back off: touched, at the latest then, at the earliest in the start
    assert verdicts["racer-2"].answer == "yes" and verdicts["racer-2"].detail["evidence"] == "bounce"
    t, _, unsure, t0 = events.hidden[2]
    assert not unsure and t0 < t


def test_two_racers_touched_for_sure_as_early_as_each_other_leave_the_first_open():
    """Tuning throw 632 of seed 0: an Egg flicked from rest, spun by racer-2 (beside it alone) and
    turned back off racer-3, both in the first frames of its motion: racer-2's evidence is of the
    start's interval, and racer-3 can have been touched in that same unseen start, so which came
    first is left open ("tied"), where racer-2 had been named first (the truth: racer-3)."""
    from session.dodo_dash import touch_order

    verdicts, truth, _ = _throw(0, 632)
    assert truth == {"racer-2", "racer-3"}
    assert verdicts["racer-2"].answer == verdicts["racer-3"].answer == "yes"
    first = sorted((v for v in verdicts.values() if v.answer != "no"), key=touch_order)[0]
    assert first.detail["racer"] == "racer-2" and first.detail.get("tied") == ["racer-3"]
