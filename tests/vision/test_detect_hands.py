"""Hands and arms in the classical path: a big part of the empty-mat difference is a hand, its size
measured in mat mm² at its own place as well as at the board's median scale."""

import cv2
import numpy as np
import pytest

from calibration.board import load_board
from sim.render import render_scene
from sim.scene import Scene
from sim.style import clean_style
from vision.bench import framed_camera
from vision.detect import Background, DetectConfig, classical_candidates, round_kinds
from calibration.specs import load_specs

BOARD = load_board("dino-dunk/tropic-turf")


@pytest.fixture(scope="module")
def view():
    """(empty mat image, transform) of a steeply tilted framed camera (the board's scale varies
    about twofold across the view)."""
    cam = framed_camera(np.random.default_rng(4), BOARD, tilt=(50.0, 50.0))
    empty = render_scene(BOARD, Scene("dino-dunk", BOARD.ref, []), cam, clean_style(), 2).image
    return empty, cam.transform()


def _with_patch(empty, T, corners_mm):
    """The empty mat with a flat magenta quad painted over the mat-plane polygon ``corners_mm``."""
    img = empty.copy()
    px = T.mat_to_image(np.asarray(corners_mm, float), 0.0)
    cv2.fillPoly(img, [np.round(px).astype(np.int32)], (240, 60, 230))
    return img


def _near_and_far(T):
    """The mat points of the board's corners nearest to and farthest from the camera (by scale)."""
    c = np.asarray(BOARD.corners_mm(), float)
    sc = T.mm_per_px(c)
    return c[int(np.argmin(sc))], c[int(np.argmax(sc))], float(np.median(sc)), sc


def _occluders(img, empty, T, local: bool):
    cfg = DetectConfig(hand_local_scale=local)
    kinds = round_kinds(load_specs(), "dino-dunk")
    return classical_candidates(img, T, BOARD, Background(empty), kinds, cfg).occluders


def _rect_towards_centre(corner, w, h):
    centre = np.mean(np.asarray(BOARD.corners_mm(), float), axis=0)
    sx, sy = np.sign(centre - corner)
    x0, y0 = corner + np.array([sx, sy]) * 20.0
    return [(x0, y0), (x0 + sx * w, y0), (x0 + sx * w, y0 + sy * h), (x0, y0 + sy * h)]


def test_a_card_near_the_camera_is_no_hand_when_measured_at_its_place(view):
    empty, T = view
    near, _, median, sc = _near_and_far(T)
    assert sc.max() / sc.min() > 1.6  # (the view is oblique enough for the test to mean something)
    card = _rect_towards_centre(near, 70.0, 100.0)  # 7000 mm², under the hand size (12000 mm²)
    local = float(T.mm_per_px(np.mean(card, axis=0)[None])[0])
    assert 7000.0 * (median / local) ** 2 > DetectConfig().hand_area_mm2  # at the median scale it reads as a hand
    img = _with_patch(empty, T, card)
    assert len(_occluders(img, empty, T, local=False)) == 1
    assert len(_occluders(img, empty, T, local=True)) == 0


def test_an_arm_stays_a_hand_near_the_camera_and_far_from_it(view):
    empty, T = view
    near, far, _, _ = _near_and_far(T)
    for corner in (near, far):
        arm = _rect_towards_centre(corner, 120.0, 260.0)  # 31200 mm²
        img = _with_patch(empty, T, arm)
        assert len(_occluders(img, empty, T, local=True)) == 1, corner
