"""The round: Scheming (reveal, Enraged), Running (turns, the Reaction chain), End of Round and End
of Race, plus the Challengers' moves and the Treasure Hunt round end."""

from __future__ import annotations

from rules.dodo_dash import treasure

CHALLENGER = {  # difficulty table: Paw, Claw, Bag, Wing at Easy / Normal / Hard
    "paw": {"easy": 1, "normal": 2, "hard": 3},
    "claw": {"easy": 2, "normal": 3, "hard": 4},
    "bag": {"easy": 1, "normal": 2, "hard": 3},
    "wing": {"easy": 4, "normal": 5, "hard": 6},
}


class FlowMixin:
    def aggressive_limit(self) -> int:
        return 2 if len(self.state["racers"]) <= 4 else 3

    def start_round(self) -> None:
        st = self.state
        st["round"] += 1
        st["phase"] = "scheming"
        st["played"] = [None] * len(st["racers"])
        st["enraged"] = [False] * len(st["racers"])
        st["active"] = None
        st["pending"] = {"kind": "choose"}
        self.ev("round", round=st["round"], first=self.rid(st["first"]))
        if self.all_chosen():  # nobody holds a card (every card is out of reach): reveal at once
            st["pending"] = None
            self.front([{"op": "reveal"}])

    # -- Scheming -------------------------------------------------------------------------------
    def _s_reveal(self, step):
        st = self.state
        rs = st["racers"]
        for i, R in enumerate(rs):
            if not R["human"]:  # Challengers draw the top card of their own Movement deck
                st["played"][i] = R["hand"].pop(0) if R["hand"] else None
        self.ev("reveal", cards={R["id"]: st["played"][i] for i, R in enumerate(rs)})
        aggressive = [i for i, c in enumerate(st["played"]) if c and self.cat["cards"][c]["type"] == "aggressive"]
        if len(aggressive) > self.aggressive_limit():
            for i in aggressive:
                st["enraged"][i] = True
            self.ev("enraged", racers=[self.rid(i) for i in aggressive], limit=self.aggressive_limit())
        st["phase"] = "running"
        steps = [{"op": "triggers", "when": "after_reveal"}]
        steps += [{"op": "turn", "r": i} for i in self.order()]
        steps.append({"op": "end_of_round"})
        self.front(steps)

    def _s_triggers(self, step):
        self.front(self.trigger_steps(step["when"]))

    def trigger_steps(self, when, only=None) -> list[dict]:
        """Abilities and powers that fire at the same time resolve in turn order from the first
        player (Activation Order); ``only`` restricts them to some racers; ``when`` is a trigger
        name or a dict {racer index: trigger name}."""
        st = self.state
        steps = []
        per = when if isinstance(when, dict) else None
        for i in self.order():
            R = st["racers"][i]
            if not R["human"] or (only is not None and i not in only) or (per is not None and i not in per):
                continue  # Challengers resolve no abilities or powers
            if per is not None:
                when = per[i]
            ab = self.cat["racer_cards"][R["racer"]].get("ability")
            if ab and ab.get("trigger") == when:
                steps.append({"op": "ability", "r": i, "power": None})
            for p in R["powers"]:
                if self.cat["power_cards"][p].get("trigger") == when:
                    steps.append({"op": "ability", "r": i, "power": p})
        return steps

    def all_chosen(self) -> bool:
        """Every human has a card face down (a human with no card at all plays none this round)."""
        st = self.state
        return all(st["played"][i] is not None or not R["hand"]
                   for i, R in enumerate(st["racers"]) if R["human"])

    def _s_ability(self, step):
        st = self.state
        R = st["racers"][step["r"]]
        d = self.cat["power_cards"][step["power"]] if step["power"] else self.cat["racer_cards"][R["racer"]]["ability"]
        if step["power"] and step["power"] not in R["powers"]:
            return
        if d.get("may") and "use" not in step:
            self.wait(step, {"kind": "may", "player": R["id"], "what": step["power"] or R["racer"]})
            return
        if d.get("may") and not step["use"]:
            return
        self.ev("ability", racer=R["id"], what=step["power"] or R["racer"])
        if step["power"] and d.get("use", "once") == "once":
            R["powers"].remove(step["power"])
            st["power_deck"].append(step["power"])  # used: back under the Dodo-Idol deck
        self.front(self.fx_steps(d.get("effects", []), step["r"], {}, "ability"))

    # -- Running ----------------------------------------------------------------------------------
    def _s_turn(self, step):
        st = self.state
        r = step["r"]
        st["active"] = r
        self.ev("turn", racer=self.rid(r), card=st["played"][r])
        self.front([
            {"op": "speed", "r": r},
            {"op": "open_chain", "r": r},
            {"op": "window", "stage": "effect"},
            {"op": "resolve_chain"},
            {"op": "window", "stage": "after"},
            {"op": "resolve_chain"},
            {"op": "discard_played", "r": r},
            {"op": "recover"},
        ])

    def _s_speed(self, step):
        st = self.state
        r = step["r"]
        R = st["racers"][r]
        card = st["played"][r]
        if card is None:
            return
        c = self.cat["cards"][card]
        if R["human"]:
            if c["speed"] == "die":
                got = self.rolls(step, 1, "speed")
                if got is None:
                    return
                speed = got[0]
            else:
                speed = c["speed"]
            if st["mode"] == "treasure":
                speed += self.cat["boost_mods"][R["boost"]]
        else:
            speed = self.challenger_speed(step, R, c)
            if speed is None:
                return
        self.ev("speed", racer=R["id"], speed=speed)
        self.front([{"op": "move", "r": r, "n": speed, "cause": "speed"},
                    {"op": "after_speed", "r": r, "n": speed}])

    def challenger_speed(self, step, R, c):
        icon, diff = c["icon"], R["difficulty"]
        k = CHALLENGER[icon][diff]
        if icon == "bag":
            got = self.rolls(step, k, "challenger")
            return None if got is None else sum(got)
        if icon == "wing":
            return k
        if c["speed"] == "die":
            got = self.rolls(step, 1, "speed")
            if got is None:
                return None
            base = got[0]
        else:
            base = c["speed"]
        return base + k if icon == "paw" else base * k

    def _s_after_speed(self, step):
        st = self.state
        r = step["r"]
        card = st["played"][r]
        if st["racers"][r]["human"] and card and self.cat["cards"][card]["type"] == "normal" \
                and self.zone_tile(r, "normal_double"):
            self.ev("zone", racer=self.rid(r), zone="normal_double")
            self.front([{"op": "move", "r": r, "n": step["n"], "cause": "trap"}])

    def _s_open_chain(self, step):
        st = self.state
        r = step["r"]
        R = st["racers"][r]
        card = st["played"][r]
        item = {"owner": r, "card": card, "power": None, "effects": [], "canceled": False, "in_play": False}
        if card is not None:
            c = self.cat["cards"][card]
            if not R["human"]:
                if c["icon"] == "claw":
                    item["effects"] = [{"op": "damage", "target": "humans", "n": 2}]
            elif c["type"] != "reaction":  # a Reaction played face down counts for its Speed only
                item["effects"] = list(c["effects"])
            if st["enraged"][r] and item["effects"]:
                if R["human"] and self.zone_tile(r, "aggressive_ignores_enraged"):
                    self.ev("zone", racer=R["id"], zone="aggressive_ignores_enraged")
                else:
                    item["canceled"] = True
                    self.ev("canceled", racer=R["id"], card=card, by="enraged")
        st["chain"] = [item]

    def reaction_options(self) -> list[tuple[int, str, str]]:
        """(racer, 'card'|'power', id) that may be played into the open window now."""
        st = self.state
        chain = st["chain"]
        cancelable = bool(chain) and not chain[-1]["canceled"] and bool(chain[-1]["effects"])
        out = []
        for i in self.order():
            R = st["racers"][i]
            if not R["human"]:
                continue
            for card in sorted(set(R["hand"])):
                c = self.cat["cards"][card]
                if c["type"] != "reaction":
                    continue
                if any(e["op"] == "cancel" for e in c["effects"]) and not cancelable:
                    continue
                out.append((i, "card", card))
            for p in sorted(set(R["powers"])):
                if self.cat["power_cards"][p].get("trigger") == "reaction":
                    out.append((i, "power", p))
        return out

    def _s_window(self, step):
        if self.reaction_options():
            self.wait(step, {"kind": "reactions", "stage": step["stage"]})

    def play_reaction(self, r: int, card: str) -> None:
        st = self.state
        R = st["racers"][r]
        R["hand"].remove(card)
        st["in_play"].append(card)
        st["chain"].append({"owner": r, "card": card, "power": None, "effects": list(self.cat["cards"][card]["effects"]),
                            "canceled": False, "in_play": True})
        self.ev("reaction", racer=R["id"], card=card)
        st["pending"] = None  # the window step stays at the front: it reopens after any zone move
        if self.zone_tile(r, "reaction_advance_3"):
            self.ev("zone", racer=R["id"], zone="reaction_advance_3")
            self.front([{"op": "move", "r": r, "n": 3, "cause": "trap"}])

    def use_power(self, r: int, power: str) -> None:
        st = self.state
        R = st["racers"][r]
        d = self.cat["power_cards"][power]
        if d.get("use", "once") == "once":
            R["powers"].remove(power)
            st["power_deck"].append(power)
        st["chain"].append({"owner": r, "card": None, "power": power, "effects": list(d.get("effects", [])),
                            "canceled": False, "in_play": False})
        self.ev("power", racer=R["id"], power=power)
        st["pending"] = None

    def _s_resolve_chain(self, step):
        """Resolve the chain from the top: a canceled item does nothing; 'cancel' cancels the item below."""
        st = self.state
        chain = st["chain"]
        if not chain:
            return
        item = chain.pop()
        if item["in_play"]:
            st["in_play"].remove(item["card"])
            st["discard"].append(item["card"])
        self.front([{"op": "resolve_chain"}])
        owner = item["owner"]
        if item["canceled"]:
            return
        effs = item["effects"]
        if effs and effs[0]["op"] == "cost" and len(st["racers"][owner]["hand"]) < effs[0]["n"]:
            self.ev("canceled", racer=self.rid(owner), card=item["card"], by="cost")
            return  # not enough cards for the cost: the whole effect is canceled, nothing discarded
        ctx = {}
        if any(e["op"] == "cancel" for e in effs) and chain:
            chain[-1]["canceled"] = True
            ctx["canceled_owner"] = chain[-1]["owner"]
            self.ev("canceled", racer=self.rid(chain[-1]["owner"]), card=chain[-1]["card"],
                    by=item["card"] or item["power"])
        if effs:
            self.ev("resolve", racer=self.rid(owner), card=item["card"] or item["power"])
        self.front(self.fx_steps(effs, owner, ctx, "effect"))

    def _s_discard_played(self, step):
        st = self.state
        card = st["played"][step["r"]]
        if card is not None:
            st["discard"].append(card)
            st["played"][step["r"]] = None

    def _s_recover(self, step):
        """Anyone with no cards in hand moves back 3 and draws 6 (in turn order)."""
        self.front([{"op": "recover_one", "r": i} for i in self.order() if not self.state["racers"][i]["hand"]])

    # -- End of Round / End of Race -----------------------------------------------------------------
    def _s_end_of_round(self, step):
        st = self.state
        st["active"] = None
        st["phase"] = "end_of_round"
        if st["mode"] == "treasure":
            self.front([{"op": "triggers", "when": "end_of_round"}, {"op": "recover"},
                        {"op": "pass_marker"}, {"op": "all_draw"}, {"op": "boost"}, {"op": "hunt_end"},
                        {"op": "next_round"}])
        else:
            self.front([{"op": "triggers", "when": "end_of_round"}, {"op": "lead_advance"},
                        {"op": "recover"}, {"op": "pass_marker"}, {"op": "race_end"}, {"op": "next_round"}])

    def _s_lead_advance(self, step):
        st = self.state
        rs = st["racers"]
        best = max(R["pos"] for R in rs)
        leads = [i for i in self.order() if rs[i]["pos"] == best]
        self.ev("lead", racers=[self.rid(i) for i in leads])
        self.front([{"op": "move", "r": i, "n": 1, "cause": "lead"} for i in leads]
                   + [{"op": "lead_check", "leads": leads, "before": best},
                      {"op": "others_draw", "leads": leads}])

    def _s_lead_check(self, step):
        st = self.state
        fin = self.track.finish
        if any(step["before"] < fin <= st["racers"][i]["pos"] for i in step["leads"]):
            self.finish_race()

    def _s_others_draw(self, step):
        for i in self.order():
            if i not in step["leads"]:
                self.draw(i, 1)

    def _s_pass_marker(self, step):
        st = self.state
        st["first"] = (st["first"] + 1) % len(st["racers"])

    def _s_race_end(self, step):
        if any(R["pos"] >= self.track.finish for R in self.state["racers"]):
            self.finish_race()

    def finish_race(self):
        """End of Race: the furthest racer past the line wins; ties: most cards in hand; else shared."""
        st = self.state
        rs = st["racers"]
        best = max((R["pos"], len(R["hand"])) for R in rs)
        winners = [R["id"] for R in rs if (R["pos"], len(R["hand"])) == best]
        st["result"] = {"winners": winners, "reason": "finish_line"}
        st["phase"] = "over"
        st["queue"] = []
        st["pending"] = None
        self.ev("over", winners=winners, reason="finish_line")

    def _s_next_round(self, step):
        self.start_round()

    # Treasure Hunt round end
    def _s_all_draw(self, step):
        for i in self.order():
            self.draw(i, 1)

    def _s_boost(self, step):
        for R in self.state["racers"]:
            R["boost"] = min(R["boost"] + 1, 11)

    def _s_hunt_end(self, step):
        st = self.state
        if st["final_round"]:
            treasure.end_of_hunt(self)
        elif any(R["boost"] >= 11 for R in st["racers"]):
            st["final_round"] = True
            self.ev("final_round")
