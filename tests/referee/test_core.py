import json

import numpy as np
import pytest

from referee.core import Circle, Polygon, RefereeError, Verdict, decide, make_verdicts, piece_sigma, quadrature
from referee.config import ConfigError, load_config, parse_config


@pytest.mark.parametrize("margin, sigma, k, expected", [
    (1.0, 0.1, 3, "yes"),        # well clear
    (-1.0, 0.1, 3, "no"),
    (0.3, 0.1, 3, "too_close"),  # exactly k σ: too close (|margin| <= k σ)
    (0.31, 0.1, 3, "yes"),
    (0.0, 0.0, 3, "too_close"),  # exactly on the threshold with no error: still not a guess
    (1e-9, 0.0, 3, "yes"),
    (float("inf"), 0.5, 3, "yes"),   # nothing in the way
    (float("nan"), 0.5, 3, "too_close"),  # no measurement
])
def test_decide(margin, sigma, k, expected):
    assert decide([margin], [sigma], k)[0] == expected


def test_decide_empty():
    assert decide([], [], 3).shape == (0,)
    assert make_verdicts([], [], 0, [], [], 3) == []


def test_verdict_to_dict_is_json_and_complete():
    v = make_verdicts(["ball overlaps zone"], [9.4], [9.5], [0.1], [0.01], 3.0,
                      evidence=[(Circle(1, 2, 3), Polygon(((0, 0), (1, 0), (1, 1))))], frame_ids=(7,),
                      detail=[{"piece": np.int64(3)}])[0]
    d = json.loads(json.dumps(v.to_dict()))
    assert d["answer"] == "yes" and d["leaning"] == "yes" and d["frame_ids"] == [7]
    assert d["evidence"][0] == {"type": "circle", "x": 1, "y": 2, "r": 3, "label": "", "role": "subject"}
    assert d["evidence"][1]["points"] == [[0, 0], [1, 0], [1, 1]]
    assert d["detail"] == {"piece": 3}
    assert "too_close" not in v.summary()


def test_verdict_rejects_unknown_answer():
    with pytest.raises(RefereeError):
        Verdict("q", "maybe", 0, 0, 0, 0, 3)


def test_sigma_combines_registration_and_detection():
    class T:  # a transform whose registration σ is 0.3 mm everywhere
        def sigma_mm(self, pts):
            return np.full(len(pts), 0.3)

    s = piece_sigma(T(), [[0, 0], [1, 1]], [0.4, 0.0])
    assert np.allclose(s, [0.5, 0.3])
    assert np.allclose(piece_sigma(None, [[0, 0]], [0.4], floor_mm=0.3), [0.5])
    assert np.isclose(quadrature(3, 4), 5)


def test_config_defaults_and_errors(tmp_path):
    cfg = load_config()
    assert cfg.k == 4.5 and cfg.line_of_sight == "any_segment"
    assert cfg.default_for("dino-dunk", "overlaps_zone") is False
    p = tmp_path / "r.yaml"
    p.write_text("k: 4\nline_of_sight: centre\n")
    cfg2 = load_config(p)
    assert cfg2.k == 4 and cfg2.line_of_sight == "centre" and cfg2.min_confidence == cfg.min_confidence
    with pytest.raises(ConfigError, match="line_of_sight"):
        parse_config({"line_of_sight": "psychic"})
    with pytest.raises(ConfigError, match="unknown|expected one of the keys"):
        parse_config({"kk": 3})


def test_observation_sigma_may_already_include_registration():
    from referee.pieces import gather
    from vision.core import Observation

    class T:
        cov_h = None

        def sigma_mm(self, pts):
            return np.full(len(pts), 0.3)

    obs = Observation.from_pieces([{"xy": [0, 0], "radius": 1, "sigma": 0.4}, {"xy": [5, 0], "radius": 1, "sigma": 0.1}])
    assert np.allclose(gather(obs, T()).sigma, [0.5, np.hypot(0.3, 0.1)])
    assert np.allclose(gather(obs, T(), sigma_includes_registration=True).sigma, [0.4, 0.3])


def test_pair_sigma_lets_the_shared_registration_error_cancel():
    from calibration.board import load_board
    from calibration.transform import homography_covariance
    from referee.core import pair_sigma, registration_sigma
    from sim.camera import look_at

    board = load_board("dino-dunk/crater-court")
    T = look_at((457, 305), 800, 30, 0, 0, 75, (960, 540)).transform()
    T.cov_h = homography_covariance(T.H, board.corners_mm(), 0.5)
    a, b = np.array([[200.0, 300.0]]), np.array([[260.0, 300.0]])
    same = pair_sigma(T, a, 0.3, a, 0.4)
    assert same[0] == pytest.approx(0.5)  # the same point: only the detections count
    near = pair_sigma(T, a, 0.0, b, 0.0)[0]
    assert 0 < near < np.hypot(*registration_sigma(T, np.vstack([a, b])))  # partly shared, so less than independent
    assert np.allclose(pair_sigma(None, a, 0.3, b, 0.4), 0.5)  # no covariance: plain quadrature
    assert pair_sigma(T, np.zeros((0, 2)), 0.3, np.zeros((0, 2)), 0.3).shape == (0,)
