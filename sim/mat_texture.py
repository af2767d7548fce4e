"""The printed mat as a top-down texture: the board YAML drawn once per (board, style) in **mat mm**
at ``style.px_per_mm``, with the table around it and the board's ArUco markers, plus a pyramid of
coarser levels for minification. The renderer warps a level through the camera.

Texture convention (every level): texture pixel ``(i, j)`` covers mat mm
``[x0 + i/s, x0 + (i+1)/s] x [y0 + j/s, y0 + (j+1)/s]`` where ``(x0, y0) = origin_mm`` and ``s`` the
level's px/mm; so the continuous texture coordinate of a mat point is ``u = (x - x0) * s - 0.5``
(pixel centres at integers, as OpenCV samples). Levels are exact 2x box reductions, which keeps it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.lru import LruCache

SHIFT = 4  # fixed-point bits for sub-pixel polygon drawing
ONE = 1 << SHIFT

# Printed colours (BGR) by region kind, mat base colours by board, stone colours by name.
MAT_BASE = {"dino-dunk/tropic-turf": (70, 150, 85), "dino-dunk/crater-court": (75, 115, 170),
            "dodo-dash/dodorado-jungle": (60, 125, 70), "dodo-dash/dodorado-temple": (125, 165, 195),
            "morris/waterfall": (120, 165, 110), "dogo-dash/table": (105, 80, 50), "grid/plain-grid": (235, 235, 235)}
GAME_BASE = {"dino-dunk": (70, 150, 85), "dodo-dash": (60, 125, 70), "morris": (120, 165, 110),
             "dogo-dash": (105, 80, 50), "grid": (235, 235, 235)}
REGION_FILL = {"scoring-zone": (40, 185, 245), "water": (205, 150, 55), "snow": (246, 246, 240),
               "backboard": (30, 60, 100), "nest": (40, 85, 125), "waterfall": (235, 205, 150),
               "landing": (150, 200, 225), "shelters": (95, 175, 125), "start": (80, 190, 95),
               "seat": None, "deck": None, "play-area": None, "half": None, "three-point": None, "cell": None}
STONE_COLOURS = {"purple": (150, 50, 130), "blue": (200, 110, 30), "red": (40, 40, 200), "yellow": (30, 210, 235),
                 "green": (60, 170, 60), "orange": (30, 130, 240), "white": (240, 240, 240), "black": (30, 30, 30)}
LINE_STYLE = {"foul-line": ((40, 40, 210), 4.0), "baseline": ((245, 245, 245), 5.0), "sideline": ((245, 245, 245), 5.0),
              "centre": ((245, 245, 245), 3.0), "finish": ((20, 20, 20), 4.0)}
HEX_FILL = {"normal": (185, 215, 225), "trap": (50, 50, 190), "drift": (40, 150, 235), "charm": (170, 70, 160),
            "base": (150, 150, 150), "connection": (200, 225, 200)}


@dataclass(frozen=True)
class MatTexture:
    """``levels[k]`` is a BGR uint8 image at ``scales[k]`` px/mm; ``origin_mm`` the mat point at the
    outer corner of the top-left pixel; ``border`` the table colour beyond the texture."""

    levels: tuple
    scales: tuple
    origin_mm: tuple
    border: tuple


# --------------------------------------------------------------------------------------------


FILL_BIAS_PX = 0.55  # cv2.fillPoly (LINE_8) colours ~0.55 px beyond a polygon: filled shapes are pulled in by it
PRINT_SUPERSAMPLING = 2  # the print is drawn at 2x and box-filtered down: exact, anti-aliased fills


class _Canvas:
    """An image in texture px (``s`` px/mm) with drawing helpers in mat mm. Filled shapes are
    exact in area (pulled in by fillPoly's growth); anti-aliasing comes from drawing the canvas
    supersampled and reducing it with a box filter."""

    def __init__(self, img: np.ndarray, origin_mm: tuple, s: float):
        self.img, self.x0, self.y0, self.s = img, origin_mm[0], origin_mm[1], s
        self.alpha = img.ndim == 3 and img.shape[2] == 4

    def c(self, colour) -> tuple:
        """The colour for this canvas (opaque BGRA on a 4-channel, premultiplied canvas)."""
        return tuple(colour) + (255,) if self.alpha and len(colour) == 3 else tuple(colour)

    def px(self, pts_mm) -> np.ndarray:
        p = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2)
        u = (p[:, 0] - self.x0) * self.s - 0.5
        v = (p[:, 1] - self.y0) * self.s - 0.5
        return np.round(np.column_stack([u, v]) * ONE).astype(np.int32)

    def poly(self, pts_mm, colour):
        """Fill a simple polygon (mat mm) exactly: its outline pulled in by fillPoly's growth."""
        import cv2
        from shapely.geometry import Polygon

        poly = Polygon(np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2))
        if not poly.is_valid:
            poly = poly.buffer(0)
        inner = poly.buffer(-FILL_BIAS_PX / self.s, join_style=2, mitre_limit=4.0)
        for g in getattr(inner, "geoms", [inner]):
            if g.is_empty or g.geom_type != "Polygon":
                continue
            cv2.fillPoly(self.img, [self.px(np.asarray(g.exterior.coords)[:-1])], self.c(colour), cv2.LINE_8, SHIFT)

    def polyline(self, pts_mm, colour, width_mm: float, closed: bool = False):
        import cv2

        t = max(1, int(round(width_mm * self.s)))
        cv2.polylines(self.img, [self.px(pts_mm)], closed, self.c(colour), t, cv2.LINE_AA, SHIFT)

    def circle(self, c_mm, r_mm, colour, width_mm: float = -1):
        n = max(32, int(math.tau * r_mm * self.s / 2))
        a = np.linspace(0, math.tau, n, endpoint=False)
        ring = np.column_stack([c_mm[0] + r_mm * np.cos(a), c_mm[1] + r_mm * np.sin(a)])
        if width_mm < 0:
            self.poly(ring, colour)
        else:
            self.polyline(ring, colour, width_mm, closed=True)

    def text(self, text: str, c_mm, height_mm: float, colour):
        import cv2

        scale = height_mm * self.s / 22.0
        thick = max(1, int(round(scale * 2)))
        (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        c = self.px([c_mm])[0] / ONE
        cv2.putText(self.img, text, (int(c[0] - w / 2), int(c[1] + h / 2)), cv2.FONT_HERSHEY_SIMPLEX, scale, self.c(colour),
                    thick, cv2.LINE_AA)


def _blend(c1, c2, a: float) -> tuple:
    return tuple(int(round((1 - a) * x + a * y)) for x, y in zip(c1, c2))


def _hexagon(centre, across_flats: float, angle: float) -> np.ndarray:
    r = across_flats / math.sqrt(3.0)  # circumradius
    a = angle + math.pi / 6 + np.arange(6) * math.pi / 3
    return np.column_stack([centre[0] + r * np.cos(a), centre[1] + r * np.sin(a)])


def _table(shape: tuple, colour: tuple, grain: float, seed: int, fade_px: int) -> np.ndarray:
    """The table top: ``colour`` with a wood grain along x that fades out over the last
    ``fade_px`` towards the texture's border (beyond it the table is drawn flat, so no seam shows)."""
    import cv2

    h, w = shape
    rng = np.random.default_rng(seed)
    coarse = rng.standard_normal((max(2, h // 5), max(2, w // 160))).astype(np.float32)
    fine = rng.standard_normal((max(2, h // 2), max(2, w // 40))).astype(np.float32)
    g = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
    g += 0.5 * cv2.resize(fine, (w, h), interpolation=cv2.INTER_LINEAR)
    fx = np.clip(np.minimum(np.arange(w), w - 1 - np.arange(w)) / max(fade_px, 1), 0, 1).astype(np.float32)
    fy = np.clip(np.minimum(np.arange(h), h - 1 - np.arange(h)) / max(fade_px, 1), 0, 1).astype(np.float32)
    fx, fy = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy)
    g *= fy[:, None] * grain
    g *= fx[None, :]
    g += 1.0
    return cv2.merge([cv2.convertScaleAbs(g, alpha=float(c)) for c in colour])


def _marker_patches(board, origin_mm: tuple, s: float, shape: tuple, supersample: int = 4) -> list:
    """Each ArUco marker (with a one-cell white quiet zone) as exact box-filtered coverage in texture
    px: a list of (v0, v1, u0, u1, coverage (h, w), luminance (h, w)), floats 0..1."""
    import cv2

    ms = board.markers
    x0, y0 = origin_mm
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ms.dictionary))
    bits = dictionary.markerSize + 2  # cells across, black border included
    patches = []
    for m in ms.items:
        cells = cv2.aruco.generateImageMarker(dictionary, m.id, bits).astype(np.float32) / 255.0
        cell_mm = ms.size_mm / bits
        pad = np.pad(cells, 1, constant_values=1.0)  # white quiet zone
        a = math.radians(m.rotation_deg)
        ca, sa = math.cos(a), math.sin(a)
        half = ms.size_mm / 2.0 + cell_mm
        ext = half * (abs(ca) + abs(sa))
        cx, cy = m.center
        u0 = int(math.floor((cx - ext - x0) * s)) - 1
        v0 = int(math.floor((cy - ext - y0) * s)) - 1
        u1 = int(math.ceil((cx + ext - x0) * s)) + 1
        v1 = int(math.ceil((cy + ext - y0) * s)) + 1
        H, W = shape
        u0, v0, u1, v1 = max(u0, 0), max(v0, 0), min(u1, W), min(v1, H)
        if u1 <= u0 or v1 <= v0:
            continue
        k = supersample
        sub = (np.arange(k) + 0.5) / k
        us = (np.arange(u0, u1)[:, None] + sub[None, :]).ravel()  # pixel-edge coordinates
        vs = (np.arange(v0, v1)[:, None] + sub[None, :]).ravel()
        XX, YY = np.meshgrid(x0 + us / s - cx, y0 + vs / s - cy)
        lx = ca * XX + sa * YY  # into the marker's own (unrotated) frame
        ly = -sa * XX + ca * YY
        ci = np.floor((lx + half) / cell_mm).astype(np.int64)
        cj = np.floor((ly + half) / cell_mm).astype(np.int64)
        inside = (ci >= 0) & (ci < bits + 2) & (cj >= 0) & (cj < bits + 2)
        val = np.where(inside, pad[np.clip(cj, 0, bits + 1), np.clip(ci, 0, bits + 1)], 0.0)
        cov = inside.reshape(v1 - v0, k, u1 - u0, k).mean(axis=(1, 3))
        ink = val.reshape(v1 - v0, k, u1 - u0, k).mean(axis=(1, 3))  # = luminance x coverage
        patches.append((v0, v1, u0, u1, cov.astype(np.float32), ink.astype(np.float32)))
    return patches


def _apply_patches(img: np.ndarray, patches: list) -> None:
    for v0, v1, u0, u1, cov, ink in patches:
        roi = img[v0:v1, u0:u1].astype(np.float32)
        out = roi * (1 - cov)[:, :, None] + (ink * 255.0)[:, :, None]
        img[v0:v1, u0:u1] = np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _draw_regions(cv: _Canvas, board, base: tuple):
    order = ["half", "play-area", "three-point", "landing", "shelters", "start", "water", "snow", "waterfall", "nest",
             "scoring-zone", "backboard", "cell", "deck", "seat"]
    regions = sorted(board.regions.values(), key=lambda r: order.index(r.kind) if r.kind in order else len(order))
    white = (245, 245, 245)
    for reg in regions:
        ring = reg.outline()
        kind = reg.kind
        if kind == "half":
            cv.poly(ring, _blend(base, (0, 0, 0) if reg.team in ("home", "a") else (255, 255, 255), 0.06))
        elif kind == "three-point":
            cv.poly(ring, _blend(base, white, 0.22))
            cv.polyline(ring, white, 3.0, closed=True)
        elif kind == "scoring-zone":
            cv.poly(ring, REGION_FILL[kind])
            cv.polyline(ring, white, 4.0, closed=True)
            c = np.asarray(reg.geometry.centroid.coords[0])
            cv.circle(c, 6.0, white)
        elif kind == "water":
            cv.poly(ring, REGION_FILL[kind])
            x0, y0, x1, y1 = reg.geometry.bounds
            from shapely.geometry import LineString

            for y in np.arange(y0 + 8, y1, 14):
                xs = np.linspace(x0, x1, 40)
                wave = LineString(np.column_stack([xs, y + 2.5 * np.sin(xs / 6.0)])).intersection(reg.geometry)
                for g in getattr(wave, "geoms", [wave]):
                    if not g.is_empty and g.geom_type == "LineString":
                        cv.polyline(np.asarray(g.coords), _blend(REGION_FILL[kind], white, 0.45), 1.5)
        elif kind == "snow":
            cv.poly(ring, REGION_FILL[kind])
            cv.polyline(ring, (220, 200, 170), 2.0, closed=True)
        elif kind in ("nest", "backboard", "landing", "shelters", "start", "waterfall"):
            cv.poly(ring, REGION_FILL[kind])
            if kind == "waterfall":
                x0, y0, x1, y1 = reg.geometry.bounds
                for x in np.arange(x0 + 6, x1, 11):
                    cv.polyline([[x, y0 + 4], [x, y1 - 4]], white, 2.0)
            if kind == "nest":
                c = np.asarray(reg.geometry.centroid.coords[0])
                r = math.sqrt(reg.geometry.area / math.pi)
                for k in range(14):
                    a = k * 0.45
                    cv.polyline([c + 0.5 * r * np.array([math.cos(a), math.sin(a)]),
                                 c + 0.9 * r * np.array([math.cos(a + 1.2), math.sin(a + 1.2)])], (25, 55, 85), 2.5)
            if kind == "start":
                c = np.asarray(reg.geometry.centroid.coords[0])
                for k in range(6):
                    a = k * math.tau / 6
                    cv.circle(c + 12 * np.array([math.cos(a), math.sin(a)]), 3.0, (200, 120, 240))
            cv.polyline(ring, _blend(REGION_FILL[kind], (0, 0, 0), 0.3), 1.5, closed=True)
        elif kind == "cell":
            name = reg.name.split("-")
            r, c = (int(name[1]), int(name[2])) if len(name) == 3 and name[1].isdigit() and name[2].isdigit() else (0, 0)
            cv.poly(ring, _blend(base, (60, 60, 60), 0.55) if (r + c) % 2 else base)
        elif kind in ("seat", "deck"):
            cv.poly(ring, _blend(base, white if kind == "seat" else (0, 0, 0), 0.15))
            cv.polyline(ring, white, 2.0, closed=True)
        elif kind == "play-area":
            continue
        else:
            cv.poly(ring, _blend(base, white, 0.2))
            cv.polyline(ring, white, 2.0, closed=True)


def _draw_tracks(cv: _Canvas, board):
    for track in board.tracks.values():
        pts = track.centres()
        n = len(pts)
        drift_roll = {}
        for d in track.drift:
            for i, r in zip(d.hexes, d.rolls):
                drift_roll[i] = r
        for i, c in enumerate(pts):
            nxt = pts[(i + 1) % n] if (i + 1 < n or track.closed) else pts[i - 1]
            ang = math.atan2(nxt[1] - c[1], nxt[0] - c[0])
            hexa = _hexagon(c, track.hex_mm * 0.96, ang)
            kind = ("trap" if i in track.traps else "drift" if i in drift_roll else "charm" if i in track.charms
                    else "base" if i in track.bases else "normal")
            cv.poly(hexa, HEX_FILL[kind])
            cv.polyline(hexa, (60, 70, 80), 1.5, closed=True)
            r = track.hex_mm * 0.28
            if kind == "trap":
                cv.polyline([c - r, c + r], (240, 240, 240), 3.0)
                cv.polyline([c + [-r, r], c + [r, -r]], (240, 240, 240), 3.0)
            elif kind == "drift":
                cv.text(str(drift_roll[i]), c, track.hex_mm * 0.45, (30, 30, 30))
            elif kind == "charm":
                a = np.arange(10) * math.pi / 5 - math.pi / 2
                rad = np.where(np.arange(10) % 2 == 0, r * 1.2, r * 0.5)
                cv.poly(np.column_stack([c[0] + rad * np.cos(a), c[1] + rad * np.sin(a)]), (60, 220, 250))
            elif kind == "base":
                cv.poly([c + [-r, -r], c + [r, -r], c + [r, r], c + [-r, r]], (90, 90, 90))
        if track.finish_line:
            a, b = (np.asarray(p, dtype=float) for p in track.finish_line)
            d = b - a
            length = float(np.linalg.norm(d))
            if length > 0:
                d /= length
                nrm = np.array([-d[1], d[0]])
                sq = 6.0
                for k in range(int(length // sq)):
                    for j in (-1, 0):
                        p0 = a + d * k * sq + nrm * j * sq
                        colour = (20, 20, 20) if (k + j) % 2 else (245, 245, 245)
                        cv.poly([p0, p0 + d * sq, p0 + d * sq + nrm * sq, p0 + nrm * sq], colour)
    for con in board.connections.values():
        for c in con["hexes"]:
            cv.poly(_hexagon(c, 38.0, 0.0), HEX_FILL["connection"])
            cv.polyline(_hexagon(c, 38.0, 0.0), (60, 70, 80), 1.5, closed=True)


def _draw_stones(cv: _Canvas, board):
    for st in board.stones:
        c = np.asarray(st.center)
        if st.colour == "multi":
            cols = list(STONE_COLOURS.values())[:4]
            for k, col in enumerate(cols):
                a = np.linspace(k * math.pi / 2, (k + 1) * math.pi / 2, 12)
                cv.poly(np.vstack([c, np.column_stack([c[0] + 15 * np.cos(a), c[1] + 15 * np.sin(a)])]), col)
        else:
            cv.circle(c, 14.0, STONE_COLOURS.get(st.colour, (128, 128, 128)))
        cv.circle(c, 14.0, (40, 50, 60), 1.2)


def texture_geometry(board, style) -> tuple:
    """(px_per_mm, (x0, y0) origin mat mm, (h, w) px) of the board's texture: the mat, its markers
    and at least ``style.margin_mm`` of table around it."""
    s = float(style.px_per_mm)
    margin = float(style.margin_mm)
    if board.markers is not None:
        half = np.array([board.length_mm, board.width_mm]) / 2
        corners = np.vstack(list(board.markers.corners_mm().values()))
        ext = max(float(np.max(np.abs(corners - half) - half)), 0.0)
        margin = max(margin, ext + 2 * board.markers.size_mm / 6 + 20.0)
    margin = math.ceil(margin)
    w = int(math.ceil((board.length_mm + 2 * margin) * s))
    h = int(math.ceil((board.width_mm + 2 * margin) * s))
    return s, (float(-margin), float(-margin)), (h + h % 2, w + w % 2)


_PRINTS = LruCache(4)


def print_layer(board, s: float, origin_mm: tuple, shape: tuple) -> tuple:
    """The printed mat alone (cached per board and geometry): a premultiplied BGRA image (alpha =
    where the mat is) and the markers' coverage patches. Frame: texture px as in the module doc."""
    key = (board.ref, board.path, board.size_mm, s, origin_mm, shape)
    return _PRINTS.get_or_make(key, lambda: _draw_print(board, s, origin_mm, shape))


def _draw_print(board, s: float, origin_mm: tuple, shape: tuple) -> tuple:
    import cv2

    h, w = shape
    ss = PRINT_SUPERSAMPLING
    big = np.zeros((h * ss, w * ss, 4), np.uint8)
    cv = _Canvas(big, origin_mm, s * ss)
    base = MAT_BASE.get(board.ref, GAME_BASE.get(board.game, (200, 200, 200)))
    L, W = board.length_mm, board.width_mm
    edge = 2.5
    cv.poly([[-edge, -edge], [L + edge, -edge], [L + edge, W + edge], [-edge, W + edge]], (30, 30, 30))
    cv.poly([[0, 0], [L, 0], [L, W], [0, W]], base)
    _draw_regions(cv, board, base)
    for line in board.lines.values():
        colour, width = LINE_STYLE.get(line.kind, ((245, 245, 245), 3.0))
        cv.polyline(line.as_array(), colour, width)
    _draw_tracks(cv, board)
    _draw_stones(cv, board)
    if board.grid:
        g = board.grid
        ox, oy = g["origin"]
        cw, ch = g["cell_mm"]
        for r in range(g["rows"] + 1):
            cv.polyline([[ox, oy + r * ch], [ox + g["cols"] * cw, oy + r * ch]], (40, 40, 40), 1.5)
        for c in range(g["cols"] + 1):
            cv.polyline([[ox + c * cw, oy], [ox + c * cw, oy + g["rows"] * ch]], (40, 40, 40), 1.5)
    img = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA) if ss > 1 else big
    del big
    _print_grain(img, board)
    patches = _marker_patches(board, origin_mm, s, shape) if board.markers is not None else []
    return img, patches


def _print_grain(img: np.ndarray, board, fine: float = 1.5, mottle: float = 0.01) -> None:
    """The neoprene's texture, in place on the premultiplied print: a fine grain of ``fine`` grey
    levels and a slow mottling of ``mottle`` (relative), from a seed fixed by the board."""
    import zlib

    import cv2

    h, w = img.shape[:2]
    rng = np.random.default_rng(zlib.crc32(board.ref.encode()))
    grain = cv2.resize(rng.standard_normal((max(2, h // 2), max(2, w // 2))).astype(np.float32), (w, h),
                       interpolation=cv2.INTER_LINEAR) * fine
    slow = cv2.resize(rng.standard_normal((max(2, h // 80), max(2, w // 80))).astype(np.float32), (w, h),
                      interpolation=cv2.INTER_CUBIC) * mottle
    a = img[:, :, 3].astype(np.float32) * (1 / 255.0)
    for c in range(3):
        ch = img[:, :, c].astype(np.float32)
        ch *= 1.0 + slow
        ch += grain * a
        img[:, :, c] = np.clip(ch + 0.5, 0, 255).astype(np.uint8)


def draw_mat(board, style) -> MatTexture:
    """Draw ``board`` top-down in ``style`` (uncached; the print itself is cached per board): the
    table, the printed mat (tinted by ``style.mat_tint``), the markers (black on white, untinted),
    and the pyramid of levels. See :func:`mat_texture`."""
    import cv2

    s, (x0, y0), (h, w) = texture_geometry(board, style)
    layer, patches = print_layer(board, s, (x0, y0), (h, w))
    img = _table((h, w), style.table_colour, style.table_grain, style.table_seed, int(0.6 * (-x0) * s))
    alpha = layer[:, :, 3]
    inv = cv2.bitwise_not(alpha)
    cv2.multiply(img, cv2.merge([inv, inv, inv]), dst=img, scale=1 / 255.0)
    bgr = np.ascontiguousarray(layer[:, :, :3])
    if any(t != 1.0 for t in style.mat_tint):  # the print's colour, not the table's
        bgr = cv2.multiply(bgr, np.array(list(style.mat_tint) + [0.0]), dtype=cv2.CV_8U)
    cv2.add(img, bgr, dst=img)
    _apply_patches(img, patches)
    levels, scales = [img], [s]
    while scales[-1] / 2 >= 0.2 and min(levels[-1].shape[:2]) >= 64:
        prev = levels[-1]
        nh, nw = prev.shape[0] // 2, prev.shape[1] // 2
        levels.append(cv2.resize(prev[: 2 * nh, : 2 * nw], (nw, nh), interpolation=cv2.INTER_AREA))
        scales.append(scales[-1] / 2)
    border = tuple(int(c) for c in style.table_colour)
    return MatTexture(tuple(levels), tuple(scales), (float(x0), float(y0)), border)


_TEXTURES = LruCache(6)


def mat_texture(board, style) -> MatTexture:
    """The mat texture of ``board`` in ``style``, cached per (board, style.texture_key())."""
    key = (board.ref, board.path, board.size_mm, style.texture_key())
    return _TEXTURES.get_or_make(key, lambda: draw_mat(board, style))
