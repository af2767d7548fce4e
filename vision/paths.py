"""A tracked path as a few smooth pieces, with their uncertainty, in **mat mm** and seconds.

Between two events a thrown or flicked piece moves smoothly: in the air at constant velocity (or
with a constant sideways acceleration: a curving throw), sliding on the mat in one direction at a
constant deceleration, then at rest. An event (a bounce off another piece, a landing, the flick
itself) is a break in that motion. So the samples of a path are best described as consecutive
**segments**, each a polynomial in time of low degree (0: at rest, 1: constant velocity, 2: constant
acceleration) fitted by weighted least squares to all of its samples; the position of a fitted
segment is known far better than one sample's (about σ/√n).

- :func:`segment_path` splits a path into segments (segmented least squares, dynamic programming:
  the sum of the segments' χ² plus a penalty per segment and per parameter is least; optionally
  lone samples as waypoints between events, and curves bounded by what the physics allows);
- :class:`Segment` gives the fitted position, velocity and the position's σ at any time (from the
  fit's covariance, scaled up by the residuals when they are larger than the samples' σ says);
- :func:`join` finds where two consecutive segments meet (the instant and place of the event
  between them) and the velocities either side;
- :func:`fit_fall` fits a falling height h(t) = a + b·t − g·t²/2 (g known) and gives the instant it
  reaches a height (a landing).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Segment:
    """Samples ``i0 .. i1 - 1`` of a path fitted by a polynomial of ``degree`` in ``t - t_ref``.

    ``coef`` (degree + 1, 2): lowest power first, one column per axis; ``cov`` (degree + 1,
    degree + 1): covariance of one axis' coefficients (the same for both axes, mm² units), already
    scaled by ``scale`` = max(1, χ²/dof); ``chi2`` the weighted residual sum of squares; ``t0``,
    ``t1`` the first and last sample times."""

    i0: int
    i1: int
    degree: int
    t_ref: float
    coef: np.ndarray
    cov: np.ndarray
    chi2: float
    scale: float
    t0: float
    t1: float

    @property
    def n(self) -> int:
        return self.i1 - self.i0

    def _powers(self, t, order: int = 0) -> np.ndarray:
        tau = np.atleast_1d(np.asarray(t, dtype=float)) - self.t_ref
        d = self.degree
        out = np.zeros((len(tau), d + 1))
        for p in range(order, d + 1):
            c = 1.0
            for q in range(order):
                c *= p - q
            out[:, p] = c * tau ** (p - order)
        return out

    def pos(self, t) -> np.ndarray:
        """(n, 2) fitted positions (mm) at times ``t``."""
        return self._powers(t) @ self.coef

    def vel(self, t) -> np.ndarray:
        """(n, 2) fitted velocities (mm/s) at times ``t``."""
        return self._powers(t, 1) @ self.coef

    def pos_sigma(self, t) -> np.ndarray:
        """(n,) σ (mm, per axis) of the fitted position at times ``t``."""
        a = self._powers(t)
        return np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", a, self.cov, a), 0.0))

    def vel_sigma(self, t) -> np.ndarray:
        """(n,) σ (mm/s, per axis) of the fitted velocity at times ``t``."""
        a = self._powers(t, 1)
        return np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", a, self.cov, a), 0.0))


def fit_segment(t, xy, sigma, degree: int, i0: int = 0) -> Segment:
    """One polynomial of ``degree`` fitted to samples ``t`` (n,) s, ``xy`` (n, 2) mm, ``sigma`` (n,)
    mm (1-σ per axis), weighted by 1/σ²."""
    t = np.asarray(t, dtype=float)
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    w = 1.0 / np.maximum(np.asarray(sigma, dtype=float), 1e-6) ** 2
    t_ref = float(np.average(t, weights=w))
    tau = t - t_ref
    A = np.column_stack([tau ** p for p in range(degree + 1)])
    Aw = A * w[:, None]
    N = A.T @ Aw
    N_inv = np.linalg.pinv(N)
    coef = N_inv @ (Aw.T @ xy)
    res = xy - A @ coef
    chi2 = float((w[:, None] * res ** 2).sum())
    dof = 2 * (len(t) - degree - 1)
    scale = max(1.0, chi2 / dof) if dof > 0 else 1.0
    return Segment(i0, i0 + len(t), degree, t_ref, coef, N_inv * scale, chi2, scale, float(t[0]), float(t[-1]))


def _chi2_table(t, xy, w, degree: int, min_points: int, max_accel: float | None = None,
                max_side_accel: float | None = None, slack: float = 3.0) -> np.ndarray:
    """(n + 1, n + 1) χ² of a ``degree`` fit to samples i..j-1 (inf where fewer than ``min_points``,
    or where a degree-2 fit's acceleration is beyond ``max_accel``, or its part across the motion
    beyond ``max_side_accel``, by more than ``slack`` σ)."""
    n = len(t)
    out = np.full((n + 1, n + 1), np.inf)
    m = degree + 1
    for i in range(n):
        for j in range(i + max(m, min_points), n + 1):
            tt = t[i:j] - t[i]
            ww = w[i:j]
            A = np.vander(tt, m, increasing=True)
            Aw = A * ww[:, None]
            N = A.T @ Aw
            try:
                coef = np.linalg.solve(N, Aw.T @ xy[i:j])
            except np.linalg.LinAlgError:
                continue
            if degree == 2 and (max_accel is not None or max_side_accel is not None):
                s_acc = 2.0 * float(np.sqrt(max(np.linalg.inv(N)[2, 2], 0.0)))
                acc = 2.0 * coef[2]
                if max_accel is not None and float(np.hypot(*acc)) - slack * s_acc > max_accel:
                    continue
                if max_side_accel is not None:
                    tm = float(np.average(tt, weights=ww))
                    v = coef[1] + 2.0 * coef[2] * tm
                    sp = float(np.hypot(*v))
                    if sp > 1e-6 and abs(float(acc[0] * v[1] - acc[1] * v[0])) / sp - slack * s_acc > max_side_accel:
                        continue
            r = xy[i:j] - A @ coef
            out[i, j] = float((ww[:, None] * r ** 2).sum())
    return out


def segment_path(t, xy, sigma, penalty: float = 12.0, param_penalty: float = 2.0, max_degree: int = 2,
                 degrees=None, max_len: int | None = None, min_points: int = 2,
                 waypoints: bool = False, max_accel: float | None = None,
                 max_side_accel: float | None = None, accel_slack: float = 3.0) -> list[Segment]:
    """Split a path (``t`` (n,) s, ``xy`` (n, 2) mm, ``sigma`` (n,) mm per axis) into consecutive
    segments: the least total of χ² + ``penalty`` per segment + ``param_penalty`` per fitted
    parameter (two per polynomial coefficient). ``degrees`` the polynomial degrees tried (default
    0 .. ``max_degree``); a segment needs at least ``min_points`` samples and 2·degree (a curve
    through three samples is no evidence of one; a lone sample says nothing of the motion: at rest
    or passing), except that with ``waypoints`` one sample alone may be a segment (degree 0: a
    place the path passed, e.g. between two events). ``max_accel`` (mm/s²) bounds a curve's
    acceleration (a smooth motion turns no faster; a sharper turn is an event between two
    segments), ``max_side_accel`` its part across the motion (a piece sliding on the mat slows
    along its line and does not turn), each allowing ``accel_slack`` σ of the fitted acceleration.
    Returns the segments in time order, each refitted with its covariance; a path shorter than
    ``min_points`` is one segment. ``max_len`` caps a segment's samples. O(n²) small fits: meant for one
    flick's samples (tens)."""
    t = np.asarray(t, dtype=float)
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    sigma = np.asarray(sigma, dtype=float)
    n = len(t)
    if n == 0:
        return []
    degrees = tuple(degrees) if degrees is not None else tuple(range(max_degree + 1))
    w = 1.0 / np.maximum(sigma, 1e-6) ** 2
    tables = {d: _chi2_table(t, xy, w, d, max(min_points, 2 * d), max_accel, max_side_accel, accel_slack) for d in degrees}
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back: list = [None] * (n + 1)
    for j in range(1, n + 1):
        for i in range(max(0, j - max_len) if max_len else 0, j):
            if not np.isfinite(best[i]):
                continue
            for d in degrees:
                c = tables[d][i, j]
                if not np.isfinite(c):
                    continue
                total = best[i] + c + penalty + param_penalty * 2 * (d + 1)
                if total < best[j]:
                    best[j], back[j] = total, (i, d)
            if waypoints and j == i + 1 and best[i] + penalty + param_penalty * 2 < best[j]:
                best[j], back[j] = best[i] + penalty + param_penalty * 2, (i, 0)
    if back[n] is None:  # too few samples for any degree: one segment
        return [fit_segment(t, xy, sigma, 0 if n < 2 else 1)]
    cuts = []
    j = n
    while j > 0:
        i, d = back[j]
        cuts.append((i, j, d))
        j = i
    return [fit_segment(t[i:j], xy[i:j], sigma[i:j], d, i0=i) for i, j, d in reversed(cuts)]


@dataclass
class Join:
    """Where segment ``a`` ends and ``b`` begins: ``t`` s, ``xy`` (2,) mm (the two fits' weighted
    mean there), ``sigma`` mm per axis, ``miss`` mm (how far apart the two fits are at ``t``),
    ``v_before``, ``v_after`` (2,) mm/s."""

    t: float
    xy: np.ndarray
    sigma: float
    miss: float
    v_before: np.ndarray
    v_after: np.ndarray
    v_sigma: float


def join(a: Segment, b: Segment, t_lo: float | None = None, t_hi: float | None = None, steps: int = 64) -> Join:
    """The instant in [``t_lo``, ``t_hi``] (default: between a's last and b's first sample) where the
    two fits come closest, the place (the fits' inverse-variance mean) and the velocities either side."""
    lo = a.t1 if t_lo is None else t_lo
    hi = b.t0 if t_hi is None else t_hi
    ts = np.linspace(lo, hi, steps) if hi > lo else np.array([lo])
    pa, pb = a.pos(ts), b.pos(ts)
    d = np.hypot(*(pa - pb).T)
    k = int(np.argmin(d))
    tc = float(ts[k])
    sa, sb = float(a.pos_sigma(tc)[0]), float(b.pos_sigma(tc)[0])
    wa, wb = 1 / max(sa, 1e-6) ** 2, 1 / max(sb, 1e-6) ** 2
    xy = (wa * pa[k] + wb * pb[k]) / (wa + wb)
    sig = float(np.sqrt(1 / (wa + wb)))
    va, vb = a.vel(tc)[0], b.vel(tc)[0]
    vs = float(np.hypot(a.vel_sigma(tc)[0], b.vel_sigma(tc)[0]))
    return Join(tc, xy, sig, float(d[k]), va, vb, vs)


@dataclass
class Fall:
    """h(t) = a + b·(t - t_ref) − g·(t - t_ref)²/2 fitted to heights; ``cov`` of (a, b) (mm², mm²/s, mm²/s²)."""

    a: float
    b: float
    g: float
    t_ref: float
    cov: np.ndarray

    def height(self, t) -> np.ndarray:
        tau = np.asarray(t, dtype=float) - self.t_ref
        return self.a + self.b * tau - 0.5 * self.g * tau ** 2

    def reaches(self, h: float = 0.0, first: bool = False) -> tuple[float | None, float]:
        """(the later instant the fitted height is ``h`` (the earlier with ``first``), its σ in s);
        where the fit's top is below ``h`` (a drop from rest, within the noise), the instant of its
        top; (None, inf) without gravity."""
        if self.g <= 0:
            return None, float("inf")
        disc = self.b ** 2 + 2 * self.g * (self.a - h)
        if disc <= 1e-9:
            return float(self.t_ref + self.b / self.g), float(np.sqrt(max(self.cov[1, 1], 0.0))) / self.g
        s = np.sqrt(disc) * (-1.0 if first else 1.0)
        tau = (self.b + s) / self.g
        # dτ/da = 1/s, dτ/db = (1 + b/s)/g
        J = np.array([1.0 / s, (1.0 + self.b / s) / self.g])
        return float(self.t_ref + tau), float(np.sqrt(max(J @ self.cov @ J, 0.0)))


def fit_fall(t, h, sigma, g: float) -> Fall | None:
    """A ballistic height h(t) (mm) from samples ``t`` (n,) s, ``h`` (n,) mm with σ ``sigma`` (n,)
    mm, gravity ``g`` mm/s² known; None with fewer than two samples."""
    t = np.asarray(t, dtype=float)
    h = np.asarray(h, dtype=float)
    if len(t) < 2:
        return None
    w = 1.0 / np.maximum(np.broadcast_to(np.asarray(sigma, dtype=float), t.shape), 1e-6) ** 2
    t_ref = float(np.average(t, weights=w))
    tau = t - t_ref
    y = h + 0.5 * g * tau ** 2
    A = np.column_stack([np.ones_like(tau), tau])
    N = A.T @ (A * w[:, None])
    N_inv = np.linalg.pinv(N)
    coef = N_inv @ (A.T @ (w * y))
    res = y - A @ coef
    dof = len(t) - 2
    scale = max(1.0, float((w * res ** 2).sum()) / dof) if dof > 0 else 1.0
    return Fall(float(coef[0]), float(coef[1]), float(g), t_ref, N_inv * scale)
