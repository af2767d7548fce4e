"""Camera and room effects on a rendered frame: lighting (direction, colour, falloff), soft shadows
of pieces on the mat, a lamp's glare, vignetting, lens softness, sensor noise, motion blur of moving
pieces, JPEG artefacts and occluders (a hand and arm entering the frame, a cup on the table).

Frames: shadows are cast in **mat mm** (a point at height h lands ``h / tan(elevation)`` mm away
from the light) and drawn in **image px**; everything else works in image px. All values come from
a :class:`sim.style.Style`; randomness only from the ``rng`` passed in, so a frame is reproducible
from its seed.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

SHIFT = 4
ONE = 1 << SHIFT
OCCLUDER_LABEL = 65535


def light_direction(style) -> tuple:
    """(dx, dy) horizontal unit vector in mat mm pointing towards the light, and tan(elevation)."""
    a = math.radians(style.light_azimuth_deg)
    return (math.cos(a), math.sin(a)), math.tan(math.radians(max(style.light_elevation_deg, 5.0)))


def shadow_points(points_mm3: np.ndarray, style) -> np.ndarray:
    """(k, 3) mat-frame points (z = -height) → (k, 3) where their shadows fall on the mat (z = 0)."""
    (dx, dy), tan_el = light_direction(style)
    pts = np.asarray(points_mm3, dtype=np.float64).reshape(-1, 3)
    h = np.maximum(-pts[:, 2], 0.0)
    off = h / tan_el
    return np.column_stack([pts[:, 0] - dx * off, pts[:, 1] - dy * off, np.zeros(len(pts))])


def apply_shadows(img: np.ndarray, hulls_px: list, style) -> None:
    """Darken ``img`` in place under the (convex, image px) shadow polygons, softened by a Gaussian
    of ``style.shadow_blur_px`` and of depth ``style.shadow_strength``."""
    import cv2

    if style.shadow_strength <= 0 or not hulls_px:
        return
    H, W = img.shape[:2]
    allp = np.vstack(hulls_px)
    pad = int(math.ceil(3 * style.shadow_blur_px)) + 2
    x0 = max(int(np.floor(allp[:, 0].min())) - pad, 0)
    y0 = max(int(np.floor(allp[:, 1].min())) - pad, 0)
    x1 = min(int(np.ceil(allp[:, 0].max())) + pad + 1, W)
    y1 = min(int(np.ceil(allp[:, 1].max())) + pad + 1, H)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    off = np.array([x0, y0])
    for h in hulls_px:  # one call each: fillPoly of several polygons would XOR their overlaps
        cv2.fillPoly(mask, [np.round((h - off) * ONE).astype(np.int32)], 255, cv2.LINE_AA, SHIFT)
    if style.shadow_blur_px > 0.3:
        mask = cv2.GaussianBlur(mask, (0, 0), style.shadow_blur_px)
    gain = 255 - (mask.astype(np.uint16) * int(round(style.shadow_strength * 256)) >> 8).astype(np.uint8)
    roi = img[y0:y1, x0:x1]
    cv2.multiply(roi, cv2.merge([gain, gain, gain]), dst=roi, scale=1 / 255.0)


def motion_blur(img: np.ndarray, mask: np.ndarray, roi: tuple, velocity_px_s: np.ndarray, exposure_ms: float) -> None:
    """Smear the piece drawn in ``mask`` (uint8, the ROI's size) along its image velocity over the
    exposure, in place. ``roi`` = (x0, y0, x1, y1) image px of ``mask``, inside the image."""
    import cv2

    v = np.asarray(velocity_px_s, dtype=np.float64) * exposure_ms / 1000.0
    length = float(np.hypot(*v))
    if length < 0.75 or not np.all(np.isfinite(v)):
        return
    H, W = img.shape[:2]
    n = int(math.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    d = v / length
    cv2.line(k, (int(round(c * ONE - d[0] * length / 2 * ONE)), int(round(c * ONE - d[1] * length / 2 * ONE))),
             (int(round(c * ONE + d[0] * length / 2 * ONE)), int(round(c * ONE + d[1] * length / 2 * ONE))), 1.0, 1,
             cv2.LINE_AA, SHIFT)
    k /= max(k.sum(), 1e-6)
    x0, y0, x1, y1 = roi
    X0, Y0, X1, Y1 = max(x0 - c, 0), max(y0 - c, 0), min(x1 + c, W), min(y1 + c, H)
    if X1 <= X0 or Y1 <= Y0:
        return
    big = np.zeros((Y1 - Y0, X1 - X0), np.float32)  # the piece's mask with room for the smear
    big[y0 - Y0:y0 - Y0 + mask.shape[0], x0 - X0:x0 - X0 + mask.shape[1]] = mask * (1 / 255.0)
    region = img[Y0:Y1, X0:X1]
    blurred = cv2.filter2D(region, -1, k, borderType=cv2.BORDER_REPLICATE)
    alpha = np.clip(cv2.filter2D(big, -1, k) * 2.0, 0, 1)[:, :, None]
    region[:] = (region * (1 - alpha) + blurred * alpha + 0.5).astype(np.uint8)


@lru_cache(maxsize=8)
def _gain_u8(size: tuple, brightness: float, colour_gain: tuple, gradient: float, grad_dir: tuple, vignette: float) -> np.ndarray:
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    nx, ny = (xs - (w - 1) / 2) / (w / 2), (ys - (h - 1) / 2) / (h / 2)
    g = np.ones((h, w), np.float32) * brightness
    if gradient:
        proj = (nx * grad_dir[0] + ny * grad_dir[1]) / 2.0  # -0.7 .. 0.7, + towards the light
        g *= 1.0 + gradient * proj
    if vignette:
        r2 = (nx * nx * (w / h) ** 2 + ny * ny) / (1 + (w / h) ** 2)
        g *= 1.0 - vignette * r2 * 1.6
    out = np.empty((h, w, 3), np.uint8)
    for c in range(3):
        out[:, :, c] = np.clip(g * colour_gain[c] * 128.0, 0, 255).astype(np.uint8)
    return out


@lru_cache(maxsize=8)
def _noise_banks(size: tuple, sigma_q: float) -> tuple:
    """Two uint8 banks (positive and negative parts of N(0, sigma_q²) noise) a little larger than
    the frame, from a fixed seed: adding one and subtracting the other is two saturating uint8 ops."""
    w, h = size
    rng = np.random.default_rng(0x7AB1E)
    n = rng.standard_normal((h + 128, w + 128, 3)).astype(np.float32) * sigma_q
    n = np.round(n)
    pos = np.clip(n, 0, 255).astype(np.uint8)
    neg = np.clip(-n, 0, 255).astype(np.uint8)
    return pos, neg


def apply_lighting(img: np.ndarray, style, light_dir_px: tuple = (0.0, -1.0)) -> np.ndarray:
    """Brightness, light colour, a falloff away from the light (``light_dir_px``: unit image
    direction towards the light) and vignetting, as one gain map (cached per style and size)."""
    import cv2

    neutral = (style.brightness == 1.0 and tuple(style.colour_gain) == (1.0, 1.0, 1.0) and not style.gradient
               and not style.vignette)
    if neutral:
        return img
    h, w = img.shape[:2]
    gdir = (round(float(light_dir_px[0]), 3), round(float(light_dir_px[1]), 3))
    gain = _gain_u8((w, h), round(style.brightness, 4), tuple(round(c, 4) for c in style.colour_gain),
                    round(style.gradient, 4), gdir, round(style.vignette, 4))
    return cv2.multiply(img, gain, scale=1 / 128.0)


def apply_noise(img: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Additive Gaussian sensor noise of ``sigma`` grey levels (quantised to 0.25): a window at a
    random offset, drawn from ``rng``, of a fixed noise bank (cheap and reproducible)."""
    import cv2

    if sigma <= 0:
        return img
    h, w = img.shape[:2]
    pos, neg = _noise_banks((w, h), round(sigma * 4) / 4.0)
    ox, oy = int(rng.integers(0, 128)), int(rng.integers(0, 128))
    if rng.random() < 0.5:
        pos, neg = neg, pos
    out = cv2.add(img, pos[oy:oy + h, ox:ox + w])
    return cv2.subtract(out, neg[oy:oy + h, ox:ox + w], dst=out)


def apply_defocus(img: np.ndarray, sigma_px: float) -> np.ndarray:
    """Lens softness: a Gaussian blur of ``sigma_px`` over the frame (symmetric: moves no edge)."""
    import cv2

    if sigma_px < 0.2:
        return img
    return cv2.GaussianBlur(img, (0, 0), sigma_px)


@lru_cache(maxsize=8)
def _glare_u8(size: tuple, x: float, y: float, radius: float, strength: float) -> np.ndarray:
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    r = radius * math.hypot(w, h)
    g = strength * np.exp(-((xs - x * w) ** 2 + (ys - y * h) ** 2) / (2 * r * r))
    return np.clip(g * 255.0 + 0.5, 0, 255).astype(np.uint8)


def apply_glare(img: np.ndarray, style) -> np.ndarray:
    """A lamp's soft reflection: pull the image towards white by ``glare_strength`` at
    (``glare_x``, ``glare_y``) (fractions of the frame), falling off as a Gaussian."""
    import cv2

    if style.glare_strength <= 0:
        return img
    h, w = img.shape[:2]
    g = _glare_u8((w, h), round(style.glare_x, 4), round(style.glare_y, 4), round(style.glare_radius, 4),
                  round(style.glare_strength, 4))
    g3 = cv2.merge([g, g, g])
    lift = cv2.multiply(cv2.bitwise_not(img), g3, scale=1 / 255.0)
    return cv2.add(img, lift)


def apply_jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    """A JPEG round trip at ``quality`` (1..100); 0 leaves the image as it is."""
    import cv2

    if not quality:
        return img
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img


# --------------------------------------------------------------------------------------------
# occluders


def hand_shapes(occ, size: tuple) -> list:
    """The hand and arm of a ``hand`` occluder as image-px primitives: a list of
    ("line", p0, p1, thickness, colour) and ("ellipse", centre, axes, angle, colour)."""
    w, h = size
    diag = math.hypot(w, h)
    edge_pts = [(occ.along * w, -0.05 * h), (w * 1.05, occ.along * h), (occ.along * w, h * 1.05), (-0.05 * w, occ.along * h)]
    normals = [(0, 1), (-1, 0), (0, -1), (1, 0)]
    e = np.array(edge_pts[occ.edge])
    n = np.array(normals[occ.edge], dtype=float)
    a = math.radians(occ.angle_deg)
    d = np.array([n[0] * math.cos(a) - n[1] * math.sin(a), n[0] * math.sin(a) + n[1] * math.cos(a)])
    side = np.array([-d[1], d[0]])
    arm_w = occ.width * h
    palm = e + d * (occ.reach * diag + 0.05 * h)
    skin = tuple(int(c) for c in occ.colour)
    dark = tuple(int(c * 0.8) for c in skin)
    start = e - d * arm_w
    shapes = [("line", start, palm - d * arm_w * 0.3, arm_w, dark), ("line", start, palm - d * arm_w * 0.3, arm_w * 0.85, skin),
              ("ellipse", palm, (arm_w * 0.75, arm_w * 0.62), math.degrees(math.atan2(d[1], d[0])), skin)]
    finger_w = arm_w * 0.2
    for k, (off, length) in enumerate(((-0.42, 0.75), (-0.14, 0.9), (0.14, 0.85), (0.42, 0.68))):
        base = palm + d * arm_w * 0.45 + side * off * arm_w
        tip = base + d * length * arm_w
        shapes.append(("line", base, tip, finger_w, skin))
    thumb_base = palm + side * 0.55 * arm_w
    shapes.append(("line", thumb_base, thumb_base + (side * 0.6 + d * 0.4) * arm_w * 0.8, finger_w * 1.1, skin))
    return shapes


def _hand_mask(shapes, size: tuple, offset=(0.0, 0.0)) -> np.ndarray:
    import cv2

    w, h = size
    mask = np.zeros((h, w), np.uint8)
    off = np.asarray(offset, dtype=float)
    for s in shapes:
        if s[0] == "line":
            _, p0, p1, t, _ = s
            cv2.line(mask, tuple(int(round(v * ONE)) for v in p0 + off), tuple(int(round(v * ONE)) for v in p1 + off), 255,
                     max(1, int(round(t))), cv2.LINE_AA, SHIFT)
        else:
            _, c, axes, ang, _ = s
            cv2.ellipse(mask, tuple(int(round(v * ONE)) for v in c + off), tuple(int(round(v * ONE)) for v in axes), ang, 0, 360,
                        255, -1, cv2.LINE_AA, SHIFT)
    return mask


def draw_hand(img: np.ndarray, labels: np.ndarray, occ, style=None, light_dir_px=(0.0, -1.0)) -> None:
    """Draw a hand-and-arm occluder onto ``img`` and mark it in ``labels`` (in place). With a
    ``style`` whose shadows are on, the hand first casts a soft shadow on the table, away from the
    light (``light_dir_px``, unit image direction towards it): it hovers well above the table."""
    import cv2

    h, w = img.shape[:2]
    shapes = hand_shapes(occ, (w, h))
    if style is not None and style.shadow_strength > 0:
        lift = 0.06 * math.hypot(w, h) / math.tan(math.radians(max(style.light_elevation_deg, 5.0)))
        off = -np.asarray(light_dir_px, dtype=float) * lift
        mask = cv2.GaussianBlur(_hand_mask(shapes, (w, h), off), (0, 0), 4.0 + 2 * style.shadow_blur_px)
        gain = 255 - (mask.astype(np.uint16) * int(round(0.8 * style.shadow_strength * 256)) >> 8).astype(np.uint8)
        cv2.multiply(img, cv2.merge([gain, gain, gain]), dst=img, scale=1 / 255.0)
    for s in shapes:
        if s[0] == "line":
            _, p0, p1, t, col = s
            a = tuple(int(round(v * ONE)) for v in p0)
            b = tuple(int(round(v * ONE)) for v in p1)
            cv2.line(img, a, b, col, max(1, int(round(t))), cv2.LINE_AA, SHIFT)
            cv2.line(labels, a, b, OCCLUDER_LABEL, max(1, int(round(t))), cv2.LINE_8, SHIFT)
        else:
            _, c, axes, ang, col = s
            cc = tuple(int(round(v * ONE)) for v in c)
            ax = tuple(int(round(v * ONE)) for v in axes)
            cv2.ellipse(img, cc, ax, ang, 0, 360, col, -1, cv2.LINE_AA, SHIFT)
            cv2.ellipse(labels, cc, ax, ang, 0, 360, OCCLUDER_LABEL, -1, cv2.LINE_8, SHIFT)


def cup_body(occ, board):
    """A cup occluder as a :class:`sim.bodies.Body` standing on the table (mat mm)."""
    from sim.bodies import Body, Part, ring

    x, y = occ.x * board.length_mm, occ.y * board.width_mm
    r, hh = occ.radius_mm, occ.height_mm
    colour = tuple(int(c) for c in occ.colour)
    side = tuple(int(c * 0.75) for c in colour)
    parts = [Part("hull", np.vstack([ring(x, y, 0, r * 0.85), ring(x, y, hh, r)]), side),
             Part("poly", ring(x, y, hh, r), colour),
             Part("poly", ring(x, y, hh, r * 0.88), (30, 45, 70))]
    return Body(None, parts, np.vstack([ring(x, y, 0, r * 0.85), ring(x, y, hh, r)]), np.array([x, y, -hh]), occluder=True)
