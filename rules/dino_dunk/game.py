"""The Dino Dunk game: phases, turns, activations, the shot clock, possession, resets and the end.

All state is plain JSON in ``self.state`` (see ``new_state``). The game waits for exactly one thing
at a time (``pending()``): a setup choice, an activation, an ability choice, or a fact about a flick.
Action frames form a stack: a free action granted by an ability (Roar and Run, Tail Whip, Ball
Call...) is pushed above the action that granted it, and the one below resumes when it is done.
"""

from __future__ import annotations

from rules.core import Event, GameBase, Outcome

from . import abilities
from .actions import (ACTIONS, Activate, ChooseCarrier, ChooseRoster, DunkResult, EndTurn, FlipBall,
                      MoveResult, PassResult, PlacementDone, ShotResult, Skip, UseAbility)
from .cards import check_roster, load_catalogue, profile
from .errors import RuleViolation, WrongTimeError
from .legal import legal_actions as _legal_actions
from .resolve import RESOLVERS
from .variants import Rules

SHOT_CLOCK_TURNS = 6  # "The offensive team has six turns in order to score."
FACT_FOR = {"move": MoveResult, "layup": MoveResult, "pass": PassResult, "shoot": ShotResult,
            "foul_shot": ShotResult, "dunk": DunkResult}
ACTIVATION_ACTIONS = ("move", "pass", "shoot", "dunk", "layup", "soar")


class Game(GameBase):
    GAME = "dino-dunk"
    ACTIONS = ACTIONS

    def __init__(self, state: dict):
        super().__init__(state)
        self._events: list[Event] = []

    def _restore_extra(self) -> None:
        self._events = []

    # -- queries ------------------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        return Rules.for_state(self.state)

    @staticmethod
    def side_of(pid: str) -> str:
        return pid.split(":", 1)[0]

    def other(self, side: str) -> str:
        a, b = self.state["sides"]
        return b if side == a else a

    def piece(self, pid: str) -> dict:
        try:
            return self.state["pieces"][pid]
        except KeyError:
            raise RuleViolation(f"no dinosaur {pid!r} in this game; pieces are {sorted(self.state['pieces'])}") from None

    def has_ability(self, pid: str, name: str) -> bool:
        return name in self.piece(pid)["abilities"]

    def can_act(self, pid: str) -> bool:
        p = self.piece(pid)
        return p["status"] == "on_mat" and not p["stunned"] and not p["out_this_turn"]

    def top(self) -> dict | None:
        return self.state["stack"][-1] if self.state["stack"] else None

    def pending(self) -> dict:
        """What the game waits for: ``{"kind", "side", ...}``; kind is one of "roster", "flip",
        "carrier", "placement", "activation", "ability", "fact", "over". For a fact, ``side`` is the
        side whose flick it is, ``expects`` the fact class name."""
        st = self.state
        phase = st["phase"]
        if phase == "over":
            return {"kind": "over", "side": None}
        if phase == "choose_rosters":
            return {"kind": "roster", "side": [s for s in st["sides"] if st["rosters"][s] is None]}
        if phase == "flip":
            return {"kind": "flip", "side": None}
        if phase == "reset":
            r = st["reset"]
            if r["step"] == "carrier":
                return {"kind": "carrier", "side": r["side"]}
            if r["step"] == "carrier_ability":
                return {"kind": "ability", "offers": r["offers"], "side": self.side_of(r["offers"][0]["piece"])}
            side = r["side"] if r["step"] == "offense_place" else self.other(r["side"])
            return {"kind": "placement", "side": side}
        top = self.top()
        if top is None:
            return {"kind": "activation", "side": st["turn"]["side"]}
        if top["stage"] == "result":
            side = self.side_of(top["piece"]) if top["piece"] else top["context"]["shooting_side"]
            return {"kind": "fact", "expects": FACT_FOR[top["action"]].__name__, "piece": top["piece"],
                    "action": top["action"], "side": side}
        return {"kind": "ability", "offers": top["offers"], "side": self._offer_side(top)}

    def _offer_side(self, frame) -> str | None:
        offers = frame["offers"]
        return self.side_of(offers[0]["piece"]) if offers else None

    def offers(self) -> list[dict]:
        if self._reset_offered():
            return list(self.state["reset"]["offers"])
        top = self.top()
        return list(top["offers"]) if top and top["stage"] in ("before", "after") else []

    def legal_actions(self) -> list:
        return _legal_actions(self)

    def outcome(self) -> Outcome | None:
        st = self.state
        if st["phase"] != "over":
            return None
        return Outcome(winners=(st["winner"],), reason="target_score", scores=dict(st["score"]))

    def summary(self) -> str:
        st = self.state
        a, b = st["sides"]
        score = f"{a} {st['score'][a]} - {b} {st['score'][b]} (to {st['target_score']})"
        if st["phase"] in ("choose_rosters", "flip"):
            return f"setup: {st['phase']} | {score}"
        ball = st["ball"]
        where = "loose" if ball["loose"] else (ball["carrier"] or "off the mat")
        if ball["on_top"]:
            where += " (on top)"
        clock = f"clock {st['clock']['side']} {st['clock']['space']}/{SHOT_CLOCK_TURNS}"
        parts = [score, f"offense {st['offense']}", clock, f"ball {where}"]
        if st["turn"]:
            parts.append(f"turn {st['turn']['number']} {st['turn']['side']} activated {st['turn']['activated']}")
        removed = sorted(p for p, v in st["pieces"].items() if v["status"] == "removed")
        if removed:
            parts.append(f"removed {removed}")
        pend = self.pending()
        detail = pend.get("expects") or pend.get("side") or ""
        if pend["kind"] == "ability":
            detail = ",".join(f"{o['piece']}:{o['ability']}" for o in pend["offers"])
        if st["phase"] == "over":
            parts.append(f"winner {st['winner']}")
        else:
            parts.append(f"waiting {pend['kind']} {detail}".rstrip())
        return " | ".join(parts)

    # -- state changes used by resolve/abilities ----------------------------------------------
    def emit(self, kind: str, **data) -> None:
        self._events.append(Event(kind, data))

    def record_positions(self, positions) -> None:
        for entry in positions or ():
            if len(entry) != 3:
                raise RuleViolation("positions are (piece_id, x_mm, y_mm) triples in mat mm")
            pid, x, y = entry
            self.state["positions"][pid] = [x, y]

    def give_ball(self, pid: str) -> None:
        ball = self.state["ball"]
        if ball["carrier"] != pid:
            ball["on_top"] = False
        ball.update(carrier=pid, loose=False)

    def make_loose(self, reason: str, **data) -> None:
        ball = self.state["ball"]
        ball.update(carrier=None, loose=True, on_top=False)
        self.emit("loose_ball", reason=reason, **data)

    def _set_clock(self, side: str, space: int, reason: str) -> None:
        self.state["clock"] = {"side": side, "space": space}
        self.emit("clock", side=side, space=space, reason=reason)

    def advance_clock(self, reason: str) -> None:
        c = self.state["clock"]
        self._set_clock(c["side"], min(c["space"] + 1, SHOT_CLOCK_TURNS), reason)

    def clock_back(self) -> None:
        # "move the possession token to the previous space on the shot clock"; "If the possession
        # token is already on the starting space of the shot clock, do not move the possession token".
        c = self.state["clock"]
        if c["space"] > 0:
            self._set_clock(c["side"], c["space"] - 1, "opposing_foul")

    def _new_offense(self, side: str, reason: str) -> None:
        # "Whenever the defensive team gains possession of the ball from a turnover, the defensive team
        # then becomes the offensive team and moves the possession token to the starting space".
        self.state["offense"] = side
        self.emit("turnover", to=side, reason=reason)
        self._set_clock(side, 0, "turnover")

    def turnover_in_place(self, side: str, reason: str) -> None:
        """A steal or interception: the dinosaur keeps the ball where it is; play goes on."""
        self._new_offense(side, reason)
        turn = self.state["turn"]
        if turn and turn["side"] == side:
            turn["stole"] = True

    def out_of_bounds_turnover(self, side: str, reason: str) -> None:
        """"The defensive team then chooses a player to gain possession of the ball according to step
        7" (option out_of_bounds_reset)."""
        if self.state["options"]["out_of_bounds_reset"] == "full":
            self.full_reset(side, reason)
            return
        self._new_offense(side, reason)
        self.state["ball"].update(carrier=None, loose=False, on_top=False)
        self.state["phase"] = "reset"
        self.state["reset"] = {"side": side, "step": "carrier", "full": False}

    def remove_for_foul(self, pid: str) -> None:
        p = self.piece(pid)
        p.update(status="removed", removed_on_turn=self.state["turn"]["number"], out_this_turn=False)
        self.emit("removed", piece=pid, returns="at the end of its team's next turn")

    def score(self, side: str, points: int, how: str, scorer: str | None = None, reset: bool = True) -> bool:
        """Add points; end the game at the target ("The game immediately ends once one team has
        scored a predetermined number of points"); else reset with the other team on offense.
        Returns True when the game ended."""
        st = self.state
        st["score"][side] += points
        self.emit("score", side=side, points=points, how=how, scorer=scorer, total=st["score"][side])
        self._move_score_token(side, points)
        if st["score"][side] >= st["target_score"]:
            st["phase"] = "over"
            st["winner"] = side
            st["stack"] = []
            st["reset"] = None
            self.emit("game_over", winner=side, scores=dict(st["score"]))
            return True
        if reset:
            self.full_reset(self.other(side), reason=how)
        return False

    def _move_score_token(self, side: str, points: int) -> None:
        """Scoreboard Reference: "If a team exceeds the maximum score on the score track, then flip the
        scoring token over to its opposite side and return it to the '0' space on the score track."
        The numeric score stays in ``state["score"]``; ``state["score_tokens"]`` is where the token
        sits and which side shows ("logo" or "flipped"). Choice: the token counts on from '0' with the
        points left over, one space per point, so that space + (track max + 1) x flips is the score
        (the flipped side shows "10" on a 0-9 track); option score_track_max is the maximum."""
        st = self.state
        top = st["options"]["score_track_max"]
        token = st["score_tokens"][side]
        flipped = 0
        for _ in range(points):
            if token["space"] < top:
                token["space"] += 1
                continue
            token["space"] = 0
            token["side"] = "flipped" if token["side"] == "logo" else "logo"
            token["flips"] += 1
            flipped += 1
        for _ in range(flipped):
            self.emit("score_token_flipped", side=side, token_side=token["side"], space=token["space"],
                      flips=token["flips"], total=st["score"][side], track_max=top)

    def full_reset(self, offense: str, reason: str, turn_ended: bool = False) -> None:
        """Reset the play area according to steps 7-11 with ``offense`` in possession. A turn in
        progress is cut short (its end-of-turn upkeep runs, the clock does not advance)."""
        st = self.state
        if st["turn"] is not None and not turn_ended:
            self._turn_upkeep(st["turn"])
        st["stack"] = []
        if st["options"]["fouled_out_return_on_reset"]:
            for pid, p in sorted(st["pieces"].items()):
                if p["status"] == "removed":
                    p.update(status="on_mat", removed_on_turn=None)
                    self.emit("returned", piece=pid, reason="reset")
        st["ball"] = {"carrier": None, "loose": False, "on_top": False}
        if st["offense"] != offense:
            self.emit("turnover", to=offense, reason=reason)
        st["offense"] = offense
        self._set_clock(offense, 0, "reset")
        st["phase"] = "reset"
        st["reset"] = {"side": offense, "step": "carrier", "full": True}
        self.emit("reset", offense=offense, reason=reason)

    def start_shooting_foul(self, carrier: str, fouling_side: str) -> None:
        """Foul Shots: "The fouled dinosaur may then attempt a Shoot or Dunk action from its position
        before the foul" (option fouled_shot_uses_card_actions)."""
        p = self.piece(carrier)
        choices = ["shoot", "dunk"]
        if self.state["options"]["fouled_shot_uses_card_actions"]:
            choices = [c for c in choices if c in p["actions"]]
        self.state["stack"] = []
        frame = {"piece": carrier, "action": "shooting_foul", "free": True, "source": "shooting_foul",
                 "stage": "before", "offers": [], "context": {"fouling_side": fouling_side}}
        if choices:
            frame["offers"] = [abilities.make_offer(carrier, "shooting_foul", choices=choices)]
            self.state["stack"].append(frame)
        else:
            self.start_foul_shots(2, self.side_of(carrier), fouling_side)

    def start_foul_shots(self, count: int, shooting_side: str, then_possession: str) -> None:
        """"remove all dinosaur tokens within the three-point line and place the ball token behind the
        foul line. The offensive team may then perform a Shoot action, with a successful score earning
        them 1 point." """
        self.state["stack"] = [{"piece": None, "action": "foul_shot", "free": True, "source": "foul",
                                "stage": "result", "offers": [],
                                "context": {"remaining": count, "shooting_side": shooting_side,
                                            "then_possession": then_possession}}]
        self.state["ball"].update(carrier=None, loose=False, on_top=False)
        self.emit("foul_shots", side=shooting_side, count=count)

    def start_action(self, pid: str, action: str, free: bool, source: str, context: dict | None = None) -> None:
        if action == "soar":
            # 50 Foot Vertical Soar: the ball sits on top "until the beginning of your next turn".
            self.state["ball"]["on_top"] = True
            self.emit("soar", piece=pid)
            return
        frame = {"piece": pid, "action": action, "free": free, "source": source, "stage": "before",
                 "offers": [], "context": dict(context or {})}
        self.state["stack"].append(frame)
        frame["offers"] = abilities.before_offers(self, frame)
        self.emit("action", piece=pid, action=action, free=free, source=source)

    # -- turns ---------------------------------------------------------------------------------
    def _start_turn(self, side: str) -> None:
        st = self.state
        number = st["turn"]["number"] + 1 if st["turn"] else 1
        st["turn"] = {"number": number, "side": side, "activated": [], "stole": False}
        ball = st["ball"]
        if ball["on_top"] and ball["carrier"] and self.side_of(ball["carrier"]) == side:
            ball["on_top"] = False
            self.emit("ball_placed_adjacent", piece=ball["carrier"], reason="soar_ends")
        self.emit("turn", number=number, side=side)

    def _turn_upkeep(self, turn: dict) -> None:
        """End-of-turn upkeep: fouled-out dinosaurs of this side come back "placed along a sideline of
        the game mat within water terrain at the end of the fouling team's next turn" (the turn of the
        foul does not count); stuns and out-of-bounds bars end with the turn."""
        for pid, p in sorted(self.state["pieces"].items()):
            if (p["status"] == "removed" and self.side_of(pid) == turn["side"]
                    and p["removed_on_turn"] != turn["number"]):
                p.update(status="on_mat", removed_on_turn=None)
                self.emit("returned", piece=pid, reason="sideline_water")
            p["stunned"] = False
            p["out_this_turn"] = False

    def _end_turn(self) -> None:
        st = self.state
        turn = st["turn"]
        side = turn["side"]
        ball = st["ball"]
        # Shot Clock: "At the end of the offensive team's turn, advance the possession token one space";
        # Loose Ball: "Do not advance the possession token when there is a loose ball."
        if side == st["offense"] and not ball["loose"] and ball["carrier"] is not None:
            if not (turn["stole"] and not st["options"]["clock_counts_steal_turn"]):
                self.advance_clock("end_of_turn")
        self._turn_upkeep(turn)
        self.emit("end_turn", number=turn["number"], side=side)
        if st["clock"]["space"] >= SHOT_CLOCK_TURNS:
            # "the result is a turnover ... Both teams then reset the play area according to steps 7-11".
            self.emit("shot_clock_expired", side=st["offense"])
            self.full_reset(self.other(st["offense"]), reason="shot_clock", turn_ended=True)
            return
        self._start_turn(self.other(side))

    def _continue(self) -> None:
        """Advance past everything that needs no input: finished frames, ended activations and turns."""
        st = self.state
        while st["phase"] == "play":
            top = self.top()
            if top is None:
                if len(st["turn"]["activated"]) >= 2:
                    self._end_turn()
                    continue
                return
            if top["stage"] == "done":
                st["stack"].pop()
                continue
            if top["stage"] == "before" and not top["offers"]:
                if top["action"] == "shoot" and st["ball"]["carrier"] != top["piece"]:
                    # Ball Call's free pass did not reach this dinosaur: no Shoot without the ball.
                    top["stage"] = "done"
                    self.emit("shot_cancelled", piece=top["piece"], rule="Ball Call")
                    continue
                top["stage"] = "result"
                return
            if top["stage"] == "after" and not top["offers"]:
                top["stage"] = "done"
                continue
            return

    # -- dispatch -------------------------------------------------------------------------------
    def _apply(self, action) -> list[Event]:
        self._events = []
        st = self.state
        if st["phase"] == "over":
            raise WrongTimeError("Game End: the game is over")
        handler = getattr(self, "_do_" + type(action).__name__)
        handler(action)
        self._continue()
        events, self._events = self._events, []
        return events

    def _expect_phase(self, phase: str, what: str) -> None:
        if self.state["phase"] != phase:
            raise WrongTimeError(f"{what} is not expected now; waiting for {self.pending()['kind']}")

    def _do_ChooseRoster(self, a: ChooseRoster) -> None:
        self._expect_phase("choose_rosters", "ChooseRoster")
        st = self.state
        if a.side not in st["sides"]:
            raise RuleViolation(f"Game Setup step 3: unknown side {a.side!r}; sides are {st['sides']}")
        if st["rosters"][a.side] is not None:
            raise RuleViolation(f"Game Setup step 4: {a.side} has already chosen its five dinosaurs")
        catalogue = load_catalogue(st["card_overrides"])
        cards = check_roster(catalogue, st["teams"][a.side], a.cards)
        st["rosters"][a.side] = [c["id"] for c in cards]
        self.emit("roster_chosen", side=a.side)
        if all(st["rosters"][s] is not None for s in st["sides"]):
            self._reveal(catalogue)

    def _reveal(self, catalogue: dict) -> None:
        st = self.state
        exhibition = self.rules.exhibition_cards
        for side in st["sides"]:
            for cid in st["rosters"][side]:
                card = catalogue["cards"][cid]
                st["pieces"][f"{side}:{cid}"] = {
                    "card": cid, "name": card["name"], "size": card["size"],
                    **profile(catalogue, card, exhibition),
                    "status": "on_mat", "removed_on_turn": None, "stunned": False, "out_this_turn": False}
        st["phase"] = "flip"
        self.emit("rosters_revealed", rosters={s: list(st["rosters"][s]) for s in st["sides"]})

    def _do_FlipBall(self, a: FlipBall) -> None:
        self._expect_phase("flip", "FlipBall")
        if a.winner not in self.state["sides"]:
            raise RuleViolation(f"Game Setup step 6: unknown side {a.winner!r}")
        self.emit("ball_flip", winner=a.winner)
        self.state["offense"] = None
        self.full_reset(a.winner, reason="ball_flip")

    def _do_ChooseCarrier(self, a: ChooseCarrier) -> None:
        self._expect_phase("reset", "ChooseCarrier")
        r = self.state["reset"]
        if r["step"] != "carrier":
            raise WrongTimeError("Game Setup step 7: the ball carrier is already chosen")
        p = self.piece(a.piece)
        if self.side_of(a.piece) != r["side"]:
            raise RuleViolation(f"Game Setup step 7: {r['side']} (the offensive team) chooses one of its own dinosaurs")
        if p["status"] != "on_mat":
            raise RuleViolation(f"Fouling: {a.piece} was removed from the play area and cannot take the ball")
        self.give_ball(a.piece)
        self.emit("possession", piece=a.piece, by="setup_step_7")
        if self.has_ability(a.piece, "tail_fake"):
            # Tail Fake: "... or after gaining possession of the ball, this dinosaur may place their
            # tail token using standard placement rules." Step 7 gives it the ball: offered here.
            r["step"] = "carrier_ability"
            r["offers"] = [abilities.make_offer(a.piece, "tail_fake")]
            return
        self._carrier_chosen()

    def _carrier_chosen(self) -> None:
        """Step 7 done: a full reset goes on to step 8; a step-7-only turnover resumes play."""
        r = self.state["reset"]
        r.pop("offers", None)
        if r["full"]:
            r["step"] = "offense_place"
        else:
            self.state["phase"] = "play"
            self.state["reset"] = None

    def _reset_offer(self, a) -> None:
        """UseAbility / Skip for the ability offered to the step-7 ball carrier (Tail Fake)."""
        offer = self.state["reset"]["offers"][0]
        if isinstance(a, UseAbility):
            if (a.piece, a.ability) != (offer["piece"], offer["ability"]):
                raise RuleViolation(f"{a.ability} of {a.piece} is not offered now; offered: "
                                    f"['{offer['piece']}:{offer['ability']}']")
            self.emit("ability", piece=a.piece, ability=a.ability, target=a.target or None, choice=a.choice or None)
            abilities.ABILITIES[a.ability].use(self, offer, a)
        else:
            self.emit("skip", piece=offer["piece"])
        self._carrier_chosen()

    def _do_PlacementDone(self, a: PlacementDone) -> None:
        self._expect_phase("reset", "PlacementDone")
        st = self.state
        r = st["reset"]
        if r["step"] == "carrier":
            raise WrongTimeError("Game Setup step 7: choose the ball carrier first")
        if r["step"] == "carrier_ability":
            raise WrongTimeError("Tail Fake: use or skip the ability offered to the ball carrier first")
        side = r["side"] if r["step"] == "offense_place" else self.other(r["side"])
        if a.side != side:
            step = 8 if r["step"] == "offense_place" else 9
            raise RuleViolation(f"Game Setup step {step}: {side} places its dinosaurs now, not {a.side}")
        self.record_positions(a.positions)
        if not st["started"]:
            for pid, p in sorted(st["pieces"].items()):
                if self.side_of(pid) == side and "tail_guard" in p["abilities"]:
                    # Tail Guard: "This dinosaur begins the game by placing their tail token adjacent".
                    self.emit("placed", ability="tail_guard", piece=pid, token="tail",
                              within="adjacent (standard placement)")
        self.emit("placed_team", side=side)
        if r["step"] == "offense_place":
            r["step"] = "defense_place"
            return
        st["phase"] = "play"
        st["reset"] = None
        st["started"] = True
        # Step 11: "The offensive team then takes the first turn and activates two dinosaurs."
        self._start_turn(st["offense"])

    def _do_Activate(self, a: Activate) -> None:
        self._expect_phase("play", "Activate")
        st = self.state
        if self.top() is not None:
            raise WrongTimeError(f"finish the current action first (waiting for {self.pending()['kind']})")
        turn = st["turn"]
        p = self.piece(a.piece)
        if self.side_of(a.piece) != turn["side"]:
            raise RuleViolation(f"Turn Overview: it is {turn['side']}'s turn; {a.piece} cannot be activated")
        if a.piece in turn["activated"]:
            raise RuleViolation("Turn Overview: a team is not allowed to activate the same dinosaur twice "
                                "during the same turn")
        if len(turn["activated"]) >= 2:
            raise RuleViolation("Turn Overview: a team activates two dinosaurs on its turn")
        if p["status"] != "on_mat":
            raise RuleViolation(f"Fouling: {a.piece} was removed from the play area")
        if p["out_this_turn"]:
            raise RuleViolation(f"Move: {a.piece} moved out-of-bounds and cannot take actions for the "
                                "remainder of the turn")
        if p["stunned"]:
            raise RuleViolation(f"Fouling: {a.piece} is stunned and cannot take any actions this turn")
        self._action_allowed(a.piece, a.action, a.overlaps_snow)
        turn["activated"].append(a.piece)
        self.emit("activate", piece=a.piece, action=a.action)
        self.start_action(a.piece, a.action, free=False, source="activation")

    def _action_allowed(self, pid: str, action: str, overlaps_snow: bool = False) -> None:
        p = self.piece(pid)
        has_ball = self.state["ball"]["carrier"] == pid
        if action not in ACTIVATION_ACTIONS:
            raise RuleViolation(f"Actions: unknown action {action!r}; one of {list(ACTIVATION_ACTIONS)}")
        if action in ("move", "pass", "shoot", "dunk") and action not in p["actions"]:
            raise RuleViolation(f"Character Cards: {action} is not available to {pid} (grey icon)")
        if action == "shoot" and not has_ball:
            top_offer = abilities.ABILITIES["ball_call"].before(
                self, {"piece": pid, "action": "shoot", "context": {}}) if "ball_call" in p["abilities"] else None
            if top_offer is None:
                raise RuleViolation("Shoot: a dinosaur must be in possession of the ball to perform a Shoot action")
            return
        if action in ("pass", "dunk", "shoot", "soar", "layup") and not has_ball:
            raise RuleViolation(f"{action.capitalize()}: a dinosaur must be in possession of the ball")
        if action == "soar":
            if "fifty_foot_vertical_soar" not in p["abilities"] or "move" not in p["actions"]:
                raise RuleViolation(f"50 Foot Vertical Soar: {pid} does not have this ability")
        if action == "layup":
            by_ability = "layup" in p["abilities"]
            by_variant = self.rules.layup and overlaps_snow
            if not (by_ability or by_variant):
                raise RuleViolation("Layup: only with the Layup variant by a dinosaur that overlaps snow "
                                    "terrain, or with the Layup ability")
            if self.state["options"]["layup_requires_shoot_action"] and "shoot" not in p["actions"]:
                raise RuleViolation(f"Layup: 'Instead of performing a Shoot action' - {pid} cannot Shoot")

    def _do_UseAbility(self, a: UseAbility) -> None:
        if self._reset_offered():
            self._reset_offer(a)
            return
        self._expect_phase("play", "UseAbility")
        top = self.top()
        if top is None or top["stage"] not in ("before", "after"):
            raise WrongTimeError(f"no ability is offered now (waiting for {self.pending()['kind']})")
        match = [o for o in top["offers"] if o["piece"] == a.piece and o["ability"] == a.ability]
        if not match:
            offered = [f"{o['piece']}:{o['ability']}" for o in top["offers"]]
            raise RuleViolation(f"{a.ability} of {a.piece} is not offered now; offered: {offered}")
        offer = match[0]
        if offer["targets"] and a.target not in offer["targets"]:
            raise RuleViolation(f"{a.ability}: target must be one of {offer['targets']}")
        if offer["choices"] and a.choice not in offer["choices"]:
            raise RuleViolation(f"{a.ability}: choice must be one of {offer['choices']}")
        top["offers"].remove(offer)
        self.emit("ability", piece=a.piece, ability=a.ability, target=a.target or None, choice=a.choice or None)
        if a.ability == "shooting_foul":
            self.state["stack"].pop()
            self.start_action(a.piece, a.choice, free=True, source="shooting_foul",
                              context={"fouled_shot": True, "fouling_side": top["context"]["fouling_side"]})
            return
        abilities.ABILITIES[a.ability].use(self, offer, a)

    def _reset_offered(self) -> bool:
        st = self.state
        return st["phase"] == "reset" and st["reset"]["step"] == "carrier_ability"

    def _do_Skip(self, a: Skip) -> None:
        if self._reset_offered():
            self._reset_offer(a)
            return
        self._expect_phase("play", "Skip")
        top = self.top()
        if top is None or top["stage"] not in ("before", "after") or not top["offers"]:
            raise WrongTimeError("Skip: no ability is offered now")
        required = [o for o in top["offers"] if o["required"]]
        if required:
            raise RuleViolation(f"{required[0]['ability']} cannot be declined here")
        top["offers"] = []
        self.emit("skip", piece=top["piece"])
        if top["action"] == "shooting_foul":
            # Choice: declining the fouled shot counts as a miss ("otherwise if the result was a miss,
            # then the offensive team may attempt two foul shots").
            self.start_foul_shots(2, self.side_of(top["piece"]), top["context"]["fouling_side"])

    def _do_EndTurn(self, a: EndTurn) -> None:
        self._expect_phase("play", "EndTurn")
        if self.top() is not None:
            raise WrongTimeError("EndTurn: finish the current action first")
        if any(isinstance(x, Activate) for x in self.legal_actions()):
            raise RuleViolation("Turn Overview: a team must always activate two different dinosaurs on "
                                "their turn (EndTurn only when none can be activated)")
        self.emit("turn_cut_short", side=self.state["turn"]["side"])
        self._end_turn()

    def _do_fact(self, fact) -> None:
        self._expect_phase("play", type(fact).__name__)
        top = self.top()
        if top is None or top["stage"] != "result":
            raise WrongTimeError(f"{type(fact).__name__} is not expected now; waiting for {self.pending()['kind']}")
        expected = FACT_FOR[top["action"]]
        if not isinstance(fact, expected):
            raise WrongTimeError(f"waiting for a {expected.__name__} ({top['action']} by {top['piece']}), "
                                 f"not a {type(fact).__name__}")
        RESOLVERS[top["action"]](self, top, fact)

    _do_MoveResult = _do_PassResult = _do_ShotResult = _do_DunkResult = _do_fact
