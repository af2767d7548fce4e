"""``tableref bench live``: the live table on simulator suites, measured against the ground truth.

Every scene of a suite is played through a real session (:mod:`session.dino_dunk`,
:mod:`session.dodo_dash`) frame by frame at ``fps`` (the physics' frames): the table still for
``hold_s`` (the user names the pieces once, as on the dashboard), the flick, the table still again.
The detector is the noisy oracle (:class:`session.oracle.OracleDetector`, 640×480-class noise: σ
0.7 mm at rest, 3 mm in the air, 1 % of moving pieces dropped per frame) unless said otherwise; the
rules engine is a stub that waits for the one fact of the scene (the suites are single flicks).

Figures:

- ``dodo-dash/throws``: the exact set of racers touched (all of them, before the Feather/Dodo
  first-only rule) and the first racer touched, against :func:`sim.truth.dodo_dash_answers`;
- ``dino-dunk/fouls``: the foul (the carrier struck, directly or through a chain, by a disc the
  defence flicked) against :func:`sim.truth.dino_dunk_answers`;
- identities: every named piece carries its simulator id at the end of the flick;
- each call is ``right`` (confident and equal to the truth), ``asked`` (too close: it waits for a
  person) or ``wrong`` (confident and not the truth);
- time: CPU time of ``session.step`` per frame (one thread), and the delay from the physics' settle
  to the call (frames the session waits to see the table still, plus the compute of that frame);
- the real detector (``--real N`` fouls, ``--real-throws N`` throws): the same scenes rendered at
  640×480 through a framed camera and seen by :class:`vision.detect.Detector` (classical); the
  pieces it finds before the flick are named by the nearest simulator piece (the user naming them
  on the dashboard), the calls scored as above, and the detector's CPU and the step's wall time per
  frame reported; the wrong throws by why (no flick, no call, a confident call; and whether the
  detector found a token of the projectile's kind in any frame at all);
- memory: peak RSS of the process (``resource.getrusage``) and the tracemalloc peak of one full
  simulated game (``session.simgame``) with a 640×480 image on every frame;
- whole games (``--games N``): N simulated Dino Dunk games, the rules bot against itself, every
  flick's call against the truth (game seeds from ``--games-start``, default 1000: seeds 0-29 are
  the ones the session's wrong calls were traced on).

The suites' scene indices start at ``start`` (default 10000) and their seed is ``seed`` (default
7): the thresholds were set on scenes 0-199 of seed 0 and a few whole games, never on these.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np


@dataclass
class SuiteFigures:
    suite: str
    scenes: int = 0
    right: int = 0
    asked: int = 0
    wrong: int = 0
    first_right: int = 0
    first_asked: int = 0
    first_wrong: int = 0
    identity_flicks: int = 0
    identity_kept: int = 0
    frames: int = 0
    step_s: list = field(default_factory=list)
    latency_s: list = field(default_factory=list)  # call after the physical settle: (waited, step) s per flick
    failures: list = field(default_factory=list)
    by_kind: dict = field(default_factory=dict)  # throws: projectile -> {"right", "asked", "wrong"}
    second_look: int = 0  # calls made again once the table had stayed still after the settle (later than the first)
    other_asked: int = 0  # fouls: the carrier struck by its own side left to a person (a stun, never a foul)
    step_wall_s: list = field(default_factory=list)  # wall time of each step (the real detector's figures)
    asked_but_wrong: int = 0  # throws: asked a person, yet some other racer's call was confident and not the truth
    seen: dict = field(default_factory=dict)  # the real detector: "kind where" -> [piece-frames, that kind found in the frame, found within 15 mm]
    wrong_why: dict = field(default_factory=dict)  # throws: why each wrong call was wrong -> count
    replay_skipped: int = 0  # the real detector: frames a loop fed in real time would skip (:func:`newest_frame_skips`)
    racer_calls: dict = field(default_factory=dict)  # throws: each racer's own call -> {"right", "asked", "wrong"}
    # fouls: each asked call's truth: (a foul?, the carrier's least true edge gap to any other disc mm, the
    # doubtful contact's σ mm or None, the referee's k)
    asked_truth: list = field(default_factory=list)

    def rate(self, n: int) -> float:
        return n / self.scenes if self.scenes else 0.0

    def to_dict(self) -> dict:
        st = np.array(self.step_s) if self.step_s else np.zeros(1)
        lat2 = np.array(self.latency_s, dtype=float).reshape(-1, 2) if self.latency_s else np.zeros((1, 2))
        lat = lat2.sum(axis=1)
        return {"suite": self.suite, "scenes": self.scenes, "right": self.right, "asked": self.asked, "wrong": self.wrong,
                "right_rate": round(self.rate(self.right), 5), "first_right": self.first_right,
                "first_asked": self.first_asked, "first_wrong": self.first_wrong, "other_asked": self.other_asked, "asked_but_wrong": self.asked_but_wrong, "second_look": self.second_look, "by_kind": self.by_kind,
                "first_right_rate": round(self.rate(self.first_right), 5),
                "identity_flicks": self.identity_flicks, "identity_kept": self.identity_kept,
                "frames": self.frames, "step_ms_mean": round(1e3 * float(st.mean()), 3),
                "step_ms_p95": round(1e3 * float(np.percentile(st, 95)), 3), "step_ms_max": round(1e3 * float(st.max()), 3),
                "latency_ms_p50": round(1e3 * float(np.percentile(lat, 50)), 1),
                "latency_ms_p95": round(1e3 * float(np.percentile(lat, 95)), 1),
                # its two parts: the frames waited until the table counted as still, and that frame's step
                "latency_wait_ms_p50": round(1e3 * float(np.percentile(lat2[:, 0], 50)), 1),
                "latency_wait_ms_p95": round(1e3 * float(np.percentile(lat2[:, 0], 95)), 1),
                "latency_step_ms_p50": round(1e3 * float(np.percentile(lat2[:, 1], 50)), 1),
                "latency_step_ms_p95": round(1e3 * float(np.percentile(lat2[:, 1], 95)), 1), "failures": self.failures[:20],
                **({"step_wall_ms_mean": round(1e3 * float(np.mean(self.step_wall_s)), 2),
                    "step_wall_ms_p95": round(1e3 * float(np.percentile(self.step_wall_s, 95)), 2),
                    "step_wall_over_33ms": round(float(np.mean(np.array(self.step_wall_s) > 1 / 30)), 4),
                    "replay_skipped": self.replay_skipped, "replay_skipped_rate": round(self.replay_skipped / len(self.step_wall_s), 4)}
                   if self.step_wall_s else {}),
                **({"seen": self.seen} if self.seen else {}),
                **({"racer_calls": self.racer_calls} if self.racer_calls else {}),
                **({"wrong_why": self.wrong_why} if self.wrong_why else {}),
                **({"asked_truth": _asked_truth(self.asked_truth)} if self.asked_truth else {})}


def _asked_truth(rows: list) -> dict:
    """What the asked foul calls were in truth: how many were fouls, and for the rest how near the
    carrier's closest disc came (the true clearance) against the doubtful contact's σ."""
    clear = [g for foul, g, _, _ in rows if not foul]
    sig = [s for _, _, s, _ in rows if s is not None]
    return {"fouls": sum(1 for row in rows if row[0]), "not_fouls": len(clear), "k": rows[0][3],
            **({"clearance_mm_median": round(float(np.median(clear)), 2), "clearance_mm_max": round(float(max(clear)), 2)}
               if clear else {}),
            **({"sigma_mm_median": round(float(np.median(sig)), 2)} if sig else {})}


class _StubDinoDunk:
    """A rules engine reduced to one flick: it waits for the MoveResult of ``actor``."""

    def __init__(self, meta: dict, pieces: list):
        self.state = {"pieces": {p: {} for p in pieces}, "ball": {"carrier": meta.get("carrier")},
                      "sides": ["home", "away"]}
        self.meta = meta
        self.pushed = []

    def pending(self) -> dict:
        if self.pushed:
            return {"kind": "over", "side": None}
        m = self.meta
        return {"kind": "fact", "action": m["action"], "piece": m["actor"], "side": m["actor"].split(":")[0]}

    def push(self, action):
        self.pushed.append(action)
        return []


class _StubDodoDash:
    """A rules engine reduced to one throw: it waits for the hits of ``meta["projectile"]``. Given
    the scene's ``racers`` (id, x, y mat mm) and the ``board``, it knows them as an engine does
    (:meth:`positions`: each on the hex of the race's track (``meta["track"]``, else the board's
    first) nearest to it, and the racers the scene set aside for the throw (``meta["set_aside"]``,
    the Egg's thrower and those on its hex) on the thrower's hex, ``meta["thrower_hex"]``), so a
    piece named for a racer is that racer whatever kind the detector reads for it."""

    def __init__(self, meta: dict, racers=(), board=None):
        self.meta = meta
        self.pushed = []
        self._racers = [(str(r), float(x), float(y)) for r, x, y in racers]
        self._board = board
        self.state = {"track": meta.get("track")} if meta.get("track") else {}

    def positions(self) -> dict:
        if not self._racers or self._board is None or not self._board.tracks:
            return {}
        from referee.hexes import nearest_hex

        tracks = self._board.tracks
        track = tracks.get(self.meta.get("track")) or next(iter(tracks.values()))
        i, _, _, _ = nearest_hex(np.array([(x, y) for _, x, y in self._racers]), track.centres())
        out = {r: {"progress": None, "hex": int(h)} for (r, _, _), h in zip(self._racers, i)}
        hx = self.meta.get("thrower_hex")
        for r in self.meta.get("set_aside") or ():
            if hx and hx[0] == track.name:
                out.setdefault(str(r), {"progress": None, "hex": int(hx[1])})
        return out

    @property
    def pending(self):
        if self.pushed:
            return None
        return {"kind": "hits", "projectile": self.meta["projectile"], "by": self.meta.get("thrower", "")}

    def push(self, action):
        self.pushed.append(action)
        return []


def _racers(scn) -> list:
    """(id, x, y) of the racers of a Dodo Dash scenario where they stand before the throw."""
    return [(p.id, p.x, p.y) for p in scn.initial.pieces if p.kind == "racer"]


def _frames(scn, hold_s: float, fps: float, t0: float = 0.0, image=None):
    from sim.live import LiveFrame
    from sim.scene import Scene

    n_hold = max(int(round(hold_s * fps)), 4)
    run = list(scn.run.frames)
    scenes = [scn.initial] * n_hold + run + [scn.final] * n_hold
    # each frame stamped with the time its state holds: the simulator records a run's frames on its
    # 1 ms physics step (up to 1 ms after i/fps, and the last at the settle), so i/fps would put a
    # moving piece up to a millimetre or two ahead of where it was at that stamp
    end = run[-1].t if run else 0.0
    rel = [(i - n_hold) / fps for i in range(n_hold)] + [s.t for s in run] + [end + (i + 1) / fps for i in range(n_hold)]
    for i, (s, r) in enumerate(zip(scenes, rel)):
        t = t0 + n_hold / fps + r
        yield LiveFrame(i, t, Scene(s.game, s.board, s.pieces, t), image=image), r


def play_scene(scn, board, make_session, hold_s: float = 0.5, fps: float = 30.0, seed: int = 0, oracle=None):
    """Play one scenario through a fresh session; (session, detector, per-frame step seconds, the call's
    latency after the physical settle or None: (s waited, in frames, until the table counted as still;
    s that frame's step took, the call's work included))."""
    from session.oracle import OracleDetector

    det = OracleDetector(board, oracle, seed=seed)
    session = make_session(det)
    steps, latency, named = [], None, False
    settle_t = scn.run.settle_time
    for frame, t_rel in _frames(scn, hold_s, fps):
        c0, w0 = time.process_time(), time.perf_counter()
        events = session.step(frame)
        steps.append(time.process_time() - c0)
        if not named and t_rel >= -3.0 / fps:  # the user names the pieces once, before the flick
            for tid, truth_id in zip(session._last_obs.track_id, det.last_ids):
                session.assign(int(tid), truth_id)
            named = True
            _arm(session)
        if latency is None and any(e["kind"] == "flick" and e.get("state") == "settled" for e in events):
            waited = t_rel - (settle_t if settle_t is not None else t_rel)
            latency = (max(waited, 0.0), time.perf_counter() - w0)
    return session, det, steps, latency


def _arm(session) -> None:
    session._armed = True  # the action was declared (an Activate / a hotkey) before the flick


def _identities_kept(session, det) -> bool:
    names = {tr.id: tr.name for tr in session.tracker.tracks.values() if tr.name}
    obs = session._last_obs
    return all(names.get(int(t), tid) == tid for t, tid in zip(obs.track_id, det.last_ids))


def bench_throws(count: int, seed: int, start: int, fig: SuiteFigures, oracle=None) -> None:
    from session.dodo_dash import DodoDashSession
    from sim.suites import _board, make_scenario
    from sim.truth import dodo_dash_answers

    for i in range(start, start + count):
        scn = make_scenario("dodo-dash/throws", i, seed)
        board = _board(scn.board)
        truth = dodo_dash_answers(scn, board)
        session, det, steps, latency = play_scene(
            scn, board, lambda d: DodoDashSession(board, d, game=_StubDodoDash(scn.meta, _racers(scn), board)), seed=i,
            oracle=oracle)
        _score_throw(fig, i, scn, truth, session, det, steps, latency)


def _score_throw(fig: SuiteFigures, i: int, scn, truth: dict, session, det, steps: list, latency) -> None:
    """Add one ``dodo-dash/throws`` scene played through ``session`` to ``fig``: its times, whether
    the identities were kept, the exact set of racers touched and the first racer touched against
    the truth."""
    fig.scenes += 1
    fig.frames += len(steps)
    fig.step_s += steps
    if latency is not None:
        fig.latency_s.append(latency)
    flick = session.flicks[-1] if session.flicks else None
    fig.identity_flicks += 1
    fig.identity_kept += _identities_kept(session, det)
    tally = fig.by_kind.setdefault(scn.meta["projectile"], {"right": 0, "asked": 0, "wrong": 0})
    if flick is None or flick.ruling is None:
        fig.wrong += 1
        tally["wrong"] += 1
        fig.first_wrong += 1
        why = "no flick" if flick is None else "no call"
        found = getattr(det, "found", None)
        if found is not None and not found.get(scn.meta["projectile"], 0):
            why += ", the detector found no token of the projectile's kind in any frame"
        fig.wrong_why[why] = fig.wrong_why.get(why, 0) + 1
        fig.failures.append({"index": i, "projectile": scn.meta["projectile"],
                             "why": why if flick is None else f"{why}: " + "; ".join(flick.notes)})
        return
    verdicts = {v.detail["racer"]: v for v in flick.ruling.verdicts}
    want = set(truth["touched_racers"])
    for r, v in verdicts.items():  # each racer's own call: what a person is asked about, racer by racer
        key = "asked" if v.answer == "too_close" else ("right" if (v.answer == "yes") == (r in want) else "wrong")
        fig.racer_calls[key] = fig.racer_calls.get(key, 0) + 1
    if any(v.answer == "too_close" for v in verdicts.values()):
        fig.asked += 1
        tally["asked"] += 1
        sure_wrong = {r: [v.answer, round(-v.margin, 2), v.detail["evidence"]] for r, v in verdicts.items()
                      if v.answer != "too_close" and (v.answer == "yes") != (r in want)}
        if sure_wrong:  # the person asked about one racer would not be asked about these
            fig.asked_but_wrong += 1
            fig.failures.append({"index": i, "projectile": scn.meta["projectile"], "truth": sorted(want), "asked": True,
                                 "confident_wrong": sure_wrong})
    elif {r for r, v in verdicts.items() if v.answer == "yes"} == want:
        fig.right += 1
        tally["right"] += 1
    else:
        fig.wrong += 1
        tally["wrong"] += 1
        fig.wrong_why["a confident call"] = fig.wrong_why.get("a confident call", 0) + 1
        fig.failures.append({"index": i, "projectile": scn.meta["projectile"], "truth": sorted(want),
                             "session": {r: [v.answer, round(-v.margin, 2), v.detail["evidence"]] for r, v in verdicts.items()}})
    # first touched: the earliest racer whose touch is not a confident "no" (as the session orders them)
    from session.dodo_dash import touch_order

    order = sorted((v for v in verdicts.values() if v.answer != "no"), key=touch_order)
    first = truth["first_hit"]
    if order and (order[0].answer == "too_close" or order[0].detail.get("tied")):
        fig.first_asked += 1  # (asked, or tied: which came first the session leaves open)
    elif (order[0].detail["racer"] if order else None) == first:
        fig.first_right += 1
    else:
        fig.first_wrong += 1
        fig.failures.append({"index": i, "projectile": scn.meta["projectile"], "first": first,
                             "session_first": order[0].detail["racer"] if order else None})


def _score_foul(fig: SuiteFigures, i: int, scn, truth: dict, session, det, steps: list, latency) -> None:
    """Add one ``dino-dunk/fouls`` scene played through ``session`` to ``fig``: its times, whether
    the identities were kept, and the foul call against the truth (an asked one with the truth
    behind it: a foul or not, and the carrier's true clearance)."""
    fig.scenes += 1
    fig.frames += len(steps)
    fig.step_s += steps
    if latency is not None:
        fig.latency_s.append(latency)
    fig.identity_flicks += 1
    fig.identity_kept += _identities_kept(session, det)
    flick = session.flicks[-1] if session.flicks else None
    want = bool(truth.get("foul"))
    if flick is None or flick.ruling is None:
        fig.wrong += 1
        fig.failures.append({"index": i, "why": "no flick" if flick is None else "; ".join(flick.notes)})
        return
    r = flick.ruling
    fig.second_look += any(n.startswith("called again") for n in flick.notes)
    defence = scn.meta["actor"].split(":")[0] != scn.meta["offense"]
    if "carrier_struck" in r.pending:
        if defence:
            fig.asked += 1
            carrier = scn.meta["carrier"]
            gap = carrier_clearance(scn)
            doubt = [c["sigma_mm"] for c in flick.contacts if c["doubtful"] and carrier in (c["a"], c["b"])]
            fig.asked_truth.append((want, round(gap, 3), min(doubt) if doubt else None, float(session.referee.k)))
            return
        # the offence flicked: no foul is possible whatever the contact; the open question is a
        # stun, counted apart
        fig.other_asked += 1
    foul = bool(r.facts.get("carrier_struck")) and defence
    if foul == want:
        fig.right += 1
    else:
        fig.wrong += 1
        fig.failures.append({"index": i, "mode": scn.meta.get("mode"), "truth": want, "session": foul,
                             "contacts": flick.contacts})


def carrier_clearance(scn) -> float:
    """The ball carrier's least true edge gap (mm) to any other disc in a ``dino-dunk/fouls`` scene:
    its run simulated again (the physics is the same) with a frame at every physics step, so that a
    disc that struck something between two of the camera's frames is followed there too."""
    from dataclasses import replace

    from sim.physics import simulate
    from sim.scenarios.common import play_area
    from sim.suites import _board, _defaults
    from sim.truth import closest_edge_gap

    ph = _defaults()[1].physics
    run = simulate(scn.initial, scn.actions, replace(ph, fps=1.0 / ph.dt_s), play_area(_board(scn.board)))
    return closest_edge_gap(run, scn.meta["carrier"])[0]


def bench_fouls(count: int, seed: int, start: int, fig: SuiteFigures, oracle=None) -> None:
    from session.dino_dunk import DinoDunkSession
    from sim.suites import _board, make_scenario
    from sim.truth import dino_dunk_answers

    for i in range(start, start + count):
        scn = make_scenario("dino-dunk/fouls", i, seed)
        board = _board(scn.board)
        truth = dino_dunk_answers(scn, board)
        pieces = [p.id for p in scn.initial.pieces if p.kind.startswith("disc-")]
        session, det, steps, latency = play_scene(
            scn, board, lambda d: DinoDunkSession(board, d, game=_StubDinoDunk(scn.meta, pieces)), seed=i, oracle=oracle)
        _score_foul(fig, i, scn, truth, session, det, steps, latency)


class RealDetector:
    """The real detector (:class:`vision.detect.Detector`, classical, on rendered 640×480 frames of
    one scene through a framed camera): ``detector(frame, quality)`` for a session; ``last_ids``
    names each detection by the nearest simulator piece within ``match_mm`` (of the find's kind
    first), for the bench's own bookkeeping only."""

    name = "vision.detect.Detector (classical, rendered 640x480 frames)"

    def __init__(self, board, scene0, seed: int, size=(640, 480)):
        from sim.render import render_scene
        from sim.scene import Scene
        from sim.style import clean_style
        from vision.bench import framed_camera
        from vision.detect import Detector

        self.board, self.size = board, size
        self.camera = framed_camera(np.random.default_rng(seed), board, size=size, tilt=(15.0, 35.0))
        self.style = clean_style()
        self._render = render_scene
        empty = render_scene(board, Scene(scene0.game, scene0.board, []), self.camera, self.style, 1).image
        self.detector = Detector(board, self.camera.transform(), background=empty, method="classical", attributes=True)
        self.transform = self.camera.transform()
        self.last_ids: list = []
        self.cpu_ms: list = []
        self.seen: dict = {}
        self.found: dict = {}  # kind -> frames with a find of it while a piece of it (not a racer) was there
        self._cache = {}

    def set_reference(self, image) -> None:
        """The table at rest before the action (:meth:`vision.detect.Detector.set_reference`)."""
        self.detector.set_reference(image)

    def render(self, scene, index: int):
        key = id(scene.pieces)
        if key not in self._cache:  # still frames share their Scene's pieces: render once
            self._cache = {key: self._render(self.board, scene, self.camera, self.style, 7 + index).image}
        return self._cache[key]

    def __call__(self, frame, quality: str = "full"):
        image = frame.image if frame.image is not None else self.render(frame.scene, frame.index)
        c0 = time.process_time()
        obs = self.detector(image, frame_index=int(frame.index), timestamp=float(frame.t))
        self.cpu_ms.append(1000 * (time.process_time() - c0))
        self.last_ids = self.name_finds(obs, frame.scene.pieces)
        self._count_seen(frame.scene.pieces, obs)
        return obs

    match_mm = 15.0  # a find names the simulator piece whose base lies this near (mat mm)

    def name_finds(self, obs, pieces) -> list:
        """The simulator piece each find of ``obs`` is (its id, "" for none), one find a piece, as a
        person names what the detector shows: the pairs within ``match_mm`` matched one to one,
        nearest first among the finds of the piece's own kind, then any (a find of the wrong kind is
        still named for what it is; a lost token lying against a racer does not take its name; a
        ball found 20 mm off, at the edge of the disc beside it, had been named for that disc, which
        its own find had been named for too)."""
        from scipy.optimize import linear_sum_assignment

        ids = [""] * len(obs)
        if not len(obs) or not pieces:
            return ids
        d = np.hypot(np.array([p.x for p in pieces])[None, :] - obs.xy[:, 0:1],
                     np.array([p.y for p in pieces])[None, :] - obs.xy[:, 1:2])
        other = np.array([[p.kind != str(k) for p in pieces] for k in obs.kind], dtype=bool)
        near = d < self.match_mm
        cost = np.where(near, d + np.where(other, 2 * self.match_mm, 0.0), 1e6)
        rows, cols = linear_sum_assignment(cost)
        for r, c in zip(rows, cols):
            if near[r, c]:
                ids[r] = pieces[c].id
        return ids

    def _count_seen(self, pieces, obs) -> None:
        """Per "kind where" (where: on the mat, or above it: in the hand or in flight, the base more
        than 0.5 mm up): [piece-frames, frames with a find of that kind, finds of that kind within
        ``match_mm`` of the piece's base]."""
        kinds = np.asarray(obs.kind, dtype=object)
        for p in pieces:
            row = self.seen.setdefault(f"{p.kind} {'above the mat' if p.z > 0.5 else 'on the mat'}", [0, 0, 0])
            same = obs.xy[kinds == p.kind]
            row[0] += 1
            row[1] += bool(len(same))
            near = bool(len(same)) and float(np.hypot(*(same - [p.x, p.y]).T).min()) < self.match_mm
            row[2] += near
            if p.kind != "racer":
                self.found[p.kind] = self.found.get(p.kind, 0) + bool(len(same))


def _real_suite(suite: str):
    """(session factory (board, scene, detector, transform) -> session, truth of a scene, scorer) of
    a suite played through the real detector."""
    if suite == "dino-dunk/fouls":
        from session.dino_dunk import DinoDunkSession
        from sim.truth import dino_dunk_answers

        def make(board, scn, det, transform):
            pieces = [p.id for p in scn.initial.pieces if p.kind.startswith("disc-")]
            return DinoDunkSession(board, det, game=_StubDinoDunk(scn.meta, pieces), transform=transform)

        return make, dino_dunk_answers, _score_foul
    if suite == "dodo-dash/throws":
        from session.dodo_dash import DodoDashSession
        from sim.truth import dodo_dash_answers

        def make(board, scn, det, transform):
            return DodoDashSession(board, det, game=_StubDodoDash(scn.meta, _racers(scn), board), transform=transform)

        return make, dodo_dash_answers, _score_throw
    raise ValueError(f"no real-detector bench for {suite!r}")


def play_scene_real(scn, board, make_session, seed: int, hold_s: float = 0.5, fps: float = 30.0, wall_s: list | None = None):
    """Play one scenario through a fresh session seeing rendered frames through the real detector
    (:class:`RealDetector`); the pieces the detector finds are named once before the flick, as on
    the dashboard (by the nearest simulator piece). (session, detector, per-frame step CPU seconds,
    settle latency or None, as :func:`play_scene`'s); each step's wall seconds are appended to ``wall_s``."""
    real = RealDetector(board, scn.initial, seed=seed)
    session = make_session(board, scn, real, real.transform)
    steps, latency, named = [], None, False
    for frame, t_rel in _frames(scn, hold_s, fps):
        if frame.image is None:  # rendered outside the timed step (a camera delivers it ready)
            frame.image = real.render(frame.scene, frame.index)
        c0, w0 = time.process_time(), time.perf_counter()
        events = session.step(frame)
        steps.append(time.process_time() - c0)
        if wall_s is not None:
            wall_s.append(time.perf_counter() - w0)
        if not named and t_rel >= -3.0 / fps:
            for tid, truth_id in zip(session._last_obs.track_id, real.last_ids):
                if truth_id:
                    session.assign(int(tid), truth_id)
            named = True
            _arm(session)
        if latency is None and any(e["kind"] == "flick" and e.get("state") == "settled" for e in events):
            latency = (max(t_rel - (scn.run.settle_time or t_rel), 0.0), time.perf_counter() - w0)
    return session, real, steps, latency


def newest_frame_skips(step_s, fps: float = 30.0) -> int:
    """How many of ``len(step_s)`` frames, arriving every 1/``fps`` s, a loop that always takes the
    newest frame (as :class:`webui.camera_session.CameraSession` does) would never see, when the
    frame it takes costs the measured ``step_s`` seconds (replayed: the frames it skips would have
    made the next one's step a little dearer, which this does not count)."""
    n, k, free, skipped = len(step_s), 0, 0.0, 0
    while k < n:
        start = max(free, k / fps)
        newest = min(n - 1, int(np.floor(start * fps + 1e-9)))
        skipped += newest - k
        free = start + float(step_s[newest])
        k = newest + 1
    return skipped


def bench_real(suite: str, count: int, seed: int, start: int, fig: SuiteFigures) -> list:
    """``suite`` (``dino-dunk/fouls`` or ``dodo-dash/throws``) through the real detector on rendered
    frames, scored as its oracle figures are; returns the detector's CPU ms per frame."""
    from sim.suites import _board, make_scenario

    make, answers, score = _real_suite(suite)
    cpu = []
    for i in range(start, start + count):
        scn = make_scenario(suite, i, seed)
        board = _board(scn.board)
        truth = answers(scn, board)
        n0 = len(fig.step_wall_s)
        session, real, steps, latency = play_scene_real(scn, board, make, seed=i, wall_s=fig.step_wall_s)
        fig.replay_skipped += newest_frame_skips(fig.step_wall_s[n0:])
        cpu += real.cpu_ms
        for key, row in real.seen.items():
            fig.seen[key] = [a + b for a, b in zip(fig.seen.get(key, [0, 0, 0]), row)]
        score(fig, i, scn, truth, session, real, steps, latency)
    return cpu


def bench_fouls_real(count: int, seed: int, start: int, fig: SuiteFigures) -> list:
    """``dino-dunk/fouls`` through the real detector on rendered frames; returns its CPU ms per frame."""
    return bench_real("dino-dunk/fouls", count, seed, start, fig)


def bench_throws_real(count: int, seed: int, start: int, fig: SuiteFigures) -> list:
    """``dodo-dash/throws`` through the real detector on rendered frames; returns its CPU ms per frame."""
    return bench_real("dodo-dash/throws", count, seed, start, fig)


def bench_game_memory(seed: int = 3, target: int = 2) -> dict:
    """A whole simulated game (``session.simgame``) with a 640×480 BGR image on every frame: peak
    traced Python allocations and the process's peak RSS."""
    import resource
    import tracemalloc

    from session import simgame

    tracemalloc.start()
    t0 = time.perf_counter()
    report = simgame.play_dino_dunk(seed=seed, target=target, image_size=(640, 480))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    st = [r["status"] for r in report.flicks]
    lat = np.array(report.latencies_s) if report.latencies_s else np.zeros(1)
    return {"seed": seed, "flicks": len(st), "right": st.count("right"), "asked": st.count("asked"),
            "wrong": st.count("wrong"), "missed": sum(s.startswith(("missed", "no-call")) for s in st),
            "score_truth": report.score_truth, "score_session": report.score_session, "frames": report.frames,
            "identity_errors": report.identity_errors, "identity_checks": report.identity_checks,
            "seconds": round(time.perf_counter() - t0, 2), "tracemalloc_peak_mb": round(peak / 2 ** 20, 1),
            "rss_peak_mb": round(rss_kb / 1024, 1), "settle_compute_ms_p95": round(1e3 * float(np.percentile(lat, 95)), 1)}


def bench_games(count: int, start: int = 1000, target: int = 2) -> dict:
    """``count`` whole simulated Dino Dunk games (``session.simgame``, the rules bot against itself,
    first to ``target``; game seeds from ``start``) played through the session with the oracle:
    every flick's call against the truth (right, asked, wrong, missed: no flick seen), the games
    whose final score the session got right, identity errors, and each wrong call (seed, episode,
    action, the facts that differ)."""
    from session import simgame

    tally = {"right": 0, "asked": 0, "wrong": 0, "missed": 0}
    scores, ids, checks, wrong = 0, 0, 0, []
    kept = {"identity_flicks": 0, "identity_flicks_kept": 0, "identities_asked": 0, "identities_asked_wrong": 0}
    for g in range(start, start + count):
        report = simgame.play_dino_dunk(seed=g, target=target)
        for row in report.flicks:
            st = row["status"]
            key = "missed" if st.startswith(("missed", "no-call")) else st
            tally[key] = tally.get(key, 0) + 1
            if st == "wrong":
                wrong.append({"seed": g, "episode": row["episode"], "action": row["action"], "piece": row["piece"],
                              "diffs": row.get("diffs", [])})
        scores += report.score_truth == report.score_session
        ids += report.identity_errors
        checks += report.identity_checks
        for k in kept:
            kept[k] += getattr(report, k)
    return {"games": count, "start": start, "target": target, "flicks": sum(tally.values()), **tally,
            "score_right": scores, "identity_errors": ids, "identity_checks": checks, **kept, "wrong_calls": wrong}


def bench_live(throws: int = 1000, fouls: int = 1000, seed: int = 7, start: int = 10000, game: bool = True,
               real_fouls: int = 0, real_throws: int = 0, games: int = 0, games_start: int = 1000) -> dict:
    import resource

    out = {"detector": "oracle-with-noise (session.oracle.OracleDetector: σ 0.7 mm at rest, 3 mm airborne, angles 1°, 1% drops)",
           "fps": 30.0, "size": "640x480 (noise model; frames not rendered)", "seed": seed, "start": start}
    t0 = time.perf_counter()
    if throws:
        f = SuiteFigures("dodo-dash/throws")
        bench_throws(throws, seed, start, f)
        out["throws"] = f.to_dict()
    if fouls:
        f = SuiteFigures("dino-dunk/fouls")
        bench_fouls(fouls, seed, start, f)
        out["fouls"] = f.to_dict()
    for key, suite, n in (("throws_real", "dodo-dash/throws", real_throws), ("fouls_real", "dino-dunk/fouls", real_fouls)):
        if not n:
            continue
        f = SuiteFigures(suite)
        cpu = bench_real(suite, n, seed, start, f)
        out[key] = {**f.to_dict(), "detector": RealDetector.name,
                    "detector_cpu_ms_mean": round(float(np.mean(cpu)), 1) if cpu else None,
                    "detector_cpu_ms_p95": round(float(np.percentile(cpu, 95)), 1) if cpu else None}
    if games:
        out["games"] = bench_games(games, games_start)
    if game:
        out["game"] = bench_game_memory()
    out["rss_peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def _racer_calls_line(f: dict) -> str:
    """The report's line of each racer's own call (a throw is asked when any of its racers is)."""
    c = f["racer_calls"]
    n = sum(c.values())
    asked = c.get("asked", 0)
    per = asked / f["asked"] if f.get("asked") else 0.0
    return (f"    racer by racer ({n} calls): right {c.get('right', 0)}, asked {asked}, wrong {c.get('wrong', 0)} "
            f"({per:.1f} racers a person is asked about in each throw asked)")


def _latency_parts(f: dict) -> str:
    """The report's words on the two parts of the call's latency after the settle."""
    return (f"waited for the table to count as still {f['latency_wait_ms_p50']:.0f} / {f['latency_wait_ms_p95']:.0f} ms, "
            f"the step of that frame, the call included, {f['latency_step_ms_p50']:.0f} / {f['latency_step_ms_p95']:.0f} ms, "
            f"p50 / p95")


def format_report(r: dict) -> str:
    oracle = "throws" in r or "fouls" in r or "games" in r
    lines = [f"tableref bench live: detector {r['detector'] if oracle else 'the real one only (below)'}",
             f"  {r['fps']:g} frames/s, {r['size'] if oracle else '640x480 rendered frames'}; suite seed {r['seed']}, "
             f"scenes from index {r['start']}" + (" (never used to set a threshold)" if (r["seed"], r["start"]) == (7, 10000) else
                                                  " (not the evaluation scenes: seed 7 from 10000)")]
    for key, target, first_target in (("throws", 0.995, 0.99), ("fouls", 0.99, None)):
        if key not in r:
            continue
        f = r[key]
        n = f["scenes"]
        lines.append(f"  {f['suite']}: {n} scenes; right {f['right']} ({f['right_rate']:.2%}, target {target:.1%}), "
                     f"asked a person {f['asked']}, wrong {f['wrong']}")
        if f.get("by_kind"):
            lines.append("    by projectile (right/asked/wrong): " + ", ".join(
                f"{k} {v['right']}/{v['asked']}/{v['wrong']}" for k, v in sorted(f["by_kind"].items())))
        if f.get("second_look"):
            lines.append(f"    {f['second_look']} calls were made on a second look, once the table had stayed still a "
                         f"further 0.2 s (too close at the settle; those come out about 0.2 s later than the p95 below)")
        if f.get("asked_but_wrong"):
            lines.append(f"    of the asked: {f['asked_but_wrong']} where another racer's call was confident and not the truth")
        if f.get("asked_truth"):
            a = f["asked_truth"]
            lines.append(f"    of the asked, in truth: a foul {a['fouls']}, no foul {a['not_fouls']}" + (
                f", where the carrier's nearest disc passed it {a['clearance_mm_median']:.2f} mm clear (median), "
                f"{a['clearance_mm_max']:.2f} mm at most (the truth)" if a["not_fouls"] else "") + (
                f"; the doubtful contacts' σ {a['sigma_mm_median']:.2f} mm (median): a call needs the gap "
                f"beyond {a['k']:g} σ" if "sigma_mm_median" in a else ""))
        if f.get("other_asked"):
            lines.append(f"    of the right: {f['other_asked']} offence flicks whose carrier contact (a stun, never a foul) "
                         f"was left to a person")
        if first_target:
            lines.append(f"    first racer touched: right {f['first_right']} ({f['first_right_rate']:.2%}, target {first_target:.0%}), "
                         f"asked or left open (tied) {f['first_asked']}, wrong {f['first_wrong']}")
        if f.get("racer_calls"):
            lines.append(_racer_calls_line(f))
        lines.append(f"    identities kept through {f['identity_kept']}/{f['identity_flicks']} flicks; "
                     f"step {f['step_ms_mean']:.2f} ms mean, {f['step_ms_p95']:.2f} ms p95, {f['step_ms_max']:.1f} ms max "
                     f"per frame (budget 33.3 ms at 30 frames/s, one core); call after the physical settle "
                     f"{f['latency_ms_p50']:.0f} ms p50, {f['latency_ms_p95']:.0f} ms p95 (target 150; {_latency_parts(f)})")
    for key in ("throws_real", "fouls_real"):
        if key not in r:
            continue
        f = r[key]
        lines.append(f"  {f['suite']} with the REAL detector ({f['detector']}, clean style): {f['scenes']} scenes; right "
                     f"{f['right']} ({f['right_rate']:.1%}), asked {f['asked']}, wrong {f['wrong']}; identities kept "
                     f"{f['identity_kept']}/{f['identity_flicks']}")
        if f.get("seen"):
            lines.append(f"    pieces found by the detector (a find of the kind in the frame / within 15 mm of the piece's base; "
                         f"of piece-frames): " + "; ".join(
                             f"{k} {100 * v[1] / v[0]:.0f}/{100 * v[2] / v[0]:.0f} % of {v[0]}" for k, v in sorted(f["seen"].items())))
        if f.get("asked_but_wrong"):
            lines.append(f"    of the asked: {f['asked_but_wrong']} where another racer's call was confident and not the truth")
        if key == "throws_real":
            lines.append("    by projectile (right/asked/wrong): " + ", ".join(
                f"{k} {v['right']}/{v['asked']}/{v['wrong']}" for k, v in sorted(f["by_kind"].items())))
            lines.append(f"    first racer touched: right {f['first_right']} ({f['first_right_rate']:.1%}), "
                         f"asked or left open (tied) {f['first_asked']}, wrong {f['first_wrong']}")
            if f.get("racer_calls"):
                lines.append(_racer_calls_line(f))
            if f.get("wrong_why"):
                lines.append("    the wrong ones: " + ", ".join(f"{n} {w}" for w, n in sorted(f["wrong_why"].items())))
        lines.append(f"    detector CPU {f['detector_cpu_ms_mean']} ms mean, "
                     f"{f['detector_cpu_ms_p95']} ms p95 per frame (all threads); session step incl. detector "
                     f"{f['step_ms_mean']:.1f} ms mean, {f['step_ms_p95']:.1f} ms p95 CPU, "
                     f"{f.get('step_wall_ms_mean', 0):.1f} ms mean, {f.get('step_wall_ms_p95', 0):.1f} ms p95 wall "
                     f"({100 * f.get('step_wall_over_33ms', 0):.1f} % of frames over 33.3 ms; fed at 30 frames/s, taking the "
                     f"newest, it would skip {100 * f.get('replay_skipped_rate', 0):.1f} %); call after the settle "
                     f"{f['latency_ms_p50']:.0f} ms p50, {f['latency_ms_p95']:.0f} ms p95 ({_latency_parts(f)})")
    if "games" in r:
        g = r["games"]
        n = max(g["flicks"], 1)
        lines.append(f"  whole games (oracle; seeds {g['start']}-{g['start'] + g['games'] - 1}, first to {g['target']}): "
                     f"{g['flicks']} flicks, right {g['right']} ({100 * g['right'] / n:.1f}%), asked {g['asked']}, wrong "
                     f"{g['wrong']}, missed {g['missed']}; final score right in {g['score_right']}/{g['games']}; identity errors "
                     f"{g['identity_errors']}/{g['identity_checks']}, identities kept through {g['identity_flicks_kept']}/"
                     f"{g['identity_flicks']} flicks (target 99.9 %); a person asked to check {g['identities_asked']} names "
                     f"given in doubt ({g['identities_asked_wrong']} of them wrong)")
        for w in g["wrong_calls"][:10]:
            lines.append(f"    wrong: game {w['seed']} flick {w['episode']} ({w['action']} {w['piece']}): {'; '.join(w['diffs'])}")
    if "game" in r:
        g = r["game"]
        lines.append(f"  whole game (seed {g['seed']}): {g['flicks']} flicks, right {g['right']}, asked {g['asked']}, wrong "
                     f"{g['wrong']}, missed {g['missed']}; score {g['score_session']} (truth {g['score_truth']}); identity "
                     f"errors {g['identity_errors']}/{g['identity_checks']}; tracemalloc peak {g['tracemalloc_peak_mb']} MB "
                     f"with a 640x480 image per frame")
    lines.append(f"  peak RSS {r['rss_peak_mb']} MB (target 1536); {r['seconds']} s")
    return "\n".join(lines)


def main(args) -> int:
    import json

    if args.throws < 0 or args.fouls < 0:
        raise ValueError("--throws and --fouls must be >= 0")
    if getattr(args, "real", 0) < 0 or getattr(args, "real_throws", 0) < 0:
        raise ValueError("--real and --real-throws must be >= 0")
    if getattr(args, "games", 0) < 0:
        raise ValueError("--games must be >= 0")
    report = bench_live(args.throws, args.fouls, args.seed, args.start, not args.no_game, getattr(args, "real", 0),
                        getattr(args, "real_throws", 0), getattr(args, "games", 0), getattr(args, "games_start", 1000))
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0
