"""Cards in a photo: find their quads and rectify them upright. Everything in **image px**.

``find_card_quads(image)`` is the classical finder, with no board and no model, so it works on any
photo: a card is a bright, nearly uniform, convex quadrilateral with the proportions of a card. It
segments light, low-saturation regions (Otsu on a blurred grey image and an adaptive threshold for
uneven light) and edges (Canny, closed), and the light regions cut along the edges (so that
touching cards come apart), takes the outer contours, simplifies each (``approxPolyDP``, else
``minAreaRect``), and keeps quads whose area, convexity, fill, aspect ratio and corners (near
square) fit a card and whose margin (the band just inside the edge) is mostly white card stock
that stands out from the surround; overlapping candidates are merged by non-maximum suppression on
quad IoU, a quad that two card quads lying apart fill is dropped for them (touching cards), a
candidate inside a kept card is dropped, and so is one far smaller than a more card-like find (the
cards of one photo are of a size).

``rectify_card(image, quad_px, size)`` warps a card's quad to a canonical upright crop: portrait
(the short edge on top), corners ordered clockwise as seen in the image; the remaining 180°
ambiguity is left to the classifier (it is trained on both ways up).

Batch-first: quads are (n, 4, 2) float, empty in → (0, 4, 2) out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CARD_ASPECT = 88.0 / 63.0  # long / short edge of a Dogo Dash card (a poker card is 88.9 / 63.5)


@dataclass(frozen=True)
class CardFinderConfig:
    """``min_area`` / ``max_area`` of a card as fractions of the image; ``aspect`` the accepted
    range of long/short edge in the image (perspective stretches it); ``min_fill`` contour area over
    quad area; ``max_side`` the longest image side the finder works at (bigger photos are shrunk);
    ``nms_iou`` above which two candidates are the same card; ``min_score`` the least card-likeness
    (0.6 × the fraction of white card stock inside + 0.4 × the contrast with the surround);
    ``min_ink`` the least printed fraction of the inside (blank paper is not a card);
    ``min_corner_deg`` how far from square (90 ± 45°) a corner may look in perspective;
    ``min_margin_white`` the least white fraction of the margin (a card's plain border);
    ``max_size_ratio`` how much bigger (area) a more card-like find may be than a card of the same photo."""

    min_area: float = 0.004
    max_area: float = 0.5
    aspect: tuple = (1.05, 2.1)
    min_fill: float = 0.82
    max_side: int = 640
    nms_iou: float = 0.5
    min_score: float = 0.45
    min_ink: float = 0.01
    open_px: tuple = (9, 17)
    min_corner_deg: float = 45.0
    min_margin_white: float = 0.5
    max_size_ratio: float = 4.0


def order_clockwise(quad_px) -> np.ndarray:
    """(4, 2) corners ordered clockwise in the image (y down), starting at the top-most-left one."""
    q = np.asarray(quad_px, np.float64).reshape(4, 2)
    c = q.mean(0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]  # increasing angle with y down = clockwise on screen
    start = int(np.argmin(q[:, 0] + q[:, 1]))
    return np.roll(q, -start, axis=0)


def upright_corners(quad_px) -> np.ndarray:
    """(4, 2) corners (top-left, top-right, bottom-right, bottom-left) of the card rectified
    portrait: clockwise, the first edge a short one, starting at the corner nearest the image top."""
    q = order_clockwise(quad_px)
    e01 = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])
    e12 = np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[0] - q[3])
    if e01 > e12:  # first edge long: start one corner later so that it is short
        q = np.roll(q, -1, axis=0)
    # of the two short edges, put the one higher in the image on top
    if q[2:, 1].mean() + q[2:, 0].mean() * 1e-3 < q[:2, 1].mean() + q[:2, 0].mean() * 1e-3:
        q = np.roll(q, 2, axis=0)
    return q


def rectify_card(image: np.ndarray, quad_px, size: tuple = (40, 56)) -> np.ndarray:
    """The card inside ``quad_px`` (4, 2) image px warped to a portrait BGR crop of ``size`` (w, h)."""
    import cv2

    w, h = int(size[0]), int(size[1])
    src = upright_corners(quad_px).astype(np.float32)
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    M = cv2.getPerspectiveTransform(src, dst)
    # shrink with area averaging first when the card is much bigger than the crop (no aliasing)
    scale = min(np.linalg.norm(src[1] - src[0]) / w, np.linalg.norm(src[3] - src[0]) / h)
    if scale > 2.0:
        f = 1.0 / (scale / 1.5)
        small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        src2 = src * np.float32([small.shape[1] / image.shape[1], small.shape[0] / image.shape[0]])
        M = cv2.getPerspectiveTransform(src2, dst)
        image = small
    return cv2.warpPerspective(image, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def card_quads_px(transform, xy_mm, angle_deg, size_mm, height_mm=0.3) -> np.ndarray:
    """(n, 4, 2) image px corners of cards known in **mat mm**: centres ``xy_mm`` (n, 2), turns
    ``angle_deg`` (n,) (from +x towards +y), ``size_mm`` (n, 2) length along the turn and width,
    seen on the plane of their top at ``height_mm`` through ``transform`` (a ``MatTransform``)."""
    xy = np.asarray(xy_mm, np.float64).reshape(-1, 2)
    n = len(xy)
    ang = np.radians(np.broadcast_to(np.asarray(angle_deg, np.float64), (n,)))
    size = np.broadcast_to(np.asarray(size_mm, np.float64).reshape(-1, 2), (n, 2))
    unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    out = np.zeros((n, 4, 2))
    for i in range(n):
        c, s_ = np.cos(ang[i]), np.sin(ang[i])
        local = unit * size[i]
        pts = xy[i] + local @ np.array([[c, s_], [-s_, c]])
        out[i] = transform.mat_to_image(pts, height_mm)
    return out


# ------------------------------------------------------------------------------------------------
# quad geometry (batch-first)


def quad_area(quads_px) -> np.ndarray:
    """(n,) areas of (n, 4, 2) quads (shoelace)."""
    q = np.asarray(quads_px, np.float64).reshape(-1, 4, 2)
    x, y = q[..., 0], q[..., 1]
    return 0.5 * np.abs((x * np.roll(y, -1, 1) - np.roll(x, -1, 1) * y).sum(1))


def quads_to_xyxy(quads_px) -> np.ndarray:
    """(n, 4) axis-aligned boxes of (n, 4, 2) quads."""
    q = np.asarray(quads_px, np.float64).reshape(-1, 4, 2)
    return np.concatenate([q.min(1), q.max(1)], axis=1) if len(q) else np.zeros((0, 4))


def box_iou_batch(a_xyxy, b_xyxy) -> np.ndarray:
    """(N, M) IoU of boxes (N, 4) and (M, 4) image px."""
    a = np.asarray(a_xyxy, np.float64).reshape(-1, 4)
    b = np.asarray(b_xyxy, np.float64).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def quad_iou_batch(a_quads, b_quads) -> np.ndarray:
    """(N, M) IoU of convex quads (N, 4, 2) and (M, 4, 2) (shapely polygons)."""
    from shapely import Polygon

    a = [Polygon(q).buffer(0) for q in np.asarray(a_quads, np.float64).reshape(-1, 4, 2)]
    b = [Polygon(q).buffer(0) for q in np.asarray(b_quads, np.float64).reshape(-1, 4, 2)]
    out = np.zeros((len(a), len(b)))
    for i, p in enumerate(a):
        for j, r in enumerate(b):
            inter = p.intersection(r).area
            union = p.area + r.area - inter
            out[i, j] = inter / union if union > 0 else 0.0
    return out


# ------------------------------------------------------------------------------------------------
# the finder


def _candidates(binary: np.ndarray, cfg: CardFinderConfig, img_area: float) -> list:
    import cv2

    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for c in contours:
        area = cv2.contourArea(c)
        if not (cfg.min_area * img_area <= area <= cfg.max_area * img_area):
            continue
        hull = cv2.convexHull(c)
        peri = cv2.arcLength(hull, True)
        quad = None
        for eps in (0.02, 0.035, 0.05):
            approx = cv2.approxPolyDP(hull, eps * peri, True)
            if len(approx) == 4:
                quad = approx.reshape(4, 2).astype(np.float64)
                break
        if quad is None:
            quad = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
        qa = float(quad_area(quad)[0])
        if qa <= 0 or not (cfg.min_fill <= area / qa <= 1.0 / cfg.min_fill):
            continue
        q = order_clockwise(quad)
        edges = np.linalg.norm(q - np.roll(q, -1, 0), axis=1)
        long_, short = max(edges[0] + edges[2], edges[1] + edges[3]), min(edges[0] + edges[2], edges[1] + edges[3])
        if short <= 0 or not (cfg.aspect[0] <= long_ / short <= cfg.aspect[1]):
            continue
        # a rectangle in perspective keeps its corners near square: a quad with a corner near 180°
        # is a triangle (a corner of the table, two cards' hull) and not a card
        if _min_corner_deg(q) < cfg.min_corner_deg:
            continue
        out.append((q, area / qa))
    return out


def _min_corner_deg(q: np.ndarray) -> float:
    """The smallest interior angle of a convex quad's corners (the largest is 360 minus the others)."""
    a = np.roll(q, 1, 0) - q
    b = np.roll(q, -1, 0) - q
    cos = (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-9)
    ang = np.degrees(np.arccos(np.clip(cos, -1, 1)))
    return float(min(ang.min(), 180.0 - ang.max()))


def find_card_quads(image: np.ndarray, config: CardFinderConfig | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Cards in a BGR photo: (n, 4, 2) quads in **image px** (clockwise, see ``order_clockwise``) and
    (n,) scores (0..1: how card-like: fill, brightness, contrast with the surround)."""
    import cv2

    cfg = config or CardFinderConfig()
    h0, w0 = image.shape[:2]
    f = min(1.0, cfg.max_side / max(h0, w0))
    img = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1.0 else image
    h, w = img.shape[:2]
    area = float(h * w)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    blur = cv2.GaussianBlur(grey, (5, 5), 0)
    k3 = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    masks = []
    _, otsu = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    masks.append(otsu)
    k5 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    masks.append(cv2.morphologyEx(otsu, cv2.MORPH_OPEN, k5, iterations=2))
    white_v = 0.7 * float(np.percentile(hsv[:, :, 2], 99.5))
    white = ((hsv[:, :, 2] >= white_v) & (hsv[:, :, 1] < 70)).astype(np.uint8) * 255
    white = cv2.morphologyEx(white, cv2.MORPH_CLOSE, k5, iterations=2)
    masks.append(cv2.morphologyEx(white, cv2.MORPH_OPEN, k5, iterations=2))
    block = int(max(31, (min(h, w) // 6) | 1))
    adapt = cv2.adaptiveThreshold(blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -8)
    masks.append(cv2.morphologyEx(adapt, cv2.MORPH_CLOSE, k3, iterations=2))
    edges = cv2.Canny(blur, 40, 120)
    edges = cv2.dilate(edges, k3, iterations=1)
    closed = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, k3, iterations=2)
    filled = np.zeros_like(closed)
    cnts, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, cnts, -1, 255, -1)
    masks.append(filled)
    # cards that touch or overlap make one light region; the edge of the card on top runs through
    # it: cut the light regions along the image's edges so that each card is a region of its own
    for m in (otsu, white):
        masks.append(cv2.morphologyEx(m & ~edges, cv2.MORPH_OPEN, k3))
    cands = []
    for m in masks:
        cands.extend(_candidates(m, cfg, area))
        # cut off the bright specks of a textured table that touch the card: fill the card's holes
        # (pips, pictures), then open with bigger round kernels
        outer, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        solid = np.zeros_like(m)
        cv2.drawContours(solid, outer, -1, 255, -1)
        for k in cfg.open_px:
            ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            cands.extend(_candidates(cv2.morphologyEx(solid, cv2.MORPH_OPEN, ker), cfg, area))
    if not cands:
        return np.zeros((0, 4, 2)), np.zeros(0)
    quads = np.array([c[0] for c in cands])
    fills = np.array([c[1] for c in cands])
    white_v = 0.7 * float(np.percentile(hsv[:, :, 2], 99.5))
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
    scores = np.array([_score(grey, hsv, q, white_v, lab, cfg.min_margin_white) for q in quads])
    ink = np.array([_ink(hsv, q, white_v) for q in quads])
    keep = (scores >= cfg.min_score) & (ink >= cfg.min_ink)
    quads, scores, fills = quads[keep], scores[keep], fills[keep]
    order = _nms(quads, scores, fills, cfg.nms_iou)
    quads, scores = quads[order], scores[order]
    # cards in one photo are of a size: a speck far smaller than a more card-like find is not one
    areas = quad_area(quads)
    small = np.array([bool(((scores >= scores[i]) & (areas > cfg.max_size_ratio * areas[i])).any()) for i in range(len(quads))], bool)
    quads, scores = quads[~small], scores[~small]
    gx = cv2.Sobel(blur.astype(np.float32), cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(blur.astype(np.float32), cv2.CV_32F, 0, 1, ksize=3)
    quads = np.array([refine_quad(gx, gy, refine_quad(gx, gy, q)) for q in quads]).reshape(-1, 4, 2)
    return (quads + 0.5) / f - 0.5, scores


def refine_quad(gx: np.ndarray, gy: np.ndarray, quad: np.ndarray, search: float = 0.06, samples: int = 24) -> np.ndarray:
    """Corners moved onto the image's edges: along each side, the strongest gradient across it
    within ``search`` of the side's length (sub-pixel), a robust line through those points, and the
    corners where neighbouring lines cross. Sides without enough support keep their rough line."""
    import cv2

    q = np.asarray(quad, np.float64).reshape(4, 2)
    h, w = gx.shape
    lines = []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        d = b - a
        length = float(np.linalg.norm(d))
        if length < 8:
            lines.append(None)
            continue
        t = d / length
        n = np.array([-t[1], t[0]])
        reach = max(6.0, search * length)
        offs = np.arange(-reach, reach + 0.5, 0.5)
        ts = np.linspace(0.12, 0.88, samples)
        pts = a[None] + ts[:, None] * d[None]
        cand = pts[:, None, :] + offs[None, :, None] * n[None, None, :]
        xs = np.clip(np.round(cand[..., 0]).astype(int), 0, w - 1)
        ys = np.clip(np.round(cand[..., 1]).astype(int), 0, h - 1)
        # gradient across the side (either polarity)
        across = np.abs(gx[ys, xs] * n[0] + gy[ys, xs] * n[1])
        k = across.argmax(1)
        ok = (across[np.arange(samples), k] > 0.5 * np.median(across.max(1))) & (k > 0) & (k < len(offs) - 1)
        if ok.sum() < 6:
            lines.append(None)
            continue
        kk = k[ok]
        y0, y1, y2 = across[ok, kk - 1], across[ok, kk], across[ok, kk + 1]
        den = y0 - 2 * y1 + y2
        sub = np.where(np.abs(den) > 1e-9, 0.5 * (y0 - y2) / np.where(np.abs(den) > 1e-9, den, 1), 0.0)
        off = offs[kk] + 0.5 * np.clip(sub, -1, 1)
        edge = pts[ok] + off[:, None] * n[None]
        vx, vy, x0, y0_ = cv2.fitLine(edge.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(-1)
        lines.append((np.array([x0, y0_], np.float64), np.array([vx, vy], np.float64)))
    out = q.copy()
    for i in range(4):
        l1, l2 = lines[(i - 1) % 4], lines[i]
        if l1 is None or l2 is None:
            continue
        p1, v1 = l1
        p2, v2 = l2
        A = np.array([v1, -v2]).T
        if abs(np.linalg.det(A)) < 1e-6:
            continue
        s_ = np.linalg.solve(A, p2 - p1)
        c = p1 + s_[0] * v1
        if np.linalg.norm(c - q[i]) < 0.15 * np.linalg.norm(q[(i + 1) % 4] - q[i]) + 3:
            out[i] = c
    return out


def _score(grey: np.ndarray, hsv: np.ndarray, quad: np.ndarray, white_v: float, lab: np.ndarray | None = None,
           min_white: float = 0.0) -> float:
    """How card-like ``quad`` is: its margin (a band just inside its edge, where a card is plain card
    stock whatever is printed in the middle: pips, a court picture) is white (bright, unsaturated)
    and stands out from its surround: brighter, or (on a light table) of another colour than the
    table (``lab``: the image in CIE Lab; None: brightness only). 0 when less than ``min_white`` of
    the margin is white."""
    import cv2

    q = np.round(quad).astype(np.int32)
    mask = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(mask, q, 255)
    edges = np.linalg.norm(quad - np.roll(quad, -1, 0), axis=1)
    short = float(min(edges[0] + edges[2], edges[1] + edges[3])) / 2
    k_in = max(3, int(round(0.03 * short)) | 1)
    k_margin = max(k_in + 4, int(round(0.2 * short)) | 1)
    outer = cv2.erode(mask, np.ones((k_in, k_in), np.uint8))
    band = outer & ~cv2.erode(mask, np.ones((k_margin, k_margin), np.uint8))
    ring = cv2.dilate(mask, np.ones((9, 9), np.uint8)) & ~mask
    if band.sum() == 0 or ring.sum() == 0:
        return 0.0
    v, s = hsv[:, :, 2][band > 0].astype(np.float32), hsv[:, :, 1][band > 0].astype(np.float32)
    white = float(((v >= white_v) & (s < 70)).mean())
    v_in = np.median(grey[band > 0]) / 255.0
    v_out = np.median(grey[ring > 0]) / 255.0
    contrast = float(np.clip((v_in - v_out) * 4.0, 0, 1))
    if lab is not None:
        ab_in = np.median(lab[:, :, 1:][band > 0].astype(np.float32), axis=0)
        ab_out = np.median(lab[:, :, 1:][ring > 0].astype(np.float32), axis=0)
        contrast = max(contrast, float(np.clip(np.linalg.norm(ab_in - ab_out) / 15.0, 0, 1)))
    if white < min_white:
        return 0.0  # printed or coloured to its edge: a flyer, a box, a book's page, not a card
    return float(np.clip(0.6 * white + 0.4 * contrast, 0, 1))


def _ink(hsv: np.ndarray, quad: np.ndarray, white_v: float) -> float:
    """The fraction of the inside of ``quad`` that is printed (dark or coloured): a card carries
    pips, an index, a picture; a blank sheet of paper or a napkin does not."""
    import cv2

    mask = np.zeros(hsv.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 255)
    inner = cv2.erode(mask, np.ones((7, 7), np.uint8)) > 0
    if not inner.any():
        return 0.0
    v, s = hsv[:, :, 2][inner].astype(np.float32), hsv[:, :, 1][inner].astype(np.float32)
    return float(((v < 0.6 * white_v) | (s > 80)).mean())


def _nms(quads: np.ndarray, scores: np.ndarray, fills: np.ndarray, iou: float) -> np.ndarray:
    if not len(quads):
        return np.zeros(0, dtype=np.int64)
    # prefer card-like, then the tightest quad (a speck of the table merged into a corner makes it loose)
    areas = quad_area(quads)
    order = np.lexsort((np.round(np.abs(1.0 - fills), 3), -np.round(scores, 1)))
    ious = quad_iou_batch(quads, quads)
    inter = ious * (areas[:, None] + areas[None, :]) / (1.0 + ious)
    within = inter / np.maximum(areas[None, :], 1e-9)  # [i, j]: the fraction of j inside i
    n = len(quads)
    suppressed = np.zeros(n, bool)
    # a quad that two card quads lying apart fill is those two cards (touching cards seen as one)
    for i in range(n):
        js = np.where((within[i] >= 0.8) & (areas <= 0.85 * areas[i]) & (np.arange(n) != i))[0]
        for x in range(len(js)):
            j, k = js[x], js[x + 1:]
            both = (ious[j, k] < 0.3) & (areas[j] + areas[k] - inter[j, k] >= 0.7 * areas[i])
            if both.any():
                suppressed[i] = True
                break
    keep = []
    for i in order:
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= ious[i] > iou
        # a candidate (mostly) inside a kept card (a court card's picture frame, a pip) is not
        # another card: cards are all of a size, so one never lies wholly inside another
        suppressed |= (within[i] >= 0.8) & (areas < areas[i])
    return np.array(keep, dtype=np.int64)
