"""Identities across frames and motion, in **mat mm**.

:class:`Tracker` takes one :class:`~vision.core.Observation` per frame and fills its ``track_id``.
Matching is a global assignment (Hungarian, ``scipy.optimize.linear_sum_assignment``) of detections
to tracks on the distance from each track's constant-velocity prediction or its last position
(whichever is nearer), gated by kind, team/colour and a maximum jump. A track that goes unseen (a hand over it, motion blur) is kept for
``max_missed_s`` and re-identified by position and attributes; one lost longer is retired, and a new
detection near where it was, of the same kind and attributes, takes its identity back once the table
settles. Names the user gave ("home:triceratops") belong to track ids and so survive all of this.

Motion: each track's speed (mm/s) from its recent positions; a track is ``moving`` above
``moving_mm_s``; the table is ``settled`` once no track has moved for ``settle_s``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.core import Observation


@dataclass(frozen=True)
class TrackerConfig:
    """Thresholds; defaults suit 30 frames/s. ``gate_mm`` is the largest distance between a
    prediction and a detection that may still match; ``reid_mm`` the largest distance at which a
    retired track's identity is given to a new detection; ``in_place_missed_s`` how long a piece may
    go unseen and still be matched where it lay whatever colour is read there, and ``still_k`` how
    many of the detection's σ (each of the two places') it may lie from a piece's last place and
    still be that piece at no cost (see :meth:`Tracker.update`)."""

    gate_mm: float = 90.0
    max_missed_s: float = 1.0
    reid_mm: float = 200.0
    moving_mm_s: float = 25.0
    settle_s: float = 0.4
    velocity_window: int = 3
    history: int = 600
    in_place_missed_s: float = 0.07
    still_k: float = 4.0

    @classmethod
    def from_dict(cls, data: dict | None) -> "TrackerConfig":
        data = dict(data or {})
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"tracker config: unknown keys {sorted(unknown)}; expected {sorted(cls.__dataclass_fields__)}")
        return cls(**{k: float(v) if k not in ("velocity_window", "history") else int(v) for k, v in data.items()})


@dataclass
class Track:
    """One piece's trajectory. ``t`` (m,) seconds, ``xy`` (m, 2) mat mm; ``radius`` mm; ``kind`` and
    ``attributes`` from the detections; ``name`` the identity a user gave it ("" if none)."""

    id: int
    kind: str
    radius: float
    attributes: dict = field(default_factory=dict)
    name: str = ""
    t: list = field(default_factory=list)
    xy: list = field(default_factory=list)
    missed_since: float | None = None
    retired: bool = False
    votes: dict = field(default_factory=dict)  # attribute -> {value: times read}: ``attributes`` holds the most read

    def read(self, key: str, value: str) -> None:
        """One detection's reading of attribute ``key``: the track's value is the one read most
        often (the first read on a tie), so a misread in a few frames (a token lying against the
        piece) does not change what the track is."""
        tally = self.votes.setdefault(key, {})
        tally[value] = tally.get(value, 0) + 1
        best = self.attributes.get(key)
        if best is None or tally[value] > tally.get(best, 0):
            self.attributes[key] = value

    def position(self) -> np.ndarray:
        return np.asarray(self.xy[-1], dtype=float)

    def velocity(self, window: int = 3) -> np.ndarray:
        """(2,) mm/s from the last ``window`` samples (zero with fewer than two)."""
        if len(self.t) < 2:
            return np.zeros(2)
        k = min(window, len(self.t) - 1)
        dt = self.t[-1] - self.t[-1 - k]
        if dt <= 0:
            return np.zeros(2)
        return (np.asarray(self.xy[-1]) - np.asarray(self.xy[-1 - k])) / dt

    def speed(self, window: int = 3) -> float:
        return float(np.linalg.norm(self.velocity(window)))

    def predict(self, t: float, window: int = 3) -> np.ndarray:
        return self.position() + self.velocity(window) * (t - self.t[-1])

    def trajectory(self) -> tuple[np.ndarray, np.ndarray]:
        """(m,) times and (m, 2) positions in mat mm."""
        return np.asarray(self.t, dtype=float), np.asarray(self.xy, dtype=float).reshape(-1, 2)


class Tracker:
    """Keeps identities through a flick. Not thread-safe: one per table session."""

    def __init__(self, config: TrackerConfig | None = None):
        import scipy.optimize  # noqa: F401  (loaded here, not in the first frame: it takes ~0.3 s)

        self.config = config or TrackerConfig()
        self.tracks: dict[int, Track] = {}
        self._next_id = 1
        self._last_motion_t: float | None = None
        self._t: float | None = None
        self._was_settled = True

    # -- identities ------------------------------------------------------------------------------
    def name(self, track_id: int, name: str) -> None:
        """Give a track a user-facing identity ("home:triceratops"); a name lives on one track."""
        if track_id not in self.tracks:
            raise KeyError(f"no track {track_id}")
        for tr in self.tracks.values():
            if tr.name == name:
                tr.name = ""
        self.tracks[track_id].name = name

    def by_name(self) -> dict[str, Track]:
        return {tr.name: tr for tr in self.tracks.values() if tr.name and not tr.retired}

    def active(self) -> list[Track]:
        return [tr for tr in self.tracks.values() if not tr.retired]

    # -- update ----------------------------------------------------------------------------------
    def update(self, obs: Observation) -> Observation:
        """Assign ``obs.track_id`` (in place, also returned) and extend the trajectories."""
        from scipy.optimize import linear_sum_assignment

        cfg = self.config
        t = float(obs.timestamp)
        self._t = t
        live = [tr for tr in self.tracks.values() if not tr.retired]
        n, m = len(obs), len(live)
        ids = np.full(n, -1, dtype=np.int64)
        if n and m:
            # distance to the constant-velocity prediction or to the last position, whichever is
            # nearer: a disc that stops dead when it strikes another (equal masses, head on) must
            # not hand its identity to the one it struck
            pred = np.array([tr.predict(t, cfg.velocity_window) for tr in live])
            last = np.array([tr.position() for tr in live])
            cost = np.minimum(np.linalg.norm(obs.xy[:, None, :] - pred[None, :, :], axis=2),
                              np.linalg.norm(obs.xy[:, None, :] - last[None, :, :], axis=2))
            kinds = np.array([tr.kind for tr in live], dtype=object)
            compatible = obs.kind[:, None] == kinds[None, :]
            clash = np.zeros_like(compatible)
            for key in ("team", "colour"):
                a = obs.attribute(key)
                b = np.array([tr.attributes.get(key, "") for tr in live], dtype=object)
                clash |= (a[:, None] != b[None, :]) & (a[:, None] != "") & (b[None, :] != "")
            # an attribute read otherwise (a colour misread under a token lying against the piece)
            # does not make a piece of the same kind found where the track was in the frame before,
            # within the smaller of their radii (two pieces do not overlap by that much), another
            # piece; such a match costs ``gate_mm`` more, so a detection that agrees is preferred
            # wherever there is one. A track unseen for up to ``in_place_missed_s`` (its piece hidden
            # for a frame or two at 30 frames/s: a token flying over it, in its shadow) keeps this
            # match. (A track unseen longer, its piece lifted, gets no such match: another piece may
            # be put down where it stood; the simulated races lift one racer and put another down in
            # its place three frames later, which 0.1 s took for the same piece.) A track is matched so at
            # no cost beyond the distance where the detection lies within the noise of its last place
            # (``still_k`` σ of each): a piece there does not trade places with another (two racers'
            # identities were swapped, each "jumping" 43 mm, when one's colour was misread in a flying
            # log's shadow; and, the waiver once held only for a piece that had been still, when a
            # racer whose colour was misread while a log lay against it was read otherwise once the
            # log rolled away, its place jumping back to its own, or nudged 3 mm by the log), but one
            # within a radius and beyond that noise does: a piece of the other team put down beside
            # a disc knocked aside in the same frame, 17.8 mm from where the disc had stood, had taken
            # its name.
            seen = np.array([tr.missed_since is None or t - tr.missed_since <= cfg.in_place_missed_s for tr in live])
            d_last = np.linalg.norm(obs.xy[:, None, :] - last[None, :, :], axis=2)
            in_place = (d_last <= np.minimum(obs.radius[:, None], np.array([tr.radius for tr in live])[None, :])) \
                & seen[None, :]
            here = d_last <= cfg.still_k * np.sqrt(2.0) * np.asarray(obs.sigma, dtype=float)[:, None]
            compatible &= ~clash | in_place
            clash &= ~(in_place & here)
            cost = cost + np.where(clash, cfg.gate_mm, 0.0)
            big = 1e9
            cost = np.where(compatible & (cost <= cfg.gate_mm + np.where(clash, cfg.gate_mm, 0.0)), cost, big)
            rows, cols = linear_sum_assignment(cost)
            for r, c in zip(rows, cols):
                if cost[r, c] < big:
                    ids[r] = live[c].id
        matched = set(int(i) for i in ids if i >= 0)
        # unmatched detections: a recently missed or retired track of the same kind nearby, else new
        for i in np.flatnonzero(ids < 0):
            reuse = self._reidentify(obs, i, exclude=matched)
            if reuse is None:
                reuse = self._next_id
                self._next_id += 1
                self.tracks[reuse] = Track(reuse, str(obs.kind[i]), float(obs.radius[i]),
                                           {k: str(v[i]) for k, v in obs.attributes.items()})
            ids[i] = reuse
            matched.add(reuse)
        for i, tid in enumerate(ids):
            tr = self.tracks[int(tid)]
            tr.retired = False
            tr.missed_since = None
            tr.t.append(t)
            tr.xy.append((float(obs.xy[i, 0]), float(obs.xy[i, 1])))
            tr.radius = float(obs.radius[i])
            for k, v in obs.attributes.items():
                if str(v[i]):
                    tr.read(k, str(v[i]))
            if len(tr.t) > cfg.history:
                del tr.t[0], tr.xy[0]
        for tr in live:
            if tr.id not in matched:
                if tr.missed_since is None:
                    tr.missed_since = t
                elif t - tr.missed_since > cfg.max_missed_s:
                    tr.retired = True
        obs.track_id = ids
        if any(tr.speed(cfg.velocity_window) > cfg.moving_mm_s for tr in self.tracks.values() if tr.missed_since is None and not tr.retired):
            self._last_motion_t = t
        return obs

    def _reidentify(self, obs: Observation, i: int, exclude: set) -> int | None:
        """The track an unmatched detection ``i`` continues: a missed one within twice the gate or a
        retired one within ``reid_mm``, of its kind and not read otherwise (team, colour), the
        nearest; None for a new track. A piece lifted off the table (its track retired) and put
        down again is one of the named pieces lifted, but which one is a guess where two or more
        such named tracks could take it, wherever they were lifted (two dinosaurs of a team, the
        same size, returned to the sideline at once): then None, and the name is left to whoever names pieces after the
        settle (:meth:`session.core.Session._reconcile` asks a person to check)."""
        cfg = self.config
        best, best_d, named_retired = None, None, 0
        for tr in self.tracks.values():
            if tr.id in exclude or (tr.missed_since is None and not tr.retired):
                continue
            if tr.kind != obs.kind[i]:
                continue
            if any(str(obs.attribute(k)[i]) and tr.attributes.get(k) and tr.attributes[k] != str(obs.attribute(k)[i])
                   for k in ("team", "colour")):
                continue
            named_retired += bool(tr.retired and tr.name)
            d = float(np.linalg.norm(tr.position() - obs.xy[i]))
            limit = cfg.reid_mm if tr.retired else cfg.gate_mm * 2
            if d <= limit and (best_d is None or d < best_d):
                best, best_d = tr.id, d
        if best is not None and self.tracks[best].retired and self.tracks[best].name and named_retired > 1:
            return None
        return best

    # -- motion ----------------------------------------------------------------------------------
    def moving(self) -> list[int]:
        cfg = self.config
        return [tr.id for tr in self.active() if tr.missed_since is None and tr.speed(cfg.velocity_window) > cfg.moving_mm_s]

    def settled(self) -> bool:
        """True once nothing has moved for ``settle_s`` (and something has been seen)."""
        if self._t is None:
            return False
        if self._last_motion_t is None:
            return True
        return self._t - self._last_motion_t >= self.config.settle_s

    def motion_event(self) -> str | None:
        """"started" on the first frame of motion after rest, "settled" on the frame the table
        settles, else None. Call once per update."""
        now = self.settled()
        event = None
        if self._was_settled and not now:
            event = "started"
        elif not self._was_settled and now:
            event = "settled"
        self._was_settled = now
        return event
