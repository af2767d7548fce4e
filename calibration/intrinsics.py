"""Camera intrinsics from a ChArUco board: K, distortion, RMS reprojection error; undistortion.

Frames: **image px** (distorted, as the camera delivers them) and undistorted px with the *same*
K (``undistort_image`` keeps K, so a mat transform's ``H`` in undistorted px pairs with it). The
board's object frame is mm, origin at its top-left outer corner, x right, y down (as printed by
``tableref markers --charuco``).

A camera file (YAML) holds ``K``, ``dist``, ``image_size``, ``rms_px``, the number of views, the
per-view RMS and the ChArUco board that was used.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from calibration.config import IntrinsicsConfig
from calibration.errors import IntrinsicsError

SCHEMA = "tableref-camera/1"


@dataclass
class CameraIntrinsics:
    """``K`` (3, 3) px; ``dist`` (k,) OpenCV distortion coefficients (k1, k2, p1, p2, k3 …);
    ``image_size`` (w, h) px the calibration holds for; ``rms_px`` the RMS reprojection error;
    ``per_view_rms_px`` one value per view; ``board`` the ChArUco settings used."""

    K: np.ndarray
    dist: np.ndarray
    image_size: tuple
    rms_px: float = 0.0
    n_views: int = 0
    per_view_rms_px: list = field(default_factory=list)
    board: dict = field(default_factory=dict)

    def __post_init__(self):
        self.K = np.asarray(self.K, dtype=np.float64).reshape(3, 3)
        self.dist = np.asarray(self.dist, dtype=np.float64).ravel()
        self.image_size = (int(self.image_size[0]), int(self.image_size[1]))

    @property
    def fx(self) -> float:
        return float(self.K[0, 0])

    def scaled_to(self, image_size: tuple[int, int]) -> "CameraIntrinsics":
        """The same camera at another resolution of the same aspect ratio (K scaled); an
        :class:`IntrinsicsError` if the aspect ratio differs (a cropped mode: calibrate it)."""
        w0, h0 = self.image_size
        w, h = int(image_size[0]), int(image_size[1])
        if (w, h) == (w0, h0):
            return self
        if abs(w / w0 - h / h0) > 0.01:
            raise IntrinsicsError(f"the camera file is for {w0}x{h0} px but the image is {w}x{h} px (another aspect "
                                  f"ratio): calibrate the camera at {w}x{h}")
        s = w / w0
        K = self.K.copy()
        K[0, 0] *= s
        K[1, 1] *= s
        K[0, 2] = (K[0, 2] + 0.5) * s - 0.5
        K[1, 2] = (K[1, 2] + 0.5) * s - 0.5
        return CameraIntrinsics(K, self.dist, (w, h), self.rms_px * s, self.n_views, list(self.per_view_rms_px),
                                dict(self.board))

    def to_dict(self) -> dict:
        return {"schema": SCHEMA, "image_size": list(self.image_size), "K": self.K.tolist(),
                "dist": self.dist.tolist(), "rms_px": float(self.rms_px), "n_views": int(self.n_views),
                "per_view_rms_px": [float(v) for v in self.per_view_rms_px], "board": dict(self.board)}

    @classmethod
    def from_dict(cls, data, source: str = "<camera>") -> "CameraIntrinsics":
        if not isinstance(data, dict):
            raise IntrinsicsError(f"{source}: not a camera file (expected a mapping with K, dist, image_size)")
        if "H" in data:
            raise IntrinsicsError(f"{source}: this is a mat registration, not a camera file; pass it as --registration")
        try:
            K = np.asarray(data["K"], dtype=np.float64)
            dist = np.asarray(data.get("dist", [0, 0, 0, 0, 0]), dtype=np.float64)
            size = data["image_size"]
            if K.shape != (3, 3) or not np.all(np.isfinite(K)) or K[0, 0] <= 0 or K[1, 1] <= 0:
                raise ValueError("K must be a 3x3 matrix with positive focal lengths")
            if dist.ndim != 1 or len(dist) not in (4, 5, 8, 12, 14) or not np.all(np.isfinite(dist)):
                raise ValueError("dist must be 4, 5, 8, 12 or 14 numbers")
            if not (isinstance(size, (list, tuple)) and len(size) == 2 and all(int(v) > 0 for v in size)):
                raise ValueError("image_size must be [width, height]")
            return cls(K, dist, tuple(int(v) for v in size), float(data.get("rms_px", 0.0)), int(data.get("n_views", 0)),
                       list(data.get("per_view_rms_px", [])), dict(data.get("board", {})))
        except KeyError as exc:
            raise IntrinsicsError(f"{source}: not a camera file (missing {exc.args[0]}); make one with "
                                  "`tableref calibrate camera`") from None
        except (TypeError, ValueError) as exc:
            raise IntrinsicsError(f"{source}: invalid camera file ({exc})") from None


def save_intrinsics(intr: CameraIntrinsics, path: str | os.PathLike) -> Path:
    """Write a camera file (YAML, or JSON for ``.json``)."""
    import json

    import yaml

    p = Path(path)
    data = intr.to_dict()
    text = json.dumps(data, indent=2) if p.suffix.lower() == ".json" else yaml.safe_dump(data, sort_keys=False)
    p.write_text(("# tableref camera intrinsics: K and dist in OpenCV's convention, image px\n" if p.suffix.lower() != ".json" else "") + text,
                 encoding="utf-8")
    return p


def load_intrinsics(path: str | os.PathLike) -> CameraIntrinsics:
    """Read a camera file; :class:`IntrinsicsError` says what is wrong with it."""
    import yaml

    p = Path(path)
    if not p.is_file():
        raise IntrinsicsError(f"{p}: no such camera file; make one with `tableref calibrate camera`")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise IntrinsicsError(f"{p}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    return CameraIntrinsics.from_dict(data, str(p))


# --------------------------------------------------------------------------------------------
# detection and calibration


def charuco_detector(cfg: IntrinsicsConfig):
    """``cv2.aruco.CharucoDetector`` for the configured board."""
    import cv2

    from calibration.markers import charuco_board

    board = charuco_board(cfg)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE  # the chessboard corners are refined instead
    cparams = cv2.aruco.CharucoParameters()
    cparams.minMarkers = 1
    return cv2.aruco.CharucoDetector(board, cparams, params)


def detect_charuco(image: np.ndarray, detector) -> tuple[np.ndarray, np.ndarray]:
    """(corners (n, 2) image px, ids (n,)) of the ChArUco chessboard corners found in ``image``."""
    import cv2

    from calibration.capture import check_image

    grey = cv2.cvtColor(check_image(image), cv2.COLOR_BGR2GRAY)
    corners, ids, _, _ = detector.detectBoard(grey)
    if ids is None or len(ids) == 0:
        return np.zeros((0, 2)), np.zeros(0, np.int64)
    return corners.reshape(-1, 2).astype(np.float64), ids.reshape(-1).astype(np.int64)


@dataclass
class _Views:
    obj: list = field(default_factory=list)
    img: list = field(default_factory=list)
    names: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    size: tuple | None = None


def _add_view(views: _Views, image: np.ndarray, name: str, detector, cfg: IntrinsicsConfig) -> bool:
    from calibration.errors import ImageError

    h, w = image.shape[:2]
    if views.size is None:
        views.size = (w, h)
    elif views.size != (w, h):
        raise ImageError(f"{name}: {w}x{h} px, but the first image was {views.size[0]}x{views.size[1]} px; "
                         "calibrate one resolution at a time")
    corners, ids = detect_charuco(image, detector)
    if len(ids) < cfg.min_corners_per_view:
        views.skipped.append(f"{name} ({len(ids)} corners)")
        return False
    board = detector.getBoard()
    obj = board.getChessboardCorners()[ids].astype(np.float32)
    if board.checkCharucoCornersCollinear(ids.reshape(-1, 1).astype(np.int32)):
        views.skipped.append(f"{name} (corners collinear)")
        return False
    views.obj.append(obj.reshape(-1, 1, 3))
    views.img.append(corners.astype(np.float32).reshape(-1, 1, 2))
    views.names.append(name)
    return True


def _calibrate(views: _Views, cfg: IntrinsicsConfig) -> CameraIntrinsics:
    import cv2

    if len(views.obj) < cfg.min_views:
        skipped = f"; skipped: {', '.join(views.skipped[:6])}{' ...' if len(views.skipped) > 6 else ''}" if views.skipped else ""
        raise IntrinsicsError(
            f"the ChArUco board was found in only {len(views.obj)} view(s); need at least {cfg.min_views} with "
            f"{cfg.min_corners_per_view}+ corners{skipped}. Print it with `tableref markers --charuco`, check "
            f"--squares/--square-mm/--marker-mm/--dictionary match the print, and film it from several angles")
    flags = cv2.CALIB_FIX_K3 if cfg.fix_k3 else 0
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-9)
    rms, K, dist, _, _, _, _, per_view = cv2.calibrateCameraExtended(
        views.obj, views.img, views.size, None, None, flags=flags, criteria=criteria)
    if not np.all(np.isfinite(K)) or K[0, 0] <= 0:
        raise IntrinsicsError("calibration diverged: use more views, from more varied angles")
    board = {"squares": [cfg.squares_x, cfg.squares_y], "square_mm": cfg.square_mm, "marker_mm": cfg.marker_mm,
             "dictionary": cfg.dictionary, "views": list(views.names), "skipped": list(views.skipped)}
    return CameraIntrinsics(K, dist.ravel(), views.size, float(rms), len(views.obj),
                            [float(v) for v in np.asarray(per_view).ravel()], board)


def calibrate_images(images: Iterable[tuple[str, np.ndarray]], cfg: IntrinsicsConfig,
                     progress: Callable[[str], None] | None = None) -> CameraIntrinsics:
    """Calibrate from (name, image) pairs that show the ChArUco board of ``cfg``."""
    detector = charuco_detector(cfg)
    views = _Views()
    for name, image in images:
        used = _add_view(views, image, name, detector, cfg)
        if progress:
            progress(f"{name}: {'used' if used else 'skipped'}")
    return _calibrate(views, cfg)


def calibrate_folder(folder: str | os.PathLike, cfg: IntrinsicsConfig,
                     progress: Callable[[str], None] | None = None) -> CameraIntrinsics:
    """Calibrate from every image in ``folder`` (sorted by name)."""
    from calibration.capture import list_images, read_image

    files = list_images(folder)
    return calibrate_images(((p.name, read_image(p)) for p in files), cfg, progress)


def calibrate_camera(index: int, frames: int, cfg: IntrinsicsConfig,
                     progress: Callable[[str], None] | None = None, size: tuple[int, int] | None = None) -> CameraIntrinsics:
    """Calibrate a live camera: keep ``frames`` views of the board, each at least
    ``cfg.live_min_interval_s`` after the last and with the board moved by
    ``cfg.live_min_motion_px`` (mean corner motion), for at most ``cfg.live_timeout_s``."""
    from calibration.capture import camera_frames, open_camera
    from calibration.errors import CameraError

    cap = open_camera(index, size)
    detector = charuco_detector(cfg)
    views = _Views()
    last_t, last = 0.0, None
    start = time.monotonic()
    try:
        for frame in camera_frames(cap, index):
            now = time.monotonic()
            if now - start > cfg.live_timeout_s:
                break
            if len(views.obj) >= frames or now - last_t < cfg.live_min_interval_s:
                if len(views.obj) >= frames:
                    break
                continue
            corners, ids = detect_charuco(frame, detector)
            if len(ids) < cfg.min_corners_per_view:
                continue
            pos = dict(zip(ids.tolist(), corners))
            if last is not None:
                common = [i for i in pos if i in last]
                if common and np.mean([np.linalg.norm(pos[i] - last[i]) for i in common]) < cfg.live_min_motion_px:
                    continue
            if _add_view(views, frame, f"frame {len(views.obj) + 1}", detector, cfg):
                last, last_t = pos, now
                if progress:
                    progress(f"view {len(views.obj)}/{frames}: {len(ids)} corners")
    finally:
        cap.release()
    if not views.obj:
        raise CameraError(f"camera {index}: no view of the ChArUco board in {cfg.live_timeout_s:g} s; hold the "
                          "printed board (tableref markers --charuco) in front of it, well lit")
    return _calibrate(views, cfg)


# --------------------------------------------------------------------------------------------
# undistortion


def undistort_image(image: np.ndarray, intr: CameraIntrinsics) -> np.ndarray:
    """The image as a distortion-free camera with the same K would see it."""
    import cv2

    from calibration.capture import check_image

    img = check_image(image)
    h, w = img.shape[:2]
    cam = intr.scaled_to((w, h))
    return cv2.undistort(img, cam.K, cam.dist, None, cam.K)


def undistort_points(points_px, intr: CameraIntrinsics) -> np.ndarray:
    """(n, 2) image px → (n, 2) undistorted px (same K)."""
    import cv2

    pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return pts
    out = cv2.undistortPoints(pts.reshape(-1, 1, 2), intr.K, intr.dist, P=intr.K,
                              criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10))
    return out.reshape(-1, 2)

