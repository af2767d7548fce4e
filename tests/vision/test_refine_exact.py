"""The refinement's speed-ups are exact: each faster form gives what the straightforward one gave.

The straightforward versions (``reference_*`` below) are the refinement as it was before: one
polygon filled and averaged down per call, one cylinder projected per call, numpy's reductions over
the channel axis, Sobel images for the derivatives, and two robust passes before the fine steps
(the first of which repeated the second: no shade is modelled and the weights start at 1 there).
Frames from the mini-renderer of ``test_refine_choice`` through cameras with and without a lens."""

import cv2
import numpy as np
import pytest

import vision.refine as refine
from calibration.transform import MatTransform
from vision.refine import RefineConfig

from .test_refine import camera
from .test_refine_choice import RADII, render


def lens_camera(tilt, yaw, dist=(-0.12, 0.05, 0.001, -0.002, 0.0), **kw):
    """``camera`` with lens distortion (the projection through ``cv2.projectPoints``)."""
    T = camera(tilt, yaw, **kw)
    return MatTransform.from_pose(T.K, np.array(dist), T.R, T.t, T.image_size)


def scene(T, seed=0):
    """Four discs (two touching), a frame and its empty mat."""
    discs = [(400.0, 280.0, 19.0, 9.0, (58, 132, 52), (40, 95, 35), (235, 235, 235)),
             (438.0, 280.0, 19.0, 9.0, (200, 60, 200), (140, 40, 140), None),
             (520.0, 350.0, 9.5, 9.0, (30, 120, 245), (20, 80, 180), None),
             (330.0, 340.0, 25.5, 9.0, (230, 230, 230), (170, 170, 170), (40, 40, 40))]
    img, empty = render(T, discs, shadows=[(345.0, 352.0, 20.0, 0.6)], seed=seed, blur=0.7)
    return img, empty, discs




def _same_fit(a, b):
    assert (a is None) == (b is None)
    if a is None:
        return
    for name in ("c", "cov_unit", "rms", "contrast", "support", "blur", "growth_px", "mm_per_px", "side_contrast"):
        assert np.array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name))), name


CAMERAS = [lambda: camera(35, 20), lambda: lens_camera(45, -60), lambda: lens_camera(20, 170, height=1200.0)]


@pytest.mark.parametrize("cam", range(len(CAMERAS)))
def test_model_fit_equals_the_straightforward_fit(cam):
    T = CAMERAS[cam]()
    img, empty, discs = scene(T, seed=cam)
    cfg = RefineConfig()
    outlines = [refine._outline_px(T, d[:2], d[2], d[3], 24)[1] for d in discs]
    n = 0
    for i, d in enumerate(discs):
        others = [o for j, o in enumerate(outlines) if j != i]
        for start, kw in (((1.5, -1.0), {}), ((0.5, 0.5), {"blur": 1.1}), ((-2.0, 1.0), {"blur_choices": (0.9,)}),
                          ((3.0, 2.0), {"exclude": others})):
            c0 = np.array(d[:2]) + start
            got = refine._model_fit(img, empty, T, c0, d[2], d[3], cfg, **kw)
            _same_fit(got, reference_model_fit(img, empty, T, c0, d[2], d[3], cfg, **kw))
            n += got is not None
    assert n >= 12  # the fits ran (not all gave up)
    # one robust pass, and no shade model: the straightforward fit's two passes per step
    for cfg in (RefineConfig(passes=1), RefineConfig(shadow_min=1.0), RefineConfig(shadow_fill_px=0.0)):
        d = discs[0]
        _same_fit(refine._model_fit(img, empty, T, np.array(d[:2]) + 1.0, d[2], d[3], cfg),
                  reference_model_fit(img, empty, T, np.array(d[:2]) + 1.0, d[2], d[3], cfg))


@pytest.mark.parametrize("cam", range(len(CAMERAS)))
def test_radius_choice_equals_the_straightforward_scores(cam):
    T = CAMERAS[cam]()
    img, empty, discs = scene(T, seed=10 + cam)
    cfg = RefineConfig()
    outlines = [refine._outline_px(T, d[:2], d[2], d[3], 24)[1] for d in discs]
    for i, d in enumerate(discs):
        others = [o for j, o in enumerate(outlines) if j != i]
        for c, radii in ((np.array(d[:2]) + [1.0, -2.0], RADII), (np.array(d[:2]), RADII[:2]),
                         (np.array([d[:2], np.array(d[:2]) + 1.5]), [d[2], 25.5])):
            best, scores = refine.radius_choice(img, empty, T, c, radii, d[3], cfg, others)
            ref_best, ref_scores = reference_radius_choice(img, empty, T, c, radii, d[3], cfg, others)
            assert best == ref_best and np.array_equal(scores, ref_scores)


def test_coverages_of_several_polygons_equal_one_by_one():
    rng = np.random.default_rng(0)
    for ss in (2, 4):
        for _ in range(20):
            w, h = int(rng.integers(6, 70)), int(rng.integers(6, 70))
            polys = []
            for _ in range(int(rng.integers(1, 5))):
                # convex outlines, some reaching past the ROI (clipped there)
                a = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 40))))
                c = rng.uniform(-10, max(w, h) + 10, 2)
                polys.append(cv2.convexHull(np.float32(c + rng.uniform(2, 40) * np.column_stack([np.cos(a), np.sin(a)])))
                             .reshape(-1, 2).astype(np.float64))
            x0, y0 = int(rng.integers(0, 5)), int(rng.integers(0, 5))
            got = refine._coverages_roi(polys, x0, y0, w, h, ss)
            for p, g in zip(polys, got):
                ref = reference_coverage_roi(p, x0, y0, w, h, ss)
                assert g.shape == ref.shape and np.array_equal(g, ref)
                assert np.array_equal(refine._coverage_roi(p, x0, y0, w, h, ss), ref)


def test_outlines_of_several_cylinders_equal_one_by_one():
    for T in (camera(40, 30), lens_camera(45, -60)):
        centres = np.array([[300.0, 250.0], [310.5, 251.25], [520.0, 350.0]])
        radii = [9.5, 19.0, 25.5]
        got = refine._outlines_px(T, centres, radii, 9.0)
        for (top, hull), c, r in zip(got, centres, radii):
            ref_top, ref_hull = reference_outline_px(T, c, r, 9.0)
            assert np.array_equal(top, ref_top) and np.array_equal(hull, ref_hull)


def test_row_sums_equal_numpy_sums_over_the_last_axis():
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        for ch in (1, 2, 3, 4):
            a = (rng.normal(size=(501, ch)) * 60).astype(dtype)
            b = (rng.normal(size=(501, ch)) * 60).astype(dtype)
            assert np.array_equal(refine._row_sq(a), (a * a).sum(axis=1))
            assert np.array_equal(refine._row_sq(a, b), (a * b).sum(axis=1))


def test_central_differences_equal_sobel_inside_and_at_the_border():
    rng = np.random.default_rng(2)
    img = rng.random((23, 31)).astype(np.float32)
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=1, scale=0.5).ravel()
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=1, scale=0.5).ravel()
    inside = np.arange(img.size).reshape(img.shape)[1:-1, 1:-1].ravel()
    for idx in (inside, np.arange(img.size), np.array([0, 5, 31, 200]), np.array([img.size - 1])):
        x, y = refine._central_differences(img, idx)
        assert np.array_equal(x, gx[idx]) and np.array_equal(y, gy[idx])


# ------------------------------------------------------------------------------------------------
# the straightforward versions


def reference_coverage_roi(poly_px: np.ndarray, x0: int, y0: int, w: int, h: int, ss: int = 4) -> np.ndarray:
    """The straightforward version (before the speed-ups)."""
    import cv2

    from sim.raster import BIAS_PX, SHIFT

    big = (np.asarray(poly_px, dtype=np.float64) - [x0, y0] + 0.5) * ss - 0.5
    centre = big.mean(axis=0)
    d = big - centre
    norm = np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    big = centre + d * np.maximum(1.0 - BIAS_PX / norm, 0.0)
    mask = np.zeros((h * ss, w * ss), np.uint8)
    cv2.fillPoly(mask, [np.round(big * (1 << SHIFT)).astype(np.int32)], 255, cv2.LINE_8, SHIFT)
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) * (1.0 / 255.0)


def reference_outline_px(transform, c, r: float, h: float, k: int = 36) -> tuple[np.ndarray, np.ndarray]:
    """The straightforward version (before the speed-ups)."""
    import cv2

    a = np.linspace(0, 2 * np.pi, k, endpoint=False)
    ring = np.asarray(c, dtype=np.float64) + r * np.column_stack([np.cos(a), np.sin(a)])
    pts = np.empty((2 * k, 3))
    pts[:, 0] = np.tile(ring[:, 0], 2)
    pts[:, 1] = np.tile(ring[:, 1], 2)
    pts[:k, 2] = -h
    pts[k:, 2] = 0.0
    px = transform.project_3d(pts)
    hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    return px[:k], hull


def reference_radius_choice(image: np.ndarray, background: np.ndarray, transform, c, radii, h: float,
                  cfg, exclude=()) -> tuple[int, np.ndarray]:
    """The straightforward version (before the speed-ups)."""
    import cv2

    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    if len(radii) < 2:
        return 0, np.zeros(len(radii))
    centres = np.broadcast_to(np.asarray(c, dtype=np.float64).reshape(-1, 2), (len(radii), 2))
    outlines = [reference_outline_px(transform, centres[i], float(r), h) for i, r in enumerate(radii)]
    allpts = np.vstack([hull for _, hull in outlines])
    pad = int(np.ceil(3 + 2 * max(cfg.choice_blur_px)))
    H, W = image.shape[:2]
    X0, Y0 = max(int(np.floor(allpts[:, 0].min())) - pad, 0), max(int(np.floor(allpts[:, 1].min())) - pad, 0)
    X1, Y1 = min(int(np.ceil(allpts[:, 0].max())) + pad + 1, W), min(int(np.ceil(allpts[:, 1].max())) + pad + 1, H)
    w, hgt = X1 - X0, Y1 - Y0
    if w < 6 or hgt < 6:
        return 0, np.zeros(len(radii))
    k5 = np.ones((5, 5), np.uint8)
    win = np.zeros((hgt, w), bool)
    inner = np.ones((hgt, w), bool)
    covs = []
    for top, hull in outlines:
        covs.append((reference_coverage_roi(top, X0, Y0, w, hgt, ss=2), reference_coverage_roi(hull, X0, Y0, w, hgt, ss=2)))
        win |= covs[-1][1] > 0
        inner &= covs[-1][0] > 0.99
    win = cv2.dilate(win.astype(np.uint8), k5) > 0
    inner = cv2.erode(inner.astype(np.uint8), k5) > 0
    sel = win & ~inner
    excl = refine._exclusion(exclude, X0, Y0, w, hgt)
    if excl is not None:
        sel &= ~excl
    if sel.sum() < 12:
        return 0, np.zeros(len(radii))
    f = image[Y0:Y1, X0:X1][sel].astype(np.float32)
    m = background[Y0:Y1, X0:X1][sel].astype(np.float32)
    if f.ndim == 1:
        f, m = f[:, None], m[:, None]
    scores = np.full(len(radii), np.inf)
    for i, (ct, ch) in enumerate(covs):
        for blur in cfg.choice_blur_px:  # the image's blur is not known yet: each choice at its best
            at = cv2.GaussianBlur(ct, (0, 0), blur)
            ah = np.maximum(cv2.GaussianBlur(ch, (0, 0), blur), at)
            At, Ah = at[sel], ah[sel]
            A = np.column_stack([At, Ah - At])
            out = (1.0 - Ah)[:, None]
            G = A.T @ A + 1e-6 * np.eye(2)
            gain = 1.0
            for _ in range(2):
                P = np.linalg.solve(G, A.T @ (f - out * gain * m))
                rest = f - A @ P
                om = out * m
                gain = float(np.clip((om * rest).sum() / max(float((om * om).sum()), 1e-6), cfg.shadow_min, 1.1))
            R = f - A @ P - out * gain * m
            e2 = np.minimum((R * R).sum(axis=1), cfg.choice_clip ** 2)
            scores[i] = min(scores[i], float(e2.mean()))
    return int(np.argmin(scores)), scores


def reference_model_fit(image: np.ndarray, background: np.ndarray, transform, c0, r: float, h: float,
               cfg, blur: float | None = None, exclude=(), blur_choices=None):
    """The straightforward version (before the speed-ups)."""
    import cv2

    K = 36
    a = np.linspace(0, 2 * np.pi, K, endpoint=False)
    ring = r * np.column_stack([np.cos(a), np.sin(a)])
    c = np.asarray(c0, dtype=np.float64).copy()
    H, W = image.shape[:2]
    offs = np.array([[0, 0, -h], [1, 0, -h], [0, 1, -h], [0, 0, -h / 2], [1, 0, -h / 2], [0, 1, -h / 2]])
    zs = np.concatenate([np.full(K, -h), np.zeros(K)])

    def grow(poly, g):
        if g == 0.0:
            return poly
        ctr = poly.mean(axis=0)
        d = poly - ctr
        return ctr + d * (1.0 + g / np.maximum(np.sqrt((d * d).sum(axis=1, keepdims=True)), 1e-6))

    def project(cc, g=0.0):
        rr = cc + ring
        pts = np.empty((2 * K + 6, 3))
        pts[:2 * K, 0] = np.tile(rr[:, 0], 2)
        pts[:2 * K, 1] = np.tile(rr[:, 1], 2)
        pts[:2 * K, 2] = zs
        pts[2 * K:] = offs + [cc[0], cc[1], 0.0]
        px = transform.project_3d(pts)
        top, base, jt, jm = px[:K], px[K:2 * K], px[2 * K:2 * K + 3], px[2 * K + 3:]
        J_top = np.column_stack([jt[1] - jt[0], jt[2] - jt[0]])
        J_mid = np.column_stack([jm[1] - jm[0], jm[2] - jm[0]])
        hull = cv2.convexHull(px[:2 * K].astype(np.float32)).reshape(-1, 2).astype(np.float64)
        return grow(top, g), grow(hull, g), J_top, J_mid

    top, hull, J_top, _ = project(c)
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
    kernel = np.ones((3, 3), np.uint8)
    excl = refine._exclusion(exclude, X0, Y0, w, hgt)
    g = 0.0  # outward growth of both outlines, image px
    cov = np.full((2, 2), np.inf)
    rms = support = 0.0
    coarse = cfg.blur_schedule_px
    for it in range(cfg.iterations):
        top, hull, J_top, J_mid = project(c, g)
        at_s = reference_coverage_roi(top, X0, Y0, w, hgt)
        ah_s = reference_coverage_roi(hull, X0, Y0, w, hgt)
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
            shade = np.ones(len(idx), np.float32)  # the mat's brightness at each pixel (a shadow: < 1)
            mm2 = (m0 * m0).sum(axis=1) + 1e-3
            wts = np.ones(len(idx), np.float32)
            for pas in range(cfg.passes if it > len(coarse) else 2):
                mb = m0 * shade[:, None]
                y = fb - out_w[:, None] * mb
                s_tt, s_ts, s_ss = (wts * At * At).sum(), (wts * At * As).sum(), (wts * As * As).sum() + 1e-6
                det = s_tt * s_ss - s_ts * s_ts
                if det <= 1e-9:
                    return None
                bt, bs = (wts * At) @ y, (wts * As) @ y
                p_top = (s_ss * bt - s_ts * bs) / det
                p_side = (s_tt * bs - s_ts * bt) / det
                if cfg.shadow_min < 1.0 and it > len(coarse):
                    # a shadow only darkens the mat: per pixel, the brightness that best explains what the
                    # piece does not cover (colour changes stay in the residual)
                    rest = fb - At[:, None] * p_top - As[:, None] * p_side
                    sh = ((rest * m0).sum(axis=1) / (np.maximum(out_w, 0.05) * mm2)).astype(np.float32)
                    own = out_w > cfg.shadow_out
                    shade = np.where(own, np.clip(sh, cfg.shadow_min, 1.05), 1.0).astype(np.float32)
                    if cfg.shadow_fill_px > 0 and own.any() and not own.all():
                        # where the piece covers most of a pixel its shade cannot be read: a shadow is
                        # smooth, so it is that of the mat pixels around it (a normalised blur)
                        nd = np.zeros((w * hgt, 2), np.float32)
                        nd[idx[own], 0] = shade[own] * wts[own]
                        nd[idx[own], 1] = wts[own]
                        nd = cv2.GaussianBlur(nd.reshape(hgt, w, 2), (0, 0), cfg.shadow_fill_px).reshape(-1, 2)[idx]
                        fill = np.where(nd[:, 1] > 0.05, nd[:, 0] / np.maximum(nd[:, 1], 1e-6), 1.0)
                        shade = np.where(own, shade, np.clip(fill, cfg.shadow_min, 1.05)).astype(np.float32)
                    mb = m0 * shade[:, None]
                R = fb - out_w[:, None] * mb - At[:, None] * p_top - As[:, None] * p_side
                e = np.sqrt((R * R).sum(axis=1))
                half = len(e) // 2
                sc = 1.4826 * float(np.partition(e, half)[half]) + 1e-3
                k = cfg.huber_k * sc
                if pas > 0 or it > len(coarse):
                    wts = np.minimum(1.0, k / np.maximum(e, 1e-9)).astype(np.float32)
            score = float((wts * e * e).sum() / max(float(wts.sum()), 1e-9))
            if best is None or score < best[0]:
                best = (score, b, at, ah, idx, p_top, p_side, R, wts, mb)
        _, b_used, at, ah, idx, p_top, p_side, R, wts, mb = best
        if blur is None and it >= len(coarse):
            blur = b_used
        # central differences (as np.gradient inside; the band keeps off the ROI's border)
        gx_t = cv2.Sobel(at, cv2.CV_32F, 1, 0, ksize=1, scale=0.5)
        gy_t = cv2.Sobel(at, cv2.CV_32F, 0, 1, ksize=1, scale=0.5)
        gx_h = cv2.Sobel(ah, cv2.CV_32F, 1, 0, ksize=1, scale=0.5)
        gy_h = cv2.Sobel(ah, cv2.CV_32F, 0, 1, ksize=1, scale=0.5)
        gxt, gyt, gxh, gyh = gx_t.ravel()[idx], gy_t.ravel()[idx], gx_h.ravel()[idx], gy_h.ravel()[idx]
        dt = np.column_stack([-(gxt * J_top[0, 0] + gyt * J_top[1, 0]), -(gxt * J_top[0, 1] + gyt * J_top[1, 1]),
                              np.sqrt(gxt * gxt + gyt * gyt)])  # d a_top / d (cx, cy, g)
        dh = np.column_stack([-(gxh * J_mid[0, 0] + gyh * J_mid[1, 0]), -(gxh * J_mid[0, 1] + gyh * J_mid[1, 1]),
                              np.sqrt(gxh * gxh + gyh * gyh)])
        # M = a_top (p_top - p_side) + a_hull (p_side - m) + m
        dps = p_top - p_side
        dpm = p_side[None, :] - mb  # (nb, C)
        Jm = dt[:, :, None] * dps[None, None, :] + dh[:, :, None] * dpm[:, None, :]  # (nb, 3, C)
        J2 = Jm.transpose(1, 0, 2).reshape(3, -1)
        Jw = J2 * np.repeat(wts, nch)[None, :]
        G = Jw @ J2.T
        rhs = Jw @ R.ravel()
        if not np.all(np.isfinite(G)):
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
        g = float(np.clip(g + delta[2], -cfg.max_growth_px, cfg.max_growth_px))
        dof = max(float(wts.sum()) * nch - 3.0 - 2.0 * nch, 1.0)
        s2 = float((wts[:, None] * R * R).sum() / dof)
        try:
            cov = np.linalg.inv(Gp)[:2, :2]  # per unit residual variance
        except np.linalg.LinAlgError:
            return None
        rms = float(np.sqrt(s2))
        support = float((wts > 0.5).mean())
        if it > len(coarse) and step < cfg.converged_px * mmpp:
            break
    mat = np.median(mb, axis=0)
    contrast = float(np.linalg.norm(p_top - mat))
    side_contrast = float(np.linalg.norm(p_side - mat))
    return refine._Fit(c, cov, rms, contrast, support, float(blur or 0.0), g, float(mmpp), side_contrast)
