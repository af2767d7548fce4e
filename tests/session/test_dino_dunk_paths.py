"""Dino Dunk fouls that hinge on the fitted paths (:func:`vision.contacts.path_gap`) and on the chain
of strikes (:func:`vision.contacts.struck_contacts`), on simulator scenes of the tuning seeds (never
the benchmark's): each call is confident and equals the truth."""

from __future__ import annotations

import numpy as np
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


def test_a_large_disc_struck_hard_that_moved_a_few_millimetres_was_struck_by_the_mover():
    """Seed 3, scene 249: a small disc flicked at the carrier (a large disc) strikes it between two
    frames and glances off; the carrier moves 3.4 mm, less than 4 σ√2 from any one noisy sample, and
    the ball rests against it all along. The carrier left rest where a step between its two rests
    fits best, and the piece seen moving, not the ball beside it, struck it: a foul."""
    scn, ans, session = judged(249, 3)
    (flick,) = session.flicks
    assert ans["foul"] and ans["carrier_struck"]
    assert "carrier_struck" not in flick.ruling.pending, flick.contacts
    assert flick.ruling.facts["carrier_struck"] is True
    assert [(c["a"], c["b"]) for c in flick.contacts if c["b"] == "away:5"] == [("home:1", "away:5")]


def test_a_step_of_a_few_millimetres_leaves_rest_where_it_happened():
    """A piece that crept 3.4 mm over two frames among 0.7 mm noise (never 4 σ√2 from its first
    sample) left rest within a frame of when it did; one that stayed put never left."""
    from session.dino_dunk import _left_rest
    from vision.track import Track

    dt = 1 / 30
    for seed in range(20):
        rng = np.random.default_rng(seed)
        x = np.r_[np.zeros(7), 1.7, np.full(16, 3.4)]
        pts = np.column_stack([x, np.zeros_like(x)]) + rng.normal(0, 0.7, (len(x), 2))
        moved = Track(1, "disc-large", 25.5, {}, "p1", list(dt * np.arange(len(x))), [tuple(p) for p in pts])
        t = _left_rest(moved, 0.0, 0.7)
        assert t is not None and abs(t - 6.5 * dt) <= 1.0 * dt + 1e-9, (seed, t)
        still = rng.normal(0, 0.7, (len(x), 2))
        stayed = Track(2, "disc-large", 25.5, {}, "p2", list(dt * np.arange(len(x))), [tuple(p) for p in still])
        assert _left_rest(stayed, 0.0, 0.7) is None, seed


def test_a_brush_at_the_start_does_not_hide_the_strike_that_follows():
    """Seed 3, scene 34: home:2 strikes home:5, which rested 3 mm from the carrier away:5 and strikes
    it a frame later. Any piece leaving another's side may have brushed it as it left (a doubt);
    that doubt, earlier, had taken the pair's place and, measured clear on the path, dropped it:
    the strike stands, and with it the foul."""
    scn, ans, session = judged(34, 3)
    (flick,) = session.flicks
    assert ans["foul"] and ans["carrier_struck"]
    assert "carrier_struck" not in flick.ruling.pending, flick.contacts
    assert flick.ruling.facts["carrier_struck"] is True
