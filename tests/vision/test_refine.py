"""Refinement to the base centre: discs drawn by an independent mini-renderer (supersampled
cylinders through the true camera), at tilts where the top face's parallax is several mm."""

import math

import cv2
import numpy as np
import pytest

from calibration.transform import MatTransform
from sim.raster import fill_convex
from vision.refine import refine_discs

def camera(tilt_deg, yaw_deg=0.0, height=800.0, size=(640, 480), f=620.0, target=(457, 305)):
    a, b = math.radians(tilt_deg), math.radians(yaw_deg)
    back = np.array([-math.sin(b), math.cos(b), 0.0]) * height * math.tan(a)
    C = np.array([target[0], target[1], 0.0]) + back + np.array([0, 0, -height])
    z = np.array([target[0], target[1], 0.0]) - C
    z /= np.linalg.norm(z)
    x = np.array([math.cos(b), math.sin(b), 0.0])
    x -= z * np.dot(x, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    R = np.vstack([x, y, z])
    K = np.array([[f, 0, (size[0] - 1) / 2], [0, f, (size[1] - 1) / 2], [0, 0, 1.0]])
    return MatTransform.from_pose(K, None, R, -R @ C, size)


def draw_discs(T, discs, rng):
    """discs: list of (x, y, r, h, top BGR). Returns (frame, empty mat): a textured mat with a
    printed line, and the discs painted by exact coverage (sim.raster) as upright cylinders."""
    w, h = T.image_size
    mat = np.zeros((h, w, 3), np.uint8)
    mat[:] = (70, 120, 60)
    mat = np.clip(mat.astype(int) + rng.integers(-4, 4, (h, w, 1)), 0, 255).astype(np.uint8)
    line = np.round(T.mat_to_image(np.array([[0, 200.0], [914, 200.0]])) * 16).astype(np.int32)
    cv2.line(mat, tuple(line[0]), tuple(line[1]), (230, 230, 230), 3, cv2.LINE_AA, shift=4)
    img = mat.copy()
    ang = np.linspace(0, 2 * np.pi, 256, endpoint=False)
    for x, y, r, hh, colour in discs:
        ring = np.stack([x + r * np.cos(ang), y + r * np.sin(ang)], 1)
        base = T.project_3d(np.column_stack([ring, np.zeros(len(ang))]))
        top = T.project_3d(np.column_stack([ring, -hh * np.ones(len(ang))]))
        fill_convex(img, cv2.convexHull(np.float32(np.vstack([base, top]))).reshape(-1, 2), (40, 70, 110))
        fill_convex(img, top, colour)
        # printed art inside the top face: a light ring and a dark emblem
        fill_convex(img, T.project_3d(np.column_stack([x + 0.45 * r * np.cos(ang), y + 0.45 * r * np.sin(ang), -hh * np.ones(len(ang))])), (245, 245, 245))
    def noisy(im, seed):
        g = np.random.default_rng(seed)
        return np.clip(im.astype(np.float32) + g.normal(0, 2.0, im.shape), 0, 255).astype(np.uint8)
    return noisy(img, 1), noisy(mat, 2)


@pytest.mark.parametrize("use_background", [True, False])
@pytest.mark.parametrize("tilt,yaw", [(0, 0), (30, 20), (50, 135), (60, 270)])
def test_base_centre_sub_mm_despite_parallax(tilt, yaw, use_background):
    rng = np.random.default_rng(tilt * 7 + int(yaw))
    T = camera(tilt, yaw)
    truth = np.array([[300.0, 250.0], [520.0, 330.0], [430.0, 420.0], [610.0, 220.0]])
    radii = np.array([19.0, 25.5, 14.5, 19.0])
    colours = [(200, 200, 230), (60, 60, 220), (230, 180, 60), (220, 220, 220)]
    img, empty = draw_discs(T, [(x, y, r, 9.0, c) for (x, y), r, c in zip(truth, radii, colours)], rng)
    rough = truth + rng.uniform(-4, 4, truth.shape)  # a detector's box centre is a few mm off
    res = refine_discs(img, T, rough, radii, 9.0, background=empty if use_background else None)
    err = np.linalg.norm(res.xy - truth, axis=1)
    parallax = np.linalg.norm(T.image_to_mat(T.mat_to_image(truth, 9.0)) - truth, axis=1)
    assert res.ok.all()
    assert np.median(err) < 0.35, (err, parallax)
    assert err.max() < 0.8, (err, parallax)
    # σ is honest (covers the error) and tight (well under an image pixel)
    assert np.all(err <= 3 * res.sigma)
    assert np.all(res.sigma > 0) and np.all(res.sigma < 0.6 * T.mm_per_px(truth))
    if tilt >= 30:  # the naive answer (top centre read on the mat plane) would be mm off
        assert parallax.min() > 3.0


def test_empty_in_empty_out():
    T = camera(0)
    res = refine_discs(np.zeros((480, 640, 3), np.uint8), T, np.zeros((0, 2)), [], [])
    assert res.xy.shape == (0, 2) and res.sigma.shape == (0,)


def test_nothing_there_is_not_ok():
    T = camera(20)
    img = np.full((480, 640, 3), 90, np.uint8)
    res = refine_discs(img, T, [[400, 300]], 19.0, 9.0)
    assert not res.ok[0]


def test_sigma_is_honest_when_the_rim_is_hard_to_see():
    """A near-white disc lying on the white printed line: its rim is invisible where it crosses the
    line, so its σ must be larger than that of the same disc on plain mat, and cover its error."""
    rng = np.random.default_rng(5)
    T = camera(0)
    truth = np.array([[610.0, 219.5], [610.0, 330.0]])
    img, empty = draw_discs(T, [(x, y, 19.0, 9.0, (225, 225, 225)) for x, y in truth], rng)
    res = refine_discs(img, T, truth + 1.5, 19.0, 9.0, background=empty)
    err = np.linalg.norm(res.xy - truth, axis=1)
    assert res.sigma[0] > res.sigma[1]
    assert np.all(err < 3 * res.sigma + 0.1)
