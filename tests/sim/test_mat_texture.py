"""sim/mat_texture.py: the mat drawn from its board YAML — markers decode where the board puts them,
regions carry their fills, the print's tint leaves the table and the markers alone."""

import numpy as np
import pytest

from calibration.board import list_boards, load_board
from sim.mat_texture import HEX_FILL, REGION_FILL, STONE_COLOURS, draw_mat
from sim.style import clean_style


def _tex_px(tex, pts_mm, level=0):
    s = tex.scales[level]
    return (np.asarray(pts_mm, float) - np.asarray(tex.origin_mm)) * s - 0.5


def _at(tex, pt_mm, level=0):
    u, v = np.round(_tex_px(tex, [pt_mm], level)[0]).astype(int)
    return tex.levels[level][v, u].astype(int)


@pytest.mark.parametrize("ref", list_boards())
def test_markers_decode_where_the_board_puts_them(ref):
    import cv2

    board = load_board(ref)
    tex = draw_mat(board, clean_style())
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, board.markers.dictionary)), params)
    corners, ids, _ = det.detectMarkers(cv2.cvtColor(tex.levels[1], cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == sorted(m.id for m in board.markers.items)
    want = board.markers.corners_mm()
    for c, i in zip(corners, ids.ravel()):
        assert np.max(np.abs(c.reshape(4, 2) - _tex_px(tex, want[int(i)], 1))) < 0.25


@pytest.mark.parametrize("ref", ["dino-dunk/tropic-turf", "dino-dunk/crater-court", "morris/waterfall"])
def test_regions_carry_their_fill(ref):
    board = load_board(ref)
    tex = draw_mat(board, clean_style())
    checked = 0
    for region in board.regions.values():
        fill = REGION_FILL.get(region.kind)
        if fill is None:
            continue
        if region.kind in ("scoring-zone", "nest"):
            continue  # drawn with a centre mark / twigs
        from shapely.geometry import Point

        inner = region.geometry.buffer(-4)  # away from outlines; the median ignores wave lines and
        x0, y0, x1, y1 = inner.bounds      # lines of other features crossing the region
        pts = [(x, y) for x in np.linspace(x0, x1, 15) for y in np.linspace(y0, y1, 15) if inner.contains(Point(x, y))]
        colour = np.median([_at(tex, p) for p in pts], axis=0)
        assert np.max(np.abs(colour - np.array(fill))) < 25, (region.name, colour, fill)
        checked += 1
    assert checked >= 2


def test_hexes_and_stones_carry_their_colours():
    temple = load_board("dodo-dash/dodorado-temple")
    tex = draw_mat(temple, clean_style())
    outer = temple.tracks["outer"]
    drift = outer.drift[0].hexes[0]
    charm = outer.charms[0]
    c = outer.centres()
    # off the hex centre (the roll number / star sit there)
    assert np.max(np.abs(_at(tex, c[drift] + [0, 13]) - HEX_FILL["drift"])) < 25
    assert np.max(np.abs(_at(tex, c[charm] + [0, 15]) - HEX_FILL["charm"])) < 25
    jungle = load_board("dodo-dash/dodorado-jungle")
    tj = draw_mat(jungle, clean_style())
    trap = jungle.tracks["outer"].traps[0]
    assert np.max(np.abs(_at(tj, jungle.tracks["outer"].centres()[trap] + [12, 0]) - HEX_FILL["trap"])) < 25
    morris = load_board("morris/waterfall")
    tm = draw_mat(morris, clean_style())
    for stone in morris.stones[:-1]:
        assert np.max(np.abs(_at(tm, stone.center) - STONE_COLOURS[stone.colour])) < 25, stone


def test_tint_changes_the_print_only():
    board = load_board("grid/plain-grid")
    plain = draw_mat(board, clean_style())
    tinted = draw_mat(board, clean_style(mat_tint=(1.2, 0.8, 1.0)))
    far_table = (-100.0, 200.0)  # on the table, left of the mat
    assert np.array_equal(_at(plain, far_table), _at(tinted, far_table))
    white_cell = (25.0, 25.0)  # cell 0-0 is the light one
    assert _at(tinted, white_cell)[1] < _at(plain, white_cell)[1] - 20
    pad = board.markers.items[0].center
    quiet = (pad[0] - board.markers.size_mm / 2 - 2.0, pad[1])  # in the white quiet zone
    assert np.array_equal(_at(plain, quiet), _at(tinted, quiet))


def test_levels_halve_and_keep_the_pixel_convention():
    board = load_board("morris/waterfall")
    tex = draw_mat(board, clean_style())
    for k in range(1, len(tex.levels)):
        assert tex.scales[k] == tex.scales[k - 1] / 2
        assert tex.levels[k].shape[0] == tex.levels[k - 1].shape[0] // 2
    # a marker's centre sits at the same mat point on every level
    m = board.markers.items[0]
    for k in range(len(tex.levels)):
        u, v = _tex_px(tex, [m.center], k)[0]
        assert 0 <= u < tex.levels[k].shape[1] and 0 <= v < tex.levels[k].shape[0]
