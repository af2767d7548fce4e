"""Motion of the table: started, settled, noise-aware, teleports and vanishing pieces."""

from __future__ import annotations

import numpy as np
import pytest

from session.motion import Motion, MotionConfig
from vision.core import Observation


def obs(t_index, rows, sigma=0.7):
    """rows: (track id, x, y[, height]) in mat mm."""
    return Observation(xy=[[r[1], r[2]] for r in rows] if rows else np.zeros((0, 2)), radius=[10.0] * len(rows),
                       height=[r[3] if len(r) > 3 else 5.0 for r in rows], kind=["disc-small"] * len(rows),
                       confidence=[1.0] * len(rows), sigma=[sigma] * len(rows), track_id=[r[0] for r in rows],
                       frame_index=t_index, timestamp=t_index / 30)


def run(positions, sigma=0.7, config=None):
    """positions: per frame a list of rows; returns the events."""
    m = Motion(config)
    return [m.update(obs(i, rows, sigma)) for i, rows in enumerate(positions)], m


def test_a_still_noisy_table_never_moves():
    rng = np.random.default_rng(0)
    frames = [[(k, 100 * k + rng.normal(0, 0.7), 50 + rng.normal(0, 0.7)) for k in range(12)] for _ in range(3000)]
    events, _ = run(frames)
    assert set(events) == {None}  # 36,000 noisy samples, no false start (6 σ)


@pytest.mark.parametrize("name, track, started, settled", [
    # (what, positions of track 1 per frame, frame of "started", frame of "settled")
    ("a slide of 10 mm per frame for 5 frames", [0] * 5 + [10, 20, 30, 40, 50] + [50] * 6, 5, 12),
    ("a dropped token: only its height changes", None, 5, 10),
])
def test_start_and_settle(name, track, started, settled):
    if track is None:
        heights = [40.0] * 5 + [30.0, 20.0, 10.0] + [5.0] * 8
        frames = [[(1, 100, 100, h), (2, 300, 100)] for h in heights]
    else:
        frames = [[(1, 100 + x, 100), (2, 300, 100)] for x in track]
    events, _ = run(frames)
    assert events.index("started") == started
    assert events.index("settled") == settled
    assert events.count("started") == events.count("settled") == 1


def test_a_teleport_steps_once_and_vanishing_is_no_motion():
    frames = [[(1, 100, 100), (2, 300, 100)]] * 4 + [[(1, 160, 100), (2, 300, 100)]] * 6 + [[(2, 300, 100)]] * 5 \
        + [[(2, 300, 100), (3, 500, 300)]] * 5
    m = Motion()
    stepped = []
    events = []
    for i, rows in enumerate(frames):
        events.append(m.update(obs(i, rows)))
        stepped.append(bool(m.stepped_ids))
    assert sum(stepped) == 1  # the jump, seen once against the frame before it
    assert events.count("started") == 1 and events.count("settled") == 1  # and nothing after it vanished / appeared


def test_settle_frames_is_configurable():
    frames = [[(1, 100, 100)]] * 3 + [[(1, 120, 100)], [(1, 140, 100)]] + [[(1, 140, 100)]] * 8
    e2, _ = run(frames, config=MotionConfig(settle_frames=2))
    e5, _ = run(frames, config=MotionConfig(settle_frames=5))
    assert e5.index("settled") - e2.index("settled") == 3


def test_a_sliding_piece_missed_for_a_frame_keeps_the_table_moving():
    # track 1 slides 30 mm per frame; the detector misses it on frame 6 (blur) and it slides on
    slide = [0] * 4 + [30, 60, None, 120, 150, 180, 210] + [210] * 6
    frames = [[(2, 300, 100)] + ([(1, 100 + x, 100)] if x is not None else []) for x in slide]
    events, _ = run(frames)
    assert events.count("started") == events.count("settled") == 1
    # the last step is frame 10; frame 11 still sees frame 9 (window 2); two still frames later: 13
    assert events.index("settled") == 13


def test_a_piece_that_vanishes_at_rest_or_for_long_is_no_motion():
    still = [[(1, 100, 100), (2, 300, 100)]] * 5 + [[(2, 300, 100)]] * 10
    events, _ = run(still)
    assert set(events) == {None}
    # moving when lost, then gone for good: the table settles once the gap allowance is over
    gone = [[(1, 100, 100), (2, 300, 100)]] * 4 + [[(1, 130, 100), (2, 300, 100)]] + [[(2, 300, 100)]] * 10
    events, m = run(gone)
    assert events.index("started") == 4
    # the frames of its gap allowance were still frames of the piece seen: the table settles on the
    # first frame after the allowance, not settle_frames later
    assert m.config.settle_frames <= m.config.gap_frames + 1
    assert events.index("settled") == 4 + m.config.gap_frames + 1


def test_a_piece_seen_moving_during_the_gap_of_a_lost_one_waits_its_settle_frames():
    # track 1 is lost moving after frame 4; track 2 slides on until frame 6 and stops there: the
    # still frames count from track 2's last step, whatever track 1's gap allowance
    frames = [[(1, 100, 100), (2, 300, 100)]] * 4 + [[(1, 130, 100), (2, 330, 100)]] + \
        [[(2, 360, 100)], [(2, 390, 100)]] + [[(2, 390, 100)]] * 10
    events, m = run(frames, config=MotionConfig(settle_frames=5, gap_frames=2))
    # frame 7 still sees frame 6's step against frame 5 (window 2): still from frame 8, settled at 12
    assert events.index("settled") == 12
    events, m = run(frames, config=MotionConfig(settle_frames=2, gap_frames=2))
    assert events.index("settled") == 9  # (the gap, frames 5-6, is over before that)


def test_a_still_piece_missed_for_a_frame_and_back_displaced_moved_unseen():
    # a token held 40 mm up, dropped in the one frame the detector missed it: back 35 mm lower at
    # the same place, it moved (its history outlives a gap of up to gap_frames)
    heights = [40.0] * 5 + [None] + [5.0] * 8
    frames = [[(2, 300, 100)] + ([(1, 100, 100, h)] if h is not None else []) for h in heights]
    events, _ = run(frames)
    assert events.index("started") == 6 and events.count("started") == events.count("settled") == 1
    # back where it was after the gap: no motion; back after more than gap_frames: a new piece there
    same = [[(2, 300, 100)] + ([(1, 100, 100, 40.0)] if h is not None else []) for h in heights]
    assert set(run(same)[0]) == {None}
    cfg = MotionConfig()
    long_gap = [40.0] * 5 + [None] * (cfg.gap_frames + 1) + [5.0] * 8
    assert set(run([[(2, 300, 100)] + ([(1, 100, 100, h)] if h is not None else []) for h in long_gap])[0]) == {None}
