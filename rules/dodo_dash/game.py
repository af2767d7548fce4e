"""The Dodo Dash ``Game``: actions in, events out, all state plain data in ``self.state``.

The engine keeps a queue of small steps (``state["queue"]``) and runs it until it needs a decision
or a fact from the table (``state["pending"]``): the Scheming choices, a Reaction window, a die
(with ``dice='table'``), the racers a projectile touched, which cards to discard, a target, or
whether to use an optional ("may") power. ``legal_actions()`` lists what would answer it.
"""

from __future__ import annotations

from itertools import combinations

from rules.core import GameBase, Outcome
from rules.dodo_dash.actions import (
    ACTIONS, CardNotInHand, Choose, Correct, Decide, Discard, DodoDashError, EndReactions, Hits, NotYourDecision,
    PlayReaction, Roll, Target, UsePower,
)
from rules.dodo_dash.effects import EffectsMixin
from rules.dodo_dash.flow import FlowMixin

_WAITING = {
    "choose": "the Scheming phase choices",
    "reactions": "Reaction cards (or EndReactions)",
    "roll": "a die roll",
    "hits": "the racers the projectile touched",
    "discard": "a damage discard",
    "target": "a target",
    "may": "a yes/no for an optional power",
}


class Game(FlowMixin, EffectsMixin, GameBase):
    GAME = "dodo-dash"
    ACTIONS = ACTIONS

    def __init__(self, state: dict):
        super().__init__(state)
        self._events = []

    def _restore_extra(self) -> None:
        self._events = []

    # -- lookups -----------------------------------------------------------------------------------
    def index(self, pid: str) -> int:
        for i, R in enumerate(self.state["racers"]):
            if R["id"] == pid:
                return i
        raise DodoDashError(f"there is no racer {pid!r}")

    def racer(self, pid: str) -> dict:
        return self.state["racers"][self.index(pid)]

    def _expect(self, kind: str, player: str | None = None) -> dict:
        st = self.state
        if st["phase"] == "over":
            raise DodoDashError("End of Race: the race is over")
        p = st["pending"]
        if p is None or p["kind"] != kind:
            now = _WAITING.get(p["kind"], p["kind"]) if p else "nothing"
            raise NotYourDecision(f"the engine is waiting for {now}, not for this action")
        if player is not None and p.get("player") not in (None, player):
            raise NotYourDecision(f"the engine is waiting for {p['player']}, not {player}")
        return p

    # -- push ----------------------------------------------------------------------------------------
    def _apply(self, action) -> list:
        self._events = []
        getattr(self, "_act_" + type(action).__name__)(action)
        self._run()
        return self._events

    def _run(self) -> None:
        st = self.state
        for _ in range(100000):
            if st["phase"] == "over":
                st["queue"] = []
                st["pending"] = None
                return
            if st["pending"] is not None or not st["queue"]:
                return
            step = st["queue"].pop(0)
            getattr(self, "_s_" + step["op"])(step)
        raise RuntimeError("Dodo Dash engine: a step loop did not terminate")

    def _act_Choose(self, a: Choose):
        self._expect("choose")
        st = self.state
        r = self.index(a.player)
        R = st["racers"][r]
        if not R["human"]:
            raise NotYourDecision("Solo Mode: Challengers draw from their own deck; they do not choose")
        if st["played"][r] is not None:
            raise DodoDashError(f"Scheming Phase: {a.player} already chose a card this round")
        if a.card not in R["hand"]:
            raise CardNotInHand(f"Scheming Phase: {a.player} has no {a.card!r} in hand")
        if self.cat["cards"][a.card]["type"] == "reaction" and self._has_schemable(R):
            raise CardNotInHand("Scheming Phase: choose a Normal, Aggressive or Dash card "
                                "(Reaction cards are played during the Running phase)")
        R["hand"].remove(a.card)
        st["played"][r] = a.card
        self.ev("chosen", racer=a.player)
        if self.all_chosen():
            st["pending"] = None
            self.front([{"op": "reveal"}])

    def _has_schemable(self, R) -> bool:
        return any(self.cat["cards"][c]["type"] != "reaction" for c in R["hand"])

    def _act_PlayReaction(self, a: PlayReaction):
        self._expect("reactions")
        r = self.index(a.player)
        R = self.state["racers"][r]
        if a.card not in R["hand"]:
            raise CardNotInHand(f"Reaction cards: {a.player} has no {a.card!r} in hand")
        if self.cat["cards"][a.card]["type"] != "reaction":
            raise CardNotInHand(f"Reaction cards: {a.card!r} is not a Reaction card")
        if (r, "card", a.card) not in self.reaction_options():
            raise DodoDashError("Blocking: there is no effect left to cancel (blocking cancels effects, "
                                "not Speed values)")
        self.play_reaction(r, a.card)

    def _act_UsePower(self, a: UsePower):
        self._expect("reactions")
        r = self.index(a.player)
        if (r, "power", a.power) not in self.reaction_options():
            raise DodoDashError(f"Activation: {a.player} holds no Dodo-Idol Power {a.power!r} usable now")
        self.use_power(r, a.power)

    def _act_EndReactions(self, a: EndReactions):
        self._expect("reactions")
        self.state["queue"].pop(0)  # the window step
        self.state["pending"] = None

    def _act_Roll(self, a: Roll):
        self._expect("roll")
        if not isinstance(a.value, int) or not 1 <= a.value <= 6:
            raise DodoDashError("a die shows 1 to 6")
        self.state["queue"][0]["rolls"].append(a.value)
        self.state["pending"] = None

    def _act_Hits(self, a: Hits):
        p = self._expect("hits")
        st = self.state
        ids = list(a.racers)
        if len(set(ids)) != len(ids):
            raise DodoDashError("Projectiles: list each racer touched once, in the order touched")
        thrower = self.index(p["by"])
        for pid in ids:
            i = self.index(pid)
            if p["projectile"] == "egg" and st["racers"][i]["pos"] == st["racers"][thrower]["pos"]:
                raise DodoDashError("Egg: racers on the thrower's hex are set aside and cannot be hit")
        st["queue"][0]["hits"] = ids
        st["pending"] = None

    def _act_Discard(self, a: Discard):
        p = self._expect("discard", a.player)
        hand = list(self.racer(a.player)["hand"])
        if len(a.cards) != p["n"]:
            raise DodoDashError(f"Damage: discard exactly {p['n']} card(s)")
        for c in a.cards:
            if c not in hand:
                raise CardNotInHand(f"Damage: {a.player} has no (more) {c!r} in hand")
            hand.remove(c)
        self.state["queue"][0]["cards"] = list(a.cards)
        self.state["pending"] = None

    def _act_Target(self, a: Target):
        p = self._expect("target", a.player)
        if a.target not in p["options"]:
            raise DodoDashError(f"choose one of {p['options']}")
        self.state["queue"][0]["chosen"] = self.index(a.target)
        self.state["pending"] = None

    def _act_Decide(self, a: Decide):
        self._expect("may", a.player)
        self.state["queue"][0]["use"] = bool(a.use)
        self.state["pending"] = None

    def _act_Correct(self, a: Correct):
        st = self.state
        if st["phase"] == "over":
            raise DodoDashError("End of Race: the race is over")
        R = self.racer(a.racer)
        tr = self.track
        if not isinstance(a.position, int) or tr.clamp(a.position) != a.position:
            raise DodoDashError(f"Correct: position {a.position!r} is not on the track")
        self.ev("corrected", racer=a.racer, was=R["pos"], to=a.position)
        R["pos"] = a.position

    # -- queries -----------------------------------------------------------------------------------
    def legal_actions(self) -> list:
        st = self.state
        p = st["pending"]
        if st["phase"] == "over" or p is None:
            return []
        k = p["kind"]
        if k == "choose":
            out = []
            for i, R in enumerate(st["racers"]):
                if R["human"] and st["played"][i] is None:
                    ok = self._has_schemable(R)
                    for c in sorted(set(R["hand"])):
                        if not ok or self.cat["cards"][c]["type"] != "reaction":
                            out.append(Choose(R["id"], c))
            return out
        if k == "reactions":
            out = [EndReactions()]
            for i, kind, ident in self.reaction_options():
                pid = self.rid(i)
                out.append(PlayReaction(pid, ident) if kind == "card" else UsePower(pid, ident))
            return out
        if k == "roll":
            return [Roll(v) for v in range(1, 7)]
        if k == "hits":
            # Representative facts: no hit, each single racer, and everyone in race order (any
            # ordered list of distinct racers is legal; egg: not the thrower's hex).
            thrower = self.index(p["by"])
            ok = [R["id"] for R in sorted(st["racers"], key=lambda R: -R["pos"])
                  if p["projectile"] != "egg" or R["pos"] != st["racers"][thrower]["pos"]]
            out = [Hits(())] + [Hits((x,)) for x in ok]
            if len(ok) > 1:
                out.append(Hits(tuple(ok)))
            return out
        if k == "discard":
            hand = sorted(self.racer(p["player"])["hand"])
            return [Discard(p["player"], c) for c in sorted(set(combinations(hand, p["n"])))]
        if k == "target":
            return [Target(p["player"], t) for t in p["options"]]
        if k == "may":
            return [Decide(p["player"], True), Decide(p["player"], False)]
        return []

    def outcome(self) -> Outcome | None:
        res = self.state["result"]
        if res is None:
            return None
        rs = self.state["racers"]
        if self.state["mode"] == "treasure":
            scores = {R["id"]: R["tokens"] + len(R["taken"]) for R in rs}
        else:
            scores = {R["id"]: R["pos"] for R in rs}
        return Outcome(tuple(res["winners"]), res["reason"], scores)

    def positions(self) -> dict:
        """Each racer's position: ``{id: {"progress": p, "hex": printed hex index}}``."""
        tr = self.track
        return {R["id"]: {"progress": R["pos"], "hex": tr.hex(R["pos"])} for R in self.state["racers"]}

    def progress_for_hex(self, racer: str, hex_index: int) -> int:
        """The progress value of printed hex ``hex_index`` nearest to where ``racer`` is now (what a
        camera reading needs before a :class:`Correct`)."""
        tr = self.track
        here = self.racer(racer)["pos"]
        if not tr.loop:
            return tr.progress_of(hex_index)
        d = (tr.progress_of(hex_index) - here) % tr.size
        return here + (d if d <= tr.size // 2 else d - tr.size)

    @property
    def pending(self) -> dict | None:
        return self.state["pending"]

    def summary(self) -> str:
        st = self.state
        tr = self.track
        racers = ", ".join(
            f"{R['id']}@{R['pos']}" + (f"(hex {tr.hex(R['pos'])})" if tr.loop and R["pos"] != tr.hex(R["pos"]) else "")
            + f"[{len(R['hand'])}]" + (f" T{len(R['taken'])}" if st["mode"] == "treasure" else "")
            for R in st["racers"])
        if st["phase"] == "over":
            return f"round {st['round']} over: winners {', '.join(st['result']['winners'])} · {racers}"
        p = st["pending"]
        wait = _WAITING.get(p["kind"], p["kind"]) if p else "nothing"
        who = f" from {p['player']}" if p and p.get("player") else ""
        return f"round {st['round']} {st['phase']} · {racers} · waiting for {wait}{who}"
