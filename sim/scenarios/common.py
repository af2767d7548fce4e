"""What every game's scenarios share, frame **mat mm**: the :class:`Scenario` record, pieces built
from the specs, random non-overlapping placement, and the flick speed that stops a piece after
an exact distance on the mat (inverting the same discrete Coulomb integration the physics runs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sim.scene import PieceState, Scene


class ScenarioError(ValueError):
    """A scenario could not be set up (no room to place a piece, unknown kind...); says what to change."""


@dataclass
class Scenario:
    """One scene set up and played. ``initial`` is the table before anything moves, ``actions``
    what the players did (physics actions), ``run`` the simulated result (:class:`sim.physics.Run`),
    ``meta`` the JSON-able facts of the set-up the ground truth needs (the declared action, the
    actor, the target region, the ball carrier, the intended near-miss margin...)."""

    game: str
    board: str
    kind: str
    seed: int
    initial: Scene
    actions: list
    run: object
    meta: dict = field(default_factory=dict)

    @property
    def final(self) -> Scene:
        return self.run.final


def piece(specs, game: str, kind: str, pid: str, x: float, y: float, angle_deg: float = 0.0, z: float = 0.0,
          spec_kind: str | None = None, **attributes) -> PieceState:
    """A piece at base centre (x, y) mat mm with its size from the specs (``spec_kind`` when the
    specs name differs from the scene kind)."""
    spec = specs.piece(game, spec_kind or kind)
    size = tuple(spec.size) if spec.size else ()
    return PieceState(pid, kind, float(x), float(y), spec.radius, spec.height, float(angle_deg), size, float(z),
                      attributes=dict(attributes))


def play_area(board):
    """The area a piece must stay (partly) in, as a shapely geometry in mat mm: the board's
    ``play-area`` region when it has one, else the whole mat."""
    from shapely import box

    areas = board.regions_of_kind("play-area")
    if areas:
        return areas[0].geometry
    return box(0.0, 0.0, board.length_mm, board.width_mm)


def unit(angle_rad: float) -> tuple:
    return math.cos(angle_rad), math.sin(angle_rad)


def free_spot(rng, area, radius: float, taken: list, forbid=None, gap: float = 2.0, tries: int = 400) -> tuple:
    """A random (x, y) mat mm where a disc of ``radius`` lies inside ``area`` (shapely), clear of
    ``forbid`` (shapely or None) and at least ``gap`` mm from every (x, y, r) in ``taken``."""
    from shapely.geometry import Point

    inner = area.buffer(-radius)
    if inner.is_empty:
        raise ScenarioError(f"no room for a piece of radius {radius:g} mm in the area; use a larger board")
    x0, y0, x1, y1 = inner.bounds
    for _ in range(tries):
        x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
        if not inner.contains(Point(x, y)):
            continue
        if forbid is not None and forbid.distance(Point(x, y)) < radius + gap:
            continue
        if all(math.hypot(x - tx, y - ty) >= radius + tr + gap for tx, ty, tr in taken):
            return x, y
    raise ScenarioError(f"could not place a piece of radius {radius:g} mm after {tries} tries; use fewer pieces or a larger area")


def clear_of(x: float, y: float, r: float, taken: list, gap: float = 0.0) -> bool:
    return all(math.hypot(x - tx, y - ty) >= r + tr + gap for tx, ty, tr in taken)


def slide_distance(v0: float, mu: float, g: float, dt: float) -> float:
    """mm a piece flicked at ``v0`` mm/s slides on the mat under the physics' discrete Coulomb
    integration (position advanced with the current speed, then the speed cut by mu*g*dt)."""
    a = mu * g * dt
    if v0 <= 0:
        return 0.0
    n = int(math.floor(v0 / a))  # speeds v0, v0 - a, ..., v0 - n a are all > 0 (the last may be 0)
    return dt * ((n + 1) * v0 - a * n * (n + 1) / 2.0)


def stop_speed(distance: float, mu: float, g: float, dt: float) -> float:
    """The flick speed (mm/s) after which a free piece stops exactly ``distance`` mm away."""
    if distance <= 0:
        return 0.0
    lo, hi = 0.0, math.sqrt(2.0 * mu * g * distance) + 10.0 * mu * g * dt + 10.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if slide_distance(mid, mu, g, dt) < distance:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def corridor(x0: float, y0: float, x1: float, y1: float, half_width: float):
    """The strip (shapely, mat mm) a piece of radius ``half_width`` sweeps from (x0, y0) to (x1, y1)."""
    from shapely.geometry import LineString

    return LineString([(x0, y0), (x1, y1)]).buffer(half_width)


def scene_of(game: str, board, pieces: list, t: float = 0.0) -> Scene:
    return Scene(game, board.ref, list(pieces), t)
