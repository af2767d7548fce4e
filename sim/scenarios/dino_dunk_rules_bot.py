"""A whole Dino Dunk game on the simulated table run by the rules engine, frame **mat mm** (for
:mod:`sim.live`, ``sim://dino-dunk?rules=1``, the default).

:class:`DinoDunkRulesBot` keeps the table of :class:`sim.scenarios.dino_dunk_game.DinoDunkBot` but
lets :mod:`rules.dino_dunk` decide whose turn it is, which activations are legal, possession, score,
the shot clock, fouls, foul shots and resets. The bot picks among the engine's legal actions (by
distance to the target zone; optional abilities skipped), plays each flick with the physics and hands
the engine the facts measured from exact geometry (:mod:`sim.truth`).
"""

from __future__ import annotations

import math

from sim.physics import Carry, Flick, simulate
from sim.scenarios import dino_dunk as dd
from sim.scenarios.common import Scenario, free_spot, piece, play_area, stop_speed
from sim.scenarios.dino_dunk_game import DinoDunkBot, _copy_piece
from sim.scene import Scene


class DinoDunkRulesBot(DinoDunkBot):
    """The same table, but the game is run by the rules engine (:mod:`rules.dino_dunk`): whose turn,
    which activations are legal, possession, score, clock, fouls and resets come from the engine;
    the bot chooses among the engine's legal actions (skipping optional abilities) and hands it the
    facts measured on the simulated table (MoveResult, PassResult, ShotResult, DunkResult) from
    :mod:`sim.truth`. Piece ids are the engine's (``home:triceratops``). No variants (no backboards)."""

    def __init__(self, rng, board, specs, cfg, target: int = 4):
        from rules import dino_dunk as R
        from rules.dino_dunk.cards import load_catalogue, valid_rosters

        self.R = R
        self.rng, self.board, self.specs, self.cfg = rng, board, specs, cfg
        catalogue = load_catalogue()
        sizes = {cid: c["size"] for cid, c in catalogue["cards"].items()}
        rosters = {}
        for side, team in R.DEFAULT_TEAMS.items():
            combos = valid_rosters(catalogue, team)
            rosters[side] = list(combos[int(rng.integers(len(combos)))])
        self.kinds = {f"{s}:{c}": f"disc-{sizes[c]}" for s, cs in rosters.items() for c in cs}
        self.game = R.new_game(target_score=target, rosters=rosters, offense=str(rng.choice(dd.SIDES)))
        self.pieces, self.aside = {}, {}
        self.carrier = None
        self.over = False
        self.pending_events: list = []
        self.score = dict(self.game.state["score"])
        self.offense = self.game.state["offense"]

    # --- engine bookkeeping ---------------------------------------------------------------------
    def _push(self, action) -> list:
        events = [{**e.to_dict(), "source": "rules"} for e in self.game.push(action)]
        from rules.core import action_to_dict

        self.pending_events.append({"kind": "rules-action", **action_to_dict(action)})
        self.pending_events += events
        self._sync()
        return events

    def _sync(self) -> None:
        """Mirror the engine's ball, statuses and score on the table."""
        st = self.game.state
        self.score, self.offense = dict(st["score"]), st["offense"]
        for pid, p in st["pieces"].items():
            if pid not in self.kinds:
                continue  # tail tokens and the like are not simulated
            if p["status"] != "on_mat" and pid in self.pieces:
                self.aside[pid] = self.pieces.pop(pid)
            elif p["status"] == "on_mat" and pid not in self.pieces and pid in self.aside:
                back = self.aside.pop(pid)
                water = self.board.regions_of_kind("water")
                if water:
                    c = water[int(self.rng.integers(len(water)))].geometry.centroid
                    back.x, back.y = float(c.x), float(c.y)
                self.pieces[pid] = back
                self._tidy(set())
        ball = st["ball"]
        self.carrier = ball["carrier"] if ball["carrier"] in self.pieces else None
        if self.carrier and "ball" in self.pieces:
            c, b = self.pieces[self.carrier], self.pieces["ball"]
            if ball.get("on_top"):
                b.x, b.y, b.z = c.x, c.y, c.height
            elif not 0 <= math.hypot(b.x - c.x, b.y - c.y) - c.radius - b.radius <= self.specs.placement_gap_mm + 0.5:
                self._place_ball()

    def _layout(self, carrier: str) -> None:
        """Setup steps 7-9 on the table for the engine's carrier."""
        from shapely import box
        from shapely.geometry import Point

        L, W = self.board.length_mm, self.board.width_mm
        halves = {"home": box(0, 0, L / 2, W), "away": box(L / 2, 0, L, W)}
        forbid = dd._forbidden(self.board)
        side = carrier.split(":")[0]
        r_c = self.specs.piece(dd.GAME, self.kinds[carrier]).radius
        for _ in range(100):
            y = float(self.rng.uniform(r_c + 60, W - r_c - 60))
            x = r_c + 1.0 if side == "home" else L - r_c - 1.0
            if forbid.distance(Point(x, y)) > r_c + 30:
                break
        self.pieces = {carrier: self._engine_disc(carrier, x, y)}
        self.carrier = carrier
        self._place_ball()
        taken = [(p.x, p.y, p.radius) for p in self.pieces.values()]
        for pid, kind in self.kinds.items():
            if pid in self.pieces or self.game.state["pieces"][pid]["status"] != "on_mat":
                continue
            r = self.specs.piece(dd.GAME, kind).radius
            px, py = free_spot(self.rng, halves[pid.split(":")[0]], r, taken, forbid, gap=8.0)
            taken.append((px, py, r))
            self.pieces[pid] = self._engine_disc(pid, px, py)

    def _engine_disc(self, pid: str, x: float, y: float):
        side, name = pid.split(":", 1)
        kind = self.kinds[pid]
        return piece(self.specs, dd.GAME, kind, pid, x, y, team=side, size=kind.replace("disc-", ""), name=name)

    def _positions(self) -> tuple:
        return tuple((pid if pid != "ball" else "ball", round(p.x, 1), round(p.y, 1)) for pid, p in self.pieces.items())

    # --- choosing ------------------------------------------------------------------------------
    def _pick_activation(self, legal: list):
        """A plausible Activate among the legal ones (by distance to the target zone), or EndTurn."""
        acts = [a for a in legal if isinstance(a, self.R.Activate) and a.action in ("move", "pass", "shoot", "dunk")
                and a.piece in self.pieces]
        if not acts:
            ends = [a for a in legal if isinstance(a, self.R.EndTurn)]
            return ends[0] if ends else legal[int(self.rng.integers(len(legal)))]
        by = {(a.piece, a.action): a for a in acts}
        rng = self.rng
        if self.carrier and any(a.piece == self.carrier for a in acts):
            c = self.pieces[self.carrier]
            zc = self._target(c.attributes["team"])
            d = math.hypot(zc[0] - c.x, zc[1] - c.y)
            if d < self.cfg.dino_dunk.bot_dunk_mm and (self.carrier, "dunk") in by and rng.random() < 0.5:
                return by[(self.carrier, "dunk")]
            if d < self.cfg.dino_dunk.bot_shoot_mm and (self.carrier, "shoot") in by and rng.random() < 0.75:
                return by[(self.carrier, "shoot")]
            if (self.carrier, "pass") in by and rng.random() < 0.5:
                return by[(self.carrier, "pass")]
            if (self.carrier, "move") in by and rng.random() < 0.7:
                return by[(self.carrier, "move")]
        moves = [a for a in acts if a.action == "move"]
        pool = moves or acts
        return pool[int(rng.integers(len(pool)))]

    def _aim(self, pid: str, action: str) -> tuple:
        """Aim point (mat mm) and stop distance for the declared action."""
        rng = self.rng
        p = self.pieces[pid]
        side = p.attributes["team"]
        zc = self._target(side)
        ball = self.pieces.get("ball")
        if action == "shoot":
            return (zc[0], zc[1]), math.hypot(zc[0] - ball.x, zc[1] - ball.y) * float(rng.uniform(0.8, 1.2))
        if action == "dunk":
            return (zc[0], zc[1]), math.hypot(zc[0] - p.x, zc[1] - p.y) * float(rng.uniform(0.8, 1.15))
        if action == "pass":
            mates = [q for q in self.pieces.values() if q.kind.startswith("disc-") and q.attributes["team"] == side and q.id != pid]
            q = min(mates, key=lambda m: math.hypot(zc[0] - m.x, zc[1] - m.y) + float(rng.uniform(0, 200)))
            return (q.x, q.y), math.hypot(q.x - ball.x, q.y - ball.y) * float(rng.uniform(1.0, 1.4))
        if self.carrier is None and ball is not None:
            return (ball.x, ball.y), math.hypot(ball.x - p.x, ball.y - p.y) + 25.0
        if pid == self.carrier:
            d = math.hypot(zc[0] - p.x, zc[1] - p.y)
            return (zc[0], zc[1]), min(max(d - zc[2] - p.radius - 40.0, 40.0), float(rng.uniform(120.0, 260.0)))
        if self.carrier and side != self.pieces[self.carrier].attributes["team"]:
            c = self.pieces[self.carrier]
            za = self._target(c.attributes["team"])
            if rng.random() < 0.2:
                return (c.x, c.y), math.hypot(c.x - p.x, c.y - p.y) * 1.3
            f = float(rng.uniform(0.3, 0.7))
            tx, ty = c.x + (za[0] - c.x) * f, c.y + (za[1] - c.y) * f
            return (tx, ty), math.hypot(tx - p.x, ty - p.y)
        a = math.atan2(zc[1] - p.y, zc[0] - p.x) + float(rng.normal(0, 0.5))
        return (p.x + 100 * math.cos(a), p.y + 100 * math.sin(a)), float(rng.uniform(60.0, 200.0))

    # --- one flick -----------------------------------------------------------------------------
    def activate(self):
        """Drive the engine up to the next flick, play it on the table, hand over the fact; returns
        the Episode (engine events that came before ride on it)."""
        from sim.live import Episode

        for _ in range(200):
            pend = self.game.pending()
            kind = pend["kind"]
            if kind == "over":
                self.over = True
                o = self.game.outcome()
                calls = self.pending_events + [{"kind": "game-over", **(o.to_dict() if o else {})}]
                self.pending_events = []
                return Episode([self._scene()], [], calls)
            legal = self.game.legal_actions()
            if kind == "carrier":
                choice = legal[int(self.rng.integers(len(legal)))]
                self._layout(choice.piece)
                self._push(choice)
            elif kind == "placement":
                side = pend["side"]
                pos = tuple((pid, round(p.x, 1), round(p.y, 1)) for pid, p in self.pieces.items()
                            if pid != "ball" and pid.split(":")[0] == side)
                self._push(self.R.PlacementDone(side, pos))
            elif kind == "ability":
                skip = [a for a in legal if isinstance(a, self.R.Skip)]
                self._push(skip[0] if skip else legal[int(self.rng.integers(len(legal)))])
            elif kind == "activation":
                self._push(self._pick_activation(legal))
            elif kind == "fact":
                return self._flick(pend)
            else:  # flip / roster are done by new_game
                self._push(legal[0])
        raise RuntimeError("the rules engine did not reach a flick in 200 steps")

    def _scene(self) -> Scene:
        return Scene(dd.GAME, self.board.ref, [_copy_piece(p) for p in self.pieces.values()])

    def _flick(self, pend: dict):
        from sim.live import _episode_from_run
        from sim.physics import touched
        from sim.truth import dino_dunk_answers, region_margin

        R, rng, cfg, ph = self.R, self.rng, self.cfg, self.cfg.physics
        action, pid = pend["action"], pend["piece"]
        side = pend["side"]
        pieces = [_copy_piece(p) for p in self.pieces.values()]
        by_id = {p.id: p for p in pieces}
        zone = dd.zone(self.board, dd.other(side))
        zc = dd._zone_circle(zone)
        if action == "foul_shot":  # the ball behind the foul line, the three-point area cleared
            three = next((r for r in self.board.regions_of_kind("three-point") if r.team == zone.team), None)
            line = next((ln for ln in self.board.lines.values() if ln.kind == "foul-line" and ln.team == zone.team), None)
            if three is not None:
                pieces = [p for p in pieces if p.id == "ball" or region_margin(p, three.geometry) <= 0]
            by_id = {p.id: p for p in pieces}
            if "ball" not in by_id:
                pieces.append(piece(self.specs, dd.GAME, "ball", "ball", 0, 0))
                by_id = {p.id: p for p in pieces}
            b = by_id["ball"]
            if line is not None:
                (x0, y0), (x1, y1) = line.points[0], line.points[-1]
                mx, my = (x0 + x1) / 2, (y0 + y1) / 2
                away = math.atan2(my - zc[1], mx - zc[0])
                b.x, b.y, b.z = mx + 12 * math.cos(away), my + 12 * math.sin(away), 0.0
            target, dist = (zc[0], zc[1]), math.hypot(zc[0] - b.x, zc[1] - b.y) * float(rng.uniform(0.85, 1.15))
            mover, action_kind = b, "shoot"
        else:
            target, dist = self._aim(pid, action)
            mover = by_id["ball"] if action in ("shoot", "pass") else by_id[pid]
            action_kind = action
        aim = math.atan2(target[1] - mover.y, target[0] - mover.x) + math.radians(float(rng.normal(0, cfg.dino_dunk.aim_sigma_deg)))
        v = min(stop_speed(max(dist, 5.0), ph.table_mu, ph.gravity_mm_s2, ph.dt_s), 2600.0)
        vx, vy = v * math.cos(aim), v * math.sin(aim)
        if action_kind == "dunk":
            c, b = by_id[pid], by_id["ball"]
            off = c.radius - b.radius
            a0 = math.atan2(target[1] - c.y, target[0] - c.x)
            b.x, b.y, b.z = c.x + off * math.cos(a0), c.y + off * math.sin(a0), c.height
            actions = [Carry("ball", pid, off * math.cos(a0), off * math.sin(a0), cfg.dino_dunk.carry_max_accel_mm_s2,
                             cfg.dino_dunk.carry_max_launch_mm_s), Flick(pid, vx, vy)]
        elif action_kind in ("shoot", "pass"):
            actions = [Flick("ball", vx, vy)]
        else:
            if pid == self.carrier:
                pieces = [p for p in pieces if p.id != "ball"]
            actions = [Flick(pid, vx, vy)]
        initial = Scene(dd.GAME, self.board.ref, pieces)
        run = simulate(initial, actions, ph, play_area(self.board))
        actor = pid or "ball"
        meta = {"action": action_kind, "actor": actor, "offense": self.offense, "carrier": self.carrier, "target_zone": zone.name,
                "three_point_region": next((r.name for r in self.board.regions_of_kind("three-point") if r.team == zone.team), None)}
        scn = Scenario(dd.GAME, self.board.ref, f"live/{action}", 0, initial, actions, run, meta)
        ans = dino_dunk_answers(scn, self.board) if pid else {}
        outs = set(run.out_of_bounds())
        final = run.final.by_id()
        for p in self.pieces.values():
            if p.id in final:
                f = final[p.id]
                p.x, p.y, p.angle_deg, p.z = f.x, f.y, f.angle_deg, 0.0
        engine_ids = set(self.kinds)
        if action in ("shoot", "foul_shot"):
            ball = final["ball"]
            fact = R.ShotResult(overlaps_zone=region_margin(ball, zone.geometry) > 0 and "ball" not in outs,
                                shooter_outside_three=bool(ans.get("shooter_outside_three_point", True)),
                                out_of_bounds="ball" in outs, touched_backboard=False)
        elif action == "pass":
            caught = ans.get("first_struck_by_ball") or ""
            fact = R.PassResult(caught_by=caught if caught in engine_ids else "", out_of_bounds=not caught and "ball" in outs)
        elif action == "dunk":
            fact = R.DunkResult(overlaps_zone=bool(ans.get("carrier_overlaps_zone")), ball_on_top=bool(ans.get("ball_on_top")),
                                out_of_bounds=pid in outs)
        else:
            direct = [q for q in touched(run.contacts, pid) if q in engine_ids]
            carrier = self.carrier
            c_inside = False
            if carrier and ans.get("carrier_struck"):
                ca = self._target(carrier.split(":")[0])
                # where it was fouled: "from its position before the foul" (the rulebook's Foul
                # Shots), not where the strike sent it
                c = initial.by_id()[carrier]
                three = next((r for r in self.board.regions_of_kind("three-point")
                              if r.team == dd.zone(self.board, dd.other(carrier.split(":")[0])).team), None)
                c_inside = three is not None and region_margin(c, three.geometry) > 0 and math.hypot(c.x - ca[0], c.y - ca[1]) > 0
            zones = self.board.regions_of_kind("scoring-zone")
            fact = R.MoveResult(out_of_bounds=pid in outs, struck=tuple(direct),
                                carrier_struck=bool(ans.get("carrier_struck")) and carrier != pid,
                                carrier_inside_three=c_inside, touched_ball="ball" in touched(run.contacts, pid),
                                knocked_out=tuple(sorted(q for q in outs if q in engine_ids and q != pid)),
                                overlaps_scoring_zone=any(region_margin(final[pid], z.geometry) > 0 for z in zones),
                                positions=self._positions())
        self._tidy(outs)
        start = [{"kind": "activate", "t": 0.0, "piece": pid, "action": action, "side": side}]
        start += [{**e, "t": 0.0} for e in self.pending_events]  # the engine's steps up to this flick
        self.pending_events = []
        self._push(fact)
        calls = [{"kind": "call", "action": action, "piece": pid, "fact": {k: v for k, v in vars(fact).items() if k != "positions"}}]
        calls += self.pending_events
        calls.append({"kind": "state", "summary": self.game.summary(), "score": dict(self.score), "offense": self.offense,
                      "carrier": self.carrier})
        self.pending_events = []
        return _episode_from_run(run, calls, start)
