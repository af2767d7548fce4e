"""An oracle detector: the simulator's ground truth per frame turned into the
:class:`~vision.core.Observation` (mat mm) a good detector would report, with realistic noise.

It lets a session be tested end to end, and the tracker and contact logic be benchmarked, apart
from the quality of the real detector (:mod:`vision.detect`). What it gives and what it withholds:

- every piece's base centre in **mat mm** with Gaussian noise of ``sigma_mm`` (settled, full
  quality), ``fast_sigma_mm`` (the cheaper low-resolution detection used during motion) or
  ``airborne_sigma_mm`` (a thrown token: blur and the parallax of an unknown height);
- ``height`` (top face above the mat) with ``height_sigma_mm`` noise, which is how a thrown token
  is seen to be in the air;
- ``angle`` (the piece's rotation in the mat plane) with ``angle_sigma_deg`` noise: a detector that
  reads a token's orientation (its outline, its print) to about a degree. The classical detector of
  :mod:`vision.detect` does not read it for tokens (it reports 0), and declares no such σ;
- the attributes a classifier can read (``team``, ``colour``, ``face``, ``card`` when face up),
  never the piece's identity (the dinosaur's name): identities are the tracker's job;
- pieces dropped: those whose rendered visible fraction is below ``min_visible`` (a hand, another
  piece; known only when the frame was rendered), those further than ``off_mat_mm`` beyond the mat
  (out of the camera's view), and at random with ``drop_p`` per piece and frame while it moves;
- static set pieces (backboards, the toucan) are not reported: they belong to the board.

``last_ids`` holds the simulator id of each reported piece (aligned with the last Observation) for
benchmarks and tests; sessions never read it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from vision.core import Observation

READABLE = ("team", "colour", "face", "card")


@dataclass(frozen=True)
class OracleConfig:
    """Noise of the oracle (mm, 1-σ per axis) and its drop-outs."""

    sigma_mm: float = 0.7
    fast_sigma_mm: float = 1.5
    airborne_sigma_mm: float = 3.0
    height_sigma_mm: float = 1.0
    angle_sigma_deg: float = 1.0
    drop_p: float = 0.01
    min_visible: float = 0.5
    off_mat_mm: float = 150.0
    confidence: float = 0.97


def _scene_of(frame):
    """(scene, render truth or None, frame index, t) from a sim LiveFrame, a Scene, or anything with
    ``extra["scene"]`` (a :class:`vision.sources.Frame` from a ``sim://`` source)."""
    scene = getattr(frame, "scene", None)
    truth = getattr(frame, "truth", None)
    index = getattr(frame, "index", -1)
    t = getattr(frame, "t", None)
    if scene is None and getattr(frame, "extra", None):
        extra = frame.extra
        scene = extra.get("scene")
        truth = extra.get("truth", truth)
    if scene is None and hasattr(frame, "pieces"):
        scene = frame
    if scene is None:
        raise ValueError("the oracle detector needs simulator frames (sim:// sources); use a real detector for video")
    if t is None:
        t = getattr(frame, "timestamp", getattr(scene, "t", 0.0))
    return scene, truth, int(index), float(t)


class OracleDetector:
    """``detector(frame, quality="full" | "fast") -> Observation`` on simulator frames. Deterministic:
    the noise of frame ``index`` depends on (seed, index) only."""

    name = "oracle-with-noise"
    measures_height = True  # the height of each piece, from the simulator (with noise)

    def __init__(self, board, config: OracleConfig | None = None, seed: int = 0):
        self.board = board
        self.config = config or OracleConfig()
        self.seed = int(seed)
        self.last_ids: list[str] = []
        self._prev: dict = {}

    def __call__(self, frame, quality: str = "full") -> Observation:
        cfg = self.config
        scene, truth, index, t = _scene_of(frame)
        rng = np.random.default_rng([self.seed, zlib.crc32(str(index).encode()), 1 if quality == "fast" else 0])
        rng_angle = np.random.default_rng([self.seed, zlib.crc32(str(index).encode()), 2])  # apart: the places' noise as before
        L, W = self.board.length_mm, self.board.width_mm
        rows, ids = [], []
        for p in scene.pieces:
            if p.attributes.get("static"):
                continue
            if p.x < -cfg.off_mat_mm or p.y < -cfg.off_mat_mm or p.x > L + cfg.off_mat_mm or p.y > W + cfg.off_mat_mm:
                continue
            if truth and p.id in truth:
                rt = truth[p.id]
                vis = rt.get("visible", 1.0) if isinstance(rt, dict) else getattr(rt, "visible", 1.0)
                if vis is not None and float(vis) < cfg.min_visible:
                    continue
            prev = self._prev.get(p.id)
            moving = prev is not None and (abs(prev[0] - p.x) + abs(prev[1] - p.y) + abs(prev[2] - p.z)) > 0.05
            if moving and rng.random() < cfg.drop_p:
                continue
            airborne = p.z > 0 and not p.attributes.get("carried_by")
            sigma = cfg.airborne_sigma_mm if airborne else (cfg.fast_sigma_mm if quality == "fast" else cfg.sigma_mm)
            xy = np.array([p.x, p.y]) + rng.normal(0.0, sigma, 2)
            size = tuple(p.size) if p.size else (0.0, 0.0)
            radius = p.radius if not p.size else 0.5 * float(np.hypot(*p.size))
            attrs = {k: str(p.attributes.get(k, "")) for k in READABLE}
            if p.kind == "card" and not p.attributes.get("face_up", True):
                attrs["card"] = "back"
            rows.append({"xy": xy, "radius": radius, "height": p.z + p.height + rng.normal(0.0, cfg.height_sigma_mm),
                         "kind": p.kind, "confidence": cfg.confidence, "sigma": sigma, "attributes": attrs,
                         "angle": p.angle_deg + rng_angle.normal(0.0, cfg.angle_sigma_deg), "size": size})
            ids.append(p.id)
        self._prev = {p.id: (p.x, p.y, p.z) for p in scene.pieces}
        self.last_ids = ids
        if not rows:
            return Observation.empty(index, t)
        return Observation(
            xy=np.array([r["xy"] for r in rows]), radius=[r["radius"] for r in rows], height=[r["height"] for r in rows],
            kind=[r["kind"] for r in rows], confidence=[r["confidence"] for r in rows], sigma=[r["sigma"] for r in rows],
            attributes={k: [r["attributes"][k] for r in rows] for k in READABLE}, angle=[r["angle"] for r in rows],
            size=[r["size"] for r in rows], frame_index=index, timestamp=t)
