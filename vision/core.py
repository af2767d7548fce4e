"""``Observation``: one frame's pieces as parallel numpy arrays, positions in **mat mm**.

n is the number of pieces. Shapes:

- ``xy``          (n, 2) float  base centre in mat mm (the centre of the piece's footprint on the mat)
- ``radius``      (n,)   float  footprint radius in mm (half the diameter; for cards half the diagonal)
- ``height``      (n,)   float  height of the piece's top face above the mat, mm
- ``kind``        (n,)   str    piece class ("disc-medium", "ball", "racer", "egg", "card", ...)
- ``confidence``  (n,)   float  detection confidence 0..1
- ``sigma``       (n,)   float  1-σ position error in mm (detection and registration combined)
- ``track_id``    (n,)   int    identity across frames, -1 when untracked
- ``attributes``  dict of name -> (n,) array: "team", "colour", "face", "card", "name", ...; a
                  value of "" means unknown
- ``angle``       (n,)   float  rotation in degrees in the mat plane (cards, eggs); 0 when unknown
- ``size``        (n, 2) float  footprint length and width in mm for rectangular pieces (cards);
                  (0, 0) for round ones

``frame_index`` and ``timestamp`` say which frame it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def _check(name: str, value: np.ndarray, shape: tuple, n: int) -> None:
    expected = tuple(n if s == "n" else s for s in shape)
    if value.shape != expected:
        pretty = "(" + ", ".join("_" if s == "n" else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        raise ValueError(f"{name} must be an np.ndarray with shape {pretty} for {n} pieces, but got shape {value.shape}")


@dataclass
class Observation:
    xy: np.ndarray
    radius: np.ndarray
    height: np.ndarray
    kind: np.ndarray
    confidence: np.ndarray
    sigma: np.ndarray
    track_id: np.ndarray | None = None
    attributes: dict = field(default_factory=dict)
    angle: np.ndarray | None = None
    size: np.ndarray | None = None
    frame_index: int = -1
    timestamp: float = 0.0

    def __post_init__(self):
        self.xy = np.asarray(self.xy, dtype=np.float64).reshape(-1, 2) if np.size(self.xy) else np.zeros((0, 2))
        n = len(self.xy)
        self.radius = np.asarray(self.radius, dtype=np.float64).reshape(-1)
        self.height = np.asarray(self.height, dtype=np.float64).reshape(-1)
        self.kind = np.asarray(self.kind, dtype=object).reshape(-1)
        self.confidence = np.asarray(self.confidence, dtype=np.float64).reshape(-1)
        self.sigma = np.asarray(self.sigma, dtype=np.float64).reshape(-1)
        self.track_id = np.full(n, -1, dtype=np.int64) if self.track_id is None else np.asarray(self.track_id, dtype=np.int64).reshape(-1)
        self.angle = np.zeros(n) if self.angle is None else np.asarray(self.angle, dtype=np.float64).reshape(-1)
        self.size = np.zeros((n, 2)) if self.size is None else np.asarray(self.size, dtype=np.float64).reshape(-1, 2) if n else np.zeros((0, 2))
        for name in ("radius", "height", "kind", "confidence", "sigma", "track_id", "angle"):
            _check(name, getattr(self, name), ("n",), n)
        _check("size", self.size, ("n", 2), n)
        attrs = {}
        for key, value in self.attributes.items():
            arr = np.asarray(value, dtype=object).reshape(-1)
            _check(f"attributes[{key!r}]", arr, ("n",), n)
            attrs[key] = arr
        self.attributes = attrs

    def __len__(self) -> int:
        return len(self.xy)

    @classmethod
    def empty(cls, frame_index: int = -1, timestamp: float = 0.0) -> "Observation":
        return cls(np.zeros((0, 2)), [], [], [], [], [], frame_index=frame_index, timestamp=timestamp)

    @classmethod
    def from_pieces(cls, pieces: list[dict], frame_index: int = -1, timestamp: float = 0.0) -> "Observation":
        """Build from plain dicts ``{"xy": [x, y], "radius": r, "kind": k, ...}`` (tests, JSON)."""
        if not pieces:
            return cls.empty(frame_index, timestamp)
        keys = set().union(*(p.get("attributes", {}).keys() for p in pieces))
        return cls(
            xy=[p["xy"] for p in pieces],
            radius=[p["radius"] for p in pieces],
            height=[p.get("height", 0.0) for p in pieces],
            kind=[p.get("kind", "") for p in pieces],
            confidence=[p.get("confidence", 1.0) for p in pieces],
            sigma=[p.get("sigma", 0.0) for p in pieces],
            track_id=[p.get("track_id", -1) for p in pieces],
            attributes={k: [p.get("attributes", {}).get(k, "") for p in pieces] for k in keys},
            angle=[p.get("angle", 0.0) for p in pieces],
            size=[p.get("size", (0.0, 0.0)) for p in pieces],
            frame_index=frame_index,
            timestamp=timestamp,
        )

    def to_pieces(self) -> list[dict]:
        """The inverse of :meth:`from_pieces` (JSON-able)."""
        out = []
        for i in range(len(self)):
            out.append({
                "xy": [float(self.xy[i, 0]), float(self.xy[i, 1])], "radius": float(self.radius[i]),
                "height": float(self.height[i]), "kind": str(self.kind[i]), "confidence": float(self.confidence[i]),
                "sigma": float(self.sigma[i]), "track_id": int(self.track_id[i]), "angle": float(self.angle[i]),
                "size": [float(self.size[i, 0]), float(self.size[i, 1])],
                "attributes": {k: str(v[i]) for k, v in self.attributes.items()},
            })
        return out

    def __getitem__(self, index) -> "Observation":
        """Select pieces by a boolean mask, an index array or a slice."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Observation(self.xy[index], self.radius[index], self.height[index], self.kind[index],
                           self.confidence[index], self.sigma[index], self.track_id[index],
                           {k: v[index] for k, v in self.attributes.items()}, self.angle[index], self.size[index],
                           self.frame_index, self.timestamp)

    def attribute(self, name: str) -> np.ndarray:
        """(n,) the attribute, "" where unknown or never set."""
        return self.attributes.get(name, np.full(len(self), "", dtype=object))
