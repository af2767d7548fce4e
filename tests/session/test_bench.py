"""``tableref bench live`` runs end to end on a few scenes (the figures themselves come from the
full run; see the report)."""

from __future__ import annotations

import numpy as np

from session.bench import bench_live, format_report


def test_bench_live_on_a_few_scenes():
    r = bench_live(throws=3, fouls=3, seed=7, start=10000, game=False)
    assert r["detector"].startswith("oracle-with-noise")
    for key, scenes in (("throws", 3), ("fouls", 3)):
        f = r[key]
        assert f["scenes"] == scenes == f["right"] + f["asked"] + f["wrong"]
        if key == "throws":
            assert sum(sum(v.values()) for v in f["by_kind"].values()) == scenes
        assert f["identity_flicks"] == scenes and f["frames"] > 30 * scenes
        assert 0 < f["step_ms_mean"] < 33.3
        # the call's latency after the settle in its two parts: frames waited, and that frame's step
        assert 0 <= f["latency_wait_ms_p50"] <= f["latency_wait_ms_p95"] < 500
        assert 0 < f["latency_step_ms_p50"] <= f["latency_step_ms_p95"]
    text = format_report(r)
    assert "dodo-dash/throws" in text and "dino-dunk/fouls" in text and "target 99.5%" in text
    assert "waited for the table to count as still" in text


def test_the_calls_latency_is_reported_whole_and_in_its_two_parts():
    """Each flick's latency is the time waited for the table to count as still plus the step of that
    frame: the whole is the sum flick by flick (its percentiles are not the sums of the parts')."""
    from session.bench import SuiteFigures, play_scene, _StubDodoDash
    from session.dodo_dash import DodoDashSession
    from sim.suites import _board, make_scenario

    f = SuiteFigures("dodo-dash/throws")
    f.latency_s = [(2 / 30, 0.010), (3 / 30, 0.020), (1 / 30, 0.030)]
    d = f.to_dict()
    assert d["latency_ms_p50"] == round(1e3 * (2 / 30 + 0.010), 1)  # 76.7: the middle flick's whole
    assert d["latency_wait_ms_p50"] == round(1e3 * 2 / 30, 1) and d["latency_step_ms_p50"] == 20.0
    assert d["latency_ms_p95"] == round(1e3 * float(np.percentile([2 / 30 + 0.01, 0.12, 1 / 30 + 0.03], 95)), 1)

    scn = make_scenario("dodo-dash/throws", 0, 7)
    board = _board(scn.board)
    _, _, steps, latency = play_scene(scn, board, lambda det: DodoDashSession(board, det, game=_StubDodoDash(scn.meta)), seed=0)
    waited, step = latency
    assert 0 <= waited < 0.5 and 0 < step < 5.0 and len(steps) > 30


def test_cli_registers_bench_live(capsys):
    from cli.main import main

    assert main(["bench", "live", "--throws", "1", "--fouls", "1", "--no-game", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"throws"' in out and '"fouls"' in out
    assert main(["bench", "live", "--throws", "-1"]) == 2


def test_fouls_an_open_carrier_contact_is_asked_only_when_the_defence_flicked(monkeypatch):
    """The foul figure counts a carrier contact left to a person as "asked" only when a foul was
    possible (the defence flicked); after an offence flick the open question is a stun, and the
    foul call ("no foul") is right."""
    from types import SimpleNamespace

    import session.bench as bench
    from sim.suites import make_scenario

    sides = {}
    for i in range(40):
        meta = make_scenario("dino-dunk/fouls", i, 0).meta
        sides.setdefault(meta["actor"].split(":")[0] == meta["offense"], i)
        if len(sides) == 2:
            break
    assert len(sides) == 2

    def fake_play(scn, board, make_session, **kw):
        ruling = SimpleNamespace(pending={"carrier_struck": {}}, facts={})
        flick = SimpleNamespace(ruling=ruling, contacts=[], notes=[])
        return SimpleNamespace(flicks=[flick], referee=SimpleNamespace(k=4.5)), None, [0.001], (0.0, 0.05)

    monkeypatch.setattr(bench, "play_scene", fake_play)
    monkeypatch.setattr(bench, "_identities_kept", lambda s, d: True)
    for offence_flicked, index in sides.items():
        f = bench.SuiteFigures("dino-dunk/fouls")
        bench.bench_fouls(1, 0, index, f)
        if offence_flicked:
            assert (f.right, f.asked, f.other_asked) == (1, 0, 1)
        else:
            assert (f.right, f.asked, f.other_asked) == (0, 1, 0)


def test_fouls_an_asked_call_carries_its_truth(monkeypatch):
    """Each asked foul call is reported with the truth behind it: whether it was a foul, and the
    carrier's least true clearance to any other disc over the run (between frames too), with the
    doubtful carrier contact's σ."""
    from types import SimpleNamespace

    import session.bench as bench
    from sim.suites import _board, make_scenario
    from sim.truth import dino_dunk_answers, edge_distance

    picked = {}
    for i in range(60):
        scn = make_scenario("dino-dunk/fouls", i, 0)
        if scn.meta["actor"].split(":")[0] == scn.meta["offense"]:
            continue
        foul = bool(dino_dunk_answers(scn, _board(scn.board)).get("foul"))
        picked.setdefault(foul, (i, scn))
        if len(picked) == 2:
            break
    assert set(picked) == {True, False}

    def fake_play(scn, board, make_session, **kw):
        c = scn.meta["carrier"]
        contacts = [{"a": "x", "b": c, "sigma_mm": 0.4, "doubtful": True}, {"a": c, "b": "y", "sigma_mm": 0.3, "doubtful": False},
                    {"a": "x", "b": "y", "sigma_mm": 0.1, "doubtful": True}]
        flick = SimpleNamespace(ruling=SimpleNamespace(pending={"carrier_struck": {}}, facts={}), contacts=contacts, notes=[])
        return SimpleNamespace(flicks=[flick], referee=SimpleNamespace(k=4.5)), None, [0.001], (0.0, 0.05)

    monkeypatch.setattr(bench, "play_scene", fake_play)
    monkeypatch.setattr(bench, "_identities_kept", lambda s, d: True)
    f = bench.SuiteFigures("dino-dunk/fouls")
    for foul, (i, scn) in sorted(picked.items()):
        bench.bench_fouls(1, 0, i, f)
        assert f.asked_truth[-1][1] == round(bench.carrier_clearance(scn), 3)
        want, gap, sigma, k = f.asked_truth[-1]
        assert (want, sigma, k) == (foul, 0.4, 4.5)
        # never more than the gap seen at any of the camera's frames; a foul's carrier was touched
        # (pymunk lets shapes overlap by its slop), a clean pass left a gap
        at_frames = min(edge_distance(fr.by_id()[scn.meta["carrier"]], p) for fr in scn.run.frames for p in fr.pieces
                        if p.kind.startswith("disc-") and p.id != scn.meta["carrier"])
        assert gap <= at_frames + 1e-3
        assert (gap < 0.05) if foul else (gap > 0.0)
    d = f.to_dict()["asked_truth"]
    assert (d["fouls"], d["not_fouls"], d["k"], d["sigma_mm_median"]) == (1, 1, 4.5, 0.4)
    assert d["clearance_mm_median"] == d["clearance_mm_max"] == round(f.asked_truth[0][1], 2)
    assert "of the asked, in truth: a foul 1, no foul 1, where" in bench.format_report({"detector": "d", "fps": 30, "size": "s", "seed": 0,
                                                                      "start": 0, "fouls": f.to_dict(), "rss_peak_mb": 1, "seconds": 1})


def test_throws_an_asked_call_with_a_confident_wrong_racer_is_counted_apart(monkeypatch):
    """A throw left to a person (one racer too close) still counts "asked", but a confident call on
    another racer that disagrees with the truth is counted and listed apart; confident calls that
    agree are not."""
    from types import SimpleNamespace

    import session.bench as bench
    from sim.suites import _board, make_scenario
    from sim.truth import dodo_dash_answers

    index = next(i for i in range(40) if dodo_dash_answers(s := make_scenario("dodo-dash/throws", i, 0), _board(s.board))["touched_racers"])
    scn = make_scenario("dodo-dash/throws", index, 0)
    touched = sorted(dodo_dash_answers(scn, _board(scn.board))["touched_racers"])
    others = sorted({p.id for p in scn.initial.pieces if p.kind == "racer"} - set(touched))
    assert others

    def verdict(racer, answer, margin, t):
        return SimpleNamespace(answer=answer, margin=margin, detail={"racer": racer, "evidence": "overlap", "t": t})

    def fake_play(calls):
        def play(scn, board, make_session, **kw):
            flick = SimpleNamespace(ruling=SimpleNamespace(verdicts=calls), notes=[])
            return SimpleNamespace(flicks=[flick]), None, [0.001], (0.0, 0.05)
        return play

    monkeypatch.setattr(bench, "_identities_kept", lambda s, d: True)
    for other_answer, counted in (("yes", 1), ("no", 0)):
        calls = [verdict(touched[0], "too_close", 0.5, 0.5), verdict(others[0], other_answer, 5.0, 0.6)]
        monkeypatch.setattr(bench, "play_scene", fake_play(calls))
        f = bench.SuiteFigures("dodo-dash/throws")
        bench.bench_throws(1, 0, index, f)
        assert (f.asked, f.right, f.wrong, f.asked_but_wrong) == (1, 0, 0, counted)
        assert len(f.failures) == counted
        # racer by racer: the touched one asked, the other right when "no", wrong when "yes"
        assert f.racer_calls == ({"asked": 1, "wrong": 1} if counted else {"asked": 1, "right": 1})
        assert "racer by racer (2 calls)" in bench._racer_calls_line(f.to_dict())
        if counted:
            assert f.failures[0]["confident_wrong"] == {others[0]: ["yes", -5.0, "overlap"]}


def test_each_frame_is_stamped_with_the_time_its_simulated_state_holds():
    from session import bench
    from sim.suites import make_scenario

    scn = make_scenario("dodo-dash/throws", 0, 0)
    frames = list(bench._frames(scn, 0.5, 30.0))
    n_hold, run = 15, list(scn.run.frames)
    start = frames[n_hold][0].t
    for (frame, rel), state in zip(frames[n_hold:n_hold + len(run)], run):
        assert abs((frame.t - start) - state.t) < 1e-9 and abs(rel - state.t) < 1e-9
        assert frame.scene.t == frame.t
    stamps = [f.t for f, _ in frames]
    assert all(b > a for a, b in zip(stamps, stamps[1:]))  # strictly increasing, the holds included
    assert any(abs(s.t - round(s.t * 30) / 30) > 1e-4 for s in run)  # the states lie off the 1/30 s grid


def _skips_by_clock(step_s, fps, tick=1e-4):
    """Reference: a clock ticking in small steps; a frame is the newest once it has arrived; the loop,
    when free, takes the newest frame it has not seen (or waits for one)."""
    n, t, busy_until, seen, last = len(step_s), 0.0, 0.0, set(), -1
    while last < n - 1:
        arrived = min(n - 1, int(np.floor(t * fps + 1e-9)))
        if t >= busy_until - 1e-12 and arrived > last:
            last = arrived
            seen.add(arrived)
            busy_until = t + step_s[arrived]
        t += tick
    return n - len(seen)


def test_the_frames_a_real_time_loop_skips_are_counted_as_a_clock_would():
    from session.bench import newest_frame_skips

    fps = 30.0
    assert newest_frame_skips([0.01] * 50, fps) == 0  # always done before the next frame
    assert newest_frame_skips([0.05] * 10, fps) == 3  # seen 0, 1, 3, 4, 6, 7, 9: at 0, 0.05, 0.10 ... 0.30 s
    rng = np.random.default_rng(1)
    for _ in range(20):
        steps = list(rng.choice([0.01, 0.02, 0.04, 0.07, 0.1], size=40))
        assert newest_frame_skips(steps, fps) == _skips_by_clock(steps, fps)


def test_the_stand_in_engine_of_a_throw_knows_its_racers_as_the_engine_does():
    """The bench's stand-in for the rules engine knows the scene's racers (their ids and hexes, as
    ``rules.dodo_dash`` does): a piece named for a racer is that racer for the session whatever
    kind the detector reads for it; without the racers it knows none."""
    from session import bench
    from session.dodo_dash import DodoDashSession
    from session.oracle import OracleDetector
    from sim.suites import _board, make_scenario

    scn = make_scenario("dodo-dash/throws", 0, 0)
    board = _board(scn.board)
    racers = bench._racers(scn)
    assert racers and all(p.kind == "racer" for p in scn.initial.pieces if p.id in {r for r, _, _ in racers})
    stub = bench._StubDodoDash(scn.meta, racers, board)
    pos = stub.positions()
    assert set(pos) == {r for r, _, _ in racers}
    track = board.tracks[scn.meta["track"]]  # the race's track, as the engine keeps it
    assert scn.meta["track"] != next(iter(board.tracks))  # (not the board's first: the stub had taken that)
    for r, x, y in racers:  # each on the hex whose centre is nearest
        d = np.hypot(*(track.centres() - [x, y]).T)
        assert pos[r]["hex"] == int(np.argmin(d))
    s = DodoDashSession(board, OracleDetector(board), game=stub)
    assert s.racer_names() == set(pos)
    assert s._track() is track
    assert bench._StubDodoDash(scn.meta).positions() == {}
    # an Egg's throw: its thrower is set aside (off the mat), on the hex it threw from
    egg = make_scenario("dodo-dash/throws", 2, 1)
    assert egg.meta["projectile"] == "egg" and egg.meta["set_aside"] == [egg.meta["thrower"]]
    board = _board(egg.board)
    stub = bench._StubDodoDash(egg.meta, bench._racers(egg), board)
    pos = stub.positions()
    assert pos[egg.meta["thrower"]]["hex"] == egg.meta["thrower_hex"][1]
    s = DodoDashSession(board, OracleDetector(board), game=stub)
    from session.core import Flick
    flick = Flick(1, {"action": "throw", "projectile": "egg", "by": egg.meta["thrower"]}, 0.0, 0)
    assert egg.meta["thrower"] in s.set_aside(flick, s.engine_hexes())


def test_the_real_detectors_finds_are_named_one_to_one_as_a_person_would():
    """The bench names each find for a simulator piece as a person naming what the detector shows
    would: one find a piece, a find of the piece's own kind first. A ball found 20 mm off, at the
    edge of the large disc beside it, was named for the disc, which its own find was named for
    too (the disc's name then went to the ball's track: a foul's carrier lost; tuning seed 3)."""
    from types import SimpleNamespace

    from session import bench
    from sim.scene import PieceState
    from vision.core import Observation

    pieces = [PieceState("away:5", "disc-large", 689.9, 385.5, 25.0), PieceState("ball", "ball", 724.8, 379.9, 11.0),
              PieceState("home:4", "disc-medium", 587.0, 354.4, 19.0)]
    obs = Observation([[689.7, 385.6], [704.1, 382.2], [587.5, 354.0], [400.0, 100.0]], [25.0, 11.0, 19.0, 19.0],
                      [9.0] * 4, ["disc-large", "ball", "disc-large", "disc-medium"], [1.0] * 4, [1.0] * 4, timestamp=0.0)
    names = bench.RealDetector.name_finds(SimpleNamespace(match_mm=15.0), obs, pieces)
    # the disc's own find keeps its name; the ball's, 20.8 mm from the ball, is no piece's (the session names
    # the one ball seen); a find read as another kind is still the piece it is; one far from all is nothing
    assert names == ["away:5", "", "home:4", ""]
