"""The judge's measure tool, as calls into the referee (no geometry here): the edge-to-edge gap of two
pieces in mm and in card lengths (:func:`referee.distance.distance_calls`), and how far a piece
overlaps a region (:func:`referee.overlap.overlap_calls`). Also the footprint radius of each engine
piece from the piece specs, so the pages draw pieces at their real size."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from webui.record import InputError


@lru_cache(maxsize=1)
def _specs():
    from calibration.specs import load_specs

    return load_specs()


def piece_radii(game: str, state: dict) -> dict:
    """{engine piece id: footprint radius in mm} for pieces whose spec is known (Dino Dunk discs by
    their card's size, the ball)."""
    specs = _specs()
    known = specs.of_game(game) if game in ("dino-dunk", "dodo-dash", "morris", "dogo-dash") else {}
    out = {}
    pieces = state.get("pieces")
    if isinstance(pieces, dict):
        for pid, p in pieces.items():
            kind = f"disc-{p.get('size')}" if isinstance(p, dict) else ""
            if kind in known:
                out[pid] = known[kind].radius
    if "ball" in known:
        out["ball"] = known["ball"].radius
    return out


def _piece(value: Any, name: str) -> tuple:
    """"x,y,r" (mat mm) → (x, y, r)."""
    try:
        x, y, r = (float(v) for v in str(value).split(","))
    except ValueError:
        raise InputError(f"{name}: expected x,y,r in mat mm (three numbers)") from None
    if not all(math.isfinite(v) for v in (x, y, r)) or r <= 0 or r > 500:
        raise InputError(f"{name}: expected finite x,y and a radius 0 < r <= 500 mm")
    return x, y, r


def measure(board, a: str, b: str | None = None, region: str | None = None, sigma: float = 0.0,
            names: tuple = ("a", "b")) -> dict:
    from referee.config import load_config
    from referee.distance import distance_calls
    from referee.overlap import overlap_calls

    if not (0.0 <= sigma <= 100.0):
        raise InputError("sigma: expected 0..100 mm")
    k = load_config().k
    xa, ya, ra = _piece(a, "a")
    if (b is None) == (region is None):
        raise InputError("give either b (a second piece) or region (a region name of the board)")
    if b is not None:
        xb, yb, rb = _piece(b, "b")
        v = distance_calls([[xa, ya]], [ra], [sigma], [[xb, yb]], [rb], [sigma], k=k,
                           names_a=[names[0]], names_b=[names[1]])[0]
        specs = _specs()
        gap = float(v.value)
        return {"kind": "distance", "gap_mm": gap, "short_cards": gap / specs.short_card_mm,
                "long_cards": gap / specs.long_card_mm, "short_card_mm": specs.short_card_mm,
                "long_card_mm": specs.long_card_mm, "verdict": v.to_dict()}
    reg = board.region(region)
    v = overlap_calls([[xa, ya]], [ra], [sigma], reg, k=k, names=[names[0]], region_name=region)[0]
    return {"kind": "overlap", "overlap_mm": float(v.margin), "overlaps": v.margin > 0, "verdict": v.to_dict()}
