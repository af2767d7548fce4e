"""The demo table: Dino Dunk played on the simulated table, so that a newcomer sees a game refereed
with no camera (``tableref serve --demo``).

What runs, honestly:
- the engine (``rules.dino_dunk``) keeps the game; this driver only picks among the actions the
  engine lists as legal (a tiny bot: shoot when the carrier can, else move someone, skip abilities);
- each flick is a simulated scene (``sim.scenarios.dino_dunk``: physics from ``sim.physics``),
  rendered by ``sim.render`` from a top-down camera and published to the video feed frame by frame;
- the referee (``referee.overlap.overlap_calls``) judges the shot from the **ground-truth** positions
  of the sim with an assumed σ (the vision stage and the live-table session, issues 8 and 9, are not
  wired in yet: when they land, their Observation replaces the truth here); its verdict goes
  through :func:`webui.record.post_call` exactly as ``POST /api/calls`` does, and a too-close shot
  waits for a person (or for the demo's judge after ``auto_confirm_s``);
- every other fact (a move, a pass, a dunk) is the legal fact closest to the sim's ground truth,
  recorded as a fact by "demo referee (sim truth)".

Frames, calls and facts go through :class:`webui.link.TableLink`. This is the *fallback* path:
``tableref serve --demo`` runs :class:`webui.demo_session.SessionDemoTable` (every call from the
live-table session) when the session package is usable, and this table otherwise; the live page
says which one runs.
"""

from __future__ import annotations

import logging
import random
import threading
import time

from webui import record
from webui.link import TableLink
from webui.store import Store

log = logging.getLogger("tableref.demo")
FACT_KIND = {"ShotResult": "shoot", "MoveResult": "move", "PassResult": "pass", "DunkResult": "dunk"}
ASSUMED_SIGMA_MM = 1.5  # the registration + detection σ a real camera gives on this table (assumed)


class DemoTable:
    def __init__(self, app, seed: int = 7, board: str = "dino-dunk/tropic-turf", pace_s: float = 1.0,
                 fps: float = 12.0, auto_confirm_s: float | None = 8.0, size: tuple = (960, 640),
                 near_miss_every: int = 3, new_match: bool = True):
        self.app = app
        self.hub = app.extensions["tableref.hub"]
        self.feed = app.extensions["tableref.frames"]
        self.data_dir = app.config["DATA_DIR"]
        self.seed = seed
        self.rng = random.Random(seed)
        self.board_ref = board
        self.pace_s = pace_s
        self.fps = fps
        self.auto_confirm_s = auto_confirm_s
        self.size = size
        self.near_miss_every = near_miss_every
        self.new_match = new_match
        self.shots = 0
        self.match_id: str | None = None
        self.status = "starting"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._scene = None
        self._sim = None
        if "tableref.demo" not in app.extensions:  # started directly, not through start_demo
            from webui.demo_session import LABEL_TRUTH, set_path

            set_path(app, "truth", LABEL_TRUTH, "the simulator's truth demo was started directly")

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> "DemoTable":
        self._thread = threading.Thread(target=self._run, name="demo-table", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        self.link = TableLink(self.app, actor="demo referee (sim truth)")
        store = self.link.store
        try:
            self._load_sim()
            self.match_id = self._ensure_match(store)
            if self._sim is not None:
                self._scene = self._scenario("move", "home").initial
            self.status = "playing"
            while not self._stop.is_set():
                self._step(store)
                self._idle(self.pace_s)
        except Exception as exc:  # the demo must never take the server down
            self.status = f"stopped: {type(exc).__name__}: {exc}"
            log.exception("demo table stopped")
        finally:
            self.link.close()

    def _idle(self, seconds: float) -> None:
        """Wait, republishing the last frame at the camera's rate (a camera never stops)."""
        end = time.monotonic() + seconds
        while not self._stop.is_set() and time.monotonic() < end:
            self._publish(self._scene)
            time.sleep(1.0 / self.fps)

    # -- the sim side ---------------------------------------------------------------------------
    def _load_sim(self) -> None:
        import numpy as np

        from calibration.board import load_board
        from calibration.specs import load_specs
        from sim.config import load_sim_config

        self.np_rng = np.random.default_rng(self.seed)
        self.board = load_board(self.board_ref)
        self.specs = load_specs()
        self.cfg = load_sim_config()
        try:
            from sim.camera import top_down
            from sim.render import render_scene

            self.camera = top_down(self.board, size=self.size)
            self._render = render_scene
            self._sim = "render"
        except ImportError as exc:  # the renderer is not there: the state still runs, no video
            self._sim = None
            log.warning("no simulated video (%s): the demo runs without frames", exc)

    def _publish(self, scene) -> None:
        if scene is None or self._sim is None:
            return
        import cv2

        if getattr(self, "_last_scene", None) is not scene:
            result = self._render(self.board, scene, self.camera, seed=self.seed)
            ok, jpg = cv2.imencode(".jpg", result.image, [cv2.IMWRITE_JPEG_QUALITY, 80])
            self._jpeg = jpg.tobytes()
            self._H = result.transform().H.tolist()
            self._pieces = [{"xy": [p.x, p.y], "radius": p.radius or max(p.size or (10,)) / 2, "kind": p.kind,
                             "attributes": {k: str(v) for k, v in p.attributes.items() if k in ("team", "name", "size")}}
                            for p in scene.pieces]
            self._last_scene = scene
        self.link.frame(self._jpeg, pieces=self._pieces, mat_to_image=self._H, size=self.size, source="sim (demo, truth)")

    def _scenario(self, kind: str, offense: str):
        from sim.scenarios.dino_dunk import make_near_miss, make_shot

        for attempt in range(30):
            seed = self.rng.randrange(1 << 30)
            import numpy as np

            rng = np.random.default_rng(seed)
            if kind == "shoot" and self.near_miss_every and self.shots % self.near_miss_every == self.near_miss_every - 1:
                sc = make_near_miss(rng, self.board, self.specs, self.cfg, which="zone-edge", seed=seed)
            else:
                sc = make_shot(rng, self.board, self.specs, self.cfg, kind=kind, seed=seed)
            if sc.meta.get("offense") == offense:
                return sc
        return sc

    def _flick(self, kind: str, offense: str):
        """Play one flick on the simulated table, publishing its frames; returns the scenario."""
        sc = self._scenario(kind, offense)
        self._scene = sc.initial
        self._idle(0.4)
        step = max(1, int(round(sc.run.fps / self.fps)))
        self.flick_jpegs = [self._jpeg] if self._sim else []
        for scene in sc.run.frames[::step] + [sc.final]:
            if self._stop.is_set():
                break
            self._scene = scene
            self._publish(scene)
            if self._sim:
                self.flick_jpegs.append(self._jpeg)
            time.sleep(1.0 / self.fps)
        return sc

    # -- the game side --------------------------------------------------------------------------
    def _ensure_match(self, store: Store) -> str:
        current = record.current_match_id(store)
        if current and not self.new_match and store.match(current)["game"] == "dino-dunk":
            return current
        from rules.dino_dunk import DEFAULT_TEAMS
        from rules.dino_dunk.cards import load_catalogue, valid_rosters

        cat = load_catalogue()
        rosters = {side: list(valid_rosters(cat, team)[0]) for side, team in DEFAULT_TEAMS.items()}
        match = record.start_match(store, self.hub, "dino-dunk", self.board_ref,
                                   {"teams": dict(DEFAULT_TEAMS), "rosters": rosters, "offense": "home"},
                                   "Demo: Dino Dunk on the simulated table")
        return match["id"]

    def _step(self, store: Store) -> None:
        mid = self.match_id
        with self.hub.lock:  # a private copy: the API may append (and the hub catch up) meanwhile
            rep = self.hub.replayed(store, mid)
            game = rep.game.copy(stack=False)
            pending = [dict(c) for c in rep.pending_calls()]
        if game.outcome() is not None:
            self._idle(5.0)
            self.match_id = self._ensure_match(store)
            return
        if pending:
            since = pending[0]["disputes"][-1]["t"] if pending[0].get("disputes") else pending[0]["t"]
            waited = time.time() - since  # a disputed call waits afresh from its dispute
            if self.auto_confirm_s is not None and waited > self.auto_confirm_s:
                try:
                    record.decide(store, self.hub, pending[0]["id"], "confirm", "demo judge",
                                  "demo: confirmed the referee's default after waiting for a person")
                except record.StoreError as exc:  # a disputed call whose decision no longer replays
                    log.warning("demo judge could not decide %s: %s", pending[0]["id"], exc)
                    self._idle(self.auto_confirm_s)
            return
        legal = [game.action_to_dict(a) for a in game.legal_actions()]
        if not legal:
            return
        types = {a["type"] for a in legal}
        fact_types = types & set(FACT_KIND)
        if fact_types:
            self._play_fact(store, game, legal, fact_types.pop())
            return
        action = self._choose(game, legal)
        record.record_action(store, self.hub, mid, action, "action", "demo player")

    def _choose(self, game, legal: list) -> dict:
        by_type: dict[str, list] = {}
        for a in legal:
            by_type.setdefault(a["type"], []).append(a)
        if "Skip" in by_type:
            return by_type["Skip"][0]
        for t in ("ChooseCarrier", "PlacementDone", "FlipBall"):
            if t in by_type:
                return by_type[t][0]
        acts = by_type.get("Activate", [])
        shots = [a for a in acts if a["action"] == "shoot"]
        if shots and self.rng.random() < 0.75:
            return shots[0]
        moves = [a for a in acts if a["action"] == "move" and a["piece"] != game.state["ball"].get("carrier")]
        if moves:
            return self.rng.choice(moves)
        if acts:
            return self.rng.choice(acts)
        return self.rng.choice(legal)

    def _positions(self, game, scene) -> list:
        rosters = game.state["rosters"]
        out = []
        for p in scene.pieces:
            if p.id == "ball":
                out.append(["ball", round(p.x, 1), round(p.y, 1)])
            elif ":" in p.id and p.id.split(":")[0] in rosters:
                side, i = p.id.split(":")
                if i.isdigit() and 1 <= int(i) <= len(rosters[side] or ()):
                    out.append([f"{side}:{rosters[side][int(i) - 1]}", round(p.x, 1), round(p.y, 1)])
        return out

    def _play_fact(self, store: Store, game, legal: list, fact: str) -> None:
        offense = game.state.get("offense") or "home"
        kind = FACT_KIND[fact]
        options = [a for a in legal if a["type"] == fact]
        if self._sim is None:
            sc = None
        else:
            sc = self._flick(kind, offense)
        if fact == "ShotResult":
            self.shots += 1
        truth = self._truth(sc) if sc is not None else {}
        wanted = {
            "ShotResult": {"overlaps_zone": truth.get("ball_overlaps_zone"), "out_of_bounds": "ball" in truth.get("out_of_bounds", []),
                           "shooter_outside_three": truth.get("shooter_outside_three_point")},
            "DunkResult": {"overlaps_zone": truth.get("ball_overlaps_zone"), "out_of_bounds": bool(truth.get("out_of_bounds"))},
            "MoveResult": {"out_of_bounds": False, "carrier_struck": False, "touched_ball": False},
            "PassResult": {"out_of_bounds": False},
        }[fact]
        best = max(options, key=lambda a: sum(a.get(k) == v for k, v in wanted.items() if v is not None))
        if sc is not None and "positions" in best:
            best = {**best, "positions": self._positions(game, sc.final)}
        if fact == "ShotResult" and sc is not None:
            self._call_shot(store, game, sc, best, options)
        else:
            try:
                record.record_action(store, self.hub, self.match_id, best, "fact", "demo referee (sim truth)")
            except record.StoreError:
                best.pop("positions", None)
                record.record_action(store, self.hub, self.match_id, best, "fact", "demo referee (sim truth)")

    def _truth(self, sc) -> dict:
        from sim.truth import dino_dunk_answers

        return dino_dunk_answers(sc, self.board)

    def _call_shot(self, store: Store, game, sc, best: dict, options: list) -> None:
        """The referee's overlap call on the ball, posted like ``POST /api/calls``."""
        from referee.config import load_config
        from referee.overlap import overlap_calls

        ball = sc.final.by_id()["ball"]
        zone = self.board.region(sc.meta["target_zone"])
        k = load_config().k
        verdict = overlap_calls([[ball.x, ball.y]], [ball.radius], [ASSUMED_SIGMA_MM], zone, k=k,
                                names=["the ball"], region_name=zone.name)[0]
        d = verdict.to_dict()
        d["question"] = f"Does the ball overlap {zone.name}?"
        yes = {**best, "overlaps_zone": True}
        no = {**best, "overlaps_zone": False}

        def legal_like(a):
            return next((o for o in options if all(o.get(f) == a.get(f) for f in o if f != "positions")), None)

        if legal_like(yes) is None:
            yes = best
        if legal_like(no) is None:
            no = best
        leaning_yes = verdict.margin > 0
        if verdict.answer == "too_close":
            d["proposed_action"], d["alternative_action"] = no, yes  # the rule's default: no score unless shown
        else:
            d["proposed_action"], d["alternative_action"] = (yes, no) if leaning_yes else (no, yes)
        if self._sim and self.flick_jpegs:  # the flick's frames, before to after (at most 8)
            jpegs = self.flick_jpegs
            picks = sorted({round(i * (len(jpegs) - 1) / 7) for i in range(8)}) if len(jpegs) > 8 else range(len(jpegs))
            d["evidence_images"] = [store.add_evidence(self.match_id, jpegs[i], "image/jpeg") for i in picks]
        d["ghost"] = [{"xy": [p.x, p.y], "radius": p.radius, "id": p.id, "team": str(p.attributes.get("team", ""))}
                      for p in sc.initial.pieces if p.radius > 0][:64]
        record.post_call(store, self.hub, self.match_id, d, "referee (demo, sim truth + assumed σ)")
