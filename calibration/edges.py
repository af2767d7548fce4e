"""Subpixel straight edges: refine a quadrilateral (a marker's black square, the mat's outline) by
fitting a line to each of its sides and intersecting neighbours.

Corner detectors (``cornerSubPix``) are biased on an L-shaped corner seen through blur: the corner
is rounded, and the estimate slides inside it by a fraction of a pixel. A straight edge is not
moved by a symmetric blur, so lines fitted to many edge points along each side, intersected, give
corners without that bias. Frames: **image px** throughout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class QuadFit:
    """Result of :func:`fit_quad_edges`: ``corners`` (4, 2) image px (corner k starts side k),
    ``rms_px`` (4,) RMS distance of each side's edge points to its line, ``counts`` (4,) points
    used per side."""

    corners: np.ndarray
    rms_px: np.ndarray
    counts: np.ndarray


def intersect_lines(l1, l2) -> np.ndarray | None:
    (p, d), (q, e) = l1, l2
    A = np.array([[d[0], -e[0]], [d[1], -e[1]]])
    if abs(np.linalg.det(A)) < 1e-9:
        return None
    s, _ = np.linalg.solve(A, q - p)
    return p + s * d


def _edge_points(channels: np.ndarray, a: np.ndarray, b: np.ndarray, band: float, exclude: float,
                 spacing: float, step: float, outer: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Edge points along the segment a→b: for samples along it, the subpixel maximum of the
    gradient energy (summed over channels) along the normal within ±band. With ``outer`` > 0 the
    outermost local maximum (on the left of a→b, outside a clockwise-on-screen quad) of at least
    ``outer`` × the largest is taken instead: the edge of a mat, not a border printed just inside
    it. Returns (points (m, 2), strengths (m,))."""
    import cv2

    length = float(np.linalg.norm(b - a))
    d = (b - a) / length
    n = np.array([-d[1], d[0]])
    m = max(3, int(length * (1 - 2 * exclude) / spacing))
    ts = np.linspace(exclude, 1 - exclude, m)
    base = a[None, :] + ts[:, None] * (b - a)[None, :]
    offs = np.arange(-band - step, band + step * 1.5, step)
    pts = base[:, None, :] + offs[None, :, None] * n[None, None, :]
    mapx = pts[..., 0].astype(np.float32)
    mapy = pts[..., 1].astype(np.float32)
    samples = cv2.remap(channels, mapx, mapy, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
    if samples.ndim == 2:
        samples = samples[..., None]
    deriv = np.diff(samples.astype(np.float64), axis=1) / step  # (m, J-1, C) at offs midpoints
    energy = np.sum(deriv**2, axis=2)
    # smooth along the profile (σ = 0.5 px): interpolation leaves small ripples that would make
    # false local maxima and jitter the peak
    sig = 0.5 / step
    half = int(np.ceil(3 * sig))
    kern = np.exp(-0.5 * (np.arange(-half, half + 1) / sig) ** 2)
    kern /= kern.sum()
    padded = np.pad(energy, ((0, 0), (half, half)), mode="edge")
    energy = np.stack([np.convolve(row, kern, mode="valid") for row in padded])
    mids = (offs[:-1] + offs[1:]) / 2
    j = np.argmax(energy, axis=1)
    if outer > 0:
        peak = np.zeros_like(energy, dtype=bool)
        peak[:, 1:-1] = (energy[:, 1:-1] >= energy[:, :-2]) & (energy[:, 1:-1] >= energy[:, 2:])
        peak &= energy >= outer * energy.max(axis=1, keepdims=True)
        first = np.argmax(peak, axis=1)  # the smallest offset: outward is -n for a clockwise quad
        j = np.where(peak.any(axis=1), first, j)
    ok = (j > 0) & (j < energy.shape[1] - 1)
    j = np.clip(j, 1, energy.shape[1] - 2)
    rows = np.arange(m)
    e0, e1, e2 = energy[rows, j - 1], energy[rows, j], energy[rows, j + 1]
    denom = e0 - 2 * e1 + e2
    frac = np.where(np.abs(denom) > 1e-12, 0.5 * (e0 - e2) / np.where(np.abs(denom) > 1e-12, denom, 1.0), 0.0)
    frac = np.clip(frac, -0.5, 0.5)
    s = mids[j] + frac * step
    ok &= np.abs(s) <= band
    strength = e1
    points = base + s[:, None] * n[None, :]
    return points[ok], strength[ok]


def fit_line(points: np.ndarray, weights_floor: float = 0.0) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    """Total-least-squares line through ``points`` with one round of outlier rejection (3 × the
    robust spread). Returns ((point, unit direction), residuals of the kept points)."""
    keep = np.ones(len(points), bool)
    for _ in range(2):
        p = points[keep]
        c = p.mean(axis=0)
        _, _, vt = np.linalg.svd(p - c, full_matrices=False)
        d = vt[0]
        nrm = np.array([-d[1], d[0]])
        r = (points - c) @ nrm
        spread = 1.4826 * np.median(np.abs(r[keep])) + 1e-3
        new_keep = np.abs(r) <= max(3.0 * spread, weights_floor)
        if new_keep.sum() < 2 or np.array_equal(new_keep, keep):
            break
        keep = new_keep
    return (c, d), r[keep]


def fit_quad_edges(channels: np.ndarray, quad: np.ndarray, band_px: float, exclude: float = 0.15,
                   spacing_px: float = 1.0, step_px: float = 0.25, iterations: int = 2,
                   min_points: int = 3, outer: float = 0.0, shrink: bool = True) -> QuadFit | None:
    """Refine ``quad`` (4, 2) image px, whose sides are edges of ``channels`` ((H, W) or (H, W, C)
    float32), to the intersections of lines fitted to each side's edge points. ``band_px`` is how
    far from the current side an edge may lie; ``exclude`` the share of each side left out at both
    ends (corners, rounded or touching other things); ``outer`` see :func:`_edge_points` (the quad
    must then turn clockwise on screen); ``shrink`` halves the band after each round (down to 1 px).
    None when a side has too few edge points."""
    channels = np.ascontiguousarray(channels, dtype=np.float32)
    quad = np.asarray(quad, dtype=np.float64).reshape(4, 2).copy()
    band = float(band_px)
    rms = np.zeros(4)
    counts = np.zeros(4, np.int64)
    for _ in range(max(1, iterations)):
        lines = []
        for k in range(4):
            a, b = quad[k], quad[(k + 1) % 4]
            if np.linalg.norm(b - a) < 4:
                return None
            pts, _ = _edge_points(channels, a, b, band, exclude, spacing_px, step_px, outer)
            if len(pts) < min_points:
                return None
            line, resid = fit_line(pts)
            lines.append(line)
            rms[k] = float(np.sqrt(np.mean(resid**2))) if len(resid) else 0.0
            counts[k] = len(resid)
        new = []
        for k in range(4):
            c = intersect_lines(lines[(k - 1) % 4], lines[k])
            if c is None:
                return None
            new.append(c)
        new = np.array(new)
        if np.max(np.linalg.norm(new - quad, axis=1)) > 2 * band + 2:
            return None  # the fit ran away: not the edges we were given
        quad = new
        if shrink:
            band = max(1.0, band * 0.5)
    return QuadFit(quad, rms, counts)
