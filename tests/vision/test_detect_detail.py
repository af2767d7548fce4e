"""Far from the camera a piece's print is finer than the mask's cells: a green disc's pale face in its
dark rim, on a green mat, averages to about the mat's colour in a cell of the shrunk difference, and
the plain mask has next to nothing of it. There the difference is taken pixel by pixel too, then
shrunk (``Background._detail``), and its parts the plain mask holds little of are added."""

from dataclasses import replace

import numpy as np
import pytest

from calibration.specs import load_specs
from vision.bench import bench_frames
from vision.detect import Background, DetectConfig, Detector


def _reference(bg: Background, frame: np.ndarray, floor: float) -> np.ndarray:
    """The pixel-by-pixel distance written out plainly: each pixel's brightness ratio to the empty mat
    (clipped to the shadow floor), the colour distance to the mat scaled by it, shrunk."""
    f = frame.astype(np.float64)
    b = bg.raw.astype(np.float64) + 1.0
    ratio = np.clip((f * b).sum(axis=2) / (b * b).sum(axis=2), floor, 1.15)
    dist = np.sqrt(((f - ratio[..., None] * b) ** 2).sum(axis=2)).astype(np.float32)
    return bg._shrink(dist)


def test_the_distance_is_the_pixel_by_pixel_one():
    rng = np.random.default_rng(3)
    empty = rng.integers(40, 220, (96, 128, 3)).astype(np.uint8)
    frame = empty.astype(np.float64)
    frame[20:70, 30:90] *= 0.5  # a shadow: only the brightness changes
    frame[40:44, 50:54] = (250, 250, 250)  # and a small pale patch
    frame = np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    bg = Background(empty)
    bg.set_detail((0, 0, 128, 96))
    got, want = bg._detail(frame, 0.35), _reference(bg, frame, 0.35)
    assert np.abs(got - want).max() < 0.05
    # a box: the same inside (away from its edge), nothing outside
    bg.set_detail((61, 41, 99, 79))  # (an odd span: the crop is widened to whole cells)
    part = bg._detail(frame, 0.35)
    assert np.abs(part - want)[22:38, 32:48].max() < 0.05
    assert not part[:, :24].any() and not part[:12].any()


def test_the_shadow_is_discounted_and_the_patch_is_not():
    empty = np.full((64, 64, 3), (90, 160, 110), np.uint8)
    frame = empty.copy()
    frame[:, 32:] = (empty[:, 32:] * 0.55).astype(np.uint8)  # a shadow over half of it
    frame[10:13, 10:13] = (235, 240, 235)  # a pale face in a dark rim: the cell's mean is about the mat
    frame[9, 9:14] = frame[13, 9:14] = frame[9:14, 9] = frame[9:14, 13] = (30, 70, 40)
    bg = Background(empty)
    plain = bg.foreground_small_floors(frame, 20.0, (0.35,))[0]
    bg.set_detail((0, 0, 64, 64))
    detailed = bg.foreground_small_floors(frame, 20.0, (0.35,))[0]
    assert detailed[4:7, 4:7].any()
    assert plain[4:7, 4:7].sum() < detailed[4:7, 4:7].sum()
    assert not detailed[:, 18:].any()  # the shadow is no piece


def _wide(seed: int, index: int, config: DetectConfig):
    fr = next(bench_frames(1, "wide", seed, start=index))
    det = Detector(fr.board, fr.transform, specs=load_specs(), background=fr.empty, config=config,
                   method="classical")
    return fr, det, det(fr.image, 0, 0.0)


def _nearest(obs, xy) -> float:
    return min((np.hypot(*(obs.xy[i] - np.asarray(xy))) for i in range(len(obs))), default=np.inf)


def test_green_discs_on_a_green_mat_far_off_are_found():
    # wide tuning frame 11 of seed 3 (4 mm an image px): five green discs on a green mat, none in the
    # plain mask
    cfg = DetectConfig.load()
    assert cfg.mask_detail_mm > 0
    fr, det, obs = _wide(3, 11, cfg)
    assert det.background.detail_held is not None
    discs = [t for t in fr.truth if t["id"].startswith("home:")]
    assert len(discs) == 5
    assert all(_nearest(obs, t["xy"]) < 5.0 for t in discs)
    _, plain_det, plain = _wide(3, 11, replace(cfg, mask_detail_mm=0.0))
    assert plain_det.background.detail_held is None
    assert all(_nearest(plain, t["xy"]) > 20.0 for t in discs)


def test_a_part_the_plain_mask_holds_is_left_as_it_was():
    # wide tuning frame 16 of seed 1: a ball beside two discs. Added whole, the pixel-wise parts join
    # the three in one part of the mask and the ball is lost
    cfg = DetectConfig.load()
    fr, _, obs = _wide(1, 16, cfg)
    ball = next(t for t in fr.truth if t["id"] == "ball")
    assert _nearest(obs, ball["xy"]) < 6.0
    _, _, joined = _wide(1, 16, replace(cfg, mask_detail_held=1.01))
    assert _nearest(joined, ball["xy"]) > 6.0


@pytest.mark.parametrize("seed,index", [(1, 0), (2, 5)])
def test_the_framed_view_takes_no_detail(seed, index):
    fr = next(bench_frames(1, "framed", seed, start=index))
    det = Detector(fr.board, fr.transform, specs=load_specs(), background=fr.empty, method="classical")
    assert det.background.detail_held is None


def test_a_small_disc_far_off_may_fit_a_px_smaller():
    # wide tuning frame 26 of seed 4 (over 5 mm an image px there): a small disc whose top fits 8 mm
    # across less than its own (a px of blur at its rim). A fit more than 0.3 of its radius off was
    # dropped as no round piece; a candidate from a peak may be radius_slack_px image px off too
    cfg = DetectConfig.load()
    assert cfg.radius_slack_px > 0
    fr, det, obs = _wide(4, 26, cfg)
    disc = next(t for t in fr.truth if t["id"] == "away:1")
    assert det.transform.mm_per_px([disc["xy"]])[0] > 4.0
    i = int(np.argmin(np.hypot(*(obs.xy - disc["xy"]).T)))
    assert np.hypot(*(obs.xy[i] - disc["xy"])) < 6.0 and obs.kind[i] == "disc-small"
    _, _, strict = _wide(4, 26, replace(cfg, radius_slack_px=0.0))
    assert _nearest(strict, disc["xy"]) > 6.0


def test_a_piece_fitted_again_takes_the_same_size_slack():
    # the refits (beside a figure, at a smaller size, at the size the classifier gives) judge their fit's
    # size by the same rule as the first fits: far back a fit 0.4 of a small disc's radius small is that
    # disc (more than 0.3 of it, within 1.5 image px and 0.45 of it); near the camera it is not
    from vision.refine import Refined

    cfg = DetectConfig.load()
    fr = next(bench_frames(1, "wide", 4, start=26))
    det = Detector(fr.board, fr.transform, specs=load_specs(), background=fr.empty, config=cfg, method="classical")
    small = next(k for k in det.round if k.name == "disc-small")
    far = next(t for t in fr.truth if t["id"] == "away:1")["xy"]
    grid = np.stack(np.meshgrid(np.linspace(50, 850, 17), np.linspace(50, 550, 11)), -1).reshape(-1, 2)
    near = grid[int(np.argmin(det.transform.mm_per_px(grid)))]  # the mat's place nearest the camera
    mmpp = det.transform.mm_per_px(np.array([far, near]))
    assert mmpp[0] > 4.0 and 1.5 * mmpp[1] < 0.3 * small.radius

    def taken(at, shrink):
        fit = Refined(np.array([at], float), np.array([0.8]), np.array([small.radius * (1 - shrink)]), np.ones(1),
                      np.ones(1, bool))
        return det._refit_taken(fit, [small.radius], small.height, 0)

    got = taken(far, 0.4)
    assert got is not None and got[2].name == "disc-small"
    assert got[1] == pytest.approx(np.hypot(0.8, 0.4 * small.radius))  # σ grown by the size's miss
    assert taken(far, 0.5) is None  # beyond radius_slack_max
    assert taken(near, 0.4) is None  # near: a px is little, 0.3 of the size rules
    assert taken(near, 0.25) is not None
