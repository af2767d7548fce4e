"""Cards in a photo: find their quads and rectify them upright. Everything in **image px**.

``find_card_quads(image)`` is the classical finder, with no board and no model, so it works on any
photo: a card is a bright, nearly uniform, convex quadrilateral with the proportions of a card. It
segments light, low-saturation regions (Otsu on a blurred grey image and an adaptive threshold for
uneven light) and edges (Canny, closed), takes the outer contours, simplifies each
(``approxPolyDP``, else ``minAreaRect``), and keeps quads whose area, convexity, fill and aspect
ratio fit a card; overlapping candidates are merged by non-maximum suppression on quad IoU.

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
    ``nms_iou`` above which two candidates are the same card."""

    min_area: float = 0.004
    max_area: float = 0.6
    aspect: tuple = (1.05, 2.1)
    min_fill: float = 0.82
    max_side: int = 640
    nms_iou: float = 0.5
    min_brightness: float = 0.45


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
        if qa <= 0 or area / qa < cfg.min_fill or cv2.contourArea(hull) / qa > 1.0 / cfg.min_fill:
            continue
        q = order_clockwise(quad)
        edges = np.linalg.norm(q - np.roll(q, -1, 0), axis=1)
        long_, short = max(edges[0] + edges[2], edges[1] + edges[3]), min(edges[0] + edges[2], edges[1] + edges[3])
        if short <= 0 or not (cfg.aspect[0] <= long_ / short <= cfg.aspect[1]):
            continue
        out.append((q, qa))
    return out


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
    bright = ((blur.astype(np.float32) > np.percentile(blur, 70)) & (hsv[:, :, 1] < 90)).astype(np.uint8) * 255
    masks.append(cv2.morphologyEx(bright, cv2.MORPH_CLOSE, k3, iterations=2))
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
    cands = []
    for m in masks:
        cands.extend(_candidates(m, cfg, area))
    if not cands:
        return np.zeros((0, 4, 2)), np.zeros(0)
    quads = np.array([c[0] for c in cands])
    scores = np.array([_score(grey, hsv, q) for q in quads])
    keep = scores >= cfg.min_brightness
    quads, scores = quads[keep], scores[keep]
    order = _nms(quads, scores, cfg.nms_iou)
    quads, scores = quads[order], scores[order]
    return quads / f, scores


def _score(grey: np.ndarray, hsv: np.ndarray, quad: np.ndarray) -> float:
    """How card-like the inside of ``quad`` is: bright, unsaturated, brighter than its surround."""
    import cv2

    mask = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 255)
    inner = cv2.erode(mask, np.ones((5, 5), np.uint8))
    ring = cv2.dilate(mask, np.ones((9, 9), np.uint8)) & ~mask
    if inner.sum() == 0 or ring.sum() == 0:
        return 0.0
    v_in = np.median(grey[inner > 0]) / 255.0
    v_out = np.median(grey[ring > 0]) / 255.0
    s_in = np.median(hsv[:, :, 1][inner > 0]) / 255.0
    contrast = np.clip((v_in - v_out) * 3.0, 0, 1)
    return float(np.clip(0.5 * v_in + 0.3 * contrast + 0.2 * (1.0 - s_in), 0, 1))


def _nms(quads: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    if not len(quads):
        return np.zeros(0, dtype=np.int64)
    # prefer card-like, then larger (a card over the pip inside it)
    areas = quad_area(quads)
    order = np.lexsort((-areas, -np.round(scores, 1)))
    ious = quad_iou_batch(quads, quads)
    keep = []
    suppressed = np.zeros(len(quads), bool)
    for i in order:
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= ious[i] > iou
        # a candidate inside a kept card (a court card's picture frame) is not another card
        inside = np.array([_inside(quads[j], quads[i]) for j in range(len(quads))])
        suppressed |= inside
    return np.array(keep, dtype=np.int64)


def _inside(inner: np.ndarray, outer: np.ndarray) -> bool:
    import cv2

    o = outer.astype(np.float32).reshape(-1, 1, 2)
    return all(cv2.pointPolygonTest(o, (float(x), float(y)), False) >= 0 for x, y in inner)
