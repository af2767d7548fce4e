"""The classical path's size class, fixed blocks and the mat's edge: discs the colour of the mat
(the empty-mat difference sees only their print, a size or two too small), Dino Dunk's backboards
(not pieces), a disc that slid past the mat's edge. Frames from an independent mini-renderer
(exact-coverage cylinders through the true camera)."""

import cv2
import numpy as np
import pytest

from calibration.board import load_board
from calibration.specs import load_specs
from sim.raster import fill_convex
from vision.detect import Detector, piece_kinds, static_blocks
from vision.refine import RefineConfig, radius_choice

from .test_refine import camera

BOARD = load_board("dino-dunk/tropic-turf")
SPECS = load_specs()
MAT = (70, 120, 60)
RADII = [9.5, 14.5, 19.0, 25.5]  # ball, small, medium, large


def draw(T, discs, boxes=(), seed=0):
    """discs: (x, y, r, h, top BGR, side BGR) upright cylinders with a light print (0.3 r) on the
    top; boxes: (x0, y0, x1, y1, h, BGR) upright blocks. Returns (frame, empty mat), BGR."""
    w, h = T.image_size
    rng = np.random.default_rng(seed)
    mat = np.zeros((h, w, 3), np.uint8)
    mat[:] = MAT
    mat = np.clip(mat.astype(int) + rng.integers(-3, 4, (h, w, 1)), 0, 255).astype(np.uint8)
    img = mat.copy()
    for x0, y0, x1, y1, hh, colour in boxes:
        foot = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
        pts = np.vstack([np.column_stack([foot, np.zeros(4)]), np.column_stack([foot, np.full(4, -hh)])])
        fill_convex(img, cv2.convexHull(np.float32(T.project_3d(pts))).reshape(-1, 2), colour)
    ang = np.linspace(0, 2 * np.pi, 256, endpoint=False)
    for x, y, r, hh, top, side in discs:
        ring = np.stack([x + r * np.cos(ang), y + r * np.sin(ang)], 1)
        base = T.project_3d(np.column_stack([ring, np.zeros(len(ang))]))
        up = T.project_3d(np.column_stack([ring, -hh * np.ones(len(ang))]))
        fill_convex(img, cv2.convexHull(np.float32(np.vstack([base, up]))).reshape(-1, 2), side)
        fill_convex(img, up, top)
        fill_convex(img, T.project_3d(np.column_stack([x + 0.3 * r * np.cos(ang), y + 0.3 * r * np.sin(ang),
                                                       -hh * np.ones(len(ang))])), (235, 235, 235))

    def noisy(im, s):
        return np.clip(im.astype(np.float32) + np.random.default_rng(s).normal(0, 2.0, im.shape), 0, 255).astype(np.uint8)

    return noisy(img, seed + 1), noisy(mat, seed + 2)


# a green disc on the green mat: its top differs from the mat by ~15 grey levels (under the
# difference's threshold), its side a little darker
TOP, SIDE = (55, 132, 50), (45, 98, 40)


@pytest.mark.parametrize("true_index", [1, 2, 3])
def test_radius_choice_picks_the_size_of_a_disc_the_colour_of_the_mat(true_index):
    T = camera(35, 20)
    xy = np.array([450.0, 300.0])
    img, empty = draw(T, [(*xy, RADII[true_index], 9.0, TOP, SIDE)], seed=true_index)
    best, scores = radius_choice(img, empty, T, xy + [1.5, -1.0], RADII, 9.0, RefineConfig())
    assert best == true_index, scores
    assert scores.shape == (4,) and np.all(np.isfinite(scores))


def test_classical_detector_sizes_and_places_low_contrast_discs():
    T = camera(30, 10)
    # the difference sees only the print (0.3 r across): the mask makes them balls or small discs
    # (a small disc's print is under the least blob the mask takes for a piece: not in this test)
    rows = [(300.0, 250.0, 25.5, "disc-large"), (480.0, 330.0, 19.0, "disc-medium"),
            (620.0, 240.0, 25.5, "disc-large"), (420.0, 430.0, 19.0, "disc-medium")]
    img, empty = draw(T, [(x, y, r, 9.0, TOP, SIDE) for x, y, r, _ in rows], seed=7)
    det = Detector(BOARD, T, specs=SPECS, background=empty, method="classical", attributes=False)
    obs = det(img)
    assert len(obs) == len(rows), (obs.xy, obs.kind)
    for x, y, _, kind in rows:
        d = np.linalg.norm(obs.xy - [x, y], axis=1)
        i = int(np.argmin(d))
        assert obs.kind[i] == kind, (kind, obs.kind[i])
        assert d[i] < 1.0, (kind, d[i])
        assert d[i] <= 3 * obs.sigma[i]


def test_backboards_are_fixed_blocks_not_pieces():
    T = camera(30, 0, target=(200, 305))
    kinds = piece_kinds(SPECS, "dino-dunk")
    blocks = static_blocks(BOARD, kinds, T)
    assert len(blocks) == 2 and all(b.shape[1] == 2 and len(b) >= 4 for b in blocks)
    region = BOARD.regions["backboard-home"].params  # x0, y0, x1, y1 mat mm
    wood = (40, 60, 110)
    img, empty = draw(T, [(200.0, 200.0, 19.0, 9.0, (200, 60, 200), (140, 40, 140))],
                      boxes=[(*region, kinds["backboard"].height, wood)], seed=3)
    obs = Detector(BOARD, T, specs=SPECS, background=empty, method="classical", attributes=False)(img)
    assert len(obs) == 1 and np.linalg.norm(obs.xy[0] - [200.0, 200.0]) < 1.0, (obs.xy, obs.kind)


def test_a_disc_past_the_mat_edge_is_found():
    T = camera(20, 0, target=(457, 560))
    xy = np.array([457.0, BOARD.width_mm + 19.0])  # slid off the long edge, still on the table
    img, empty = draw(T, [(*xy, 19.0, 9.0, (200, 60, 200), (140, 40, 140))], seed=5)
    assert 0 < T.mat_to_image(xy[None], 9.0)[0, 1] < T.image_size[1]
    obs = Detector(BOARD, T, specs=SPECS, background=empty, method="classical", attributes=False)(img)
    assert len(obs) == 1 and obs.kind[0] == "disc-medium"
    assert np.linalg.norm(obs.xy[0] - xy) < 1.0
