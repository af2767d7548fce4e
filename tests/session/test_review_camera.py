"""``tableref review`` of a camera recording (a folder of frames, the mat's registration and the
empty mat): the real detector's calls, the same on one process and on two."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from cli.main import main


FRAMES = 150


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """The first frames of a simulated match (its rules bot's actions and measured facts as the
    match log), rendered through a framed camera into a folder, with the registration, the empty
    mat, the set-up and the pieces' names at the start."""
    from calibration.board import load_board
    from session.review import _setup_from_sim
    from sim.live import SimSource, parse_sim_url
    from sim.render import render_scene
    from sim.scene import Scene
    from sim.style import clean_style
    from vision.bench import framed_camera

    spec = parse_sim_url("sim://dino-dunk?seed=2&target=1&realtime=0")
    board = load_board(spec.board)
    camera = framed_camera(np.random.default_rng(5), board, size=(640, 480), tilt=(15.0, 35.0))
    style = clean_style()
    root = tmp_path_factory.mktemp("recording")
    (root / "frames").mkdir()
    log, setup, image, pieces = [], None, None, None
    for frame in SimSource(spec):
        if frame.index >= FRAMES:
            break
        if setup is None:
            setup = _setup_from_sim("dino-dunk", frame, spec)
            names = [[p.id, p.x, p.y] for p in frame.scene.pieces]
            empty = render_scene(board, Scene(frame.scene.game, frame.scene.board, []), camera, style, 1).image
        if frame.scene.pieces is not pieces:  # a still table is one picture
            pieces, image = frame.scene.pieces, render_scene(board, frame.scene, camera, style, 7 + frame.index).image
        cv2.imwrite(str(root / "frames" / f"{frame.index:05d}.png"), image)
        log += [{"t": frame.index / 30.0, "action": {k: v for k, v in e.items() if k not in ("kind", "t")}}
                for e in frame.events if e.get("kind") == "rules-action"]
    cv2.imwrite(str(root / "empty.png"), empty)
    (root / "reg.json").write_text(json.dumps(camera.transform().to_dict()))
    (root / "names.json").write_text(json.dumps(names))
    (root / "setup.json").write_text(json.dumps(setup))
    (root / "log.jsonl").write_text("".join(json.dumps(row) + "\n" for row in log))
    return root, spec.board


def _review(root, board, out, workers):
    return main(["review", str(root / "frames"), "--game", "dino-dunk", "--board", board,
                 "--calibration", str(root / "reg.json"), "--background", str(root / "empty.png"),
                 "--names", str(root / "names.json"), "--setup", str(root / "setup.json"),
                 "--actions", str(root / "log.jsonl"), "--out", str(out), "--workers", str(workers)])


def test_two_processes_make_the_same_calls_as_one(recording, tmp_path):
    root, board = recording
    assert _review(root, board, tmp_path / "one", 1) == 0
    assert _review(root, board, tmp_path / "two", 2) == 0
    one = json.loads((tmp_path / "one" / "review.json").read_text())
    two = json.loads((tmp_path / "two" / "review.json").read_text())
    assert one["frames"] == two["frames"] == FRAMES
    assert one["detector"] == "vision.detect.Detector (classical)"
    assert two["detector"] == "vision.detect.Detector (classical) on 2 processes"
    assert len(one["flicks"]) >= 1  # the flick was seen and called
    assert one["agreement"]["compared"] >= 3
    assert one["agreement"] == two["agreement"]
    # the same calls; the pieces' places within the detector's reuse distance (a worker's detector keeps a
    # still piece's fit from the last frame it saw, whichever that was; one detector from the frame before)
    from vision.detect import DetectConfig

    reuse_mm = DetectConfig.load().reuse_mm
    for a, b in zip(one["flicks"], two["flicks"]):
        fa, fb = dict(a["fact"]), dict(b["fact"])
        pa, pb = fa.pop("positions", ()), fb.pop("positions", ())
        assert fa == fb
        assert [n for n, *_ in pa] == [n for n, *_ in pb]
        assert max((np.hypot(xa - xb, ya - yb) for (_, xa, ya), (_, xb, yb) in zip(pa, pb)), default=0.0) <= reuse_mm
    for d in ("one", "two"):
        assert (tmp_path / d / "flicks" / "001" / "flick.json").is_file()


def test_workers_below_one_is_one_line(recording, tmp_path, capsys):
    root, board = recording
    assert _review(root, board, tmp_path / "o", 0) == 2
    err = capsys.readouterr().err
    assert "--workers must be at least 1" in err and len(err.strip().splitlines()) == 1
