"""Mat registration without markers: the mat's outline against the table → :class:`MatTransform`.

Frames: **image px** (undistorted px once intrinsics are known), **mat mm**.

1. :func:`find_mat_quads`: candidate quadrilaterals from colour / brightness segmentations and
   edges of a reduced image; the largest convex one whose shape fits the board's aspect ratio;
2. :func:`~calibration.edges.fit_quad_edges` at full resolution: a line fitted to each side's edge
   points, corners at their intersections (subpixel, insensitive to rounded corners);
3. orientation: which side is the board's length follows from the aspect ratio; the remaining
   half-turn from the board's printed content (the rectified mat against a drawing of the board's
   regions and lines). A board whose print looks the same both ways round cannot tell: the result
   says so (``extra["orientation"] == "ambiguous"``), and ``flip=True`` turns it.
"""

from __future__ import annotations

import numpy as np

from calibration.board import Board
from calibration.config import OutlineConfig
from calibration.errors import OutlineNotFoundError, RegistrationError
from calibration.transform import MatTransform, apply_homography, homography_covariance, homography_is_sane


def _orient_positive(quad: np.ndarray) -> np.ndarray:
    """Order a convex quad's corners so that it turns like the mat's corners (clockwise on screen)."""
    x, y = quad[:, 0], quad[:, 1]
    area2 = np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
    return quad if area2 > 0 else quad[::-1].copy()


def _shape_error(H: np.ndarray, K: np.ndarray) -> float:
    """How far ``K⁻¹ H`` is from a scaled rotation's first two columns: |‖r1‖/‖r2‖ − 1| + |cos(r1, r2)|."""
    B = np.linalg.inv(K) @ H
    r1, r2 = B[:, 0], B[:, 1]
    n1, n2 = np.linalg.norm(r1), np.linalg.norm(r2)
    return float(abs(n1 / n2 - 1.0) + abs(np.dot(r1, r2)) / (n1 * n2))


def aspect_error(H: np.ndarray, image_size: tuple[int, int], K: np.ndarray | None = None) -> float:
    """How badly ``H`` (mat mm → undistorted px) fits a rectangle of the board's proportions seen by
    a real camera: |‖r1‖/‖r2‖ − 1| + |cos(r1, r2)| of the recovered rotation (0 when the board's
    length and width are on the right image sides). Without ``K`` the best focal length in a
    webcam's range (0.4 to 3 image widths, square pixels, centred principal point) is used: a
    trapezoid alone cannot tell a focal length from an aspect ratio."""
    w, h = image_size
    if K is not None:
        return _shape_error(H, K)
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    best = np.inf
    for f in w * np.geomspace(0.4, 3.0, 48):
        best = min(best, _shape_error(H, np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])))
    return float(best)


def _table_mask(small: np.ndarray) -> np.ndarray:
    """uint8 mask of what differs from the table: the table is what the image's border shows."""
    import cv2

    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    b = max(2, int(0.03 * min(h, w)))
    border = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3), lab[:, :b].reshape(-1, 3),
                             lab[:, -b:].reshape(-1, 3)])
    med = np.median(border, axis=0)
    spread = np.median(np.abs(border - med), axis=0) * 1.4826 + 2.0
    dist = np.sqrt(np.sum(((lab - med) / spread) ** 2, axis=2))
    dist = np.clip(dist * (255.0 / max(float(np.percentile(dist, 99)), 1e-6)), 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(dist, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return mask


def _sides_from_contour(contour: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Corners of ``quad`` re-made from lines fitted to the contour points along each of its sides
    (away from the corners), twice, with a tighter band the second time: a polygon approximation
    cuts acute corners and stretches to things touching a corner (a marker's paper), lines through
    the middle of the sides do not. The quad as given when a side has too few points."""
    from calibration.edges import fit_line, intersect_lines

    for tol in (0.1, 0.02):
        lines = []
        for k in range(4):
            a, b = quad[k], quad[(k + 1) % 4]
            d = b - a
            length = float(np.linalg.norm(d))
            if length < 4:
                return quad
            u = d / length
            rel = contour - a
            along = rel @ u
            across = np.abs(rel @ np.array([-u[1], u[0]]))
            near = (along > 0.2 * length) & (along < 0.8 * length) & (across < max(2.0, tol * length))
            if near.sum() < 5:
                return quad
            lines.append(fit_line(contour[near])[0])
        out = []
        for k in range(4):
            c = intersect_lines(lines[(k - 1) % 4], lines[k])
            if c is None or np.linalg.norm(c - quad[k]) > 0.25 * np.linalg.norm(quad[k] - quad[(k + 2) % 4]):
                return quad
            out.append(c)
        quad = np.array(out)
    return quad


def _candidates(small: np.ndarray, cfg: OutlineConfig) -> list[np.ndarray]:
    """Convex 4-gons (small-image px) from Otsu segmentations of L, a, b, saturation (both ways)
    and from closed edges."""
    import cv2

    h, w = small.shape[:2]
    min_area = cfg.min_area_fraction * w * h
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    channels = [lab[:, :, 0], lab[:, :, 1], lab[:, :, 2], hsv[:, :, 1]]
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    masks = [cv2.morphologyEx(cv2.morphologyEx(_table_mask(small), cv2.MORPH_OPEN, kernel), cv2.MORPH_CLOSE, kernel)]
    for ch in channels:
        ch = cv2.GaussianBlur(ch, (5, 5), 0)
        _, m = cv2.threshold(ch, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        for mask in (m, 255 - m):
            mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
            masks.append(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel))
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    med = float(np.median(grey))
    edges = cv2.Canny(grey, max(5, 0.5 * med), max(15, 1.2 * med))
    edges = cv2.dilate(edges, kernel)
    quads = []
    for mask, mode in [(m, cv2.RETR_EXTERNAL) for m in masks] + [(edges, cv2.RETR_EXTERNAL), (edges, cv2.RETR_LIST)]:
        contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            if cv2.contourArea(c) < min_area:
                continue
            hull = cv2.convexHull(c)
            if mode == cv2.RETR_EXTERNAL and cv2.contourArea(c) < 0.85 * cv2.contourArea(hull):
                continue  # not a solid quadrilateral (a blob of several things)
            peri = cv2.arcLength(hull, True)
            approx = cv2.approxPolyDP(hull, cfg.approx_epsilon_fraction * peri, True)
            if len(approx) != 4 or not cv2.isContourConvex(approx):
                continue
            quad = _sides_from_contour(c.reshape(-1, 2).astype(np.float64), approx.reshape(4, 2).astype(np.float64))
            # a quad touching the image border is cut by it, not the mat's own outline
            if np.any(quad[:, 0] <= 1) or np.any(quad[:, 1] <= 1) or np.any(quad[:, 0] >= w - 2) or np.any(quad[:, 1] >= h - 2):
                continue
            quads.append(_orient_positive(quad))
    return quads


def _assignments(quad: np.ndarray, board: Board, image_size, K) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """The four ways the quad's corners can be the mat's (TL, TR, BR, BL): (aspect error, H, quad
    rolled), best first."""
    import cv2

    mat = board.corners_mm().astype(np.float32)
    out = []
    for k in range(4):
        q = np.roll(quad, -k, axis=0)
        H = cv2.getPerspectiveTransform(mat, q.astype(np.float32))
        out.append((aspect_error(H, image_size, K), H, q))
    return sorted(out, key=lambda a: a[0])


def _edge_strength(small: np.ndarray) -> np.ndarray:
    """bool (h, w): pixels within 2 px of a strong colour edge (gradient above a third of the image's
    95th percentile)."""
    import cv2

    img = cv2.GaussianBlur(small, (3, 3), 0).astype(np.float32)
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1)
    mag = np.sqrt(np.sum(gx**2 + gy**2, axis=2))
    strong = (mag > max(1e-3, float(np.percentile(mag, 95))) / 3).astype(np.uint8)
    return cv2.dilate(strong, np.ones((5, 5), np.uint8)).astype(bool)


def _edge_support(strong: np.ndarray, quad: np.ndarray) -> float:
    """Share of points along the quad's sides (middle 80 % of each) that lie on a strong edge: the
    mat's outline is an edge all along, a hull spanning separate things is not."""
    h, w = strong.shape
    hits, total = 0, 0
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        ts = np.linspace(0.1, 0.9, 60)
        pts = np.round(a[None, :] + ts[:, None] * (b - a)[None, :]).astype(int)
        ok = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
        hits += int(strong[pts[ok, 1], pts[ok, 0]].sum())
        total += len(ts)
    return hits / max(total, 1)


def find_mat_quads(image: np.ndarray, board: Board, cfg: OutlineConfig, K: np.ndarray | None = None) -> list[np.ndarray]:
    """Candidate mat outlines, (4, 2) image px each, largest first: convex quadrilaterals of the
    board's shape whose sides lie on strong edges. Their corners are rough (a few px) and their
    start corner is not resolved. :class:`OutlineNotFoundError` if there is none."""
    import cv2

    h, w = image.shape[:2]
    f = min(1.0, cfg.max_side_px / max(w, h))
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else image
    support = _edge_strength(small)
    found: list[tuple[float, np.ndarray]] = []
    for quad in _candidates(small, cfg):
        full = (quad + 0.5) / f - 0.5
        if _assignments(full, board, (w, h), K)[0][0] > cfg.aspect_tolerance:
            continue
        if _edge_support(support, quad) < cfg.min_edge_support:
            continue
        area = float(cv2.contourArea(full.astype(np.float32)))
        if any(np.max(np.linalg.norm(full - q, axis=1)) < 2.0 / f for _, q in found):
            continue  # the same outline from another segmentation
        found.append((area, full))
    if not found:
        raise OutlineNotFoundError(
            f"no outline of the {board.length_mm:g} x {board.width_mm:g} mm mat found: keep all four of its corners "
            "in view against a table of a different colour or brightness, or register with the board's markers")
    return [q for _, q in sorted(found, key=lambda aq: -aq[0])]


def _fit_outline(img: np.ndarray, rough: np.ndarray, cfg: OutlineConfig, f: float):
    """Subpixel corners from a rough quad: a wide search for the strongest edge along each side,
    then a narrow one for the outermost (the mat's edge, not a border printed just inside it)."""
    from calibration.edges import fit_quad_edges

    chans = img.astype(np.float32)
    sides = np.linalg.norm(np.roll(rough, -1, axis=0) - rough, axis=1)
    wide = max(cfg.edge_band_px, 1.5 / f, 0.03 * float(sides.min()))
    coarse = fit_quad_edges(chans, rough, band_px=wide, exclude=cfg.corner_exclusion_fraction, iterations=2,
                            shrink=False)
    if coarse is None:
        return None
    return fit_quad_edges(chans, coarse.corners, band_px=cfg.edge_band_px, exclude=cfg.corner_exclusion_fraction,
                          iterations=2, outer=cfg.outer_edge_fraction, shrink=False)


def _template_edges(board: Board, mm_per_px: float) -> tuple[np.ndarray, np.ndarray, bool]:
    """(edges of the board's drawing inside its border band, that band's inside, whether the print
    looks the same after a half-turn), at ``mm_per_px``."""
    import cv2

    from calibration.rectify import board_template

    template = board_template(board, mm_per_px)
    th, tw = template.shape
    edges = cv2.Canny(template, 20, 60) > 0
    band = int(round(12.0 / mm_per_px))  # the outline itself says nothing about the turn
    inner = np.zeros_like(edges)
    inner[band:th - band, band:tw - band] = True
    edges &= inner
    turned = edges[::-1, ::-1]
    if edges.sum() < 20:
        return edges, inner, True
    near = cv2.dilate(edges.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    return edges, inner, bool(np.sum(near & turned) >= 0.9 * turned.sum())


def _content_score(image: np.ndarray, H: np.ndarray, board: Board, K, edges: np.ndarray, inner: np.ndarray,
                   mm_per_px: float) -> float:
    """Mean image gradient on the board's drawn edges over the mean inside the mat, in the view
    rectified by ``H``: high when the print lines up with the drawing."""
    import cv2

    from calibration.rectify import rectify_image

    t = MatTransform(H=H, image_size=(image.shape[1], image.shape[0]), K=K, dist=None)
    th, tw = edges.shape
    top = rectify_image(image, t, board, mm_per_px, 0.0)[:th, :tw]
    grey = cv2.GaussianBlur(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    mag = np.sqrt(cv2.Sobel(grey, cv2.CV_32F, 1, 0) ** 2 + cv2.Sobel(grey, cv2.CV_32F, 0, 1) ** 2)
    mag = cv2.dilate(mag, np.ones((3, 3), np.uint8))  # tolerate a pixel of misalignment
    return float(np.mean(mag[edges]) / (float(np.mean(mag[inner])) + 1e-6)) if edges.any() else 1.0


def _choose_orientation(image, quad, board: Board, cfg: OutlineConfig, K):
    """(H, orientation, ratio, aspect error): which corner of ``quad`` is the mat's origin. Length
    versus width by the aspect ratio (or by the print when the view cannot tell them apart), then
    the half-turn by the print; "ambiguous" when the print cannot tell."""
    options = _assignments(quad, board, (image.shape[1], image.shape[0]), K)  # best aspect first
    mm_per_px = max(board.length_mm, board.width_mm) / 400.0
    edges, inner, symmetric = _template_edges(board, mm_per_px)
    by_roll = {}
    for err, H, q in options:
        k = int(np.argmin(np.linalg.norm(quad - q[0], axis=1)))
        by_roll[k] = (err, H, q)
    pairs = []
    for k in (0, 1):
        a, b = by_roll[k], by_roll[k + 2]
        pairs.append((min(a[0], b[0]), a, b))
    pairs.sort(key=lambda p: p[0])
    plausible = [p for p in pairs if p[0] <= cfg.aspect_tolerance] or pairs[:1]
    scored = []
    for err, a, b in plausible:
        sa = _content_score(image, a[1], board, K, edges, inner, mm_per_px)
        sb = _content_score(image, b[1], board, K, edges, inner, mm_per_px)
        scored.append((err, a, b, sa, sb))
    if len(scored) == 2:
        best = [max(x[3], x[4]) for x in scored]
        hi, lo = max(best), min(best)
        if hi / max(lo, 1e-6) >= cfg.orientation_min_ratio:
            scored = [scored[int(np.argmax(best))]]
    err, a, b, sa, sb = scored[0]
    ratio = max(sa, sb) / max(min(sa, sb), 1e-6)
    if ratio >= cfg.orientation_min_ratio and not symmetric:
        return (a[1] if sa >= sb else b[1]), "print", ratio, err
    # cannot tell: put the mat's origin at the corner nearest the image's top-left, by convention
    first = min((a, b), key=lambda o: float(o[2][0, 0] + o[2][0, 1]))
    return first[1], "ambiguous", ratio, err


def register_outline(image: np.ndarray, board: Board, cfg: OutlineConfig, intrinsics=None,
                     flip: bool = False) -> MatTransform:
    """Register the mat from its outline (see the module docstring). ``intrinsics`` (a
    :class:`~calibration.intrinsics.CameraIntrinsics`) undistorts first; ``flip`` turns the
    result by half a turn (when the print cannot tell, or told wrong)."""
    import cv2

    from calibration.capture import check_image

    img = check_image(image)
    h, w = img.shape[:2]
    K = dist = None
    if intrinsics is not None:
        intrinsics = intrinsics.scaled_to((w, h))
        K = np.asarray(intrinsics.K, dtype=np.float64)
        dist = None if intrinsics.dist is None else np.asarray(intrinsics.dist, dtype=np.float64)
        if dist is not None and np.any(dist):
            img = cv2.undistort(img, K, dist, None, K)
    f = min(1.0, cfg.max_side_px / max(w, h))
    smooth = cv2.GaussianBlur(img, (0, 0), 0.7)
    failure = None
    for rough in find_mat_quads(img, board, cfg, K):
        fit = _fit_outline(smooth, rough, cfg, f)
        if fit is None:
            failure = "the mat's edges are not straight or clear enough to fit"
            continue
        quad = _orient_positive(fit.corners)
        H, orientation, ratio, aspect = _choose_orientation(img, quad, board, cfg, K)
        if aspect > cfg.aspect_tolerance:
            failure = (f"the outline found is not the shape of a {board.length_mm:g} x {board.width_mm:g} mm mat "
                       f"(off by {aspect:.0%})")
            continue
        break
    else:
        raise OutlineNotFoundError(f"{failure}: light the table evenly, keep the mat flat and all of it in view, "
                                   "or register with the board's markers")
    if flip:
        q = apply_homography(H, board.corners_mm())
        H = cv2.getPerspectiveTransform(board.corners_mm().astype(np.float32), np.roll(q, -2, axis=0).astype(np.float32))
        orientation += "+flip"
    H = np.asarray(H, dtype=np.float64)
    H = H / H[2, 2]
    reason = homography_is_sane(H, board.corners_mm())
    if reason:
        raise RegistrationError(reason)
    rms = float(np.sqrt(np.mean(fit.rms_px**2)))
    n = max(float(np.mean(fit.counts)), 1.0)
    sigma = max(cfg.sigma_floor_px, 2.0 * rms / np.sqrt(n))
    cov = homography_covariance(H, board.corners_mm(), sigma)
    t = MatTransform(H=H, image_size=(w, h), K=K, dist=dist, residual_px=rms, cov_h=cov, n_points=int(fit.counts.sum()),
                     method="outline", board=board.ref)
    t.extra.update({"orientation": orientation, "orientation_ratio": float(ratio),
                    "aspect_error": float(aspect), "edge_rms_px": [float(v) for v in fit.rms_px], "sigma_px": float(sigma),
                    "corners_px": quad.tolist(), "focal_estimated": intrinsics is None})
    return t
