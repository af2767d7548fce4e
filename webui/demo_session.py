"""The demo table through the live-table session: the simulator plays Dino Dunk, and every call
comes from :class:`session.dino_dunk.DinoDunkSession` (frame → detect → track → settle → referee
→ facts), bridged into the record through :class:`webui.link.TableLink` exactly as a camera session
would be (``tableref serve --demo``, the default when the session package is usable).

What runs, honestly:
- :class:`sim.scenarios.dino_dunk_rules_bot.DinoDunkRulesBot` plays: it picks the players' choices
  and flicks the discs with the physics; its choices reach the session (``session.act``) and the
  record (``link.action``) as the dashboard would send them;
- the session sees each frame through :class:`session.oracle.OracleDetector` (the simulator's
  positions with a detector's noise and drop-outs), **not** ``vision.detect`` (see
  :data:`DETECTOR_NOTE`); the tracker keeps the names the "players" gave once (identity rows in the
  record, with the session's track ids), motion settles, the referee measures in mat mm;
- a confident flick: its verdicts are posted as a call (for the page) and its fact appended
  (``link.fact``); a too-close one: a pending call in the record with the session's proposal and
  the alternative; the decision made on the dashboard (or by the demo's judge, who knows the
  simulator's truth, after ``auto_confirm_s``) is handed back to the session (confirm / override);
- a flick the session made no call on: the simulator's fact, recorded as such;
- the frames are rendered by ``sim.render`` (every ``render_every``-th) and published with the
  session's tracked pieces (track ids), so identities show on the live page.

If the record and the simulated table disagree (a person decided a call against the table's
truth, a dispute, an action pushed from a page), the demo starts a new game. If anything fails,
:func:`start_demo` falls back to :class:`webui.demo.DemoTable` and says so on the page.
"""

from __future__ import annotations

import logging
import threading
import time

from webui import record
from webui.link import TableLink

log = logging.getLogger("tableref.demo")
LABEL_SESSION = "calls from the live-table session (session.DinoDunkSession; oracle detector: sim positions + noise)"
LABEL_SESSION_VISION = "calls from the live-table session (session.DinoDunkSession; vision.detect on the rendered frames)"
LABEL_TRUTH = "calls from the simulator's true positions with an assumed σ (fallback: the session is not in the loop)"
DETECTOR_NOTE = ("the oracle detector (the simulator's positions with a detector's noise) keeps the demo light; "
                 "--demo-detector vision puts vision.detect in the loop (about 30 ms per 960x640 frame plus the "
                 "render of every frame)")
VISION_NOTE = "every frame is rendered and detected by vision.detect (classical / hybrid), then tracked by the session"
ACTOR = "referee (live-table session)"


def set_path(app, path: str, label: str, why: str = "") -> None:
    app.extensions["tableref.demo"] = {"path": path, "label": label, "why": why}


def session_usable() -> tuple[bool, str]:
    """Whether the session path can run here (its packages import)."""
    try:
        from session.dino_dunk import DinoDunkSession  # noqa: F401
        from session.oracle import OracleDetector  # noqa: F401
        from sim.scenarios.dino_dunk_rules_bot import DinoDunkRulesBot  # noqa: F401
    except Exception as exc:  # noqa: BLE001 - any failure means: use the fallback
        return False, f"session package not usable ({type(exc).__name__}: {exc})"
    return True, ""


def start_demo(app, path: str = "auto", **kw):
    """Start the demo on ``path`` (``session``, ``truth`` or ``auto``: the session when usable)."""
    from webui.demo import DemoTable

    if path == "auto" and kw.get("new_match") is False:
        set_path(app, "truth", LABEL_TRUTH, "--resume: the session demo always starts a new game")
        path = "truth-resume"
    if path in ("auto", "session"):
        ok, why = session_usable()
        if ok:
            return SessionDemoTable(app, **kw).start()
        if path == "session":
            raise RuntimeError(why)
        set_path(app, "truth", LABEL_TRUTH, why)
    elif path == "truth":
        set_path(app, "truth", LABEL_TRUTH, "chosen with --demo-path truth")
    truth_kw = {k: v for k, v in kw.items() if k in ("seed", "board", "pace_s", "fps", "auto_confirm_s", "size", "new_match")}
    return DemoTable(app, **truth_kw).start()


class SessionDemoTable:
    def __init__(self, app, seed: int = 7, board: str = "dino-dunk/tropic-turf", pace_s: float = 1.0, fps: float = 10.0,
                 auto_confirm_s: float | None = 8.0, size: tuple = (960, 640), target: int = 6, render_every: int = 1,
                 hold_s: float = 0.5, new_match: bool = True, fallback: bool = True, detector: str = "oracle"):
        self.app = app
        self.seed = seed
        self.board_ref = board
        self.pace_s = pace_s
        self.fps = fps
        self.auto_confirm_s = auto_confirm_s
        self.size = size
        self.target = target
        self.render_every = max(1, int(render_every))
        self.hold_s = hold_s
        self.fallback = fallback
        if detector not in ("oracle", "vision"):
            raise ValueError(f"detector: expected oracle or vision, got {detector!r}")
        self.detector_kind = detector
        if detector == "vision":
            set_path(app, "session", LABEL_SESSION_VISION, VISION_NOTE)
        self.match_id: str | None = None
        self.status = "starting"
        self.flicks = 0
        self.games = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._fallback = None
        if detector == "oracle":
            set_path(app, "session", LABEL_SESSION, DETECTOR_NOTE)

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> "SessionDemoTable":
        self._thread = threading.Thread(target=self._run, name="demo-session", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=10)
        if self._fallback is not None:
            self._fallback.stop()

    def _run(self) -> None:
        self.link = TableLink(self.app, actor=ACTOR)
        try:
            self._setup_sim()
            while not self._stop.is_set():
                self._new_game()
                self._play()
        except Exception as exc:  # the demo must never take the server down
            self.status = f"stopped: {type(exc).__name__}: {exc}"
            log.exception("session demo stopped")
            if self.fallback and not self._stop.is_set():
                from webui.demo import DemoTable

                set_path(self.app, "truth", LABEL_TRUTH, f"the session path stopped: {type(exc).__name__}: {exc}")
                self._fallback = DemoTable(self.app, seed=self.seed, board=self.board_ref, pace_s=self.pace_s,
                                           auto_confirm_s=self.auto_confirm_s, size=self.size).start()
        finally:
            self.link.close()

    # -- the simulated table --------------------------------------------------------------------
    def _setup_sim(self) -> None:
        import numpy as np

        from calibration.board import load_board
        from calibration.specs import load_specs
        from sim.camera import top_down
        from sim.config import load_sim_config
        from sim.render import render_scene

        self.np = np
        self.board = load_board(self.board_ref)
        self.specs = load_specs()
        self.sim_cfg = load_sim_config()
        self.camera = top_down(self.board, size=self.size)
        self.H = self.camera.transform().H.tolist()
        self._render = render_scene
        self.rng = np.random.default_rng(self.seed)
        self._index = 0
        self._jpeg = None

    def _new_game(self) -> None:
        from referee.config import load_config
        from rules import dino_dunk as R
        from session.dino_dunk import DinoDunkSession
        from session.oracle import OracleDetector
        from sim.scenarios.dino_dunk_rules_bot import DinoDunkRulesBot

        self.bot = DinoDunkRulesBot(self.rng, self.board, self.specs, self.sim_cfg, target=self.target)
        st = self.bot.game.state
        rosters = {side: list(st["rosters"][side]) for side in st["sides"]}
        setup = {"target_score": self.target, "rosters": rosters, "offense": st["offense"]}
        self.det = (OracleDetector(self.board, seed=self.seed + self.games) if self.detector_kind == "oracle"
                    else RenderedDetector(self))
        # the simulator judges the three-point line by the whole disc (sim.truth): the session is set the same way
        self.session = DinoDunkSession(self.board, self.det, game=R.new_game(**setup), specs=self.specs,
                                       referee=load_config().with_(three_point="whole_disc"))
        self.match_id = self.link.start("dino-dunk", self.board_ref, setup,
                                        "Demo: Dino Dunk on the simulated table (live-table session)")
        self.games += 1
        self.named = False
        self.status = "playing"

    def _show(self, scene, render: bool) -> None:
        """One frame to the session (every frame) and to the video (rendered when asked)."""
        import cv2

        from sim.live import LiveFrame
        from sim.scene import Scene

        t = self._index / 30.0
        frame = LiveFrame(self._index, t, Scene(scene.game, scene.board, scene.pieces, t))
        post_doubtful_names(self.link, self.session, self.session.step(frame), self.match_id)
        self._index += 1
        if render or self._jpeg is None:
            image = self.rendered(scene)
            self._jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
        obs = self.session._last_obs
        pieces = obs.to_pieces() if obs is not None else []
        self.link.frame(self._jpeg, pieces=pieces, mat_to_image=self.H, size=self.size, source="sim demo · live-table session")
        if render:
            time.sleep(1.0 / self.fps)

    def rendered(self, scene):
        """The scene rendered by the demo's camera (BGR, image px); the last one is kept."""
        if getattr(self, "_rendered_scene", None) is not scene:
            self._rendered_image = self._render(self.board, scene, self.camera, seed=self.seed).image
            self._rendered_scene = scene
        return self._rendered_image

    def _idle(self, scene, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self._stop.is_set() and time.monotonic() < end:
            self._show(scene, render=False)
            time.sleep(1.0 / self.fps)

    # -- the game -------------------------------------------------------------------------------
    def _play(self) -> None:
        from rules import dino_dunk as R
        from rules.core import action_from_dict, action_to_dict
        from session.simgame import FACT_FIELDS

        hold = max(int(round(self.hold_s * 30)), 4)
        while not self._stop.is_set():
            ep = self.bot.activate()
            for _ in range(hold):
                self._show(ep.frames[0], render=False)
            if not self.named:  # the players say once which disc is which (identity rows with track ids)
                self._name_pieces()
            for e in ep.events:
                if e["kind"] != "rules-action":
                    continue
                action = action_from_dict({k: v for k, v in e.items() if k not in ("kind", "t")}, R.ACTIONS)
                if type(action).__name__ in FACT_FIELDS:
                    continue
                self._resync()  # the record is the truth: the session's engine starts from it
                self.link.action(action_to_dict(action), actor="demo player")
                self.session.act(action)
                if isinstance(action, R.ChooseCarrier):  # a reset: the players confirm the new layout
                    self.session.assign_at([(p.id, p.x, p.y) for p in ep.frames[0].pieces if not p.attributes.get("static")])
            n_flicks = len(self.session.flicks)
            self._before = ep.frames[0]
            self._flick_jpegs = [self._jpeg]
            for i, scene in enumerate(ep.frames[1:]):
                if self._stop.is_set():
                    return
                self._show(scene, render=i % self.render_every == 0)
                if i % self.render_every == 0:
                    self._flick_jpegs.append(self._jpeg)
            for _ in range(hold):
                self._show(ep.frames[-1], render=False)
            truth_fact = next((c for c in ep.calls if c["kind"] == "rules-action" and c.get("type") in FACT_FIELDS), None)
            if truth_fact is not None:
                truth = {k: v for k, v in truth_fact.items() if k not in ("kind", "t")}
                new = self.session.flicks[n_flicks:]
                self._bridge(new[-1] if new else None, truth, ep.frames[-1])
                self.flicks += 1
            self._sync_identities()
            self._resync()
            if self.bot.over or self.link.snapshot(self.match_id)["outcome"] is not None:
                self._idle(ep.frames[-1], 5.0)
                return
            if self._diverged():
                log.info("the record and the simulated table disagree: a new demo game")
                self._idle(ep.frames[-1], 2.0)
                return
            self._idle(ep.frames[-1], self.pace_s)

    def _name_pieces(self) -> None:
        obs = self.session._last_obs
        for tid, truth_id in zip(obs.track_id, self.det.last_ids):
            if int(tid) < 0 or not truth_id:
                continue
            try:
                record.assign_identity(self.link.store, self.link.hub, self.match_id, truth_id, int(tid),
                                       [float(v) for v in obs.xy[list(obs.track_id).index(tid)]], "demo players",
                                       session=self.session)
            except record.StoreError as exc:
                log.warning("demo: could not name %s: %s", truth_id, exc)
        self.named = True

    def _resync(self) -> None:
        """The session's engine follows the record (a dispute replayed with its newest decision, a
        correction): when the two differ, the session takes a copy of the record's game."""
        game, _ = self.link.game_copy(self.match_id)
        if self.session.pending is None and game.state != self.session.game.state:
            self.session.game = game

    def _sync_identities(self) -> None:
        """The tracker's names (they move to new tracks after a reset, when the players confirm the
        layout) into the record, where they changed."""
        known = self.link.identities(self.match_id)
        positions = self.session.positions()
        for name, track in self.session.names().items():
            if known.get(name, {}).get("track") != track:
                xy = [float(v) for v in positions[name]] if name in positions else None
                try:
                    record.assign_identity(self.link.store, self.link.hub, self.match_id, name, int(track), xy,
                                           "demo players (layout confirmed)")
                except record.StoreError as exc:
                    log.warning("demo: could not record %s: %s", name, exc)

    def _bridge(self, flick, truth: dict, last_scene) -> None:
        """The session's outcome of one flick into the record."""

        if flick is None or flick.status not in ("applied", "pending"):
            why = "no flick seen" if flick is None else f"no call ({'; '.join(flick.notes) or flick.status})"
            if self.session.game.pending()["kind"] == "fact":
                self.session.act(self.session.game.action_from_dict(truth))
            self.link.fact(truth, actor=f"demo referee (sim truth: the session made {why})")
            return
        posted = post_flick(self.link, flick, self._evidence())
        if flick.status == "applied":
            self._check_against_truth(posted["id"], flick, truth)
            return
        # too close: the record holds the call until a person (or the demo's judge) decides
        cid, open_facts, flipped = posted["id"], posted["open_facts"], posted["flipped"]
        proposed, alternative = posted["proposed"], posted["alternative"]
        asked = time.monotonic()
        while not self._stop.is_set():
            call = self.link.snapshot(self.match_id)
            c = next((x for x in call["calls"] if x["id"] == cid), None)
            if c is not None and c["status"] not in ("pending", "disputed"):
                break
            if self.auto_confirm_s is not None and time.monotonic() - asked > self.auto_confirm_s:
                decision = "override" if alternative is not None and all(truth.get(f) == flipped[f] for f in open_facts) \
                    else "confirm"
                self.link.decide(cid, decision, "demo judge (knows the simulator's truth)",
                                 "demo: nobody decided; the judge looked at the simulator's truth")
                continue
            self._show(last_scene, render=False)
            time.sleep(0.2)
        if self._stop.is_set():
            return
        status = apply_decision(self.link, self.session, c, posted, actor="demo referee")
        by_demo_judge = bool(c and c.get("decision") and c["decision"]["who"].startswith("demo judge"))
        if by_demo_judge and status in ("confirmed", "overridden"):
            self._check_against_truth(cid, flick, truth)  # an open fact was right, another one wrong

    def _evidence(self) -> dict:
        """The flick's rendered frames (at most 8, before to after) as evidence images, and the
        ghost of the pieces before it."""
        jpegs = [j for j in getattr(self, "_flick_jpegs", []) if j]
        picks = sorted({round(i * (len(jpegs) - 1) / 7) for i in range(8)}) if len(jpegs) > 8 else range(len(jpegs))
        ids = [self.link.evidence(jpegs[i], self.match_id) for i in picks]
        before = getattr(self, "_before", None)
        ghost = [{"xy": [p.x, p.y], "radius": p.radius, "id": p.id, "team": str(p.attributes.get("team", ""))}
                 for p in (before.pieces if before is not None else []) if p.radius > 0][:64]
        return {"evidence_images": ids, "ghost": ghost}

    def _check_against_truth(self, cid: str, flick, truth: dict) -> None:
        """A confident call the simulator's truth contradicts: the demo's judge disputes it and
        overrides it with the truth (the record replays with the new decision; the session's engine
        is corrected), as a person watching the replay would."""
        from session.simgame import _compare

        mine = {k: v for k, v in (flick.fact or {}).items() if k != "positions"}
        diffs = _compare(truth, mine, (flick.expected or {}).get("action") == "foul_shot")
        if not diffs:
            return
        who = "demo judge (knows the simulator's truth)"
        self.link.dispute(cid, who, f"the table shows otherwise: {'; '.join(diffs)}")
        self.link.decide(cid, "override", who, "overridden with the simulator's truth", action=truth)
        self.session.correct(self.session.game.action_from_dict(truth))
        self.disputed = getattr(self, "disputed", 0) + 1

    def _diverged(self) -> bool:
        from session.simgame import _diverged

        game, _ = self.link.game_copy(self.match_id)
        diff = _diverged(game.state, self.bot.game.state)
        if diff:
            log.info("demo: record vs table differ in %s", diff[:6])
        return bool(diff)

    def info(self) -> dict:
        return {"path": "session", "status": self.status, "match": self.match_id, "flicks": self.flicks, "games": self.games}


class RenderedDetector:
    """``vision.detect.Detector`` on the demo's rendered frames (the session's detector when the
    demo runs with ``detector="vision"``): the registration is the demo camera's, the empty mat a
    render of the board with no pieces. ``last_ids`` (for the demo "players" naming the discs once)
    is the nearest simulated piece to each detection, as players know their own pieces."""

    name = "vision.detect on rendered frames"

    def __init__(self, demo: "SessionDemoTable"):
        from sim.scene import Scene
        from vision.detect import Detector

        self.demo = demo
        empty = demo._render(demo.board, Scene("dino-dunk", demo.board.ref, []), demo.camera, seed=demo.seed).image
        self.detector = Detector(demo.board, demo.camera.transform(), specs=demo.specs, background=empty, method="auto")
        self.last_ids: list = []

    def __call__(self, frame, quality: str = "full"):
        import numpy as np

        scene = frame.scene
        obs = self.detector(self.demo.rendered(scene), int(frame.index), float(frame.t))
        pieces = [p for p in scene.pieces if not p.attributes.get("static")]
        truth = np.array([[p.x, p.y] for p in pieces]) if pieces else np.zeros((0, 2))
        ids = []
        for xy in np.asarray(obs.xy).reshape(-1, 2):
            d = np.hypot(*(truth - xy).T) if len(truth) else np.zeros(0)
            ids.append(pieces[int(d.argmin())].id if len(d) and d.min() < 30.0 else "")
        self.last_ids = ids
        return obs


def main_verdict(flick, prefer_open=None) -> dict | None:
    verdicts = list(getattr(flick.ruling, "verdicts", ()) or ())
    if prefer_open:
        for f in prefer_open:
            vs = flick.ruling.pending[f].verdicts
            if vs:
                verdicts = list(vs) + verdicts
                break
    if not verdicts:
        return None
    return verdicts[0].to_dict()


def post_doubtful_names(link: TableLink, session, events: list, match_id: str | None = None) -> int:
    """The names a session gave as a guess (``identify`` events, unsure: two pieces that look the
    same lifted at once, one put down beside another that moved) into the record, for a person to
    check on the pages; the same for the demo and a camera session. Returns how many."""
    n = 0
    for e in events:
        if e.get("kind") != "identify" or not e.get("unsure"):
            continue
        xy = session.positions().get(e["name"])
        try:
            link.identity(e["name"], int(e["track"]), [float(v) for v in xy] if xy is not None else None,
                          unsure=True, why=str(e.get("why", ""))[:200], match_id=match_id)
            n += 1
        except record.StoreError as exc:  # a name this match does not have: nothing to check
            log.warning("could not record the name %s in doubt: %s", e["name"], exc)
    return n


def post_flick(link: TableLink, flick, evidence: dict) -> dict:
    """A session's flick (``applied`` or ``pending``) into the record as a call, the same for the demo
    and a camera session. ``evidence`` {evidence_images, ghost}. An applied flick: a confident call
    whose fact the record applies at once (it can still be disputed); a pending one (too close): a
    call that waits for a person, with the session's proposal and the alternative. Returns {id,
    status, open_facts, flipped, proposed, alternative} (the last four for a pending call)."""
    from rules.core import action_to_dict

    if flick.status == "applied":
        main = main_verdict(flick) or {"question": f"{flick.ruling.name}?", "answer": "yes"}
        if main["answer"] == "too_close":
            main = {**main, "answer": "yes"}
        out = link.call({**main, **evidence, "confidence": 1.0, "proposed_action": flick.fact, "alternative_action": None})
        return {"id": out["id"], "status": "applied", "open_facts": [], "flipped": {}, "proposed": flick.fact,
                "alternative": None}
    ruling = flick.ruling
    open_facts = ruling.open_facts()
    proposed = action_to_dict(_resolved(ruling, open_facts, None).action())
    flipped = {f: (not ruling.pending[f].proposed) for f in open_facts if isinstance(ruling.pending[f].proposed, bool)}
    alternative = action_to_dict(_resolved(ruling, open_facts, flipped).action()) if len(flipped) == len(open_facts) else None
    main = main_verdict(flick, prefer_open=open_facts) or {"question": f"{ruling.name}: {', '.join(open_facts)}?",
                                                            "answer": "too_close"}
    out = link.call({**main, **evidence, "answer": "too_close", "proposed_action": proposed,
                     "alternative_action": alternative})
    return {"id": out["id"], "status": "pending", "open_facts": open_facts, "flipped": flipped, "proposed": proposed,
            "alternative": alternative}


def apply_decision(link: TableLink, session, call: dict | None, posted: dict, actor: str) -> str:
    """Hand the decision on a pending call (``call`` its record row, ``posted`` what
    :func:`post_flick` returned) back to the session: overridden, dismissed (the rule's default
    fact recorded by ``actor``) or confirmed. Returns the call's status."""
    status = call["status"] if call else "confirmed"
    if status == "overridden" and posted["flipped"]:
        for f in posted["open_facts"]:
            session.override(f, posted["flipped"][f], by="dashboard")
    elif status == "dismissed":
        session.confirm(by="dashboard (dismissed: the rule's default)")
        link.fact(posted["proposed"], actor=f"{actor} (a dismissed call: the rule's default applied)")
    else:
        session.confirm(by="dashboard")
    return status


def _resolved(ruling, facts, values):
    r = ruling
    for f in facts:
        r = r.resolve(f, None if values is None else values[f], by="proposal", confirm=values is None)
    return r
