"""Our own artwork for piece faces and cards, drawn with OpenCV vector primitives.

Every piece of art is an :class:`Art`: a BGRA image (alpha = the printed shape) that covers a
rectangle of ``size_mm`` (width, height) in the piece's own frame (centre at the piece's centre, x
along its ``angle_deg``). The renderer warps it onto the piece's top face through the camera.

Nothing here is copied from the games' printed art: the Dogo Dash faces are simple drawings of a
cat, a dog, a bear, a cookie and a "good boy" rosette with a title, distinct in shape and colour so
that a classifier can learn them; the back is a blue pattern with a paw.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

RES = 8.0  # px per mm of the base art
SHIFT = 4
ONE = 1 << SHIFT
CARD_FACES = ("cat", "dog", "bear", "cookie", "good-boy")
EGG_COLOURS = {"blue": (200, 120, 40), "purple": (160, 60, 140), "red": (50, 50, 210), "yellow": (40, 200, 235)}
NAMED_COLOURS = {**EGG_COLOURS, "green": (60, 170, 60), "orange": (30, 140, 245), "white": (235, 235, 235),
                 "black": (35, 35, 35), "pink": (180, 130, 240), "brown": (40, 80, 130), "grey": (140, 140, 140),
                 "cyan": (200, 200, 40)}
PROJECTILES = ("meteorite", "log", "egg", "feather", "banana", "dodo")
_LEVELS_LOCK = threading.Lock()


@dataclass(frozen=True, eq=False)
class Art:
    """``image`` BGRA uint8 (rows = the piece's local +y) covering ``size_mm`` (w, h), colours
    premultiplied by alpha (as OpenCV's antialiased drawing on a transparent canvas leaves them)."""

    image: np.ndarray
    size_mm: tuple
    levels: list = field(default_factory=list, compare=False, repr=False)

    def level(self, px_per_mm: float) -> np.ndarray:
        """The art reduced (box filter, powers of two) to about ``px_per_mm`` (≥ it, for sharpness)."""
        import cv2

        with _LEVELS_LOCK:  # art is shared (lru_cache) between threads; levels are made once
            if not self.levels:
                self.levels.append(self.image)
            res = self.image.shape[1] / self.size_mm[0]
            k = 0
            while res / 2 ** (k + 1) >= max(px_per_mm, 0.25) * 1.5 and min(self.levels[k].shape[:2]) >= 8:
                if len(self.levels) <= k + 1:
                    prev = self.levels[k]
                    nh, nw = max(1, prev.shape[0] // 2), max(1, prev.shape[1] // 2)
                    self.levels.append(cv2.resize(prev, (nw, nh), interpolation=cv2.INTER_AREA))
                k += 1
            return self.levels[k]


class _Pen:
    """Draw in mm on an art canvas whose centre is the piece centre."""

    def __init__(self, w_mm: float, h_mm: float, res: float = RES):
        self.w, self.h, self.res = w_mm, h_mm, res
        self.W, self.H = int(math.ceil(w_mm * res)), int(math.ceil(h_mm * res))
        self.img = np.zeros((self.H, self.W, 4), np.uint8)

    def px(self, pts):
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        u = (p[:, 0] + self.w / 2) * self.res - 0.5
        v = (p[:, 1] + self.h / 2) * self.res - 0.5
        return np.round(np.column_stack([u, v]) * ONE).astype(np.int32)

    def _c(self, colour, alpha=255):
        return (int(colour[0]), int(colour[1]), int(colour[2]), alpha)

    def poly(self, pts, colour):
        import cv2

        cv2.fillPoly(self.img, [self.px(pts)], self._c(colour), cv2.LINE_AA, SHIFT)

    def line(self, pts, colour, width_mm, closed=False):
        import cv2

        cv2.polylines(self.img, [self.px(pts)], closed, self._c(colour), max(1, int(round(width_mm * self.res))), cv2.LINE_AA, SHIFT)

    def circle(self, c, r, colour, width_mm=-1.0):
        import cv2

        p = self.px([c])[0]
        t = -1 if width_mm < 0 else max(1, int(round(width_mm * self.res)))
        cv2.circle(self.img, (int(p[0]), int(p[1])), int(round(r * self.res * ONE)), self._c(colour), t, cv2.LINE_AA, SHIFT)

    def ellipse(self, c, axes, angle_deg, colour, width_mm=-1.0, arc=(0, 360)):
        import cv2

        p = self.px([c])[0]
        t = -1 if width_mm < 0 else max(1, int(round(width_mm * self.res)))
        ax = (int(round(axes[0] * self.res * ONE)), int(round(axes[1] * self.res * ONE)))
        cv2.ellipse(self.img, (int(p[0]), int(p[1])), ax, angle_deg, arc[0], arc[1], self._c(colour), t, cv2.LINE_AA, SHIFT)

    def text(self, text, c, height_mm, colour, thick_mm=None):
        import cv2

        scale = height_mm * self.res / 22.0
        thick = max(1, int(round((thick_mm or height_mm / 8) * self.res)))
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
        p = self.px([c])[0] / ONE
        cv2.putText(self.img, text, (int(p[0] - tw / 2), int(p[1] + th / 2)), cv2.FONT_HERSHEY_DUPLEX, scale,
                    self._c(colour), thick, cv2.LINE_AA)

    def art(self) -> Art:
        return Art(self.img, (self.w, self.h))


def circle_pts(c, r, n=64, ry=None):
    a = np.linspace(0, math.tau, n, endpoint=False)
    return np.column_stack([c[0] + r * np.cos(a), c[1] + (ry if ry is not None else r) * np.sin(a)])


def _shade(colour, k):
    return tuple(int(min(255.0, max(0.0, c * k))) for c in colour)


def _clip_to_circle(p: "_Pen", r: float) -> None:
    """Cut the art to a circle of radius r mm (keeping the colours premultiplied by alpha)."""
    import cv2

    mask = np.zeros(p.img.shape[:2], np.uint8)
    cv2.circle(mask, (int(round((p.W / 2 - 0.5) * ONE)), int(round((p.H / 2 - 0.5) * ONE))), int(round(r * p.res * ONE)),
               255, -1, cv2.LINE_AA, SHIFT)
    p.img[:] = (p.img.astype(np.uint16) * mask[:, :, None].astype(np.uint16) // 255).astype(np.uint8)


def _mix(c1, c2, a):
    return tuple(int(round((1 - a) * x + a * y)) for x, y in zip(c1, c2))


# --------------------------------------------------------------------------------------------
# Dino Dunk


@lru_cache(maxsize=64)
def disc_face(diameter_mm: float, colour: tuple, team: int, emblem: str = "dino") -> Art:
    """A team disc's top face: the team colour, a team pattern (0: a white ring, 1: diagonal
    stripes, 2+: dots) and a round sticker with an emblem in the middle."""
    r = diameter_mm / 2.0
    p = _Pen(diameter_mm, diameter_mm)
    p.circle((0, 0), r, colour)
    light = _mix(colour, (255, 255, 255), 0.55)
    if team == 0:
        p.circle((0, 0), r * 0.82, light, width_mm=r * 0.09)
    elif team == 1:
        for k in np.arange(-r, r, r * 0.34):
            a = np.array([k - r, -r * 1.2])
            b = np.array([k + r, r * 1.2])
            p.line([a, b], light, r * 0.08)
        _clip_to_circle(p, r)  # keep the stripes inside the disc
    else:
        for a in np.linspace(0, math.tau, 8, endpoint=False):
            p.circle((0.8 * r * math.cos(a), 0.8 * r * math.sin(a)), r * 0.08, light)
    sr = r * 0.55
    p.circle((0, 0), sr, (245, 245, 245))
    p.circle((0, 0), sr, _shade(colour, 0.6), width_mm=max(0.4, sr * 0.06))
    if emblem == "dino":
        s = sr * 0.75
        body = [(-0.9, 0.3), (-0.4, -0.1), (0.1, -0.15), (0.45, -0.55), (0.75, -0.6), (0.85, -0.4), (0.55, -0.3),
                (0.5, 0.1), (0.35, 0.45), (0.2, 0.45), (0.15, 0.15), (-0.2, 0.2), (-0.25, 0.5), (-0.4, 0.5),
                (-0.4, 0.25)]
        p.poly([(x * s, y * s) for x, y in body], _shade(colour, 0.75))
    elif emblem == "tail":
        p.line([(-sr * 0.6, sr * 0.3), (0, -sr * 0.2), (sr * 0.6, sr * 0.3)], _shade(colour, 0.7), sr * 0.2)
    elif emblem == "star":
        a = np.arange(10) * math.pi / 5 - math.pi / 2
        rad = np.where(np.arange(10) % 2 == 0, sr * 0.75, sr * 0.32)
        p.poly(np.column_stack([rad * np.cos(a), rad * np.sin(a)]), _shade(colour, 0.75))
    elif emblem == "coin":
        p.text("3", (0, 0), sr * 1.1, _shade(colour, 0.7))
    return p.art()


@lru_cache(maxsize=8)
def ball_face(diameter_mm: float) -> Art:
    """The ball: orange with black seams, like a basketball seen from above."""
    r = diameter_mm / 2.0
    p = _Pen(diameter_mm, diameter_mm)
    orange = (30, 120, 245)
    p.circle((0, 0), r, orange)
    seam = (25, 25, 25)
    w = max(0.35, r * 0.07)
    p.line([(-r, 0), (r, 0)], seam, w)
    p.line([(0, -r), (0, r)], seam, w)
    p.ellipse((-r * 0.95, 0), (r * 0.55, r * 0.85), 0, seam, w, (-90, 90))
    p.ellipse((r * 0.95, 0), (r * 0.55, r * 0.85), 0, seam, w, (90, 270))
    _clip_to_circle(p, r)
    return p.art()


@lru_cache(maxsize=8)
def character_card(size_mm: tuple, team_colour: tuple, title: str = "DINO") -> Art:
    """A Dino Dunk character/exhibition card: framed, a dinosaur silhouette, a title bar."""
    L, W = size_mm
    p = _Pen(L, W)
    p.poly(_round_rect(L, W, 3.0), (235, 240, 245))
    p.poly(_round_rect(L - 6, W - 6, 2.0), _mix(team_colour, (255, 255, 255), 0.35))
    p.poly([(-L / 2 + 3, W / 2 - 16), (L / 2 - 3, W / 2 - 16), (L / 2 - 3, W / 2 - 3), (-L / 2 + 3, W / 2 - 3)], (50, 50, 50))
    p.text(title, (0, W / 2 - 9.5), 8, (240, 240, 240))
    s = 18
    body = [(-1.2, 0.6), (-0.5, 0.0), (0.2, -0.1), (0.7, -0.8), (1.1, -0.85), (1.2, -0.55), (0.8, -0.45), (0.7, 0.2),
            (0.5, 0.8), (0.3, 0.8), (0.2, 0.3), (-0.3, 0.35), (-0.35, 0.8), (-0.55, 0.8), (-0.55, 0.45)]
    p.poly([(x * s, y * s - 6) for x, y in body], _shade(team_colour, 0.7))
    return p.art()


def _round_rect(L, W, r, n=6):
    pts = []
    for cx, cy, a0 in ((L / 2 - r, W / 2 - r, 0), (-L / 2 + r, W / 2 - r, 90), (-L / 2 + r, -W / 2 + r, 180), (L / 2 - r, -W / 2 + r, 270)):
        for a in np.linspace(math.radians(a0), math.radians(a0 + 90), n):
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts)


# --------------------------------------------------------------------------------------------
# Dogo Dash cards


def _card_base(L, W, colour, title):
    p = _Pen(L, W)
    p.poly(_round_rect(L, W, 3.0), (245, 248, 250))
    p.poly(_round_rect(L - 5, W - 5, 2.5), colour)
    p.poly([(-L / 2 + 4, W / 2 - 15), (L / 2 - 4, W / 2 - 15), (L / 2 - 4, W / 2 - 4), (-L / 2 + 4, W / 2 - 4)], (245, 245, 245))
    p.text(title, (0, W / 2 - 9.5), 7.5, (40, 40, 40))
    return p


@lru_cache(maxsize=16)
def card_face(face: str, size_mm: tuple = (88.0, 63.0)) -> Art:
    """A Dogo Dash card face (``cat``, ``dog``, ``bear``, ``cookie``, ``good-boy``), drawn with the
    card's long side along its local x (the picture upright when the card lies that way)."""
    L, W = size_mm
    cy = -7.0  # picture centre (above the title bar)
    if face == "cat":
        p = _card_base(L, W, (200, 170, 120), "CAT")
        fur = (60, 120, 220)
        p.poly([(-16, cy - 6), (-12, cy - 22), (-4, cy - 11)], fur)  # ears: tall triangles
        p.poly([(16, cy - 6), (12, cy - 22), (4, cy - 11)], fur)
        p.ellipse((0, cy), (17, 14), 0, fur)
        for s in (-1, 1):
            p.ellipse((s * 6.5, cy - 2), (2.8, 4.2), 0, (60, 200, 90))
            p.ellipse((s * 6.5, cy - 2), (0.9, 3.6), 0, (20, 20, 20))
            for dy in (-1.5, 1.5):
                p.line([(s * 5, cy + 5 + dy), (s * 21, cy + 3 + 2.5 * dy)], (40, 40, 40), 0.5)
        p.poly([(-2, cy + 3), (2, cy + 3), (0, cy + 5.5)], (150, 110, 240))
    elif face == "dog":
        p = _card_base(L, W, (150, 210, 150), "DOG")
        fur = (90, 150, 200)
        p.ellipse((0, cy), (15, 15), 0, fur)
        p.ellipse((-16, cy + 2), (5, 12), -15, (40, 70, 110))  # floppy ears
        p.ellipse((16, cy + 2), (5, 12), 15, (40, 70, 110))
        p.ellipse((0, cy + 6), (8, 6), 0, (200, 225, 240))  # muzzle
        p.ellipse((0, cy + 3), (3.5, 2.5), 0, (20, 20, 20))  # nose
        for s in (-1, 1):
            p.circle((s * 6, cy - 4), 2.2, (20, 20, 20))
        p.ellipse((0, cy + 11), (3, 4), 0, (120, 110, 240))  # tongue
    elif face == "bear":
        p = _card_base(L, W, (120, 170, 210), "BEAR")
        fur = (30, 60, 100)
        for s in (-1, 1):
            p.circle((s * 13, cy - 12), 6, fur)
            p.circle((s * 13, cy - 12), 3, (90, 130, 170))
        p.circle((0, cy), 16, fur)
        p.ellipse((0, cy + 6), (8, 6), 0, (120, 170, 210))
        p.ellipse((0, cy + 3.5), (3, 2.2), 0, (10, 10, 10))
        for s in (-1, 1):
            p.circle((s * 6.5, cy - 4), 2.0, (10, 10, 10))
    elif face == "cookie":
        p = _card_base(L, W, (180, 120, 200), "COOKIE")
        dough = (80, 160, 215)
        p.circle((0, cy), 17, dough)
        p.circle((0, cy), 17, (50, 110, 160), width_mm=1.0)
        for (x, y) in ((-7, -6), (5, -9), (8, 3), (-3, 5), (-10, 4), (2, -1), (11, -5), (-4, 12)):
            p.poly(circle_pts((x, cy + y), 2.0, 7), (30, 45, 70))  # chocolate chips
    elif face in ("good-boy", "goodboy", "good_boy"):
        p = _card_base(L, W, (60, 200, 240), "GOOD BOY")
        gold = (40, 170, 230)
        p.poly([(-8, cy + 6), (-14, cy + 24), (-4, cy + 19)], (200, 80, 40))  # ribbons
        p.poly([(8, cy + 6), (14, cy + 24), (4, cy + 19)], (200, 80, 40))
        a = np.arange(24) * math.pi / 12
        rad = np.where(np.arange(24) % 2 == 0, 16.0, 13.0)
        p.poly(np.column_stack([rad * np.cos(a), cy + rad * np.sin(a)]), gold)  # rosette
        p.circle((0, cy), 10.5, (245, 245, 245))
        for dx, dy, rr in ((0, 2.5, 3.6), (-4.5, -2.5, 1.8), (-1.5, -5.0, 1.8), (1.5, -5.0, 1.8), (4.5, -2.5, 1.8)):
            p.circle((dx, cy + dy), rr, (30, 30, 30))  # a paw print
    else:
        raise KeyError(f"no card face {face!r}; faces are {', '.join(CARD_FACES)}")
    return p.art()


@lru_cache(maxsize=4)
def card_back(size_mm: tuple = (88.0, 63.0)) -> Art:
    """The common Dogo Dash card back: a blue diamond lattice with a white paw in an oval."""
    L, W = size_mm
    p = _Pen(L, W)
    p.poly(_round_rect(L, W, 3.0), (245, 248, 250))
    inner = _Pen(L, W)
    inner.poly(_round_rect(L - 5, W - 5, 2.5), (150, 70, 30))
    for k in np.arange(-L, L, 8.0):
        inner.line([(k, -W), (k + 2 * W, W)], (175, 100, 55), 0.9)
        inner.line([(k, W), (k + 2 * W, -W)], (175, 100, 55), 0.9)
    keep = _Pen(L, W)
    keep.poly(_round_rect(L - 5, W - 5, 2.5), (255, 255, 255))
    m = keep.img[:, :, 3:4].astype(np.float32) / 255.0
    p.img[:, :, :3] = (p.img[:, :, :3] * (1 - m) + inner.img[:, :, :3] * m).astype(np.uint8)
    p.ellipse((0, 0), (20, 14), 0, (245, 245, 245))
    for dx, dy, rr in ((0, 3, 5.0), (-6.5, -3.5, 2.4), (-2.2, -7.0, 2.4), (2.2, -7.0, 2.4), (6.5, -3.5, 2.4)):
        p.circle((dx, dy), rr, (150, 70, 30))
    return p.art()


@lru_cache(maxsize=8)
def movement_card(size_mm: tuple = (88.0, 63.0), value: int = 1) -> Art:
    """A Dodo Dash movement card: green with white arrows and the number of hexes."""
    L, W = size_mm
    p = _card_base(L, W, (90, 160, 60), "MOVE")
    for k in range(max(1, min(int(value), 3))):
        x = -18 + 18 * k
        p.poly([(x - 7, -14), (x + 3, -14), (x + 3, -19), (x + 12, -8), (x + 3, 3), (x + 3, -2), (x - 7, -2)], (245, 245, 245))
    p.text(str(value), (28, -8), 12, (245, 245, 245))
    return p.art()


# --------------------------------------------------------------------------------------------
# Morris the Dodo


@lru_cache(maxsize=16)
def egg_token(colour: str, face: str, diameter_mm: float = 30.0) -> Art:
    """A Morris egg token in one of the four colours. ``whole``: an intact, smooth egg with a
    highlight; ``broken``: two shell halves with zig-zag edges pulled apart and the yolk between."""
    r = diameter_mm / 2.0
    col = EGG_COLOURS.get(colour, NAMED_COLOURS.get(colour, (150, 150, 150)))
    p = _Pen(diameter_mm, diameter_mm)
    p.circle((0, 0), r, col)
    p.circle((0, 0), r * 0.93, _shade(col, 0.7), width_mm=max(0.3, r * 0.05))
    shell = (235, 245, 250)
    if face == "whole":
        egg = np.column_stack([0.42 * r * np.sin(t := np.linspace(0, math.tau, 48, endpoint=False)),
                               -0.62 * r * np.cos(t) * np.where(np.cos(t) > 0, 1.0, 0.8) + 0.08 * r])
        p.poly(egg, shell)
        p.line(np.vstack([egg, egg[:1]]), _shade(col, 0.5), max(0.3, r * 0.04))
        p.ellipse((-0.14 * r, -0.25 * r), (0.08 * r, 0.16 * r), -20, (255, 255, 255))
    else:
        p.ellipse((0, 0.05 * r), (0.3 * r, 0.26 * r), 0, (30, 200, 250))  # the yolk
        zig = np.array([(-0.42, 0.0), (-0.28, -0.12), (-0.14, 0.04), (0.0, -0.12), (0.14, 0.04), (0.28, -0.12), (0.42, 0.0)])
        for side in (-1, 1):
            t = np.linspace(0, math.pi, 24)
            dome = np.column_stack([-0.42 * np.cos(t), side * (0.5 * np.sin(t))])
            half = np.vstack([dome, zig[::-1] if side < 0 else zig]) * r
            half[:, 1] += side * 0.33 * r
            half[:, 0] += side * 0.08 * r
            p.poly(half, shell)
            p.line(np.vstack([half, half[:1]]), _shade(col, 0.5), max(0.3, r * 0.04))
    return p.art()


@lru_cache(maxsize=4)
def shelter(diameter_mm: float = 70.0) -> Art:
    """A Morris shelter token: a straw hut on a grassy round tile."""
    r = diameter_mm / 2.0
    p = _Pen(diameter_mm, diameter_mm)
    p.circle((0, 0), r, (80, 160, 110))
    p.poly([(-0.7 * r, 0.1 * r), (0, -0.6 * r), (0.7 * r, 0.1 * r)], (60, 150, 200))  # roof
    for k in np.linspace(-0.5, 0.5, 6):
        p.line([(0, -0.58 * r), (k * r * 1.2, 0.08 * r)], (40, 110, 160), 0.6)
    p.poly([(-0.5 * r, 0.1 * r), (0.5 * r, 0.1 * r), (0.5 * r, 0.6 * r), (-0.5 * r, 0.6 * r)], (70, 120, 170))
    p.poly([(-0.12 * r, 0.28 * r), (0.12 * r, 0.28 * r), (0.12 * r, 0.6 * r), (-0.12 * r, 0.6 * r)], (30, 50, 80))
    return p.art()


# --------------------------------------------------------------------------------------------
# Dodo Dash projectiles: six distinct outlines and colours


def projectile_outline(kind: str, diameter_mm: float) -> np.ndarray:
    """(k, 2) the token's outline in its own frame (mm, x along its angle), about ``diameter_mm``
    across: meteorite a lumpy rock, egg an oval, feather a long vane, banana a crescent, dodo a
    bird, log a round-ended bar (drawn as a lying cylinder by the renderer)."""
    r = diameter_mm / 2.0
    t = np.linspace(0, math.tau, 40, endpoint=False)
    if kind == "meteorite":
        bumps = 1.0 + 0.13 * np.sin(5 * t + 0.7) + 0.07 * np.sin(9 * t + 2.0)
        return np.column_stack([r * 0.9 * bumps * np.cos(t), r * 0.9 * bumps * np.sin(t)])
    if kind == "egg":
        return np.column_stack([r * np.cos(t) * np.where(np.cos(t) > 0, 1.0, 0.78), 0.72 * r * np.sin(t)])
    if kind == "feather":
        x = r * np.cos(t)
        return np.column_stack([x, 0.3 * r * np.sin(t) * (1.0 - 0.4 * np.cos(t))])
    if kind == "banana":
        a = np.linspace(-1.1, 1.1, 20)
        outer = np.column_stack([r * np.sin(a), r * 0.9 - r * np.cos(a) * 1.0])
        inner = np.column_stack([0.8 * r * np.sin(a[::-1]), r * 0.9 - 0.62 * r * np.cos(a[::-1])])
        pts = np.vstack([outer, inner])
        return pts - [0, pts[:, 1].mean()]
    if kind == "dodo":
        body = np.column_stack([-0.15 * r + 0.7 * r * np.cos(t), 0.1 * r + 0.6 * r * np.sin(t)])
        body = body[(body[:, 0] < 0.35 * r) | (body[:, 1] > 0.0)]
        head = [(0.3 * r, -0.05 * r), (0.45 * r, -0.55 * r), (0.7 * r, -0.62 * r), (1.0 * r, -0.45 * r),
                (0.72 * r, -0.35 * r), (0.6 * r, 0.05 * r)]
        return np.vstack([body[body[:, 1] > 0], np.array(head)[::-1][::-1], body[body[:, 1] <= 0][::-1][:0]])
    if kind == "log":
        return np.array([(-r, -0.45 * r), (r, -0.45 * r), (r, 0.45 * r), (-r, 0.45 * r)])
    return np.column_stack([r * np.cos(t), r * np.sin(t)])


PROJECTILE_COLOURS = {"meteorite": (70, 80, 95), "log": (40, 85, 130), "egg": (235, 240, 245), "feather": (180, 160, 40),
                      "banana": (40, 215, 245), "dodo": (170, 140, 120)}


@lru_cache(maxsize=16)
def projectile_face(kind: str, diameter_mm: float) -> Art:
    """The top of a projectile token: its outline filled in its colour, with a few details."""
    outline = projectile_outline(kind, diameter_mm)
    ext = float(np.max(np.abs(outline))) * 2 + 1.0
    p = _Pen(ext, ext)
    col = PROJECTILE_COLOURS.get(kind, (150, 150, 150))
    p.poly(outline, col)
    r = diameter_mm / 2.0
    dark = _shade(col, 0.6)
    if kind == "meteorite":
        for (x, y, rr) in ((-0.3, -0.2, 0.18), (0.25, 0.2, 0.14), (0.3, -0.35, 0.1), (-0.2, 0.4, 0.1)):
            p.circle((x * r, y * r), rr * r, dark)
        p.line(np.vstack([outline, outline[:1]]), (30, 60, 200), max(0.3, 0.06 * r))  # glowing rim
    elif kind == "egg":
        for (x, y) in ((-0.3, -0.2), (0.2, 0.25), (0.4, -0.1), (-0.1, 0.3), (0.0, -0.35)):
            p.circle((x * r, y * r), 0.07 * r, (120, 170, 200))
    elif kind == "feather":
        p.line([(-r, 0), (r * 0.95, 0)], (240, 240, 240), max(0.3, 0.06 * r))
        for k in np.linspace(-0.7, 0.7, 8):
            p.line([(k * r, 0), (k * r + 0.15 * r, 0.22 * r)], dark, 0.3)
            p.line([(k * r, 0), (k * r + 0.15 * r, -0.22 * r)], dark, 0.3)
    elif kind == "banana":
        ends = outline[[0, 19]]
        for e in ends:
            p.circle(e, 0.1 * r, (30, 60, 80))
    elif kind == "dodo":
        p.circle((0.62 * r, -0.47 * r), 0.07 * r, (20, 20, 20))
        p.poly([(0.85 * r, -0.5 * r), (1.0 * r, -0.45 * r), (0.8 * r, -0.38 * r)], (40, 160, 230))
        p.ellipse((-0.25 * r, 0.15 * r), (0.35 * r, 0.2 * r), 10, dark)  # wing
    elif kind == "log":
        for k in np.linspace(-0.8, 0.8, 5):
            p.line([(k * r, -0.35 * r), (k * r + 0.2 * r, 0.35 * r)], dark, 0.5)
    return p.art()
