"""No more finds of a kind than the game's box holds (the specs' ``count``, from the rulebooks'
components): one hunter, one toucan, one of each Dodo Dash projectile. Of more, the surest stay
(the smaller σ, then the higher confidence); kinds the specs give no count, and the round kinds told
apart by their size alone (the discs, the ball), are left be."""

import numpy as np
import pytest

pytest.importorskip("cv2")

from calibration.board import list_boards, load_board
from calibration.specs import load_specs
from vision.core import Observation
from vision.detect import DetectConfig, Detector


def _detector(game: str) -> Detector:
    from vision.bench import framed_camera

    board = load_board(next(b for b in list_boards() if b.startswith(game + "/")))
    T = framed_camera(np.random.default_rng(3), board, tilt=(30.0, 35.0)).transform()
    empty = np.full((480, 640, 3), 120, np.uint8)
    return Detector(board, T, specs=load_specs(), background=empty, method="classical", config=DetectConfig.load())


def test_the_counts_are_the_rulebooks():
    specs = load_specs()
    want = {("dino-dunk", "ball"): 1, ("dino-dunk", "disc-large"): 2, ("dino-dunk", "disc-medium"): 12,
            ("dino-dunk", "disc-small"): 2, ("morris", "toucan"): 1, ("morris", "hunter"): 1,
            ("dodo-dash", "meteorite"): 1, ("dodo-dash", "log"): 1, ("dodo-dash", "egg"): 1,
            ("dodo-dash", "feather"): 1, ("dodo-dash", "banana"): 1, ("dodo-dash", "dodo"): 1,
            ("dodo-dash", "racer"): 9}
    for (game, name), n in want.items():
        assert specs.piece(game, name).count == n, (game, name)


def test_a_second_projectile_or_hunter_is_dropped_and_the_surer_stays():
    det = _detector("dodo-dash")
    assert det.config.kind_counts and det.kinds["meteorite"].count == 1
    # two meteorites (the one placed surely stays), two logs at the same σ (the more confident stays),
    # three racers (the box holds nine)
    xy = [[300.0, 300.0], [420.0, 310.0], [100.0, 100.0], [200.0, 100.0], [300.0, 100.0], [500.0, 300.0],
          [560.0, 300.0]]
    kinds = ["meteorite", "meteorite", "log", "log", "racer", "racer", "racer"]
    obs = Observation(xy, [11.0, 11.0, 22.0, 22.0, 12.5, 12.5, 12.5], [4.0, 4.0, 18.0, 18.0, 45.0, 45.0, 45.0], kinds,
                      [0.9, 0.9, 0.7, 0.95, 0.9, 0.9, 0.9], [3.2, 0.8, 2.0, 2.0, 1.0, 1.0, 1.0])
    kept = det._within_counts(obs)
    assert sorted(map(tuple, kept.xy)) == sorted(tuple(obs.xy[i]) for i in (1, 3, 4, 5, 6))
    # as many as the box holds, or fewer: nothing is dropped
    assert len(det._within_counts(obs[np.array([1, 3, 4, 5, 6])])) == 5
    # Morris: two hunters at the same σ, one of them a cup at the mat's edge, named less surely
    morris = _detector("morris")
    two = Observation([[-30.0, 40.0], [400.0, 300.0], [450.0, 320.0]], [12.5, 12.5, 15.0], [50.0, 50.0, 3.0],
                      ["hunter", "hunter", "egg"], [0.7, 0.98, 0.9], [1.0, 1.0, 0.5])
    assert sorted(map(tuple, morris._within_counts(two).xy)) == [(400.0, 300.0), (450.0, 320.0)]


def test_sizes_told_apart_by_size_alone_are_not_limited():
    """Dino Dunk's discs and the ball differ by their size only: three finds at the large size may be
    a medium disc fitted too large, a wrong size, not a false find; all stay."""
    det = _detector("dino-dunk")
    assert det.kinds["ball"].count == 1 and det.kinds["disc-large"].count == 2
    obs = Observation([[300.0, 300.0], [420.0, 310.0], [100.0, 100.0], [200.0, 100.0], [300.0, 100.0]],
                      [9.5, 9.5, 25.5, 25.5, 25.5], [9.0] * 5, ["ball", "ball", "disc-large", "disc-large", "disc-large"],
                      [0.9] * 5, [3.2, 0.8, 0.6, 2.0, 0.7])
    assert len(det._within_counts(obs)) == 5


def test_the_detector_reports_one_hunter_however_many_the_frame_shows():
    """Through the whole detector: a Morris frame with two hunter figures gives one hunter."""
    from dataclasses import replace

    from sim.scene import PieceState, Scene
    from sim.style import clean_style
    from vision.bench import framed_camera, render_with_empty

    board = load_board(next(b for b in list_boards() if b.startswith("morris/")))
    camera = framed_camera(np.random.default_rng(5), board, (640, 480), tilt=(20.0, 25.0))
    places = ([300.0, 250.0], [600.0, 350.0])
    pieces = [PieceState(f"hunter-{i}", "hunter", x, y, radius=12.5, height=50.0) for i, (x, y) in enumerate(places)]
    pieces.append(PieceState("egg-1", "egg", 450.0, 200.0, radius=15.0, height=3.0,
                             attributes={"colour": "red", "face": "whole"}))
    res, empty = render_with_empty(board, Scene("morris", board.ref, pieces, 0.0), camera, clean_style(), 11, 0)
    T = camera.transform()
    det = Detector(board, T, specs=load_specs(), background=empty, method="classical", config=DetectConfig.load())
    obs = det(res.image, 0, 0.0)
    hunters = [i for i, k in enumerate(obs.kind) if k == "hunter"]
    assert len(hunters) == 1
    assert min(np.hypot(*(obs.xy[hunters[0]] - p)) for p in places) < 5.0
    assert any(k == "egg" for k in obs.kind)
    # without the limit both are reported: what the test guards
    free = Detector(board, T, specs=load_specs(), background=empty, method="classical",
                    config=replace(DetectConfig.load(), kind_counts=False))
    assert sum(k == "hunter" for k in free(res.image, 0, 0.0).kind) == 2
