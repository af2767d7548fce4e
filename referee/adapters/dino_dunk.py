"""Dino Dunk: verdicts → ``rules.dino_dunk.actions`` facts (ShotResult, DunkResult, MoveResult,
PassResult).

Each ``*_ruling`` takes the verdicts of the calls (pure: no geometry here) and returns a
:class:`~referee.pending.Ruling`; confident verdicts become fact values at once, too_close ones
pending facts that propose ``RefereeConfig.defaults["dino-dunk.<fact>"]``. Facts no camera call
decides (who was struck, the ball staying on top of a dunking disc, the backboard touch) are plain
arguments. ``shot_from_observation`` shows the whole path from an Observation.
"""

from __future__ import annotations

from referee.config import RefereeConfig
from referee.core import Verdict
from referee.pending import PendingFact, Ruling, all_of, fact_from_verdict

GAME = "dino-dunk"


def _fact(name, verdict, config, facts, pending):
    if verdict is None:
        facts[name] = False
        return
    fact_from_verdict(GAME, name, verdict, config.default_for(GAME, name), facts, pending)


def _verdicts(*vs) -> tuple:
    return tuple(v for v in vs if isinstance(v, Verdict))


def shot_ruling(ball_overlaps_zone: Verdict, shooter_outside_three: Verdict | None, ball_out_of_bounds: Verdict | None,
                config: RefereeConfig, *, touched_backboard: bool = False, positions: tuple = ()) -> Ruling:
    """ShotResult: "a team scores 2 points when any portion of the ball token overlaps the target
    scoring zone after it has stopped moving", 3 when the shooter is outside the three-point line."""
    facts, pending = {}, {}
    _fact("overlaps_zone", ball_overlaps_zone, config, facts, pending)
    _fact("shooter_outside_three", shooter_outside_three, config, facts, pending)
    _fact("out_of_bounds", ball_out_of_bounds, config, facts, pending)
    facts["touched_backboard"] = bool(touched_backboard)
    facts["positions"] = tuple(positions)

    def build(values):
        from rules.dino_dunk.actions import ShotResult

        return ShotResult(**values)

    return Ruling(GAME, "ShotResult", facts, pending,
                  _verdicts(ball_overlaps_zone, shooter_outside_three, ball_out_of_bounds), build)


def dunk_ruling(disc_overlaps_zone: Verdict, disc_out_of_bounds: Verdict | None, config: RefereeConfig, *,
                ball_on_top: bool = True, positions: tuple = ()) -> Ruling:
    """DunkResult: "if the dinosaur token overlaps the scoring zone, and the ball token remains on top"."""
    facts, pending = {}, {}
    _fact("overlaps_zone", disc_overlaps_zone, config, facts, pending)
    _fact("out_of_bounds", disc_out_of_bounds, config, facts, pending)
    facts["ball_on_top"] = bool(ball_on_top)
    facts["positions"] = tuple(positions)

    def build(values):
        from rules.dino_dunk.actions import DunkResult

        return DunkResult(**values)

    return Ruling(GAME, "DunkResult", facts, pending, _verdicts(disc_overlaps_zone, disc_out_of_bounds), build)


def move_ruling(mover_out_of_bounds: Verdict | None, mover_overlaps_scoring_zone: Verdict | None,
                carrier_inside_three: Verdict | None, config: RefereeConfig, *, struck: tuple = (),
                carrier_struck: bool = False, touched_ball: bool = False, knocked_out: tuple = (),
                positions: tuple = ()) -> Ruling:
    """MoveResult. ``carrier_inside_three`` is only asked when the carrier was struck (a shooting
    foul); contacts (``struck``, ``touched_ball`` …) come from vision's contacts, not from geometry."""
    facts, pending = {}, {}
    _fact("out_of_bounds", mover_out_of_bounds, config, facts, pending)
    _fact("overlaps_scoring_zone", mover_overlaps_scoring_zone, config, facts, pending)
    _fact("carrier_inside_three", carrier_inside_three if carrier_struck else None, config, facts, pending)
    facts.update(struck=tuple(struck), carrier_struck=bool(carrier_struck), touched_ball=bool(touched_ball),
                 knocked_out=tuple(knocked_out), positions=tuple(positions))

    def build(values):
        from rules.dino_dunk.actions import MoveResult

        return MoveResult(**values)

    return Ruling(GAME, "MoveResult", facts, pending,
                  _verdicts(mover_out_of_bounds, mover_overlaps_scoring_zone, carrier_inside_three), build)


def pass_ruling(config: RefereeConfig, *, caught_by: str = "", receiver: str = "", within_long_card: Verdict | None = None,
                line_of_sight: Verdict | None = None, ball_out_of_bounds: Verdict | None = None,
                positions: tuple = ()) -> Ruling:
    """PassResult. The automatic catch ("within one long card length of the dinosaur in possession
    of the ball, and a straight line can be drawn between both dinosaurs without passing through any
    other dinosaur tokens") is asked for ``receiver`` when both verdicts are given: yes only if both
    are confidently yes, no if either is confidently no, else pending (default: no automatic catch)."""
    facts, pending = {}, {}
    if within_long_card is not None and line_of_sight is not None:
        answer = all_of([within_long_card, line_of_sight])
        if answer == "too_close":
            lean = within_long_card.leaning == "yes" and line_of_sight.leaning == "yes"
            default = config.default_for(GAME, "automatic")
            pending["automatic"] = PendingFact(GAME, "automatic", lean if default == "leaning" else default, lean,
                                               (within_long_card, line_of_sight))
        else:
            facts["automatic"] = answer == "yes"
    else:
        facts["automatic"] = False
    _fact("out_of_bounds", ball_out_of_bounds, config, facts, pending)
    facts["positions"] = tuple(positions)

    def build(values):
        from rules.dino_dunk.actions import PassResult

        automatic = bool(values["automatic"])
        return PassResult(caught_by=receiver if automatic else caught_by, out_of_bounds=values["out_of_bounds"] and not automatic,
                          automatic=automatic, positions=values["positions"])

    return Ruling(GAME, "PassResult", facts, pending,
                  _verdicts(within_long_card, line_of_sight, ball_out_of_bounds), build)


def shot_from_observation(board, obs, config: RefereeConfig, *, ball: str = "ball", shooter: str,
                          target_zone: str, three_point: str | None = None, transform=None,
                          three_point_judged_by: str | None = None, touched_backboard: bool = False) -> Ruling:
    """The ShotResult ruling straight from an Observation on ``board``: the ball against the target
    zone and the mat, the shooter against the three-point region of the zone's team."""
    import shapely

    from referee.lines import outside_calls
    from referee.overlap import out_of_bounds_calls, overlap_calls
    from referee.pieces import find, gather

    p = gather(obs, transform, config.registration_sigma_floor_mm, config.observation_sigma_includes_registration)
    b, s = find(obs, ball), find(obs, shooter)
    zone = board.region(target_zone)
    if three_point is None:
        cands = [r for r in board.regions_of_kind("three-point") if r.team == zone.team]
        three_point = cands[0].name if cands else None
    (ov,) = overlap_calls(p.xy[[b]], p.radius[[b]], p.sigma[[b]], zone, k=config.k, names=[p.names[b]], frame_ids=p.frame_ids)
    (oob,) = out_of_bounds_calls(p.xy[[b]], p.radius[[b]], p.sigma[[b]], shapely.box(0, 0, *board.size_mm), k=config.k,
                                 names=[p.names[b]], frame_ids=p.frame_ids)
    out3 = None
    if three_point is not None:
        (out3,) = outside_calls(p.xy[[s]], p.radius[[s]], p.sigma[[s]], board.region(three_point), k=config.k,
                                mode=three_point_judged_by or config.three_point, names=[p.names[s]], frame_ids=p.frame_ids)
    positions = tuple((p.names[i], float(p.xy[i, 0]), float(p.xy[i, 1])) for i in (s, b))
    return shot_ruling(ov, out3, oob, config, touched_backboard=touched_backboard, positions=positions)
