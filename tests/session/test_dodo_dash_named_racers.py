"""The Dodo Dash session calls the racers the user named, whatever kind the detector reports for
them later: a racer taken for a token after it was named is still called, and is no projectile."""

from __future__ import annotations

import numpy as np

from session.bench import _StubDodoDash, play_scene
from session.dodo_dash import DodoDashSession
from sim.suites import _board, make_scenario
from sim.truth import dodo_dash_answers


class KindFlip:
    """The oracle detector, reporting the simulator piece ``pid`` as ``kind`` from frame
    ``from_index`` on (a detector that takes a racer for a token)."""

    def __init__(self, det, pid: str, kind: str, from_index: int):
        self.det, self.pid, self.kind, self.from_index = det, pid, kind, from_index
        self.measures_height = det.measures_height
        self.config = det.config

    @property
    def last_ids(self):
        return self.det.last_ids

    def __call__(self, frame, quality="full"):
        obs = self.det(frame, quality)
        if frame.index >= self.from_index:
            kinds = np.array(obs.kind, dtype=object)
            kinds[[i for i, pid in enumerate(self.det.last_ids) if pid == self.pid]] = self.kind
            obs.kind = kinds
        return obs


def thrown(index, flip=None, seed=0):
    """(truth, session) of throw ``index``; ``flip`` (piece id, kind): that piece is reported as
    that kind from just after the user names the pieces (frame 13 of the 15 still ones) on."""
    scn = make_scenario("dodo-dash/throws", index, seed)
    board = _board(scn.board)

    def make(d):
        det = KindFlip(d, flip[0], flip[1], 13) if flip else d
        return DodoDashSession(board, det, game=_StubDodoDash(scn.meta))

    session, _, _, _ = play_scene(scn, board, make, seed=index)
    return dodo_dash_answers(scn, board), session


def calls(session) -> dict:
    (flick,) = session.flicks
    return {v.detail["racer"]: v.answer for v in flick.ruling.verdicts}


def test_a_racer_taken_for_a_token_after_it_was_named_is_still_called():
    truth, plain = thrown(2)
    (hit,) = truth["touched_racers"]
    assert calls(plain)[hit] == "yes"
    for kind in ("log", "banana"):  # (another projectile's kind, and the kind of none thrown here)
        _, session = thrown(2, flip=(hit, kind))
        named = session.track(hit)
        assert named is not None and named.kind == kind  # the name went to the piece seen where it stood
        assert calls(session) == calls(plain)


def test_a_racer_taken_for_the_thrown_kind_is_no_projectile():
    truth, plain = thrown(2)
    assert plain.flicks[0].mover == "egg"
    others = [r for r in calls(plain) if r not in truth["touched_racers"]]
    _, session = thrown(2, flip=(others[0], "egg"))
    (flick,) = session.flicks
    assert flick.mover == "egg"  # the thrown egg, not the racer now seen as an egg
    assert calls(session) == calls(plain)
