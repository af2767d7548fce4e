"""A live frame source: a whole game played on the simulated table by scripted bots, in real time.

``SimSource("sim://dino-dunk?seed=7")`` is iterable; it yields :class:`LiveFrame` (frame index,
timestamp in s, the :class:`sim.scene.Scene` in **mat mm**, the events of that frame, and the BGR image
in **image px** plus the renderer's per-piece truth when ``render=1``). URL query keys:

``seed`` (int, 0), ``board`` (game/name; the game's first board), ``fps`` (physics frames per second,
30), ``realtime`` (1: pace frames on the wall clock; 0: as fast as possible), ``render`` (1: render
frames, needs the renderer), ``size`` (640x480), ``clean`` (1: the neutral style), ``hold`` (s the
table stays still between flicks, 0.6), ``turns`` (the most flicks, 200), ``target`` (Dino Dunk
points to win, 4), ``rules`` (Dino Dunk: 1 the rules engine runs the game, 0 the simple bot).

The bots: Dino Dunk is played by :class:`sim.scenarios.dino_dunk_rules_bot.DinoDunkRulesBot` (the rules
engine ``rules.dino_dunk`` decides turns, legality, possession, score, fouls and resets; the bot picks
among its legal actions, skips optional abilities, and hands it the facts measured on the table) or,
with ``rules=0``, the simple alternating-turn :class:`~sim.scenarios.dino_dunk_game.DinoDunkBot`
(shoot / dunk / pass / move by distance to the target zone, defenders moving into the lane); Morris
the Dodo and Dogo Dash drive their rules engines (``rules.morris``, ``rules.dogo_dash``) with random legal choices and
the physics' facts; Dodo Dash races racers round the track and throws the six projectiles.
Events are dicts with ``kind`` (activate, contact, out-of-bounds, ball-fell, landed, settled, call,
score, turnover, foul, throw, hit, slide, reveal, state, game-over ...) and ``t`` (s since the start);
events of a rules engine keep the engine's kind and carry ``source: rules``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Iterator
from urllib.parse import parse_qs, urlparse

from sim.scene import Scene

GAMES = ("dino-dunk", "dodo-dash", "morris", "dogo-dash")
DEFAULT_BOARDS = {"dino-dunk": "dino-dunk/crater-court", "dodo-dash": "dodo-dash/dodorado-jungle",
                  "morris": "morris/waterfall", "dogo-dash": "dogo-dash/table"}


class LiveError(ValueError):
    """A bad ``sim://`` URL; the message says what is accepted."""


@dataclass(frozen=True)
class LiveSpec:
    game: str
    seed: int = 0
    board: str = ""
    fps: float = 30.0
    realtime: bool = True
    render: bool = False
    size: tuple = (640, 480)
    clean: bool = False
    hold_s: float = 0.6
    turns: int = 200
    target: int = 4
    rules: bool = True


@dataclass
class LiveFrame:
    """One frame: ``index``, ``t`` s since the start, the ``scene`` (mat mm), its ``events``, and when
    rendered the ``image`` (BGR uint8, image px) and ``truth`` (piece id -> renderer truth)."""

    index: int
    t: float
    scene: Scene
    events: list = field(default_factory=list)
    image: object = None
    truth: dict | None = None


@dataclass
class Episode:
    """Frames (Scenes, t from 0 at ``fps``) of one flick or reveal, events with ``t`` relative to its
    start, and ``calls`` (events announced once the table is still)."""

    frames: list
    events: list
    calls: list = field(default_factory=list)


def parse_sim_url(url: str) -> LiveSpec:
    """``sim://GAME?key=value&...`` -> :class:`LiveSpec` (see the module doc for the keys)."""
    u = urlparse(str(url))
    if u.scheme != "sim":
        raise LiveError(f"{url!r}: a simulated source looks like sim://dino-dunk?seed=7 (games: {', '.join(GAMES)})")
    game = (u.netloc or u.path.strip("/")).lower()
    if game not in GAMES:
        raise LiveError(f"{url!r}: unknown game {game!r}; use one of {', '.join(GAMES)}")
    q = {k: v[-1] for k, v in parse_qs(u.query, keep_blank_values=True).items()}
    known = {"seed", "board", "fps", "realtime", "render", "size", "clean", "hold", "turns", "target", "rules"}
    bad = sorted(set(q) - known)
    if bad:
        raise LiveError(f"{url!r}: unknown key(s) {', '.join(bad)}; known: {', '.join(sorted(known))}")

    def num(key, cast, default, lo, hi):
        if key not in q:
            return default
        try:
            v = cast(q[key])
        except ValueError:
            raise LiveError(f"{url!r}: {key} must be a number, got {q[key]!r}") from None
        if not lo <= v <= hi:
            raise LiveError(f"{url!r}: {key} must be between {lo} and {hi}, got {v}")
        return v

    def flag(key, default):
        if key not in q:
            return default
        if q[key].lower() in ("1", "true", "yes", "on", ""):
            return True
        if q[key].lower() in ("0", "false", "no", "off"):
            return False
        raise LiveError(f"{url!r}: {key} must be 0 or 1, got {q[key]!r}")

    size = (640, 480)
    if "size" in q:
        from sim.export import parse_size

        size = parse_size(q["size"])
    board = q.get("board", DEFAULT_BOARDS[game])
    if not board.startswith(game + "/") and not board.endswith((".yaml", ".yml")):
        raise LiveError(f"{url!r}: board {board!r} is not a {game} board")
    return LiveSpec(game, num("seed", int, 0, 0, 2 ** 32 - 1), board, num("fps", float, 30.0, 1.0, 240.0),
                    flag("realtime", True), flag("render", False), size, flag("clean", False),
                    num("hold", float, 0.6, 0.0, 10.0), num("turns", int, 200, 1, 100000), num("target", int, 4, 1, 99),
                    flag("rules", True))


class SimSource:
    """Iterate over a whole simulated game's frames (see the module doc). ``clock``/``sleep`` are
    injectable for tests."""

    def __init__(self, url_or_spec, clock=time.monotonic, sleep=time.sleep):
        self.spec = url_or_spec if isinstance(url_or_spec, LiveSpec) else parse_sim_url(url_or_spec)
        self.clock, self.sleep = clock, sleep
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def __iter__(self) -> Iterator[LiveFrame]:
        return self.frames()

    def frames(self) -> Iterator[LiveFrame]:
        import numpy as np

        from calibration.board import load_board
        from calibration.specs import load_specs
        from sim.config import load_sim_config

        spec = self.spec
        board = load_board(spec.board)
        specs = load_specs()
        cfg = load_sim_config()
        cfg = replace(cfg, physics=replace(cfg.physics, fps=spec.fps))
        rng = np.random.default_rng(spec.seed)
        render = None
        if spec.render:
            from sim.export import render_seed, renderer, view_for

            rend = renderer()
            camera, style = view_for(rend, board, spec.seed, spec.clean, spec.size)
            render = (rend, camera, style, render_seed)
        episodes = {"dino-dunk": _dino_dunk, "dodo-dash": _dodo_dash, "morris": _morris, "dogo-dash": _dogo_dash}[spec.game]
        dt = 1.0 / spec.fps
        hold = int(round(spec.hold_s * spec.fps))
        index = 0
        start = self.clock()
        for ep in episodes(rng, board, specs, cfg, spec):
            t_off = index * dt  # the episode starts at this frame
            pending = sorted(ep.events, key=lambda e: e["t"])
            n = len(ep.frames)
            for k in range(n + max(hold, 1 if ep.calls else 0)):
                if self.closed:
                    return
                scene = ep.frames[min(k, n - 1)]
                t_rel = k * dt
                events = []
                while pending and pending[0]["t"] <= t_rel + 1e-9:
                    e = dict(pending.pop(0))
                    e["t"] = round(t_off + e["t"], 6)
                    events.append(e)
                if k == n - 1 and pending:  # anything after the last physics frame lands on it
                    events += [{**e, "t": round(t_off + e["t"], 6)} for e in pending]
                    pending = []
                if k == n:
                    events += [{**e, "t": round(t_off + t_rel, 6)} for e in ep.calls]
                t = index * dt
                frame = LiveFrame(index, t, Scene(scene.game, scene.board, scene.pieces, t), events)
                if render is not None:
                    rend, camera, style, rseed = render
                    res = rend.render_scene(board, frame.scene, camera, style, rseed(spec.seed, index))
                    frame.image, frame.truth = res.image, res.truth
                if spec.realtime:
                    wait = start + t - self.clock()
                    if wait > 0:
                        self.sleep(wait)
                yield frame
                index += 1


def _episode_from_run(run, calls: list, extra_events: list = ()) -> Episode:
    events = [{"kind": "contact", "t": c.t, "a": c.a, "b": c.b, "impulse": round(c.impulse, 3), "at_mm": [round(c.x, 2), round(c.y, 2)],
               "contact": c.kind} for c in run.contacts]
    events += [{"kind": e.kind, "t": e.t, "piece": e.piece, "at_mm": [round(e.x, 2), round(e.y, 2)]} for e in run.events]
    if run.settle_time is not None:
        events.append({"kind": "settled", "t": run.settle_time})
    return Episode(run.frames, [*extra_events, *events], calls)


# --- Dino Dunk ----------------------------------------------------------------------------------


def _dino_dunk(rng, board, specs, cfg, spec) -> Iterator[Episode]:
    from sim.scenarios.dino_dunk_game import DinoDunkBot
    from sim.scenarios.dino_dunk_rules_bot import DinoDunkRulesBot

    bot = (DinoDunkRulesBot if spec.rules else DinoDunkBot)(rng, board, specs, cfg, target=spec.target)
    for _ in range(spec.turns):
        ep = bot.activate()
        yield ep
        if bot.over:
            return


# --- Dodo Dash ----------------------------------------------------------------------------------


def _dodo_dash(rng, board, specs, cfg, spec) -> Iterator[Episode]:
    from sim.scenarios import dodo_dash
    from sim.scenarios.common import ScenarioError, piece

    track = next(iter(board.tracks.values()))
    centres = track.centres()
    n = 3
    colours = list(dodo_dash.COLOURS)
    pos = {f"racer-{i + 1}": (track.start[i % len(track.start)] if track.start else i) for i in range(n)}
    travelled = {rid: 0 for rid in pos}  # hexes run; one lap of the track wins
    r_racer = specs.piece("dodo-dash", "racer").radius

    def racers():
        out, taken = [], []
        for i, rid in enumerate(pos):
            cx, cy = centres[pos[rid]]
            x, y = float(cx), float(cy)
            for k in range(12):  # share a hex: stand round its centre
                if all(math.hypot(x - tx, y - ty) >= 2 * r_racer + 1 for tx, ty in taken):
                    break
                a = k * math.pi / 3
                x, y = float(cx + 14 * math.cos(a)), float(cy + 14 * math.sin(a))
            taken.append((x, y))
            out.append(piece(specs, "dodo-dash", "racer", rid, x, y, colour=colours[i], player=i + 1, hex=[track.name, int(pos[rid])]))
        return out

    for turn in range(spec.turns):
        rid = list(pos)[turn % n]
        step = int(rng.integers(1, 4))
        nxt = (pos[rid] + step) % len(centres)
        travelled[rid] += step
        pos[rid] = nxt
        table = racers()
        frames = [Scene("dodo-dash", board.ref, table, 0.0)]
        yield Episode(frames, [{"kind": "advance", "t": 0.0, "piece": rid, "hexes": step, "hex": nxt}])
        if travelled[rid] >= len(centres):
            yield Episode(frames, [], [{"kind": "game-over", "winner": rid}])
            return
        projectile = str(rng.choice(dodo_dash.PROJECTILES))
        try:
            scn = dodo_dash.make_throw(rng, board, specs, cfg, projectile, racers=table, thrower=rid)
        except ScenarioError:
            continue
        from sim.truth import dodo_dash_answers

        ans = dodo_dash_answers(scn, board)
        for hit in ans["hits"]:  # a hit racer drops back one hex (the demo's stand-in for damage)
            pos[hit] = (pos[hit] - 1) % len(centres)
            travelled[hit] -= 1
        calls = [{"kind": "hit", "projectile": projectile, "thrower": rid, "hits": ans["hits"], "first_hit": ans["first_hit"]}]
        yield _episode_from_run(scn.run, calls, [{"kind": "throw", "t": 0.0, "piece": rid, "projectile": projectile}])


# --- Morris the Dodo ----------------------------------------------------------------------------


def _morris(rng, board, specs, cfg, spec) -> Iterator[Episode]:
    from rules import morris as rules

    from sim.scenarios import morris

    game = rules.new_game(players=2)
    for _ in range(spec.turns):
        if game.outcome() is not None:
            o = game.outcome()
            yield Episode([Scene("morris", board.ref, [], 0.0)], [], [{"kind": "game-over", **o.to_dict()}])
            return
        loads = [a for a in game.legal_actions() if isinstance(a, rules.LoadEggs)]
        load = loads[int(rng.integers(len(loads)))]
        game.push(load)
        scn = morris.make_slide(rng, board, specs, cfg, colours=tuple(load.colours))
        eggs = [p for p in scn.final.pieces if p.kind == "egg"]
        landed = rules.Landed(tuple(sorted((p.attributes["colour"], p.attributes["face"]) for p in eggs)))
        events = [{**e.to_dict(), "source": "rules"} for e in game.push(landed)]
        while game.outcome() is None and game.state["phase"] not in ("load", "slide"):
            acts = game.legal_actions()
            if not acts:
                break
            events += [{**e.to_dict(), "source": "rules"} for e in game.push(acts[int(rng.integers(len(acts)))])]
        calls = [{"kind": "call", "eggs": {p.id: {"colour": p.attributes["colour"], "face": p.attributes["face"]} for p in eggs}},
                 *events, {"kind": "state", "summary": game.summary()}]
        yield _episode_from_run(scn.run, calls, [{"kind": "slide", "t": 0.0, "colours": list(load.colours)}])


# --- Dogo Dash ----------------------------------------------------------------------------------


def _dogo_dash(rng, board, specs, cfg, spec) -> Iterator[Episode]:
    from rules import dogo_dash as rules

    from sim.physics import Run
    from sim.scenarios import dogo_dash

    players = 3
    game = rules.Game.new(players=players, seed=int(rng.integers(1 << 30)))
    for _ in range(spec.turns):
        if game.outcome() is not None:
            yield Episode([Scene("dogo-dash", board.ref, [], 0.0)], [], [{"kind": "game-over", **game.outcome().to_dict()}])
            return
        acts = game.legal_actions()
        chooses = [a for a in acts if isinstance(a, rules.Choose)]
        if chooses:
            game.push(chooses[int(rng.integers(len(chooses)))])
            continue
        reveals = [a for a in acts if isinstance(a, rules.Reveal)]
        if reveals:
            reveal = reveals[0]
            scn = dogo_dash.make_reveal(rng, board, specs, cfg, seed=0, cards=tuple(reveal.cards))
            events = [{**e.to_dict(), "source": "rules"} for e in game.push(reveal)]
            run: Run = scn.run
            reveal_ev = {"kind": "reveal", "t": scn.meta["reveal_at_s"], "cards": scn.meta["cards"]}
            yield Episode(run.frames, [reveal_ev], [*events, {"kind": "state", "summary": game.summary()}])
            continue
        # the Dogo Dash moment: a bot plays the combo when it can, then the winner collects
        events = [{**e.to_dict(), "source": "rules"} for e in game.push(acts[0])]
        if events:
            frames = [Scene("dogo-dash", board.ref, [], 0.0)]
            yield Episode(frames, [], events)
