"""The classical detector's non-round path (vision/blobs.py): proposals from the foreground, the
classifier's window, and end to end on rendered frames (racers, projectile tokens, cards, the
Morris toucan whose head is not an egg)."""

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from calibration.board import load_board
from calibration.specs import load_specs
from sim.render import render_scene
from sim.scenarios.common import piece
from sim.scene import Scene
from sim.style import clean_style
from vision.bench import framed_camera
from vision.blobs import (CLASSES, DEFAULT_MODEL, GAME_CLASSES, BlobConfig, class_of, kind_of, proposals,
                          round_silhouettes, window_crop)
from vision.detect import Detector, piece_kinds

SPECS = load_specs()
needs_model = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no models/blobs/blobs.npz (tableref train blobs)")


class _Flat:
    """A top-down transform: 2 mm per image px, every height alike."""

    def image_to_mat(self, px, h=0.0):
        return np.asarray(px, float) * 2.0

    def mat_to_image(self, mm, h=0.0):
        return np.asarray(mm, float) / 2.0

    def mm_per_px(self, mm, h=0.0):
        return np.full(len(np.asarray(mm).reshape(-1, 2)), 2.0)


def test_every_game_class_names_a_kind_of_its_game():
    for game, classes in GAME_CLASSES.items():
        kinds = piece_kinds(SPECS, game)
        assert set(classes) <= set(CLASSES)
        for c in classes:
            k = kind_of(game, c, kinds)
            assert (k is None) == (c in ("nothing", "round")), (game, c, k)
    rk = {"disc-medium", "egg"}
    assert class_of("morris", "egg", rk) == "round" and class_of("dodo-dash", "egg", set()) == "dodo-egg"
    assert class_of("dogo-dash", "card", set()) == "card" and class_of("dodo-dash", "racer", set()) == "racer"


def test_a_position_sigma_by_kind_group_in_mm_and_in_image_px():
    """σ of a non-round find: its group's image px at the piece, at least its mm; racers have their
    own row (a racer's base is placed closer than a toucan's), the toucan and the hunter share the
    figures', and a config that has no racer row gives racers the figures' σ."""
    cfg = BlobConfig.load()
    assert cfg.sigma_of("racer", 1.8) == pytest.approx(2.5)  # 1.2 px × 1.8 mm/px under the 2.5 mm floor
    assert cfg.sigma_of("racer", 3.0) == pytest.approx(3.6)
    assert cfg.sigma_of("toucan", 1.8) == cfg.sigma_of("hunter", 1.8) == pytest.approx(3.5)
    assert cfg.sigma_of("banana", 1.0) == pytest.approx(2.0) and cfg.sigma_of("card", 2.0) == pytest.approx(5.0)
    old = BlobConfig(sigma_mm=(("figure", 3.5), ("token", 2.0), ("card", 3.0)),
                     sigma_px=(("figure", 1.8), ("token", 1.2), ("card", 2.5)))
    assert old.sigma_of("racer", 3.0) == pytest.approx(5.4)


def test_proposals_keep_pieces_drop_specks_and_split_two_touching_blobs():
    frame = np.full((200, 300, 3), 60, np.uint8)
    mask = np.zeros((200, 300), np.uint8)
    cv2.circle(mask, (50, 50), 12, 255, -1)  # one piece: 24 mm across at 2 mm/px
    cv2.circle(mask, (150, 120), 20, 255, -1)  # two pieces touching, different colours
    cv2.circle(mask, (188, 120), 20, 255, -1)
    cv2.circle(frame, (150, 120), 20, (0, 0, 200), -1)
    cv2.circle(frame, (188, 120), 20, (200, 0, 0), -1)
    cv2.circle(mask, (260, 30), 2, 255, -1)  # a speck
    config = BlobConfig(split_area_mm2=8000.0, min_area_mm2=100.0)
    props = proposals(frame, mask, _Flat(), config)
    centres = sorted(p.centre for p in props)
    assert len(props) == 3, centres
    assert np.allclose(centres[0], (50, 50), atol=0.5)
    assert abs(centres[1][0] - 150) < 4 and abs(centres[2][0] - 188) < 4
    for p in props:  # the region lies in the box and has the area reported
        assert p.region.shape == (p.box[3] - p.box[1], p.box[2] - p.box[0])
        assert p.area_mm2 == pytest.approx(p.region.sum() * 4.0)


def test_parts_too_small_alone_that_lie_together_are_one_proposal():
    """A figure whose difference broke into parts each under the least area (its cap and a piece of
    its rim, 3 px apart) is looked at as one part; a lone speck, and two specks too far apart or too
    small together, are not."""
    frame = np.full((200, 300, 3), 60, np.uint8)
    mask = np.zeros((200, 300), np.uint8)
    mask[40:45, 40:46] = 255  # 30 px, 120 mm² (4 mm² a px): under the 150 alone
    mask[48:52, 40:46] = 255  # 24 px, 96 mm², 3 px (6 mm) below it
    mask[100:103, 200:203] = 255  # a speck alone
    mask[150:153, 100:103] = 255  # two specks 2 px apart: 72 mm² together
    mask[150:153, 105:108] = 255
    mask[10:16, 250:255] = 255  # two parts 12 px apart
    mask[10:16, 270:275] = 255
    cfg = dict(split_area_mm2=8000.0, min_area_mm2=150.0)
    assert proposals(frame, mask, _Flat(), BlobConfig(**cfg)) == []  # off: nothing is big enough alone
    props = proposals(frame, mask, _Flat(), BlobConfig(join_small_mm=8.0, **cfg))
    assert len(props) == 1
    p = props[0]
    assert p.area_mm2 == pytest.approx(54 * 4.0) and p.box == (40, 40, 46, 52)
    assert p.region.shape == (12, 6) and p.region.sum() == 54 and not p.region[5:8].any()
    assert p.centre == pytest.approx((42.5, 40 + (30 * 2 + 24 * 9.5) / 54))


def test_window_crop_is_centred_and_dims_what_is_off_the_mask():
    frame = np.full((100, 100, 3), 200, np.uint8)
    keep = np.zeros((100, 100), bool)
    keep[:, :50] = True
    crop = window_crop(frame, (50, 50), 40, keep, dim=0.5, size=(40, 40))
    assert crop.shape == (40, 40, 3)
    assert crop[20, 5, 0] == 200 and crop[20, 35, 0] == 100


def test_round_silhouettes_cover_the_cylinder():
    sil = round_silhouettes(_Flat(), np.array([[100.0, 100.0]]), np.array([10.0]), np.array([5.0]), (100, 100), 0.0)
    assert sil[50, 50] == 255 and sil[50, 56] == 0 and sil[50, 44] == 0 and sil[50, 54] == 255


def _render(board_ref, pieces, seed=3, tilt=30.0):
    board = load_board(board_ref)
    scene = Scene(board.game, board.ref, pieces)
    cam = framed_camera(np.random.default_rng(seed), board, tilt=(tilt, tilt))
    res = render_scene(board, scene, cam, clean_style(), 1)
    empty = render_scene(board, Scene(scene.game, scene.board, []), cam, clean_style(), 2).image
    return board, res, empty, cam.transform()


def _found(obs, kind, xy):
    sel = np.nonzero(np.asarray(obs.kind) == kind)[0]
    if not len(sel):
        return np.inf
    return float(np.linalg.norm(obs.xy[sel] - np.asarray(xy), axis=1).min())


@needs_model
def test_finds_racers_and_projectile_tokens_on_a_dodo_dash_frame():
    g = "dodo-dash"
    pieces = [piece(SPECS, g, "racer", "racer-1", 300.0, 200.0, colour="red"),
              piece(SPECS, g, "racer", "racer-2", 520.0, 330.0, colour="blue"),
              piece(SPECS, g, "banana", "banana", 420.0, 180.0, angle_deg=30.0),
              piece(SPECS, g, "meteorite", "meteorite", 200.0, 380.0)]
    board, res, empty, T = _render("dodo-dash/dodorado-jungle", pieces)
    obs = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)(res.image)
    for p in pieces:
        d = _found(obs, p.kind, res.truth[p.id].base_mm)
        assert d < 8.0, (p.id, d, list(obs.kind), obs.xy)
    # nothing else: four pieces, four finds
    assert len(obs) == 4, list(obs.kind)


@needs_model
def test_finds_cards_on_a_dogo_dash_frame():
    g = "dogo-dash"
    pieces = [piece(SPECS, g, "card", "c1", 250.0, 200.0, angle_deg=10.0, card="cat", face_up=True),
              piece(SPECS, g, "card", "c2", 480.0, 260.0, angle_deg=80.0, card="dog", face_up=False)]
    board, res, empty, T = _render("dogo-dash/table", pieces)
    obs = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)(res.image)
    for p in pieces:
        d = _found(obs, "card", res.truth[p.id].base_mm)
        assert d < 12.0, (p.id, d, list(obs.kind), obs.xy)


@needs_model
def test_the_toucans_head_is_not_an_egg():
    g = "morris"
    board = load_board("morris/waterfall")
    tx, ty = 0.5 * board.length_mm, 0.55 * board.width_mm
    pieces = [piece(SPECS, g, "toucan", "toucan", tx, ty, angle_deg=200.0),
              piece(SPECS, g, "egg", "egg-1", tx + 90.0, ty + 10.0, colour="red", face="whole"),
              piece(SPECS, g, "egg", "egg-2", tx - 100.0, ty - 30.0, colour="blue", face="broken")]
    board, res, empty, T = _render("morris/waterfall", pieces, seed=5, tilt=45.0)
    toucan = np.asarray(res.truth["toucan"].base_mm)

    def round_near_toucan(obs):
        rnd = np.isin(np.asarray(obs.kind), ["egg", "shelter"])
        return int((np.linalg.norm(obs.xy[rnd] - toucan, axis=1) < 60.0).sum())

    # the round path alone takes the head for an egg: the scene shows the fault
    alone = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False, blobs=False)
    assert round_near_toucan(alone(res.image)) >= 1
    obs = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)(res.image)
    assert round_near_toucan(obs) == 0, (list(obs.kind), obs.xy, toucan)
    for pid in ("egg-1", "egg-2"):
        assert _found(obs, "egg", res.truth[pid].base_mm) < 3.0
    assert _found(obs, "toucan", toucan) < 15.0, (list(obs.kind), obs.xy, toucan)


@needs_model
def test_an_unchanged_frame_reuses_the_classifier_and_finds_the_same():
    g = "dodo-dash"
    pieces = [piece(SPECS, g, "racer", "racer-1", 300.0, 200.0, colour="red"),
              piece(SPECS, g, "banana", "banana", 420.0, 180.0, angle_deg=30.0)]
    board, res, empty, T = _render("dodo-dash/dodorado-jungle", pieces)
    det = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)
    a = det(res.image)
    assert det.blobs_reused == 0
    b = det(res.image)
    assert det.blobs_reused >= 2
    assert list(a.kind) == list(b.kind) and np.allclose(a.xy, b.xy)


def test_train_blobs_cli_renders_fits_and_writes_the_model(monkeypatch, tmp_path, capsys):
    import json

    import vision.blobs as blobs
    from cli.main import main

    calls = []

    class _Saved:
        def save(self, path):
            path.write_bytes(b"x")
            return path

    def fake_render(frames, seed=11, progress=None):
        calls.append((frames, seed))
        return blobs.BlobCrops([np.zeros((40, 40, 3), np.uint8)] * 2, ["racer", "nothing"], [0, 1], ["proposal"] * 2)

    def fake_train(data, epochs=12, meta=None, progress=None):
        if progress is not None:
            progress(1, epochs, [{"epoch": 1, "loss": 0.5}])
        return _Saved(), {"val": {"accuracy": 0.5, "n": 1}}

    monkeypatch.setattr(blobs, "render_crops", fake_render)
    monkeypatch.setattr(blobs, "train", fake_train)
    assert main(["train", "blobs", "--frames", "12", "--epochs", "3", "--out", str(tmp_path), "--quiet"]) == 0
    assert calls == [(12, 11)]
    assert (tmp_path / "blobs.npz").exists()
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["frames"] == 12 and metrics["epochs"] == 3 and metrics["counts"] == {"nothing": 1, "racer": 1}
    assert "validation accuracy 50.00%" in capsys.readouterr().out
    assert main(["train", "blobs", "--seed", "90210", "--out", str(tmp_path), "--quiet"]) == 2
    assert "90210" in capsys.readouterr().err and calls == [(12, 11)]


@needs_model
def test_auto_prefers_the_classical_path_with_the_classifier():
    board = load_board("dogo-dash/table")
    cam = framed_camera(np.random.default_rng(3), board, tilt=(30.0, 30.0))
    empty = render_scene(board, Scene(board.game, board.ref, []), cam, clean_style(), 2).image
    det = Detector(board, cam.transform(), specs=SPECS, background=empty, method="auto")
    assert det.method == "classical" and det.blob_model is not None and det.detector is None
    assert det.blob_kinds == {"card"}
    plain = Detector(board, cam.transform(), specs=SPECS, background=empty, method="classical", blobs=False)
    assert plain.blob_model is None and plain.blob_kinds == set()


def test_the_bench_counts_round_and_non_round_kinds_apart():
    from vision.bench import BenchFrame, Tally, score_frame, summarise_part
    from vision.core import Observation

    board = load_board("morris/waterfall")

    def truth(pid, kind, x, y, radius):
        return {"id": pid, "kind": kind, "xy": np.array([x, y]), "visible": 1.0, "z": 0.0, "moving": False,
                "radius": radius, "attributes": {}}

    fr = BenchFrame(None, None, None, board, [truth("e", "egg", 100, 100, 15), truth("t", "toucan", 300, 200, 22.5),
                                              truth("h", "hunter", 500, 200, 12.5)], "morris/eggs", 2.0)
    obs = Observation.from_pieces([
        {"xy": [100.5, 100.0], "radius": 15, "kind": "egg", "sigma": 0.5},
        {"xy": [303.0, 204.0], "radius": 22.5, "kind": "toucan", "sigma": 2.0},  # 5 mm off, σ 2: within 3σ
        {"xy": [300.0, 210.0], "radius": 15, "kind": "egg", "sigma": 0.5},  # the head: on the toucan, not wrong
        {"xy": [700.0, 300.0], "radius": 12.5, "kind": "hunter", "sigma": 2.0},  # on nothing: wrong
    ])
    reported, rk = {"egg", "shelter", "toucan", "hunter"}, {"egg", "shelter"}
    rnd, other = Tally(), Tally()
    score_frame(rnd, obs, fr, reported, rk, only=rk)
    score_frame(other, obs, fr, reported, rk, only={"toucan", "hunter"})
    r, o = summarise_part(rnd), summarise_part(other)
    assert (r["tp"], r["fn"], r["fp"]) == (1, 0, 0)
    assert (o["tp"], o["fn"], o["fp"]) == (1, 1, 1)
    assert o["position"]["median_mm"] == pytest.approx(5.0) and o["position"]["within_3sigma"] == 1.0
    assert o["per_kind"]["hunter"]["missed"] == 1 and o["per_kind"]["toucan"]["found"] == 1


@needs_model
def test_a_meteorite_lying_against_a_racer_is_cut_off_its_blob_and_found():
    import dataclasses

    g = "dodo-dash"
    for angle in (45.0, 135.0):  # in front of the racer, to one side and the other: one blob in the image
        a = np.radians(angle)
        pieces = [piece(SPECS, g, "racer", "racer-1", 200.0, 380.0, colour="blue"),
                  piece(SPECS, g, "meteorite", "meteorite", 200.0 + 25.0 * np.cos(a), 380.0 + 25.0 * np.sin(a))]
        board, res, empty, T = _render("dodo-dash/dodorado-jungle", pieces)
        det = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)
        assert det.blob_config.carve_min_mm2 > 0
        obs = det(res.image)
        assert _found(obs, "meteorite", res.truth["meteorite"].base_mm) < 3.0, (angle, list(obs.kind), obs.xy)
        assert _found(obs, "racer", res.truth["racer-1"].base_mm) < 4.0, (angle, list(obs.kind), obs.xy)
        assert len(obs) == 2, list(obs.kind)
        # without the cut the blob is taken for two racers, or one, and the meteorite is lost
        det.blob_config = dataclasses.replace(det.blob_config, carve_min_mm2=0.0)
        assert _found(det(res.image), "meteorite", res.truth["meteorite"].base_mm) == np.inf


def _bench_detect(seed, index, view, **blob):
    """Frame ``index`` of the vision bench (``seed``, ``view``), its truth by id, and what a fresh
    classical detector finds in it (``blob``: changes to its BlobConfig)."""
    import dataclasses

    from vision.bench import bench_frames

    fr = next(bench_frames(1, view, seed, start=index))
    det = Detector(fr.board, fr.transform, specs=SPECS, background=fr.empty, method="classical", attributes=False)
    if blob:
        det.blob_config = dataclasses.replace(det.blob_config, **blob)
    return fr, {t["id"]: t for t in fr.truth}, det(fr.image)


@needs_model
def test_a_racer_the_mask_holds_in_pieces_is_one_racer_not_tokens():
    # seed 1 frame 12 of the vision bench (framed): the red racer-5 stands on a red hex; the mask
    # holds its head and a part of its body apart, and each alone is named a token
    fr, truth, obs = _bench_detect(1, 12, "framed")
    assert fr.suite == "dodo-dash/throws" and np.allclose(truth["racer-5"]["xy"], [257.0, 453.4], atol=0.1)
    at = truth["racer-5"]["xy"]
    tokens = [i for i, k in enumerate(obs.kind) if k in ("meteorite", "log", "egg", "feather", "banana", "dodo")]
    near = [obs.kind[i] for i in tokens if np.linalg.norm(obs.xy[i] - at) < 20.0]
    assert not near, (near, list(obs.kind), obs.xy)
    assert _found(obs, "racer", at) < 7.5, (list(obs.kind), obs.xy)
    # the pieces joined again (blobs.regroup_reach) make the racer
    assert _found(_bench_detect(1, 12, "framed", regroup_reach=0.0)[2], "racer", at) > 7.5


@needs_model
def test_a_part_cut_off_a_blob_of_two_racers_is_not_reported_as_a_token():
    # seed 3 frame 42 of the vision bench (wide): racers 1 and 2 stand on neighbouring hexes in one
    # blob; the cut of tokens off one racer's silhouette takes a piece of the other for a dodo
    _, truth, obs = _bench_detect(3, 42, "wide")
    for r in ("racer-1", "racer-2", "racer-3"):
        assert _found(obs, "racer", truth[r]["xy"]) < 7.5, (r, list(obs.kind), obs.xy)
    assert _found(obs, "dodo", truth["racer-1"]["xy"]) > 20.0, (list(obs.kind), obs.xy)


@needs_model
def test_racers_beside_a_racer_in_its_blob_are_peeled_off_and_found():
    # seed 2 frame 52 of the vision bench (framed): racers 2, 4 and 3 stand in a row on neighbouring
    # hexes and make one blob, which its area and length count as two racers; placed by its base,
    # racer 2 leaves a part named racer: the two others, peeled off and cut in two
    _, truth, obs = _bench_detect(2, 52, "framed")
    for r in ("racer-1", "racer-2", "racer-3", "racer-4"):
        assert _found(obs, "racer", truth[r]["xy"]) < 7.5, (r, list(obs.kind), obs.xy)
    assert list(obs.kind).count("racer") == 4, list(obs.kind)
    obs = _bench_detect(2, 52, "framed", carve_peel=0.0)[2]  # a new detector: nothing reused
    assert max(_found(obs, "racer", truth[r]["xy"]) for r in ("racer-3", "racer-4")) > 7.5


def test_a_racers_base_fitted_to_the_frame_places_it_within_a_millimetre():
    """A racer stands on a round base: fitted as a cylinder (its body left out), its centre lands
    within a millimetre of the truth from a start 5 mm off across the view or away from the camera
    (the silhouette's place errs so); from a start toward the camera it can settle 2-3 mm short
    (the base's near rim, which the body then hides, pulls it), within 3σ; from a start beyond the
    gate the fit is not taken; its σ is at least the floor."""
    from vision.blobs import BlobConfig, fit_figure_base
    from vision.detect import DetectConfig

    g = "dodo-dash"
    pieces = [piece(SPECS, g, "racer", "racer-1", 300.0, 200.0, colour="red"),
              piece(SPECS, g, "racer", "racer-2", 520.0, 330.0, colour="grey")]
    board, res, empty, T = _render("dodo-dash/dodorado-jungle", pieces)
    bc, rc = BlobConfig.load(), DetectConfig.load().refine
    r, h = SPECS.piece(g, "racer").radius, SPECS.piece(g, "racer").height
    for p in pieces:
        truth = np.asarray(res.truth[p.id].base_mm, float)
        toward = T.camera_centre_mm()[:2] - truth
        toward /= np.hypot(*toward)
        across = np.array([-toward[1], toward[0]])
        for off in (5.0 * across, -5.0 * across, -5.0 * toward, 3.0 * (across - toward)):
            xy, sig = fit_figure_base(res.image, empty, T, truth + off, r, h, bc, rc)
            assert np.hypot(*(xy - truth)) < 1.0, (p.id, off, xy, truth)
            assert sig >= bc.base_sigma_mm
        xy, sig = fit_figure_base(res.image, empty, T, truth + 5.0 * toward, r, h, bc, rc)
        assert np.hypot(*(xy - truth)) < 3.0 * sig
        far = fit_figure_base(res.image, empty, T, truth - 12.0 * toward, r, h, bc, rc)  # beyond the gate (8 mm)
        assert far[0] is None and far[1] > bc.base_gate_fraction * r, far  # the base it found, and how far


@needs_model
def test_the_detector_places_racers_by_their_base_and_reuses_the_fit_on_an_unchanged_frame(monkeypatch):
    g = "dodo-dash"
    pieces = [piece(SPECS, g, "racer", "racer-1", 300.0, 200.0, colour="red"),
              piece(SPECS, g, "racer", "racer-2", 520.0, 330.0, colour="blue")]
    board, res, empty, T = _render("dodo-dash/dodorado-jungle", pieces)
    det = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)
    obs = det(res.image)
    for p in pieces:
        assert _found(obs, "racer", res.truth[p.id].base_mm) < 1.0
    import vision.blobs as blobs

    calls = []
    monkeypatch.setattr(blobs, "fit_figure_base", lambda *a, **k: calls.append(1))
    again = det(res.image.copy())  # the same image: no fit made again, the same places
    assert calls == [] and np.allclose(again.xy, obs.xy)
    import dataclasses

    plain = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)
    plain.blob_config = dataclasses.replace(plain.blob_config, base_fit=False)
    silhouette = plain(res.image)
    assert max(_found(silhouette, "racer", res.truth[p.id].base_mm) for p in pieces) > 1.0  # (the fit is what places them)


def test_the_gate_is_a_part_of_the_figures_radius():
    """The toucan's silhouette can place it 9-13 mm off (the bench's tuning seeds), where its base
    (45 mm across) is found: from a start 11 mm off, beyond a racer's 8 mm, its base is taken."""
    from vision.blobs import BlobConfig, fit_figure_base
    from vision.detect import DetectConfig

    pieces = [piece(SPECS, "morris", "toucan", "toucan", 450.0, 300.0)]
    board, res, empty, T = _render("morris/waterfall", pieces, seed=3, tilt=30)
    bc, rc = BlobConfig.load(), DetectConfig.load().refine
    r, h = SPECS.piece("morris", "toucan").radius, SPECS.piece("morris", "toucan").height
    truth = np.asarray(res.truth["toucan"].base_mm, float)
    toward = T.camera_centre_mm()[:2] - truth
    toward /= np.hypot(*toward)
    across = np.array([-toward[1], toward[0]])
    assert bc.base_gate_fraction * SPECS.piece("dodo-dash", "racer").radius < 11.0 < bc.base_gate_fraction * r
    for off in (11.0 * across, -11.0 * across):
        xy, sig = fit_figure_base(res.image, empty, T, truth + off, r, h, bc, rc)
        assert np.hypot(*(xy - truth)) < 1.0, (off, xy, truth)


@needs_model
def test_a_base_found_beyond_the_gate_leaves_the_place_and_widens_its_sigma(monkeypatch):
    """Where the base's fit lands farther from the silhouette's place than the gate, the figure may
    stand at either place: the silhouette's place stays, its σ grows by half the distance."""
    import vision.blobs as blobs

    g = "dodo-dash"
    pieces = [piece(SPECS, g, "racer", "racer-1", 300.0, 200.0, colour="red")]
    board, res, empty, T = _render("dodo-dash/dodorado-jungle", pieces)

    def detect(fit):
        monkeypatch.setattr(blobs, "fit_figure_base", fit)
        det = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)
        obs = det(res.image)
        i = int(np.flatnonzero(np.asarray(obs.kind) == "racer")[0])
        return obs.xy[i], float(obs.sigma[i])

    xy0, s0 = detect(lambda *a, **k: None)  # no base found: the silhouette's place and σ
    xy1, s1 = detect(lambda *a, **k: (None, 12.0))
    assert np.allclose(xy1, xy0) and abs(s1 - np.hypot(s0, 6.0)) < 1e-9


@needs_model
def test_the_toucan_is_placed_by_its_base_where_the_fit_holds():
    """The Morris toucan stands on a base too (``base_kinds``). Five placements: where the base's
    fit is taken the toucan is found within a millimetre, where it is not (a fit that failed) the
    silhouette's place stays; never worse than the silhouette's place, and better in most."""
    import dataclasses

    fitted, plain = [], []
    for x, y, tilt, seed in [(450, 300, 30, 3), (300, 200, 30, 3), (600, 400, 20, 3), (450, 300, 40, 5), (250, 350, 30, 4)]:
        pieces = [piece(SPECS, "morris", "toucan", "toucan", float(x), float(y))]
        board, res, empty, T = _render("morris/waterfall", pieces, seed=seed, tilt=tilt)
        det = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)
        assert "toucan" in det.blob_config.base_kinds
        fitted.append(_found(det(res.image), "toucan", res.truth["toucan"].base_mm))
        det = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)
        det.blob_config = dataclasses.replace(det.blob_config, base_kinds=("racer",))
        plain.append(_found(det(res.image), "toucan", res.truth["toucan"].base_mm))
    assert all(f <= p + 0.1 for f, p in zip(fitted, plain)), (fitted, plain)
    assert sum(f < 1.0 for f in fitted) >= 3 and sum(p < 1.0 for p in plain) == 0, (fitted, plain)


def _silhouette(T, rings):
    """A Proposal whose region is the image px hull of rectangles in the mat frame: ``rings`` a list of
    ((4, 2) mat mm corners, height mm), each edge sampled densely (the lens bends straight edges)."""
    import cv2

    from vision.blobs import Proposal

    pts = []
    for corners, h in rings:
        for i in range(4):
            for t in np.linspace(0.0, 1.0, 25, endpoint=False):
                pts.append([*(corners[i] + t * (corners[(i + 1) % 4] - corners[i])), -h])
    px = T.project_3d(np.array(pts))
    hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
    x0, y0 = np.floor(hull.min(0)).astype(int) - 2
    x1, y1 = np.ceil(hull.max(0)).astype(int) + 3
    big = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(big, [np.round((hull - [x0, y0]) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    ys, xs = np.nonzero(big)
    return Proposal((x0 + float(xs.mean()), y0 + float(ys.mean())), (int(x0), int(y0), int(x1), int(y1)), 0.0, big > 0)


@pytest.mark.parametrize("tilt", [25.0, 45.0])
def test_a_card_is_placed_by_its_silhouettes_centre_on_the_mat(tilt):
    """A card seen in perspective (about 2 mm a pixel): the image centroid of its silhouette lies
    toward the camera, a millimetre at 45°; the area centroid of its outline mapped onto the mat
    lies within a third of a pixel of its centre. A draw pile 15 mm tall at 45°: its silhouette is
    swept 8 mm away from the camera; the stack rule takes it back to within half a millimetre (at
    25° the sweep adds less than the rule's fifth of a card: it is left as one card)."""
    from vision.blobs import card_centre

    board = load_board("dogo-dash/table")
    T = framed_camera(np.random.default_rng(4), board, tilt=(tilt, tilt)).transform()
    a, b = 88.0, 63.0
    centre, ang = np.array([380.0, 260.0]), np.radians(25.0)
    u, v = np.array([np.cos(ang), np.sin(ang)]), np.array([-np.sin(ang), np.cos(ang)])
    foot = np.array([centre + sx * a / 2 * u + sy * b / 2 * v for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    card = _silhouette(T, [(foot, 0.3)])
    plain = T.image_to_mat(np.array([card.centre]), 0.15)[0]  # the image centroid, mapped
    err = np.hypot(*(card_centre(T, card, 0.15) - centre))
    assert err < 0.6
    pile = _silhouette(T, [(foot, 0.0), (foot, 15.0)])
    flat = card_centre(T, pile, 0.15)
    stacked = card_centre(T, pile, 0.15, (a, b), 1.2)
    if tilt >= 45.0:
        assert np.hypot(*(plain - centre)) > err + 0.5
        assert np.hypot(*(flat - centre)) > 6.0 and np.hypot(*(stacked - centre)) < 0.6
        # the mask's outline a pixel outside the pile all round (as a blurred frame's difference lies):
        # that pixel is the card's silhouette too, not the sweep, where grow_px says so
        import cv2
        from vision.blobs import Proposal

        reg = cv2.dilate(np.pad(pile.region, 1).astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))) > 0
        x0, y0, x1, y1 = pile.box
        wide = Proposal(pile.centre, (x0 - 1, y0 - 1, x1 + 1, y1 + 1), 0.0, reg)
        grown = card_centre(T, wide, 0.15, (a, b), 1.2, grow_px=1.0)
        assert np.hypot(*(grown - centre)) < 0.6
        assert np.hypot(*(card_centre(T, wide, 0.15, (a, b), 1.2) - centre)) > 1.5
    else:
        assert np.allclose(stacked, flat)
    # one card is no stack: the rule leaves it
    assert np.allclose(card_centre(T, card, 0.15, (a, b), 1.2), card_centre(T, card, 0.15))


@needs_model
def test_the_detector_places_a_card_by_its_centre_on_the_mat():
    import dataclasses

    pieces = [piece(SPECS, "dogo-dash", "card", "card-1", 380.0, 260.0, 25.0, card="dog", face_up=True)]
    board, res, empty, T = _render("dogo-dash/table", pieces, seed=4, tilt=45.0)
    truth = res.truth["card-1"].base_mm
    det = Detector(board, T, specs=SPECS, background=empty, method="classical", attributes=False)
    assert det.blob_config.card_centre and det._card_size["card"] == (88.0, 63.0)
    near = _found(det(res.image), "card", truth)
    det.blob_config = dataclasses.replace(det.blob_config, card_centre=False)
    before = _found(det(res.image), "card", truth)
    assert near < 0.6 and before > near + 0.4, (near, before)


@needs_model
def test_a_racers_body_and_head_named_two_tokens_are_one_racer():
    # tuning seed 6 frame 17 of the vision bench (framed): racer-1's body alone is named a meteorite and
    # its pale head an egg (0.99); joined, the union is named racer less surely than the head is an egg,
    # but the head lies within the silhouette of the racer standing at the union's base (regroup_within)
    fr, truth, obs = _bench_detect(6, 17, "framed")
    at = truth["racer-1"]["xy"]
    assert _found(obs, "racer", at) < 7.5, (list(obs.kind), obs.xy)
    tokens = [k for k, xy in zip(obs.kind, obs.xy) if k not in ("racer", "toucan", "hunter", "card")
              and np.linalg.norm(xy - at) < 40.0]
    assert not tokens, tokens
    before = _bench_detect(6, 17, "framed", regroup_within=0.0)[2]
    assert _found(before, "racer", at) > 7.5
    assert any(k == "egg" and np.linalg.norm(xy - at) < 40.0 for k, xy in zip(before.kind, before.xy))
