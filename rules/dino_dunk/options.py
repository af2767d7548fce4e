"""Options: one per ambiguity of the rulebook, each with the rulebook's words and the default chosen.

Choices fixed in the code (not options), each commented where it is made:
- a disc that touched the ball but ended out of bounds does not gain it (resolve.resolve_move);
- a Dunk is not a Move action, so it commits no foul (DunkResult has no "struck" facts);
- a Dunk whose disc leaves the mat with the ball on top is a turnover, like a carrier moving out;
- free actions from abilities are offered only to the team whose turn it is (a Brontosaurus that
  intercepts on the opponent's turn gets no Tail Whip), except the fouled shot;
- declining the fouled shot of a shooting foul counts as a miss (two foul shots);
- a fouled-out dinosaur returns at the end of the next turn of its team *after* the turn of the foul;
- both sides may field the same team's cards (the rulebook's own Harry/Alice example does).

Options are plain JSON values stored in ``state["options"]``; ``new_game(options={...})`` overrides
them. Unknown keys and values outside ``CHOICES`` are rejected.
"""

from __future__ import annotations

from .errors import SetupError

DEFAULTS = {
    # Shoot: "If the dinosaur performing the Shoot action is outside the three-point line, a team
    # instead scores 3 points". Not said: by the disc's centre or the whole disc. The engine only
    # receives ShotResult.shooter_outside_three (and MoveResult.carrier_inside_three); this option
    # tells the referee which measurement that fact means: "centre" (the base centre is outside the
    # line), "whole_disc" (no part of the disc is inside), "any_part" (some part is outside).
    # Default whole_disc: as on a basketball court, a shooter touching the line is not outside it;
    # the simulator's ground truth reads it the same way.
    "three_point_judged_by": "whole_disc",
    # Fouling: "if a dinosaur strikes the dinosaur currently in possession of the ball ... the result
    # is a foul. When a foul occurs, the dinosaur's token that performed the Move action is removed"
    # and "A dinosaur in possession of the ball that is struck due to a friendly dinosaur's Move
    # action is stunned". True: a friendly strike is a foul too (mover removed AND carrier stunned;
    # the rulebook's "When an *opposing* dinosaur is removed ... move the possession token" implies
    # friendly dinosaurs can be removed). False: a friendly strike only stuns.
    "friendly_strike_is_foul": True,
    # Fouling: the fouled-out dinosaur returns "at the end of the fouling team's next turn". Steps 8-9
    # of a reset place "their four remaining dinosaurs" (all five). True: a full reset (after a score,
    # an expired shot clock or foul shots) brings removed dinosaurs back at once. False: they wait.
    "fouled_out_return_on_reset": True,
    # Move/Pass/Shoot out of bounds: "the result is a turnover. The defensive team then chooses a
    # player to gain possession of the ball according to step 7". "step7": only step 7 (choose and
    # place the carrier), the current turn continues. "full": steps 7-11 and the new offense starts
    # a fresh turn (as after a score).
    "out_of_bounds_reset": "step7",
    # Shot Clock: "At the end of the offensive team's turn, advance the possession token". When a
    # team steals the ball on its own turn (Alice's example) it is the offensive team at the end of
    # that turn. True: the literal reading, the clock advances to 1. False: the turn of the steal
    # does not count.
    "clock_counts_steal_turn": True,
    # Move: "A dinosaur that has moved out-of-bounds ... cannot take actions for the remainder of the
    # turn", while a struck dinosaur "is returned to the edge of the play area if moved out-of-bounds"
    # with no such restriction. False: only the mover is barred (literal). True: struck ones too.
    "struck_out_of_bounds_cannot_act": False,
    # Swift Swimming: "When performing a Move action, place this dinosaur anywhere within water
    # terrain." Read as an option the player may take (False) or as replacing every Move (True).
    "swift_swimming_mandatory": False,
    # Foul Shots: "The fouled dinosaur may then attempt a Shoot or Dunk action". True: only the one(s)
    # on its card (a Velociraptor can attempt neither; declining counts as a miss: two foul shots).
    # False: either, whatever its card says.
    "fouled_shot_uses_card_actions": True,
    # Layup variant: "Instead of performing a Shoot action, a dinosaur that overlaps snow terrain may
    # perform a Move action". True: the dinosaur must be able to Shoot (ball in possession, Shoot on
    # its card). False: possession is enough.
    "layup_requires_shoot_action": True,
    # Ball Call: "At the end of the pass, if this dinosaur does not possess the ball, the ball is
    # considered a loose ball." When another dinosaur catches that pass: "loose" (literal: loose ball
    # whoever caught it) or "as_pass" (the Pass rules apply: a friendly catch keeps it, a defensive
    # catch is a turnover); either way the Shoot is cancelled. A pass out of bounds stays a turnover.
    "ball_call_caught_by_other": "loose",
    # Scoreboard Reference: "If a team exceeds the maximum score on the score track, then flip the
    # scoring token over to its opposite side and return it to the '0' space on the score track."
    # The rulebook does not print the track's maximum. ASSUMED 9: a published description of the
    # components says the scoring tokens have "a 10 on the other side to allow for long games", i.e.
    # a 0-9 track. Set it to the printed maximum (a whole number >= 1) if your track differs.
    "score_track_max": 9,
}

INTEGERS = ("score_track_max",)  # options that are whole numbers >= 1, not true/false

CHOICES = {
    "three_point_judged_by": ("centre", "whole_disc", "any_part"),
    "out_of_bounds_reset": ("step7", "full"),
    "ball_call_caught_by_other": ("loose", "as_pass"),
}

VARIANTS = ("exhibition", "backboard", "layup")


def resolve_options(options: dict | None) -> dict:
    out = dict(DEFAULTS)
    for key, value in (options or {}).items():
        if key not in DEFAULTS:
            raise SetupError(f"unknown option {key!r}; options are {sorted(DEFAULTS)}")
        allowed = CHOICES.get(key)
        if key in INTEGERS:
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise SetupError(f"option {key!r} is a whole number >= 1, got {value!r}")
            out[key] = value
            continue
        if allowed is not None and value not in allowed:
            raise SetupError(f"option {key!r} must be one of {list(allowed)}, got {value!r}")
        if allowed is None and not isinstance(value, bool):
            raise SetupError(f"option {key!r} is true or false, got {value!r}")
        out[key] = value
    return out


def resolve_variants(variants) -> list[str]:
    out = []
    for v in variants or ():
        key = str(v).lower().replace(" ", "_").replace("-", "_")
        key = {"exhibition_match": "exhibition"}.get(key, key)
        if key not in VARIANTS:
            raise SetupError(f"unknown variant {v!r}; variants are {list(VARIANTS)}")
        if key not in out:
            out.append(key)
    return sorted(out)
