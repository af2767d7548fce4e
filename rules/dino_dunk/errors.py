"""Typed errors of the Dino Dunk engine. Every message names the rule (the rulebook's section)."""

from __future__ import annotations

from rules.core import IllegalActionError, RulesError


class SetupError(RulesError):
    """A bad ``new_game`` setup or card catalogue entry."""


class WrongTimeError(IllegalActionError):
    """The action is of a kind the game is not waiting for now (e.g. a ShotResult during setup)."""


class RuleViolation(IllegalActionError):
    """The action is the right kind but a rule forbids it (wrong team, dinosaur already activated...)."""


class FactError(IllegalActionError):
    """A fact from the camera side is inconsistent (names an unknown piece, contradicts itself)."""


class RosterError(RuleViolation, SetupError):
    """A roster breaks setup step 3 or the size rule of "Dinosaur Tokens"."""
