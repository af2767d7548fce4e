"""A Dodo Dash throw seen without heights, its fall fitted along the camera rays
(:meth:`DodoDashSession.fall_spans`): a ballistic flight (gravity known) then the mat, for every
landing instant the samples allow. Hand-made Banana throws through a framed camera (30° tilt, σ 2
mm, 30 frames a second; :func:`tests.session.test_dodo_dash_heightless.throw`): the spans hold the
true heights, shrink where the fit is sure, and let a racer the token passed high over be called."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from session.bench import _StubDodoDash
from session.dodo_dash import DodoDashSession, ThrowSamples
from tests.session.test_dodo_dash_heightless import (  # noqa: F401 (board, transform, session: its fixtures)
    RACER_H, board, called, racer, session, throw, transform)


def noisy(s: ThrowSamples, rng, sigma=2.0) -> ThrowSamples:
    return ThrowSamples(s.t, s.xy + rng.normal(0.0, sigma, s.xy.shape), s.zb, s.sig, s.ang, s.size, s.i_launch, s.t_launch)


def test_the_spans_hold_the_true_heights_and_shrink_where_the_fit_is_sure(session, transform, board):
    start = np.array([260.0, board.width_mm / 2])
    s, xyz = throw(transform, start, np.array([1.0, 0.0]), z0=300.0, vx=1000.0)
    lo, hi, fits = session.fall_spans(s, "banana", session._final_rest(s))
    assert fits  # fitted
    z = xyz[:, 2]
    assert ((lo <= z + 1e-6) & (z <= hi + 1e-6)).all()
    air = np.flatnonzero(z > 0)
    air = air[air >= s.i_launch]
    assert (lo[air[:5]] > RACER_H + 50.0).all()  # high for its first five samples: surely above any racer
    assert (hi[air[-2:]] < 0.5 * session.throw_height_max("banana")).all()  # low near the landing
    assert (hi[s.i_launch:][z[s.i_launch:] == 0] == 0).all()  # then on the mat
    assert (lo[:s.i_launch] == 0).all() and (hi[:s.i_launch] == session.throw_height_max("banana")).all()  # (the hold: unfitted)


def test_the_spans_are_honest_on_noisy_throws(session, transform, board):
    """Throws of every height and direction, the samples σ 2 mm off: the true height stays within
    each sample's span (a span that missed it would make a wrong call a confident one)."""
    rng = np.random.default_rng(11)
    misses, fitted, n = 0, 0, 0
    for _ in range(25):
        start = np.array([rng.uniform(250, 550), rng.uniform(150, 350)])
        a = rng.uniform(0, 2 * np.pi)
        s, xyz = throw(transform, start, np.array([np.cos(a), np.sin(a)]), z0=rng.uniform(60, 300),
                       vx=rng.uniform(400, 1000))
        lo, hi, fits = session.fall_spans(noisy(s, rng), "banana", session._final_rest(s))
        fitted += bool(fits)
        misses += int(((xyz[:, 2] < lo - 1e-6) | (xyz[:, 2] > hi + 1e-6)).sum())
        n += len(xyz)
    assert fitted >= 20
    assert misses == 0, f"{misses} of {n} samples outside their span"


def test_a_racer_the_token_seemed_to_pass_is_called_once_the_fall_is_fitted(session, transform, board):
    """Released 300 mm up at 1000 mm/s, the Banana is seen (as if on the mat) right over a racer
    while it is 250 mm up: taken at any height up its rays it may have been low there (asked);
    its fall fitted, it was never low enough near that racer (a confident no). A curving throw
    (the Feather) is not fitted."""
    start = np.array([260.0, board.width_mm / 2])
    s, xyz = throw(transform, start, np.array([1.0, 0.0]), z0=300.0, vx=1000.0)
    i = s.i_launch + 3
    assert xyz[i, 2] > 240.0
    where_seen = s.xy[i]
    v, order = called(session, s, [racer(1, where_seen)])
    assert (v["racer-1"].answer, v["racer-1"].detail["evidence"]) == ("no", "out of reach at any height")
    assert order == []
    whole_ray = DodoDashSession(board, SimpleNamespace(), game=_StubDodoDash({"projectile": "banana"}),
                                transform=transform)
    whole_ray.fall_min_samples = 10 ** 6  # (never fitted)
    v, _ = called(whole_ray, s, [racer(1, where_seen)])
    assert v["racer-1"].answer == "too_close"
    lo, hi, fits = session.fall_spans(s, "feather", session._final_rest(s))
    assert not fits and (lo == 0).all()


def test_a_slide_does_not_turn_or_speed_up(session):
    cov = np.eye(2) * 100.0 ** 2
    assert session._slides(np.array([500.0, 0.0]), np.array([-3000.0, 0.0]), cov)  # slowing along its line
    assert not session._slides(np.array([500.0, 0.0]), np.array([0.0, 5000.0]), cov)  # turning
    assert not session._slides(np.array([500.0, 0.0]), np.array([3000.0, 0.0]), cov)  # speeding up
