"""The simulated webcam: a pinhole camera with lens distortion at any pose above the table.

Frames:
- **mat mm** (3-D): the board frame, right-handed, z pointing *into* the table, so a point at height
  ``h`` mm above the mat has z = -h (as in :mod:`calibration.transform`).
- **camera**: OpenCV convention, x right, y down, z forward along the optical axis;
  ``x_cam = R @ x_mat + t``.
- **image px**: OpenCV convention, origin at the centre of the top-left pixel; *distorted*
  coordinates, as the real sensor sees them.

Pose parameters (``look_at``): the camera stands ``height_mm`` above the mat and looks at a target
point on the mat. ``tilt_deg`` is the angle of the optical axis from the vertical (0 = straight
down). ``yaw_deg`` turns the viewing direction about the vertical: at yaw 0 the camera stands on the
+y side (the "south" edge, y = width) and the mat's +x runs to the right of the image; yaw 90 puts
the camera on the -x side. ``roll_deg`` turns the image about the optical axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

DEFAULT_SIZE = (640, 480)
HD_SIZE = (1280, 720)


class CameraError(ValueError):
    """A camera cannot be built (degenerate pose, no pose keeps the mat in view, bad ranges)."""


@dataclass(frozen=True, eq=False)
class Camera:
    """Intrinsics ``K`` (3x3, image px), distortion ``dist`` (OpenCV k1, k2, p1, p2, k3), pose of the
    mat frame in the camera frame (``R`` 3x3, ``t`` (3,) mm) and image ``size`` (width, height) px."""

    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    size: tuple = DEFAULT_SIZE
    params: dict = field(default_factory=dict)  # how it was made (height, tilt, yaw, fov …), for the record

    def __post_init__(self):
        object.__setattr__(self, "K", np.asarray(self.K, dtype=np.float64).reshape(3, 3))
        object.__setattr__(self, "dist", np.asarray(self.dist, dtype=np.float64).ravel())
        object.__setattr__(self, "R", np.asarray(self.R, dtype=np.float64).reshape(3, 3))
        object.__setattr__(self, "t", np.asarray(self.t, dtype=np.float64).reshape(3))
        object.__setattr__(self, "size", (int(self.size[0]), int(self.size[1])))
        if abs(np.linalg.det(self.R) - 1.0) > 1e-6:
            raise CameraError("R must be a rotation matrix (det 1)")

    # -- identity, for caches --------------------------------------------------------------------
    def key(self) -> bytes:
        """Bytes that identify this camera exactly (for caching per-camera maps)."""
        return b"".join(a.tobytes() for a in (self.K, self.dist, self.R, self.t)) + repr(self.size).encode()

    # -- geometry --------------------------------------------------------------------------------
    @property
    def width(self) -> int:
        return self.size[0]

    @property
    def height(self) -> int:
        return self.size[1]

    def centre_mm(self) -> np.ndarray:
        """(3,) camera centre in the mat frame (z = -height above the mat)."""
        return -self.R.T @ self.t

    def transform(self):
        """The true registration: a :class:`calibration.transform.MatTransform` for this camera."""
        from calibration.transform import MatTransform

        return MatTransform.from_pose(self.K, self.dist, self.R, self.t, self.size, method="sim-truth")

    def project(self, points_mm3) -> np.ndarray:
        """(n, 3) mat-frame points (z = -height) → (n, 2) image px (distorted). Batch-first."""
        return project_points(self, points_mm3)

    def depth(self, points_mm3) -> np.ndarray:
        """(n,) distance along the optical axis (mm) of mat-frame points."""
        pts = np.asarray(points_mm3, dtype=np.float64).reshape(-1, 3)
        return pts @ self.R[2] + self.t[2]

    def to_dict(self) -> dict:
        return {"K": self.K.tolist(), "dist": self.dist.tolist(), "R": self.R.tolist(), "t": self.t.tolist(),
                "size": list(self.size), "params": dict(self.params)}

    @classmethod
    def from_dict(cls, d: dict) -> "Camera":
        return cls(np.array(d["K"]), np.array(d["dist"]), np.array(d["R"]), np.array(d["t"]), tuple(d["size"]),
                   dict(d.get("params", {})))


def project_points(camera: Camera, points_mm3) -> np.ndarray:
    """(n, 3) mat-frame points → (n, 2) distorted image px with OpenCV's model (the same model
    :class:`MatTransform` uses). Points behind the camera come out as NaN."""
    import cv2

    pts = np.asarray(points_mm3, dtype=np.float64).reshape(-1, 3)
    if len(pts) == 0:
        return np.zeros((0, 2))
    cam = pts @ camera.R.T + camera.t
    behind = cam[:, 2] <= 1e-6
    K, dist = camera.K, camera.dist
    if not np.any(dist):
        und = cam @ K.T
        out = und[:, :2] / np.where(behind, 1.0, und[:, 2])[:, None]
    elif len(dist) <= 5 and K[0, 1] == 0.0:
        # OpenCV's model (k1, k2, p1, p2, k3), written out: the same numbers as cv2.projectPoints
        k1, k2, p1, p2, k3 = (list(dist) + [0.0] * 5)[:5]
        zz = np.where(behind, 1.0, cam[:, 2])
        x, y = cam[:, 0] / zz, cam[:, 1] / zz
        r2 = x * x + y * y
        radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
        xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
        yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
        out = np.column_stack([K[0, 0] * xd + K[0, 2], K[1, 1] * yd + K[1, 2]])
    else:
        cam = cam.copy()
        cam[behind, 2] = 1.0
        out, _ = cv2.projectPoints(cam.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), K, dist)
        out = out.reshape(-1, 2)
    if np.any(behind):
        out[behind] = np.nan
    return out


def intrinsics(size: tuple, hfov_deg: float, principal_offset_px=(0.0, 0.0)) -> np.ndarray:
    """3x3 K for square pixels with horizontal field of view ``hfov_deg`` (of the undistorted
    image) and the principal point at the image centre plus an offset (image px)."""
    w, h = size
    f = (w / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
    return np.array([[f, 0.0, (w - 1) / 2.0 + principal_offset_px[0]],
                     [0.0, f, (h - 1) / 2.0 + principal_offset_px[1]],
                     [0.0, 0.0, 1.0]])


def look_at_rotation(tilt_deg: float, yaw_deg: float, roll_deg: float = 0.0) -> np.ndarray:
    """3x3 R whose rows are the camera's right, down and forward axes in the mat frame."""
    th, ps, ro = (math.radians(a) for a in (tilt_deg, yaw_deg, roll_deg))
    u = np.array([math.sin(ps), -math.cos(ps), 0.0])  # horizontal viewing direction
    vertical = np.array([0.0, 0.0, 1.0])  # down, into the table
    f = math.sin(th) * u + math.cos(th) * vertical
    d = -math.cos(th) * u + math.sin(th) * vertical
    r = np.cross(d, f)
    if ro:
        c, s = math.cos(ro), math.sin(ro)
        r, d = c * r + s * d, -s * r + c * d
    return np.vstack([r, d, f])


def look_at(target_mm, height_mm: float, tilt_deg: float, yaw_deg: float = 0.0, roll_deg: float = 0.0,
            hfov_deg: float = 70.0, size: tuple = DEFAULT_SIZE, dist=(0.0, 0.0, 0.0, 0.0, 0.0),
            principal_offset_px=(0.0, 0.0)) -> Camera:
    """A camera ``height_mm`` above the mat looking at ``target_mm`` (x, y on the mat)."""
    if not height_mm > 0:
        raise CameraError(f"height_mm must be positive, got {height_mm}")
    if not 0 <= tilt_deg < 89:
        raise CameraError(f"tilt_deg must be in [0, 89), got {tilt_deg}")
    R = look_at_rotation(tilt_deg, yaw_deg, roll_deg)
    dist_along = height_mm / math.cos(math.radians(tilt_deg))
    target = np.array([float(target_mm[0]), float(target_mm[1]), 0.0])
    centre = target - dist_along * R[2]
    t = -R @ centre
    K = intrinsics(size, hfov_deg, principal_offset_px)
    params = {"height_mm": float(height_mm), "tilt_deg": float(tilt_deg), "yaw_deg": float(yaw_deg),
              "roll_deg": float(roll_deg), "hfov_deg": float(hfov_deg), "target_mm": [float(target[0]), float(target[1])]}
    return Camera(K, np.asarray(dist, dtype=np.float64), R, t, size, params)


def top_down(board, size: tuple = DEFAULT_SIZE, height_mm: float = 900.0, hfov_deg: float | None = None) -> Camera:
    """A distortion-free camera straight above the board's centre that frames the whole mat and its
    markers (a convenience for tests and previews)."""
    pts = view_points_mm(board)
    cx, cy = board.length_mm / 2.0, board.width_mm / 2.0
    if hfov_deg is None:
        w, h = size
        half_x = np.max(np.abs(pts[:, 0] - cx)) * 1.08
        half_y = np.max(np.abs(pts[:, 1] - cy)) * 1.08
        f = min((w / 2.0) * height_mm / half_x, (h / 2.0) * height_mm / half_y)
        hfov_deg = math.degrees(2 * math.atan((w / 2.0) / f))
    return look_at((cx, cy), height_mm, 0.0, 0.0, 0.0, hfov_deg, size)


def view_points_mm(board, markers: bool = True) -> np.ndarray:
    """(n, 2) mat mm points that must stay in view: the mat's corners and, if ``markers``, the
    corners of its registration markers."""
    pts = [board.corners_mm()]
    if markers and board.markers is not None:
        pts.extend(board.markers.corners_mm().values())
    return np.vstack(pts)


# --------------------------------------------------------------------------------------------
# random poses


@dataclass(frozen=True)
class CameraRanges:
    """Ranges (inclusive) a random camera is drawn from; loaded from ``sim/render.yaml``."""

    height_mm: tuple = (400.0, 1200.0)
    tilt_deg: tuple = (0.0, 60.0)
    yaw_deg: tuple = (0.0, 360.0)
    roll_deg: tuple = (-4.0, 4.0)
    hfov_deg: tuple = (55.0, 95.0)
    k1: tuple = (-0.25, 0.05)
    k2: tuple = (-0.02, 0.08)
    p: tuple = (-0.002, 0.002)  # p1, p2 tangential
    principal_offset_px: tuple = (-6.0, 6.0)
    target_jitter: float = 0.1  # fraction of the mat size the look-at point may move from its centre
    margin_px: float = 8.0  # the mat and markers stay this far inside the frame
    markers_in_view: bool = True
    tries: int = 200


MIN_RADIAL_SLOPE = 0.1  # the least d(distorted radius)/d(radius) a lens may have where the view reaches


def radial_slope_min(dist, r_max: float, n: int = 200) -> float:
    """The least slope d r_d / d r of OpenCV's radial distortion r_d = r (1 + k1 r² + k2 r⁴ + k3 r⁶)
    over normalized radii 0 … ``r_max`` (``dist``: k1, k2, p1, p2, k3). A real lens maps farther
    rays farther out (slope > 0); where the polynomial's slope falls to 0 the image folds back on
    itself (two points of the mat in one pixel), which no camera shows."""
    k1, k2, _, _, k3 = (list(np.asarray(dist, float).ravel()) + [0.0] * 5)[:5]
    r2 = np.linspace(0.0, float(r_max), n) ** 2
    return float(np.min(1.0 + r2 * (3.0 * k1 + r2 * (5.0 * k2 + 7.0 * k3 * r2))))


def _fits(camera: Camera, pts_mm: np.ndarray, margin_px: float) -> bool:
    pts3 = np.column_stack([pts_mm, np.zeros(len(pts_mm))])
    if np.any(camera.depth(pts3) <= 1.0):
        return False
    w, h = camera.size
    cam = pts3 @ camera.R.T + camera.t
    # the lens must not fold within the view points' reach (the farthest ray is a vertex's: the
    # view of a convex polygon is convex, and the radius a convex function)
    if np.any(camera.dist) and radial_slope_min(camera.dist, float(np.max(np.hypot(*(cam[:, :2] / cam[:, 2:3]).T)))) \
            < MIN_RADIAL_SLOPE:
        return False
    # undistorted projection must be in frame (distortion can fold far points back inside) …
    und = cam @ camera.K.T
    und = und[:, :2] / und[:, 2:3]
    slack = 0.25 * w
    if np.any(und[:, 0] < -slack) or np.any(und[:, 0] > w - 1 + slack) or np.any(und[:, 1] < -slack) or np.any(und[:, 1] > h - 1 + slack):
        return False
    px = project_points(camera, pts3)
    return bool(np.all(px[:, 0] >= margin_px) and np.all(px[:, 0] <= w - 1 - margin_px)
                and np.all(px[:, 1] >= margin_px) and np.all(px[:, 1] <= h - 1 - margin_px))


def random_camera(rng: np.random.Generator, board, ranges: CameraRanges | None = None,
                  size: tuple = DEFAULT_SIZE) -> Camera:
    """A random camera (pose, field of view, distortion) drawn from ``ranges`` that keeps the whole
    mat (and its markers, if ``ranges.markers_in_view``) inside the frame.

    For each draw of tilt, yaw, roll, field of view, distortion and look-at point, the least height
    that keeps everything in view is found by bisection (image size shrinks monotonically as the
    camera backs off along its axis); the height is then drawn between it and the maximum,
    favouring low (frame-filling) views. Draws whose least height is above the maximum are rejected."""
    ranges = ranges or CameraRanges()
    pts = view_points_mm(board, ranges.markers_in_view)
    L, W = board.length_mm, board.width_mm

    def u(lo_hi):
        return float(rng.uniform(lo_hi[0], lo_hi[1]))

    for _ in range(ranges.tries):
        tilt, yaw, roll, hfov = u(ranges.tilt_deg), u(ranges.yaw_deg), u(ranges.roll_deg), u(ranges.hfov_deg)
        dist = (u(ranges.k1), u(ranges.k2), u(ranges.p), u(ranges.p), 0.0)
        pp = (u(ranges.principal_offset_px), u(ranges.principal_offset_px))
        j = ranges.target_jitter
        target = (L / 2.0 + rng.uniform(-j, j) * L, W / 2.0 + rng.uniform(-j, j) * W)
        h_lo, h_hi = ranges.height_mm

        def make(h):
            return look_at(target, h, tilt, yaw, roll, hfov, size, dist, pp)

        if not _fits(make(h_hi), pts, ranges.margin_px):
            continue
        lo, hi = h_lo, h_hi
        if not _fits(make(lo), pts, ranges.margin_px):
            for _ in range(30):
                mid = 0.5 * (lo + hi)
                if _fits(make(mid), pts, ranges.margin_px):
                    hi = mid
                else:
                    lo = mid
            lo = hi
        cam = make(lo + (h_hi - lo) * float(rng.uniform()) ** 2)  # favour views that fill the frame
        # (the lens's distortion can bend the size's shrinking with height: the height drawn is
        # checked too; about one draw in 12,000 failed the margin by a few px)
        if _fits(cam, pts, ranges.margin_px):
            return cam
    raise CameraError(f"no camera pose in {ranges.tries} tries keeps {board.ref} in view; widen hfov_deg "
                      f"or height_mm in sim/render.yaml")
