"""``Verdict``: one call on the board, with its measurement, margin, uncertainty and evidence.

Frame: every length is in **mat mm** (the board's frame: origin at its top-left corner, x along its
length, y along its width); evidence shapes are plain data in mat mm, drawn by
:mod:`referee.evidence`.

Sign convention: ``margin`` is signed so that **margin > 0 leans "yes"** and margin < 0 leans "no";
its size is how far the measurement is from the threshold (mm, or confidence for classifier calls).
``sigma`` is the 1-σ error of that margin: the registration σ at the point(s) involved
(``MatTransform.sigma_mm``) and the detection's σ (``Observation.sigma``), in quadrature, over every
piece the margin depends on. The answer is ``too_close`` when ``|margin| <= k * sigma``: a call never
silently guesses, and ``leaning`` says which way the measurement went.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

ANSWERS = ("yes", "no", "too_close")


class RefereeError(ValueError):
    """A call cannot be made as asked (unknown piece or region, bad input); the message says why."""


# --------------------------------------------------------------------------------------------
# evidence shapes: plain data in mat mm


@dataclass(frozen=True)
class Circle:
    """A disc footprint or a circular region: centre (x, y) and radius in mat mm."""

    x: float
    y: float
    r: float
    label: str = ""
    role: str = "subject"  # subject | region | blocker | candidate


@dataclass(frozen=True)
class Segment:
    """A straight line from (x0, y0) to (x1, y1) in mat mm (a sight line, a slide, a line)."""

    x0: float
    y0: float
    x1: float
    y1: float
    label: str = ""
    role: str = "line"  # line | sight | slide | boundary


@dataclass(frozen=True)
class Polygon:
    """A closed outline, ``points`` ((x, y), ...) in mat mm (a region, a placement area)."""

    points: tuple
    label: str = ""
    role: str = "region"  # region | area | footprint


@dataclass(frozen=True)
class Distance:
    """A measured distance between two points in mat mm; ``mm`` is its signed value as measured
    (negative for an overlap depth)."""

    x0: float
    y0: float
    x1: float
    y1: float
    mm: float
    label: str = ""


@dataclass(frozen=True)
class Label:
    """Text anchored at (x, y) in mat mm."""

    x: float
    y: float
    text: str


SHAPES = (Circle, Segment, Polygon, Distance, Label)


def shape_to_dict(shape) -> dict:
    d = asdict(shape)
    if isinstance(shape, Polygon):
        d["points"] = [[float(x), float(y)] for x, y in shape.points]
    return {"type": type(shape).__name__.lower(), **d}


# --------------------------------------------------------------------------------------------
# the verdict


@dataclass(frozen=True)
class Verdict:
    """One call. ``value`` (the measurement) and ``threshold`` are in ``unit`` ("mm" or
    "confidence"); ``margin`` > 0 leans yes (see module docstring); ``sigma`` is the margin's 1-σ
    in the same unit; ``k`` the multiple that decides too_close. ``finding`` names a categorical
    result (a hex, an egg face, a card) that "yes" confirms. ``evidence`` holds shapes in mat mm,
    ``frame_ids`` the frames measured, ``detail`` any extra plain data (piece indices, runner-up)."""

    question: str
    answer: str
    value: float
    threshold: float
    margin: float
    sigma: float
    k: float
    unit: str = "mm"
    finding: str = ""
    evidence: tuple = ()
    frame_ids: tuple = ()
    detail: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.answer not in ANSWERS:
            raise RefereeError(f"answer must be one of {ANSWERS}, got {self.answer!r}")

    @property
    def leaning(self) -> str:
        """"yes" or "no": which way the measurement went, uncertainty ignored."""
        return "yes" if self.margin > 0 else "no"

    @property
    def confident(self) -> bool:
        return self.answer != "too_close"

    def to_dict(self) -> dict:
        def num(x):
            x = float(x)
            return x if math.isfinite(x) else None

        return {
            "question": self.question, "answer": self.answer, "leaning": self.leaning,
            "value": num(self.value), "threshold": num(self.threshold), "unit": self.unit,
            "margin": num(self.margin), "sigma": num(self.sigma), "k": float(self.k),
            "finding": self.finding, "evidence": [shape_to_dict(s) for s in self.evidence],
            "frame_ids": [int(f) for f in self.frame_ids], "detail": _plain(self.detail),
        }

    def summary(self, card_mm: float | None = None) -> str:
        """One line for a person: the answer, the measurement, the margin and its σ."""
        head = f"{self.question}: {self.answer.upper()}"
        if self.finding:
            head += f" ({self.finding})"
        if self.unit == "mm":
            body = f"measured {self.value:.2f} mm vs {self.threshold:.2f} mm"
            if card_mm:
                body += f" ({self.value / card_mm:.3f} card lengths)"
        else:
            body = f"confidence {self.value:.3f} vs {self.threshold:.3f}"
        tail = f"margin {self.margin:+.2f} {self.unit}, σ {self.sigma:.2f}, k {self.k:g}"
        if self.answer == "too_close":
            tail += f" (leaning {self.leaning}; a person decides)"
        return f"{head}; {body}; {tail}"


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


# --------------------------------------------------------------------------------------------
# deciding and σ


def decide(margin, sigma, k: float) -> np.ndarray:
    """(n,) answers from (n,) signed margins and (n,) σ: ``too_close`` when |margin| <= k σ,
    else yes (margin > 0) or no. Empty in, empty out."""
    m = np.asarray(margin, dtype=np.float64).reshape(-1)
    s = np.broadcast_to(np.asarray(sigma, dtype=np.float64), m.shape)
    out = np.where(m > 0, "yes", "no").astype(object)
    out[np.abs(m) <= k * s] = "too_close"
    out[np.isnan(m)] = "too_close"  # +inf (nothing in the way) is a clear yes, NaN is no measurement
    return out


def _registration_jacobian(transform, pts: np.ndarray):
    """(n, 2, 8) d(mat mm)/d(h): how an error in the registration's homography parameters moves the
    mat position computed for each point; None without a covariance to propagate."""
    cov_h = getattr(transform, "cov_h", None)
    if cov_h is None or not hasattr(transform, "H"):
        return None
    from calibration.transform import homography_param_jacobian

    H = np.asarray(transform.H, dtype=np.float64)
    x, y = pts[:, 0], pts[:, 1]
    u = H[0, 0] * x + H[0, 1] * y + H[0, 2]
    v = H[1, 0] * x + H[1, 1] * y + H[1, 2]
    w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
    J = np.empty((len(pts), 2, 2))  # d(px)/d(mm)
    J[:, 0, 0] = (H[0, 0] * w - u * H[2, 0]) / w ** 2
    J[:, 0, 1] = (H[0, 1] * w - u * H[2, 1]) / w ** 2
    J[:, 1, 0] = (H[1, 0] * w - v * H[2, 0]) / w ** 2
    J[:, 1, 1] = (H[1, 1] * w - v * H[2, 1]) / w ** 2
    return -np.linalg.inv(J) @ homography_param_jacobian(H, pts)


def _worst(G: np.ndarray, cov_h) -> np.ndarray:
    cov_mm = G @ np.asarray(cov_h, dtype=np.float64) @ np.transpose(G, (0, 2, 1))
    return np.sqrt(np.maximum(np.linalg.eigvalsh(cov_mm)[:, -1], 0.0))


def registration_sigma(transform, points_mm, floor_mm: float = 0.0) -> np.ndarray:
    """(n,) registration 1-σ in mm at (n, 2) mat-mm points, along the worst direction.

    ``MatTransform.sigma_mm`` reports the RMS of the x and y errors; a margin is measured along one
    direction, which can be the worse axis (an oblique camera stretches the error along its line of
    sight), so the referee takes the largest principal σ of the same propagated covariance,
    √λmax ≥ sigma_mm. Without a covariance it is ``sigma_mm`` (the residual times the local scale);
    0 without a transform; never below ``floor_mm``."""
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    if transform is None or len(pts) == 0:
        return np.full(len(pts), float(floor_mm))
    G = _registration_jacobian(transform, pts)
    if G is None:
        return np.maximum(np.asarray(transform.sigma_mm(pts), dtype=np.float64), floor_mm)
    return np.maximum(_worst(G, transform.cov_h), floor_mm)


def pair_sigma(transform, xy_a, det_a, xy_b, det_b, floor_mm: float = 0.0) -> np.ndarray:
    """(n,) 1-σ in mm of a margin between n pairs of pieces (a gap, a touch): the registration error
    of the *difference* of the two positions (both are seen through the same homography, so most of
    its error is shared and cancels), worst direction, and both detection σ, in quadrature. Without a
    covariance the two pieces' full σ are added in quadrature (no cancellation assumed)."""
    a = np.asarray(xy_a, dtype=np.float64).reshape(-1, 2)
    b = np.asarray(xy_b, dtype=np.float64).reshape(-1, 2)
    da = np.broadcast_to(np.asarray(det_a, dtype=np.float64), (len(a),))
    db = np.broadcast_to(np.asarray(det_b, dtype=np.float64), (len(b),))
    if len(a) == 0:
        return np.zeros(0)
    Ga = _registration_jacobian(transform, a) if transform is not None else None
    if Ga is None:
        return quadrature(piece_sigma(transform, a, da, floor_mm), piece_sigma(transform, b, db, floor_mm))
    rel = _worst(Ga - _registration_jacobian(transform, b), transform.cov_h)
    return np.sqrt(np.maximum(rel, np.sqrt(2) * floor_mm) ** 2 + da ** 2 + db ** 2)


def piece_sigma(transform, points_mm, detection_sigma, floor_mm: float = 0.0) -> np.ndarray:
    """(n,) 1-σ position error (mm, per axis) of n pieces at (n, 2) mat mm: registration σ at each
    point and detection σ, in quadrature."""
    det = np.asarray(detection_sigma, dtype=np.float64).reshape(-1)
    reg = registration_sigma(transform, points_mm, floor_mm)
    return np.sqrt(reg ** 2 + det ** 2)


def quadrature(*sigmas) -> np.ndarray:
    """Element-wise sqrt of the sum of squares (broadcast)."""
    total = 0.0
    for s in sigmas:
        total = total + np.asarray(s, dtype=np.float64) ** 2
    return np.sqrt(total)


def make_verdicts(question, value, threshold, margin, sigma, k: float, *, unit: str = "mm",
                  finding=None, evidence=None, frame_ids=(), detail=None) -> list[Verdict]:
    """Build n verdicts from parallel arrays (``question``/``finding``/``evidence``/``detail`` may be
    lists of n or one value for all). Empty in, empty out."""
    margin = np.asarray(margin, dtype=np.float64).reshape(-1)
    n = len(margin)
    value = np.broadcast_to(np.asarray(value, dtype=np.float64), (n,))
    threshold = np.broadcast_to(np.asarray(threshold, dtype=np.float64), (n,))
    sigma = np.broadcast_to(np.asarray(sigma, dtype=np.float64), (n,))
    answers = decide(margin, sigma, k)

    def pick(x, i, default):
        if x is None:
            return default
        if isinstance(x, (list, tuple)) and not isinstance(x, str) and len(x) == n and not (n and isinstance(x[0], SHAPES)):
            return x[i]
        return x

    out = []
    for i in range(n):
        ev = pick(evidence, i, ())
        out.append(Verdict(question=str(pick(question, i, "")), answer=str(answers[i]), value=float(value[i]),
                           threshold=float(threshold[i]), margin=float(margin[i]), sigma=float(sigma[i]),
                           k=float(k), unit=unit, finding=str(pick(finding, i, "")), evidence=tuple(ev),
                           frame_ids=tuple(int(f) for f in frame_ids), detail=dict(pick(detail, i, {}) or {})))
    return out
