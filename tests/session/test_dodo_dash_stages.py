"""The stages of a Dodo Dash throw's call on hand-made samples (mat mm, s, 30 frames a second, σ
0.7 mm): the path fit (:meth:`DodoDashSession.fit_path`), the events between its segments, each
racer's call, and the verdicts in the order first touched. An Egg (radius 11 mm) and racers of
radius 12.5 mm, 45 mm tall: their edges meet when the centres are 23.5 mm apart."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from session.bench import _StubDodoDash
from session.dodo_dash import DodoDashSession, RacerCall, ThrowSamples
from session.oracle import OracleDetector

FPS, EGG_R, RACER_R, RACER_H, G = 30.0, 11.0, 12.5, 45.0, 9810.0


@pytest.fixture(scope="module")
def session():
    from sim.suites import _board

    board = _board("dodo-dash/dodorado-jungle")
    return DodoDashSession(board, OracleDetector(board), game=_StubDodoDash({"projectile": "egg"}))


def samples(xy_of_t, z_of_t, n_rest: int = 6, t_end: float = 0.8) -> ThrowSamples:
    """Samples of a token at rest for ``n_rest`` frames, then launched at t = 0 (base height
    ``z_of_t``, centre ``xy_of_t``)."""
    t = np.arange(-n_rest, int(t_end * FPS)) / FPS
    xy = np.array([xy_of_t(max(x, 0.0)) for x in t])
    zb = np.array([z_of_t(max(x, 0.0)) for x in t])
    n = len(t)
    return ThrowSamples(t, xy, zb, np.full(n, 0.7), np.zeros(n), None, n_rest, float(t[n_rest - 1]))


def racer(i: int, x: float, y: float):
    return SimpleNamespace(id=i, name=f"racer-{i}", radius=RACER_R), (np.array([x, y]), 0.2)


def judged(session, smp, rs):
    """(the events, {racer name: Verdict}, the order first touched) through the stages."""
    racers = [r for r, _ in rs]
    rest_q = {r.id: q for r, q in rs}
    path = session.fit_path(smp, "egg", RACER_H)
    events = session.throw_events(path, racers, rest_q, EGG_R, RACER_H)
    calls = [session.racer_call(path, events, r, racers, rest_q, EGG_R, RACER_H) for r in racers]
    calls = session.spin_touch(path, calls, racers, rest_q, EGG_R)
    flick = SimpleNamespace(mover="egg", index_start=0, index_settle=1)
    verdicts, order = session.ordered_verdicts(flick, calls)
    return events, {v.detail["racer"]: v for v in verdicts}, order


def slide(v0=600.0, decel=1000.0):
    """Along +x on the mat from the origin, slowing to a stop."""
    t_stop = v0 / decel
    return lambda t: np.array([v0 * min(t, t_stop) - decel * min(t, t_stop) ** 2 / 2, 0.0])


@pytest.mark.parametrize("y, answer, evidence, margin", [
    (10.0, "yes", "overlap", 13.5),   # the footprints overlap by 23.5 − 10 mm
    (43.5, "no", "path", -20.0),      # the edges stay 20 mm apart
])
def test_a_slide_on_the_mat_touches_the_racer_it_overlaps(session, y, answer, evidence, margin):
    _, v, order = judged(session, samples(slide(), lambda t: 0.0), [racer(1, 100.0, y)])
    call = v["racer-1"]
    assert (call.answer, call.detail["evidence"]) == (answer, evidence)
    assert call.margin == pytest.approx(margin, abs=0.2)
    assert order == (["racer-1"] if answer == "yes" else [])


def thrown(z0: float, vx: float = 1200.0, decel: float = 1000.0):
    """Released at height ``z0`` mm at the origin, flying along +x at ``vx`` mm/s and falling; then
    sliding on to a stop."""
    t_land = np.sqrt(2 * z0 / G)
    t_stop = vx / decel

    def xy(t):
        if t <= t_land:
            return np.array([vx * t, 0.0])
        u = min(t - t_land, t_stop)
        return np.array([vx * t_land + vx * u - decel * u * u / 2, 0.0])

    return xy, (lambda t: max(z0 - G * t * t / 2, 0.0))


@pytest.mark.parametrize("z0, answer", [
    (100.0, "no"),   # over the racer's footprint at 90 mm and more: above its 45 mm top
    (30.0, "yes"),   # through the footprint below the top
])
def test_a_throw_over_a_racers_footprint_touches_it_only_below_its_top(session, z0, answer):
    xy, z = thrown(z0)
    _, v, _ = judged(session, samples(xy, z), [racer(1, 30.0, 0.0)])
    call = v["racer-1"]
    assert call.answer == answer, call.detail
    if answer == "yes":
        assert call.detail["evidence"] == "overlap"
    else:
        assert call.detail["evidence"] != "overlap" and call.margin < -10.0


def test_a_bounce_where_the_fits_meet_touches_the_racer_it_turned_off(session):
    """Sliding at 600 mm/s into racer-1 (edges meet at x = 76.5), then back off it, turned; racer-2
    is far from the path."""
    t_hit = 76.5 / 600.0
    d = np.array([-0.9, 0.3]) / np.hypot(-0.9, 0.3)

    def xy(t):
        if t <= t_hit:
            return np.array([600.0 * t, 0.0])
        u = min(t - t_hit, 0.3)
        return np.array([76.5, 0.0]) + d * (300.0 * u - 500.0 * u * u)

    events, v, order = judged(session, samples(xy, lambda t: 0.0), [racer(1, 100.0, 0.0), racer(2, 0.0, 100.0)])
    ((jn, turn, also),) = events.bounces
    assert not also  # (no other racer can have turned it)
    assert jn.t == pytest.approx(t_hit, abs=1e-3) and jn.xy == pytest.approx([76.5, 0.0], abs=0.5)
    assert turn[0] < -0.9  # pushed back, away from racer-1
    assert v["racer-1"].answer == "yes" and v["racer-1"].detail["evidence"] == "bounce"
    assert v["racer-1"].detail["t"] == pytest.approx(t_hit, abs=1e-3)
    assert v["racer-2"].answer == "no"
    assert order == ["racer-1"]


def test_the_order_is_by_the_earliest_touch_a_call_in_doubt_from_when_it_could_have_begun(session):
    flick = SimpleNamespace(mover="egg", index_start=0, index_settle=1)
    k = session.referee.k
    calls = [RacerCall("racer-1", 5 * k, 0.30, 1.0, "overlap", 0.29),    # sure, touched at 0.30 s
             RacerCall("racer-2", 5 * k, 0.10, 1.0, "overlap", 0.09),    # sure, touched at 0.10 s
             RacerCall("racer-3", -5 * k, 0.05, 1.0, "path", None),      # a sure miss: not in the order
             RacerCall("racer-4", 0.5 * k, 0.40, 1.0, "bounce, which racer unsure", 0.20)]  # in doubt
    verdicts, order = session.ordered_verdicts(flick, calls)
    assert [v.answer for v in verdicts] == ["yes", "yes", "no", "too_close"]
    assert verdicts[3].detail["t"] == 0.20  # touched, if at all, from 0.20 s on
    assert order == ["racer-2", "racer-4", "racer-1"]
    assert session.ordered_verdicts(flick, []) == ([], [])


@pytest.mark.parametrize("v_in, suspects", [
    (400.0, {1}),    # running deeper into racer-1: it is the first the ray runs into, and hides racer-2
    (-400.0, set()),  # leaving racer-1 (and nothing behind): no racer on the ray
])
def test_an_incoming_ray_that_starts_inside_a_racer_it_came_into_low_is_stopped_by_it(session, v_in, suspects):
    """An event right after the last sample before it: the fit of the slide ends 3.5 mm inside
    racer-1 (come into on the mat), racer-2 lies beyond it on the same line."""
    from dataclasses import replace

    path = session.fit_path(samples(slide(), lambda t: 0.0), "egg", RACER_H)  # at x = 100 mm at 0.2 s
    rs = [racer(1, 120.0, 0.0), racer(2, 175.0, 0.0)]
    racers, rest_q = [r for r, _ in rs], {r.id: q for r, q in rs}
    iv = replace(session._interval(path, 0), t0=0.2, t1=0.2 + 1 / FPS, t_mid=0.2 + 0.5 / FPS, p_from=np.array([100.0, 0.0]),
                 v_in=np.array([v_in, 0.0]), s_in=abs(v_in), p_to=np.array([100.0, 0.0]), v_out=np.zeros(2), s_out=0.0,
                 from_rest=False)
    found, unexplained, after = session._ray_suspects(path, iv, racers, rest_q, EGG_R, False)
    assert found == suspects and not unexplained
    assert after == (suspects and {1})  # (after the touch, in reach of the interval: racer-1 alone)


def spun_from(t_spin: float, rate_deg_s: float = -300.0):
    """Angles (degrees) of a token that does not turn until ``t_spin`` s, then turns at ``rate_deg_s``."""
    return lambda t: np.where(t < t_spin, 0.0, rate_deg_s * (t - t_spin))


@pytest.mark.parametrize("spin_at, others, answer", [
    (None, [], "too_close"),          # 0.5 mm off racer-1's edge, and nothing else tells
    (0.2, [], "yes"),                 # it started to turn beside racer-1: a touch, and racer-1 alone was there
    (0.2, [(100.0, -24.5)], "too_close"),  # ... but racer-2 was as near on the other side
    (0.5, [], "too_close"),           # it started to turn far from every racer: not racer-1's touch
])
def test_a_token_that_starts_to_turn_beside_one_racer_alone_touched_it(session, spin_at, others, answer):
    """An Egg sliding along +x past racer-1 with 0.5 mm between their edges (at x = 100 mm at 0.2 s):
    sliding, nothing turns it but a touch."""
    from dataclasses import replace

    smp = samples(slide(), lambda t: 0.0)
    if spin_at is not None:
        smp = replace(smp, ang=spun_from(spin_at)(smp.t))
    rs = [racer(1, 100.0, 24.0)] + [racer(2 + i, x, y) for i, (x, y) in enumerate(others)]
    _, v, order = judged(session, smp, rs)
    call = v["racer-1"]
    assert call.answer == answer, call.detail
    if answer == "yes":
        assert call.detail["evidence"].startswith("spun by a touch")
        assert 0.1 <= call.detail["t"] <= 0.25 and order == ["racer-1"]


def test_a_sure_no_from_the_landing_gives_way_to_a_spin_change_beside_that_racer_alone(session):
    """Racer-1's call is a sure "no" from where the token landed (2.5 mm off its edge, before the
    spin changed); sliding past it within the samples' reach the token starts to turn, racer-1 alone
    there: the touch turned it (a log struck a racer sliding on after its landing)."""
    from dataclasses import replace

    smp = samples(slide(), lambda t: 0.0)
    smp = replace(smp, ang=spun_from(0.2)(smp.t))
    path = session.fit_path(smp, "egg", RACER_H)
    r, q = racer(1, 100.0, 26.0)
    landed = RacerCall("racer-1", -2.5, 0.0, 0.3, "landed on", None)   # 8 σ: sure, and before the change
    k = session.referee.k
    assert abs(landed.margin) > k * landed.sigma
    (call,) = session.spin_touch(path, [landed], [r], {r.id: q}, EGG_R)
    assert call.evidence.startswith("spun by a touch") and call.margin > k * call.sigma
    assert 0.1 <= call.t <= 0.25
    # out of the token's reach between the samples (20 mm off the edge): the "no" stands
    r2, q2 = racer(2, 100.0, 43.5)
    far = RacerCall("racer-2", -20.0, 0.0, 0.3, "landed on", None)
    assert session.spin_touch(path, [far], [r2], {r2.id: q2}, EGG_R) == [far]


@pytest.mark.parametrize("rate, touched", [
    (300.0, "racer-1"),    # counter-clockwise: its edge slid along a racer on its left (+y)
    (-300.0, "racer-2"),   # clockwise: on its right
])
def test_the_way_a_token_starts_to_turn_says_which_side_it_touched(session, rate, touched):
    """An Egg sliding along +x between racer-1 (0.5 mm off its edge, on its left) and racer-2 (1 mm
    off, on its right), starting to turn as it passes them (x = 100 mm at 0.2 s)."""
    from dataclasses import replace

    smp = samples(slide(), lambda t: 0.0)
    smp = replace(smp, ang=spun_from(0.2, rate)(smp.t))
    _, v, order = judged(session, smp, [racer(1, 100.0, 24.0), racer(2, 100.0, -24.5)])
    other = ({"racer-1", "racer-2"} - {touched}).pop()
    assert v[touched].answer == "yes" and v[touched].detail["evidence"].startswith("spun by a touch")
    assert v[other].answer == "too_close"


def test_each_change_of_a_sliding_tokens_spin_is_found_and_a_slowing_one_is_none(session):
    """Sliding (friction only slows its spin): turning from 0.2 s at −300°/s and from 0.4 s at
    −700°/s: two changes, each between the samples around it; a spin slowing down: none."""
    from dataclasses import replace

    smp = samples(slide(), lambda t: 0.0)
    path = session.fit_path(replace(smp, ang=np.where(smp.t < 0.4, spun_from(0.2)(smp.t), -60.0 - 700.0 * (smp.t - 0.4))),
                            "egg", RACER_H)
    changes = session.spin_changes(path)
    assert len(changes) == 2
    for (t0, t1, dw), t_c, sense in zip(changes, (0.2, 0.4), (-1, -1)):
        assert t0 <= t_c <= t1 and t1 - t0 <= 0.1 and np.sign(dw) == sense
    slowing = np.degrees(np.where(smp.t < 0, 0.0, 5.0 * smp.t - 4.0 * smp.t ** 2))  # 5 rad/s, slowing
    path = session.fit_path(replace(smp, ang=slowing), "egg", RACER_H)
    assert session.spin_changes(path) == []


def test_a_detector_that_does_not_read_a_tokens_orientation_gives_no_spin_evidence():
    """The same turning token: with the oracle (angles to 1°) the change is found; with a detector
    that declares no angle σ (the classical one reports 0 for a token's angle) there is none."""
    from dataclasses import replace

    from sim.suites import _board

    board = _board("dodo-dash/dodorado-jungle")
    no_angles = SimpleNamespace(config=SimpleNamespace(), measures_height=True)
    blind = DodoDashSession(board, no_angles, game=_StubDodoDash({"projectile": "egg"}))
    smp = samples(slide(), lambda t: 0.0)
    turned = replace(smp, ang=spun_from(0.2)(smp.t))
    assert len(DodoDashSession(board, OracleDetector(board), game=_StubDodoDash({"projectile": "egg"}))
               .spin_changes(blind.fit_path(turned, "egg", RACER_H))) == 1
    assert blind.angle_sigma_deg() is None
    assert blind.spin_changes(blind.fit_path(turned, "egg", RACER_H)) == []


def released_between_samples(z0: float, tau: float, vx: float = 600.0, n_rest: int = 6) -> ThrowSamples:
    """Held still at height ``z0`` mm at the origin (``n_rest`` samples up to t = 0), let go at
    ``tau`` s (before the next sample at 1/30 s) flying along +x at ``vx`` mm/s and falling, then
    sliding to a stop; the samples as the oracle gives them, without noise."""
    t = np.arange(-n_rest + 1, int(0.8 * FPS)) / FPS
    u = np.maximum(t - tau, 0.0)
    t_land = np.sqrt(2 * z0 / G)
    x = np.where(u <= t_land, vx * u, vx * t_land + vx * (u - t_land) - 500.0 * (u - t_land) ** 2)
    zb = np.maximum(z0 - G * u * u / 2, 0.0)
    n = len(t)
    return ThrowSamples(t, np.column_stack([x, np.zeros(n)]), zb, np.full(n, 0.7), np.zeros(n), None, n_rest, float(t[n_rest - 1]))


@pytest.mark.parametrize("tau", [0.1 / FPS, 0.5 / FPS, 0.9 / FPS])
def test_a_release_between_two_samples_leaves_the_height_open_between_them(session, tau):
    """Let go 47.5 mm up at an instant no sample saw: between the last sample in the hand and the
    first in flight the path's height and its k σ hold the true height, however soon it fell."""
    smp = released_between_samples(47.5, tau)
    path = session.fit_path(smp, "egg", RACER_H)
    m = (path.T > smp.t_launch) & (path.T < smp.t[smp.i_launch])
    assert m.sum() > 20
    truth = 47.5 - G * np.maximum(path.T[m] - tau, 0.0) ** 2 / 2
    k = session.referee.k
    assert np.all(np.abs(path.Z[m] - truth) <= k * path.height_sigma(path.T[m]) + 1e-6)
    # and at the samples themselves the height is what they saw
    assert path.height_sigma(np.array([smp.t_launch]))[0] == pytest.approx(path.z_hold_s)


def test_a_racer_the_token_came_down_onto_before_its_first_sample_in_flight_is_asked(session):
    """Let go 47.5 mm up (2.5 mm above a racer's top) right after a sample and closest to racer-1,
    over its footprint, 28 ms later, 1.3 mm below its top: it struck its edge. The height held
    until the first sample in flight (6 σ above the top) had called that a sure miss."""
    smp = released_between_samples(47.5, 0.1 / FPS)
    _, v, _ = judged(session, smp, [racer(1, 16.6, 20.0)])
    assert v["racer-1"].answer == "too_close", v["racer-1"].detail
    assert v["racer-1"].detail["evidence"] == "came down onto it"


def test_two_racers_in_doubt_and_none_sure_are_asked_which_came_first(session):
    """A Feather (only its first racer counts) that can have touched two racers, neither surely:
    a person who says both were touched must also say which came first (race seed 22: the order
    first touched had put the later one first). The earlier is asked "touched before" the later;
    the hits built from each possible truth start with the racer the person says came first."""
    from referee.adapters.dodo_dash import hits_ruling
    from session.simgame_dodo import _truth_of

    flick = SimpleNamespace(mover="feather", index_start=0, index_settle=1)
    calls = [RacerCall("racer-1", 0.0, 0.50, 2.0, "passed over, an event while over it", 0.49),
             RacerCall("racer-2", -0.3, 0.53, 3.0, "path", 0.51),
             RacerCall("racer-3", -40.0, 0.55, 2.0, "path", None)]
    verdicts, order = session.ordered_verdicts(flick, calls)
    assert [v.answer for v in verdicts] == ["too_close", "too_close", "no"] and order == ["racer-1", "racer-2"]
    before = session.asked_before(verdicts)
    assert before == {"racer-1": "racer-2"}
    ruling = hits_ruling(verdicts, ["racer-1", "racer-2", "racer-3"], session.referee, order=order, before=before)
    assert set(ruling.pending) == {"before:racer-1:racer-2", "hit:racer-2"}
    for touched in (["racer-2", "racer-1"], ["racer-1", "racer-2"], ["racer-1"], ["racer-2"], []):
        r = ruling
        for name in r.open_facts():
            r = r.resolve(name, _truth_of(name, touched))
        assert r.action().racers[:1] == tuple(touched[:1]), touched
    # one in doubt alone: asked whether it was touched at all
    assert session.asked_before(verdicts[:1] + verdicts[2:]) == {}


def test_racers_touched_at_one_landing_are_tied_for_first(session):
    """Two racers landed on at once (each could have been touched from before the landing) are
    tied: which came first is asked for a projectile that counts only its first; one touched only
    after the first's touch is not tied, one that can have been touched as early as it is."""
    from referee.adapters.dodo_dash import hits_ruling

    flick = SimpleNamespace(mover="feather", index_start=0, index_settle=1)
    k = session.referee.k
    calls = [RacerCall("racer-1", 5 * k, 0.50, 1.0, "landed on", 0.48),
             RacerCall("racer-2", 4 * k, 0.50, 1.0, "landed on", 0.47),
             RacerCall("racer-3", 5 * k, 0.60, 1.0, "overlap", 0.52)]   # from 0.52 s: after the first's
    verdicts, order = session.ordered_verdicts(flick, calls)
    assert order == ["racer-1", "racer-2", "racer-3"]
    assert verdicts[0].detail["tied"] == ["racer-2"]
    asked = session.ask_tied_first(verdicts)
    assert [v.answer for v in asked] == ["yes", "too_close", "yes"]
    before = session.asked_before(asked)
    assert before == {"racer-2": "racer-1"}
    ruling = hits_ruling(asked, ["racer-1", "racer-2", "racer-3"], session.referee, order=order, before=before)
    assert set(ruling.pending) == {"before:racer-2:racer-1"}
    # none tied: nothing changes
    calls[1] = RacerCall("racer-2", 4 * k, 0.55, 1.0, "overlap", 0.52)
    verdicts, _ = session.ordered_verdicts(flick, calls)
    assert "tied" not in verdicts[0].detail
    assert session.ask_tied_first(verdicts) == verdicts
    # one that can have been touched as early as the first's evidence (the same frames' doubt) may
    # have come first
    calls[1] = RacerCall("racer-2", 4 * k, 0.55, 1.0, "bounce", 0.50)
    verdicts, _ = session.ordered_verdicts(flick, calls)
    assert verdicts[0].detail["tied"] == ["racer-2"]
