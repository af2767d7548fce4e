"""Dodos Riding Dinos: Dodo Dash, the whole rulebook as a pure engine (standard library only).

``new_game(**setup)`` builds a :class:`Game`; see ``start.build_state`` for the setup keywords:
players (ids, 1-9, seated clockwise), racers, board ('jungle'/'temple'), track ('outer'/'inner'/
'connected'; by default outer for up to 4 racers), variant ('standard'/'treasure'), challengers
(solo and 2-player: two, each a difficulty or {racer, difficulty}), seed, dice ('engine' rolls from
the seeded RNG kept in the state, 'table' waits for Roll actions), first_player, cards (a catalogue
path or dict; default ``cards.json``), layout (a track dict replacing ``boards.json``), and for
scripted games and tests: hands, deck_top, positions, boost, traps, charm_tiles, power_deck_top,
charm_deck_top, taken (Treasure Hunt tokens already taken).

Interpretations where the rulebook is silent or ambiguous (tests pin each one):

- Positions are progress integers (see ``layout``); the printed hex is ``progress mod hexes``.
- Each turn has two Reaction windows: before the effect resolves (the cancel chain) and after it
  (for Reactions that "solve another effect": Fast Legs in the Treasure Hunt example d). A window
  opens only when someone can play something and ``EndReactions`` closes it. The chain resolves
  from the top; a cancel cancels the item directly below it.
- The end of a turn discards the played card, then recovers empty hands (the Turn Example's order).
- Damage discards are the player's choice (``Discard``) unless the choice is forced.
- A hand of only Reaction cards plays one face down for its Speed only; no cards, no card.
- A movement caused by a Trap tile does not trigger traps or zones (no endless trap loops).
- Zone Traps work once revealed (a racer ended a movement on the tile). Normal card: after your
  Speed move ends in the zone you advance your Speed again; Reaction card: you stand in the zone
  when you play it; Aggressive card: you stand in it when your effect would resolve.
- The "Dash card, draw 2" tile (listed with the immediate traps) fires when you end your own
  turn's movement on it having played a Dash card.
- Every racer reaching or passing a Charm tile by advancing triggers it. After a 5-6 the old tile
  returns to the pool and a random pool tile replaces it face down.
- Drift bonus hexes are free and do not start another Drifting sequence.
- Treasure Hunt: being reached or passed includes a racer moving back onto or past you (example c);
  the nearest Base is the nearest one at or behind the Hunted racer; "most Treasure tokens" counts
  the tokens in front of a player (own left + taken); one Boost modifier list serves all players.
- Challengers reveal in the Scheming phase and move on their turn; a Challenger whose deck is
  emptied by damage recovers at once; its End of Round draw goes under its deck; a Claw's damage is
  an effect, so Reaction cards may cancel it.
- A used "once" Dodo-Idol Power goes under the Power deck.
- Overpower: the rulebook shows only its self-damage cost (the ``cost`` step: with fewer cards in
  hand than the damage, the whole effect is canceled and nothing is discarded); the amount and the
  rest of the printed card are for the user to fill in (``todo`` in ``cards.json``).
- Plesiododo (the ``reverse`` step): racers keep their hexes and advance against the printed arrows;
  progress is re-counted in the new direction so that a racer behind the finish line has the lap
  still to cover; Drifting is not triggered going the other way; Zone Traps keep their printed
  extent (see ``effects._fx_reverse``).
- Not implemented: the rest of the "Mixing the Original Game" section (mixed characters and decks,
  Cup mode across four races, the Treasure Hunting Rally, the Boost-card mini track): they need the
  original game's cards and tracks, or several races, which this one-race engine does not model.
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
