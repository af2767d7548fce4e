"""A racer whose body is the mat's own colour: the empty-mat difference holds its pale head (and
little else), so the bottom of its silhouette is no base. Frames of the vision bench's tuning
seeds (framed), where the racer's base is found from the top of the silhouette, or where the fit
found it beyond the gate and the racer standing there explains the silhouette."""

import dataclasses

import numpy as np
import pytest

from calibration.specs import load_specs
from vision.bench import FRAMED, bench_frames
from vision.blobs import DEFAULT_MODEL
from vision.detect import DetectConfig, Detector

needs_model = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no models/blobs/blobs.npz (tableref train blobs)")


def _racer_error(seed: int, index: int, racer: str, **blob_changes) -> tuple[float, float]:
    """(distance mm from the truth of ``racer`` to the nearest racer found, that find's σ) in
    frame ``index`` of the vision bench's framed frames of ``seed``."""
    fr = next(bench_frames(1, FRAMED, seed, start=index))
    det = Detector(fr.board, fr.transform, specs=load_specs(), background=fr.empty, config=DetectConfig.load(),
                   method="classical", attributes=False)
    det.blob_config = dataclasses.replace(det.blob_config, **blob_changes)
    obs = det(fr.image, 0, 0.0)
    at = next(t["xy"] for t in fr.truth if t["id"] == racer)
    d = [(float(np.hypot(*(obs.xy[i] - at))), float(obs.sigma[i])) for i in range(len(obs)) if obs.kind[i] == "racer"]
    return min(d, default=(np.inf, np.inf))


@needs_model
@pytest.mark.parametrize("seed,index,racer", [(4, 52, "racer-3"), (4, 42, "racer-4")])
def test_a_racer_of_the_mats_colour_is_placed_at_its_base(seed, index, racer):
    # frame 52: little but the head is in the difference; its bottom put the racer 14 mm off and the
    # fit there failed: from the top of the silhouette the base is found. Frame 42: the fit found the
    # base 8.5 mm away (beyond the 8 mm gate), and the racer standing there explains the silhouette
    err, sigma = _racer_error(seed, index, racer)
    assert err < 3.0 and err < 3.0 * sigma, (err, sigma)
    old_err, old_sigma = _racer_error(seed, index, racer, base_retry_kinds=())
    assert old_err > 7.0, old_err  # (without the retry: 14 and 9.7 mm)


@needs_model
def test_a_token_lying_against_a_whole_racer_does_not_take_its_place():
    # tuning throws (seed 1, scene 18), the last frame: a meteorite landed against a racer; the
    # racer's silhouette (0.71 of a whole figure's area, the meteorite in it) put its fit on the
    # meteorite, a base's size and height, 9 mm away: a far base is taken only from a silhouette
    # short of a whole figure
    from session.bench import RealDetector
    from sim.suites import _board, make_scenario

    scn = make_scenario("dodo-dash/throws", 18, 1)
    board = _board(scn.board)
    scene = scn.run.frames[-1]
    racer = next(p for p in scene.pieces if p.id == "racer-2")
    errors = []
    for area in (None, 1.0):
        real = RealDetector(board, scn.initial, seed=18)
        if area is not None:
            real.detector.blob_config = dataclasses.replace(real.detector.blob_config, base_far_area=area)
        obs = real.detector(real.render(scene, len(scn.run.frames) - 1), 0, 0.0)
        errors.append(min(float(np.hypot(*(obs.xy[i] - [racer.x, racer.y]))) for i in range(len(obs))
                          if obs.kind[i] == "racer"))
    assert errors[0] < 8.0 and errors[1] > 12.0, errors  # (6.9 and 15.8 mm)
