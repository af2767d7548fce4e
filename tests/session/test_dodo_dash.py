"""The Dodo Dash session: a throw's hits against :func:`sim.truth.dodo_dash_answers`, the order of
the touches (Feather and Dodo: only the first counts, the engine keeps it), racer hexes."""

from __future__ import annotations

import pytest

from session.bench import _StubDodoDash, play_scene
from session.dodo_dash import DodoDashSession
from session.oracle import OracleDetector
from sim.suites import _board, make_scenario
from sim.truth import dodo_dash_answers


def thrown(index, seed=0):
    scn = make_scenario("dodo-dash/throws", index, seed)
    board = _board(scn.board)
    session, _, _, _ = play_scene(scn, board, lambda d: DodoDashSession(board, d, game=_StubDodoDash(scn.meta)), seed=index)
    return scn, dodo_dash_answers(scn, board), session


@pytest.mark.parametrize("index, projectile, how", [
    (2, "egg", "bounce"),          # flicked along the mat into a racer and back
    (8, "egg", "bounce"),
    (19, "log", "landed on"),      # rolled out of the hand onto a racer
    (24, "meteorite", "landed on"),  # dropped onto a racer
    (30, "meteorite", "landed on"),
    (6, "meteorite", None),        # no racer touched
    (10, "banana", None),
    (27, "feather", None),
])
def test_hits_equal_the_truth(index, projectile, how):
    scn, truth, session = thrown(index)
    assert scn.meta["projectile"] == projectile
    (flick,) = session.flicks
    assert flick.status == "applied"
    hits = session.game.pushed[0].racers
    assert list(hits) == truth["touched_racers"]
    if how:
        assert {c["evidence"] for c in flick.contacts if c["answer"] == "yes"} == {how}


def test_a_token_that_comes_over_a_racer_passes_over_it():
    """Banana 22: it overlaps racer-2's footprint only once already below the racer's top, having
    come over it from above: the simulator lets it pass (no contact), and so does the session."""
    scn, truth, session = thrown(22)
    assert truth["touched_racers"] == []
    verdict = next(v for v in session.flicks[0].ruling.verdicts if v.detail["racer"] == "racer-2")
    assert verdict.answer != "yes"


def test_throws_are_rarely_wrong():
    right = asked = wrong = 0
    for index in range(40, 70):
        _, truth, session = thrown(index)
        verdicts = session.flicks[0].ruling.verdicts
        if any(v.answer == "too_close" for v in verdicts):
            asked += 1
        elif {v.detail["racer"] for v in verdicts if v.answer == "yes"} == set(truth["touched_racers"]):
            right += 1
        else:
            wrong += 1
    # airborne tokens are seen with σ 3 mm, one sample at a time; the path's fit knows the path far
    # better, but a touch between two frames may still be too close to call and go to a person.
    # The rates at scale are measured by `tableref bench live`. (18 right before the height between
    # the last sample in the hand and the first in flight was left open: scene 43, a log let go
    # 3 mm above a racer's top and over it, is asked since, as a log clipping that racer was. 17
    # before a bounce where the fits meet was left unsure where a touch the fits do not show can
    # have turned the token too: scene 44, an Egg between two racers it struck, asks which of them
    # turned it at its second bounce.)
    assert wrong == 0 and right >= 16


def test_hits_in_the_order_touched_and_pending_ones_wait():
    from referee.adapters.dodo_dash import hits_ruling
    from referee.config import load_config
    from referee.core import make_verdicts

    config = load_config()
    v = make_verdicts(["a", "b", "c"], value=0, threshold=0, margin=[5.0, 0.1, -5.0], sigma=1.0, k=4.0)
    ruling = hits_ruling(v, ["racer-2", "racer-1", "racer-3"], config, order=["racer-1", "racer-2"])
    assert ruling.open_facts() == ["hit:racer-1"]
    assert ruling.resolve("hit:racer-1", True).action().racers == ("racer-1", "racer-2")
    assert ruling.resolve("hit:racer-1", confirm=True).action().racers == ("racer-2",)


def test_racer_hexes_after_a_settle():
    scn, _, session = thrown(6)
    hexes = [e for e in session.events if e["kind"] == "positions"]
    assert hexes
    last = hexes[-1]["racers"]
    for p in scn.final.pieces:
        if p.kind == "racer" and p.id in last and p.id not in hexes[-1]["too_close"]:
            track, index = p.attributes["hex"]
            assert last[p.id] == f"{track}:{index}"


def test_near_misses_are_never_called_wrong_either_side():
    """The near-miss suite: an Egg slides past a racer at -3..3 mm clearance (< 0 grazes it). A graze
    turns the egg, a miss does not: calls are right or asked, never wrong, and some are made on
    each side."""
    right = {True: 0, False: 0}
    for index in range(30):
        scn = make_scenario("dodo-dash/near-miss", index, 0)
        board = _board(scn.board)
        truth = dodo_dash_answers(scn, board)
        session, _, _, _ = play_scene(scn, board, lambda d: DodoDashSession(board, d, game=_StubDodoDash(scn.meta)),
                                      seed=index)
        touched = scn.meta["target"] in truth["touched_racers"]
        verdict = next(v for v in session.flicks[0].ruling.verdicts if v.detail["racer"] == scn.meta["target"])
        assert verdict.answer in ("too_close", "yes" if touched else "no"), (index, scn.meta["intended_clearance_mm"])
        right[touched] += verdict.answer != "too_close"
    assert right[True] >= 2 and right[False] >= 2


@pytest.mark.parametrize("board_ref", ["dodo-dash/dodorado-jungle", "dodo-dash/dodorado-temple"])
def test_a_new_race_is_laid_out_on_the_boards_track(board_ref):
    """The engine's track is the calibration board's (hex numbers the camera reads are the engine's),
    whichever track the engine picks; a layout given by the caller wins."""

    board = _board(board_ref)
    for players in (("A", "B", "C"), ("A", "B", "C", "D", "E")):
        s = DodoDashSession(board, OracleDetector(board), players=players)
        name = s.game.state["track"]
        assert name in board.tracks
        lay = s.game.state["layout"]
        assert lay["hexes"] == len(board.tracks[name].hexes)
        assert sorted(lay["traps"]) == sorted(int(h) for h in board.tracks[name].traps)
    given = {"loop": True, "hexes": 30, "traps": [], "drift": [], "charms": [], "treasure_bases": []}
    s = DodoDashSession(board, OracleDetector(board), layout=given)
    assert s.game.state["layout"]["hexes"] == 30


def test_a_racer_moved_by_hand_while_a_throw_is_awaited_keeps_the_throw_announced():
    """A flick in which no projectile moves (a player straightening a racer) makes no call, and the
    throw the players announced is still the next flick."""
    from dataclasses import replace

    from sim.live import LiveFrame
    from sim.scene import Scene

    scn = make_scenario("dodo-dash/throws", 2, 0)  # an Egg, at rest on the mat until flicked
    assert scn.meta["projectile"] == "egg"
    board = _board(scn.board)
    s = DodoDashSession(board, OracleDetector(board, seed=1), game=_StubDodoDash(scn.meta))
    racer = next(p for p in scn.initial.pieces if p.kind == "racer")
    xs = [racer.x] * 10 + [racer.x + 4.0 * k for k in range(1, 7)] + [racer.x + 24.0] * 15
    for i, x in enumerate(xs):
        pieces = [replace(p, x=x) if p.id == racer.id else p for p in scn.initial.pieces]
        s.step(LiveFrame(i, i / 30, Scene(scn.initial.game, scn.initial.board, pieces, i / 30)))
        if i == 3:
            for tid, pid in zip(s._last_obs.track_id, s.detector.last_ids):
                s.assign(int(tid), pid)
            s._armed = True
    assert [f.status for f in s.flicks] == ["no-call"]
    assert s._armed and s.expecting()["action"] == "throw"
