"""Small factories and an independent brute-force rasteriser for the referee tests (mat mm)."""

from __future__ import annotations

import numpy as np

from calibration.board import Region

PX = 0.05  # raster pitch, mm


def circle_region(cx, cy, r, name="zone") -> Region:
    return Region(name, "circle", (float(cx), float(cy), float(r)))


def polygon_region(points, name="poly") -> Region:
    return Region(name, "polygon", tuple((float(x), float(y)) for x, y in points))


def rect_region(x0, y0, x1, y1, name="rect") -> Region:
    return Region(name, "rect", (float(x0), float(y0), float(x1), float(y1)))


def grid(x0, y0, x1, y1, px=PX):
    """Pixel-centre coordinates (h, w) of a window in mat mm."""
    xs = np.arange(x0 + px / 2, x1, px)
    ys = np.arange(y0 + px / 2, y1, px)
    return np.meshgrid(xs, ys)


def raster_disc(X, Y, c, r) -> np.ndarray:
    return (X - c[0]) ** 2 + (Y - c[1]) ** 2 <= r * r


def raster_region(X, Y, region) -> np.ndarray:
    """Pixels inside a region: a plain point-in-shape test, independent of referee.regions."""
    if region.shape == "circle":
        cx, cy, r = region.params
        return (X - cx) ** 2 + (Y - cy) ** 2 <= r * r
    if region.shape == "rect":
        x0, y0, x1, y1 = region.params
        return (X >= x0) & (X <= x1) & (Y >= y0) & (Y <= y1)
    raise NotImplementedError


def raster_polygon(X, Y, points) -> np.ndarray:
    """Even-odd ray casting, vectorised over pixels."""
    pts = np.asarray(points, dtype=float)
    inside = np.zeros(X.shape, dtype=bool)
    n = len(pts)
    for i in range(n):
        (x0, y0), (x1, y1) = pts[i], pts[(i + 1) % n]
        cond = (y0 > Y) != (y1 > Y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xint = x0 + (Y - y0) * (x1 - x0) / (y1 - y0)
        inside ^= cond & (X < xint)
    return inside
