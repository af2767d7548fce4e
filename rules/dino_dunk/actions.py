"""Dino Dunk actions: small frozen dataclasses. Choices come from players, facts from the referee.

Piece ids are ``"<side>:<card id>"`` (``"home:triceratops"``). Every field is JSON-able; tuples
round-trip through :func:`rules.core.action_from_dict` (lists become tuples). ``positions`` fields
are optional records of where pieces ended, as ``((piece_id_or_"ball", x_mm, y_mm), ...)`` in mat mm;
the engine stores them for display and never judges a rule from them (the referee does, and hands
over the boolean facts).
"""

from __future__ import annotations

from dataclasses import dataclass

# --- setup choices ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ChooseRoster:
    """Setup steps 3-4: a side secretly picks five card ids; both are revealed once both chose."""

    side: str
    cards: tuple = ()


@dataclass(frozen=True)
class FlipBall:
    """Setup step 6 (a fact): the side that won the ball flip becomes the offensive team."""

    winner: str


@dataclass(frozen=True)
class ChooseCarrier:
    """Setup step 7: the side gaining possession picks its ball carrier, placed on its baseline with
    the ball adjacent (standard placement)."""

    piece: str


@dataclass(frozen=True)
class PlacementDone:
    """Setup steps 8 (offense) and 9 (defense): the side has placed its dinosaurs."""

    side: str
    positions: tuple = ()


# --- turn choices ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Activate:
    """Activate a dinosaur and declare its action: "move", "pass", "shoot", "dunk", "layup" (the
    Layup variant or the Exhibition Layup ability) or "soar" (50 Foot Vertical Soar).
    ``overlaps_snow`` is the referee's fact for the Layup variant ("a dinosaur that overlaps snow
    terrain may perform a Move action")."""

    piece: str
    action: str
    overlaps_snow: bool = False


@dataclass(frozen=True)
class UseAbility:
    """Use an ability the engine offers now (see ``Game.offers()``). ``target`` is a piece id where
    the ability needs one (Boxing Out, Ball Call); ``choice`` picks among options (Ferocious D:
    "pass"/"dunk"; a shooting foul: "shoot"/"dunk")."""

    piece: str
    ability: str
    target: str = ""
    choice: str = ""


@dataclass(frozen=True)
class Skip:
    """Decline every optional ability offered now."""


@dataclass(frozen=True)
class EndTurn:
    """End the turn early; legal only when no dinosaur can be activated."""


# --- facts from the camera side --------------------------------------------------------------


@dataclass(frozen=True)
class MoveResult:
    """What a Move (or Layup) flick did, once every disc stopped.

    out_of_bounds: the moving disc left the play area completely.
    struck: pieces the moving disc touched directly.
    carrier_struck: the ball carrier was struck, directly or by a dinosaur this move set moving
        ("causes another dinosaur to strike the dinosaur in possession of the ball").
    carrier_inside_three: the carrier was fouled inside its opponent's three-point line (shooting
        foul); judged the same way as ShotResult.shooter_outside_three (option three_point_judged_by).
    touched_ball: the moving disc touched the ball token.
    knocked_out: other dinosaurs that ended out of bounds (returned to the edge).
    overlaps_scoring_zone: the moving disc overlapped a scoring zone when it stopped (before being
        slid out); decides a Layup.
    """

    out_of_bounds: bool = False
    struck: tuple = ()
    carrier_struck: bool = False
    carrier_inside_three: bool = False
    touched_ball: bool = False
    knocked_out: tuple = ()
    overlaps_scoring_zone: bool = False
    positions: tuple = ()


@dataclass(frozen=True)
class PassResult:
    """What a Pass flick did. caught_by: the first dinosaur struck by the ball ("" for none);
    automatic: the pass was the automatic catch ("within one long card length ... a straight line can
    be drawn ... without passing through any other dinosaur tokens"); out_of_bounds: the ball struck
    no dinosaur and left the play area."""

    caught_by: str = ""
    out_of_bounds: bool = False
    automatic: bool = False
    positions: tuple = ()


@dataclass(frozen=True)
class ShotResult:
    """What a Shoot flick (or a foul shot) did. overlaps_zone: any portion of the ball overlaps the
    target scoring zone after it stopped; shooter_outside_three: the shooter stood outside the
    three-point line (how, see option three_point_judged_by); out_of_bounds: the ball travelled out
    of bounds; touched_backboard: it touched a backboard (allowed only with the Backboard variant)."""

    overlaps_zone: bool = False
    shooter_outside_three: bool = False
    out_of_bounds: bool = False
    touched_backboard: bool = False
    positions: tuple = ()


@dataclass(frozen=True)
class DunkResult:
    """What a Dunk flick did: the dinosaur disc overlaps the scoring zone; the ball is still on top;
    the disc left the play area."""

    overlaps_zone: bool = False
    ball_on_top: bool = True
    out_of_bounds: bool = False
    positions: tuple = ()


CHOICES = (ChooseRoster, FlipBall, ChooseCarrier, PlacementDone, Activate, UseAbility, Skip, EndTurn)
FACTS = (MoveResult, PassResult, ShotResult, DunkResult)
ACTIONS = CHOICES + FACTS
