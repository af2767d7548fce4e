"""The size class and the position of discs the empty-mat difference sees only in part: a rough
position off by most of a small disc's radius (the mask found only the print), a top the colour of
the mat (only the wall shows), a shadow under the piece's edge, and pieces a few px across fitted at
the frame's blur. Frames from an independent mini-renderer (exact-coverage cylinders through the true
camera), as in ``test_classical_sizes``."""

import cv2
import numpy as np
import pytest

from sim.raster import fill_convex
from vision.refine import RefineConfig, _model_fit, refine_model

from .test_refine import camera

MAT = (70, 120, 60)
RADII = [9.5, 14.5, 19.0, 25.5]  # ball, small, medium, large (one height)
ANG = np.linspace(0, 2 * np.pi, 256, endpoint=False)


def _ring(x, y, r, z=0.0):
    return np.column_stack([x + r * np.cos(ANG), y + r * np.sin(ANG), np.full(len(ANG), z)])


def render(T, discs, shadows=(), seed=0, blur=0.0):
    """discs: (x, y, r, h, top BGR, side BGR, print BGR or None) upright cylinders (the print: a
    disc of 0.3 r at the top's centre); shadows: (x, y, r, factor) circles on the mat darkened by
    ``factor``. Returns (frame, empty mat), BGR, with a Gaussian ``blur`` (image px) and noise."""
    w, h = T.image_size
    rng = np.random.default_rng(seed)
    mat = np.zeros((h, w, 3), np.uint8)
    mat[:] = MAT
    mat = np.clip(mat.astype(int) + rng.integers(-3, 4, (h, w, 1)), 0, 255).astype(np.uint8)
    img = mat.astype(np.float32)
    for x, y, r, k in shadows:
        cover = np.zeros((h, w, 1), np.float32)
        fill_convex(cover, T.project_3d(_ring(x, y, r)), (1.0,))
        img *= 1.0 - (1.0 - k) * cover
    img = np.clip(img, 0, 255).astype(np.uint8)
    for x, y, r, hh, top, side, art in discs:
        base, up = T.project_3d(_ring(x, y, r)), T.project_3d(_ring(x, y, r, -hh))
        fill_convex(img, cv2.convexHull(np.float32(np.vstack([base, up]))).reshape(-1, 2), side)
        fill_convex(img, up, top)
        if art is not None:
            fill_convex(img, T.project_3d(_ring(x, y, 0.3 * r, -hh)), art)

    def finish(im, s):
        im = im.astype(np.float32)
        if blur > 0:
            im = cv2.GaussianBlur(im, (0, 0), blur)
        return np.clip(im + np.random.default_rng(s).normal(0, 2.0, im.shape), 0, 255).astype(np.uint8)

    return finish(img, seed + 1), finish(mat, seed + 2)


@pytest.mark.parametrize("tilt,yaw,off", [(35, 20, (5.0, -5.0)), (45, -60, (5.0, -5.0)), (45, -60, (7.0, 0.0))])
def test_a_disc_found_by_its_print_alone_gets_its_size_and_place(tilt, yaw, off):
    # a medium disc whose top differs from the mat by ~15 grey levels, the rough position 7 mm off
    # (the mask found its print): the sizes scored there favour the wrong one; scored again at the
    # fit's centre, and fitted, the medium wins
    T = camera(tilt, yaw)
    xy = np.array([450.0, 300.0])
    img, empty = render(T, [(*xy, 19.0, 9.0, (58, 132, 52), (40, 95, 35), (235, 235, 235))], seed=3)
    rough = xy + off
    res = refine_model(img, empty, T, rough[None], [9.5], [9.0], RefineConfig(), radius_choices=[RADII])
    assert res.ok[0] and RADII[int(res.choice[0])] == 19.0, (res.choice, res.xy)
    assert np.linalg.norm(res.xy[0] - xy) < 1.0
    assert np.linalg.norm(res.xy[0] - xy) <= 3 * res.sigma[0]


def test_a_top_the_colour_of_the_mat_counts_by_its_wall():
    # the top is the mat's own colour (no contrast at all); the wall is clearly darker; the print
    # is what the difference found
    T = camera(40, -30)
    xy = np.array([380.0, 260.0])
    img, empty = render(T, [(*xy, 19.0, 9.0, MAT, (30, 60, 25), (235, 235, 235))], seed=5)
    res = refine_model(img, empty, T, (xy + [1.0, 1.0])[None], [9.5], [9.0], RefineConfig(), radius_choices=[RADII])
    assert res.ok[0], res
    assert RADII[int(res.choice[0])] == 19.0, res.choice
    assert np.linalg.norm(res.xy[0] - xy) < 1.0


def test_a_shadow_under_the_edge_does_not_pull_the_fit():
    # a dark shadow on the mat beside the disc, reaching under its edge on the camera's side
    T = camera(40, 0)
    xy = np.array([457.0, 330.0])
    cam = T.camera_centre_mm()[:2]
    toward = (cam - xy) / np.linalg.norm(cam - xy)
    errs = {}
    for fill in (0.0, 1.0):
        cfg = RefineConfig(shadow_fill_px=fill)
        e = []
        for seed in range(4):
            img, empty = render(T, [(*xy, 9.5, 9.0, (30, 120, 245), (20, 80, 180), None)],
                                shadows=[(*(xy + 6.0 * toward), 11.0, 0.5)], seed=seed)
            fit = _model_fit(img, empty, T, xy + [1.0, -1.0], 9.5, 9.0, cfg)
            assert fit is not None
            e.append(float(np.linalg.norm(fit.c - xy)))
        errs[fill] = float(np.mean(e))
    # the mat under the edge takes the shade around it: closer than without (the shadow read as piece)
    assert errs[1.0] < 0.3, errs
    assert errs[1.0] < errs[0.0], errs


def test_small_pieces_are_fitted_at_the_blur_of_the_larger_ones():
    # a far view: the balls are ~4 px across in radius; the large discs show the frame's blur
    T = camera(30, 10, height=1500.0)
    cfg = RefineConfig()
    discs = [(300.0, 250.0, 25.5, 9.0, (200, 60, 200), (140, 40, 140), (235, 235, 235)),
             (600.0, 330.0, 25.5, 9.0, (200, 60, 200), (140, 40, 140), (235, 235, 235)),
             (450.0, 300.0, 9.5, 9.0, (30, 120, 245), (20, 80, 180), None),
             (520.0, 200.0, 9.5, 9.0, (30, 120, 245), (20, 80, 180), None)]
    img, empty = render(T, [d for d in discs], seed=9, blur=0.6)
    xy = np.array([d[:2] for d in discs])
    assert np.all(9.5 / T.mm_per_px(xy[2:]) < cfg.frame_blur_below_px)
    seen = []
    import vision.refine as refine

    real = refine._model_fit

    def spy(*a, **k):
        fit = real(*a, **k)
        seen.append((a[4], k.get("blur_choices"), fit.blur if fit is not None else None))
        return fit

    refine._model_fit = spy
    try:
        res = refine_model(img, empty, T, xy + 0.8, [d[2] for d in discs], [9.0] * 4, cfg)
    finally:
        refine._model_fit = real
    assert res.ok.all()
    big = [b for r, _, b in seen if r > 20]
    small = [(c, b) for r, c, b in seen if r < 10]
    assert len(big) == 2 and len(small) == 2
    # the balls were offered the large discs' median blur only, and took it
    for choices, b in small:
        assert choices == (float(np.median(big)),) and b == choices[0]
    assert np.all(np.linalg.norm(res.xy - xy, axis=1) < 1.0), res.xy - xy


def _bench_kinds(seed, index, view, refine_changes=None, **changes):
    """Frame ``index`` of the vision bench (``seed``, ``view``): its truth by id and what a classical
    detector (round pieces only, the refine config changed by ``refine_changes``, the detect config
    by ``changes``) finds in it."""
    import dataclasses

    from vision.bench import bench_frames
    from vision.detect import DetectConfig, Detector

    fr = next(bench_frames(1, view, seed, start=index))
    config = dataclasses.replace(DetectConfig.load(), **changes)
    if refine_changes:
        config = dataclasses.replace(config, refine=dataclasses.replace(config.refine, **refine_changes))
    det = Detector(fr.board, fr.transform, background=fr.empty, config=config, method="classical", attributes=False)
    return {t["id"]: t for t in fr.truth}, det(fr.image)


def _kind_at(obs, xy, gate=6.0):
    d = np.linalg.norm(obs.xy - np.asarray(xy), axis=1) if len(obs) else np.zeros(0)
    return str(obs.kind[int(np.argmin(d))]) if len(d) and d.min() < gate else None


def test_each_size_is_scored_at_its_best_blur_among_sharp_and_soft():
    # seed 3 frame 20 of the vision bench (wide, about 2.5 mm/px): the ball and a medium disc lie
    # in a sharp part of the frame; scored at a blur of 1.1 px only, the ball's outline (blurred
    # more than it is) lost to a small disc's and the medium's to a large disc's. (The medium disc is
    # also found twice as a large one, 3 and 6 mm off; with a disc inside a disc taken for one piece
    # found twice, the cylinders' comparison keeps a large one: not the fit this test is about)
    truth, obs = _bench_kinds(3, 20, "wide", stack_smallest=False)
    assert _kind_at(obs, truth["ball"]["xy"]) == "ball"
    assert _kind_at(obs, truth["away:3"]["xy"], 0.6 * 19.0) == "disc-medium"
