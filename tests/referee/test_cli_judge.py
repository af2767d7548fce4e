"""tableref judge: prints the verdict, writes the evidence PNG; user errors are one line, exit 2."""

import json

import cv2
import numpy as np
import pytest

from calibration.board import load_board
from calibration.transform import homography_covariance
from cli.main import main
from referee.evidence import board_drawing, evidence_window, render_evidence
from referee.questions import ask
from referee.config import load_config
from vision.core import Observation

BOARD = "dino-dunk/crater-court"


@pytest.fixture()
def table(tmp_path):
    from sim.camera import look_at

    board = load_board(BOARD)
    T = look_at((457, 305), 800, 30, 0, 0, 75, (960, 540)).transform()
    T.cov_h = homography_covariance(T.H, board.corners_mm(), 0.5)
    frame = cv2.warpPerspective(board_drawing(board, 1.0), T.H, (960, 540), borderValue=(90, 90, 90))
    cv2.imwrite(str(tmp_path / "frame.png"), frame)
    (tmp_path / "reg.json").write_text(json.dumps(T.to_dict()))
    pieces = [{"xy": [95 + 55 + 9.5 - 3, 305], "radius": 9.5, "kind": "ball", "sigma": 0.2},
              {"xy": [500, 305], "radius": 19, "kind": "disc-medium", "sigma": 0.3, "attributes": {"name": "home:stego"}}]
    (tmp_path / "obs.json").write_text(json.dumps({"pieces": pieces, "frame_index": 5}))
    return tmp_path


def test_judge_prints_the_verdict_and_writes_evidence(table, capsys):
    out = table / "ev.png"
    rc = main(["judge", str(table / "frame.png"), "--board", BOARD, "--calibration", str(table / "reg.json"),
               "--observation", str(table / "obs.json"), "--ask", "ball overlaps scoring-zone-home", "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0 and "ball overlaps scoring-zone-home: YES" in text and "margin +3.00 mm" in text
    img = cv2.imread(str(out))
    assert img is not None and img.shape[1] > img.shape[0]  # close-up, top-down and camera views side by side


def test_judge_json(table, capsys):
    rc = main(["judge", str(table / "frame.png"), "--board", BOARD, "--observation", str(table / "obs.json"),
               "--ask", "home:stego outside three-point-home by whole", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["answer"] == "yes" and d["frame_ids"] == [5] and d["evidence_png"].endswith("frame-verdict.png")


@pytest.mark.parametrize("extra, message", [
    (["--ask", "ball flies"], "cannot read the question"),
    (["--ask", "ball overlaps nowhere"], "no region 'nowhere'"),
    (["--ask", "ball overlaps scoring-zone-home", "--observation", "missing.json"], "missing.json"),
])
def test_judge_user_errors(table, capsys, extra, message, monkeypatch):
    monkeypatch.chdir(table)
    args = ["judge", "frame.png", "--board", BOARD]
    if "--observation" not in extra:
        args += ["--observation", "obs.json"]
    rc = main(args + extra)
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_judge_without_observation_needs_vision(table, capsys):
    import vision.detect as vd

    rc = main(["judge", str(table / "frame.png"), "--board", BOARD, "--ask", "ball overlaps scoring-zone-home"])
    err = capsys.readouterr().err
    assert rc == 2
    if not hasattr(vd, "detect"):
        assert "--observation" in err


def test_evidence_without_a_frame_draws_the_board():
    board = load_board(BOARD)
    obs = Observation.from_pieces([{"xy": [200, 305], "radius": 19, "kind": "disc-medium"},
                                   {"xy": [300, 305], "radius": 19, "kind": "disc-large"}])
    (v,) = ask("disc-medium within short card of disc-large", board, obs, load_config())
    x0, y0, x1, y1 = evidence_window(v)
    assert x0 < 181 and x1 > 319
    img = render_evidence(v, board, card_mm=63.5)
    assert img.ndim == 3 and img.shape[0] >= 480 and np.any(img != img[0, 0])
