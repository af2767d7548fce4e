"""The round pieces' shadows (vision/shadows.py): their outline on the mat, the one light read from a
rendered frame against the renderer's own, and the shade it predicts against the frame rendered
without shadows."""

from dataclasses import replace

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from calibration.board import load_board
from calibration.specs import load_specs
from sim.effects import light_direction
from sim.render import render_scene
from sim.scenarios.common import piece
from sim.scene import Scene
from sim.style import clean_style
from vision.bench import framed_camera
from vision.blobs import round_silhouettes
from vision.shadows import Light, ShadeModel, estimate_light, shadow_polygons

SPECS = load_specs()


class _Flat:
    """A top-down transform: 2 mm per image px, every height alike."""

    def mat_to_image(self, mm, h=0.0):
        return np.asarray(mm, float) / 2.0


def test_a_cylinders_shadow_is_the_hull_of_its_base_and_its_top_moved_by_the_light():
    from shapely.geometry import Point
    from shapely.ops import unary_union

    (poly,) = shadow_polygons(_Flat(), [[100.0, 60.0]], [10.0], [9.0], (1.0, -0.5), k=96)
    want = unary_union([Point(100, 60).buffer(10, 64), Point(109, 55.5).buffer(10, 64)]).convex_hull
    from shapely.geometry import Polygon

    got = Polygon(poly * 2.0)  # back to mat mm
    assert got.area == pytest.approx(want.area, rel=0.01)
    assert got.symmetric_difference(want).area < 0.01 * want.area


def _scene(strength=0.45, blur=3.5, azimuth=200.0, elevation=50.0, seed=5, tilt=35.0):
    board = load_board("dino-dunk/crater-court")
    g = board.game
    pieces = [piece(SPECS, g, kind, f"p{i}", x, y, team="home" if i % 2 else "away")
              for i, (kind, x, y) in enumerate([("disc-large", 200, 150), ("disc-medium", 420, 170),
                                                ("disc-small", 650, 160), ("disc-medium", 260, 420),
                                                ("disc-large", 520, 400), ("disc-small", 740, 450)])]
    pieces.append(piece(SPECS, g, "ball", "ball", 600, 300))
    style = replace(clean_style(), shadow_strength=strength, shadow_blur_px=blur, light_azimuth_deg=azimuth,
                    light_elevation_deg=elevation)
    cam = framed_camera(np.random.default_rng(seed), board, tilt=(tilt, tilt))
    scene = Scene(g, board.ref, pieces)
    shaded = render_scene(board, scene, cam, style, 1).image
    unshaded = render_scene(board, scene, cam, replace(style, shadow_strength=0.0), 1).image
    empty = render_scene(board, Scene(g, board.ref, []), cam, style, 2).image
    return board, pieces, style, cam.transform(), shaded, unshaded, empty


def test_the_light_read_from_the_shadows_round_the_discs_is_the_renderers():
    board, pieces, style, T, shaded, _, empty = _scene()
    xy = np.array([[p.x, p.y] for p in pieces]) + np.random.default_rng(0).normal(0, 1.0, (len(pieces), 2))
    light = estimate_light(shaded, empty, T, xy, [p.radius for p in pieces], [p.height for p in pieces])
    (dx, dy), tan_el = light_direction(style)
    want = -np.array([dx, dy]) / tan_el  # away from the light, per mm of height
    assert light is not None
    assert np.hypot(*(np.array(light.offset) - want)) < 0.25 * np.hypot(*want)
    assert light.strength == pytest.approx(style.shadow_strength, abs=0.1)
    # no shadows: no light
    _, _, _, T2, _, unshaded, empty2 = _scene(strength=0.0)
    assert estimate_light(unshaded, empty2, T2, xy, [p.radius for p in pieces], [p.height for p in pieces]) is None


def test_the_shade_predicted_next_to_each_piece_is_the_rendered_shadows():
    """Next to each piece (the ring of image px within 3 px of its silhouette, where the fit cannot
    read the mat), the predicted shade is within a few hundredths of the frame's own (the frame
    rendered with shadows over the same frame without), where no shade is off by a tenth or more."""
    board, pieces, style, T, shaded, unshaded, empty = _scene()
    xy = np.array([[p.x, p.y] for p in pieces])
    r, h = np.array([p.radius for p in pieces]), np.array([p.height for p in pieces])
    light = estimate_light(shaded, empty, T, xy, r, h)
    model = ShadeModel(T, light, xy, r, h)
    truth = (shaded.astype(np.float32).sum(2) + 1) / (unshaded.astype(np.float32).sum(2) + 1)
    H, W = truth.shape
    sil = round_silhouettes(T, xy, r, h, (H, W), 0.0)
    ring = (cv2.dilate(sil, np.ones((7, 7), np.uint8)) > 0) & (sil == 0)
    own = model.roi(0, 0, W, H, xy[0], r[0], h[0]).reshape(H, W)  # (the first piece drawn where it is)
    err = np.abs(own[ring] - truth[ring]).mean()
    assert err < 0.035
    assert np.abs(1.0 - truth[ring]).mean() > 3 * err
    # a ROI is the same shade as the whole frame's there
    part = model.roi(100, 80, 60, 40, xy[0], r[0], h[0]).reshape(40, 60)
    assert np.allclose(part, own[80:120, 100:160], atol=1e-6)


def test_the_own_shadow_follows_the_fitted_piece_not_the_candidate():
    T = _Flat()
    light = Light((1.0, 0.0), 0.5, 1.0, 1.0)
    model = ShadeModel(T, light, [[100.0, 100.0]], [10.0], [9.0])
    # the piece fitted 6 mm left of its candidate: its shadow starts 6 mm (3 px) further left
    at_candidate = model.roi(0, 0, 100, 100, (100.0, 100.0), 10.0, 9.0).reshape(100, 100)
    moved = model.roi(0, 0, 100, 100, (94.0, 100.0), 10.0, 9.0).reshape(100, 100)
    row = 50
    left_edge = lambda m: int(np.argmax(m[row] < 0.75))  # noqa: E731 (first px deeper than half the shadow)
    assert left_edge(at_candidate) - left_edge(moved) == 3


def test_the_blur_is_picked_with_the_mat_in_the_shade_the_light_predicts():
    """A disc's soft shadow beside its base reads as a softer outline: the fit picks the image's blur
    with the mat in the shade the light predicts, and picks what it picks on the same frame rendered
    without shadows (the pieces a few px across are fitted at the blur the larger ones pick)."""
    from vision.detect import DetectConfig
    from vision.refine import _model_fit

    cfg = DetectConfig.load().refine
    same = total = 0
    err = []
    for elevation in (50.0, 40.0):
        board, pieces, style, T, shaded, unshaded, empty = _scene(blur=2.0, elevation=elevation)
        (dx, dy), tan_el = light_direction(style)
        light = Light((-dx / tan_el, -dy / tan_el), style.shadow_strength, style.shadow_blur_px, 1.0)
        discs = [p for p in pieces if p.kind.startswith("disc-")]
        xy = np.array([[p.x, p.y] for p in pieces])
        model = ShadeModel(T, light, xy, [p.radius for p in pieces], [p.height for p in pieces])
        for p in discs:
            plain = _model_fit(unshaded, empty, T, (p.x, p.y), p.radius, p.height, cfg)
            fit = _model_fit(shaded, empty, T, (p.x, p.y), p.radius, p.height, cfg, shade=model)
            same += fit.blur == plain.blur
            total += 1
            err.append(float(np.hypot(*(fit.c - (p.x, p.y)))))
    assert same >= total - 2, (same, total)
    assert np.mean(err) < 0.35, err


def test_the_detector_reads_the_light_holds_it_and_places_the_discs_closer_with_it():
    """A detector reads a light on its first frame (round the candidates, then round the pieces it
    fitted) and holds it; given that light, its discs on soft strong shadows lie closer to where they
    stand than with the mat's shade read from its own pixels alone (summed over four views)."""
    from vision.detect import DetectConfig, Detector

    cfg = DetectConfig.load()
    assert cfg.shadow_light and cfg.refine.shadow_prior > 0
    on_total = off_total = 0.0
    for seed in (5, 6):
        for tilt in (35.0, 45.0):
            board, pieces, style, T, shaded, _, empty = _scene(seed=seed, tilt=tilt, blur=4.0, strength=0.5)
            first = Detector(board, T, specs=SPECS, background=empty, config=cfg, method="classical", attributes=False)
            first(shaded, 0, 0.0)
            assert first.light is not None and first.light.strength == pytest.approx(style.shadow_strength, abs=0.15)
            det = Detector(board, T, specs=SPECS, background=empty, config=cfg, method="classical", attributes=False,
                           light=first.light)
            on = det(shaded, 0, 0.0)
            assert det.light is first.light  # (held: read again only every shadow_light_every calls)
            off = Detector(board, T, specs=SPECS, background=empty, config=replace(cfg, shadow_light=False),
                           method="classical", attributes=False)(shaded, 0, 0.0)
            for p in pieces:
                on_total += float(np.min(np.hypot(*(on.xy - [p.x, p.y]).T)))
                off_total += float(np.min(np.hypot(*(off.xy - [p.x, p.y]).T)))
    assert on_total < 0.97 * off_total, (on_total, off_total)


def test_no_shadows_no_light_and_it_is_looked_for_only_at_its_turn(monkeypatch):
    """On a table without shadows no light is read, and the detector does not look for one on every
    frame (it costs a sixth of a frame): on the first call, then every ``shadow_light_every`` calls."""
    import vision.shadows as vs
    from vision.detect import DetectConfig, Detector

    board, pieces, style, T, _, unshaded, empty = _scene(strength=0.0)
    calls = []
    real = vs.estimate_light
    monkeypatch.setattr(vs, "estimate_light", lambda *a, **k: calls.append(1) or real(*a, **k))
    cfg = replace(DetectConfig.load(), shadow_light_every=4)
    det = Detector(board, T, specs=SPECS, background=empty, config=cfg, method="classical", attributes=False)
    for i in range(9):
        det(unshaded, i, i / 30)
    assert det.light is None
    # the first call: round the candidates and round the fitted pieces; then at calls 4 and 8
    assert len(calls) == 4, len(calls)


def test_where_no_light_is_held_the_blur_is_picked_with_the_shade_read_from_the_mat():
    """Morris eggs (3 mm up) cast no shadow a light can be read from: their soft shadow beside the base
    read as a softer outline. Where no light predicts the shade, the image's blur is picked with the
    mat's shade read from its own pixels: the eggs pick the blur they pick without shadows more often,
    and lie closer to where they stand (summed over four views)."""
    from vision.detect import DetectConfig
    from vision.refine import _model_fit

    cfg = DetectConfig.load().refine
    assert cfg.pick_shade_read_below_mm > 3.0
    board = load_board("morris/waterfall")
    g = board.game
    spots = [(90, 90), (230, 110), (370, 95), (505, 120), (110, 330), (250, 350), (390, 330), (510, 340)]
    colours = ("blue", "purple", "red", "yellow")
    pieces = [piece(SPECS, g, "egg", f"e{i}", x, y, colour=colours[i % 4], face="whole" if i % 2 else "broken")
              for i, (x, y) in enumerate(spots)]
    scene = Scene(g, board.ref, pieces)
    err = {True: 0.0, False: 0.0}
    same = {True: 0, False: 0}
    for seed, tilt, strength, blur, azimuth in ((5, 35.0, 0.5, 4.5, 200.0), (6, 25.0, 0.55, 5.0, 120.0),
                                                (7, 45.0, 0.5, 4.0, 300.0), (8, 15.0, 0.5, 5.0, 30.0)):
        style = replace(clean_style(), shadow_strength=strength, shadow_blur_px=blur, light_azimuth_deg=azimuth,
                        light_elevation_deg=45.0)
        cam = framed_camera(np.random.default_rng(seed), board, tilt=(tilt, tilt))
        T = cam.transform()
        shaded = render_scene(board, scene, cam, style, 1).image
        unshaded = render_scene(board, scene, cam, replace(style, shadow_strength=0.0), 1).image
        empty = render_scene(board, Scene(g, board.ref, []), cam, style, 2).image
        for p in pieces:
            plain = _model_fit(unshaded, empty, T, (p.x, p.y), p.radius, p.height, cfg)
            for on in (True, False):
                below = cfg.pick_shade_read_below_mm if on else 0.0
                fit = _model_fit(shaded, empty, T, (p.x, p.y), p.radius, p.height,
                                 replace(cfg, pick_shade_read_below_mm=below))
                err[on] += float(np.hypot(*(fit.c - (p.x, p.y))))
                same[on] += fit.blur == plain.blur
    assert same[True] >= same[False] + 3, same
    assert err[True] < 0.9 * err[False], err


def test_a_thin_piece_whose_fit_in_the_read_shade_fails_is_fitted_with_the_blur_picked_as_before():
    """A purple egg, its dark wall beside a pale mat (the vision bench's wide tuning frame 43 of seed 8,
    no light held): the blur picked with the mat's shade read from its own pixels is the softest, and
    the outline shrinks past what a piece of its size may; the refinement fits it again with the blur
    picked as for the taller pieces, and places it."""
    from vision.bench import bench_frames
    from vision.detect import DetectConfig
    from vision.refine import _fit_ok, _model_fit, refine_model

    fr = next(bench_frames(1, "wide", 8, start=43))
    cfg = DetectConfig.load().refine
    egg = next(t for t in fr.truth if t["id"] == "egg-1")
    start = egg["xy"] + (-0.5, -1.0)  # (where the classical detector's candidate lies)
    read = _model_fit(fr.image, fr.empty, fr.transform, start, 15.0, 3.0, cfg)
    assert not _fit_ok(read, start, cfg) and read.growth_px < -cfg.growth_ok_px
    res = refine_model(fr.image, fr.empty, fr.transform, start[None], [15.0], [3.0], cfg, radius_choices=[[15.0, 35.0]])
    assert res.ok[0] and res.choice[0] == 0
    assert np.hypot(*(res.xy[0] - egg["xy"])) < 2.0
