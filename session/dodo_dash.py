"""The Dodo Dash session (``rules.dodo_dash``): throws and their hits, racer positions, the dice.

- **Throws.** When the engine waits for ``hits`` (``game.pending["kind"] == "hits"``), the next
  motion is the projectile's flight. At the settle its path is fitted (:mod:`vision.paths`): the
  hold, the flight (straight at constant velocity; the Feather curving) and the slide on the mat
  (slowing along its line) as segments of many samples each, the height as a fall, so the path is
  known to a fit's σ, not one sample's. Each racer gets a verdict "was it touched": the token's
  footprint overlapping it while lower than its top (one that came over it higher passes over),
  landing on it, or a bounce off it (the path turns where the token's edge meets the racer's,
  pushed away from it); margin = the overlap depth along the fitted path (−gap), σ that fit's. An
  event between two samples that the fits cannot place (a bounce unseen, a turn no racer explains)
  leaves the racers the token could have reached too close to call. Racers in the order first
  touched; the engine keeps only the first for the Feather and the Dodo. too_close touches wait for
  a person (``dodo-dash.hit`` default: not hit); for the Feather and the Dodo one that can have come
  before the first racer surely touched (or, none sure, the last in doubt) is asked as "touched
  before it?" (:meth:`DodoDashSession.asked_before`). A token at rest on the mat starts unseen between two
  frames: the racers within reach of that start (out at the fastest throw, back no faster than it
  was first seen going plus what friction took off) are in doubt unless other evidence decides them. Where it landed is judged over every instant the landing can
  have been (between the last sample in the air and the first on the mat when no fall placed it).
  On the mat friction only slows a token along its line: a fitted slide that speeds up, comes back
  or fits its samples unlikely is split, a token that lost more speed than friction allows, or slid
  back along its way in, was stopped by something, and one at rest short of a racer ahead on its
  way in may have struck it and come back unseen (:meth:`DodoDashSession._stop_suspects`). A call
  left waiting for a person at the settle is made again ``revisit_s`` after it on the frames at
  rest since (the rest seen in more frames, sharper), and taken where it leaves fewer racers open
  and agrees with every one the first call settled (:meth:`session.core.Session.second_look`).
  The racers are the pieces named with a racer's identity (:meth:`DodoDashSession.racer_names`: the
  engine's racers, or a name given to a piece seen as a racer), whatever kind the detector reports. A token whose spin changed (nothing but a touch
  changes it: in the air it keeps its spin, on the mat friction only slows it) where one racer
  alone can have been touched touched that racer. The call is made in stages
  (:meth:`DodoDashSession.hit_verdicts`): the path fit (:class:`ThrowPath`), the events between its
  segments (:class:`ThrowEvents`), each racer's call (:class:`RacerCall`), the spin's evidence, the
  order first touched.
  A detector that does not measure heights (``measures_height`` False or absent: the token in the
  air is placed as if on the mat) gets calls that do not depend on the height: a racer the token
  cannot have reached while low enough to touch it, at any height up its camera rays, is not hit;
  one it came to rest on is; the rest wait for a person. Where its fall can be fitted along those
  rays (a ballistic flight, gravity known, then the mat) the heights the fits allow narrow each ray.
- **Lost tokens.** A projectile at rest that vanishes (flicked too fast or thrown too high for the
  detector) or reappears away from its place while a throw is awaited opens the flick though no
  motion was seen; it is judged from the places seen, and a person is asked where its path is unknown.
- **Positions.** After every settle each named racer's hex is read (:func:`referee.hexes.hex_calls`)
  and compared with the engine's; a mismatch is an event proposing a ``Correct`` (a judge's action).
- **Dice, traps, drifts.** The players enter the dice (``act(Roll(value))`` with ``dice="table"``);
  traps and drifts follow in the engine from the rolls.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
# the χ² tail (loaded with the module: scipy.stats's first import takes about a second, which a
# throw's call would otherwise pay at the first throw)
from scipy.special import chdtrc as chi2_sf

from session.core import Flick, Session
from vision.core import Observation

GAME = "dodo-dash"
PROJECTILES = ("meteorite", "log", "egg", "feather", "banana", "dodo")
FIRST_ONLY = ("feather", "dodo")
CURVING = ("feather",)  # thrown with a sideways curve: not straight in the air


@dataclass
class ThrowSamples:
    """The projectile's samples in a throw, from a few before its launch on: times ``t`` (s),
    places ``xy`` (n, 2) mat mm, base heights ``zb`` (mm above the mat), σ ``sig`` (mm), angles
    ``ang`` (degrees), footprint ``size`` ((length, width) mm; None for a round token);
    ``i_launch`` the first sample off the resting place (in height or on the mat), ``t_launch`` (s)
    the sample before it, where the path is followed from."""

    t: np.ndarray
    xy: np.ndarray
    zb: np.ndarray
    sig: np.ndarray
    ang: np.ndarray
    size: tuple | None
    i_launch: int
    t_launch: float


def touch_order(v) -> tuple:
    """The sort key of a racer's "touched" verdict in the order first touched: its time (none:
    last); at the same time a call too close to call first (it may have come first: which did is
    then a person's to say, not the order the racers were listed in)."""
    t = v.detail.get("t")
    return (t if t is not None else 1e9, v.answer != "too_close")


@dataclass
class ThrowPath:
    """A throw's fitted path (:meth:`DodoDashSession.throw_path`), mat mm and seconds.

    ``samples`` what was fitted; ``fall`` the height's fit (:class:`vision.paths.Fall`, None when
    it was not seen in the air), ``t_land`` (s, None: no landing seen) and its σ ``t_land_s``;
    ``segs`` the segments (:class:`vision.paths.Segment`: the hold, the flight, the slide, and
    waypoints), ``at_land`` the flight segment a landing ends (−1: none); ``land_miss`` (mm, None
    when no landing was judged) how far the slide's start was off the flight's end, ``land_miss_z``
    that in σ; per segment ``ends`` (:meth:`DodoDashSession._ends`), per interval between two the
    ``joins`` (:class:`vision.paths.Join`, None beside a waypoint), ``bounds`` (s) where one
    segment hands over to the next (the first sample and the last at either end).

    The path followed every ``dt`` s from ``samples.t_launch``: times ``T``, centre ``P`` (n, 2),
    its σ ``S``, base height ``Z``, angle ``A`` (radians), ``low`` where the base is below a racer's
    top; ``i_land`` the landing's index in ``T`` (None: no landing). ``z_sigma`` one height
    sample's σ, ``z_hold_s`` the σ of the height held before the launch (mm); ``land_window`` the
    first and last index in ``T`` the landing can have been at (:meth:`_land_window`);
    ``land_back`` (unit (2,), mm) when a segment follows the landing: the way the token came in and
    how far back behind its first place on the mat it can have touched down; ``land_pts`` ((m, 2)
    mm, (m,) σ mm) the places it can have touched down at (:meth:`_land_places`); ``kind`` the
    projectile's."""

    samples: ThrowSamples
    fall: object
    t_land: float | None
    t_land_s: float
    segs: list
    at_land: int
    land_miss: float | None
    land_miss_z: float
    ends: list
    joins: list
    bounds: list
    T: np.ndarray
    P: np.ndarray
    S: np.ndarray
    Z: np.ndarray
    A: np.ndarray
    low: np.ndarray
    i_land: int | None
    z_sigma: float
    z_hold_s: float
    dt: float
    land_window: tuple = (0, 0)
    land_back: tuple | None = None
    land_pts: tuple | None = None
    release_s: np.ndarray | None = None
    kind: str = ""
    intervals: dict = field(default_factory=dict)  # {si: Interval}, each made once (DodoDashSession._interval)

    @property
    def on_mat_z(self) -> float:
        """The base height (mm) at or below which the token is taken to lie on the mat."""
        return _on_mat_z(self.z_sigma)

    def height_sigma(self, times):
        """σ (mm) of the base height at ``times`` (s): the held height's in the hand (before the
        first sample off the resting place), one sample's after; between the last sample held and
        the first off it (the release unseen) also ``release_s`` (along ``T``), the σ whose k
        reaches from the height held to the lowest the token can have fallen to by then."""
        times = np.asarray(times)
        base = np.where(times < self.samples.t[self.samples.i_launch], self.z_hold_s, self.z_sigma)
        if self.release_s is None:
            return base
        return np.hypot(base, np.interp(times, self.T, self.release_s, left=0.0, right=0.0))


@dataclass
class Interval:
    """The stretch between segment ``si`` of a throw's path and the next, mat mm and seconds:
    ``t0`` the last sample before it, ``t1`` the first after it, ``t_mid`` where the two fits meet
    (``join``, None beside a waypoint) or half-way; the token left the segment before at ``p_from``
    with velocity ``v_in`` (σ ``s_from``, ``sv_in``; speed ``s_in``) and entered the one after at
    ``p_to`` with ``v_out`` (σ ``s_to``, ``sv_out``; speed ``s_out``); ``chord`` the mean velocity
    across it (σ ``s_chord``), ``dt_gap`` its length, ``s_miss`` the σ of the two ends apart.

    How far from "nothing happened here", in σ: ``z_miss`` the fits do not meet, ``z_turn`` the
    direction turned (before against across against after, or in the air the speed changed),
    ``z_ahead`` the resting place lies ahead of the first motion (``from_rest``: the segment before
    is the token at rest, whose start is unseen)."""

    si: int
    t0: float
    t1: float
    t_mid: float
    join: object
    p_from: np.ndarray
    v_in: np.ndarray
    s_from: float
    sv_in: float
    p_to: np.ndarray
    v_out: np.ndarray
    s_to: float
    sv_out: float
    s_in: float
    s_out: float
    dt_gap: float
    chord: np.ndarray
    s_chord: float
    s_miss: float
    z_miss: float
    z_turn: float
    z_ahead: float
    from_rest: bool


@dataclass
class ThrowEvents:
    """What happened between the segments of a throw's path (:meth:`DodoDashSession.throw_events`):
    ``bounces`` [(:class:`vision.paths.Join`, unit turn (2,), ids)] where the fits meet and a racer
    there turned the token (ids: the racers a touch the fits do not show can have turned it
    instead, :meth:`DodoDashSession._touch_suspects`); ``hidden`` {racer id: (t s, σ mm, unsure, t0 s)}
    a touch between two samples the fits cannot place (per racer the earliest sure one, else the
    earliest; unsure: which racer, or whether at all; t0: the earliest it can have been);
    ``intervals`` [(t0, t1) s] where something happened or may have; ``spins`` the token's spin
    changes (:meth:`DodoDashSession.spin_changes`: a touch changed its spin there); ``turns``
    [(t0, t1) s] the ``intervals`` and, higher than the racers, where the token's way turned or the
    fits did not meet (the fitted height there is only as sure as the fall), in time order."""

    bounces: list
    hidden: dict
    intervals: list
    spins: list = field(default_factory=list)
    turns: list = field(default_factory=list)


@dataclass
class RacerCall:
    """One racer's call on a throw (:meth:`DodoDashSession.racer_call`): the ``margin`` (mm, > 0
    touched) and its ``sigma`` (mm), the instant ``t`` (s) of the evidence (None: none),
    ``evidence`` (overlap, landed on, bounce, passed over, path …), ``t_first`` (s) the earliest it
    can have been touched (None: never within the noise)."""

    racer: str
    margin: float
    t: float | None
    sigma: float
    evidence: str
    t_first: float | None


@dataclass
class HeightlessReach:
    """Where a throw's token can have been, seen by a detector that does not measure heights
    (:meth:`DodoDashSession.heightless_reach`), mat mm and seconds: per stretch between two samples
    from the launch on, ``pts`` (n, 8, 2) the corners whose convex hull holds every place the token
    can have had in it (the hull of the two samples' camera rays, from elevation 0 up to the
    highest it can have been, or only the part of it low enough to touch a racer; corners
    repeated where fewer: :func:`_span_low_part`), ``t`` (n,) the stretch's start, ``sig`` (n,) its σ, ``slack`` (n,) how far the
    token can have strayed beyond that hull unseen (frames without it, no transform); ``rest`` its
    final resting place on the mat ((2,) mm, σ mm, angle radians, t s from which it was seen
    there), None when it was not seen at rest after the launch; ``footprint`` mm, the radius of a
    disc that holds the token whatever its angle; ``height_max`` (mm) the highest it can have been."""

    pts: np.ndarray
    t: np.ndarray
    sig: np.ndarray
    slack: np.ndarray
    rest: tuple | None
    footprint: float
    height_max: float


class DodoDashSession(Session):
    GAME = GAME
    reference_at_rest = True  # a token lands where the table was at rest: the detector tells it from a shadow
    revisit_s = 0.2  # a call left too close at the settle is made again this long after, the table still

    def new_game(self, **setup):
        """The engine's race on this board: unless ``layout`` is given, the track the engine picks
        (by name, ``outer``/``inner``) is laid out from the calibration board's track of that name
        (its hexes, traps, drifts, charms and bases), so the hexes the camera reads are the
        engine's hexes."""
        from rules import dodo_dash

        setup.setdefault("dice", "table")
        game = dodo_dash.new_game(**setup)
        name = game.state.get("track")
        if "layout" not in setup and name in self.board.tracks:
            game = dodo_dash.new_game(**setup, layout=engine_layout(self.board.tracks[name]))
        return game

    def expecting(self) -> dict | None:
        p = self.game.pending
        if p and p.get("kind") == "hits":
            return {"action": "throw", "projectile": p.get("projectile", ""), "by": p.get("by", "")}
        return None

    # -- throws ------------------------------------------------------------------------------------
    def judge(self, flick: Flick, obs: Observation):
        from referee.adapters.dodo_dash import hits_ruling

        proj = self.projectile_track(flick)
        lost = self.lost_samples(flick) if proj is None else None
        appeared = None
        if proj is None and lost is None:
            appeared = flick.opened_by if flick.opened_by.startswith(self.APPEARED) else self.appeared_in(flick, obs)
        if appeared:
            # the token was not seen until it lay on the mat: its path is unknown, a person is asked
            return self._ask_every_racer(flick, f"was not seen before it lay on the mat: {appeared}",
                                         "token not seen in flight")
        if proj is None and lost is None:
            if flick.opened_by != "motion" and not self._token_tracks(flick)[1]:
                # opened because the token left where it rested (vanished, displaced), and no track
                # of it that rested before is left to follow (the one that rested bears a racer's
                # name: seen with that racer as one piece when the names were given): it was thrown,
                # and nothing says where it went; a person is asked about every racer. (One that
                # rested and is back there is no throw.)
                return self._ask_every_racer(flick, f"left where it rested and was not followed: {flick.opened_by}",
                                             "token lost, not followed")
            flick.notes.append("no projectile was seen moving")
            return None
        racers = self.racer_tracks(flick)
        racers = racers + self.unseen_racers(flick, racers)
        if proj is None:
            s, kind, radius, why = lost
            flick.mover = kind
            flick.notes.append(f"the {kind} was lost: {why}")
            verdicts, order = self.lost_verdicts(flick, s, kind, radius, racers)
        else:
            flick.mover = proj.name or proj.kind
            verdicts, order = self.hit_verdicts(flick, proj, racers)
        before = None
        if (proj.kind if proj is not None else lost[1]) in FIRST_ONLY:
            verdicts = self.ask_tied_first(verdicts)
            before = self.asked_before(verdicts)
        flick.contacts = [{"racer": v.detail["racer"], "gap_mm": round(-v.margin, 2), "answer": v.answer,
                           "evidence": v.detail["evidence"], "t": v.detail.get("t")} for v in verdicts]
        return hits_ruling(verdicts, [v.detail["racer"] for v in verdicts], self.referee, order=order, before=before)

    def _ask_every_racer(self, flick: Flick, note: str, evidence: str):
        """The ruling on a throw whose token's path is unknown: every racer asked (``evidence``),
        ``note`` on the flick after the token's name."""
        from referee.adapters.dodo_dash import hits_ruling

        racers = self.racer_tracks(flick)
        names = sorted({r.name for r in racers} | self.racer_names())
        flick.mover = flick.expected.get("projectile", "") or "token"
        flick.notes.append(f"the {flick.mover} {note}")
        verdicts, order = self.ordered_verdicts(flick, [RacerCall(n, 0.0, None, 1.0, evidence, None) for n in names])
        flick.contacts = [{"racer": v.detail["racer"], "gap_mm": round(-v.margin, 2), "answer": v.answer,
                           "evidence": v.detail["evidence"], "t": v.detail.get("t")} for v in verdicts]
        return hits_ruling(verdicts, [v.detail["racer"] for v in verdicts], self.referee, order=order)

    @staticmethod
    def asked_before(verdicts) -> dict:
        """{racer too close to call: the racer it is asked against} for each such racer that can
        have been touched before the first racer surely touched (placed at or ahead of it in the
        order first touched): for a projectile that counts only its first racer, what a person must
        say is whether it came first ("touched before it, or it not at all?"). Where none is surely
        touched, against the last racer too close to call: two a person says were touched came in
        an order the camera did not see. Empty when fewer than that are in doubt."""
        order = sorted((v for v in verdicts if v.answer != "no"), key=touch_order)
        sure = next((v for v in order if v.answer == "yes"), None)
        if sure is None:
            asked = [v for v in order if v.answer == "too_close"]
            if len(asked) < 2:
                return {}
            sure = asked[-1]
        out = {}
        for v in order:
            if v is sure:
                break
            if v.answer == "too_close":
                out[v.detail["racer"]] = sure.detail["racer"]
        return out

    # -- the racers: the identities the user gave -----------------------------------------------------
    _named_racers: set = frozenset()  # names the user gave pieces the detector saw as racers then

    def racer_names(self) -> set:
        """The names that are racers: the engine's racer ids (when it has positions) and every name
        the user gave a piece that the detector saw as a racer when it was named. A piece so named
        is a racer whatever kind the detector reports for it (its track keeps the kind it was first
        seen as; a piece the detector takes for another kind later is a new track, unnamed)."""
        names = set(self._named_racers)
        positions = getattr(self.game, "positions", None)  # (a stub engine in a benchmark has none)
        if positions is not None:
            names |= {str(n) for n in positions()}
        names.discard("")
        return names

    def assign(self, track_id: int, name: str) -> None:
        tr = self.tracker.tracks.get(int(track_id))
        super().assign(track_id, name)
        if tr is not None and tr.kind == "racer" and name:
            self._named_racers = set(self._named_racers) | {str(name)}

    def assign_at(self, positions) -> dict:
        out = super().assign_at(positions)
        self._named_racers = set(self._named_racers) | {n for n, tid in out.items()
                                                        if self.tracker.tracks[tid].kind == "racer"}
        return out

    def racer_tracks(self, flick: Flick) -> list:
        """The racers in ``flick`` (:meth:`session.core.Session.flick_tracks`): the tracks bearing a
        racer's name (:meth:`racer_names`), whatever kind the detector gives them now, with the
        racer's kind and radius from the specs where the detector took it for another kind."""
        names = self.racer_names()
        spec = self.specs.piece(GAME, "racer")
        out = []
        for tr in self.flick_tracks(flick, self.t0(flick)):
            if not tr.name or (tr.name not in names and tr.kind != "racer"):
                continue
            out.append(tr if tr.kind == "racer" else replace(tr, kind="racer", radius=float(spec.radius)))
        return out

    def _reconcile(self, obs: Observation) -> None:
        self._racer_name_left_behind(obs)
        super()._reconcile(obs)

    def _racer_name_left_behind(self, obs: Observation) -> None:
        """At the settle of a throw: a racer's name on a track that left where it lay before the throw
        (by more than half a racer's radius), while exactly one unnamed racer is seen nearer that
        place (and within the track's radius and a racer's of it), goes to that racer. A token held
        or lying against a racer is seen with it as one piece, which was named for the racer; the
        token leaves with the track, the racer is found again where it stood as a new piece (racers
        are hardly moved by a throw). A guess: an ``identify`` event asks a person to check."""
        flick = self._flick
        if flick is None or flick.expected.get("action") != "throw" or not flick.before:
            return
        tracks = self.tracker.tracks
        seen = [tracks[int(t)] for t in obs.track_id if t >= 0]
        racer_r = float(self.specs.piece(GAME, "racer").radius)
        racers = self.racer_names()
        moved = True
        while moved:  # (a racer whose track another name had taken is free once that name moves on)
            moved = False
            free = [tr for tr in seen if not tr.name and tr.kind == "racer"]
            for tr in seen:
                if not free or not tr.name or tr.name not in racers or tr.name not in flick.before:
                    continue
                p0 = np.asarray(flick.before[tr.name], dtype=float)
                reach = float(tr.radius) + racer_r
                gone = float(np.hypot(*(tr.position() - p0)))
                if gone <= racer_r / 2:
                    continue
                near = [f for f in free if float(np.hypot(*(f.position() - p0))) <= min(reach, gone)]
                if len(near) != 1:
                    continue
                name, new = tr.name, near[0]
                self.tracker.name(new.id, name)
                moved = True
                self._emit({"kind": "identify", "name": name, "track": new.id, "unsure": True,
                            "why": f"the piece named {name} left where it stood during the throw ({tr.kind} now) and "
                                   f"a racer is seen there: a token held or lying against it was taken with it for "
                                   f"one piece; please check"})
                break

    def engine_hexes(self) -> dict:
        """{racer: hex index on the race's track (:meth:`_track`)} as the engine has them; empty for an
        engine without positions (a stub in a benchmark) or a board without tracks."""
        try:
            positions = self.game.positions()
        except Exception:  # an engine without positions (a stub in a benchmark)
            return {}
        if not positions or not self.board.tracks:
            return {}
        n = len(self._track().hexes)
        return {str(r): int(p["hex"]) for r, p in positions.items() if p.get("hex") is not None and 0 <= int(p["hex"]) < n}

    def set_aside(self, flick: Flick, hexes: dict) -> set:
        """The racers off the mat for this throw (rulebook, the Egg: "Set aside all Racers on the
        same hex as your Racer"): the thrower and those on its hex (``hexes``: :meth:`engine_hexes`)."""
        by = flick.expected.get("by", "")
        if flick.expected.get("projectile") != "egg" or by not in hexes:
            return set()
        return {n for n, h in hexes.items() if h == hexes[by]}

    def placed_start(self, flick: Flick, kind: str) -> tuple | None:
        """(place (2,) mat mm, σ mm) where the rules put the token before the throw, or None: the
        Egg "in the middle of that hex", the thrower's (:meth:`engine_hexes`), σ such that k σ is
        the hex's inner radius (placed by hand, on that hex)."""
        h = self.engine_hexes().get(flick.expected.get("by", "")) if kind == "egg" else None
        if h is None:
            return None
        track = self._track()
        return track.centres()[h].copy(), track.hex_mm / 2.0 / self.referee.k

    def unseen_racers(self, flick: Flick, racers: list) -> list:
        """Stand-ins for the racers the engine has on the track but no track in ``flick`` bears the
        name of (the detector missed them), but those set aside (:meth:`set_aside`): each a
        :class:`vision.track.Track` with a negative id at the centre of its hex (the engine's), its
        resting σ such that k σ is the hex's circumradius (a racer stands anywhere on its hex). What
        the throw did to it is called as to a racer seen, but never touched for sure
        (:meth:`ordered_verdicts` asks a person where it was within the noise of the token)."""
        from vision.track import Track

        hexes = self.engine_hexes()
        if not hexes:
            return []
        track = self._track()
        centres = track.centres()
        seen = {r.name for r in racers}
        radius = float(self.specs.piece(GAME, "racer").radius)
        sigma = track.hex_mm / np.sqrt(3.0) / self.referee.k
        rest = flick.__dict__.setdefault("_rest_xy", {})
        unseen = flick.__dict__.setdefault("_unseen_racers", {})
        out = []
        for name in sorted(set(hexes) - seen - self.set_aside(flick, hexes)):
            c = centres[hexes[name]].copy()
            tr = Track(-1 - len(out), "racer", radius, {}, name, [float(flick.t_start)], [c.copy()])
            rest[tr.id] = (c, float(sigma))
            unseen[name] = hexes[name]
            out.append(tr)
        note = "not seen by the camera, called at the middle of their hex: " + \
            ", ".join(f"{n} (hex {h})" for n, h in sorted(unseen.items()))
        if out and note not in flick.notes:  # (a second look calls them again)
            flick.notes.append(note)
        return out

    def projectile_track(self, flick: Flick):
        """The projectile: the track of a projectile kind that moved most during the flick, or None
        when none moved beyond its noise (across the mat or up and down: a Meteorite may fall
        straight) — a racer straightened by hand is no throw."""
        kind = flick.expected.get("projectile", "")
        z_sigma = self._height_sigma()
        xy_min, z_min = max(3.0, 6.0 * self._rest_sigma()), max(3.0, 6.0 * z_sigma)
        best, best_d = None, 0.0
        racers = self.racer_names()
        for tr in self.flick_tracks(flick, self.t0(flick)):
            if tr.kind not in PROJECTILES or (kind and tr.kind != kind) or (tr.name and tr.name in racers):
                continue
            _, xy = tr.trajectory()
            d = float(np.ptp(xy, axis=0).max()) if len(xy) > 1 else 0.0
            z = np.array([float(fr.obs.height[k[0]]) for fr in flick.frames
                          if len(k := np.flatnonzero(fr.obs.track_id == tr.id))])
            moved = max(d / xy_min, float(np.ptp(z)) / z_min if len(z) > 1 else 0.0)
            if moved > 1.0 and (best is None or d > best_d):
                best, best_d = tr, d
        return best

    # The path fit and what the physics allows (mm, s). A break between two segments costs this
    # much χ² (besides 2 per fitted parameter):
    break_penalty = 12.0
    g_mm_s2 = 9810.0  # gravity: a thrown token's height falls as a parabola
    max_curve_mm_s2 = 3000.0  # a curving throw (the Feather) turns at most this fast in the air,
    curve_slack_z = 1.0  # ... as fitted (a sharper "curve" through a few noisy samples is a bounce)
    max_slide_decel_mm_s2 = 6000.0  # friction slows a token sliding on the mat at most this (μ ≤ 0.6)
    max_slide_turn_mm_s2 = 100.0  # ... along its line: sliding, it does not turn
    max_speed_mm_s = 1500.0  # no token is thrown or flicked faster: how far it can go unseen in a frame
    max_piece_mu = 0.6  # friction between a token and a racer at most this: a touch's push leans off its normal by atan(μ)
    pin_z = 2.0  # a flight is pinned to the slide after it only when they agree within this many σ
    event_doubt_z = 3.0  # an interval whose fits disagree by more than this many σ (less than k) may hide a touch

    def hit_verdicts(self, flick: Flick, proj, racers, dt_eval: float = 0.001) -> tuple[list, list]:
        """(one Verdict per racer "was it touched", racer names in the order first touched).

        The projectile's samples are fitted as segments (:func:`vision.paths.segment_path`): at
        rest in the hand or on the mat, then in the air at constant velocity (the Feather curving,
        its turn bounded) from the place it was released, then sliding on the mat along one line at
        a bounded deceleration; its height as a fall (:func:`vision.paths.fit_fall`, gravity known)
        gives the landing. A plain landing (the slide continuing the flight) pins the flight's end.
        A lone sample between two events is a waypoint. The fitted path (σ from each fit's
        covariance) is followed at ``dt_eval`` s. A racer is touched when

        (a) the path overlaps its footprint while the token's base is below the racer's top: the
            margin is the overlap depth, or the height below the top where the overlap began,
            whichever is less sure; a token that came over it higher, or went straight through its
            footprint with no event around, passed over it, unless it came down below the top
            while still closing on it (then too close to call at best);
        (b) the token lands overlapping it (margin: the overlap where it landed);
        (c) the path turns between two segments (a bounce: a landing or friction only slow it)
            where the token's edge meets that racer's, the turn pushing the token away from it: a
            categorical touch, too close when two racers could have turned it.

        Where the two fits of an event do not meet (it fell between two samples: the token left its
        line, or came back past the place it rested), the racer the incoming ray runs into or the
        outgoing ray came from, within reach of the interval, was touched; in doubt when the rays
        disagree or the event is only likely (``event_doubt_z`` < z ≤ k), and then every racer the
        token could have reached in the interval is too close to call. Otherwise the margin is the
        closest the fitted path came while low enough to touch (−gap).

        A token's spin changes only by a touch (in the air it keeps the spin it was thrown with; on
        the mat friction only slows it): where it changed beyond the angles' noise and one racer
        alone can have been touched, that racer was touched (:meth:`spin_touch`).

        The stages: the path fit (:meth:`throw_path`), the events between its segments
        (:meth:`throw_events`), each racer's call (:meth:`racer_call`), the spin's evidence
        (:meth:`spin_touch`), the verdicts in the order first touched (:meth:`ordered_verdicts`).

        A detector that does not measure heights (:meth:`measures_height` False) places a token in
        the air as if it lay on the mat, tens of mm off along the camera's ray: its throws (but the
        Egg's, flicked along the mat) are called apart (:meth:`heightless_reach`,
        :meth:`racer_call_heightless`): "no" only where the token cannot have been near the racer
        while low enough to touch it, "yes" only where it came to rest on it, else asked."""
        racer_h = self.specs.piece(GAME, "racer").height
        if not self.measures_height() and self.throw_height_max(proj.kind) > 0:
            # the detector does not see how high the token is: what the height decides is asked
            s = self._launch_samples(flick, proj)
            if s is None:  # seen in one frame only: where it went is unknown
                return self.ordered_verdicts(flick, [RacerCall(r.name, 0.0, None, 1.0, "token not followed", None)
                                                     for r in racers])
            rest_q = {r.id: self._rest_xy(flick, r) for r in racers}
            t_end = float(flick.frames[-1].t) if flick.frames else float(s.t[-1])
            reach = self.heightless_reach(s, proj.kind, proj.radius, t_end, touch_h=racer_h)
            return self.ordered_verdicts(flick, [self.racer_call_heightless(reach, r, rest_q, proj.radius, s.size)
                                                 for r in racers])
        path = self.throw_path(flick, proj, racer_h, dt_eval)
        if path is None:
            return [], []
        rest_q = {r.id: self._rest_xy(flick, r) for r in racers}
        events = self.throw_events(path, racers, rest_q, proj.radius, racer_h)
        calls = [self.racer_call(path, events, r, racers, rest_q, proj.radius, racer_h) for r in racers]
        calls = self.spin_touch(path, calls, racers, rest_q, proj.radius, events.spins, events.turns)
        return self.ordered_verdicts(flick, calls)

    # -- stage 1: the path fit ---------------------------------------------------------------------
    def throw_path(self, flick: Flick, proj, racer_h: float, dt_eval: float = 0.001) -> ThrowPath | None:
        """The projectile track ``proj``'s fitted path in ``flick`` (mat mm, s; racers ``racer_h``
        mm tall): its samples from the launch (:meth:`_launch_samples`) fitted by
        :meth:`fit_path`; None when it was seen in fewer than two frames."""
        s = self._launch_samples(flick, proj)
        if s is None:
            return None
        return self.fit_path(s, proj.kind, racer_h, dt_eval)

    def fit_path(self, s: ThrowSamples, kind: str, racer_h: float, dt_eval: float = 0.001) -> ThrowPath:
        """The fitted path of a projectile of ``kind`` from its samples ``s`` (mat mm, s; racers
        ``racer_h`` mm tall): the height's fall and the landing (:meth:`_fit_height`), the segments
        (:meth:`_fit_segments`), a plain landing pinning the flight's end (:meth:`_pin_landing`),
        and the path followed every ``dt_eval`` s (:meth:`_follow`)."""
        z_sigma = self._height_sigma()
        fall, t_land, t_land_s = self._fit_height(s, z_sigma)
        segs, at_land = self._fit_segments(s, kind, fall, t_land)
        land_miss, land_miss_z, land_back = self._pin_landing(s, segs, at_land, t_land, t_land_s)
        path = self._follow(s, segs, at_land, fall, t_land, t_land_s, land_miss, land_miss_z, z_sigma, racer_h, dt_eval)
        path.land_back = land_back if path.i_land is not None else None
        path.kind = kind
        path.land_pts = self._land_places(path)
        return path

    def _land_places(self, path: ThrowPath) -> tuple | None:
        """((m, 2) mat mm, (m,) σ mm) the places the token can have touched down at: where the
        slide after the landing (it starts where the token touched down, and is seen on the mat
        more sharply than the flight) puts it over every instant the landing can have been
        (``path.land_window``), and behind its first place on the mat along its way in as far as it
        can have slid before it (``path.land_back``: friction slows it, so the slide seen says
        little of how fast it went before); the path's own places over the window where no slide
        follows a flight. None without a landing."""
        if path.i_land is None:
            return None
        i0, i1 = path.land_window
        tw = path.T[i0:i1 + 1]
        if path.at_land < 0 or path.at_land + 1 >= len(path.segs):
            return path.P[i0:i1 + 1].copy(), path.S[i0:i1 + 1].copy()
        b = path.segs[path.at_land + 1]
        if _waypoint(b):
            # one sample on the mat before the next segment: seen there after it slid from where it
            # touched down, which lies between the flight's end and that sample (a plain slide
            # is straight): the path's own places over the window, and the line from the
            # landing's to the sample
            wp, s_wp = b.coef[0], float(np.sqrt(b.cov[0, 0]))
            f = np.linspace(0.0, 1.0, 13)[:, None]
            pts = np.vstack([path.P[i0:i1 + 1], (1.0 - f) * path.P[path.i_land] + f * wp])
            sig = np.concatenate([path.S[i0:i1 + 1], (1.0 - f[:, 0]) * path.S[path.i_land] + f[:, 0] * s_wp])
        else:
            pts, sig = b.pos(tw), b.pos_sigma(tw)
        if path.land_back is not None and not _waypoint(b):
            # behind its first place on the mat as far as it can have slid, or, at rest there, ahead
            # of it as far as it can have gone and come back (pushed back by what it met there) in
            # the time before it was seen at rest
            u, back = path.land_back
            s_along = np.linspace(-0.5 * back if b.degree == 0 else 0.0, back, 13)
            first, s_first = b.pos(np.array([b.t0]))[0], float(b.pos_sigma(np.array([b.t0]))[0])
            extra = first - s_along[:, None] * np.asarray(u)[None, :]
            pts, sig = np.vstack([pts, extra]), np.concatenate([sig, np.full(len(extra), s_first)])
        return pts, sig

    def _launch_samples(self, flick: Flick, proj) -> ThrowSamples | None:
        """The projectile's samples (:meth:`_samples`; heights as its base's, mm) from six before the
        launch on, the launch being the first sample off the resting place (more than 5 σ off the
        median of the samples before the motion, in height or on the mat); None when seen in fewer
        than two frames."""
        spec_h = self.specs.piece(GAME, proj.kind).height
        raw = self._samples(flick, proj.id, proj.kind)
        if raw is None:
            return None
        t, xy, top, sig, ang, size = raw
        t_rest = self.t0(flick)  # the table was surely at rest until then (the motion is seen late)
        start = self.placed_start(flick, proj.kind) if float(t[0]) > t_rest + 1e-9 else None
        if start is not None:
            # not seen before the motion (the detector missed it at rest): it lay where the rules
            # place it; two samples there (each σ √2: their mean's σ is the place's), the last a
            # frame before the rest (a struck racer is seen to move a frame or so after the touch)
            c, s_c = start
            t = np.concatenate([t_rest - self._frame_s(flick) * np.array([2.0, 1.0]), t])
            xy = np.vstack([c, c, xy])
            top = np.concatenate([[spec_h, spec_h], top])
            sig = np.concatenate([[s_c * np.sqrt(2.0)] * 2, sig])
            ang = np.concatenate([[ang[0]] * 2, ang])
            note = (f"the {proj.kind} was not seen at rest: its start taken as the middle of its thrower's hex, "
                    f"({c[0]:.0f}, {c[1]:.0f}) mm ± {s_c:.1f}")
            if note not in flick.notes:  # (the samples are read again by a second look)
                flick.notes.append(note)
        z_sigma = self._height_sigma()
        zb = top - spec_h
        # the launch: the first sample off the resting place (in height or on the mat)
        before = t < flick.t_start  # (the motion is seen to start a frame or two late)
        n0 = int(before.sum()) - 2 if before.sum() >= 4 else max(1, min(2, len(t) // 4))
        moved = (np.abs(zb - np.median(zb[:n0])) > 5 * z_sigma) | (
            np.hypot(*(xy - np.median(xy[:n0], axis=0)).T) > 5 * np.sqrt(2) * sig)
        i_launch = int(np.argmax(moved)) if moved.any() else len(t) - 1
        lo = max(0, i_launch - 6)
        t, xy, zb, sig, ang = t[lo:], xy[lo:], zb[lo:], sig[lo:], ang[lo:]
        i_launch -= lo
        return ThrowSamples(t, xy, zb, sig, ang, size, i_launch, float(t[max(i_launch - 1, 0)]))

    def _fit_height(self, s: ThrowSamples, z_sigma: float) -> tuple:
        """(the fall fitted to the airborne base heights after the launch (None when fewer than two
        were seen above the mat), the landing instant s (None: none seen), its σ s). A landing the
        fall does not place just after the last airborne sample is half-way to the next sample."""
        from vision.paths import fit_fall

        t, zb, i_launch = s.t, s.zb, s.i_launch
        land_z = _on_mat_z(z_sigma)
        air = _airborne(s, land_z)
        fall, t_land, t_land_s = None, None, 0.0
        if air.sum() >= 2:
            fall = fit_fall(t[air], zb[air], z_sigma, self.g_mm_s2)
            t_land, t_land_s = fall.reaches(0.0)
            ia = np.flatnonzero(air)
            if t_land is None or not (t[ia[-1]] - 1e-6 <= t_land <= t[ia[-1]] + 0.2):
                t_land = float(t[ia[-1]] + 0.5 * (t[min(ia[-1] + 1, len(t) - 1)] - t[ia[-1]]))
                t_land_s = 0.5 / 30.0
        elif zb[i_launch:].size and zb[i_launch] > land_z:
            # one sample in the air: it landed after it, by the next sample (half-way, give or take
            # half the gap), not where it was seen in the air
            i_a = i_launch + int(np.argmin(air[i_launch:])) - 1 if not air[i_launch:].all() else len(t) - 1
            i_a = max(i_a, i_launch)
            i_b = min(i_a + 1, len(t) - 1)
            t_land = float(t[i_a] + 0.5 * (t[i_b] - t[i_a]))
            t_land_s = max(0.5 * float(t[i_b] - t[i_a]), 1e-3)
        return fall, t_land, t_land_s

    def _fit_segments(self, s: ThrowSamples, kind: str, fall, t_land: float | None) -> tuple[list, int]:
        """(the path's segments in time order, the index of the flight segment that the landing
        ends (−1: none)). The launch and the landing are breaks: the hold, the flight and the slide
        are fitted apart; in the air the token moves at constant velocity (a ``CURVING`` kind
        curving), on the mat it slows along its line. A token released from the hand starts its
        flight where it was held: that place pins the flight's first fit."""
        from vision.paths import fit_segment, segment_path

        t, xy, zb, sig, i_launch = s.t, s.xy, s.zb, s.sig, s.i_launch
        n_air = max(int(np.searchsorted(t, t_land)), i_launch) if t_land is not None else i_launch
        segs, at_land = [], -1
        if i_launch > 0:
            segs.append(fit_segment(t[:i_launch], xy[:i_launch], sig[:i_launch], 0))
        parts = [(i_launch, n_air, (2,) if kind in CURVING else (1,), self.max_curve_mm_s2, None),
                 (n_air, len(t), (0, 1, 2), self.max_slide_decel_mm_s2, self.max_slide_turn_mm_s2)]
        # a release from the hand: the flight starts where the token was held (seen there in many
        # frames) when its fitted height left the hand's; that place is the flight's first sample
        release = None
        if i_launch > 0 and fall is not None and n_air > i_launch:
            t_rel, t_rel_s = fall.reaches(float(np.median(zb[:i_launch])), first=True)
            if t_rel is None or not (t[i_launch - 1] - 0.05 <= t_rel <= t[i_launch]):
                t_rel, t_rel_s = float(t[i_launch - 1]), float(t[i_launch] - t[i_launch - 1]) / 2
            t_rel = float(np.clip(t_rel, t[i_launch - 1], t[i_launch] - 1e-4))
            hold = segs[0]
            v_guess = float(np.hypot(*(xy[min(i_launch + 1, n_air - 1)] - xy[i_launch - 1]))) / max(
                float(t[min(i_launch + 1, n_air - 1)] - t[i_launch - 1]), 1e-3)
            release = (t_rel, hold.pos(hold.t1)[0], float(np.hypot(hold.pos_sigma(hold.t1)[0], v_guess * t_rel_s)))
        for pi, (p0, p1, degs, acc, side) in enumerate(parts):
            if p1 <= p0:
                continue
            if pi == 1 and segs and t_land is not None and n_air > i_launch:
                at_land = len(segs) - 1
            tt, pp, ss, extra = t[p0:p1], xy[p0:p1], sig[p0:p1], 0
            if pi == 0 and release is not None:
                tt, pp, ss, extra = np.append(release[0], tt), np.vstack([release[1], pp]), np.append(release[2], ss), 1
            for sg in segment_path(tt, pp, ss, penalty=self.break_penalty, degrees=degs, waypoints=True, max_accel=acc,
                                   max_side_accel=side, min_points=3, accel_slack=self.curve_slack_z if pi == 0 else 3.0):
                if sg.i1 <= extra:  # the release place alone: the hold's end
                    continue
                if extra and sg.i0 == 0:
                    sg.pins = [release]
                sg.i0 = max(sg.i0 - extra, 0) + p0
                sg.i1 = sg.i1 - extra + p0
                if getattr(sg, "pins", None) and sg.degree >= 1 and sg.n >= 1:
                    # the release's time is known loosely (its σ is along the path), its place
                    # sharply: put the place where the fit passes it, at the hold's own σ
                    d = sg.vel(release[0])[0]
                    sp = float(np.hypot(*d))
                    if sp > 1e-6:
                        t_star = release[0] + float((release[1] - sg.pos(release[0])[0]) @ d) / sp ** 2
                        t_star = float(np.clip(t_star, t[max(p0 - 1, 0)], t[p0] - 1e-4))
                        pin = (t_star, release[1], float(hold.pos_sigma(hold.t1)[0]))
                        fit = fit_segment(np.append(pin[0], t[sg.i0:sg.i1]), np.vstack([pin[1], xy[sg.i0:sg.i1]]),
                                          np.append(pin[2], sig[sg.i0:sg.i1]), sg.degree)
                        fit.i0, fit.i1, fit.pins = sg.i0, sg.i1, [pin]
                        sg = fit
                if pi == 1 and not self._slides_fit(sg):
                    # a "slide" that speeds up, or turns where its curve cannot follow, is no slide
                    # (friction only slows a token along its line): its samples are split where
                    # that costs least
                    for sub in self._split_slide(t[sg.i0:sg.i1], xy[sg.i0:sg.i1], sig[sg.i0:sg.i1]):
                        sub.i0, sub.i1 = sub.i0 + sg.i0, sub.i1 + sg.i0
                        segs.append(sub)
                    continue
                segs.append(sg)
        return segs, at_land

    def _split_slide(self, t, xy, sig) -> list:
        """Segments (indices from 0) of samples on the mat whose one fit was no slide
        (:meth:`_slides_fit`): of every place to split them in two, each side segmented as a path
        on the mat is (:func:`vision.paths.segment_path`), the one whose segments are all slides
        at the least cost (χ², the break penalty and 2 per fitted parameter); when none is, the
        samples segmented without a curve (a touch falls between two segments)."""
        from vision.paths import segment_path

        kw = dict(penalty=self.break_penalty, waypoints=True, min_points=3)
        slide = dict(kw, degrees=(0, 1, 2), max_accel=self.max_slide_decel_mm_s2, max_side_accel=self.max_slide_turn_mm_s2,
                     accel_slack=3.0)

        def cost(segs):
            return sum(sg.chi2 + self.break_penalty + 4.0 * (sg.degree + 1) for sg in segs)

        best, best_cost = None, np.inf
        for m in range(1, len(t)):
            left = segment_path(t[:m], xy[:m], sig[:m], **slide)
            right = segment_path(t[m:], xy[m:], sig[m:], **slide)
            for sg in right:
                sg.i0, sg.i1 = sg.i0 + m, sg.i1 + m
            parts = left + right
            if all(self._slides_fit(sg) for sg in parts) and cost(parts) < best_cost:
                best, best_cost = parts, cost(parts)
        if best is None:
            best = segment_path(t, xy, sig, degrees=(0, 1), **kw)
        return best

    slide_slack_z = 3.0  # a fitted slide ending faster than it starts by more than this many σ is none,
    slide_p_min = 0.01  # ... nor one its samples fit this unlikely (a turn the curve smoothed over)

    def _slides_fit(self, sg) -> bool:
        """Whether a segment fitted on the mat can be a slide: a curve (degree 2) does not end faster
        than it starts (by ``slide_slack_z`` σ of its fit), fits its samples as a curve (χ² likely
        at ``slide_p_min``), and does not come back along its line after it stops farther than
        ``slide_slack_z`` σ of its place (a curve through a slide that stops comes back a little after the stop:
        friction stops a token and leaves it, and that much is the curve's, not the token's)."""
        if sg.degree < 2 or _waypoint(sg):
            return True
        z = self.slide_slack_z
        v0, v1 = sg.vel(sg.t0)[0], sg.vel(sg.t1)[0]
        n0 = float(np.hypot(*v0))
        if n0 < 1e-6:
            return True
        u = v0 / n0
        s0, s1 = float(sg.vel_sigma(sg.t0)[0]), float(sg.vel_sigma(sg.t1)[0])
        faster = float(np.hypot(*v1)) - n0 > z * float(np.hypot(s0, s1))
        dof = 2 * (sg.n - 3)
        rough = dof > 0 and chi2_sf(dof, sg.chi2) < self.slide_p_min
        # came back along its line after it stopped, farther than the fit's noise
        a_u = float(2.0 * sg.coef[2] @ u)
        back = False
        if a_u < 0:
            t_v = sg.t0 + n0 / -a_u  # where the curve stops along its line
            if t_v < sg.t1:
                back_mm = float((sg.pos(t_v)[0] - sg.pos(sg.t1)[0]) @ u)
                back = back_mm > z * float(sg.pos_sigma(sg.t1)[0])
        return not (faster or rough or back)

    def _pin_landing(self, s: ThrowSamples, segs: list, at_land: int, t_land: float | None, t_land_s: float) -> tuple:
        """(how far the slide's start is off the flight's end at the landing, mm (None when no
        landing ends a flight segment), that in σ, :attr:`ThrowPath.land_back` (None when the token
        was first seen on the mat as a lone sample)). A plain landing (the two meet within
        ``pin_z`` σ and the token keeps its direction) pins the flight's end to the slide's start,
        seen on the mat more sharply: ``segs[at_land]`` is fitted again with that pin."""
        from vision.paths import fit_segment

        t, xy, sig = s.t, s.xy, s.sig
        land_miss, land_miss_z = None, 0.0
        land_back = None
        if at_land < 0:
            return land_miss, land_miss_z, land_back
        a, b = segs[at_land], segs[at_land + 1]
        # the flight's end at the landing: its fit there, or for a lone sample (a waypoint) that
        # place carried on along the chord it arrived on
        if _waypoint(a):
            p_a, v_a, s_a, sv_a = self._ends(segs, at_land)[4:8]
            pa_l = p_a + v_a * (t_land - a.t0)
            sa_l = float(np.hypot(s_a, sv_a * abs(t_land - a.t0)))
        else:
            pa_l, v_a, sa_l, sv_a = a.pos(t_land)[0], a.vel(t_land)[0], float(a.pos_sigma(t_land)[0]), \
                float(a.vel_sigma(t_land)[0])
        # (a plain landing keeps the direction: a turn there is a bounce, and pins nothing)
        va, vb = v_a, b.vel(t_land)[0]
        sva = max(float(np.hypot(sv_a, b.vel_sigma(t_land)[0])), 1.0)
        na = float(np.hypot(*va))
        z_turn_l = max(abs(float(vb[0] * va[1] - vb[1] * va[0])) / na, -float(vb @ va) / na) / sva if na > 2 * sva else 0.0
        if not _waypoint(b) and na > 1e-6:
            # it touched down on its way in behind its first place on the mat (at rest or sliding),
            # as far back as it can have slid before that sample at its flight's speed at most, and
            # sliding, no faster than friction can have slowed to the slide's first speed (where
            # it landed is judged along that stretch, :meth:`_land_places`)
            dt_l = max(b.t0 - t_land, 0.0)
            v_l = na if b.degree == 0 else min(na, float(np.hypot(*b.vel(b.t0)[0])) + self.max_slide_decel_mm_s2 * dt_l)
            land_back = (va / na, v_l * dt_l)
        # how far the slide's start is off the flight's end, less a slide forward unseen (when
        # the token is at rest from the first sample on the mat)
        d_land = b.pos(t_land)[0] - pa_l
        if b.degree == 0 and na > 1e-6:
            along = float(d_land @ va) / na
            land_miss = float(np.hypot(float(d_land[0] * va[1] - d_land[1] * va[0]) / na, min(along, 0.0)))
        else:
            land_miss = float(np.hypot(*d_land))
        land_miss_z = max(land_miss - 2.0, 0.0) / max(float(np.hypot(sa_l, b.pos_sigma(t_land)[0])), 1e-6)
        if land_miss_z <= self.pin_z and z_turn_l <= self.event_doubt_z and not _waypoint(a) and not _waypoint(b):
            pin = b.pos(t_land)
            if b.degree == 0 and na > 1e-6:  # at rest already: the slide's line, not its start
                u = va / na
                pin = a.pos(t_land) + (d_land - float(d_land @ u) * u)[None, :]
            # (its σ: the slide's, the landing instant's, and the offset seen: a plain landing
            # is only as sure as the two agree)
            pin_s = float(np.sqrt(b.pos_sigma(t_land)[0] ** 2 + (float(np.hypot(*b.vel(t_land)[0])) * t_land_s) ** 2
                                  + max(land_miss - 2.0, 0.0) ** 2))
            pins = list(getattr(a, "pins", [])) + [(t_land, pin[0], pin_s)]
            fit = fit_segment(np.concatenate([t[a.i0:a.i1], [p[0] for p in pins]]),
                              np.vstack([xy[a.i0:a.i1]] + [p[1] for p in pins]),
                              np.concatenate([sig[a.i0:a.i1], [p[2] for p in pins]]), a.degree, i0=a.i0)
            fit.i0, fit.t0 = a.i0, a.t0
            fit.i1, fit.t1 = a.i1, a.t1
            segs[at_land] = fit
        return land_miss, land_miss_z, land_back

    def _follow(self, s: ThrowSamples, segs: list, at_land: int, fall, t_land, t_land_s, land_miss, land_miss_z,
                z_sigma: float, racer_h: float, dt_eval: float) -> ThrowPath:
        """The :class:`ThrowPath` of the segments followed every ``dt_eval`` s from the launch: each
        segment's fit up to where it meets the next (:func:`vision.paths.join`; a landing meets at
        ``t_land``), straight between a waypoint and its neighbours; the height held before the
        launch, then the fall, 0 on the mat (the samples' heights when no fall was fitted)."""
        from vision.paths import join

        t, zb, ang, i_launch = s.t, s.zb, s.ang, s.i_launch
        # each segment's ends: position, velocity and their σ. A lone sample (a segment of one) is
        # a waypoint: the token passed there, arriving along the chord from the segment before and
        # leaving along the chord to the one after
        ends = [self._ends(segs, i) for i in range(len(segs))]
        bounds = [segs[0].t0]
        joins = []
        for si, (a, b) in enumerate(zip(segs, segs[1:])):
            if not _waypoint(a) and not _waypoint(b):
                j = join(a, b, t_land, t_land) if si == at_land else join(a, b)
            else:
                j = None
            joins.append(j)
            bounds.append(j.t if j is not None else 0.5 * (a.t1 + b.t0))
        bounds.append(segs[-1].t1)
        T = np.arange(s.t_launch, t[-1] + 1e-9, dt_eval)
        # between two segments without a join (a waypoint on either side): straight between them
        anchors = []  # (t, place, σ) at each segment's start and end (a waypoint's one sample)
        for sg, e in zip(segs, ends):
            anchors += [(sg.t0, e[0], e[2])] if _waypoint(sg) else [(sg.t0, e[0], e[2]), (sg.t1, e[4], e[6])]
        anchors_t = np.array([x[0] for x in anchors])
        anchors_p = np.array([x[1] for x in anchors])
        anchors_s = np.array([x[2] for x in anchors])
        P = np.column_stack([np.interp(T, anchors_t, anchors_p[:, 0]), np.interp(T, anchors_t, anchors_p[:, 1])])
        S = np.interp(T, anchors_t, anchors_s)
        for si, sg in enumerate(segs):
            if _waypoint(sg):
                continue
            lo_t = bounds[si] if si == 0 or joins[si - 1] is not None else sg.t0
            hi_t = bounds[si + 1] if si == len(segs) - 1 or joins[si] is not None else sg.t1
            m = (T >= lo_t) & (T <= hi_t)
            if m.any():
                P[m] = sg.pos(T[m])
                S[m] = sg.pos_sigma(T[m])
        z_hold = float(np.median(zb[:i_launch])) if i_launch > 0 else float(zb[0])
        z_hold_s = z_sigma / np.sqrt(max(i_launch, 1))
        release_s = None
        if fall is not None and t_land is not None:
            Z = np.where(T < t_land, fall.height(T), 0.0)
            Z = np.where(T < t[i_launch], z_hold, Z)
            # released unseen between the last sample held and the first off it: by then it was
            # at the height held, or fell from it since that sample (no lower than the fall fitted
            # nor than one dropped at that sample): the middle, k σ reaching either
            m = (T > s.t_launch) & (T < t[i_launch])
            if m.any():
                lo = np.minimum(np.maximum(fall.height(T[m]), z_hold - 0.5 * fall.g * (T[m] - s.t_launch) ** 2), z_hold)
                Z[m] = 0.5 * (z_hold + lo)
                release_s = np.zeros(len(T))
                release_s[m] = 0.5 * (z_hold - lo) / self.referee.k
        else:
            Z = np.interp(T, t, zb)
            Z = np.where(T < t[i_launch], z_hold, Z)
        low = Z < racer_h
        A = np.interp(T, t, np.unwrap(np.radians(ang)))
        i_land = int(np.searchsorted(T, t_land)) if t_land is not None else None
        if i_land is not None and i_land >= len(T):
            i_land = len(T) - 1
        path = ThrowPath(s, fall, t_land, t_land_s, segs, at_land, land_miss, land_miss_z, ends, joins, bounds,
                         T, P, S, Z, A, low, i_land, z_sigma, z_hold_s, dt_eval, release_s=release_s)
        path.land_window = self._land_window(path)
        return path

    def _land_window(self, path: ThrowPath) -> tuple:
        """(first, last) index in ``path.T`` the landing can have been at: ``t_land`` ± k σ where a
        fall placed it, else the stretch between the last sample seen in the air and the first on
        the mat (``t_land`` ± ``t_land_s``, half that stretch); (i_land, i_land) without a landing."""
        if path.i_land is None:
            return (0, 0)
        s = path.samples
        air = _airborne(s, path.on_mat_z)
        ia = np.flatnonzero(air)
        bracketed = path.fall is None or not len(ia) or path.t_land > s.t[ia[-1]] + 1e-9 and abs(
            path.t_land - 0.5 * (s.t[ia[-1]] + s.t[min(ia[-1] + 1, len(s.t) - 1)])) < 1e-9
        w = path.t_land_s if bracketed else self.referee.k * path.t_land_s
        i0 = int(np.searchsorted(path.T, path.t_land - w))
        i1 = int(np.searchsorted(path.T, path.t_land + w))
        # (from the flight's end, the instant before the landing, to the slide's start)
        i0, i1 = min(max(i0, 0), max(path.i_land - 1, 0)), max(min(i1, len(path.T) - 1), path.i_land)
        return (i0, i1)

    # -- stage 2: the events -----------------------------------------------------------------------
    def throw_events(self, path: ThrowPath, racers, rest_q: dict, radius: float, racer_h: float) -> ThrowEvents:
        """What happened between each two segments of ``path`` (a token of ``radius`` mm, or of the
        samples' box; racers ``racer_h`` mm tall, at rest at ``rest_q`` {id: ((2,) mm, σ mm)}).

        A bounce turns the token (a landing or a stop only slows it): where the two fits meet, the
        racer whose edge the token's edge meets there, pushing it away; where they do not meet (the
        bounce fell between two samples and took the token off its line, or a waypoint leaves the
        place unknown), the racer the incoming ray runs into or the outgoing ray came from, within
        reach of the interval (:meth:`_ray_suspects`; none: the racers it came near,
        :meth:`_near_suspects`). Either is unsure where a touch the fits do not show can have
        turned the token too (:meth:`_touch_suspects`). From rest the start is unseen: a token that went out to a racer
        behind its first motion and came back is told from a straight start only when its resting
        place lies ahead of that motion. An interval seen with the token higher than a racer's top,
        or a landing on a racer (a token that lands on one is pushed off it: that explains a jump at
        the landing), is no event."""
        k = self.referee.k
        T, Z, A, size = path.T, path.Z, path.A, path.samples.size
        bounces, seen, intervals, turns = [], {}, [], []

        def note(rid, t, s, unsure):  # a touch of racer ``rid`` that may have been (see the merge below)
            seen.setdefault(rid, []).append((t, s, unsure))
        landed_on = self._landed_on_racer(path, racers, rest_q, radius)
        for si in range(len(path.segs) - 1):
            if np.interp(path.bounds[si + 1], T, Z) >= racer_h:
                iv = self._interval(path, si)
                if iv.z_turn > k or iv.z_miss > k:
                    turns.append((iv.t0, iv.t1))
                continue
            if si == path.at_land and landed_on:
                # the push off the racer it landed on explains a jump there, or a touch before it
                # may: the racers it can have reached in the interval are in doubt
                iv = self._interval(path, si)
                if max(iv.z_miss, iv.z_turn) > k:
                    for rid in self._within_reach(path, iv, racers, rest_q, radius):
                        note(rid, iv.t_mid, iv.s_miss, True)
                continue
            iv = self._interval(path, si)
            turned, met = iv.z_turn > k, iv.z_miss <= k
            significant = not met or iv.z_ahead > k or (turned and iv.join is None)
            z_event = max(iv.z_miss, iv.z_ahead, 0.0 if iv.from_rest else iv.z_turn)
            if z_event > self.event_doubt_z or turned:
                intervals.append((iv.t0, iv.t1))
            if turned and met and iv.join is not None and not iv.from_rest:
                dv = iv.v_out - iv.v_in
                n_dv = dv / max(float(np.hypot(*dv)), 1e-9)
                pushed = {r.id for r in racers if self._pushed_off(iv.join, n_dv, r, rest_q, T, A, size, radius, k)}
                if pushed:
                    # (a touch the fits do not show, :meth:`_touch_suspects`, can have turned it
                    # as well: then which racer did is unsure)
                    also = self._touch_suspects(path, iv, racers, rest_q, radius, racer_h) - pushed
                    for rid in also:
                        note(rid, iv.t_mid, iv.s_miss, True)
                    bounces.append((iv.join, n_dv, also))
                    continue
                # a turn with no racer where the fits meet (a graze shortly after a sample): the
                # racers along the rays either side are in doubt
                significant, unexplained = True, True
            else:
                unexplained = False
            start_ids = None
            if iv.from_rest and si == 0 and path.samples.i_launch > 0:
                # the start is unseen: between the last sample at rest and the first in motion the
                # token can have gone out to a racer and come back, at any speed a throw has; the
                # racers within that reach are in doubt unless other evidence decides them
                start_ids = self._start_reach(path, iv, racers, rest_q, radius)
                for rid in start_ids:
                    note(rid, iv.t_mid, iv.s_miss, True)
            if not significant and not iv.from_rest:
                if z_event > self.event_doubt_z:
                    # perhaps something happened here: any racer the token could have reached in
                    # the interval (it never speeds up) is in doubt, the interval widened by a
                    # sample either side (a segment's end sample may lie beyond what happened: the
                    # fits put the break where it costs least, not where it was)
                    for rid in self._within_reach(path, self._widened(path, iv), racers, rest_q, radius):
                        note(rid, iv.t_mid, iv.s_miss, True)
                continue
            out_known = True
            if _waypoint(path.segs[si + 1]) and si + 2 < len(path.segs):
                # a lone sample after it: the way out of it is the chord on across the next interval,
                # unknown where the token turned there too (that turn is the next interval's)
                nx = self._interval(path, si + 1)
                out_known = nx.z_turn <= k and nx.z_miss <= k
                unexplained |= not out_known
            found, unexplained, after = self._ray_suspects(path, iv, racers, rest_q, radius, unexplained, out_known)
            if iv.from_rest and float(np.interp(iv.t0, T, Z)) > path.on_mat_z:
                # released from the hand: where and which way it left the hand is known loosely
                # (the hand's samples are the air's), so no ray there says for sure what it touched
                unexplained = True
            if found and not unexplained and not iv.from_rest:
                # a touch the fits do not show (just before the last sample ahead of the interval,
                # or where the path across it is within the noise of a racer) explains the turn as
                # well as the ray's
                before = self._touch_suspects(path, iv, racers, rest_q, radius, racer_h) - found
                if before:
                    found |= before
                    unexplained = True
            if significant and not found and start_ids is not None and \
                    float(np.interp(iv.t0, T, Z)) <= path.on_mat_z:
                # from rest on the mat (not the hand) something turned the token in its unseen start
                # and no ray shows what: a racer it can have reached from its rest and come on from
                # to its first sample in motion did (:meth:`_start_reach`, the bound of where it can
                # have been: those racers alone are in doubt), for sure when it can have reached one
                # alone. (Not when that sample is a lone one: a turn there may be the next
                # interval's, judged there.)
                found = set(start_ids)
                unexplained = unexplained or _waypoint(path.segs[1])
            elif significant and not found:
                # something happened here and no ray shows what: every racer the token came near
                # around the interval is in doubt
                found, unexplained = self._near_suspects(path, iv, racers, rest_q, radius), True
            for rid in found:
                note(rid, iv.t_mid, iv.s_miss, len(found) > 1 or not significant or unexplained)
            for rid in after - found:  # the token may have gone on to these after the touch
                note(rid, iv.t_mid, iv.s_miss, True)
        stop = self._stop_suspects(path, racers, rest_q, radius)
        if stop is not None:
            # stopped short of a racer ahead of it: a landing or friction, or that racer, unseen
            t_mid, s_miss, ids = stop
            for rid in ids:
                note(rid, t_mid, s_miss, True)
        # per racer: a touch seen for sure stays sure (its time the earliest sure one), whatever
        # doubt came before it; a doubt alone, from the earliest; and the earliest it can have been
        hidden = {}
        for rid, notes in seen.items():
            sure = [h for h in notes if not h[2]]
            t, s, unsure = min(sure or notes, key=lambda h: h[0])
            hidden[rid] = (t, s, unsure, min(h[0] for h in notes))
        turns += intervals
        return ThrowEvents(bounces, hidden, intervals, self.spin_changes(path), sorted(turns))

    def _touch_suspects(self, path: ThrowPath, iv: Interval, racers, rest_q: dict, radius: float,
                        racer_h: float) -> set:
        """Ids of the racers a touch the fits do not show can have turned the token from in interval
        ``iv``: just before the last sample ahead of it (hidden in that sample's noise: the token
        within the noise of them there), or in it, where the path drawn across it comes within the
        noise of them (closest in σ); low enough, and the turn one their push can make
        (:meth:`_can_turn`)."""
        k = self.referee.k
        T, P, S, Z, A, size = path.T, path.P, path.S, path.Z, path.A, path.samples.size
        k0 = min(int(np.searchsorted(T, iv.t0)), len(T) - 1)
        m = np.flatnonzero((T >= iv.t0) & (T <= iv.t1) & (Z < racer_h))
        out = set()
        for r in racers:
            q, q_s = rest_q[r.id]
            if Z[k0] < racer_h:
                g0 = float(_gap(iv.p_from[None], A[k0:k0 + 1], size, radius, q[None], r.radius)[0])
                if g0 <= k * float(np.hypot(iv.s_from, q_s)) and \
                        self._can_turn(path, iv, iv.p_from, float(A[k0]), radius, r, rest_q, iv.s_from):
                    out.add(r.id)
                    continue
            if len(m):
                g = _gap(P[m], A[m], size, radius, np.broadcast_to(q, P[m].shape), r.radius)
                s_g = np.hypot(S[m], q_s)
                j = int(np.argmin(g / s_g))
                if g[j] <= k * s_g[j] and self._can_turn(path, iv, P[m[j]], float(A[m[j]]), radius, r, rest_q,
                                                         float(S[m[j]])):
                    out.add(r.id)
        return out

    def _landed_on_racer(self, path: ThrowPath, racers, rest_q: dict, radius: float) -> bool:
        """Whether the token landed overlapping a racer by more than k σ (at ``path.i_land``)."""
        k = self.referee.k
        P, S, A, i_land, size = path.P, path.S, path.A, path.i_land, path.samples.size
        landed_on = False
        if i_land is not None:
            for r in racers:
                q, q_s = rest_q[r.id]
                g_l = _gap(P, A, size, radius, np.broadcast_to(q, P.shape), r.radius)
                m_l, s_l = _land_margin(path, g_l, q_s, k, _land_gaps(path, q, r.radius, radius))
                landed_on |= m_l > k * s_l
        return landed_on

    def _interval(self, path: ThrowPath, si: int) -> Interval:
        """The :class:`Interval` between segment ``si`` of ``path`` and the next: its ends (from
        :meth:`_ends`) and how far, in σ, it is from "nothing happened here" (made once a path:
        ``path.intervals``)."""
        if si in path.intervals:
            return path.intervals[si]
        k = self.referee.k
        a, b = path.segs[si], path.segs[si + 1]
        jn = path.joins[si]
        p_from, v_in, s_from, sv_in = path.ends[si][4:8]
        p_to, v_out, s_to, sv_out = path.ends[si + 1][0:4]
        t_mid = path.bounds[si + 1]
        s_in = float(np.hypot(*v_in))
        s_out = float(np.hypot(*v_out))
        dt_gap = max(b.t0 - a.t1, 1e-6)
        chord, s_chord = (p_to - p_from) / dt_gap, float(np.hypot(s_from, s_to)) / dt_gap
        # how far from "nothing happened here" (in σ): the fits apart, the direction turned
        # (before vs across vs after the interval), or from rest, the rest place ahead
        s_miss = float(np.hypot(s_from, s_to))
        if si == path.at_land and path.land_miss is not None:  # (judged before any pin)
            z_miss = path.land_miss_z
        else:
            z_miss = max((jn.miss if jn is not None else 0.0) - 2.0, 0.0) / max(s_miss, 1e-6)
        z_turn = 0.0
        for v1, s1, v2, s2 in ((v_in, sv_in, v_out, sv_out), (v_in, sv_in, chord, s_chord), (chord, s_chord, v_out, sv_out)):
            n1 = float(np.hypot(*v1))
            if n1 < 1e-6 or n1 < 2.0 * s1:  # no direction to turn from
                continue
            u = v1 / n1
            s12 = max(float(np.hypot(s1, s2)), 1.0)
            z_turn = max(z_turn, abs(float(v2[0] * u[1] - v2[1] * u[0])) / s12, -float(v2 @ u) / s12)
        t_land = path.t_land
        if t_land is not None and b.t0 <= t_land and s_in >= 2.0 * sv_in:
            # in the air nothing slows the token: a slower chord (or motion after) is an event
            z_turn = max(z_turn, abs(float(np.hypot(*chord)) - s_in) / max(float(np.hypot(sv_in, s_chord)), 1.0))
            if not _waypoint(b) and b.t1 <= t_land:
                z_turn = max(z_turn, abs(s_out - s_in) / max(float(np.hypot(sv_in, sv_out)), 1.0))
        # (the speed coming in measured on the mat: a lone sample's is the chord from the one before)
        t_in = path.segs[si - 1].t1 if _waypoint(a) and si > 0 else a.t0
        on_mat = t_land is None or t_in >= t_land
        # (nor is a chord from rest a speed: the start's instant is unseen)
        from_still = _waypoint(a) and si > 0 and path.segs[si - 1].degree == 0 and not _waypoint(path.segs[si - 1])
        if on_mat and not from_still and s_in > 1e-6 and s_in >= 2.0 * sv_in and not (b.degree == 0 and not _waypoint(b)):
            # on the mat friction slows the token along its line by at most max_slide_decel: a
            # token still going after the interval that lost more speed along it than that
            # (or came back) was stopped by something
            u_in = v_in / s_in
            # (each velocity where it was measured: a line's is its samples' mean, a chord's its
            # middle's, a curve's its end's)
            segs = path.segs
            if _waypoint(a):
                tv_in = 0.5 * (segs[si - 1].t1 + a.t0) if si > 0 else a.t0
            else:
                tv_in = a.t_ref if a.degree == 1 else a.t1
            if _waypoint(b):
                tv_out = 0.5 * (b.t0 + segs[si + 2].t0) if si + 2 < len(segs) else b.t0
            else:
                tv_out = b.t_ref if b.degree == 1 else b.t0
            loss = s_in - float(v_out @ u_in) - self.max_slide_decel_mm_s2 * max(tv_out - tv_in, 0.0)
            z_turn = max(z_turn, loss / max(float(np.hypot(sv_in, sv_out)), 1.0))
        if on_mat and s_in > 1e-6 and s_in >= 2.0 * sv_in and b.degree >= 1 and not _waypoint(b):
            # nor does friction ever take it back along its way in (from rest too: the chord's
            # direction is no speed, but its way): a slide after the interval that ends behind
            # where it began (its places are surer than its speed where one sample moving begins it)
            tb = np.array([b.t0, b.t1])
            ends_b = b.pos(tb)
            back = -float((ends_b[1] - ends_b[0]) @ (v_in / s_in))
            z_turn = max(z_turn, back / max(float(np.hypot(*b.pos_sigma(tb))), 0.5))
        from_rest = a.n >= 3 and (a.degree == 0 or s_in < min(k * sv_in, 50.0))
        ahead = float((p_from - p_to) @ v_out) / s_out if s_out > 1e-6 else 0.0
        z_ahead = ahead / max(s_miss, 1e-6) if from_rest else 0.0
        if from_rest and s_out > 1e-6:
            # the start's instant is unknown (and the first fit may not slow as friction does):
            # from rest only the resting place off the line of the first motion counts
            d_rest = p_from - p_to
            z_miss = max(abs(float(d_rest[0] * v_out[1] - d_rest[1] * v_out[0])) / s_out - 2.0, 0.0) / max(s_miss, 1e-6)
        iv = path.intervals[si] = Interval(si, a.t1, b.t0, t_mid, jn, p_from, v_in, s_from, sv_in, p_to, v_out, s_to,
                                           sv_out, s_in, s_out, dt_gap, chord, s_chord, s_miss, z_miss, z_turn, z_ahead,
                                           from_rest)
        return iv

    def _can_turn(self, path: ThrowPath, iv: Interval, p_c, ang: float, radius: float, r, rest_q: dict,
                  s_c: float) -> bool:
        """Whether a touch of racer ``r`` (at rest at ``rest_q[r.id]``), the token's centre at ``p_c``
        (2,) mm (σ ``s_c``) and turned ``ang`` radians, can have turned the token from ``iv.v_in`` to
        ``iv.v_out``: the push's normal from the racer's centre (the racer is the cylinder of its
        footprint, as everywhere in a throw's call) to the token's nearest point, leaning off it by
        friction up to ``max_piece_mu``; in the air all through the interval the change of velocity
        is the push's own (:func:`_push_can_turn_air`), else a landing or friction on the mat may
        also have slowed it along its way (:func:`_push_can_turn`); a curving token's own turn over
        the interval allowed. True where the way in or out is unknown (from rest, or a speed within
        twice its σ)."""
        q, q_s = rest_q[r.id]
        if iv.from_rest:
            return True
        curve = self.max_curve_mm_s2 * iv.dt_gap if path.kind in CURVING else 0.0
        contact, s_contact = _nearest_point(p_c, ang, path.samples.size, radius, q), float(np.hypot(s_c, q_s))
        land_z = path.on_mat_z
        if float(np.interp(iv.t1, path.T, path.Z)) > land_z and float(np.interp(iv.t0, path.T, path.Z)) > land_z and \
                (path.t_land is None or path.t_land - self.referee.k * path.t_land_s > iv.t1):
            # in the air all through it: nothing slows the token, the push alone changed its velocity
            return _push_can_turn_air(iv.v_in, iv.v_out, float(np.hypot(iv.sv_in, iv.sv_out)), contact, q, s_contact,
                                      float(r.radius), self.max_piece_mu, self.referee.k, curve)
        return _push_can_turn(iv.v_in, iv.sv_in, iv.v_out, iv.sv_out, contact, q, s_contact, float(r.radius),
                              self.max_piece_mu, self.referee.k, curve)

    def _start_reach(self, path: ThrowPath, iv: Interval, racers, rest_q: dict, radius: float) -> list:
        """Ids of the racers a token at rest can have touched in the unseen start after the hold
        (``iv``, from ``path.segs[0]``): from its last sample at rest (within 2.5 σ of the hold's
        place; the hold's fit may take in a first sample or two of the motion) to the first after
        it, out from its rest at up to ``max_speed_mm_s`` to where its edge meets the racer's, then
        on to that first sample no faster than it was first seen going (``iv.s_out``, plus k σ, plus
        what friction can have taken off since: after a touch it only slows; ``max_speed_mm_s`` when
        that sample is a lone one, whose speed out says nothing of the speed in), within k σ of the
        places."""
        k = self.referee.k
        s, hold = path.samples, path.segs[0]
        p_rest = hold.pos(hold.t1)[0]
        i = hold.i1 - 1
        while i > hold.i0 and float(np.hypot(*(s.xy[i] - p_rest))) > 2.5 * float(s.sig[i]):
            i -= 1
        j = min(i + 1, len(s.t) - 1)
        dt = max(float(s.t[j] - s.t[i]), 1e-6)
        p_to, s_to = s.xy[j], float(s.sig[j])
        v_back = iv.s_out + k * iv.sv_out + self.max_slide_decel_mm_s2 * dt
        if _waypoint(path.segs[1]):
            # a lone first sample: the speed out of it is the chord on to the next segment, which a
            # touch after it may have slowed; the speed it came at is bounded by the fastest only
            v_back = self.max_speed_mm_s
        ang = np.linspace(0.0, 2.0 * np.pi, 73)[:-1]
        circle = np.column_stack([np.cos(ang), np.sin(ang)])
        out = []
        for r in racers:
            q, q_s = rest_q[r.id]
            slack = k * float(np.hypot(max(iv.s_from, s_to), q_s))
            p_c = q + (float(radius) + float(r.radius) + slack) * circle  # (the token's centre as they meet)
            d_out = np.maximum(np.hypot(*(p_c - p_rest).T) - slack, 0.0)
            d_back = np.maximum(np.hypot(*(p_c - p_to).T) - slack, 0.0)
            if float((d_out / self.max_speed_mm_s + d_back / max(v_back, 1e-6)).min()) <= dt:
                out.append(r.id)
        return out

    stop_ways = 24  # the directions tried from a lone sample just before a rest within its noise of it

    def _stop_suspects(self, path: ThrowPath, racers, rest_q: dict, radius: float) -> tuple | None:
        """(t s, σ mm, ids) of the racers that can have stopped a token that came to rest short of
        them, unseen: a landing may take all of a token's speed and friction slows it along its
        line, so a token at rest short of a racer ahead on its way in may have stopped by itself, or
        gone on, struck that racer and come back to where it rests between the last sample before it
        came to rest and the second at rest (at the first it may have been passing through on its
        way out), no faster than it came in (plus k σ): an out-and-back the samples do not show.
        Struck on the mat, it came back and stopped by friction alone (at most a =
        ``max_slide_decel_mm_s2``), which takes at least 2 d / min(v, √(2 a d)) over d mm at up to
        v; struck in the air it may have flown back and lost its speed landing. The ways in: the
        last segment before the rest that is not a lone sample (a lone one may lie on the way back),
        or from rest straight to rest (no sample between) the chord at up to ``max_speed_mm_s``; and
        the chord from a lone sample just before the rest (any way on from there where that chord is
        within its noise). The racers are those ahead of the rest place that the token can have
        touched going along a way (across it within k σ of the line, the way's σ over the distance
        included: :meth:`_stop_along`), distances less k σ. None when the path does not end at rest."""
        k = self.referee.k
        segs, s = path.segs, path.samples
        last = segs[-1]
        if len(segs) < 2 or _waypoint(last) or last.n < 2:
            return None
        ends = last.pos(np.array([last.t0, last.t1]))
        s_end = float(np.hypot(*last.pos_sigma(np.array([last.t0, last.t1]))))
        if float(np.hypot(*(ends[1] - ends[0]))) > 2.0 + k * s_end:
            return None  # still sliding when first seen on its last segment
        ia = max((i for i in range(len(segs) - 1) if not _waypoint(segs[i])), default=None)
        if ia is None:
            return None
        iv = self._interval(path, ia)
        if (iv.from_rest and len(segs) > 2) or (not iv.from_rest and iv.s_in < 2.0 * iv.sv_in):
            return None
        t_c = float(s.t[min(last.i0 + 1, last.i1 - 1)])
        p_rest = ends[1]
        s_rest = float(last.pos_sigma(np.array([last.t1]))[0])
        t_r = float(last.t0)  # (the first sample at rest)

        def chord_ways(p_w, s_w: float, t_w: float) -> list:
            # straight from a place it passed (or left from rest) to the rest place, back there by
            # the first sample at rest, or passing it then on its way out and back by the second;
            # where that chord is within its noise, any way on from there
            chord = p_rest - p_w
            n_c, s_c = float(np.hypot(*chord)), float(np.hypot(s_w, s_rest))
            if n_c > k * s_c:
                dirs = [(chord / n_c, s_c / n_c)]
            else:
                th = np.arange(self.stop_ways) * (2.0 * np.pi / self.stop_ways)
                dirs = [(np.array([np.cos(a), np.sin(a)]), np.pi / self.stop_ways) for a in th]
            return [w for d, s_d in dirs for w in ((p_w, s_w, t_w, d, s_d, t_r - t_w),
                                                    (p_rest, s_rest, t_r, d, s_d, t_c - t_r))]

        if iv.from_rest:
            # from rest straight to rest across one interval: the way in is the chord, at any speed
            # a throw has
            v_max = self.max_speed_mm_s
            ways = chord_ways(iv.p_from, iv.s_from, iv.t0)
        else:
            v_max = iv.s_in + k * iv.sv_in
            ways = [(iv.p_from, iv.s_from, iv.t0, iv.v_in / iv.s_in, iv.sv_in / iv.s_in, t_c - iv.t0)]
        # ... and from a lone sample just before the rest (one the token passed after a touch: it
        # came in from there)
        w = segs[-2]
        if _waypoint(w) and w.t0 > iv.t0:
            ways += chord_ways(w.coef[0], float(np.sqrt(w.cov[0, 0])), float(w.t0))
        ang = float(path.A[-1])
        ids = []
        for p_from, s_from, t0, d, s_dir, budget in ways:
            ids += [rid for rid in self._stop_along(path, racers, rest_q, radius, p_from, s_from, t0, d, s_dir, p_rest,
                                                      s_rest, v_max, max(budget, 0.0), ang) if rid not in ids]
        return iv.t_mid, iv.s_miss, ids

    def _stop_along(self, path: ThrowPath, racers, rest_q: dict, radius: float, p_from, s_from: float, t0: float, d,
                    s_dir: float, p_rest, s_rest: float, v_max: float, budget: float, ang: float) -> list:
        """Ids of the racers ahead of ``p_rest`` (σ ``s_rest``) along direction ``d`` (σ ``s_dir``
        rad) that a token last seen moving at ``p_from`` (σ ``s_from``) at ``t0`` s, no faster than
        ``v_max`` mm/s, can have struck going on along that line and come back from to rest there
        within ``budget`` s (see :meth:`_stop_suspects`); the token at angle ``ang`` rad."""
        k = self.referee.k
        s = path.samples
        origin = p_from + max(float((p_rest - p_from) @ d), 0.0) * d  # (abreast of the rest place)
        # the places its centre can have passed on its way on: along the line it came in on, as far
        # as it can have gone, and across it as far as the line's noise there (from the last sample
        # before, or through the rest place it may have passed), ±k σ
        line = _ray_points(origin - k * s_rest * d, d, v_max * budget + k * s_rest)
        a = (line - origin) @ d
        s_across = np.minimum(np.hypot(s_from, s_dir * np.hypot(*(line - p_from).T)),
                              np.hypot(s_rest, s_dir * np.hypot(*(line - p_rest).T)))
        n = np.array([-d[1], d[0]])
        b = np.linspace(-1.0, 1.0, 9)
        A_line = np.full(len(line), ang)
        # (no farther than where the line runs into a racer deeper than its noise: that one stops it)
        deep = [np.flatnonzero(_gap(line, A_line, s.size, radius, np.broadcast_to(rest_q[r.id][0], line.shape), r.radius)
                               <= -(1.0 + k * np.hypot(s_across, rest_q[r.id][1]))) for r in racers]
        a_stop = min((float(a[ix[0]]) for ix in deep if len(ix)), default=np.inf)
        ids = []
        for r in racers:
            q, q_s = rest_q[r.id]
            if float((q - origin) @ d) <= 0.0:
                continue  # (beside or behind where it rests: not ahead of it)
            half = 1.0 + k * np.hypot(s_across, q_s)
            P = (line[:, None, :] + (b[None, :, None] * half[:, None, None]) * n)[a <= a_stop].reshape(-1, 2)
            touch = _gap(P, np.full(len(P), ang), s.size, radius, np.broadcast_to(q, P.shape), r.radius) <= 0.0
            if not touch.any():
                continue
            P = P[touch]
            d_out = np.maximum(np.hypot(*(P - p_from).T) - k * float(np.hypot(s_from, q_s)), 0.0)
            d_back = np.maximum(np.hypot(*(P - p_rest).T) - k * float(np.hypot(s_rest, q_s)), 0.0)
            t_out = d_out / v_max
            if path.t_land is not None:
                mat = t0 + t_out > path.t_land + k * path.t_land_s
            else:
                mat = np.full(len(t_out), float(np.interp(t0, path.T, path.Z)) <= path.on_mat_z)
            # struck on the mat: back from it at w ≤ v_max, slowed by friction alone (≤ a_max) to
            # stop where it rests, d_back on: w² = 2 a d_back, which takes 2 d_back / w, at least
            # 2 d_back / min(v_max, √(2 a_max d_back)); struck in the air it may have flown back
            # and lost its speed landing
            w = np.minimum(v_max, np.sqrt(2.0 * self.max_slide_decel_mm_s2 * d_back))
            t_back = np.where(mat, 2.0 * d_back / np.maximum(w, 1e-9), d_back / v_max)
            if float((t_out + t_back).min()) <= budget:
                ids.append(r.id)
        return ids

    @staticmethod
    def _widened(path: ThrowPath, iv: Interval) -> Interval:
        """Interval ``iv`` from the sample before its first end to the sample after its last (within
        the throw's samples after the launch), its ends those samples (σ theirs)."""
        s = path.samples
        i0 = int(np.searchsorted(s.t, iv.t0 - 1e-9))
        i1 = int(np.searchsorted(s.t, iv.t1 - 1e-9))
        a, b = max(i0 - 1, s.i_launch, 0), min(i1 + 1, len(s.t) - 1)
        if a >= i0 and b <= i1:
            return iv
        p_from, s_from = (s.xy[a], float(s.sig[a])) if a < i0 else (iv.p_from, iv.s_from)
        p_to, s_to = (s.xy[b], float(s.sig[b])) if b > i1 else (iv.p_to, iv.s_to)
        t0, t1 = min(float(s.t[a]), iv.t0), max(float(s.t[b]), iv.t1)
        return replace(iv, t0=t0, t1=t1, p_from=p_from, s_from=s_from, p_to=p_to, s_to=s_to, dt_gap=max(t1 - t0, 1e-6),
                       s_miss=float(np.hypot(s_from, s_to)))

    def _within_reach(self, path: ThrowPath, iv: Interval, racers, rest_q: dict, radius: float,
                      speed: float | None = None) -> list:
        """Ids of the racers the token can have reached in interval ``iv`` and come back from (it
        never speeds up: within half the distance it could go beyond the chord, plus k σ; at
        ``speed`` mm/s when given, else the fastest it was seen going either side)."""
        k = self.referee.k
        if speed is None:
            speed = max(iv.s_in, iv.s_out, float(np.hypot(*iv.chord)))
        L = speed * iv.dt_gap
        allow = max(L - float(np.hypot(*(iv.p_to - iv.p_from))), 0.0) / 2 + k * iv.s_miss
        seg_pts = iv.p_from + np.linspace(0, 1, 21)[:, None] * (iv.p_to - iv.p_from)
        ang_mid = np.full(len(seg_pts), float(np.interp(iv.t_mid, path.T, path.A)))
        out = []
        for r in racers:
            g = float(_gap(seg_pts, ang_mid, path.samples.size, radius, np.broadcast_to(rest_q[r.id][0], seg_pts.shape),
                           r.radius).min())
            if g <= allow:
                out.append(r.id)
        return out

    def _ray_suspects(self, path: ThrowPath, iv: Interval, racers, rest_q: dict, radius: float,
                      unexplained: bool, out_known: bool = True) -> tuple[set, bool, set]:
        """(ids of the racers the outgoing ray of ``iv`` came from (unless the way out is not
        ``out_known``) or the incoming one runs into (not from rest: its start is unseen), closing
        on it and, unless the event is ``unexplained`` already, within reach of the interval at
        ``max_speed_mm_s``, with the others each ray grazes on the way; whether it is unexplained
        now: a racer out of reach besides one within reach makes every one of them a suspect; ids of
        the racers the token may have gone on to touch after a touch where the incoming ray starts
        (:meth:`_entered_low`): within reach of the interval, :meth:`_within_reach`)."""
        k = self.referee.k
        reach = self.max_speed_mm_s * max(iv.t1 - iv.t0, 0.0)
        rays = []
        if out_known and iv.s_out > 1e-6:
            rays.append((iv.p_to, -iv.v_out / iv.s_out, iv.s_to))
        if not iv.from_rest and iv.s_in > 1e-6:
            rays.append((iv.p_from, iv.v_in / iv.s_in, iv.s_from))
        # the incoming ray may start inside a racer it was running into (the touch came just after
        # the last sample before the interval): that racer is the first it runs into, and blocks it
        inside, maybe = self._entered_low(path, iv, racers, rest_q, radius) if not iv.from_rest and iv.s_in > 1e-6 \
            else ([], [])
        after = set()
        if inside:
            rays = rays[:1] if out_known and iv.s_out > 1e-6 else []
            after = set(self._within_reach(path, iv, racers, rest_q, radius))
        if maybe:  # (in it, if it came into it below its top: within the noise)
            unexplained = True
        found, far = set(), set()
        ang = float(np.interp(iv.t_mid, path.T, path.A))
        by_id = {r.id: r for r in racers}
        for rid in inside + maybe:
            if not unexplained and float(np.hypot(*(iv.p_to - iv.p_from))) > reach + k * iv.s_miss:
                far.add(rid)
            else:
                found.add(rid)
        for origin, d, s_ray in rays:
            hit = _ray_hit(origin, d, radius, path.samples.size, ang, racers, rest_q,
                           graze_mm=1.0, graze_k=k, graze_s=s_ray)
            if hit is None:
                continue
            rid, p_c, others = hit
            # a racer whose push cannot have turned the token the way it turned is no suspect: the
            # one the ray runs into (then the ray shows nothing), or one it grazes on the way
            others = [o for o in others if self._can_turn(path, iv, _closest_on_ray(origin, d, radius, path.samples.size, ang,
                                                                                      rest_q[o][0], by_id[o].radius),
                                                          ang, radius, by_id[o], rest_q, s_ray)]
            if not self._can_turn(path, iv, p_c, ang, radius, by_id[rid], rest_q, s_ray):
                if others:  # (a racer grazed on the way that can have turned it stays in doubt)
                    found.update(others)
                    unexplained = True
                continue
            q = rest_q[rid][0]
            n = (p_c - q) / max(float(np.hypot(*(p_c - q))), 1e-9)
            # closing on it along the incoming ray (leaving it along the outgoing one), and
            # within reach of the interval
            if float(-d @ n) <= -0.2:  # (a graze leaves it nearly along its edge: allow for noise)
                continue
            if not unexplained and float(np.hypot(*(p_c - iv.p_from)) + np.hypot(*(p_c - iv.p_to))) > reach + k * iv.s_miss:
                far.add(rid)  # out of reach, if the ends are where the fits say
                continue
            found.add(rid)
            found.update(others)
        if found and far - found:
            found |= far
            unexplained = True
        return found, unexplained, after

    def _entered_low(self, path: ThrowPath, iv: Interval, racers, rest_q: dict, radius: float) -> tuple[list, list]:
        """(ids of the racers whose footprint the token was in where it left the segment before
        interval ``iv`` (``iv.p_from``), going deeper along its incoming velocity, having come into
        it along the path with its base below the racer's top by more than k σ (σ of that height:
        :meth:`_onset_height_sigma`), ids of those it came into within k σ of their top)."""
        k = self.referee.k
        T, P, S, A, Z, size = path.T, path.P, path.S, path.A, path.Z, path.samples.size
        racer_h = self.specs.piece(GAME, "racer").height
        d = iv.v_in / iv.s_in
        k0 = min(int(np.searchsorted(T, iv.t0)), len(T) - 1)
        ang = np.full(2, float(np.interp(iv.t0, T, A)))
        out, maybe = [], []
        for r in racers:
            q = rest_q[r.id][0]
            g = _gap(np.array([iv.p_from, iv.p_from + d]), ang, size, radius, np.broadcast_to(q, (2, 2)), r.radius)
            if not (g[0] <= 0 and g[1] < g[0]):
                continue
            gp = _gap(P[:k0 + 1], A[:k0 + 1], size, radius, np.broadcast_to(q, (k0 + 1, 2)), r.radius)
            if gp[k0] > 0:
                continue
            a = k0
            while a > 0 and gp[a - 1] <= 0:
                a -= 1
            z_s = float(path.height_sigma(T[a]))
            below = (racer_h - float(Z[a])) / max(self._onset_height_sigma(a, gp, Z, S, rest_q[r.id][1], z_s, path.dt), 1e-6)
            if below > k:
                out.append(r.id)
            elif below >= -k:
                maybe.append(r.id)
        return out, maybe

    def _near_suspects(self, path: ThrowPath, iv: Interval, racers, rest_q: dict, radius: float) -> set:
        """Ids of the racers the path came near around interval ``iv``: within a frame either side,
        no farther than the token goes in a frame at its speed, plus k σ."""
        k = self.referee.k
        t, T, P, A = path.samples.t, path.T, path.P, path.A
        found = set()
        dt_f = float(np.median(np.diff(t))) if len(t) > 1 else 1 / 30
        m = (T >= iv.t0 - dt_f) & (T <= iv.t1 + dt_f)
        allow = max(iv.s_in, iv.s_out, float(np.hypot(*iv.chord))) * dt_f + k * iv.s_miss
        if not m.any():
            return found
        for r in racers:
            g = _gap(P[m], A[m], path.samples.size, radius, np.broadcast_to(rest_q[r.id][0], P[m].shape), r.radius)
            if float(g.min()) <= allow:
                found.add(r.id)
        return found

    # -- stage 3: each racer's call ----------------------------------------------------------------
    def racer_call(self, path: ThrowPath, events: ThrowEvents, r, racers, rest_q: dict, radius: float,
                   racer_h: float) -> RacerCall:
        """Racer ``r``'s call on the throw (see :meth:`hit_verdicts`): the surest of its candidates
        (margin mm, σ mm, t s, evidence), by margin over σ: an overlap of its footprint, below its
        top or passing over it (:meth:`_overlap_candidates`), a bounce off it where the fits meet
        (:meth:`_bounce_candidates`), a touch the fits cannot place (``events.hidden``), the place
        the token landed, and the closest the path came while low enough to touch (−gap).
        ``racers`` all of them (a bounce two could explain is in doubt), at rest at ``rest_q``."""
        k = self.referee.k
        T, P, S, A, low, i_land = path.T, path.P, path.S, path.A, path.low, path.i_land
        q, q_s = rest_q[r.id]
        if r.id in events.hidden:
            th, sh, unsure, t_earliest = events.hidden[r.id]
            sh = float(np.hypot(sh, q_s))
            hidden_cand = (0.0, sh, th, "bounce unseen, which racer or whether unsure") if unsure else \
                (1.5 * k * sh, sh, th, "bounce")
        else:
            hidden_cand = None
        gap = _gap(P, A, path.samples.size, radius, np.broadcast_to(q, P.shape), r.radius)
        land = _land_gaps(path, q, r.radius, radius)
        cands, free = self._overlap_candidates(path, events, gap, q_s, racer_h, land)
        cands += self._bounce_candidates(path, events, r, racers, rest_q, radius, racer_h)
        if hidden_cand is not None:
            cands.append(hidden_cand)
        if i_land is not None and not any(c[3] == "landed on" for c in cands):
            # where it landed, whatever came before (a token leaving a racer it came over may
            # land on its edge)
            cands.append(_land_margin(path, gap, q_s, self.referee.k, land) + (float(T[i_land]), "landed on"))
        # (the least sure place: the closest in σ, not in mm — a close pass seen sharply at rest
        # says less than a pass in the air a little farther but far less sharply)
        g = np.where(low & free, gap, np.inf)
        j = int(np.argmin(g / np.hypot(S, q_s)))
        if np.isfinite(g[j]) and g[j] > 0:
            cands.append((-float(g[j]), float(np.hypot(S[j], q_s)), float(T[j]), "path"))
        if not cands:
            cands.append((-1e3, 1.0, None, "path"))
        best = max(cands, key=lambda c: c[0] / max(c[1], 1e-6))
        # the earliest it can have been touched: where the token first came within the noise
        # of it (low enough), or an event in doubt began (orders a call in doubt honestly)
        near = np.flatnonzero((gap <= k * np.hypot(S, q_s)) & (low | (np.arange(len(T)) == i_land)))
        t_first = min([float(T[near[0]])] if len(near) else [], default=None)
        if hidden_cand is not None and (t_first is None or t_earliest < t_first):
            t_first = t_earliest
        return RacerCall(r.name, best[0], best[2], best[1], best[3], t_first)

    def _overlap_candidates(self, path: ThrowPath, events: ThrowEvents, gap: np.ndarray, q_s: float,
                            racer_h: float, land: tuple | None = None) -> tuple[list, np.ndarray]:
        """([(margin mm, σ mm, t s, evidence)] one per overlap of the path with a racer's footprint
        (``gap`` (n,) mm along ``path.T``, the racer's rest σ ``q_s`` mm), the mask of ``path.T``
        where a near miss may count). An overlap where the token landed is "landed on"; one that
        began with the token's base below the racer's top is a touch (the overlap's depth or the
        height below the top, whichever is less sure); one that came over it higher "passed over"
        (no near miss until they part), or went straight through its footprint with no event
        around; if it came down below the top while still closing on the racer, over its footprint,
        it "came down onto it": too close to call at best (it struck the racer, or grazed it too
        lightly to move either)."""
        T, S, Z, low, i_land = path.T, path.S, path.Z, path.low, path.i_land
        over = gap <= 0
        cands = []
        free = np.ones(len(T), dtype=bool)
        onsets = np.flatnonzero(over & ~np.concatenate([[False], over[:-1]]))
        for i in onsets:
            end = i + int(np.argmax(~over[i:])) if (~over[i:]).any() else len(over)
            depth = float(-gap[i:end].min())
            s = float(np.hypot(S[i:end][int(np.argmin(gap[i:end]))], q_s))
            # went straight through its footprint (one smooth segment in and out, no landing
            # there): a token that met the racer below its top would have bounced off it
            through = end < len(over) and not any(e0 <= T[min(end, len(T) - 1)] + 0.02 and e1 >= T[i] - 0.02
                                                  for e0, e1 in events.intervals)
            z_s = float(path.height_sigma(T[i]))
            if i_land is not None and i <= i_land < end:
                cands.append(_land_margin(path, gap, q_s, self.referee.k, land) + (float(T[i_land]), "landed on"))
            elif low[i]:
                # touched: deep enough, and below the racer's top when it began (σ of that
                # height: the fall's and the onset's time uncertainty times the fall speed)
                h_c = (racer_h - float(Z[i]), self._onset_height_sigma(i, gap, Z, S, q_s, z_s, path.dt))
                best = min((depth, s), h_c, key=lambda c: c[0] / max(c[1], 1e-6))
                if any(e0 < T[i] < e1 for e0, e1 in events.intervals):
                    # begun between two samples where something happened unseen (the next
                    # segment does not carry on from this one): the token may have turned
                    # before it got there, so the fit carried on is no sure place
                    cands.append((min(best[0], 0.0), best[1], float(T[i]), "overlap, the path unseen there"))
                else:
                    cands.append(best + (float(T[i]), "overlap"))
            else:
                # came over it from above: no touch until they part (the token leaving it, or
                # closing on it, is no near miss either: widen while the gap keeps changing so,
                # up to an event after they part: there the token may have turned back to it)
                a0, a1 = i, end
                while a0 > 0 and gap[a0 - 1] > gap[a0]:
                    a0 -= 1
                while a1 < len(gap) and gap[a1] > gap[a1 - 1] and not any(
                        e0 <= T[a1] <= e1 for e0, e1 in events.intervals):
                    a1 += 1
                free[a0:a1] = False
                over_c = (racer_h - float(Z[i]), self._onset_height_sigma(i, gap, Z, S, q_s, z_s, path.dt), float(T[i]),
                          "passed over")
                if through and -depth / s < over_c[0] / over_c[1]:
                    over_c = (-depth, s, float(T[i]), "passed over")
                cands.append(over_c)
                # coming down while it still closes on the racer, over its footprint: below the top
                # there it strikes it (leaving, the gap opening, it no longer presses on it)
                idx = np.arange(max(i, 1), min(end, len(gap)))
                idx = idx[gap[idx] < gap[idx - 1]]
                if len(idx):
                    sz = path.height_sigma(T[idx])
                    sg = np.hypot(S[idx], q_s)
                    zc = (racer_h - Z[idx]) / sz
                    dc = -gap[idx] / sg
                    c = np.minimum(zc, dc)
                    j = int(np.argmax(c))
                    by_height = zc[j] <= dc[j]
                    sj = float(sz[j] if by_height else sg[j])
                    # (never sure on its own: coming down onto its edge it may press too lightly to
                    # move either, and a graze that moves nothing is no touch)
                    down = (min(float(c[j]) * sj, 0.0), sj, float(T[idx[j]]), "came down onto it")
                    if down[0] / down[1] > over_c[0] / over_c[1]:
                        cands.append(down)
                # an event while over it, low enough to touch it: the token may have left it
                # there and come back below its top (a touch), which the path between the two
                # samples does not show; so may a touch that changed its spin (another racer's:
                # it can have turned the token back onto this one)
                t_end = float(T[min(end, len(T) - 1)])
                for e0, e1 in list(events.intervals) + [ch[:2] for ch in events.spins]:
                    if e0 <= t_end and e1 >= T[i] and float(np.interp(min(e1, t_end), T, Z)) < racer_h:
                        cands.append((0.0, s, max(float(e0), float(T[i])), "passed over, an event while over it"))
                        break
        return cands, free

    def _bounce_candidates(self, path: ThrowPath, events: ThrowEvents, r, racers, rest_q: dict, radius: float,
                           racer_h: float) -> list:
        """[(margin mm, σ mm, t s, evidence)] for each bounce in ``events`` that racer ``r`` can
        have caused (its edge at the token's where the fits meet, below its top, the turn pushing
        away from it): a categorical touch (1.5 k σ), or none sure (margin 0) when another racer
        could have caused it too."""
        k = self.referee.k
        T, Z, A, size = path.T, path.Z, path.A, path.samples.size
        q_s = rest_q[r.id][1]
        cands = []
        for jn, n_dv, also in events.bounces:
            if jn.t < T[0] or np.interp(jn.t, T, Z) >= racer_h:
                continue
            sj = float(np.hypot(jn.sigma, q_s))
            if self._pushed_off(jn, n_dv, r, rest_q, T, A, size, radius, k):
                others = [o for o in racers if o is not r and self._pushed_off(jn, n_dv, o, rest_q, T, A, size, radius, k)]
                if others or also:
                    cands.append((0.0, sj, jn.t, "bounce, which racer unsure"))
                else:
                    cands.append((1.5 * k * sj, sj, jn.t, "bounce"))
        return cands

    # -- a token the detector lost -------------------------------------------------------------------
    lost_frames = 2  # a projectile at rest unseen this many frames in a row while a throw is awaited is gone
    lost_gone_s = 0.5  # a flick opened by a lost token is over once nothing moved for this long and it is not back,
    lost_back_frames = 3  # ... or once it has been seen back, still, this many frames
    _lost_watch = None  # what lost_motion watches: {"key": (flicks so far, projectile), "n": frames, "ref": {track: its places}}
    # A token at rest is displaced when its place moved beyond the detector's repeatability there:
    # the spread of its own samples at rest (an upper bound, ``still_sigma_p`` likely, from the
    # ``still_samples`` kept), never more than the σ the detector claims (which holds what it gets
    # wrong in the same way every frame: a bias that a displacement does not see) nor less than
    # ``still_sigma_floor_mm``; seen so in ``displaced_frames`` frames in a row
    still_samples = 8
    still_sigma_p = 0.01
    still_sigma_floor_mm = 0.3
    displaced_frames = 2
    # A piece that appears on the mat (a track first seen after the wait began, unnamed, still for
    # ``lost_back_frames`` frames) while an announced throw is awaited, at the moment a racer within
    # ``appear_reach_mm`` of it is disturbed (its place displaced beyond the detector's
    # repeatability, or unseen ``lost_frames`` frames in a row; within ``appear_frames`` frames of
    # the appearance): the token landed there unseen (thrown too high or too fast for the detector,
    # or seen as another kind). A token put down where nothing stirs is no throw.
    APPEARED = "a piece appeared by a racer disturbed"
    appear_reach_mm = 52.5  # a racer's radius and the longest token (the Log, 40 mm)
    appear_frames = 4
    _appeared_tid = None

    # The motion test compares a piece's place with its place a frame or two before: what matters
    # is how far the detector's place of a still piece wanders from frame to frame, which a
    # detector that repeats itself (the same image, the same place) keeps far below the σ it
    # claims (what it gets wrong the same way every frame). It is measured on the table, as a
    # fraction of the claimed σ: the frame-to-frame steps of every piece within the claimed noise
    # (the last ``repeat_pairs``, at least ``repeat_min_pairs``), each over its two claimed σ in
    # quadrature; a still piece's step so scaled is Rayleigh (median = 2 ln 2 times the fraction²),
    # the median robust to the few pieces that moved a little; times ``repeat_safety``, at most 1,
    # and no σ below ``still_sigma_floor_mm``.
    repeat_pairs = 300
    repeat_min_pairs = 60
    repeat_safety = 1.5
    _repeat = None  # {"prev": {track: (x, y, σ)}, "n2": deque of scaled squared steps}

    def repeatability(self) -> float | None:
        """The detector's measured frame-to-frame wander of a still piece as a fraction of the σ
        it claims (see ``repeat_pairs``; at most 1), None until ``repeat_min_pairs`` steps were seen."""
        r = self._repeat
        if r is None or len(r["n2"]) < self.repeat_min_pairs:
            return None
        return min(1.0, float(np.sqrt(np.median(r["n2"]) / (2.0 * np.log(2.0)))) * self.repeat_safety)

    def motion_observation(self, obs: Observation) -> Observation:
        """``obs`` with each σ scaled by the detector's measured repeatability
        (:meth:`repeatability`) for the motion test; the σ the calls use are the detector's."""
        from collections import deque

        if self._repeat is None:
            self._repeat = {"prev": {}, "n2": deque(maxlen=self.repeat_pairs)}
        r = self._repeat
        k = self.motion.config.k
        prev, now = r["prev"], {}
        for i, tid in enumerate(obs.track_id):
            tid = int(tid)
            if tid < 0:
                continue
            x, y, sg = float(obs.xy[i, 0]), float(obs.xy[i, 1]), max(float(obs.sigma[i]), 1e-6)
            now[tid] = (x, y, sg)
            if tid in prev:
                d2 = (x - prev[tid][0]) ** 2 + (y - prev[tid][1]) ** 2
                v = sg ** 2 + prev[tid][2] ** 2
                if d2 <= k * k * v:  # (within the claimed noise)
                    r["n2"].append(d2 / v)
        r["prev"] = now
        rho = self.repeatability()
        if rho is None or rho >= 1.0 or not len(obs):
            return obs
        sig = np.minimum(obs.sigma, np.maximum(rho * obs.sigma, self.still_sigma_floor_mm))
        return replace(obs, sigma=sig, attributes=dict(obs.attributes))

    def appeared_in(self, flick: Flick, obs: Observation) -> str | None:
        """Why the token of an announced throw (``flick.armed``) in which no token was seen moving
        or lost landed unseen: an unnamed piece in the settled Observation ``obs`` first seen after
        the pieces were last all at rest (:meth:`t0`), not lying where a named racer unseen now
        rested (that racer, put down again or taken for another kind, or the Egg in its thrower's
        place); None when there is none (a racer moved by hand is no throw)."""
        if not flick.armed:
            return None
        racers = self.racer_names()
        t_lo = self.t0(flick)
        seen = {int(t) for t in obs.track_id if t >= 0}
        gone = [tr for tr in self.tracker.tracks.values() if tr.name and tr.name in racers and tr.id not in seen]
        for i, tid in enumerate(obs.track_id):
            tr = self.tracker.tracks.get(int(tid))
            if tr is None or tr.name or tr.t[0] <= t_lo + 1e-9:
                continue
            xy = np.asarray(obs.xy[i], dtype=float)
            if any(float(np.hypot(*(xy - self._rest_xy(flick, g)[0]))) <= g.radius + float(obs.radius[i]) for g in gone):
                continue
            return f"a {obs.kind[i]} appeared at ({xy[0]:.0f}, {xy[1]:.0f}) mm during the motion, no token seen moving"
        return None

    def still_sigma(self, pts, claimed: float) -> float:
        """One sample's σ (mm) for comparing a piece's places at rest with each other: the spread of
        its rest samples ``pts`` ((n, 2) mat mm) as an upper bound (``still_sigma_p``; the χ² of
        2(n − 1) degrees of freedom), within ``still_sigma_floor_mm`` .. ``claimed`` (the σ the
        detector gives, which a detector repeating itself exactly overstates for a displacement)."""
        from scipy.special import chdtri

        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        n = len(pts)
        if n < 3:
            return float(claimed)
        dof = 2 * (n - 1)
        ss = float(((pts - pts.mean(axis=0)) ** 2).sum())
        upper = np.sqrt(ss / chdtri(dof, 1.0 - self.still_sigma_p))
        return float(min(float(claimed), max(upper, self.still_sigma_floor_mm)))

    def lost_motion(self, obs: Observation) -> str | None:
        """While a throw is awaited and nothing is seen moving: why a throw happened all the same
        (:meth:`session.core.Session.lost_motion`), or None. The projectile's kind is watched:
        a token of it seen at rest (its place: the median of its first samples, mat mm) that is
        unseen ``lost_frames`` frames in a row ("vanished"), or seen again farther from that place
        than the motion's noise allows ("reappeared displaced": a flick too fast for the motion
        test, which loses a piece's history when it drops out for long). A token of that kind that
        appears where none rested is no throw seen (a player putting it down, or one thrown from the
        hand unseen): only motion opens a flick then."""
        exp = self.expecting()
        key = (len(self.flicks), None if exp is None else exp.get("projectile"))
        if exp is None or exp.get("action") != "throw":
            return None
        w = self._lost_watch
        if w is None or w["key"] != key:
            w = self._lost_watch = {"key": key, "n": 0, "ref": {}, "t0": float(obs.timestamp), "racers": {},
                                    "new": {}}
        w["n"] += 1
        kind = exp.get("projectile", "")
        k = self.motion.config.k
        why = None
        seen = set()
        racers = self.racer_names()
        for i, tid in enumerate(obs.track_id):
            tid = int(tid)
            if tid < 0 or obs.kind[i] not in PROJECTILES or (kind and obs.kind[i] != kind):
                continue
            tr = self.tracker.tracks.get(tid)
            if tr is not None and tr.name and tr.name in racers:  # a racer taken for a token
                continue
            seen.add(tid)
            xy, sig = np.asarray(obs.xy[i], dtype=float), float(obs.sigma[i])
            r = w["ref"].get(tid)
            if r is None:
                w["ref"][tid] = r = {"pts": [], "last": w["n"], "off": 0}
            d = self._rest_watch(r, xy, sig)
            if r["off"] and (r["off"] >= self.displaced_frames or d > max(self.motion.config.min_mm, k * np.sqrt(2.0) * sig)):
                why = f"the {obs.kind[i]} reappeared {d:.0f} mm from where it rested"
            r["last"] = w["n"]
        for tid, r in w["ref"].items():
            if tid not in seen and len(r["pts"]) >= 3 and w["n"] - r["last"] >= self.lost_frames:
                why = why or "the projectile vanished from where it rested"
        return why or self._appeared(obs, w)

    def _rest_watch(self, r: dict, xy: np.ndarray, sig: float) -> float | None:
        """One frame of a piece watched at rest (``r``: its rest samples ``pts`` and ``off``, the
        frames in a row it was seen displaced beyond the detector's repeatability there,
        :meth:`still_sigma` of the samples within the claimed σ ``sig``): ``off`` updated, ``xy``
        (mat mm) kept as a rest sample while it is not displaced and fewer than ``still_samples``
        are; its distance (mm) from the samples' median, None before three samples."""
        d = None
        if len(r["pts"]) >= 3:
            d = float(np.hypot(*(xy - np.median(r["pts"], axis=0))))
            limit = max(self.motion.config.min_mm, self.motion.config.k * np.sqrt(2.0) * self.still_sigma(r["pts"], sig))
            r["off"] = r["off"] + 1 if d > limit else 0
        if not r["off"] and len(r["pts"]) < self.still_samples:
            r["pts"].append(xy)
        return d

    def _appeared(self, obs: Observation, w: dict) -> str | None:
        """:meth:`lost_motion`'s watch of a piece appearing by a racer disturbed (``APPEARED``): the
        reason, or None; the appeared piece's track is kept in ``_appeared_tid``."""
        n = w["n"]
        racers = self.racer_names()
        at = {int(t): i for i, t in enumerate(obs.track_id) if t >= 0}
        for tr in self.tracker.tracks.values():
            if not tr.name or tr.name not in racers or tr.retired:
                continue
            r = w["racers"].setdefault(tr.id, {"pts": [], "off": 0, "gone": 0, "at": None})
            i = at.get(tr.id)
            if i is None:
                r["gone"] += 1
                if r["gone"] >= self.lost_frames and len(r["pts"]) >= 3 and r["at"] is None:
                    r["at"], r["how"] = n, "unseen"
                continue
            r["gone"] = 0
            self._rest_watch(r, np.asarray(obs.xy[i], dtype=float), float(obs.sigma[i]))
            if r["off"] >= self.displaced_frames and r["at"] is None:
                r["at"], r["how"] = n, "displaced"
        if not self._armed:
            return None
        m = self.lost_back_frames
        for i, tid in enumerate(obs.track_id):
            tr = self.tracker.tracks.get(int(tid))
            if tr is None or tr.name or tr.t[0] <= w["t0"] + 1e-9:
                continue
            first = w["new"].setdefault(tr.id, n)
            if len(tr.t) < m or n - first < m - 1:
                continue
            last = np.asarray(tr.xy[-m:], dtype=float)
            if np.hypot(*(last - np.median(last, axis=0)).T).max() > 3.0 * np.sqrt(2.0) * float(obs.sigma[i]):
                continue  # (not still yet)
            for rid, r in w["racers"].items():
                if r["at"] is None or abs(r["at"] - first) > self.appear_frames or len(r["pts"]) < 3:
                    continue
                d = float(np.hypot(*(last[-1] - np.median(r["pts"], axis=0))))
                if r["how"] == "unseen" and d <= self.tracker.tracks[rid].radius + float(obs.radius[i]):
                    continue  # a piece put down where a racer was lifted (the Egg takes its thrower's place)
                if d <= self.appear_reach_mm:
                    self._appeared_tid = int(tid)
                    return (f"{self.APPEARED}: a {obs.kind[i]} at ({last[-1][0]:.0f}, {last[-1][1]:.0f}) mm, "
                            f"{self.tracker.tracks[rid].name} {d:.0f} mm from it {r['how']}")
        return None

    def lost_settled(self, flick: Flick) -> bool:
        """A flick opened by a lost token is over once the projectile's kind has been seen still
        ``lost_back_frames`` frames (it is back on the mat), or nothing moved for ``lost_gone_s``."""
        if flick.still_frames * self._frame_s(flick) >= self.lost_gone_s:
            return True
        if flick.opened_by.startswith(self.APPEARED):  # (it was seen still before the flick opened)
            return flick.still_frames >= 1
        kind = flick.expected.get("projectile", "")
        last = flick.frames[-self.lost_back_frames:]
        if len(last) < self.lost_back_frames or flick.still_frames < self.lost_back_frames:
            return False
        return all(any(k in PROJECTILES and (not kind or k == kind) for k in f.obs.kind) for f in last)

    @staticmethod
    def _frame_s(flick: Flick) -> float:
        ts = [f.t for f in flick.frames[-8:]]
        return float(np.median(np.diff(ts))) if len(ts) > 1 else 1 / 30

    def _token_tracks(self, flick: Flick) -> tuple[list, list]:
        """(the tracks of the projectile's kind seen in ``flick``'s frames, one that vanished before
        it opened too; those of them seen at least three times before it): a track named for a
        racer is none (a racer the detector takes for a token is no token)."""
        kind = flick.expected.get("projectile", "")
        t_first = float(flick.frames[0].t) if flick.frames else self.t0(flick)
        racer_names = self.racer_names()
        tracks = [tr for tr in self.tracker.tracks.values() if tr.t and tr.t[-1] >= t_first
                  and tr.kind in PROJECTILES and (not kind or tr.kind == kind) and not (tr.name and tr.name in racer_names)]
        return tracks, [tr for tr in tracks if sum(t < flick.t_start for t in tr.t) >= 3]

    def lost_samples(self, flick: Flick):
        """The projectile's samples when no track of it was seen moving but the detector lost it
        (vanished from where it rested before the flick, or reappeared away from there beyond the
        motion's noise): (:class:`ThrowSamples` of the tokens of its kind in time order (one per
        frame: the resting one, then those seen after it was last seen), its kind, radius mm, why);
        None when none was lost (it is still where it rested) or none rested before the flick."""
        tracks, rested = self._token_tracks(flick)
        if not tracks:
            return None
        t_last = float(flick.frames[-1].t) if flick.frames else flick.t_start
        dt = self._frame_s(flick)
        later = [tr for tr in tracks if tr not in rested]
        if not rested:  # none rested: one that appears is no throw seen
            return None
        why = None
        tr0 = max(rested, key=lambda tr: len(tr.t))
        t0, xy0 = tr0.trajectory()
        pre = t0 < flick.t_start
        rest = np.median(xy0[pre], axis=0)
        if t0[-1] < t_last - (self.lost_frames - 0.5) * dt:
            why = "it vanished from where it rested"
        sig = [float(fr.obs.sigma[k[0]]) for fr in flick.frames if len(k := np.flatnonzero(fr.obs.track_id == tr0.id))]
        sig = float(np.median(sig)) if sig else self._rest_sigma()
        off = np.hypot(*(xy0[~pre] - rest).T) if (~pre).any() else np.zeros(0)
        if len(off) and float(off.max()) > max(self.motion.config.min_mm, self.motion.config.k * np.sqrt(2) * sig):
            why = why or f"it reappeared {float(off.max()):.0f} mm from where it rested"
        # displaced beyond the detector's repeatability at rest (:meth:`lost_motion`): the rest from
        # its samples before those that opened the flick (the last ``displaced_frames`` − 1 before it)
        n_ref = int(pre.sum()) - (self.displaced_frames - 1)
        if why is None and n_ref >= 3:
            ref = xy0[:n_ref][-self.still_samples:]
            p_ref = np.median(ref, axis=0)
            off = np.hypot(*(xy0[n_ref:] - p_ref).T)
            limit = max(self.motion.config.min_mm, self.motion.config.k * np.sqrt(2) * self.still_sigma(ref, sig))
            if len(off) >= self.displaced_frames and float(np.sort(off)[-self.displaced_frames]) > limit:
                rest = p_ref
                why = f"it was displaced {float(off.max()):.0f} mm from where it rested"
        if why is None:
            return None
        # the resting one, then those of its kind seen after it was last seen (where it reappeared)
        tracks = [tr0] + [tr for tr in later if tr.t[0] > t0[-1] - 1e-9]
        rows = {}
        for fr in flick.frames:
            for tr in tracks:
                k = np.flatnonzero(fr.obs.track_id == tr.id)
                if len(k) and fr.index not in rows:
                    i = k[0]
                    rows[fr.index] = (fr.t, fr.obs.xy[i], fr.obs.height[i], fr.obs.sigma[i], fr.obs.angle[i],
                                      fr.obs.size[i], tr)
        rows = [rows[i] for i in sorted(rows)]
        tr = rows[-1][6] if rows else tracks[0]
        radius = float(tr.radius)
        if not rows:
            return None
        t = np.array([r[0] for r in rows], dtype=float)
        size = rows[-1][5]
        before = t < flick.t_start
        i_launch = int(before.sum()) if before.any() else 0
        s = ThrowSamples(t, np.array([r[1] for r in rows], dtype=float), np.zeros(len(t)),
                         np.array([r[3] for r in rows], dtype=float), np.array([r[4] for r in rows], dtype=float),
                         tuple(size) if size[0] > 0 else None, min(i_launch, len(t) - 1),
                         float(t[max(i_launch - 1, 0)]) if before.any() else float(flick.t_start))
        return s, tr.kind, radius, why

    def lost_verdicts(self, flick: Flick, s: ThrowSamples, kind: str, radius: float, racers) -> tuple[list, list]:
        """The verdicts on a throw whose token the detector lost (:meth:`lost_samples`): its places
        as seen, without heights (:meth:`heightless_reach`: the camera rays up to the kind's
        highest; where frames went without it, as far as it can have gone unseen; from before the
        first sample (its start unseen), from anywhere it can have come from), each racer called by
        :meth:`racer_call_heightless`. With fewer than two samples, every racer is asked."""
        racer_h = self.specs.piece(GAME, "racer").height
        rest_q = {r.id: self._rest_xy(flick, r) for r in racers}
        if len(s.t) < 2:
            return self.ordered_verdicts(flick, [RacerCall(r.name, 0.0, None, 1.0, "token lost", None) for r in racers])
        t_end = float(flick.frames[-1].t) if flick.frames else float(s.t[-1])
        reach = self.heightless_reach(s, kind, radius, t_end, touch_h=racer_h)
        if s.t[0] >= flick.t_start:  # its start unseen: it can have come from anywhere the throw reaches
            reach.slack = reach.slack.copy()
            reach.slack[0] += self.max_speed_mm_s * max(float(s.t[0]) - self.t0(flick), 2 * self._frame_s(flick))
        elif 0 < s.i_launch < len(s.t) and len(reach.t) and abs(float(reach.t[0]) - float(s.t[s.i_launch - 1])) < 1e-9:
            # seen at rest, then moved: between those two samples it can have gone out to a racer
            # and come back, at any speed a throw has (as a throw followed from rest, :meth:`_start_reach`)
            reach.slack = reach.slack.copy()
            reach.slack[0] += self.max_speed_mm_s * float(s.t[s.i_launch] - s.t[s.i_launch - 1]) / 2
        return self.ordered_verdicts(flick, [self.racer_call_heightless(reach, r, rest_q, radius, s.size)
                                             for r in racers])

    # -- stage 3, for a detector that does not measure heights -------------------------------------
    # The highest a thrown token's base goes above the mat (mm), by kind, with a margin: the
    # rulebook's throws as the simulator draws them (sim/config.yaml ``dodo-dash.projectiles``):
    # the Meteorite dropped from at most 400 mm, the Log from 70 mm, the Feather from 120 mm thrown
    # up at ≤ 700 mm/s (+25 mm), the Banana from 250 mm at ≤ 500 mm/s up (+13 mm), the Dodo from
    # 150 mm at ≤ 600 mm/s up (+18 mm); the Egg is flicked along the mat. A landing keeps part of
    # the horizontal speed only (no bounce up). A kind not listed: the highest of them.
    throw_height_max_mm = {"meteorite": 500.0, "log": 100.0, "egg": 0.0, "feather": 200.0, "banana": 330.0,
                           "dodo": 220.0}

    def measures_height(self) -> bool:
        """Whether the detector measures a token's height above the mat (its ``measures_height``;
        False when it does not say: a detector that reports every piece at its spec height)."""
        return bool(getattr(self.detector, "measures_height", False))

    def throw_height_max(self, kind: str) -> float:
        """The highest (mm) a thrown token of ``kind`` goes above the mat (``throw_height_max_mm``)."""
        return float(self.throw_height_max_mm.get(kind, max(self.throw_height_max_mm.values())))

    touch_margin_mm = 5.0  # a token's base this little above a racer's top may still touch it

    def heightless_reach(self, s: ThrowSamples, kind: str, radius: float, t_end: float,
                         touch_h: float | None = None) -> HeightlessReach:
        """Where the token (of ``kind``, a disc of ``radius`` mm or the samples' box) can have been
        from its launch on, when the detector places it as if on the mat (``s.zb`` unknown): each
        sample's true place lies on the camera ray through it, between its place at elevation 0 and
        at :meth:`throw_height_max` (``self.transform``; without one, anywhere within that height
        of it: a 45° ray in any direction). Between two samples the token is in the hull of their
        two rays; where frames went without it, it can have strayed by ``max_speed_mm_s`` times
        half the time unseen, unless the fall was fitted through the samples on both sides of the
        gap (a ballistic flight there: a touch would have turned it). Once it is seen at rest
        (:meth:`_final_rest`) it is on the mat: from the first sample at rest on, its place is the
        sample's; when it is not seen at rest, it can have gone on unseen until ``t_end`` (s).

        With ``touch_h`` (mm, a racer's height) only the places where the token's base was low
        enough to touch a racer (``touch_h`` + ``touch_margin_mm``) are kept: between two samples
        it moves along the straight chord between its true places (on the two rays, in 3D) or
        above it (a fall bends down from its chord), so where it was that low lies in the part of
        the two rays' hull below that height (:func:`_span_low_part`).

        Where the fall was fitted (:meth:`fall_spans`: a ballistic flight then the mat, along the
        camera rays, gravity known) each sample's ray is only the stretch of elevations the fits
        allow (their heights ± k σ), not 0 to the highest; a stretch between two samples both
        above a racer's reach is left out (the token passed over it)."""
        h = self.throw_height_max(kind)
        t, xy, sig = s.t, s.xy, s.sig
        i0 = max(s.i_launch - 1, 0)
        rest = self._final_rest(s)
        n = len(t)
        # each sample's elevations: its whole ray, or as the fall's fit narrows it (:meth:`fall_spans`)
        lo, elev, kept = self.fall_spans(s, kind, rest)
        # the samples every fit kept spans: a gap between two of them is bridged by the fitted flight,
        # or by the slide after it, but not one the landing fell in (the slide's own velocity is
        # free in the fit: a touch just before the landing, turning the token, fits as well)
        fitted = (max(f["i0"] for f in kept), min(f["i1"] for f in kept)) if kept else (n, -1)
        landing = (min(f["land"] for f in kept), max(f["land"] for f in kept)) if kept else (n, -1)

        def bridged(i: int, j: int) -> bool:
            return fitted[0] <= i and j <= fitted[1] and (j < landing[0] or i >= landing[1])
        if rest is not None:
            lo[rest[4] + 1:] = elev[rest[4] + 1:] = 0.0  # (the first sample at rest may still be coming down its ray)
        top, bot = xy.copy(), xy.copy()
        slack_pt = np.zeros(n)
        u = self.rays(s, kind)  # (the detector's plane: the token's middle; the ray's run per mm up)
        if u is not None:
            top, bot = xy + elev[:, None] * u, xy + lo[:, None] * u
        else:
            slack_pt = elev.copy()
        dt_f = float(np.median(np.diff(t))) if n > 1 else 1 / 30
        pts, ts, sg, slack = [], [], [], []
        h_c = h if touch_h is None else min(h, touch_h + self.touch_margin_mm)
        for i in range(i0, max(n - 1, i0 + 1)):
            j = min(i + 1, n - 1)
            low = _span_low_part(bot[i], lo[i], top[i], elev[i], bot[j], lo[j], top[j], elev[j], h_c)
            if low is None:  # too high to touch anything all the way
                continue
            pts.append(low)
            ts.append(float(t[i]))
            sg.append(float(max(sig[i], sig[j])))
            gap = float(t[j] - t[i])
            slack.append(min(max(slack_pt[i], slack_pt[j]), h_c)
                         + (self.max_speed_mm_s * gap / 2 if gap > 1.5 * dt_f and not bridged(i, j) else 0.0))
        if rest is None and t_end > t[-1]:  # not seen at rest: it went on unseen (at any height)
            far = xy[-1] + h * u[-1] if u is not None else xy[-1]
            pts.append(_span_low_part(xy[-1], 0.0, far, h, xy[-1], 0.0, far, h, h))
            ts.append(float(t[-1]))
            sg.append(float(sig[-1]))
            slack.append(slack_pt[-1] + self.max_speed_mm_s * (t_end - float(t[-1])))
        # a box token the detector gave no box for (the classical path's log) reaches as far as its
        # kind's own box at any angle: its width alone had kept it 13 mm short of a racer it struck
        size = s.size if s.size is not None else (tuple(self.specs.piece(GAME, kind).size) or None)
        foot = _footprint(radius, size)
        return HeightlessReach(np.array(pts, dtype=float), np.array(ts), np.array(sg), np.array(slack),
                               None if rest is None else rest[:4], foot, h)

    # The fall seen along the camera rays (:meth:`fall_fit`): at least this many samples from the
    # launch on are fitted as a ballistic flight then the mat, the best fit accepted when its χ² is
    # this likely at least; the fitted heights' σ is scaled by ``fall_sigma_scale`` (what the fit
    # misses by beyond its σ, the detector placing a token in the air off its ray: measured on
    # tuning throws, the simulator's heights against the fit's)
    fall_min_samples = 4
    fall_p_min = 0.01
    fall_sigma_scale = 2.0  # (seeds 0 and 1 of dodo-dash/throws, the real detector: the best fit's |z| p90 1.5, p99 2.4-2.7)

    def rays(self, s: ThrowSamples, kind: str) -> np.ndarray | None:
        """(n, 2) mat mm the camera ray through each sample moves per mm its token's base is above
        the mat (the detector places it as if on the mat: its true place is ``xy + z · u``); None
        without a transform."""
        if self.transform is None:
            return None
        spec = self.specs.of_game(GAME).get(kind)
        h_ref = spec.height / 2.0 if spec is not None else 0.0
        dz = 100.0
        top = self.transform.image_to_mat(self.transform.mat_to_image(s.xy, h_ref), h_ref + dz)
        return (top - s.xy) / dz

    def fall_fit(self, s: ThrowSamples, u: np.ndarray, i0: int, land: int, i_end: int, t_land: float) -> dict | None:
        """A ballistic flight from sample ``i0`` landing at ``t_land`` s (after sample ``land − 1``,
        by sample ``land``), then on the mat until sample ``i_end`` (inclusive), fitted to the
        samples as seen along their camera rays ``u`` (:meth:`rays`), mat mm and s. In the air the
        base is at ``X0 + V·τ`` and ``z(τ) = vz·(τ − τ_L) − g·(τ² − τ_L²)/2`` mm up (it is 0 at the
        landing; τ from the flight's mean time), seen at ``X − z·u``; on the mat it is seen where it
        is, going on from the landing place at its own velocity (and deceleration, with three
        samples or more on the mat: one a slide cannot have, turning or speeding up, rules the fit
        out, :meth:`_slides`), these within ``max_speed_mm_s`` and ``max_slide_decel_mm_s2`` (1 σ,
        a prior: one sample on the mat says nothing of where it landed). Each sample's σ is its ``sig``; linear least squares; the heights'
        σ is the fit's times ``fall_sigma_scale``. {"z": (m,) heights at samples i0..i_end, "z_sigma": their σ from the
        fit's covariance, "chi2", "dof"}; None when the fit is singular or no slide."""
        fl = np.arange(i0, land)
        mat = np.arange(land, i_end + 1)
        m = len(fl) + len(mat)
        if len(fl) < 2:
            return None
        tc = float(s.t[fl].mean())
        tau, tl = s.t[fl] - tc, t_land - tc
        dm = s.t[mat] - t_land
        n_s = 1 if len(mat) < 3 else 2  # the slide's velocity (and deceleration)
        npar = 5 + 2 * n_s  # X0 (2), V (2), vz, slide terms
        A = np.zeros((2 * m + 2 * n_s, npar))  # (and the slide's bounds, as a prior)
        b = np.zeros(2 * m + 2 * n_s)
        g = self.g_mm_s2
        uu = u[fl]
        zk = -0.5 * g * (tau ** 2 - tl ** 2)  # the height's known part
        for c in range(2):
            r = slice(c, 2 * len(fl), 2)
            A[r, c] = 1.0
            A[r, 2 + c] = tau
            A[r, 4] = -(tau - tl) * uu[:, c]
            b[r] = s.xy[fl, c] + zk * uu[:, c]
            r = slice(2 * len(fl) + c, 2 * m, 2)
            A[r, c] = 1.0
            A[r, 2 + c] = tl
            for d in range(n_s):
                A[r, 5 + 2 * d + c] = dm ** (d + 1)
            b[r] = s.xy[mat, c]
        for d in range(n_s):  # slide speed within the fastest throw, deceleration within friction's
            for c in range(2):
                A[2 * m + 2 * d + c, 5 + 2 * d + c] = 1.0
        sig = np.maximum(np.concatenate([s.sig[fl], s.sig[mat]]), 1e-3)
        w = np.concatenate([np.repeat(1.0 / sig, 2),
                            np.repeat([1.0 / self.max_speed_mm_s, 2.0 / self.max_slide_decel_mm_s2][:n_s], 2)])
        Aw, bw = A * w[:, None], b * w
        N = Aw.T @ Aw
        if np.linalg.cond(N) > 1e12:
            return None
        C = np.linalg.inv(N)
        th = C @ (Aw.T @ bw)
        chi2 = float(((Aw[:2 * m] @ th - bw[:2 * m]) ** 2).sum())
        if n_s == 2 and not self._slides(th[5:7], 2.0 * th[7:9], 4.0 * C[7:9, 7:9]):
            return None
        z = np.zeros(m)
        zs = np.zeros(m)
        z[:len(fl)] = th[4] * (tau - tl) + zk
        zs[:len(fl)] = np.abs(tau - tl) * np.sqrt(max(C[4, 4], 0.0)) * self.fall_sigma_scale
        return {"z": z, "z_sigma": zs, "chi2": chi2, "dof": 2 * m - npar, "i0": i0, "land": land, "i1": i_end,
                "t_land": t_land}

    fall_land_steps = 4  # landing instants tried between two samples

    def _slides(self, v, a, cov_a) -> bool:
        """Whether a token on the mat going at ``v`` (2,) mm/s with acceleration ``a`` (2,) mm/s²
        (its covariance ``cov_a``) can be sliding: slowing along its line by at most
        ``max_slide_decel_mm_s2`` and turning by at most ``max_slide_turn_mm_s2``, within k σ."""
        k = self.referee.k
        speed = float(np.hypot(*v))
        if speed < 1e-6:
            return True
        e = np.asarray(v, float) / speed
        n = np.array([-e[1], e[0]])
        a_par, a_perp = float(a @ e), float(a @ n)
        s_par, s_perp = float(np.sqrt(max(e @ cov_a @ e, 0.0))), float(np.sqrt(max(n @ cov_a @ n, 0.0)))
        return (abs(a_perp) - self.max_slide_turn_mm_s2 <= k * s_perp and a_par <= k * s_par
                and -a_par - self.max_slide_decel_mm_s2 <= k * s_par)

    def fall_spans(self, s: ThrowSamples, kind: str, rest=None) -> tuple[np.ndarray, np.ndarray, list]:
        """(lo, hi) (n,) mm: the elevations each sample's token can have had: its whole camera ray
        (0 to :meth:`throw_height_max`) unless the fall is fitted. When the token is seen at rest
        after the launch (its last three samples, all after the launch, agree within 3 σ: no
        flight stays so still), the samples from the launch to the first of that still run (or the
        first at rest, ``rest``: :meth:`_final_rest`) and two more are fitted as a ballistic flight then the mat (:meth:`fall_fit`), for every sample
        it can have landed by and ``fall_land_steps`` instants before it; the flights whose χ² is
        within k² (the referee's k) of the best one's, the best being likely (``fall_p_min``), are
        kept, and each sample's span is the union of their heights ± σ·√(k² − Δχ²) there (the
        k-σ confidence region of the fits together), within 0..the highest. And the fits kept (empty: none). A curving throw (the Feather) is not ballistic
        across the mat and is not fitted."""
        h = self.throw_height_max(kind)
        n = len(s.t)
        lo, hi = np.zeros(n), np.full(n, h)
        u = self.rays(s, kind)
        # the first sample of the still run the samples end with (at least three, all after the launch)
        p_end = np.median(s.xy[-3:], axis=0)
        still = np.hypot(*(s.xy - p_end).T) <= 3.0 * np.sqrt(2.0) * s.sig
        i_end = n - int(np.argmin(still[::-1])) if not still.all() else 0
        if rest is not None:
            i_end = min(i_end, rest[4])
        if n - i_end < 3 or i_end <= s.i_launch:
            return lo, hi, []
        i_end += 2  # (and two still: where its slide ended; a longer rest is no slide)
        if u is None or kind in CURVING or h <= 0:
            return lo, hi, []
        i0 = s.i_launch
        if i_end - i0 < self.fall_min_samples:
            return lo, hi, []
        fits = []
        for land in range(i0 + 2, i_end + 1):
            for t_l in np.linspace(s.t[land - 1], s.t[land], self.fall_land_steps + 1)[1:]:
                f = self.fall_fit(s, u, i0, land, i_end, float(t_l))
                if f is not None and f["dof"] > 0:
                    fits.append(f)
        if not fits:
            return lo, hi, []
        k = self.referee.k
        best = min(fits, key=lambda f: f["chi2"])
        if chi2_sf(best["dof"], best["chi2"]) < self.fall_p_min:
            return lo, hi, []
        kept = [f for f in fits if f["chi2"] <= best["chi2"] + k * k]
        a = np.full(i_end - i0 + 1, np.inf)
        b = np.full(i_end - i0 + 1, -np.inf)
        for f in kept:  # (the k-σ region of all the fits together, seen at each sample's height)
            w = np.sqrt(max(k * k - (f["chi2"] - best["chi2"]), 0.0)) * f["z_sigma"]
            a = np.minimum(a, f["z"] - w)
            b = np.maximum(b, f["z"] + w)
        lo[i0:i_end + 1] = np.clip(a, 0.0, h)
        hi[i0:i_end + 1] = np.clip(b, 0.0, h)
        lo[i_end + 1:] = hi[i_end + 1:] = 0.0  # (still after it: at rest on the mat)
        return lo, hi, kept

    rest_min_samples = 4  # a token seen still this many frames at the end has come to rest on the mat

    def _final_rest(self, s: ThrowSamples):
        """(place (2,) mm, σ mm, angle radians, t s, index of the first sample) of the token at rest
        at the end of the throw: the samples after the launch that stay within 3 σ of the last
        three's median (at least ``rest_min_samples``); None when it was not seen so."""
        t, xy, sig = s.t, s.xy, s.sig
        n = len(t)
        if n - s.i_launch < self.rest_min_samples + 1:
            return None
        p_end = np.median(xy[-3:], axis=0)
        off = np.hypot(*(xy - p_end).T) > 3.0 * np.sqrt(2) * sig
        if not off.any():
            return None
        i_rest = n - int(np.argmax(off[::-1]))
        if i_rest <= s.i_launch or n - i_rest < self.rest_min_samples:
            return None
        p = np.median(xy[i_rest:], axis=0)
        ang = float(np.median(np.unwrap(np.radians(s.ang[i_rest:]))))
        # (σ of one sample: what a detector gets wrong at rest does not average away)
        return p, float(np.median(sig[i_rest:])), ang, float(t[i_rest]), i_rest

    def racer_call_heightless(self, reach: HeightlessReach, r, rest_q: dict, radius: float, size) -> RacerCall:
        """Racer ``r``'s call on a throw seen without heights (``reach``, :meth:`heightless_reach`):
        touched ("came to rest on it") when the token's resting place overlaps it by more than k σ,
        which no height changes; not touched when no place the token can have had comes within k σ
        of it ("out of reach at any height"); else too close to call, from the earliest it could
        have reached it."""
        k = self.referee.k
        q, q_s = rest_q[r.id]
        d = _hull_dist(q, reach.pts) if len(reach.pts) else np.full(0, np.inf)
        gap = d - reach.slack - reach.footprint - r.radius
        sig = np.hypot(reach.sig, q_s)
        near = np.flatnonzero(gap <= k * sig)
        t_first = float(reach.t[near[0]]) if len(near) else None
        if reach.rest is not None:
            p, s_p, ang, t_rest = reach.rest
            g_r = float(_gap(p[None], np.array([ang]), size, radius, q[None], r.radius)[0])
            s_r = float(np.hypot(s_p, q_s))
            if -g_r > k * s_r:
                return RacerCall(r.name, -g_r, t_rest, s_r, "came to rest on it", t_first)
        if len(near):
            i = int(near[0])
            return RacerCall(r.name, 0.0, None, float(sig[i]), "within reach, its height unknown", t_first)
        if not len(gap):
            return RacerCall(r.name, 0.0, None, 1.0, "not seen after the launch", None)
        i = int(np.argmin(gap / sig))
        return RacerCall(r.name, -float(gap[i]), float(reach.t[i]), float(sig[i]), "out of reach at any height", None)

    # -- stage 3b: the token's spin ------------------------------------------------------------------
    def angle_sigma_deg(self) -> float | None:
        """One angle sample's σ (degrees): the detector's ``angle_sigma_deg``; None when it declares
        none (it does not read a token's orientation: the spin gives no evidence)."""
        sigma = getattr(getattr(self.detector, "config", None), "angle_sigma_deg", None)
        return None if sigma is None else float(sigma)

    def spin_changes(self, path: ThrowPath) -> list:
        """[(t0, t1 s, the change radians/s, counter-clockwise as drawn > 0)]: where the token's spin
        (its angle's rate between two samples, radians/s) changed as nothing but a touch can change
        it, in time order. In the air nothing turns the token: its spin stays as it was (first as
        thrown: the rate between the first two samples after the release); on the mat friction only
        slows it. A rate that differs from the one before in the air, or is faster than it anywhere,
        by more than k σ (σ of the difference of two rates from the angle samples) was a touch of
        another piece before the sample after that stretch (``t1``); it began where the rates before
        it last agreed with the one before within σ (``t0``; from the sample before that one's
        stretch when the first after it already differs). After a change, the rate just after it
        is the one before the next. A box's angle is known up to a half turn. None when the detector
        does not read the token's orientation (:meth:`angle_sigma_deg`)."""
        s = path.samples
        i0 = s.i_launch
        if len(s.t) - i0 < 3 or self.angle_sigma_deg() is None:
            return []
        a = np.unwrap(np.radians(s.ang), period=np.pi if s.size is not None else 2 * np.pi)
        dt = np.maximum(np.diff(s.t), 1e-6)
        w = np.diff(a) / dt  # the rate over each stretch between two samples
        k = self.referee.k
        sa = np.radians(self.angle_sigma_deg())

        def off(b, j) -> float:  # how far (in σ) the rate over stretch j is from what stretch b's allows
            if j == b + 1:  # (the two rates share a sample)
                s_w = sa * float(np.sqrt(1 / dt[b] ** 2 + (1 / dt[b] + 1 / dt[j]) ** 2 + 1 / dt[j] ** 2))
            else:
                s_w = sa * float(np.sqrt(2.0) * np.hypot(1.0 / dt[b], 1.0 / dt[j]))
            in_air = path.t_land is not None and s.t[j + 1] <= path.t_land
            return max(abs(w[j]) - abs(w[b]), abs(w[j] - w[b]) if in_air else 0.0) / s_w

        out, b, j = [], i0, i0 + 1
        while j < len(w):
            if off(b, j) > k:
                j0 = j
                while j0 > b + 1 and off(b, j0 - 1) > 1.0:
                    j0 -= 1
                t0 = float(s.t[max(b - 1, 0)]) if j0 == b + 1 else float(s.t[j0])
                out.append((t0, float(s.t[j + 1]), float(w[j] - w[b])))
                b, j = j + 1, j + 2
            else:
                j += 1
        return out

    def spin_touch(self, path: ThrowPath, calls: list, racers, rest_q: dict, radius: float, spins=None,
                   turns=()) -> list:
        """``calls`` (:class:`RacerCall`, one per racer of ``racers``, at rest at ``rest_q``) with the
        token's spin changes (``spins``, :meth:`spin_changes` when None) as touches: when one racer
        alone can have been touched while it changed, that racer was touched (a categorical touch,
        1.5 k σ, from when it can have been); when several can and none surely was, one of them
        was, which is unsure.
        A racer can have been touched where the path came within k σ of it with the token's base
        below its top (σ the samples' there, at least: the fit, which knows of no touch, is no
        surer than the samples where one bent the path), or within what the token can have strayed
        off it between two samples (it never speeds up — it went at least as fast as the fits and
        the chords between samples say — so it stays inside the ellipse whose foci are its places
        at the two samples and whose string is how far it can go between them, and never outside
        it) — but not, in an overlap that began more than k σ above its top, while it is not surely
        below the top (coming over it, the token touches it only once it comes down onto it or its
        edge). A round token turns the way the friction of its edge sliding past the racer turns it
        (:meth:`_turn_sense`): of several racers, those that would clearly have turned it the other
        way did not — unless the token's way turned while its spin changed (one of ``turns``, (t0,
        t1) s: :attr:`ThrowEvents.turns`) where one of those can have been touched too: the way it
        came in is then no way it touched them by. A call already sure either way stays, but for a
        "no" resting on where the path (or the landing) came closest while the spin changed."""
        out = list(calls)
        for ch in (self.spin_changes(path) if spins is None else spins):
            out = self._spin_touch_at(path, ch, out, racers, rest_q, radius, turns)
        return out

    def _spin_touch_at(self, path: ThrowPath, ch: tuple, calls: list, racers, rest_q: dict, radius: float,
                       turns=()) -> list:
        """``calls`` with the spin change ``ch`` (:meth:`spin_changes`) as a touch (:meth:`spin_touch`)."""
        k = self.referee.k
        T, P, S, A, Z, low, size = path.T, path.P, path.S, path.A, path.Z, path.low, path.samples.size
        racer_h = self.specs.piece(GAME, "racer").height
        t = path.samples.t
        m = (T >= ch[0]) & (T <= ch[1])
        if m.sum() < 2 or not low[m].any():
            return calls
        # how far the token can have strayed off the path between two samples unseen: it never
        # speeds up (the fastest a fit of the path had it, up to the change), so between samples
        # a and b it was within the ellipse of foci a, b whose string is what it can travel
        moving = [sg for sg in path.segs if not _waypoint(sg) and sg.degree >= 1 and sg.t0 <= ch[1]]
        # (and at least as fast as it went from one sample to the next, up to the change: a lone
        # sample's chords are fitted by no segment)
        i0, i1 = path.samples.i_launch, int(np.searchsorted(t, ch[1], side="right"))
        chords = np.hypot(*np.diff(path.samples.xy[max(i0 - 1, 0):i1], axis=0).T) / np.maximum(
            np.diff(t[max(i0 - 1, 0):i1]), 1e-6)
        speed = max([float(np.hypot(*sg.vel(sg.t0)[0])) for sg in moving] + [0.0] + chords.tolist())
        i_s = np.clip(np.searchsorted(t, T, side="right") - 1, 0, len(t) - 2)
        pa, pb = np.interp(t[i_s], T, P[:, 0]), np.interp(t[i_s + 1], T, P[:, 0])
        qa, qb = np.interp(t[i_s], T, P[:, 1]), np.interp(t[i_s + 1], T, P[:, 1])
        half_l = speed * (t[i_s + 1] - t[i_s]) / 2
        stray = np.sqrt(np.maximum(half_l ** 2 - (np.hypot(pb - pa, qb - qa) / 2) ** 2, 0.0))
        # (a touch bent the path where the spin changed: there the fit, which knows of no touch,
        # is no surer than the samples it went through)
        S_touch = np.maximum(S, np.interp(T, t, path.samples.sig))
        # ... and never outside that ellipse, wherever the fit is drawn (carried on past the last
        # sample before an event, the fit can leave it): a racer out of touch of the whole ellipse
        # (its centre's summed distance to the foci, less the string, halved) was not touched there
        # (σ the foci's: the fit's and the samples' there)
        foot = _footprint(radius, size)
        s_foci = np.maximum(np.interp(t[i_s], T, S_touch), np.interp(t[i_s + 1], T, S_touch))
        near = []
        for i, r in enumerate(racers):
            q, q_s = rest_q[r.id]
            g = _gap(P, A, size, radius, np.broadcast_to(q, P.shape), r.radius)
            g_ell = (np.hypot(q[0] - pa, q[1] - qa) + np.hypot(q[0] - pb, q[1] - qb)) / 2 - half_l - foot - r.radius
            can = m & low & (g <= stray + k * np.hypot(S_touch, q_s)) & (g_ell <= k * np.hypot(s_foci, q_s))
            over = g <= 0
            for a0 in np.flatnonzero(over & ~np.concatenate([[False], over[:-1]])):
                a1 = a0 + int(np.argmax(~over[a0:])) if (~over[a0:]).any() else len(over)
                if Z[a0] - racer_h > k * self._onset_height_sigma(a0, g, Z, S, q_s, path.z_sigma, path.dt):
                    # over it from above: no touch while it is higher than the top (coming down
                    # while over it, it lands on it or clips its edge)
                    high = Z[a0:a1] - racer_h > -k * path.z_sigma
                    can[a0:a1] &= ~high
            if can.any():
                near.append((i, int(np.argmin(np.where(can, g, np.inf)))))
        if len(near) > 1 and size is None:
            # a round token touching a racer is turned by the friction of its edge sliding along the
            # racer's: the way its sliding goes past the racer's centre says which way it turns.
            # Racers that would have turned it the other way, clearly (not nearly head on), did not
            sense = [(i, j) for i, j in near if self._turn_sense(path, rest_q[racers[i].id][0], j) * ch[2] >= 0]
            # (each racer's way of turning it is read from the way the token came in: where that
            # way turned while the spin changed, a touch of one the way in says turned it the
            # other way, if it can have been, may have turned it this way after the turn)
            turned = any(e0 <= ch[1] and e1 >= ch[0] for e0, e1 in turns)
            if turned and any(calls[i].margin > -k * max(calls[i].sigma, 1e-3) for i, j in near if (i, j) not in sense):
                return calls
            near = sense
        if not near:
            return calls
        if len(near) > 1 and any(calls[i].margin > k * max(calls[i].sigma, 1e-3) for i, _ in near):
            return calls  # (one of them surely touched it: that touch explains the change)
        out = list(calls)
        for i, _ in near:
            c = calls[i]
            # a sure call stays, but for a "no" that rests on where the path came closest, or where
            # it landed: within the samples' reach while the spin changed, the path drawn straight
            # between two samples is no surer than they are, and a touch there is what turned it
            # (a log struck a racer sliding on after its landing: "no" by the landing, tuning seed
            # 4). Several racers within reach, none surely touched: one of them touched it, which
            # is unsure
            in_change = c.margin < 0 and c.t is not None and c.evidence in ("path", "landed on")
            if abs(c.margin) > k * max(c.sigma, 1e-3) and not in_change:
                continue
            t_touch = ch[0] if c.t_first is None else min(max(ch[0], c.t_first), ch[1])
            if len(near) == 1:
                out[i] = replace(c, margin=1.5 * k * c.sigma, t=t_touch, evidence="spun by a touch, beside it alone",
                                 t_first=t_touch)
            elif in_change:
                out[i] = replace(c, margin=0.0, t=t_touch, evidence="spun by a touch, which racer unsure",
                                 t_first=min(t_touch, c.t_first) if c.t_first is not None else t_touch)
        return out

    spin_sense_min = 0.3  # the sine of the angle between the token's way and the racer's centre
    # below which a touch may turn the token either way (nearly head on)

    def _turn_sense(self, path: ThrowPath, q: np.ndarray, j: int, lead_s: float = 0.005) -> int:
        """+1 (counter-clockwise as drawn) or −1: the way a round token at ``path.P[j]`` moving as
        it came in is turned by touching a racer at ``q`` (mat mm): the racer's friction on its
        edge opposes the edge's sliding across the line between the centres; 0 when nearly head on
        (``spin_sense_min``) or not moving. It came in as the path had it over the ``lead_s`` s up
        to the last sample at or before ``path.T[j]``: after it the path is drawn to the next
        sample, which the touch had already turned."""
        t_seen = path.samples.t[path.samples.t <= path.T[j] + 1e-9]
        j_in = j if not len(t_seen) else min(j, max(int(np.searchsorted(path.T, t_seen[-1] + 1e-9)) - 1, 0))
        i = max(j_in - max(int(round(lead_s / path.dt)), 1), 0)
        v = path.P[j_in] - path.P[i]
        n = q - path.P[j]
        nv, nn = float(np.hypot(*v)), float(np.hypot(*n))
        if nv < 1e-6 or nn < 1e-6:
            return 0
        cr = float(n[0] * v[1] - n[1] * v[0]) / (nv * nn)  # sin of the angle from n to v
        if abs(cr) < self.spin_sense_min:
            return 0
        # friction at the contact point (r = R n) against the edge's sliding (v's part across n):
        # torque r × (−v_t) has the sign of −(n × v)
        return -1 if cr > 0 else 1

    # -- stage 4: the verdicts, in the order first touched -----------------------------------------
    def ordered_verdicts(self, flick: Flick, calls: list) -> tuple[list, list]:
        """(one Verdict per :class:`RacerCall` "<mover> touched <racer>", value −margin against 0 at
        the referee's k, racer names in the order first touched). A call too close to call is
        placed at the earliest it can have been touched; confident noes are left out of the order."""
        from referee.core import make_verdicts

        if not calls:
            return [], []
        k = self.referee.k
        unseen = getattr(flick, "_unseen_racers", {})
        # a racer the camera did not see is touched for sure by nothing: where on its hex it stood
        # decides, a person's to say, unless no place on its hex was within the noise of the token
        calls = [replace(c, margin=0.0, evidence=f"not seen by the camera, on hex {unseen[c.racer]}")
                 if c.racer in unseen and c.margin > -k * max(c.sigma, 1e-3) else c for c in calls]
        names = [c.racer for c in calls]
        margins = np.array([c.margin for c in calls])
        sigmas = np.array([max(c.sigma, 1e-3) for c in calls])
        verdicts = make_verdicts([f"{flick.mover} touched {n}" for n in names], value=-margins, threshold=0.0, margin=margins,
                                 sigma=sigmas, k=k, frame_ids=(flick.index_start, flick.index_settle),
                                 detail=[{"racer": c.racer, "t": c.t, "evidence": c.evidence} for c in calls])
        for v, c in zip(verdicts, calls):
            if v.answer == "too_close" and c.t_first is not None:  # touched, if at all, from then on
                v.detail["t"] = c.t_first if v.detail["t"] is None else min(v.detail["t"], c.t_first)
        touched = sorted((v for v in verdicts if v.answer != "no"), key=touch_order)
        # which of the racers touched for sure came first: one that can have been touched before
        # the evidence of the first, or as early (a token landing on two at once), may have come first
        sure = [v for v in touched if v.answer == "yes"]
        if sure and sure[0].detail["t"] is not None:
            t_a = sure[0].detail["t"]
            first_t = {c.racer: c.t_first for c in calls}
            tied = [v.detail["racer"] for v in sure[1:] if first_t[v.detail["racer"]] is not None
                    and first_t[v.detail["racer"]] <= t_a + 1e-9]
            if tied:
                sure[0].detail["tied"] = tied
        return verdicts, [v.detail["racer"] for v in touched]

    @staticmethod
    def ask_tied_first(verdicts) -> list:
        """``verdicts`` (:meth:`ordered_verdicts`) for a projectile that counts only its first
        racer: each racer touched for sure that can have come before the first racer touched for
        sure (its ``tied``) is asked, placed at the first's time ("touched before" it, as
        :meth:`asked_before` asks): which came first the camera cannot tell."""
        first = next((v for v in verdicts if v.detail.get("tied")), None)
        if first is None:
            return list(verdicts)
        tied = set(first.detail["tied"])
        return [replace(v, answer="too_close", detail={
            **v.detail, "t": first.detail["t"],
            "evidence": f"{v.detail['evidence']}; touched as soon as {first.detail['racer']}: which came first"})
            if v.detail["racer"] in tied else v for v in verdicts]

    @staticmethod
    def _onset_height_sigma(i, gap, Z, S, q_s, z_s, dt) -> float:
        """σ (mm) of the token's base height where an overlap began (sample ``i`` of the path): the
        height's own ``z_s``, and the onset's time uncertainty (the path's σ over the rate the gap
        closes) times the fall speed."""
        j = max(i - 1, 0)
        rate = abs(float(gap[i] - gap[j])) / dt
        fall_v = abs(float(Z[i] - Z[j])) / dt
        return float(np.hypot(z_s, float(np.hypot(S[i], q_s)) / max(rate, 1e-6) * fall_v))

    @staticmethod
    def _pushed_off(jn, n_dv, r, rest_q, T, A, size, radius, k) -> bool:
        """Whether racer ``r`` can have turned the token where two fits meet (``jn``): its edge
        within the noise of the token's there, and the turn (unit ``n_dv``) pushing away from it."""
        q, q_s = rest_q[r.id]
        g = float(_gap(jn.xy[None], np.interp([jn.t], T, A), size, radius, q[None], r.radius)[0])
        d = jn.xy - q
        cos = float(d @ n_dv / max(np.hypot(*d), 1e-9))
        return g <= k * float(np.hypot(jn.sigma, q_s)) + 2.0 and cos > 0.3

    @staticmethod
    def _ends(segs, i: int) -> tuple:
        """Segment ``i``'s (start position, start velocity, σ of each) and (end position, end
        velocity, σ of each), mm and mm/s; a one-sample segment (a waypoint) has the chord to the
        segment after as its start velocity and the chord from the one before as its end velocity
        (the directions it left and entered the intervals either side)."""
        sg = segs[i]
        if not _waypoint(sg):
            return (sg.pos(sg.t0)[0], sg.vel(sg.t0)[0], float(sg.pos_sigma(sg.t0)[0]), float(sg.vel_sigma(sg.t0)[0]),
                    sg.pos(sg.t1)[0], sg.vel(sg.t1)[0], float(sg.pos_sigma(sg.t1)[0]), float(sg.vel_sigma(sg.t1)[0]))
        p, s = sg.coef[0], float(np.sqrt(sg.cov[0, 0]))

        def chord(o, forward):
            q = o.pos(o.t0)[0] if forward else o.pos(o.t1)[0]
            to = o.t0 if forward else o.t1
            dt = (to - sg.t0) if forward else (sg.t0 - to)
            if dt <= 0:
                return np.zeros(2), 1e6
            qs = float(o.pos_sigma(to)[0])
            return ((q - p) if forward else (p - q)) / dt, float(np.hypot(qs, s)) / dt

        v_in, sv_in = chord(segs[i - 1], False) if i > 0 else (np.zeros(2), 1e6)
        v_out, sv_out = chord(segs[i + 1], True) if i + 1 < len(segs) else (np.zeros(2), 1e6)
        # arriving: the chord in (else the one out); leaving: the chord out (else the one in). Its
        # start faces the interval before it, which it leaves along the chord out; its end faces
        # the one after, which it enters along the chord in
        if i == 0:
            v_in, sv_in = v_out, sv_out
        if i + 1 == len(segs):
            v_out, sv_out = v_in, sv_in
        return p, v_out, s, sv_out, p, v_in, s, sv_in

    def _rest_xy(self, flick: Flick, track) -> tuple[np.ndarray, float]:
        """(a racer's resting place (2,) mat mm before the flick, its σ mm): the mean of its samples
        in the frames before the motion (else all its samples). Averaging n samples takes away only
        the part of the σ the detector claims that changes from frame to frame (its measured
        :meth:`repeatability` ρ, as a fraction of the claimed σ): what it gets wrong the same way
        every frame (a figure's base placed from its silhouette) stays. σ² = σ_c² (ρ²/n + 1 − ρ²),
        σ_c the median σ the detector claims for those samples (the rest σ where it claims none);
        until ρ is measured on the table, the racer's own samples' spread (:meth:`still_sigma`) over
        σ_c (0 with fewer than three)."""
        cache = flick.__dict__.setdefault("_rest_xy", {})
        if track.id in cache:
            return cache[track.id]
        pts, sig = [], []
        for f in flick.frames:
            if f.t >= flick.t_start:
                break
            k = np.flatnonzero(f.obs.track_id == track.id)
            if len(k):
                pts.append(f.obs.xy[k[0]])
                sig.append(float(f.obs.sigma[k[0]]))
        if not pts:
            _, pts = track.trajectory()
        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        s_c = float(np.median(sig)) if sig else self._rest_sigma()
        rho = self.repeatability()
        if rho is None:
            rho = self.still_sigma(pts, s_c) / s_c if len(pts) >= 3 and s_c > 0 else 0.0
        out = (pts.mean(axis=0), s_c * float(np.sqrt(rho * rho / len(pts) + 1.0 - rho * rho)))
        cache[track.id] = out
        return out

    def _samples(self, flick: Flick, track_id: int, kind: str | None = None):
        """The projectile's samples in the flick: (t, (m, 2) mat mm, top height mm, σ mm, angle deg,
        (length, width) mm or None for a round token). With ``kind`` (the projectile's), the track
        ``track_id`` goes on in the tracks that continue it (:meth:`token_tracks`: the token seen
        for a while as another kind); their tops as the token's (the base as measured)."""
        chain = self.token_tracks(flick, track_id, kind) if kind else [track_id]
        spec_h = {}

        def top_as_token(k_seen: str, h: float) -> float:
            if k_seen == kind or kind is None:
                return h
            if k_seen not in spec_h:
                sp = self.specs.of_game(GAME).get(k_seen)
                spec_h[k_seen] = float(sp.height) if sp is not None else h
            return h - spec_h[k_seen] + float(self.specs.piece(GAME, kind).height)

        rows, size = [], None
        for fr in flick.frames:
            for tid in chain:
                k = np.flatnonzero(fr.obs.track_id == tid)
                if len(k):
                    i = k[0]
                    own = tid == track_id
                    rows.append((fr.t, fr.obs.xy[i], top_as_token(str(fr.obs.kind[i]), float(fr.obs.height[i])),
                                 fr.obs.sigma[i], fr.obs.angle[i] if own else np.nan, fr.obs.size[i]))
                    if own:
                        size = fr.obs.size[i]
                    break
        if len(rows) < 2:
            return None
        size = rows[-1][5] if size is None else size
        ang = np.array([r[4] for r in rows], dtype=float)
        if np.isnan(ang).any():  # (another kind's angle says nothing of the token's: its own nearest in time)
            good = np.flatnonzero(~np.isnan(ang))
            ang = ang[good[np.abs(np.arange(len(ang))[:, None] - good[None, :]).argmin(axis=1)]] if len(good) else np.zeros(len(ang))
        return (np.array([r[0] for r in rows]), np.array([r[1] for r in rows], dtype=float),
                np.array([r[2] for r in rows], dtype=float), np.array([r[3] for r in rows], dtype=float),
                ang, tuple(size) if size[0] > 0 else None)

    token_gap_frames = 3  # a track that begins (ends) within this many frames of the token's end (start) may continue it

    def token_tracks(self, flick: Flick, track_id: int, kind: str) -> list:
        """The projectile's track ``track_id`` and the tracks that continue it in ``flick``: the
        detector may take the token for another kind for a while (an Egg lying against a racer read
        as a racer, a token at rest read as a racer until it moves), and the tracker, which keeps a
        track's kind, then follows it on another track. A track continues the token's when it
        begins after the token's last sample, within
        ``token_gap_frames`` frames, no farther than the token can go in that time
        (``max_speed_mm_s``, and 3 σ), bears no name but the token's (a named racer is a racer, and
        so is a track first seen within a racer's radius of where a named racer rested), and is
        seen only after the token's samples; the nearest one, up to three times. (Not before the
        token's first sample: a track that ends as the token's begins is as often the hand's throw
        seen as a piece, or another piece, as the token at rest read as another kind.)"""
        racers = self.racer_names()
        dt = self._frame_s(flick)
        seen: dict = {}
        for fr in flick.frames:
            for i, tid in enumerate(fr.obs.track_id):
                seen.setdefault(int(tid), []).append((float(fr.t), np.asarray(fr.obs.xy[i], dtype=float), float(fr.obs.sigma[i])))
        if track_id not in seen:
            return [track_id]
        rest = [self._rest_xy(flick, tr) for tr in self.tracker.tracks.values() if tr.name and tr.name in racers]
        r_racer = float(self.specs.piece(GAME, "racer").radius)
        chain = [track_id]

        def usable(tid: int) -> bool:
            tr = self.tracker.tracks.get(tid)
            if tr is None or tid in chain or (tr.name and (tr.name in racers or tr.name not in (kind, tr.kind))):
                return False
            xy_first = seen[tid][0][1]
            return not any(float(np.hypot(*(xy_first - q))) <= r_racer for q, _ in rest)

        for _ in range(3):
            t_end = max(t for tid in chain for t, _, _ in seen[tid])
            end = next((x, sg) for tid in chain for t, x, sg in seen[tid] if t == t_end)
            best, best_d = None, None
            for tid, ss in seen.items():
                if not usable(tid):
                    continue
                t_c, x_c, s_c = ss[0]
                gap = t_c - t_end
                if gap <= 1e-9 or gap > (self.token_gap_frames + 0.5) * dt:
                    continue
                if any(t <= t_end for t, _, _ in ss):
                    continue
                d = float(np.hypot(*(x_c - end[0])))
                if d <= self.max_speed_mm_s * gap + 3.0 * float(np.hypot(s_c, end[1])) and (best_d is None or d < best_d):
                    best, best_d = tid, d
            if best is None:
                break
            chain.append(best)
        return chain

    def _rest_sigma(self) -> float:
        cfg = getattr(self.detector, "config", None)
        return float(getattr(cfg, "sigma_mm", 1.0))

    def _height_sigma(self) -> float:
        """One height sample's σ (mm): the detector's ``height_sigma_mm`` (1 mm when it has none)."""
        return float(getattr(getattr(self.detector, "config", None), "height_sigma_mm", 1.0))

    # -- positions -----------------------------------------------------------------------------------
    def racer_hexes(self, obs: Observation) -> dict:
        """{racer name: Verdict of its hex} for the named racers in ``obs`` (mat mm)."""
        from referee.core import piece_sigma
        from referee.hexes import hex_calls

        names = obs.attribute("name")
        racers = self.racer_names()
        idx = [i for i in range(len(obs)) if names[i] and (obs.kind[i] == "racer" or str(names[i]) in racers)]
        if not idx or not self.board.tracks:
            return {}
        track = self._track()
        sig = piece_sigma(self.transform, obs.xy[idx], obs.sigma[idx], self.referee.registration_sigma_floor_mm)
        calls = hex_calls(obs.xy[idx], sig, track, k=self.referee.k, names=[str(names[i]) for i in idx],
                          frame_ids=(int(obs.frame_index),))
        return {str(names[i]): v for i, v in zip(idx, calls)}

    def _track(self):
        """The board track the race is on: the engine keeps its name in ``state["track"]`` (its
        ``track`` is a layout helper without a name); the board's first track otherwise."""
        state = getattr(self.game, "state", None)
        name = state.get("track") if isinstance(state, dict) else None
        if name is None:
            name = getattr(getattr(self.game, "track", None), "name", None)
        tracks = self.board.tracks
        return tracks.get(name) if name in tracks else next(iter(tracks.values()))

    def on_settled(self, obs: Observation) -> None:
        hexes = self.racer_hexes(obs)
        if not hexes:
            return
        engine = {}
        try:
            engine = {rid: p["hex"] for rid, p in self.game.positions().items()}
        except Exception:  # a game without positions (a stub in a benchmark)
            pass
        seen = {n: v.finding for n, v in hexes.items()}
        mismatch = {n: {"camera": f, "engine": engine[n]} for n, f in seen.items()
                    if n in engine and f.split(":")[-1] != str(engine[n]) and hexes[n].answer == "yes"}
        self._emit({"kind": "positions", "racers": seen, "mismatch": mismatch,
                    "too_close": [n for n, v in hexes.items() if v.answer == "too_close"]})


def _footprint(radius: float, size) -> float:
    """The radius (mm) of a disc that holds the token whatever its angle: its own, or half its box's
    diagonal (``size``, None for a round token)."""
    return float(radius) if size is None else max(float(radius), 0.5 * float(np.hypot(*size)))


def _gap(P, A, size, radius, q, r) -> np.ndarray:
    """(n,) edge gap (mm) between the token at (n, 2) P (a disc of ``radius``, or a box ``size``
    turned by (n,) A radians) and discs of radius ``r`` at (n, 2) q."""
    if size is None:
        return np.hypot(*(P - q).T) - radius - r
    d = q - P
    c, s = np.cos(A), np.sin(A)
    u, v = c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1]
    hx, hy = size[0] / 2, size[1] / 2
    ex, ey = np.maximum(np.abs(u) - hx, 0.0), np.maximum(np.abs(v) - hy, 0.0)
    outside = np.hypot(ex, ey)
    inside = np.minimum(hx - np.abs(u), hy - np.abs(v))
    return np.where(outside > 0, outside, -inside) - r


def _span_low_part(a, a_lo: float, a_top, a_hi: float, b, b_lo: float, b_top, b_hi: float, h_c: float) -> list:
    """The corners (2,) mat mm of where the token can have been between two samples with its base
    at most ``h_c`` mm above the mat: the part below ``h_c`` of the hull (in 3D) of the two stretches
    of camera ray it can have been on, sample ``a`` from ``a`` at elevation ``a_lo`` mm to ``a_top``
    at ``a_hi``, ``b`` likewise, seen from above; always 8 corners (repeated where fewer); None
    when both stretches lie above ``h_c`` (between them the token, above its chord, never came
    that low)."""
    verts = [(np.asarray(a, float), float(a_lo)), (np.asarray(a_top, float), float(a_hi)),
             (np.asarray(b, float), float(b_lo)), (np.asarray(b_top, float), float(b_hi))]
    out = [p for p, z in verts if z <= h_c]
    for m in range(4):
        for n in range(m + 1, 4):
            (p, zp), (q, zq) = verts[m], verts[n]
            if (zp - h_c) * (zq - h_c) < 0:
                out.append(p + (q - p) * (h_c - zp) / (zq - zp))
    if not out:
        return None
    out += [out[0]] * (8 - len(out))
    return out[:8]


def _hull_dist(q, pts) -> np.ndarray:
    """(n,) distance (mm) from the point ``q`` (2,) to the convex hull of each of the ``pts``
    (n, m, 2) point sets (0 inside)."""
    from itertools import combinations

    m = pts.shape[1]
    best = np.full(len(pts), np.inf)
    for a, b in combinations(range(m), 2):
        A, d = pts[:, a], pts[:, b] - pts[:, a]
        u = np.clip(((q - A) * d).sum(1) / np.maximum((d * d).sum(1), 1e-12), 0.0, 1.0)
        best = np.minimum(best, np.hypot(*(A + u[:, None] * d - q).T))

    def cross(o, p1, p2):
        return (p1[:, 0] - o[..., 0]) * (p2[:, 1] - o[..., 1]) - (p1[:, 1] - o[..., 1]) * (p2[:, 0] - o[..., 0])

    for a, b, c in combinations(range(m), 3):
        A, B, C = pts[:, a], pts[:, b], pts[:, c]
        area = cross(A, B, C)
        s1, s2, s3 = cross(A, B, np.broadcast_to(q, A.shape)), cross(B, C, np.broadcast_to(q, A.shape)), \
            cross(C, A, np.broadcast_to(q, A.shape))
        inside = (np.abs(area) > 1e-9) & (((s1 >= 0) & (s2 >= 0) & (s3 >= 0)) | ((s1 <= 0) & (s2 <= 0) & (s3 <= 0)))
        best[inside] = 0.0
    return best


def _land_gaps(path, q, r: float, radius: float) -> tuple | None:
    """((m,) edge gaps mm, (m,) σ mm) to a racer at ``q`` (2,) mat mm of radius ``r`` from the places
    a throw's token can have touched down at (``path.land_pts``), None without a landing."""
    if path.land_pts is None or path.i_land is None:
        return None
    pts, sig = path.land_pts
    ang = np.full(len(pts), path.A[path.i_land])
    return _gap(pts, ang, path.samples.size, radius, np.broadcast_to(q, pts.shape), r), sig


def _land_margin(path, gap: np.ndarray, q_s: float, k: float, land: tuple | None = None) -> tuple[float, float]:
    """(the overlap (mm, −gap) of a racer's footprint where a throw's token landed, its σ mm):
    ``gap`` (n,) mm along ``path.T``, the racer's rest σ ``q_s``, the referee's ``k``, ``land`` the
    gaps and σ at the places it can have touched down at (:func:`_land_gaps`). On the mat (the
    path where it landed) a token overlapping a racer's footprint by more than k σ touches it.
    Else over the places it can have touched down at: where it overlapped at all of them, the
    least sure overlap; where at none, the least sure gap; else 0 (where it landed decides, and is
    not known)."""
    m_l, s_l = float(-gap[path.i_land]), float(np.hypot(path.S[path.i_land], q_s))
    if m_l > k * s_l:
        return m_l, s_l
    if land is None:
        return m_l, s_l
    m = -land[0]
    sg = np.hypot(land[1], q_s)
    if (m > 0).all():
        j = int(np.argmin(m / sg))
    elif (m < 0).all():
        j = int(np.argmax(m / sg))
    else:
        return 0.0, float(sg.min())
    return float(m[j]), float(sg[j])


def _on_mat_z(z_sigma: float) -> float:
    """The base height (mm) at or below which a token is taken to lie on the mat: three of one
    height sample's σ ``z_sigma``, at least 2 mm."""
    return max(2.0, 3.0 * z_sigma)


def _airborne(s, land_z: float) -> np.ndarray:
    """(n,) bool: the samples of ``s`` (:class:`ThrowSamples`) seen in the air, from the launch to the
    first seen on the mat (base at or below ``land_z`` mm): a token once down is not up again for a
    sample whose height's noise lifts it (many samples at rest, a few beyond 3 σ)."""
    up = (s.zb > land_z) & (np.arange(len(s.t)) >= s.i_launch)
    down = np.flatnonzero(~up[s.i_launch:])
    if len(down):
        up[s.i_launch + int(down[0]):] = False
    return up


def _waypoint(sg) -> bool:
    """A segment of one sample and nothing else (no pinned place): where the path passed."""
    return sg.n == 1 and sg.degree == 0 and not getattr(sg, "pins", None)


def _nearest_point(p, angle: float, size, radius: float, q) -> np.ndarray:
    """The point (2,) mm of the token at ``p`` (a disc of ``radius``, or a box ``size`` turned by
    ``angle`` radians) nearest ``q`` (2,) (``q`` itself when inside it)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    d = q - p
    if size is None:
        n = float(np.hypot(*d))
        return q.copy() if n <= radius else p + d * (radius / n)
    c, s = np.cos(angle), np.sin(angle)
    u = np.clip(c * d[0] + s * d[1], -size[0] / 2, size[0] / 2)
    v = np.clip(-s * d[0] + c * d[1], -size[1] / 2, size[1] / 2)
    return p + np.array([c * u - s * v, s * u + c * v])


def _push_can_turn(v_in, sv_in: float, v_out, sv_out: float, contact, q, s_contact: float, r_radius: float,
                   mu: float, k: float, curve_mm_s: float = 0.0) -> bool:
    """Whether one push by a racer of radius ``r_radius`` at ``q`` (2,), touching the token at
    ``contact`` (2,) (σ ``s_contact`` mm), can have turned the token from velocity ``v_in`` (σ
    ``sv_in``) to ``v_out`` (σ ``sv_out``), mm/s, within ``k`` σ. The push J acts along the normal n
    from the racer's centre to the contact, leaning off it by friction by at most atan(``mu``); the
    token may slow along its way too (a landing, friction on the mat; it turns by its own curve by
    up to ``curve_mm_s`` of velocity): v_out is a positive multiple of a·v_in + J, 0 ≤ a ≤ 1, so its
    direction lies in the sector spanned by the way in and the push's directions. Outside it by
    more than k σ of the directions at the sector's nearer edge (the way out's against the way in's
    or the normal's, in quadrature), where the sector cannot open to the whole plane within k σ
    either, the push cannot have done it. True when the way in or out is unknown (a speed within
    twice its σ)."""
    s_in, s_out = float(np.hypot(*v_in)), float(np.hypot(*v_out))
    if not np.isfinite([s_in, s_out, sv_in, sv_out, s_contact]).all() or s_in < max(2.0 * sv_in, 1e-6) \
            or s_out < max(2.0 * sv_out, 1e-6):
        return True  # (the way in or out unknown)
    nv = np.asarray(contact, float) - np.asarray(q, float)
    dist = float(np.hypot(*nv))
    if dist < 1e-6:
        return True
    s_th_in, s_th_out, s_th_n = sv_in / s_in, sv_out / s_out, s_contact / max(dist, r_radius)
    c = min(curve_mm_s / s_in, np.pi)  # (the curve's turn: a bound, not a σ)
    th_n = float(np.arctan2(nv[1], nv[0]))
    a_in = (float(np.arctan2(v_in[1], v_in[0])) - th_n + np.pi) % (2 * np.pi) - np.pi  # (from the normal)
    a_out = (float(np.arctan2(v_out[1], v_out[0])) - th_n + np.pi) % (2 * np.pi) - np.pi
    phi = float(np.arctan(mu))
    lo, s_lo = (-phi, s_th_n) if -phi <= a_in - c else (a_in - c, s_th_in)
    hi, s_hi = (phi, s_th_n) if phi >= a_in + c else (a_in + c, s_th_in)
    if hi - lo >= np.pi or lo <= a_out <= hi:
        return True
    x = a_out if a_out > hi else a_out + 2 * np.pi
    z = min((x - hi) / max(float(np.hypot(s_th_out, s_hi)), 1e-9),  # past the sector's upper edge
            (lo + 2 * np.pi - x) / max(float(np.hypot(s_th_out, s_lo)), 1e-9),  # short of its lower edge
            (np.pi - (hi - lo)) / max(float(np.hypot(s_lo, s_hi)), 1e-9))  # the sector opening to the plane
    return z <= k


def _push_can_turn_air(v_in, v_out, s_dv: float, contact, q, s_contact: float, r_radius: float, mu: float, k: float,
                       curve_mm_s: float = 0.0) -> bool:
    """:func:`_push_can_turn` for a token in the air all through (nothing slows it): the change of
    velocity ``v_out − v_in`` (σ ``s_dv`` mm/s) is the push's own, which lies in the friction cone
    about the normal n (from the racer's centre to the contact ``contact``, σ ``s_contact`` mm): it
    cannot have done it when that change lies outside the cone by more than k σ (the velocities'
    and the normal's, that σ in mm/s the change's size times its angle's σ), less the curve's own
    ``curve_mm_s``."""
    dv = np.asarray(v_out, float) - np.asarray(v_in, float)
    D = float(np.hypot(*dv))
    nv = np.asarray(contact, float) - np.asarray(q, float)
    dist = float(np.hypot(*nv))
    if not np.isfinite([D, dist, s_dv, s_contact]).all() or dist < 1e-6 or D < 1e-9:
        return True
    beta = abs((float(np.arctan2(dv[1], dv[0]) - np.arctan2(nv[1], nv[0])) + np.pi) % (2 * np.pi) - np.pi)
    phi = float(np.arctan(mu))
    if beta <= phi:
        return True
    off = D * np.sin(beta - phi) if beta - phi < np.pi / 2 else D  # (past a right angle: the cone's apex is nearest)
    return (off - curve_mm_s) / max(float(np.hypot(s_dv, D * s_contact / max(dist, r_radius))), 1e-9) <= k


def _ray_points(origin, d, reach_mm: float = 80.0, step_mm: float = 0.5) -> np.ndarray:
    """(n, 2) mm the token's centres along the ray from ``origin`` (2,) along the unit ``d`` (2,),
    every ``step_mm`` up to ``reach_mm``."""
    s = np.arange(0.0, reach_mm + step_mm, step_mm)
    return np.asarray(origin, float)[None, :] + s[:, None] * np.asarray(d, float)[None, :]


def _closest_on_ray(origin, d, radius: float, size, angle: float, q, r_radius: float, reach_mm: float = 80.0,
                    step_mm: float = 0.5) -> np.ndarray:
    """The token's centre (2,) mm along the ray from ``origin`` along unit ``d`` (as :func:`_ray_hit`
    follows it) where it comes nearest a racer of ``r_radius`` at ``q``."""
    P = _ray_points(origin, d, reach_mm, step_mm)
    g = _gap(P, np.full(len(P), angle), size, radius, np.broadcast_to(np.asarray(q, float), P.shape), r_radius)
    return P[int(np.argmin(g))]


def _ray_hit(origin, d, radius, size, angle, racers, rest_q, reach_mm: float = 80.0, step_mm: float = 0.5,
             graze_mm: float = 1.0, graze_k: float = 0.0, graze_s: float = 0.0):
    """The first racer a token (disc of ``radius`` or box ``size`` at ``angle`` radians) moving from
    ``origin`` (2,) along the unit ``d`` (2,) runs into within ``reach_mm``: (racer id, the token's
    centre at the touch (2,), ids of others it passes within a graze on the way, or of the first it
    passes that close if it runs into none), or None. A graze: within ``graze_mm`` plus ``graze_k``
    times the ray's σ ``graze_s`` and the racer's rest σ (``rest_q``) in quadrature (a racer placed
    loosely, one the camera did not see, may stand in the ray's way); and any the ray starts in by
    less than that (touching it there, within the noise)."""
    P = _ray_points(origin, d, reach_mm, step_mm)
    A = np.full(len(P), angle)
    best = None
    gaps = {}
    for r in racers:
        q = rest_q[r.id][0]
        g = _gap(P, A, size, radius, np.broadcast_to(q, P.shape), r.radius)
        gaps[r.id] = (g, graze_mm + graze_k * float(np.hypot(graze_s, rest_q[r.id][1])))
        if g[0] <= 0:  # already overlapping where the ray starts: not what it ran into
            continue
        inside = np.flatnonzero(g <= 0)
        if len(inside) and (best is None or inside[0] < best[1]):
            best = (r.id, int(inside[0]))
    # one the ray starts in, within the noise, it can have been touching there: another suspect
    start = [o for o, (g, graze) in gaps.items() if -graze < g[0] <= 0]
    if best is None:
        near = [(int(np.argmin(g)), o) for o, (g, graze) in gaps.items() if g[0] > 0 and float(g.min()) <= graze]
        if not near:
            return None
        i, rid = min(near)
        return rid, P[i], [o for j, o in near if o != rid] + start
    rid, i = best
    others = [o for o, (g, graze) in gaps.items() if o != rid and g[0] > 0 and float(g[:i + 1].min()) <= graze]
    return rid, P[i], others + start


def engine_layout(track) -> dict:
    """The engine's track dict (``new_game(layout=...)``) for a calibration board's closed track:
    its hexes, traps, drift sections (the engine's ``start`` is the hex before the first drift hex,
    from which advancing onto it triggers the sequence), charms and Treasure Hunt bases."""
    drift = []
    for d in track.drift:
        hexes = []
        for i, need in enumerate(d.rolls):
            b = d.bonuses[i] if i < len(d.bonuses) else ""
            bonus = {}
            if b:
                what, n = b.rsplit("-", 1)
                bonus[what] = int(n)
            hexes.append({"need": int(need), **({"bonus": bonus} if bonus else {})})
        drift.append({"start": (int(d.hexes[0]) - 1) % len(track.hexes), "hexes": hexes})
    return {"loop": True, "hexes": len(track.hexes), "traps": [int(h) for h in track.traps], "drift": drift,
            "charms": [int(h) for h in track.charms], "treasure_bases": [int(h) for h in track.bases]}
