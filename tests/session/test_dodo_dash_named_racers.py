"""The Dodo Dash session calls the racers by the identities the user gave them (the engine's
racers), whatever kind the detector reports for them: a racer the detector takes for a token is
still called, and is no projectile."""

from __future__ import annotations

import numpy as np

from session.bench import _StubDodoDash, play_scene
from session.dodo_dash import DodoDashSession
from sim.suites import _board, make_scenario
from sim.truth import dodo_dash_answers


class KindAs:
    """The oracle detector, reporting the simulator piece ``pid`` as ``kind`` in every frame (a
    detector that takes a racer for a token)."""

    def __init__(self, det, pid: str, kind: str):
        self.det, self.pid, self.kind = det, pid, kind
        self.measures_height = det.measures_height
        self.config = det.config

    @property
    def last_ids(self):
        return self.det.last_ids

    def __call__(self, frame, quality="full"):
        obs = self.det(frame, quality)
        kinds = np.array(obs.kind, dtype=object)
        kinds[[i for i, pid in enumerate(self.det.last_ids) if pid == self.pid]] = self.kind
        obs.kind = kinds
        return obs


class Engine(_StubDodoDash):
    """The benchmark's one-throw engine, knowing its racers as the real engine does."""

    def __init__(self, meta: dict, racers: list):
        super().__init__(meta)
        self.racers = racers

    def positions(self) -> dict:
        return {r: {"progress": 0, "hex": 0} for r in self.racers}


def thrown(index, kind_as=None, seed=0):
    """(truth, session) of throw ``index`` of ``dodo-dash/throws``, the user naming every piece
    once (by its simulator id) before the flick; ``kind_as`` (piece id, kind): the detector reports
    that piece as that kind throughout."""
    scn = make_scenario("dodo-dash/throws", index, seed)
    board = _board(scn.board)
    racers = [p.id for p in scn.initial.pieces if p.kind == "racer"]

    def make(d):
        det = KindAs(d, *kind_as) if kind_as else d
        return DodoDashSession(board, det, game=Engine(scn.meta, racers))

    session, _, _, _ = play_scene(scn, board, make, seed=index)
    return dodo_dash_answers(scn, board), session


def calls(session) -> dict:
    (flick,) = session.flicks
    return {v.detail["racer"]: v.answer for v in flick.ruling.verdicts}


def test_a_racer_taken_for_a_token_is_still_called():
    truth, plain = thrown(2)
    (hit,) = truth["touched_racers"]
    assert calls(plain)[hit] == "yes"
    for kind in ("log", "banana"):  # (another projectile's kind, and the kind of none thrown here)
        _, session = thrown(2, kind_as=(hit, kind))
        assert session.track(hit).kind == kind
        assert calls(session) == calls(plain)


def test_a_racer_taken_for_the_thrown_kind_is_no_projectile():
    truth, plain = thrown(2)
    assert plain.flicks[0].mover == "egg"
    others = [r for r in calls(plain) if r not in truth["touched_racers"]]
    _, session = thrown(2, kind_as=(others[0], "egg"))
    (flick,) = session.flicks
    assert flick.mover == "egg"  # the thrown egg, not the racer seen as an egg
    assert calls(session) == calls(plain)


class HeldOver:
    """The oracle detector, but while the log is held over its thrower (before the throw) the two
    are one piece: a log midway between them (named, as the user would, for the racer)."""

    def __init__(self, det, racer: str, token: str = "log"):
        self.det, self.racer, self.token = det, racer, token
        self.measures_height = det.measures_height
        self.config = det.config
        self.last_ids = []

    def __call__(self, frame, quality="full"):
        obs = self.det(frame, quality)
        ids = list(self.det.last_ids)
        if frame.scene.t < 0.5 - 1e-9 and self.token in ids and self.racer in ids:  # (0.5 s held before the throw)
            i, j = ids.index(self.token), ids.index(self.racer)
            xy = obs.xy.copy()
            xy[i] = (xy[i] + xy[j]) / 2.0
            obs.xy = xy
            ids[i] = self.racer
            keep = np.arange(len(ids)) != j
            obs, ids = obs[keep], [p for k, p in enumerate(ids) if k != j]
        self.last_ids = ids
        return obs


def test_a_racer_seen_as_one_piece_with_the_log_held_over_it_gets_its_name_back():
    """The log held over its thrower is seen with it as one piece, which the user names for the
    racer; the log rolls away with that track, and the racer is found where it stood as a new piece.
    At the settle the racer's name goes back to the racer there (asked: a guess), and the log, no
    racer's now, is the projectile."""
    scn = make_scenario("dodo-dash/throws", 1, 0)
    assert scn.meta["projectile"] == "log"
    board = _board(scn.board)
    thrower = scn.meta["thrower"]
    racers = [p.id for p in scn.initial.pieces if p.kind == "racer"]
    from session.bench import _arm, _frames
    from session.oracle import OracleDetector

    det = HeldOver(OracleDetector(board, seed=1), thrower)
    session = DodoDashSession(board, det, game=Engine(scn.meta, racers))
    named = False
    for frame, t_rel in _frames(scn, 0.5, 30.0):  # (as the benchmark plays a scene)
        session.step(frame)
        if not named and t_rel >= -3.0 / 30.0:  # the user names the pieces once, before the throw
            for tid, pid in zip(session._last_obs.track_id, det.last_ids):
                session.assign(int(tid), pid)
            named = True
            _arm(session)
    assert session.flicks[0].before[thrower] is not None  # (the one piece seen there was named for it)
    names = {tr.id: tr.name for tr in session.tracker.tracks.values() if tr.name}
    obs = session._last_obs
    assert {pid: names.get(int(t), "") for t, pid in zip(obs.track_id, det.last_ids)} == {p: p if p in racers else ""
                                                                                            for p in det.last_ids}
    asked = [e for e in session.events if e["kind"] == "identify" and e.get("unsure")]
    assert [e["name"] for e in asked] == [thrower]
    (flick,) = session.flicks
    assert flick.mover == "log"
