"""Attribute features: from a crop of one piece (a BGR image in **image px**) to a fixed-length
feature vector that a small linear model (``vision/classify.py``) can separate.

A crop is normalised first (``normalise_crop``): resized to the task's canonical size; a round
piece's crop is the square around its box, a card's crop is its quad rectified upright
(``vision.cards.rectify_card``). The features, all cheap on a CPU:

- ``colour``: chromaticity that survives a change of brightness and white balance: the histogram of
  hue weighted by saturation (12 bins), of saturation and of value (4 bins each), the mean and the
  spread of Lab a*, b* and L in the central disc, and a grey-world normalised mean colour;
- ``hog``: a histogram of oriented gradients of the grey crop (shape and print), L2-Hys blocks
  (written here: OpenCV 5 dropped ``cv2.HOGDescriptor``);
- ``radial``: mean colour, spread and the fraction of white and of yellow pixels in concentric
  rings (what lies at the centre of a round face, whatever its turn: an egg's yolk or its shell);
- ``lbp``: the histogram of uniform 8-neighbour local binary patterns (texture: stripes, cracks).

``features(crops, spec)`` is batch-first: (n, H, W, 3) or a list of crops of any size in, (n, d)
float32 out; empty in, (0, d) out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FeatureSpec:
    """What a task's classifier sees. ``size`` (w, h) px of the normalised crop; ``parts`` a tuple
    of ``colour`` / ``radial`` / ``hog`` / ``lbp``; ``hog_cell`` px; ``round`` masks the corners (discs, eggs)."""

    size: tuple = (32, 32)
    parts: tuple = ("colour", "hog")
    hog_cell: int = 8
    round: bool = True

    def to_dict(self) -> dict:
        return {"size": list(self.size), "parts": list(self.parts), "hog_cell": self.hog_cell, "round": self.round}

    @classmethod
    def from_dict(cls, d: dict) -> "FeatureSpec":
        return cls(tuple(int(v) for v in d["size"]), tuple(str(p) for p in d["parts"]), int(d["hog_cell"]), bool(d["round"]))


def square_crop(image: np.ndarray, xyxy, margin: float = 0.08) -> np.ndarray:
    """The square crop around a box ``xyxy`` (image px) grown by ``margin`` of its size on every
    side; parts outside the image are filled by replicating the border."""
    import cv2

    x0, y0, x1, y1 = (float(v) for v in xyxy)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half = max(x1 - x0, y1 - y0) * (0.5 + margin)
    half = max(half, 2.0)
    a0, b0 = int(np.floor(cx - half)), int(np.floor(cy - half))
    a1, b1 = int(np.ceil(cx + half)), int(np.ceil(cy + half))
    h, w = image.shape[:2]
    pad = max(0, -a0, -b0, a1 - w, b1 - h)
    if pad:
        image = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        a0, b0, a1, b1 = a0 + pad, b0 + pad, a1 + pad, b1 + pad
    return image[b0:b1, a0:a1]


def box_crop(image: np.ndarray, xyxy) -> np.ndarray:
    """The crop of the box ``xyxy`` (image px) as it is (not squared; a standing figure), at least
    2 px each way; parts outside the image are filled by replicating the border."""
    import cv2

    x0, y0, x1, y1 = (float(v) for v in xyxy)
    a0, b0 = int(np.floor(x0)), int(np.floor(y0))
    a1, b1 = max(int(np.ceil(x1)), a0 + 2), max(int(np.ceil(y1)), b0 + 2)
    h, w = image.shape[:2]
    pad = max(0, -a0, -b0, a1 - w, b1 - h)
    if pad:
        image = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        a0, b0, a1, b1 = a0 + pad, b0 + pad, a1 + pad, b1 + pad
    return image[b0:b1, a0:a1]


def crops_from_boxes(image: np.ndarray, xyxy: np.ndarray, margin: float = 0.08) -> list:
    """One square crop per box of ``xyxy`` (n, 4) image px."""
    return [square_crop(image, b, margin) for b in np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)]


def normalise_crop(crop: np.ndarray, spec: FeatureSpec) -> np.ndarray:
    """The crop resized to ``spec.size`` (w, h), BGR uint8 (grey crops are made BGR)."""
    import cv2

    crop = np.asarray(crop)
    if crop.ndim == 2:
        crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    if crop.dtype != np.uint8:
        crop = np.clip(crop, 0, 255).astype(np.uint8)
    w, h = spec.size
    if crop.shape[1] == w and crop.shape[0] == h:
        return crop
    shrink = crop.shape[1] > w or crop.shape[0] > h
    return cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)


def hog_features(grey: np.ndarray, cell: int = 8, bins: int = 9) -> np.ndarray:
    """Histogram of oriented gradients of a grey crop (OpenCV 5 has no ``HOGDescriptor``): unsigned
    orientation in ``bins`` bins, votes split linearly between neighbouring bins, ``cell`` px square
    cells, 2 x 2-cell blocks with a one-cell stride, L2-Hys normalised. float32, (blocks * 4 * bins,)."""
    import cv2

    g = grey.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=1)
    mag = np.sqrt(gx * gx + gy * gy)
    ang = (np.degrees(np.arctan2(gy, gx)) % 180.0) / (180.0 / bins)
    b0 = np.floor(ang).astype(np.int64) % bins
    w1 = ang - np.floor(ang)
    b1 = (b0 + 1) % bins
    ch, cw = g.shape[0] // cell, g.shape[1] // cell
    mag, b0, b1, w1 = (a[: ch * cell, : cw * cell] for a in (mag, b0, b1, w1))
    cell_idx = (np.arange(ch * cell)[:, None] // cell) * cw + (np.arange(cw * cell)[None, :] // cell)
    hist = (np.bincount((cell_idx * bins + b0).ravel(), (mag * (1 - w1)).ravel(), ch * cw * bins)
            + np.bincount((cell_idx * bins + b1).ravel(), (mag * w1).ravel(), ch * cw * bins)).reshape(ch, cw, bins)
    blocks = np.concatenate([hist[:-1, :-1], hist[:-1, 1:], hist[1:, :-1], hist[1:, 1:]], axis=2)
    blocks = blocks.reshape(-1, 4 * bins)
    blocks = blocks / np.sqrt((blocks ** 2).sum(1, keepdims=True) + 1e-6)
    blocks = np.minimum(blocks, 0.2)
    blocks = blocks / np.sqrt((blocks ** 2).sum(1, keepdims=True) + 1e-6)
    return blocks.ravel().astype(np.float32)


def _disc_mask(w: int, h: int, scale: float = 0.42) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w]
    return (((xx - (w - 1) / 2) / (w * scale)) ** 2 + ((yy - (h - 1) / 2) / (h * scale)) ** 2) <= 1.0


def colour_features(crop: np.ndarray, round_: bool = True) -> np.ndarray:
    """Colour features of one normalised BGR crop (see the module docstring), float32."""
    import cv2

    h, w = crop.shape[:2]
    mask = _disc_mask(w, h) if round_ else np.ones((h, w), bool)
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)[mask].astype(np.float32)
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)[mask].astype(np.float32)
    hue, sat, val = hsv[:, 0] * 2.0, hsv[:, 1] / 255.0, hsv[:, 2] / 255.0
    hbin = np.floor(hue / 30.0).astype(int) % 12
    hh = np.bincount(hbin, weights=sat, minlength=12)[:12] / max(len(hue), 1)
    sh = np.histogram(sat, bins=4, range=(0, 1))[0] / max(len(sat), 1)
    vh = np.histogram(val, bins=4, range=(0, 1))[0] / max(len(val), 1)
    lab_n = (lab - np.array([0, 128, 128], np.float32)) / 128.0
    stats = np.concatenate([lab_n.mean(0), lab_n.std(0), np.percentile(lab_n[:, 1:], [20, 80], axis=0).ravel()])
    bgr = crop[mask].astype(np.float32)
    grey = bgr.mean(0)
    chroma = grey / max(float(grey.sum()), 1.0)
    return np.concatenate([hh, sh, vh, stats, chroma]).astype(np.float32)


def radial_features(crop: np.ndarray, rings: int = 5) -> np.ndarray:
    """Rotation-invariant layout of a round piece's face: in ``rings`` concentric rings round the
    crop centre (out to 0.5 of its size), the mean Lab, the spread of L and the fraction of bright,
    unsaturated ("white") and of yellow pixels. float32, (rings * 6,)."""
    import cv2

    h, w = crop.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    rr = np.hypot((xx - (w - 1) / 2) / (w / 2), (yy - (h - 1) / 2) / (h / 2))
    ring = np.minimum((rr * rings).astype(int), rings)  # ``rings`` = outside
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32) / 255.0
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float32)
    # relative to the whole face: the light and the camera's gain change, the print does not
    inside = rr.ravel() < 1.0
    v_ref = max(float(np.percentile(hsv[inside, 2], 95)), 1.0)
    white = ((hsv[:, 2] > 0.7 * v_ref) & (hsv[:, 1] < 70)).astype(np.float32)
    yellow = ((hsv[:, 0] > 15) & (hsv[:, 0] < 38) & (hsv[:, 1] > 80)).astype(np.float32)
    idx = ring.ravel()
    cnt = np.maximum(np.bincount(idx, minlength=rings + 1)[:rings], 1)
    out = []
    for values in (lab[:, 0], lab[:, 1], lab[:, 2], white, yellow):
        out.append(np.bincount(idx, weights=values, minlength=rings + 1)[:rings] / cnt)
    sq = np.bincount(idx, weights=lab[:, 0] ** 2, minlength=rings + 1)[:rings] / cnt
    out.append(np.sqrt(np.maximum(sq - out[0] ** 2, 0)))
    return np.concatenate(out).astype(np.float32)


def lbp_features(grey: np.ndarray) -> np.ndarray:
    """The 10-bin uniform LBP histogram (8 neighbours, radius 1) of a grey crop, float32."""
    g = grey.astype(np.int16)
    c = g[1:-1, 1:-1]
    offs = [(-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1)]
    bits = np.stack([(g[1 + dy:g.shape[0] - 1 + dy, 1 + dx:g.shape[1] - 1 + dx] >= c) for dy, dx in offs], 0)
    transitions = (bits != np.roll(bits, 1, axis=0)).sum(0)
    ones = bits.sum(0)
    code = np.where(transitions <= 2, ones, 9)
    hist = np.bincount(code.ravel(), minlength=10).astype(np.float32)
    return hist / max(float(hist.sum()), 1.0)


def feature_vector(crop: np.ndarray, spec: FeatureSpec) -> np.ndarray:
    """(d,) float32 features of one crop of any size."""
    import cv2

    img = normalise_crop(crop, spec)
    parts = []
    if "colour" in spec.parts:
        parts.append(colour_features(img, spec.round))
    if "radial" in spec.parts:
        parts.append(radial_features(img))
    if "hog" in spec.parts or "lbp" in spec.parts:
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        grey = cv2.normalize(grey, None, 0, 255, cv2.NORM_MINMAX)  # contrast does not depend on the light
        if "hog" in spec.parts:
            parts.append(hog_features(grey, spec.hog_cell))
        if "lbp" in spec.parts:
            parts.append(lbp_features(grey))
    return np.concatenate(parts).astype(np.float32)


def feature_size(spec: FeatureSpec) -> int:
    return int(feature_vector(np.zeros((spec.size[1], spec.size[0], 3), np.uint8), spec).shape[0])


def part_weights(spec: FeatureSpec) -> np.ndarray:
    """(d,) a weight per feature that gives every part (colour, radial, hog, lbp) the same total
    say, 1/sqrt(its size): with few examples a 900-long HOG otherwise drowns 30 colour numbers."""
    out = []
    for part in ("colour", "radial", "hog", "lbp"):
        if part in spec.parts:
            n = feature_size(FeatureSpec(spec.size, (part,), spec.hog_cell, spec.round))
            out.append(np.full(n, 1.0 / np.sqrt(n)))
    return np.concatenate(out)


def features(crops, spec: FeatureSpec) -> np.ndarray:
    """(n, d) float32 features of n crops (a list of BGR images of any size, or an (n, H, W, 3)
    array); empty in, (0, d) out."""
    if len(crops) == 0:
        return np.zeros((0, feature_size(spec)), np.float32)
    return np.stack([feature_vector(c, spec) for c in crops])
