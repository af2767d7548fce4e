"""Dodo Dash: verdicts → ``rules.dodo_dash.actions.Hits`` (the racers a projectile touched) and a
plain ``{racer: hex}`` record of where each racer stands (the engine moves racers by the rules; the
camera's positions are a check, not an action).

Hits: ``racers`` in the order they were touched. The landing footprint says *who* was touched, not
in what order; give ``order`` (racer ids, first touched first, from vision's contacts) when the
projectile hits only its first racer (Feather, Dodo), else the racers keep the given order.
For such a projectile a racer too close to call that can have been touched before the first sure
one is asked as "touched before it?" (``before``): touched after it, it would not count.
"""

from __future__ import annotations

from referee.config import RefereeConfig
from referee.pending import Ruling, fact_from_verdict

GAME = "dodo-dash"


def hits_ruling(hit_verdicts, racer_ids, config: RefereeConfig, *, order=None, before=None) -> Ruling:
    """One fact per racer ``hit:<id>``; too_close ones pending (default ``dodo-dash.hit``).
    ``before`` {racer: sure racer}: a too_close racer whose fact is ``before:<id>:<sure id>``
    instead, "touched before the sure racer?" (the question its verdict asks says so): yes puts it
    right ahead of that racer, no leaves it out (only the first racer touched counts)."""
    from dataclasses import replace

    racer_ids = [str(r) for r in racer_ids]
    before = {str(a): str(b) for a, b in (before or {}).items()}
    facts, pending = {}, {}
    for rid, v in zip(racer_ids, hit_verdicts):
        if rid in before and v.answer == "too_close":
            v = replace(v, question=f"{v.question} before {before[rid]}")
            fact_from_verdict(GAME, f"before:{rid}:{before[rid]}", v, config.default_for(GAME, "hit"), facts, pending)
        else:
            fact_from_verdict(GAME, f"hit:{rid}", v, config.default_for(GAME, "hit"), facts, pending)
    sequence = [str(r) for r in order] if order is not None else racer_ids
    sequence = [r for r in sequence if r not in before or f"hit:{r}" in facts or f"hit:{r}" in pending]

    def build(values):
        from rules.dodo_dash.actions import Hits

        hit = []
        for r in sequence:
            hit += [a for a, b in before.items() if b == r and values.get(f"before:{a}:{b}")]
            if values.get(f"hit:{r}"):
                hit.append(r)
        return Hits(racers=tuple(dict.fromkeys(hit)))

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
