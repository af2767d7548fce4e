"""The contact evidence the sessions add to :mod:`vision.contacts` (tracks in mat mm built by hand):
bounces seen as a turn or a kink, a nudge too small to move the other piece, noise-scaled
thresholds, and a resting neighbour that is not a striker."""

from __future__ import annotations

import numpy as np
import pytest

from vision.contacts import ContactConfig, deflected_by, kinked_by, noise_config, table_contacts, turned_at_start
from vision.track import Track

DT = 1 / 30


def track(tid, points, radius=10.0, kind="disc-small", t0=0.0):
    t = [t0 + i * DT for i in range(len(points))]
    return Track(tid, kind, radius, {}, f"p{tid}", t, [tuple(map(float, p)) for p in points])


def still(tid, x, y, n, radius=10.0):
    return track(tid, [(x, y)] * n, radius)


def bounce_path():
    """A token (r 10) runs +x at 30 mm/frame into a piece at x=150 (r 10): contact at x=130, then back."""
    xs = [10, 40, 70, 100, 124, 106, 94, 86, 82, 80, 80, 80]
    return track(1, [(x, 100) for x in xs])


@pytest.mark.parametrize("fn", [
    lambda p, ts: deflected_by(p, ts, 0.0, ContactConfig(touch_mm=3.0)),
    lambda p, ts: kinked_by(p, ts, 0.0, sigma_mm=0.5),
])
def test_a_bounce_is_a_touch_even_when_no_sample_shows_it(fn):
    target, bystander = still(2, 150, 100, 12), still(3, 150, 200, 12)
    found = fn(bounce_path(), [target, bystander])
    assert [c.b for c in found] == [2]
    assert 3 * DT <= found[0].t <= 6 * DT  # between the samples around the bounce (an estimate)


def test_a_straight_pass_is_no_kink():
    path = track(1, [(10 + 30 * i, 100) for i in range(10)])
    assert kinked_by(path, [still(2, 150, 125, 10)], 0.0, sigma_mm=0.5) == []


@pytest.mark.parametrize("sigma, rest, start", [
    (0.0, 1.5, 40.0),                                        # no noise: the defaults stand
    (0.7, 5 * 0.7 * np.sqrt(2), 5 * 0.7 * np.sqrt(2) / DT),  # a still piece's jitter stays under 5 σ√2
    (1.5, 5 * 1.5 * np.sqrt(2), 5 * 1.5 * np.sqrt(2) / DT),
])
def test_noise_config(sigma, rest, start):
    cfg = noise_config(ContactConfig(), sigma, DT)
    assert cfg.rest_mm == pytest.approx(rest)
    assert cfg.start_mm_s == pytest.approx(start)


def test_a_nudge_smaller_than_the_noise_is_found_from_the_path():
    """The mover stops touching a piece that does not visibly move: 'touched' evidence."""
    mover = track(1, [(10, 100)] * 3 + [(40, 100), (70, 100), (95, 100), (109.5, 100), (110.5, 100), (110.5, 100)])
    other = still(2, 131, 100, 9)
    found = table_contacts([mover, other], 0.0, noise_config(ContactConfig(), 0.7, DT), known_starts={1: 2 * DT})
    assert [(c.a, c.b, c.evidence) for c in found] == [(1, 2, "touched")]
    assert found[0].gap_mm <= 3.0  # within the path tolerance (path_mm)


def test_a_resting_neighbour_is_no_striker():
    """A flicked piece sliding away from a neighbour it was resting against: no contact either way."""
    mover = track(1, [(100, 100)] * 4 + [(110, 100), (130, 100), (145, 100), (150, 100), (150, 100)])
    neighbour = still(2, 79, 100, 9)
    found = table_contacts([mover, neighbour], 0.0, noise_config(ContactConfig(), 0.7, DT), known_starts={1: 3 * DT})
    assert found == []


# --- fitted paths (vision.contacts.path_gap) -------------------------------------------------------


def slide(p0, direction, v0, n, decel=2943.0, dt=DT):
    """Samples of a disc flicked from rest at ``p0`` (mat mm) along ``direction`` at ``v0`` mm/s,
    sliding to a stop at ``decel`` mm/s² (the first sample one frame after the flick)."""
    u = np.asarray(direction, float) / np.linalg.norm(direction)
    t = np.arange(1, n + 1) * dt
    s = np.where(t < v0 / decel, v0 * t - 0.5 * decel * t ** 2, v0 ** 2 / (2 * decel))
    return t, np.asarray(p0, float) + s[:, None] * u


def fitted_gap(offset, seed, sigma=0.7, n_rest=15):
    """A disc (r 19) sliding +x past a resting one (r 19) at (200, 100 + 38 + offset): the path
    clears it by ``offset`` mm (no touch, so the path stays straight). Noisy samples, σ per axis."""
    from vision.contacts import path_gap

    rng = np.random.default_rng(seed)
    t, xy = slide((0.0, 100.0), (1.0, 0.0), 1300.0, 24)
    q = np.array([200.0, 138.0 + offset])
    rest = (np.array([0.0, 100.0]) + rng.normal(0, sigma / np.sqrt(n_rest), 2), sigma / np.sqrt(n_rest), 0.0)
    q_obs = q + rng.normal(0, sigma / np.sqrt(n_rest), 2)
    return path_gap(t, xy + rng.normal(0, sigma, xy.shape), np.full(len(t), sigma), 19.0, q_obs,
                    sigma / np.sqrt(n_rest), 19.0, rest=rest)


def test_a_fitted_path_places_a_pass_far_sharper_than_one_sample():
    gaps = [fitted_gap(1.0, seed) for seed in range(40)]
    assert all(g.how == "line" and g.segments == 1 for g in gaps)
    est = np.array([g.gap_mm for g in gaps])
    sig = np.array([g.sigma_mm for g in gaps])
    assert np.all(sig < 0.6)  # one sample's σ is 0.7 mm per axis, the gap between two samples 1 mm
    assert abs(est.mean() - 1.0) < 0.25
    z = (est - 1.0) / sig  # honest: the scatter matches the σ it reports
    assert 0.6 < z.std() < 1.5


def test_a_touch_whose_turn_is_too_small_to_see_is_not_called_clear():
    """A chain disc grazes the carrier (its line overlaps the footprint by 0.3 mm), turns 9° away and
    stops 10 mm on, where it rests for 20 frames: one line through all of it would pass clear of
    the carrier (the resting samples pull it off); the path must stay within its noise of a touch."""
    from vision.contacts import path_gap

    for seed in range(10):
        rng = np.random.default_rng(seed)
        t, xy = slide((0.0, 100.0), (1.0, 0.0), 420.0, 30)  # stops after 30 mm, at frame ~4.3
        q = np.array([20.0, 100.0 + 38.0 - 0.3])
        k = int(np.searchsorted(xy[:, 0], q[0]))
        turn = np.radians(-9.0)
        rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        xy[k:] = xy[k - 1] + (xy[k:] - xy[k - 1]) @ rot.T
        g = path_gap(t, xy + rng.normal(0, 0.7, xy.shape), np.full(len(t), 0.7), 19.0, q, 0.15, 19.0,
                     rest=(np.array([0.0, 100.0]), 0.18, 0.0))
        assert g.gap_mm < 4.5 * g.sigma_mm, (seed, g)


def test_a_path_that_runs_into_a_piece_has_a_negative_gap():
    g = fitted_gap(-3.0, 1)
    assert g.gap_mm < -4.5 * g.sigma_mm


def test_a_touch_turns_the_path_away_from_the_piece():
    """A glancing touch: the mover's path turns away from the piece it grazed, at the piece."""
    from vision.contacts import path_gap

    rng = np.random.default_rng(3)
    q = np.array([200.0, 137.5])  # the incoming line overlaps the footprint by 0.5 mm
    t, xy = slide((0.0, 100.0), (1.0, 0.0), 1300.0, 24)
    k = int(np.searchsorted(xy[:, 0], q[0]))  # past the piece: turned 5° away from it
    turn = np.radians(-5.0)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    xy[k:] = xy[k - 1] + (xy[k:] - xy[k - 1]) @ rot.T
    noisy = xy + rng.normal(0, 0.7, xy.shape)
    g = path_gap(t, noisy, np.full(len(t), 0.7), 19.0, q, 0.18, 19.0, rest=(np.array([0.0, 100.0]), 0.18, 0.0))
    assert g.segments == 2 and g.deflected > 4.5
    # a piece standing at the turn as well may have turned it: no deflection is credited
    g2 = path_gap(t, noisy, np.full(len(t), 0.7), 19.0, q, 0.18, 19.0, rest=(np.array([0.0, 100.0]), 0.18, 0.0),
                  others=[(xy[k - 1] + np.array([0.0, -29.0]), 10.0)])
    assert g2.deflected == 0.0


def test_a_piece_that_stops_short_is_measured_at_its_end():
    """A chain disc pushed at the carrier stops 2 mm short of it: the gap is where it came to rest."""
    from vision.contacts import path_gap

    rng = np.random.default_rng(5)
    t, xy = slide((0.0, 100.0), (1.0, 0.0), 300.0, 24)  # stops after 15.3 mm
    stop = 300.0 ** 2 / (2 * 2943.0)
    q = np.array([stop + 38.0 + 2.0, 100.0])
    g = path_gap(t, xy + rng.normal(0, 0.7, xy.shape), np.full(len(t), 0.7), 19.0, q, 0.18, 19.0,
                 rest=(np.array([0.0, 100.0]), 0.18, 0.0))
    assert g.how == "end"
    assert abs(g.gap_mm - 2.0) < 4 * g.sigma_mm and g.sigma_mm < 0.35


def test_a_disc_that_pushed_a_ball_away_at_once_still_has_its_striker():
    """A chain: disc 1 slides into disc 2, which creeps a few mm (too slowly for a start to be seen;
    it came to rest elsewhere, so its start is known) and at once sends the ball 3 beside it flying.
    By the estimates the ball starts a little before disc 2 and stands nearer it than disc 1: the
    ball cannot have set moving the disc that set it moving, so disc 2 was struck by disc 1."""
    from vision.contacts import struck_contacts

    a = track(1, [(0, 100)] * 4 + [(20, 100), (40, 100), (58.5, 100)] + [(58.5, 100)] * 6, radius=14.5)
    b = track(2, [(100, 100)] * 7 + [(103, 100), (105, 100)] + [(106, 100)] * 4, radius=25.5)
    ball = track(3, [(134.5, 100)] * 7 + [(140, 100), (150, 100), (158, 100), (164, 100), (168, 100), (170, 100)],
                 radius=9.0, kind="ball")
    cfg = noise_config(ContactConfig(), 0.7, DT)
    known = {1: 3.5 * DT, 2: 6.5 * DT}
    found = {(c.a, c.b) for c in struck_contacts([a, b, ball], 0.0, cfg, start_tolerance_s=0.05, known_starts=known)}
    assert found == {(1, 2), (2, 3)}
    chain = table_contacts([a, b, ball], 0.0, cfg, known_starts=known)
    assert {(c.a, c.b) for c in chain} >= {(1, 2), (2, 3)}


def test_where_a_slide_stopped_is_not_pulled_back_by_its_last_slow_frames():
    """Discs stopping 2 mm short of a resting one, the call made four frames after the stop: the
    frame or two before the stop lie within the noise of the rest, yet behind it; the end is the
    stop of the whole slide (constant deceleration), so the gap is neither over- nor understated."""
    from vision.contacts import path_gap

    err, pull = [], []
    for seed in range(120):
        rng = np.random.default_rng(seed)
        v0 = 300.0 + 200.0 * rng.random()
        n = int(np.ceil(v0 / 2943.0 * 30)) + 4
        t, xy = slide((0.0, 100.0), (1.0, 0.0), v0, n)
        q = np.array([v0 ** 2 / (2 * 2943.0) + 38.0 + 2.0, 100.0])
        g = path_gap(t, xy + rng.normal(0, 0.7, xy.shape), np.full(len(t), 0.7), 19.0, q, 0.18, 19.0,
                     rest=(np.array([0.0, 100.0]), 0.18, 0.0))
        assert g.how == "end"
        err.append(g.gap_mm - 2.0)
        pull.append((g.gap_mm - 2.0) / g.sigma_mm)
    assert abs(np.mean(err)) < 0.08  # the mean of the samples near the end: +0.18 mm
    assert abs(np.mean(pull)) < 0.25 and 0.6 < np.std(pull) < 1.3


def test_a_piece_beyond_a_turn_is_measured_at_the_corner_not_past_it():
    """A disc turns 8° away from a resting one just after a sample (it struck something light), and
    the resting one stands 12 mm on, beyond the corner, 3.5 mm clear of it: the sample next to the
    turn fits either stretch. The second stretch's line run back a whole frame past the corner comes
    far nearer the piece than the path went; the corner itself (where the lines meet) does not."""
    from vision.contacts import path_gap

    err = []
    for seed in range(60):
        rng = np.random.default_rng(seed)
        t, xy = slide((0.0, 100.0), (1.0, 0.0), 1100.0, 24)
        k = 5
        corner = xy[k] + 0.15 * (xy[k + 1] - xy[k])
        th = np.radians(-8.0)
        rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
        xy[k + 1:] = corner + (xy[k + 1:] - corner) @ rot.T
        q = np.array([corner[0] + 12.0, 100.0 + np.sqrt(41.5 ** 2 - 12.0 ** 2)])
        true = float(np.linalg.norm(corner - q)) - 38.0
        g = path_gap(t, xy + rng.normal(0, 0.7, xy.shape), np.full(len(t), 0.7), 19.0, q + rng.normal(0, 0.15, 2), 0.15,
                     19.0, rest=(np.array([0.0, 100.0]) + rng.normal(0, 0.18, 2), 0.18, 0.0))
        assert g.gap_mm - true < 4.5 * g.sigma_mm  # never confidently clearer than it was
        err.append(g.gap_mm - true)
    assert np.mean(err) > -0.8  # run back a whole frame: -1.06 mm


def test_a_piece_seen_moving_strikes_before_one_resting_against_the_struck_piece():
    """A small disc (r 14.5) glances off a large one (r 25.5) between two frames; the large one moves
    a few mm; a ball rests against it all along, nearer it than the striker's path between samples:
    the striker is the piece seen moving, not the resting neighbour."""
    from vision.contacts import struck_contacts

    striker = track(1, [(176, 330)] * 3 + [(176, 300), (176, 266), (176, 232), (174, 206), (167, 187), (161, 168)],
                    radius=14.5)
    big = track(2, [(217, 206)] * 6 + [(219, 205.5), (220.5, 204.7), (220.5, 204.7)], radius=25.5)
    ball = still(3, 205, 172.7, 9, radius=9.5)
    found = struck_contacts([striker, big, ball], 0.0, noise_config(ContactConfig(), 0.7, DT), start_tolerance_s=0.05,
                            known_starts={1: 2.5 * DT, 2: 5.5 * DT})
    assert [(c.a, c.b) for c in found] == [(1, 2)]


def test_a_ball_stopped_dead_against_a_disc_touched_it():
    """A passed ball (r 9.5) runs at 20 mm a frame toward a large disc (r 25.5) and stops dead within
    a frame, a few mm short of it after bouncing back: its last stretch is too short to have a
    direction, but the drop in speed is no friction's, and its way in runs into the disc."""
    ball = track(1, [(642.2, 332.6)] * 3 + [(643.7, 354.8), (643.4, 374.2), (644.3, 376.3), (645.8, 375.3), (644.8, 374.4),
                                            (644.8, 374.9), (644.8, 374.9)], radius=9.5, kind="ball")
    disc = still(2, 645.9, 414.6, 10, radius=25.5)
    found = table_contacts([ball, disc], 0.0, noise_config(ContactConfig(), 0.7, DT), path_mm=3.15, known_starts={1: 2.5 * DT})
    assert [(c.a, c.b, c.evidence) for c in found] == [(1, 2, "deflected")]


@pytest.mark.parametrize("step, brushed", [((-8.2, -5.3), True), ((5.0, -9.0), False)])
def test_a_ball_passed_from_beside_a_disc_may_have_brushed_it(step, brushed):
    """A ball resting 1.2 mm from a disc is flicked along it (it may have brushed it as it left: in
    doubt, evidence "brushed") or clearly away from it (no contact). Only with ``graze`` (within 4.5 σ
    of touching: 2.6 mm, the means of 3 samples each at 0.7 mm): without it, a piece leaving a
    neighbour's side never touched it."""
    pts = [(318.0, 270.6)] * 3 + [(318.0 + k * step[0], 270.6 + k * step[1]) for k in range(1, 4)] + \
        [(318.0 + 3 * step[0], 270.6 + 3 * step[1])] * 4
    ball = track(1, pts, radius=9.5, kind="ball")
    w = np.array([-17.0, 25.4]) / np.hypot(17.0, 25.4)
    disc = still(2, *(np.array([318.0, 270.6]) + (9.5 + 19.0 + 1.2) * w), 10, radius=19.0)
    cfg = noise_config(ContactConfig(), 0.7, DT)
    found = table_contacts([ball, disc], 2 * DT, cfg, path_mm=3.15, known_starts={1: 2.5 * DT}, graze=4.5)
    assert [(c.a, c.b, c.evidence) for c in found] == ([(1, 2, "brushed")] if brushed else [])
    if brushed:
        assert found[0].gap_mm == pytest.approx(1.2, abs=0.05)
    assert table_contacts([ball, disc], 2 * DT, cfg, path_mm=3.15, known_starts={1: 2.5 * DT}) == []
    far = still(2, *(np.array([318.0, 270.6]) + (9.5 + 19.0 + 3.0) * w), 10, radius=19.0)  # 3 mm: clear at rest
    assert table_contacts([ball, far], 2 * DT, cfg, path_mm=3.15, known_starts={1: 2.5 * DT}, graze=4.5) == []


def test_the_flicked_piece_is_struck_by_none():
    """A disc flicked past the neighbour it rested 2 mm from, brushing it: the neighbour, which the
    path made a mover, was taken for the flicked disc's striker at its start (the earlier contact of
    the pair). The finger set the flicked disc moving: it touched the neighbour, not the reverse."""
    mover = track(1, [(0.0, 0.0)] * 4 + [(3.0, 20.0), (6.0, 40.0), (8.0, 60.0), (9.0, 75.0), (9.0, 80.0), (9.0, 80.0)],
                  radius=19.0)
    neighbour = still(2, 39.0, 10.0, 10, radius=19.0)
    cfg = noise_config(ContactConfig(), 0.7, DT)
    before = table_contacts([mover, neighbour], 0.0, cfg, path_mm=3.15, known_starts={1: 3.5 * DT})
    assert [(c.a, c.b) for c in before] == [(2, 1)]
    found = table_contacts([mover, neighbour], 0.0, cfg, path_mm=3.15, known_starts={1: 3.5 * DT}, flicked=frozenset({1}))
    assert [(c.a, c.b, c.evidence) for c in found] == [(1, 2, "touched")]


def test_a_stop_is_put_down_to_the_first_piece_its_way_in_reaches():
    """A large disc (r 25.5) stops short against a disc (r 19) beside its way in; a third disc stands
    beyond, farther off its way but nearer the line the way in runs on: the stop is the first
    one's, the disc the way reaches first, not the one its line comes closest to."""
    from dataclasses import replace

    mover = track(1, [(498, 247), (463.5, 249.8), (434, 252.9), (407.9, 257), (383.8, 259), (369, 259.4), (364.4, 258.8),
                      (359.2, 258.2), (359.9, 256.5)], radius=25.5)
    struck, beyond = still(2, 334.0, 275.3, 9, radius=19.0), still(3, 360.7, 307.1, 9, radius=19.0)
    cfg = replace(noise_config(ContactConfig(), 0.7, DT), touch_mm=3.15)
    found = deflected_by(mover, [beyond, struck], 0.0, cfg, slow=0.5)
    assert [c.b for c in found] == [2]


def test_a_bounce_inside_one_interval_is_seen_across_the_two_chords_it_splits():
    """A passed ball (r 9.5) runs at 1.1 m/s to a disc (r 25.5) and bounces off it between two
    samples: the chord across the bounce turns 17° from the way in, the next 30° from that chord,
    neither the 20° a bounce needs, and the way in against the way out after the bounce turns 47°.
    The ray in reaches the disc: it caught the ball (a game's pass, traced)."""
    from dataclasses import replace

    ball = track(1, [(682.7, 522.6), (684.6, 523.6), (649.1, 498.3), (617.4, 477.1), (587.5, 456.1), (571.5, 435.9),
                     (568.4, 414.4), (562.8, 396.1), (560.5, 381.8), (558.5, 370.2)], radius=9.5)
    disc = still(2, 543.3, 463.2, 10, radius=25.5)
    cfg = replace(noise_config(ContactConfig(), 0.7, DT), touch_mm=3.15)
    found = deflected_by(ball, [disc], 0.0, cfg)
    assert [(c.b, c.evidence) for c in found] == [(2, "deflected")]
    assert 3 * DT <= found[0].t <= 6 * DT
    # a second disc beside the way in, which it reaches too (the ball passed it 0.5 mm clear): which
    # one the bounce was is not told so: nothing
    other = still(3, 634.1, 453.4, 10, radius=19.0)
    assert deflected_by(ball, [disc, other], 0.0, cfg) == []
    # a ball that runs straight on past the disc, 10 mm clear, turns nowhere: nothing
    straight = track(1, [(682.7 - 33.0 * i, 522.6 - 23.3 * i) for i in range(10)], radius=9.5)
    assert deflected_by(straight, [still(2, 543.3, 440.0, 10, radius=25.5)], 0.0, cfg) == []


def test_a_turn_between_the_rest_and_the_first_sample_is_a_touch_of_a_piece_within_reach():
    """A ball (r 9.5) resting 14 mm from a disc is flicked into it and bounces off before the first
    sample: its straight run afterwards, carried back, passes 9 mm beside where it rested (a game's
    pass, traced). The disc within reach turned it; a farther disc did not. Flicked straight along
    that run from its rest, nothing did."""
    rest = (401.0, 205.0)
    run = [(409.7, 241.5), (408.9, 272.7), (408.0, 299.3), (407.3, 322.6), (406.5, 345.0), (405.6, 362.7)]
    ball = track(1, [rest] * 4 + run, radius=9.5)
    near, far = still(2, 440.3, 222.3, 10, radius=19.0), still(3, 250.0, 205.0, 10, radius=19.0)
    found = turned_at_start(ball, rest, 0.3, 3 * DT, [near, far], 0.7, 4.5)
    assert [b for b, _ in found] == [2]
    assert found[0][1] == pytest.approx(np.hypot(39.3, 17.3) - 28.5, abs=0.1)
    # the same run from a rest on its own line: a straight start
    start = (410.8, 205.0)
    straight = track(1, [start] * 4 + run, radius=9.5)
    assert turned_at_start(straight, start, 0.3, 3 * DT, [near, far], 0.7, 4.5) is None
    # too few samples after the start to draw its line
    assert turned_at_start(track(1, [rest] * 4 + run[:2], radius=9.5), rest, 0.3, 3 * DT, [near], 0.7, 4.5) is None


def test_a_second_stop_against_the_piece_it_struck_is_that_piece_again():
    """A disc strikes another (the chord shows the touch), slows, and stops against it a frame
    later; a ball rests beside the way in. Both stops are the struck disc's: the second one is not
    put down to the ball because the disc was already credited with the first."""
    from dataclasses import replace

    mover = track(1, [(546.9, 366.5), (550.9, 389.0), (553.9, 399.7), (554.2, 400.2), (553.5, 401.0), (553.6, 400.4)],
                  radius=19.0)
    struck, ball = still(2, 557.7, 435.5, 6, radius=19.0), still(3, 529.4, 425.1, 6, radius=9.5)
    cfg = replace(noise_config(ContactConfig(), 0.7, DT), touch_mm=3.15)
    found = deflected_by(mover, [ball, struck], 0.0, cfg, slow=0.5, touched_at={2: 2 * DT})
    assert [c.b for c in found] == [2]


def test_a_disc_leaving_the_ball_s_side_is_measured_from_where_they_rested():
    """A disc rests 1.9 mm from the ball and is flicked away from it. Its sample at t0 happens to lie
    2 mm out and the next 1 mm in (noise 0.7 mm): measured from the first, the path "closed in" on
    the ball by 2.6 mm and touched it. Measured from where the two rested (the means of their frames
    before the flick), it never closed in, and it left clearly away: no contact."""
    ball = still(1, 0.0, 0.0, 10, radius=9.5)
    ball.kind = "ball"
    disc = track(2, [(32.4, 0.5), (29.4, -0.3), (45.0, 12.0), (58.0, 22.0), (68.0, 30.0)] + [(72.0, 33.0)] * 5,
                 radius=19.0)
    cfg = noise_config(ContactConfig(), 0.7, DT)
    kw = dict(path_mm=3.15, known_starts={2: 0.5 * DT}, graze=4.5, flicked=frozenset({2}))
    noisy = table_contacts([ball, disc], 0.0, cfg, **kw)
    assert [(c.a, c.b, c.evidence) for c in noisy] == [(2, 1, "touched")]
    rest = {1: np.array([0.0, 0.0]), 2: np.array([30.4, 0.0])}
    assert table_contacts([ball, disc], 0.0, cfg, rest=rest, **kw) == []
    # resting against it and leaving along it, it may still have brushed it (in doubt)
    along = track(2, [(32.4, 0.5), (29.4, -0.3), (30.0, 15.0), (31.0, 30.0), (32.0, 42.0)] + [(33.0, 48.0)] * 5,
                  radius=19.0)
    found = table_contacts([ball, along], 0.0, cfg, rest=rest, **kw)
    assert [(c.a, c.b, c.evidence) for c in found] == [(2, 1, "brushed")]



def test_a_path_is_measured_to_where_a_piece_rested_not_to_one_noisy_sample():
    """A disc (r 19) flicked along +x passes a large disc (r 25.5) resting 2 mm clear of its path:
    within the path tolerance (3.15 mm). The resting disc's samples jitter; the one taken where the
    path passes it lies 1.5 mm farther out, 3.5 mm clear: measured to it, no touch. Measured to where
    it rested (the mean of its frames before the flick), the path comes within the tolerance: a touch
    (in doubt: the session measures it again on the fitted path)."""
    mover = track(1, [(0.0, 0.0)] * 3 + [(40.0, 0.0), (80.0, 0.0), (110.0, 0.0), (125.0, 0.0)] + [(130.0, 0.0)] * 3,
                  radius=19.0)
    big = track(2, [(60.0, 46.5), (60.0, 46.0), (60.0, 47.0), (60.0, 48.0), (60.0, 48.0), (60.0, 48.0), (60.0, 47.5),
                    (60.0, 46.5), (60.0, 46.0), (60.0, 47.0)], radius=25.5)
    cfg = noise_config(ContactConfig(), 0.7, DT)
    kw = dict(path_mm=3.15, known_starts={1: 2 * DT}, flicked=frozenset({1}))
    assert table_contacts([mover, big], 0.0, cfg, **kw) == []
    rest = {1: np.array([0.0, 0.0]), 2: np.array([60.0, 46.5])}
    found = table_contacts([mover, big], 0.0, cfg, rest=rest, **kw)
    assert [(c.a, c.b, c.evidence) for c in found] == [(1, 2, "touched")]
    assert 1.5 <= found[0].gap_mm <= 2.5


def test_a_stop_is_put_on_the_piece_run_into_not_on_one_passed_within_the_noise():
    """A disc (r 19) slides +x and stops dead against a disc ahead of it (overlapping its way in by
    far); on the way it passed a resting disc 1 mm clear, within the noise of touching. Both are
    known touched by then: the stop is the one it ran into (before, the first its way in reached
    was named, though it only grazed it)."""
    mover = track(1, [(0.0, 0.0), (30.0, 0.0), (60.0, 0.0), (64.0, 0.0), (65.0, 0.0), (65.0, 0.0)], radius=19.0)
    grazed = still(2, 40.0, 39.5, 6, radius=19.5)  # 1 mm clear of the way in (19 + 19.5 + 1)
    ahead = still(3, 102.0, 0.0, 6, radius=19.0)
    from dataclasses import replace

    cfg = replace(noise_config(ContactConfig(), 0.7, DT), touch_mm=3.15)
    found = deflected_by(mover, [grazed, ahead], 0.0, cfg, slow=0.5, touched_at={2: 1.5 * DT, 3: 2.5 * DT})
    assert [c.b for c in found] == [3]


def test_a_ball_flicked_while_pressed_against_a_disc_may_have_touched_it():
    """A ball (r 9.5) rests against a disc (r 19), touching it; flicked, it moves 2 mm and stops
    (pressed between the disc and the passer): it never left its rest by more than the noise, so it
    never 'left clearly away' from the disc either. It may have touched it: in doubt ('brushed').
    A ball that clearly slid off the other way has not."""
    cfg = noise_config(ContactConfig(), 0.7, DT)
    disc = still(1, 0.0, 0.0, 12, radius=19.0)
    pressed = track(2, [(28.5, 0.0)] * 3 + [(29.5, 0.3), (30.3, 0.0), (30.5, -0.2)] + [(30.5, 0.0)] * 6, radius=9.5)
    pressed.kind = "ball"
    rest = {1: np.array([0.0, 0.0]), 2: np.array([28.5, 0.0])}
    kw = dict(path_mm=3.15, known_starts={2: 2.5 * DT}, graze=4.5, rest=rest)
    found = table_contacts([disc, pressed], 0.0, cfg, flicked=frozenset({2}), **kw)
    assert [(c.a, c.b, c.evidence) for c in found] == [(2, 1, "brushed")]
    # the same small motion of a piece no one flicked (a nudge down a chain) is no brush
    assert table_contacts([disc, pressed], 0.0, cfg, **kw) == []
    away = track(2, [(28.5, 0.0)] * 3 + [(45.0, 0.0), (60.0, 0.0), (70.0, 0.0)] + [(72.0, 0.0)] * 6, radius=9.5)
    assert table_contacts([disc, away], 0.0, cfg, flicked=frozenset({2}), **kw) == []


def test_the_jitter_of_a_ball_coming_to_rest_is_no_bounce():
    """A ball (r 9.5) slows to a stop 3 mm short of touching a disc: its last chords are 5 mm, then
    one 3 mm back (one sample's noise, σ 0.7 mm: the way out of a stop has no direction). No bounce,
    no contact. Turned back as far as the noise allows a way out to have a direction (5 σ√2), it
    bounced."""
    from dataclasses import replace

    disc = still(2, 410.0, 51.0, 12, radius=14.5)
    cfg = replace(noise_config(ContactConfig(), 0.7, DT), touch_mm=3.15)
    pts = [(300.0, 51.0), (330.0, 51.0), (355.0, 51.0), (370.0, 51.0), (380.0, 51.0), (385.0, 51.0)]
    stop = track(1, pts + [(382.6, 49.3), (383.0, 51.0), (383.2, 50.6)], radius=9.5)
    assert deflected_by(stop, [disc], 0.0, cfg, slow=0.5) == []
    back = track(1, pts + [(379.5, 50.0), (379.0, 50.0), (379.0, 50.0)], radius=9.5)
    assert [c.b for c in deflected_by(back, [disc], 0.0, cfg, slow=0.5)] == [2]
