"""sim/dataset.py: a YOLO dataset whose labels match the renderer's truth, whose recorded
randomisation reproduces every image, with crops for the classifiers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sim.dataset import CLASS_NAMES, class_of, crop_label, yolo_line
from sim.scene import PieceState


@pytest.mark.parametrize("game, kind, expected", [
    ("dino-dunk", "disc-medium", "disc-medium"),
    ("dino-dunk", "ball", "ball"),
    ("dodo-dash", "egg", "dodo-egg"),     # the projectile egg
    ("morris", "egg", "egg"),             # the egg token
    ("dogo-dash", "card", "card"),
    ("morris", "stone", None),            # printed, not a piece
])
def test_class_of(game, kind, expected):
    assert class_of(game, kind) == expected


def test_yolo_line_normalises_a_box():
    assert yolo_line(3, (100, 50, 140, 90), (640, 480)) == "3 0.187500 0.145833 0.062500 0.083333"


@pytest.mark.parametrize("game, piece, expected", [
    ("morris", PieceState("egg-1", "egg", 0, 0, attributes={"face": "broken"}), ("egg-face", "broken")),
    ("dogo-dash", PieceState("card-1", "card", 0, 0, attributes={"seat": "s", "card": "cat", "face_up": True}), ("card", "cat")),
    ("dogo-dash", PieceState("card-1", "card", 0, 0, attributes={"seat": "s", "card": "cat", "face_up": False}), ("card", "back")),
    ("dino-dunk", PieceState("home:1", "disc-small", 0, 0, attributes={"team": "home"}), ("disc-team", "home")),
    ("dino-dunk", PieceState("ball", "ball", 0, 0), None),
])
def test_crop_labels(game, piece, expected):
    assert crop_label(game, piece) == expected


def test_export_small_dataset(tmp_path):
    pytest.importorskip("sim.render")
    import cv2
    import yaml

    from sim.camera import Camera
    from sim.dataset import export_dataset
    from sim.export import render_seed, renderer
    from sim.suites import _board, make_scenario

    summary = export_dataset(tmp_path, 5, seed=3, val_fraction=0.5, size=(320, 240))
    data = yaml.safe_load((tmp_path / "data.yaml").read_text())
    assert data["nc"] == len(CLASS_NAMES) and data["names"][0] == CLASS_NAMES[0]
    assert summary["splits"]["train"] + summary["splits"]["val"] == 5
    records = [json.loads(line) for line in (tmp_path / "randomisation.jsonl").read_text().splitlines()]
    assert len(records) == 5
    boxes = 0
    for k, rec in enumerate(records):
        img = cv2.imread(str(tmp_path / rec["image"]))
        h, w = img.shape[:2]
        lines = (tmp_path / rec["image"].replace("images/", "labels/").replace(".png", ".txt")).read_text().splitlines()
        assert len(lines) == len(rec["labels"])
        for line, lab in zip(lines, rec["labels"]):
            cls, cx, cy, bw, bh = line.split()
            assert CLASS_NAMES[int(cls)] == lab["class"]
            assert all(0.0 <= float(v) <= 1.0 for v in (cx, cy, bw, bh))
            assert line == yolo_line(int(cls), lab["bbox_px"], (w, h))
            boxes += 1
        if k % 2:
            continue
        # the record reproduces the image: same scene, frame, camera, style and seed -> same bytes
        rend = renderer()
        scn = make_scenario(rec["suite"], rec["index"], rec["suite_seed"])
        board = _board(scn.board)
        from sim.export import view_for

        camera, style = view_for(rend, board, rec["image_seed"], False, (320, 240))
        assert np.allclose(camera.K, Camera.from_dict(rec["camera"]).K)
        res = rend.render_scene(board, scn.run.frames[rec["frame"]], camera, style, render_seed(rec["image_seed"], rec["frame"]))
        assert np.array_equal(res.image, img)
    assert boxes > 20
    crops = list((tmp_path / "crops").rglob("*.png"))
    assert any("disc-team" in str(c) for c in crops)


def test_ultralytics_reads_the_dataset(tmp_path):
    pytest.importorskip("sim.render")
    pytest.importorskip("ultralytics")
    from ultralytics.data.dataset import YOLODataset
    from ultralytics.data.utils import check_det_dataset

    from sim.dataset import export_dataset

    export_dataset(tmp_path, 3, seed=9, val_fraction=0.0, size=(320, 240), crops=False)
    data = check_det_dataset(str(tmp_path / "data.yaml"))
    assert data["nc"] == len(CLASS_NAMES)
    ds = YOLODataset(img_path=data["train"], data=data, task="detect", imgsz=320, augment=False)
    labels = ds.get_labels()
    assert len(labels) == 3 and sum(len(lb["cls"]) for lb in labels) > 10
