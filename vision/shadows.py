"""The round pieces' shadows on the mat, for the fits (:mod:`vision.refine`).

A lamp over the table throws each piece's shadow away from it: far off, its rays are parallel, so
a point ``h`` mm up falls ``h · offset`` mm along the mat (``offset`` is the same for every piece of
the frame), and an upright cylinder's shadow is the hull of its base circle and of its top circle so
moved. The shadow takes a fraction ``strength`` of the light and its edge is soft (a Gaussian of
``blur_px`` image px). Next to a piece's base its own shadow darkens the mat, a blurred shadow on
every side (half its strength at its edge), and the fit cannot tell a darker mat there from more
piece: :func:`estimate_light` reads the one light that explains the darkening round all the round
pieces of a frame (the frame against the empty mat, off the pieces and the foreground), and
:class:`ShadeModel` gives the shade it predicts round each piece being fitted, which the fit takes
where the mat's own pixels cannot say (:func:`vision.refine.refine_model`, ``shade``).

Frames: pieces and offsets in mat mm; maps and polygons in image px.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.transform import MatTransform


@dataclass(frozen=True)
class LightConfig:
    """``scale``: the estimate works on the frame shrunk by this (one over a whole number);
    ``reach_mm``: the mat read round each piece; ``lengths``: the offsets tried (mm of shadow per mm of height: a light 35-80° up
    throws 1.4-0.18); ``blurs_px`` the softness tried (image px); then the best of those refined in
    ``refine_rounds`` rounds of steps (a quarter of the length, ``turn_deg``, a third of the blur, each
    round 0.6 of the last), the pixels the first guess explains worst (beyond ``huber_k`` robust σ)
    weighing less; ``min_strength``: weaker shadows are no shadows (no map), and none is darker than
    ``max_strength``; ``min_height_mm``: the light is read round pieces this tall or more only (a
    Morris egg's shadow, 3 mm up, is too small to read a light from, and the figures' fill the mat
    round it)."""

    scale: float = 1.0 / 3.0
    reach_mm: float = 25.0
    lengths: tuple = (0.15, 0.3, 0.55, 0.9, 1.4)
    blurs_px: tuple = (1.5, 3.0, 5.0)
    min_height_mm: float = 6.0
    turn_deg: float = 12.0
    refine_rounds: int = 4
    min_strength: float = 0.08
    max_strength: float = 0.75
    huber_k: float = 2.0
    margin_mm: float = 2.0


@dataclass(frozen=True)
class Light:
    """One frame's light: ``offset`` (2,) mat mm of shadow per mm of height; ``strength`` the share of
    light a full shadow takes; ``blur_px`` its edge's Gaussian σ (image px); ``explained`` the share of
    the darkening round the pieces it explains; ``gain`` the frame's brightness against the empty mat
    there."""

    offset: tuple
    strength: float
    blur_px: float
    explained: float
    gain: float = 1.0


def shadow_polygons(transform: MatTransform, xy, radius, height, offset, k: int = 24) -> list:
    """Image px polygons (each (m, 2)) of the shadows of upright cylinders standing at ``xy`` (n, 2)
    mat mm, of ``radius`` and ``height`` (n,) mm, with the light's ``offset``: the hull of the base
    circle and of the top circle moved by ``height · offset``, on the mat."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    n = len(xy)
    if n == 0:
        return []
    radius = np.broadcast_to(np.asarray(radius, float), (n,))
    height = np.broadcast_to(np.asarray(height, float), (n,))
    off = np.asarray(offset, float).reshape(2)
    a = np.linspace(0, 2 * np.pi, k, endpoint=False)
    ring = np.column_stack([np.cos(a), np.sin(a)])
    base = xy[:, None, :] + radius[:, None, None] * ring[None]  # (n, k, 2)
    pts = np.concatenate([base, base + height[:, None, None] * off], axis=1)  # (n, 2k, 2)
    px = transform.mat_to_image(pts.reshape(-1, 2), 0.0).reshape(n, 2 * k, 2)
    return [_hull(q) for q in px if np.isfinite(q).all()]


def _hull(pts: np.ndarray) -> np.ndarray:
    """The convex hull (m, 2) of image px points (k, 2)."""
    import cv2

    return cv2.convexHull(np.asarray(pts, np.float32)).reshape(-1, 2).astype(np.float64)


def _cast(base: np.ndarray, shift) -> np.ndarray:
    """An upright cylinder's shadow in image px: the hull of its base circle's image ``base`` (k, 2)
    and that outline moved by ``shift`` (2,), its top's shadow."""
    return _hull(np.vstack([base, base + np.asarray(shift, float)]))


# fillPoly fills the pixels its outline touches: a filled polygon covers about this many of the grid's
# px more all round than the polygon (0.6-0.8 for small shapes): a rendered shadow lies so far out
FILL_GROWTH_PX = 0.65


class _Casts:
    """The shadows of fixed cylinders under any offset, fast: each base circle projected once, and the
    top's shadow as that outline moved by the image of the offset through the transform's derivative
    at the piece (a shadow spans a few cm of the mat, over which the view is affine to a small
    fraction of a pixel)."""

    def __init__(self, transform: MatTransform, xy, radius, height, k: int = 16):
        xy = np.asarray(xy, float).reshape(-1, 2)
        n = len(xy)
        a = np.linspace(0, 2 * np.pi, k, endpoint=False)
        ring = np.column_stack([np.cos(a), np.sin(a)])
        pts = np.concatenate([(xy[:, None, :] + np.asarray(radius, float)[:, None, None] * ring[None]).reshape(-1, 2),
                              xy, xy + [1.0, 0.0], xy + [0.0, 1.0]])
        px = transform.mat_to_image(pts, 0.0)
        self.base = px[:n * k].reshape(n, k, 2)
        c, cx, cy = px[n * k:n * k + n], px[n * k + n:n * k + 2 * n], px[n * k + 2 * n:]
        self.centre = c
        self.J = np.stack([cx - c, cy - c], axis=2)  # (n, 2, 2): image px per mat mm
        self.height = np.asarray(height, float)
        self.ok = np.isfinite(self.base).all(axis=(1, 2)) & np.isfinite(self.J).all(axis=(1, 2))

    def polygons(self, offset) -> list:
        """One image px polygon a piece, in their order (None for a piece off the view's map)."""
        t = np.einsum("nij,j->ni", self.J, np.asarray(offset, float)) * self.height[:, None]  # (n, 2)
        return [_cast(b, ti) if ok else None for b, ti, ok in zip(self.base, t, self.ok)]


def _darkness(shape: tuple, polys: list, blur_px: float, origin=(0.0, 0.0), scale: float = 1.0) -> np.ndarray:
    """(h, w) float32 in [0, 1]: the polygons (image px) filled and blurred by ``blur_px`` (image px),
    on a grid of ``shape`` whose pixel (0, 0) is image px ``origin`` and whose pixels are 1/``scale``
    image px. On a coarser grid than the image the polygons are first pulled in by what the fill adds
    beyond the image's own (:data:`FILL_GROWTH_PX`): the same shadow at every scale."""
    import cv2

    SHIFT = 4
    m = np.zeros(shape, np.uint8)
    shrink = FILL_GROWTH_PX * (1.0 / scale - 1.0)  # image px
    for p in polys:  # one call each: several polygons in one call would XOR their overlaps
        if p is None:
            continue
        p = np.asarray(p, float)
        if shrink > 0:  # (pulled in toward the middle: the polygons are convex and round-ish)
            c = p.mean(axis=0)
            d = p - c
            p = c + d * np.maximum(1.0 - shrink / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-6), 0.0)[:, None]
        q = (p - origin + 0.5) * scale - 0.5  # (pixel centres at whole numbers on both grids)
        cv2.fillPoly(m, [np.round(q * (1 << SHIFT)).astype(np.int32)], 255, cv2.LINE_AA, SHIFT)
    m = m.astype(np.float32) * (1.0 / 255.0)
    if blur_px * scale > 0.3:
        m = cv2.GaussianBlur(m, (0, 0), blur_px * scale)
    return m


class ShadeModel:
    """The shade of the mat under ``light`` with round pieces standing at ``xy`` (n, 2) mat mm
    (``radius``, ``height`` (n,) mm: the candidates, placed and sized roughly), for one piece's fit at
    a time (:meth:`roi`): that piece's own shadow is drawn where and as large as the fit has it (its
    shadow next to its base is what matters, and a rough place or size would put its edge elsewhere),
    the others' where they were found."""

    def __init__(self, transform: MatTransform, light: Light, xy, radius, height):
        self.transform, self.light = transform, light
        self.xy = np.asarray(xy, float).reshape(-1, 2)
        n = len(self.xy)
        self.radius = np.broadcast_to(np.asarray(radius, float), (n,)).copy()
        self.height = np.broadcast_to(np.asarray(height, float), (n,)).copy()
        casts = _Casts(transform, self.xy, self.radius, self.height, 24)
        self.polys = casts.polygons(light.offset) if n else []
        # (image px of each candidate, its image px per mat mm, whether the view maps it)
        self.centres, self.J, self.ok = casts.centre, casts.J, casts.ok
        self.boxes = np.array([[p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()] if p is not None
                               else [np.inf, np.inf, -np.inf, -np.inf] for p in self.polys]).reshape(-1, 4)

    def roi(self, x0: int, y0: int, w: int, h: int, c, r: float, height: float) -> np.ndarray:
        """(h · w,) float32, row-major: the predicted shade over image px ``[y0, y0 + h) × [x0, x0 + w)``
        with the piece being fitted at ``c`` (2,) mat mm, of radius ``r`` and ``height`` (the candidate
        nearest it, within its radius, is that piece and is left out)."""
        pad = int(np.ceil(3 * self.light.blur_px)) + 1
        X0, Y0, X1, Y1 = x0 - pad, y0 - pad, x0 + w + pad, y0 + h + pad
        c = np.asarray(c, float)
        me = -1
        if len(self.xy):
            d = np.hypot(*(self.xy - c).T)
            me = int(np.argmin(d)) if d.min() <= self.radius[int(np.argmin(d))] else -1
        if me >= 0 and self.ok[me]:  # its own shadow through the view's derivative at its candidate (a few mm off: affine)
            a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
            ring = (c - self.xy[me]) + r * np.column_stack([np.cos(a), np.sin(a)])
            polys = [_cast(self.centres[me] + ring @ self.J[me].T,
                           self.J[me] @ (height * np.asarray(self.light.offset, float)))]
        else:
            polys = shadow_polygons(self.transform, c[None], [r], [height], self.light.offset)
        if len(self.xy):
            b = self.boxes
            hit = (b[:, 2] >= X0) & (b[:, 0] < X1) & (b[:, 3] >= Y0) & (b[:, 1] < Y1)
            polys += [self.polys[i] for i in np.flatnonzero(hit) if i != me]
        dark = _darkness((Y1 - Y0, X1 - X0), polys, self.light.blur_px, (X0, Y0))
        return (1.0 - self.light.strength * dark[pad:pad + h, pad:pad + w]).reshape(-1)


def estimate_light(frame: np.ndarray, background: np.ndarray, transform: MatTransform, xy, radius, height,
                   foreground: np.ndarray | None = None, config: LightConfig | None = None) -> Light | None:
    """The light that best explains how much darker than the empty mat the frame is round the round
    pieces ``xy`` (n, 2) mat mm (``radius``, ``height`` (n,) mm): least squares of the frame's
    brightness ratio to the empty mat against ``gain · (1 - strength · shadow)``, over the mat within
    ``reach_mm`` of a piece, off the pieces (their silhouettes grown by ``margin_mm``) and off
    ``foreground`` ((H, W), non-zero on what is not mat). The offset's direction first from where the
    darkness lies round each piece, then its length and the blur from a grid, then all three refined
    by steps. None if the pieces cast no shadow worth the name. (The share of the darkening it
    explains is no test: round a Morris egg most of the darkening is the figures' shadows, yet the
    light read from the eggs' own predicts the mat at their edges two to three times closer than no
    shadow does.)"""
    import cv2

    from vision.blobs import round_silhouettes

    cfg = config or LightConfig()
    xy = np.asarray(xy, float).reshape(-1, 2)
    n = len(xy)
    radius = np.broadcast_to(np.asarray(radius, float), (n,)).copy()
    height = np.broadcast_to(np.asarray(height, float), (n,)).copy()
    tall = height >= cfg.min_height_mm
    xy, radius, height, n = xy[tall], radius[tall], height[tall], int(tall.sum())
    if n == 0:
        return None
    H, W = frame.shape[:2]
    f = cfg.scale
    # the reach round each piece, in image px
    a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    circ = np.column_stack([np.cos(a), np.sin(a)])
    rings = transform.mat_to_image((xy[:, None, :] + (radius[:, None, None] + cfg.reach_mm) * circ[None]).reshape(-1, 2),
                                   0.0).reshape(n, len(a), 2)
    allp = rings.reshape(-1, 2)
    if not np.isfinite(allp).all():
        return None
    x0, y0 = max(int(np.floor(allp[:, 0].min())), 0), max(int(np.floor(allp[:, 1].min())), 0)
    x1, y1 = min(int(np.ceil(allp[:, 0].max())) + 1, W), min(int(np.ceil(allp[:, 1].max())) + 1, H)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    k = int(round(1.0 / f))  # (whole image px to a shrunk px: the ROI a whole number of them, inside the frame)
    f = 1.0 / k
    w, h = (x1 - x0) // k, (y1 - y0) // k
    x1, y1 = x0 + k * w, y0 + k * h

    def lum(img):
        roi = img[y0:y1, x0:x1]
        return cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY).astype(np.float32) if roi.ndim == 3 else roi.astype(np.float32)

    lum_f = cv2.resize(lum(frame), (w, h), interpolation=cv2.INTER_AREA)
    lum_b = cv2.resize(lum(background), (w, h), interpolation=cv2.INTER_AREA)
    rho = (lum_f + 3.0) / (lum_b + 3.0)
    off_pieces = round_silhouettes(transform, xy, radius, height, (H, W), cfg.margin_mm)[y0:y1, x0:x1] == 0
    if foreground is not None:
        off_pieces &= foreground[y0:y1, x0:x1] == 0
    near = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for ring in rings:
        cv2.fillPoly(near, [np.round(ring - [x0, y0]).astype(np.int32)], 1)
    # (a shrunk px is read only where every image px of it is mat)
    valid = cv2.resize((off_pieces & (near > 0)).astype(np.float32), (w, h), interpolation=cv2.INTER_AREA) > 0.999
    valid &= (rho > 0.3) & (rho < 1.5)
    if valid.sum() < 50:
        return None
    obs = rho[valid].astype(np.float64)
    origin = np.array([x0, y0], float)
    # the offset's direction: where the darkness lies round each piece (on the mat, from its centre)
    ys, xs = np.nonzero(valid)
    step = max(1, len(xs) // 3000)  # (a few thousand pixels tell the direction)
    pts_mat = transform.image_to_mat((np.column_stack([xs[::step], ys[::step]]) + 0.5) / f - 0.5 + origin, 0.0)
    dark = np.maximum(np.median(obs) - obs[::step], 0.0)
    d = pts_mat[:, None, :] - xy[None, :, :]
    dist = np.linalg.norm(d, axis=2) - radius[None, :]
    own = np.argmin(dist, axis=1)
    vec = d[np.arange(len(own)), own] / np.maximum(np.linalg.norm(d[np.arange(len(own)), own], axis=1), 1e-6)[:, None]
    mom = (dark[:, None] * vec).sum(axis=0)
    if not np.isfinite(mom).all() or np.hypot(*mom) < 1e-9:
        return None
    u = mom / np.hypot(*mom)

    wts = np.ones(len(obs))
    casts = _Casts(transform, xy, radius, height)

    def score(polys, blur, resid=False):
        m = _darkness((h, w), polys, blur, origin, f)[valid].astype(np.float64)
        # obs = g - (g s) m: weighted least squares in (g, g s)
        wm = wts * m
        sm, smm, smy = wm.sum(), wm @ m, wm @ obs
        det = N * smm - sm * sm
        if det <= 1e-9:
            return np.inf, 1.0, 0.0
        g = (smm * sy - sm * smy) / det
        gs = (sm * sy - N * smy) / det
        sse = s_oo - 2 * (g * sy - gs * smy) + g * g * N - 2 * g * gs * sm + gs * gs * smm
        if resid:
            return obs - g + gs * m
        return float(sse), float(g), float(gs / max(g, 1e-6))

    def sums():
        return float(wts.sum()), float(wts @ obs), float(wts @ (obs * obs))

    N, sy, s_oo = sums()
    best = None
    for L in cfg.lengths:
        polys = casts.polygons(L * u)
        for b in cfg.blurs_px:
            sc = score(polys, b)
            if sc[2] > 0 and (best is None or sc[0] < best[0][0]):
                best = (sc, L * u, b)
    if best is None:
        return None
    (sse, g, s), offset, b = best
    # what the light does not explain (other things' shadows: a hand's, a figure's) weighs less
    res = score(casts.polygons(offset), b, resid=True)
    sc_r = 1.4826 * float(np.median(np.abs(res))) + 1e-4
    wts = np.minimum(1.0, cfg.huber_k * sc_r / np.maximum(np.abs(res), 1e-12))
    N, sy, s_oo = sums()
    sse, g, s = score(casts.polygons(offset), b)
    # then each of the offset's length and direction and the blur in turn, in steps that shrink
    L, ang = float(np.hypot(*offset)), float(np.arctan2(offset[1], offset[0]))
    steps = [0.25 * L, np.radians(cfg.turn_deg), 0.35 * b]
    for _ in range(cfg.refine_rounds):
        for j in range(3):
            here = [L, ang, b]
            for sign in (-1.0, 1.0):
                q = list(here)
                q[j] += sign * steps[j]
                if q[0] <= 0.02 or q[2] < 0.5:
                    continue
                o2 = q[0] * np.array([np.cos(q[1]), np.sin(q[1])])
                sc = score(casts.polygons(o2), q[2])
                if sc[2] > 0 and sc[0] < sse:
                    (sse, g, s), (L, ang, b) = sc, q
        steps = [0.6 * v for v in steps]
    offset = L * np.array([np.cos(ang), np.sin(ang)])
    mean = sy / N
    total = float(wts @ ((obs - mean) ** 2))
    explained = 1.0 - sse / max(total, 1e-12)
    if s < cfg.min_strength:
        return None
    return Light((float(offset[0]), float(offset[1])), float(min(s, cfg.max_strength)), float(b), float(explained), float(g))
