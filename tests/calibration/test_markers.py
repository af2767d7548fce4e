"""Printable sheets: true scale in PNG (measured at the DPI recorded in the file) and PDF (page and
image size in points), placement text, ChArUco board, and the errors a user can cause."""

import re
import zlib

import cv2
import numpy as np
import pytest

from calibration.board import load_board, parse_board
from calibration.config import load_config
from calibration.markers import (PAPER_MM, SheetError, board_marker_sheet, charuco_sheet, marker_placement,
                                 pdf_bytes, png_dpi, save_sheet)

CFG = load_config()


def _measure_markers(grey: np.ndarray, dictionary: str) -> dict[int, np.ndarray]:
    """id → (4, 2) detected corners (px) of the markers on a page image."""
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)))
    corners, ids, _ = det.detectMarkers(grey)
    assert ids is not None
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


def _black_square_side_px(grey: np.ndarray, corners: np.ndarray) -> float:
    """Side of the marker's black square from the pixels themselves (independent of ArUco): the
    width of the dark run across the marker's middle row and column, averaged."""
    x0, y0 = corners.min(axis=0).astype(int)
    x1, y1 = corners.max(axis=0).astype(int)
    pad = 10
    crop = grey[y0 - pad:y1 + pad, x0 - pad:x1 + pad] < 128
    # the marker's first and last rows and columns are all black (its border): measure the extent
    rows = np.where(crop.any(axis=1))[0]
    cols = np.where(crop.any(axis=0))[0]
    return ((rows[-1] - rows[0] + 1) + (cols[-1] - cols[0] + 1)) / 2.0


def test_png_sheet_is_true_scale(tmp_path):
    board = load_board("dino-dunk/tropic-turf")
    sheet = board_marker_sheet(board, CFG.sheet)
    files = save_sheet(sheet, tmp_path / "sheet.png")
    assert files == [tmp_path / "sheet.png"]
    dpi = png_dpi(files[0])
    assert dpi == pytest.approx(300, abs=0.01)
    from PIL import Image

    with Image.open(files[0]) as im:
        assert im.info["dpi"][0] == pytest.approx(300, abs=0.01)
        grey = np.asarray(im.convert("L"))
    # the page is A4 at that DPI
    assert grey.shape[1] * 25.4 / dpi == pytest.approx(210, abs=0.1)
    assert grey.shape[0] * 25.4 / dpi == pytest.approx(297, abs=0.1)
    found = _measure_markers(grey, board.markers.dictionary)
    assert set(found) == {0, 1, 2, 3}
    for mid, c in found.items():
        sides_px = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)
        # ArUco's corners: the side of the outer black square, in mm at the file's DPI
        assert np.mean(sides_px) * 25.4 / dpi == pytest.approx(board.markers.size_mm, abs=0.15)
        assert _black_square_side_px(grey, c) * 25.4 / dpi == pytest.approx(board.markers.size_mm, abs=0.1)
    # the recorded placements are where the markers are
    for page, mid, corners_mm in sheet.placements:
        assert page == 0
        np.testing.assert_allclose(found[mid] * 25.4 / dpi, corners_mm, atol=0.15)


def test_pdf_sheet_has_the_paper_size_and_true_scale(tmp_path):
    board = load_board("morris/waterfall")
    sheet = board_marker_sheet(board, CFG.sheet, dpi=200, paper="letter")
    out = save_sheet(sheet, tmp_path / "sheet.pdf")[0]
    data = out.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    w_pt, h_pt = (float(v) for v in re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data).groups())
    assert w_pt == pytest.approx(215.9 / 25.4 * 72, abs=0.01) and h_pt == pytest.approx(279.4 / 25.4 * 72, abs=0.01)
    width, height = (int(v) for v in re.search(rb"/Width (\d+) /Height (\d+)", data).groups())
    sx, sy = (float(v) for v in re.search(rb"q ([\d.]+) 0 0 ([\d.]+) 0", data).groups())
    assert sx / width == pytest.approx(72 / 200, rel=1e-6) and sy / height == pytest.approx(72 / 200, rel=1e-6)
    # decode the page image and measure a marker: 72/dpi points per pixel → mm
    length = int(re.search(rb"/FlateDecode /Length (\d+)", data).group(1))
    start = data.index(b"stream\n") + len(b"stream\n")
    grey = np.frombuffer(zlib.decompress(data[start:start + length]), np.uint8).reshape(height, width)
    found = _measure_markers(grey, board.markers.dictionary)
    side_pt = np.mean([np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1).mean() for c in found.values()]) * sx / width
    assert side_pt / 72 * 25.4 == pytest.approx(board.markers.size_mm, abs=0.2)


def test_multi_page_png_and_pdf(tmp_path):
    # big markers: one per page
    data = {"game": "grid", "name": "big", "size_mm": [600, 400],
            "markers": {"dictionary": "DICT_4X4_50", "size_mm": 120,
                        "items": [{"id": i, "center": c} for i, c in
                                  enumerate([[-80, -80], [680, -80], [680, 480], [-80, 480]])]}}
    board = parse_board(data)
    sheet = board_marker_sheet(board, CFG.sheet)
    assert len(sheet.pages) >= 2
    files = save_sheet(sheet, tmp_path / "big.png")
    assert files[1].name == "big-2.png" and all(f.exists() for f in files)
    pdf = pdf_bytes(sheet)
    assert pdf.count(b"/Type /Page ") == len(sheet.pages)


def test_every_shipped_board_makes_a_sheet_with_every_marker():
    from calibration.board import list_boards

    for ref in list_boards():
        board = load_board(ref)
        sheet = board_marker_sheet(board, CFG.sheet, dpi=100)
        assert sorted(mid for _, mid, _ in sheet.placements) == sorted(m.id for m in board.markers.items)


@pytest.mark.parametrize("center, where, how", [
    ([-40, -40], "top-left corner of the mat", "40 mm left of and 40 mm above it"),  # default layout
    ([954, 650], "bottom-right corner of the mat", "40 mm right of and 40 mm below it"),
    ([457, -30], "top edge of the mat", "30 mm above the point (457, 0) mm"),  # an edge marker
    ([300, 200], "inside the mat", "at (300, 200) mm from the mat's top-left corner"),
])
def test_marker_placement_text(center, where, how):
    board = parse_board({"game": "g", "name": "n", "size_mm": [914, 610],
                         "markers": {"size_mm": 50, "items": [{"id": 0, "center": center}]}})
    assert marker_placement(board, board.markers.items[0]) == (where, how)


def test_quiet_zone_does_not_reach_the_mat():
    from calibration.markers import marker_cells, aruco_dictionary, quiet_zone_mm

    board = load_board("dodo-dash/dodorado-jungle")  # 40 mm markers 32 mm out from the corner
    ms = board.markers
    module = ms.size_mm / marker_cells(aruco_dictionary(ms.dictionary))
    for m in ms.items:
        half = ms.size_mm / 2 + quiet_zone_mm(board, m, ms.size_mm, module, CFG.sheet)
        assert half < 32.0  # the cut paper stays off the mat
        assert half - ms.size_mm / 2 >= module  # and keeps at least one white cell


def test_charuco_sheet_is_true_scale(tmp_path):
    icfg = CFG.intrinsics
    sheet = charuco_sheet(icfg, CFG.sheet)
    out = save_sheet(sheet, tmp_path / "charuco.png")[0]
    dpi = png_dpi(out)
    grey = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    from calibration.intrinsics import charuco_detector, detect_charuco

    corners, ids = detect_charuco(grey, charuco_detector(icfg))
    assert len(ids) == (icfg.squares_x - 1) * (icfg.squares_y - 1)
    by_id = dict(zip(ids.tolist(), corners))
    # neighbouring chessboard corners are one square apart
    steps = [np.linalg.norm(by_id[i + 1] - by_id[i]) for i in by_id if i + 1 in by_id and (i + 1) % (icfg.squares_x - 1)]
    assert np.mean(steps) * 25.4 / dpi == pytest.approx(icfg.square_mm, abs=0.1)


@pytest.mark.parametrize("make, message", [
    # a marker larger than the paper
    (lambda: board_marker_sheet(parse_board({"game": "g", "name": "n", "size_mm": [2000, 1500], "markers": {
        "size_mm": 250, "items": [{"id": 0, "center": [-200, -200]}]}}), CFG.sheet), "does not fit on a4"),
    # unknown paper
    (lambda: board_marker_sheet(load_board("grid/plain-grid"), CFG.sheet, paper="a5"), "unknown paper"),
    # a ChArUco board bigger than the page
    (lambda: charuco_sheet(__import__("dataclasses").replace(CFG.intrinsics, square_mm=60.0), CFG.sheet), "does not fit"),
    # marker not smaller than its square
    (lambda: charuco_sheet(__import__("dataclasses").replace(CFG.intrinsics, marker_mm=30.0), CFG.sheet), "smaller than its square"),
    # unknown dictionary
    (lambda: charuco_sheet(__import__("dataclasses").replace(CFG.intrinsics, dictionary="DICT_9X9_1"), CFG.sheet), "unknown ArUco dictionary"),
])
def test_sheet_errors(make, message):
    with pytest.raises(SheetError, match=message):
        make()


def test_bad_output_name(tmp_path):
    sheet = board_marker_sheet(load_board("grid/plain-grid"), CFG.sheet, dpi=72)
    with pytest.raises(SheetError, match=r"\.pdf or \.png"):
        save_sheet(sheet, tmp_path / "sheet.jpg")
    with pytest.raises(SheetError, match="no such folder"):
        save_sheet(sheet, tmp_path / "missing" / "sheet.png")


def test_paper_sizes_are_iso_and_us():
    assert PAPER_MM["a4"] == (210.0, 297.0) and PAPER_MM["letter"] == (215.9, 279.4)
