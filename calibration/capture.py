"""Images in, for calibration: read an image file, check an image array, open a camera by index.

Kept minimal on purpose (``calibration`` must not import ``vision``; the live pipeline reads frames
through ``vision.sources``). Images are (H, W, 3) uint8 BGR in **image px**.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import numpy as np

from calibration.errors import CameraError, ImageError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def check_image(image, what: str = "image") -> np.ndarray:
    """The image as (H, W, 3) uint8 BGR (grey is expanded); :class:`ImageError` if it is None,
    empty, or not an image array."""
    import cv2

    if image is None:
        raise ImageError(f"{what}: no image (None)")
    arr = np.asarray(image)
    if arr.size == 0 or arr.ndim not in (2, 3) or min(arr.shape[:2]) < 8:
        raise ImageError(f"{what}: empty or too small image (shape {arr.shape}); need at least 8x8 px")
    if arr.dtype != np.uint8:
        if np.issubdtype(arr.dtype, np.floating) and np.nanmax(arr) <= 1.0:
            arr = arr * 255.0
        arr = np.clip(np.nan_to_num(arr), 0, 255).astype(np.uint8)
    if arr.ndim == 2:
        arr = cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR)
    elif arr.shape[2] == 4:
        arr = cv2.cvtColor(arr, cv2.COLOR_BGRA2BGR)
    elif arr.shape[2] == 1:
        arr = cv2.cvtColor(arr[:, :, 0], cv2.COLOR_GRAY2BGR)
    elif arr.shape[2] != 3:
        raise ImageError(f"{what}: expected 1, 3 or 4 channels, got shape {arr.shape}")
    return arr


def read_image(path: str | os.PathLike) -> np.ndarray:
    """Read an image file as (H, W, 3) uint8 BGR. :class:`ImageError` says what is wrong."""
    import cv2

    p = Path(path)
    if not p.exists():
        raise ImageError(f"{p}: no such image file")
    if p.is_dir():
        raise ImageError(f"{p}: is a folder, expected an image file")
    if p.stat().st_size == 0:
        raise ImageError(f"{p}: the file is empty (0 bytes); take the picture again")
    data = np.fromfile(str(p), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None:
        raise ImageError(f"{p}: not a readable image (expected {', '.join(IMAGE_SUFFIXES)})")
    return check_image(image, str(p))


def list_images(folder: str | os.PathLike) -> list[Path]:
    """The image files of a folder, sorted by name; :class:`ImageError` if there are none."""
    d = Path(folder)
    if not d.is_dir():
        raise ImageError(f"{d}: no such folder of images")
    files = sorted(p for p in d.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
    if not files:
        raise ImageError(f"{d}: no images in the folder (expected {', '.join(IMAGE_SUFFIXES)} files)")
    return files


def _silence_opencv() -> None:
    import cv2

    try:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    except AttributeError:  # pragma: no cover - very old OpenCV
        pass


def open_camera(index: int, size: tuple[int, int] | None = None):
    """Open camera ``index`` (``cv2.VideoCapture``), optionally asking for ``size`` (w, h) px.
    :class:`CameraError` if it cannot be opened or delivers no frame."""
    import cv2

    _silence_opencv()
    cap = cv2.VideoCapture(int(index))
    if not cap.isOpened():
        cap.release()
        raise CameraError(f"camera {index} cannot be opened: check that it is connected and not used by "
                          f"another program, try another index (--camera 1), or use --images DIR")
    if size:
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
    ok, frame = cap.read()
    if not ok or frame is None or frame.size == 0:
        cap.release()
        raise CameraError(f"camera {index} opened but delivers no frames: check its cable and permissions")
    return cap


def camera_frames(cap, index: int = 0) -> Iterator[np.ndarray]:
    """Frames of an open capture until it fails (:class:`CameraError`) or the caller stops."""
    misses = 0
    while True:
        ok, frame = cap.read()
        if ok and frame is not None and frame.size:
            misses = 0
            yield frame
            continue
        misses += 1
        if misses > 10:
            raise CameraError(f"camera {index} stopped delivering frames (unplugged?)")
