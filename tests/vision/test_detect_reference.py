"""The table at rest as a reference (``Detector.set_reference``): a piece of a shadow's colour that
arrived since (a meteorite landed on the tan) is told from a shadow by not having been there."""

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.detect import Background, DetectError, _arrived_dark

H, W = 120, 160
MAT = np.array([120.0, 165.0, 195.0])  # BGR: a tan mat


def _disc(cx, cy, r):
    yy, xx = np.mgrid[0:H, 0:W]
    return (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r


def _tables():
    """(empty mat, the table at rest, the table now): a shadow at rest and now (gain 0.55), a
    shadow-coloured token (0.55 of the mat, its hue) there at rest and another landed since, a
    pale piece landed since, and a new shadow (gain 0.6) where the mat was bare."""
    mat = np.tile(MAT, (H, W, 1))
    rest = mat.copy()
    rest[_disc(30, 30, 12)] *= 0.55          # a racer's shadow
    rest[_disc(30, 90, 8)] = 0.55 * MAT      # a dark token lying there already
    now = rest.copy()
    now[_disc(90, 30, 8)] = 0.55 * MAT + np.array([6.0, 0.0, -6.0])  # the token that landed
    now[_disc(90, 90, 8)] = (235.0, 240.0, 245.0)  # a pale token landed (the empty-mat mask has it)
    now[_disc(135, 60, 10)] *= 0.6          # a shadow cast since
    return [np.clip(a, 0, 255).astype(np.uint8) for a in (mat, rest, now)]


def _small(bg, mask):
    return cv2.resize(mask, (W, H), interpolation=cv2.INTER_NEAREST) > 0


def _arrived(bg, frame, ref, *args, **kw):
    f = bg._shrink(frame).astype(np.float32)
    return _arrived_dark(f, bg.light(f), bg.scale, ref, *args, **kw)


def test_what_is_darker_than_the_mat_and_was_not_there_at_rest_is_marked():
    mat, rest, now = _tables()
    bg = Background(mat, 1.5, scale=0.5)
    ref = bg._shrink(rest).astype(np.float32)
    got = _small(bg, _arrived(bg, now, ref, 25.0, 0.85))
    core = lambda cx, cy, r: _disc(cx, cy, r - 3)  # noqa: E731  (the blur softens the rims)
    assert got[core(90, 30, 8)].all()                # the dark token landed: no shadow, it was not there
    assert not got[_disc(30, 30, 12)].any()          # the shadow there at rest
    assert not got[_disc(30, 90, 8)].any()           # the token there at rest
    assert not got[core(90, 90, 8)].any()            # a pale piece is not darker than the mat
    assert got[core(135, 60, 10)].all()              # a new shadow is (the classifier names it nothing)
    # the plain shadow-discounted mask (floor 0.5) had taken the landed token for a shadow
    plain = _small(bg, bg.foreground_small_floors(now, 20.0, (0.5,))[0])
    assert not plain[core(90, 30, 8)].any()
    # nothing arrived: nothing marked
    assert not _arrived(bg, rest, ref, 25.0, 0.85).any()


def test_the_opening_keeps_a_token_and_drops_a_thin_rim():
    mat, rest, now = _tables()
    now = now.astype(np.float32)
    now[60:63, 20:80] *= 0.55  # a new shadow's thin rim (3 px)
    now = np.clip(now, 0, 255).astype(np.uint8)
    bg = Background(mat, 1.5, scale=0.5)
    ref = bg._shrink(rest).astype(np.float32)
    plain = _small(bg, _arrived(bg, now, ref, 25.0, 0.85))
    opened = _small(bg, _arrived(bg, now, ref, 25.0, 0.85, open_px=10.0))
    rim = np.zeros((H, W), bool)
    rim[60:63, 30:70] = True
    assert plain[rim].mean() > 0.5 and not opened[rim].any()
    assert opened[_disc(90, 30, 4)].all()  # the landed token's body stays


def test_a_meteorite_on_the_tan_is_found_with_the_table_at_rest_as_reference():
    """dodo-dash/throws seed 0 scene 108 (a tuning scene), rendered: the Meteorite lies on the tan
    beside a racer, a shadow's colour there; the classical detector finds it only with the
    table before the throw as reference."""
    from session.bench import RealDetector
    from sim.suites import _board, make_scenario

    scn = make_scenario("dodo-dash/throws", 108, 0)
    board = _board(scn.board)
    real = RealDetector(board, scn.initial, seed=108)
    det = real.detector
    det.reuse = False
    image = real.render(scn.final, 99)
    p = scn.final.by_id()[scn.meta["projectile_id"]]

    def meteorites():
        obs = det(image)
        return [float(np.hypot(*(xy - (p.x, p.y)))) for k, xy in zip(obs.kind, obs.xy) if k == "meteorite"]

    assert not [d for d in meteorites() if d < 15.0]
    real.set_reference(real.render(scn.initial, 0))
    assert min(meteorites()) < 3.0
    det.set_reference(None)
    assert not [d for d in meteorites() if d < 15.0]
    with pytest.raises(DetectError, match="reference is 10x10"):
        det.set_reference(np.zeros((10, 10, 3), np.uint8))


def test_shadow_rims_that_arrived_do_not_join_a_log_to_two_racers():
    """Scene 199 (seed 0, a tuning scene): a Log landed between two racers; the pixels that
    arrived since frame 17 hold its shadow's rims, which unopened join the Log and both racers into
    one blob (two racers found, no Log); opened, the Log is found as it is without a reference."""
    import dataclasses

    from session.bench import RealDetector, _frames
    from sim.suites import _board, make_scenario

    scn = make_scenario("dodo-dash/throws", 199, 0)
    board = _board(scn.board)
    real = RealDetector(board, scn.initial, seed=199)
    det = real.detector
    det.reuse = False
    frames = [f for f, _ in _frames(scn, 0.5, 30.0)]
    image = real.render(frames[20].scene, frames[20].index)
    p = frames[20].scene.by_id()[scn.meta["projectile_id"]]

    def logs():
        obs = det(image)
        return [float(np.hypot(*(xy - (p.x, p.y)))) for k, xy in zip(obs.kind, obs.xy) if k == "log"]

    assert min(logs()) < 15.0  # no reference
    det.set_reference(real.render(frames[17].scene, frames[17].index))
    assert det.blob_config.reference_open_px >= 10.0 and min(logs()) < 15.0
    det.blob_config = dataclasses.replace(det.blob_config, reference_open_px=0.0)
    assert not [d for d in logs() if d < 15.0]
