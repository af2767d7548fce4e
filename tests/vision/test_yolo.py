"""The ultralytics adapter: letterbox, Detections, model files, and a tiny train → ONNX → boxes run."""

from pathlib import Path

import numpy as np
import pytest

from vision.yolo import DetectorError, Detections, OnnxDetector, TorchDetector, _parse_names, letterbox


@pytest.mark.parametrize("xyxy,conf,cls,error", [
    ([[0, 0, 10, 10]], [0.9], [1], None),  # one box
    (np.zeros((0, 4)), [], [], None),  # empty
    ([[0, 0, 10, 10], [1, 1, 5, 5]], [0.9], [1, 2], "confidence"),  # one score for two boxes
    ([[0, 0, 10, 10]], [0.9], [1, 2], "class_id"),  # two classes for one box
])
def test_detections_shapes(xyxy, conf, cls, error):
    if error:
        with pytest.raises(ValueError, match=error):
            Detections(xyxy, conf, cls, {})
    else:
        d = Detections(xyxy, conf, cls, {1: "disc-medium"})
        assert d.xyxy.shape == (len(d), 4)
        assert list(d.class_name) == ["disc-medium"] * len(d)


def test_letterbox_keeps_aspect_and_pads_grey():
    img = np.full((480, 640, 3), 200, np.uint8)
    out, scale, (px, py) = letterbox(img, 320)
    assert out.shape == (320, 320, 3) and scale == 0.5 and (px, py) == (0.0, 40.0)
    assert out[0, 0, 0] == 114 and out[160, 160, 0] == 200


def test_parse_names():
    assert _parse_names("{0: 'disc-large', 1: 'hand'}") == {0: "disc-large", 1: "hand"}
    assert _parse_names("not a dict") == {}


def test_missing_model_says_what_to_do(tmp_path):
    for cls in (OnnxDetector, TorchDetector):
        with pytest.raises(DetectorError, match="train detector"):
            cls(tmp_path / "none.onnx")


def test_one_epoch_train_export_onnx_returns_boxes(tmp_path, monkeypatch):
    """8 tiny images with coloured squares, 1 epoch from scratch, ONNX export, inference shapes (~12 s)."""
    import cv2

    from vision.yolo import export_onnx, train

    rng = np.random.default_rng(0)
    for split in ("train", "val"):
        (tmp_path / "images" / split).mkdir(parents=True)
        (tmp_path / "labels" / split).mkdir(parents=True)
    for i in range(8):
        split = "val" if i >= 6 else "train"
        img = np.full((64, 64, 3), 90, np.uint8)
        x, y = rng.integers(8, 40, 2)
        cv2.rectangle(img, (int(x), int(y)), (int(x) + 16, int(y) + 16), (40, 40, 220), -1)
        cv2.imwrite(str(tmp_path / "images" / split / f"{i}.png"), img)
        (tmp_path / "labels" / split / f"{i}.txt").write_text(f"0 {(x + 8) / 64:.4f} {(y + 8) / 64:.4f} 0.25 0.25\n")
    (tmp_path / "data.yaml").write_text(f"path: {tmp_path}\ntrain: images/train\nval: images/val\nnc: 2\n"
                                        "names:\n  0: disc-medium\n  1: hand\n")
    import os

    import torch
    threads = []
    set_threads = torch.set_num_threads
    monkeypatch.setattr(torch, "set_num_threads", lambda n: (threads.append(n), set_threads(n))[1])
    best = train(tmp_path / "data.yaml", tmp_path / "runs" / "t", epochs=1, imgsz=64, batch=4, workers=0,
                 cache=False, verbose=False)
    # a rate for learning from nothing, not ultralytics' fine-tuning one, and every core for torch
    # while it trains (ultralytics sets one fewer, for its data loaders)
    run_args = (tmp_path / "runs" / "t" / "args.yaml").read_text()
    assert "optimizer: AdamW" in run_args and "lr0: 0.002" in run_args
    assert os.cpu_count() in threads
    onnx = export_onnx(best, imgsz=64)
    assert Path(onnx).is_file()
    det = OnnxDetector(onnx, conf=0.0001)
    assert det.size == 64 and det.names == {0: "disc-medium", 1: "hand"}
    out = det(np.full((48, 64, 3), 90, np.uint8))
    assert out.xyxy.ndim == 2 and out.xyxy.shape[1] == 4
    assert out.confidence.shape == out.class_id.shape == (len(out),)
    assert np.all(out.xyxy[:, [0, 2]] <= 63) and np.all(out.xyxy[:, [1, 3]] <= 47)
