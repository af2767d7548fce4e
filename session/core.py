"""One table's live session: frames in, rulings and game events out. No global state: one
:class:`Session` per table, all of it in the instance.

The loop, for every frame (:meth:`Session.step`)::

    frame ──detect──▶ Observation (mat mm) ──track──▶ identities ──motion──▶ started / settled
                      (low resolution while the table moves; the settled frame at full quality)
    settled ─▶ names re-identified ─▶ the game's calls (referee, in mat mm) ─▶ a Ruling
           ─▶ ready: its fact goes to the rules engine at once;
              too_close or low confidence: it waits for a person (:meth:`confirm` / :meth:`override`)

A *flick* is one stretch of motion while the game expects one (for Dino Dunk: a fact is pending in
the engine after an Activate). Motion while nothing is expected (hands putting pieces back, a ball
placed after a move) is tracked, names follow the pieces, and no call is made. Each flick keeps its
evidence: the frames from ``pre_s`` before the start to ``post_frames`` after the settle (a ring
buffer of frames, images kept for the last ``keep_images`` flicks), the trajectories and contacts.

Detectors are pluggable: any callable ``detector(frame, quality="full" | "fast") -> Observation``
(:class:`session.oracle.OracleDetector` on the simulator; :mod:`vision.detect` on a camera).
Per-game subclasses (:mod:`session.dino_dunk` …) implement :meth:`expecting`, :meth:`judge` and
the engine set-up; this module knows no game. A game may also open a flick that no motion showed
(:meth:`Session.lost_motion`: the piece it waits for vanished from where it rested, or reappeared
elsewhere, too fast or too high for the detector to follow); such a flick is judged once the game
says it is over (:meth:`Session.lost_settled`) or at the settle of any motion seen meanwhile. A game may give a call that waits for a person a
second look: with ``revisit_s`` set, the call is made again (:meth:`Session.second_look`) once the
table has stayed still that long after the settle, and taken only when it leaves fewer facts open
and agrees with every fact the first call settled.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from session.motion import Motion, MotionConfig
from vision.contacts import ContactConfig
from vision.core import Observation
from vision.track import Tracker, TrackerConfig


class SessionError(ValueError):
    """A request the session cannot honour now (no such track, nothing pending …); says why."""


@dataclass(frozen=True)
class SessionConfig:
    """``pre_s`` seconds of frames kept before a flick starts, ``post_frames`` after it settles;
    ``max_flick_frames`` evidence frames per flick at most (longer flicks keep every n-th);
    ``keep_images`` flicks whose images stay in memory; ``fast_during_motion`` lets the detector run
    at low resolution while the table moves (off by default: with the oracle's 1.5 mm σ at low
    resolution the contacts of a flick, nudges of 2-5 mm, drown in the noise; the settled state is
    re-measured at full quality either way); ``auto_apply`` pushes confident facts at once."""

    pre_s: float = 0.5
    post_frames: int = 6
    max_flick_frames: int = 150
    keep_images: int = 3
    fast_during_motion: bool = False
    auto_apply: bool = True
    prune_s: float = 30.0


@dataclass
class FrameRecord:
    """One frame of evidence: index, t (s), the image (BGR, image px; None once released) and the
    tracked Observation (mat mm)."""

    index: int
    t: float
    image: object
    obs: Observation


@dataclass
class Flick:
    """One flick: what the game expected, the motion, the evidence, the calls and what came of them.
    Positions are mat mm by piece name."""

    id: int
    expected: dict
    t_start: float
    index_start: int
    t_settle: float | None = None
    index_settle: int = -1
    mover: str = ""
    before: dict = field(default_factory=dict)
    after: dict = field(default_factory=dict)
    frames: list = field(default_factory=list)
    contacts: list = field(default_factory=list)
    ruling: object = None
    fact: dict | None = None
    status: str = "moving"  # moving, applied, pending, no-call
    notes: list = field(default_factory=list)
    compute_s: float = 0.0
    moving_frames: int = 0  # frames in which something moved since the frame before
    armed: bool = False  # announced (an Activate, a hotkey) before it started
    settled_obs: Observation | None = field(default=None, repr=False)  # the named Observation it was judged on
    looked_again: bool = False  # its second look is done (or given up: the table moved again)
    opened_by: str = "motion"  # what opened it: "motion", or the game's reason (a piece that vanished, reappeared elsewhere …)
    still_frames: int = 0  # opened without motion: frames since in which nothing moved

    def calls(self) -> list[dict]:
        return [v.to_dict() for v in getattr(self.ruling, "verdicts", ())]

    def to_dict(self) -> dict:
        return {"id": self.id, "expected": self.expected, "t_start": self.t_start, "t_settle": self.t_settle,
                "index_start": self.index_start, "index_settle": self.index_settle, "mover": self.mover,
                "before": self.before, "after": self.after, "contacts": self.contacts, "status": self.status,
                "fact": self.fact, "ruling": self.ruling.to_dict() if self.ruling is not None else None,
                "notes": list(self.notes), "frames": [f.index for f in self.frames], "compute_s": round(self.compute_s, 6)}


class Session:
    """A table session for one game (subclass per game). ``board`` a loaded Board (mat mm);
    ``detector`` see the module doc; ``game`` an engine instance (else the subclass makes one from
    ``setup``); ``transform`` the MatTransform, used for σ and evidence only."""

    GAME = ""
    auto_names: dict = {}  # kind -> name for a kind present once on the table ("ball")
    beside_radii = 1.5  # a named piece within this many of the two radii of a piece that appears ...
    beside_moved_mm = 5.0  # ... having moved more than this ...
    beside_s = 0.5  # ... from this long before it appeared: the name given to the new one is in doubt
    revisit_s: float | None = None  # a pending call gets a second look this long after its settle, the table still (None: none)
    # a game whose pieces arrive during an action (a thrown token) hands its detector the table at
    # rest before it (the detector's ``set_reference``, where it has one): the first frame at rest
    # while an action is awaited, and the last frame at rest before each motion: what arrived is
    # told from a shadow by not having been there (vision.detect.Detector.set_reference), though it
    # arrived unseen. Not renewed when a flick is judged: the frames after its settle still tell
    # the token that landed from a shadow.
    reference_at_rest = False
    _reference_key = None

    def __init__(self, board, detector, *, game=None, specs=None, referee=None, transform=None,
                 tracker: TrackerConfig | None = None, motion: MotionConfig | None = None,
                 contacts: ContactConfig | None = None, config: SessionConfig | None = None, **setup):
        from calibration.specs import load_specs
        from referee.config import load_config

        self.board = board
        self.detector = detector
        self.specs = specs or load_specs()
        self.referee = referee or load_config()
        self.transform = transform
        self.config = config or SessionConfig()
        self.tracker = Tracker(tracker or TrackerConfig())
        self.motion = Motion(motion)
        self.contact_config = contacts or ContactConfig()
        self.game = game if game is not None else self.new_game(**setup)
        self.flicks: list[Flick] = []
        self.events: list[dict] = []
        self.pending: Flick | None = None  # a flick whose ruling waits for a person
        self._flick: Flick | None = None
        self._buffer: deque = deque(maxlen=max(2, int(round(self.config.pre_s * 30)) + 1))
        self._last_obs: Observation | None = None
        self._last_frame = None
        self._declared: dict | None = None
        self._quality = "full"
        self._t = 0.0
        self._flick_ids = 0
        self._armed = False  # the players said a flick comes next (an Activate, a hotkey)

    # -- to implement per game -----------------------------------------------------------------
    def new_game(self, **setup):  # pragma: no cover - abstract
        raise NotImplementedError

    def expecting(self) -> dict | None:
        """What flick the game waits for now ({"action", "piece", ...}), None when none."""
        raise NotImplementedError  # pragma: no cover

    def judge(self, flick: Flick, obs: Observation):
        """The Ruling for a settled flick (``obs``: the settled Observation, named)."""
        raise NotImplementedError  # pragma: no cover

    def on_action(self, action) -> None:
        """Hook after a player's action was pushed (re-naming after a reset …)."""

    def on_settled(self, obs: Observation) -> None:
        """Hook at every settle, flick or not, with the named full-quality Observation."""

    def motion_observation(self, obs: Observation) -> Observation:
        """Hook: the tracked Observation as the motion test (:class:`session.motion.Motion`) sees it
        (its σ say how far a still piece's place wanders from frame to frame); by default ``obs``."""
        return obs

    def lost_motion(self, obs: Observation) -> str | None:
        """Hook, called on each frame in which nothing was seen moving while the game expects a flick
        and none is open: a reason (text) to open one all the same (the piece the game waits for
        vanished from where it rested, or reappeared elsewhere: too fast or too high for the
        detector to follow), or None. Such a flick is judged when :meth:`lost_settled` says so (or
        at the settle of any motion seen meanwhile). By default None: only motion opens a flick."""
        return None

    def lost_settled(self, flick: Flick) -> bool:
        """Hook: whether ``flick``, opened by :meth:`lost_motion`, is over, nothing having moved in
        its last ``flick.still_frames`` frames; by default after the motion's ``settle_frames``."""
        return flick.still_frames >= self.motion.config.settle_frames

    def second_look(self, flick: Flick):
        """Hook for a game that sets ``revisit_s``: the Ruling for ``flick``, whose call waits for a
        person, made again once the table has stayed still for ``revisit_s`` s after the settle (the
        frames after the settle and the longer tracks may make it sharper), or None for no new call.
        By default :meth:`judge` again on the Observation it was judged on at the settle. The
        contacts and mover it writes on the flick stay only when the new call is taken, the notes
        never (the flick's notes gain a line saying what it settled; see :meth:`_second_look`)."""
        if flick.settled_obs is None:
            return None
        return self.judge(flick, flick.settled_obs)

    # -- identities ------------------------------------------------------------------------------
    def assign(self, track_id: int, name: str) -> None:
        """The user says which piece this is ("home:triceratops"); it stays with the piece. Where the
        track bore another name and the name given came from another piece that looks the same
        (kind, team, colour), the two names trade places: the two had been taken for each other
        (a name displaced onto no piece could not be found again)."""
        if track_id not in self.tracker.tracks:
            raise SessionError(f"no track {track_id}; tracks now: {sorted(t.id for t in self.tracker.active())}")
        tracks = self.tracker.tracks
        old = tracks[int(track_id)].name
        prev = next((tr for tr in tracks.values() if tr.name == name and tr.id != int(track_id)), None)
        self.tracker.name(int(track_id), name)
        self._emit({"kind": "identity", "track": int(track_id), "name": name})
        if old and old != name and prev is not None and _looks(prev) == _looks(tracks[int(track_id)]):
            self.tracker.name(prev.id, old)
            self._emit({"kind": "identity", "track": prev.id, "name": old, "traded": name})

    def assign_at(self, positions) -> dict:
        """Name the tracks nearest to ``((name, x_mm, y_mm), ...)`` (a layout the players confirmed
        on the dashboard), one track per name, by a global assignment. Returns {name: track id}."""
        from scipy.optimize import linear_sum_assignment

        live = [tr for tr in self.tracker.active() if tr.missed_since is None]
        rows = [(str(n), float(x), float(y)) for n, x, y in positions]
        if not live or not rows:
            return {}
        cost = np.array([[np.hypot(tr.position()[0] - x, tr.position()[1] - y) for tr in live] for _, x, y in rows])
        r, c = linear_sum_assignment(cost)
        out = {}
        for i, j in zip(r, c):
            if cost[i, j] <= 60.0:
                self.tracker.name(live[j].id, rows[i][0])
                out[rows[i][0]] = live[j].id
        return out

    def names(self) -> dict:
        """{name: track id} of the named pieces."""
        return {tr.name: tr.id for tr in self.tracker.tracks.values() if tr.name}

    def positions(self) -> dict:
        """{name: (x, y) mat mm} where each named piece was last seen."""
        return {tr.name: tuple(float(v) for v in tr.position()) for tr in self.tracker.tracks.values() if tr.name and tr.xy}

    def off_table(self) -> set:
        """Names of the pieces the rules say are off the table now (a dinosaur removed for a foul
        until it returns): their names are given to no piece seen. None in general."""
        return set()

    def _reconcile(self, obs: Observation) -> None:
        """After a settle: a name whose piece was lost (lifted, occluded, moved by hand) goes to an
        unnamed piece of the same kind and team seen now, nearest to where the name was last seen;
        not the name of a piece the rules say is off the table (:meth:`off_table`). A kind present
        once (the ball) is always the same piece: the one piece seen of that kind is given its name,
        unless it bears another piece's name (a disc the detector reads as a ball, named by a person
        for the disc, is not the ball when the ball goes unseen)."""
        from scipy.optimize import linear_sum_assignment

        seen = {int(t) for t in obs.track_id if t >= 0}
        tracks = self.tracker.tracks
        for kind, name in self.auto_names.items():
            of_kind = [tracks[t] for t in seen if tracks[t].kind == kind]
            if len(of_kind) == 1 and not of_kind[0].name:
                self.tracker.name(of_kind[0].id, name)
        off = self.off_table()
        lost = [tr for tr in tracks.values() if tr.name and tr.id not in seen and tr.name not in off]
        if not lost:
            return
        free = [tracks[t] for t in seen if not tracks[t].name]
        if not free:
            return

        for k in sorted({_looks(tr) for tr in lost}):  # sorted: the same event order whatever the hash seed
            a = [tr for tr in lost if _looks(tr) == k]
            b = [tr for tr in free if _looks(tr) == k]
            if not b:
                continue
            cost = np.array([[float(np.hypot(*(x.position() - y.position()))) for y in b] for x in a])
            r, c = linear_sum_assignment(cost)
            for i, j in zip(r, c):
                name = a[i].name
                self.tracker.name(b[j].id, name)
                if len(a) > 1:
                    self._emit({"kind": "identify", "name": name, "track": b[j].id, "unsure": True,
                                "why": f"{len(a)} pieces of kind {k[0]} {k[1]} were lost at once; please check"})
                    continue
                moved = self._moved_beside(b[j], [tracks[t] for t in seen if tracks[t].name and _looks(tracks[t]) == k
                                                  and t != b[j].id])
                if moved:
                    self._emit({"kind": "identify", "name": name, "track": b[j].id, "unsure": True,
                                "why": f"it appeared beside {moved}, which looks the same and moved as it came; "
                                       f"please check"})

    def _moved_beside(self, new, named: list) -> str:
        """The name of a piece in ``named`` (tracks seen now, of the kind and team of the track
        ``new``) that lies within ``beside_radii`` of their radii of it and moved more than
        ``beside_moved_mm`` from the ``beside_s`` before ``new`` was first seen to now; "" if none.
        A piece put down by hand beside one that looks the same and is pushed aside as it is (a
        dinosaur returned to the sideline where another stands) may have taken that one's track:
        the tracker cannot tell them apart, so the name given is in doubt."""
        if not new.t:
            return ""
        t0 = new.t[0] - self.beside_s
        here = new.position()
        for tr in named:
            if float(np.hypot(*(tr.position() - here))) > self.beside_radii * (tr.radius + new.radius):
                continue
            t, xy = tr.trajectory()
            m = t >= t0
            if m.sum() >= 2 and float(np.hypot(*(xy[m] - xy[m][-1]).T).max()) > self.beside_moved_mm:
                return tr.name
        return ""

    # -- the players -----------------------------------------------------------------------------
    def act(self, action) -> list[dict]:
        """A player's choice (Activate, Skip, ChooseCarrier …) pushed to the engine."""
        from rules.core import action_to_dict

        if self.pending is not None:
            raise SessionError("a call is waiting for a person; confirm or override it first")
        events = [e.to_dict() for e in self.game.push(action)]
        self._emit({"kind": "action", "action": action_to_dict(action)})
        for e in events:
            self._emit({**e, "source": "rules"})
        self.on_action(action)
        self._armed = self.expecting() is not None and self.expecting().get("action") != "infer"
        return events

    def correct(self, action) -> list[dict]:
        """A judge replaces the last fact the session pushed with ``action`` (the engine is popped
        back to before it). Returns the events of the corrected fact."""
        from rules.core import action_to_dict

        last = next((f for f in reversed(self.flicks) if f.status == "applied"), None)
        if last is None:
            raise SessionError("no applied call to correct")
        self.game.pop()
        events = [e.to_dict() for e in self.game.push(action)]
        self._emit({"kind": "corrected", "flick": last.id, "was": last.fact, "now": action_to_dict(action)})
        last.fact, last.status = action_to_dict(action), "corrected"
        for e in events:
            self._emit({**e, "source": "rules"})
        return events

    def declare(self, action: str, piece: str = "") -> None:
        """Say which action the next flick is (a hotkey), for games whose engine does not name it."""
        self._declared = {"action": action, "piece": piece}
        self._armed = True

    def confirm(self, fact: str | None = None, by: str = "") -> list[dict]:
        """Accept the proposed value of a pending fact (all of them when ``fact`` is None)."""
        return self._resolve(fact, None, by, confirm=True)

    def override(self, fact: str, value, by: str = "") -> list[dict]:
        """Set a pending fact to ``value`` (a person looked at the evidence)."""
        return self._resolve(fact, value, by, confirm=False)

    def _resolve(self, fact, value, by, confirm) -> list[dict]:
        if self.pending is None:
            raise SessionError("no call is waiting for a person")
        flick = self.pending
        names = [fact] if fact is not None else flick.ruling.open_facts()
        for name in names:
            flick.ruling = flick.ruling.resolve(name, value, by=by, confirm=confirm)
            self._emit({"kind": "decided", "flick": flick.id, "fact": name, "by": by,
                        "value": flick.ruling.pending[name].value, "how": "confirmed" if confirm else "overridden"})
        if flick.ruling.ready:
            self.pending = None
            return self._apply(flick)
        return []

    # -- the loop --------------------------------------------------------------------------------
    def step(self, frame) -> list[dict]:
        """Process one frame (a Frame, a sim LiveFrame …); returns the events it produced."""
        n_before = len(self.events)
        obs = self.detector(frame, self._quality)
        self.tracker.update(obs)
        self._t = float(obs.timestamp)
        image = getattr(frame, "image", None)
        rec = FrameRecord(int(obs.frame_index), float(obs.timestamp), image, obs)
        event = self.motion.update(self.motion_observation(obs))
        if self.reference_at_rest:
            if event == "started" and self._buffer:
                self._set_reference(self._buffer[-1])
            elif self.motion.at_rest and self._flick is None:
                key = repr(self.expecting())
                if key != self._reference_key:
                    self._reference_key = key
                    self._set_reference(rec)
        if event == "started" and self._flick is None:
            self._start(rec)
        elif event is None and self._flick is None and self.motion.at_rest and self.pending is None \
                and self.expecting() is not None:
            why = self.lost_motion(obs)
            if why:
                self._start(rec, opened_by=why)
        if self._flick is not None:
            self._record(self._flick, rec)
            self._flick.moving_frames += bool(self.motion.stepped_ids)
        elif self.flicks and self.flicks[-1].t_settle is not None and len(self.flicks[-1].frames) and \
                self.flicks[-1].frames[-1].index >= self.flicks[-1].index_settle and \
                self.flicks[-1].frames[-1].index - self.flicks[-1].index_settle < self.config.post_frames:
            self.flicks[-1].frames.append(rec)  # frames after the settle, for the judge
        self._buffer.append(rec)
        if event == "settled":
            self._settle(frame, rec)
        elif self.motion.at_rest and event is None:
            flick = self._flick
            if flick is not None and flick.opened_by != "motion" and flick.frames[-1] is rec:
                flick.still_frames += 1
                if self.lost_settled(flick):
                    self._settle(frame, rec)
                else:
                    self._reconcile(obs)
            else:
                self._reconcile(obs)
        self._quality = "fast" if (self.config.fast_during_motion and not self.motion.at_rest) else "full"
        self._last_obs, self._last_frame = obs, frame
        self._prune()
        self._look_again()
        return self.events[n_before:]

    def _set_reference(self, rec: FrameRecord) -> None:
        """Hand the detector ``rec``'s image (the table at rest: see ``reference_at_rest``) as its
        reference, where the detector takes one and the frame has an image."""
        set_reference = getattr(self.detector, "set_reference", None)
        if callable(set_reference) and rec.image is not None:
            set_reference(rec.image)

    def run(self, frames) -> list[dict]:
        """Step through an iterable of frames; all the events."""
        out = []
        for f in frames:
            out += self.step(f)
        return out

    def _start(self, rec: FrameRecord, opened_by: str = "motion") -> None:
        """Open a flick at ``rec`` when the game expects one: on motion (``opened_by`` "motion"), or
        for the game's reason (:meth:`lost_motion`), which the flick keeps in its notes."""
        if opened_by == "motion":
            self._emit({"kind": "motion", "state": "started", "t": rec.t, "frame": rec.index,
                        "moving": [self.tracker.tracks[t].name or t for t in self.motion.moving_ids]})
        expected = self.expecting() if self.pending is None else None
        if expected is None:
            return
        if self._declared:
            expected = {**expected, **{k: v for k, v in self._declared.items() if v}}
        self._flick_ids += 1
        flick = Flick(self._flick_ids, expected, rec.t, rec.index, armed=self._armed, opened_by=opened_by)
        if opened_by != "motion":
            flick.notes.append(f"opened with nothing seen moving: {opened_by}")
        flick.frames = list(self._buffer)
        flick.before = self._rest_positions(flick)
        moving = [self.tracker.tracks[t] for t in self.motion.moving_ids]
        flick.mover = next((tr.name for tr in moving if tr.name), "") if moving else ""
        self._flick = flick
        self.flicks.append(flick)
        self._emit({"kind": "flick", "state": "started", "flick": flick.id, "expected": expected, "mover": flick.mover,
                    **({"why": opened_by} if opened_by != "motion" else {})})

    def _rest_positions(self, flick: Flick) -> dict:
        """{name: (x, y) mat mm} at the last frame before the motion began (the motion test looks
        ``window`` frames back, so the start is seen up to that many frames late); pieces not seen
        there keep the tracker's last position."""
        pre = [f for f in flick.frames if f.t < flick.t_start]
        out = self.positions()
        if pre:
            ref = pre[-self.motion.config.window] if len(pre) >= self.motion.config.window else pre[0]
            names = {tr.id: tr.name for tr in self.tracker.tracks.values() if tr.name}
            for i, tid in enumerate(ref.obs.track_id):
                if int(tid) in names:
                    out[names[int(tid)]] = (float(ref.obs.xy[i, 0]), float(ref.obs.xy[i, 1]))
        return out

    def _record(self, flick: Flick, rec: FrameRecord) -> None:
        flick.frames.append(rec)
        cap = self.config.max_flick_frames
        if len(flick.frames) > cap:  # keep the first and last, thin the middle
            flick.frames = flick.frames[:1] + flick.frames[1:-1:2] + flick.frames[-1:]

    def flick_contact_config(self, flick: Flick):
        """The contact thresholds for this flick's noise: the median σ of its detections and its
        frame interval (see :func:`vision.contacts.noise_config`)."""
        from vision.contacts import noise_config

        cached = getattr(flick, "_contact_config", None)
        if cached is not None:
            return cached
        sig = [float(np.median(f.obs.sigma)) for f in flick.frames if len(f.obs)]
        ts = [f.t for f in flick.frames]
        dt = float(np.median(np.diff(ts))) if len(ts) > 1 else 1 / 30
        flick._contact_config = noise_config(self.contact_config, float(np.median(sig)) if sig else 1.0, dt)
        return flick._contact_config

    def flick_tracks(self, flick: Flick, t0: float) -> list:
        """The tracks seen during the flick, cut to the samples from ``t0`` on (short arrays make
        the contact search cheap; names, kinds and radii as the tracker has them)."""
        from bisect import bisect_left

        from vision.track import Track

        out = []
        for tr in self.tracker.tracks.values():
            if not tr.t or tr.t[-1] < flick.t_start:  # gone before the flick (lifted off the table)
                continue
            k = bisect_left(tr.t, t0 - 1e-9)
            if 0 < k < len(tr.t) and tr.t[k] > t0 + 1e-6:
                # unseen at t0 (a dropped detection) and seen next already moving: its path starts
                # where it was last seen at rest, not at that first sample (a fast flick had brushed
                # a piece in the frame between, and the cut path began past it)
                k -= 1
            out.append(Track(tr.id, tr.kind, tr.radius, tr.attributes, tr.name, tr.t[k:], tr.xy[k:]))
        return out

    def rest_means(self, t0: float, span_s: float = 0.3) -> dict:
        """{track id: (2,) mat mm}: where each piece seen over the ``span_s`` up to ``t0`` (the table
        at rest before a flick) rested, the mean of those samples (:meth:`flick_tracks` are cut at
        ``t0``, one sample; :func:`vision.contacts._rest_mean` of each)."""
        from vision.contacts import _rest_mean

        means = {tr.id: _rest_mean(tr, t0, span_s)[0] for tr in self.tracker.tracks.values() if tr.t}
        return {tid: m for tid, m in means.items() if m is not None}

    def t0(self, flick: Flick) -> float:
        """The instant the flick's pieces were last all at rest (s): where contacts are looked for."""
        before = [f.t for f in flick.frames if f.t < flick.t_start]
        return before[-2] if len(before) >= 2 else (before[-1] if before else flick.t_start - 0.1)

    def _settle(self, frame, rec: FrameRecord) -> None:
        t_in = time.perf_counter()
        obs = rec.obs
        if self._quality == "fast":  # the settled state is measured at full quality
            full = self.detector(frame, "full")
            obs = _carry_ids(full, rec.obs)
        self._reconcile(obs)
        names = {tr.id: tr.name for tr in self.tracker.tracks.values() if tr.name}
        obs.attributes["name"] = np.array([names.get(int(t), "") for t in obs.track_id], dtype=object)
        self._emit({"kind": "motion", "state": "settled", "t": rec.t, "frame": rec.index})
        self.on_settled(obs)
        flick, self._flick = self._flick, None
        if flick is None:
            return
        if flick.moving_frames < 2 and not flick.armed:
            # unannounced, a jump within one frame is a piece put down by hand, not a flick
            self.flicks.remove(flick)
            self._emit({"kind": "flick", "state": "discarded", "flick": flick.id, "why": "moved within one frame (placed by hand)"})
            return
        declared, self._declared = self._declared, None
        self._armed = False
        flick.t_settle, flick.index_settle = rec.t, rec.index
        flick.after = {str(n): (float(obs.xy[i, 0]), float(obs.xy[i, 1])) for i, n in enumerate(obs.attributes["name"]) if n}
        flick.settled_obs = obs
        ruling = self.judge(flick, obs)
        flick.ruling = ruling
        if ruling is None:
            flick.status = "no-call"
            # nothing was decided (a racer moved by hand while a throw is awaited): the action the
            # players announced is still the next one
            self._declared, self._armed = declared, flick.armed
        elif ruling.ready and self.config.auto_apply:
            self._apply(flick)
        else:
            flick.status = "pending"
            self.pending = flick
            self._emit({"kind": "pending", "flick": flick.id, "facts": ruling.open_facts(), "ruling": ruling.to_dict()})
        flick.compute_s = time.perf_counter() - t_in
        self._emit({"kind": "flick", "state": "settled", "flick": flick.id, "status": flick.status,
                    "compute_s": round(flick.compute_s, 6)})
        self._release_images()

    def _look_again(self) -> None:
        """The second look, when the game has one (``revisit_s``): the last flick's call, still
        waiting for a person, is made again (:meth:`_second_look`) once the table has stayed still
        for ``revisit_s`` s after the settle; once only, and not at all when something moves before
        then (the evidence is no cleaner)."""
        flick = self.pending
        if self.revisit_s is None or flick is None or flick.status != "pending" or flick.looked_again \
                or flick is not (self.flicks[-1] if self.flicks else None):
            return
        if not self.motion.at_rest:
            flick.looked_again = True  # something moved again: the evidence is no cleaner now
        elif self._t - flick.t_settle >= self.revisit_s - 1e-6:
            self._second_look(flick)

    def _second_look(self, flick: Flick) -> None:
        """Make the call of pending ``flick`` again (:meth:`second_look`). The new Ruling is taken
        when it leaves fewer facts open and agrees with every fact the first one settled: applied
        at once when it is ready (and ``auto_apply``), else announced as pending again with the
        facts still open; otherwise the first call stands, with its notes, contacts and mover."""
        flick.looked_again = True
        old = flick.ruling
        if old is None:
            return
        saved = (list(flick.notes), list(flick.contacts), flick.mover)
        ruling = self.second_look(flick)
        better = ruling is not None and set(ruling.open_facts()) < set(old.open_facts()) and \
            all(ruling.facts.get(k) == v for k, v in old.facts.items())
        if not better:
            flick.notes, flick.contacts, flick.mover = saved
            return
        flick.notes = saved[0] + [f"called again {self._t - flick.t_settle:.2f} s after the settle: "
                                  f"{', '.join(sorted(set(old.open_facts()) - set(ruling.open_facts())))} no longer too close"]
        flick.ruling = ruling
        if ruling.ready and self.config.auto_apply:
            self.pending = None
            self._apply(flick)
        else:
            self._emit({"kind": "pending", "flick": flick.id, "facts": ruling.open_facts(), "ruling": ruling.to_dict()})

    def _apply(self, flick: Flick) -> list[dict]:
        from rules.core import action_to_dict

        action = flick.ruling.action()
        flick.fact = action_to_dict(action) if not isinstance(action, dict) else dict(action)
        n = len(self.events)
        brief = [{"question": v.question, "answer": v.answer, "margin": round(float(v.margin), 3), "sigma": round(float(v.sigma), 3)}
                 for v in getattr(flick.ruling, "verdicts", ())]  # the full verdicts (evidence shapes) are in flick.calls()
        self._emit({"kind": "call", "flick": flick.id, "fact": flick.fact, "verdicts": brief})
        if not isinstance(action, dict):
            for e in self.game.push(action):
                self._emit({**e.to_dict(), "source": "rules"})
        else:
            self.apply_record(flick, action)
        flick.status = "applied"
        return self.events[n:]

    def apply_record(self, flick: Flick, values: dict) -> None:
        """Where a ruling builds a plain record instead of an engine action (subclasses)."""

    def _release_images(self) -> None:
        keep = self.config.keep_images
        for old in self.flicks[:-keep] if keep else self.flicks:
            for f in old.frames:
                f.image = None

    def _prune(self) -> None:
        tracks = self.tracker.tracks
        if len(tracks) < 64:
            return
        for tid in [tid for tid, tr in tracks.items() if tr.retired and not tr.name and tr.t and self._t - tr.t[-1] > self.config.prune_s]:
            del tracks[tid]
            self.motion.history.pop(tid, None)

    def _emit(self, event: dict) -> None:
        event.setdefault("t", self._t)
        self.events.append(event)

    # -- helpers for the games -------------------------------------------------------------------
    def track(self, name: str):
        for tr in self.tracker.tracks.values():
            if tr.name == name:
                return tr
        return None

    def summary(self) -> dict:
        return {"game": self.GAME, "flicks": len(self.flicks),
                "applied": sum(f.status == "applied" for f in self.flicks),
                "pending": self.pending.id if self.pending else None,
                "state": self.game.summary() if hasattr(self.game, "summary") else None}


def _looks(tr) -> tuple:
    """What tells a piece from another to the eye: (kind, team, colour)."""
    return tr.kind, tr.attributes.get("team", ""), tr.attributes.get("colour", "")


def _carry_ids(full: Observation, tracked: Observation) -> Observation:
    """Give a re-detection of the same frame the track ids of the tracked one (nearest, same kind)."""
    from scipy.optimize import linear_sum_assignment

    ids = np.full(len(full), -1, dtype=np.int64)
    if len(full) and len(tracked):
        cost = np.linalg.norm(full.xy[:, None, :] - tracked.xy[None, :, :], axis=2)
        cost = np.where(full.kind[:, None] == tracked.kind[None, :], cost, 1e9)
        r, c = linear_sum_assignment(cost)
        for i, j in zip(r, c):
            if cost[i, j] < 30.0:
                ids[i] = tracked.track_id[j]
    full.track_id = ids
    keep = ids >= 0
    return full[keep] if not keep.all() else full
