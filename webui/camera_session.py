"""The live-table session on a real frame source (``tableref serve --source ...``): the newest frames
of the app's feed (:class:`webui.frames.FrameFeed`, published by the source) through
:class:`vision.detect.Detector` into the session of the current match's game
(:class:`session.dino_dunk.DinoDunkSession` …), and its flicks into the record through
:class:`webui.link.TableLink` with the same functions as the demo bridge
(:func:`webui.demo_session.post_flick`, :func:`webui.demo_session.apply_decision`).

Needs, for the match's board: a mat registration (``POST /api/registration``, kept in the app) and a
captured empty mat (``POST /api/empty-mat``). Started and stopped from the setup page or the API
(``POST /api/session/start``, ``POST /api/session/stop``, ``GET /api/session``). While it runs,
``app.extensions["tableref.session"]`` is the session, so the names given on the identities page
reach its tracker.

What it does not do (yet): it reads the *newest* frame each time (frames the detector could not keep
up with are skipped, so a fast flick is seen at a lower frame rate); it does not publish frames (the
source does), and pending calls wait for a person on the dashboard (no automatic judge).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from webui.record import ConflictError, InputError

log = logging.getLogger("tableref.camera_session")
KEY = "tableref.camera_session"
ACTOR = "referee (live-table session, camera)"
SESSIONS = {"dino-dunk": ("session.dino_dunk", "DinoDunkSession"), "dodo-dash": ("session.dodo_dash", "DodoDashSession"),
            "morris": ("session.morris", "MorrisSession"), "dogo-dash": ("session.dogo_dash", "DogoDashSession")}
RESYNC_S = 0.5


@dataclass
class CameraFrame:
    """One frame for :meth:`session.core.Session.step`: feed index, seconds since the start, BGR image."""

    index: int
    t: float
    image: object


class VisionDetector:
    """``detector(frame, quality) -> Observation`` for the session: :class:`vision.detect.Detector`
    on the frame's image (it always measures at full quality)."""

    name = "vision.detect"

    def __init__(self, detector):
        self.detector = detector

    def __call__(self, frame, quality: str = "full"):
        return self.detector(frame.image, int(frame.index), float(frame.t))

    def set_reference(self, image) -> None:
        """The table at rest before the action (:meth:`vision.detect.Detector.set_reference`)."""
        self.detector.set_reference(image)


def _is_demo(app) -> bool:
    return "tableref.demo" in app.extensions or app.config.get("SOURCE", "") == "sim (demo)"


class CameraSession:
    def __init__(self, app, match_id: str, game: str, board_ref: str, session, detector):
        self.app = app
        self.match_id = match_id
        self.game = game
        self.board_ref = board_ref
        self.session = session
        self.detector = detector
        self.status = "starting"
        self.frames = 0
        self.skipped = 0
        self.calls = 0
        self.last_error: str | None = None
        self._posted: set = set()
        self._waiting: dict | None = None  # {flick id: posted} of the pending call
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera-session", daemon=True)

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> "CameraSession":
        self.app.extensions[KEY] = self
        self.app.extensions["tableref.session"] = self.session
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=10)
        if self.app.extensions.get("tableref.session") is self.session:
            self.app.extensions.pop("tableref.session", None)
        if self.status in ("starting", "running"):
            self.status = "stopped"

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self._stop.is_set()

    def info(self) -> dict:
        return {"running": self.running, "status": self.status, "match": self.match_id, "game": self.game,
                "board": self.board_ref, "detector": f"{self.detector.name} ({self.detector.detector.method})",
                "frames_processed": self.frames, "frames_skipped": self.skipped, "flicks": len(self.session.flicks),
                "calls": self.calls, "pending_call": (self._waiting or {}).get("id"), "last_error": self.last_error}

    # -- the loop -------------------------------------------------------------------------------
    def _run(self) -> None:
        import cv2
        import numpy as np

        from webui.demo_session import post_doubtful_names
        from webui.link import TableLink

        feed = self.app.extensions["tableref.frames"]
        link = TableLink(self.app, actor=ACTOR)
        t0 = time.monotonic()
        last_index, last_resync = None, 0.0
        self.status = "running"
        try:
            while not self._stop.is_set() and not feed.closed:
                jpeg, index = feed.wait_newer(last_index, 0.5)
                if jpeg is None or index == last_index:
                    continue
                if last_index is not None and index > last_index + 1:
                    self.skipped += index - last_index - 1
                last_index = index
                image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
                if image is None:
                    self.last_error = f"frame {index} could not be decoded"
                    continue
                if link.current() != self.match_id:
                    self.status = "stopped: the match on the table changed"
                    break
                now = time.monotonic()
                if now - last_resync >= RESYNC_S:  # the record is the truth: actions pushed from the pages
                    self._resync(link)
                    last_resync = now
                post_doubtful_names(link, self.session, self.session.step(CameraFrame(index, now - t0, image)),
                                    self.match_id)
                self.frames += 1
                self._bridge(link)
            if self.status == "running":
                self.status = "stopped"
        except Exception as exc:  # a session failing must not take the dashboard down
            self.last_error = f"{type(exc).__name__}: {exc}"
            self.status = f"stopped: {self.last_error}"
            log.exception("camera session stopped")
        finally:
            if self.app.extensions.get("tableref.session") is self.session:
                self.app.extensions.pop("tableref.session", None)
            link.close()

    def _resync(self, link) -> None:
        game, _ = link.game_copy(self.match_id)
        if self.session.pending is None and game.state != self.session.game.state:
            self.session.game = game

    def _bridge(self, link) -> None:
        """New flicks into the record (as the demo does), and a decided pending call back to the session."""
        from webui.demo_session import apply_decision, post_flick

        if self._waiting is not None:
            snap = link.snapshot(self.match_id)
            c = next((x for x in snap["calls"] if x["id"] == self._waiting["id"]), None)
            if c is not None and c["status"] not in ("pending", "disputed"):
                apply_decision(link, self.session, c, self._waiting, actor=ACTOR)
                self._waiting = None
        for flick in self.session.flicks:
            if flick.id in self._posted or flick.status not in ("applied", "pending", "no-call"):
                continue
            self._posted.add(flick.id)
            if flick.status == "no-call":
                log.info("camera session: flick %s made no call (%s)", flick.id, "; ".join(flick.notes))
                continue
            if flick.status == "pending" and self._waiting is not None:
                continue  # one pending call at a time (the session holds one too)
            try:
                posted = post_flick(link, flick, self._evidence(link, flick))
            except ValueError as exc:  # the record refused it (out of step): the next resync catches up
                self.last_error = f"call refused: {exc}"
                log.warning("camera session: %s", self.last_error)
                continue
            self.calls += 1
            if posted["status"] == "pending":
                self._waiting = posted

    def _evidence(self, link, flick) -> dict:
        """Up to 8 of the flick's frames (before to after) as evidence images."""
        import cv2

        frames = [f for f in flick.frames if f.image is not None]
        picks = sorted({round(i * (len(frames) - 1) / 7) for i in range(8)}) if len(frames) > 8 else range(len(frames))
        ids = []
        for i in picks:
            ok, jpg = cv2.imencode(".jpg", frames[i].image, [cv2.IMWRITE_JPEG_QUALITY, 80])
            if ok:
                ids.append(link.evidence(jpg.tobytes(), self.match_id))
        return {"evidence_images": ids, "ghost": []}


# -- what the API calls ---------------------------------------------------------------------------
def current(app) -> CameraSession | None:
    return app.extensions.get(KEY)


def status(app) -> dict:
    cs = current(app)
    if cs is None:
        return {"running": False, "status": "not started", "frames_processed": 0, "last_error": None}
    return cs.info()


def start(app, store, method: str = "auto") -> dict:
    """Attach a session to the current match (4xx with what is missing)."""
    import cv2

    from pathlib import Path

    from webui import boards
    from webui import record
    from webui import registration as reg
    from webui import teach

    if _is_demo(app):
        raise ConflictError("the demo table brings its own live-table session (tableref serve --demo)")
    cs = current(app)
    if cs is not None and cs.running:
        raise ConflictError("a live-table session is already running: stop it first (POST /api/session/stop)")
    match_id = record.current_match_id(store)
    if match_id is None:
        raise ConflictError("no match on the table: start a match first")
    match = store.match(match_id)
    game, board_ref = match["game"], match["board"]
    if game not in SESSIONS:
        raise InputError(f"no live-table session for {game!r}; sessions exist for {', '.join(SESSIONS)}")
    transform = app.extensions.get("tableref.registrations", {}).get(board_ref)
    if transform is None:
        raise ConflictError(f"register the mat first (POST /api/registration with board {board_ref})")
    path = reg.empty_mat_path(app.config["DATA_DIR"], board_ref)
    if not path.exists():
        raise ConflictError(f"capture the empty mat first (POST /api/empty-mat with board {board_ref}, "
                            "the mat with no pieces on it)")
    background = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if background is None:
        raise ConflictError("the captured empty mat could not be read: capture the empty mat again")

    import importlib

    from calibration.specs import load_specs
    from vision.detect import DetectError, Detector
    from webui.link import TableLink

    board = boards.load(app.config["DATA_DIR"], board_ref)
    specs = load_specs()
    try:
        # the pieces the user taught (the dashboard's active profile), else the shipped models
        profile = teach.active(store)
        det = VisionDetector(Detector(board, transform, specs=specs, background=background, method=method,
                                      profile=str(Path(app.config["DATA_DIR"]) / "profiles" / profile) if profile else None))
    except DetectError as exc:
        raise InputError(str(exc)) from None
    link = TableLink(app, actor=ACTOR)
    try:
        engine, _ = link.game_copy(match_id)
    finally:
        link.close()
    module, cls = SESSIONS[game]
    session_cls = getattr(importlib.import_module(module), cls)
    session = session_cls(board, det, game=engine, specs=specs, transform=transform)
    return CameraSession(app, match_id, game, board_ref, session, det).start().info()


def stop(app) -> dict:
    cs = current(app)
    if cs is not None:
        cs.stop()
    return status(app)
