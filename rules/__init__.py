"""Pure rules engines, one per game.

This package imports only the standard library: it runs with no camera, no numpy and no OpenCV.
Each game lives in its own subpackage (``rules.dino_dunk``, ``rules.dodo_dash``, ``rules.morris``,
``rules.dogo_dash``) and exposes a ``Game`` in the style of python-chess: ``push(action)``,
``pop()``, ``legal_actions()``, ``is_legal(action)``, ``outcome()``, ``copy()``, ``to_json()`` /
``from_json()`` and the events that the last action produced.
"""

from rules.core import (
    ENGINES,
    Event,
    GameBase,
    IllegalActionError,
    Outcome,
    ReplayError,
    RulesError,
    engine_for,
)

__all__ = [
    "ENGINES",
    "Event",
    "GameBase",
    "IllegalActionError",
    "Outcome",
    "ReplayError",
    "RulesError",
    "engine_for",
]
