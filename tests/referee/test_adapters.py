"""Adapters: confident verdicts become facts at once, too_close ones wait for a person."""

import pytest

from calibration.board import load_board
from referee.adapters import dino_dunk, dodo_dash, dogo_dash, morris
from referee.classify import label_calls
from referee.config import load_config
from referee.core import make_verdicts
from referee.pending import PendingFactError
from vision.core import Observation

CFG = load_config()


def verdict(margin, sigma=0.1, finding="", detail=None):
    return make_verdicts(["q"], [0.0], [0.0], [margin], [sigma], 3.0, finding=[finding], detail=[detail or {}])[0]


def test_confident_shot_builds_the_engine_action():
    from rules.dino_dunk.actions import ShotResult

    r = dino_dunk.shot_ruling(verdict(2.0), verdict(5.0), verdict(-100.0), CFG)
    assert r.ready
    assert r.action() == ShotResult(overlaps_zone=True, shooter_outside_three=True, out_of_bounds=False)


def test_too_close_shot_is_pending_until_a_person_decides():
    r = dino_dunk.shot_ruling(verdict(0.1), verdict(5.0), verdict(-100.0), CFG)
    assert not r.ready and r.open_facts() == ["overlaps_zone"]
    p = r.pending["overlaps_zone"]
    assert p.proposed is False and p.leaning is True  # umpire's call: no score unless shown
    with pytest.raises(PendingFactError, match="overlaps_zone"):
        r.action()
    assert r.resolve("overlaps_zone", confirm=True, by="judge").action().overlaps_zone is False
    overridden = r.resolve("overlaps_zone", True, by="judge")
    assert overridden.action().overlaps_zone is True
    assert overridden.pending["overlaps_zone"].status == "overridden"
    with pytest.raises(PendingFactError):
        r.resolve("out_of_bounds", True)


def test_pass_automatic_catch_needs_both():
    from rules.dino_dunk.actions import PassResult

    r = dino_dunk.pass_ruling(CFG, receiver="home:stego", within_long_card=verdict(10), line_of_sight=verdict(3),
                              ball_out_of_bounds=verdict(-50))
    assert r.action() == PassResult(caught_by="home:stego", automatic=True)
    r = dino_dunk.pass_ruling(CFG, receiver="home:stego", within_long_card=verdict(10), line_of_sight=verdict(-3),
                              ball_out_of_bounds=verdict(-50), caught_by="away:rex")
    assert r.action() == PassResult(caught_by="away:rex", automatic=False)
    r = dino_dunk.pass_ruling(CFG, receiver="home:stego", within_long_card=verdict(0.1), line_of_sight=verdict(3),
                              ball_out_of_bounds=verdict(-50))
    assert r.open_facts() == ["automatic"]


def test_move_and_dunk():
    from rules.dino_dunk.actions import DunkResult, MoveResult

    m = dino_dunk.move_ruling(verdict(-5), verdict(3), verdict(0.05), CFG, carrier_struck=False)
    assert m.action() == MoveResult(overlaps_scoring_zone=True)  # inside-three not asked without a foul
    d = dino_dunk.dunk_ruling(verdict(1), None, CFG, ball_on_top=False)
    assert d.action() == DunkResult(overlaps_zone=True, ball_on_top=False)


def test_shot_from_observation():
    board = load_board("dino-dunk/crater-court")
    obs = Observation.from_pieces([
        {"xy": [95 + 55 + 9.5 - 2, 305], "radius": 9.5, "kind": "ball", "sigma": 0.2},
        {"xy": [500, 305], "radius": 19, "kind": "disc-medium", "attributes": {"name": "home:stego"}, "sigma": 0.2},
    ], frame_index=12)
    r = dino_dunk.shot_from_observation(board, obs, CFG, shooter="home:stego", target_zone="scoring-zone-home")
    a = r.action()
    assert a.overlaps_zone and a.shooter_outside_three and not a.out_of_bounds
    assert r.verdicts[0].frame_ids == (12,)


def test_dodo_dash_hits_in_contact_order():
    from rules.dodo_dash.actions import Hits

    r = dodo_dash.hits_ruling([verdict(2), verdict(-2), verdict(3)], ["p1", "p2", "p3"], CFG, order=["p3", "p1", "p2"])
    assert r.action() == Hits(racers=("p3", "p1"))
    r = dodo_dash.hits_ruling([verdict(0.1)], ["p1"], CFG)
    assert r.pending["hit:p1"].proposed is False


def test_dodo_dash_a_racer_asked_that_may_come_before_the_first_sure_one_is_asked_so():
    """Feather / Dodo: only the first racer touched counts, so a racer too close to call that can
    have been touched before the first sure one is asked "before it?"; yes puts it first, no leaves
    it out (touched after, it would not count)."""
    from rules.dodo_dash.actions import Hits

    vs = [verdict(0.1), verdict(2), verdict(-5), verdict(0.2)]  # p1 asked, p2 sure, p3 no, p4 asked (after p2)
    r = dodo_dash.hits_ruling(vs, ["p1", "p2", "p3", "p4"], CFG, order=["p1", "p2", "p4"], before={"p1": "p2"})
    assert sorted(r.open_facts()) == ["before:p1:p2", "hit:p4"] and r.facts == {"hit:p2": True, "hit:p3": False}
    assert r.pending["before:p1:p2"].proposed is False  # the rule's default, as for a touch
    assert r.pending["before:p1:p2"].verdicts[0].question == "q before p2"
    yes = r.resolve("before:p1:p2", True).resolve("hit:p4", True)
    assert yes.action() == Hits(racers=("p1", "p2", "p4"))
    no = r.resolve("before:p1:p2", False).resolve("hit:p4", False)
    assert no.action() == Hits(racers=("p2",))
    # without ``before`` the racer is asked whether it was touched at all, and placed where the order has it
    plain = dodo_dash.hits_ruling(vs, ["p1", "p2", "p3", "p4"], CFG, order=["p1", "p2", "p4"])
    assert sorted(plain.open_facts()) == ["hit:p1", "hit:p4"]
    assert plain.resolve("hit:p1", True).resolve("hit:p4", False).action() == Hits(racers=("p1", "p2"))


def test_dodo_dash_positions():
    v = verdict(0.1, finding="outer:12", detail={"track": "outer", "runner_up": 13})
    r = dodo_dash.positions_ruling([v, verdict(10, finding="outer:3")], ["p1", "p2"], CFG)
    assert r.facts == {"p2": "outer:3"} and r.pending["p1"].proposed == "outer:12"
    assert r.resolve("p1", "outer:13").action() == {"p1": "outer:13", "p2": "outer:3"}


def test_morris_landed():
    from rules.morris.game import Landed

    vs = label_calls(["red", "broken"], [0.99, 0.97], 0.9, what="x")
    assert morris.landed_ruling(vs, CFG).action() == Landed(eggs=(("red", "broken"),))
    vs = label_calls(["red", "broken"], [0.99, 0.5], 0.9, what="x")
    r = morris.landed_ruling(vs, CFG)
    assert r.pending["egg0.face"].proposed == "broken" and not r.ready


def test_dogo_dash_reveal():
    from rules.dogo_dash.game import Reveal

    vs = label_calls(["dog", "cat", ""], [0.95, 0.99, 0.0], 0.9, what="card")
    r = dogo_dash.reveal_ruling(vs, CFG, in_round=[True, True, False])
    assert r.action() == Reveal(cards=("dog", "cat", None))
    r = dogo_dash.reveal_ruling(vs, CFG)
    assert r.pending["seat2"].proposed is None
    with pytest.raises(PendingFactError):
        r.pending["seat2"].confirm()


def test_shot_on_simulated_near_misses_matches_the_ground_truth():
    sim_dd = pytest.importorskip("sim.scenarios.dino_dunk")
    import numpy as np

    from calibration.specs import load_specs
    from sim.config import load_sim_config
    from sim.truth import region_margin

    board, specs, cfg = load_board("dino-dunk/crater-court"), load_specs(), load_sim_config()
    checked = 0
    for seed in range(12):
        sc = sim_dd.make_near_miss(np.random.default_rng(seed), board, specs, cfg, which="zone-edge", seed=seed)
        pieces = [{"xy": [p.x, p.y], "radius": p.radius, "kind": p.kind, "sigma": 0.02, "attributes": {"name": p.id}}
                  for p in sc.final.pieces if p.radius > 0 and p.z == 0]
        obs = Observation.from_pieces(pieces, frame_index=seed)
        truth = region_margin(sc.final.by_id()["ball"], board.region(sc.meta["target_zone"]).geometry)
        r = dino_dunk.shot_from_observation(board, obs, CFG, shooter=sc.meta["actor"], target_zone=sc.meta["target_zone"])
        if abs(truth) <= CFG.k * 0.02:  # inside the k σ band of this σ: must be pending
            assert "overlaps_zone" in r.pending
            continue
        assert r.facts["overlaps_zone"] == (truth > 0)
        checked += 1
    assert checked >= 8
