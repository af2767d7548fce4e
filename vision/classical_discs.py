"""Round coloured pieces in any photo, with no board and no model: the classical disc finder.

Game discs are coloured; tables, mats and boards are mostly grey, black, white or dull. So the
finder works on *chroma* (the distance from grey in Lab, sqrt(a*² + b*²)):

1. a chroma map, lightly blurred; the pieces are what stands out of its background level
   (median + ``k_mad`` × MAD, at least ``min_chroma``), and holes in a piece (a king's star)
   are filled;
2. touching pieces are split on the peaks of the distance transform (a watershed would do the
   same more slowly); every peak at least ``min_radius_px`` deep is a candidate centre whose radius
   is its depth;
3. the radius is estimated on the chroma edge along rays from the centre, then candidates are kept
   when their inside is filled and round (``min_fill``) and their radius agrees with the photo's
   median (pieces of one game are alike, within ``radius_tolerance``);
4. circles on the grey image with that radius (``HoughCircles``, ``HOUGH_GRADIENT_ALT``) confirm the
   candidates (their edge gives the radius) and add dull pieces that still have some colour inside;
   no better candidate may overlap a kept one;
5. each kept disc's centre and radius are fitted to its sub-pixel chroma edge (half-way crossings
   along rays, least squares), when the edge is clear enough.

``find_discs(image, config)`` returns :class:`Discs`: (n, 2) centres and (n,) radii in **image px**,
(n,) scores and the (n, 3) Lab colour of each face; ``Discs.xyxy`` gives boxes. ``colour_groups``
splits them into colour groups (2-means in a*, b*) for teams. Empty in, empty out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DiscFinderConfig:
    """Thresholds of the finder (see the module docstring); px are of the image after it has been
    shrunk to ``max_side`` on its longer side."""

    max_side: int = 800
    blur_px: float = 1.5
    k_mad: float = 6.0
    min_chroma: float = 7.0
    min_radius_px: float = 5.0
    max_radius_frac: float = 0.12
    min_fill: float = 0.65
    radius_tolerance: float = 0.35
    overlap: float = 0.7
    hough: bool = True
    hough_perfectness: float = 0.7


@dataclass
class Discs:
    """``centre`` (n, 2) and ``radius`` (n,) in image px; ``score`` (n,) 0..1; ``lab`` (n, 3) the
    median face colour (OpenCV Lab, 0..255)."""

    centre: np.ndarray
    radius: np.ndarray
    score: np.ndarray
    lab: np.ndarray

    def __post_init__(self):
        self.centre = np.asarray(self.centre, np.float64).reshape(-1, 2)
        n = len(self.centre)
        self.radius = np.asarray(self.radius, np.float64).reshape(-1)
        self.score = np.asarray(self.score, np.float64).reshape(-1)
        self.lab = np.asarray(self.lab, np.float64).reshape(-1, 3)
        for name, shape in (("radius", (n,)), ("score", (n,)), ("lab", (n, 3))):
            if getattr(self, name).shape != shape:
                raise ValueError(f"{name} must have shape {shape}, but got {getattr(self, name).shape}")

    def __len__(self) -> int:
        return len(self.centre)

    def __getitem__(self, index) -> "Discs":
        return Discs(self.centre[index], self.radius[index], self.score[index], self.lab[index])

    @property
    def xyxy(self) -> np.ndarray:
        """(n, 4) boxes in image px."""
        r = self.radius[:, None]
        return np.hstack([self.centre - r, self.centre + r])

    @classmethod
    def empty(cls) -> "Discs":
        return cls(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros((0, 3)))


def chroma_map(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(H, W) float32 chroma (distance from grey in Lab a*, b*) and the (H, W, 3) float32 Lab image."""
    import cv2

    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    return np.hypot(lab[:, :, 1] - 128.0, lab[:, :, 2] - 128.0), lab


def find_discs(image: np.ndarray, config: DiscFinderConfig | None = None) -> Discs:
    """Coloured round pieces in a BGR photo (see the module docstring); image px."""
    import cv2

    cfg = config or DiscFinderConfig()
    h0, w0 = image.shape[:2]
    f = min(1.0, cfg.max_side / max(h0, w0))
    img = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1.0 else image
    chroma, lab = chroma_map(img)
    chroma = cv2.GaussianBlur(chroma, (0, 0), cfg.blur_px)
    med = float(np.median(chroma))
    mad = float(np.median(np.abs(chroma - med))) + 1e-6
    thr = max(cfg.min_chroma, med + cfg.k_mad * mad)
    mask = (chroma > thr).astype(np.uint8) * 255
    k3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k3)
    # fill holes (printed marks on a piece)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, -1)
    dist = cv2.distanceTransform(filled, cv2.DIST_L2, 5)
    r_max = cfg.max_radius_frac * max(img.shape[:2])
    cand = _peaks(dist, cfg.min_radius_px, r_max)
    if not len(cand):
        return Discs.empty()
    centres, radii = cand[:, :2], cand[:, 2]
    radii = np.array([_edge_radius(chroma, c, r, thr) for c, r in zip(centres, radii)])
    fills = np.array([_fill(filled, c, r) for c, r in zip(centres, radii)])
    keep = (fills >= cfg.min_fill) & (radii >= cfg.min_radius_px)
    centres, radii, fills = centres[keep], radii[keep], fills[keep]
    if not len(radii):
        return Discs.empty()
    strong = radii[fills >= np.median(fills)]
    r_med = float(np.median(strong if len(strong) else radii))
    ok = np.abs(radii - r_med) <= cfg.radius_tolerance * r_med
    centres, radii, fills = centres[ok], radii[ok], fills[ok]
    if cfg.hough:
        centres, radii, fills = _with_hough(img, chroma, centres, radii, fills, r_med, max(cfg.min_chroma * 0.5, med + 2.5 * mad), cfg)
    order = _suppress(centres, radii, fills, cfg.overlap)
    centres, radii, fills = centres[order], radii[order], fills[order]
    for i in range(len(centres)):
        fit = fit_edge_circle(chroma, centres[i], radii[i])
        if fit is not None:
            centres[i], radii[i] = fit
    labs = np.array([_face_lab(lab, c, r) for c, r in zip(centres, radii)]).reshape(-1, 3)
    return Discs(centres / f + (0.5 / f - 0.5), radii / f, fills, labs)


def _with_hough(img, chroma, centres, radii, fills, r_med: float, thr_low: float, cfg):
    """Step 4: circles on the grey image with the photo's radius (``HOUGH_GRADIENT_ALT``) confirm
    the chroma candidates (their edge gives the radius) and add dull pieces that still have some
    colour inside (median chroma above ``thr_low``)."""
    import cv2

    grey = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (0, 0), 1.0)
    found = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT_ALT, 1.5, minDist=1.2 * r_med, param1=50,
                             param2=cfg.hough_perfectness, minRadius=int(0.75 * r_med),
                             maxRadius=int(np.ceil(1.3 * r_med)) + 1)
    if found is None:
        return centres, radii, fills
    circles = found[0].astype(np.float64)
    cs, rs, ss = list(centres), list(radii), list(fills)
    used = np.zeros(len(circles), bool)
    for i in range(len(cs)):
        d = np.hypot(circles[:, 0] - cs[i][0], circles[:, 1] - cs[i][1])
        j = int(d.argmin())
        if d[j] < 0.5 * rs[i] and not used[j]:
            used[j] = True
            cs[i], rs[i], ss[i] = circles[j, :2], circles[j, 2], 1.0
    for j in np.nonzero(~used)[0]:
        x, y, r = circles[j]
        inside = _inside_values(chroma, (x, y), 0.8 * r)
        if len(inside) and float(np.median(inside)) >= thr_low:
            cs.append(np.array([x, y]))
            rs.append(r)
            ss.append(0.5)
    return np.array(cs).reshape(-1, 2), np.array(rs), np.array(ss)


def _inside_values(values: np.ndarray, c, r: float) -> np.ndarray:
    h, w = values.shape[:2]
    x0, x1 = int(max(0, np.floor(c[0] - r))), int(min(w, np.ceil(c[0] + r + 1)))
    y0, y1 = int(max(0, np.floor(c[1] - r))), int(min(h, np.ceil(c[1] + r + 1)))
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= r * r
    return values[y0:y1, x0:x1][inside]


def _peaks(dist: np.ndarray, r_min: float, r_max: float) -> np.ndarray:
    """(k, 3) x, y, depth of the local maxima of the distance transform deeper than ``r_min``."""
    import cv2

    size = int(max(3, 2 * round(r_min) + 1))
    dil = cv2.dilate(dist, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    peaks = (dist >= dil - 1e-3) & (dist >= r_min) & (dist <= r_max)
    ys, xs = np.nonzero(peaks)
    if not len(xs):
        return np.zeros((0, 3))
    d = dist[ys, xs]
    order = np.argsort(-d)
    pts = np.column_stack([xs[order], ys[order], d[order]]).astype(np.float64)
    # plateaus give many maxima: keep one per piece (greedy, the deepest first)
    kept = []
    for p in pts:
        if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 0.6 * max(p[2], q[2]) for q in kept):
            kept.append(p)
    return np.array(kept)


def fit_edge_circle(values: np.ndarray, c, r: float, rays: int = 48):
    """Sub-pixel circle through the edge of a round blob in ``values`` (chroma): along each ray the
    first crossing of half-way between the level inside (0.45-0.65 r) and outside (1.35-1.6 r),
    then a least-squares circle with one pass of outlier rejection. None when too few rays see an
    edge or the fit moves too far."""
    import cv2

    a = np.linspace(0, 2 * np.pi, rays, endpoint=False)
    steps = np.arange(0.45 * r, 1.6 * r, 0.25)
    xs = (c[0] + np.outer(np.cos(a), steps)).astype(np.float32)
    ys = (c[1] + np.outer(np.sin(a), steps)).astype(np.float32)
    prof = cv2.remap(values.astype(np.float32), xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    inner = np.median(prof[:, steps <= 0.65 * r], axis=1)
    outer = np.median(prof[:, steps >= 1.35 * r], axis=1)
    mid = 0.5 * (inner + outer)
    pts = []
    for k in range(rays):
        if inner[k] - outer[k] < 3.0:
            continue
        below = np.nonzero((prof[k] < mid[k]) & (steps > 0.6 * r))[0]
        if not len(below) or below[0] == 0:
            continue
        j = below[0]
        v0, v1 = prof[k, j - 1], prof[k, j]
        t = (v0 - mid[k]) / max(v0 - v1, 1e-6)
        d = steps[j - 1] + t * (steps[j] - steps[j - 1])
        pts.append((c[0] + d * np.cos(a[k]), c[1] + d * np.sin(a[k])))
    if len(pts) < rays // 3:
        return None
    P = np.array(pts)
    for _ in range(2):
        A = np.column_stack([2 * P[:, 0], 2 * P[:, 1], np.ones(len(P))])
        b = (P ** 2).sum(1)
        sol, *_ = np.linalg.lstsq(A, b, rcond=None)
        cx, cy = sol[0], sol[1]
        rad = float(np.sqrt(max(sol[2] + cx * cx + cy * cy, 0.0)))
        res = np.abs(np.hypot(P[:, 0] - cx, P[:, 1] - cy) - rad)
        keep = res <= max(3.0 * np.median(res), 0.5)
        if keep.all() or keep.sum() < rays // 3:
            break
        P = P[keep]
    if abs(rad - r) > 0.3 * r or np.hypot(cx - c[0], cy - c[1]) > 0.3 * r:
        return None
    return np.array([cx, cy]), rad


def _edge_radius(chroma: np.ndarray, c, r0: float, thr: float, rays: int = 32) -> float:
    """The median over rays of where chroma first falls below ``thr`` between 0.6 and 1.6 r0."""
    h, w = chroma.shape
    a = np.linspace(0, 2 * np.pi, rays, endpoint=False)
    steps = np.linspace(0.6 * r0, 1.6 * r0, 41)
    xs = np.clip(np.round(c[0] + np.outer(np.cos(a), steps)).astype(int), 0, w - 1)
    ys = np.clip(np.round(c[1] + np.outer(np.sin(a), steps)).astype(int), 0, h - 1)
    below = chroma[ys, xs] < thr
    first = np.where(below.any(1), below.argmax(1), len(steps) - 1)
    return float(np.median(steps[first]))


def _fill(mask: np.ndarray, c, r: float) -> float:
    h, w = mask.shape
    x0, x1 = int(max(0, np.floor(c[0] - r))), int(min(w, np.ceil(c[0] + r + 1)))
    y0, y1 = int(max(0, np.floor(c[1] - r))), int(min(h, np.ceil(c[1] + r + 1)))
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= (0.9 * r) ** 2
    if not inside.any():
        return 0.0
    return float((mask[y0:y1, x0:x1][inside] > 0).mean())


def _face_lab(lab: np.ndarray, c, r: float) -> np.ndarray:
    h, w = lab.shape[:2]
    x0, x1 = int(max(0, np.floor(c[0] - r))), int(min(w, np.ceil(c[0] + r + 1)))
    y0, y1 = int(max(0, np.floor(c[1] - r))), int(min(h, np.ceil(c[1] + r + 1)))
    yy, xx = np.mgrid[y0:y1, x0:x1]
    rr = np.hypot(xx - c[0], yy - c[1])
    band = (rr > 0.45 * r) & (rr < 0.85 * r)
    if not band.any():
        return np.full(3, np.nan)
    return np.median(lab[y0:y1, x0:x1][band], axis=0)


def _suppress(centres, radii, scores, overlap: float) -> np.ndarray:
    order = np.lexsort((-radii, -np.round(scores, 2)))
    kept = []
    for i in order:
        if all(np.hypot(*(centres[i] - centres[j])) > overlap * (radii[i] + radii[j]) for j in kept):
            kept.append(i)
    return np.array(kept, dtype=np.int64)


def colour_groups(discs: Discs, k: int = 2) -> np.ndarray:
    """(n,) group index 0..k-1 of each disc by its face colour (k-means in a*, b*), groups ordered
    by hue angle so that the same two colours get the same indices in every photo."""
    import cv2

    n = len(discs)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if n < k:
        return np.zeros(n, dtype=np.int64)
    ab = discs.lab[:, 1:].astype(np.float32) - 128.0
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.1)
    _, assign, centres = cv2.kmeans(ab, k, None, crit, 3, cv2.KMEANS_PP_CENTERS)
    hue = np.arctan2(centres[:, 1], centres[:, 0])
    rank = np.argsort(np.argsort(hue))
    return rank[assign.reshape(-1)].astype(np.int64)
