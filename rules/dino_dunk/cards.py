"""The Character Card and Exhibition Card catalogue (``cards.json`` next to this file).

Standard library only. ``load_catalogue(overrides)`` returns ``{"cards": {card_id: card},
"exhibition": {size: profile}, ...}`` with user overrides merged in; ``check_roster`` enforces setup
step 3 and the size rule of "Dinosaur Tokens" ("exactly one small dinosaur, three medium dinosaurs,
and one large dinosaur").
"""

from __future__ import annotations

import copy
import itertools
import json
import os

from rules.core import RulesError

from .errors import RosterError, SetupError

CARDS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cards.json")
SIZES = ("small", "medium", "large")
SIZE_RANK = {s: i for i, s in enumerate(SIZES)}
ACTION_NAMES = ("move", "pass", "shoot", "dunk")
ROSTER_SIZES = {"small": 1, "medium": 3, "large": 1}

_cache: dict | None = None


def _raw() -> dict:
    global _cache
    if _cache is None:
        with open(CARDS_PATH, encoding="utf-8") as fh:
            _cache = json.load(fh)
    return _cache


def load_catalogue(overrides: dict | None = None) -> dict:
    """The catalogue with ``overrides`` ({card_id: card fields}, or {"exhibition": {size: ...}})
    merged in. A card id that is new is added (give it ``team``, ``name``, ``size``, ``actions``,
    ``abilities``)."""
    raw = copy.deepcopy(_raw())
    cards = {c["id"]: c for c in raw["cards"]}
    exhibition = {k: v for k, v in raw["exhibition"].items() if not k.startswith("_")}
    for key, value in (overrides or {}).items():
        if not isinstance(value, dict):
            raise SetupError(f"card_overrides[{key!r}] must be an object of card fields")
        if key == "exhibition":
            for size, profile in value.items():
                if size not in SIZES:
                    raise SetupError(f"card_overrides.exhibition: unknown size {size!r}; sizes are {list(SIZES)}")
                exhibition[size] = {**exhibition.get(size, {}), **profile}
            continue
        merged = {**cards.get(key, {"id": key}), **value, "id": key}
        merged["complete"] = bool(value.get("complete", True))
        cards[key] = merged
    for card in cards.values():
        if card.get("complete"):
            _check_card(card, raw["teams"])
    return {"cards": cards, "exhibition": exhibition, "teams": raw["teams"]}


def _check_card(card: dict, teams: dict) -> None:
    where = f"card {card['id']!r}"
    if card.get("team") not in teams:
        raise SetupError(f"{where}: team must be one of {sorted(teams)}")
    if card.get("size") not in SIZES:
        raise SetupError(f"{where}: size must be one of {list(SIZES)}, got {card.get('size')!r}")
    actions = card.get("actions")
    if not isinstance(actions, list) or any(a not in ACTION_NAMES for a in actions):
        raise SetupError(f"{where}: actions must be a list drawn from {list(ACTION_NAMES)}")
    from .abilities import ABILITIES  # late: abilities imports nothing from here at import time

    for ability in card.get("abilities") or []:
        if ability not in ABILITIES:
            raise SetupError(f"{where}: unknown ability {ability!r}; known: {sorted(ABILITIES)}")


def team_cards(catalogue: dict, team: str) -> list[dict]:
    return [c for c in catalogue["cards"].values() if c.get("team") == team]


def check_roster(catalogue: dict, team: str, card_ids) -> list[dict]:
    """The five cards of a roster, or :class:`SetupError` naming the rule broken."""
    ids = list(card_ids)
    if len(ids) != 5 or len(set(ids)) != 5:
        raise RosterError("Game Setup step 3: select five different dinosaurs")
    out = []
    for cid in ids:
        card = catalogue["cards"].get(cid)
        if card is None or card.get("team") != team:
            raise RosterError(f"Game Setup step 3: {cid!r} is not one of the ten Character Cards of {team}")
        if not card.get("complete"):
            raise RosterError(
                f"card {cid!r} is not transcribed (the rulebook does not print it): complete it in "
                "rules/dino_dunk/cards.json or pass card_overrides to new_game")
        out.append(card)
    counts = {s: sum(1 for c in out if c["size"] == s) for s in SIZES}
    if counts != ROSTER_SIZES:
        raise RosterError("Dinosaur Tokens: a team must include exactly one small dinosaur, three medium "
                         f"dinosaurs, and one large dinosaur (got {counts})")
    return out


def valid_rosters(catalogue: dict, team: str) -> list[tuple]:
    """Every legal roster (sorted card ids) from the complete cards of ``team``."""
    usable = sorted(c["id"] for c in team_cards(catalogue, team) if c.get("complete"))
    out = []
    for combo in itertools.combinations(usable, 5):
        try:
            check_roster(catalogue, team, combo)
        except RulesError:
            continue
        out.append(combo)
    return out


def profile(catalogue: dict, card: dict, exhibition: bool) -> dict:
    """The actions and abilities a dinosaur plays with: its own card's, or in an Exhibition Match
    those of the Exhibition Card of its size ("determined by the size on the dinosaur's token")."""
    if exhibition:
        ex = catalogue["exhibition"][card["size"]]
        return {"actions": list(ex["actions"]), "abilities": list(ex.get("abilities") or [])}
    return {"actions": list(card["actions"]), "abilities": list(card.get("abilities") or [])}
