"""Dodo Dash actions: small frozen dataclasses. Players are named by their id (a string).

Facts from the table (die rolls, projectile hits) are actions too, so a match log replays exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.core import IllegalActionError


class DodoDashError(IllegalActionError):
    """An action Dodo Dash does not allow now; the message names the rule."""


class SetupError(DodoDashError):
    """The setup asked for something the rulebook (or the data files) does not allow."""


class NotYourDecision(DodoDashError):
    """The engine is waiting for a different decision or a different player."""


class CardNotInHand(DodoDashError):
    """The card is not in that player's hand (or not of the kind this step needs)."""


@dataclass(frozen=True)
class Choose:
    """Scheming phase: ``player`` secretly puts ``card`` face down (revealed when all have chosen)."""

    player: str
    card: str


@dataclass(frozen=True)
class PlayReaction:
    """Running phase, in an open Reaction window: ``player`` plays the Reaction card ``card``."""

    player: str
    card: str


@dataclass(frozen=True)
class UsePower:
    """In an open Reaction window: ``player`` uses a Dodo-Idol Power card with a 'reaction' trigger."""

    player: str
    power: str


@dataclass(frozen=True)
class EndReactions:
    """Nobody (else) plays a Reaction: close the window and resolve the chain from the top."""


@dataclass(frozen=True)
class Roll:
    """A die result read from the table (only with ``dice='table'``)."""

    value: int


@dataclass(frozen=True)
class Hits:
    """The racers a projectile touched, in the order they were touched (possibly none)."""

    racers: tuple = ()


@dataclass(frozen=True)
class Discard:
    """``player`` chooses which cards to discard for the damage they are taking."""

    player: str
    cards: tuple


@dataclass(frozen=True)
class Target:
    """``player`` picks the racer an effect with target 'choose_other' applies to."""

    player: str
    target: str


@dataclass(frozen=True)
class Decide:
    """``player`` uses (``use=True``) or declines an optional ("may") ability or power."""

    player: str
    use: bool


@dataclass(frozen=True)
class Correct:
    """A judge's correction: ``racer`` actually stands at ``position`` (progress: hexes from the
    first hex past the finish line; -1 is the first hex behind it). Allowed at any time; it moves
    the racer without triggering anything (no traps, charms, drifting or hunting)."""

    racer: str
    position: int


ACTIONS = (Choose, PlayReaction, UsePower, EndReactions, Roll, Hits, Discard, Target, Decide, Correct)
