"""Dino Dunk rules engine (standard library only).

    >>> from rules.dino_dunk import new_game, ChooseCarrier
    >>> game = new_game(rosters={"home": [...], "away": [...]}, offense="home")
    >>> game.push(ChooseCarrier("home:brontosaurus"))

The game waits for one thing at a time (``game.pending()``); ``game.legal_actions()`` lists what is
open; facts about a flick (``MoveResult``, ``PassResult``, ``ShotResult``, ``DunkResult``) come from
the referee. Options for each ambiguity of the rulebook are in :mod:`rules.dino_dunk.options`; the
card list is ``cards.json`` next to this file.
"""

from __future__ import annotations

from rules import core

from .actions import (ACTIONS, Activate, ChooseCarrier, ChooseRoster, DunkResult, EndTurn, FlipBall,
                      MoveResult, PassResult, PlacementDone, ShotResult, Skip, UseAbility)
from .cards import load_catalogue
from .errors import FactError, RuleViolation, SetupError, WrongTimeError
from .game import SHOT_CLOCK_TURNS, Game
from .options import DEFAULTS as OPTION_DEFAULTS
from .options import resolve_options, resolve_variants

DEFAULT_TEAMS = {"home": "mesozoic_meteors", "away": "triassic_tropics"}


def new_state(teams=None, target_score=6, variants=(), options=None, card_overrides=None) -> dict:
    teams = dict(teams or DEFAULT_TEAMS)
    catalogue = load_catalogue(card_overrides)
    if len(teams) != 2:
        raise SetupError("Game Setup step 3: two teams (sides), e.g. {'home': 'mesozoic_meteors', "
                         "'away': 'triassic_tropics'}")
    for side, team in teams.items():
        if team not in catalogue["teams"]:
            raise SetupError(f"Game Setup step 3: unknown team {team!r} for {side}; teams are {sorted(catalogue['teams'])}")
        if ":" in side or not side:
            raise SetupError(f"side names are non-empty and contain no ':' ({side!r})")
    if not isinstance(target_score, int) or isinstance(target_score, bool) or target_score < 1:
        raise SetupError("Game End: the target score is a positive whole number of points (6 standard, 4 for a first game)")
    sides = list(teams)
    return {
        "version": 1,
        "options": resolve_options(options),
        "variants": resolve_variants(variants),
        "target_score": target_score,
        "card_overrides": card_overrides or {},
        "sides": sides,
        "teams": {s: teams[s] for s in sides},
        "rosters": {s: None for s in sides},
        "pieces": {},
        "positions": {},
        "ball": {"carrier": None, "loose": False, "on_top": False},
        "offense": None,
        "clock": {"side": None, "space": 0},
        "score": {s: 0 for s in sides},
        # Setup step 2: "place a scoring token with the team logo visible on the '0' space on each
        # score track"; the Scoreboard Reference's note flips it past the track's maximum.
        "score_tokens": {s: {"space": 0, "side": "logo", "flips": 0} for s in sides},
        "phase": "choose_rosters",
        "reset": None,
        "turn": None,
        "stack": [],
        "started": False,
        "winner": None,
    }


def new_game(teams=None, target_score=6, variants=(), options=None, card_overrides=None,
             rosters=None, offense=None) -> Game:
    """A new game. ``teams``: {side: team id}; ``target_score``: points to win; ``variants``: any of
    "exhibition", "backboard", "layup"; ``options``: see :mod:`rules.dino_dunk.options`;
    ``card_overrides``: {card id: fields} to complete or correct ``cards.json``. Shortcuts (not
    undoable by ``pop``): ``rosters`` {side: [five card ids]} plays setup steps 3-4, ``offense`` (the
    winner of the ball flip) step 6."""
    game = Game(new_state(teams, target_score, variants, options, card_overrides))
    if rosters is not None:
        if set(rosters) != set(game.state["sides"]):
            raise SetupError(f"rosters: give five card ids for each side {game.state['sides']}")
        for side in game.state["sides"]:
            game._apply(ChooseRoster(side, tuple(rosters[side])))
    if offense is not None:
        if rosters is None:
            raise SetupError("offense (the ball flip) needs rosters first")
        game._apply(FlipBall(offense))
    game.last_events = []
    return game


def replay(lines):
    """Replay a match log (see :func:`rules.core.replay`)."""
    return core.replay(Game.GAME, lines)


__all__ = [
    "ACTIONS", "Activate", "ChooseCarrier", "ChooseRoster", "DunkResult", "EndTurn", "FactError",
    "FlipBall", "Game", "MoveResult", "OPTION_DEFAULTS", "PassResult", "PlacementDone", "RuleViolation",
    "SHOT_CLOCK_TURNS", "SetupError", "ShotResult", "Skip", "UseAbility", "WrongTimeError", "new_game",
    "new_state", "replay",
]
