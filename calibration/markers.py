"""Printable sheets at true scale: a board's ArUco markers with cut and placement marks, and the
ChArUco board for camera calibration.

Everything is laid out in **paper mm** (origin at the page's top-left corner) and rasterised at the
sheet's DPI: a length of ``L`` mm is ``round(L * dpi / 25.4)`` px, so a printed length is within
half a pixel (0.04 mm at 300 dpi) of the truth when the page is printed at 100 % ("actual size").
PNG files record the DPI (pHYs); PDF pages carry the exact paper size, with the page image
embedded at that size.

A marker's printed side is its *outer black border* (OpenCV's marker length), the ``size_mm`` of
the board file. Around it is a white quiet zone; the cut box (crop marks at its corners) encloses
both, and ticks on the cut box's edges line up with the marker's centre lines.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from calibration.board import Board, Marker
from calibration.config import IntrinsicsConfig, SheetConfig
from calibration.errors import CalibrationError

PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4), "a3": (297.0, 420.0)}
MM_PER_INCH = 25.4
_FONT_MM = 3.2          # cap height of label text
_LINE_MM = 5.0          # label line pitch
_CROP_GAP_MM = 2.0      # crop marks start this far outside the cut box
_CROP_LEN_MM = 6.0


class SheetError(CalibrationError):
    """A sheet cannot be laid out (a marker larger than the paper, an unknown dictionary, ...)."""


@dataclass
class Sheet:
    """Pages of a printable sheet: each (H, W) uint8 grey at ``dpi``; ``paper_mm`` (w, h)."""

    pages: list
    dpi: int
    paper_mm: tuple
    title: str = ""
    items: list = field(default_factory=list)  # one line per marker / board, for the CLI
    placements: list = field(default_factory=list)  # (page, marker id, (4, 2) corners in paper mm)

    def px(self, mm: float) -> int:
        return mm_to_px(mm, self.dpi)


def mm_to_px(mm: float, dpi: float) -> int:
    """Paper mm → whole pixels at ``dpi``."""
    return int(round(mm * dpi / MM_PER_INCH))


def aruco_dictionary(name: str):
    """``cv2.aruco.Dictionary`` from its name (``DICT_4X4_50`` …); :class:`SheetError` if unknown."""
    import cv2

    ident = getattr(cv2.aruco, str(name), None)
    if not isinstance(ident, int) or not str(name).startswith("DICT_"):
        raise SheetError(f"unknown ArUco dictionary {name!r}; use one like DICT_4X4_50 or DICT_5X5_100")
    return cv2.aruco.getPredefinedDictionary(ident)


def marker_cells(dictionary) -> int:
    """Cells across a marker including its one-cell black border (6 for 4x4 markers)."""
    return int(dictionary.markerSize) + 2


# --------------------------------------------------------------------------------------------
# placement text


def marker_placement(board: Board, marker: Marker) -> tuple[str, str]:
    """(where, how): which corner or edge of the mat the marker goes to (by the side of the mat it
    lies beyond), and its centre's offset from that corner in words, e.g. ("top-left corner of
    the mat", "40 mm left of and 40 mm above it")."""
    length, width = board.size_mm
    x, y = marker.center
    col = "left" if x < 0 else ("right" if x > length else "middle")
    row = "top" if y < 0 else ("bottom" if y > width else "middle")
    if col == "middle" and row == "middle":
        return "inside the mat", f"at ({x:g}, {y:g}) mm from the mat's top-left corner"
    if col == "middle" or row == "middle":
        where = f"{col if row == 'middle' else row} edge"
        cx = x if col == "middle" else (0.0 if col == "left" else length)
        cy = y if row == "middle" else (0.0 if row == "top" else width)
    else:
        where = f"{row}-{col} corner"
        cx, cy = (0.0 if col == "left" else length), (0.0 if row == "top" else width)
    dx, dy = x - cx, y - cy
    parts = []
    if abs(dx) > 0.05:
        parts.append(f"{abs(dx):g} mm {'left of' if dx < 0 else 'right of'}")
    if abs(dy) > 0.05:
        parts.append(f"{abs(dy):g} mm {'above' if dy < 0 else 'below'}")
    ref = "it" if col != "middle" and row != "middle" else f"the point ({cx:g}, {cy:g}) mm"
    how = " and ".join(parts) + f" {ref}" if parts else f"on {ref}"
    return f"{where} of the mat", how


# --------------------------------------------------------------------------------------------
# drawing helpers (all positions in paper mm)


class _Canvas:
    def __init__(self, paper_mm: tuple, dpi: int):
        self.dpi = dpi
        self.paper_mm = paper_mm
        self.img = np.full((mm_to_px(paper_mm[1], dpi), mm_to_px(paper_mm[0], dpi)), 255, np.uint8)

    def px(self, mm: float) -> int:
        return mm_to_px(mm, self.dpi)

    def line(self, x0, y0, x1, y1, grey=0, width_mm=0.25):
        import cv2

        cv2.line(self.img, (self.px(x0), self.px(y0)), (self.px(x1), self.px(y1)), int(grey),
                 max(1, self.px(width_mm)), cv2.LINE_AA)

    def text(self, x, y, text, size_mm=_FONT_MM, grey=0):
        """``text`` with its baseline's left end at (x, y) mm."""
        import cv2

        scale = self.px(size_mm) / 22.0  # Hershey simplex cap height is ~22 px at scale 1
        cv2.putText(self.img, text, (self.px(x), self.px(y)), cv2.FONT_HERSHEY_SIMPLEX, scale, int(grey),
                    max(1, int(round(scale * 1.6))), cv2.LINE_AA)

    def text_width_mm(self, text, size_mm=_FONT_MM) -> float:
        import cv2

        scale = self.px(size_mm) / 22.0
        (w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, int(round(scale * 1.6))))
        return w * MM_PER_INCH / self.dpi

    def paste(self, x_mm, y_mm, image):
        """Paste ``image`` with its top-left pixel at (x_mm, y_mm)."""
        x, y = self.px(x_mm), self.px(y_mm)
        h, w = image.shape[:2]
        self.img[y:y + h, x:x + w] = image

    def crop_marks(self, x0, y0, x1, y1):
        g, n = _CROP_GAP_MM, _CROP_LEN_MM
        for cx, sx in ((x0, -1), (x1, 1)):
            for cy, sy in ((y0, -1), (y1, 1)):
                self.line(cx + sx * g, cy, cx + sx * (g + n), cy)
                self.line(cx, cy + sy * g, cx, cy + sy * (g + n))

    def scale_bar(self, x, y, length_mm=100.0):
        """A bar of ``length_mm`` with 10 mm ticks and a caption: check the print against a ruler."""
        self.line(x, y, x + length_mm, y, width_mm=0.35)
        for i in range(int(length_mm // 10) + 1):
            tick = 3.0 if i % 5 == 0 else 1.8
            self.line(x + 10 * i, y - tick, x + 10 * i, y)
        self.text(x + length_mm + 3, y, f"= {length_mm:g} mm if printed at actual size", size_mm=2.6)


def _marker_image(dictionary, marker_id: int, side_px: int) -> np.ndarray:
    import cv2

    return cv2.aruco.generateImageMarker(dictionary, int(marker_id), int(side_px), borderBits=1)


# --------------------------------------------------------------------------------------------
# board marker sheets


def quiet_zone_mm(board: Board, marker: Marker, size_mm: float, module_mm: float, cfg: SheetConfig) -> float:
    """White border around a marker: ``cfg.quiet_zone_modules`` cells, shrunk (down to one cell)
    so that a marker placed outside the mat does not overlap the mat when cut out."""
    quiet = cfg.quiet_zone_modules * module_mm
    length, width = board.size_mm
    x, y = marker.center
    gap = max(-x, x - length, -y, y - width)  # distance from the centre to the mat, along the worse axis
    if gap > size_mm / 2:
        quiet = min(quiet, max(module_mm, gap - size_mm / 2 - 1.0))
    return quiet


def board_marker_sheet(board: Board, cfg: SheetConfig, dpi: int | None = None, paper: str | None = None) -> Sheet:
    """The board's markers at true size, one tile each (marker, quiet zone, crop marks, centre
    ticks, label: id, dictionary, size, which corner of the mat, "place centre at (x, y) mm")."""
    if board.markers is None:
        raise SheetError(f"{board.ref}: the board file has no markers section; add one (see boards/grid/plain-grid.yaml)")
    dpi = int(dpi or cfg.dpi)
    paper = (paper or cfg.paper).lower()
    if paper not in PAPER_MM:
        raise SheetError(f"unknown paper {paper!r}; use one of {', '.join(PAPER_MM)}")
    if not 72 <= dpi <= 1200:
        raise SheetError(f"--dpi {dpi} is outside 72..1200")
    paper_mm = PAPER_MM[paper]
    ms = board.markers
    dictionary = aruco_dictionary(ms.dictionary)
    module = ms.size_mm / marker_cells(dictionary)
    margin = cfg.page_margin_mm
    header_mm = 22.0
    usable_w = paper_mm[0] - 2 * margin
    usable_h = paper_mm[1] - 2 * margin - header_mm

    tiles = []  # (marker, quiet, w, h, label lines)
    probe = _Canvas((10.0, 10.0), dpi)
    for m in ms.items:
        quiet = quiet_zone_mm(board, m, ms.size_mm, module, cfg)
        cut = ms.size_mm + 2 * quiet
        where, how = marker_placement(board, m)
        lines = [f"#{m.id}  {ms.dictionary}  {ms.size_mm:g} mm (black square)",
                 f"{where}",
                 f"place centre at ({m.center[0]:g}, {m.center[1]:g}) mm:",
                 f"{how}"]
        if m.rotation_deg:
            lines.append(f"turned {m.rotation_deg:g} deg from the mat's axes (x toward y)")
        else:
            lines.append("top edge toward the mat's top edge (y = 0)")
        text_w = max(probe.text_width_mm(t, _FONT_MM if i == 0 else 2.8) for i, t in enumerate(lines))
        w = max(cut + 2 * (_CROP_GAP_MM + _CROP_LEN_MM), text_w) + 2.0
        h = cut + 2 * (_CROP_GAP_MM + _CROP_LEN_MM) + len(lines) * _LINE_MM + 8.0
        if cut + 2 * (_CROP_GAP_MM + _CROP_LEN_MM) > min(usable_w, usable_h):
            raise SheetError(f"a {ms.size_mm:g} mm marker does not fit on {paper} paper; use --paper a3 or "
                             f"smaller markers (markers.size_mm in {board.path or board.ref})")
        tiles.append((m, quiet, min(w, usable_w), h, lines))

    # shelf packing, page by page
    pages: list[list] = [[]]
    x = y = 0.0
    row_h = 0.0
    for tile in tiles:
        _, _, w, h, _ = tile
        if x > 0 and x + w > usable_w:
            x, y, row_h = 0.0, y + row_h, 0.0
        if y > 0 and y + h > usable_h:
            pages.append([])
            x = y = row_h = 0.0
        pages[-1].append((tile, margin + x, margin + header_mm + y))
        x += w
        row_h = max(row_h, h)

    images = []
    items = []
    placements = []
    for number, placed in enumerate(pages, 1):
        c = _Canvas(paper_mm, dpi)
        c.text(margin, margin + 4, f"tableref markers: {board.ref} ({board.title}), {board.size_mm[0]:g} x "
               f"{board.size_mm[1]:g} mm mat   page {number}/{len(pages)}", size_mm=3.4)
        c.text(margin, margin + 9.5, "Cut along the crop marks. Put each marker flat on the table at its place; "
               "do not cover its white border.", size_mm=2.6)
        c.scale_bar(margin, margin + 17)
        for (m, quiet, w, h, lines), x0, y0 in placed:
            cut = ms.size_mm + 2 * quiet
            edge = _CROP_GAP_MM + _CROP_LEN_MM
            cx0 = x0 + (w - cut) / 2 if w > cut + 2 * edge else x0 + edge
            cy0 = y0 + edge
            mx0, my0 = cx0 + quiet, cy0 + quiet
            side_px = c.px(ms.size_mm)
            c.paste(mx0, my0, _marker_image(dictionary, m.id, side_px))
            # where the marker really is: pasted at whole pixels, each pixel 25.4 / dpi mm
            px0, py0 = c.px(mx0) * MM_PER_INCH / dpi, c.px(my0) * MM_PER_INCH / dpi
            side = side_px * MM_PER_INCH / dpi
            placements.append((number - 1, m.id, np.array([[px0, py0], [px0 + side, py0], [px0 + side, py0 + side],
                                                            [px0, py0 + side]])))
            c.crop_marks(cx0, cy0, cx0 + cut, cy0 + cut)
            # placement ticks on the cut box's edges, on the marker's centre lines
            mid_x, mid_y = mx0 + ms.size_mm / 2, my0 + ms.size_mm / 2
            tick = min(quiet * 0.6, 4.0)
            for (ax, ay, bx, by) in ((mid_x, cy0, mid_x, cy0 + tick), (mid_x, cy0 + cut - tick, mid_x, cy0 + cut),
                                     (cx0, mid_y, cx0 + tick, mid_y), (cx0 + cut - tick, mid_y, cx0 + cut, mid_y)):
                c.line(ax, ay, bx, by, grey=90, width_mm=0.3)
            ty = cy0 + cut + edge + 1.0
            for i, t in enumerate(lines):
                c.text(x0 + 1.0, ty + (i + 1) * _LINE_MM - 1.2, t, size_mm=_FONT_MM if i == 0 else 2.8)
            items.append(f"marker #{m.id} ({ms.size_mm:g} mm): {lines[1]}, centre at ({m.center[0]:g}, {m.center[1]:g}) mm")
        images.append(c.img)
    return Sheet(pages=images, dpi=dpi, paper_mm=paper_mm, title=f"markers for {board.ref}", items=items,
                 placements=placements)


# --------------------------------------------------------------------------------------------
# ChArUco board


def charuco_board(cfg: IntrinsicsConfig):
    """``cv2.aruco.CharucoBoard`` of the configuration: object points in mm, origin at the board's
    top-left outer corner, x right, y down (as printed)."""
    import cv2

    if cfg.marker_mm >= cfg.square_mm:
        raise SheetError(f"the ChArUco marker ({cfg.marker_mm:g} mm) must be smaller than its square ({cfg.square_mm:g} mm)")
    if cfg.squares_x < 3 or cfg.squares_y < 3:
        raise SheetError(f"a ChArUco board needs at least 3 x 3 squares, got {cfg.squares_x} x {cfg.squares_y}")
    board = cv2.aruco.CharucoBoard((cfg.squares_x, cfg.squares_y), float(cfg.square_mm), float(cfg.marker_mm),
                                   aruco_dictionary(cfg.dictionary))
    if len(board.getIds()) > len(aruco_dictionary(cfg.dictionary).bytesList):
        raise SheetError(f"{cfg.dictionary} has too few markers for {cfg.squares_x} x {cfg.squares_y} squares")
    return board


def charuco_image(cfg: IntrinsicsConfig, px_per_mm: float) -> np.ndarray:
    """The ChArUco board alone, (H, W) uint8, ``px_per_mm`` px per mm; pixel (i, j) covers board mm
    [i, i+1) / px_per_mm (its centre at (i + 0.5) / px_per_mm)."""
    board = charuco_board(cfg)
    w = int(round(cfg.squares_x * cfg.square_mm * px_per_mm))
    h = int(round(cfg.squares_y * cfg.square_mm * px_per_mm))
    return board.generateImage((w, h), marginSize=0, borderBits=1)


def charuco_sheet(icfg: IntrinsicsConfig, cfg: SheetConfig, dpi: int | None = None, paper: str | None = None) -> Sheet:
    """A page with the ChArUco board at true size and what it is (squares, sizes, dictionary)."""
    dpi = int(dpi or cfg.dpi)
    paper = (paper or cfg.paper).lower()
    if paper not in PAPER_MM:
        raise SheetError(f"unknown paper {paper!r}; use one of {', '.join(PAPER_MM)}")
    paper_mm = PAPER_MM[paper]
    bw, bh = icfg.squares_x * icfg.square_mm, icfg.squares_y * icfg.square_mm
    margin = cfg.page_margin_mm
    header_mm = 22.0
    footer_mm = 14.0
    if bw > paper_mm[0] - 2 * margin or bh > paper_mm[1] - 2 * margin - header_mm - footer_mm:
        raise SheetError(f"a {icfg.squares_x} x {icfg.squares_y} board of {icfg.square_mm:g} mm squares "
                         f"({bw:g} x {bh:g} mm) does not fit on {paper} paper; use --paper a3 or a smaller --square-mm")
    c = _Canvas(paper_mm, dpi)
    x0 = (paper_mm[0] - bw) / 2
    y0 = margin + header_mm
    img = charuco_image(icfg, dpi / MM_PER_INCH)
    c.paste(x0, y0, img)
    desc = (f"ChArUco {icfg.squares_x} x {icfg.squares_y} squares, square {icfg.square_mm:g} mm, "
            f"marker {icfg.marker_mm:g} mm, {icfg.dictionary}")
    c.text(margin, margin + 4, "tableref camera calibration board", size_mm=3.4)
    c.text(margin, margin + 9.5, desc, size_mm=2.8)
    c.scale_bar(margin, margin + 17)
    fy = y0 + bh + 6
    c.text(margin, fy, "Glue it flat on card. Measure one square: if it is not "
           f"{icfg.square_mm:g} mm, pass --square-mm and --marker-mm", size_mm=2.6)
    c.text(margin, fy + 4.5, "(scaled alike) to tableref calibrate camera. Film it from many angles, "
           "filling the view.", size_mm=2.6)
    return Sheet(pages=[c.img], dpi=dpi, paper_mm=paper_mm, title="ChArUco calibration board", items=[desc])


# --------------------------------------------------------------------------------------------
# saving


def save_sheet(sheet: Sheet, path: str | os.PathLike) -> list[Path]:
    """Write ``sheet`` to ``path``: ``.pdf`` (one page per sheet page, at the paper's exact size)
    or ``.png`` (one file per page: ``name.png``, ``name-2.png`` …, DPI in the pHYs chunk).
    Returns the files written. PNG needs Pillow (a dependency of ultralytics and matplotlib)."""
    from PIL import Image

    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise SheetError(f"{out}: the output must end in .pdf or .png")
    if not out.parent.exists():
        raise SheetError(f"{out.parent}: no such folder for the output")
    if suffix == ".pdf":
        out.write_bytes(pdf_bytes(sheet))
        return [out]
    written = []
    for i, page in enumerate(sheet.pages):
        target = out if i == 0 else out.with_name(f"{out.stem}-{i + 1}{out.suffix}")
        Image.fromarray(page).save(target, "PNG", dpi=(sheet.dpi, sheet.dpi), optimize=True)
        written.append(target)
    return written


def pdf_bytes(sheet: Sheet) -> bytes:
    """A minimal PDF: one page per sheet page, MediaBox the exact paper size in points, the page
    image (lossless, Flate) drawn at ``72 / dpi`` points per pixel from the top-left corner."""
    import zlib

    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    def stream(header: str, data: bytes) -> bytes:
        return f"<< {header} /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"

    pw, ph = (v * 72.0 / MM_PER_INCH for v in sheet.paper_mm)
    catalog = add(b"")  # filled in below
    pages_obj = add(b"")
    kids = []
    for page in sheet.pages:
        h, w = page.shape
        iw, ih = w * 72.0 / sheet.dpi, h * 72.0 / sheet.dpi
        image = add(stream(f"/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
                           "/BitsPerComponent 8 /Filter /FlateDecode",
                           zlib.compress(np.ascontiguousarray(page).tobytes(), 9)))
        content = add(stream("", f"q {iw:.4f} 0 0 {ih:.4f} 0 {ph - ih:.4f} cm /Im0 Do Q".encode()))
        kids.append(add(f"<< /Type /Page /Parent {pages_obj} 0 R /MediaBox [0 0 {pw:.4f} {ph:.4f}] "
                        f"/Resources << /XObject << /Im0 {image} 0 R >> >> /Contents {content} 0 R >>".encode()))
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {pages_obj} 0 R >>".encode()
    objects[pages_obj - 1] = (f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] "
                              f"/Count {len(kids)} >>").encode()
    title = sheet.title.replace("\\", "").replace("(", "[").replace(")", "]")
    info = add(f"<< /Title ({title}) /Creator (tableref) >>".encode())
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root {catalog} 0 R /Info {info} 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode()
    return bytes(out)


def png_dpi(path: str | os.PathLike) -> float:
    """The DPI recorded in a PNG's pHYs chunk (read by hand, no Pillow): :class:`SheetError` if none."""
    import struct

    data = Path(path).read_bytes()
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"pHYs":
            ppux, ppuy, unit = struct.unpack(">IIB", data[pos + 8:pos + 17])
            if unit != 1:
                break
            return ppux * 0.0254
        if kind == b"IDAT":
            break
        pos += 12 + length
    raise SheetError(f"{path}: no DPI recorded (pHYs chunk in metres)")

