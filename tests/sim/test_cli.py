"""``tableref sim``: list, suites to frames + JSONL truth (PNG / MP4 / none), contact sheet, errors."""

from __future__ import annotations

import json

import pytest

from cli.main import main
from sim.suites import SUITES


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_list(capsys):
    code, out, _ = run(["sim", "list"], capsys)
    assert code == 0
    for name in SUITES:
        assert name in out


def test_truth_only_needs_no_renderer(tmp_path, capsys):
    code, out, _ = run(["sim", "morris/eggs", "--count", "3", "--out", str(tmp_path), "--format", "none", "--seed", "4"], capsys)
    assert code == 0 and "3 scenes" in out
    rows = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    assert [r["index"] for r in rows] == [0, 1, 2]
    assert all(r["suite"] == "morris/eggs" and r["suite_seed"] == 4 and "eggs" in r["answers"] for r in rows)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["suite"] == "morris/eggs" and manifest["format"] == "none"


def test_png_frames_truth_and_contact_sheet_reproducible(tmp_path, capsys):
    pytest.importorskip("sim.render")
    import cv2

    outs = []
    for name in ("a", "b"):
        d = tmp_path / name
        code, _, _ = run(["sim", "dino-dunk/near-miss", "--count", "2", "--out", str(d), "--frames", "first-last",
                          "--size", "320x240", "--contact-sheet", str(d / "sheet.png")], capsys)
        assert code == 0
        outs.append(d)
    frames = [json.loads(line) for line in (outs[0] / "frames.jsonl").read_text().splitlines()]
    assert len(frames) == 4
    for f in frames:
        img = cv2.imread(str(outs[0] / f["file"]))
        assert img.shape == (240, 320, 3)
        for p in f["pieces"]:
            assert "x_mm" in p and "base_px" in p and 0.0 <= p["visible"] <= 1.0
        # the same (suite, index, seed) gives the same bytes
        assert (outs[0] / f["file"]).read_bytes() == (outs[1] / f["file"]).read_bytes()
    assert cv2.imread(str(outs[0] / "sheet.png")) is not None
    truth = [json.loads(line) for line in (outs[0] / "truth.jsonl").read_text().splitlines()]
    assert all(abs(t["answers"]["margin_mm"]) <= 3.02 and "camera" in t for t in truth)


def test_mp4(tmp_path, capsys):
    pytest.importorskip("sim.render")
    import cv2

    code, _, err = run(["sim", "dogo-dash/reveals", "--count", "1", "--out", str(tmp_path), "--format", "mp4",
                        "--size", "320x240", "--clean"], capsys)
    if code == 2 and "MP4" in err:
        pytest.skip("this OpenCV build cannot write MP4")
    assert code == 0
    cap = cv2.VideoCapture(str(tmp_path / "scenes" / "000000.mp4"))
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    rows = (tmp_path / "frames.jsonl").read_text().splitlines()
    assert n == len(rows) == 21


@pytest.mark.parametrize("argv, message", [
    (["sim", "dino-dunk/nope", "--out", "x"], "unknown suite"),
    (["sim", "dino-dunk/shots"], "--out"),
    (["sim", "dino-dunk/shots", "--out", "x", "--images", "3"], "--images is for"),
    (["sim", "dataset", "--out", "x"], "--images"),
    (["sim", "dino-dunk/shots", "--out", "x", "--size", "big"], "640x480"),
])
def test_user_errors_are_one_line_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(argv, capsys)
    assert code == 2 and message in err and "Traceback" not in err and err.count("\n") == 1


def test_sim_config_override_sets_the_egg_probability(tmp_path, capsys):
    cfg = tmp_path / "eggs.yaml"
    cfg.write_text("morris: {p_broken: 1.0}\n")
    code, _, _ = run(["sim", "morris/eggs", "--count", "4", "--out", str(tmp_path / "o"), "--format", "none",
                      "--sim-config", str(cfg)], capsys)
    assert code == 0
    rows = [json.loads(line) for line in (tmp_path / "o" / "truth.jsonl").read_text().splitlines()]
    assert all(r["answers"]["whole"] == [] and r["answers"]["broken"] for r in rows)


def test_several_suites_one_sheet(tmp_path, capsys):
    pytest.importorskip("sim.render")
    import cv2

    code, out, _ = run(["sim", "morris/eggs,dogo-dash/reveals", "--count", "2", "--out", str(tmp_path), "--frames", "final",
                        "--size", "320x240", "--contact-sheet", str(tmp_path / "sheet.png")], capsys)
    assert code == 0 and "4 scenes" in out
    for sub in ("morris-eggs", "dogo-dash-reveals"):
        assert len((tmp_path / sub / "truth.jsonl").read_text().splitlines()) == 2
    sheet = cv2.imread(str(tmp_path / "sheet.png"))
    assert sheet.shape[1] == 2 * 320 and sheet.shape[0] == 2 * (240 + 22)  # 2 columns (count), 2 rows (suites)
