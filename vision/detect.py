"""Detection: a frame and a registered board in, an :class:`~vision.core.Observation` in mat mm out.

Two detectors find rough positions, one refinement places each piece at its base centre:

- **classical** (OpenCV only): the difference against the empty mat captured at setup, rectified
  onto the plane of the pieces' tops (``MatTransform.homography(h)``) at ``px_per_mm``; round
  pieces are the peaks of the distance transform of that mask, their size class the peak's value.
  Large blobs touching the image border are hands and arms, reported as occluders, not pieces.
- **yolo** (:mod:`vision.yolo`): boxes in image px with a class; the rough mat position of a box
  is its centre mapped through the plane at half the piece's height.

Then :func:`vision.refine.refine_discs` fits each round piece's top face in the view rectified at
its height, which removes the parallax of the top (several mm in an oblique view) and gives σ.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from calibration.transform import MatTransform
from vision.core import Observation
from vision.refine import RefineConfig, refine_discs

CONFIG_PATH = Path(__file__).resolve().parent / "config.yaml"


@dataclass(frozen=True)
class RoundKind:
    """A round piece class: name, radius and height in mm."""

    name: str
    radius: float
    height: float


@dataclass(frozen=True)
class DetectConfig:
    """Thresholds of the classical detector (see ``vision/config.yaml``)."""

    px_per_mm: float = 1.0
    blur_px: float = 1.5
    diff_threshold: float = 28.0
    min_radius_fraction: float = 0.6
    max_radius_fraction: float = 1.45
    hand_area_mm2: float = 12000.0
    border_px: int = 3
    min_confidence: float = 0.25
    refine: RefineConfig = field(default_factory=RefineConfig)

    @classmethod
    def load(cls, path: str | Path = CONFIG_PATH) -> "DetectConfig":
        import yaml

        data = yaml.safe_load(Path(path).read_text()) or {}
        det = dict(data.get("detect", {}))
        ref = RefineConfig(**data.get("refine", {}))
        unknown = set(det) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"{path}: detect: unknown keys {sorted(unknown)}")
        return cls(refine=ref, **det)


def round_kinds(specs, game: str) -> list[RoundKind]:
    """The round pieces of a game that lie on the mat, from the specs (discs and tokens)."""
    out = []
    for p in specs.of_game(game).values():
        if p.shape in ("disc", "token") and p.diameter > 0 and p.name not in ("possession-token", "scoring-token"):
            out.append(RoundKind(p.name, p.radius, p.height))
    return out


class Background:
    """The empty mat, captured at setup (BGR image px), blurred once."""

    def __init__(self, image: np.ndarray, blur_px: float = 1.5):
        import cv2

        if image is None or image.size == 0:
            raise ValueError("the empty-mat image is empty: capture the mat again with nothing on it")
        self.image = cv2.GaussianBlur(image, (0, 0), blur_px).astype(np.int16)
        self.blur_px = blur_px

    def foreground(self, frame: np.ndarray, threshold: float) -> np.ndarray:
        """(H, W) uint8 mask, 255 where the frame differs from the empty mat (image px)."""
        import cv2

        if frame.shape != self.image.shape:
            raise ValueError(f"the frame is {frame.shape[1]}x{frame.shape[0]} but the empty mat was captured at "
                             f"{self.image.shape[1]}x{self.image.shape[0]}: capture the empty mat again")
        blurred = cv2.GaussianBlur(frame, (0, 0), self.blur_px).astype(np.int16)
        diff = np.abs(blurred - self.image).max(axis=2).astype(np.uint8)
        _, mask = cv2.threshold(diff, threshold, 255, cv2.THRESH_BINARY)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        return mask


@dataclass
class Candidates:
    """Rough round pieces: ``xy`` (n, 2) mat mm, ``kind`` (n,) RoundKind index, ``score`` (n,)."""

    xy: np.ndarray
    kind: np.ndarray
    score: np.ndarray
    occluders: list = field(default_factory=list)  # (4,) image px boxes of hands/arms


def classical_candidates(frame: np.ndarray, transform: MatTransform, board, background: Background,
                         kinds: list[RoundKind], config: DetectConfig) -> Candidates:
    """Round-piece candidates from the empty-mat difference, in mat mm."""
    import cv2

    mask = background.foreground(frame, config.diff_threshold)
    h_img, w_img = mask.shape
    # hands and arms: big components touching the border of the image
    n_cc, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    occluders = []
    scale = float(np.median(transform.mm_per_px(board.corners_mm())))
    for k in range(1, n_cc):
        x, y, w, h, area = stats[k]
        touches = x <= config.border_px or y <= config.border_px or x + w >= w_img - config.border_px or y + h >= h_img - config.border_px
        if touches and area * scale * scale > config.hand_area_mm2:
            occluders.append(np.array([x, y, x + w, y + h], dtype=float))
            mask[labels == k] = 0
    if not kinds:
        return Candidates(np.zeros((0, 2)), np.zeros(0, int), np.zeros(0), occluders)
    s = config.px_per_mm
    heights = sorted({k.height for k in kinds})
    xy, kind_idx, score = [], [], []
    for height in heights:
        group = [i for i, k in enumerate(kinds) if k.height == height]
        size = (int(np.ceil(board.length_mm * s)) + 1, int(np.ceil(board.width_mm * s)) + 1)
        to_mm = np.array([[1 / s, 0, 0], [0, 1 / s, 0], [0, 0, 1.0]])
        H = transform.homography(height) @ to_mm
        top = cv2.warpPerspective(mask, H, size, flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
        # fill holes (printed art on a top face can match the mat behind it)
        contours, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(top, contours, -1, 255, thickness=cv2.FILLED)
        dist = cv2.distanceTransform(top, cv2.DIST_L2, 5)
        rmin = min(kinds[i].radius for i in group) * config.min_radius_fraction * s
        peaks = (dist >= rmin) & (dist >= cv2.dilate(dist, np.ones((5, 5), np.uint8)) - 1e-3)
        ys, xs = np.nonzero(peaks)
        order = np.argsort(-dist[ys, xs])
        taken = []
        for j in order:
            px, py, r = xs[j], ys[j], dist[ys[j], xs[j]] / s
            if any((px - tx) ** 2 + (py - ty) ** 2 < (tr * s * 0.9) ** 2 for tx, ty, tr in taken):
                continue
            fits = [(abs(kinds[i].radius - r), i) for i in group
                    if kinds[i].radius * config.min_radius_fraction <= r <= kinds[i].radius * config.max_radius_fraction]
            if not fits:
                continue
            _, best = min(fits)
            taken.append((px, py, kinds[best].radius))
            xy.append((px / s, py / s))
            kind_idx.append(best)
            score.append(min(1.0, r / kinds[best].radius))
    return Candidates(np.array(xy, dtype=float).reshape(-1, 2), np.array(kind_idx, dtype=int), np.array(score), occluders)


def detect_classical(frame: np.ndarray, transform: MatTransform, board, background: Background,
                     kinds: list[RoundKind], config: DetectConfig | None = None, frame_index: int = -1,
                     timestamp: float = 0.0) -> Observation:
    """Every round piece on the mat as an Observation (mat mm), refined to its base centre."""
    config = config or DetectConfig()
    cand = classical_candidates(frame, transform, board, background, kinds, config)
    return _refined_observation(frame, transform, cand.xy, [kinds[i] for i in cand.kind], cand.score,
                                config, frame_index, timestamp)


def rough_from_boxes(transform: MatTransform, xyxy: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """(n, 4) boxes in image px → (n, 2) rough base centres in mat mm (box centre on the plane at
    half the piece's height)."""
    xyxy = np.asarray(xyxy, dtype=float).reshape(-1, 4)
    if len(xyxy) == 0:
        return np.zeros((0, 2))
    centres = np.column_stack([(xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2])
    out = np.empty((len(xyxy), 2))
    for h in np.unique(heights):
        sel = heights == h
        out[sel] = transform.image_to_mat(centres[sel], h / 2.0)
    return out


def detect_yolo(frame: np.ndarray, transform: MatTransform, detector, kinds_by_class: dict[str, RoundKind],
                config: DetectConfig | None = None, frame_index: int = -1, timestamp: float = 0.0) -> Observation:
    """Round pieces from a YOLO detector (``vision.yolo.OnnxDetector`` or ``TorchDetector``)."""
    config = config or DetectConfig()
    det = detector(frame)
    names = det.class_name
    keep = np.array([n in kinds_by_class for n in names], dtype=bool) & (det.confidence >= config.min_confidence)
    det = det[keep]
    kinds = [kinds_by_class[n] for n in det.class_name]
    heights = np.array([k.height for k in kinds])
    rough = rough_from_boxes(transform, det.xyxy, heights)
    return _refined_observation(frame, transform, rough, kinds, det.confidence, config, frame_index, timestamp)


def _refined_observation(frame, transform, rough, kinds, confidence, config, frame_index, timestamp) -> Observation:
    if len(rough) == 0:
        return Observation.empty(frame_index, timestamp)
    radius = np.array([k.radius for k in kinds])
    height = np.array([k.height for k in kinds])
    res = refine_discs(frame, transform, rough, radius, height, config.refine)
    conf = np.asarray(confidence, dtype=float) * np.where(res.ok, 1.0, 0.5)
    sigma = np.where(res.ok, res.sigma, np.maximum(res.sigma, 3.0))
    sigma = np.where(np.isfinite(sigma), sigma, 5.0)
    return Observation(xy=res.xy, radius=radius, height=height, kind=[k.name for k in kinds], confidence=conf,
                       sigma=sigma, frame_index=frame_index, timestamp=timestamp)
