"""sim/live.py: sim:// URLs, reproducible whole games, real-time pacing, events in order."""

from __future__ import annotations

import itertools

import pytest

from sim.live import LiveError, SimSource, parse_sim_url


@pytest.mark.parametrize("url, expected, error", [
    ("sim://dino-dunk?seed=7", dict(game="dino-dunk", seed=7, board="dino-dunk/crater-court", realtime=True), None),
    ("sim://morris", dict(game="morris", seed=0, board="morris/waterfall"), None),
    ("sim://dodo-dash?board=dodo-dash/dodorado-temple&fps=60&realtime=0", dict(fps=60.0, realtime=False,
                                                                            board="dodo-dash/dodorado-temple"), None),
    ("sim://dogo-dash?render=1&size=1280x720&clean=1", dict(render=True, size=(1280, 720), clean=True), None),
    ("http://dino-dunk", None, "sim://"),                    # wrong scheme
    ("sim://chess", None, "unknown game"),                  # not one of the four games
    ("sim://dino-dunk?seed=x", None, "number"),             # bad number
    ("sim://dino-dunk?speed=2", None, "unknown key"),       # unknown key
    ("sim://dino-dunk?board=morris/waterfall", None, "not a dino-dunk board"),
    ("sim://dino-dunk?realtime=maybe", None, "0 or 1"),
])
def test_parse_sim_url(url, expected, error):
    if error:
        with pytest.raises(LiveError, match=error):
            parse_sim_url(url)
        return
    spec = parse_sim_url(url)
    for k, v in expected.items():
        assert getattr(spec, k) == v


def take(url, n):
    return list(itertools.islice(SimSource(url), n))


def test_same_url_same_game():
    a = take("sim://dino-dunk?seed=3&realtime=0&hold=0", 80)
    b = take("sim://dino-dunk?seed=3&realtime=0&hold=0", 80)
    assert [f.scene.to_dict() for f in a] == [f.scene.to_dict() for f in b]
    assert [f.events for f in a] == [f.events for f in b]
    c = take("sim://dino-dunk?seed=4&realtime=0&hold=0", 80)
    assert [f.scene.to_dict() for f in a] != [f.scene.to_dict() for f in c]


def test_dino_dunk_frames_and_events():
    frames = take("sim://dino-dunk?seed=7&realtime=0&fps=30", 400)
    assert [f.index for f in frames] == list(range(400))
    assert [f.t for f in frames] == pytest.approx([i / 30 for i in range(400)], abs=1e-9)
    events = [e for f in frames for e in f.events]
    kinds = [e["kind"] for e in events]
    assert "activate" in kinds and "call" in kinds and "settled" in kinds
    # every activation is followed by its settle and call, in time order
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    first_call = kinds.index("call")
    assert kinds.index("activate") < kinds.index("settled") < first_call
    ids = {p.id for f in frames for p in f.scene.pieces}  # the ball is in hand while its carrier moves
    discs = [p for p in frames[0].scene.pieces if p.kind.startswith("disc-")]
    assert "ball" in ids and len(discs) >= 9  # five a side (one may be out after a foul)
    for side in ("home", "away"):  # the roster rule: one small, three medium, one large
        kinds = sorted(p.kind for p in discs if p.attributes["team"] == side)
        assert kinds in (["disc-large", "disc-medium", "disc-medium", "disc-medium", "disc-small"],)


@pytest.mark.parametrize("rules", [1, 0])
def test_dino_dunk_plays_a_whole_game_to_its_end(rules):
    events = [e for f in SimSource(f"sim://dino-dunk?seed=2&realtime=0&hold=0&rules={rules}&target=2") for e in f.events]
    over = [e for e in events if e["kind"] == "game-over"]
    assert len(over) == 1 and events[-1] is over[0]
    scores = [e for e in events if e["kind"] == "state"]
    final = scores[-1]["score"]
    assert max(final.values()) >= 2  # the winner reached the target
    if rules:  # the engine ran it: its own events are in the stream
        assert any(e.get("source") == "rules" for e in events)


def test_morris_plays_a_whole_game_to_its_end():
    kinds = [e["kind"] for f in SimSource("sim://morris?seed=3&realtime=0&hold=0") for e in f.events]
    assert kinds[-1] == "game-over"
    assert kinds.count("slide") >= 5


def test_real_time_pacing_with_a_fake_clock():
    now = [100.0]
    slept = []

    def clock():
        return now[0]

    def sleep(s):
        slept.append(s)
        now[0] += s

    frames = list(itertools.islice(SimSource("sim://dogo-dash?seed=1&fps=10", clock=clock, sleep=sleep), 25))
    # the source waits until each frame's timestamp: the fake clock ends at the last frame's time
    assert now[0] - 100.0 == pytest.approx(frames[-1].t, abs=1e-9)
    assert all(s > 0 for s in slept)


def test_rendered_frames():
    pytest.importorskip("sim.render")
    frames = take("sim://dino-dunk?seed=2&realtime=0&render=1&size=320x240", 2)
    assert frames[0].image.shape == (240, 320, 3)
    assert {p.id for p in frames[0].scene.pieces} == set(frames[0].truth)
