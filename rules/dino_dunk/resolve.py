"""Resolving the facts of a flick: Move (and Layup), Pass, Shoot (and foul shots), Dunk.

Each ``resolve_*`` takes the game, the current action frame and the fact; it changes the state
through the game's helpers, emits events, and leaves the frame either in its "after" stage with the
abilities now offered, or "done". Scores, turnovers and resets go through the game's helpers so that
the shot clock and the reset of setup steps 7-11 are handled in one place.
"""

from __future__ import annotations

from . import abilities
from .errors import FactError, RuleViolation


def _check_pieces(game, ids, field, exclude=None):
    for pid in ids:
        if pid not in game.state["pieces"]:
            raise FactError(f"{field}: unknown piece {pid!r}")
        if pid == exclude:
            raise FactError(f"{field}: {pid} cannot be listed for its own flick")


def _finish(game, frame, ctx):
    frame["offers"] = abilities.after_offers(game, frame, ctx)
    frame["stage"] = "after"


# --- Move ------------------------------------------------------------------------------------


def resolve_move(game, frame, fact):
    pid = frame["piece"]
    side = game.side_of(pid)
    st = game.state
    _check_pieces(game, fact.struck, "struck", exclude=pid)
    _check_pieces(game, fact.knocked_out, "knocked_out", exclude=pid)
    carrier = st["ball"]["carrier"]
    ctx = {"struck": list(fact.struck), "gained_by": None, "removed": False}
    game.record_positions(fact.positions)
    if fact.overlaps_scoring_zone and frame["action"] != "layup":
        # Move, note: "A dinosaur token is never allowed to overlap either scoring zone ... slide the
        # token the shortest distance so that the entire token is outside of the scoring zone."
        game.emit("slid_out_of_zone", piece=pid)
    for other in fact.knocked_out:
        game.emit("returned_to_edge", piece=other)
        if st["options"]["struck_out_of_bounds_cannot_act"]:
            game.piece(other)["out_this_turn"] = True

    if pid == carrier:
        return _carrier_moved(game, frame, fact, ctx)

    hit_carrier = carrier is not None and (fact.carrier_struck or carrier in fact.struck or carrier in fact.knocked_out)
    if hit_carrier and not game.rules.fouls_apply:
        # Exhibition Match: no fouls; "when a dinosaur in possession of the ball is knocked
        # out-of-bounds by an opposing dinosaur, the offensive player may then attempt two foul shots".
        if carrier in fact.knocked_out and game.side_of(carrier) != side:
            game.emit("knocked_out_carrier", piece=pid, carrier=carrier)
            game.start_foul_shots(2, shooting_side=game.side_of(carrier), then_possession=side)
            return None
        hit_carrier = False
    if hit_carrier:
        return _foul(game, frame, fact, ctx, carrier)

    if fact.out_of_bounds:
        # Move: "placed at the edge of the game mat ... and cannot take actions for the remainder of
        # the turn". Choice: a disc that touched the ball but ended out of bounds does not gain it.
        game.piece(pid)["out_this_turn"] = True
        game.emit("out_of_bounds", piece=pid)
    elif fact.touched_ball:
        _gain_by_move(game, pid, ctx)
    _finish(game, frame, ctx)
    return None


def _carrier_moved(game, frame, fact, ctx):
    pid = frame["piece"]
    side = game.side_of(pid)
    st = game.state
    if st["ball"]["on_top"]:
        st["ball"]["on_top"] = False
    if fact.out_of_bounds:
        # "When a dinosaur in possession of the ball moves out-of-bounds, the result is a turnover."
        game.piece(pid)["out_this_turn"] = True
        game.emit("out_of_bounds", piece=pid, with_ball=True)
        game.out_of_bounds_turnover(game.other(side), reason="carrier_out_of_bounds")
        _finish(game, frame, ctx)
        return None
    if frame["action"] == "layup":
        if fact.overlaps_scoring_zone:
            game.emit("layup", piece=pid, made=True)
            game.score(side, 2, "layup", scorer=pid)
            return None
        game.emit("layup", piece=pid, made=False)
    # "After moving a dinosaur that has possession of the ball, place the ball token adjacent".
    game.emit("ball_placed_adjacent", piece=pid)
    _finish(game, frame, ctx)
    return None


def _gain_by_move(game, pid, ctx):
    """Move: "makes contact with the ball token without committing a foul, that dinosaur gains
    possession"; Loose Ball: offense recovery advances the clock, defense recovery is a turnover."""
    st = game.state
    side = game.side_of(pid)
    was_loose = st["ball"]["loose"]
    previous = st["ball"]["carrier"]
    game.give_ball(pid)
    ctx["gained_by"] = pid
    game.emit("possession", piece=pid, by="move", from_piece=previous, loose=was_loose)
    if side != st["offense"]:
        game.turnover_in_place(side, reason="steal" if not was_loose else "loose_ball_recovered")
    elif was_loose:
        game.advance_clock(reason="loose_ball_recovered")


def _foul(game, frame, fact, ctx, carrier):
    """Fouling: "the dinosaur's token that performed the Move action is removed from the play area";
    an opposing removal moves the clock back one; a friendly strike stuns the carrier; a foul on a
    carrier inside its opponent's three-point line is a shooting foul."""
    pid = frame["piece"]
    st = game.state
    friendly = game.side_of(carrier) == game.side_of(pid)
    game.emit("foul", piece=pid, carrier=carrier, friendly=friendly,
              shooting=bool(fact.carrier_inside_three and not friendly))
    ctx["removed"] = True
    if friendly:
        game.piece(carrier)["stunned"] = True
        game.emit("stunned", piece=carrier)
        if st["options"]["friendly_strike_is_foul"]:
            game.remove_for_foul(pid)
        else:
            ctx["removed"] = False
        _finish(game, frame, ctx)
        return None
    game.remove_for_foul(pid)
    game.clock_back()
    if fact.carrier_inside_three:
        game.start_shooting_foul(carrier, fouling_side=game.side_of(pid))
        return None
    _finish(game, frame, ctx)
    return None


# --- Pass ------------------------------------------------------------------------------------


def resolve_pass(game, frame, fact):
    pid = frame["piece"]
    side = game.side_of(pid)
    st = game.state
    game.record_positions(fact.positions)
    ball_call_for = frame["context"].get("ball_call_for")
    ctx = {"received_by": None, "removed": False}
    if st["ball"]["on_top"]:
        st["ball"]["on_top"] = False
    if fact.caught_by:
        catcher = fact.caught_by
        _check_pieces(game, [catcher], "caught_by", exclude=pid)
        if game.piece(catcher)["status"] != "on_mat":
            raise FactError(f"caught_by: {catcher} was removed from the play area and cannot catch")
        if fact.out_of_bounds:
            raise FactError("Pass: 'The first dinosaur that is struck by the ball token gains possession' "
                            "- a caught pass is not out of bounds")
        if fact.automatic and game.side_of(catcher) != side:
            raise RuleViolation("Pass: only a friendly dinosaur can gain possession automatically")
        if ball_call_for and catcher != ball_call_for and st["options"]["ball_call_caught_by_other"] == "loose":
            _ball_call_loose(game, ball_call_for)
            frame["stage"] = "done"
            return None
        game.give_ball(catcher)
        ctx["received_by"] = catcher
        game.emit("possession", piece=catcher, by="automatic_pass" if fact.automatic else "pass", from_piece=pid)
        if game.side_of(catcher) != side:
            # "When a defensive dinosaur gains possession of the ball from a Pass action, the result
            # is a turnover, and that dinosaur places the ball token adjacent".
            game.turnover_in_place(game.side_of(catcher), reason="interception")
        _finish(game, frame, ctx)
        return None
    if fact.automatic:
        raise FactError("PassResult: an automatic catch names the dinosaur in caught_by")
    if fact.out_of_bounds:
        game.emit("out_of_bounds", piece="ball", action="pass")
        game.out_of_bounds_turnover(game.other(side), reason="pass_out_of_bounds")
    elif ball_call_for:
        _ball_call_loose(game, ball_call_for)
        frame["stage"] = "done"
        return None
    else:
        # "If the ball token fails to strike any dinosaur after being flicked, then the result is a
        # loose ball" (even when it overlaps a scoring zone).
        game.make_loose(reason="pass_missed")
    _finish(game, frame, ctx)
    return None


def _ball_call_loose(game, para):
    # Ball Call: "At the end of the pass, if this dinosaur does not possess the ball, the ball is
    # considered a loose ball." Choice: this holds whoever else caught it (out of bounds excepted).
    game.make_loose(reason="ball_call_missed", piece=para)


# --- Shoot / foul shots ----------------------------------------------------------------------


def _check_shot_fact(game, fact):
    if fact.touched_backboard and not game.rules.backboard:
        raise FactError("ShotResult: no backboard is in play (the Backboard variant is off)")
    if fact.out_of_bounds and fact.overlaps_zone:
        raise FactError("ShotResult: a ball that travelled out of bounds does not score; "
                        "report overlaps_zone or out_of_bounds, not both")


def resolve_shot(game, frame, fact):
    _check_shot_fact(game, fact)
    game.record_positions(fact.positions)
    if frame["action"] == "foul_shot":
        return _resolve_foul_shot(game, frame, fact)
    pid = frame["piece"]
    side = game.side_of(pid)
    st = game.state
    st["ball"]["on_top"] = False
    fouled = frame["context"].get("fouled_shot")
    if fact.overlaps_zone:
        points = 3 if fact.shooter_outside_three else 2
        game.emit("shot", piece=pid, made=True, points=points, backboard=fact.touched_backboard)
        if fouled:
            if not game.score(side, points, "shot", scorer=pid, reset=False):
                game.start_foul_shots(1, shooting_side=side, then_possession=frame["context"]["fouling_side"])
            return None
        game.score(side, points, "shot", scorer=pid)
        return None
    game.emit("shot", piece=pid, made=False, out_of_bounds=fact.out_of_bounds)
    if fouled:
        game.start_foul_shots(2, shooting_side=side, then_possession=frame["context"]["fouling_side"])
        return None
    if fact.out_of_bounds:
        game.out_of_bounds_turnover(game.other(side), reason="shot_out_of_bounds")
    else:
        game.make_loose(reason="shot_missed")
    _finish(game, frame, {"removed": False})
    return None


def _resolve_foul_shot(game, frame, fact):
    ctx = frame["context"]
    side = ctx["shooting_side"]
    ctx["remaining"] -= 1
    game.emit("foul_shot", side=side, made=bool(fact.overlaps_zone), remaining=ctx["remaining"])
    if fact.overlaps_zone and game.score(side, 1, "foul_shot", reset=False):
        return None
    if ctx["remaining"] <= 0:
        # "After resolving all foul shots, regardless of their results, reset the play area according
        # to steps 7-11 ... with the defensive team gaining possession".
        game.full_reset(ctx["then_possession"], reason="foul_shots_done")
    return None


# --- Dunk ------------------------------------------------------------------------------------


def resolve_dunk(game, frame, fact):
    pid = frame["piece"]
    side = game.side_of(pid)
    st = game.state
    st["ball"]["on_top"] = False
    game.record_positions(fact.positions)
    fouled = frame["context"].get("fouled_shot")
    made = fact.overlaps_zone and fact.ball_on_top and not fact.out_of_bounds
    game.emit("dunk", piece=pid, made=made, ball_on_top=fact.ball_on_top)
    if fact.out_of_bounds:
        game.piece(pid)["out_this_turn"] = True
        game.emit("out_of_bounds", piece=pid, with_ball=fact.ball_on_top)
    if made:
        if fouled:
            if not game.score(side, 2, "dunk", scorer=pid, reset=False):
                game.start_foul_shots(1, shooting_side=side, then_possession=frame["context"]["fouling_side"])
            return None
        game.score(side, 2, "dunk", scorer=pid)
        return None
    if fouled:
        game.start_foul_shots(2, shooting_side=side, then_possession=frame["context"]["fouling_side"])
        return None
    if not fact.ball_on_top:
        # "If the ball token falls off the top of the dinosaur token while moving, the result is a
        # loose ball and no points are scored."
        game.make_loose(reason="dunk_ball_fell")
    elif fact.out_of_bounds:
        # Choice: the disc carried the ball out of bounds, as a carrier moving out of bounds.
        game.out_of_bounds_turnover(game.other(side), reason="dunk_out_of_bounds")
    else:
        # "the dinosaur retains possession, and the player places the ball token adjacent".
        game.emit("ball_placed_adjacent", piece=pid)
    _finish(game, frame, {"removed": False})
    return None


RESOLVERS = {"move": resolve_move, "layup": resolve_move, "pass": resolve_pass, "shoot": resolve_shot,
             "foul_shot": resolve_shot, "dunk": resolve_dunk}
