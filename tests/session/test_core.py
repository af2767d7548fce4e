"""The session loop: flicks and their evidence, pending facts (confirm / override), corrections,
identities, placements by hand. Hand-made tables in mat mm on dino-dunk/crater-court (the away
scoring zone is the circle centre (819, 305), radius 55; medium discs have radius 19)."""

from __future__ import annotations

import numpy as np
import pytest

from session.core import SessionConfig, SessionError
from session.dino_dunk import DinoDunkSession
from session.oracle import OracleDetector
from sim.live import LiveFrame
from sim.scene import PieceState, Scene



class StubGame:
    """A rules engine reduced to the one fact a test waits for; records what was pushed."""

    def __init__(self, state):
        self.state, self.pushed, self.popped = state, [], 0

    def push(self, action):
        self.pushed.append(action)
        return []

    def pop(self):
        self.popped += 1
        return self.pushed.pop()

ZONE_X, ZONE_Y, ZONE_R, R = 819.0, 305.0, 55.0, 19.0


class MoveGame(StubGame):
    """Waits for the MoveResult of ``home:a`` (home attacks the away zone)."""

    def __init__(self):
        super().__init__({"pieces": {"home:a": {}, "home:b": {}, "away:c": {}}, "ball": {"carrier": "away:c"},
                          "sides": ["home", "away"]})

    def pending(self):
        if self.pushed:
            return {"kind": "over", "side": None}
        return {"kind": "fact", "action": "move", "piece": "home:a", "side": "home"}


def disc(pid, x, y, team):
    return PieceState(pid, "disc-medium", x, y, R, 9.0, 0.0, (), 0.0, attributes={"team": team})


def table(a_x, a_y=ZONE_Y):
    return [disc("home:a", a_x, a_y, "home"), disc("home:b", 300, 100, "home"), disc("away:c", 600, 500, "away")]


def flick_frames(x_stop, steps=6, hold=15, x0=500.0):
    """home:a slides from x0 to x_stop (decelerating), the table still before and after."""
    xs = [x0] * hold + list(x0 + (x_stop - x0) * (1 - (1 - np.linspace(0, 1, steps + 1)[1:]) ** 2)) + [x_stop] * hold
    return [table(x) for x in xs]


def make(config=None, images=False):
    from sim.suites import _board

    board = _board("dino-dunk/crater-court")
    det = OracleDetector(board, seed=2)
    s = DinoDunkSession(board, det, game=MoveGame(), config=config or SessionConfig())
    s._image = images
    return s


def play(session, tables, name_at=3, announce=True):
    for i, pieces in enumerate(tables):
        f = LiveFrame(i, i / 30, Scene("dino-dunk", "dino-dunk/crater-court", pieces, i / 30))
        if getattr(session, "_image", False):
            f.image = np.full((48, 64, 3), i % 250, np.uint8)
        session.step(f)
        if i == name_at:
            for tid, pid in zip(session._last_obs.track_id, session.detector.last_ids):
                session.assign(int(tid), pid)
            if announce:
                session._armed = True
    return session


@pytest.mark.parametrize("edge_depth_mm, status, fact", [
    (12.0, "applied", True),      # the disc's edge 12 mm inside the zone: a confident yes
    (-12.0, "applied", False),    # 12 mm short of it: a confident no
    (0.5, "pending", None),       # 0.5 mm: too close, a person decides
])
def test_a_call_is_applied_or_waits_for_a_person(edge_depth_mm, status, fact):
    x_stop = ZONE_X - ZONE_R - R + edge_depth_mm
    s = play(make(), flick_frames(x_stop))
    (flick,) = s.flicks
    assert flick.status == status
    if status == "applied":
        assert s.game.pushed[0].overlaps_scoring_zone is fact
    else:
        assert s.pending is flick and flick.ruling.open_facts() == ["overlaps_scoring_zone"]
        assert not s.game.pushed


@pytest.mark.parametrize("how, value, expected", [
    ("confirm", None, False),   # the rule's default: a layup scores only when shown
    ("override", True, True),   # the person saw the overlap
])
def test_confirm_or_override_a_pending_fact(how, value, expected):
    s = play(make(), flick_frames(ZONE_X - ZONE_R - R + 0.5))
    events = s.confirm(by="ref") if how == "confirm" else s.override("overlaps_scoring_zone", value, by="ref")
    assert s.pending is None and s.flicks[0].status == "applied"
    assert s.game.pushed[0].overlaps_scoring_zone is expected
    assert any(e["kind"] == "decided" and e["by"] == "ref" for e in s.events)
    assert any(e["kind"] == "call" for e in events)


def test_nothing_else_goes_to_the_game_while_a_call_waits():
    s = play(make(), flick_frames(ZONE_X - ZONE_R - R + 0.5))
    with pytest.raises(SessionError, match="waiting for a person"):
        s.act(object())


@pytest.mark.parametrize("call, match", [
    (lambda s: s.confirm(), "no call is waiting"),
    (lambda s: s.assign(999, "home:x"), "no track 999"),
    (lambda s: s.correct(object()), "no applied call"),
])
def test_requests_that_cannot_be_honoured(call, match):
    s = make()
    with pytest.raises(SessionError, match=match):
        call(s)


def test_a_judge_corrects_the_last_call():
    from rules.dino_dunk import MoveResult

    s = play(make(), flick_frames(ZONE_X - ZONE_R - R - 12))
    s.correct(MoveResult(overlaps_scoring_zone=True))
    assert s.game.popped == 1 and s.game.pushed[-1].overlaps_scoring_zone is True
    assert s.flicks[0].status == "corrected" and any(e["kind"] == "corrected" for e in s.events)


def test_evidence_frames_and_identities():
    s = play(make(SessionConfig(post_frames=4)), flick_frames(ZONE_X - ZONE_R - R - 12))
    (flick,) = s.flicks
    idx = [f.index for f in flick.frames]
    assert idx == sorted(idx) and len(set(idx)) == len(idx)
    before = [i for i in idx if i < flick.index_start]
    assert len(before) >= 10  # about pre_s of frames before the start
    assert idx[-1] == flick.index_settle + 4  # and post_frames after the settle
    assert flick.before["home:a"][0] == pytest.approx(500, abs=3)
    assert flick.after["home:a"][0] == pytest.approx(ZONE_X - ZONE_R - R - 12, abs=3)
    assert s.names() == {"home:a": s.track("home:a").id, "home:b": s.track("home:b").id, "away:c": s.track("away:c").id}


def test_images_are_kept_for_the_last_flicks_only():
    s = make(SessionConfig(keep_images=1), images=True)
    frames = flick_frames(ZONE_X - ZONE_R - R - 12)
    back = [table(x) for x in [ZONE_X - ZONE_R - R - 12] * 3 + list(np.linspace(ZONE_X - ZONE_R - R - 12, 500, 7)[1:]) + [500] * 12]
    play(s, frames + back)
    s.game.pushed.clear()  # the stub waits for the next move again
    s._armed = True
    play_from = len(frames) + len(back)
    for i, pieces in enumerate(flick_frames(600, hold=4, x0=500), start=play_from):
        f = LiveFrame(i, i / 30, Scene("dino-dunk", "dino-dunk/crater-court", pieces, i / 30))
        f.image = np.zeros((48, 64, 3), np.uint8)
        s.step(f)
    assert len(s.flicks) == 2
    assert all(f.image is None for f in s.flicks[0].frames)
    assert any(f.image is not None for f in s.flicks[1].frames)


@pytest.mark.parametrize("announce, flicks", [
    (False, 0),  # unannounced, a jump within one frame is a piece put down by hand
    (True, 1),   # announced, it is the flick
])
def test_a_piece_put_down_by_hand(announce, flicks):
    tables = [table(500)] * 10 + [table(560)] * 10
    s = play(make(), tables, announce=announce)
    assert len(s.flicks) == flicks


# --- the second look (Session.revisit_s, Session.second_look) -----------------------------------------
NEAR = ZONE_X - ZONE_R - R + 0.5  # home:a stops 0.5 mm inside the zone: too close at the settle


class LookedAgain(DinoDunkSession):
    """A session whose second look makes the call ``answer(first ruling)`` (None: no new call),
    noting how long after the settle it was asked, and writing on the flick as a judge would."""

    def __init__(self, *args, answer=None, revisit_s=0.1, **kw):
        super().__init__(*args, **kw)
        self.answer, self.revisit_s, self.looks = answer, revisit_s, []

    def second_look(self, flick):
        self.looks.append(self._t - flick.t_settle)
        flick.notes.append("looked again")
        flick.mover = "someone else"
        return self.answer(flick.ruling) if self.answer else None


def make_looked(answer, revisit_s=0.1, config=None):
    from sim.suites import _board

    board = _board("dino-dunk/crater-court")
    return LookedAgain(board, OracleDetector(board, seed=2), game=MoveGame(), config=config or SessionConfig(),
                       answer=answer, revisit_s=revisit_s)


def settles(old):
    """The open fact settled, every settled fact as it was."""
    from dataclasses import replace

    return replace(old, facts={**old.facts, "overlaps_scoring_zone": True}, pending={})


def contradicts(old):
    """The open fact settled, and a fact the first call settled turned over."""
    from dataclasses import replace

    return replace(old, facts={**old.facts, "overlaps_scoring_zone": True, "out_of_bounds": not old.facts["out_of_bounds"]},
                   pending={})


def test_a_second_look_that_settles_the_open_fact_is_applied():
    s = play(make_looked(settles), flick_frames(NEAR))
    (flick,) = s.flicks
    (after,) = s.looks  # once, on the first frame revisit_s after the settle, the table still
    assert 0.1 - 1e-6 <= after < 0.1 + 1 / 30
    assert flick.status == "applied" and s.pending is None
    assert s.game.pushed[0].overlaps_scoring_zone is True
    assert flick.notes == [f"called again {after:.2f} s after the settle: overlaps_scoring_zone no longer too close"]
    assert flick.mover == "someone else"  # what the second look found stays with the call taken
    kinds = [e["kind"] for e in s.events]
    assert kinds.index("pending") < kinds.index("call")


@pytest.mark.parametrize("answer", [contradicts, lambda old: old, None], ids=["contradicts", "as-many-open", "no-call"])
def test_a_second_look_that_is_no_better_leaves_the_first_call(answer):
    s = play(make_looked(answer), flick_frames(NEAR))
    (flick,) = s.flicks
    assert len(s.looks) == 1  # once only, though the table stays still longer
    assert flick.status == "pending" and s.pending is flick
    assert flick.ruling.open_facts() == ["overlaps_scoring_zone"] and not s.game.pushed
    assert flick.notes == [] and flick.mover == "home:a"  # as the first call left them


def test_no_second_look_without_revisit_s():
    s = play(make_looked(settles, revisit_s=None), flick_frames(NEAR))
    assert s.looks == [] and s.flicks[0].status == "pending"


@pytest.mark.parametrize("moved", [False, True])
def test_the_table_moving_before_the_second_look_cancels_it(moved):
    """The call is left pending 0.2 s before the look is due; then home:b is moved (or not)."""
    frames = flick_frames(NEAR, hold=8)
    b_x = [300.0 + 10.0 * i for i in range(1, 5)] if moved else [300.0] * 4
    frames += [[disc("home:a", NEAR, ZONE_Y, "home"), disc("home:b", x, 100, "home"), disc("away:c", 600, 500, "away")]
               for x in b_x + [b_x[-1]] * 20]
    s = play(make_looked(settles, revisit_s=0.3), frames)
    flick = s.flicks[0]
    assert len(s.flicks) == 1
    if moved:
        assert s.looks == [] and flick.status == "pending"
    else:
        assert len(s.looks) == 1 and flick.status == "applied"


def test_a_second_look_without_auto_apply_waits_for_a_person_with_nothing_open():
    s = play(make_looked(settles, config=SessionConfig(auto_apply=False)), flick_frames(NEAR))
    (flick,) = s.flicks
    assert s.pending is flick and flick.ruling.open_facts() == [] and not s.game.pushed
    assert s.events[-1]["kind"] == "pending" and s.events[-1]["facts"] == []
    s.confirm(by="ref")
    assert flick.status == "applied" and s.game.pushed[0].overlaps_scoring_zone is True


# --- a flick no motion showed (Session.lost_motion, Session.lost_settled) ----------------------------
class LostMover(DinoDunkSession):
    """Opens a flick when home:a is not seen, once (its judge records the call and makes none)."""

    judged: list

    def lost_motion(self, obs):
        names = {tr.id: tr.name for tr in self.tracker.tracks.values()}
        if not self.flicks and "home:a" in names.values() and "home:a" not in {names.get(int(t)) for t in obs.track_id}:
            return "home:a vanished"
        return None

    def judge(self, flick, obs):
        self.judged.append((flick.opened_by, flick.index_start, flick.index_settle))
        return None


def make_lost():
    from sim.suites import _board

    board = _board("dino-dunk/crater-court")
    s = LostMover(board, OracleDetector(board, seed=2), game=MoveGame())
    s.judged = []
    return s


def test_a_piece_that_vanishes_opens_a_flick_only_where_the_game_says_so():
    gone = [t for t in table(500) if t.id != "home:a"]
    tables = [table(500)] * 10 + [gone] * 10
    assert play(make(), tables).flicks == []  # by default only motion opens a flick
    s = play(make_lost(), tables)
    assert len(s.flicks) == 1 and s.flicks[0].opened_by == "home:a vanished"
    assert s.flicks[0].index_start == 10  # the first frame without it
    assert any("nothing seen moving" in n for n in s.flicks[0].notes)
    # judged once nothing had moved for the motion's settle frames (by default)
    assert s.judged == [("home:a vanished", 10, 10 + s.motion.config.settle_frames - 1)]


def test_motion_after_a_flick_opened_without_it_belongs_to_that_flick():
    gone = [t for t in table(500) if t.id != "home:a"]
    slide = [[t if t.id != "home:b" else disc("home:b", 300 + 8 * k, 100, "home") for t in gone] for k in range(1, 8)]
    s = play(make_lost(), [table(500)] * 10 + [gone] + slide + [slide[-1]] * 10)
    assert len(s.flicks) == 1  # one flick: it was open when home:b began to slide
    assert s.flicks[0].index_settle >= 18  # judged at the settle of that motion


# --- names given again after pieces were lifted (Session._reconcile) ------------------------------------

class IdleGame(StubGame):
    """Waits for nothing; ``removed`` names are off the table by the rules (removed for a foul)."""

    def __init__(self, removed=()):
        pieces = {p: ({"status": "removed"} if p in removed else {}) for p in ("home:a", "home:b", "home:d", "away:c")}
        super().__init__({"pieces": pieces, "ball": {"carrier": None}, "sides": ["home", "away"]})

    def pending(self):
        return {"kind": "over", "side": None}


def _identify(session, tables):
    """Play ``tables`` (all four named in the first frame) and return the identify events."""
    out = []
    for i, pieces in enumerate(tables):
        f = LiveFrame(i, i / 30, Scene("dino-dunk", "dino-dunk/crater-court", pieces, i / 30))
        out += [e for e in session.step(f) if e["kind"] == "identify"]
        if i == 0:
            for tid, pid in zip(session._last_obs.track_id, session.detector.last_ids):
                session.assign(int(tid), pid)
    return out


@pytest.mark.parametrize("removed, name, unsure", [
    ((), None, True),  # two home discs lifted: which one is back, a person says
    (("home:b",), "home:a", False),  # home:b was removed for a foul: the one back is home:a
])
def test_a_piece_put_down_again_is_named_among_those_the_rules_leave_on_the_table(removed, name, unsure):
    from sim.suites import _board

    board = _board("dino-dunk/crater-court")
    s = DinoDunkSession(board, OracleDetector(board, seed=3), game=IdleGame(removed))
    full = [disc("home:a", 150, 150, "home"), disc("home:b", 700, 450, "home"), disc("home:d", 400, 80, "home"),
            disc("away:c", 600, 300, "away")]
    lifted = [p for p in full if p.id not in ("home:a", "home:b")]
    back = lifted + [disc("home:a", 420, 400, "home")]
    events = _identify(s, [full] * 10 + [lifted] * 40 + [back] * 20)
    got = s.names()
    track = next(int(t) for t, pid in zip(s._last_obs.track_id, s.detector.last_ids) if pid == "home:a")
    assert bool(events) == unsure
    if unsure:
        assert events[0]["unsure"] and "lost at once" in events[0]["why"]
    else:
        assert got["home:a"] == track


def test_a_piece_put_down_beside_one_that_moved_as_it_came_is_named_in_doubt():
    """home:d, lifted far away, is put down 17.8 mm from where home:a stood while home:a is pushed 19.1 mm
    the other way in the same frame: the tracker gives home:a's track to the nearer, and the piece that
    was home:a takes the name lifted (home:d); the two look the same, so a person is asked."""
    from sim.suites import _board

    board = _board("dino-dunk/crater-court")
    s = DinoDunkSession(board, OracleDetector(board, seed=4), game=IdleGame())
    full = [disc("home:a", 457, 300, "home"), disc("home:b", 150, 500, "home"), disc("home:d", 750, 520, "home"),
            disc("away:c", 600, 150, "away")]
    lifted = [p for p in full if p.id != "home:d"]
    pushed = [disc("home:a", 437.9, 300, "home"), full[1], full[3], disc("home:d", 474.8, 300, "home")]
    events = _identify(s, [full] * 10 + [lifted] * 40 + [pushed] * 20)
    assert len(events) == 1 and events[0]["unsure"] and "home:a" in events[0]["why"]
    # (the test's own reading of the swap: the name given in doubt sits on the piece that was home:a)
    truth = dict(zip((int(t) for t in s._last_obs.track_id), s.detector.last_ids))
    assert truth[events[0]["track"]] == "home:a" and events[0]["name"] == "home:d"


def test_a_name_given_to_a_piece_that_bore_another_trades_places_with_it():
    s = play(make(), [table(500)] * 6)
    a, b, c = (s.track(n).id for n in ("home:a", "home:b", "away:c"))
    s.assign(a, "home:b")  # the two home discs had been taken for each other
    assert s.names() == {"home:b": a, "home:a": b, "away:c": c}
    s.assign(c, "home:a")  # an away disc does not look like a home disc: no trade, its own name goes
    assert s.names() == {"home:b": a, "home:a": c}


def test_the_one_ball_seen_is_the_ball_unless_it_bears_another_pieces_name():
    """A kind present once is always the same piece: the ball lifted and put down elsewhere, seen
    as a new piece, is the ball. But a disc the detector reads as a ball, which a person named for
    the disc, is not the ball when the ball goes unseen (the one ball-kind piece seen then: it had
    taken the ball's name, and the disc's was lost; a real-detector foul traced on tuning seed 2)."""
    from sim.suites import _board

    def ball(x, y):
        return PieceState("ball", "ball", x, y, 11.0, 22.0, 0.0, (), 0.0)

    board = _board("dino-dunk/crater-court")
    discs = [disc("home:a", 150, 150, "home"), disc("home:d", 400, 80, "home"), disc("away:c", 600, 300, "away")]
    s = DinoDunkSession(board, OracleDetector(board, seed=5), game=IdleGame())
    _identify(s, [discs + [ball(450, 400)]] * 10 + [discs] * 40 + [discs + [ball(700, 200)]] * 20)
    truth = dict(zip((int(t) for t in s._last_obs.track_id), s.detector.last_ids))
    assert truth[s.names()["ball"]] == "ball"  # (a new track, named at the settle)
    read_as_ball = PieceState("home:b", "ball", 700.0, 450.0, 11.0, 9.0, 0.0, (), 0.0, attributes={"team": "home"})
    s = DinoDunkSession(board, OracleDetector(board, seed=5), game=IdleGame())
    _identify(s, [discs + [read_as_ball, ball(450, 400)]] * 10 + [discs + [read_as_ball]] * 40)
    names = s.names()
    truth = dict(zip((int(t) for t in s._last_obs.track_id), s.detector.last_ids))
    assert truth[names["home:b"]] == "home:b"


def test_a_flick_s_path_starts_where_a_piece_was_last_seen_at_rest():
    """The flick's tracks are cut at t0 (the table last at rest). A piece whose detection dropped at
    t0 and that was seen next already sliding keeps its sample before t0: its path starts where it
    rested, not past a piece it brushed in the frame between (and a piece seen at t0 starts there)."""
    from types import SimpleNamespace

    from session.core import Flick, Session
    from vision.track import Track

    dt = 1 / 30
    unseen = Track(1, "disc-medium", 19.0, {}, "a", [0.0, dt, 2 * dt, 4 * dt, 5 * dt],
                   [(0.0, 0.0)] * 3 + [(40.0, 0.0), (70.0, 0.0)])
    seen = Track(2, "disc-medium", 19.0, {}, "b", [0.0, dt, 2 * dt, 3 * dt, 4 * dt, 5 * dt], [(200.0, 0.0)] * 6)
    host = SimpleNamespace(tracker=SimpleNamespace(tracks={1: unseen, 2: seen}))
    flick = Flick(1, {}, 4 * dt, 4)
    cut = {tr.id: tr for tr in Session.flick_tracks(host, flick, 3 * dt)}
    assert cut[1].t == [2 * dt, 4 * dt, 5 * dt]  # the sample before t0, then the sliding ones
    assert cut[2].t == [3 * dt, 4 * dt, 5 * dt]


def test_the_flicked_piece_left_rest_after_its_last_sample_there():
    """Its detection dropped, the flicked disc was seen already 40 mm away on the frame before the
    motion was noticed: it left rest after its last sample at rest, not at that frame."""
    from types import SimpleNamespace

    from vision.track import Track

    dt = 1 / 30
    tr = Track(1, "disc-medium", 19.0, {}, "a", [0.0, 2 * dt, 3 * dt], [(0.3, -0.2), (40.0, 0.0), (70.0, 0.0)])
    host = SimpleNamespace(_rest_sigma=lambda: 0.7)
    assert DinoDunkSession._last_at_rest(host, [tr], 1, np.zeros(2), 2 * dt) == pytest.approx(0.0)
    # seen at rest on that frame: it left after it, as before
    calm = Track(1, "disc-medium", 19.0, {}, "a", [0.0, dt, 2 * dt], [(0.3, -0.2), (0.1, 0.4), (40.0, 0.0)])
    assert DinoDunkSession._last_at_rest(host, [calm], 1, np.zeros(2), dt) == pytest.approx(dt)
    assert DinoDunkSession._last_at_rest(host, [calm], None, np.zeros(2), dt) == pytest.approx(dt)
