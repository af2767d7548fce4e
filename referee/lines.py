"""Side of a line: inside/outside the three-point line, behind the foul line.

Frame: mat mm. Discs are (n, 2) centres, (n,) radii and (n,) combined σ; batch-first, pure.

Three-point line: the board's ``three-point`` region is the area inside the line (a circle clipped
to the mat). "If the dinosaur performing the Shoot action is outside the three-point line" does not
say how a disc straddling the line counts, so ``mode`` chooses (``RefereeConfig.three_point`` and
the Dino Dunk engine's option ``three_point_judged_by`` carry the same names):

- ``centre``      outside when the base centre is outside:           margin = d
- ``whole_disc``  outside when no part of the disc is inside:        margin = d − r
- ``any_part``    outside when some part of the disc is outside:     margin = d + r

with d the signed distance from the centre to the line (positive outside).

Foul line: "place the ball token behind the foul line". The line is the straight segment of the
board's ``foul-line``, extended; behind is the side away from ``front`` (the scoring zone's centre).
``whole_disc`` (default) needs the whole token behind it (margin = d − r), ``centre`` only its centre.
"""

from __future__ import annotations

import numpy as np

from referee.core import Circle, Distance, Label, RefereeError, Segment, Verdict, make_verdicts
from referee.overlap import _arrays, region_shapes
from referee.regions import signed_distance_and_nearest

THREE_POINT_MODES = {"centre": 0.0, "whole_disc": -1.0, "any_part": 1.0}
FOUL_LINE_MODES = {"whole_disc": -1.0, "centre": 0.0}


def outside_margin(xy, radius, region, mode: str = "centre") -> tuple[np.ndarray, np.ndarray]:
    """((n,) margin in mm, > 0 when disc i is outside the region's line under ``mode``; (n, 2)
    nearest point of the line)."""
    if mode not in THREE_POINT_MODES:
        raise RefereeError(f"three-point mode must be one of {', '.join(THREE_POINT_MODES)}, got {mode!r}")
    xy, radius = _arrays(xy, radius)
    sd, near = signed_distance_and_nearest(xy, region)
    return sd + THREE_POINT_MODES[mode] * radius, near


def outside_calls(xy, radius, sigma, region, *, k: float, mode: str = "centre", names=None,
                  region_name: str = "", frame_ids=()) -> list[Verdict]:
    """"Is piece i outside the line bounding ``region``?" (the three-point line) for n discs."""
    xy, radius = _arrays(xy, radius)
    names = list(names) if names is not None else [f"piece {i}" for i in range(len(xy))]
    rname = region_name or getattr(region, "name", "region")
    margin, near = outside_margin(xy, radius, region, mode)
    shift = THREE_POINT_MODES[mode] * radius
    evidence = [tuple(region_shapes(region, rname)) + (
        Circle(float(c[0]), float(c[1]), float(r), label=n),
        Distance(float(c[0]), float(c[1]), float(p[0]), float(p[1]), float(m - s), label=f"centre to line {m - s:.1f} mm"),
        Label(float(c[0]), float(c[1]) - float(r) - 4, f"margin {m:+.2f} mm ({mode})"))
        for c, r, p, m, s, n in zip(xy, radius, near, margin, shift, names)]
    return make_verdicts([f"{n} is outside {rname} ({mode})" for n in names], value=margin - shift,
                         threshold=-shift, margin=margin, sigma=sigma, k=k, evidence=evidence,
                         frame_ids=frame_ids, detail=[{"piece": n, "mode": mode} for n in names])


def behind_margin(xy, radius, line_points, front, mode: str = "whole_disc") -> np.ndarray:
    """(n,) margin in mm, > 0 when disc i is behind the straight line through ``line_points``
    ((2+, 2) mat mm; first and last point used) on the side away from ``front`` (x, y)."""
    if mode not in FOUL_LINE_MODES:
        raise RefereeError(f"foul-line mode must be one of {', '.join(FOUL_LINE_MODES)}, got {mode!r}")
    xy, radius = _arrays(xy, radius)
    pts = np.asarray(line_points, dtype=np.float64).reshape(-1, 2)
    a, b = pts[0], pts[-1]
    direction = b - a
    length = float(np.hypot(*direction))
    if length == 0:
        raise RefereeError("a line needs two distinct points")
    normal = np.array([-direction[1], direction[0]]) / length
    front_side = float((np.asarray(front, dtype=np.float64) - a) @ normal)
    if front_side == 0:
        raise RefereeError("the reference point lies on the line: cannot tell behind from in front")
    normal = -normal if front_side > 0 else normal
    d = (xy - a) @ normal
    return d + FOUL_LINE_MODES[mode] * radius


def behind_calls(xy, radius, sigma, line, front, *, k: float, mode: str = "whole_disc", names=None,
                 frame_ids=()) -> list[Verdict]:
    """"Is piece i behind the line?" for n discs; ``line`` a calibration Line (or (n, 2) points)."""
    xy, radius = _arrays(xy, radius)
    names = list(names) if names is not None else [f"piece {i}" for i in range(len(xy))]
    pts = line.as_array() if hasattr(line, "as_array") else np.asarray(line, dtype=np.float64)
    lname = getattr(line, "name", "line")
    margin = behind_margin(xy, radius, pts, front, mode)
    shift = FOUL_LINE_MODES[mode] * radius
    a, b = pts[0], pts[-1]
    seg = Segment(float(a[0]), float(a[1]), float(b[0]), float(b[1]), label=lname, role="boundary")
    evidence = []
    for c, r, m, s, n in zip(xy, radius, margin, shift, names):
        t = np.clip((c - a) @ (b - a) / ((b - a) @ (b - a)), -10, 10)
        foot = a + t * (b - a)
        evidence.append((seg, Circle(float(c[0]), float(c[1]), float(r), label=n),
                         Distance(float(c[0]), float(c[1]), float(foot[0]), float(foot[1]), float(m - s),
                                  label=f"centre to line {m - s:.1f} mm"),
                         Label(float(c[0]), float(c[1]) - float(r) - 4, f"margin {m:+.2f} mm ({mode})")))
    return make_verdicts([f"{n} is behind {lname} ({mode})" for n in names], value=margin - shift,
                         threshold=-shift, margin=margin, sigma=sigma, k=k, evidence=evidence,
                         frame_ids=frame_ids, detail=[{"piece": n, "mode": mode} for n in names])
