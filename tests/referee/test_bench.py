"""The bench's noisy observer draws noise with the σ the observation claims; a small bench runs."""

import numpy as np

from calibration.board import load_board
from referee.bench import Observer, bench_referee, format_table
from referee.core import registration_sigma


def test_observer_noise_matches_claimed_sigma():
    board = load_board("dino-dunk/crater-court")
    rng = np.random.default_rng(3)
    obs = Observer(board, rng)
    p = np.array([[120.0, 300.0]])
    n = 4000
    seen = obs.observe(np.broadcast_to(p, (n, 1, 2)).copy(), np.zeros((n, 1)), rng)[:, 0]
    err = seen - p
    worst = np.sqrt(np.linalg.eigvalsh(np.cov(err.T))[-1])
    claimed = registration_sigma(obs.transform, p)[0]
    assert abs(worst / claimed - 1) < 0.1  # registration error as claimed, worst direction
    det = obs.observe(np.broadcast_to(p, (n, 1, 2)).copy(), np.full((n, 1), 0.5), rng)[:, 0] - p
    total = np.sqrt(np.linalg.eigvalsh(np.cov(det.T))[-1])
    assert abs(total / np.hypot(worst, 0.5) - 1) < 0.1  # detection noise added at its σ
    assert np.all(obs.sigma(seen[:1, None], np.array([[0.5]])) >= 0.5)


def test_small_bench_runs_and_is_never_confidently_wrong():
    rows = bench_referee(n=300, seed=1, calls=["overlap (disc vs circle zone)", "hex", "card length"], use_sim=False,
                         cameras=3)
    assert [r.n for r in rows] == [300, 300, 300]
    assert all(r.correct + r.too_close + r.wrong == r.n for r in rows)
    assert all(r.wrong == 0 for r in rows)
    assert "wrong*" in format_table(rows)


def test_observer_pair_noise_matches_claimed_pair_sigma():
    board = load_board("dino-dunk/crater-court")
    rng = np.random.default_rng(4)
    obs = Observer(board, rng)
    pts = np.array([[[150.0, 200.0], [230.0, 260.0]]])
    n = 4000
    det = np.tile([[0.2, 0.4]], (n, 1))
    seen = obs.observe(np.broadcast_to(pts, (n, 2, 2)).copy(), det, rng)
    diff = (seen[:, 0] - seen[:, 1]) - (pts[0, 0] - pts[0, 1])
    worst = np.sqrt(np.linalg.eigvalsh(np.cov(diff.T))[-1])
    claimed = obs.pair_sigma(pts, det[:1])[0]
    assert worst <= claimed * 1.1 and worst >= claimed * 0.8  # never under-claimed; not far over
