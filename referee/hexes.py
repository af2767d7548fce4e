"""Dodo Dash on the hex track: which hex each racer stands on, race order, zone-trap hexes, and the
racers a projectile's landing footprint touches.

Frame: mat mm. A track is a :class:`calibration.board.Track` (``centres()`` (h, 2) in race order,
index 0 the first hex past the finish line). Batch-first and pure; empty in, empty out.

Which hex: the nearest hex centre on the track. The margin is the distance from the racer's base
centre to the boundary between its hex and the runner-up (the perpendicular bisector of the two
centres: exactly the shared hex edge for neighbours). A racer farther from every centre than the
hex's circumradius (``hex_mm / √3``) is off the track: too_close, for a person to place.

Zone traps (rulebook): "triggered by ending your movement on any hexes between the Zone Trap tile
(including it) and the next Trap tile on the track, regardless of its type, active or not (not
including the hex of the second tile)".

Projectiles: "Any Racers touched by it are considered hit". The landing footprint is a disc
(meteorite, egg, feather, banana, dodo) or a rotated rectangle (the log); a racer is touched when
its base disc meets the footprint (gap ≤ 0; margin = −gap). Which racer the Feather or Dodo touched
*first* is a question of the flight (vision's contacts), not of where the token landed.
"""

from __future__ import annotations

import math

import numpy as np

from referee.core import Circle, Distance, Label, Polygon, RefereeError, Segment, Verdict, make_verdicts, quadrature
from referee.overlap import _arrays


def nearest_hex(xy, centres) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For (n, 2) points and (h, 2) hex centres (h ≥ 2): ((n,) nearest index, (n,) runner-up index,
    (n,) distance to the bisector between them (mm, ≥ 0), (n,) distance to the nearest centre)."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2) if np.size(xy) else np.zeros((0, 2))
    c = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    if len(c) < 2:
        raise RefereeError("a track needs at least two hexes")
    if len(xy) == 0:
        z = np.zeros(0, dtype=np.int64)
        return z, z, np.zeros(0), np.zeros(0)
    d2 = ((xy[:, None, :] - c[None, :, :]) ** 2).sum(-1)  # (n, h)
    order = np.argsort(d2, axis=1)
    i, j = order[:, 0], order[:, 1]
    rows = np.arange(len(xy))
    # distance from p to the bisector of ci, cj: (|p-cj|^2 - |p-ci|^2) / (2 |cj - ci|); the smallest
    # over all other hexes is the distance to the edge of i's cell
    sep = np.hypot(*(c[None, :, :] - c[i][:, None, :]).transpose(2, 0, 1))  # (n, h)
    with np.errstate(divide="ignore", invalid="ignore"):
        bis = (d2 - d2[rows, i][:, None]) / (2 * sep)
    bis[rows, i] = np.inf
    runner = np.argmin(bis, axis=1)
    return i, runner, bis[rows, runner], np.sqrt(d2[rows, i])


def hex_calls(xy, sigma, track, *, k: float, names=None, frame_ids=()) -> list[Verdict]:
    """"Which hex of ``track`` does racer i stand on?" for n racers: ``finding`` is
    ``"<track>:<index>"``; yes confirms it, too_close when within k σ of the edge or off the track."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2) if np.size(xy) else np.zeros((0, 2))
    names = list(names) if names is not None else [f"racer {i}" for i in range(len(xy))]
    c = track.centres()
    i, j, margin, dist = nearest_hex(xy, c)
    circum = track.hex_mm / math.sqrt(3.0)
    off = dist > circum
    margin = np.where(off, np.nan, margin)
    evidence, details = [], []
    for n in range(len(xy)):
        hi, hj = int(i[n]), int(j[n])
        mid = (c[hi] + c[hj]) / 2
        u = c[hj] - c[hi]
        u = u / max(float(np.hypot(*u)), 1e-12)
        e = np.array([-u[1], u[0]]) * track.hex_mm / (2 * math.sqrt(3.0))
        foot = xy[n] + u * (0 if off[n] else margin[n])
        evidence.append((_hexagon(c[hi], track.hex_mm, f"{track.name}:{hi}"),
                         _hexagon(c[hj], track.hex_mm, f"{track.name}:{hj}", role="region"),
                         Segment(*map(float, mid - e), *map(float, mid + e), label="hex edge", role="boundary"),
                         Circle(*map(float, xy[n]), 2.0, label=names[n]),
                         Distance(*map(float, xy[n]), *map(float, foot), float(0 if off[n] else margin[n]),
                                  label=f"to edge {0 if off[n] else margin[n]:.1f} mm"),
                         Label(*map(float, xy[n] + [0, -6]), "off the track" if off[n] else f"hex {hi}")))
        details.append({"racer": names[n], "track": track.name, "hex": hi, "runner_up": hj,
                        "off_track": bool(off[n]), "centre_distance_mm": float(dist[n])})
    return make_verdicts([f"{nm} stands on which hex of {track.name}" for nm in names], value=np.nan_to_num(margin, nan=-1.0),
                         threshold=0.0, margin=margin, sigma=sigma, k=k,
                         finding=[f"{track.name}:{int(h)}" for h in i], evidence=evidence, frame_ids=frame_ids,
                         detail=details)


def _hexagon(centre, across_flats: float, label: str, role: str = "footprint") -> Polygon:
    r = across_flats / math.sqrt(3.0)
    pts = tuple((float(centre[0] + r * math.cos(math.radians(30 + 60 * t))),
                 float(centre[1] + r * math.sin(math.radians(30 + 60 * t)))) for t in range(6))
    return Polygon(pts, label=label, role=role)


def race_order(hex_index, laps=None, track_length: int | None = None, uncertain=None) -> list[tuple[list[int], bool]]:
    """Racers grouped by position, leader first, as ``(members, settled)``: ``hex_index`` (n,) from
    :func:`hex_calls`, ``laps`` (n,) completed laps (default 0), ``track_length`` hexes per lap.
    Racers on the same hex share a group (a tie, which the rulebook allows: "In case of a tie for
    Lead Racer"). A racer whose hex call is ``uncertain`` ((n,) bool: too_close) might be one hex
    either way, so its group is merged with the groups one hex ahead and behind and marked
    ``settled=False``: a person orders them."""
    idx = np.asarray(hex_index, dtype=np.int64).reshape(-1)
    if len(idx) == 0:
        return []
    laps = np.zeros(len(idx), dtype=np.int64) if laps is None else np.asarray(laps, dtype=np.int64).reshape(-1)
    length = int(track_length or (idx.max() + 1))
    progress = laps * length + idx
    unc = np.zeros(len(idx), dtype=bool) if uncertain is None else np.asarray(uncertain, dtype=bool).reshape(-1)
    # each racer covers [progress - u, progress + u]; overlapping intervals are one group
    lo = progress - unc
    hi = progress + unc
    order = np.argsort(-hi, kind="stable")
    groups: list[tuple[list[int], bool]] = []
    cur: list[int] = []
    cur_lo = None
    for m in order:
        if cur and hi[m] < cur_lo:
            groups.append(cur)
            cur = []
        cur_lo = lo[m] if not cur else min(cur_lo, lo[m])
        cur.append(int(m))
    groups.append(cur)
    return [(sorted(g), not any(unc[m] for m in g)) for g in groups]


def zone_hexes(track, zone_trap: int) -> list[int]:
    """Track indices in the zone of the Zone Trap on hex ``zone_trap``: from it (included) up to the
    next trap hex of the track in race order (excluded), wrapping on a closed track."""
    traps = sorted(int(t) for t in track.traps)
    if zone_trap not in traps:
        raise RefereeError(f"hex {zone_trap} of track {track.name!r} is not a trap hex; traps are {traps}")
    n = len(track.hexes)
    out = [zone_trap]
    h = zone_trap + 1
    while True:
        if h >= n:
            if not track.closed:
                break
            h -= n
        if h in traps:
            break
        out.append(h)
        h += 1
    return out


def in_zone_calls(xy, sigma, track, zone_trap: int, *, k: float, names=None, frame_ids=()) -> list[Verdict]:
    """"Did racer i end on a hex of the zone of the Zone Trap at ``zone_trap``?" The margin is the
    distance to the nearest bisector between a zone hex and a hex outside it (a lower bound on the
    distance to the zone's edge, so σ bands are never narrower than they should be)."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2) if np.size(xy) else np.zeros((0, 2))
    names = list(names) if names is not None else [f"racer {i}" for i in range(len(xy))]
    zone = set(zone_hexes(track, zone_trap))
    c = track.centres()
    i, _, _, dist = nearest_hex(xy, c)
    inside = np.array([h in zone for h in i], dtype=bool)
    margins = []
    for n in range(len(xy)):
        d2 = ((c - xy[n]) ** 2).sum(-1)
        sep = np.hypot(*(c - c[i[n]]).T)
        others = [h for h in range(len(c)) if (h in zone) != inside[n]]
        bis = min(((d2[h] - d2[i[n]]) / (2 * sep[h]) for h in others), default=np.inf)
        margins.append(bis if inside[n] else -bis)
    margins = np.array(margins, dtype=np.float64)
    margins[dist > track.hex_mm / math.sqrt(3.0)] = np.nan
    evidence = [tuple(_hexagon(c[h], track.hex_mm, f"zone {h}", role="region") for h in sorted(zone))
                + (Circle(*map(float, p), 2.0, label=nm),) for p, nm in zip(xy, names)]
    return make_verdicts([f"{nm} in the zone of the trap on {track.name}:{zone_trap}" for nm in names],
                         value=np.nan_to_num(margins, nan=0.0), threshold=0.0, margin=margins, sigma=sigma, k=k,
                         evidence=evidence, frame_ids=frame_ids,
                         detail=[{"racer": nm, "hex": int(h), "zone": sorted(zone)} for nm, h in zip(names, i)])


# --------------------------------------------------------------------------------------------
# projectiles


def footprint_gaps(xy, radius, footprint: dict) -> tuple[np.ndarray, np.ndarray]:
    """((n,) gap mm between n racer discs and the projectile's landing footprint, negative when they
    overlap; (n, 2) the footprint's point nearest each racer). ``footprint`` is
    ``{"xy": (x, y), "radius": r}`` for a round token or ``{"xy": (x, y), "size": (length, width),
    "angle": degrees}`` for the log (counter-clockwise from +x, as drawn)."""
    xy, radius = _arrays(xy, radius)
    centre = np.asarray(footprint["xy"], dtype=np.float64).reshape(2)
    if len(xy) == 0:
        return np.zeros(0), np.zeros((0, 2))
    size = footprint.get("size")
    if size is not None and len(size) == 2 and min(size) > 0:
        a = math.radians(float(footprint.get("angle", 0.0)))
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        local = (xy - centre) @ rot  # racer centres in the log's frame
        half = np.asarray(size, dtype=np.float64) / 2
        clamped = np.clip(local, -half, half)
        dxy = np.abs(local) - half
        outside = np.hypot(np.maximum(dxy[:, 0], 0), np.maximum(dxy[:, 1], 0))
        inside = np.minimum(np.maximum(dxy[:, 0], dxy[:, 1]), 0)
        return outside + inside - radius, clamped @ rot.T + centre
    r = float(footprint["radius"])
    v = xy - centre
    d = np.hypot(v[:, 0], v[:, 1])
    u = np.where(d[:, None] > 0, v / np.where(d > 0, d, 1.0)[:, None], np.array([1.0, 0.0]))
    return d - r - radius, centre + u * r


def hit_calls(xy, radius, sigma, footprint: dict, footprint_sigma: float, *, k: float, names=None,
              projectile: str = "projectile", frame_ids=(), pair_sigma=None) -> list[Verdict]:
    """"Did the ``projectile``'s landing footprint touch racer i?" for n racers (touch: gap ≤ 0).
    σ: ``pair_sigma`` (n,) when given (:func:`referee.core.pair_sigma`), else each racer's and the
    footprint's σ in quadrature."""
    xy, radius = _arrays(xy, radius)
    names = list(names) if names is not None else [f"racer {i}" for i in range(len(xy))]
    gap, near = footprint_gaps(xy, radius, footprint)
    margin = -gap
    sigma = quadrature(sigma, footprint_sigma) if pair_sigma is None else pair_sigma
    fp = _footprint_shape(footprint, projectile)
    evidence = [(fp, Circle(*map(float, c), float(r), label=nm),
                 Distance(*map(float, c), *map(float, p), float(g), label=f"gap {g:+.1f} mm"))
                for c, r, p, g, nm in zip(xy, radius, near, gap, names)]
    return make_verdicts([f"{projectile} touched {nm}" for nm in names], value=gap, threshold=0.0, margin=margin,
                         sigma=sigma, k=k, evidence=evidence, frame_ids=frame_ids,
                         detail=[{"racer": nm, "projectile": projectile} for nm in names])


def _footprint_shape(footprint: dict, label: str):
    c = np.asarray(footprint["xy"], dtype=np.float64).reshape(2)
    size = footprint.get("size")
    if size is not None and len(size) == 2 and min(size) > 0:
        a = math.radians(float(footprint.get("angle", 0.0)))
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        hl, hw = np.asarray(size, dtype=np.float64) / 2
        corners = np.array([[-hl, -hw], [hl, -hw], [hl, hw], [-hl, hw]]) @ rot.T + c
        return Polygon(tuple(map(tuple, corners.tolist())), label=label, role="footprint")
    return Circle(float(c[0]), float(c[1]), float(footprint["radius"]), label=label, role="region")
