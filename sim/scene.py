"""What the simulated table holds at one instant, in **mat mm**: the contract between physics,
scenarios, the renderer and the ground truth.

A piece's position is its *base centre* (the centre of its footprint on the mat). ``z`` is the
height of its base above the mat (0 when resting on it; > 0 for a ball carried on top of a disc or a
projectile in flight). ``height`` is the piece's own thickness, so its top face is at ``z + height``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class PieceState:
    """One piece. ``kind`` is a piece name from ``calibration/specs.yaml`` of the scene's game
    (``disc-medium``, ``ball``, ``racer``, ``banana``, ``egg``, ``card`` …). ``radius`` is the
    footprint radius in mm for round pieces; ``size`` (length, width) in mm for rectangular ones
    (cards, blocks), whose ``angle_deg`` turns them in the mat plane (counter-clockwise as drawn,
    i.e. from +x towards +y). ``attributes`` holds what the vision must recover: ``team``,
    ``colour``, ``face`` (whole / broken, up / down), ``card`` (cat, dog, …), ``name``."""

    id: str
    kind: str
    x: float
    y: float
    radius: float = 0.0
    height: float = 0.0
    angle_deg: float = 0.0
    size: tuple = ()
    z: float = 0.0
    vx: float = 0.0
    vy: float = 0.0
    attributes: dict = field(default_factory=dict)

    @property
    def moving(self) -> bool:
        return (self.vx * self.vx + self.vy * self.vy) > 1.0  # faster than 1 mm/s

    def to_dict(self) -> dict:
        d = asdict(self)
        d["size"] = list(self.size)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "PieceState":
        d = dict(d)
        d["size"] = tuple(d.get("size", ()))
        return cls(**d)


@dataclass
class Scene:
    """Every piece on (or above) the table at time ``t`` (seconds) for ``game`` on ``board``
    (a board ref like ``dino-dunk/tropic-turf``)."""

    game: str
    board: str
    pieces: list = field(default_factory=list)
    t: float = 0.0

    def by_id(self) -> dict:
        return {p.id: p for p in self.pieces}

    def to_dict(self) -> dict:
        return {"game": self.game, "board": self.board, "t": self.t, "pieces": [p.to_dict() for p in self.pieces]}

    @classmethod
    def from_dict(cls, d: dict) -> "Scene":
        return cls(d["game"], d["board"], [PieceState.from_dict(p) for p in d["pieces"]], float(d.get("t", 0.0)))
