"""Dino Dunk scenes, frame **mat mm**: two teams of five discs, the ball (its own tiny token), the
backboard blocks (static, optional), and one flicked action played by the physics.

Each ``make_*`` takes a numpy Generator, the board, the specs and the :class:`sim.config.SimConfig`
and returns a :class:`Scenario` whose ``meta`` says what was declared:

- ``make_shot``: a Shoot (ball flicked at the target zone), a Pass (ball flicked at a team-mate),
  a Dunk (ball carried on top of its carrier, at the edge nearest the zone, the carrier flicked) or
  a Move (a disc flicked), with aim noise and speeds that sometimes fall short or overshoot.
- ``make_foul``: a disc flicked at the ball carrier, directly, through another disc (a chain), or
  aimed to pass close by.
- ``make_near_miss``: the ball stops with its edge 0-3 mm inside or outside the scoring zone, or a
  disc stops at an edge-to-edge gap within 3 mm of a card length from another disc (no aim noise:
  the flick speed inverts the discrete friction exactly).

A team attacks the *opponent's* scoring zone (the region whose ``team`` is the other side); home's
end is its own zone. Piece ids: ``home:1`` … ``away:5`` (attributes ``team``, ``size``), ``ball``,
``backboard-home`` / ``backboard-away``.
"""

from __future__ import annotations

import math

from sim.physics import Carry, Flick, simulate
from sim.scenarios.common import (Scenario, ScenarioError, clear_of, corridor, free_spot, piece, play_area, scene_of,
                                  stop_speed)

GAME = "dino-dunk"
SIDES = ("home", "away")
SHOT_KINDS = ("shoot", "pass", "dunk", "move")
FOUL_MODES = ("direct", "chain", "close")
NEAR_MISS_KINDS = ("zone-edge", "card-gap", "three-point", "placement-gap")


def other(side: str) -> str:
    return "away" if side == "home" else "home"


def zone(board, side: str):
    """The scoring-zone region of ``side`` (the zone at that side's end)."""
    for r in board.regions_of_kind("scoring-zone"):
        if r.team == side:
            return r
    raise ScenarioError(f"{board.ref} has no scoring-zone region for team {side!r}; add one in the board file")


def _zone_circle(region) -> tuple:
    if region.shape == "circle":
        return tuple(float(v) for v in region.params)
    c = region.geometry.centroid
    return c.x, c.y, math.sqrt(region.geometry.area / math.pi)


def _forbidden(board, extra=None):
    """Scoring zones and backboards: no disc may rest on them (rulebook: slide out of the zone)."""
    from shapely.ops import unary_union

    geoms = [r.geometry for r in board.regions.values() if r.kind in ("scoring-zone", "backboard")]
    if extra is not None:
        geoms.append(extra)
    return unary_union(geoms)


def _backboards(board, specs) -> list:
    out = []
    for r in board.regions_of_kind("backboard"):
        x0, y0, x1, y1 = r.geometry.bounds
        angle = 90.0 if (y1 - y0) > (x1 - x0) else 0.0
        out.append(piece(specs, GAME, "backboard", f"backboard-{r.team or r.name}", (x0 + x1) / 2, (y0 + y1) / 2, angle,
                         team=r.team, static=True))
    return out


def _roster(cfg) -> list:
    return list(cfg.dino_dunk.roster)[: cfg.dino_dunk.pieces_per_team]


def _disc(specs, side: str, i: int, kind: str, x: float, y: float) -> object:
    return piece(specs, GAME, kind, f"{side}:{i}", x, y, team=side, size=kind.replace("disc-", ""))


def _fill(rng, board, specs, cfg, fixed: list, keep_clear=None) -> list:
    """Every disc of both rosters not already in ``fixed`` placed at random (clear of zones,
    backboards, the fixed pieces and ``keep_clear``)."""
    area = play_area(board)
    forbid = _forbidden(board, keep_clear)
    taken = [(p.x, p.y, p.radius) for p in fixed]
    have = {p.id for p in fixed}
    out = list(fixed)
    for side in SIDES:
        for i, kind in enumerate(_roster(cfg), start=1):
            pid = f"{side}:{i}"
            if pid in have:
                continue
            r = specs.piece(GAME, kind).radius
            x, y = free_spot(rng, area, r, taken, forbid, gap=3.0)
            taken.append((x, y, r))
            out.append(_disc(specs, side, i, kind, x, y))
    if "ball" not in have:  # a loose ball somewhere on the court
        r = specs.piece(GAME, "ball").radius
        x, y = free_spot(rng, area, r, taken, forbid, gap=3.0)
        out.append(piece(specs, GAME, "ball", "ball", x, y))
    return out


def _court_direction(board, zc: tuple) -> float:
    """Angle (rad) from a zone's centre towards the middle of the mat."""
    return math.atan2(board.width_mm / 2 - zc[1], board.length_mm / 2 - zc[0])


def _spot_near_zone(rng, board, zc, dist_range, radius, taken, forbid, spread_deg=65.0, tries=300) -> tuple:
    area = play_area(board).buffer(-radius - 2.0)
    from shapely.geometry import Point

    base = _court_direction(board, zc)
    for _ in range(tries):
        d = float(rng.uniform(*dist_range))
        a = base + math.radians(float(rng.uniform(-spread_deg, spread_deg)))
        x, y = zc[0] + d * math.cos(a), zc[1] + d * math.sin(a)
        if area.contains(Point(x, y)) and forbid.distance(Point(x, y)) >= radius + 2.0 and clear_of(x, y, radius, taken, 3.0):
            return x, y
    raise ScenarioError("could not place the shooter near the zone; widen dino-dunk.shot_distance_mm")


def _adjacent(rng, cx, cy, r_c, r_b, toward: float, cfg, spread_deg=50.0) -> tuple:
    gap = float(rng.uniform(*cfg.dino_dunk.placement_gap_mm))
    a = toward + math.radians(float(rng.uniform(-spread_deg, spread_deg)))
    d = r_c + gap + r_b
    return cx + d * math.cos(a), cy + d * math.sin(a), gap


def _finish(board, cfg, kind, seed, pieces, actions, meta) -> Scenario:
    initial = scene_of(GAME, board, pieces)
    run = simulate(initial, actions, cfg.physics, play_area(board))
    return Scenario(GAME, board.ref, kind, seed, initial, actions, run, meta)


def _aimed(rng, cfg, fx, fy, tx, ty, factor_range, kind: str = "ball") -> tuple:
    """Flick velocity (mm/s) from (fx, fy) at (tx, ty) with aim noise, stopping ``factor`` times the
    distance (free slide)."""
    ph = cfg.physics
    aim = math.atan2(ty - fy, tx - fx) + math.radians(float(rng.normal(0.0, cfg.dino_dunk.aim_sigma_deg)))
    dist = math.hypot(tx - fx, ty - fy) * float(rng.uniform(*factor_range))
    mu = ph.kind(kind).table_mu or ph.table_mu
    v = min(stop_speed(dist, mu, ph.gravity_mm_s2, ph.dt_s), cfg.dino_dunk.flick_speed_mm_s[1] * 1.5)
    return v * math.cos(aim), v * math.sin(aim)


def make_shot(rng, board, specs, cfg, kind: str | None = None, seed: int = 0) -> Scenario:
    """A Shoot, Pass, Dunk or Move (``kind``; random when None) by the offense."""
    kind = kind or str(rng.choice(SHOT_KINDS))
    if kind not in SHOT_KINDS:
        raise ScenarioError(f"unknown Dino Dunk action {kind!r}; expected one of {', '.join(SHOT_KINDS)}")
    offense = str(rng.choice(SIDES))
    target = zone(board, other(offense))
    zc = _zone_circle(target)
    backboards = _backboards(board, specs) if rng.random() < 0.5 else []
    forbid = _forbidden(board)
    roster = _roster(cfg)
    i_actor = int(rng.integers(1, len(roster) + 1))
    actor_kind = roster[i_actor - 1]
    r_a = specs.piece(GAME, actor_kind).radius
    r_b = specs.piece(GAME, "ball").radius
    taken = [(p.x, p.y, max(p.size) / 2) for p in backboards]
    meta = {"action": kind, "offense": offense, "target_zone": target.name, "actor": f"{offense}:{i_actor}",
            "backboard": bool(backboards)}
    dist = cfg.dino_dunk.shot_distance_mm
    if kind == "dunk":
        dist = (zc[2] + r_a + 30.0, zc[2] + r_a + 220.0)
    ax, ay = _spot_near_zone(rng, board, zc, dist, r_a, taken, forbid)
    actor = _disc(specs, offense, i_actor, actor_kind, ax, ay)
    to_zone = math.atan2(zc[1] - ay, zc[0] - ax)
    fixed = [*backboards, actor]
    actions = []
    if kind == "dunk":
        off = r_a - r_b
        ball = piece(specs, GAME, "ball", "ball", ax + off * math.cos(to_zone), ay + off * math.sin(to_zone), z=actor.height)
        ball.attributes["carried_by"] = actor.id
        fixed.append(ball)
        vx, vy = _aimed(rng, cfg, ax, ay, zc[0], zc[1], (0.6, 1.2), actor.kind)
        dd = cfg.dino_dunk
        actions = [Carry("ball", actor.id, off * math.cos(to_zone), off * math.sin(to_zone), dd.carry_max_accel_mm_s2,
                         dd.carry_max_launch_mm_s), Flick(actor.id, vx, vy)]
        meta["carrier"] = actor.id
    else:
        bx, by, gap = _adjacent(rng, ax, ay, r_a, r_b, to_zone, cfg)
        ball = piece(specs, GAME, "ball", "ball", bx, by)
        fixed.append(ball)
        meta["carrier"] = actor.id
        meta["placement_gap_mm"] = gap
        taken += [(ax, ay, r_a), (bx, by, r_b)]
        if kind == "shoot":
            vx, vy = _aimed(rng, cfg, bx, by, zc[0], zc[1], (0.7, 1.3))
            actions = [Flick("ball", vx, vy)]
        elif kind == "pass":
            i_recv = int(rng.choice([i for i in range(1, len(roster) + 1) if i != i_actor]))
            r_r = specs.piece(GAME, roster[i_recv - 1]).radius
            rx, ry = free_spot(rng, play_area(board), r_r, taken, forbid, gap=20.0)
            fixed.append(_disc(specs, offense, i_recv, roster[i_recv - 1], rx, ry))
            vx, vy = _aimed(rng, cfg, bx, by, rx, ry, (0.9, 1.6))
            actions = [Flick("ball", vx, vy)]
            meta["receiver"] = f"{offense}:{i_recv}"
        else:  # move: the actor flicked towards the zone's side of the court or anywhere
            tx, ty = free_spot(rng, play_area(board), r_a, [], None, gap=0.0)
            vx, vy = _aimed(rng, cfg, ax, ay, tx, ty, (0.8, 1.2), actor.kind)
            actions = [Flick(actor.id, vx, vy)]
    keep = corridor(ball.x, ball.y, zc[0], zc[1], 30.0) if kind in ("shoot", "dunk") and rng.random() < 0.6 else None
    pieces = _fill(rng, board, specs, cfg, fixed, keep)
    meta["three_point_region"] = next((r.name for r in board.regions_of_kind("three-point") if r.team == target.team), None)
    return _finish(board, cfg, f"dino-dunk/{kind}", seed, pieces, actions, meta)


def make_foul(rng, board, specs, cfg, mode: str | None = None, seed: int = 0) -> Scenario:
    """A disc flicked at the ball carrier: ``direct``, through a ``chain`` disc, or ``close`` (aimed
    to pass by within a few mm, sometimes grazing)."""
    mode = mode or str(rng.choice(FOUL_MODES))
    if mode not in FOUL_MODES:
        raise ScenarioError(f"unknown foul mode {mode!r}; expected one of {', '.join(FOUL_MODES)}")
    area = play_area(board)
    forbid = _forbidden(board)
    roster = _roster(cfg)
    offense = str(rng.choice(SIDES))
    mover_side = other(offense) if rng.random() < 0.8 else offense
    i_c = int(rng.integers(1, len(roster) + 1))
    r_c = specs.piece(GAME, roster[i_c - 1]).radius
    inner = area.buffer(-150.0)
    cx, cy = free_spot(rng, inner, r_c, [], forbid, gap=60.0)
    carrier = _disc(specs, offense, i_c, roster[i_c - 1], cx, cy)
    r_b = specs.piece(GAME, "ball").radius
    approach = float(rng.uniform(-math.pi, math.pi))  # direction from the carrier to the mover
    choices = [i for i in range(1, len(roster) + 1) if not (mover_side == offense and i == i_c)]
    i_m = int(rng.choice(choices))
    r_m = specs.piece(GAME, roster[i_m - 1]).radius
    for _ in range(200):
        d = float(rng.uniform(90.0, 260.0))
        mx, my = cx + d * math.cos(approach), cy + d * math.sin(approach)
        if area.buffer(-r_m - 5.0).contains(_pt(mx, my)) and forbid.distance(_pt(mx, my)) > r_m + 3.0:
            break
        approach = float(rng.uniform(-math.pi, math.pi))
    else:
        raise ScenarioError("no room for the fouling disc; use a larger board")
    bx, by, _ = _adjacent(rng, cx, cy, r_c, r_b, approach + math.pi, cfg, spread_deg=80.0)
    ball = piece(specs, GAME, "ball", "ball", bx, by)
    mover = _disc(specs, mover_side, i_m, roster[i_m - 1], mx, my)
    fixed = [carrier, ball, mover]
    tx, ty = cx, cy
    meta = {"action": "move", "mode": mode, "offense": offense, "carrier": carrier.id, "actor": mover.id,
            "mover_side": mover_side}
    if mode == "chain":
        side_m = mover_side if rng.random() < 0.5 else other(mover_side)
        pool = [i for i in range(1, len(roster) + 1) if f"{side_m}:{i}" not in {p.id for p in fixed}]
        i_x = int(rng.choice(pool))
        r_x = specs.piece(GAME, roster[i_x - 1]).radius
        f = float(rng.uniform(0.4, 0.6))
        px, py = cx + (mx - cx) * f, cy + (my - cy) * f
        if math.hypot(px - cx, py - cy) < r_c + r_x + 4 or math.hypot(px - mx, py - my) < r_m + r_x + 4:
            d2 = r_c + r_x + 4 + (r_m + r_x + 4) + 10
            mx, my = cx + d2 * math.cos(approach), cy + d2 * math.sin(approach)
            mover = _disc(specs, mover_side, i_m, roster[i_m - 1], mx, my)
            fixed[2] = mover
            px, py = cx + (r_c + r_x + 4) * math.cos(approach), cy + (r_c + r_x + 4) * math.sin(approach)
        fixed.append(_disc(specs, side_m, i_x, roster[i_x - 1], px, py))
        meta["via"] = f"{side_m}:{i_x}"
    elif mode == "close":
        miss = (r_m + r_c) + float(rng.uniform(-6.0, 8.0))
        nx, ny = -math.sin(approach), math.cos(approach)
        tx, ty = cx + miss * nx, cy + miss * ny
    vx, vy = _aimed(rng, cfg, mx, my, tx, ty, (1.2, 1.8), mover.kind)
    pieces = _fill(rng, board, specs, cfg, fixed, corridor(mx, my, cx, cy, 45.0))
    return _finish(board, cfg, "dino-dunk/foul", seed, pieces, [Flick(mover.id, vx, vy)], meta)


def _pt(x, y):
    from shapely.geometry import Point

    return Point(x, y)


def make_near_miss(rng, board, specs, cfg, which: str | None = None, seed: int = 0) -> Scenario:
    """The answer hinges on 0-3 mm: ``zone-edge`` (the ball's edge stops ``margin`` mm inside (+) or
    outside (-) the target zone), ``card-gap`` (a disc stops at an edge-to-edge gap of a card
    length - ``margin`` mm from another disc: > 0 within reach), ``three-point`` (the shooter's edge
    ``margin`` mm over (+, 2 points) or short of (-, 3 points) the three-point line, then a Shoot) or
    ``placement-gap`` (the ball placed at a gap of 9 - ``margin`` mm from its carrier: > 0 a valid
    standard placement; nothing moves). ``meta['intended_margin_mm']`` is the set-up margin;
    the ground truth measures the real one."""
    which = which or str(rng.choice(NEAR_MISS_KINDS))
    if which not in NEAR_MISS_KINDS:
        raise ScenarioError(f"unknown near-miss kind {which!r}; expected one of {', '.join(NEAR_MISS_KINDS)}")
    ph = cfg.physics
    nm = cfg.dino_dunk.near_miss_mm
    margin = float(rng.uniform(-nm, nm))
    offense = str(rng.choice(SIDES))
    forbid = _forbidden(board)
    roster = _roster(cfg)
    area = play_area(board)
    meta = {"near_miss": which, "intended_margin_mm": margin, "offense": offense}
    mu = ph.kind("ball").table_mu or ph.table_mu
    if which == "zone-edge":
        target = zone(board, other(offense))
        zc = _zone_circle(target)
        r_b = specs.piece(GAME, "ball").radius
        stop_d = zc[2] + r_b - margin  # ball centre to zone centre when it stops
        for _ in range(200):
            a = _court_direction(board, zc) + math.radians(float(rng.uniform(-60, 60)))
            travel = float(rng.uniform(80.0, 300.0))
            sx, sy = zc[0] + (stop_d + travel) * math.cos(a), zc[1] + (stop_d + travel) * math.sin(a)
            if area.buffer(-60).contains(_pt(sx, sy)):
                break
        else:
            raise ScenarioError("no room for a near-miss shot")
        ball = piece(specs, GAME, "ball", "ball", sx, sy)
        i_s = int(rng.integers(1, len(roster) + 1))
        r_s = specs.piece(GAME, roster[i_s - 1]).radius
        back = a + math.radians(float(rng.uniform(-40, 40)))
        gap = float(rng.uniform(*cfg.dino_dunk.placement_gap_mm))
        shooter = _disc(specs, offense, i_s, roster[i_s - 1], sx + (r_s + r_b + gap) * math.cos(back),
                        sy + (r_s + r_b + gap) * math.sin(back))
        v = stop_speed(travel, mu, ph.gravity_mm_s2, ph.dt_s)
        actions = [Flick("ball", -v * math.cos(a), -v * math.sin(a))]
        keep = corridor(sx, sy, zc[0], zc[1], 40.0)
        meta.update(action="shoot", actor=shooter.id, carrier=shooter.id, target_zone=target.name,
                    three_point_region=next((r.name for r in board.regions_of_kind("three-point") if r.team == target.team), None))
        pieces = _fill(rng, board, specs, cfg, [shooter, ball], keep)
        return _finish(board, cfg, "dino-dunk/near-miss", seed, pieces, actions, meta)
    if which == "three-point":
        return _near_three_point(rng, board, specs, cfg, margin, offense, meta, seed)
    if which == "placement-gap":
        return _near_placement(rng, board, specs, cfg, margin, offense, meta, seed)
    # card-gap: the mover slides straight at a target disc and stops card length + margin short
    length_name = str(rng.choice(["short", "long"]))
    card = specs.short_card_mm if length_name == "short" else specs.long_card_mm
    i_m, i_t = (int(v) for v in rng.choice(range(1, len(roster) + 1), size=2, replace=True))
    side_t = str(rng.choice(SIDES))
    if side_t == offense and i_t == i_m:
        side_t = other(offense)
    r_m = specs.piece(GAME, roster[i_m - 1]).radius
    r_t = specs.piece(GAME, roster[i_t - 1]).radius
    for _ in range(200):
        tx, ty = free_spot(rng, area.buffer(-120), r_t, [], forbid, gap=40.0)
        a = float(rng.uniform(-math.pi, math.pi))
        travel = float(rng.uniform(60.0, 250.0))
        stop = r_t + card - margin + r_m  # margin > 0: within the card length
        mx, my = tx + (stop + travel) * math.cos(a), ty + (stop + travel) * math.sin(a)
        if area.buffer(-r_m - 5).contains(_pt(mx, my)) and forbid.distance(corridor(mx, my, tx, ty, r_m)) > 0:
            break
    else:
        raise ScenarioError("no room for a card-gap near miss")
    target = _disc(specs, side_t, i_t, roster[i_t - 1], tx, ty)
    mover = _disc(specs, offense, i_m, roster[i_m - 1], mx, my)
    v = stop_speed(travel, ph.table_mu, ph.gravity_mm_s2, ph.dt_s)
    actions = [Flick(mover.id, -v * math.cos(a), -v * math.sin(a))]
    meta.update(action="move", actor=mover.id, target_piece=target.id, card_length=length_name, card_mm=card)
    keep = corridor(mx, my, tx, ty, max(r_m, r_t) + 30.0)
    pieces = _fill(rng, board, specs, cfg, [mover, target], keep)
    return _finish(board, cfg, "dino-dunk/near-miss", seed, pieces, actions, meta)


def _three_point(board, target) -> object:
    region = next((r for r in board.regions_of_kind("three-point") if r.team == target.team), None)
    if region is None:
        raise ScenarioError(f"{board.ref} has no three-point region for team {target.team!r}")
    return region


def _near_three_point(rng, board, specs, cfg, margin, offense, meta, seed) -> Scenario:
    """The shooter's edge ``margin`` mm over (+) / short of (-) the three-point line; it shoots."""
    from sim.truth import region_margin

    target = zone(board, other(offense))
    zc = _zone_circle(target)
    three = _three_point(board, target)
    roster = _roster(cfg)
    i_s = int(rng.integers(1, len(roster) + 1))
    r_s = specs.piece(GAME, roster[i_s - 1]).radius
    r3 = float(three.params[2]) if three.shape == "circle" else math.sqrt(three.geometry.area / math.pi)
    area = play_area(board)
    for _ in range(200):
        a = _court_direction(board, zc) + math.radians(float(rng.uniform(-70, 70)))
        d = r3 + r_s - margin  # the disc's centre from the arc's centre
        x, y = zc[0] + d * math.cos(a), zc[1] + d * math.sin(a)
        shooter = _disc(specs, offense, i_s, roster[i_s - 1], x, y)
        if area.buffer(-r_s - 30).contains(_pt(x, y)) and abs(region_margin(shooter, three.geometry) - margin) < 1e-3:
            break
    else:
        raise ScenarioError("no room for a three-point near miss")
    r_b = specs.piece(GAME, "ball").radius
    bx, by, gap = _adjacent(rng, x, y, r_s, r_b, math.atan2(zc[1] - y, zc[0] - x), cfg)
    ball = piece(specs, GAME, "ball", "ball", bx, by)
    vx, vy = _aimed(rng, cfg, bx, by, zc[0], zc[1], (0.8, 1.2))
    meta.update(action="shoot", actor=shooter.id, carrier=shooter.id, target_zone=target.name, three_point_region=three.name)
    pieces = _fill(rng, board, specs, cfg, [shooter, ball], corridor(bx, by, zc[0], zc[1], 30.0))
    return _finish(board, cfg, "dino-dunk/near-miss", seed, pieces, [Flick("ball", vx, vy)], meta)


def _near_placement(rng, board, specs, cfg, margin, offense, meta, seed) -> Scenario:
    """The ball placed at a gap of (standard gap - ``margin``) mm from its carrier; nothing moves."""
    roster = _roster(cfg)
    i_c = int(rng.integers(1, len(roster) + 1))
    r_c = specs.piece(GAME, roster[i_c - 1]).radius
    r_b = specs.piece(GAME, "ball").radius
    cx, cy = free_spot(rng, play_area(board).buffer(-80), r_c, [], _forbidden(board), gap=40.0)
    gap = specs.placement_gap_mm - margin
    a = float(rng.uniform(-math.pi, math.pi))
    carrier = _disc(specs, offense, i_c, roster[i_c - 1], cx, cy)
    ball = piece(specs, GAME, "ball", "ball", cx + (r_c + gap + r_b) * math.cos(a), cy + (r_c + gap + r_b) * math.sin(a))
    meta.update(action="place", actor=carrier.id, carrier=carrier.id, placement_gap_mm=gap,
                standard_gap_mm=specs.placement_gap_mm)
    pieces = _fill(rng, board, specs, cfg, [carrier, ball], _pt(ball.x, ball.y).buffer(r_b + 15.0))
    return _finish(board, cfg, "dino-dunk/near-miss", seed, pieces, [], meta)
