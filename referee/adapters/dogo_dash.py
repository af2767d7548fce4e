"""Dogo Dash: per-seat revealed-card verdicts → ``rules.dogo_dash.game.Reveal(cards=(card | None,
...))``. A card below the classifier's threshold (or no single card seen in the seat) is pending,
proposing ``dogo-dash.card`` (``leaning``: the classifier's label, none when nothing was read).
``in_round`` marks the seats playing this round (others reveal ``None``)."""

from __future__ import annotations

from referee.config import RefereeConfig
from referee.pending import PendingFact, Ruling

GAME = "dogo-dash"


def reveal_ruling(seat_verdicts, config: RefereeConfig, *, in_round=None) -> Ruling:
    verdicts = list(seat_verdicts)
    playing = [True] * len(verdicts) if in_round is None else [bool(x) for x in in_round]
    facts, pending = {}, {}
    for s, (v, play) in enumerate(zip(verdicts, playing)):
        name = f"seat{s}"
        if not play:
            facts[name] = None
        elif v.answer == "yes":
            facts[name] = v.finding
        else:
            default = config.default_for(GAME, "card")
            pending[name] = PendingFact(GAME, name, (v.finding or None) if default == "leaning" else default,
                                        v.finding or None, (v,))
    n = len(verdicts)

    def build(values):
        from rules.dogo_dash.game import Reveal

        return Reveal(cards=tuple(values[f"seat{s}"] for s in range(n)))

    return Ruling(GAME, "Reveal", facts, pending, tuple(verdicts), build)
