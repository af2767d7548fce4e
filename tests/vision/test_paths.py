"""vision.paths: a tracked path as smooth segments with honest σ, breaks where the motion changes."""

from __future__ import annotations

import numpy as np
import pytest

from vision.paths import fit_fall, fit_segment, join, segment_path


def _bounce_path(rng, sigma=1.0, fps=30.0):
    """A token at constant velocity that turns at t = 0.3 s at (300, 100) (a bounce), then slides on."""
    t = np.arange(0.0, 0.6, 1 / fps)
    v_in, v_out = np.array([1000.0, 0.0]), np.array([-200.0, 400.0])
    p_c, t_c = np.array([300.0, 100.0]), 0.3 + 0.5 / fps
    xy = np.where((t < t_c)[:, None], p_c + (t - t_c)[:, None] * v_in, p_c + (t - t_c)[:, None] * v_out)
    return t, xy + rng.normal(0.0, sigma, xy.shape), t_c, p_c


def test_a_straight_path_is_one_segment_and_its_sigma_falls_with_the_samples():
    rng = np.random.default_rng(1)
    t = np.arange(0.0, 0.5, 1 / 30)
    xy = np.column_stack([50 + 800 * t, 20 - 300 * t]) + rng.normal(0, 3.0, (len(t), 2))
    segs = segment_path(t, xy, np.full(len(t), 3.0), degrees=(1,))
    assert len(segs) == 1
    s_mid = float(segs[0].pos_sigma(0.25)[0])
    assert s_mid < 3.0 / np.sqrt(len(t)) * 1.5  # about σ/√n in the middle
    assert float(segs[0].pos_sigma(0.6)[0]) > s_mid  # extrapolated: less sure


def test_the_fit_sigma_is_honest():
    """Over many noisy paths the fitted position's error divided by its claimed σ has unit spread."""
    rng = np.random.default_rng(2)
    z = []
    for _ in range(300):
        t = np.arange(0.0, 0.3, 1 / 30)
        truth = np.column_stack([10 + 500 * t, 5 + 200 * t])
        seg = fit_segment(t, truth + rng.normal(0, 2.0, truth.shape), np.full(len(t), 2.0), 1)
        z.append((seg.pos(0.15)[0, 0] - (10 + 500 * 0.15)) / seg.pos_sigma(0.15)[0])
    assert 0.85 < float(np.std(z)) < 1.15


def test_a_bounce_is_a_break_and_the_segments_meet_where_it_happened():
    rng = np.random.default_rng(3)
    t, xy, t_c, p_c = _bounce_path(rng)
    segs = segment_path(t, xy, np.full(len(t), 1.0), degrees=(1,))
    # (a straight stretch may be cut by chance too, at no cost to its fit: joins there do not turn)
    k = next(i for i, s in enumerate(segs) if s.t1 < t_c < segs[i + 1].t0)
    j = join(segs[k], segs[k + 1])
    assert abs(j.t - t_c) < 0.01
    assert np.hypot(*(j.xy - p_c)) < 3 * j.sigma + 0.5
    assert j.v_before[0] > 900 and j.v_after[0] < -150  # it turned
    for a, b in zip(segs[:k], segs[1:k + 1]):
        jj = join(a, b)
        s = np.hypot(a.pos_sigma(jj.t)[0], b.pos_sigma(jj.t)[0])
        assert np.hypot(*(jj.v_after - jj.v_before)) < 100 and jj.miss < 4.5 * s + 1.0


def test_a_lone_sample_between_two_events_can_be_a_waypoint():
    rng = np.random.default_rng(4)
    t = np.arange(0.0, 0.4, 1 / 30)
    xy = np.column_stack([600 * t, np.zeros(len(t))])
    xy[6] += [0.0, 25.0]  # a sample knocked off the line (a detour between two bounces)
    xy[7:] += [0.0, 40.0]
    xy += rng.normal(0, 0.7, xy.shape)
    sigma = np.full(len(t), 0.7)
    without = segment_path(t, xy, sigma, degrees=(1,))
    assert all(s.n > 1 for s in without)
    segs = segment_path(t, xy, sigma, degrees=(1,), waypoints=True)
    assert [s.n for s in segs] == [6, 1, len(t) - 7]


def test_a_curve_sharper_than_max_accel_is_not_one_segment():
    t = np.arange(0.0, 0.3, 1 / 30)
    xy = np.column_stack([900 * t, 0.5 * 20000 * t ** 2])  # 20 m/s² sideways: no throw curves so
    sigma = np.full(len(t), 0.5)
    assert len(segment_path(t, xy, sigma, degrees=(1, 2))) == 1
    assert len(segment_path(t, xy, sigma, degrees=(1, 2), max_accel=3000.0)) > 1


@pytest.mark.parametrize("vz", [0.0, 400.0])
def test_a_fall_reaches_the_mat_when_physics_says(vz):
    g, z0, t0 = 9810.0, 120.0, 0.1
    t_land = t0 + (vz + np.sqrt(vz ** 2 + 2 * g * z0)) / g
    t = np.arange(t0 + 0.01, t_land, 1 / 30)
    h = z0 + vz * (t - t0) - 0.5 * g * (t - t0) ** 2 + np.random.default_rng(5).normal(0, 1.0, len(t))
    fall = fit_fall(t, h, 1.0, g)
    tl, s = fall.reaches(0.0)
    assert abs(tl - t_land) < 4 * s + 1e-4
    t_up, _ = fall.reaches(z0, first=True)
    assert abs(t_up - t0) < 0.01
