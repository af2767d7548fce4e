"""The vision benchmark's pieces: the framed camera, one-to-one matching, and what counts."""

import numpy as np
import pytest

from calibration.board import load_board
from vision.bench import BenchFrame, Tally, framed_camera, match, score_frame, summarise
from vision.core import Observation

BOARD = load_board("dino-dunk/tropic-turf")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_framed_camera_fills_the_frame_with_the_mat(seed):
    cam = framed_camera(np.random.default_rng(seed), BOARD)
    T = cam.transform()
    corners = T.mat_to_image(BOARD.corners_mm())
    w, h = cam.size
    assert np.all(corners >= 0) and np.all(corners[:, 0] <= w - 1) and np.all(corners[:, 1] <= h - 1)
    span = corners.max(axis=0) - corners.min(axis=0)
    assert span[0] > 0.7 * w  # the mat's length runs across most of the width
    assert 0.0 <= cam.params["tilt_deg"] <= 50.0


@pytest.mark.parametrize("det,truth,gate,expected", [
    ([[0, 0]], [[1, 0]], [5], [(0, 0)]),  # within the gate
    ([[0, 0]], [[9, 0]], [5], []),  # beyond it
    ([[0, 0], [10, 0]], [[9, 0], [1, 0]], [5, 5], [(0, 1), (1, 0)]),  # one-to-one, nearest pairs
    ([[0, 0], [1, 0]], [[0.5, 0]], [5], [(0, 0)]),  # two detections on one piece: one match
    (np.zeros((0, 2)), [[1, 0]], [5], []),  # empty in, empty out
])
def test_match(det, truth, gate, expected):
    got = match(np.asarray(det, float).reshape(-1, 2), np.asarray(truth, float).reshape(-1, 2), np.asarray(gate, float))
    assert sorted(got) == sorted(expected)


def _piece(pid, kind, x, y, visible=1.0, z=0.0, radius=19.0):
    return {"id": pid, "kind": kind, "xy": np.array([x, y]), "visible": visible, "z": z, "moving": False,
            "radius": radius, "attributes": {}}


def test_score_frame_counts_recall_precision_and_dont_care():
    truth = [_piece("a", "disc-medium", 100, 100), _piece("b", "disc-medium", 300, 100),
             _piece("c", "disc-medium", 500, 100, visible=0.5),  # hidden: don't care
             _piece("d", "ball", 700, 100, z=20.0, radius=9.5)]  # in the air: don't care
    fr = BenchFrame(None, None, None, BOARD, truth, "dino-dunk/shots", 2.0)
    obs = Observation.from_pieces([
        {"xy": [100.3, 100.4], "radius": 19, "kind": "disc-medium", "sigma": 0.3},  # a: right
        {"xy": [500.0, 100.0], "radius": 19, "kind": "disc-medium", "sigma": 0.3},  # c: don't care
        {"xy": [900.0, 500.0], "radius": 19, "kind": "disc-large", "sigma": 0.3},  # nothing there: wrong
    ])
    t = Tally()
    score_frame(t, obs, fr, {"disc-medium", "ball"}, {"disc-medium", "ball"})
    assert (t.tp, t.fn, t.fp) == (1, 1, 1)
    assert t.err_round == [pytest.approx(0.5)] and t.kind_ok == 1
    s = summarise(t)
    assert s["recall"] == 0.5 and s["precision"] == 0.5
    assert s["round"]["within_3sigma"] == 1.0


def test_a_find_of_a_piece_in_the_air_is_no_false_find():
    T = framed_camera(np.random.default_rng(2), BOARD, tilt=(40.0, 40.0)).transform()
    egg = _piece("e", "ball", 450, 300, z=60.0, radius=9.5)
    egg["height"] = 9.0
    fr = BenchFrame(None, None, T, BOARD, [egg], "dino-dunk/shots", 2.0)
    # where the camera sees its top, placed on the plane of a ball's top: the ray, far from its base
    seen = T.image_to_mat(T.mat_to_image(np.array([[450.0, 300.0]]), 69.0), 9.0)[0]
    assert np.linalg.norm(seen - [450, 300]) > 30.0
    obs = Observation.from_pieces([{"xy": seen, "radius": 9.5, "height": 9.0, "kind": "ball", "sigma": 0.5},
                                   {"xy": seen + [0.0, 40.0], "radius": 9.5, "height": 9.0, "kind": "ball", "sigma": 0.5}])
    t = Tally()
    score_frame(t, obs, fr, {"ball"}, {"ball"})
    assert (t.tp, t.fn, t.fp) == (0, 0, 1)  # the first is the egg in the air (don't care), the second on nothing


class _Toward:
    """A registration stand-in that has only the camera's centre (above mat mm (0, 100))."""

    def camera_centre_mm(self):
        return np.array([0.0, 100.0, -800.0])


def test_score_frame_lists_each_piece_with_its_error_and_sigma():
    truth = [_piece("a", "disc-medium", 100, 100), _piece("b", "ball", 300, 100, radius=9.5),
             _piece("c", "disc-medium", 500, 100, visible=0.9)]  # counted for recall, not for position
    fr = BenchFrame(None, None, _Toward(), BOARD, truth, "dino-dunk/shots", 2.0, {"tilt_deg": 30.0})
    obs = Observation.from_pieces([
        {"xy": [99.0, 100.0], "radius": 19, "kind": "disc-medium", "sigma": 0.4},  # 1 mm toward the camera
        {"xy": [300.0, 102.0], "radius": 14.5, "kind": "disc-small", "sigma": 0.9},  # the wrong size, 2 mm across
        {"xy": [500.0, 100.0], "radius": 19, "kind": "disc-medium", "sigma": 0.3},
    ])
    t = Tally()
    score_frame(t, obs, fr, {"disc-medium", "ball"}, {"disc-medium", "ball"}, index=7)
    rows = {r["id"]: r for r in t.pieces}
    assert set(rows) == {"a", "b"}
    a, b = rows["a"], rows["b"]
    assert a["frame"] == 7 and a["tilt_deg"] == 30.0 and a["kind"] == a["found"] == "disc-medium"
    assert a["error_mm"] == pytest.approx(1.0) and a["toward_camera"] == pytest.approx(1.0) and a["sigma_mm"] == 0.4
    assert b["found"] == "disc-small" and b["error_mm"] == pytest.approx(2.0) and b["toward_camera"] == pytest.approx(0.0, abs=1e-9)
    assert (b["dx"], b["dy"]) == pytest.approx((0.0, 2.0))
    # the list holds the same errors the figures are made of
    assert sorted(r["error_mm"] for r in t.pieces) == pytest.approx(sorted(t.err_round))
    assert summarise(t)["pieces"] == t.pieces


def test_a_second_find_of_a_piece_is_wrong_and_a_find_on_a_piece_left_unmatched_is_not():
    from shapely import affinity, box

    log = _piece("log", "log", 400, 300, visible=0.6, radius=9.0)  # part hidden: don't care
    log["footprint"] = affinity.rotate(box(380, 291, 420, 309), 0.0)  # 40 x 18 mm along x
    truth = [_piece("a", "disc-medium", 100, 100), log, _piece("r", "racer", 600, 300, radius=12.5)]
    fr = BenchFrame(None, None, None, BOARD, truth, "dodo-dash/throws", 2.0)
    obs = Observation.from_pieces([
        {"xy": [100.2, 100.0], "radius": 19, "kind": "disc-medium", "sigma": 0.3},  # a: right
        {"xy": [106.0, 100.0], "radius": 19, "kind": "disc-medium", "sigma": 0.3},  # a again: a second find, wrong
        {"xy": [414.0, 300.0], "radius": 9, "kind": "log", "sigma": 2.0},  # on the hidden log's visible end: not wrong
        {"xy": [400.0, 314.0], "radius": 9, "kind": "log", "sigma": 2.0},  # 5 mm off the log's side: wrong
        {"xy": [612.0, 300.0], "radius": 12.5, "kind": "racer", "sigma": 2.0},  # r, 12 mm off: missed, but on it
    ])
    t = Tally()
    score_frame(t, obs, fr, {"disc-medium", "log", "racer"}, {"disc-medium"})
    assert (t.tp, t.fn, t.fp) == (1, 1, 2)
    wrong = sorted((f["xy"][0], f["duplicate"]) for f in t.false_positives)
    assert wrong == [(106.0, True), (400.0, False)]


def test_the_report_says_how_many_false_finds_are_second_finds():
    from vision.bench import format_report

    truth = [_piece("a", "disc-medium", 100, 100)]
    fr = BenchFrame(None, None, None, BOARD, truth, "dino-dunk/shots", 2.0)
    obs = Observation.from_pieces([{"xy": [100.2, 100.0], "radius": 19, "kind": "disc-medium", "sigma": 0.3},
                                   {"xy": [107.0, 100.0], "radius": 19, "kind": "disc-medium", "sigma": 0.3},
                                   {"xy": [400.0, 300.0], "radius": 19, "kind": "disc-medium", "sigma": 0.3}])
    t = Tally()
    score_frame(t, obs, fr, {"disc-medium"}, {"disc-medium"})
    t.frames = 1
    report = {"seed": 1, "frames_per_view": 1, "threads": 1, "model": None,
              "views": {"framed": {"mm_per_px_median": 2.0, "mm_per_px_range": [2.0, 2.0], "methods": {"classical": summarise(t)}}}}
    line = next(x for x in format_report(report).splitlines() if "tp 1 fn 0 fp 2" in x)
    assert "(1 a second find of a piece)" in line
