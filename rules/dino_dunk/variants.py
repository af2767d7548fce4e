"""Variant Game Modes as small hook classes (python-chess ``variant.py`` style).

A game's variants are stored by name in ``state["variants"]`` (plain JSON); ``Rules.for_state``
combines their hooks. Each class overrides only what its section of the rulebook changes.
"""

from __future__ import annotations


class Standard:
    name = "standard"
    #: "Fouling" (page 6) applies: striking the ball carrier is a foul.
    fouls_apply = True
    #: Actions and abilities come from the Exhibition Card of the disc's size.
    exhibition_cards = False
    #: A carrier knocked out of bounds by an opponent earns two foul shots (Exhibition Match).
    knockout_foul_shots = False
    #: A ShotResult may report touched_backboard.
    backboard = False
    #: A dinosaur overlapping snow may Move instead of Shoot and score 2 by overlapping the zone.
    layup = False


class ExhibitionMatch(Standard):
    """"players ignore the actions and special abilities printed on the standard Character Cards and
    use [those] printed on the Exhibition Cards instead ... Players also ignore the rules outlined on
    page 6 for Fouling, and when a dinosaur in possession of the ball is knocked out-of-bounds by an
    opposing dinosaur, the offensive player may then attempt two foul shots.\""""

    name = "exhibition"
    fouls_apply = False
    exhibition_cards = True
    knockout_foul_shots = True


class Backboard(Standard):
    """"During a Shoot action, the ball token may come into contact with the backboard token but must
    overlap the scoring zone once it has stopped moving to successfully score.\""""

    name = "backboard"
    backboard = True


class Layup(Standard):
    """"Instead of performing a Shoot action, a dinosaur that overlaps snow terrain may perform a Move
    action. After moving, if the dinosaur token overlaps the scoring zone, then the result is a
    successful score. A layup is worth 2 points.\""""

    name = "layup"
    layup = True


VARIANT_CLASSES = {cls.name: cls for cls in (ExhibitionMatch, Backboard, Layup)}


class Rules:
    """The combined hooks of a set of variants (each hook: does any variant change it?)."""

    def __init__(self, names):
        classes = [VARIANT_CLASSES[n] for n in names]
        self.names = list(names)
        self.fouls_apply = all(c.fouls_apply for c in classes) if classes else True
        self.exhibition_cards = any(c.exhibition_cards for c in classes)
        self.knockout_foul_shots = any(c.knockout_foul_shots for c in classes)
        self.backboard = any(c.backboard for c in classes)
        self.layup = any(c.layup for c in classes)

    @classmethod
    def for_state(cls, state: dict) -> "Rules":
        return cls(state.get("variants") or [])
