"""Synthetic camera views of a planar scene with exactly known geometry, for calibration tests.

Not the simulator's renderer (that one lives in ``sim/``): this draws a flat mat (its regions
painted, its registration markers on white paper tiles, a wooden table around it) or any planar
texture (a ChArUco board) through a known camera, so that tests can compare what registration
recovers with the truth (:meth:`MatTransform.from_pose` of the same camera).

Frames: textures are in **plane mm** through ``tex_to_plane`` (3x3, texture px centre → plane mm);
rendered images are in **image px** (OpenCV convention). A camera pose is (R, t) with
x_cam = R x_plane + t; the plane's z points into the table, so a camera above it has negative z.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.board import Board
from calibration.transform import MatTransform

TABLE_BGR = (70, 110, 150)   # light wood
MAT_BGR = (70, 140, 60)      # green neoprene
PAPER_BGR = (245, 245, 245)


@dataclass
class View:
    """One rendered view: ``image`` (H, W, 3) uint8 BGR and the ground truth ``transform``
    (mat mm ⇄ image px of the camera that rendered it)."""

    image: np.ndarray
    transform: MatTransform
    tilt_deg: float = 0.0


def camera_matrix(image_size: tuple[int, int], hfov_deg: float = 60.0) -> np.ndarray:
    """K for square pixels, principal point at the image centre, horizontal field of view."""
    w, h = image_size
    f = (w / 2.0) / np.tan(np.deg2rad(hfov_deg) / 2.0)
    return np.array([[f, 0.0, (w - 1) / 2.0], [0.0, f, (h - 1) / 2.0], [0.0, 0.0, 1.0]])


def look_at(target_mm, tilt_deg: float, azimuth_deg: float = 90.0, distance_mm: float = 1000.0,
            roll_deg: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(R, t) of a camera ``distance_mm`` from ``target_mm`` (x, y on the plane), tilted
    ``tilt_deg`` from straight down, standing on the side ``azimuth_deg`` (from +x toward +y;
    90 = the +y side, so tilt 0 / azimuth 90 shows the plane as drawn: image x = plane x)."""
    target = np.array([target_mm[0], target_mm[1], 0.0])
    tilt, az = np.deg2rad(tilt_deg), np.deg2rad(azimuth_deg)
    d = np.array([np.cos(az), np.sin(az), 0.0])
    centre = target + distance_mm * (np.sin(tilt) * d + np.array([0.0, 0.0, -np.cos(tilt)]))
    z = (target - centre) / np.linalg.norm(target - centre)
    y = d - np.dot(d, z) * z
    y /= np.linalg.norm(y)
    x = np.cross(y, z)
    R = np.vstack([x, y, z])
    if roll_deg:
        a = np.deg2rad(roll_deg)
        Rz = np.array([[np.cos(a), -np.sin(a), 0.0], [np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])
        R = Rz @ R
    return R, -R @ centre


def fit_distance(points_mm: np.ndarray, K: np.ndarray, image_size: tuple[int, int], tilt_deg: float,
                 azimuth_deg: float = 90.0, fill: float = 0.92, roll_deg: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(R, t) looking at the centre of ``points_mm`` (n, 2) from the distance at which they fill
    ``fill`` of the image (the tighter axis)."""
    pts = np.asarray(points_mm, dtype=float)
    target = (pts.min(axis=0) + pts.max(axis=0)) / 2.0
    w, h = image_size
    dist = 1000.0
    for _ in range(30):
        R, t = look_at(target, tilt_deg, azimuth_deg, dist, roll_deg)
        cam = np.column_stack([pts, np.zeros(len(pts))]) @ R.T + t
        uv = (cam @ K.T)[:, :2] / cam[:, 2:3]
        need = max(np.max(np.abs(uv[:, 0] - K[0, 2])) / (w / 2.0), np.max(np.abs(uv[:, 1] - K[1, 2])) / (h / 2.0)) / fill
        if abs(need - 1.0) < 1e-3:
            break
        dist *= need ** 0.8
    return R, t


# --------------------------------------------------------------------------------------------
# textures


def _wood(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    import cv2

    h, w = shape
    noise = rng.normal(0.0, 1.0, (max(2, h // 16), max(2, w // 4))).astype(np.float32)
    grain = cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC)
    img = np.empty((h, w, 3), np.float32)
    for c, base in enumerate(TABLE_BGR):
        img[:, :, c] = base + 14.0 * grain
    return np.clip(img, 0, 255).astype(np.uint8)


def _paint_marker(texture: np.ndarray, tex_to_plane: np.ndarray, corners_mm: np.ndarray, bits: np.ndarray,
                  supersample: int = 4) -> None:
    """Paint a marker (``bits`` (n, n) 0/255 including its black border) with its outer corners at
    ``corners_mm`` (4, 2; TL, TR, BR, BL) into ``texture`` in place, antialiased by point sampling
    ``supersample``² points per texture pixel: exact edges at any rotation."""
    n = bits.shape[0]
    plane_to_tex = np.linalg.inv(tex_to_plane)
    tex = (np.column_stack([corners_mm, np.ones(4)]) @ plane_to_tex.T)[:, :2]
    x0, y0 = np.floor(tex.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(tex.max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, texture.shape[1] - 1), min(y1, texture.shape[0] - 1)
    if x1 <= x0 or y1 <= y0:
        return
    offs = (np.arange(supersample) + 0.5) / supersample - 0.5
    xs = np.arange(x0, x1 + 1)[None, :, None, None] + offs[None, None, None, :]
    ys = np.arange(y0, y1 + 1)[:, None, None, None] + offs[None, None, :, None]
    xs, ys = np.broadcast_arrays(xs, ys)
    # texture px → plane mm → marker-local cell coordinates (0..n across)
    px = xs * tex_to_plane[0, 0] + tex_to_plane[0, 2]
    py = ys * tex_to_plane[1, 1] + tex_to_plane[1, 2]
    origin = corners_mm[0]
    ex = (corners_mm[1] - corners_mm[0]) / n
    ey = (corners_mm[3] - corners_mm[0]) / n
    M = np.linalg.inv(np.column_stack([ex, ey]))
    lx = M[0, 0] * (px - origin[0]) + M[0, 1] * (py - origin[1])
    ly = M[1, 0] * (px - origin[0]) + M[1, 1] * (py - origin[1])
    inside = (lx >= 0) & (lx < n) & (ly >= 0) & (ly < n)
    cx = np.clip(lx.astype(int), 0, n - 1)
    cy = np.clip(ly.astype(int), 0, n - 1)
    value = np.where(inside, bits[cy, cx].astype(np.float32), np.nan)
    cover = inside.mean(axis=(2, 3))
    mean = np.where(cover > 0, np.nansum(value, axis=(2, 3)) / np.maximum(inside.sum(axis=(2, 3)), 1), 0)
    patch = texture[y0:y1 + 1, x0:x1 + 1].astype(np.float32)
    patch = patch * (1 - cover[..., None]) + mean[..., None] * cover[..., None]
    texture[y0:y1 + 1, x0:x1 + 1] = np.clip(np.round(patch), 0, 255).astype(np.uint8)


def table_texture(board: Board, mm_per_px: float = 4.0, margin_mm: float = 2500.0,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A wooden table much larger than any view: (texture, tex_to_mat), coarse (``mm_per_px``)."""
    rng = np.random.default_rng(seed + 1)
    w = int(round((board.length_mm + 2 * margin_mm) / mm_per_px))
    h = int(round((board.width_mm + 2 * margin_mm) / mm_per_px))
    tex_to_mat = np.array([[mm_per_px, 0.0, -margin_mm + mm_per_px / 2], [0.0, mm_per_px, -margin_mm + mm_per_px / 2],
                           [0.0, 0.0, 1.0]])
    return _wood((h, w), rng), tex_to_mat


def mat_texture(board: Board, mm_per_px: float = 0.5, margin_mm: float = 150.0, markers: bool = True,
                paint: bool = True, seed: int = 0, mat_bgr=MAT_BGR,
                table: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A top-down picture of the mat and the table around it (``margin_mm``): wood (resampled from
    ``table``, see :func:`table_texture`, so the two layers join without a seam), the mat (painted
    with the board's regions when ``paint``), and the board's markers on white paper tiles (as cut
    from ``tableref markers``). Returns (texture (H, W, 3) uint8, tex_to_mat 3x3 mapping texture
    px centres to mat mm)."""
    import cv2

    from calibration.config import load_config
    from calibration.markers import aruco_dictionary, marker_cells, quiet_zone_mm
    from calibration.rectify import PRINT, draw_board

    rng = np.random.default_rng(seed)
    w = int(round((board.length_mm + 2 * margin_mm) / mm_per_px))
    h = int(round((board.width_mm + 2 * margin_mm) / mm_per_px))
    tex_to_mat = np.array([[mm_per_px, 0.0, -margin_mm + mm_per_px / 2], [0.0, mm_per_px, -margin_mm + mm_per_px / 2],
                           [0.0, 0.0, 1.0]])
    mat_to_tex = np.linalg.inv(tex_to_mat)
    table_tex, table_to_mat = table if table is not None else table_texture(board, seed=seed)
    # fine px → mat mm → table px
    M = np.linalg.inv(table_to_mat) @ tex_to_mat
    tex = cv2.warpPerspective(table_tex, M, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REFLECT)
    # the mat: exact pixel coverage of its rectangle (cv2.fillPoly's antialiasing grows shapes by
    # about half a pixel, which would bias every outline test)
    mat_layer = np.zeros_like(tex)
    mat_layer[:] = mat_bgr
    if paint:
        draw_board(mat_layer, board, mat_to_tex, PRINT)
    x0, y0 = (0.0 - tex_to_mat[0, 2]) / mm_per_px, (0.0 - tex_to_mat[1, 2]) / mm_per_px
    x1, y1 = x0 + board.length_mm / mm_per_px, y0 + board.width_mm / mm_per_px
    cov_x = np.clip(np.minimum(np.arange(w) + 0.5, x1) - np.maximum(np.arange(w) - 0.5, x0), 0.0, 1.0)
    cov_y = np.clip(np.minimum(np.arange(h) + 0.5, y1) - np.maximum(np.arange(h) - 0.5, y0), 0.0, 1.0)
    alpha = (cov_y[:, None] * cov_x[None, :]).astype(np.float32)[..., None]
    mat_noise = rng.normal(0, 2.0, tex.shape)
    tex = np.clip(tex * (1 - alpha) + (mat_layer + mat_noise) * alpha, 0, 255).astype(np.uint8)
    if markers and board.markers is not None:
        cfg = load_config().sheet
        ms = board.markers
        dictionary = aruco_dictionary(ms.dictionary)
        n = marker_cells(dictionary)
        module = ms.size_mm / n
        for m, (mid, c) in zip(ms.items, ms.corners_mm().items()):
            quiet = quiet_zone_mm(board, m, ms.size_mm, module, cfg)
            centre = np.asarray(m.center)
            paper = centre + (c - centre) * (ms.size_mm + 2 * quiet) / ms.size_mm
            _paint_marker(tex, tex_to_mat, paper, np.full((1, 1), 245, np.uint8))
            bits = cv2.aruco.generateImageMarker(dictionary, mid, n, borderBits=1)
            _paint_marker(tex, tex_to_mat, c, bits)
    return tex, tex_to_mat


# --------------------------------------------------------------------------------------------
# rendering


def render_plane(texture: np.ndarray, tex_to_plane: np.ndarray, K: np.ndarray, R: np.ndarray, t: np.ndarray,
                 image_size: tuple[int, int], dist=None, supersample: int = 3, background=(40, 40, 40),
                 under: list | None = None) -> np.ndarray:
    """Render a planar ``texture`` seen by the camera (K, dist, R, t) at ``image_size`` (w, h);
    ``under`` is a list of (texture, tex_to_plane) layers drawn first, below it.

    The undistorted view is a perspective warp, ``supersample`` times larger, averaged down (box
    filter); lens distortion, when given, is applied by remapping that view."""
    import cv2

    w, h = image_size
    s = int(supersample)
    S = np.array([[s, 0.0, (s - 1) / 2.0], [0.0, s, (s - 1) / 2.0], [0.0, 0.0, 1.0]])
    P = K @ np.column_stack([R[:, 0], R[:, 1], t])  # plane mm → undistorted image px
    big = np.empty((h * s, w * s, 3), np.uint8)
    big[:] = background
    for tex, to_plane in list(under or []) + [(texture, tex_to_plane)]:
        cv2.warpPerspective(tex, S @ P @ to_plane, (w * s, h * s), dst=big, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_TRANSPARENT)
    img = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA) if s > 1 else big
    if dist is not None and np.any(dist):
        mapx, mapy = distortion_maps(K, dist, image_size)
        img = cv2.remap(img, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=background)
    return img


def distortion_maps(K: np.ndarray, dist, image_size: tuple[int, int], step: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """(mapx, mapy) float32 (h, w): for each distorted image px, where it is in the undistorted view
    (same K). Solved exactly on a grid every ``step`` px and interpolated linearly (distortion is
    smooth: well under 0.01 px off), ~``step``² times faster than solving every pixel."""
    import cv2

    from calibration.rectify import smooth_map

    K = np.asarray(K, dtype=np.float64)
    d = np.asarray(dist, dtype=np.float64)

    def undistort(px):
        out = cv2.undistortPoints(px.reshape(-1, 1, 2), K, d, P=K,
                                  criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10))
        return out.reshape(-1, 2)

    mapx, mapy = smooth_map(undistort, image_size, step)
    return mapx, mapy


def degrade(image: np.ndarray, noise_sigma: float = 0.0, blur_sigma: float = 0.0, seed: int = 0,
            jpeg_quality: int | None = None) -> np.ndarray:
    """A camera's imperfections: Gaussian blur (σ px), Gaussian noise (σ grey levels), JPEG."""
    import cv2

    out = image
    if blur_sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur_sigma)
    if noise_sigma > 0:
        rng = np.random.default_rng(seed)
        out = np.clip(out.astype(np.float32) + rng.normal(0, noise_sigma, out.shape), 0, 255).astype(np.uint8)
    if jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


class MatScene:
    """A board laid on a table, ready to be filmed: builds the texture once, renders many views."""

    def __init__(self, board: Board, mm_per_px: float = 0.5, margin_mm: float = 150.0, markers: bool = True,
                 paint: bool = True, seed: int = 0, mat_bgr=MAT_BGR):
        self.board = board
        self.table = table_texture(board, seed=seed)
        self.texture, self.tex_to_mat = mat_texture(board, mm_per_px, margin_mm, markers, paint, seed, mat_bgr,
                                                    table=self.table)

    def extent_mm(self) -> np.ndarray:
        """(n, 2) points the camera should keep in view: the mat's corners and every marker's."""
        pts = [self.board.corners_mm()]
        if self.board.markers is not None:
            pts += list(self.board.markers.corners_mm().values())
        return np.vstack(pts)

    def view(self, image_size=(1280, 720), tilt_deg: float = 0.0, azimuth_deg: float = 90.0, roll_deg: float = 0.0,
             hfov_deg: float = 60.0, fill: float = 0.92, dist=None, noise_sigma: float = 0.0, blur_sigma: float = 0.0,
             seed: int = 0, jpeg_quality: int | None = None) -> View:
        """Render the scene through a camera aimed at the mat's centre (see :func:`fit_distance`)."""
        K = camera_matrix(image_size, hfov_deg)
        R, t = fit_distance(self.extent_mm(), K, image_size, tilt_deg, azimuth_deg, fill, roll_deg)
        img = render_plane(self.texture, self.tex_to_mat, K, R, t, image_size, dist, under=[self.table])
        img = degrade(img, noise_sigma, blur_sigma, seed, jpeg_quality)
        truth = MatTransform.from_pose(K, dist, R, t, image_size, method="truth", board=self.board.ref)
        return View(img, truth, tilt_deg)


def charuco_view(icfg, K: np.ndarray, R: np.ndarray, t: np.ndarray, image_size, dist=None, px_per_mm: float = 8.0,
                 noise_sigma: float = 0.0, blur_sigma: float = 0.0, seed: int = 0) -> np.ndarray:
    """The ChArUco board of ``icfg`` (an IntrinsicsConfig) on white card seen by (K, dist, R, t);
    its object frame is the board's (mm, origin at its top-left corner, y down)."""
    import cv2

    from calibration.markers import charuco_image

    board = charuco_image(icfg, px_per_mm)
    pad = int(round(15 * px_per_mm))
    tex = cv2.copyMakeBorder(board, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=250)
    tex = cv2.cvtColor(tex, cv2.COLOR_GRAY2BGR)
    m = 1.0 / px_per_mm
    tex_to_plane = np.array([[m, 0.0, (0.5 - pad) * m], [0.0, m, (0.5 - pad) * m], [0.0, 0.0, 1.0]])
    img = render_plane(tex, tex_to_plane, K, R, t, image_size, dist, background=(90, 90, 90))
    return degrade(img, noise_sigma, blur_sigma, seed)


def page_texture(page: np.ndarray, dpi: float) -> tuple[np.ndarray, np.ndarray]:
    """A printed page (grey, as from ``calibration.markers``) as a planar texture in paper mm:
    (BGR texture, tex_to_plane) with pixel i covering [i, i + 1) × 25.4 / dpi mm."""
    import cv2

    m = 25.4 / dpi
    tex = cv2.cvtColor(page, cv2.COLOR_GRAY2BGR) if page.ndim == 2 else page
    return tex, np.array([[m, 0.0, 0.5 * m], [0.0, m, 0.5 * m], [0.0, 0.0, 1.0]])


def page_view(page: np.ndarray, dpi: float, image_size=(1280, 720), tilt_deg: float = 0.0, azimuth_deg: float = 90.0,
              roll_deg: float = 0.0, hfov_deg: float = 60.0, fill: float = 0.9, noise_sigma: float = 0.0,
              blur_sigma: float = 0.0, seed: int = 0) -> View:
    """A printed page lying on a dark table, filmed like :meth:`MatScene.view`; the truth maps
    paper mm (origin at the page's top-left corner) to image px."""
    tex, to_plane = page_texture(page, dpi)
    h, w = page.shape[:2]
    extent = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]]) * 25.4 / dpi
    K = camera_matrix(image_size, hfov_deg)
    R, t = fit_distance(extent, K, image_size, tilt_deg, azimuth_deg, fill, roll_deg)
    img = render_plane(tex, to_plane, K, R, t, image_size, background=(35, 45, 60))
    img = degrade(img, noise_sigma, blur_sigma, seed)
    return View(img, MatTransform.from_pose(K, None, R, t, image_size, method="truth"), tilt_deg)
