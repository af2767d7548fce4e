"""Step handlers for movement and effects: the typed effect vocabulary (see ``catalogue``), damage,
drawing and stealing, projectiles, Jungle traps, Temple drifting and charms.

Every handler works on ``self.state`` only. A handler that needs a fact or a choice from the table
(a die, the racers a projectile touched, which cards to discard, a target) puts its step back at
the front of the queue and sets ``state["pending"]``; the matching action fills the step in and the
run loop calls the handler again.
"""

from __future__ import annotations

import json

from rules.dodo_dash import treasure
from rules.dodo_dash.layout import Track
from rules.dodo_dash.start import rng_for


class EffectsMixin:
    # -- small helpers --------------------------------------------------------------------------
    @property
    def cat(self) -> dict:
        """The game's catalogue (parsed once from ``state["catalogue"]``; treat as read-only)."""
        src = self.state["catalogue"]
        if getattr(self, "_cat_src", None) is not src:
            self._cat = json.loads(src)
            self._cat_src = src
        return self._cat

    @property
    def track(self) -> Track:
        return Track(self.state["layout"], reversed=self.state.get("reversed", False))

    def order(self) -> list[int]:
        """Racer indices in turn order, starting with the first player."""
        n = len(self.state["racers"])
        return [(self.state["first"] + k) % n for k in range(n)]

    def ev(self, kind: str, **data) -> None:
        from rules.core import Event

        self._events.append(Event(kind, data))

    def front(self, steps: list) -> None:
        self.state["queue"][0:0] = steps

    def wait(self, step: dict, pending: dict) -> None:
        self.state["queue"].insert(0, step)
        self.state["pending"] = pending

    def rolls(self, step: dict, k: int, why: str):
        """k die results for this step: from the seeded RNG (dice='engine') or one Roll action each
        (dice='table'). None means the engine now waits for a Roll."""
        got = step.setdefault("rolls", [])
        if self.state["dice"] == "engine":
            rand = rng_for(self.state)
            while len(got) < k:
                got.append(rand.randint(1, 6))
        if len(got) < k:
            self.wait(step, {"kind": "roll", "why": why, "racer": self.rid(step.get("r", step.get("src")))})
            return None
        return got[:k]

    def rid(self, i):
        return None if i is None else self.state["racers"][i]["id"]

    def zone_tile(self, r: int, zone: str) -> bool:
        """Is racer r standing in a revealed Zone Trap of this kind?"""
        h = self.track.zone_of(self.state["racers"][r]["pos"])
        if h is None:
            return False
        slot = self.state["traps"].get(str(h))
        if not slot or not slot["revealed"]:
            return False
        return self.cat["trap_tiles"][slot["tile"]].get("zone") == zone

    def targets(self, kind: str, src, ctx: dict) -> list[int]:
        rs = self.state["racers"]
        order = self.order()
        others = [i for i in order if i != src]
        th = self.state["mode"] == "treasure"
        if kind == "self":
            return [src] if src is not None else []
        if kind == "others":
            return others
        if kind == "all":
            return order
        if kind == "ahead":  # Treasure Hunt: "ahead" and "behind" apply to all other players
            return others if th else [i for i in others if rs[i]["pos"] > rs[src]["pos"]]
        if kind == "behind":
            return others if th else [i for i in others if rs[i]["pos"] < rs[src]["pos"]]
        if kind in ("lead", "last"):
            pick = max if kind == "lead" else min
            best = pick(rs[i]["pos"] for i in order)
            return [i for i in order if rs[i]["pos"] == best]
        if kind == "humans":
            return [i for i in order if rs[i]["human"]]
        if kind == "hit":
            return [ctx["hit"]] if ctx.get("hit") is not None else []
        if kind == "canceled_owner":
            return [ctx["canceled_owner"]] if ctx.get("canceled_owner") is not None else []
        raise AssertionError(kind)

    def fx_steps(self, effects: list, src, ctx: dict, cause: str) -> list[dict]:
        return [{"op": "fx", "fx": e, "src": src, "ctx": dict(ctx), "cause": cause} for e in effects]

    # -- drawing, discarding, stealing ----------------------------------------------------------
    def draw(self, r: int, n: int) -> None:
        st = self.state
        got = []
        for _ in range(n):
            if not st["deck"]:
                if not st["discard"]:
                    self.ev("deck_empty", racer=self.rid(r))
                    break
                st["deck"], st["discard"] = st["discard"], []
                rng_for(st).shuffle(st["deck"])
                self.ev("reshuffle", cards=len(st["deck"]))
            card = st["deck"].pop(0)
            st["racers"][r]["hand"].append(card)  # a Challenger's deck: to the bottom
            got.append(card)
        if got:
            self.ev("draw", racer=self.rid(r), cards=got)

    def discard_cards(self, r: int, cards: list) -> None:
        hand = self.state["racers"][r]["hand"]
        for c in cards:
            hand.remove(c)
            self.state["discard"].append(c)

    def _s_draw(self, step):
        self.draw(step["r"], step["n"])

    def _s_hurt(self, step):
        """Damage: discard n cards of your choice; more damage than cards discards them all."""
        st = self.state
        r, n, src = step["r"], step["n"], step.get("src")
        R = st["racers"][r]
        if st["mode"] == "treasure" and R["immune"] and src is not None and src != r:
            self.ev("immune", racer=R["id"], damage=n)
            return
        if not step.get("triggered"):
            # Abilities or powers activated by dealing or taking damage resolve when the damage is
            # declared, before the cards are discarded.
            per = {r: "damage_taken"}
            if src is not None and src != r:
                per[src] = "damage_dealt"
            steps = self.trigger_steps(per)
            if steps:
                step["triggered"] = True
                self.front(steps + [step])
                return
        hand = R["hand"]
        if not R["human"]:  # a Challenger discards from the top of its Movement deck
            lost = hand[:n]
            self.discard_cards(r, lost)
            self.ev("damage", racer=R["id"], n=n, discarded=lost)
            if not hand:
                self.front([{"op": "recover_one", "r": r}])
            return
        if n >= len(hand):
            lost = list(hand)
        elif "cards" in step:
            lost = list(step["cards"])
        elif len(set(hand)) == 1:
            lost = hand[:n]
        else:
            self.wait(step, {"kind": "discard", "player": R["id"], "n": n})
            return
        self.discard_cards(r, lost)
        self.ev("damage", racer=R["id"], n=n, discarded=lost, over=max(0, n - len(lost)))

    def _s_recover_one(self, step):
        r = step["r"]
        if not self.state["racers"][r]["hand"]:
            self.ev("recover", racer=self.rid(r))
            self.front([{"op": "move", "r": r, "n": -3, "cause": "recover"}, {"op": "draw", "r": r, "n": 6}])

    # -- movement ---------------------------------------------------------------------------------
    def _s_move(self, step):
        st = self.state
        r, n, cause = step["r"], step["n"], step["cause"]
        R = st["racers"][r]
        tr = self.track
        cont = "origin" in step
        origin = step.get("origin", R["pos"])
        forward = step.get("forward", n > 0)
        if n == 0 and not cont:
            return
        if n > 0 and R["human"] and st["layout"]["drift"]:
            hit = tr.drift_start_between(R["pos"], R["pos"] + n)
            if hit is not None:  # Drifting: advancing onto the start of a section interrupts the move
                sec, p = hit
                used = p - R["pos"]
                R["pos"] = p
                self.ev("move", racer=R["id"], to=p, by=used, cause=cause)
                self.ev("drift_start", racer=R["id"], section=sec)
                self.front([{"op": "drift", "r": r, "sec": sec, "i": 0},
                            {"op": "move", "r": r, "n": n - used, "cause": cause, "origin": origin,
                             "forward": True}])
                return
        if n:
            R["pos"] = tr.clamp(R["pos"] + n)
            self.ev("move", racer=R["id"], to=R["pos"], by=n, cause=cause)
        self.end_move(r, origin, R["pos"], cause, forward)

    def end_move(self, r, origin, dest, cause, forward):
        st = self.state
        R = st["racers"][r]
        tr = self.track
        if st["mode"] == "treasure" and cause != "hunted" and dest != origin:
            if treasure.hunt(self, r, origin, dest, forward):
                return
        if R["immune"] and tr.hex(R["pos"]) != R.get("base"):
            R["immune"] = False
            self.ev("immunity_lost", racer=R["id"])
        if not R["human"] or cause == "trap" or dest == origin:
            return  # Challengers ignore special hexes; a trap's own move does not chain
        steps = []
        h = tr.trap_at(dest)
        if h is not None and str(h) in st["traps"]:
            slot = st["traps"][str(h)]
            tdef = self.cat["trap_tiles"][slot["tile"]]
            if not slot["revealed"]:
                slot["revealed"] = True
                self.ev("trap_revealed", hex=h, tile=slot["tile"])
            if tdef["kind"] == "immediate":
                need = tdef.get("only_with")
                card = st["played"][r] if st["active"] == r else None
                if need is None or (card is not None and self.cat["cards"][card]["type"] == need):
                    self.ev("trap", racer=R["id"], hex=h, tile=slot["tile"])
                    steps += self.fx_steps(tdef["effects"], r, {}, "trap")
        if self.zone_tile(r, "damage_1"):
            self.ev("zone", racer=R["id"], zone="damage_1")
            steps.append({"op": "hurt", "r": r, "n": 1, "src": None})
        if forward:
            for c in tr.charms_between(origin, dest):
                slot = st["charm_hexes"].get(str(c))
                if slot is None:
                    continue
                if not slot["revealed"]:
                    slot["revealed"] = True
                    self.ev("charm_revealed", hex=c, tile=slot["tile"])
                steps.append({"op": "charm", "r": r, "hex": c})
        self.front(steps)

    def _s_drift(self, step):
        st = self.state
        r = step["r"]
        R = st["racers"][r]
        sec = st["layout"]["drift"][step["sec"]]
        hx = sec["hexes"][step["i"]]
        got = self.rolls(step, 1, "drift")
        if got is None:
            return
        if got[0] < hx["need"]:
            self.ev("drift_end", racer=R["id"], roll=got[0], need=hx["need"])
            return
        R["pos"] += 1
        self.ev("drift", racer=R["id"], roll=got[0], need=hx["need"], to=R["pos"])
        bonus = hx.get("bonus", {})
        if bonus.get("draw"):
            self.draw(r, bonus["draw"])
        if bonus.get("advance"):
            R["pos"] += bonus["advance"]
            self.ev("drift_bonus", racer=R["id"], advance=bonus["advance"], to=R["pos"])
        if step["i"] + 1 < len(sec["hexes"]):
            self.front([{"op": "drift", "r": r, "sec": step["sec"], "i": step["i"] + 1}])
        else:
            self.ev("drift_complete", racer=R["id"])

    def _s_charm(self, step):
        st = self.state
        slot = st["charm_hexes"][str(step["hex"])]
        got = self.rolls(step, 1, "charm")
        if got is None:
            return
        faces = self.cat["charm_tile_defs"][slot["tile"]]["faces"]
        for rng_, effs in faces.items():
            lo, _, hi = rng_.partition("-")
            if int(lo) <= got[0] <= int(hi or lo):
                break
        self.ev("charm", racer=self.rid(step["r"]), hex=step["hex"], tile=slot["tile"], roll=got[0])
        steps = self.fx_steps(effs, step["r"], {}, "charm")
        if any(e["op"] == "charm_card" for e in effs):
            steps.append({"op": "replace_charm", "hex": step["hex"]})
        self.front(steps)

    def _s_replace_charm(self, step):
        st = self.state
        slot = st["charm_hexes"][str(step["hex"])]
        if st["charm_pool"]:
            rand = rng_for(st)
            new = st["charm_pool"].pop(rand.randrange(len(st["charm_pool"])))
            st["charm_pool"].append(slot["tile"])
            slot["tile"] = new
        slot["revealed"] = False
        self.ev("charm_tile_replaced", hex=step["hex"])

    # -- the effect vocabulary ------------------------------------------------------------------
    def _s_fx(self, step):
        getattr(self, "_fx_" + step["fx"]["op"])(step, step["fx"])

    def _each(self, step, e):
        if e.get("target") == "choose_other":
            if "chosen" not in step:
                src = step["src"]
                opts = [self.rid(i) for i in self.order() if i != src]
                self.wait(step, {"kind": "target", "player": self.rid(src), "options": opts})
                return None
            return [step["chosen"]]
        return self.targets(e.get("target", "self"), step["src"], step["ctx"])

    def _fx_move(self, step, e):
        ts = self._each(step, e)
        if ts is not None:
            cause = "trap" if step["cause"] == "trap" else "effect"
            self.front([{"op": "move", "r": t, "n": e["n"], "cause": cause} for t in ts])

    def _fx_damage(self, step, e):
        ts = self._each(step, e)
        if ts is not None:
            src = None if step["cause"] == "trap" else step["src"]
            self.front([{"op": "hurt", "r": t, "n": e["n"], "src": src} for t in ts])

    def _fx_draw(self, step, e):
        ts = self._each(step, e)
        for t in ts or []:
            self.draw(t, e["n"])

    def _fx_steal(self, step, e):
        ts = self._each(step, e)
        src = step["src"]
        for t in ts or []:
            if t == src:
                continue
            hand = self.state["racers"][t]["hand"]
            for _ in range(e["n"]):
                if not hand:
                    break
                card = hand.pop(rng_for(self.state).randrange(len(hand)))  # random, unseen
                self.state["racers"][src]["hand"].append(card)
                self.ev("steal", racer=self.rid(src), victim=self.rid(t), card=card)

    def _fx_roll_advance(self, step, e):
        got = self.rolls(step, e["dice"], "roll_advance")
        if got is not None:
            cause = "trap" if step["cause"] == "trap" else "effect"
            self.ev("rolled", racer=self.rid(step["src"]), rolls=got)
            self.front([{"op": "move", "r": step["src"], "n": sum(got), "cause": cause}])

    def _fx_cost(self, step, e):
        self.front([{"op": "hurt", "r": step["src"], "n": e["n"], "src": step["src"]}])

    def _fx_cancel(self, step, e):
        pass  # done when the chain item resolves (see flow._s_resolve_chain)

    def _fx_gain_power(self, step, e):
        self.gain_power(step["src"], e["n"])

    def gain_power(self, r, n):
        st = self.state
        for _ in range(n):
            if not st["power_deck"]:
                self.ev("power_deck_empty", racer=self.rid(r))
                return
            p = st["power_deck"].pop(0)
            st["racers"][r]["powers"].append(p)
            self.ev("gain_power", racer=self.rid(r), power=p)

    def _fx_jump_behind(self, step, e):
        ts = self._each(step, e)
        src = step["src"]
        rs = self.state["racers"]
        for t in ts or []:
            if self.state["mode"] == "treasure":
                tr = self.track
                d = (tr.hex(rs[t]["pos"]) - 1 - tr.hex(rs[src]["pos"])) % tr.size
                delta = d if d <= tr.size // 2 else d - tr.size
            else:
                delta = rs[t]["pos"] - 1 - rs[src]["pos"]
            self.front([{"op": "move", "r": src, "n": delta, "cause": "effect"}])

    def _fx_charm_card(self, step, e):
        st = self.state
        if not st["charm_deck"]:
            self.ev("charm_deck_empty")
            return
        c = st["charm_deck"].pop(0)
        st["box"].append("charm:" + c)  # resolved, then returned to the box
        self.ev("charm_card", racer=self.rid(step["src"]), card=c)
        self.front(self.fx_steps(self.cat["charm_cards"][c]["effects"], step["src"], {}, "charm"))

    def _fx_reverse(self, step, e):
        """Plesiododo Charm clarification: "The Racer in last place is now the Lead Racer and vice
        versa. Miniatures/Dinomeeples remain on the board in the same place, but now they advance in
        the opposite direction of the printed arrows on the track. The game still ends when a Racer
        crosses the finish line. Any Racer behind the finish line before activating this Charm must
        complete the lap in the new direction and does not win if moving back and advancing
        afterwards."

        Every racer keeps its printed hex; its progress becomes the distance it has covered in the new
        direction within the lap: the finish line is ``hexes - progress`` hexes ahead of it (1 + its
        printed hex), so the order of the race is reversed and a racer that was behind the line now
        has almost the whole lap to cover (moving back over the line and advancing again crosses no
        finish, as before). Choices: a racer already past the line (a lap completed this round) is,
        in the new direction, before it again, 1 + its printed hex away; Drifting is not triggered
        any more (``layout.Track.drift_start_between``); Zone Traps keep their printed extent. On the
        Connecting-tile path (no lap) the new finish line is the path's start line and a racer behind
        it must cover the whole path (its progress is then counted from that line, so the printed
        hex reported for it is only approximate)."""
        st = self.state
        old = self.track
        st["reversed"] = not st.get("reversed", False)
        new = self.track
        for R in st["racers"]:
            q = new.progress_of(old.hex(R["pos"]))
            if not new.loop and q >= new.finish:
                q -= new.finish  # behind the path's start line: the whole path is still to cover
            R["pos"] = q
        best = max(R["pos"] for R in st["racers"])
        self.ev("reversed", against_arrows=st["reversed"], by=self.rid(step["src"]),
                positions={R["id"]: R["pos"] for R in st["racers"]},
                lead=[self.rid(i) for i in self.order() if st["racers"][i]["pos"] == best])

    def _fx_todo(self, step, e):
        self.ev("unimplemented", text=e.get("text", ""))

    def _fx_projectile(self, step, e):
        st = self.state
        if "as_card" in e:  # "Resolve as Feather": the card's own projectile step
            base = next(x for x in self.cat["cards"][e["as_card"]]["effects"] if x["op"] == "projectile")
            e = dict(base, **{k: v for k, v in e.items() if k not in ("as_card",)})
        if "hits" not in step:
            self.wait(step, {"kind": "hits", "projectile": e["kind"], "by": self.rid(step["src"])})
            return
        hits = [self.index(h) for h in step["hits"]]
        if e["kind"] in ("feather", "dodo"):
            hits = hits[:1]  # only the first Racer touched is hit
        self.ev("hit", projectile=e["kind"], by=self.rid(step["src"]), racers=[self.rid(h) for h in hits])
        steps = self.trigger_steps("hit", only=set(hits))  # "when getting hit by a projectile"
        for h in hits:
            if e.get("damage", 0):
                steps.append({"op": "hurt", "r": h, "n": e["damage"], "src": step["src"]})
            steps += self.fx_steps(e.get("on_hit", []), step["src"], dict(step["ctx"], hit=h), step["cause"])
        if e["kind"] == "dodo" and hits and hits[0] != step["src"] and e.get("gain_power"):
            self.gain_power(step["src"], e["gain_power"])
        self.front(steps)
