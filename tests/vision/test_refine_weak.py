"""Round pieces found from a thin part of the mask (``weak``: a piece coloured like the mat shows only
its wall, rim or print there): every size is fitted, σ covers the sizes the pixels cannot rule out,
and such a piece leaves the other pieces' fits as they were without it. Frames from the mini-renderer
of ``test_refine_choice``."""

import numpy as np

import vision.refine as refine
from vision.refine import RefineConfig, refine_model

from .test_refine import camera
from .test_refine_choice import MAT, RADII, render


def _counting(monkeypatch):
    """Record the radius of every model fit made."""
    seen = []
    orig = refine._model_fit

    def fit(image, background, transform, c0, r, h, cfg, *a, **k):
        seen.append(round(float(r), 1))
        return orig(image, background, transform, c0, r, h, cfg, *a, **k)

    monkeypatch.setattr(refine, "_model_fit", fit)
    return seen


def test_every_size_of_a_weak_piece_is_fitted(monkeypatch):
    # a clear medium disc at its rough place: as a piece found from a peak, the size scored best at
    # the rough place stands (few sizes fitted); as a weak piece every size is fitted and compared
    T = camera(35, 20)
    xy = np.array([450.0, 300.0])
    img, empty = render(T, [(*xy, 19.0, 9.0, (40, 40, 200), (30, 30, 150), (235, 235, 235))], seed=3)
    rough = (xy + [0.3, -0.2])[None]
    seen = _counting(monkeypatch)
    strong = refine_model(img, empty, T, rough, [9.5], [9.0], RefineConfig(), radius_choices=[RADII])
    n_strong = set(seen)
    seen.clear()
    weak = refine_model(img, empty, T, rough, [9.5], [9.0], RefineConfig(), radius_choices=[RADII], weak=[True])
    assert n_strong != set(RADII)
    assert set(seen) == set(RADII)
    assert RADII[int(strong.choice[0])] == RADII[int(weak.choice[0])] == 19.0
    assert weak.ok[0] and np.linalg.norm(weak.xy[0] - xy) < 1.0


def test_a_weak_piece_coloured_like_the_mat_stays_within_three_sigma():
    T = camera(40, -30)
    xy = np.array([380.0, 260.0])
    # a small disc whose top is the mat's own colour, its wall darker, its print white; the rough place off
    img, empty = render(T, [(*xy, 14.5, 9.0, MAT, (30, 60, 25), (235, 235, 235))], seed=7)
    rough = (xy + [2.0, -1.0])[None]
    strong = refine_model(img, empty, T, rough, [9.5], [9.0], RefineConfig(), radius_choices=[RADII])
    weak = refine_model(img, empty, T, rough, [9.5], [9.0], RefineConfig(), radius_choices=[RADII], weak=[True])
    assert weak.ok[0] and RADII[int(weak.choice[0])] == 14.5
    err = float(np.linalg.norm(weak.xy[0] - xy))
    assert err <= 3 * weak.sigma[0], (err, weak.sigma[0], RADII[int(weak.choice[0])])
    assert weak.sigma[0] >= strong.sigma[0] - 1e-9


def test_a_weak_piece_leaves_its_neighbours_fit_as_it_was():
    T = camera(35, 20)
    xy = np.array([450.0, 300.0])
    img, empty = render(T, [(*xy, 19.0, 9.0, (40, 40, 200), (30, 30, 150), (235, 235, 235))], seed=3)
    rough = np.array([xy + [1.0, -0.5]])
    alone = refine_model(img, empty, T, rough, [19.0], [9.0], RefineConfig())
    # a candidate just beyond the disc's edge (apart from it by neighbour_gap: taken for another piece)
    both = np.vstack([rough, xy + [23.5, 0.0]])
    as_piece = refine_model(img, empty, T, both, [19.0, 9.5], [9.0, 9.0], RefineConfig())
    as_weak = refine_model(img, empty, T, both, [19.0, 9.5], [9.0, 9.0], RefineConfig(), weak=[False, True])
    # a piece found from a peak would have its pixels left out of the disc's fit; a weak one does not
    assert not np.allclose(as_piece.xy[0], alone.xy[0], atol=1e-9) or as_piece.sigma[0] != alone.sigma[0]
    assert np.array_equal(as_weak.xy[0], alone.xy[0]) and as_weak.sigma[0] == alone.sigma[0]


def test_two_weak_candidates_on_one_piece_both_fit_the_whole_piece():
    # a medium disc coloured like the mat showed two thin parts (its wall on either side): two weak
    # candidates far enough apart to be two pieces; neither leaves the other's pixels out, so both fit it
    T = camera(35, 20)
    xy = np.array([450.0, 300.0])
    img, empty = render(T, [(*xy, 19.0, 9.0, MAT, (30, 60, 25), (235, 235, 235))], seed=5)
    both = np.vstack([xy + [-9.0, 0.0], xy + [9.0, 0.0]])
    res = refine_model(img, empty, T, both, [9.5, 9.5], [9.0, 9.0], RefineConfig(), radius_choices=[RADII, RADII],
                       weak=[True, True])
    for i in range(2):
        assert res.ok[i] and RADII[int(res.choice[i])] == 19.0, (i, res.choice, res.ok)
        assert np.linalg.norm(res.xy[i] - xy) < 1.0
