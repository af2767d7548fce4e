"""Detection end to end on simulator frames (clean style, a camera that frames the mat) and with a
stand-in YOLO detector built from the renderer's own boxes."""

import json

import numpy as np
import pytest

from calibration.board import load_board
from calibration.specs import load_specs
from sim.render import render_scene
from sim.scene import PieceState, Scene
from sim.style import clean_style
from vision.bench import framed_camera
from vision.detect import (DetectConfig, DetectError, Detector, class_to_kind, piece_kinds, rough_from_boxes,
                           round_kinds)
from vision.yolo import Detections

BOARD = load_board("dino-dunk/tropic-turf")
SPECS = load_specs()


def dino_scene():
    """Five discs of four sizes, apart, in mat mm; (id, kind, x, y, team)."""
    rows = [("home:1", "disc-large", 220.0, 180.0, "home"), ("away:1", "disc-medium", 430.0, 260.0, "away"),
            ("home:2", "disc-small", 640.0, 200.0, "home"), ("ball", "ball", 520.0, 420.0, ""),
            ("away:2", "disc-medium", 300.0, 430.0, "away")]
    pieces = []
    for pid, kind, x, y, team in rows:
        spec = SPECS.of_game("dino-dunk")[kind]
        pieces.append(PieceState(pid, kind, x, y, radius=spec.radius, height=spec.height,
                                 attributes={"team": team} if team else {}))
    return Scene("dino-dunk", BOARD.ref, pieces)


@pytest.fixture(scope="module")
def frame():
    """(image, empty mat, true transform, scene, render truth) through a tilted framed camera."""
    cam = framed_camera(np.random.default_rng(4), BOARD, tilt=(30.0, 30.0))
    scene = dino_scene()
    res = render_scene(BOARD, scene, cam, clean_style(), 1)
    empty = render_scene(BOARD, Scene(scene.game, scene.board, []), cam, clean_style(), 2).image
    return res.image, empty, cam.transform(), scene, res.truth


def _nearest(obs, xy):
    d = np.linalg.norm(obs.xy - np.asarray(xy), axis=1)
    return int(np.argmin(d)), float(d.min())


def test_classical_finds_every_disc_with_its_size_and_sub_mm(frame):
    image, empty, T, scene, _ = frame
    det = Detector(BOARD, T, specs=SPECS, background=empty, method="classical", attributes=False)
    obs = det(image, frame_index=3, timestamp=1.5)
    assert det.method == "classical" and obs.frame_index == 3 and obs.timestamp == 1.5
    assert len(obs) == len(scene.pieces)
    for p in scene.pieces:
        i, err = _nearest(obs, (p.x, p.y))
        assert obs.kind[i] == p.kind, (p.id, obs.kind[i])
        assert err < 0.8, (p.id, err)
        assert 0 < obs.sigma[i] < 1.5
    assert set(det.timings_ms) == {"detect", "refine", "blobs", "attributes"}


def test_yolo_path_maps_classes_refines_round_pieces_and_reports_hands(frame):
    image, empty, T, scene, truth = frame
    names = {0: "disc-large", 1: "disc-medium", 2: "disc-small", 3: "ball", 4: "racer", 5: "hand"}
    cls = {v: k for k, v in names.items()}
    boxes = [truth[p.id].bbox_px for p in scene.pieces]
    ids = [cls[p.kind] for p in scene.pieces]
    boxes.append((0.0, 0.0, 60.0, 90.0))  # a hand at the frame's corner
    ids.append(cls["hand"])
    boxes.append((10.0, 400.0, 30.0, 440.0))  # a racer: not a Dino Dunk piece, dropped
    ids.append(cls["racer"])

    def fake(img):
        return Detections(np.array(boxes), np.full(len(boxes), 0.9), np.array(ids), names)

    det = Detector(BOARD, T, specs=SPECS, background=empty, model=fake, method="yolo", attributes=False)
    obs = det(image)
    assert det.method == "yolo"
    assert len(obs) == len(scene.pieces)
    assert det.occluders.shape == (1, 4)
    for p in scene.pieces:
        i, err = _nearest(obs, (p.x, p.y))
        assert obs.kind[i] == p.kind and err < 0.8, (p.id, obs.kind[i], err)


@pytest.mark.parametrize("game,cls,expected", [
    ("dino-dunk", "disc-medium", "disc-medium"),  # same name
    ("dino-dunk", "tail", "tail"),
    ("dino-dunk", "racer", None),  # another game's piece
    ("dodo-dash", "dodo-egg", "egg"),  # the projectile egg
    ("morris", "dodo-egg", None),
    ("morris", "egg", "egg"),  # the egg token
    ("dogo-dash", "card-down", "card"),
    ("dino-dunk", "card-up", "character-card"),
    ("morris", "hand", None),  # occluders are not pieces
])
def test_class_to_kind(game, cls, expected):
    assert class_to_kind(game, cls, piece_kinds(SPECS, game)) == expected


def test_round_kinds_are_discs_and_round_tokens():
    assert {k.name for k in round_kinds(SPECS, "dino-dunk")} == {"disc-large", "disc-medium", "disc-small", "ball", "tail"}
    assert {k.name for k in round_kinds(SPECS, "morris")} == {"egg", "shelter"}
    assert round_kinds(SPECS, "dogo-dash") == []


def test_rough_from_boxes_empty_in_empty_out(frame):
    T = frame[2]
    assert rough_from_boxes(T, np.zeros((0, 4)), np.zeros(0)).shape == (0, 2)


def test_classical_needs_the_empty_mat(frame):
    with pytest.raises(DetectError, match="empty mat"):
        Detector(BOARD, frame[2], specs=SPECS, method="classical")
    with pytest.raises(DetectError, match="method"):
        Detector(BOARD, frame[2], specs=SPECS, method="magic")


def test_config_rejects_unknown_keys(tmp_path):
    (tmp_path / "c.yaml").write_text("detect:\n  nonsense: 1\n")
    with pytest.raises(ValueError, match="unknown keys"):
        DetectConfig.load(tmp_path / "c.yaml")


def test_cli_detect_json_and_annotate(frame, tmp_path, capsys):
    import cv2
    import yaml

    from cli.main import main

    image, empty, T, scene, _ = frame
    cv2.imwrite(str(tmp_path / "frame.png"), image)
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    (tmp_path / "reg.yaml").write_text(yaml.safe_dump(T.to_dict()))
    rc = main(["detect", str(tmp_path / "frame.png"), "--board", BOARD.ref, "--calibration", str(tmp_path / "reg.yaml"),
               "--background", str(tmp_path / "empty.png"), "--detector", "classical", "--no-attributes", "--json",
               "--annotate", str(tmp_path / "out.png")])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["detector"] == "classical" and len(out["pieces"]) == len(scene.pieces)
    assert {p["kind"] for p in out["pieces"]} == {p.kind for p in scene.pieces}
    assert cv2.imread(str(tmp_path / "out.png")).shape == image.shape


def test_live_loop_reuses_the_fit_of_pieces_that_did_not_move(frame):
    image, empty, T, scene, _ = frame
    det = Detector(BOARD, T, specs=SPECS, background=empty, method="classical", attributes=False)
    first = det(image)
    assert det.reused == 0
    again = det(image.copy())
    assert det.reused == len(scene.pieces)
    np.testing.assert_allclose(again.xy, first.xy)
    moved = image.copy()
    moved[:, :, 0] = 255 - moved[:, :, 0]  # everything changed: fit again
    det(moved)
    assert det.reused == 0


def test_live_loop_reuses_the_attributes_of_pieces_that_did_not_move(frame, monkeypatch):
    import vision.detect as detect

    image, empty, T, scene, _ = frame
    det = Detector(BOARD, T, specs=SPECS, background=empty, method="classical", attributes=True)
    calls = []
    real = detect._attributes

    def counting(frame, transform, obs, game, profile):
        calls.append(len(obs))
        return real(frame, transform, obs, game, profile)

    monkeypatch.setattr(detect, "_attributes", counting)
    first = det(image)
    assert calls == [len(first)] and det.attributes_reused == 0 and "team" in first.attributes
    again = det(image.copy())
    assert calls == [len(first)] and det.attributes_reused == len(first)  # nothing classified again
    assert list(again.attributes["team"]) == list(first.attributes["team"])
    # every patch changed (light flicker of ±8 grey levels): nothing is read while it changes
    flicker = np.random.default_rng(0).integers(-8, 9, image.shape)
    flickered = np.clip(image.astype(int) + flicker, 0, 255).astype(np.uint8)
    det(flickered)
    assert len(calls) == 1 and det.attributes_moving >= len(first) - 1 and det.attributes_reused == 0
    # ... and once it holds still, every piece is classified again
    det(flickered.copy())
    assert len(calls) == 2 and calls[-1] >= len(first) - 1 and det.attributes_reused == 0


def test_live_loop_leaves_a_moving_piece_unclassified_until_it_holds_still(frame):
    from dataclasses import replace

    from vision.detect import _boxes_of

    image, empty, T, scene, _ = frame
    det = Detector(BOARD, T, specs=SPECS, background=empty, method="classical", attributes=True,
                   config=replace(DetectConfig.load(), attributes_still=True))
    first = det(image)
    discs = [i for i, k in enumerate(first.kind) if str(k).startswith("disc-")]
    assert det.attributes_moving == 0 and discs and all(first.attributes["team"][i] for i in discs)
    # one disc's patch changes (it moves, blurred: here its pixels darkened a little)
    i = discs[0]
    x0, y0, x1, y1 = np.round(_boxes_of(T, first[[i]])[0]).astype(int)
    moved = image.copy()
    moved[y0:y1, x0:x1] = (moved[y0:y1, x0:x1] * 0.9).astype(np.uint8)
    second = det(moved)
    j = int(np.argmin(np.linalg.norm(second.xy - first.xy[i], axis=1)))
    assert det.attributes_moving == 1 and second.attributes["team"][j] == ""
    assert det.attributes_reused == len(second) - 1
    # the same frame again: it holds still, and is classified
    third = det(moved.copy())
    k = int(np.argmin(np.linalg.norm(third.xy - first.xy[i], axis=1)))
    assert det.attributes_moving == 0 and third.attributes["team"][k] == first.attributes["team"][i]


def test_hybrid_adds_yolo_pieces_the_difference_cannot_name(frame):
    image, empty, T, scene, truth = frame
    names = {0: "disc-medium", 1: "backboard"}
    far = (600.0, 300.0, 640.0, 316.0)  # a backboard box: not round, kept from YOLO

    def fake(img):
        return Detections(np.array([far]), np.array([0.8]), np.array([1]), names)

    det = Detector(BOARD, T, specs=SPECS, background=empty, model=fake, method="auto", attributes=False)
    assert det.method == "hybrid"
    obs = det(image)
    assert len(obs) == len(scene.pieces) + 1
    assert "backboard" in set(obs.kind)
