"""A Dodo Dash throw seen by a detector that does not measure heights (it reports every token at its
spec height and places it by projecting its image onto that plane): hand-made throws of a Banana
(radius 13 mm, σ 2 mm, 30 frames a second) through a framed camera, racers of radius 12.5 mm. What
the height decides is asked; what no height changes is still called."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from session.bench import _StubDodoDash
from session.dodo_dash import DodoDashSession, ThrowSamples
from session.oracle import OracleDetector

FPS, TOK_R, RACER_R, RACER_H, G, SIG = 30.0, 13.0, 12.5, 45.0, 9810.0, 2.0


@pytest.fixture(scope="module")
def board():
    from sim.suites import _board

    return _board("dodo-dash/dodorado-jungle")


@pytest.fixture(scope="module")
def transform(board):
    from vision.bench import framed_camera

    return framed_camera(np.random.default_rng(3), board, tilt=(30.0, 30.0)).transform()


@pytest.fixture(scope="module")
def session(board, transform):
    detector = SimpleNamespace()  # says nothing of heights: it does not measure them
    return DodoDashSession(board, detector, game=_StubDodoDash({"projectile": "banana"}), transform=transform)


def seen(transform, xyz: np.ndarray) -> np.ndarray:
    """(n, 2) where a detector that takes every Banana for lying on the mat places tokens at (n, 3)
    mat mm (base centre, elevation): the camera ray through the token's middle met at the plane of
    a Banana's middle on the mat."""
    h_ref = 2.0
    return np.vstack([transform.image_to_mat(transform.mat_to_image(p[None, :2], h_ref + p[2]), h_ref)[0] for p in xyz])


def throw(transform, start, direction, z0=200.0, vx=900.0, decel=3000.0, n_rest_end=10, n_hold=6):
    """(ThrowSamples as the heightless detector sees them, the true (n, 3) places): held at ``start``
    ``z0`` mm up for ``n_hold`` frames, released at t = 0 flying along the unit ``direction`` at
    ``vx`` mm/s and falling, then sliding to a stop and seen at rest ``n_rest_end`` frames."""
    start, u = np.asarray(start, float), np.asarray(direction, float)
    t_land = np.sqrt(2 * z0 / G)
    t_stop = t_land + vx / decel
    t = np.arange(-n_hold, int((t_stop + n_rest_end / FPS) * FPS) + 1) / FPS

    def place(x):
        x = max(x, 0.0)
        if x <= t_land:
            return np.append(start + u * vx * x, z0 - G * x * x / 2)
        s = min(x, t_stop) - t_land
        return np.append(start + u * (vx * t_land + vx * s - decel * s * s / 2), 0.0)

    xyz = np.array([place(x) for x in t])
    xy = seen(transform, xyz)
    n = len(t)
    return ThrowSamples(t, xy, np.zeros(n), np.full(n, SIG), np.zeros(n), None, n_hold, float(t[n_hold - 1])), xyz


def racer(i: int, xy):
    return SimpleNamespace(id=i, name=f"racer-{i}", radius=RACER_R), (np.asarray(xy, float), 0.2)


def called(session, s, rs, t_end=None, touch_h=RACER_H):
    """({racer name: Verdict}, the order first touched) of the heightless stage (only where the token
    was low enough to touch a racer ``touch_h`` mm tall; None: at any height)."""
    racers = [r for r, _ in rs]
    rest_q = {r.id: q for r, q in rs}
    reach = session.heightless_reach(s, "banana", TOK_R, float(s.t[-1]) if t_end is None else t_end, touch_h=touch_h)
    calls = [session.racer_call_heightless(reach, r, rest_q, TOK_R, s.size) for r in racers]
    verdicts, order = session.ordered_verdicts(SimpleNamespace(mover="banana", index_start=0, index_settle=1), calls)
    return {v.detail["racer"]: v for v in verdicts}, order


def away_from_camera(transform, p):
    """The unit direction from the point under the camera to ``p`` (mat mm)."""
    d = np.asarray(p, float) - transform.camera_centre_mm()[:2]
    return d / np.hypot(*d)


def across_the_board(transform, board):
    """A throw 300 mm along the mat's long axis through its centre: (its samples, the middle of
    its path, the unit direction across it away from the camera)."""
    start = np.array([board.length_mm / 2 - 150.0, board.width_mm / 2])
    u = np.array([1.0, 0.0])
    s, _ = throw(transform, start, u)
    mid = start + 150.0 * u
    return s, mid, np.array([0.0, 1.0]) * np.sign(away_from_camera(transform, mid)[1])


def test_the_session_knows_whether_its_detector_measures_heights(session, board):
    assert session.measures_height() is False
    assert DodoDashSession(board, OracleDetector(board), game=_StubDodoDash({"projectile": "banana"})).measures_height()
    # the Egg is flicked along the mat: its height is known without measuring it
    assert session.throw_height_max("egg") == 0.0 < session.throw_height_max("banana")


def test_a_token_flying_over_a_racer_is_asked_not_called(session, transform, board):
    """Released 80 mm up, the Banana passes 60 mm and more above a racer under its path (whose top
    is 45 mm up): seen without heights its place is tens of mm off and it may as well have been
    low there, so the call is asked — never "yes" (nor a confident "no")."""
    start = np.array([board.length_mm / 2 - 150.0, board.width_mm / 2])
    u = np.array([1.0, 0.0])
    s, xyz = throw(transform, start, u, z0=80.0)
    i_over = int(np.argmin(np.hypot(*(xyz[:, :2] - (start + 50.0 * u)).T)))
    assert RACER_H < xyz[i_over, 2] < 80.0  # it passed over
    v, order = called(session, s, [racer(1, start + 50.0 * u)])
    assert v["racer-1"].answer == "too_close"
    assert order == ["racer-1"]


def test_a_token_far_above_a_racer_cannot_have_touched_it(session, transform, board):
    """Released 200 mm up, the Banana is 180 mm above a racer 45 mm along its path: wherever it
    was while low enough to touch a racer (on the camera rays of its samples, at most 50 mm up),
    it was not near that one: a confident no. Taken at any height up to the highest a Banana
    goes, the same racer is asked."""
    start = np.array([board.length_mm / 2 - 150.0, board.width_mm / 2])
    u = np.array([1.0, 0.0])
    s, xyz = throw(transform, start, u, z0=200.0)
    i_over = int(np.argmin(np.hypot(*(xyz[:, :2] - (start + 45.0 * u)).T)))
    assert xyz[i_over, 2] > 170.0
    v, order = called(session, s, [racer(1, start + 45.0 * u)])
    assert (v["racer-1"].answer, v["racer-1"].detail["evidence"]) == ("no", "out of reach at any height")
    assert order == []
    v, _ = called(session, s, [racer(1, start + 45.0 * u)], touch_h=None)
    assert v["racer-1"].answer == "too_close"


def test_a_racer_no_place_of_the_token_reaches_is_not_touched(session, transform, board):
    """A racer 120 mm to the side of the path, on the side away from the camera (where no height
    moves the token's true place): a confident no."""
    s, mid, side = across_the_board(transform, board)
    v, order = called(session, s, [racer(2, mid + 120.0 * side)])
    assert (v["racer-2"].answer, v["racer-2"].detail["evidence"]) == ("no", "out of reach at any height")
    assert order == []
    # on the camera's side of the path, where the whole rays reach (at any height), it is not a sure
    # no; its fall fitted (DodoDashSession.fall_spans), the token was never so high there: it is
    toward = -away_from_camera(transform, mid)
    whole_ray = DodoDashSession(board, SimpleNamespace(), game=_StubDodoDash({"projectile": "banana"}), transform=transform)
    whole_ray.fall_min_samples = 10 ** 6  # (never fitted)
    v, _ = called(whole_ray, s, [racer(3, mid + 120.0 * toward)], touch_h=None)
    assert v["racer-3"].answer == "too_close"
    v, _ = called(session, s, [racer(3, mid + 120.0 * toward)], touch_h=None)
    assert v["racer-3"].answer == "no"


def test_a_token_resting_on_a_racer_touched_it(session, transform, board):
    """The Banana comes to rest with its centre 8 mm from a racer's (their footprints overlap by
    17.5 mm, far beyond k σ): touched, whatever its height was before; a racer it flew over before
    may have been touched first, so the order asks about that one first."""
    start = np.array([board.length_mm / 2 - 150.0, board.width_mm / 2])
    u = np.array([1.0, 0.0])
    s, xyz = throw(transform, start, u, z0=80.0)
    end = xyz[-1, :2]
    v, order = called(session, s, [racer(1, end + np.array([0.0, 8.0])), racer(2, start + 50.0 * u)])
    assert (v["racer-1"].answer, v["racer-1"].detail["evidence"]) == ("yes", "came to rest on it")
    assert v["racer-1"].margin == pytest.approx(TOK_R + RACER_R - 8.0, abs=2.0)
    assert v["racer-2"].answer == "too_close"
    assert order == ["racer-2", "racer-1"]


def test_a_token_not_seen_at_rest_can_have_gone_on(session, transform, board):
    """Lost once it landed (no sample at rest), the token can have slid on unseen until the flick
    ended: a racer 100 mm beyond its last sample is not a sure no; seen at rest, it is."""
    start = np.array([board.length_mm / 2 - 150.0, board.width_mm / 2])
    u = np.array([1.0, 0.0])
    s, xyz = throw(transform, start, u)
    beyond = xyz[-1, :2] + 100.0 * away_from_camera(transform, xyz[-1, :2])
    v, _ = called(session, s, [racer(1, beyond)])
    assert v["racer-1"].answer == "no"
    n_air = int(np.flatnonzero(xyz[:, 2] > 0)[-1]) + 2  # its last sample just after the landing
    lost = ThrowSamples(s.t[:n_air], s.xy[:n_air], s.zb[:n_air], s.sig[:n_air], s.ang[:n_air], None, s.i_launch, s.t_launch)
    v, _ = called(session, lost, [racer(1, beyond)], t_end=float(s.t[-1]))
    assert v["racer-1"].answer == "too_close"


def test_without_a_transform_every_direction_is_open(board, transform):
    """No transform: the ray is taken at 45° in any direction, so the racer on the side away from
    the camera that a transform rules out is asked."""
    plain = DodoDashSession(board, SimpleNamespace(), game=_StubDodoDash({"projectile": "banana"}))
    s, mid, side = across_the_board(transform, board)
    v, _ = called(plain, s, [racer(2, mid + 120.0 * side)])
    assert v["racer-2"].answer == "too_close"


def test_frames_without_the_token_bridged_by_its_fitted_fall_leave_no_slack(session, transform, board):
    """Two frames in the air without the token: it may have strayed there (up to the fastest throw's
    travel in half the time unseen), unless the fall fitted through the samples on both sides of
    the gap (a ballistic flight: a touch in between would have turned it) says where it was. A
    racer 60 mm beside where the first unseen sample would have been seen, on the side away from
    the camera (no height brings the token nearer): a sure no with the fall fitted; asked when the
    fall is not fitted (the stray's reach)."""
    s, mid, side = across_the_board(transform, board)
    _, xyz = throw(transform, np.array([board.length_mm / 2 - 150.0, board.width_mm / 2]), np.array([1.0, 0.0]))
    i_gap = s.i_launch + 3
    assert xyz[i_gap - 1, 2] > 0 and xyz[i_gap + 2, 2] > 0  # (in the air)
    keep = np.ones(len(s.t), bool)
    keep[[i_gap, i_gap + 1]] = False
    gap = ThrowSamples(s.t[keep], s.xy[keep], s.zb[keep], s.sig[keep], s.ang[keep], None, s.i_launch, s.t_launch)
    lo, hi, kept = session.fall_spans(gap, "banana", session._final_rest(gap))
    assert kept  # the fall is fitted across the gap
    beside = s.xy[i_gap] + 60.0 * side  # (beside where the unseen sample would have been seen: beyond the rays)
    v, _ = called(session, gap, [racer(1, beside)])
    assert (v["racer-1"].answer, v["racer-1"].detail["evidence"]) == ("no", "out of reach at any height")
    unfitted = DodoDashSession(board, SimpleNamespace(), game=_StubDodoDash({"projectile": "banana"}), transform=transform)
    unfitted.fall_min_samples = 10 ** 6
    v, _ = called(unfitted, gap, [racer(1, beside)])
    assert v["racer-1"].answer == "too_close"
    v, _ = called(unfitted, s, [racer(1, beside)])  # every frame seen: no stray to allow for
    assert v["racer-1"].answer == "no"


def test_frames_without_the_token_across_its_landing_are_not_bridged(session, transform, board):
    """The same two frames unseen, but across the landing: the fitted fall says where the token was
    in the air, yet the slide's velocity after the landing is the fit's own (a touch just before
    the landing, turning the token, fits as well: a Dodo that struck a racer in the two frames the
    detector missed and landed coming back had been called "no" for that racer). A racer 60 mm
    beside where the unseen landing would have been seen is asked, though the fall is fitted."""
    s, mid, side = across_the_board(transform, board)
    _, xyz = throw(transform, np.array([board.length_mm / 2 - 150.0, board.width_mm / 2]), np.array([1.0, 0.0]))
    i_land = int(np.argmax((xyz[:, 2] <= 0) & (np.arange(len(xyz)) > s.i_launch)))
    assert xyz[i_land - 1, 2] > 0 and xyz[i_land, 2] == 0  # (the landing falls between these two)
    keep = np.ones(len(s.t), bool)
    keep[[i_land - 1, i_land]] = False
    gap = ThrowSamples(s.t[keep], s.xy[keep], s.zb[keep], s.sig[keep], s.ang[keep], None, s.i_launch, s.t_launch)
    lo, hi, kept = session.fall_spans(gap, "banana", session._final_rest(gap))
    assert kept  # the fall is fitted across the gap
    beside = s.xy[i_land - 1] + 60.0 * side
    v, _ = called(session, gap, [racer(1, beside)])
    assert v["racer-1"].answer == "too_close"
    v, _ = called(session, s, [racer(1, beside)])  # every frame seen
    assert v["racer-1"].answer == "no"


def test_a_box_token_given_no_box_reaches_as_far_as_its_kinds_box(session, transform, board):
    """The classical path finds a Log without its box (a disc of its width, 9 mm): reached only that
    far, it was "out of reach at any height" 16.6 mm from a racer it had struck (tuning seed 5).
    Without a box from the detector the Log reaches as far as its kind's own, 40 × 18 mm, at any
    angle (half its diagonal); a token with no box of its kind keeps its radius."""
    s, _, _ = across_the_board(transform, board)
    reach = session.heightless_reach(s, "log", 9.0, float(s.t[-1]))
    assert reach.footprint == pytest.approx(0.5 * np.hypot(40.0, 18.0))
    assert session.heightless_reach(s, "banana", TOK_R, float(s.t[-1])).footprint == TOK_R
