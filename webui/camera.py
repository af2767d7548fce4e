"""Setup → camera calibration: views of the printed ChArUco board, captured from the frame source
or uploaded, solved by :func:`calibration.intrinsics.calibrate_images` (what ``tableref calibrate
camera`` uses) and saved as ``<data dir>/camera.yaml``, which mat registration then uses.

The views are kept in memory (the raw JPEG/PNG bytes, at most :data:`MAX_VIEWS`) until solved or
cleared; each is checked at once for ChArUco corners so the page can say which views will count.
No geometry here: the calibration package does it.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

from webui.record import ConflictError, InputError

CAMERA_FILE = "camera.yaml"
MAX_VIEWS = 60
_lock = threading.Lock()


def camera_path(data_dir) -> Path:
    return Path(data_dir) / CAMERA_FILE


def _views(app) -> list:
    return app.extensions.setdefault("tableref.camera_views", [])


def _icfg():
    from calibration.config import load_config

    return load_config().intrinsics


def decode(content: bytes):
    import cv2
    import numpy as np

    image = cv2.imdecode(np.frombuffer(content, np.uint8), cv2.IMREAD_COLOR) if content else None
    if image is None:
        raise InputError("the body is not a JPEG or PNG image that can be decoded")
    return image


def add_view(app, content: bytes, source: str) -> dict:
    """Keep one view (JPEG/PNG bytes); returns {id, corners, size, usable, source}."""
    from calibration.intrinsics import charuco_detector, detect_charuco

    image = decode(content)
    icfg = _icfg()
    _, ids = detect_charuco(image, charuco_detector(icfg))
    h, w = image.shape[:2]
    view = {"id": uuid.uuid4().hex[:16], "corners": int(len(ids)), "size": [int(w), int(h)],
            "usable": bool(len(ids) >= icfg.min_corners_per_view), "source": source}
    with _lock:
        views = _views(app)
        if len(views) >= MAX_VIEWS:
            raise ConflictError(f"already {MAX_VIEWS} views: solve, or clear them first")
        if views and views[0]["size"] != view["size"]:
            raise InputError(f"this image is {w}x{h} px but the first view was {views[0]['size'][0]}x"
                             f"{views[0]['size'][1]} px; calibrate one resolution at a time (clear the views)")
        views.append({**view, "content": content})
    return view


def capture_view(app) -> dict:
    jpeg = app.extensions["tableref.frames"].jpeg
    if jpeg is None:
        raise ConflictError("no camera frame yet: start a source (tableref serve --source ..., or --demo), or upload images")
    return add_view(app, jpeg, "camera")


def clear_views(app, view_id: str | None = None) -> int:
    with _lock:
        views = _views(app)
        if view_id is None:
            n = len(views)
            views.clear()
            return n
        keep = [v for v in views if v["id"] != view_id]
        if len(keep) == len(views):
            raise InputError(f"no view {view_id!r}")
        views[:] = keep
        return 1


def status(app) -> dict:
    icfg = _icfg()
    with _lock:
        views = [{k: v for k, v in view.items() if k != "content"} for view in _views(app)]
    return {"views": views, "usable": sum(v["usable"] for v in views), "min_views": icfg.min_views,
            "min_corners_per_view": icfg.min_corners_per_view, "max_rms_px": icfg.max_rms_px,
            "board": {"squares": [icfg.squares_x, icfg.squares_y], "square_mm": icfg.square_mm,
                      "marker_mm": icfg.marker_mm, "dictionary": icfg.dictionary},
            "camera": summary(app.config["DATA_DIR"])}


def summary(data_dir) -> dict | None:
    """The saved camera file in short, or None (a broken file is reported, not raised)."""
    from calibration.errors import IntrinsicsError
    from calibration.intrinsics import load_intrinsics

    path = camera_path(data_dir)
    if not path.exists():
        return None
    try:
        intr = load_intrinsics(path)
    except IntrinsicsError as exc:
        return {"error": str(exc), "file": CAMERA_FILE}
    return {"file": CAMERA_FILE, "rms_px": intr.rms_px, "n_views": intr.n_views, "image_size": list(intr.image_size),
            "fx": intr.fx, "fy": float(intr.K[1, 1]), "cx": float(intr.K[0, 2]), "cy": float(intr.K[1, 2]),
            "dist": intr.dist.tolist(), "per_view_rms_px": list(intr.per_view_rms_px),
            "skipped": list(intr.board.get("skipped", []))}


def solve(app) -> dict:
    """Calibrate from the kept views, save ``camera.yaml`` in the data folder; the RMS error and
    whether it is within the configured ``max_rms_px``."""
    from calibration.intrinsics import calibrate_images, save_intrinsics

    with _lock:
        views = list(_views(app))
    if not views:
        raise ConflictError("no views yet: capture the printed ChArUco board from several angles, or upload photos")
    icfg = _icfg()
    intr = calibrate_images(((f"view {i + 1}", decode(v["content"])) for i, v in enumerate(views)), icfg)
    path = camera_path(app.config["DATA_DIR"])
    tmp = path.with_name(path.name + ".part.yaml")
    save_intrinsics(intr, tmp)
    tmp.replace(path)
    out = summary(app.config["DATA_DIR"])
    out["poor"] = bool(intr.rms_px > icfg.max_rms_px)
    return out


def load_camera(data_dir, image_size) -> tuple[object, str]:
    """(intrinsics scaled to ``image_size`` or None, a note for the page)."""
    from calibration.errors import IntrinsicsError
    from calibration.intrinsics import load_intrinsics

    path = camera_path(data_dir)
    if not path.exists():
        return None, "no camera calibration (focal length estimated from the markers)"
    try:
        return load_intrinsics(path).scaled_to(tuple(image_size)), f"camera calibration {CAMERA_FILE} used"
    except IntrinsicsError as exc:
        return None, f"camera calibration not used: {exc}"


def charuco_pdf() -> bytes:
    """The ChArUco board of the configuration, at true scale (``calibration.markers``)."""
    from calibration.config import load_config
    from calibration.markers import charuco_sheet, pdf_bytes

    cfg = load_config()
    return pdf_bytes(charuco_sheet(cfg.intrinsics, cfg.sheet))
