"""Piece and card dimensions in mm (``specs.yaml`` beside this file), overridable per user.

Every value is a documented default; a user's file with the same keys replaces only the keys it
gives. Frame: sizes are physical, in mm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from calibration.yamlfile import merge, read_mapping
from typing import Any

SPECS_PATH = Path(__file__).resolve().parent / "specs.yaml"
SHAPES = ("disc", "block", "card", "figure", "token", "hex")


class SpecsError(ValueError):
    """A specs file is unreadable or invalid; the message names the file and key."""


@dataclass(frozen=True)
class Piece:
    """One component: ``diameter`` (mm) for round things, ``size`` (length, width) for blocks and
    cards, ``height`` (mm above the mat of its top face)."""

    game: str
    name: str
    shape: str
    diameter: float = 0.0
    size: tuple = ()
    height: float = 0.0
    count: int = 0
    colours: tuple = ()
    faces: tuple = ()

    @property
    def radius(self) -> float:
        return self.diameter / 2.0


@dataclass(frozen=True)
class Specs:
    pieces: dict = field(default_factory=dict)  # "game/name" -> Piece
    measures: dict = field(default_factory=dict)  # name -> mm

    def piece(self, game: str, name: str) -> Piece:
        key = f"{game}/{name}"
        if key not in self.pieces:
            raise SpecsError(f"no piece {key!r} in the specs; known: {', '.join(sorted(self.pieces))}")
        return self.pieces[key]

    def of_game(self, game: str) -> dict[str, Piece]:
        return {p.name: p for p in self.pieces.values() if p.game == game}

    @property
    def short_card_mm(self) -> float:
        return self.measures["short-card-length"]

    @property
    def long_card_mm(self) -> float:
        return self.measures["long-card-length"]

    @property
    def placement_gap_mm(self) -> float:
        return self.measures["standard-placement-gap"]


def _read_yaml(path: Path) -> dict:
    return read_mapping(path, SpecsError, "a mapping of games to pieces")


def load_specs(override: str | Path | None = None) -> Specs:
    """The shipped specs, with ``override`` (a user's YAML with any subset of the keys) applied."""
    data = _read_yaml(SPECS_PATH)
    source = str(SPECS_PATH)
    if override is not None:
        data = merge(data, _read_yaml(Path(override)))
        source = str(override)
    return parse_specs(data, source)


def parse_specs(data: dict, source: str = "<specs>") -> Specs:
    def num(value: Any, key: str, positive: bool = True) -> float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or (positive and value <= 0) or value < 0:
            raise SpecsError(f"{source}: {key}: expected a {'positive ' if positive else ''}number of mm, got {value!r}")
        return float(value)

    pieces = {}
    measures = {}
    for game, items in data.items():
        if game == "schema":
            continue
        if not isinstance(items, dict):
            raise SpecsError(f"{source}: {game}: expected a mapping of pieces")
        if game == "measures":
            for name, value in items.items():
                measures[name] = num(value, f"measures.{name}")
            continue
        for name, spec in items.items():
            key = f"{game}.{name}"
            if not isinstance(spec, dict) or spec.get("shape") not in SHAPES:
                raise SpecsError(f"{source}: {key}.shape: expected one of {', '.join(SHAPES)}, got {spec.get('shape') if isinstance(spec, dict) else spec!r}")
            diameter = num(spec["diameter"], f"{key}.diameter") if "diameter" in spec else 0.0
            size = spec.get("size", ())
            if size:
                if not (isinstance(size, list) and len(size) == 2):
                    raise SpecsError(f"{source}: {key}.size: expected [length, width] in mm, got {size!r}")
                size = tuple(num(s, f"{key}.size") for s in size)
            if not diameter and not size:
                raise SpecsError(f"{source}: {key}: expected a diameter or a size")
            height = num(spec.get("height", 0.0), f"{key}.height", positive=False)
            pieces[f"{game}/{name}"] = Piece(game, name, spec["shape"], diameter, tuple(size), height,
                                             int(spec.get("count", 0)), tuple(spec.get("colours", ())),
                                             tuple(spec.get("faces", ())))
    for needed in ("short-card-length", "long-card-length", "standard-placement-gap"):
        if needed not in measures:
            raise SpecsError(f"{source}: measures.{needed}: expected a number of mm, missing")
    return Specs(pieces, measures)
