"""The one adapter to ultralytics YOLO: offline set-up, training from scratch, ONNX export, and
inference (ONNX Runtime for speed on a CPU, PyTorch as the fallback).

Boxes are in **image px** (x0, y0, x1, y1) of the frame given. Nothing else in the project imports
ultralytics; torch and ultralytics are imported inside the functions that need them.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np


class DetectorError(OSError):
    """A model file is missing or unreadable, or training could not start."""


@dataclass
class Detections:
    """Boxes in image px. ``xyxy`` (n, 4) float; ``confidence`` (n,); ``class_id`` (n,) int;
    ``names`` maps class ids to class names."""

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    names: dict

    def __post_init__(self):
        self.xyxy = np.asarray(self.xyxy, dtype=np.float64).reshape(-1, 4)
        n = len(self.xyxy)
        self.confidence = np.asarray(self.confidence, dtype=np.float64).reshape(-1)
        self.class_id = np.asarray(self.class_id, dtype=np.int64).reshape(-1)
        for name in ("confidence", "class_id"):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), but got {getattr(self, name).shape}")

    def __len__(self) -> int:
        return len(self.xyxy)

    @property
    def class_name(self) -> np.ndarray:
        return np.array([self.names.get(int(c), str(c)) for c in self.class_id], dtype=object)

    def __getitem__(self, index) -> "Detections":
        return Detections(self.xyxy[index], self.confidence[index], self.class_id[index], self.names)

    @classmethod
    def empty(cls, names: dict | None = None) -> "Detections":
        return cls(np.zeros((0, 4)), np.zeros(0), np.zeros(0, dtype=np.int64), names or {})

    @classmethod
    def from_ultralytics(cls, result) -> "Detections":
        """From one ``ultralytics.engine.results.Results``: the only place that reads them."""
        boxes = result.boxes
        return cls(boxes.xyxy.cpu().numpy(), boxes.conf.cpu().numpy(), boxes.cls.cpu().numpy().astype(np.int64),
                   dict(result.names))


def prepare_offline(config_dir: str | Path | None = None) -> Path:
    """Make ultralytics work with no network: YOLO_OFFLINE, a private YOLO_CONFIG_DIR, and a TTF font
    where it looks for Arial.ttf (matplotlib's DejaVuSans). Call before importing ultralytics."""
    config_dir = Path(config_dir or os.environ.get("YOLO_CONFIG_DIR") or Path.home() / ".tableref" / "yolo")
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ.setdefault("YOLO_VERBOSE", "False")
    target = config_dir / "Ultralytics"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (target / name).exists():
            import matplotlib

            font = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
            shutil.copyfile(font, target / name)
    return config_dir


def train(data_yaml: str | Path, out_dir: str | Path, model_yaml: str = "yolo11n.yaml", epochs: int = 30,
          imgsz: int = 320, batch: int = 16, seed: int = 0, device: str = "cpu", workers: int = 2,
          patience: int = 100, hours: float | None = None, cache: bool | str = "ram", verbose: bool = True,
          optimizer: str = "AdamW", lr0: float = 0.002) -> Path:
    """Train from scratch (no pretrained weights: built from the model YAML). Returns best.pt.

    ``hours``: a wall-clock budget; ultralytics then fits the number of epochs (and the learning-rate
    schedule) to it after the first epoch, so a run ends in time on a slow machine. ``optimizer`` and
    ``lr0`` are set, not left to ultralytics' ``auto``: for a short run that picks AdamW at
    0.002 × 5 / (4 + classes) (0.00042 for our 20 classes), a rate fitted for fine-tuning pretrained
    weights, under which a network learning from nothing barely moves in an hour."""
    prepare_offline()
    from ultralytics import YOLO

    out_dir = Path(out_dir).resolve()
    model = YOLO(model_yaml)
    if device == "cpu":
        # ultralytics trains on all cores but one (it keeps one for its data loaders): on a 2-core
        # laptop that is one thread, while the loaders of cached images need little
        import torch

        threads = max(1, os.cpu_count() or 1)
        model.add_callback("on_train_start", lambda trainer: torch.set_num_threads(threads))
    extra = {"time": float(hours)} if hours else {}
    model.train(data=str(Path(data_yaml).resolve()), epochs=epochs, imgsz=imgsz, batch=batch, seed=seed,
                deterministic=True, device=device, workers=workers, pretrained=False, amp=False, plots=False,
                project=str(out_dir.parent), name=out_dir.name, exist_ok=True, patience=patience, verbose=verbose,
                cache=cache, mosaic=1.0, close_mosaic=max(1, epochs // 6), degrees=0.0, fliplr=0.5, flipud=0.0,
                hsv_h=0.01, translate=0.1, scale=0.4, optimizer=optimizer, lr0=lr0, **extra)
    best = out_dir / "weights" / "best.pt"
    if not best.exists():
        raise DetectorError(f"training ended without {best}")
    return best


def export_onnx(weights: str | Path, imgsz: int = 320) -> Path:
    """Export a .pt to ONNX next to it (opset 17, static shape, no NMS inside)."""
    prepare_offline()
    from ultralytics import YOLO

    path = YOLO(str(weights)).export(format="onnx", imgsz=imgsz, opset=17, simplify=False, dynamic=False)
    return Path(path)


def letterbox(image: np.ndarray, size: int) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping the aspect ratio and pad to ``size``×``size`` with grey 114, as YOLO trains.
    Returns the image, the scale and the (x, y) padding in px of the output."""
    import cv2

    h, w = image.shape[:2]
    scale = min(size / w, size / h)
    nw, nh = int(round(w * scale)), int(round(h * scale))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR) if (nw, nh) != (w, h) else image
    px, py = (size - nw) / 2.0, (size - nh) / 2.0
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    out = cv2.copyMakeBorder(resized, top, size - nh - top, left, size - nw - left, cv2.BORDER_CONSTANT,
                             value=(114, 114, 114))
    return out, scale, (float(left), float(top))


class OnnxDetector:
    """YOLO (v8/11 head) through ONNX Runtime on the CPU. ``names`` from the model's metadata."""

    def __init__(self, path: str | Path, conf: float = 0.25, iou: float = 0.5, threads: int = 2):
        import onnxruntime as ort

        path = Path(path)
        if not path.is_file():
            raise DetectorError(f"{path}: no such model file (train one with `tableref train detector`)")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own types for corrupt files
            raise DetectorError(f"{path}: not a readable ONNX model ({exc})") from None
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        self.size = int(inp.shape[2])
        meta = self.session.get_modelmeta().custom_metadata_map
        self.names = _parse_names(meta.get("names", "{}"))
        self.conf, self.iou = conf, iou

    def __call__(self, image: np.ndarray) -> Detections:
        import cv2

        boxed, scale, (px, py) = letterbox(image, self.size)
        blob = np.ascontiguousarray(boxed[:, :, ::-1].transpose(2, 0, 1), dtype=np.float32)[None] / 255.0
        out = self.session.run(None, {self.input_name: blob})[0][0]  # (4 + nc, N)
        scores = out[4:]
        cls = scores.argmax(0)
        conf = scores[cls, np.arange(scores.shape[1])]
        keep = conf >= self.conf
        if not np.any(keep):
            return Detections.empty(self.names)
        cxcywh, conf, cls = out[:4, keep].T, conf[keep], cls[keep]
        xyxy = np.column_stack([cxcywh[:, 0] - cxcywh[:, 2] / 2, cxcywh[:, 1] - cxcywh[:, 3] / 2,
                                cxcywh[:, 0] + cxcywh[:, 2] / 2, cxcywh[:, 1] + cxcywh[:, 3] / 2])
        xyxy = (xyxy - [px, py, px, py]) / scale
        # class-aware NMS: offset boxes by class so different classes never suppress each other
        offset = cls[:, None].astype(np.float64) * 4096.0
        shifted = xyxy + offset
        idx = cv2.dnn.NMSBoxes([[b[0], b[1], b[2] - b[0], b[3] - b[1]] for b in shifted], conf.tolist(), self.conf, self.iou)
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        h, w = image.shape[:2]
        xyxy = xyxy[idx]
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, w - 1)
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, h - 1)
        return Detections(xyxy, conf[idx], cls[idx], self.names)


class TorchDetector:
    """The same through ultralytics/PyTorch (slower on a CPU; used to compare and as a fallback)."""

    def __init__(self, path: str | Path, conf: float = 0.25, iou: float = 0.5, imgsz: int = 320):
        if not Path(path).is_file():
            raise DetectorError(f"{path}: no such model file (train one with `tableref train detector`)")
        prepare_offline()
        from ultralytics import YOLO

        self.model = YOLO(str(path))
        self.conf, self.iou, self.imgsz = conf, iou, imgsz
        self.names = dict(self.model.names)

    def __call__(self, image: np.ndarray) -> Detections:
        result = self.model.predict(image, imgsz=self.imgsz, conf=self.conf, iou=self.iou, verbose=False, device="cpu")[0]
        return Detections.from_ultralytics(result)


def _parse_names(text: str) -> dict:
    import ast

    try:
        names = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return {}
    return {int(k): str(v) for k, v in names.items()} if isinstance(names, dict) else {}
