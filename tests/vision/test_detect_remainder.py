"""A ball of the mat's own colour beside a disc: only part of it differs from the mat, and that part
joins the disc's in one part of the mask, too thin for a peak of its own. What the disc found
leaves of the part (its whole silhouette cleared) is a weak candidate when it is a sizeable share of
a top face and its fit lies clear of the disc. Framed tuning frames of the vision bench."""

from dataclasses import replace

import numpy as np
import pytest

from calibration.specs import load_specs
from vision.bench import bench_frames
from vision.detect import DetectConfig, Detector, _apart


def _finds(seed: int, index: int, config: DetectConfig):
    """(the frame's truth by id, the classical detector's observation) for framed tuning frame
    ``index`` of ``seed``."""
    fr = next(bench_frames(1, "framed", seed, start=index))
    det = Detector(fr.board, fr.transform, specs=load_specs(), background=fr.empty, config=config,
                   method="classical")
    return {t["id"]: t for t in fr.truth}, det(fr.image, 0, 0.0)


def _nearest(obs, xy, kind=None) -> float:
    d = [np.hypot(*(obs.xy[i] - np.asarray(xy))) for i in range(len(obs)) if kind is None or obs.kind[i] == kind]
    return min(d, default=np.inf)


@pytest.mark.parametrize("seed,index", [(5, 26), (6, 26)])
def test_a_ball_of_the_mats_colour_beside_a_disc_is_found(seed, index):
    # (an orange ball on a brown mat, 4 mm from a medium disc; one 7 mm from a small disc)
    cfg = DetectConfig.load()
    assert cfg.remainder_fragments
    truth, obs = _finds(seed, index, cfg)
    ball = truth["ball"]
    assert _nearest(obs, ball["xy"], "ball") < 3.0
    _, without = _finds(seed, index, replace(cfg, remainder_fragments=False))
    assert _nearest(without, ball["xy"]) > 15.0


def test_a_small_leftover_beside_a_disc_is_no_piece():
    # tuning frame 21 of seed 7: what a small disc near the mat's far edge leaves of its part of the
    # mask once its silhouette is cleared is an eighth of a ball's top face (its shadow): at the plain
    # fragments' least share it was a ball 30 mm from the disc (with the mat's shade read from its own
    # pixels: the table's light, detect.shadow_light, predicts the shadow and leaves no such part)
    cfg = replace(DetectConfig.load(), shadow_light=False)
    disc = _finds(7, 21, cfg)[0]["home:1"]
    for share, found in ((cfg.remainder_min_fraction, False), (cfg.fragment_min_fraction, True)):
        obs = _finds(7, 21, replace(cfg, remainder_min_fraction=share))[1]
        balls = [np.hypot(*(obs.xy[i] - np.asarray(disc["xy"]))) for i in range(len(obs)) if obs.kind[i] == "ball"]
        assert any(20.0 < d < 40.0 for d in balls) == found, (share, balls)


def test_apart_takes_a_gap_for_each_piece():
    xy = np.array([[0.0, 0.0], [26.0, 0.0], [0.0, 26.0]])
    radius = np.array([19.0, 9.5, 9.5])
    keep = np.ones(3, bool)
    fragment = np.array([False, True, True])
    # 26 mm apart against a sum of radii of 28.5: within 0.8 of it only with the stricter gap
    assert _apart(xy, radius, keep, fragment, 0.8).tolist() == [True, True, True]
    assert _apart(xy, radius, keep, fragment, np.array([0.8, 1.0, 0.8])).tolist() == [True, False, True]


def test_what_a_cup_leaves_beside_a_peak_in_it_is_no_piece():
    # tuning frame 11 of seed 4: a cup on its side at the mat's edge; a peak in its part of the mask
    # leaves far more than one top face, and the end of the cup is round: without the bound on what is
    # left it was a medium disc. (The parts left beside a piece found are looked at only where what is
    # left is at most the largest top face.)
    truth, obs = _finds(4, 11, DetectConfig.load())
    cup_end = np.array([29.9, 382.1])
    assert all(np.hypot(*(np.asarray(t["xy"]) - cup_end)) > 60.0 for t in truth.values())
    assert _nearest(obs, cup_end) > 20.0
