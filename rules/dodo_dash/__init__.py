"""Dodos Riding Dinos: Dodo Dash, the whole rulebook as a pure engine (standard library only).

``new_game(**setup)`` builds a :class:`Game`; see ``start.build_state`` for the setup keywords:
players (ids, 1-9, seated clockwise), racers, board ('jungle'/'temple'), track ('outer'/'inner'/
'connected'; by default outer for up to 4 racers), variant ('standard'/'treasure'), challengers
(solo and 2-player: two, each a difficulty or {racer, difficulty}), seed, dice ('engine' rolls from
the seeded RNG kept in the state, 'table' waits for Roll actions), first_player, cards (a catalogue
path or dict; default ``cards.json``), layout (a track dict replacing ``boards.json``), and for
scripted games and tests: hands, deck_top, positions, boost, traps, charm_tiles, power_deck_top,
charm_deck_top.
"""

from rules.dodo_dash.actions import (
    ACTIONS, CardNotInHand, Choose, Correct, Decide, Discard, DodoDashError, EndReactions, Hits, NotYourDecision,
    PlayReaction, Roll, Target, UsePower,
)
from rules.dodo_dash.game import Game
from rules.dodo_dash.start import SetupError, build_state


def new_game(**setup) -> Game:
    game = Game(build_state(**setup))
    game._events = []
    game.start_round()
    game.last_events = list(game._events)
    return game


def replay(lines):
    from rules.core import replay as _replay

    return _replay("dodo-dash", lines)


__all__ = [
    "ACTIONS", "CardNotInHand", "Choose", "Correct", "Decide", "Discard", "DodoDashError", "EndReactions", "Game",
    "Hits", "NotYourDecision", "PlayReaction", "Roll", "SetupError", "Target", "UsePower", "new_game", "replay",
]
