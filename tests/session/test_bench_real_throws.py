"""``dodo-dash/throws`` through the real detector (``tableref bench live --real-throws N``): a scene
rendered frame by frame, seen by the classical detector, ruled by the Dodo Dash session."""

from __future__ import annotations

import json

from session import bench
from sim.suites import _board, make_scenario
from sim.truth import dodo_dash_answers

# a development scene (seed 0, never the evaluation seed 7): a Feather thrown among five racers
SEED, INDEX = 0, 9


def test_a_rendered_throw_is_ruled_for_each_racer_the_user_named():
    scn = make_scenario("dodo-dash/throws", INDEX, SEED)
    board = _board(scn.board)
    racers = {p.id for p in scn.initial.pieces if p.kind == "racer"}
    assert len(racers) >= 3
    make, _, _ = bench._real_suite("dodo-dash/throws")
    wall = []
    session, real, steps, latency = bench.play_scene_real(scn, board, make, seed=INDEX, wall_s=wall)
    assert len(steps) == len(wall) == len(real.cpu_ms) > 30
    # the pieces were named from what the detector found: every racer of the scene
    named = {tr.name for tr in session.tracker.tracks.values() if tr.kind == "racer" and tr.name}
    assert named == racers
    assert len(session.flicks) == 1
    flick = session.flicks[0]
    assert flick.ruling is not None, flick.notes
    assert flick.mover == scn.meta["projectile"]
    assert {v.detail["racer"] for v in flick.ruling.verdicts} == racers
    assert all(v.answer in ("yes", "no", "too_close") for v in flick.ruling.verdicts)


def test_the_figures_score_a_real_throw_as_the_oracle_ones():
    """bench_real scores a throw with the oracle's scorer: one scene, one call counted once, by its
    projectile, with the first racer touched and the wall time of each frame."""
    scn = make_scenario("dodo-dash/throws", INDEX, SEED)
    truth = dodo_dash_answers(scn, _board(scn.board))
    f = bench.SuiteFigures("dodo-dash/throws")
    cpu = bench.bench_real("dodo-dash/throws", 1, SEED, INDEX, f)
    assert f.scenes == 1 == f.right + f.asked + f.wrong == f.first_right + f.first_asked + f.first_wrong
    assert f.by_kind == {scn.meta["projectile"]: {"right": f.right, "asked": f.asked, "wrong": f.wrong}}
    assert len(cpu) == f.frames == len(f.step_wall_s)
    assert truth["touched_racers"]  # the Feather touched someone: a session that saw nothing is wrong here
    if f.wrong:
        assert f.failures and f.failures[0]["index"] == INDEX
    d = f.to_dict()
    assert d["step_wall_ms_mean"] > 0 and d["identity_flicks"] == 1
    # what the detector found, against the pieces of every frame
    racers = sum(p.kind == "racer" for p in scn.initial.pieces)
    assert sum(v[0] for k, v in d["seen"].items() if k.startswith("racer ")) == f.frames * racers
    proj = scn.meta["projectile"]
    assert sum(v[0] for k, v in d["seen"].items() if k.startswith(proj + " ")) == f.frames
    assert f"{proj} above the mat" in d["seen"] and f"{proj} on the mat" in d["seen"]  # thrown, then landed
    assert all(v[0] >= v[1] >= v[2] >= 0 for v in d["seen"].values())


def test_cli_runs_real_throws_alone(capsys):
    from cli.main import main

    assert main(["bench", "live", "--throws", "0", "--fouls", "0", "--no-game", "--real-throws", "1",
                 "--seed", str(SEED), "--start", str(INDEX), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert "throws" not in r and "fouls" not in r and "fouls_real" not in r
    t = r["throws_real"]
    assert t["suite"] == "dodo-dash/throws" and t["scenes"] == 1 and t["detector"] == bench.RealDetector.name
    assert t["detector_cpu_ms_mean"] > 0 and "step_wall_ms_p95" in t
    text = bench.format_report(r)
    assert "dodo-dash/throws with the REAL detector" in text and "first racer touched" in text
    assert main(["bench", "live", "--real-throws", "-1"]) == 2


def test_a_find_takes_the_name_of_the_nearest_piece_of_its_kind():
    """The bench names each find by the nearest simulator piece within 15 mm, of the find's kind
    first: a racer found with a lost token lying nearer its base keeps the racer's name; a find of
    a kind no piece near it has is still named by the nearest piece; a find far from all, none."""
    from types import SimpleNamespace

    from sim.scene import PieceState, Scene
    from vision.core import Observation

    pieces = [PieceState("racer-4", "racer", 100.0, 100.0), PieceState("feather", "feather", 104.0, 100.0)]
    finds = Observation(xy=[[105.0, 100.0], [103.0, 100.0], [300.0, 300.0]], radius=[8, 8, 8], height=[30, 30, 30],
                        kind=["racer", "egg", "racer"], confidence=[1, 1, 1], sigma=[1, 1, 1])
    real = bench.RealDetector.__new__(bench.RealDetector)
    real.detector = lambda image, **kw: finds
    real.cpu_ms, real.seen, real.found = [], {}, {}
    frame = SimpleNamespace(image=object(), index=0, t=0.0, scene=Scene("dodo-dash", "x", pieces))
    assert real(frame) is finds
    assert real.last_ids == ["racer-4", "feather", ""]
    assert real.seen["racer on the mat"] == [1, 1, 1] and real.seen["feather on the mat"] == [1, 0, 0]
    assert real.found == {"feather": 0}  # no find of a feather in the frame (the one near it is an egg)


def test_a_throw_with_no_flick_is_wrong_and_says_whether_the_detector_ever_found_the_projectile():
    from types import SimpleNamespace

    f = bench.SuiteFigures("dodo-dash/throws")
    scn = SimpleNamespace(meta={"projectile": "meteorite"})
    session = SimpleNamespace(flicks=[], tracker=SimpleNamespace(tracks={}), _last_obs=SimpleNamespace(track_id=[]))
    for found in ({}, {"meteorite": 3}, None):
        det = SimpleNamespace(last_ids=[], **({"found": found} if found is not None else {}))
        bench._score_throw(f, 1, scn, {"touched_racers": [], "first_hit": None}, session, det, [0.001], None)
    assert (f.wrong, f.right, f.asked) == (3, 0, 0)
    assert f.wrong_why == {"no flick, the detector found no token of the projectile's kind in any frame": 1,
                           "no flick": 2}
    assert f.to_dict()["wrong_why"] == f.wrong_why
    r = {"detector": "", "fps": 30.0, "size": "", "seed": 0, "start": 0, "rss_peak_mb": 1.0, "seconds": 1.0,
         "throws_real": {**f.to_dict(), "detector": "x", "detector_cpu_ms_mean": 1.0, "detector_cpu_ms_p95": 1.0}}
    assert "the wrong ones: 2 no flick, 1 no flick, the detector found no token" in bench.format_report(r)


def test_a_first_racer_tied_with_another_is_left_open_not_scored_right_or_wrong():
    """Two racers landed on at once, both sure: the set is right; which came first the session
    leaves open (``tied``), and the bench counts it so whichever racer the truth put first."""
    from types import SimpleNamespace

    from referee.core import make_verdicts

    def throw(tied: bool):
        detail = [{"racer": "racer-1", "t": 0.5, "evidence": "landed on"}, {"racer": "racer-2", "t": 0.5, "evidence": "landed on"}]
        if tied:
            detail[0]["tied"] = ["racer-2"]
        vs = make_verdicts(["m touched racer-1", "m touched racer-2"], value=[-5.0, -6.0], threshold=0.0, margin=[5.0, 6.0],
                           sigma=[0.5, 0.5], k=4.5, detail=detail)
        flick = SimpleNamespace(ruling=SimpleNamespace(verdicts=vs), notes=[])
        return SimpleNamespace(flicks=[flick], tracker=SimpleNamespace(tracks={}), _last_obs=SimpleNamespace(track_id=[]))

    det = SimpleNamespace(last_ids=[])
    scn = SimpleNamespace(meta={"projectile": "meteorite"})
    for first, tied, want in (("racer-2", False, (0, 0, 1)), ("racer-1", False, (1, 0, 0)),
                              ("racer-2", True, (0, 1, 0)), ("racer-1", True, (0, 1, 0))):
        f = bench.SuiteFigures("dodo-dash/throws")
        bench._score_throw(f, 1, scn, {"touched_racers": ["racer-1", "racer-2"], "first_hit": first}, throw(tied), det, [0.001], None)
        assert f.right == 1 and (f.first_right, f.first_asked, f.first_wrong) == want
