"""A whole Dino Dunk game played by a simple scripted bot on the simulated table, frame **mat mm**:
the state carries over from flick to flick (for :mod:`sim.live`).

Each :meth:`DinoDunkBot.activate` plays one activation (two per turn, teams alternating) and
returns an :class:`sim.live.Episode`: the physics frames, the contacts and events, and the call
(answers from :mod:`sim.truth`). The bot's choices, by distance from the ball carrier to its target
zone: Shoot within ``dino-dunk.bot_shoot_mm``, sometimes Dunk with a large or small disc within
``bot_dunk_mm``, Pass
to a team-mate nearer the zone, else Move the carrier towards the zone; the other activation moves
a team-mate upcourt; defenders move into the lane between the carrier and the zone (and now and then
straight at the carrier: fouls happen); with a loose ball the nearest disc goes for it.

Simplifications (it is a demo bot, not the rules engine): the shot clock, scoring, turnovers, fouls
(the fouler goes to the water on a sideline), out-of-bounds pieces placed back at the edge, discs
slid out of the scoring zones; no character abilities; a reset puts the offense's carrier on its
baseline and the rest on their halves.
"""

from __future__ import annotations

import math

from sim.physics import Carry, Flick, simulate
from sim.scenarios import dino_dunk as dd
from sim.scenarios.common import Scenario, free_spot, piece, play_area, stop_speed
from sim.scene import Scene

SHOT_CLOCK = 6


class DinoDunkBot:
    def __init__(self, rng, board, specs, cfg, target: int = 4):
        self.rng, self.board, self.specs, self.cfg = rng, board, specs, cfg
        self.target = target
        self.score = {"home": 0, "away": 0}
        self.offense = str(rng.choice(dd.SIDES))
        self.turn_side = self.offense
        self.activations = 0  # in this turn
        self.used: set = set()
        self.clock = 0
        self.over = False
        self.pieces: dict = {}
        self.carrier: str | None = None
        self._reset()

    # --- table state -----------------------------------------------------------------------
    def _reset(self) -> None:
        """Setup steps 7-9: the offense's carrier on its baseline with the ball adjacent, the rest
        anywhere on their own halves."""
        rng, board, specs, cfg = self.rng, self.board, self.specs, self.cfg
        from shapely import box

        L, W = board.length_mm, board.width_mm
        halves = {"home": box(0, 0, L / 2, W), "away": box(L / 2, 0, L, W)}
        forbid = dd._forbidden(board)
        roster = dd._roster(cfg)
        pieces, taken = {}, []
        i_c = int(rng.integers(1, len(roster) + 1))
        r_c = specs.piece(dd.GAME, roster[i_c - 1]).radius
        for _ in range(100):
            y = float(rng.uniform(r_c + 60, W - r_c - 60))
            x = r_c + 1.0 if self.offense == "home" else L - r_c - 1.0
            from shapely.geometry import Point

            if forbid.distance(Point(x, y)) > r_c + 30:
                break
        carrier = dd._disc(specs, self.offense, i_c, roster[i_c - 1], x, y)
        pieces[carrier.id] = carrier
        taken.append((x, y, r_c))
        self.carrier = carrier.id
        ball = piece(specs, dd.GAME, "ball", "ball", 0, 0)
        self.pieces = pieces
        self._place_ball()
        taken.append((self.pieces["ball"].x, self.pieces["ball"].y, ball.radius))
        for side in dd.SIDES:
            for i, kind in enumerate(roster, start=1):
                pid = f"{side}:{i}"
                if pid in pieces:
                    continue
                r = specs.piece(dd.GAME, kind).radius
                x, y = free_spot(rng, halves[side], r, taken, forbid, gap=8.0)
                taken.append((x, y, r))
                pieces[pid] = dd._disc(specs, side, i, kind, x, y)
        for bb in dd._backboards(board, specs):
            pieces[bb.id] = bb
        self.clock = 0

    def _target(self, side: str) -> tuple:
        return dd._zone_circle(dd.zone(self.board, dd.other(side)))

    def _place_ball(self) -> None:
        """Standard placement: the ball adjacent to the carrier, on the side facing its target zone."""
        c = self.pieces[self.carrier]
        zc = self._target(c.attributes["team"])
        r_b = self.specs.piece(dd.GAME, "ball").radius
        base = math.atan2(zc[1] - c.y, zc[0] - c.x)
        others = [p for p in self.pieces.values() if p.id not in (c.id, "ball")]
        for k in range(24):
            a = base + (k // 2 + 1) * (0.26 if k % 2 else -0.26) * (k > 0)
            d = c.radius + 3.0 + r_b
            x, y = c.x + d * math.cos(a), c.y + d * math.sin(a)
            if 0 <= x <= self.board.length_mm and 0 <= y <= self.board.width_mm and all(
                    math.hypot(x - p.x, y - p.y) >= r_b + max(p.radius, max(p.size or (0,)) / 2) + 1 for p in others):
                break
        self.pieces["ball"] = piece(self.specs, dd.GAME, "ball", "ball", x, y)

    def _tidy(self, outs: set) -> None:
        """Pieces out of bounds back at the edge; discs off the scoring zones; overlaps pushed apart."""
        L, W = self.board.length_mm, self.board.width_mm
        zones = [dd._zone_circle(r) for r in self.board.regions_of_kind("scoring-zone")]
        movable = [p for p in self.pieces.values() if not p.attributes.get("static")]
        for p in movable:
            p.attributes.pop("out_of_bounds", None)
            p.x = min(max(p.x, p.radius), L - p.radius)
            p.y = min(max(p.y, p.radius), W - p.radius)
            p.vx = p.vy = 0.0
            p.z = 0.0
            if p.kind.startswith("disc-"):
                for zx, zy, zr in zones:
                    d = math.hypot(p.x - zx, p.y - zy)
                    if d < zr + p.radius:
                        a = math.atan2(p.y - zy, p.x - zx) if d > 1e-6 else 0.0
                        p.x, p.y = zx + (zr + p.radius + 0.5) * math.cos(a), zy + (zr + p.radius + 0.5) * math.sin(a)
        for _ in range(30):
            moved = False
            for i, a in enumerate(movable):
                for b in movable[i + 1:]:
                    d = math.hypot(a.x - b.x, a.y - b.y)
                    need = a.radius + b.radius + 0.5
                    if d < need:
                        ux, uy = ((b.x - a.x) / d, (b.y - a.y) / d) if d > 1e-6 else (1.0, 0.0)
                        push = (need - d) / 2
                        a.x, a.y, b.x, b.y = a.x - ux * push, a.y - uy * push, b.x + ux * push, b.y + uy * push
                        moved = True
            if not moved:
                break

    # --- one activation --------------------------------------------------------------------------
    def _choose(self) -> tuple:
        """(piece id, action, aim point mat mm, stop distance factor or explicit distance)."""
        rng = self.rng
        side = self.turn_side
        mine = [p for p in self.pieces.values() if p.kind.startswith("disc-") and p.attributes.get("team") == side
                and p.id not in self.used]
        ball = self.pieces["ball"]
        zc = self._target(side)
        if self.carrier is None:  # loose ball: the nearest free disc goes for it
            p = min(mine, key=lambda q: math.hypot(q.x - ball.x, q.y - ball.y))
            return p.id, "move", (ball.x, ball.y), math.hypot(ball.x - p.x, ball.y - p.y) + 25.0
        carrier = self.pieces[self.carrier]
        if side == carrier.attributes["team"]:
            if carrier.id not in self.used:
                d = math.hypot(zc[0] - carrier.x, zc[1] - carrier.y)
                if d < self.cfg.dino_dunk.bot_dunk_mm and carrier.kind in ("disc-large", "disc-small") and rng.random() < 0.5:
                    return carrier.id, "dunk", (zc[0], zc[1]), d * float(rng.uniform(0.8, 1.15))
                if d < self.cfg.dino_dunk.bot_shoot_mm and rng.random() < 0.75:
                    return carrier.id, "shoot", (zc[0], zc[1]), math.hypot(zc[0] - ball.x, zc[1] - ball.y) * float(rng.uniform(0.8, 1.2))
                mates = [q for q in mine if q.id != carrier.id and math.hypot(zc[0] - q.x, zc[1] - q.y) < d - 60]
                if mates and rng.random() < 0.6:
                    q = mates[int(rng.integers(len(mates)))]
                    return carrier.id, "pass", (q.x, q.y), math.hypot(q.x - ball.x, q.y - ball.y) * float(rng.uniform(1.0, 1.4))
                step = min(max(d - zc[2] - carrier.radius - 40.0, 40.0), float(rng.uniform(120.0, 260.0)))
                return carrier.id, "move", (zc[0], zc[1]), step
            others = [q for q in mine if q.id != carrier.id] or mine
            q = others[int(rng.integers(len(others)))]
            a = math.atan2(zc[1] - q.y, zc[0] - q.x) + float(rng.normal(0, 0.5))
            return q.id, "move", (q.x + 100 * math.cos(a), q.y + 100 * math.sin(a)), float(rng.uniform(60.0, 200.0))
        # defense: into the lane between the carrier and the zone it attacks, or at the carrier
        za = self._target(carrier.attributes["team"])
        q = min(mine, key=lambda p: math.hypot(p.x - carrier.x, p.y - carrier.y) + float(rng.uniform(0, 150)))
        if rng.random() < 0.2:
            return q.id, "move", (carrier.x, carrier.y), math.hypot(carrier.x - q.x, carrier.y - q.y) * 1.3
        f = float(rng.uniform(0.3, 0.7))
        tx, ty = carrier.x + (za[0] - carrier.x) * f, carrier.y + (za[1] - carrier.y) * f
        return q.id, "move", (tx, ty), math.hypot(tx - q.x, ty - q.y)

    def activate(self):
        from sim.live import Episode, _episode_from_run
        from sim.truth import dino_dunk_answers

        rng, cfg, ph = self.rng, self.cfg, self.cfg.physics
        pid, action, (tx, ty), dist = self._choose()
        mover = self.pieces["ball"] if action in ("shoot", "pass") else self.pieces[pid]
        aim = math.atan2(ty - mover.y, tx - mover.x) + math.radians(float(rng.normal(0, cfg.dino_dunk.aim_sigma_deg)))
        v = min(stop_speed(max(dist, 5.0), ph.table_mu, ph.gravity_mm_s2, ph.dt_s), 2600.0)
        vx, vy = v * math.cos(aim), v * math.sin(aim)
        pieces = [_copy_piece(p) for p in self.pieces.values()]
        actions = []
        if action in ("shoot", "pass"):
            actions = [Flick("ball", vx, vy)]
        elif action == "dunk":
            c = self.pieces[pid]
            r_b = self.specs.piece(dd.GAME, "ball").radius
            off = c.radius - r_b
            a0 = math.atan2(ty - c.y, tx - c.x)
            for p in pieces:
                if p.id == "ball":
                    p.x, p.y, p.z = c.x + off * math.cos(a0), c.y + off * math.sin(a0), c.height
            actions = [Carry("ball", pid, off * math.cos(a0), off * math.sin(a0), cfg.dino_dunk.carry_max_accel_mm_s2,
                             cfg.dino_dunk.carry_max_launch_mm_s), Flick(pid, vx, vy)]
        else:
            if pid == self.carrier:  # the carrier moves without the ball; it is placed after
                pieces = [p for p in pieces if p.id != "ball"]
            actions = [Flick(pid, vx, vy)]
        initial = Scene(dd.GAME, self.board.ref, pieces)
        run = simulate(initial, actions, ph, play_area(self.board))
        offense = self.pieces[self.carrier].attributes["team"] if self.carrier else self.turn_side
        zone = dd.zone(self.board, dd.other(offense))
        meta = {"action": action, "actor": pid, "offense": offense, "carrier": self.carrier, "target_zone": zone.name,
                "three_point_region": next((r.name for r in self.board.regions_of_kind("three-point") if r.team == zone.team), None)}
        scn = Scenario(dd.GAME, self.board.ref, f"live/{action}", 0, initial, actions, run, meta)
        ans = dino_dunk_answers(scn, self.board)
        calls = self._apply(run, action, pid, ans)
        start = [{"kind": "activate", "t": 0.0, "piece": pid, "action": action, "side": self.pieces[pid].attributes["team"]}]
        self._next_activation(pid)
        calls.append({"kind": "state", "score": dict(self.score), "offense": self.offense, "carrier": self.carrier,
                      "shot_clock": self.clock, "turn": self.turn_side})
        calls.sort(key=lambda e: e["kind"] == "game-over")  # the end of the game is the last word
        return _episode_from_run(run, calls, start)

    def _next_activation(self, pid: str) -> None:
        self.used.add(pid)
        self.activations += 1
        if self.activations >= 2 or self.over:
            if self.turn_side == self.offense:
                self.clock += 1
                if self.clock >= SHOT_CLOCK and not self.over:
                    self._turnover("shot-clock")
            self.turn_side = dd.other(self.turn_side)
            self.activations = 0
            self.used = set()

    def _turnover(self, why: str) -> None:
        self.offense = dd.other(self.offense)
        self._reset()
        self.last_calls.append({"kind": "turnover", "why": why, "offense": self.offense})

    def _apply(self, run, action: str, pid: str, ans: dict) -> list:
        self.last_calls = calls = [{"kind": "call", "action": action, "piece": pid,
                                    **{k: v for k, v in ans.items() if k in ("result", "points", "touched", "first_struck_by_ball",
                                                                            "foul", "stunned", "carrier_struck", "out_of_bounds",
                                                                            "ball_zone_margin_mm")}}]
        final = run.final.by_id()
        for p in self.pieces.values():
            if p.id in final and not p.attributes.get("static"):
                f = final[p.id]
                p.x, p.y, p.angle_deg = f.x, f.y, f.angle_deg
        self._tidy(set(ans.get("out_of_bounds", [])))
        result = ans.get("result")
        side = self.pieces[pid].attributes["team"]
        if action in ("shoot", "dunk") and result in ("score", "dunk"):
            self.score[self.offense] += ans["points"]
            calls.append({"kind": "score", "side": self.offense, "points": ans["points"], "score": dict(self.score)})
            if self.score[self.offense] >= self.target:
                self.over = True
                calls.append({"kind": "game-over", "winner": self.offense, "score": dict(self.score)})
                return calls
            self._turnover("score")
        elif result == "turnover" and action in ("shoot", "dunk") or (action == "pass" and "ball" in ans.get("out_of_bounds", [])):
            self._turnover("out-of-bounds")
        elif action == "pass" and ans.get("first_struck_by_ball"):
            catcher = ans["first_struck_by_ball"]
            self.carrier = catcher
            self._place_ball()
            if catcher.split(":")[0] != self.offense:
                self.offense = catcher.split(":")[0]
                self.clock = 0
                calls.append({"kind": "turnover", "why": "intercepted", "offense": self.offense})
        elif result in ("loose-ball",):
            self.carrier = None
        elif result == "retains":
            self._place_ball()
        elif action == "move":
            if ans.get("foul"):
                self._send_to_water(pid)
                calls.append({"kind": "foul", "piece": pid, "carrier": self.carrier})
            elif pid == self.carrier:
                if pid in ans.get("out_of_bounds", []):
                    self._turnover("carrier-out-of-bounds")
                else:
                    self._place_ball()
            elif "ball" in ans.get("touched", []) and (self.carrier is None or not ans.get("carrier_struck")):
                self.carrier = pid
                self._place_ball()
                if side != self.offense:
                    self.offense = side
                    self.clock = 0
                    calls.append({"kind": "turnover", "why": "ball-taken", "offense": self.offense})
                else:
                    calls.append({"kind": "possession", "piece": pid})
        return calls

    def _send_to_water(self, pid: str) -> None:
        water = self.board.regions_of_kind("water")
        p = self.pieces[pid]
        if water:
            c = water[int(self.rng.integers(len(water)))].geometry.centroid
            p.x, p.y = float(c.x), float(c.y)
        self._tidy(set())


def _copy_piece(p):
    """A fresh PieceState with the same geometry and attributes, at rest."""
    from sim.scene import PieceState

    return PieceState(p.id, p.kind, p.x, p.y, p.radius, p.height, p.angle_deg, p.size, p.z, 0.0, 0.0, dict(p.attributes))




