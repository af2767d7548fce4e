"""``legal_actions``: every choice open now, and a representative set of facts when a flick is pending.

Choices (rosters, carriers, activations, abilities) are listed exhaustively. Facts are measurements,
not choices: any fact of the expected type that names real pieces is accepted by ``push``; this list
gives the distinct *rulings* (each combination of the booleans that matters, with at most one struck
piece), which is what a dashboard offers a judge for a manual call.
"""

from __future__ import annotations

from .actions import (Activate, ChooseCarrier, ChooseRoster, DunkResult, EndTurn, FlipBall, MoveResult,
                      PassResult, PlacementDone, ShotResult, Skip, UseAbility)
from .cards import load_catalogue, valid_rosters
from .errors import RuleViolation


def legal_actions(game) -> list:
    st = game.state
    phase = st["phase"]
    if phase == "over":
        return []
    if phase == "choose_rosters":
        catalogue = load_catalogue(st["card_overrides"])
        return [ChooseRoster(side, combo) for side in st["sides"] if st["rosters"][side] is None
                for combo in valid_rosters(catalogue, st["teams"][side])]
    if phase == "flip":
        return [FlipBall(s) for s in st["sides"]]
    if phase == "reset":
        r = st["reset"]
        if r["step"] == "carrier":
            return [ChooseCarrier(pid) for pid, p in sorted(st["pieces"].items())
                    if game.side_of(pid) == r["side"] and p["status"] == "on_mat"]
        if r["step"] == "carrier_ability":  # Tail Fake after gaining the ball in step 7
            return [UseAbility(o["piece"], o["ability"]) for o in r["offers"]] + [Skip()]
        side = r["side"] if r["step"] == "offense_place" else game.other(r["side"])
        return [PlacementDone(side)]
    top = game.top()
    if top is None:
        acts = _activations(game)
        return acts or [EndTurn()]
    if top["stage"] in ("before", "after"):
        out = []
        for o in top["offers"]:
            for target in o["targets"] or [""]:
                for choice in o["choices"] or [""]:
                    out.append(UseAbility(o["piece"], o["ability"], target, choice))
        if not any(o["required"] for o in top["offers"]):
            out.append(Skip())
        return out
    return _facts(game, top)


def _activations(game) -> list:
    st = game.state
    turn = st["turn"]
    if len(turn["activated"]) >= 2:
        return []
    out = []
    for pid, p in sorted(st["pieces"].items()):
        if game.side_of(pid) != turn["side"] or pid in turn["activated"] or not game.can_act(pid):
            continue
        for action in ("move", "pass", "shoot", "dunk", "soar", "layup"):
            for snow in ((False, True) if action == "layup" and game.rules.layup else (False,)):
                try:
                    game._action_allowed(pid, action, snow)
                except RuleViolation:
                    continue
                out.append(Activate(pid, action, snow))
    return out


def _facts(game, top) -> list:
    action = top["action"]
    st = game.state
    pid = top["piece"]
    if action in ("shoot", "foul_shot"):
        bb = (False, True) if game.rules.backboard else (False,)
        three = (False, True) if action == "shoot" else (False,)
        out = [ShotResult(True, o3, False, b) for o3 in three for b in bb]
        out += [ShotResult(False, False, False, b) for b in bb] + [ShotResult(False, False, True, False)]
        return out
    if action == "dunk":
        return [DunkResult(z, top_, oob) for z in (True, False) for top_ in (True, False)
                for oob in (False, True) if not (z and oob)]
    on_mat = [q for q, p in sorted(st["pieces"].items()) if p["status"] == "on_mat" and q != pid]
    if action == "pass":
        out = [PassResult(), PassResult(out_of_bounds=True)]
        for q in on_mat:
            out.append(PassResult(caught_by=q))
            if game.side_of(q) == game.side_of(pid):
                out.append(PassResult(caught_by=q, automatic=True))
        return out
    carrier = st["ball"]["carrier"]
    out = []
    zone = (False, True) if action == "layup" else (False,)
    for oob in (False, True):
        for z in zone:
            out.append(MoveResult(out_of_bounds=oob, overlaps_scoring_zone=z))
            if carrier != pid:
                out.append(MoveResult(out_of_bounds=oob, touched_ball=True))
        for q in on_mat:
            if q == carrier:
                out.append(MoveResult(struck=(q,), carrier_struck=True))
                out.append(MoveResult(struck=(q,), carrier_struck=True, carrier_inside_three=True))
                out.append(MoveResult(struck=(q,), carrier_struck=True, knocked_out=(q,)))
            else:
                out.append(MoveResult(out_of_bounds=oob, struck=(q,)))
                out.append(MoveResult(struck=(q,), knocked_out=(q,)))
    if carrier and carrier != pid:
        out.append(MoveResult(carrier_struck=True))
    return list(dict.fromkeys(out))
