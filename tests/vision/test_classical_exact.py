"""The classical detector's speed-ups are exact: the foreground masks, the peaks' order and the
mask's growth in mm are what the straightforward forms gave."""

import cv2
import numpy as np

from .test_refine_exact import lens_camera, scene


def test_foreground_masks_equal_the_straightforward_difference():
    from vision.detect import Background

    T = lens_camera(35, 10)
    img, empty, _ = scene(T, seed=4)
    img[40:90, 50:200] = (250, 250, 250)  # a pale patch: brighter than the mat (the lift)
    img[300:340, 100:160] = (img[300:340, 100:160] * 0.4).astype(np.uint8)  # a shadow
    bg = Background(empty, 1.5, scale=0.5)
    floors = (0.35, 0.5)
    got = bg.foreground_small_floors(img, 20.0, floors)
    f = bg._shrink(img).astype(np.float32)
    ratio = (f * bg._b).sum(axis=2) * bg._inv_bb
    lift = (f - bg._b + 1.0).max(axis=2) * bg.lift_gain
    for floor, mask in zip(floors, got):
        d = f - np.clip(ratio, floor, 1.15)[..., None] * bg._b
        diff = np.maximum(np.sqrt((d * d).sum(axis=2)), lift)
        _, ref = cv2.threshold(np.clip(diff, 0, 255).astype(np.uint8), 20.0, 255, cv2.THRESH_BINARY)
        assert np.array_equal(mask, ref)
    assert 0 < np.count_nonzero(got[0]) < got[0].size


def test_peaks_in_the_order_of_nonzero():
    # classical_candidates takes the peaks from cv2.findNonZero: the same points, in the same order
    rng = np.random.default_rng(3)
    for shape in ((40, 57), (300, 401)):
        peaks = rng.random(shape) > 0.97
        found = cv2.findNonZero(peaks.view(np.uint8))
        xs, ys = np.reshape(found, (-1, 2)).T
        ry, rx = np.nonzero(peaks)
        assert np.array_equal(xs, rx) and np.array_equal(ys, ry)
    assert cv2.findNonZero(np.zeros((5, 5), np.uint8)) is None


def test_mask_growth_in_mm_for_all_peaks_at_once():
    # ... and the local scale of every peak in one call: each the scale of that point alone
    T = lens_camera(40, 20)
    pts = np.random.default_rng(4).uniform(-40, 900, (60, 2))
    for h in (0.0, 9.0):
        one = np.array([T.mm_per_px(p[None], h)[0] for p in pts])
        assert np.array_equal(T.mm_per_px(pts, h), one)
