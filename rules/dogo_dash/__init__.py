"""Dogo Dash rules engine (standard library only). See :mod:`rules.dogo_dash.game` and, for the exact
meaning of "the strongest card", :mod:`rules.dogo_dash.strength`."""

from rules.core import replay as _replay
from rules.dogo_dash.game import (
    CATNIP,
    HAND_SIZE,
    CardNotInHandError,
    CatnipError,
    CatnipGame,
    Choose,
    Collect,
    DogoDash,
    DogoDashError,
    Game,
    GameOverError,
    NotInRoundError,
    Reveal,
    RevealMismatchError,
    WrongPhaseError,
    new_game,
)
from rules.dogo_dash.strength import (
    BEAR,
    CAT,
    COOKIE,
    DECK_COUNTS,
    DOG,
    GOOD_BOY,
    KINDS,
    STRONGER_THAN,
    RoundResult,
    round_result,
    stronger,
    strongest_kinds,
)


def replay(lines):
    """Replay a match log (see :func:`rules.core.replay`)."""
    return _replay("dogo-dash", lines)


__all__ = [
    "BEAR", "CAT", "COOKIE", "DOG", "GOOD_BOY", "CATNIP", "KINDS", "DECK_COUNTS", "HAND_SIZE",
    "STRONGER_THAN", "RoundResult", "round_result", "stronger", "strongest_kinds", "Game", "CatnipGame",
    "Choose", "Reveal", "DogoDash", "Collect", "new_game", "replay", "CardNotInHandError", "CatnipError",
    "DogoDashError", "GameOverError", "NotInRoundError", "RevealMismatchError", "WrongPhaseError",
]
