"""The printed abilities as hooks: when each is offered, with which choices, and what using it does.

An *offer* is a plain dict ``{"piece", "ability", "targets", "choices", "required"}`` kept in the
current action frame (so it is part of the JSON state). Hooks:

- ``before(game, frame)``: offers for the frame's dinosaur just before it performs its action;
- ``after(game, frame, ctx)``: offers once the action resolved (``ctx``: ``gained`` — the mover
  gained the ball by moving, ``received_by`` — who caught a pass, ``struck``, ``removed``);
- ``use(game, offer, action)``: apply the chosen offer (record a placement, or start a free action).

Placements ("place the ball token within one long card length") are physical: the engine records
an event; the referee checks the distance.
Activation-only abilities (50 Foot Vertical Soar, the Exhibition Layup, Ball Call's Shoot without
the ball) are checked in ``Game._action_allowed``.
"""

from __future__ import annotations

from .cards import SIZE_RANK

SHORT, LONG = "one short card length", "one long card length"


def make_offer(piece, ability, targets=(), choices=(), required=False) -> dict:
    return {"piece": piece, "ability": ability, "targets": list(targets), "choices": list(choices),
            "required": bool(required)}


class Ability:
    name = ""
    text = ""

    def before(self, game, frame):
        return None

    def after(self, game, frame, ctx):
        return None

    def use(self, game, offer, action) -> None:
        raise NotImplementedError


class _Placement(Ability):
    """Before an action: place a token somewhere (recorded as an event)."""

    timing: tuple = ()
    what = "ball"
    where = LONG

    def before(self, game, frame):
        if frame["action"] in self.timing and not frame["context"].get("fouled_shot"):
            return make_offer(frame["piece"], self.name)
        return None

    def use(self, game, offer, action):
        game.emit("placed", ability=self.name, piece=offer["piece"], token=self.what, within=self.where)


class BouncePass(_Placement):
    name, timing, what, where = "bounce_pass", ("pass",), "ball", LONG
    text = ("Before performing a Pass action with this dinosaur, you may place the ball token within one "
            "long card length of this dinosaur's token.")


class FollowThrough(_Placement):
    name, timing, what, where = "follow_through", ("shoot",), "ball", SHORT
    text = ("Before performing a Shoot action with this dinosaur, you may place the ball token within one "
            "short card length of this dinosaur's token.")


class PointGuard(_Placement):
    name, timing, what, where = "point_guard", ("pass",), "self", LONG
    text = "Before performing a Pass action, this dinosaur may be placed within one long card length from its current position."


class SwiftSeizer(_Placement):
    name, timing, what, where = "swift_seizer", ("move",), "self", SHORT
    text = "Before performing a Move action, this dinosaur may be placed within one short card length from its current position."


class SwiftSwimming(_Placement):
    name, timing, what, where = "swift_swimming", ("move",), "self", "anywhere within water terrain"
    text = "When performing a Move action, place this dinosaur anywhere within water terrain."

    def before(self, game, frame):
        offer = super().before(game, frame)
        if offer is not None:
            offer["required"] = bool(game.state["options"]["swift_swimming_mandatory"])
        return offer

    def use(self, game, offer, action):
        super().use(game, offer, action)
        game.top()["context"]["swimming"] = True


class TailFake(_Placement):
    name, timing, what, where = "tail_fake", ("pass", "shoot"), "tail", "adjacent (standard placement)"
    text = ("Before performing a Pass or Shoot action or after gaining possession of the ball, this "
            "dinosaur may place their tail token using standard placement rules.")

    def after(self, game, frame, ctx):
        for pid in (ctx.get("gained_by"), ctx.get("received_by")):
            if pid and game.has_ability(pid, self.name) and game.piece(pid)["status"] == "on_mat":
                return make_offer(pid, self.name)
        return None


class TailGuard(Ability):
    name = "tail_guard"
    text = ("This dinosaur begins the game by placing their tail token adjacent using standard placement "
            "rules. After performing a Move action, this dinosaur may place their tail token using "
            "standard placement rules.")

    def after(self, game, frame, ctx):
        if frame["action"] == "move" and frame["piece"] and not ctx.get("removed"):
            return make_offer(frame["piece"], self.name)
        return None

    def use(self, game, offer, action):
        game.emit("placed", ability=self.name, piece=offer["piece"], token="tail",
                  within="adjacent (standard placement)")


class BallCall(Ability):
    name = "ball_call"
    text = ("You may give this dinosaur a Shoot action even if they do not possess the ball. Before "
            "performing a Shoot action with this dinosaur, another friendly dinosaur may be given a free "
            "Pass action. At the end of the pass, if this dinosaur does not possess the ball, the ball "
            "is considered a loose ball.")

    def before(self, game, frame):
        pid = frame["piece"]
        if frame["action"] != "shoot" or frame["context"].get("fouled_shot"):
            return None
        carrier = game.state["ball"]["carrier"]
        if carrier and carrier != pid and game.side_of(carrier) == game.side_of(pid) and game.can_act(carrier):
            # Without the ball the Shoot can only happen through the free Pass: required then.
            return make_offer(pid, self.name, targets=[carrier], required=True)
        return None

    def use(self, game, offer, action):
        game.emit("ball_call", piece=offer["piece"], passer=action.target)
        game.start_action(action.target, "pass", free=True, source=self.name,
                          context={"ball_call_for": offer["piece"]})


class _FreeAction(Ability):
    """After an action: the dinosaur may immediately perform a free action."""

    free = ("pass",)

    def offer_for(self, game, pid):
        if not pid or not game.has_ability(pid, self.name) or not game.can_act(pid):
            return None
        if game.side_of(pid) != game.state["turn"]["side"]:
            return None  # choice: abilities act on their own team's turn only (Turn Overview)
        choices = [a for a in self.free if a == "move" or game.state["ball"]["carrier"] == pid]
        if not choices:
            return None
        return make_offer(pid, self.name, choices=choices if len(choices) > 1 else ())

    def use(self, game, offer, action):
        what = action.choice or (offer["choices"][0] if offer["choices"] else self.free[0])
        game.start_action(offer["piece"], what, free=True, source=self.name)


class RoarAndRun(_FreeAction):
    name, free = "roar_and_run", ("move",)
    text = "After performing a Pass action, this dinosaur may immediately perform a free Move action."

    def after(self, game, frame, ctx):
        return self.offer_for(game, frame["piece"]) if frame["action"] == "pass" else None


class TailWhip(_FreeAction):
    name, free = "tail_whip", ("pass",)
    text = ("After gaining possession of the ball from a Pass action, this dinosaur may immediately "
            "perform a free Pass action.")

    def after(self, game, frame, ctx):
        return self.offer_for(game, ctx.get("received_by")) if frame["action"] == "pass" else None


class FerociousD(_FreeAction):
    name, free = "ferocious_d", ("pass", "dunk")
    text = ("After performing a Move action, if this dinosaur gained possession of the ball, then this "
            "dinosaur may immediately perform a free Pass or Dunk action.")

    def after(self, game, frame, ctx):
        return self.offer_for(game, frame["piece"]) if frame["action"] == "move" and ctx.get("gained_by") else None


class SynchronizedSwimmer(_FreeAction):
    name, free = "synchronized_swimmer", ("pass",)
    text = "After performing a Move action, this dinosaur may perform a free Pass action."

    def after(self, game, frame, ctx):
        return self.offer_for(game, frame["piece"]) if frame["action"] == "move" and not ctx.get("removed") else None


class BoxingOut(Ability):
    name = "boxing_out"
    text = ("After performing a Move action, if an opposing dinosaur token of equal or smaller size was "
            "struck by this dinosaur while moving, then that opposing dinosaur may be placed adjacent to "
            "this dinosaur using standard placement rules.")

    def after(self, game, frame, ctx):
        pid = frame["piece"]
        if frame["action"] != "move" or ctx.get("removed"):
            return None
        mine = SIZE_RANK[game.piece(pid)["size"]]
        targets = [t for t in ctx.get("struck", ())
                   if game.side_of(t) != game.side_of(pid) and game.piece(t)["status"] == "on_mat"
                   and SIZE_RANK[game.piece(t)["size"]] <= mine]
        return make_offer(pid, self.name, targets=targets) if targets else None

    def use(self, game, offer, action):
        game.emit("placed", ability=self.name, piece=action.target, token=action.target,
                  within=f"adjacent to {offer['piece']} (standard placement)")


class Soar(Ability):
    name = "fifty_foot_vertical_soar"
    text = ("If this dinosaur is in possession of the ball, instead of performing a Move action, this "
            "dinosaur may place the ball on top of its token instead of using standard placement rules "
            "until the beginning of your next turn.")


class LayupAbility(Ability):
    name = "layup"
    text = ("Instead of performing a Shoot action, this dinosaur may perform a Move action. After moving, "
            "if this dinosaur overlaps the scoring zone, then the result is a successful score. A layup "
            "is worth 2 points.")


ABILITIES = {a.name: a for a in (
    RoarAndRun(), BouncePass(), FollowThrough(), BoxingOut(), PointGuard(), SwiftSeizer(), TailWhip(),
    FerociousD(), SwiftSwimming(), SynchronizedSwimmer(), BallCall(), TailGuard(), TailFake(), Soar(),
    LayupAbility(),
)}


def before_offers(game, frame) -> list[dict]:
    pid = frame["piece"]
    out = []
    for name in game.piece(pid)["abilities"]:
        offer = ABILITIES[name].before(game, frame)
        if offer:
            out.append(offer)
    return out


def after_offers(game, frame, ctx) -> list[dict]:
    """Offers once an action resolved, for the acting dinosaur and any that gained the ball."""
    pids = []
    for pid in (frame["piece"], ctx.get("received_by"), ctx.get("gained_by")):
        if pid and pid not in pids:
            pids.append(pid)
    out = []
    for pid in pids:
        for name in game.piece(pid)["abilities"]:
            offer = ABILITIES[name].after(game, frame, ctx)
            if offer and offer["piece"] == pid and offer not in out:
                out.append(offer)
    return out
