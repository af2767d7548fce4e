"""Dodo Dash: verdicts → ``rules.dodo_dash.actions.Hits`` (the racers a projectile touched) and a
plain ``{racer: hex}`` record of where each racer stands (the engine moves racers by the rules; the
camera's positions are a check, not an action).

Hits: ``racers`` in the order they were touched. The landing footprint says *who* was touched, not
in what order; give ``order`` (racer ids, first touched first, from vision's contacts) when the
projectile hits only its first racer (Feather, Dodo), else the racers keep the given order.
"""

from __future__ import annotations

from referee.config import RefereeConfig
from referee.pending import Ruling, fact_from_verdict

GAME = "dodo-dash"


def hits_ruling(hit_verdicts, racer_ids, config: RefereeConfig, *, order=None) -> Ruling:
    """One fact per racer ``hit:<id>``; too_close ones pending (default ``dodo-dash.hit``)."""
    racer_ids = [str(r) for r in racer_ids]
    facts, pending = {}, {}
    for rid, v in zip(racer_ids, hit_verdicts):
        fact_from_verdict(GAME, f"hit:{rid}", v, config.default_for(GAME, "hit"), facts, pending)
    sequence = [str(r) for r in order] if order is not None else racer_ids

    def build(values):
        from rules.dodo_dash.actions import Hits

        hit = [r for r in sequence if values.get(f"hit:{r}")]
        return Hits(racers=tuple(hit))

    return Ruling(GAME, "Hits", facts, pending, tuple(hit_verdicts), build)


def positions_ruling(hex_verdicts, racer_ids, config: RefereeConfig) -> Ruling:
    """``{racer: "<track>:<hex>"}``; a too_close hex call is pending, proposing the nearest hex
    (``dodo-dash.hex: leaning``) or nothing."""
    facts, pending = {}, {}
    default = config.default_for(GAME, "hex")
    for rid, v in zip(racer_ids, hex_verdicts):
        runner = f"{v.detail.get('track', '')}:{v.detail.get('runner_up', '')}"
        fact_from_verdict(GAME, str(rid), v, v.finding if default == "leaning" else default, facts, pending,
                          yes=v.finding, no=runner)
        if str(rid) in pending:  # what it leaned to is the nearest hex, whatever the margin's sign
            from dataclasses import replace

            pending[str(rid)] = replace(pending[str(rid)], leaning=v.finding,
                                        proposed=v.finding if default == "leaning" else default)
    return Ruling(GAME, "positions", facts, pending, tuple(hex_verdicts), None)
