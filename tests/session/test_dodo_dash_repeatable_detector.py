"""A detector that claims a large σ (what it gets wrong in the same way every frame) but repeats
itself exactly on a still table, as the classical detector does on rendered frames: a token at rest
nudged a few mm (an Egg flicked against a racer next to it and back) is displaced beyond that
detector's repeatability, though well within the σ it claims; a single frame off and back is not."""

from __future__ import annotations

import numpy as np
import pytest

from session.bench import _StubDodoDash
from session.dodo_dash import DodoDashSession
from sim.live import LiveFrame
from sim.scene import PieceState, Scene
from vision.core import Observation

BOARD = "dodo-dash/dodorado-jungle"


class Repeatable:
    """Every piece where it is, σ ``claimed`` mm (not measured from frame to frame), no heights."""

    measures_height = False

    def __init__(self, claimed=2.0):
        self.claimed = claimed
        self.last_ids = []

    def __call__(self, frame, quality="full"):
        ps = frame.scene.pieces
        self.last_ids = [p.id for p in ps]
        return Observation([[p.x, p.y] for p in ps], [p.radius for p in ps], [p.height for p in ps],
                           [p.kind for p in ps], [1.0] * len(ps), [self.claimed] * len(ps),
                           frame_index=frame.index, timestamp=frame.t)


def table(egg_x):
    return [PieceState("racer-1", "racer", 400.0, 300.0, 12.5, 45.0),
            PieceState("racer-2", "racer", 700.0, 100.0, 12.5, 45.0),
            PieceState("egg", "egg", egg_x, 300.0, 11.0, 4.0)]


def play(xs, claimed=2.0, detector=None):
    """The egg at ``xs`` frame after frame, seen by ``detector`` (default a repeatable one claiming
    σ ``claimed``); the pieces named at frame 3, the throw announced."""
    from sim.suites import _board

    board = _board(BOARD)
    det = detector if detector is not None else Repeatable(claimed)
    s = DodoDashSession(board, det, game=_StubDodoDash({"projectile": "egg"}))
    for i, x in enumerate(xs):
        s.step(LiveFrame(i, i / 30, Scene("dodo-dash", BOARD, table(x), i / 30)))
        if i == 3:
            for tid, pid in zip(s._last_obs.track_id, s.detector.last_ids):
                s.assign(int(tid), pid)
            s._armed = True
    return s


def test_still_sigma_is_the_repeatability_within_the_claimed_sigma():
    s = play([430.0] * 2)
    assert s.still_sigma(np.full((8, 2), 5.0), 2.0) == s.still_sigma_floor_mm  # repeats exactly: the floor
    rng = np.random.default_rng(1)
    noisy = rng.normal(0.0, 0.7, size=(8, 2))
    assert 0.7 < s.still_sigma(noisy, 5.0) < 5.0  # an upper bound of the spread, not the claim
    assert s.still_sigma(noisy, 0.5) == 0.5  # never more than the detector claims
    assert s.still_sigma(noisy[:2], 2.0) == 2.0  # too few samples to measure: the claim


def test_a_token_nudged_a_few_mm_opens_a_flick_and_is_not_a_confident_call():
    # at rest 15 frames at x = 430, then 6 mm towards racer-1 (3 σ claimed, far beyond the repeatability)
    s = play([430.0] * 15 + [424.0] * 20)
    assert len(s.flicks) == 1
    f = s.flicks[0]
    assert "reappeared" in f.opened_by
    assert f.ruling is not None
    got = {v.detail["racer"]: v.answer for v in f.ruling.verdicts}
    assert got["racer-1"] != "no"  # it lies 24 mm from racer-1's centre: it may have touched it
    assert got["racer-2"] == "no"


def test_a_single_frame_off_and_back_opens_no_flick():
    s = play([430.0] * 15 + [424.0] + [430.0] * 20)
    assert s.flicks == []


def test_a_token_nudged_within_the_claimed_sigma_of_a_noisy_detector_opens_no_flick():
    # the same nudge seen by a detector that does not repeat itself (σ 2 mm frame to frame)
    rng = np.random.default_rng(3)
    xs = list(430.0 + rng.normal(0.0, 2.0, 15)) + list(424.0 + rng.normal(0.0, 2.0, 20))
    s = play(xs)
    assert all(f.opened_by == "motion" for f in s.flicks) or s.flicks == []


def play_tables(tables, projectile="log", arm=True):
    from sim.suites import _board

    board = _board(BOARD)
    s = DodoDashSession(board, Repeatable(3.5), game=_StubDodoDash({"projectile": projectile}))
    for i, pieces in enumerate(tables):
        s.step(LiveFrame(i, i / 30, Scene("dodo-dash", BOARD, pieces, i / 30)))
        if i == 3:
            for tid, pid in zip(s._last_obs.track_id, s.detector.last_ids):
                s.assign(int(tid), pid)
            s._armed = arm
    return s


def racers(x1=400.0):
    return [PieceState("racer-1", "racer", x1, 300.0, 12.5, 45.0), PieceState("racer-2", "racer", 700.0, 100.0, 12.5, 45.0)]


def log(x, y):
    return PieceState("log", "log", x, y, 9.0, 18.0, size=(40.0, 18.0))


def test_a_token_that_appears_by_a_racer_disturbed_is_a_throw_seen_too_late():
    # the Log unseen in the hand and in the air; it lands against racer-1, whose place is seen 8 mm off
    # from then on (the two read as one): a throw landed there, its path unknown: every racer is asked
    s = play_tables([racers()] * 15 + [racers(408.0) + [log(430.0, 300.0)]] * 20)
    assert len(s.flicks) == 1
    f = s.flicks[0]
    assert f.opened_by.startswith(DodoDashSession.APPEARED)
    assert {v.detail["racer"]: v.answer for v in f.ruling.verdicts} == {"racer-1": "too_close", "racer-2": "too_close"}


def test_a_token_that_appears_by_a_racer_far_off_or_unannounced_opens_no_flick():
    # racer-1 stirs, but the Log lies 120 mm from it: no sign the two met
    s = play_tables([racers()] * 15 + [racers(408.0) + [log(520.0, 300.0)]] * 20)
    assert s.flicks == []
    # no throw announced
    s = play_tables([racers()] * 15 + [racers(408.0) + [log(430.0, 300.0)]] * 20, arm=False)
    assert s.flicks == []
    # nothing stirs where the Log is put down (a player puts it down before throwing it)
    s = play_tables([racers()] * 15 + [racers() + [log(430.0, 300.0)]] * 20)
    assert s.flicks == []


class KindAfter(Repeatable):
    """:class:`Repeatable`, reporting the Egg as a racer from frame ``n`` on (an Egg at rest against
    a racer, the two read as two racers)."""

    def __init__(self, n, claimed=2.0):
        super().__init__(claimed)
        self.n = n

    def __call__(self, frame, quality="full"):
        obs = super().__call__(frame, quality)
        if frame.index >= self.n:
            kinds = np.array(obs.kind, dtype=object)
            kinds[[i for i, pid in enumerate(self.last_ids) if pid == "egg"]] = "racer"
            obs.kind = kinds
        return obs


def egg_slide(stop_x):
    """The Egg at rest at x = 520, flicked towards racer-1 (x = 400) at 600 mm/s, slowing to a stop at ``stop_x``."""
    xs = [520.0] * 15
    x, v = 520.0, -900.0
    while x + v / 30 > stop_x and v < 0:
        x += v / 30
        v = min(v + 150.0, -150.0)
        xs.append(x)
    return xs + [stop_x] * 25


def play_kind_after(xs, n):
    return play(xs, detector=KindAfter(n))


def test_the_token_read_as_another_kind_where_it_stops_is_still_the_token():
    xs = egg_slide(422.0)  # it stops overlapping racer-1 (12.5 + 11 mm apart at the touch)
    n = len(xs) - 25  # read as a racer from the frame it stops
    s = play_kind_after(xs, n)
    (flick,) = [f for f in s.flicks if f.ruling is not None]
    proj = next(tr for tr in s.tracker.tracks.values() if tr.kind == "egg")
    chain = s.token_tracks(flick, proj.id, "egg")
    assert len(chain) == 2 and s.tracker.tracks[chain[1]].kind == "racer"  # the egg, then the egg read as a racer
    got = {v.detail["racer"]: v.answer for v in flick.ruling.verdicts}
    assert got["racer-1"] != "no"  # where it stopped it overlaps racer-1: never a confident no
    assert got["racer-2"] == "no"


class Noisy(Repeatable):
    """:class:`Repeatable` whose places wander by the σ it claims, every frame anew."""

    def __init__(self, claimed=2.0, seed=0):
        super().__init__(claimed)
        self.rng = np.random.default_rng(seed)

    def __call__(self, frame, quality="full"):
        obs = super().__call__(frame, quality)
        obs.xy = obs.xy + self.rng.normal(0.0, self.claimed, obs.xy.shape)
        return obs


def test_the_motion_test_sees_the_repeatability_measured_on_the_table():
    s = play([520.0] * 40)  # three pieces still 40 frames: 117 steps, all 0 mm
    assert s.repeatability() is not None and s.repeatability() < 0.1
    seen = s.motion_observation(s._last_obs)
    assert np.allclose(seen.sigma, s.still_sigma_floor_mm) and np.allclose(s._last_obs.sigma, 2.0)  # (the calls' σ untouched)
    from sim.suites import _board

    board = _board(BOARD)
    noisy = DodoDashSession(board, Noisy(2.0), game=_StubDodoDash({"projectile": "egg"}))
    for i in range(40):
        noisy.step(LiveFrame(i, i / 30, Scene("dodo-dash", BOARD, table(520.0), i / 30)))
    assert noisy.repeatability() == 1.0  # a detector as noisy as it says: its σ as they are
    assert noisy.motion_observation(noisy._last_obs) is noisy._last_obs


def test_a_slow_slide_within_the_claimed_sigma_is_seen_moving_by_a_repeatable_detector():
    # 4 mm a frame for five frames: far within the claimed 2 mm σ's motion limit (17 mm), far beyond what the detector wanders
    s = play([520.0] * 20 + [516.0, 512.0, 508.0, 504.0, 500.0] + [500.0] * 20)
    assert [f.opened_by for f in s.flicks] == ["motion"]
    assert s.flicks[0].ruling is not None


def test_a_piece_that_appears_in_a_motion_with_no_token_seen_moving_is_asked_about():
    still = [racers()] * 40
    pushed = [racers(400.0 + 4.0 * j) for j in range(1, 5)]  # racer-1 pushed 16 mm over four frames
    s = play_tables(still + [p + [log(450.0, 300.0)] for p in pushed] + [racers(416.0) + [log(450.0, 300.0)]] * 20)
    (flick,) = s.flicks
    assert flick.opened_by == "motion" and flick.ruling is not None
    assert {v.answer for v in flick.ruling.verdicts} == {"too_close"}
    # the same push with no piece appearing: a racer moved by hand, no call
    s = play_tables(still + pushed + [racers(416.0)] * 20)
    (flick,) = s.flicks
    assert flick.ruling is None and flick.status == "no-call"


def test_a_racers_rest_place_averages_away_only_what_the_detector_does_not_repeat():
    """A racer's place before the throw is the mean of its samples at rest; its σ is the σ the
    detector claims, less the part that changes from frame to frame (its measured repeatability):
    a detector that repeats itself gets the same thing wrong every frame, and the mean keeps it;
    one as noisy as it says averages it away (σ / √n)."""
    s = play([430.0] * 15 + [424.0] * 20)  # repeats itself exactly
    (flick,) = s.flicks
    racer = next(tr for tr in s.tracker.tracks.values() if tr.name == "racer-2")
    xy, sig = s._rest_xy(flick, racer)
    assert np.allclose(xy, [700.0, 100.0])
    assert s.repeatability() < 0.1 and 1.9 < sig <= 2.0
    # slid 30 mm toward racer-1, seen by a detector as noisy as it says
    noisy = play([430.0] * 30 + [430.0 - 6.0 * j for j in range(1, 6)] + [400.0] * 20, detector=Noisy(2.0, seed=5))
    flick = noisy.flicks[-1]
    racer = next(tr for tr in noisy.tracker.tracks.values() if tr.name == "racer-2")
    xy, sig = noisy._rest_xy(flick, racer)
    n = sum(1 for f in flick.frames if f.t < flick.t_start and racer.id in f.obs.track_id)
    assert noisy.repeatability() == 1.0 and n >= 8
    assert sig == pytest.approx(2.0 / np.sqrt(n))
    assert np.hypot(*(xy - [700.0, 100.0])) < 4.0 * sig
