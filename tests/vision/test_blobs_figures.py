"""Standing figures of the non-round path (vision/blobs.py): how many figures a merged silhouette
holds (by area and by length, from the camera's model of one figure), and the parts of a found
figure that the classifier named again (its head, a fragment named a token)."""

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.blobs import BlobConfig, Proposal, absorb_parts, figure_count, figure_outline_px, split_figures

R, H = 12.5, 45.0  # a racer: footprint radius and height, mm


class _Tilted:
    """1 mm per image px on every plane; a point ``h`` mm above the mat shows 0.4 h px higher in
    the image (a camera looking down at a slant, without perspective)."""

    def mat_to_image(self, mm, h=0.0):
        return np.asarray(mm, float).reshape(-1, 2) - [0.0, 0.4 * float(h)]

    def image_to_mat(self, px, h=0.0):
        return np.asarray(px, float).reshape(-1, 2) + [0.0, 0.4 * float(h)]

    def mm_per_px(self, mm, h=0.0):
        return np.ones(len(np.asarray(mm).reshape(-1, 2)))


def _proposal(mask: np.ndarray) -> Proposal:
    ys, xs = np.nonzero(mask)
    x0, y0, x1, y1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
    return Proposal((float(xs.mean()), float(ys.mean())), (int(x0), int(y0), int(x1), int(y1)),
                    float(mask.sum()), mask[y0:y1, x0:x1].copy())


def _silhouette(xy, shape=(300, 400), radius=R, height=H, lower=1.0) -> np.ndarray:
    """The figure's silhouette (bool image px), only its lowest ``lower`` part when < 1 (the rest
    taken for shadow)."""
    T = _Tilted()
    m = np.zeros(shape, np.uint8)
    hull = cv2.convexHull(figure_outline_px(T, xy, radius, height).astype(np.float32)).astype(np.int32)
    cv2.fillConvexPoly(m, hull, 1)
    m = m.astype(bool)
    if lower < 1.0:
        ys = np.nonzero(m)[0]
        cut = ys.max() - lower * (ys.max() - ys.min())
        m[: int(np.ceil(cut))] = False
    return m


def test_two_figures_side_by_side_held_in_part_are_two_by_length_not_by_area():
    T = _Tilted()
    a, b = np.array([200.0, 200.0]), np.array([236.0, 200.0])  # 36 mm apart: bases nearly touching
    mask = _silhouette(a, lower=0.45) | _silhouette(b, lower=0.45)
    p = _proposal(mask)
    # by area alone: less than 1.15 figures, one figure
    assert figure_count(p, T, R, H, 1.15) == 1
    assert figure_count(p, T, R, H, 1.15, extent_ratio=1.2) == 2
    parts = split_figures(p, T, R, H, 1.15, extent_ratio=1.2)
    assert len(parts) == 2
    xs = sorted(T.image_to_mat(np.array([q.centre]), 0.0)[0][0] for q in parts)
    assert abs(xs[0] - a[0]) < 8.0 and abs(xs[1] - b[0]) < 8.0, xs


def test_one_figure_whole_or_in_part_stays_one():
    T = _Tilted()
    for lower in (1.0, 0.6, 0.3):
        p = _proposal(_silhouette(np.array([200.0, 220.0]), lower=lower))
        assert figure_count(p, T, R, H, 1.15, extent_ratio=1.2) == 1, lower
        assert len(split_figures(p, T, R, H, 1.15, extent_ratio=1.2)) == 1


class _Kind:
    def __init__(self, radius, height):
        self.radius, self.height = radius, height


KINDS = {"racer": _Kind(R, H), "banana": _Kind(13.0, 4.0), "movement-card": _Kind(44.0, 0.3)}


def test_a_part_inside_a_found_figure_is_that_figure():
    T = _Tilted()
    config = BlobConfig(absorb_share=0.7, absorb_margin_mm=2.0)
    base = np.array([200.0, 220.0])
    whole = _silhouette(base)
    ys = np.nonzero(whole)[0]
    mid = int(ys.min() + 0.5 * (ys.max() - ys.min()))
    body, head = whole.copy(), whole.copy()
    body[:mid] = False
    head[mid:] = False
    token = np.zeros_like(whole)
    cv2.circle(token.view(np.uint8), (120, 220), 12, 1, -1)  # a banana well away from it
    card = np.zeros_like(whole)
    card[190:235, 190:210] = True  # a card under the racer's silhouette (named a card: never absorbed)
    parts = [_proposal(body), _proposal(head), _proposal(head.copy()), _proposal(token), _proposal(card)]
    kinds = ["racer", "racer", "banana", "banana", "movement-card"]
    # the body's base is right; the head alone, taken for a whole racer, stands far behind it
    xy = [base, base + [0.0, -60.0], T.image_to_mat(np.array([parts[2].centre]), 2.0)[0],
          T.image_to_mat(np.array([parts[3].centre]), 2.0)[0], np.array([200.0, 200.0])]
    new_xy, keep = absorb_parts(parts, xy, kinds, KINDS, T, config)
    assert keep == [0, 3, 4]
    assert np.linalg.norm(new_xy[0] - base) < 6.0, new_xy[0]
    # off: everything is kept as it was
    off_xy, off_keep = absorb_parts(parts, xy, kinds, KINDS, T, BlobConfig())
    assert off_keep == [0, 1, 2, 3, 4] and all(np.allclose(u, v) for u, v in zip(off_xy, xy))


def test_two_figures_beside_each_other_are_both_kept():
    T = _Tilted()
    config = BlobConfig(absorb_share=0.7, absorb_margin_mm=2.0)
    a, b = np.array([200.0, 220.0]), np.array([232.0, 220.0])
    ma, mb = _silhouette(a), _silhouette(b)
    mb &= ~ma
    _, keep = absorb_parts([_proposal(ma), _proposal(mb)], [a, b], ["racer", "racer"], KINDS, T, config)
    assert keep == [0, 1]


def test_a_blob_of_two_figures_named_nothing_is_cut_and_its_parts_classified_again():
    from vision.blobs import CLASSES, resplit

    T = _Tilted()
    two = _silhouette((100.0, 100.0)) | _silhouette((100.0 + 2 * R + 1.0, 100.0))
    one = _silhouette((300.0, 100.0))
    props = [_proposal(two), _proposal(one)]
    k = len(CLASSES)
    P = np.zeros((2, k))
    P[:, CLASSES.index("nothing")] = 0.9
    P[:, CLASSES.index("racer")] = 0.1
    calls = []

    def racers(parts):
        calls.append(len(parts))
        Q = np.zeros((len(parts), k))
        Q[:, CLASSES.index("racer")] = 0.8
        return Q

    config = BlobConfig(resplit_ratio=1.5, figure_split_extent=1.2)
    out, Q = resplit(props, P, CLASSES, T, R, H, config, racers)
    assert calls == [2]  # the lone figure's blob is not cut
    assert len(out) == 3 and Q.shape == (3, k)
    assert out[2] is props[1] and Q[2, CLASSES.index("nothing")] == 0.9
    xs = sorted(float(p.centre[0]) for p in out[:2])
    assert xs[0] < 100.0 + R < xs[1]

    # parts that are not figures either: the blob stays whole
    def nothing(parts):
        Q = np.zeros((len(parts), k))
        Q[:, CLASSES.index("nothing")] = 0.9
        return Q

    out, Q = resplit(props, P, CLASSES, T, R, H, config, nothing)
    assert out == props and np.array_equal(Q, P)
    # a blob named a figure is split_figures' job, not this one's
    P2 = P.copy()
    P2[0] = 0.0
    P2[0, CLASSES.index("racer")] = 1.0
    calls.clear()
    out, _ = resplit(props, P2, CLASSES, T, R, H, config, racers)
    assert calls == [] and out == props


def test_a_blob_of_a_figure_and_a_token_over_it_named_neither_is_cut_as_a_figures_blob():
    """A token flying over a racer meets it in the image; the blob, named a log, is cut by pixels
    into halves that are neither, so the racer standing at a base found from the blob is cut out
    (:func:`vision.blobs.carve_tries`): named a racer, and the rest a log, both replace the blob."""
    from vision.blobs import CLASSES, figure_base, resplit

    T = _Tilted()
    k = len(CLASSES)
    base = np.array([200.0, 220.0])
    racer = _silhouette(base)
    ys = np.nonzero(racer)[0]
    log = np.zeros(racer.shape, np.uint8)  # across the racer's head, at a slant
    cv2.fillConvexPoly(log, cv2.boxPoints(((210.0, float(ys.min() + 5)), (60.0, 20.0), 30.0)).astype(np.int32), 1)
    log = log.astype(bool)
    blob = _proposal(racer | log)

    def named(parts):  # a part is what it holds most of: a racer when it holds nearly all of one, a log likewise
        Q = np.zeros((len(parts), k))
        for i, q in enumerate(parts):
            reg = np.zeros_like(racer)
            x0, y0, x1, y1 = q.box
            reg[y0:y1, x0:x1] = q.region
            n = reg.sum()
            in_racer, in_log = (reg & racer & ~log).sum(), (reg & log).sum()
            if in_racer >= 0.6 * n and in_racer >= 0.9 * (racer & ~log).sum():
                Q[i, CLASSES.index("racer")] = 0.9
            elif in_log >= 0.6 * n:
                Q[i, CLASSES.index("log")] = 0.9
            else:
                Q[i, CLASSES.index("nothing")] = 0.9
        return Q

    P = named([blob])
    assert CLASSES[int(P[0].argmax())] == "log"
    on = BlobConfig(resplit_ratio=1.5, figure_split_extent=1.2, carve_min_mm2=80.0, carve_top=1.0,
                    absorb_margin_mm=2.0, resplit_carve=True)
    out, Q = resplit([blob], P, CLASSES, T, R, H, on, named)
    names = [CLASSES[int(q.argmax())] for q in Q]
    assert sorted(names) == ["log", "racer"], names
    figure = out[names.index("racer")]
    assert np.linalg.norm(figure_base(figure, T, 0.75 * R, H) - base) < 4.0
    # off: the blob stays whole, named a log
    out, Q = resplit([blob], P, CLASSES, T, R, H, BlobConfig(**{**on.__dict__, "resplit_carve": False}), named)
    assert out == [blob] and np.array_equal(Q, P)

    # a way with two pieces named a figure is not this cut's to keep (figures side by side are
    # split_figures'), nor one whose figure is named less surely than min_conf
    from vision.blobs import _carved_figure

    def every(name, p):
        def classify(parts):
            Q = np.zeros((len(parts), k))
            Q[:, CLASSES.index(name)] = p
            Q[:, CLASSES.index("nothing")] = 1.0 - p
            return Q
        return classify
    assert _carved_figure(blob, T, R, H, on, every("racer", 0.9), CLASSES) is None
    assert _carved_figure(blob, T, R, H, on, named, CLASSES) is not None

    def unsure(parts):
        Q = named(parts)
        Q[:, CLASSES.index("racer")] *= 0.5
        return Q
    assert _carved_figure(blob, T, R, H, on, unsure, CLASSES) is None


def test_a_token_at_a_figures_foot_is_cut_off_and_the_figure_found_from_its_top():
    from vision.blobs import carve_figure, figure_base, figure_top_base, remove_parts

    T = _Tilted()
    config = BlobConfig(carve_min_mm2=80.0, carve_top=1.0, absorb_margin_mm=2.0)  # the model figure: as wide at its top
    base = np.array([200.0, 220.0])
    racer = _silhouette(base)
    token = np.zeros_like(racer)
    cv2.circle(token.view(np.uint8), (200, 220 + 24), 11, 1, -1)  # a meteorite lying in front of it (toward the camera)
    p = _proposal(racer | token)
    # the bottom of the blob is the token's: the base taken from it is off; the top is the racer's
    assert np.linalg.norm(figure_base(p, T, 0.75 * R, H) - base) > 8.0
    top = figure_top_base(p, T, R, H)
    assert np.linalg.norm(top - base) < 3.0, top
    cut = carve_figure(p, T, R, H, top, config)
    assert len(cut) == 1
    centre = T.image_to_mat(np.array([cut[0].centre]), 2.0)[0]
    assert np.linalg.norm(centre - [200.0, 244.0]) < 4.0, centre
    assert 0.5 * np.pi * 11 ** 2 < cut[0].area_mm2 < 1.1 * np.pi * 11 ** 2
    # without the token its base is found again from the bottom
    assert np.linalg.norm(figure_base(remove_parts(p, cut), T, 0.75 * R, H) - base) < 6.0
    # a figure alone leaves nothing outside its silhouette; off: nothing is cut
    alone = _proposal(racer)
    assert carve_figure(alone, T, R, H, figure_base(alone, T, 0.75 * R, H), config) == []
    assert np.linalg.norm(figure_top_base(alone, T, R, H) - base) < 3.0
    assert carve_figure(p, T, R, H, top, BlobConfig(carve_min_mm2=1e9, carve_top=1.0)) == []


def test_the_training_crops_hold_the_parts_cut_off_a_racer():
    """The recipe (:func:`vision.blobs.carve_parts`) gives the parts the run-time cut classifies:
    a token at a racer's foot, once, and nothing for a racer alone or with the cut off."""
    from vision.blobs import carve_parts

    T = _Tilted()
    config = BlobConfig(carve_min_mm2=80.0, carve_top=1.0, absorb_margin_mm=2.0)
    base = np.array([200.0, 220.0])
    racer = _silhouette(base)
    token = np.zeros_like(racer)
    cv2.circle(token.view(np.uint8), (200, 220 + 24), 11, 1, -1)
    parts = carve_parts(_proposal(racer | token), T, R, H, config)
    assert parts, "the token lying against the racer is a part"
    near = [q for q in parts if np.linalg.norm(T.image_to_mat(np.array([q.centre]), 2.0)[0] - [200.0, 244.0]) < 5.0]
    assert len(near) == 1, [q.centre for q in parts]
    assert len({(q.box, round(q.area_mm2, 3)) for q in parts}) == len(parts)  # each part once
    assert carve_parts(_proposal(racer), T, R, H, config) == []
    assert carve_parts(_proposal(racer | token), T, R, H, BlobConfig(carve_min_mm2=0.0)) == []


def test_a_figure_held_in_pieces_each_named_a_token_is_joined_again():
    from vision.blobs import CLASSES, regroup

    T = _Tilted()
    k = len(CLASSES)
    whole = _silhouette((100.0, 100.0))
    ys = np.nonzero(whole)[0]
    mid = int(0.5 * (ys.min() + ys.max()))
    low, high = whole.copy(), whole.copy()
    low[: mid + 2] = False  # a band across the body lost (taken for shadow): two pieces
    high[mid - 2:] = False
    far = _silhouette((300.0, 100.0), lower=0.4)  # a token-like piece three figures away
    props = [_proposal(low), _proposal(high), _proposal(far)]
    P = np.zeros((3, k))
    P[0, CLASSES.index("meteorite")], P[0, CLASSES.index("nothing")] = 0.75, 0.25
    P[1, CLASSES.index("dodo-egg")], P[1, CLASSES.index("nothing")] = 0.5, 0.5
    P[2, CLASSES.index("dodo-egg")] = 1.0
    calls = []

    def named(racer):
        def classify(parts):
            calls.append(len(parts))
            Q = np.zeros((len(parts), k))
            Q[:, CLASSES.index("racer")] = racer
            Q[:, CLASSES.index("nothing")] = 1.0 - racer
            return Q
        return classify

    config = BlobConfig(regroup_reach=1.0, figure_split=1.15, figure_split_extent=1.2, min_conf=0.4)
    out, Q, joined = regroup(props, P, CLASSES, T, R, H, config, named(0.9))
    assert calls == [1]  # the far piece is not linked to either
    assert len(out) == 2 and joined == {1} and out[0] is props[2]
    assert int(out[1].region.sum()) == int(low.sum() + high.sum())
    assert Q[1, CLASSES.index("racer")] == 0.9 and Q[0, CLASSES.index("dodo-egg")] == 1.0
    # the union named a figure less surely than a piece is named a token: the pieces stay
    out, Q, joined = regroup(props, P, CLASSES, T, R, H, config, named(0.7))
    assert out == props and np.array_equal(Q, P) and joined == set()
    # off (0): nothing is joined, nothing classified
    calls.clear()
    out, _, _ = regroup(props, P, CLASSES, T, R, H, BlobConfig(regroup_reach=0.0), named(0.9))
    assert out == props and calls == []
    # pieces of two figures side by side: their union counts as two figures, it is not tried
    two = [_proposal(_silhouette((100.0, 100.0), lower=0.5)), _proposal(_silhouette((100.0 + 2 * R + 1.0, 100.0), lower=0.5))]
    calls.clear()
    out, _, _ = regroup(two, P[:2], CLASSES, T, R, H, config, named(0.9))
    assert out == two and calls == []
