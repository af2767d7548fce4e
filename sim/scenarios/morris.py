"""Morris the Dodo slides, frame **mat mm**: the toucan stops in the landing area at the foot of the
waterfall and the one or two egg tokens it carried fly off its front, land (whole or broken side up
with probability ``morris.p_broken``, a random rotation and spin) and slide to a stop nearby.

The face is decided by the random draw, not simulated (a thin token's flip is not modelled); the
spot and rotation come from the physics. ``make_near_miss``: one egg slides straight so that its
edge stops -3..3 mm from the landing area's boundary (> 0 inside) - ``meta['intended_margin_mm']``.

Piece ids: ``toucan`` (static figure), ``egg-1``, ``egg-2`` (attributes ``colour``, ``face``:
whole | broken).
"""

from __future__ import annotations

import math

from sim.physics import Flick, Launch, simulate
from sim.scenarios.common import Scenario, ScenarioError, piece, play_area, scene_of, stop_speed

GAME = "morris"


def _landing(board):
    areas = board.regions_of_kind("landing")
    if not areas:
        raise ScenarioError(f"{board.ref} has no region of kind 'landing'; add the landing area to the board file")
    return areas[0]


def _waterfall_foot(board) -> tuple:
    falls = board.regions_of_kind("waterfall")
    if falls:
        x0, y0, x1, y1 = falls[0].geometry.bounds
        return (x0 + x1) / 2, y1
    c = _landing(board).geometry.centroid
    return c.x, c.y - 100.0


def _egg(rng, specs, cfg, i: int, x: float, y: float, p_broken: float, colour: str | None = None):
    colour = colour or str(rng.choice(list(cfg.morris.colours)))
    face = "broken" if rng.random() < p_broken else "whole"
    return piece(specs, GAME, "egg", f"egg-{i}", x, y, float(rng.uniform(0, 360)), colour=colour, face=face)


def make_slide(rng, board, specs, cfg, eggs: int | None = None, p_broken: float | None = None, seed: int = 0,
               colours: tuple | None = None) -> Scenario:
    """The toucan's slide with ``eggs`` (1 or 2; random from ``morris.eggs`` when None) eggs, of the
    given ``colours`` (random when None; its length then sets ``eggs``)."""
    if colours is not None:
        eggs = len(colours)
    mcfg = cfg.morris
    p_broken = mcfg.p_broken if p_broken is None else float(p_broken)
    if not 0.0 <= p_broken <= 1.0:
        raise ScenarioError(f"p_broken must be a probability in [0, 1], got {p_broken}")
    eggs = int(rng.integers(mcfg.eggs[0], mcfg.eggs[1] + 1)) if eggs is None else int(eggs)
    if eggs not in (1, 2):
        raise ScenarioError(f"a slide carries 1 egg (2 in the Big Rush variant), not {eggs}")
    land = _landing(board).geometry
    fx, fy = _waterfall_foot(board)
    r_t = specs.piece(GAME, "toucan").radius
    from shapely.geometry import Point

    inner = land.buffer(-r_t - 60.0)
    if inner.is_empty:
        inner = land.buffer(-r_t)
    x0, y0, x1, y1 = inner.bounds
    for _ in range(400):
        tx, ty = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
        if inner.contains(Point(tx, ty)):
            break
    else:
        raise ScenarioError("no room for the toucan in the landing area")
    toucan = piece(specs, GAME, "toucan", "toucan", tx, ty, float(rng.uniform(0, 360)), static=True)
    heading = math.atan2(ty - fy, tx - fx)
    pieces, actions = [toucan], []
    r_e = specs.piece(GAME, "egg").radius
    for i in range(1, eggs + 1):
        a = heading + math.radians(float(rng.uniform(-mcfg.spread_deg, mcfg.spread_deg)))
        reach = r_t + r_e + 1.0  # both fly off the front edge
        side = (i - 1.5) * (2 * r_e + 2) if eggs == 2 else 0.0  # head and a wing: side by side
        ex = tx + reach * math.cos(a) - side * math.sin(a)
        ey = ty + reach * math.sin(a) + side * math.cos(a)
        egg = _egg(rng, specs, cfg, i, ex, ey, p_broken, colours[i - 1] if colours else None)
        z = float(rng.uniform(*mcfg.fall_height_mm))
        v = float(rng.uniform(*mcfg.slide_speed_mm_s))
        egg.z = z
        pieces.append(egg)
        actions.append(Launch(egg.id, ex, ey, z, v * math.cos(a), v * math.sin(a), 0.0, bounce=0.5))
        actions.append(Flick(egg.id, v * math.cos(a), v * math.sin(a), spin=float(rng.normal(0.0, 6.0))))
    # the flick only adds spin (same velocity): sort keeps Launch then Flick at t = 0
    initial = scene_of(GAME, board, pieces)
    run = simulate(initial, actions, cfg.physics, play_area(board))
    meta = {"eggs": eggs, "p_broken": p_broken, "faces": {p.id: p.attributes["face"] for p in pieces if p.kind == "egg"},
            "toucan": [tx, ty]}
    return Scenario(GAME, board.ref, "morris/slide", seed, initial, actions, run, meta)


def make_near_miss(rng, board, specs, cfg, seed: int = 0) -> Scenario:
    """One egg slides straight so its edge stops ``margin`` mm inside (+) / outside (-) the landing area."""
    ph = cfg.physics
    margin = float(rng.uniform(-3.0, 3.0))
    region = _landing(board)
    land = region.geometry
    boundary = land.exterior
    mat_inner = play_area(board).buffer(-40.0)
    r_e = specs.piece(GAME, "egg").radius
    from shapely.geometry import Point

    for _ in range(400):
        # a point on the boundary that is not the mat edge, and the inward normal there
        s = float(rng.uniform(0, boundary.length))
        bp = boundary.interpolate(s)
        ahead = boundary.interpolate((s + 0.5) % boundary.length)
        tx_, ty_ = ahead.x - bp.x, ahead.y - bp.y
        n = math.hypot(tx_, ty_) or 1.0
        nx, ny = -ty_ / n, tx_ / n
        if not land.contains(Point(bp.x + nx * 2, bp.y + ny * 2)):
            nx, ny = -nx, -ny
        cx, cy = bp.x + nx * (margin - r_e), bp.y + ny * (margin - r_e)  # edge `margin` inside
        travel = float(rng.uniform(60.0, 200.0))
        sx, sy = cx - nx * travel, cy - ny * travel  # approach from outside, straight inward
        probe = Point(cx, cy).buffer(r_e + 4)
        if mat_inner.contains(Point(sx, sy)) and mat_inner.contains(probe) and abs(region_distance(land, cx, cy) - (r_e - margin)) < 1e-3:
            break
    else:
        raise ScenarioError("no room for a near-miss egg at the landing area's edge")
    egg = _egg(rng, specs, cfg, 1, sx, sy, cfg.morris.p_broken)
    mu = ph.kind("egg").table_mu or ph.table_mu
    v = stop_speed(travel, mu, ph.gravity_mm_s2, ph.dt_s)
    actions = [Flick(egg.id, v * nx, v * ny)]
    initial = scene_of(GAME, board, [egg])
    run = simulate(initial, actions, ph, play_area(board))
    meta = {"eggs": 1, "near_miss": "landing-edge", "intended_margin_mm": margin, "faces": {egg.id: egg.attributes["face"]}}
    return Scenario(GAME, board.ref, "morris/near-miss", seed, initial, actions, run, meta)


def region_distance(geom, x: float, y: float) -> float:
    """Signed distance (mm) from (x, y) to the region: > 0 outside, < 0 inside."""
    from shapely.geometry import Point

    p = Point(x, y)
    return -float(geom.boundary.distance(p)) if geom.contains(p) else float(geom.distance(p))
