"""Setup (rulebook "Setup", "Dodorado Jungle/Temple: Setup", "Treasure Hunt: Additional Setup",
"Solo Mode, 2-Player Game: Additional Setup"): builds the initial plain-data state."""

from __future__ import annotations

import json
import random

from rules.dodo_dash import catalogue as catmod
from rules.dodo_dash.actions import SetupError
from rules.dodo_dash.layout import Track, load_track


def rng_for(state: dict) -> random.Random:
    """A fresh Random derived from the seed and a counter kept in the state (so pop/JSON restore it)."""
    r = state["rng"]
    rand = random.Random(f"{r['seed']}/{r['n']}")
    r["n"] += 1
    return rand


def build_state(players=("P1", "P2", "P3"), racers=None, board=None, track=None, variant="standard",
                challengers=None, seed=0, dice="engine", first_player=0, cards=None, layout=None,
                hands=None, deck_top=None, positions=None, boost=None, traps=None, charm_tiles=None,
                power_deck_top=None, charm_deck_top=None, taken=None) -> dict:
    players = list(players)
    if not 1 <= len(players) <= 9:
        raise SetupError("Setup: Dodo Dash is for 1 to 9 players")
    if len(set(players)) != len(players) or not all(isinstance(p, str) and p for p in players):
        raise SetupError("Setup: player ids must be distinct non-empty strings")
    if variant not in ("standard", "treasure"):
        raise SetupError(f"Setup: variant is 'standard' or 'treasure', not {variant!r}")
    if dice not in ("engine", "table"):
        raise SetupError("Setup: dice is 'engine' (seeded) or 'table' (Roll actions report each die)")
    cat = cards if isinstance(cards, dict) else catmod.load(cards)
    errors = [p for p in catmod.validate(cat) if p.level == "error"]
    if errors:
        raise SetupError("the card catalogue has errors: " + "; ".join(p.line() for p in errors[:5]))

    # Challengers: necessary in solo and 2-player games, never otherwise.
    if challengers is None:
        challengers = [{}, {}] if len(players) <= 2 else []  # difficulty from their Racer cards
    if challengers and len(players) > 2:
        raise SetupError("Solo Mode, 2-Player Game: Challengers are only used with 1 or 2 players")
    if len(players) <= 2 and len(challengers) != 2:
        raise SetupError("Solo Mode, 2-Player Game: add 2 Challengers in a solo or 2-player game")
    if variant == "treasure" and len(players) not in (3, 4):
        raise SetupError("Treasure Hunt Variant: it is for 3-4 players")

    racer_defs = {r["id"]: r for r in cat["racers"]}
    chosen = list(racers or [])
    free = [r for r in racer_defs if r not in chosen]
    seats = []
    for i, pid in enumerate(players):
        rid = chosen[i] if i < len(chosen) else free.pop(0)
        seats.append({"id": pid, "human": True, "racer": rid})
    for j, ch in enumerate(challengers):
        ch = {"difficulty": ch} if isinstance(ch, str) else dict(ch)
        rid = ch.get("racer") or free.pop(0)
        diff = ch.get("difficulty") or racer_defs[rid]["difficulty"]
        if diff not in catmod.DIFFICULTIES:
            raise SetupError(f"Challengers: difficulty is easy, normal or hard, not {diff!r}")
        seats.append({"id": ch.get("id", f"challenger-{j + 1}"), "human": False, "racer": rid, "difficulty": diff})
    if len({s["racer"] for s in seats}) != len(seats) or any(s["racer"] not in racer_defs for s in seats):
        raise SetupError("Setup: each racer takes a different Racer card from the catalogue")
    if len(seats) > 9:
        raise SetupError("Setup: there are only 9 Racers")
    n = len(seats)
    ids = [s["id"] for s in seats]
    if isinstance(first_player, str):
        if first_player not in players:
            raise SetupError(f"Setup: first player {first_player!r} is not a (human) player")
        first = ids.index(first_player)
    else:
        first = int(first_player)
        if not 0 <= first < len(players):
            raise SetupError("Setup: the first player is one of the human players")

    if variant == "treasure":
        board = "temple"
        track = "outer" if len(players) == 4 else "inner"
    board = board or "jungle"
    track = track or ("outer" if n <= 4 else "inner")
    lay = load_track(board, track, layout)
    tr = Track(lay)

    state = {
        "game": "dodo-dash", "mode": variant, "board": board, "track": track, "layout": lay,
        "dice": dice, "rng": {"seed": seed, "n": 0},
        # The catalogue never changes during a game: it is kept as one JSON string (immutable, so
        # push() snapshots cost nothing for it); ``Game.cat`` parses it once.
        "catalogue": json.dumps({
            "cards": {c["id"]: {k: c[k] for k in ("type", "speed", "icon", "effects") if k in c}
                      for c in cat["movement"]},
            "racer_cards": {s["racer"]: racer_defs[s["racer"]] for s in seats},
            "power_cards": {p["id"]: p for p in cat["powers"]},
            "charm_cards": {c["id"]: c for c in cat["charms"]},
            "charm_tile_defs": {t["id"]: t for t in cat["charm_tiles"]},
            "trap_tiles": {t["id"]: t for t in cat["traps"]},
            "boost_mods": (cat.get("boost_card") or {}).get("modifiers", [0] * 12),
        }, sort_keys=True, separators=(",", ":")),
        "racers": [], "deck": [], "discard": [], "in_play": [],
        "power_deck": [], "charm_deck": [], "charm_pool": [], "box": [],
        "traps": {}, "charm_hexes": {},
        "round": 0, "phase": "setup", "first": first, "played": [None] * n, "enraged": [False] * n,
        "active": None, "chain": [], "queue": [], "pending": None, "result": None, "final_round": False,
        "reversed": False,  # the Plesiododo Charm: racers advance against the printed arrows
    }

    # Movement deck (Setup 5): shuffle, deal 6 to each racer (Challengers get theirs as a face-down deck).
    deck = [c["id"] for c in cat["movement"] for _ in range(c.get("count", 1))]
    rng_for(state).shuffle(deck)
    hands = dict(hands or {})
    for pid in hands:
        if pid not in ids:
            raise SetupError(f"setup hands: {pid!r} is not a racer")
    dealt = {}
    for pid, cards_ in hands.items():
        dealt[pid] = [_pull(deck, c, f"setup hands of {pid}") for c in cards_]
    top = [_pull(deck, c, "setup deck_top") for c in (deck_top or [])]
    deck = top + deck
    for k in range(n):
        s = seats[(first + k) % n]
        if s["id"] not in dealt:
            dealt[s["id"]] = [deck.pop(0) for _ in range(6)]
    state["deck"] = deck

    # Start hexes (Setup 4): from the last player counter-clockwise: 2 on -1, 2 on -2, the rest on -3.
    order = [(first + k) % n for k in range(n)]
    start = {}
    for rank, idx in enumerate(reversed(order)):
        start[idx] = -1 if rank < 2 else (-2 if rank < 4 else -3)
    if variant == "treasure":
        bases = lay["treasure_bases"][:n]
        if len(bases) < n:
            raise SetupError("Treasure Hunt: the layout needs a Base tile per player")
        start = {i: bases[i] for i in range(n)}
    positions = dict(positions or {})
    for i, s in enumerate(seats):
        pos = positions.pop(s["id"], start[i])
        state["racers"].append({
            "id": s["id"], "human": s["human"], "racer": s["racer"], "difficulty": s.get("difficulty"),
            "pos": int(pos), "hand": dealt[s["id"]], "powers": [],
            "tokens": 3 if variant == "treasure" else 0, "taken": [], "immune": False,
            "boost": int((boost or {}).get(s["id"], 0)),
        })
    if positions:
        raise SetupError(f"setup positions: unknown racers {sorted(positions)}")
    for hunter, preys in (taken or {}).items():  # Treasure Hunt mid-game: tokens already taken
        if variant != "treasure" or hunter not in ids or any(p not in ids or p == hunter for p in preys):
            raise SetupError("setup taken: {hunter: [prey, ...]} between Treasure Hunt players")
        for prey in preys:
            state["racers"][ids.index(hunter)]["taken"].append(prey)
            state["racers"][ids.index(prey)]["tokens"] -= 1

    # Dodo-Idol Power deck (Setup 7); Treasure Hunt: each player takes a random one.
    pdeck = [p["id"] for p in cat["powers"]]
    rng_for(state).shuffle(pdeck)
    pdeck = [_pull(pdeck, p, "setup power_deck_top") for p in (power_deck_top or [])] + pdeck
    if variant == "treasure":
        for r in state["racers"]:
            r["powers"].append(pdeck.pop(0))
    state["power_deck"] = pdeck

    # Traps and Charms in Other Tracks: "For a more Charming experience you may want to mix Traps and
    # Charms all over the place": tiles go wherever the layout has their hexes, whatever the board
    # (the default Jungle layouts have only traps, the Temple ones only charms).
    if lay["traps"]:
        tiles = [t["id"] for t in cat["traps"]]
        rng_for(state).shuffle(tiles)
        fixed = {int(k): v for k, v in (traps or {}).items()}
        for h in sorted(lay["traps"]):
            tile = _pull(tiles, fixed[h], "setup traps") if h in fixed else tiles.pop(0)
            state["traps"][str(h)] = {"tile": tile, "revealed": False}
        state["box"].extend(["trap:" + t for t in tiles])
    if (board == "temple" or lay["charms"]) and variant != "treasure":
        ctiles = [t["id"] for t in cat["charm_tiles"]]
        rng_for(state).shuffle(ctiles)
        fixed = {int(k): v for k, v in (charm_tiles or {}).items()}
        for h in sorted(lay["charms"]):
            tile = _pull(ctiles, fixed[h], "setup charm_tiles") if h in fixed else ctiles.pop(0)
            state["charm_hexes"][str(h)] = {"tile": tile, "revealed": False}
        state["charm_pool"] = ctiles
        cdeck = [c["id"] for c in cat["charms"]]
        rng_for(state).shuffle(cdeck)
        state["charm_deck"] = [_pull(cdeck, c, "setup charm_deck_top") for c in (charm_deck_top or [])] + cdeck
    for r in state["racers"]:
        if tr.loop is False and r["pos"] < tr.min_progress:
            raise SetupError("setup positions: off the track")
    return state


def _pull(pool: list, item: str, what: str) -> str:
    if item not in pool:
        raise SetupError(f"{what}: no {item!r} left to take (check the catalogue and its counts)")
    pool.remove(item)
    return item
