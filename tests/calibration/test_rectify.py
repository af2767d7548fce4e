"""Top-down views: the rectified image puts mat points at the promised pixels (checked by finding
the markers in it), distortion is handled, the board drawing lands where the board says."""

import cv2
import numpy as np
import pytest

from calibration.board import load_board
from calibration.config import load_config
from calibration.errors import ImageError
from calibration.rectify import (OVERLAY, board_template, draw_board, rectified_affine, rectified_overlay,
                                 rectified_size, rectify_image)
from calibration.register import detect_markers
from calibration.synthetic import MatScene
from calibration.transform import apply_homography

CFG = load_config()
BOARD = load_board("dino-dunk/tropic-turf")
SCENE = None


def _scene():
    global SCENE
    if SCENE is None:
        SCENE = MatScene(BOARD)
    return SCENE


@pytest.mark.parametrize("mm_per_px, margin", [(1.0, 90.0), (0.5, 100.0), (1.5, 110.0)])
def test_markers_land_where_the_board_says(mm_per_px, margin):
    """Rectify a tilted, distorted view with its true transform, then find the markers in the
    top-down view: their corners are at board mm mapped by the rectified affine, to within 0.6 px
    of the coarser of the camera image and the view."""
    dist = np.array([-0.1, 0.02, 0.0, 0.0, 0.0])
    view = _scene().view((1280, 720), 35, 60, dist=dist, noise_sigma=2, blur_sigma=0.6)
    top = rectify_image(view.image, view.transform, BOARD, mm_per_px, margin)
    assert top.shape[:2][::-1] == rectified_size(BOARD, mm_per_px, margin)
    det = detect_markers(top, BOARD.markers.dictionary, CFG.detector)
    assert sorted(det.ids.tolist()) == [0, 1, 2, 3]
    A = rectified_affine(mm_per_px, margin)
    truth = BOARD.markers.corners_mm()
    for mid, corners in zip(det.ids, det.corners):
        err_mm = np.linalg.norm(corners - apply_homography(A, truth[int(mid)]), axis=1) * mm_per_px
        # a fraction of a pixel of whichever is coarser: the camera image there, or the view
        source = float(view.transform.mm_per_px(truth[int(mid)].mean(axis=0, keepdims=True))[0])
        assert err_mm.max() < 0.6 * max(source, mm_per_px), (mid, err_mm, source)


def test_rectified_affine_puts_the_origin_at_the_margin():
    A = rectified_affine(0.5, 60.0)
    np.testing.assert_allclose(apply_homography(A, [[0, 0], [914, 610]]), [[120, 120], [1948, 1340]])


def test_overlay_draws_the_board_on_the_mat():
    view = _scene().view((1280, 720), 20, 90)
    plain = rectify_image(view.image, view.transform, BOARD, 1.0, 60.0)
    drawn = rectified_overlay(view.image, view.transform, BOARD, 1.0, 60.0)
    changed = np.any(plain != drawn, axis=2)
    A = rectified_affine(1.0, 60.0)
    # the foul line and the mat outline are drawn where the board puts them
    for point in ([265, 300], [0, 300], [457, 0]):
        x, y = np.round(apply_homography(A, [point])[0]).astype(int)
        assert changed[y - 2:y + 3, x - 2:x + 3].any(), point
    # and the picture is mostly the mat itself, not paint
    assert changed.mean() < 0.8


def test_draw_board_on_every_shipped_board():
    from calibration.board import list_boards

    for ref in list_boards():
        board = load_board(ref)
        img = np.zeros((400, 600, 3), np.uint8)
        scale = min(560 / board.length_mm, 360 / board.width_mm)
        to_px = np.array([[scale, 0, 20], [0, scale, 20], [0, 0, 1.0]])
        draw_board(img, board, to_px, OVERLAY)
        assert img.any(), ref
        assert board_template(board, 4.0).std() > 0, ref


def test_bad_scale():
    view = _scene().view((640, 480), 0, 90)
    with pytest.raises(ImageError, match="must be positive"):
        rectify_image(view.image, view.transform, BOARD, 0.0)
    with pytest.raises(ImageError, match="too large"):
        rectify_image(view.image, view.transform, BOARD, 0.01)


def test_height_plane():
    """A plane 9 mm above the mat (disc tops) rectifies with that plane's homography."""
    view = _scene().view((1280, 720), 40, 60)
    t = view.transform
    top0 = rectify_image(view.image, t, BOARD, 1.0, 60.0, height_mm=0.0)
    top9 = rectify_image(view.image, t, BOARD, 1.0, 60.0, height_mm=9.0)
    assert not np.array_equal(top0, top9)
    # a point drawn at (457, 305) at 9 mm height appears at (457, 305) in the height-9 view
    img = view.image.copy()
    px = t.mat_to_image([[457.0, 305.0]], height_mm=9.0)[0]
    cv2.circle(img, tuple(np.round(px).astype(int)), 3, (255, 0, 255), -1)
    top = rectify_image(img, t, BOARD, 1.0, 60.0, height_mm=9.0)
    red = (top[:, :, 2] > 200) & (top[:, :, 1] < 60) & (top[:, :, 0] > 200)
    ys, xs = np.nonzero(red)
    assert abs(xs.mean() - (457 + 60)) < 1.5 and abs(ys.mean() - (305 + 60)) < 1.5
