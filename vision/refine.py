"""Refinement: from a rough image position to a piece's base centre in **mat mm** with σ.

A disc is an upright cylinder: its top face is a circle of known radius at a known height above the
mat, and the centre of that circle lies straight above the base centre. So the base centre is found
by fitting the *top face* in the view rectified on the plane of the top face (``MatTransform`` at
``height_mm``), where the top is an exact circle again and parallax is gone.

The fit, on a small patch rectified at ``px_per_mm``:

1. gradient voting with a known radius (a circle Hough transform on edge pixels, each voting along
   its gradient direction, both polarities), to find the top circle among the edges of the side
   band and the base (the top is the only circle visible all the way round);
2. least squares on the edge points within a band around that circle (sub-pixel edge positions
   along the radial direction), with the radius free (a check) and then fixed;
3. σ in mm from the fit's residuals and the number of edge points, plus the registration σ.

Everything is batch-first: ``refine_discs`` takes (n, 2) rough mat positions and returns (n, 2)
refined ones, with (n,) σ and (n,) quality; empty in, empty out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.transform import MatTransform


@dataclass(frozen=True)
class RefineConfig:
    """``px_per_mm`` of the rectified patch; ``margin_mm`` around the disc; ``search_mm`` how far the
    rough position may be off; ``band_mm`` the half-width of the edge band used by the fit."""

    px_per_mm: float = 4.0
    margin_mm: float = 14.0
    search_mm: float = 10.0
    band_mm: float = 1.6
    min_edge_fraction: float = 0.35


@dataclass
class Refined:
    """Results for n pieces: ``xy`` (n, 2) base centres in mat mm; ``sigma`` (n,) mm;
    ``radius`` (n,) fitted radius mm; ``quality`` (n,) fraction of the circle with edge support
    (0..1); ``ok`` (n,) bool."""

    xy: np.ndarray
    sigma: np.ndarray
    radius: np.ndarray
    quality: np.ndarray
    ok: np.ndarray


def rectify_patch(image: np.ndarray, transform: MatTransform, centre_mm, half_mm: float, height_mm: float,
                  px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """A square patch of the plane at ``height_mm`` around ``centre_mm``, at ``px_per_mm``.

    Returns the patch (grey float32) and the 3x3 map from patch px to mat mm on that plane."""
    import cv2

    size = int(np.ceil(2 * half_mm * px_per_mm)) + 1
    x0, y0 = centre_mm[0] - half_mm, centre_mm[1] - half_mm
    patch_to_mm = np.array([[1 / px_per_mm, 0, x0], [0, 1 / px_per_mm, y0], [0, 0, 1.0]])
    H = transform.homography(height_mm) @ patch_to_mm  # patch px -> undistorted image px
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if transform.dist is not None and np.any(transform.dist):
        # sample through the lens distortion: map every patch pixel to its distorted image position
        ys, xs = np.mgrid[0:size, 0:size].astype(np.float64)
        pts = np.stack([xs.ravel(), ys.ravel(), np.ones(size * size)], 1) @ H.T
        und = pts[:, :2] / pts[:, 2:3]
        dist = transform._distort(und)
        mapx = dist[:, 0].reshape(size, size).astype(np.float32)
        mapy = dist[:, 1].reshape(size, size).astype(np.float32)
        patch = cv2.remap(grey, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    else:
        patch = cv2.warpPerspective(grey, H, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REPLICATE)
    return patch.astype(np.float32), patch_to_mm


def _vote_centre(gx: np.ndarray, gy: np.ndarray, mag: np.ndarray, r_px: float, seed_px: np.ndarray,
                 search_px: float) -> np.ndarray | None:
    """Circle Hough with known radius: each strong edge votes at ±r along its gradient."""
    thresh = np.percentile(mag, 80)
    ys, xs = np.nonzero(mag > max(thresh, 1e-6))
    if len(xs) < 8:
        return None
    w = mag[ys, xs]
    ux, uy = gx[ys, xs] / w, gy[ys, xs] / w
    h, wd = mag.shape
    acc = np.zeros((h, wd), np.float64)
    for sign in (1.0, -1.0):
        cx = xs + sign * r_px * ux
        cy = ys + sign * r_px * uy
        ix, iy = np.round(cx).astype(int), np.round(cy).astype(int)
        ok = (ix >= 0) & (ix < wd) & (iy >= 0) & (iy < h)
        np.add.at(acc, (iy[ok], ix[ok]), w[ok])
    import cv2

    acc = cv2.GaussianBlur(acc, (0, 0), 1.2)
    yy, xx = np.mgrid[0:h, 0:wd]
    acc[(xx - seed_px[0]) ** 2 + (yy - seed_px[1]) ** 2 > search_px ** 2] = 0
    iy, ix = np.unravel_index(int(np.argmax(acc)), acc.shape)
    if acc[iy, ix] <= 0:
        return None
    # parabolic sub-pixel peak
    def sub(a, b, c):
        den = a - 2 * b + c
        return 0.0 if den == 0 else 0.5 * (a - c) / den
    dx = sub(acc[iy, ix - 1], acc[iy, ix], acc[iy, ix + 1]) if 0 < ix < wd - 1 else 0.0
    dy = sub(acc[iy - 1, ix], acc[iy, ix], acc[iy + 1, ix]) if 0 < iy < h - 1 else 0.0
    return np.array([ix + dx, iy + dy])


def _radial_edges(patch: np.ndarray, centre: np.ndarray, r_px: float, band_px: float, n_rays: int = 180):
    """Sub-pixel edge radius along ``n_rays`` rays from ``centre``: the gradient-magnitude peak within
    ``r ± band``. Returns (angles, radii, strengths) of the rays with an edge."""
    import cv2

    angles = np.linspace(0, 2 * np.pi, n_rays, endpoint=False)
    steps = np.linspace(r_px - band_px, r_px + band_px, int(max(9, 4 * band_px)))
    xs = centre[0] + np.cos(angles)[:, None] * steps[None, :]
    ys = centre[1] + np.sin(angles)[:, None] * steps[None, :]
    prof = cv2.remap(patch, xs.astype(np.float32), ys.astype(np.float32), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)
    d = np.abs(np.diff(prof, axis=1))  # (rays, steps-1) derivative along the ray
    k = np.argmax(d, axis=1)
    strength = d[np.arange(n_rays), k]
    # parabolic refinement of the derivative peak
    left = d[np.arange(n_rays), np.clip(k - 1, 0, d.shape[1] - 1)]
    right = d[np.arange(n_rays), np.clip(k + 1, 0, d.shape[1] - 1)]
    den = left - 2 * strength + right
    off = np.where(np.abs(den) > 1e-9, 0.5 * (left - right) / np.where(den == 0, 1, den), 0.0)
    off = np.clip(off, -0.5, 0.5)
    step = steps[1] - steps[0]
    radii = steps[0] + (k + 0.5 + off) * step
    return angles, radii, strength


def _fit_circle(angles, radii, centre, weights):
    """Least-squares circle (Kåsa) through edge points given in polar form around ``centre``."""
    x = centre[0] + radii * np.cos(angles)
    y = centre[1] + radii * np.sin(angles)
    A = np.column_stack([x, y, np.ones_like(x)])
    b = x * x + y * y
    W = np.sqrt(weights)
    sol, *_ = np.linalg.lstsq(A * W[:, None], b * W, rcond=None)
    cx, cy = sol[0] / 2, sol[1] / 2
    r = np.sqrt(max(sol[2] + cx * cx + cy * cy, 0.0))
    resid = np.hypot(x - cx, y - cy) - r
    return np.array([cx, cy]), r, resid


def refine_discs(image: np.ndarray, transform: MatTransform, rough_mm, radius_mm, height_mm,
                 config: RefineConfig | None = None) -> Refined:
    """Refine n discs. ``rough_mm`` (n, 2) approximate base centres in mat mm; ``radius_mm`` and
    ``height_mm`` (n,) or scalars: the top face's radius and height above the mat."""
    cfg = config or RefineConfig()
    rough = np.asarray(rough_mm, dtype=np.float64).reshape(-1, 2)
    n = len(rough)
    radius = np.broadcast_to(np.asarray(radius_mm, dtype=np.float64), (n,)).copy()
    height = np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (n,)).copy()
    out = Refined(rough.copy(), np.full(n, np.inf), radius.copy(), np.zeros(n), np.zeros(n, bool))
    if n == 0:
        return out
    import cv2

    s = cfg.px_per_mm
    for i in range(n):
        half = radius[i] + cfg.margin_mm
        patch, to_mm = rectify_patch(image, transform, rough[i], half, height[i], s)
        patch = cv2.GaussianBlur(patch, (0, 0), 0.8)
        gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
        mag = np.hypot(gx, gy)
        r_px = radius[i] * s
        seed = np.array([half * s, half * s])
        c = _vote_centre(gx, gy, mag, r_px, seed, cfg.search_mm * s)
        if c is None:
            continue
        band = cfg.band_mm * s
        for _ in range(3):
            ang, rad, strength = _radial_edges(patch, c, r_px, band)
            good = strength > 0.25 * np.median(strength[strength > 0]) if np.any(strength > 0) else strength > 0
            if good.sum() < 12:
                break
            c_new, r_fit, resid = _fit_circle(ang[good], rad[good], c, strength[good])
            # robust: drop the worst edge points (side band, shadows) and refit once
            keep = np.abs(resid) < max(2.5 * np.median(np.abs(resid)) + 0.3, 0.6)
            if keep.sum() >= 12:
                sel = np.flatnonzero(good)[keep]
                c_new, r_fit, resid = _fit_circle(ang[sel], rad[sel], c, strength[sel])
                good_n = len(sel)
            else:
                good_n = int(good.sum())
            moved = np.linalg.norm(c_new - c)
            c = c_new
            if moved < 0.02:
                break
        else:
            good_n = int(good.sum()) if "good" in dir() else 0
        if not np.isfinite(c).all():
            continue
        xy = (to_mm @ np.array([c[0], c[1], 1.0]))[:2]
        rms = float(np.sqrt(np.mean(resid ** 2))) if len(resid) else np.inf
        quality = good_n / 180.0
        sigma_fit = rms / s / np.sqrt(max(good_n / 2.0, 1.0))
        reg = float(transform.sigma_mm(xy.reshape(1, 2))[0])
        out.xy[i] = xy
        out.radius[i] = r_fit / s
        out.quality[i] = quality
        out.sigma[i] = float(np.hypot(sigma_fit, reg))
        out.ok[i] = quality >= cfg.min_edge_fraction and abs(r_fit / s - radius[i]) < 0.25 * radius[i]
    return out
