"""Two pieces of a throw's physics the path fits had left out: a token at rest short of a racer ahead
of it can have struck that racer and come back unseen (:meth:`DodoDashSession._stop_suspects`,
checked against a plain search of the motion), and friction never takes a sliding token back along
the way it came in (a slide that ends behind where it began was turned by a touch)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from session.dodo_dash import DodoDashSession, ThrowSamples
from session.oracle import OracleDetector
from sim.suites import _board, make_scenario

A_MAX = DodoDashSession.max_slide_decel_mm_s2
DT = 1.0 / 30.0


def reaches_and_comes_back(d_out: float, d_back: float, v_max: float, budget: float) -> bool:
    """The motion written plainly, searched over a grid: the token leaves the last sample before
    its rest at u ≤ v_max, slowing at a1 ∈ [0, a_max] (friction), reaches the racer d_out on,
    bounces back at e·(its speed then), e ∈ [0, 1], and slows at a2 ∈ [0, a_max] to stop d_back
    short of the racer, all within ``budget`` s."""
    for u in np.linspace(v_max / 100, v_max, 100):
        for a1 in np.linspace(0.0, A_MAX, 25):
            disc = u * u - 2.0 * a1 * d_out
            if disc < 0:
                continue
            u_hit = np.sqrt(disc)
            t_hit = (u - u_hit) / a1 if a1 > 0 else d_out / u
            for e in np.linspace(0.0, 1.0, 51):
                w = e * u_hit
                if w <= 0:
                    if d_back <= 0 and t_hit <= budget:
                        return True
                    continue
                a2 = w * w / (2.0 * d_back) if d_back > 0 else np.inf
                if a2 <= A_MAX and t_hit + w / a2 <= budget:
                    return True
    return False


def _session():
    board = _board("dodo-dash/dodorado-jungle")
    return DodoDashSession(board, OracleDetector(board))


def _played(seed: int, index: int):
    """(the session, its one flick, the racers the throw touched) of tuning throw ``index``."""
    from session.bench import _StubDodoDash, play_scene
    from sim.truth import dodo_dash_answers

    scn = make_scenario("dodo-dash/throws", index, seed)
    board = _board(scn.board)
    session, _, _, _ = play_scene(scn, board, lambda d: DodoDashSession(board, d, game=_StubDodoDash(scn.meta)), seed=index)
    (flick,) = session.flicks
    return session, flick, set(dodo_dash_answers(scn, board)["touched_racers"])


def _slid_to_rest(speed: float, sig: float = 0.01):
    """An Egg at rest, flicked along +x at ``speed`` mm/s (seen moving in 4 frames), found at rest
    from the next frame on 2 mm past its last moving sample (stopped there, or struck something
    and came back there)."""
    t_hold = np.arange(6) * DT
    t_move = t_hold[-1] + DT * np.arange(1, 5)
    t_rest = t_move[-1] + DT * np.arange(1, 11)
    x_move = speed * (t_move - t_hold[-1])
    x_rest = np.full(len(t_rest), x_move[-1] + 2.0)
    t = np.concatenate([t_hold, t_move, t_rest])
    x = np.concatenate([np.zeros(len(t_hold)), x_move, x_rest])
    xy = np.column_stack([x, np.zeros_like(x)]) + np.array([300.0, 300.0])
    n = len(t)
    return ThrowSamples(t, xy, np.zeros(n), np.full(n, sig), np.zeros(n), None, len(t_hold), float(t_hold[-1])), \
        xy[-1], float(x_rest[0] - x_move[-1]), float(t_rest[1] - t_move[-1])


@pytest.mark.parametrize("speed", [60.0, 200.0, 600.0])
def test_the_racers_a_stopped_token_can_have_struck_match_a_plain_search_of_the_motion(speed):
    """Noise-free (σ 0.01 mm): for a racer straight ahead at each gap from the rest, the session's
    answer is the plain search's, away from the boundary (±0.3 mm)."""
    session = _session()
    s, p_rest, back_from_last, budget = _slid_to_rest(speed)
    path = session.fit_path(s, "egg", 45.0)
    r_egg, r_racer = 11.0, 12.5
    checked = {True: 0, False: 0}
    for gap in np.arange(0.25, 40.0, 0.5):
        q = p_rest + np.array([r_egg + r_racer + gap, 0.0])
        racer = SimpleNamespace(id=1, radius=r_racer, name="racer-1")
        got = session._stop_suspects(path, [racer], {1: (q, 0.01)}, r_egg)
        ids = got[2] if got is not None else []
        want = reaches_and_comes_back(back_from_last + gap, gap, speed, budget)
        near_edge = reaches_and_comes_back(back_from_last + gap + 0.3, gap + 0.3, speed, budget) != \
            reaches_and_comes_back(max(back_from_last + gap - 0.3, 0.0), max(gap - 0.3, 0.0), speed, budget)
        if near_edge:
            continue
        assert (1 in ids) == want, (speed, gap, ids)
        checked[want] += 1
    assert checked[True] >= 1 and checked[False] >= 10


def test_a_racer_beside_or_behind_the_rest_is_no_suspect_of_the_stop():
    session = _session()
    s, p_rest, _, _ = _slid_to_rest(600.0)
    path = session.fit_path(s, "egg", 45.0)
    for q in (p_rest + np.array([0.0, 24.0]), p_rest + np.array([-24.0, 0.0])):
        racer = SimpleNamespace(id=1, radius=12.5, name="racer-1")
        got = session._stop_suspects(path, [racer], {1: (q, 0.01)}, 11.0)
        assert got is None or 1 not in got[2]


@pytest.mark.parametrize("seed, index", [
    (0, 107),  # a Dodo that landed, slid on into the racer ahead and came back to where it was first seen at rest
    (3, 39),   # a Feather that struck the racer ahead as it came down, bounced back and landed short of it
])
def test_a_token_at_rest_short_of_a_racer_it_struck_unseen_is_a_suspect_of_the_stop(seed, index):
    """Tuning throws: the token came to rest 3.5 mm short of the racer it had struck and come back
    from between two frames; the landing alone said "no" within the noise (3.8 σ, asked only
    because the rest was seen in three frames: seen in nine it was a sure "no"). The racer is a
    suspect of the stop, and the call waits for a person."""
    session, flick, truth = _played(seed, index)
    assert truth == {"racer-1"}
    assert {v.detail["racer"]: v.answer for v in flick.ruling.verdicts}["racer-1"] == "too_close"
    proj = session.projectile_track(flick)
    path = session.throw_path(flick, proj, 45.0)
    racers = session.racer_tracks(flick)
    rest_q = {r.id: session._rest_xy(flick, r) for r in racers}
    stop = session._stop_suspects(path, racers, rest_q, proj.radius)
    assert stop is not None and {r.name for r in racers if r.id in stop[2]} == {"racer-1"}


def test_an_egg_that_slid_back_from_a_racer_it_struck_is_called_touched():
    """Tuning throw (5, 68): an Egg struck the racer between two frames and slid back 7 mm; its one
    moving sample after the touch left the slide's start speed loose (the turn 2.5 σ at the settle,
    where the racer is asked), but its places say it went back along its way in, which friction
    never does. Judged again on the frames kept after the settle (the second look: the rest in
    nine frames, sharper), it had been a sure "no" by the path drawn through the slide; it is a
    bounce, for sure."""
    session, flick, truth = _played(5, 68)
    assert truth == {"racer-1"}
    assert any(n.startswith("called again") for n in flick.notes)  # (too close at the settle)
    (v,) = flick.ruling.verdicts
    assert v.answer == "yes" and v.detail["evidence"] == "bounce"
