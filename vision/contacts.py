"""Who touched whom, from trajectories in **mat mm** (no physics engine, no images).

Two kinds of evidence, as a referee would use them:

- **struck pieces** (wooden discs): a piece at rest that starts to move was struck. Its start time
  is found by extrapolating its first moving samples back to where it rested; the striker is the
  moving piece whose footprint was (nearly) touching the struck footprint at that instant. The first
  mover of a flick has no striker (the finger). Chains follow: A strikes B, B strikes C.
- **touched pieces** (projectiles against racer miniatures, which need not move): the closest
  approach between the projectile's footprint and each target's, over the projectile's path between
  frames (linear motion between samples), after it lands. Touched when the gap is within the
  tolerance; ordered by the time of first touch.

Where one sample's σ leaves a contact in doubt, :func:`path_gap` measures it on the fitted path:
between collisions a sliding disc runs on a straight line, so lines fitted over many samples (and
through the rest position it started from) place it far more sharply than one sample does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.track import Track


@dataclass(frozen=True)
class ContactConfig:
    """``touch_mm`` the largest edge-to-edge gap still taken as touching (covers measurement noise
    and the frame interval); ``start_mm_s`` the speed at which a resting piece counts as started;
    ``rest_mm`` how far a piece may jitter while still at rest."""

    touch_mm: float = 6.0
    start_mm_s: float = 40.0
    rest_mm: float = 1.5
    max_lookback_s: float = 0.2


@dataclass(frozen=True)
class Contact:
    """``a`` touched ``b`` at time ``t`` (seconds); ids are track ids; ``gap_mm`` the measured
    edge-to-edge gap at that instant (≤ 0 overlapping); ``evidence`` "struck" or "touched"."""

    t: float
    a: int
    b: int
    gap_mm: float
    evidence: str


def _interp(track: Track, t: float) -> np.ndarray:
    ts, xy = track.trajectory()
    if t <= ts[0]:
        return xy[0]
    if t >= ts[-1]:
        return xy[-1]
    return np.array([np.interp(t, ts, xy[:, 0]), np.interp(t, ts, xy[:, 1])])


def _start_of_motion(track: Track, cfg: ContactConfig, t0: float) -> tuple[float, np.ndarray] | None:
    """(time, rest position) when a piece that was at rest at ``t0`` starts to move, else None. The
    start is found against its first sample; the rest position is the mean of its samples before."""
    ts, xy = track.trajectory()
    keep = ts >= t0
    ts, xy = ts[keep], xy[keep]
    if len(ts) < 3:
        return None
    rest = xy[0]
    dist = np.linalg.norm(xy - rest, axis=1)
    moved = np.flatnonzero(dist > cfg.rest_mm)
    if len(moved) == 0:
        return None
    k = int(moved[0])
    if k + 1 >= len(ts):
        # moved on the last sample only: not enough to tell a start from noise
        return None
    speed = np.linalg.norm(xy[k + 1] - xy[k]) / max(ts[k + 1] - ts[k], 1e-9)
    if speed < cfg.start_mm_s:
        return None
    # extrapolate the first moving segment back to the rest position
    v = (xy[k + 1] - xy[k]) / max(ts[k + 1] - ts[k], 1e-9)
    back = float(np.dot(xy[k] - rest, v) / max(np.dot(v, v), 1e-9))
    t_start = float(np.clip(ts[k] - back, ts[k] - cfg.max_lookback_s, ts[k]))
    t_start = max(t_start, ts[k - 1] if k >= 1 else ts[k])
    return t_start, xy[:max(k, 1)].mean(0)  # where it rested: the mean of its samples at rest


def _nearest_gap(a: Track, point: np.ndarray, t: float, radius: float) -> float:
    """Smallest edge gap between ``a``'s footprint and a disc of ``radius`` at ``point`` while ``a``
    travels through the frame intervals around ``t`` (a striker stops or turns at the contact, so
    its position interpolated at ``t`` alone lags behind the real contact point): those that begin
    from 1.5 intervals before ``t`` to less than one after it (a piece that comes into that place
    on an interval beginning later, after another piece of a chain had set the struck one moving,
    is no striker: a disc sliding on into the ball's place a frame or two after the ball had left it
    had been taken for its striker)."""
    ts, xy = a.trajectory()
    if len(ts) == 1:
        return float(np.linalg.norm(xy[0] - point) - a.radius - radius)
    dt = float(np.median(np.diff(ts))) if len(ts) > 1 else 0.0
    lo = max(int(np.searchsorted(ts, t - 1.5 * dt)) - 1, 0)
    hi = min(int(np.searchsorted(ts, t + dt - 1e-6)), len(ts) - 1)
    best = np.inf
    for k in range(lo, max(hi, lo + 1)):
        _, dist = closest_approach(xy[k], xy[min(k + 1, len(ts) - 1)], point)
        best = min(best, dist)
    return float(best - a.radius - radius)


def struck_contacts(tracks: list[Track], t0: float, cfg: ContactConfig | None = None,
                    start_tolerance_s: float = 0.0, known_starts: dict | None = None,
                    flicked: frozenset = frozenset()) -> list[Contact]:
    """Contacts of the struck kind after ``t0``: for each piece that goes from rest to moving, the
    piece that struck it (if any was touching). A striker must not have started after the struck
    piece (by more than ``start_tolerance_s``: start times are estimates). ``known_starts`` {track
    id: time} adds pieces known to have moved whose start the speed test missed (a few mm of a tight
    chain): they rested where their samples from ``t0`` to that time average. ``flicked``: the ids the
    player's finger set moving, struck by none (a neighbour it rested against is no striker). Sorted
    by time."""
    cfg = cfg or ContactConfig()
    starts = {}
    for tr in tracks:
        s = _start_of_motion(tr, cfg, t0)
        if s is not None:
            starts[tr.id] = s
        elif tr.id in (known_starts or {}):
            ts, xy = tr.trajectory()
            at_rest = (ts >= t0 - 1e-9) & (ts <= known_starts[tr.id] + 1e-9)
            if at_rest.any():
                starts[tr.id] = (float(known_starts[tr.id]), xy[at_rest].mean(0))
    by_id = {tr.id: tr for tr in tracks}
    cands = {}  # struck piece -> its possible strikers, best first: (rank, gap, id)
    for bid, (ts, rest) in starts.items():
        if bid in flicked:  # the player's finger set it moving: no piece struck it
            continue
        b = by_id[bid]
        found = []
        for a in tracks:
            if a.id == bid:
                continue
            # the striker must itself be moving at that instant (started before b, or never at rest)
            if a.id in starts and starts[a.id][0] > ts + start_tolerance_s:
                continue
            gap = _nearest_gap(a, rest, ts, b.radius)
            # one seen to start before b beats one that started with it (start times are estimates,
            # but a piece b set moving the same frame may stand closer to it than its striker) and one
            # never seen to start (a piece resting against b that a chain may have passed the blow
            # through, or only a neighbour)
            rank = 0 if a.id in starts and starts[a.id][0] < ts - 1e-6 else 1
            if gap <= cfg.touch_mm:
                found.append((rank, gap, a.id))
        if found:
            cands[bid] = sorted(found)
    # two pieces cannot each have set the other moving: the pair's earlier start stands, and the
    # later piece was struck by the next of its candidates (a disc that pushed a light ball beside it
    # at once starts, by the estimates, a little after the ball; it was struck by something else)
    pick = {bid: 0 for bid in cands}
    changed = True
    while changed:
        changed = False
        for bid in sorted(cands, key=lambda i: -starts[i][0]):
            if pick[bid] >= len(cands[bid]):
                continue
            aid = cands[bid][pick[bid]][2]
            if aid in pick and pick[aid] < len(cands[aid]) and cands[aid][pick[aid]][2] == bid and \
                    (starts[bid][0], bid) > (starts[aid][0], aid):
                pick[bid] += 1
                changed = True
    out = []
    for bid, k in pick.items():
        if k < len(cands[bid]):
            _, gap, aid = cands[bid][k]
            out.append(Contact(starts[bid][0], aid, bid, gap, "struck"))
    out.sort(key=lambda c: (c.t, c.a, c.b))
    return out


def _ray_entry(p0: np.ndarray, p1: np.ndarray, q: np.ndarray, reach: float) -> float:
    """The fraction 0..1 of segment p0→p1 where it first comes within ``reach`` of point q (0 when
    p0 already is; 1 when it never does)."""
    d, w = p1 - p0, p0 - q
    a, b, c = float(d @ d), float(d @ w), float(w @ w) - reach ** 2
    if c <= 0.0:
        return 0.0
    disc = b * b - a * c
    if a <= 0.0 or disc < 0.0:
        return 1.0
    return float(np.clip((-b - np.sqrt(disc)) / a, 0.0, 1.0))


def closest_approach(p0: np.ndarray, p1: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """Segment p0→p1 against a fixed point q: (fraction 0..1 of the closest point, distance)."""
    d = p1 - p0
    dd = float(np.dot(d, d))
    s = 0.0 if dd == 0 else float(np.clip(np.dot(q - p0, d) / dd, 0.0, 1.0))
    return s, float(np.linalg.norm(p0 + s * d - q))


def touched(projectile: Track, targets: list[Track], t_land: float, cfg: ContactConfig | None = None,
            first_only: bool = False, deflections: bool = False, slow: float = 0.0,
            resting: dict | None = None) -> list[Contact]:
    """Targets the projectile's footprint touched from ``t_land`` on, in order of first touch.
    Targets are taken where they were at each instant (they may be pushed). With ``deflections``
    a target that turned the projectile aside between two samples also counts (see
    :func:`deflected_by`): the straight chord between the samples around a bounce cuts the corner
    and may pass clear of the piece it bounced off. ``resting`` {track id: (until s, (2,) mat mm)}:
    a piece is at that place (the mean of its samples at rest, surer than one sample) until then,
    the projectile's own samples up to its time included."""
    cfg = cfg or ContactConfig()
    resting = resting or {}
    ts, xy = projectile.trajectory()
    keep = ts >= t_land
    ts, xy = ts[keep], xy[keep]  # (a boolean mask copies: the rest places below write on the copy)
    if projectile.id in resting and len(ts):
        until, at = resting[projectile.id]
        xy[ts <= until + 1e-9] = at
    hits = {}
    if len(ts) == 0:
        return []
    if len(ts) == 1:
        ts, xy = np.array([ts[0], ts[0]]), np.vstack([xy[0], xy[0]])
    for tgt in targets:
        if tgt.id == projectile.id:
            continue
        reach = projectile.radius + tgt.radius
        still = resting.get(tgt.id)
        for k in range(len(ts) - 1):
            q = still[1] if still is not None and ts[k + 1] <= still[0] + 1e-9 else _interp(tgt, ts[k])
            s, dist = closest_approach(xy[k], xy[k + 1], q)
            gap = dist - reach
            if gap <= cfg.touch_mm:
                hits[tgt.id] = Contact(float(ts[k] + s * (ts[k + 1] - ts[k])), projectile.id, tgt.id, gap, "touched")
                break
    if deflections:
        for c in deflected_by(projectile, targets, t_land, cfg, slow=slow, touched_at={i: h.t for i, h in hits.items()}):
            if c.b not in hits or c.t < hits[c.b].t:
                hits[c.b] = c
    out = sorted(hits.values(), key=lambda c: (c.t, c.gap_mm))
    return out[:1] if first_only else out


def deflected_by(projectile: Track, targets: list[Track], t_from: float, cfg: ContactConfig | None = None,
                 turn_deg: float = 20.0, slow: float = 0.0, reach_s: float = 1.5,
                 min_drop_mm_s: float = 300.0, touched_at: dict | None = None) -> list[Contact]:
    """Targets that turned the projectile aside (a bounce) after ``t_from``: where its velocity turns
    by more than ``turn_deg`` (or, with ``slow`` > 0, drops below that fraction of its speed), the incoming
    ray (from the last sample before, at the incoming velocity, for ``reach_s`` sample intervals) is
    followed to the first target whose footprint it reaches within ``touch_mm`` (one the path is
    known to have touched by the end of that interval, ``touched_at`` {id: t}, before any). The
    turn must also beat the noise of the two displacements (4 σ of their angle, σ taken from
    ``rest_mm``, the 5 σ√2 jitter of :func:`noise_config`), and a slowdown must exceed
    ``min_drop_mm_s`` (more than the mat's friction takes in a sample, about μ g dt = 100 mm/s at
    30 frames/s). A bounce inside one sample interval splits its turn between two chords, each
    turning less than it: the way in against the way out after the next chord counts too, when the
    way in reaches one piece alone. Evidence "deflected"; one contact per target, the earliest."""
    cfg = cfg or ContactConfig()
    ts, xy = projectile.trajectory()
    keep = ts >= t_from
    ts, xy = ts[keep], xy[keep]
    out: dict = {}
    if len(ts) < 3:
        return []
    cos_turn = np.cos(np.radians(turn_deg))
    for k in range(1, len(ts) - 1):
        dt_in, dt_out = ts[k] - ts[k - 1], ts[k + 1] - ts[k]
        if dt_in <= 0 or dt_out <= 0:
            continue
        v_in = (xy[k] - xy[k - 1]) / dt_in
        v_out = (xy[k + 1] - xy[k]) / dt_out
        s_in, s_out = float(np.linalg.norm(v_in)), float(np.linalg.norm(v_out))
        if s_in * dt_in < max(3.0, cfg.rest_mm):  # came in too slowly to tell a turn or a stop from noise
            continue
        noise = cfg.rest_mm / 5.0  # σ√2 of one displacement

        def turns(v_out, s_out, dt_out) -> bool:
            # a turn needs a way out long enough to have a direction, beyond the noise of a piece at
            # rest (``rest_mm``: a ball coming to rest jitters a few mm back and forth, any way); a
            # stop does not (a ball stopped dead against a disc moves on a mm or two: its way out says
            # nothing, its speed's drop everything)
            limit = max(np.arccos(cos_turn), 4.0 * np.sqrt(2.0) * noise / max(min(s_in * dt_in, s_out * dt_out), 1e-9))
            return s_out > 0 and s_out * dt_out >= max(3.0, cfg.rest_mm) and \
                float(np.dot(v_in, v_out)) / (s_in * s_out) < np.cos(min(limit, np.pi))

        turned = turns(v_out, s_out, dt_out)
        split = False
        if not turned and k + 2 < len(ts) and ts[k + 2] > ts[k + 1]:
            # a bounce inside the interval after this sample splits its turn between that chord and
            # the next: the way in against the way out after it (placed less sharply: only when the
            # way in reaches one piece alone)
            dt_2 = ts[k + 2] - ts[k + 1]
            v_2 = (xy[k + 2] - xy[k + 1]) / dt_2
            split = turned = turns(v_2, float(np.linalg.norm(v_2)), dt_2)
        braked = s_out < slow * s_in and s_in - s_out > min_drop_mm_s
        if not (turned or braked):
            continue
        p0 = xy[k - 1]
        p1 = p0 + v_in * dt_in * (1.0 + reach_s)
        best, reached = None, 0
        for tgt in targets:
            if tgt.id == projectile.id:
                continue
            q = _interp(tgt, ts[k - 1])
            s, dist = closest_approach(p0, p1, q)
            gap = dist - projectile.radius - tgt.radius
            if gap > cfg.touch_mm:
                continue
            reached += 1
            if s <= 0.0:
                # nearest where the way in starts: it ran away from that piece, which pushes nothing
                # toward itself (a ball passed from against the passer turned on another)
                continue
            # the first the ray reaches: where it comes within touching distance, not where it
            # comes closest (a piece beyond the one it struck may lie nearer the ray's line); before
            # all, one the path is already known to have touched by then (``touched_at`` {id: t}):
            # that touch explains the turn
            s_in = _ray_entry(p0, p1, q, projectile.radius + tgt.radius + cfg.touch_mm)
            known = 0 if (touched_at or {}).get(tgt.id, np.inf) <= ts[k + 1] + 1e-9 else 1
            # (of those, one the ray runs into before one it only passes within the noise of: what
            # it grazed did not stop it where another stood in its way)
            key = (known, gap > 0, s_in)
            if best is None or key < best[3]:
                best = (s, tgt.id, gap, key)
        if split and reached > 1:
            continue
        if best is not None and best[1] not in out:  # a second stop against the same piece adds nothing
            t = float(ts[k - 1] + best[0] * dt_in * (1.0 + reach_s))
            out[best[1]] = Contact(t, projectile.id, best[1], best[2], "deflected")
    return sorted(out.values(), key=lambda c: c.t)


def turned_at_start(track: Track, rest_xy, rest_sigma: float, t_left: float, targets: list[Track], sigma: float,
                    k: float, t_until: float | None = None) -> list[tuple[int, float]] | None:
    """The pieces that can have turned ``track`` between its rest and its first sample away: a
    sliding piece runs straight, so its first straight stretch (:func:`straight_segments` of its
    samples after ``t_left`` s and before ``t_until``, at least three, each of σ ``sigma`` mm)
    carried back passes through where it rested (``rest_xy``, σ ``rest_sigma`` mm), unless
    something turned it there. None when it does (within ``k`` σ of the offset, the line's own σ and
    the rest's) or too few samples tell; else [(target id, edge gap at rest mm)] for the targets
    within the first chord's length of it at rest (where it can have gone before the turn), nearest
    first (empty: none within reach)."""
    ts, xy = track.trajectory()
    m = ts > t_left + 1e-9
    if t_until is not None:
        m &= ts <= t_until + 1e-9
    P = xy[m]
    if len(P) < 3:
        return None
    w = np.full(len(P), 1.0 / max(sigma, 1e-3) ** 2)
    i, j = straight_segments(P, w)[0]
    if j - i < 3:
        return None
    c, u, n, W, Sss, chi2 = _line_fit(P[i:j], w[i:j])
    if float((P[j - 1] - P[0]) @ u) < 0:  # (along the motion)
        u = -u
    rest = np.asarray(rest_xy, float)
    s_rest = float((rest - c) @ u)
    if s_rest >= float((P[0] - c) @ u):
        return None  # (the rest is not behind the stretch's first sample: no start to tell from it)
    off = float((rest - c) @ n)
    scale = max(1.0, float(np.sqrt(chi2 / (j - i - 2)))) if j - i > 2 else 1.0
    s_off = float(np.sqrt(scale ** 2 * (1.0 / W + s_rest ** 2 / max(Sss, 1e-9)) + rest_sigma ** 2))
    if abs(off) <= k * s_off:
        return None
    reach = float(np.linalg.norm(P[0] - rest)) + k * s_off
    out = []
    for tgt in targets:
        if tgt.id == track.id:
            continue
        gap = float(np.linalg.norm(_interp(tgt, t_left) - rest)) - track.radius - tgt.radius
        if gap <= reach:
            out.append((tgt.id, gap))
    return sorted(out, key=lambda x: x[1])


def chain(contacts: list[Contact], start: int) -> list[int]:
    """Every piece set in motion, directly or through others, by ``start``, in order of contact."""
    reached = [start]
    for c in sorted(contacts, key=lambda c: c.t):
        if c.a in reached and c.b not in reached:
            reached.append(c.b)
    return reached[1:]


def first_touched(contacts: list[Contact], by: int) -> int | None:
    direct = [c for c in sorted(contacts, key=lambda c: c.t) if c.a == by]
    return direct[0].b if direct else None


def noise_config(cfg: ContactConfig, sigma_mm: float, dt_s: float) -> ContactConfig:
    """``cfg`` with its rest and start thresholds raised to what positions with per-axis σ
    ``sigma_mm`` sampled every ``dt_s`` need: a still piece's jitter between two samples stays
    under 5 σ√2 (one in 10^5), and so does its apparent speed times the interval."""
    from dataclasses import replace

    jitter = 5.0 * sigma_mm * np.sqrt(2.0)
    return replace(cfg, rest_mm=max(cfg.rest_mm, jitter), start_mm_s=max(cfg.start_mm_s, jitter / max(dt_s, 1e-6)))


def table_contacts(tracks: list[Track], t0: float, cfg: ContactConfig | None = None, path_mm: float = 3.0,
                   start_gap_mm: float = 6.0, approach_mm: float = 2.0, known_starts: dict | None = None,
                   slow: float = 0.5, graze: float = 0.0, flicked: frozenset = frozenset(),
                   rest: dict | None = None) -> list[Contact]:
    """Every contact between pieces after ``t0``, from three kinds of evidence (cfg should be noise
    aware, see :func:`noise_config`):

    - struck (:func:`struck_contacts`): a piece at rest starts to move while another touches it;
    - touched: a moving piece's path (straight between samples, from where it rested) comes within
      ``path_mm`` of another piece's footprint (where it rested, until it moved), which need not
      move (a nudge smaller than the noise); for pairs
      already within ``start_gap_mm`` of each other at ``t0`` (their places at rest ``rest`` {track
      id: (2,) mm} where given, the mean of their frames before the flick: one sample's noise had
      made a disc leaving the ball's side look as if it closed in on it) the path must also come
      ``approach_mm`` closer than they started, or (``graze`` = k > 0) have rested within k σ of
      touching the other and left it otherwise than clearly away from it (:func:`_brushed`): then it may have brushed it
      as it left, evidence "brushed", the rest gap at the start (a ball flicked out from between two
      discs), kept only where no other contact joins the pair;
    - deflected (:func:`deflected_by`): a moving piece turned aside, or lost more than ``slow`` of
      its speed in one sample (pieces sliding on the mat; 0 for tokens that may land), and its
      incoming ray reaches another piece.

    A struck contact needs a striker that was itself moving (a piece resting beside the flicked one
    is not its striker), and none struck the pieces of ``flicked`` (the finger did). One contact
    per pair, the earliest; the striker is the piece that was moving first. Sorted by time."""
    cfg = cfg or ContactConfig()
    found: dict = {}

    def add(c: Contact):
        key = (c.a, c.b)
        if key not in found or c.t < found[key].t:
            found[key] = c

    starts = {}
    for tr in tracks:
        s = _start_of_motion(tr, cfg, t0)
        if s is not None:
            starts[tr.id] = s[0]
    for tid, t in (known_starts or {}).items():  # the piece the player flicked: it moved, however little
        starts[tid] = min(starts.get(tid, t), t)
    struck = struck_contacts(tracks, t0, cfg, start_tolerance_s=0.05, known_starts=known_starts, flicked=flicked)
    path_cfg = ContactConfig(touch_mm=path_mm, start_mm_s=cfg.start_mm_s, rest_mm=cfg.rest_mm,
                             max_lookback_s=cfg.max_lookback_s)
    b_of = {tr.id: tr for tr in tracks}
    brushed = []
    # the paths are measured to where the pieces rested (the mean of their frames at rest: one
    # sample adds its own noise to the gap), each until it started, and from where the mover rested
    resting = {b.id: (starts.get(b.id, np.inf), np.asarray(rest[b.id], float)) for b in tracks if b.id in (rest or {})}
    for a in tracks:
        if a.id not in starts:
            continue
        others, gap0 = [], {}
        for b in tracks:
            if b.id == a.id:
                continue
            pa = rest[a.id] if a.id in (rest or {}) else _interp(a, t0)
            pb = rest[b.id] if b.id in (rest or {}) else _interp(b, t0)
            gap0[b.id] = float(np.linalg.norm(pa - pb) - a.radius - b.radius)
            if not (b.id in starts and starts[b.id] < starts[a.id]):
                others.append(b)
        for c in touched(a, others, starts[a.id], path_cfg, deflections=True, slow=slow, resting=resting):
            if c.b in starts and starts[c.b] < c.t - 0.05:
                continue  # the other was already moving: it struck a, not the reverse (or a glancing pass)
            if gap0[c.b] <= start_gap_mm and c.evidence == "touched" and c.gap_mm > gap0[c.b] - approach_mm:
                # side by side at rest, and the path never closed in: no touch, unless it may have
                # brushed the other as it left
                g = _brushed(a, b_of[c.b], t0, cfg, graze, rest=rest, flicked=a.id in flicked) if graze > 0 else None
                if g is not None:
                    brushed.append(Contact(starts[a.id], a.id, c.b, g, "brushed"))
                continue
            add(Contact(c.t, a.id, c.b, c.gap_mm, c.evidence))
    # a struck contact needs a striker in motion: one that started (start times are estimates), or
    # one a moving piece touched first (in a tight chain the middle piece passes the blow on and
    # hardly moves itself)
    moving = set(starts)
    changed = True
    while changed:
        changed = False
        moving |= {c.b for c in found.values() if c.a in moving}
        for c in struck:
            if (c.a, c.b) in found:
                continue
            if (c.a in starts and starts[c.a] < c.t + 0.05) or (c.a in moving and c.a not in starts):
                add(c)
                changed = True
    # a brush is only what is left when nothing else joins the pair (a strike seen a frame later is
    # surer than a doubt at the start)
    paired = {frozenset(k) for k in found}
    for c in brushed:
        if frozenset((c.a, c.b)) not in paired:
            add(c)
    out = sorted(found.values(), key=lambda c: (c.t, c.a, c.b))
    # a pair seen both ways keeps the earlier
    seen, final = set(), []
    for c in out:
        pair = frozenset((c.a, c.b))
        if pair in seen:
            continue
        seen.add(pair)
        final.append(c)
    return final


def _rest_mean(tr: Track, t0: float, span_s: float):
    """(the mean of ``tr``'s samples over the ``span_s`` before ``t0``, how many); (None, 0) if none."""
    ts, xy = tr.trajectory()
    m = (ts >= t0 - span_s - 1e-9) & (ts <= t0 + 1e-9)
    return (xy[m].mean(0), int(m.sum())) if m.any() else (None, 0)


def _brushed(a: Track, b: Track, t0: float, cfg: ContactConfig, k: float, span_s: float = 0.3,
             cos_away: float = -0.5, rest: dict | None = None, flicked: bool = False) -> float | None:
    """The rest gap (mm) between ``a`` and ``b`` when ``a`` may have brushed ``b`` as it left: they
    rested (the means of their samples over the ``span_s`` before ``t0``, or ``rest`` {id: place}
    where given, whose σ is taken as one sample's: a detector's errors that repeat from frame to
    frame do not average away) within ``k`` σ of touching (σ of the two means, from one sample's:
    ``cfg.rest_mm`` is 5 σ√2, see :func:`noise_config`), and ``a``'s first sample beyond ``rest_mm``
    of its rest does not lie clearly away from ``b`` (more than 120°, ``cos_away``, from the
    direction to it); else None. ``flicked``: ``a`` is the piece the player flicked, which may never
    go beyond ``rest_mm`` (a ball flicked while pressed between two discs): staying within the noise
    of touching ``b``, it may have touched it."""
    if a.id in (rest or {}) and b.id in rest:
        (pa, na), (pb, nb) = (np.asarray(rest[a.id], float), 1), (np.asarray(rest[b.id], float), 1)
    else:
        (pa, na), (pb, nb) = _rest_mean(a, t0, span_s), _rest_mean(b, t0, span_s)
    if pa is None or pb is None:
        return None
    gap = float(np.linalg.norm(pa - pb) - a.radius - b.radius)
    if gap > k * cfg.rest_mm / (5.0 * np.sqrt(2.0)) * np.sqrt(1.0 / na + 1.0 / nb):
        return None
    ts, xy = a.trajectory()
    after = xy[ts > t0 + 1e-9]
    far = np.flatnonzero(np.linalg.norm(after - pa, axis=1) > cfg.rest_mm)
    if not len(far):
        return gap if flicked and len(after) else None
    u, w = after[far[0]] - pa, pb - pa
    return None if float(np.dot(u, w)) < cos_away * float(np.linalg.norm(u) * np.linalg.norm(w)) else gap


def kinked_by(projectile: Track, targets: list[Track], t_from: float, sigma_mm: float, slack_mm: float = 4.0,
              tol_mm: float | None = None, reach: float = 1.25) -> list[Contact]:
    """Targets a projectile bounced off between two samples, seen as a kink in its path: the next
    sample is further than ``slack_mm`` (friction, a curving flight) plus 4 σ of three samples'
    noise from where the incoming velocity would have carried it, and the incoming ray (forward from
    the sample before the kink, ``reach`` intervals long) or the outgoing one (backward from the
    sample after it) reaches the target's footprint within ``tol_mm`` (default 2 σ + 1 mm). The
    nearest target along the ray is the one touched. Evidence "kinked", or "kinked-ambiguous" for
    both when the incoming and outgoing rays point at different targets; the earliest per target."""
    ts, xy = projectile.trajectory()
    keep = ts >= t_from - 1e-9
    ts, xy = ts[keep], xy[keep]
    tol = 2.0 * sigma_mm + 1.0 if tol_mm is None else tol_mm
    out: dict = {}
    for k in range(1, len(ts) - 1):
        dt_in, dt = ts[k] - ts[k - 1], ts[k + 1] - ts[k]
        if dt_in <= 0 or dt <= 0:
            continue
        v_in = (xy[k] - xy[k - 1]) / dt_in
        dev = float(np.linalg.norm(xy[k + 1] - (xy[k] + v_in * dt)))
        if dev < slack_mm + 4.0 * sigma_mm * np.sqrt(3.0):
            continue
        rays = [(xy[k], xy[k] + v_in * dt * reach, ts[k], dt * reach)]
        if k + 2 < len(ts) and ts[k + 2] > ts[k + 1]:
            v_out = (xy[k + 2] - xy[k + 1]) / (ts[k + 2] - ts[k + 1])
            rays.append((xy[k + 1], xy[k + 1] - v_out * dt * reach, ts[k + 1], -dt * reach))
        found = []
        for p0, p1, t_ray, span in rays:
            best = None
            for tgt in targets:
                if tgt.id == projectile.id or tgt.id in out:
                    continue
                q = _interp(tgt, ts[k])
                s, dist = closest_approach(p0, p1, q)
                gap = dist - projectile.radius - tgt.radius
                if gap <= tol and (best is None or s < best[0]):
                    best = (s, tgt.id, gap, t_ray + s * span)
            if best is not None:
                found.append(best)
        ambiguous = len({b[1] for b in found}) > 1  # the rays in and out point at different pieces
        for best in found:
            out[best[1]] = Contact(float(min(max(best[3], ts[k]), ts[k + 1])), projectile.id, best[1], best[2],
                                   "kinked-ambiguous" if ambiguous else "kinked")
    return sorted(out.values(), key=lambda c: c.t)


# --- fitted paths: gaps far sharper than one sample's σ ---------------------------------------------


@dataclass(frozen=True)
class PathGap:
    """The edge-to-edge gap (mm) between a moving piece's fitted path and a resting piece's footprint
    (< 0: the path runs into the footprint, so the pieces touched), with its 1-σ from the fits'
    covariance (inflated by the residuals when they exceed the noise). ``how`` says which part of the
    path came closest: "line" (a straight stretch, its lateral offset), "end" (where the piece
    stopped, short of the other), "kink" (where the path turned); ``t`` when (s); ``deflected`` the
    change of direction at a kink there, away from the resting piece, in σ of its estimate (0 when the
    path ran straight past it); ``segments`` how many straight stretches the path was cut into."""

    gap_mm: float
    sigma_mm: float
    how: str
    t: float
    deflected: float = 0.0
    segments: int = 1


def _line_fit(P: np.ndarray, w: np.ndarray):
    """Weighted total least squares line through points ``P`` (n, 2) with weights ``w`` = 1/σ²:
    (centroid, direction u, normal n, Σw, Σ w s², χ² of the normal residuals)."""
    W = float(w.sum())
    c = (w[:, None] * P).sum(0) / W
    D = P - c
    S = (w[:, None, None] * D[:, :, None] * D[:, None, :]).sum(0)
    ev, vec = np.linalg.eigh(S)
    u, n = vec[:, 1], vec[:, 0]
    s = D @ u
    return c, u, n, W, float((w * s * s).sum()), float(max(ev[0], 0.0))


def _slide_stop(t: np.ndarray, s: np.ndarray, w: np.ndarray, step_s: float = 0.002):
    """Where a sliding piece came to rest along its line, from all of its last stretch: a disc slides
    on the mat at a constant deceleration ``a`` until it stops at ``s_stop`` at ``t_stop``,
    s(t) = s_stop - a/2 (t_stop - t)² before and s_stop after. (The mean of the samples near the end
    alone is pulled back along the path by the slow last frames before the stop, by about half its
    own σ with a few frames at rest.) ``t`` (m,) s, ``s`` (m,) mm along the line, ``w`` = 1/σ².
    (s_stop, its variance, t_stop), the variance widened to every stop time the samples allow
    within Δχ² = 1, and scaled by the residuals where they exceed the noise; None when the samples
    do not show the piece at rest (fewer than two samples after the stop) or no slide to a stop
    fits them (a ≤ 0)."""
    t, s, w = np.asarray(t, float), np.asarray(s, float), np.asarray(w, float)
    if len(t) < 4:
        return None
    grid = np.arange(t[0], t[-2] + 1e-9, step_s)
    g = -0.5 * np.maximum(grid[:, None] - t[None, :], 0.0) ** 2  # (stop times, samples)
    s0, s1, s2 = float(w.sum()), (g * w).sum(1), (g * g * w).sum(1)
    b0, b1 = float((w * s).sum()), (g * (w * s)).sum(1)
    det = s0 * s2 - s1 * s1
    ok = det > 1e-12
    if not ok.any():
        return None
    grid, g, s1, s2, b1, det = grid[ok], g[ok], s1[ok], s2[ok], b1[ok], det[ok]
    s_at = (s2 * b0 - s1 * b1) / det
    a_at = (s0 * b1 - s1 * b0) / det
    var_at = s2 / det
    chi = ((w[None, :] * (s[None, :] - s_at[:, None] - a_at[:, None] * g) ** 2)).sum(1)
    good = a_at > 0
    if not good.any():
        return None
    fits = list(zip(chi[good], s_at[good], var_at[good], grid[good]))
    chi_min, s_stop, var, t_stop = min(fits)
    if int((t > t_stop + 1e-9).sum()) < 2:
        return None
    dof = len(t) - 3
    scale2 = max(1.0, chi_min / dof) if dof > 0 else 1.0
    near = [f[1] for f in fits if f[0] <= chi_min + scale2]
    half = 0.5 * (max(near) - min(near))
    return s_stop, max(scale2 * var, half ** 2), t_stop


def _chi2_ok(chi2: float, dof: int) -> bool:
    """χ² of ``dof`` degrees of freedom below its 1-in-10⁴ tail (Wilson-Hilferty, z = 3.7)."""
    if dof <= 0:
        return True
    z = 3.7
    return chi2 <= dof * (1.0 - 2.0 / (9.0 * dof) + z * np.sqrt(2.0 / (9.0 * dof))) ** 3


def straight_segments(P: np.ndarray, w: np.ndarray, min_points: int = 3) -> list[tuple[int, int]]:
    """Cut a path (points ``P`` in order, weights ``w`` = 1/σ²) into straight stretches: while a
    stretch's residuals exceed the noise (:func:`_chi2_ok`), split it where the two lines fit best.
    Index ranges [i, j)."""
    def cut(i, j):
        if j - i < 2 * min_points:
            return [(i, j)]
        *_, chi2 = _line_fit(P[i:j], w[i:j])
        if _chi2_ok(chi2, j - i - 2):
            return [(i, j)]
        best = None
        for k in range(i + min_points, j - min_points + 1):
            tot = _line_fit(P[i:k], w[i:k])[-1] + _line_fit(P[k:j], w[k:j])[-1]
            if best is None or tot < best[0]:
                best = (tot, k)
        return cut(i, best[1]) + cut(best[1], j)
    return cut(0, len(P))


def path_gap(ts: np.ndarray, xy: np.ndarray, sigma: np.ndarray, radius: float, q: np.ndarray, q_sigma: float,
             q_radius: float, rest: tuple | None = None, others: list | None = None) -> PathGap | None:
    """The closest approach of a moving piece's path to a resting piece at ``q`` (mat mm, its mean
    rest position, 1-σ ``q_sigma`` per axis), from straight-line fits: between collisions a sliding
    disc runs on a straight line, so a line fitted over many samples places the path far more sharply
    than one sample's σ.

    ``ts`` (m,) s, ``xy`` (m, 2) mat mm and ``sigma`` (m,) the moving piece's samples from the start
    of its motion; ``rest`` (xy, σ of the mean, t) where it rested before it started (the line of its
    first stretch passes through it). The path is cut into straight stretches where it turns
    (:func:`straight_segments`, and where it came straight back); the sample next to a turn goes to
    the stretch whose line meets the other's between the samples either side of the cut (of the
    three cuts there, the one with the smaller residuals), and each stretch covers its samples and
    reaches on to where it turned (where the lines cross; else one more frame's travel at most).
    The gap to the footprint is, for each stretch, its lateral offset from ``q`` where the foot of
    the perpendicular falls inside the stretch; where it falls beyond a corner the lines cross at,
    the distance to that corner ("kink", its σ from both lines' fits); else the distance to its end:
    where the piece came to rest (the stop of a slide at constant deceleration fitted to the whole
    last stretch, :func:`_slide_stop`; else the mean of the samples there) or the last sample; the
    smallest wins. A turn between two stretches
    at the resting piece is reported as ``deflected``: positive when the path turned away from it (a
    touch pushes the mover off the piece it touched); not when one of ``others`` ((xy, radius) of the
    other pieces near that instant) stands at least as close to the turn (it may have turned the path).
    None with fewer than two samples."""
    ts, xy, sigma = np.asarray(ts, float), np.asarray(xy, float).reshape(-1, 2), np.asarray(sigma, float)
    if len(ts) < 2:
        return None
    P, w, T = xy, 1.0 / np.maximum(sigma, 1e-3) ** 2, ts
    if rest is not None:
        P = np.vstack([np.asarray(rest[0], float)[None, :], P])
        w = np.r_[1.0 / max(float(rest[1]), 1e-3) ** 2, w]
        T = np.r_[float(rest[2]), T]
    segs = []
    for i, j in straight_segments(P, w):  # a bounce straight back stays on its line: cut it where it turned
        far = i + int(np.argmax(np.linalg.norm(P[i:j] - P[i], axis=1)))
        if j - far > 1 and far - i >= 1 and \
                float(np.linalg.norm(P[j - 1] - P[far])) > 4.0 * np.sqrt(2.0) / np.sqrt(min(w[far], w[j - 1])):
            segs += [(i, far + 1), (far + 1, j)]
        else:
            segs.append((i, j))
    R = radius + q_radius
    best = None

    def fit(i, j):
        c, u, n, W, Sss, chi2 = _line_fit(P[i:j], w[i:j])
        if float(np.dot(P[j - 1] - P[i], u)) < 0:  # orient along the motion
            u = -u
        return (i, j, c, u, n, W, Sss, chi2)

    def crossing(f1, f2):
        """Where line f1 turned onto line f2, when they cross between f1's last sample and f2's
        first (each line reaching at most the distance between those two samples, and ¼ of it
        back): (K, along f1 beyond its last sample, along f2 before its first sample); else None."""
        u1, u2 = f1[3], f2[3]
        if abs(float(u1[0] * u2[1] - u1[1] * u2[0])) < np.sin(np.radians(3.0)):
            return None
        a1, a2 = np.linalg.solve(np.array([u1, -u2]).T, f2[2] - f1[2])
        out1 = float(a1 - np.dot(P[f1[1] - 1] - f1[2], u1))
        in2 = float(np.dot(P[f2[0]] - f2[2], u2) - a2)
        gap_s = float(np.linalg.norm(P[f2[0]] - P[f1[1] - 1]))
        if not (-0.25 * gap_s <= out1 <= gap_s and -0.25 * gap_s <= in2 <= gap_s):
            return None
        return f1[2] + a1 * u1, max(out1, 0.0), max(in2, 0.0)

    # the sample next to a turn may belong to either stretch (the turn came between it and its
    # neighbour, or just after it): of the three ways to cut there, the one whose lines meet between
    # the samples either side of the cut, with the smaller residuals
    for m in range(len(segs) - 1):
        (i1, j1), (_, j2) = segs[m], segs[m + 1]
        options = []
        for b in (j1 - 1, j1, j1 + 1):
            if b - i1 < 2 or j2 - b < 2:
                continue
            f1, f2 = fit(i1, b), fit(b, j2)
            if crossing(f1, f2) is not None:
                options.append((f1[7] + f2[7], b))
        if options:
            b = min(options)[1]
            segs[m], segs[m + 1] = (i1, b), (b, j2)
    fits = [fit(i, j) for i, j in segs]
    corners = [crossing(fits[k], fits[k + 1]) for k in range(len(fits) - 1)]

    def corner_gap(k):
        """The gap between the resting piece's footprint and corner ``k``, with its 1-σ from the two
        lines' fits (their offsets and directions, each scaled by its residuals where they exceed
        the noise) and the resting piece's place."""
        def at(params):
            lines = []
            for f, (dn, da) in zip((fits[k], fits[k + 1]), params):
                lines.append((f[2] + dn * f[4], np.cos(da) * f[3] + np.sin(da) * f[4]))
            (c1, v1), (c2, v2) = lines
            a1, _ = np.linalg.solve(np.array([v1, -v2]).T, c2 - c1)
            return float(np.linalg.norm(c1 + a1 * v1 - q)) - R
        g0 = at([(0.0, 0.0), (0.0, 0.0)])
        var = q_sigma ** 2
        for li, f in enumerate((fits[k], fits[k + 1])):
            i_, j_, W_, S_, chi_ = f[0], f[1], f[5], f[6], f[7]
            sc = max(1.0, np.sqrt(chi_ / (j_ - i_ - 2))) if j_ - i_ > 2 else 1.0
            for pi, sd in enumerate((sc / np.sqrt(W_), sc / np.sqrt(S_) if S_ > 0 else np.inf)):
                if not np.isfinite(sd):
                    return g0, np.inf
                h = 1e-3 * sd
                p = [[0.0, 0.0], [0.0, 0.0]]
                p[li][pi] = h
                var += ((at(p) - g0) / h * sd) ** 2
        return g0, float(np.sqrt(var))

    def reach(f1, f2, step):
        """How far along f1's direction, beyond its last sample, the path went before it turned onto
        f2: to where the lines cross, at most one more ``step`` (a turn straight back: a step)."""
        u1, u2 = f1[3], f2[3]
        if abs(float(u1[0] * u2[1] - u1[1] * u2[0])) < np.sin(np.radians(10.0)):
            return step
        A = np.array([u1, -u2]).T
        a1, _ = np.linalg.solve(A, f2[2] - f1[2])
        return float(np.clip(a1 - float(np.dot(P[f1[1] - 1] - f1[2], u1)), 0.0, step))

    for k, (i, j, c, u, n, W, Sss, chi2) in enumerate(fits):
        s = (P[i:j] - c) @ u
        lo, hi = float(s.min()), float(s.max())
        if k > 0:  # the path came in from the previous stretch: from where the lines cross, else a step
            lo -= corners[k - 1][2] if corners[k - 1] is not None else float(np.linalg.norm(P[i] - P[i - 1]))
        if k + 1 < len(fits):
            step = float(np.linalg.norm(P[j - 1] - P[j - 2])) if j - i >= 2 else float(np.linalg.norm(P[j] - P[j - 1]))
            hi += corners[k][1] if corners[k] is not None else reach(fits[k], fits[k + 1], step)
        sq0 = float(np.dot(q - c, u))
        kc = k - 1 if (k > 0 and corners[k - 1] is not None and sq0 < lo) else \
            (k if (k + 1 < len(fits) and corners[k] is not None and sq0 > hi) else None)
        if kc is not None:
            # the piece lies beyond the corner the path turned at: there the path came closest
            g_k, s_k = corner_gap(kc)
            f1, f2 = fits[kc], fits[kc + 1]
            t_k = float(T[f1[1] - 1] + (T[f2[0]] - T[f1[1] - 1]) * corners[kc][1] / max(corners[kc][1] + corners[kc][2], 1e-9))
            cand = (g_k, s_k, "kink", t_k, k)
            if best is None or cand[0] < best[0]:
                best = cand
            continue
        dof = j - i - 2
        scale = max(1.0, np.sqrt(chi2 / dof)) if dof > 0 else 1.0
        sq = float(np.dot(q - c, u))
        if lo <= sq <= hi and j - i >= 2:
            # a touch would be at the foot, and would turn the path there (away from the piece, by
            # an angle the few samples after it may not show): the path is fitted as two lines that
            # meet at the foot, lateral offsets d + β_in (s - sq) before it and d + β_out (s - sq)
            # after it, and d is the path's offset where it passed the piece (unbiased either way)
            r = (P[i:j] - c) @ n
            ds = s - sq
            before = ds <= 0
            cols = [np.ones(len(ds))]
            if before.any():
                cols.append(np.where(before, ds, 0.0))
            if (~before).any():
                cols.append(np.where(before, 0.0, ds))
            X = np.column_stack(cols)
            WX = X * w[i:j, None]
            cov = np.linalg.pinv(X.T @ WX)
            beta = cov @ (WX.T @ r)
            chi2k = float((w[i:j] * (r - X @ beta) ** 2).sum())
            dofk = len(r) - X.shape[1]
            scale = max(1.0, np.sqrt(chi2k / dofk)) if dofk > 0 else 1.0
            rq = float(np.dot(q - c, n))
            d = abs(float(beta[0]) - rq)
            var = scale ** 2 * float(cov[0, 0]) + q_sigma ** 2
            t = float(np.interp(sq, s[np.argsort(s)], T[i:j][np.argsort(s)]))
            cand = (d - R, float(np.sqrt(var)), "line", t, k)
        else:
            end = j - 1 if sq > hi else i
            # the slide's samples: from the first that left the rest it started from (a piece struck
            # later than the flick rested until then)
            first = i
            while first < j - 1 and float(np.linalg.norm(P[first + 1] - P[i])) < 3.0 * np.sqrt(2.0 / w[first + 1]):
                first += 1
            first += 1 if first > i or (i == 0 and rest is not None) else 0
            stop = _slide_stop(T[first:j], (P[first:j] - c) @ u, w[first:j]) \
                if end == j - 1 and k + 1 == len(fits) else None
            if stop is not None:
                # where it came to rest, from the whole slide (see _slide_stop), on the stretch's line
                s_stop, var_s, t_end = stop
                e = c + s_stop * u
                var_n = scale ** 2 * (1.0 / W + s_stop ** 2 / max(Sss, 1e-9))  # the line's offset there (c: its centroid)
                dq = (q - e) / max(float(np.linalg.norm(q - e)), 1e-9)
                var = float(np.dot(dq, u)) ** 2 * var_s + float(np.dot(dq, n)) ** 2 * var_n + q_sigma ** 2
            else:
                # the samples where the piece rested at that end: their mean
                near = [m for m in range(i, j) if np.linalg.norm(P[m] - P[end]) < 3.0 * np.sqrt(2.0) / np.sqrt(w[end])]
                e = (w[near][:, None] * P[near]).sum(0) / w[near].sum()
                var = 1.0 / float(w[near].sum()) + q_sigma ** 2
                t_end = float(T[min(near)]) if end == j - 1 else float(T[end])  # when it got there
            cand = (float(np.linalg.norm(e - q)) - R, float(np.sqrt(var)), "end", t_end, k)
        if best is None or cand[0] < best[0]:
            best = cand
    gap, sig, how, t, k = best
    deflected = 0.0
    for kk in (k - 1, k):  # a turn at either end of the closest stretch, at the resting piece
        if kk < 0 or kk + 1 >= len(fits):
            continue
        i1, j1, c1, u1, n1, W1, S1, _ = fits[kk]
        i2, j2, c2, u2, n2, W2, S2, _ = fits[kk + 1]
        # where the two lines cross (the kink), else half-way between the stretches
        A = np.array([u1, -u2]).T
        if abs(np.linalg.det(A)) > 1e-6:
            a1, _ = np.linalg.solve(A, c2 - c1)
            K = c1 + a1 * u1
        else:
            K = 0.5 * (P[j1 - 1] + P[i2])
        gap_k = float(np.linalg.norm(K - q)) - R
        if abs(gap_k) > 5.0 + 5.0 * sig:
            continue  # the turn happened elsewhere
        # another piece could have turned it: one as close to where the lines cross, or to the path
        # between the samples around the turn (for a small turn the crossing is poorly placed)
        a0, a1 = P[j1 - 1], P[i2]
        if any(min(float(np.linalg.norm(K - np.asarray(o[0], float))),
                   closest_approach(a0, a1, np.asarray(o[0], float))[1]) - radius - float(o[1]) <= max(gap_k, 0.0) + 5.0 * sig
               for o in (others or [])):
            continue
        away = (K - q) / max(float(np.linalg.norm(K - q)), 1e-9)
        turn = float(np.dot(u2 - u1, away))
        s_turn = np.sqrt(1.0 / S1 + 1.0 / S2) if S1 > 0 and S2 > 0 else np.inf
        if kk == k - 1 and how == "line" or kk == k:
            deflected = max(deflected, turn / s_turn) if np.isfinite(s_turn) else deflected
    return PathGap(float(gap), float(sig), how, float(t), float(deflected), len(fits))
