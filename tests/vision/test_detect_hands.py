"""Hands and arms in the classical path: a big part of the empty-mat difference is a hand, its size
measured in mat mm² at its own place as well as at the board's median scale."""

import dataclasses

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


def _arm_to(img, T, xy_mm, reach_mm: float, width_mm: float = 40.0, colour=(120, 160, 220)):
    """``img`` with a flat skin-coloured arm from the image's left border, level with the mat point
    ``xy_mm``, to ``reach_mm`` (at that point's scale) short of it."""
    out = img.copy()
    c = T.mat_to_image(np.asarray([xy_mm], float), 0.0)[0]
    s = float(T.mm_per_px(np.asarray([xy_mm], float))[0])
    half, end = 0.5 * width_mm / s, c[0] - reach_mm / s
    cv2.rectangle(out, (0, int(round(c[1] - half))), (int(round(end)), int(round(c[1] + half))), colour, -1)
    return out


def _one_disc():
    """(transform, the disc's spec, its place x, y mat mm, the frame, the empty mat): a medium disc alone
    on the mat, tilt 20°, no shadows."""
    from sim.scene import PieceState

    cam = framed_camera(np.random.default_rng(4), BOARD, tilt=(20.0, 20.0))
    T = cam.transform()
    spec = load_specs().of_game("dino-dunk")["disc-medium"]
    x, y = 450.0, 300.0
    disc = PieceState("away:1", "disc-medium", x, y, radius=spec.radius, height=spec.height, attributes={"team": "away"})
    image = render_scene(BOARD, Scene("dino-dunk", BOARD.ref, [disc]), cam, clean_style(), 1).image
    empty = render_scene(BOARD, Scene("dino-dunk", BOARD.ref, []), cam, clean_style(), 2).image
    return T, spec, x, y, image, empty


def test_a_disc_the_fingers_touch_is_found_and_the_arm_alone_is_no_piece():
    from vision.detect import Detector

    T, spec, x, y, image, empty = _one_disc()
    touched = _arm_to(image, T, (x, y), reach_mm=spec.radius - 4.0)  # the fingertips 4 mm over its rim
    arm_alone = _arm_to(empty, T, (x, y), reach_mm=spec.radius - 4.0)

    def found(img, distance):
        cfg = dataclasses.replace(DetectConfig.load(), hand_piece_distance=distance)
        det = Detector(BOARD, T, specs=load_specs(), background=empty, config=cfg, method="classical", attributes=False)
        obs = det(img, 0, 0.0)
        assert len(det.occluders) == 1  # the arm is seen as a hand either way
        return obs

    assert len(found(touched, 0.0)) == 0  # merged with the arm's blob: taken for a part of the hand
    obs = found(touched, 60.0)
    assert len(obs) == 1 and obs.kind[0] == "disc-medium"
    # the hand's own pixels are left out of the fit (with them the outline slid 2.5 mm toward the arm)
    assert np.hypot(obs.xy[0, 0] - x, obs.xy[0, 1] - y) < 1.0
    assert len(found(arm_alone, 60.0)) == 0  # the arm's rim (skin blurred into the mat) is no piece


def test_a_part_of_a_hands_blob_near_the_skins_colour_is_a_piece_over_a_whole_top_only():
    """A red disc by a brown hand: its pixels lie 25-45 grey levels from the skin's colour (brightness
    discounted), under the 60 a part of the hand's blob needs alone; over half a top face's worth or
    more they are a piece (less the px where the blur mixes it with the skin). Specks of that
    difference in the skin (its grain, a knuckle's shade) and the hand's rim over the mat are none."""
    from vision.detect import _not_hand

    rng = np.random.default_rng(3)
    h, w = 60, 90
    skin, mat = np.array([120.0, 160.0, 220.0]), np.array([60.0, 140.0, 60.0])
    frame = np.tile(mat, (h, w, 1))
    blob = np.zeros((h, w), bool)
    blob[15:45, :70] = True  # an arm from the left border
    frame[blob] = skin * rng.uniform(0.9, 1.1, (int(blob.sum()), 1))  # lit unevenly: brightness only
    yy, xx = np.mgrid[:h, :w]
    disc = (yy - 30) ** 2 + (xx - 62) ** 2 <= 7 ** 2  # a disc the fingertips reach (14 px across)
    blob |= disc
    red = np.array([80.0, 100.0, 205.0])  # 43 from the skin, brightness discounted
    frame[disc] = red
    specks = [(20, 10), (38, 30), (25, 45)]  # 2 × 2 specks the same distance off the skin
    for y, x in specks:
        frame[y:y + 2, x:x + 2] = red
    frame = np.clip(frame + rng.normal(0, 2.0, frame.shape), 0, 255).astype(np.uint8)
    labels = blob.astype(np.int32)
    empty = np.tile(mat, (h, w, 1)).astype(np.uint8)
    top_px = 0.5 * np.pi * 7 ** 2

    assert _not_hand(frame, empty, labels, [1], 60.0, 30.0) is None  # the skin's test alone: all hand
    out = _not_hand(frame, empty, labels, [1], 60.0, 30.0, 20.0, top_px)
    assert out is not None
    kept = out > 0
    assert kept[disc].mean() > 0.5 and kept[30, 62]  # the disc's inside
    assert not kept[~disc].any()  # no speck, no skin, no rim
    # half the top face is the least: a disc of 4 px radius (50 px) is not enough at 7 px's half (77 px)
    small = (yy - 30) ** 2 + (xx - 62) ** 2 <= 4 ** 2
    frame2 = frame.copy()
    frame2[disc & ~small] = np.clip(skin + rng.normal(0, 2.0, 3), 0, 255).astype(np.uint8)
    assert _not_hand(frame2, empty, labels, [1], 60.0, 30.0, 20.0, top_px) is None


def test_an_arm_over_a_table_without_shadows_is_no_light():
    """The table's light is read from the mat round the round pieces: an arm reaching over the mat
    to a disc is cut from the pieces' mask, and is no shade of the mat either (read as one, it made a
    light on a table without shadows, whose predicted shade slid the disc's fit)."""
    from vision.detect import Detector

    T, spec, x, y, image, empty = _one_disc()
    cfg = dataclasses.replace(DetectConfig.load(), hand_piece_distance=60.0)
    assert cfg.shadow_light
    for reach in (spec.radius - 4.0, spec.radius + 15.0):  # the fingers over its rim, and short of it
        det = Detector(BOARD, T, specs=load_specs(), background=empty, config=cfg, method="classical", attributes=False)
        obs = det(_arm_to(image, T, (x, y), reach_mm=reach), 0, 0.0)
        assert len(det.occluders) == 1 and len(obs) == 1
        assert det.light is None


def test_mix_residual_is_the_least_distance_to_the_mixes():
    """Against a brute-force search of a fine grid of (α, g, k) (as good or worse), and the cases the
    hands need: skin lit or shaded, skin's rim over a shaded mat, a dark or another colour's piece."""
    from vision.detect import _box_residual, _mix_residual

    rng = np.random.default_rng(0)
    s = np.array([120.0, 160.0, 220.0])
    f, b = rng.uniform(0, 255, (300, 3)), rng.uniform(0, 255, (300, 3))
    # one box: a in [0.2, 1.3], c in [0.1, 0.9]
    got = _box_residual(f, s, b, 0.2, 1.3, 0.1, 0.9)
    a, c = np.linspace(0.2, 1.3, 221), np.linspace(0.1, 0.9, 161)
    d = f[:, None, None, :] - a[None, :, None, None] * s - c[None, None, :, None] * b[:, None, None, :]
    grid = np.sqrt((d ** 2).sum(-1)).min(axis=(1, 2))
    assert np.all(got <= grid + 1e-9) and np.all(grid - got < 2.5)
    # the mixes: α on the same 11 steps, g and k on fine grids
    got = _mix_residual(f, s, b)
    best = np.full(len(f), np.inf)
    for alpha in np.linspace(0, 1, 11):
        ag = alpha * np.linspace(0.5, 1.5, 101)
        ck = (1 - alpha) * np.linspace(0.2, 1.15, 96)
        d = f[:, None, None, :] - ag[None, :, None, None] * s - ck[None, None, :, None] * b[:, None, None, :]
        best = np.minimum(best, np.sqrt((d ** 2).sum(-1)).min(axis=(1, 2)))
    assert np.all(got <= best + 1e-9) and np.all(best - got < 2.5)
    mat = np.array([60.0, 140.0, 60.0])
    explained = np.array([0.7 * s, 1.3 * s, 0.5 * s + 0.5 * 0.6 * mat, 0.8 * mat])
    assert _mix_residual(explained, s, np.tile(mat, (4, 1))).max() < 1e-6
    pieces = np.array([[160.0, 50.0, 150.0], [235.0, 235.0, 235.0]])  # purple, white
    assert _mix_residual(pieces, s, np.tile(mat, (2, 1))).min() > 40.0
