"""Dino Dunk fouls that hinge on the fitted paths (:func:`vision.contacts.path_gap`) and on the chain
of strikes (:func:`vision.contacts.struck_contacts`), on simulator scenes of the tuning seeds (never
the benchmark's): each call is confident and equals the truth."""

from __future__ import annotations

import pytest

from referee.config import load_config
from session.bench import _StubDinoDunk, play_scene
from session.dino_dunk import DinoDunkSession
from sim.suites import _board, make_scenario
from sim.truth import dino_dunk_answers


def judged(index, seed):
    scn = make_scenario("dino-dunk/fouls", index, seed)
    board = _board(scn.board)
    pieces = [p.id for p in scn.initial.pieces if p.kind.startswith("disc-")]
    config = load_config().with_(three_point="whole_disc")
    session, _, _, _ = play_scene(scn, board, lambda d: DinoDunkSession(board, d, game=_StubDinoDunk(scn.meta, pieces),
                                                                        referee=config), seed=index)
    return scn, dino_dunk_answers(scn, board), session


@pytest.mark.parametrize("index, seed", [(353, 0), (365, 1)])
def test_a_pass_that_turns_off_the_ball_just_past_the_carrier_is_clear(index, seed):
    """The mover passes the carrier 3-4 mm clear and at once strikes the ball, turning a few degrees:
    the sample next to the turn fits either stretch; cut where the two lines meet between the samples
    either side, the path's closest point to the carrier is that corner, not the second line run
    back a whole frame past it (which came within the noise of the carrier)."""
    scn, ans, session = judged(index, seed)
    (flick,) = session.flicks
    assert ans["carrier_struck"] is False
    assert "carrier_struck" not in flick.ruling.pending, flick.contacts
    assert flick.ruling.facts["carrier_struck"] is False


def test_a_chain_disc_that_sent_the_ball_flying_at_once_passes_the_foul_on():
    """Seed 1, scene 640: home:4 strikes away:1, which creeps into the carrier away:5, which sends the
    ball beside it flying: the carrier's striker is away:1 (not the ball it struck), so the chain from
    the defence reaches the carrier: a foul."""
    scn, ans, session = judged(640, 1)
    (flick,) = session.flicks
    assert ans["foul"] and ans["carrier_struck"]
    assert "carrier_struck" not in flick.ruling.pending
    assert flick.ruling.facts["carrier_struck"] is True


@pytest.mark.parametrize("index, seed", [(553, 0), (244, 1)])
def test_the_flicked_discs_first_stretch_counts_when_frames_are_not_exactly_a_thirtieth_apart(index, seed):
    """The frames carry their states' own times, up to a millisecond off the 1/30 s beat. The flicked
    disc left rest after the last frame before the motion was seen, whatever that frame's exact
    time; its first stretch, in which it struck the next disc of the chain, stays in its path, so
    the chain reaches the carrier: a foul."""
    scn, ans, session = judged(index, seed)
    (flick,) = session.flicks
    times = [fr.t for fr in flick.frames]
    assert any(abs((b - a) * 30 - 1) > 0.01 for a, b in zip(times, times[1:]))  # off the beat
    assert ans["foul"] and ans["carrier_struck"]
    assert "carrier_struck" not in flick.ruling.pending, flick.contacts
    assert flick.ruling.facts["carrier_struck"] is True
