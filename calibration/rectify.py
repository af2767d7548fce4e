"""Top-down views of the mat at a fixed scale, and drawing a board's geometry on an image.

Frames: the **rectified** image has ``mm_per_px`` mm per pixel; its pixel centre (u, v) is the mat
point (x, y) = (u * mm_per_px - margin_mm, v * mm_per_px - margin_mm), so the mat's origin is at
pixel (margin / mm_per_px, margin / mm_per_px). :func:`rectified_affine` gives that map as a 3x3
matrix (mat mm → rectified px) for anyone who draws on the view.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.board import Board
from calibration.errors import ImageError
from calibration.transform import MatTransform, apply_homography

# BGR colours by region kind / line kind (anything else gets DEFAULT)
KIND_COLOURS = {
    "scoring-zone": (0, 140, 255), "three-point": (0, 215, 255), "backboard": (60, 60, 200),
    "half": (150, 150, 150), "water": (235, 160, 40), "snow": (250, 250, 250), "nest": (40, 120, 160),
    "landing": (120, 200, 120), "shelters": (60, 180, 60), "seat": (200, 120, 200), "deck": (160, 90, 160),
    "cell": (170, 170, 170), "foul-line": (40, 40, 230), "baseline": (255, 255, 255),
    "sideline": (255, 255, 255), "centre": (255, 255, 255), "finish": (30, 30, 30),
}
DEFAULT_COLOUR = (0, 230, 230)
STONE_COLOURS = {"red": (40, 40, 220), "blue": (220, 100, 30), "green": (60, 170, 60), "yellow": (30, 220, 240),
                 "orange": (20, 140, 250), "purple": (160, 60, 140), "white": (245, 245, 245),
                 "black": (20, 20, 20), "multi": (200, 80, 200)}


@dataclass(frozen=True)
class DrawStyle:
    """How :func:`draw_board` draws: ``fill_alpha`` of region fills (0 = outlines only, 1 = paint),
    outline/line width in mm, and whether to write labels."""

    fill_alpha: float = 0.25
    line_mm: float = 2.0
    labels: bool = True
    markers: bool = True
    mat_outline: bool = True
    hexes: bool = True


OVERLAY = DrawStyle()
PRINT = DrawStyle(fill_alpha=1.0, line_mm=6.0, labels=False, markers=False, mat_outline=False)


def rectified_affine(mm_per_px: float, margin_mm: float) -> np.ndarray:
    """3x3: mat mm → rectified image px (see the module docstring)."""
    s = 1.0 / mm_per_px
    return np.array([[s, 0.0, margin_mm * s], [0.0, s, margin_mm * s], [0.0, 0.0, 1.0]])


def rectified_size(board: Board, mm_per_px: float, margin_mm: float) -> tuple[int, int]:
    """(w, h) px of the rectified view of ``board``."""
    return (int(round((board.length_mm + 2 * margin_mm) / mm_per_px)) + 1,
            int(round((board.width_mm + 2 * margin_mm) / mm_per_px)) + 1)


def rectify_image(image: np.ndarray, transform: MatTransform, board: Board, mm_per_px: float = 1.0,
                  margin_mm: float = 90.0, height_mm: float = 0.0) -> np.ndarray:
    """The top-down view of the mat plane (or the plane ``height_mm`` above it) at ``mm_per_px``.

    Each rectified pixel is mapped through ``transform.mat_to_image`` (lens distortion included) and
    sampled bilinearly; pixels that fall outside the camera image are black."""
    import cv2

    if mm_per_px <= 0:
        raise ImageError(f"--mm-per-px must be positive, got {mm_per_px:g}")
    w, h = rectified_size(board, mm_per_px, margin_mm)
    if w * h > 40_000_000:
        raise ImageError(f"a {w} x {h} px view is too large; use a larger --mm-per-px (e.g. {mm_per_px * 2:g})")
    if transform.dist is None or not np.any(transform.dist):
        A = np.linalg.inv(rectified_affine(mm_per_px, margin_mm))
        M = transform.homography(height_mm) @ A  # rectified px → undistorted image px
        return cv2.warpPerspective(image, M, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    mapx, mapy = smooth_map(lambda uv: transform.mat_to_image(uv * mm_per_px - margin_mm, height_mm), (w, h))
    return cv2.remap(image, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))


def linear_weights(n: int, m: int, step: int) -> np.ndarray:
    """(n, m): weights that interpolate m samples taken every ``step`` px linearly at pixels 0..n-1."""
    pos = np.arange(n) / step
    i0 = np.minimum(np.floor(pos).astype(int), m - 2)
    frac = pos - i0
    W = np.zeros((n, m))
    W[np.arange(n), i0] = 1 - frac
    W[np.arange(n), i0 + 1] = frac
    return W


def smooth_map(fn, size: tuple[int, int], step: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """(mapx, mapy) float32 (h, w) for ``cv2.remap`` from a smooth point mapping ``fn`` ((n, 2) px →
    (n, 2) px), evaluated every ``step`` px and interpolated bilinearly in float64 (``cv2.remap``
    on a coarse map would quantise positions to 1/32 of a cell). Lens distortion and perspective
    are smooth enough that this is within a few thousandths of a pixel, ~step² times faster."""
    w, h = size
    gx = np.arange(0, w + step, step, dtype=np.float64)
    gy = np.arange(0, h + step, step, dtype=np.float64)
    u, v = np.meshgrid(gx, gy)
    out = np.asarray(fn(np.column_stack([u.ravel(), v.ravel()])), dtype=np.float64).reshape(len(gy), len(gx), 2)
    Wx = linear_weights(w, len(gx), step)
    Wy = linear_weights(h, len(gy), step)
    return (Wy @ out[..., 0] @ Wx.T).astype(np.float32), (Wy @ out[..., 1] @ Wx.T).astype(np.float32)


# --------------------------------------------------------------------------------------------
# drawing


def _poly(points_mm: np.ndarray, to_px: np.ndarray, shift: int = 4) -> np.ndarray:
    """(n, 2) mat mm → int32 points for cv2 drawing with ``shift`` fractional bits."""
    px = apply_homography(to_px, points_mm)
    return np.round(px * (1 << shift)).astype(np.int32)


def _hexagon(centre, across_flats_mm: float) -> np.ndarray:
    r = across_flats_mm / np.sqrt(3.0)  # circumradius of a pointy-top hexagon
    angles = np.deg2rad(np.arange(6) * 60.0 + 30.0)
    return np.column_stack([centre[0] + r * np.cos(angles), centre[1] + r * np.sin(angles)])


def _px_scale(to_px: np.ndarray) -> float:
    return float(np.sqrt(abs(np.linalg.det(to_px[:2, :2]))))


def draw_board(image: np.ndarray, board: Board, to_px: np.ndarray, style: DrawStyle = OVERLAY) -> np.ndarray:
    """Draw ``board`` on ``image`` in place (and return it). ``to_px`` (3x3) maps mat mm to the
    image's px (a homography: a rectified view's affine, or a transform's ``H`` for a camera
    image without distortion). Regions are filled at ``style.fill_alpha`` and outlined; lines,
    tracks (hexes), stones, markers and the mat's outline follow."""
    import cv2

    shift = 4
    scale = _px_scale(to_px)
    thick = max(1, int(round(style.line_mm * scale)))
    aa = cv2.LINE_AA

    regions = sorted(board.regions.values(), key=lambda r: -r.geometry.area)
    if style.fill_alpha > 0:
        fill = image if style.fill_alpha >= 1.0 else image.copy()
        for r in regions:
            if style.fill_alpha >= 1.0 and r.kind in ("half", "cell"):
                continue  # a printed mat does not paint its halves or grid cells
            pts = _poly(r.outline(), to_px, shift)
            cv2.fillPoly(fill, [pts], KIND_COLOURS.get(r.kind, DEFAULT_COLOUR), aa, shift)
        if style.fill_alpha < 1.0:
            cv2.addWeighted(fill, style.fill_alpha, image, 1 - style.fill_alpha, 0, dst=image)
    for r in regions:
        pts = _poly(r.outline(), to_px, shift)
        colour = (255, 255, 255) if style.fill_alpha >= 1.0 else KIND_COLOURS.get(r.kind, DEFAULT_COLOUR)
        if r.kind not in ("half",) or style.fill_alpha < 1.0:
            cv2.polylines(image, [pts], True, colour, thick, aa, shift)
    for line in board.lines.values():
        pts = _poly(line.as_array(), to_px, shift)
        cv2.polylines(image, [pts], False, KIND_COLOURS.get(line.kind, DEFAULT_COLOUR), thick, aa, shift)
    if style.hexes:
        for track in board.tracks.values():
            traps = set(track.traps)
            for i, c in enumerate(track.centres()):
                pts = _poly(_hexagon(c, track.hex_mm * 0.96), to_px, shift)
                colour = (40, 40, 200) if i in traps else (230, 230, 230)
                if style.fill_alpha >= 1.0:
                    cv2.fillPoly(image, [pts], colour, aa, shift)
                cv2.polylines(image, [pts], True, (60, 60, 60), max(1, thick // 2), aa, shift)
            if track.finish_line:
                pts = _poly(np.asarray(track.finish_line), to_px, shift)
                cv2.polylines(image, [pts], False, (20, 20, 20), thick, aa, shift)
        for conn in board.connections.values():
            for c in conn["hexes"]:
                pts = _poly(_hexagon(c, 40.0 * 0.96), to_px, shift)
                cv2.polylines(image, [pts], True, (90, 160, 90), max(1, thick // 2), aa, shift)
    for stone in board.stones:
        centre = _poly(np.asarray([stone.center]), to_px, shift)[0]
        radius = int(round(15.0 * scale * (1 << shift)))
        colour = STONE_COLOURS.get(stone.colour, DEFAULT_COLOUR)
        cv2.circle(image, tuple(int(v) for v in centre), radius, colour, -1 if style.fill_alpha >= 1.0 else thick, aa, shift)
    if style.markers and board.markers is not None:
        for mid, corners in board.markers.corners_mm().items():
            pts = _poly(corners, to_px, shift)
            cv2.polylines(image, [pts], True, (255, 0, 255), thick, aa, shift)
            if style.labels:
                _label(image, f"#{mid}", apply_homography(to_px, corners[3:4])[0] + (0, 14), (255, 0, 255))
    if style.mat_outline:
        cv2.polylines(image, [_poly(board.corners_mm(), to_px, shift)], True, (0, 255, 0), thick, aa, shift)
    if style.labels:
        for r in regions:
            if r.kind in ("half", "cell"):
                continue
            c = r.geometry.representative_point()
            _label(image, r.name, apply_homography(to_px, [[c.x, c.y]])[0], (255, 255, 255))
    return image


def _label(image: np.ndarray, text: str, at_px, colour) -> None:
    import cv2

    x, y = int(round(at_px[0])), int(round(at_px[1]))
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)


def rectified_overlay(image: np.ndarray, transform: MatTransform, board: Board, mm_per_px: float = 1.0,
                      margin_mm: float = 90.0) -> np.ndarray:
    """``rectify_image`` with the board drawn on it (``tableref rectify``): regions, lines, tracks,
    stones and markers where the board file says they are, on the mat as the camera sees it."""
    top = rectify_image(image, transform, board, mm_per_px, margin_mm)
    return draw_board(top, board, rectified_affine(mm_per_px, margin_mm), OVERLAY)


def board_template(board: Board, mm_per_px: float, margin_mm: float = 0.0) -> np.ndarray:
    """(h, w) uint8: the board's printed structure (region fills at distinct greys, lines) as a
    top-down picture at ``mm_per_px``; used to tell a mat's two 180-degree turns apart."""
    w, h = rectified_size(board, mm_per_px, margin_mm)
    img = np.zeros((h, w, 3), np.uint8)
    draw_board(img, board, rectified_affine(mm_per_px, margin_mm), PRINT)
    import cv2

    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
