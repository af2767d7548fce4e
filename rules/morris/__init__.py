"""Morris the Dodo rules engine (standard library only). See :mod:`rules.morris.game`."""

from rules.core import replay as _replay
from rules.morris.game import (
    BROKEN,
    WHOLE,
    BigRushGame,
    EggNotInNestError,
    Game,
    GameOverError,
    Landed,
    LandedMismatchError,
    LoadEggs,
    MoveHunter,
    NoSuchEggError,
    PlaceEgg,
    SlotColourError,
    WrongEggCountError,
    WrongPhaseError,
    new_game,
)
from rules.morris.layout import COLOURS, DEFAULT_LAYOUT_PATH, MULTI, LayoutError, load_layout


def replay(lines):
    """Replay a match log (see :func:`rules.core.replay`)."""
    return _replay("morris", lines)


__all__ = [
    "BROKEN", "WHOLE", "COLOURS", "MULTI", "DEFAULT_LAYOUT_PATH", "BigRushGame", "Game", "Landed",
    "LoadEggs", "MoveHunter", "PlaceEgg", "new_game", "replay", "load_layout", "LayoutError",
    "EggNotInNestError", "GameOverError", "LandedMismatchError", "NoSuchEggError", "SlotColourError",
    "WrongEggCountError", "WrongPhaseError",
]
