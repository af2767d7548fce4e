"""A ball wedged beside a disc (or between two): its candidate's part of the mask holds their
edges, a larger size explains it best, and that fit overlaps a disc more than lying pieces can:
the overlap rule dropped it. Dropped so, it is fitted again from its candidate's place at the
smaller sizes only. Frames of the vision bench's framed tuning seeds."""

import dataclasses

import numpy as np
import pytest

from calibration.specs import load_specs
from vision.bench import FRAMED, bench_frames
from vision.detect import DetectConfig, Detector


def _ball_error(seed: int, index: int, **changes) -> tuple[float, float]:
    """(distance mm from the ball's truth to the nearest ball found, its σ) in frame ``index`` of
    the vision bench's framed frames of ``seed`` (inf: none), the detector's config with ``changes``."""
    fr = next(bench_frames(1, FRAMED, seed, start=index))
    config = dataclasses.replace(DetectConfig.load(), **changes)
    det = Detector(fr.board, fr.transform, specs=load_specs(), background=fr.empty, config=config, method="classical",
                   attributes=False)
    obs = det(fr.image, 0, 0.0)
    at = next(t["xy"] for t in fr.truth if t["id"] == "ball")
    return min(((float(np.hypot(*(obs.xy[i] - at))), float(obs.sigma[i])) for i in range(len(obs)) if obs.kind[i] == "ball"),
               default=(np.inf, np.inf))


@pytest.mark.parametrize("seed,index", [(1, 31), (6, 51)])
def test_a_ball_dropped_for_an_overlap_its_larger_fit_made_is_fitted_again(seed, index):
    # seed 1: the ball between two medium discs, its candidate fitted as a third medium disc 16 mm
    # off; seed 6: beside a small disc, fitted as a small disc overlapping it
    err, sigma = _ball_error(seed, index)
    assert err < 3.0 and err < 3.0 * sigma, (err, sigma)  # (0.7 mm at σ 2.7; 2.4 at σ 1.7)
    # (no ball found: the bench's gate is 6 mm; the size classifier's second look, which finds the
    # ball of seed 6 too, from the small disc fitted to it, left out)
    assert _ball_error(seed, index, lying_refit=False, size_veto=0.0)[0] > 6.0
