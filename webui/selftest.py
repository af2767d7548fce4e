"""Setup → accuracy self-test: a printed test sheet with markers and numbered target circles at
known positions, the pieces placed on the circles, detected by :mod:`vision.detect`, and the local
error in mm per spot and overall.

The sheet is its own small board (``<game>/selftest-sheet``): its frame is **sheet mm** (origin at
the paper's top-left corner, x right, y down), playing the part of mat mm. Four markers of the
board's ArUco dictionary (ids the board itself does not use, so the sheet can lie on the mat) sit
in its corners; the targets are circles the size of the game's piece (a medium disc for Dino Dunk)
on a grid. The page is drawn at true scale with :mod:`calibration.markers` (``mm_to_px``, the
ArUco dictionary, ``pdf_bytes``): printed at 100 % its lengths are right to half a pixel. The
registration uses the camera calibration when there is one, like the mat's.

Steps on the page: print; lay the empty sheet in view and capture it (the classical detector
subtracts it); put a piece on each circle; measure. Per spot: the distance from the target centre
to the detected base centre (the nearest detection within the piece's radius + 15 mm), and
"missing" when there is none.
"""

from __future__ import annotations

import io
import math
import threading

import numpy as np

from webui.record import ConflictError, InputError

PAPER = "a4"
MARGIN_MM = 22.0         # marker centres this far from the paper's edges
MARKER_MM = 30.0         # printed side of the sheet's markers (smaller if the board's are)
COLS, ROWS = 3, 4        # targets
SEARCH_EXTRA_MM = 15.0   # a detection counts for a target within its radius plus this
DEFAULT_PIECE = {"dino-dunk": "disc-medium", "morris": "egg", "dodo-dash": "dodo"}
_lock = threading.Lock()


def _specs():
    from calibration.specs import load_specs

    return load_specs()


def piece_for(board, piece: str | None = None) -> tuple[str, float]:
    """(kind, radius mm) of the piece the targets are drawn for."""
    specs = _specs()
    try:
        kinds = {p.name: p for p in specs.of_game(board.game).values() if p.diameter > 0}
    except (KeyError, ValueError):
        kinds = {}
    if not kinds:
        raise InputError(f"{board.game} has no round pieces in the specs to test with")
    name = piece or DEFAULT_PIECE.get(board.game) or next(iter(kinds))
    if name not in kinds:
        raise InputError(f"piece: {name!r} is not a round piece of {board.game}; choose one of {', '.join(sorted(kinds))}")
    return name, float(kinds[name].diameter) / 2


def layout(board, piece: str | None = None) -> dict:
    """The sheet's definition: paper, markers (sheet mm), targets (number, centre, radius)."""
    from calibration.markers import PAPER_MM, aruco_dictionary

    if board.markers is None:
        raise InputError(f"{board.ref} has no markers section: the test sheet uses the board's marker dictionary")
    kind, radius = piece_for(board, piece)
    w, h = PAPER_MM[PAPER]
    dictionary = board.markers.dictionary
    used = {m.id for m in board.markers.items}
    size = min(MARKER_MM, float(board.markers.size_mm))
    ids = [i for i in range(len(aruco_dictionary(dictionary).bytesList)) if i not in used][:4]
    if len(ids) < 4:
        raise InputError(f"{dictionary} has no four ids left beside the board's own")
    centres = [(MARGIN_MM, MARGIN_MM), (w - MARGIN_MM, MARGIN_MM), (w - MARGIN_MM, h - MARGIN_MM), (MARGIN_MM, h - MARGIN_MM)]
    x0, x1 = MARGIN_MM + 25.0, w - MARGIN_MM - 25.0
    y0, y1 = MARGIN_MM + size / 2 + 30.0, h - MARGIN_MM - size / 2 - 22.0
    targets = []
    for r in range(ROWS):
        for c in range(COLS):
            targets.append({"n": len(targets) + 1, "xy": [round(x0 + (x1 - x0) * c / (COLS - 1), 1),
                                                           round(y0 + (y1 - y0) * r / (ROWS - 1), 1)], "radius": radius})
    return {"board": board.ref, "game": board.game, "paper": PAPER, "size_mm": [w, h], "piece": kind,
            "dictionary": dictionary, "marker_mm": size,
            "markers": [{"id": i, "center": list(c)} for i, c in zip(ids, centres)], "targets": targets}


def sheet_board(sheet: dict):
    """The sheet as a board (``calibration.board.parse_board``), sheet mm as its mat mm."""
    from calibration.board import parse_board

    raw = {"schema": "tableref-board/1", "game": sheet["game"], "name": "selftest-sheet",
           "title": f"accuracy test sheet for {sheet['board']}", "size_mm": sheet["size_mm"],
           "markers": {"dictionary": sheet["dictionary"], "size_mm": sheet["marker_mm"],
                       "items": [{"id": m["id"], "center": m["center"]} for m in sheet["markers"]]}}
    return parse_board(raw, "selftest-sheet")


def render_page(sheet: dict, dpi: int = 300) -> np.ndarray:
    """The page, (H, W) uint8 grey at ``dpi``: markers, numbered target circles with centre
    crosses, a 100 mm scale bar to check the print."""
    import cv2

    from calibration.markers import aruco_dictionary, mm_to_px

    if not 72 <= dpi <= 600:
        raise InputError(f"dpi: expected 72 to 600, got {dpi}")
    w, h = sheet["size_mm"]
    page = np.full((mm_to_px(h, dpi), mm_to_px(w, dpi)), 255, np.uint8)
    P = lambda mm: mm_to_px(mm, dpi)  # noqa: E731 - paper mm -> px
    dictionary = aruco_dictionary(sheet["dictionary"])
    side = P(sheet["marker_mm"])
    for m in sheet["markers"]:
        img = cv2.aruco.generateImageMarker(dictionary, int(m["id"]), side, borderBits=1)
        x, y = P(m["center"][0] - sheet["marker_mm"] / 2), P(m["center"][1] - sheet["marker_mm"] / 2)
        page[y:y + side, x:x + side] = img
    line = max(1, P(0.3))
    font = P(3.0) / 22.0
    for t in sheet["targets"]:
        c = (P(t["xy"][0]), P(t["xy"][1]))
        cv2.circle(page, c, P(t["radius"]), 0, line, cv2.LINE_AA)
        arm = P(3.0)
        cv2.line(page, (c[0] - arm, c[1]), (c[0] + arm, c[1]), 0, line)
        cv2.line(page, (c[0], c[1] - arm), (c[0], c[1] + arm), 0, line)
        cv2.putText(page, str(t["n"]), (c[0] + P(t["radius"] * 0.75), c[1] - P(t["radius"] * 0.75)),
                    cv2.FONT_HERSHEY_SIMPLEX, font * 1.3, 0, max(1, int(font * 2)), cv2.LINE_AA)
    text_x = P(MARGIN_MM + sheet["marker_mm"] / 2 + 4)
    for i, text in enumerate([f"tableref accuracy test sheet: {sheet['board']}, {sheet['piece']} on each circle",
                              "Print at 100% (actual size). Lay it flat in view; capture it empty, then measure."]):
        cv2.putText(page, text, (text_x, P(MARGIN_MM - 6 + 5 * i)), cv2.FONT_HERSHEY_SIMPLEX, font * 0.8, 0,
                    max(1, int(font * 1.4)), cv2.LINE_AA)
    bar_y = P(h - MARGIN_MM)
    bx0 = P(MARGIN_MM + sheet["marker_mm"] / 2 + 8)
    cv2.line(page, (bx0, bar_y), (bx0 + P(100), bar_y), 0, max(1, P(0.35)))
    for i in range(11):
        cv2.line(page, (bx0 + P(10 * i), bar_y - P(3.0 if i % 5 == 0 else 1.8)), (bx0 + P(10 * i), bar_y), 0, line)
    cv2.putText(page, "100 mm at actual size (check with a ruler)", (bx0, bar_y - P(5)), cv2.FONT_HERSHEY_SIMPLEX, font * 0.8, 0,
                max(1, int(font * 1.4)), cv2.LINE_AA)
    return page


def sheet_file(sheet: dict, fmt: str, dpi: int = 300) -> tuple[bytes, str]:
    """(bytes, mimetype): a PDF page of the paper's exact size, or a PNG that records its DPI."""
    from calibration.markers import PAPER_MM, Sheet, pdf_bytes

    page = render_page(sheet, dpi)
    if fmt == "pdf":
        return pdf_bytes(Sheet(pages=[page], dpi=dpi, paper_mm=PAPER_MM[sheet["paper"]],
                               title=f"tableref accuracy test sheet {sheet['board']}")), "application/pdf"
    if fmt == "png":
        from PIL import Image

        buf = io.BytesIO()
        Image.fromarray(page).save(buf, "PNG", dpi=(dpi, dpi), optimize=True)
        return buf.getvalue(), "image/png"
    raise InputError(f"format: expected pdf or png, got {fmt!r}")


# -- on the table ------------------------------------------------------------------------------------
def _latest(app):
    from webui.camera import decode

    jpeg = app.extensions["tableref.frames"].jpeg
    if jpeg is None:
        raise ConflictError("no camera frame yet: start a source (tableref serve --source ..., or --demo)")
    return decode(jpeg)


def register_sheet(app, sheet: dict, image) -> tuple[object, dict]:
    """(MatTransform sheet mm ⇄ image px, a report) from the sheet's markers in ``image``."""
    from calibration.config import load_config
    from calibration.errors import CalibrationError
    from calibration.register import detect_markers, register_detections, sigma_summary
    from webui.camera import load_camera

    board = sheet_board(sheet)
    cfg = load_config()
    h, w = image.shape[:2]
    intrinsics, note = load_camera(app.config["DATA_DIR"], (w, h))
    det = detect_markers(image, board.markers.dictionary, cfg.detector)
    expected = [m["id"] for m in sheet["markers"]]
    found = sorted({int(i) for i in det.ids} & set(expected))
    try:
        transform = register_detections(det, board, (w, h), cfg.registration, intrinsics)
    except CalibrationError as exc:
        raise ConflictError(f"the test sheet was not found: {len(found)} of 4 markers ({exc})") from None
    med, worst = sigma_summary(transform, board)
    return transform, {"markers_found": found, "residual_px": float(transform.residual_px),
                       "sigma_mm_median": med, "sigma_mm_max": worst, "camera": note}


def capture_empty(app, sheet: dict) -> dict:
    """Keep the latest frame as the empty sheet (what the classical detector subtracts)."""
    image = _latest(app)
    _, report = register_sheet(app, sheet, image)
    with _lock:
        app.extensions["tableref.selftest_empty"] = (sheet["board"], image)
    return {"board": sheet["board"], "saved": True, **report}


def detector_factory():
    """``vision.detect.Detector`` or an explanation of why there is none."""
    try:
        from vision.detect import Detector
    except ImportError as exc:
        return None, f"detector not available: vision.detect could not be imported ({exc})"
    if not callable(Detector):
        return None, "detector not available: vision.detect has no Detector"
    return Detector, ""


def measure(app, sheet: dict, profile: str | None = None) -> dict:
    """Detect the pieces on the sheet and compare with the targets (sheet mm)."""
    image = _latest(app)
    transform, report = register_sheet(app, sheet, image)
    Detector, why = detector_factory()
    out = {"board": sheet["board"], "piece": sheet["piece"], "registration": report, "targets": sheet["targets"]}
    if Detector is None:
        return {**out, "ok": False, "error": why}
    empty = app.extensions.get("tableref.selftest_empty")
    background = empty[1] if empty and empty[0] == sheet["board"] and empty[1].shape == image.shape else None
    try:
        detector = Detector(sheet_board(sheet), transform, background=background, method="auto", attributes=False,
                            profile=profile)
    except ValueError as exc:  # DetectError: no empty sheet and no model
        raise ConflictError(f"{exc}: capture the empty sheet first (nothing on it), then place the pieces") from None
    obs = detector(image)
    xy = np.asarray(obs.xy, dtype=float).reshape(-1, 2)
    spots, used = [], set()
    for t in sheet["targets"]:
        d = np.hypot(xy[:, 0] - t["xy"][0], xy[:, 1] - t["xy"][1]) if len(xy) else np.zeros(0)
        j = int(np.argmin(d)) if len(d) else -1
        if j >= 0 and d[j] <= t["radius"] + SEARCH_EXTRA_MM and j not in used:
            used.add(j)
            dx, dy = float(xy[j, 0] - t["xy"][0]), float(xy[j, 1] - t["xy"][1])
            spots.append({"n": t["n"], "target": t["xy"], "found": [float(xy[j, 0]), float(xy[j, 1])],
                          "error_mm": math.hypot(dx, dy), "dx_mm": dx, "dy_mm": dy,
                          "sigma_mm": float(obs.sigma[j]), "kind": str(obs.kind[j])})
        else:
            spots.append({"n": t["n"], "target": t["xy"], "found": None, "error_mm": None})
    errors = np.array([s["error_mm"] for s in spots if s["error_mm"] is not None])
    overall = None
    if len(errors):
        overall = {"spots": int(len(errors)), "mean_mm": float(errors.mean()), "median_mm": float(np.median(errors)),
                   "rms_mm": float(np.sqrt((errors ** 2).mean())), "max_mm": float(errors.max())}
    return {**out, "ok": True, "method": detector.method, "spots": spots, "overall": overall,
            "missing": [s["n"] for s in spots if s["found"] is None], "extra": int(len(xy) - len(used))}
