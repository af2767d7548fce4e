"""Morris the Dodo: egg colour and face verdicts → ``rules.morris.game.Landed(eggs=((colour,
face), ...))``. A colour or face below the classifier's confidence threshold is pending, proposing
``morris.colour`` / ``morris.face`` (``leaning``: the classifier's own label)."""

from __future__ import annotations

from referee.config import RefereeConfig
from referee.pending import PendingFact, Ruling

GAME = "morris"


def landed_ruling(egg_verdicts, config: RefereeConfig) -> Ruling:
    """``egg_verdicts`` as from :func:`referee.classify.egg_calls`: (colour, face) per egg, in order."""
    verdicts = list(egg_verdicts)
    if len(verdicts) % 2:
        from referee.core import RefereeError

        raise RefereeError("egg verdicts come in (colour, face) pairs")
    facts, pending = {}, {}
    for e in range(len(verdicts) // 2):
        for attr, v in zip(("colour", "face"), verdicts[2 * e: 2 * e + 2]):
            name = f"egg{e}.{attr}"
            if v.answer == "yes":
                facts[name] = v.finding
            else:
                default = config.default_for(GAME, attr)
                proposal = (v.finding or None) if default == "leaning" else default
                pending[name] = PendingFact(GAME, name, proposal, v.finding or None, (v,))
    n = len(verdicts) // 2

    def build(values):
        from rules.morris.game import Landed

        return Landed(eggs=tuple((values[f"egg{e}.colour"], values[f"egg{e}.face"]) for e in range(n)))

    return Ruling(GAME, "Landed", facts, pending, tuple(verdicts), build)
