"""Dogo Dash reveals, frame **mat mm**: one card dealt face down into each player's seat zone (the
board's ``seats`` for that many players), all turned face up together at ``reveal_at_s``. No
physics: the cards lie still; the frames show them face down, then face up.

Cards are drawn from a shuffled deck with the rulebook's counts (``dogo-dash.deck``: 22 Cats, 18 Dogs,
12 Bears, 4 Cookies, 4 Good Boys). A card lies within ``deal_jitter_mm`` / ``deal_jitter_deg`` of its
seat zone's centre, long side across the table. ``make_near_miss``: one card lies so that its
footprint's farthest corner is -3..3 mm from its seat zone's edge (> 0 wholly inside) -
``meta['intended_margin_mm']``.

Piece ids: ``card-<seat number>`` (attributes ``seat``: region name, ``player``, ``card``: kind,
``face_up``: bool) and ``deck`` (the draw pile, face down, ``count``).
"""

from __future__ import annotations

import math

from sim.physics import Run
from sim.scenarios.common import Scenario, ScenarioError, piece, scene_of
from sim.scene import PieceState, Scene

GAME = "dogo-dash"
CARD_KINDS = ("cat", "dog", "bear", "cookie", "good-boy")


def _deck(rng, cfg) -> list:
    cards = [kind for kind, n in cfg.dogo_dash.deck.items() for _ in range(int(n))]
    unknown = set(cards) - set(CARD_KINDS)
    if unknown:
        raise ScenarioError(f"dogo-dash.deck names unknown card kinds {sorted(unknown)}; use {', '.join(CARD_KINDS)}")
    return [cards[i] for i in rng.permutation(len(cards))]


def _frames(game, board, pieces: list, cfg, reveal_at: float) -> list:
    dcfg = cfg.dogo_dash
    n = int(round(dcfg.duration_s * dcfg.fps)) + 1
    frames = []
    for k in range(n):
        t = round(k / dcfg.fps, 9)
        up = t >= reveal_at
        ps = []
        for p in pieces:
            attrs = dict(p.attributes)
            if attrs.get("seat"):
                attrs["face_up"] = up
            ps.append(PieceState(p.id, p.kind, p.x, p.y, p.radius, p.height, p.angle_deg, p.size, p.z, 0.0, 0.0, attrs))
        frames.append(Scene(game, board.ref, ps, t))
    return frames


def _card_at(specs, pid, x, y, angle, **attrs) -> PieceState:
    return piece(specs, GAME, "card", pid, x, y, angle, **attrs)


def _deck_piece(specs, board, remaining: int):
    regions = board.regions_of_kind("deck")
    if not regions:
        return None
    c = regions[0].geometry.centroid
    return _card_at(specs, "deck", c.x, c.y, 90.0, deck=True, count=remaining, face_up=False)


def _run(game, board, pieces, cfg, reveal_at) -> Run:
    frames = _frames(game, board, pieces, cfg, reveal_at)
    return Run(frames, [], [], reveal_at, cfg.dogo_dash.fps)


def make_reveal(rng, board, specs, cfg, players: int | None = None, seed: int = 0, cards: tuple | None = None) -> Scenario:
    """``players`` (2-5; random when None) cards dealt to the seat zones and revealed together;
    ``cards`` gives each seat's card kind (None: no card at that seat this round), else they are
    drawn from a shuffled deck."""
    dcfg = cfg.dogo_dash
    if cards is not None:
        players = len(cards)
    players = int(rng.integers(dcfg.players[0], dcfg.players[1] + 1)) if players is None else int(players)
    if players not in board.seats:
        raise ScenarioError(f"{board.ref} has seat zones for {sorted(board.seats)} players, not {players}")
    deck = _deck(rng, cfg)
    pieces = []
    for i, seat in enumerate(board.seats[players], start=1):
        if cards is not None and cards[i - 1] is None:
            continue
        x0, y0, x1, y1 = board.region(seat).geometry.bounds
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        portrait = (y1 - y0) >= (x1 - x0)
        j = dcfg.deal_jitter_mm
        angle = (90.0 if portrait else 0.0) + float(rng.uniform(-dcfg.deal_jitter_deg, dcfg.deal_jitter_deg))
        pieces.append(_card_at(specs, f"card-{i}", cx + float(rng.uniform(-j, j)), cy + float(rng.uniform(-j, j)), angle,
                               seat=seat, player=i, card=cards[i - 1] if cards is not None else deck.pop(), face_up=False))
    deck_piece = _deck_piece(specs, board, len(deck))
    if deck_piece is not None:
        pieces.append(deck_piece)
    meta = {"players": players, "reveal_at_s": dcfg.reveal_at_s,
            "cards": {p.attributes["seat"]: p.attributes["card"] for p in pieces if p.attributes.get("seat")}}
    initial = scene_of(GAME, board, pieces)
    return Scenario(GAME, board.ref, "dogo-dash/reveal", seed, initial, [], _run(GAME, board, pieces, cfg, dcfg.reveal_at_s), meta)


def make_near_miss(rng, board, specs, cfg, seed: int = 0) -> Scenario:
    """A reveal where one card's farthest corner lies ``margin`` mm inside (+) / outside (-) its
    seat zone (the card slid towards a zone edge)."""
    scn = make_reveal(rng, board, specs, cfg, seed=seed)
    cards = [p for p in scn.initial.pieces if p.attributes.get("seat")]
    card = cards[int(rng.integers(len(cards)))]
    margin = float(rng.uniform(-3.0, 3.0))
    zone = board.region(card.attributes["seat"]).geometry
    from shapely import affinity, box

    length, width = card.size
    direction = float(rng.uniform(-math.pi, math.pi))
    ux, uy = math.cos(direction), math.sin(direction)

    def inside_margin(s: float) -> float:  # min over corners of the distance inside the zone
        x, y = card.x + s * ux, card.y + s * uy
        fp = affinity.rotate(box(x - length / 2, y - width / 2, x + length / 2, y + width / 2), card.angle_deg, origin=(x, y))
        if zone.contains(fp):
            return float(min(zone.exterior.distance(_pt(px, py)) for px, py in fp.exterior.coords))
        return -float(max(zone.distance(_pt(px, py)) for px, py in fp.exterior.coords))

    lo, hi = 0.0, 200.0
    if inside_margin(lo) < margin:
        raise ScenarioError("the dealt card is already past the near-miss margin")
    for _ in range(60):  # the card's margin falls as it slides out: bisect for the wanted one
        mid = (lo + hi) / 2
        if inside_margin(mid) > margin:
            lo = mid
        else:
            hi = mid
    s = (lo + hi) / 2
    card.x, card.y = card.x + s * ux, card.y + s * uy
    pieces = scn.initial.pieces
    scn.run = _run(GAME, board, pieces, cfg, cfg.dogo_dash.reveal_at_s)
    scn.kind = "dogo-dash/near-miss"
    scn.meta.update(near_miss="seat-edge", intended_margin_mm=margin, card=card.id)
    return scn


def _pt(x, y):
    from shapely.geometry import Point

    return Point(x, y)
