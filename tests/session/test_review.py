"""``tableref review``: a recorded match (here a sim:// recording) → every flick with its calls,
evidence images and a summary."""

from __future__ import annotations

import json

import pytest

from cli.main import main


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    out = tmp_path_factory.mktemp("review")
    code = main(["review", "sim://dino-dunk?seed=2&target=1", "--game", "dino-dunk", "--board", "dino-dunk/crater-court",
                 "--out", str(out), "--frames", "200"])
    return code, out


def test_writes_every_flick_and_a_summary(reviewed):
    code, out = reviewed
    assert code == 0
    summary = json.loads((out / "review.json").read_text())
    assert summary["game"] == "dino-dunk" and summary["detector"] == "oracle-with-noise"
    assert len(summary["flicks"]) >= 5
    for row in summary["flicks"]:
        d = out / "flicks" / f"{row['id']:03d}"
        assert (d / "flick.json").is_file()
        for png in row["evidence"]:
            assert (out / png).is_file()
        assert row["fact"]["type"] in ("MoveResult", "PassResult", "ShotResult", "DunkResult")
    a = summary["agreement"]
    assert a["compared"] >= 5 and a["with_recorded_fact"] >= a["compared"] - 1
    text = (out / "review.txt").read_text()
    assert "flick   1" in text and "agreement with the recorded facts" in text
    assert "<table>" in (out / "review.html").read_text()


@pytest.mark.parametrize("argv, message", [
    (["review", "sim://morris?seed=1", "--game", "dino-dunk", "--board", "dino-dunk/crater-court"], "not dino-dunk"),
    (["review", "nothing-here.mp4", "--game", "dino-dunk", "--board", "dino-dunk/crater-court"], "no such video"),
    (["review", "sim://dino-dunk", "--game", "dino-dunk", "--board", "dino-dunk/crater-court", "--frames", "-1"], ">= 0"),
])
def test_user_errors_are_one_line(tmp_path, capsys, argv, message):
    assert main(argv + ["--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_camera_recording_needs_the_registration(tmp_path, capsys):
    import cv2
    import numpy as np

    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "000.png"), np.zeros((48, 64, 3), np.uint8))
    argv = ["review", str(tmp_path / "frames"), "--game", "dino-dunk", "--board", "dino-dunk/crater-court"]
    assert main(argv + ["--out", str(tmp_path / "o")]) == 2
    assert "mat registration" in capsys.readouterr().err
