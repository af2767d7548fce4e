"""Mat registration with live feedback for the setup page: the latest camera frame through
:mod:`calibration.register` (markers found, residual in px, σ in mm over the mat) and the drift check
against the previous registration of the same board ("mat moved"). The camera calibration saved on
the setup page (``<data dir>/camera.yaml``, :mod:`webui.camera`) is used when there is one. No
geometry here: the web layer decodes the frame and calls the calibration package's public functions.
"""

from __future__ import annotations

import threading

from webui.record import ConflictError

_lock = threading.Lock()


def register_latest(app, board) -> dict:
    """Register ``board`` on the feed's latest frame; remember it for the next drift check."""
    import cv2
    import numpy as np

    from calibration.config import load_config
    from calibration.errors import CalibrationError
    from calibration.register import check_drift, detect_markers, register_detections, sigma_summary

    feed = app.extensions["tableref.frames"]
    jpeg = feed.jpeg
    if jpeg is None:
        raise ConflictError("no camera frame yet: start a source (tableref serve --source ..., or --demo)")
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ConflictError("the latest frame could not be decoded")
    cfg = load_config()
    expected = sorted(m.id for m in board.markers.items) if board.markers else []
    det = detect_markers(image, board.markers.dictionary, cfg.detector) if board.markers else None
    found = sorted({int(i) for i in det.ids} & set(expected)) if det is not None else []
    out = {"board": board.ref, "frame": feed.index, "markers_expected": expected, "markers_found": found,
           "ok": False}
    from webui.camera import load_camera

    h, w = image.shape[:2]
    intrinsics, out["camera"] = load_camera(app.config["DATA_DIR"], (w, h))
    try:
        transform = register_detections(det, board, (w, h), cfg.registration, intrinsics) if det is not None else None
        if transform is None:
            raise CalibrationError(f"{board.ref}: the board file has no markers section")
    except CalibrationError as exc:
        out["error"] = str(exc)
        return out
    med, worst = sigma_summary(transform, board)
    out.update(ok=True, residual_px=float(transform.residual_px), n_points=int(transform.n_points),
               sigma_mm_median=med, sigma_mm_max=worst, mat_to_image=np.asarray(transform.H).tolist())
    store = app.extensions.setdefault("tableref.registrations", {})
    with _lock:
        previous = store.get(board.ref)
        if previous is not None:
            try:
                drift = check_drift(previous, transform, board, cfg.drift)
                out["drift"] = {"moved": bool(drift.moved), "max_mm": drift.max_mm, "message": drift.message}
            except CalibrationError as exc:
                out["drift"] = {"moved": True, "max_mm": None, "message": str(exc)}
        if previous is None or not out.get("drift", {}).get("moved"):
            store[board.ref] = transform  # a moved mat keeps the old reference until registered afresh
    return out


def forget(app, board_ref: str) -> None:
    with _lock:
        app.extensions.setdefault("tableref.registrations", {}).pop(board_ref, None)


def empty_mat_path(data_dir, board_ref: str):
    """Where the empty mat of a board is kept: ``<data dir>/empty-mat/<game>/<name>.png`` (the ref is
    validated as two slugs by :func:`webui.boards.user_path`'s rules)."""
    from pathlib import Path

    from webui.boards import user_path

    game, name = board_ref.split("/", 1)
    user_path(data_dir, game, name)  # validates both slugs
    return Path(data_dir) / "empty-mat" / game / f"{name}.png"


def capture_empty_mat(app, board) -> dict:
    """Save the latest frame as the board's empty mat (what the classical detector subtracts)."""
    import cv2
    import numpy as np

    jpeg = app.extensions["tableref.frames"].jpeg
    if jpeg is None:
        raise ConflictError("no camera frame yet: start a source (tableref serve --source ..., or --demo)")
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    path = empty_mat_path(app.config["DATA_DIR"], board.ref)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part.png")
    cv2.imwrite(str(tmp), image)
    tmp.replace(path)
    return {"board": board.ref, "saved": True, "size": [int(image.shape[1]), int(image.shape[0])],
            "frame": app.extensions["tableref.frames"].index}
