"""Tracking and contacts on constructed trajectories with known answers."""

import numpy as np
import pytest

from vision.contacts import ContactConfig, chain, first_touched, struck_contacts, touched
from vision.core import Observation
from vision.track import Tracker, TrackerConfig

FPS = 30.0
R = 19.0  # medium disc radius, mm


def billiards(starts, velocities, radius=R, t_end=1.5, dt=1 / 2000.0):
    """A tiny independent reference: equal-mass discs on a line-free plane, elastic collisions,
    no friction, integrated finely. Returns (times at 30 fps, positions (T, n, 2), contact log)."""
    p = np.array(starts, float)
    v = np.array(velocities, float)
    n = len(p)
    frames, times, log = [], [], []
    t, next_frame = 0.0, 0.0
    touching = set()
    while t <= t_end:
        if t >= next_frame - 1e-12:
            frames.append(p.copy())
            times.append(t)
            next_frame += 1 / FPS
        p += v * dt
        t += dt
        for i in range(n):
            for j in range(i + 1, n):
                d = p[j] - p[i]
                dist = np.linalg.norm(d)
                if dist < 2 * radius and (i, j) not in touching:
                    nrm = d / dist
                    rel = np.dot(v[i] - v[j], nrm)
                    if rel > 0:
                        v[i] -= rel * nrm
                        v[j] += rel * nrm
                        log.append((t, i, j))
                        touching.add((i, j))
                elif dist >= 2 * radius + 0.5:
                    touching.discard((i, j))
    return np.array(times), np.array(frames), log


def run_tracker(times, frames, noise=0.3, seed=0, drop=()):
    rng = np.random.default_rng(seed)
    tracker = Tracker(TrackerConfig())
    ids = []
    for k, (t, pos) in enumerate(zip(times, frames)):
        keep = [i for i in range(len(pos)) if (k, i) not in drop]
        xy = pos[keep] + rng.normal(0, noise, (len(keep), 2))
        obs = Observation(xy, [R] * len(keep), [9.0] * len(keep), ["disc-medium"] * len(keep),
                          [1.0] * len(keep), [noise] * len(keep), timestamp=t, frame_index=k)
        tracker.update(obs)
        row = {}
        for i, tid in zip(keep, obs.track_id):
            row[i] = int(tid)
        ids.append(row)
    return tracker, ids


def test_head_on_strike_is_found_at_the_right_time():
    times, frames, log = billiards([[100, 300], [300, 300]], [[1200, 0], [0, 0]])
    assert len(log) == 1
    tracker, ids = run_tracker(times, frames)
    a, b = ids[0][0], ids[0][1]
    contacts = struck_contacts(tracker.active(), t0=0.0)
    assert [(c.a, c.b) for c in contacts] == [(a, b)]
    assert contacts[0].t == pytest.approx(log[0][0], abs=1 / FPS)


def test_chain_a_pushes_b_into_c():
    times, frames, log = billiards([[100, 300], [300, 300], [500, 302]], [[1500, 0], [0, 0], [0, 0]])
    assert [(i, j) for _, i, j in log] == [(0, 1), (1, 2)]
    tracker, ids = run_tracker(times, frames)
    a, b, c = (ids[0][i] for i in range(3))
    contacts = struck_contacts(tracker.active(), t0=0.0)
    assert [(x.a, x.b) for x in contacts] == [(a, b), (b, c)]
    assert chain(contacts, a) == [b, c]
    assert first_touched(contacts, a) == b


def test_a_near_miss_is_no_contact():
    # passes 10 mm from touching
    times, frames, log = billiards([[100, 300], [400, 300 + 2 * R + 10]], [[1200, 0], [0, 0]])
    assert log == []
    tracker, _ = run_tracker(times, frames)
    assert struck_contacts(tracker.active(), t0=0.0) == []


def test_identities_survive_crossing_and_occlusion():
    # two discs cross paths; the second is hidden for 8 frames in the middle (a hand)
    times = np.arange(0, 1.0, 1 / FPS)
    a = np.stack([100 + 500 * times, 300 + 0 * times], 1)
    b = np.stack([400 - 100 * times, 200 + 200 * times], 1)
    frames = np.stack([a, b], 1)
    drop = {(k, 1) for k in range(10, 18)}
    tracker, ids = run_tracker(times, frames, drop=drop)
    first = ids[0]
    for row in ids:
        for piece, tid in row.items():
            assert tid == first[piece]


def test_named_identity_survives_a_retired_track():
    tracker = Tracker(TrackerConfig(max_missed_s=0.2))
    def obs(t, xy):
        return Observation([xy], [R], [9.0], ["disc-medium"], [1.0], [0.3], timestamp=t,
                           attributes={"team": ["home"]})
    o = tracker.update(obs(0.0, [100, 100]))
    tracker.name(int(o.track_id[0]), "home:triceratops")
    tracker.update(Observation.empty(timestamp=0.1))
    tracker.update(Observation.empty(timestamp=0.5))  # retired now
    o2 = tracker.update(obs(1.0, [160, 120]))
    assert tracker.tracks[int(o2.track_id[0])].name == "home:triceratops"


def test_settle_detection():
    tracker = Tracker(TrackerConfig(settle_s=0.3))
    events = []
    for k in range(40):
        t = k / FPS
        x = 100 + (600 * t if t < 0.5 else 300)
        tracker.update(Observation([[x, 100]], [R], [9.0], ["disc-medium"], [1.0], [0.3], timestamp=t))
        e = tracker.motion_event()
        if e:
            events.append((e, round(t, 3)))
    assert [e for e, _ in events] == ["started", "settled"]
    assert events[1][1] == pytest.approx(0.5 + 0.3, abs=2.5 / FPS)


def test_projectile_touches_in_order_and_first_only():
    from vision.track import Track
    proj = Track(1, "banana", 13.0)
    for k in range(20):
        proj.t.append(k / FPS)
        proj.xy.append((100 + 30 * k, 300.0))
    targets = []
    for tid, (x, y) in enumerate([(400, 300 + 13 + 12 + 3), (250, 300), (500, 360)], start=2):
        tr = Track(tid, "racer", 12.0)
        tr.t, tr.xy = [0.0, 1.0], [(x, y), (x, y)]
        targets.append(tr)
    hits = touched(proj, targets, t_land=0.0, cfg=ContactConfig(touch_mm=4.0))
    assert [h.b for h in hits] == [3, 2]  # 250 first, then 400 (gap 3 mm ≤ 4), 500 missed by far
    assert [h.b for h in touched(proj, targets, 0.0, ContactConfig(touch_mm=4.0), first_only=True)] == [3]
    assert [h.b for h in touched(proj, targets, 0.0, ContactConfig(touch_mm=2.0))] == [3]


def _coloured(t, rows):
    """One frame of racers: rows of (x, y, colour)."""
    return Observation([[x, y] for x, y, _ in rows], [12.5] * len(rows), [45.0] * len(rows), ["racer"] * len(rows),
                       [1.0] * len(rows), [3.5] * len(rows), timestamp=t, attributes={"colour": [c for *_, c in rows]})


def test_a_colour_misread_in_place_keeps_the_track_and_its_colour():
    tracker = Tracker()
    first = tracker.update(_coloured(0.0, [(100, 100, "black"), (200, 100, "white")])).track_id.copy()
    for k in range(1, 10):  # the colour read otherwise for two frames, the piece nudged 10 mm (within its radius)
        colour = "purple" if k in (4, 5) else "black"
        ids = tracker.update(_coloured(k / FPS, [(100 + (10 if k >= 4 else 0), 100, colour), (200, 100, "white")])).track_id
        assert list(ids) == list(first)
    assert tracker.tracks[int(first[0])].attributes["colour"] == "black"  # the colour read most often


def test_a_piece_of_another_colour_beyond_the_radius_is_another_piece():
    tracker = Tracker()
    first = tracker.update(_coloured(0.0, [(100, 100, "black")])).track_id.copy()
    ids = tracker.update(_coloured(1 / FPS, [(100, 100, "black"), (130, 100, "purple")])).track_id
    assert ids[0] == first[0] and ids[1] != first[0]
    # the black one unseen, the purple one 20 mm from where it stood: beyond 12.5 mm, not the same piece
    ids = tracker.update(_coloured(2 / FPS, [(120, 100, "purple")])).track_id
    assert ids[0] != first[0]


def test_an_agreeing_detection_is_preferred_to_a_misread_one():
    tracker = Tracker()
    a, b = tracker.update(_coloured(0.0, [(100, 100, "black"), (122, 100, "purple")])).track_id.copy()
    # both seen again a little moved: each keeps its own though the other lies within a radius of it
    ids = tracker.update(_coloured(1 / FPS, [(111, 100, "purple"), (104, 100, "black")])).track_id
    assert list(ids) == [b, a]


def test_a_piece_at_rest_hidden_a_frame_and_misread_after_keeps_its_identity():
    """A flying token hides one racer for a frame; in the next, that racer's colour is read as its
    neighbour's (in the token's shadow) while the neighbour's is not read: the two must not trade
    identities (each would have had to jump 43 mm in a frame)."""
    tracker = Tracker()
    orange, black = (735.0, 253.0), (725.0, 211.0)
    for k in range(6):
        ids = tracker.update(_coloured(k / FPS, [(*orange, "orange"), (*black, "black")])).track_id.copy()
    a, b = int(ids[0]), int(ids[1])
    tracker.update(_coloured(6 / FPS, [(*black, "")]))  # the orange one hidden
    ids = tracker.update(_coloured(7 / FPS, [(*orange, "black"), (729.0, 210.0, "")])).track_id
    assert list(ids) == [a, b]
    # a racer lifted (unseen three frames) and another put down where it stood is another piece
    tracker = Tracker()
    for k in range(6):
        ids = tracker.update(_coloured(k / FPS, [(*orange, "orange"), (400.0, 100.0, "black")])).track_id.copy()
    for k in range(6, 9):
        tracker.update(_coloured(k / FPS, [(400.0, 100.0, "black")]))
    got = tracker.update(_coloured(9 / FPS, [(orange[0] + 8.0, orange[1], "purple"), (400.0, 100.0, "black")])).track_id
    assert got[0] != ids[0] and got[1] == ids[1]
    # a piece that was moving and is found where a piece of another colour lay is not taken for it
    tracker = Tracker()
    ids = tracker.update(_coloured(0.0, [(100, 100, "black"), (300, 100, "purple")])).track_id.copy()
    for k in range(1, 4):  # the purple one slides toward where the black one stands
        got = tracker.update(_coloured(k / FPS, [(100, 100, "black"), (300 - 60 * k, 100, "purple")])).track_id
        assert list(got) == list(ids)


def test_a_piece_whose_place_jumped_back_and_read_otherwise_keeps_its_track():
    """A racer with a log held against it, seen 14 mm off its own place and its colour misread as
    yellow; the log rolls away and it is seen at its own place again, read grey like the still
    racer 30 mm beside it, then not read, then grey again (the colours of a throw traced with the
    real detector): it was moving by the last frames' reckoning, and the two racers had traded names
    (each jumping 30 mm in a frame). Within the noise of where it was seen last it is itself."""
    tracker = Tracker()
    for k in range(6):
        ids = tracker.update(_coloured(k / FPS, [(201.9, 380.6, "grey"), (185.5, 377.0, "yellow")])).track_id.copy()
    a, b = int(ids[0]), int(ids[1])
    got = tracker.update(_coloured(6 / FPS, [(202.3, 380.4, ""), (171.7, 377.9, "")])).track_id  # (the jump back)
    assert list(got) == [a, b]
    for k in range(7, 10):
        got = tracker.update(_coloured(k / FPS, [(202.3, 380.3, ""), (171.7, 377.9, "grey")])).track_id
        assert list(got) == [a, b]


def _teams(t, rows, sigma=0.7):
    """One frame of medium discs: rows of (x, y, team)."""
    return Observation([[x, y] for x, y, _ in rows], [R] * len(rows), [9.0] * len(rows), ["disc-medium"] * len(rows),
                       [1.0] * len(rows), [sigma] * len(rows), timestamp=t, attributes={"team": [c for *_, c in rows]})


def test_a_piece_of_the_other_team_put_down_where_a_still_one_stood_does_not_take_its_track():
    """An away disc at rest; in one frame a home disc is put down 17.8 mm from where it stood (within
    a radius) while the away disc is pushed 19.1 mm aside: the home disc is not the away disc read
    otherwise (it lies far beyond the noise of that place), so the away track follows the away disc."""
    tracker = Tracker()
    for k in range(6):
        ids = tracker.update(_teams(k / FPS, [(457.0, 586.0, "away")])).track_id.copy()
    got = tracker.update(_teams(6 / FPS, [(474.8, 586.0, "home"), (437.9, 586.0, "away")])).track_id
    assert got[1] == ids[0] and got[0] != ids[0]
    # read otherwise within the noise of its place, a piece at rest is still itself
    tracker = Tracker()
    for k in range(6):
        ids = tracker.update(_teams(k / FPS, [(457.0, 586.0, "away")])).track_id.copy()
    got = tracker.update(_teams(6 / FPS, [(458.0, 586.5, "home"), (437.9, 586.0, "away")])).track_id
    assert got[0] == ids[0]


def test_a_piece_put_down_again_is_not_given_a_name_two_lifted_pieces_could_have():
    tracker = Tracker()
    ids = tracker.update(_teams(0.0, [(100.0, 100.0, "home"), (600.0, 400.0, "home"), (300.0, 300.0, "away")])).track_id
    a, b, c = (int(i) for i in ids)
    tracker.name(a, "home:a")
    tracker.name(b, "home:b")
    for k in range(1, 40):  # both home discs lifted for more than max_missed_s: retired
        tracker.update(_teams(k / FPS, [(300.0, 300.0, "away")]))
    assert tracker.tracks[a].retired and tracker.tracks[b].retired
    got = tracker.update(_teams(40 / FPS, [(300.0, 300.0, "away"), (120.0, 100.0, "home")])).track_id
    assert int(got[1]) not in (a, b)  # which of the two it is, the tracker cannot say
    # one named piece lifted: put down near its place, it is that piece again
    tracker = Tracker()
    ids = tracker.update(_teams(0.0, [(100.0, 100.0, "home"), (300.0, 300.0, "away")])).track_id
    tracker.name(int(ids[0]), "home:a")
    for k in range(1, 40):
        tracker.update(_teams(k / FPS, [(300.0, 300.0, "away")]))
    got = tracker.update(_teams(40 / FPS, [(300.0, 300.0, "away"), (120.0, 100.0, "home")])).track_id
    assert int(got[1]) == int(ids[0])
