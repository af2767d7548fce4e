"""Evidence images: a verdict's shapes drawn on the top-down view and on the camera frame, with the
numbers in mm and in card lengths, saved as PNG for the judge's view and the match record.

Frames: shapes are in **mat mm**; the top-down view is mat mm scaled by ``px_per_mm`` (either the
camera frame rectified onto the mat through the MatTransform, or a drawing of the board); the camera
frame is **image px**, reached through ``MatTransform.mat_to_image`` (lens distortion included).
OpenCV is imported inside the functions. Drawing only: nothing here decides anything.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.core import Circle, Distance, Label, Polygon, RefereeError, Segment, Verdict

ANSWER_BGR = {"yes": (60, 160, 40), "no": (40, 40, 210), "too_close": (0, 150, 245)}
ROLE_BGR = {"region": (200, 120, 30), "blocker": (120, 120, 120), "candidate": (170, 90, 170), "area": (170, 90, 170),
            "boundary": (200, 120, 30), "footprint": (30, 120, 200)}
BOARD_BG = (235, 240, 235)
CIRCLE_POINTS = 96


def describe(verdict: Verdict, card_mm: float | None = None) -> list[str]:
    """Text lines for a verdict: question, answer, value and margin in mm and in card lengths."""
    lines = [verdict.question, f"{verdict.answer.upper()}" + (f" ({verdict.finding})" if verdict.finding else "")
             + (f", leaning {verdict.leaning}" if verdict.answer == "too_close" else "")]
    if verdict.unit == "mm":
        cards = f" = {verdict.value / card_mm:.3f} cards" if card_mm and np.isfinite(verdict.value) else ""
        lines.append(f"measured {verdict.value:.2f} mm{cards}, threshold {verdict.threshold:.2f} mm")
        mc = f" ({verdict.margin / card_mm:+.4f} cards)" if card_mm and np.isfinite(verdict.margin) else ""
        lines.append(f"margin {verdict.margin:+.2f} mm{mc}, sigma {verdict.sigma:.2f} mm, k {verdict.k:g}")
    else:
        lines.append(f"confidence {verdict.value:.3f}, threshold {verdict.threshold:.3f}")
    if verdict.frame_ids:
        lines.append("frames " + ", ".join(str(f) for f in verdict.frame_ids))
    return lines


def _circle_pts(c: Circle) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, CIRCLE_POINTS, endpoint=False)
    return np.column_stack([c.x + c.r * np.cos(t), c.y + c.r * np.sin(t)])


def _draw_shapes(img, shapes, to_px, colour, scale_text: float = 0.45) -> None:
    import cv2

    def poly(pts, bgr, closed=True, thick=2):
        p = to_px(np.asarray(pts, dtype=np.float64))
        if len(p) and np.all(np.isfinite(p)):
            cv2.polylines(img, [np.round(p * 16).astype(np.int32)], closed, bgr, thick, cv2.LINE_AA, shift=4)

    def text(xy_mm, s, bgr):
        p = to_px(np.asarray([xy_mm], dtype=np.float64))[0]
        if np.all(np.isfinite(p)):
            org = (int(p[0]), int(p[1]))
            cv2.putText(img, s, org, cv2.FONT_HERSHEY_SIMPLEX, scale_text, (255, 255, 255), 3, cv2.LINE_AA)
            cv2.putText(img, s, org, cv2.FONT_HERSHEY_SIMPLEX, scale_text, bgr, 1, cv2.LINE_AA)

    for s in shapes:
        role_bgr = ROLE_BGR.get(getattr(s, "role", ""), colour)
        if isinstance(s, Circle):
            poly(_circle_pts(s), role_bgr, thick=2 if s.role != "candidate" else 1)
            if s.label and s.role in ("subject", "blocker"):
                text((s.x + s.r * 0.7, s.y - s.r * 0.7), s.label, role_bgr)
        elif isinstance(s, Polygon):
            poly(s.points, role_bgr, thick=2 if s.role != "area" else 1)
        elif isinstance(s, Segment):
            bgr = colour if s.role in ("sight", "slide") else role_bgr
            poly([(s.x0, s.y0), (s.x1, s.y1)], bgr, closed=False)
        elif isinstance(s, Distance):
            poly([(s.x0, s.y0), (s.x1, s.y1)], colour, closed=False, thick=2)
            for end in ((s.x0, s.y0), (s.x1, s.y1)):
                p = to_px(np.asarray([end]))[0]
                if np.all(np.isfinite(p)):
                    cv2.circle(img, (int(p[0]), int(p[1])), 3, colour, -1, cv2.LINE_AA)
        elif isinstance(s, Label):
            text((s.x, s.y), s.text, colour)


def _caption(img, lines, colour) -> np.ndarray:
    import cv2

    import cv2 as _cv2

    need = max(_cv2.getTextSize(line, _cv2.FONT_HERSHEY_SIMPLEX, 0.55, 1)[0][0] for line in lines) + 16
    if img.shape[1] < need:  # a narrow close-up: widen it so that the numbers are never cut
        pad = np.full((img.shape[0], need - img.shape[1], 3), 255, dtype=np.uint8)
        img = np.hstack([img, pad])
    h = 22 * len(lines) + 12
    band = np.full((h, img.shape[1], 3), 255, dtype=np.uint8)
    for i, line in enumerate(lines):
        cv2.putText(band, line, (8, 22 * (i + 1)), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colour if i == 1 else (30, 30, 30),
                    1, cv2.LINE_AA)
    return np.vstack([img, band])


def _window(board, window):
    """(x0, y0, x1, y1) in mat mm: the whole board by default."""
    return (0.0, 0.0, board.length_mm, board.width_mm) if window is None else tuple(float(v) for v in window)


def board_drawing(board, px_per_mm: float = 1.0, window=None) -> np.ndarray:
    """(H, W, 3) BGR: a plain drawing of the board (mat, regions, lines, hexes, stones) in the
    top-down view: mat mm × ``px_per_mm`` over ``window`` (x0, y0, x1, y1) mm, the whole mat by
    default."""
    import cv2

    x0, y0, x1, y1 = _window(board, window)
    w, h = int(round((x1 - x0) * px_per_mm)), int(round((y1 - y0) * px_per_mm))
    img = np.full((h, w, 3), BOARD_BG, dtype=np.uint8)

    def px(pts):
        return np.round((np.asarray(pts, dtype=np.float64) - [x0, y0]) * px_per_mm * 16).astype(np.int32)

    for region in board.regions.values():
        if region.kind == "cell":
            continue
        cv2.polylines(img, [px(region.outline())], True, (190, 200, 190), 1, cv2.LINE_AA, shift=4)
    for line in board.lines.values():
        cv2.polylines(img, [px(line.as_array())], False, (150, 160, 150), 1, cv2.LINE_AA, shift=4)
    for track in board.tracks.values():
        r = track.hex_mm / np.sqrt(3.0)
        ang = np.radians(30 + 60 * np.arange(6))
        for c in track.centres():
            cv2.polylines(img, [px(c + r * np.column_stack([np.cos(ang), np.sin(ang)]))], True, (190, 200, 190), 1,
                          cv2.LINE_AA, shift=4)
    for stone in board.stones:
        c = (np.asarray(stone.center) - [x0, y0]) * px_per_mm
        cv2.circle(img, (int(c[0]), int(c[1])), int(6 * px_per_mm), (170, 180, 170), 1, cv2.LINE_AA)
    return img


def rectified_view(frame: np.ndarray, transform, board, px_per_mm: float = 1.0, window=None) -> np.ndarray:
    """The camera frame warped onto the mat plane: (H, W, 3) in mat mm × ``px_per_mm`` over
    ``window`` (x0, y0, x1, y1) mm, the whole mat by default (lens distortion removed first when the
    transform has it)."""
    import cv2

    x0, y0, x1, y1 = _window(board, window)
    img = frame
    if transform.dist is not None and np.any(transform.dist):
        img = cv2.undistort(frame, transform.K, transform.dist)
    S = np.array([[px_per_mm, 0, -x0 * px_per_mm], [0, px_per_mm, -y0 * px_per_mm], [0, 0, 1.0]])
    M = S @ np.linalg.inv(transform.H)
    size = (int(round((x1 - x0) * px_per_mm)), int(round((y1 - y0) * px_per_mm)))
    return cv2.warpPerspective(img, M, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=BOARD_BG)


def evidence_window(verdict: Verdict, pad_mm: float = 15.0) -> tuple:
    """(x0, y0, x1, y1) mat mm around the verdict's own shapes (regions and areas left out: they can
    be the size of the board), padded."""
    pts = []
    for s in verdict.evidence:
        if isinstance(s, Circle) and s.role in ("subject", "blocker"):
            pts += [(s.x - s.r, s.y - s.r), (s.x + s.r, s.y + s.r)]
        elif isinstance(s, (Segment, Distance)):
            pts += [(s.x0, s.y0), (s.x1, s.y1)]
    if not pts:
        return None
    pts = np.asarray(pts, dtype=np.float64)
    pts = pts[np.all(np.isfinite(pts), axis=1)]
    if not len(pts):
        return None
    lo, hi = pts.min(0) - pad_mm, pts.max(0) + pad_mm
    return (lo[0], lo[1], hi[0], hi[1])


def draw_top_down(verdict: Verdict, board, *, base: np.ndarray | None = None, px_per_mm: float = 1.0,
                  card_mm: float | None = None, window=None, caption: bool = True) -> np.ndarray:
    """The verdict's evidence on the top-down view (``base``: a rectified frame or a board drawing
    at ``px_per_mm`` over ``window``; a board drawing by default), with a caption of the numbers."""
    x0, y0, _, _ = _window(board, window)
    img = (base.copy() if base is not None else board_drawing(board, px_per_mm, window))
    colour = ANSWER_BGR[verdict.answer]
    _draw_shapes(img, verdict.evidence,
                 lambda p: (np.asarray(p, dtype=np.float64).reshape(-1, 2) - [x0, y0]) * px_per_mm, colour,
                 scale_text=0.45 if px_per_mm < 3 else 0.6)
    return _caption(img, describe(verdict, card_mm), colour) if caption else img


def zoom_panel(verdict: Verdict, board, *, frame=None, transform=None, px_per_mm: float = 8.0,
               max_px: int = 900, card_mm: float | None = None):
    """A close-up of the evidence (mat mm × up to ``px_per_mm``, at most ``max_px`` wide or high):
    the margin of a near call is a few pixels in the full view. None when nothing to zoom on."""
    window = evidence_window(verdict)
    if window is None:
        return None
    span = max(window[2] - window[0], window[3] - window[1])
    scale = min(px_per_mm, max_px / max(span, 1e-6))
    base = rectified_view(frame, transform, board, scale, window) if frame is not None and transform is not None else None
    return draw_top_down(verdict, board, base=base, px_per_mm=scale, card_mm=card_mm, window=window)


def draw_on_frame(verdict: Verdict, frame: np.ndarray, transform, *, card_mm: float | None = None) -> np.ndarray:
    """The verdict's evidence on the camera frame (image px through ``transform.mat_to_image``, the
    mat plane), with the same caption."""
    img = frame.copy()
    colour = ANSWER_BGR[verdict.answer]
    _draw_shapes(img, verdict.evidence, lambda p: transform.mat_to_image(np.asarray(p, dtype=np.float64).reshape(-1, 2)),
                 colour, scale_text=0.6)
    return _caption(img, describe(verdict, card_mm), colour)


def side_by_side(*images: np.ndarray, height: int = 720) -> np.ndarray:
    """Images scaled to one height and joined left to right."""
    import cv2

    out = []
    for im in images:
        scale = height / im.shape[0]
        out.append(cv2.resize(im, (max(1, int(round(im.shape[1] * scale))), height), interpolation=cv2.INTER_AREA))
    return np.hstack(out)


def render_evidence(verdict: Verdict, board, *, frame: np.ndarray | None = None, transform=None,
                    px_per_mm: float = 1.0, card_mm: float | None = None) -> np.ndarray:
    """The evidence image (BGR): the close-up, the top-down view (rectified when a frame and
    transform are given, else the board drawing) and, with a frame, the camera view, side by side."""
    base = rectified_view(frame, transform, board, px_per_mm) if frame is not None and transform is not None else None
    top = draw_top_down(verdict, board, base=base, px_per_mm=px_per_mm, card_mm=card_mm)
    panels = []
    zoom = zoom_panel(verdict, board, frame=frame, transform=transform, card_mm=card_mm)
    if zoom is not None:
        panels.append(zoom)
    panels.append(top)
    if frame is not None and transform is not None:
        panels.append(draw_on_frame(verdict, frame, transform, card_mm=card_mm))
    return side_by_side(*panels, height=max(top.shape[0], 480))


def save_evidence(path, verdict: Verdict, board, *, frame: np.ndarray | None = None, transform=None,
                  px_per_mm: float = 1.0, card_mm: float | None = None) -> Path:
    """Write the evidence PNG: top-down (rectified when a frame and transform are given, else the
    board drawing) and, with a frame, the camera view beside it. Returns the path."""
    import cv2

    path = Path(path)
    image = render_evidence(verdict, board, frame=frame, transform=transform, px_per_mm=px_per_mm, card_mm=card_mm)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), image):
        raise RefereeError(f"{path}: could not write the evidence image (is the folder writable, the name .png?)")
    return path
