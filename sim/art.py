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


@dataclass(frozen=True, eq=False)
class Art:
    """``image`` BGRA uint8 (rows = the piece's local +y) covering ``size_mm`` (w, h)."""

    image: np.ndarray
    size_mm: tuple
    levels: list = field(default_factory=list, compare=False, repr=False)

    def level(self, px_per_mm: float) -> np.ndarray:
        """The art reduced (box filter, powers of two) to about ``px_per_mm`` (≥ it, for sharpness)."""
        import cv2

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
    return tuple(int(np.clip(c * k, 0, 255)) for c in colour)


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
        # keep stripes inside the disc
        mask = np.zeros(p.img.shape[:2], np.uint8)
        import cv2

        cv2.circle(mask, (int(p.W / 2), int(p.H / 2)), int(r * p.res), 255, -1, cv2.LINE_AA)
        p.img[:, :, 3] = np.minimum(p.img[:, :, 3], mask)
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
    mask = np.zeros(p.img.shape[:2], np.uint8)
    import cv2

    cv2.circle(mask, (int(p.W / 2), int(p.H / 2)), int(r * p.res), 255, -1, cv2.LINE_AA)
    p.img[:, :, 3] = np.minimum(p.img[:, :, 3], mask)
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
