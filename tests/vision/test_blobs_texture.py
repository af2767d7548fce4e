"""The figures' mask of the non-round path: a grey figure that only darkens the mat, as a shadow
does, is told from a shadow by the mat's print (a shadow keeps it, the figure replaces it)."""

import dataclasses

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.blobs import BlobConfig
from vision.detect import Background, DetectConfig, Detector

H, W = 240, 320
MAT = np.array([120.0, 165.0, 195.0])  # BGR: a pale warm mat


def _mat(seed=0) -> np.ndarray:
    """A printed mat: its colour, dark lines (as the hexes' outlines) and grain."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:H, 0:W]
    lines = ((xx % 14) < 2) | ((yy % 14) < 2)
    pattern = 1.0 - 0.4 * lines + 0.03 * rng.standard_normal((H, W))
    return np.clip(MAT[None, None, :] * pattern[..., None], 0, 255).astype(np.uint8)


def _disc(cx, cy, r):
    yy, xx = np.mgrid[0:H, 0:W]
    return (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r


def _scene(mat):
    """The mat with a soft shadow (gain 0.65) and a grey figure (what the plain mask takes for a
    shadow)."""
    img = mat.astype(np.float32)
    shadow = cv2.GaussianBlur(_disc(80, 120, 30).astype(np.float32), (0, 0), 2.0)
    img *= (1.0 - 0.35 * shadow)[..., None]
    return np.clip(_grey(img, 230, 120), 0, 255).astype(np.uint8), _disc(80, 120, 24), _disc(230, 120, 9)


def _grey(img, cx, cy, r=11):
    """A small grey figure seen from above: about a shadow's darkness, nearly the mat's hue, a lit
    and a dark side."""
    yy, xx = np.mgrid[0:H, 0:W]
    body = _disc(cx, cy, r)
    img[body & (xx < cx)] = 0.78 * MAT + np.array([9.0, 0.0, -9.0])
    img[body & (xx >= cx)] = 0.58 * MAT + np.array([9.0, 0.0, -9.0])
    return img


def _up(bg, small):
    return bg.foreground(None, 20.0, small, (H, W, 3)) > 0


def test_a_grey_patch_that_passes_for_shadow_is_held_where_the_print_is_lost_a_shadow_is_not():
    mat = _mat()
    frame, shadow_in, grey_in = _scene(mat)
    bg = Background(mat, 1.5, scale=0.5)
    plain, extra = bg.texture_small(frame, 20.0, 0.5, 8.0, 8.0)
    assert not (plain & extra).any()  # the extra pixels are those the plain mask lacks
    plain, ext = _up(bg, plain), _up(bg, plain | extra)
    # the plain mask is the figures' mask as before (the same as foreground_small_floors')
    assert np.array_equal(plain, _up(bg, bg.foreground_small_floors(frame, 20.0, (0.5,))[0]))
    assert plain[grey_in].mean() < 0.3  # the grey patch passes for a shadow
    assert ext[grey_in].mean() > 0.5    # but it does not keep the print
    assert ext[shadow_in].mean() < 0.02 and plain[shadow_in].mean() < 0.02


def test_without_the_print_cue_nothing_is_added():
    mat = _mat(1)
    frame, _, _ = _scene(mat)
    bg = Background(mat, 1.5, scale=0.5)
    assert bg.texture_small(frame, 20.0, 0.5, 8.0, 8.0)[1].any()
    assert not bg.texture_small(frame, 20.0, 0.5, 8.0, 1e9)[1].any()


class _Board:
    def corners_mm(self):
        return np.array([[0.0, 0.0], [640.0, 0.0], [640.0, 480.0], [0.0, 480.0]])


class _Flat:
    def mm_per_px(self, mm, h=0.0):
        return np.full(len(np.asarray(mm).reshape(-1, 2)), 2.0)


def _detector(mat, **blob):
    det = object.__new__(Detector)  # only what _texture_mask reads
    det.config = DetectConfig()
    det.blob_config = BlobConfig(**{"texture_low": 8.0, "texture_residual": 8.0, "texture_open": 5, **blob})
    det.background = Background(mat, det.config.blur_px, scale=0.5)
    det.board, det.transform = _Board(), _Flat()
    return det


def test_the_figures_mask_gains_the_grey_patch_but_not_near_what_it_had_removed():
    mat = _mat(2)
    frame, shadow_in, grey_in = _scene(mat)
    # a hand: a large blob of another colour at the left, which the figures' mask had removed
    hand = np.zeros((H, W), bool)
    hand[150:, :60] = True
    frame[hand] = (90, 140, 230)
    frame = np.clip(_grey(frame.astype(np.float32), 72, 200), 0, 255).astype(np.uint8)  # a second beside the hand
    near_hand = _disc(72, 200, 11)
    det = _detector(mat)
    r = det.config.hand_margin_mm / 2.0  # px (2 mm per px)
    dist = cv2.distanceTransform((~hand).astype(np.uint8), cv2.DIST_L2, 5)
    near_hand &= dist <= r - 1  # its part within the hand's margin
    assert near_hand.sum() > 50
    bg = det.background
    dark = _up(bg, bg.foreground_small_floors(frame, det.config.diff_threshold, (0.5,))[0])
    dark = np.where(dark & ~hand, 255, 0).astype(np.uint8)
    out = det._texture_mask(frame, dark) > 0
    assert np.array_equal(out & (dark > 0), dark > 0)  # nothing of the mask is lost
    assert (dark[grey_in] > 0).mean() < 0.05 and out[grey_in].mean() > 0.2  # opened: its core
    assert out[shadow_in].mean() < 0.02
    assert not out[near_hand].any()
    assert not out[hand].any()
    # no print cue (texture_residual out of reach): the mask unchanged
    det_off = _detector(mat, texture_residual=1e9)
    assert np.array_equal(det_off._texture_mask(frame, dark), dark)
    # without the hand's margin the figure beside it would be taken
    det.config = dataclasses.replace(det.config, hand_margin_mm=0.1)
    assert (det._texture_mask(frame, dark) > 0)[near_hand].sum() > 50
