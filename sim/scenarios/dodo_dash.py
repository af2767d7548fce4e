"""Dodo Dash throws, frame **mat mm**: racer miniatures standing on the hexes of a board track and
one projectile thrown the way the rulebook describes it, as a distribution of launch point,
velocity and an airborne phase before it lands and slides (``dodo-dash.projectiles`` in
``sim/config.yaml``):

- Meteorite: dropped from a fist at forehead height (250-400 mm) over the target racers;
- Log: rolls out of a hand held above the thrower's own racer (starts beside it, 40-70 mm up);
- Egg: set in the middle of the thrower's hex (racers there set aside) and flicked along the mat;
- Feather: thrown upward from a palm a few inches up, curving (a lateral acceleration) to the board;
- Banana: thrown from the wrist, elbow on the table (150-250 mm up);
- Dodo: flapped off the back of the hand (60-150 mm up).

Racers touched while it slides, or that it lands on, are hit; the Feather and the Dodo hit only the
first (``meta['first_hit_only']``). ``make_near_miss``: an Egg slides straight past a racer with a
lateral clearance of -3..3 mm (negative: it grazes, a hit) - ``meta['intended_clearance_mm']``.

Piece ids: ``racer-1`` … (attributes ``colour``, ``player``, ``hex`` = [track, index]), the
projectile under its own name (``meteorite``, ``log``, …).
"""

from __future__ import annotations

import math

from sim.physics import Launch, Flick, simulate
from sim.scenarios.common import Scenario, ScenarioError, piece, play_area, scene_of, stop_speed

GAME = "dodo-dash"
PROJECTILES = ("meteorite", "log", "egg", "feather", "banana", "dodo")
COLOURS = ("red", "blue", "green", "yellow", "purple")


def _racers(rng, board, specs, cfg, n: int) -> tuple:
    """n racers on consecutive-ish hexes of one track: list of pieces and the hexes used."""
    tracks = list(board.tracks.values())
    if not tracks:
        raise ScenarioError(f"{board.ref} has no tracks; Dodo Dash scenes need a board with hex tracks")
    track = tracks[int(rng.integers(len(tracks)))]
    centres = track.centres()
    start = int(rng.integers(len(centres)))
    r = specs.piece(GAME, "racer").radius
    off = cfg.dodo_dash.racer_offset_mm
    pieces, taken = [], []
    colours = list(rng.permutation(COLOURS))[:n]
    for i in range(n):
        for _ in range(100):
            idx = (start + int(rng.integers(0, 5))) % len(centres)
            cx, cy = centres[idx]
            a = float(rng.uniform(-math.pi, math.pi))
            d = float(rng.uniform(0, off))
            x, y = cx + d * math.cos(a), cy + d * math.sin(a)
            if all(math.hypot(x - tx, y - ty) >= 2 * r + 1.0 for tx, ty in taken):
                break
        else:
            raise ScenarioError("could not stand the racers on the track; lower dodo-dash.racers")
        taken.append((x, y))
        pieces.append(piece(specs, GAME, "racer", f"racer-{i + 1}", x, y, colour=str(colours[i]), player=i + 1,
                            hex=[track.name, idx]))
    return pieces, track


def _flight_time(z0: float, vz: float, g: float) -> float:
    return (vz + math.sqrt(vz * vz + 2 * g * z0)) / g if z0 > 0 or vz > 0 else 0.0


def make_throw(rng, board, specs, cfg, projectile: str | None = None, seed: int = 0, racers: list | None = None,
               thrower: str | None = None) -> Scenario:
    """One projectile thrown at the racers (``projectile`` random when None). ``racers`` (pieces with
    a ``hex`` attribute [track, index]) and ``thrower`` (an id among them) continue a race; by
    default 2-5 racers are stood on a random stretch of track."""
    projectile = projectile or str(rng.choice(PROJECTILES))
    if projectile not in PROJECTILES:
        raise ScenarioError(f"unknown projectile {projectile!r}; expected one of {', '.join(PROJECTILES)}")
    dcfg = cfg.dodo_dash
    spec = dcfg.projectiles.get(projectile)
    if spec is None:
        raise ScenarioError(f"sim config has no dodo-dash.projectiles.{projectile}")
    g = cfg.physics.gravity_mm_s2
    if racers is None:
        n = int(rng.integers(dcfg.racers[0], dcfg.racers[1] + 1))
        racers, track = _racers(rng, board, specs, cfg, n)
        thrower = racers[int(rng.integers(n))]
    else:
        racers = list(racers)
        n = len(racers)
        thrower = next((p for p in racers if p.id == thrower), racers[int(rng.integers(n))])
        track = board.tracks[thrower.attributes["hex"][0]]
    others = [p for p in racers if p is not thrower] or racers
    target = others[int(rng.integers(len(others)))]
    tok = piece(specs, GAME, projectile, projectile, thrower.x, thrower.y)
    speed = float(rng.uniform(*spec.speed_mm_s))
    z0 = float(rng.uniform(*spec.drop_height_mm))
    vz = float(rng.uniform(*spec.vz_mm_s))
    meta = {"projectile": projectile, "projectile_id": tok.id, "thrower": thrower.id, "target": target.id,
            "first_hit_only": projectile in dcfg.first_hit_only, "track": track.name,
            "thrower_hex": list(thrower.attributes["hex"])}
    if projectile == "egg":
        # racers on the thrower's hex are set aside; the egg sits in the middle of that hex
        hx, hy = track.centres()[thrower.attributes["hex"][1]]
        racers = [p for p in racers if p.attributes["hex"] != thrower.attributes["hex"]]
        if not racers:
            raise ScenarioError("every racer shares the thrower's hex")
        target = racers[int(rng.integers(len(racers)))]
        meta["target"] = target.id
        meta["set_aside"] = sorted(p.id for p in [thrower, *others] if p.id not in {r.id for r in racers})
        aim = math.atan2(target.y - hy, target.x - hx) + math.radians(float(rng.normal(0, dcfg.egg_aim_sigma_deg)))
        tok.x, tok.y = float(hx), float(hy)
        actions = [Flick(tok.id, speed * math.cos(aim), speed * math.sin(aim))]
        meta["launch"] = {"x": tok.x, "y": tok.y, "z": 0.0, "vx": speed * math.cos(aim), "vy": speed * math.sin(aim)}
    else:
        spread = spec.spread_mm
        if projectile == "meteorite":
            a = float(rng.uniform(-math.pi, math.pi))
            x0 = target.x + float(rng.normal(0, spread))
            y0 = target.y + float(rng.normal(0, spread))
            vx, vy = speed * math.cos(a), speed * math.sin(a)
            ax = ay = 0.0
        else:
            aim = math.atan2(target.y - thrower.y, target.x - thrower.x) if target is not thrower else float(rng.uniform(-math.pi, math.pi))
            aim += math.radians(float(rng.normal(0, dcfg.aim_sigma_deg)))
            vx, vy = speed * math.cos(aim), speed * math.sin(aim)
            t_f = _flight_time(z0, vz, g)
            ax = ay = 0.0
            if spec.curve_mm_s2[1] > 0:  # a curve: lateral acceleration, either hand
                c = float(rng.uniform(*spec.curve_mm_s2)) * (1 if rng.random() < 0.5 else -1)
                ax, ay = -c * math.sin(aim), c * math.cos(aim)
            if projectile == "log":  # rolls out of a hand held over the thrower's own racer
                reach = thrower.radius + tok.radius + 1.0
                x0, y0 = thrower.x + reach * math.cos(aim), thrower.y + reach * math.sin(aim)
                tok.angle_deg = math.degrees(aim) + 90.0
            else:  # thrown from a hand off to the side: lands around the target, then slides on
                fly = speed * t_f * float(rng.uniform(0.5, 1.1))
                lat = 0.5 * (ax * math.cos(aim + math.pi / 2) + ay * math.sin(aim + math.pi / 2)) * t_f * t_f
                x0 = target.x - fly * math.cos(aim) + lat * math.sin(aim) + float(rng.normal(0, spread))
                y0 = target.y - fly * math.sin(aim) - lat * math.cos(aim) + float(rng.normal(0, spread))
        tok.x, tok.y, tok.z = float(x0), float(y0), float(z0)
        actions = [Launch(tok.id, tok.x, tok.y, z0, vx, vy, vz, ax, ay, bounce=dcfg.landing_bounce)]
        meta["launch"] = {"x": tok.x, "y": tok.y, "z": z0, "vx": vx, "vy": vy, "vz": vz, "ax": ax, "ay": ay}
    initial = scene_of(GAME, board, [*racers, tok])
    run = simulate(initial, actions, cfg.physics, play_area(board))
    return Scenario(GAME, board.ref, f"dodo-dash/{projectile}", seed, initial, actions, run, meta)


def make_near_miss(rng, board, specs, cfg, seed: int = 0) -> Scenario:
    """An Egg flicked straight past one racer with lateral clearance -3..3 mm (< 0 grazes it)."""
    ph = cfg.physics
    clearance = float(rng.uniform(-3.0, 3.0))
    racers, track = _racers(rng, board, specs, cfg, 1)
    racer = racers[0]
    r_e = specs.piece(GAME, "egg").radius
    area = play_area(board)
    from shapely.geometry import Point

    for _ in range(200):
        a = float(rng.uniform(-math.pi, math.pi))
        before, after = float(rng.uniform(60.0, 160.0)), float(rng.uniform(20.0, 80.0))
        lat = racer.radius + r_e + clearance
        nx, ny = -math.sin(a), math.cos(a)
        sx, sy = racer.x + lat * nx - before * math.cos(a), racer.y + lat * ny - before * math.sin(a)
        ex, ey = racer.x + lat * nx + after * math.cos(a), racer.y + lat * ny + after * math.sin(a)
        if area.buffer(-r_e - 5).contains(Point(sx, sy)) and area.buffer(-r_e - 5).contains(Point(ex, ey)):
            break
    else:
        raise ScenarioError("no room for a near-miss egg")
    tok = piece(specs, GAME, "egg", "egg", sx, sy)
    mu = ph.kind("egg").table_mu or ph.table_mu
    v = stop_speed(before + after, mu, ph.gravity_mm_s2, ph.dt_s)
    actions = [Flick(tok.id, v * math.cos(a), v * math.sin(a))]
    meta = {"projectile": "egg", "projectile_id": tok.id, "thrower": None, "target": racer.id, "first_hit_only": False,
            "near_miss": "egg-graze", "intended_clearance_mm": clearance, "path": [[sx, sy], [ex, ey]], "track": track.name}
    initial = scene_of(GAME, board, [racer, tok])
    run = simulate(initial, actions, ph, area)
    return Scenario(GAME, board.ref, "dodo-dash/near-miss", seed, initial, actions, run, meta)
