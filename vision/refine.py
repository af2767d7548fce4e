"""Refinement: from a rough position to a round piece's base centre in **mat mm** with σ.

A disc is an upright cylinder: a top circle of known radius at a known height, straight above the
base circle. What the camera sees of it is the hull of the two circles (the side band shows on the
camera's side) with the top face inside. Both fits below model exactly that outline through the
registration (``MatTransform.project_3d``, lens included), so the parallax of the top (several mm
in an oblique view) is part of the model, not an error.

- **With the empty mat** (:func:`refine_model`, what the detector uses): every pixel of a band
  around the outline is modelled as ``a_top·p_top + a_side·p_side + (1 − a_top − a_side)·s·m``:
  ``a_*`` the blurred exact coverages of the top face and of the side band, ``m`` the empty mat,
  ``s`` its per-pixel brightness (a shadow only darkens), ``p_*`` the piece's two colours solved
  linearly (variable projection). Gauss-Newton on the centre (and a small outward growth of the
  outline) with Huber weights, coarse-to-fine in blur. σ from the covariance (the worst direction:
  a rim hidden on one side leaves the centre loose across it), scaled, with a floor in image px
  for what the model leaves out, and the registration's σ.
- **Without it** (edge fit): on a patch rectified at the top's height, the outermost colour edges
  along rays against the same outline; σ from the Gauss-Newton covariance.

Everything is batch-first: ``refine_discs`` takes (n, 2) rough mat positions and returns (n, 2)
refined ones with (n,) σ, radius, quality, ok and residual; empty in, empty out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from calibration.transform import MatTransform


@dataclass(frozen=True)
class RefineConfig:
    """``px_per_mm`` of the rectified patch; ``margin_mm`` around the disc; ``search_mm`` how far the
    rough position may be off; ``band_mm`` the half-width of the edge band used by the fit."""

    px_per_mm: float = 4.0
    image_px_per_patch_px: float = 0.5
    min_px_per_mm: float = 1.5
    margin_mm: float = 14.0
    search_mm: float = 10.0
    band_mm: float = 1.6
    min_edge_fraction: float = 0.35
    sigma_floor_px: float = 0.4
    fg_level: float = 30.0
    thin_band_px: float = 2.5
    iterations: int = 8
    blur_schedule_px: tuple = (2.0, 1.2)
    blur_choices_px: tuple = (0.6, 1.1, 1.8)
    max_blur_px: float = 2.5
    sigma_scale: float = 2.0
    min_contrast: float = 20.0
    max_rms_fraction: float = 0.6
    growth_prior: float = 1.0
    max_growth_px: float = 2.0
    growth_ok_px: float = 1.5
    outline_band_only: bool = True
    huber_k: float = 3.0
    inner_art_px: float = 0.0
    shadow_min: float = 0.45
    shadow_out: float = 0.3
    converged_px: float = 0.1
    threads: int = 1
    passes: int = 2
    choice_blur_px: tuple = (1.1,)
    choice_rescore_blur_px: tuple = (1.1,)
    choice_clip: float = 40.0
    choice_ambiguity: float = 1.2
    neighbour_gap: float = 0.8
    shadow_fill_px: float = 1.0
    frame_blur_below_px: float = 6.0
    frame_blur_pieces: int = 6
    choice_rescore_px: float = 1.0
    choice_shrink_px: float = 0.5
    weak_ambiguity: float = 1.5
    shadow_smooth: float = 0.0
    shadow_prior: float = 0.0
    shadow_prior_min_px: float = 0.0
    pick_shade_read_below_mm: float = 0.0


@dataclass
class Refined:
    """Results for n pieces: ``xy`` (n, 2) base centres in mat mm; ``sigma`` (n,) mm;
    ``radius`` (n,) fitted radius mm; ``quality`` (n,) fraction of the circle with edge support
    (0..1); ``ok`` (n,) bool; ``residual`` (n,) the fit's rms residual (grey levels; inf if none);
    ``choice`` (n,) the index of the radius picked among a piece's ``radius_choices`` (0 without)."""

    xy: np.ndarray
    sigma: np.ndarray
    radius: np.ndarray
    quality: np.ndarray
    ok: np.ndarray
    residual: np.ndarray | None = None
    choice: np.ndarray | None = None

    def __post_init__(self):
        if self.residual is None:
            self.residual = np.full(len(self.xy), np.inf)
        if self.choice is None:
            self.choice = np.zeros(len(self.xy), dtype=np.int64)


def rectify_patch(image: np.ndarray, transform: MatTransform, centre_mm, half_mm: float, height_mm: float,
                  px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """A square patch of the plane at ``height_mm`` around ``centre_mm``, at ``px_per_mm``.

    Returns the patch (float32, the image's channels kept: colour edges between a red disc and a
    green mat can vanish in grey) and the 3x3 map from patch px to mat mm on that plane."""
    import cv2

    size = int(np.ceil(2 * half_mm * px_per_mm)) + 1
    x0, y0 = centre_mm[0] - half_mm, centre_mm[1] - half_mm
    patch_to_mm = np.array([[1 / px_per_mm, 0, x0], [0, 1 / px_per_mm, y0], [0, 0, 1.0]])
    H = transform.homography(height_mm) @ patch_to_mm  # patch px -> undistorted image px
    grey = image
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


def _colour_gradient(patch: np.ndarray):
    """Per pixel, the gradient of the channel where it is strongest (as colour Canny does)."""
    import cv2

    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    if patch.ndim == 2:
        return gx, gy, np.hypot(gx, gy)
    mag2 = gx * gx + gy * gy
    k = np.argmax(mag2, axis=2)[..., None]
    gx = np.take_along_axis(gx, k, 2)[..., 0]
    gy = np.take_along_axis(gy, k, 2)[..., 0]
    return gx, gy, np.hypot(gx, gy)


N_RAYS = 120


def foreground_distance(image: np.ndarray, background: np.ndarray) -> np.ndarray:
    """(H, W) float32: how unlike the empty mat each pixel is, shadows discounted.

    The background is scaled per pixel by the brightness ratio that best explains the frame
    (clipped to 0.35..1.15): a shadow only darkens the mat, so it nearly vanishes, while a piece
    changes the colour. Both images BGR, same size (image px)."""
    f = image.astype(np.float32)
    b = background.astype(np.float32) + 1.0
    k = np.clip((f * b).sum(axis=2) / (b * b).sum(axis=2), 0.35, 1.15)[..., None]
    d = f - k * b
    return np.sqrt((d * d).sum(axis=2))


def _crossings(prof: np.ndarray, rr: np.ndarray, level: float) -> np.ndarray:
    """Per ray, the outermost radius where ``prof`` falls from above ``level`` to below it
    (linear interpolation); NaN where it never does."""
    level = np.broadcast_to(np.asarray(level, dtype=np.float64).reshape(-1), (len(prof),))
    above = prof >= level[:, None]
    fall = above[:, :-1] & ~above[:, 1:]
    k = prof.shape[1] - 2 - np.argmax(fall[:, ::-1], axis=1)
    has = fall.any(axis=1)
    rows = np.arange(len(prof))
    p0, p1 = prof[rows, k], prof[rows, k + 1]
    t = np.clip((p0 - level) / np.maximum(p0 - p1, 1e-6), 0.0, 1.0)
    r = rr[rows, k] + t * (rr[rows, k + 1] - rr[rows, k])
    return np.where(has, r, np.nan)


def _silhouette(c_mm: np.ndarray, r: float, h: float, transform: MatTransform, mm_to_patch: np.ndarray,
                n: int = 72) -> np.ndarray:
    """(m, 2) convex outline, in patch px of the plane at height ``h``, of an upright cylinder of
    radius ``r`` standing at ``c_mm``: the hull of its top circle and of its base circle seen
    through the camera and carried onto that plane (the side band shows on the camera's side)."""
    import cv2

    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = c_mm + r * np.column_stack([np.cos(a), np.sin(a)])
    base_on_plane = transform.image_to_mat(transform.mat_to_image(ring, 0.0), h) if h else ring
    pts = np.vstack([ring, base_on_plane])
    px = pts @ mm_to_patch[:2, :2].T + mm_to_patch[:2, 2]
    return cv2.convexHull(px.astype(np.float32)).reshape(-1, 2).astype(np.float64)


def _ray_hull(origin: np.ndarray, angles: np.ndarray, hull: np.ndarray) -> np.ndarray:
    """(k,) distance from ``origin`` along each ray to the convex polygon ``hull`` (origin inside)."""
    a, b = hull, np.roll(hull, -1, axis=0)
    e = b - a  # (m, 2)
    u = np.column_stack([np.cos(angles), np.sin(angles)])  # (k, 2)
    w = a - origin  # (m, 2)
    # origin + t u = a + s e  ->  t = cross(w, e) / cross(u, e),  s = cross(w, u) / cross(u, e)
    den = u[:, None, 0] * e[None, :, 1] - u[:, None, 1] * e[None, :, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (w[None, :, 0] * e[None, :, 1] - w[None, :, 1] * e[None, :, 0]) / den
        sp = (w[None, :, 0] * u[:, None, 1] - w[None, :, 1] * u[:, None, 0]) / den
    ok = (np.abs(den) > 1e-12) & (sp >= -1e-9) & (sp <= 1 + 1e-9) & (t > 0)
    t = np.where(ok, t, np.inf)
    return t.min(axis=1)


def _ray_maxima(patch: np.ndarray, origin: np.ndarray, angles: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                step: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """Edges along rays: sub-pixel local maxima of the colour derivative between radii ``lo`` and
    ``hi`` (patch px) of each ray. Returns (k, m) arrays of radii and strengths, NaN / 0 where a
    sample is not a maximum."""
    import cv2

    n_steps = int(np.ceil(float(np.max(hi - lo)) / step)) + 3
    rr = lo[:, None] + step * (np.arange(n_steps)[None, :] - 1)
    rr = np.maximum(rr, 0.5)
    xs = origin[0] + np.cos(angles)[:, None] * rr
    ys = origin[1] + np.sin(angles)[:, None] * rr
    prof = cv2.remap(patch, xs.astype(np.float32), ys.astype(np.float32), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    d = np.diff(prof, axis=1)
    d = np.sqrt((d * d).sum(axis=2)) if d.ndim == 3 else np.abs(d)
    left, mid, right = d[:, :-2], d[:, 1:-1], d[:, 2:]
    is_max = (mid > left) & (mid >= right)
    den = left - 2 * mid + right
    off = np.where(np.abs(den) > 1e-9, 0.5 * (left - right) / np.where(den == 0, 1, den), 0.0)
    radius = rr[:, 1:d.shape[1] - 1] + (0.5 + np.clip(off, -0.5, 0.5)) * step
    within = (radius >= lo[:, None]) & (radius <= hi[:, None])
    inside = (xs.min(axis=1) >= 0) & (ys.min(axis=1) >= 0) & (xs.max(axis=1) <= patch.shape[1] - 1) & \
        (ys.max(axis=1) <= patch.shape[0] - 1)
    keep = is_max & within & inside[:, None]
    return np.where(keep, radius, np.nan), np.where(keep, mid, 0.0)


def _nearest_edge(radii: np.ndarray, strength: np.ndarray, expected: np.ndarray, band: float,
                  floor: float) -> np.ndarray:
    """(k,) the edge (a local maximum above ``floor``) nearest to ``expected`` on each ray within
    ``band``; NaN where there is none."""
    dist = np.abs(radii - expected[:, None])
    dist = np.where((strength >= floor) & (dist <= band), dist, np.inf)
    j = np.argmin(dist, axis=1)
    got = radii[np.arange(len(radii)), j]
    return np.where(np.isfinite(dist[np.arange(len(radii)), j]), got, np.nan)


def _start(rough_mm, radius_mm, height_mm):
    """(rough (n, 2), radius (n,), height (n,) mm, the unrefined :class:`Refined`) of a fit's inputs
    (radius and height may be one value for all)."""
    rough = np.asarray(rough_mm, dtype=np.float64).reshape(-1, 2)
    n = len(rough)
    radius = np.broadcast_to(np.asarray(radius_mm, dtype=np.float64), (n,)).copy()
    height = np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (n,)).copy()
    return rough, radius, height, Refined(rough.copy(), np.full(n, np.inf), radius.copy(), np.zeros(n), np.zeros(n, bool))


def refine_discs(image: np.ndarray, transform: MatTransform, rough_mm, radius_mm, height_mm,
                 config: RefineConfig | None = None, background: np.ndarray | None = None,
                 radius_choices=None, exclude=(), weak=None, shade=None) -> Refined:
    """Refine n discs. ``rough_mm`` (n, 2) approximate base centres in mat mm; ``radius_mm`` and
    ``height_mm`` (n,) or scalars: the radius and the height of the top face above the mat.

    Gauss-Newton on the base centre: along rays from the current top-face centre, the outermost
    strong edge is compared with the outline the camera would see of the cylinder standing there
    (:func:`_silhouette`); outliers (a touching neighbour, a shadow) are dropped robustly.

    With ``background`` (the empty mat, BGR, same size) the silhouette is read from the difference
    against it (:func:`foreground_distance`), which ignores the art printed on the pieces; without
    it, from colour edges (the top rim and the silhouette both). ``radius_choices`` (with the empty
    mat only): per piece, the radii it may have (same height; see :func:`refine_model`); ``exclude``
    (with the empty mat only): image px outlines of fixed things that are not the mat (the board's
    blocks), or bool masks of the frame (hands), left out of every fit; ``weak`` (with the empty mat only): see :func:`refine_model`."""
    cfg = config or RefineConfig()
    rough, radius, height, out = _start(rough_mm, radius_mm, height_mm)
    n = len(rough)
    if n == 0:
        return out
    import cv2

    angles = np.linspace(0, 2 * np.pi, N_RAYS, endpoint=False)
    scale = transform.mm_per_px(rough)  # mm per image px at each piece
    if background is not None:
        return refine_model(image, background, transform, rough, radius, height, cfg, radius_choices, exclude, weak,
                            shade=shade)
    fg = None
    for i in range(n):
        s = float(np.clip(1.0 / (scale[i] * cfg.image_px_per_patch_px), cfg.min_px_per_mm, cfg.px_per_mm))
        half = radius[i] + cfg.margin_mm + cfg.search_mm
        patch, to_mm = rectify_patch(image if fg is None else fg, transform, rough[i], half, height[i], s)
        patch = cv2.GaussianBlur(patch, (0, 0), 0.7)
        mm_to_patch = np.linalg.inv(to_mm)
        if fg is not None:
            fit = _fit_silhouette(patch, rough[i], radius[i], height[i], transform, mm_to_patch, s, angles, cfg, scale[i])
            if fit is not None:
                c, resid, used, J = fit
                _finish(out, i, c, resid, used, J, s, scale[i], rough[i], radius[i], transform, cfg)
            continue
        c = rough[i].copy()
        r_px = radius[i] * s
        band = cfg.search_mm * s
        used = np.zeros(0, bool)
        resid = np.zeros(0)
        J = np.zeros((0, 2))
        for it in range(8):
            origin = (mm_to_patch @ np.array([c[0], c[1], 1.0]))[:2]
            hull = _ray_hull(origin, angles, _silhouette(c, radius[i], height[i], transform, mm_to_patch))
            top = np.full(N_RAYS, r_px)
            radii, strength = _ray_maxima(patch, origin, angles, top - band, hull + band)
            positive = strength[strength > 0]
            if positive.size < 12:
                break
            floor = 0.15 * float(np.percentile(positive, 90))
            # two edges on a ray where the side band shows: the top rim (top against side) and the
            # silhouette (side against mat); one where it does not
            two = hull - top > 1.0
            e_top = _nearest_edge(radii, strength, top, band, floor)
            e_hull = _nearest_edge(radii, strength, hull, band, floor)
            # where the side band does not show, the rim is the silhouette: count that edge once;
            # far from the answer (first pass) trust the silhouette alone
            e_top = np.where(two & (it > 0), e_top, np.nan)
            px = s * scale[i]
            thin = (hull - top > 0.15 * px) & (hull - top < cfg.thin_band_px * px)
            e_hull = np.where(thin, np.nan, e_hull)
            resid = np.concatenate([e_top - top, e_hull - hull])
            valid = np.isfinite(resid)
            if valid.sum() < 12:
                break
            med = np.median(resid[valid])
            mad = np.median(np.abs(resid[valid] - med)) + 0.15
            used = valid & (np.abs(resid - med) < 3.0 * mad + 0.5)
            if used.sum() < 12:
                break
            u = np.column_stack([np.cos(angles), np.sin(angles)]) * s  # d(top rim radius)/d(centre) = u
            J_hull = np.empty((N_RAYS, 2))
            step = 0.2
            for k in range(2):
                dc = np.zeros(2)
                dc[k] = step
                mk = _ray_hull(origin, angles, _silhouette(c + dc, radius[i], height[i], transform, mm_to_patch))
                J_hull[:, k] = (mk - hull) / step
            J = np.vstack([u, J_hull])
            delta, *_ = np.linalg.lstsq(J[used], resid[used], rcond=None)
            c = c + delta
            band = max(cfg.band_mm * s, min(band * 0.6, 3.0 * float(np.linalg.norm(delta)) * s + cfg.band_mm * s))
            if np.linalg.norm(delta) < 0.01 and it >= 2:
                break
        if used.sum() < 12 or not np.isfinite(c).all():
            continue
        _finish(out, i, c, resid, used, J, s, scale[i], rough[i], radius[i], transform, cfg)
    return out


def _finish(out: Refined, i: int, c, resid, used, J, s: float, mm_per_px: float, rough, radius: float,
            transform: MatTransform, cfg: RefineConfig) -> None:
    """Store a fit. σ comes from the Gauss-Newton covariance rms² (JᵀJ)⁻¹, so a rim seen on one
    side only (a white disc on a white line, a neighbour against it) is honestly less sure."""
    rms_px = float(np.sqrt(np.mean(resid[used] ** 2)))
    rms = rms_px / s  # mm
    n_used = int(used.sum())
    Ju = J[used]
    cov = (max(rms_px, cfg.sigma_floor_px * s * mm_per_px) ** 2) * np.linalg.pinv(Ju.T @ Ju)  # mm²
    # the statistical error of the fit, floored at a tenth of an image pixel: below that,
    # aliasing and blur of the real image dominate and the residuals no longer show it
    sigma_fit = max(float(np.sqrt(max(np.trace(cov), 0.0) / 2.0)), cfg.sigma_floor_px * mm_per_px)
    reg = float(transform.sigma_mm(np.asarray(c).reshape(1, 2))[0])
    out.xy[i] = c
    out.quality[i] = min(1.0, n_used / N_RAYS)
    out.sigma[i] = float(np.hypot(sigma_fit, reg))
    out.ok[i] = out.quality[i] >= cfg.min_edge_fraction and rms < 0.25 * radius and \
        np.linalg.norm(np.asarray(c) - rough) <= cfg.search_mm * 1.5


def _fit_silhouette(fg_patch: np.ndarray, rough, r: float, h: float, transform: MatTransform,
                    mm_to_patch: np.ndarray, s: float, angles: np.ndarray, cfg: RefineConfig, mm_per_px: float):
    """Gauss-Newton of the cylinder's outline against the outermost fall of the foreground map."""
    import cv2

    c = np.asarray(rough, dtype=np.float64).copy()
    band = cfg.search_mm * s
    used = np.zeros(0, bool)
    resid = np.zeros(0)
    u = np.column_stack([np.cos(angles), np.sin(angles)])
    for it in range(8):
        origin = (mm_to_patch @ np.array([c[0], c[1], 1.0]))[:2]
        hull = _ray_hull(origin, angles, _silhouette(c, r, h, transform, mm_to_patch))
        steps = np.arange(-band, band + 1e-9, 0.25)
        rr = np.maximum(hull[:, None] + steps[None, :], 0.5)
        xs = (origin[0] + u[:, :1] * rr).astype(np.float32)
        ys = (origin[1] + u[:, 1:] * rr).astype(np.float32)
        prof = cv2.remap(fg_patch, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        # the edge is where the map is halfway between the piece inside and the mat outside (a
        # fixed low level would sit outside the edge by a fraction of the blur)
        inner = np.where(rr < hull[:, None] - 0.5 * s, prof, np.nan)
        outer = np.where(rr > hull[:, None] + 0.5 * s, prof, np.nan)
        with np.errstate(all="ignore"):
            lo_in = np.nanpercentile(inner, 75, axis=1)
            lo_out = np.nanpercentile(outer, 25, axis=1)
        level = np.where(np.isfinite(lo_in) & np.isfinite(lo_out), 0.5 * (lo_in + lo_out), cfg.fg_level)
        level = np.maximum(level, cfg.fg_level)
        meas = _crossings(prof, rr, level)
        resid = meas - hull
        # where the side band shows but is narrower than a few image px, blur mixes it with the
        # top and the edge lands between the two: leave those rays out
        px = s * mm_per_px
        side = hull - r * s
        valid = np.isfinite(resid) & ~((side > 0.15 * px) & (side < cfg.thin_band_px * px))
        if valid.sum() < 12:
            return None
        med = np.median(resid[valid])
        mad = np.median(np.abs(resid[valid] - med)) + 0.15
        used = valid & (np.abs(resid - med) < 3.0 * mad + 0.5)
        if used.sum() < 12:
            return None
        J = np.empty((len(angles), 2))
        for k in range(2):
            dc = np.zeros(2)
            dc[k] = 0.2
            J[:, k] = (_ray_hull(origin, angles, _silhouette(c + dc, r, h, transform, mm_to_patch)) - hull) / 0.2
        delta, *_ = np.linalg.lstsq(J[used], resid[used], rcond=None)
        c = c + delta
        band = max(cfg.band_mm * s, min(band * 0.6, 3.0 * float(np.linalg.norm(delta)) * s + cfg.band_mm * s))
        if np.linalg.norm(delta) < 0.01 and it >= 1:
            break
    return c, resid, used, J


# --------------------------------------------------------------------------------------------
# the coverage-model fit (with the empty mat): image px, variable projection, robust weights


def _coverage_roi(poly_px: np.ndarray, x0: int, y0: int, w: int, h: int, ss: int = 4) -> np.ndarray:
    """(h, w) float32 fraction of each pixel of the ROI at (x0, y0) covered by the convex polygon
    ``poly_px`` (image px), exact to ~0.02 px (as ``sim.raster.coverage``: supersampled fill,
    shrunk by fillPoly's growth, averaged down)."""
    return _coverages_roi([poly_px], x0, y0, w, h, ss)[0]


def _coverages_roi(polys, x0: int, y0: int, w: int, h: int, ss: int = 4) -> list:
    """:func:`_coverage_roi` of each of ``polys`` (image px), all filled in one supersampled image
    (one ROI below the other) and averaged down in one call."""
    import cv2

    from sim.raster import BIAS_PX, SHIFT

    hs = h * ss
    mask = np.zeros((len(polys) * hs, w * ss), np.uint8)
    for k, poly in enumerate(polys):
        big = (np.asarray(poly, dtype=np.float64) - [x0, y0] + 0.5) * ss - 0.5
        centre = big.mean(axis=0)
        d = big - centre
        norm = np.maximum(np.sqrt(_row_sq(d)), 1e-9)
        big = centre + d * np.maximum(1.0 - BIAS_PX / norm, 0.0)[:, None]
        cv2.fillPoly(mask[k * hs:(k + 1) * hs], [np.round(big * (1 << SHIFT)).astype(np.int32)], 255, cv2.LINE_8, SHIFT)
    out = cv2.resize(mask, (w, len(polys) * h), interpolation=cv2.INTER_AREA).astype(np.float32) * (1.0 / 255.0)
    return [out[k * h:(k + 1) * h] for k in range(len(polys))]


@dataclass
class _Fit:
    c: np.ndarray
    cov_unit: np.ndarray  # 2x2 covariance of the centre in mm² per unit residual variance (grey levels²)
    rms: float
    contrast: float
    support: float
    blur: float
    growth_px: float = 0.0
    mm_per_px: float = 1.0
    side_contrast: float = 0.0  # the side band's colour against the mat


_DEBUG: list = []


def _outline_px(transform: MatTransform, c, r: float, h: float, k: int = 36) -> tuple[np.ndarray, np.ndarray]:
    """The top face (k, 2) and the whole outline (convex hull of the top and base circles) of an
    upright cylinder of radius ``r`` and height ``h`` standing at mat mm ``c``, in image px."""
    return _outlines_px(transform, np.reshape(c, (1, 2)), [r], h, k)[0]


def _outlines_px(transform: MatTransform, centres, radii, h: float, k: int = 36) -> list:
    """:func:`_outline_px` of several cylinders of one height (centres (n, 2) mat mm, radii (n,)):
    a list of (top, hull), projected in one call."""
    import cv2

    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    n = len(radii)
    a = np.linspace(0, 2 * np.pi, k, endpoint=False)
    rings = centres[:, None, :] + radii[:, None, None] * np.column_stack([np.cos(a), np.sin(a)])[None]  # (n, k, 2)
    pts = np.empty((n, 2, k, 3))
    pts[:, :, :, :2] = rings[:, None]
    pts[:, 0, :, 2] = -h
    pts[:, 1, :, 2] = 0.0
    px = transform.project_3d(pts.reshape(-1, 3)).reshape(n, 2 * k, 2)
    return [(p[:k], cv2.convexHull(p.astype(np.float32)).reshape(-1, 2).astype(np.float64)) for p in px]


def _exclusion(polys, x0: int, y0: int, w: int, h: int) -> np.ndarray | None:
    """(h, w) bool of the ROI at (x0, y0): the pixels of other pieces (``polys``, image px outlines)
    and the pixel around them; None when none of them reaches the ROI. An entry of ``polys`` may
    also be a bool mask of the whole frame (its true pixels left out: a hand)."""
    import cv2

    out = None
    for poly in polys or ():
        if poly.dtype == bool:
            cov = poly[max(y0, 0):y0 + h, max(x0, 0):x0 + w]
            if not cov.any():
                continue
            full = np.zeros((h, w), bool)
            full[max(y0, 0) - y0:max(y0, 0) - y0 + cov.shape[0], max(x0, 0) - x0:max(x0, 0) - x0 + cov.shape[1]] = cov
            out = full if out is None else (out | full)
            continue
        if poly[:, 0].max() < x0 - 1 or poly[:, 1].max() < y0 - 1 or poly[:, 0].min() > x0 + w or poly[:, 1].min() > y0 + h:
            continue
        cov = _coverage_roi(poly, x0, y0, w, h) > 0.02
        out = cov if out is None else (out | cov)
    if out is None:
        return None
    return cv2.dilate(out.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0


def radius_choice(image: np.ndarray, background: np.ndarray, transform: MatTransform, c, radii, h: float,
                  cfg: "RefineConfig", exclude=(), blurs: tuple | None = None) -> tuple[int, np.ndarray]:
    """Which of ``radii`` (mm, one height ``h``) the piece standing at mat mm ``c`` has: the cylinder
    whose outline explains the frame best on the same pixels for every choice (a window 2 px around
    the largest outline, less the inside of the smallest top face, whose print says nothing about
    the size, and less other pieces' pixels ``exclude``). Each choice's top and side colours and the
    mat's brightness are solved linearly, at each blur of ``choice_blur_px`` (the best counts); the
    score is the mean truncated squared residual (grey levels, truncated at ``choice_clip``).
    ``c`` is one centre (2,) or one per choice (k, 2). ``blurs`` (image px): tried instead of
    ``choice_blur_px``. Returns the index of the best and the (k,) scores."""
    import cv2

    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    if len(radii) < 2:
        return 0, np.zeros(len(radii))
    centres = np.broadcast_to(np.asarray(c, dtype=np.float64).reshape(-1, 2), (len(radii), 2))
    outlines = _outlines_px(transform, centres, radii, h)
    allpts = np.vstack([hull for _, hull in outlines])
    blurs = tuple(cfg.choice_blur_px if blurs is None else blurs)
    pad = int(np.ceil(3 + 2 * max(blurs)))
    H, W = image.shape[:2]
    X0, Y0 = max(int(np.floor(allpts[:, 0].min())) - pad, 0), max(int(np.floor(allpts[:, 1].min())) - pad, 0)
    X1, Y1 = min(int(np.ceil(allpts[:, 0].max())) + pad + 1, W), min(int(np.ceil(allpts[:, 1].max())) + pad + 1, H)
    w, hgt = X1 - X0, Y1 - Y0
    if w < 6 or hgt < 6:
        return 0, np.zeros(len(radii))
    k5 = np.ones((5, 5), np.uint8)
    cov = _coverages_roi([p for outline in outlines for p in outline], X0, Y0, w, hgt, ss=2)
    covs = list(zip(cov[0::2], cov[1::2]))  # (top, hull) of each choice
    win = np.zeros((hgt, w), bool)
    inner = np.ones((hgt, w), bool)
    for ct, ch in covs:
        win |= ch > 0
        inner &= ct > 0.99
    win = cv2.dilate(win.astype(np.uint8), k5) > 0
    inner = cv2.erode(inner.astype(np.uint8), k5) > 0
    sel = win & ~inner
    excl = _exclusion(exclude, X0, Y0, w, hgt)
    if excl is not None:
        sel &= ~excl
    if sel.sum() < 12:
        return 0, np.zeros(len(radii))
    f = image[Y0:Y1, X0:X1][sel].astype(np.float32)
    m = background[Y0:Y1, X0:X1][sel].astype(np.float32)
    if f.ndim == 1:
        f, m = f[:, None], m[:, None]
    scores = np.full(len(radii), np.inf)
    eps = 1e-6 * np.eye(2)
    clip2 = cfg.choice_clip ** 2
    for i, (ct, ch) in enumerate(covs):
        for blur in blurs:  # the image's blur is not known yet: each choice at its best
            at = cv2.GaussianBlur(ct, (0, 0), blur)
            ah = np.maximum(cv2.GaussianBlur(ch, (0, 0), blur), at)
            At, Ah = at[sel], ah[sel]
            A = np.column_stack([At, Ah - At])
            out = (1.0 - Ah)[:, None]
            om = out * m
            om2 = max(float((om * om).sum()), 1e-6)
            G = A.T @ A + eps
            gain = 1.0
            for _ in range(2):
                P = np.linalg.solve(G, A.T @ (f - out * gain * m))
                rest = f - A @ P
                gain = min(max(float((om * rest).sum() / om2), cfg.shadow_min), 1.1)
            R = rest - out * gain * m
            e2 = np.minimum(_row_sq(R), clip2)
            scores[i] = min(scores[i], float(e2.mean()))
    return int(np.argmin(scores)), scores


def _row_sq(a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """(n,) the dot product of each row of ``a`` (n, c) with itself (or with that of ``b``):
    ``(a * b).sum(axis=1)``, the same sums in the same order, without numpy's slow reduction over a
    short last axis."""
    b = a if b is None else b
    if a.shape[1] == 3:
        return a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1] + a[:, 2] * b[:, 2]
    if a.shape[1] == 2:
        return a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1]
    return (a * b).sum(axis=1)


def _central_differences(img: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The x and y central differences ``(f(+1) - f(-1)) / 2`` of the float32 image ``img`` at its
    flat indices ``idx``, as ``cv2.Sobel(img, CV_32F, dx, dy, ksize=1, scale=0.5)`` there (the same
    float32 arithmetic), computed at those pixels only; at the image's border (mirrored there)
    through Sobel itself."""
    import cv2

    h, w = img.shape
    flat = img.ravel()
    col = idx % w
    if idx.min() >= w and idx.max() < (h - 1) * w and col.min() > 0 and col.max() < w - 1:
        half = np.float32(0.5)
        return (flat[idx + 1] - flat[idx - 1]) * half, (flat[idx + w] - flat[idx - w]) * half
    return (cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=1, scale=0.5).ravel()[idx],
            cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=1, scale=0.5).ravel()[idx])


def _picks_in_read_shade(cfg: "RefineConfig", h: float, shade) -> bool:
    """Whether a piece ``h`` mm tall picks the image's blur with the mat's shade read from its own pixels:
    a thin piece (under ``pick_shade_read_below_mm``) where no light predicts the shade (``shade`` None)."""
    return shade is None and h < cfg.pick_shade_read_below_mm


def _model_fit(image: np.ndarray, background: np.ndarray, transform: MatTransform, c0, r: float, h: float,
               cfg: "RefineConfig", blur: float | None = None, exclude=(), blur_choices=None,
               shade=None) -> _Fit | None:
    """Fit one upright cylinder (radius ``r``, top at ``h`` mm) standing at mat mm ``c`` to the frame.

    Model of each pixel (image px): ``f = a_top·p_top + a_side·p_side + (1 - a_top - a_side)·m`` with
    ``a_top``, ``a_side`` the blurred exact coverages of the top face and of the rest of the outline
    (hull of top and base circles), ``m`` the empty mat there, ``p_top``/``p_side`` colours solved
    linearly (variable projection). Gauss-Newton on the centre and on ``g``, an outward growth of
    both outlines in image px (a radius a little off the spec, a renderer's or a lens's bias), with
    the analytic derivative of a translated / grown coverage; coarse-to-fine blur, Huber weights, on
    a band around the outline only. ``blur`` (image px) skips the search for the image's blur;
    ``blur_choices`` (image px) replaces ``cfg.blur_choices_px`` after the coarse steps.
    ``exclude``: image px outlines of other pieces nearby, whose pixels are left out (they are not
    the mat the model puts around this piece). ``shade``: the share of the light the mat keeps, as
    the frame's light predicts it (:class:`vision.shadows.ShadeModel`, this piece's own shadow drawn
    where the coarse steps put it): it counts as ``shadow_prior`` mat pixels' reading in the shade of
    every pixel (where the piece covers the mat, the prediction is all there is), for a piece of
    ``shadow_prior_min_px`` image px of radius or more; the image's blur is picked with the mat in
    that predicted shade alone. Where no light predicts it (``shade`` None), a piece under
    ``pick_shade_read_below_mm`` tall has its blur picked with the mat's shade read from its own
    pixels, as the later steps read it (a Morris egg, 3 mm up, casts no shadow a light can be read
    from, and its soft shadow beside the base read as a softer outline; a taller piece on a table
    without a light has no shadow to read, and the reading would take a soft outline's outer half
    for shade)."""
    import cv2

    K = 36
    a = np.linspace(0, 2 * np.pi, K, endpoint=False)
    ring = r * np.column_stack([np.cos(a), np.sin(a)])
    c = np.asarray(c0, dtype=np.float64).copy()
    H, W = image.shape[:2]
    # the top ring (z = -h), the base ring (z = 0), then the points of the two local Jacobians
    pts = np.empty((2 * K + 6, 3))
    pts[:K, 2], pts[K:2 * K, 2] = -h, 0.0
    ring2 = np.vstack([ring, ring])
    offs = np.array([[0, 0, -h], [1, 0, -h], [0, 1, -h], [0, 0, -h / 2], [1, 0, -h / 2], [0, 1, -h / 2]])

    def grow(poly, g):
        if g == 0.0:
            return poly
        ctr = poly.sum(axis=0) / len(poly)  # (the mean)
        d = poly - ctr
        return ctr + d * (1.0 + g / np.maximum(np.sqrt(_row_sq(d)), 1e-6))[:, None]

    def project(cc, g=0.0):
        pts[:2 * K, :2] = ring2 + cc
        pts[2 * K:] = offs + [cc[0], cc[1], 0.0]
        px = transform.project_3d(pts)
        J = px[2 * K + 1:] - px[[2 * K, 2 * K, 2 * K + 3, 2 * K + 3, 2 * K + 3]]  # (5, 2): rows 0, 1 top; 3, 4 mid
        hull = cv2.convexHull(px[:2 * K].astype(np.float32)).reshape(-1, 2).astype(np.float64)
        return grow(px[:K], g), grow(hull, g), J[:2].T, J[3:].T

    start = project(c)
    top, hull, J_top, _ = start
    mmpp = 1.0 / np.sqrt(abs(np.linalg.det(J_top)))
    pad = int(np.ceil(min(cfg.search_mm, 6.0) / mmpp + 2 + 2 * cfg.max_blur_px))
    X0 = max(int(np.floor(hull[:, 0].min())) - pad, 0)
    Y0 = max(int(np.floor(hull[:, 1].min())) - pad, 0)
    X1 = min(int(np.ceil(hull[:, 0].max())) + pad + 1, W)
    Y1 = min(int(np.ceil(hull[:, 1].max())) + pad + 1, H)
    if X1 - X0 < 6 or Y1 - Y0 < 6:
        return None
    w, hgt = X1 - X0, Y1 - Y0
    nch = image.shape[2] if image.ndim == 3 else 1
    f2 = image[Y0:Y1, X0:X1].reshape(-1, nch).astype(np.float32)
    m2 = background[Y0:Y1, X0:X1].reshape(-1, nch).astype(np.float32)
    mm2_all = _row_sq(m2) + 1e-3
    kernel = np.ones((3, 3), np.uint8)
    excl = _exclusion(exclude, X0, Y0, w, hgt)
    shade_model, shade_roi = shade, None  # (``shade`` names each step's shade below)
    g = 0.0  # outward growth of both outlines, image px
    coarse = cfg.blur_schedule_px
    for it in range(cfg.iterations):
        # after the coarse steps and the blur's pick, the mat's shade is modelled (before it, the shade
        # stays 1 and the weights start at 1: one pass, whose residuals give the weights, is all)
        fine = it > len(coarse)
        # the blur's pick of a thin piece where no light predicts the mat's shade: the shade read from the
        # mat's own pixels
        pick_read = it == len(coarse) and blur is None and _picks_in_read_shade(cfg, h, shade_model)
        shadows = (fine or pick_read) and cfg.shadow_min < 1.0
        if it >= len(coarse) and shade_roi is None and shade_model is not None and cfg.shadow_prior > 0 \
                and cfg.shadow_smooth > 0 and r >= cfg.shadow_prior_min_px * mmpp:
            shade_roi = shade_model.roi(X0, Y0, w, hgt, c, r, h)  # (its own shadow where the coarse steps put it)
        top, hull, J_top, J_mid = start if it == 0 else project(c, g)
        at_s, ah_s = _coverages_roi([top, hull], X0, Y0, w, hgt)
        if cfg.inner_art_px > 0:
            k_in = 2 * int(np.ceil(cfg.inner_art_px)) + 1
            inner = cv2.erode((at_s > 0.999).astype(np.uint8), np.ones((k_in, k_in), np.uint8))
        if blur is None and it < len(coarse):
            cands = (coarse[it],)
        elif blur is None:
            cands = cfg.blur_choices_px if blur_choices is None else tuple(blur_choices)
        else:
            cands = (blur,)
        best = None
        for b in cands:
            at = cv2.GaussianBlur(at_s, (0, 0), b)
            ah = np.maximum(cv2.GaussianBlur(ah_s, (0, 0), b), at)
            edge = ((ah > 0.01) & (ah < 0.99)).astype(np.uint8)
            band = cv2.dilate(edge, kernel)
            if excl is not None:
                band[excl] = 0
            if cfg.inner_art_px > 0:  # the print inside the top face is not the model's flat colour: leave it out
                band[inner > 0] = 0
            idx = np.flatnonzero(band)
            if len(idx) < 12:
                return None
            At = at.ravel()[idx]
            Ah = ah.ravel()[idx]
            As = Ah - At
            m0 = m2[idx]
            fb = f2[idx]
            out_w = 1.0 - Ah
            mb = m0  # the mat as the piece's surround shows it (a shadow darkens it)
            if not shadows and shade_roi is not None:
                # the blur's pick: the mat in the shade the light predicts (unmodelled, the soft shadow
                # beside the base reads as a softer outline; the shade read from the mat's own pixels
                # would read the outline's blur as shade)
                mb = m0 * shade_roi[idx][:, None]
            if shadows:
                mm2 = mm2_all[idx]
                prior = shade_roi[idx] if shade_roi is not None else None
                own = out_w > cfg.shadow_out
                own_idx = idx[own]
                partial = cfg.shadow_fill_px > 0 and len(own_idx) and len(own_idx) < len(idx)
                smooth = cfg.shadow_smooth > 0 and cfg.shadow_fill_px > 0 and len(own_idx)
                if smooth:
                    own_rel = out_w[own] ** cfg.shadow_smooth
                out_c = np.maximum(out_w, 0.05)
            wts = np.ones(len(idx), np.float32)
            for pas in range(cfg.passes if fine else 1):
                y = fb - out_w[:, None] * mb
                wt, ws = wts * At, wts * As
                s_tt, s_ts, s_ss = (wt * At).sum(), (wt * As).sum(), (ws * As).sum() + 1e-6
                det = s_tt * s_ss - s_ts * s_ts
                if det <= 1e-9:
                    return None
                bt, bs = wt @ y, ws @ y
                p_top = (s_ss * bt - s_ts * bs) / det
                p_side = (s_tt * bs - s_ts * bt) / det
                piece = At[:, None] * p_top, As[:, None] * p_side  # what the top and the side give
                if shadows:
                    # a shadow only darkens the mat: per pixel, the brightness that best explains what the
                    # piece does not cover (colour changes stay in the residual)
                    rest = fb - piece[0] - piece[1]
                    sh = (_row_sq(rest, m0) / (out_c * mm2)).astype(np.float32)
                    shade = np.where(own, np.clip(sh, cfg.shadow_min, 1.05), 1.0).astype(np.float32)
                    if smooth or partial:
                        # a shadow is smooth: a normalised blur of the mat pixels' readings fills the pixels
                        # the piece mostly covers, whose shade cannot be read; with shadow_smooth every
                        # pixel's shade is that blur, each reading weighted by the part of its pixel that
                        # is mat (a pixel the piece half covers cannot tell a darker mat from more piece)
                        num, den = shade[own] * wts[own], wts[own]
                        if smooth:
                            num, den = num * own_rel, den * own_rel
                        nd = np.zeros((hgt, w, 2), np.float32)
                        flat = nd.reshape(-1, 2)
                        flat[own_idx, 0] = num
                        flat[own_idx, 1] = den
                        nd = cv2.GaussianBlur(nd, (0, 0), cfg.shadow_fill_px).reshape(-1, 2)[idx]
                        if prior is not None:
                            nd[:, 0] += cfg.shadow_prior * prior
                            nd[:, 1] += cfg.shadow_prior
                        fill = np.clip(np.where(nd[:, 1] > 0.05, nd[:, 0] / np.maximum(nd[:, 1], 1e-6), 1.0),
                                       cfg.shadow_min, 1.05)
                        shade = (fill if smooth else np.where(own, shade, fill)).astype(np.float32)
                    mb = m0 * shade[:, None]
                R = (fb - out_w[:, None] * mb if shadows else y) - piece[0] - piece[1]
                e = np.sqrt(_row_sq(R))
                half = len(e) // 2
                sc = 1.4826 * float(np.partition(e, half)[half]) + 1e-3
                wts = np.minimum(1.0, (cfg.huber_k * sc) / np.maximum(e, 1e-9)).astype(np.float32)
            score = float((wts * e * e).sum() / max(float(wts.sum()), 1e-9))
            if best is None or score < best[0]:
                best = (score, b, at, ah, idx, p_top, p_side, R, wts, mb)
        _, b_used, at, ah, idx, p_top, p_side, R, wts, mb = best
        if blur is None and it >= len(coarse):
            blur = b_used
        # central differences (as np.gradient inside; the band keeps off the ROI's border)
        gxt, gyt = _central_differences(at, idx)
        gxh, gyh = _central_differences(ah, idx)
        dt = np.column_stack([-(gxt * J_top[0, 0] + gyt * J_top[1, 0]), -(gxt * J_top[0, 1] + gyt * J_top[1, 1]),
                              np.sqrt(gxt * gxt + gyt * gyt)])  # d a_top / d (cx, cy, g)
        dh = np.column_stack([-(gxh * J_mid[0, 0] + gyh * J_mid[1, 0]), -(gxh * J_mid[0, 1] + gyh * J_mid[1, 1]),
                              np.sqrt(gxh * gxh + gyh * gyh)])
        # M = a_top (p_top - p_side) + a_hull (p_side - m) + m
        dps = p_top - p_side
        dpm = p_side[None, :] - mb  # (nb, C)
        Jm = dt.T[:, :, None] * dps[None, None, :] + dh.T[:, :, None] * dpm[None, :, :]  # (3, nb, C)
        J2 = Jm.reshape(3, -1)
        Jw = (Jm * wts[None, :, None]).reshape(3, -1)
        G = Jw @ J2.T
        rhs = Jw @ R.ravel()
        if not np.isfinite(G).all():
            return None
        prior = cfg.growth_prior * 0.5 * float(abs(G[0, 0]) + abs(G[1, 1])) + 1e-9  # the median of the two
        if it < len(coarse):  # the coarse blur misjudges the growth: hold it
            prior *= 1e6
        Gp = G.copy()
        Gp[2, 2] += prior
        rhs[2] -= prior * g
        try:
            delta = np.linalg.solve(Gp, rhs)
        except np.linalg.LinAlgError:
            return None
        step = float(np.hypot(delta[0], delta[1]))
        limit = 3.0 * mmpp + 2.0
        if step > limit:
            delta *= limit / step
        c = c + delta[:2]
        g = min(max(float(g + delta[2]), -cfg.max_growth_px), cfg.max_growth_px)
        if _DEBUG:
            _DEBUG.append((it, step, g, b_used))
        if fine and step < cfg.converged_px * mmpp:
            break
    # the last step's covariance and residual level
    try:
        cov = np.linalg.inv(Gp)[:2, :2]  # per unit residual variance
    except np.linalg.LinAlgError:
        return None
    dof = max(float(wts.sum()) * nch - 3.0 - 2.0 * nch, 1.0)
    rms = float(np.sqrt(float((wts[:, None] * R * R).sum() / dof)))
    support = float((wts > 0.5).mean())
    mat = np.median(mb, axis=0)
    contrast = float(np.linalg.norm(p_top - mat))
    side_contrast = float(np.linalg.norm(p_side - mat))
    return _Fit(c, cov, rms, contrast, support, float(blur or 0.0), g, float(mmpp), side_contrast)


_POOLS: dict = {}


def _pool(threads: int):
    """A shared thread pool (OpenCV and large numpy operations release the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    if threads not in _POOLS:
        _POOLS[threads] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="refine")
    return _POOLS[threads]


def refine_model(image: np.ndarray, background: np.ndarray, transform: MatTransform, rough_mm, radius_mm, height_mm,
                 config: "RefineConfig | None" = None, radius_choices=None, exclude=(), weak=None,
                 shade=None) -> "Refined":
    """Refine n round pieces by fitting the coverage model (:func:`_model_fit`) against the frame
    and the empty mat (both BGR image px, same size). σ from the Gauss-Newton covariance, scaled by
    ``sigma_scale`` (neighbouring pixels' noise is correlated by blur and demosaicing) and floored at
    ``sigma_floor_px`` image px, combined with the registration σ.

    Each piece's fit leaves out the pixels of the others that stand apart from it (centres at least
    ``neighbour_gap`` × the sum of the radii apart: two candidates closer than that are one piece).
    ``radius_choices``: per piece, a sequence of radii (mm) it may have, the first its own:
    :func:`radius_choice` picks one at the rough position before the fit (``Refined.choice``).
    ``exclude``: image px outlines of fixed things (the board's blocks) left out of every fit, or
    bool masks of the frame (hands).

    ``weak``: (n,) bool, pieces whose rough place and size say little (found from a thin part of the
    mask: a piece coloured like the mat shows only its wall or rim). Every size of a weak piece's
    choices is fitted (its top, the mat's colour, may fail the contrast test at the right size while a
    wrong size's outline takes in its wall), and its σ covers the distance to every other size whose
    fit explains it within ``weak_ambiguity`` of the best. A weak piece's pixels are not left out of
    the other pieces' fits, weak or not (it may be a part of one of them), and it counts neither in the frame's
    blur nor in its residual level: the others' fits are those made without it.

    Pieces under ``frame_blur_below_px`` image px of radius are fitted at the frame's blur (the median
    of the fits of the ``frame_blur_pieces`` largest, fitted first): a few px across, a piece's own
    outline cannot tell its blur from its size and place. In the mat's shadow model (``shadow_fill_px`` > 0) the pixels the piece mostly
    covers take the shade of the mat pixels around them (a shadow under the piece's edge, toward
    the camera, is not more piece). With ``shadow_smooth`` > 0 every pixel's shade is
    that blur, of the readings weighted by the part of each pixel that is mat to this power: a pixel
    the piece half covers cannot tell a darker mat from more piece (a dark wall in its own soft shadow
    was read as shade, and the outline slid). A thin piece whose blur was picked with the mat's shade
    read from its own pixels (no light held: :func:`_model_fit`, ``pick_shade_read_below_mm``) and
    whose fit is then no piece is fitted again with the blur picked as for the taller pieces (the
    reading can take a dark wall beside the mat for shade)."""
    cfg = config or RefineConfig()
    rough, radius, height, out = _start(rough_mm, radius_mm, height_mm)
    n = len(rough)
    if n == 0:
        return out
    if background.shape != image.shape:
        raise ValueError(f"the empty mat is {background.shape[1]}x{background.shape[0]} but the frame is "
                         f"{image.shape[1]}x{image.shape[0]}: capture the empty mat again")
    mmpp = transform.mm_per_px(rough)
    outlines = [_outline_px(transform, rough[i], radius[i], height[i], 24)[1] for i in range(n)]
    d = np.linalg.norm(rough[:, None, :] - rough[None, :, :], axis=2)
    apart = (d >= cfg.neighbour_gap * (radius[:, None] + radius[None, :])) & \
        (d <= radius[:, None] + radius[None, :] + 2 * (cfg.search_mm + height.max() + 10.0))
    weak = np.zeros(n, bool) if weak is None else np.asarray(weak, dtype=bool).reshape(-1)
    apart &= ~weak[None, :]
    choices = [None] * n if radius_choices is None else [np.asarray(ch, dtype=np.float64).reshape(-1) for ch in radius_choices]

    fixed = list(exclude or ())
    plain_pick = replace(cfg, pick_shade_read_below_mm=0.0)

    def pick(i):
        if choices[i] is None or len(choices[i]) < 2:
            return np.zeros(1, dtype=np.int64), np.zeros(1)
        others = [outlines[j] for j in np.nonzero(apart[i])[0]] + fixed
        sc = radius_choice(image, background, transform, rough[i], choices[i], height[i], cfg, others)[1]
        return np.argsort(sc, kind="stable"), sc

    def acceptable(fit, i, r):
        return fit is not None and np.all(np.isfinite(fit.c)) and _fit_ok(fit, rough[i], cfg) and \
            abs(fit.growth_px * fit.mm_per_px) <= 0.3 * r

    def one(i, blurs=None):
        """(fit, choice, radius, spread): the best-scored size first, the next while its fit fails (no
        outline of that size is there). The sizes were scored at the rough position, which may be off
        by most of a small disc's radius (the difference saw only part of the piece): they are scored
        again at the fit's centre, and every size that then scores within ``choice_ambiguity`` of the
        best (or better than the one fitted) is fitted too, from there; the fits are compared at
        their own centres (of two about as good, a larger whose fit shrank its outline by
        ``choice_shrink_px`` or more loses to a smaller that did not shrink more). ``spread`` (mm) is the distance to the runner-up's fit when it scored
        within ``choice_ambiguity`` of the winner's (the position is that unsure), else 0."""
        others = [outlines[j] for j in np.nonzero(apart[i])[0]] + fixed
        order, sc = orders[i]
        fitted = {}

        def fit_of(k, start):
            if k not in fitted:
                r = float(choices[i][k]) if choices[i] is not None else radius[i]
                fit = _model_fit(image, background, transform, start, r, height[i], cfg, exclude=others,
                                 blur_choices=blurs, shade=shade)
                if _picks_in_read_shade(cfg, height[i], shade) and not acceptable(fit, i, r):
                    # the shade read at the blur's pick took a dark wall for shade: the blur picked as before
                    alt = _model_fit(image, background, transform, start, r, height[i], plain_pick, exclude=others,
                                     blur_choices=blurs, shade=shade)
                    if acceptable(alt, i, r):
                        fit = alt
                fitted[k] = (fit, r)
            return fitted[k]

        first = best = None
        for k in order:
            fit, r = fit_of(int(k), rough[i])
            if first is None:
                first = (fit, int(k), r, 0.0)
            if acceptable(fit, i, r):
                best = int(k)
                break
        if best is None:
            return first
        if len(order) < 2:
            return fitted[best][0], best, fitted[best][1], 0.0
        c0 = fitted[best][0].c
        moved = float(np.linalg.norm(c0 - rough[i])) / float(mmpp[i])  # image px
        if weak[i]:
            # the rough place and size of a weak piece say little: every size is fitted, and compared
            for k in order:
                fit_of(int(k), c0)
        elif moved < cfg.choice_rescore_px and abs(fitted[best][0].growth_px) < cfg.choice_rescore_px and \
                len(fitted) == 1 and sc[order[1]] >= cfg.choice_ambiguity * sc[order[0]]:
            # the fit stayed where the sizes were scored, at their size, and none came close: that choice stands
            return fitted[best][0], best, fitted[best][1], 0.0
        _, sc2 = radius_choice(image, background, transform, c0, choices[i], height[i], cfg, others,
                               cfg.choice_rescore_blur_px)
        if not np.any(sc2):  # too few pixels there to score the sizes on
            return fitted[best][0], best, fitted[best][1], 0.0
        lim = max(cfg.choice_ambiguity * float(np.min(sc2)), float(sc2[best]))
        for k in np.argsort(sc2, kind="stable"):
            if int(k) != best and sc2[k] <= lim and sc2[k] < np.inf:
                fit_of(int(k), c0)
        good = [k for k, (f, r) in fitted.items() if acceptable(f, i, r)]
        for k, (f, r) in fitted.items():
            # a piece is there (a size fitted): a size whose top is the mat's colour still shows by its wall
            if k not in good and f is not None and f.side_contrast >= cfg.min_contrast > f.contrast:
                f.contrast = f.side_contrast
                if acceptable(f, i, r):
                    good.append(k)
        if len(good) < 2:
            return fitted[best][0], best, fitted[best][1], 0.0
        # two at a time, each pair on its own pixels (the window of more outlines holds more of the
        # larger tops' print, which no choice explains)
        good.sort(key=lambda k: sc2[k])
        win, spread = good[0], 0.0
        ambiguity = cfg.weak_ambiguity if weak[i] else cfg.choice_ambiguity
        for k in good[1:]:
            _, own = radius_choice(image, background, transform, np.vstack([fitted[win][0].c, fitted[k][0].c]),
                                   [fitted[win][1], fitted[k][1]], height[i], cfg, others, cfg.choice_rescore_blur_px)
            d = float(np.linalg.norm(fitted[win][0].c - fitted[k][0].c))
            close = max(own) < ambiguity * min(own)
            if close and cfg.choice_shrink_px > 0 and fitted[win][1] != fitted[k][1]:
                # about as good on the pixels: the larger size's fit had to shrink its outline (toward
                # the smaller) while the smaller's did not shrink more: the piece is the smaller
                big, small = (0, 1) if fitted[win][1] > fitted[k][1] else (1, 0)
                gb, gs = fitted[(win, k)[big]][0].growth_px, fitted[(win, k)[small]][0].growth_px
                if gb <= -cfg.choice_shrink_px and gs > gb:
                    own = own.copy()
                    own[small] = min(own[small], own[big] * (1.0 - 1e-9))
            if own[1] < own[0]:
                win, spread = k, (d if close else 0.0)
            elif close:
                spread = max(spread, d)
        if weak[i]:
            # the winner against every other size, each pair on its own pixels: σ covers all it cannot rule out
            for k in good:
                if k == win:
                    continue
                _, own = radius_choice(image, background, transform, np.vstack([fitted[win][0].c, fitted[k][0].c]),
                                       [fitted[win][1], fitted[k][1]], height[i], cfg, others)
                if own[1] < ambiguity * own[0]:
                    spread = max(spread, float(np.linalg.norm(fitted[win][0].c - fitted[k][0].c)))
        return fitted[win][0], win, fitted[win][1], spread

    run = _pool(cfg.threads).map if cfg.threads > 1 and n > 1 else map
    orders = list(run(pick, range(n)))
    for i, (order, _) in enumerate(orders):
        if order[0]:  # the neighbours' pixels are then left out with the size picked
            outlines[i] = _outline_px(transform, rough[i], float(choices[i][order[0]]), height[i], 24)[1]
    # the image's blur is the camera's, the same for every piece of the frame: a piece a few px across
    # cannot tell it from its own size and place, so it takes the blur the larger pieces' fits found
    # (read off the largest few, fitted first, an even number to keep both threads busy; the rest after)
    r_px = radius / mmpp
    small = r_px < cfg.frame_blur_below_px
    results = [None] * n
    big_idx = [int(i) for i in np.argsort(-r_px, kind="stable") if not small[i] and not weak[i]]
    if small.any() or weak.any():
        first = big_idx[:min(len(big_idx), max(2, 2 * (cfg.frame_blur_pieces // 2)))]
    else:
        first = list(range(n))
    for i, res in zip(first, run(one, first)):
        results[i] = res
    blurs = [results[i][0].blur for i in first if results[i][0] is not None and results[i][0].blur > 0
             and _fit_ok(results[i][0], rough[i], cfg)]
    frame_blur = (float(np.median(blurs)),) if blurs else None
    rest = [i for i in range(n) if results[i] is None]
    for i, res in zip(rest, run(lambda i: one(i, frame_blur if small[i] else None), rest)):
        results[i] = res
    fits = [f for f, _, _, _ in results]
    out.choice[:] = [k for _, k, _, _ in results]
    radius[:] = [r for _, _, r, _ in results]
    spread = np.array([sp for _, _, _, sp in results])
    out.radius[:] = radius
    # the residual level: a piece's own, or the frame's typical one if higher (a piece whose model
    # happens to fit well is not more certain than the image noise allows)
    rms_all = [f.rms for f, w in zip(fits, weak) if f is not None and np.isfinite(f.rms) and not w]
    rms_frame = float(np.median(rms_all)) if rms_all else 0.0
    for i, fit in enumerate(fits):
        if fit is None or not np.all(np.isfinite(fit.c)):
            continue
        level = max(fit.rms, rms_frame)
        # the worst direction: a rim hidden on one side leaves the centre loose across it
        sig_fit = float(np.sqrt(max(np.linalg.eigvalsh(fit.cov_unit)[-1], 0.0))) * level * cfg.sigma_scale
        floor = cfg.sigma_floor_px * float(mmpp[i])
        reg = float(transform.sigma_mm(fit.c.reshape(1, 2))[0])
        out.xy[i] = fit.c
        out.radius[i] = radius[i] + fit.growth_px * fit.mm_per_px
        # two sizes explained the piece about as well: it stands at either fit's place
        out.sigma[i] = float(np.sqrt(sig_fit ** 2 + floor ** 2 + reg ** 2 + (0.5 * spread[i]) ** 2))
        out.quality[i] = fit.support
        out.residual[i] = fit.rms
        out.ok[i] = _fit_ok(fit, rough[i], cfg)
    return out


def _fit_ok(fit: _Fit, rough, cfg: "RefineConfig") -> bool:
    """The fit found a piece: enough contrast against the mat, a residual small beside it, not far
    from the rough position, the outline supported, and of the size fitted (an outline that had to
    grow or shrink by ``growth_ok_px`` image px or more is something else: a figure, an arm)."""
    moved = float(np.linalg.norm(fit.c - rough))
    return bool(fit.contrast >= cfg.min_contrast and fit.rms <= cfg.max_rms_fraction * fit.contrast
                and moved <= cfg.search_mm * 1.5 and fit.support >= cfg.min_edge_fraction
                and abs(fit.growth_px) <= cfg.growth_ok_px)
