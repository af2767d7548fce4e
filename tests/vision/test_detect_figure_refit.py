"""A round piece against a figure: its first fit, drawn into the figure's part of the difference, is
made again with the figure's silhouette left out (:meth:`vision.detect.Detector._refit_beside_figures`)."""

import dataclasses

import numpy as np
import pytest

from calibration.specs import load_specs
from vision.blobs import DEFAULT_MODEL
from vision.detect import DetectConfig, Detector

SPECS = load_specs()
needs_model = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no models/blobs/blobs.npz (tableref train blobs)")


def _detect(seed, index, **changes):
    from vision.bench import bench_frames

    fr = next(bench_frames(1, "framed", seed, start=index))
    cfg = dataclasses.replace(DetectConfig.load(), **changes)
    det = Detector(fr.board, fr.transform, specs=SPECS, background=fr.empty, config=cfg, method="classical",
                   attributes=False)
    return fr, {t["id"]: t for t in fr.truth}, det(fr.image)


def _eggs_near(obs, xy, mm):
    sel = np.asarray(obs.kind) == "egg"
    return obs.xy[sel][np.linalg.norm(obs.xy[sel] - xy, axis=1) < mm]


@needs_model
@pytest.mark.parametrize("seed,index", [(4, 3), (7, 18)])
def test_an_egg_against_the_toucan_is_fitted_with_the_toucan_left_out(seed, index):
    # tuning frames of the vision bench (framed): egg-1 lies against the toucan (83 % of it seen); its
    # candidate's first fit runs 26-30 mm into the toucan and fails
    fr, truth, obs = _detect(seed, index)
    assert fr.suite == "morris/eggs" and truth["egg-1"]["visible"] >= 0.8
    at = truth["egg-1"]["xy"]
    found = _eggs_near(obs, at, 15.0)
    assert len(found) == 1 and np.linalg.norm(found[0] - at) < 4.0
    i = int(np.argmin(np.linalg.norm(obs.xy - found[0], axis=1)))
    assert np.linalg.norm(found[0] - at) <= 3.0 * obs.sigma[i]  # honest about its margin
    # without the second fit the egg is missed
    assert len(_eggs_near(_detect(seed, index, figure_refit_mm=0.0)[2], at, 15.0)) == 0
