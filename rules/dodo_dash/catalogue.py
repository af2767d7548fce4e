"""The card catalogue: Movement cards, Racer cards, Dodo-Idol Power and Charm cards, Charm and
Trap tiles, the Boost card, as data (``cards.json``; JSON rather than YAML so that ``rules/`` stays
standard-library only).

Effects are lists of small typed steps, ``{"op": ..., ...}``:

============  ==========================================  ==============================================
op            fields                                      meaning
============  ==========================================  ==============================================
move          target, n (int, not 0)                      each target advances n (n > 0) or moves back
damage        target, n (>= 1)                            each target takes n damage (discards n cards)
draw          target, n (>= 1)                            each target draws n Movement cards
steal         target, n (>= 1)                            take n random cards from each target's hand
projectile    kind, damage, on_hit?, gain_power?, as_card? throw a projectile; the table reports the hits
roll_advance  dice (1..3)                                 roll the dice and advance the total
cost          n (>= 1); first step only                   take n damage yourself; with fewer cards in
                                                          hand the whole effect is canceled
cancel        (none); Reaction cards only                 cancel the effect just below in the chain
gain_power    n (>= 1)                                    take n Dodo-Idol Power cards
jump_behind   target ("hit")                              move to the hex behind the target
charm_card    (none); Charm tiles only                    resolve the top Charm card, then a new tile
reverse       (none)                                      the race turns around (Plesiododo): racers
                                                          keep their hexes, advance against the printed
                                                          arrows; last becomes Lead and vice versa
todo          text                                        not implemented: the engine reports it
============  ==========================================  ==============================================

Targets: self, ahead, behind, others, all, lead, last, humans, hit (the racer a projectile hit,
inside ``on_hit``), canceled_owner (the player whose card this reaction canceled), choose_other
(the player picks another racer). Projectile kinds: meteorite, log, egg, feather, banana, dodo.

Racer abilities and Dodo-Idol Power cards are ``{"trigger": ..., "may": bool, "effects": [...]}``
(powers also ``"use": "once"|"persistent"``; a used "once" power goes under the Power deck).
Triggers: none, after_reveal, end_of_round, reaction (used like a Reaction card in an open
window), hit (hit by a projectile), damage_taken, damage_dealt (both before the discards).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

_HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PATH = os.path.join(_HERE, "cards.json")

MOVEMENT_TYPES = ("dash", "aggressive", "normal", "reaction")
RULEBOOK_COUNTS = {"dash": 12, "aggressive": 20, "normal": 39, "reaction": 13}
ICONS = ("paw", "claw", "bag", "wing")
DIFFICULTIES = ("easy", "normal", "hard")
PROJECTILES = ("meteorite", "log", "egg", "feather", "banana", "dodo")
TARGETS = ("self", "ahead", "behind", "others", "all", "lead", "last", "humans", "hit",
           "canceled_owner", "choose_other")
TRIGGERS = ("none", "after_reveal", "end_of_round", "reaction", "hit", "damage_taken", "damage_dealt")
ZONES = ("normal_double", "reaction_advance_3", "aggressive_ignores_enraged", "damage_1")
OPS = {
    "move": {"target", "n"},
    "damage": {"target", "n"},
    "draw": {"target", "n"},
    "steal": {"target", "n"},
    "projectile": {"kind", "damage", "on_hit", "gain_power", "as_card"},
    "roll_advance": {"dice"},
    "cost": {"n"},
    "cancel": set(),
    "gain_power": {"n"},
    "jump_behind": {"target"},
    "charm_card": set(),
    "reverse": set(),
    "todo": {"text"},
}


@dataclass(frozen=True)
class Problem:
    level: str  # "error" or "warning"
    where: str
    message: str

    def line(self) -> str:
        return f"{self.level}: {self.where}: {self.message}"


def load(path: str | None = None) -> dict:
    with open(path or DEFAULT_PATH, encoding="utf-8") as fh:
        return json.load(fh)


def validate(cat: object) -> list[Problem]:
    """Every problem of a catalogue, errors first in file order. Entries marked ``todo`` give one
    warning each (the user still has to check or fill them in)."""
    probs: list[Problem] = []

    def err(where, msg):
        probs.append(Problem("error", where, msg))

    def warn(where, msg):
        probs.append(Problem("warning", where, msg))

    if not isinstance(cat, dict):
        return [Problem("error", "catalogue", "the top level must be an object")]
    for key in ("movement", "racers", "powers", "charms", "charm_tiles", "traps"):
        if not isinstance(cat.get(key), list):
            err(key, "missing or not a list")
    movement_ids = set()
    for i, c in enumerate(cat.get("movement") or []):
        w = _where("movement", i, c)
        if not _entry(c, w, err, movement_ids):
            continue
        if c.get("type") not in MOVEMENT_TYPES:
            err(w, f"type must be one of {', '.join(MOVEMENT_TYPES)}, got {c.get('type')!r}")
        sp = c.get("speed")
        if not (sp == "die" or (isinstance(sp, int) and not isinstance(sp, bool) and 0 <= sp <= 12)):
            err(w, f"speed must be an integer 0..12 or \"die\", got {sp!r}")
        if c.get("icon") not in ICONS:
            err(w, f"icon must be one of {', '.join(ICONS)} (the Challengers' table), got {c.get('icon')!r}")
        cnt = c.get("count", 1)
        if not isinstance(cnt, int) or isinstance(cnt, bool) or cnt < 1:
            err(w, f"count must be a positive integer, got {cnt!r}")
        _effects(c.get("effects"), w, err, reaction=c.get("type") == "reaction")
        if c.get("todo"):
            warn(w, f"todo: {c['todo']}")
    counts = {t: 0 for t in MOVEMENT_TYPES}
    for c in cat.get("movement") or []:
        if isinstance(c, dict) and c.get("type") in counts and isinstance(c.get("count", 1), int):
            counts[c["type"]] += c.get("count", 1)
    if cat.get("movement") and counts != RULEBOOK_COUNTS:
        warn("movement", f"the rulebook's deck has {RULEBOOK_COUNTS}; this one has {counts}")
    if isinstance(cat.get("movement"), list) and sum(counts.values()) < 30:
        err("movement", f"a deck of {sum(counts.values())} cards is too small to deal 6 to every racer")
    ids = set()
    for i, r in enumerate(cat.get("racers") or []):
        w = _where("racers", i, r)
        if not _entry(r, w, err, ids):
            continue
        if r.get("difficulty") not in DIFFICULTIES:
            err(w, f"difficulty must be one of {', '.join(DIFFICULTIES)}, got {r.get('difficulty')!r}")
        ab = r.get("ability")
        if ab is not None:
            _triggered(ab, w + ".ability", err)
        if r.get("todo"):
            warn(w, f"todo: {r['todo']}")
    if isinstance(cat.get("racers"), list) and len(cat["racers"]) < 4:
        err("racers", "at least 4 Racer cards are needed (2 players and 2 Challengers)")
    ids = set()
    for i, p in enumerate(cat.get("powers") or []):
        w = _where("powers", i, p)
        if not _entry(p, w, err, ids):
            continue
        _triggered(p, w, err)
        if p.get("use", "once") not in ("once", "persistent"):
            err(w, f"use must be 'once' or 'persistent', got {p.get('use')!r}")
        if p.get("todo"):
            warn(w, f"todo: {p['todo']}")
    ids = set()
    for i, c in enumerate(cat.get("charms") or []):
        w = _where("charms", i, c)
        if _entry(c, w, err, ids):
            _effects(c.get("effects"), w, err)
            if c.get("todo"):
                warn(w, f"todo: {c['todo']}")
    ids = set()
    for i, t in enumerate(cat.get("charm_tiles") or []):
        w = _where("charm_tiles", i, t)
        if not _entry(t, w, err, ids):
            continue
        faces = t.get("faces")
        covered = []
        if not isinstance(faces, dict):
            err(w, "faces must map die ranges like \"1-2\" to effect lists")
            continue
        for rng, effs in faces.items():
            lo_hi = _die_range(rng)
            if lo_hi is None:
                err(w, f"face {rng!r} is not a die range like \"3-4\" or \"6\"")
                continue
            covered.extend(range(lo_hi[0], lo_hi[1] + 1))
            _effects(effs, f"{w}.faces[{rng}]", err, charm_tile=True)
        if sorted(covered) != [1, 2, 3, 4, 5, 6]:
            err(w, f"faces must cover each die result 1..6 exactly once, cover {sorted(covered)}")
        if t.get("todo"):
            warn(w, f"todo: {t['todo']}")
    ids = set()
    kinds = {"immediate": 0, "zone": 0}
    for i, t in enumerate(cat.get("traps") or []):
        w = _where("traps", i, t)
        if not _entry(t, w, err, ids):
            continue
        if t.get("kind") == "immediate":
            kinds["immediate"] += 1
            _effects(t.get("effects"), w, err)
            if t.get("only_with") not in (None, *MOVEMENT_TYPES):
                err(w, f"only_with must be a Movement card type, got {t.get('only_with')!r}")
        elif t.get("kind") == "zone":
            kinds["zone"] += 1
            if t.get("zone") not in ZONES:
                err(w, f"zone must be one of {', '.join(ZONES)}, got {t.get('zone')!r}")
        else:
            err(w, f"kind must be 'immediate' or 'zone', got {t.get('kind')!r}")
    if cat.get("traps") and kinds != {"immediate": 8, "zone": 4}:
        warn("traps", f"the rulebook has 8 immediate and 4 zone Trap tiles; this catalogue has {kinds}")
    boost = cat.get("boost_card")
    if boost is not None:
        mods = boost.get("modifiers") if isinstance(boost, dict) else None
        if not isinstance(mods, list) or len(mods) != 12 or not all(isinstance(m, int) for m in mods):
            err("boost_card", "modifiers must be a list of 12 integers (steps 0 to +11)")
        elif boost.get("todo"):
            warn("boost_card", f"todo: {boost['todo']}")
    probs.sort(key=lambda p: p.level != "error")
    return probs


def _where(section, i, entry):
    ident = entry.get("id") if isinstance(entry, dict) else None
    return f"{section}[{i}]" + (f" ({ident})" if ident else "")


def _entry(entry, where, err, seen) -> bool:
    if not isinstance(entry, dict):
        err(where, "each entry must be an object")
        return False
    ident = entry.get("id")
    if not isinstance(ident, str) or not ident:
        err(where, "needs an 'id' (a non-empty string)")
        return False
    if ident in seen:
        err(where, f"id {ident!r} is used twice")
    seen.add(ident)
    return True


def _triggered(entry, where, err):
    if not isinstance(entry, dict):
        err(where, "must be an object with 'trigger' and 'effects'")
        return
    if entry.get("trigger") not in TRIGGERS:
        err(where, f"trigger must be one of {', '.join(TRIGGERS)}, got {entry.get('trigger')!r}")
    _effects(entry.get("effects", []), where, err)


def _die_range(text):
    try:
        parts = [int(x) for x in str(text).split("-")]
    except ValueError:
        return None
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2 or not 1 <= parts[0] <= parts[1] <= 6:
        return None
    return parts[0], parts[1]


def _effects(effects, where, err, reaction=False, charm_tile=False, inside_hit=False):
    if not isinstance(effects, list):
        err(where, "effects must be a list (possibly empty)")
        return
    for j, e in enumerate(effects):
        w = f"{where}.effects[{j}]"
        if not isinstance(e, dict) or e.get("op") not in OPS:
            err(w, f"op must be one of {', '.join(OPS)}, got {e.get('op') if isinstance(e, dict) else e!r}")
            continue
        op = e["op"]
        extra = set(e) - OPS[op] - {"op"}
        if extra:
            err(w, f"{op} has no field(s) {', '.join(sorted(extra))}; its fields are {sorted(OPS[op]) or 'none'}")
        if "target" in OPS[op]:
            tgt = e.get("target")
            if tgt not in TARGETS:
                err(w, f"target must be one of {', '.join(TARGETS)}, got {tgt!r}")
            elif tgt == "hit" and not inside_hit:
                err(w, "target 'hit' only makes sense inside a projectile's on_hit")
        if "n" in OPS[op]:
            n = e.get("n")
            ok = isinstance(n, int) and not isinstance(n, bool) and (n != 0 if op == "move" else n >= 1)
            if not ok:
                err(w, f"{op} needs an integer n ({'not 0' if op == 'move' else '>= 1'}), got {n!r}")
        if op == "projectile":
            if e.get("kind") not in PROJECTILES:
                err(w, f"projectile kind must be one of {', '.join(PROJECTILES)}, got {e.get('kind')!r}")
            if "as_card" not in e:
                d = e.get("damage")
                if not isinstance(d, int) or isinstance(d, bool) or d < 0:
                    err(w, f"projectile damage must be an integer >= 0, got {d!r}")
            _effects(e.get("on_hit", []), w + ".on_hit", err, inside_hit=True)
        if op == "roll_advance" and e.get("dice") not in (1, 2, 3):
            err(w, f"roll_advance dice must be 1, 2 or 3, got {e.get('dice')!r}")
        if op == "cost" and j != 0:
            err(w, "a cost must be the first step of an effect")
        if op == "cancel" and not reaction:
            err(w, "only Reaction cards can cancel")
        if op == "charm_card" and not charm_tile:
            err(w, "charm_card belongs on a Charm tile face")
        if op == "jump_behind" and not inside_hit:
            err(w, "jump_behind only makes sense inside a projectile's on_hit")
