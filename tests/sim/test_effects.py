"""sim/effects.py and sim/style.py: each effect against a plain expectation, reproducibility, the
render.yaml loader."""

import math

import numpy as np
import pytest

from calibration.board import load_board
from sim import effects
from sim.camera import look_at
from sim.render import render_scene
from sim.scene import PieceState, Scene
from sim.style import Occluder, RenderConfigError, clean_style, load_render_config, random_style


def test_shadow_points_fall_away_from_the_light():
    style = clean_style(light_azimuth_deg=0.0, light_elevation_deg=45.0)  # light towards +x, 45° up
    pts = np.array([[100.0, 50.0, 0.0], [100.0, 50.0, -10.0]])
    sh = effects.shadow_points(pts, style)
    assert np.allclose(sh[0], [100, 50, 0])
    assert np.allclose(sh[1], [90, 50, 0])  # 10 mm up at 45° → 10 mm away from the light


def test_shadows_darken_the_union_of_overlapping_polygons():
    img = np.full((60, 60, 3), 200, np.uint8)
    style = clean_style(shadow_strength=0.5, shadow_blur_px=0.0)
    a = np.array([[10, 10], [30, 10], [30, 30], [10, 30]], float)
    b = a + 10
    effects.apply_shadows(img, [a, b], style)
    assert img[20, 20, 0] == img[15, 15, 0] == img[35, 35, 0] < 110  # overlap no lighter than either
    assert img[5, 5, 0] == 200 and img[50, 10, 0] == 200


def test_noise_has_the_asked_sigma_and_is_reproducible():
    img = np.full((120, 160, 3), 128, np.uint8)
    a = effects.apply_noise(img, 3.0, np.random.default_rng(1))
    b = effects.apply_noise(img, 3.0, np.random.default_rng(1))
    c = effects.apply_noise(img, 3.0, np.random.default_rng(2))
    assert a.tobytes() == b.tobytes() and a.tobytes() != c.tobytes()
    d = a.astype(float) - 128
    assert abs(d.mean()) < 0.1 and 2.7 < d.std() < 3.3
    assert effects.apply_noise(img, 0.0, np.random.default_rng(1)) is img


def test_lighting_gain_and_neutral_style():
    img = np.full((40, 50, 3), 100, np.uint8)
    assert effects.apply_lighting(img, clean_style()) is img
    out = effects.apply_lighting(img, clean_style(brightness=0.5, colour_gain=(1.0, 1.0, 1.2)))
    assert abs(int(out[20, 25, 0]) - 50) <= 1 and abs(int(out[20, 25, 2]) - 60) <= 1
    vig = effects.apply_lighting(img, clean_style(vignette=0.3))
    assert vig[0, 0, 0] < vig[20, 25, 0]


def test_jpeg_round_trip():
    rng = np.random.default_rng(0)
    img = (rng.random((64, 64, 3)) * 60 + 100).astype(np.uint8)
    assert effects.apply_jpeg(img, 0) is img
    out = effects.apply_jpeg(img, 50)
    assert out.shape == img.shape and out.tobytes() != img.tobytes()
    assert np.abs(out.astype(float) - img).mean() < 20


def test_motion_blur_smears_along_the_velocity():
    img = np.zeros((80, 80, 3), np.uint8)
    img[35:45, 35:45] = 255
    mask = np.zeros((10, 10), np.uint8) + 255
    effects.motion_blur(img, mask, (35, 45 - 10 + 0, 45, 45), np.array([600.0, 0.0]), 20.0)  # 12 px along x
    lit = img[:, :, 0] > 20
    ys, xs = np.nonzero(lit)
    assert xs.max() - xs.min() > 15 and ys.max() - ys.min() <= 11


def test_hand_occluder_hides_what_it_covers():
    board = load_board("dino-dunk/tropic-turf")
    cam = look_at((457, 305), 800, 0, 0, 0, 80)
    disc = PieceState("d", "disc-large", 457, 305, attributes={"team": "home"})
    scene = Scene("dino-dunk", board.ref, [disc])
    clear = render_scene(board, scene, cam, clean_style(), seed=0)
    hand = Occluder("hand", (120, 160, 220), edge=3, along=0.5, reach=0.35, angle_deg=0.0, width=0.15)
    hidden = render_scene(board, scene, cam, clean_style(occluders=(hand,)), seed=0)
    assert clear.truth["d"].visible == 1.0
    assert hidden.truth["d"].visible < 0.5
    assert np.any(hidden.labels == effects.OCCLUDER_LABEL)


def test_cup_occluder_stands_on_the_table_and_hides_pieces_behind_it():
    board = load_board("dino-dunk/tropic-turf")
    cam = look_at((457, 305), 700, 40, 0, 0, 80)
    behind = PieceState("d", "disc-medium", 457, 250, attributes={"team": "away"})  # camera is on the +y side
    cup = Occluder("cup", (240, 240, 240), x=457 / 914, y=300 / 610, radius_mm=40, height_mm=110)
    res = render_scene(board, Scene("dino-dunk", board.ref, [behind]), cam, clean_style(occluders=(cup,)), seed=0)
    assert res.truth["d"].visible < 0.5


def test_random_style_is_reproducible_and_in_range():
    cfg = load_render_config()
    a = random_style(np.random.default_rng(9), cfg)
    b = random_style(np.random.default_rng(9), cfg)
    assert a == b
    for k in range(30):
        s = random_style(np.random.default_rng(k), cfg)
        assert cfg.noise_sigma[0] <= s.noise_sigma <= cfg.noise_sigma[1]
        assert cfg.light_elevation_deg[0] <= s.light_elevation_deg <= cfg.light_elevation_deg[1]
        assert s.jpeg_quality == 0 or cfg.jpeg_quality[0] <= s.jpeg_quality <= cfg.jpeg_quality[1]
        assert tuple(s.table_colour) in cfg.table_colours


@pytest.mark.parametrize("text, key", [
    ("noise_sigma: [3, 1]\n", "noise_sigma"),              # lo > hi
    ("camera: {tilt_deg: [0, 95]}\n", "camera.tilt_deg"),  # beyond 85°
    ("table: {colours: [[1, 2]]}\n", "table.colours"),     # not B, G, R
    ("jpeg: {probability: 2}\n", "jpeg.probability"),      # not a probability
    ("schema: other/1\n", "schema"),
])
def test_render_config_errors_name_the_key(tmp_path, text, key):
    path = tmp_path / "my-render.yaml"
    path.write_text(text)
    with pytest.raises(RenderConfigError, match=key.replace(".", r"\.")):
        load_render_config(path)


def test_render_config_override_replaces_only_given_keys(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("noise_sigma: [0, 0]\ncamera: {height_mm: [500, 600]}\n")
    cfg = load_render_config(path)
    base = load_render_config()
    assert cfg.noise_sigma == (0.0, 0.0) and cfg.camera.height_mm == (500.0, 600.0)
    assert cfg.camera.tilt_deg == base.camera.tilt_deg and math.isclose(cfg.px_per_mm, base.px_per_mm)


def test_style_round_trips_through_json():
    import json

    from sim.style import Style

    for k in range(20):
        s = random_style(np.random.default_rng(k))
        back = Style.from_dict(json.loads(json.dumps(s.to_dict())))
        assert back == s
    with pytest.raises(RenderConfigError, match="unknown keys"):
        Style.from_dict({"fog": 1})


def test_glare_lifts_towards_white_at_its_centre_only():
    img = np.full((100, 200, 3), 100, np.uint8)
    out = effects.apply_glare(img, clean_style(glare_strength=0.5, glare_x=0.25, glare_y=0.5, glare_radius=0.05))
    assert abs(int(out[50, 50, 0]) - 178) <= 2  # 100 + 0.5 * (255 - 100)
    assert out[50, 190, 0] == 100 and out[2, 150, 0] == 100
    assert effects.apply_glare(img, clean_style()) is img


def test_defocus_keeps_an_edge_where_it_is():
    img = np.zeros((40, 40, 3), np.uint8)
    img[:, 20:] = 200
    out = effects.apply_defocus(img, 1.0)
    row = out[20, :, 0].astype(float)
    assert 0 < row[19] < 100 < row[20] < 200  # softened, and the 50 % level stays between 19 and 20
    assert abs((row[19] + row[20]) / 2 - 100) < 1
    assert effects.apply_defocus(img, 0.0) is img
