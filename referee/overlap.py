"""Overlap of discs with regions, the shortest slide out of (or back onto) an area, out of bounds.

Frame: mat mm. Pieces are discs: (n, 2) base centres ``xy`` and (n,) radii ``radius``; ``sigma``
(n,) is each piece's combined 1-σ (registration and detection, see
:func:`referee.core.piece_sigma`). Batch-first and pure; empty in, empty out.

- overlap ("any part of the piece over the region"): margin = r − d, d the signed distance from the
  centre to the region's boundary (exact for circle-vs-circle, and for circle-vs-polygon through the
  distance from the centre to the polygon's boundary). Tangent is margin 0.
- out of bounds ("leaves the play area completely"): margin = d − r against the play area.
- slides: the shortest translation of the centre so that the disc is fully outside a zone (onto
  the boundary of zone ⊕ disc) or fully inside an area (onto the area eroded by the disc).
"""

from __future__ import annotations

import numpy as np

from referee.core import Circle, Label, Polygon, Segment, Verdict, make_verdicts
from referee.regions import exact_circle, region_geometry, signed_distance_and_nearest

BUFFER_QUAD_SEGS = 128  # arcs of a buffered polygon: chord error r (1 - cos(pi / 512)) < 2e-5 r


def _arrays(xy, radius):
    xy = np.asarray(xy, dtype=np.float64)
    xy = xy.reshape(-1, 2) if xy.size else np.zeros((0, 2))
    radius = np.broadcast_to(np.asarray(radius, dtype=np.float64), (len(xy),)).astype(np.float64)
    return xy, radius


def overlap_margin(xy, radius, region) -> tuple[np.ndarray, np.ndarray]:
    """((n,) signed margin r − d in mm, > 0 when the disc overlaps the region; (n, 2) nearest
    boundary point) for discs at (n, 2) mat-mm centres."""
    xy, radius = _arrays(xy, radius)
    sd, near = signed_distance_and_nearest(xy, region)
    return radius - sd, near


def region_shapes(region, name: str = "") -> list:
    """Evidence shapes that draw a region (a Circle when it is an exact circle)."""
    circle = exact_circle(region)
    label = name or getattr(region, "name", "")
    if circle is not None:
        return [Circle(*circle, label=label, role="region")]
    geom = region_geometry(region)
    if geom.geom_type == "MultiPolygon":
        geom = max(geom.geoms, key=lambda g: g.area)
    return [Polygon(tuple((float(x), float(y)) for x, y in np.asarray(geom.exterior.coords)), label=label, role="region")]


def overlap_calls(xy, radius, sigma, region, *, k: float, names=None, region_name: str = "",
                  frame_ids=()) -> list[Verdict]:
    """"Does any part of piece i overlap the region?" for n discs. yes when it does."""
    xy, radius = _arrays(xy, radius)
    names = list(names) if names is not None else [f"piece {i}" for i in range(len(xy))]
    rname = region_name or getattr(region, "name", "region")
    margin, near = overlap_margin(xy, radius, region)
    rshapes = region_shapes(region, rname)
    evidence = [tuple(rshapes) + _disc_to_point(xy[i], radius[i], near[i], names[i], margin[i]) for i in range(len(xy))]
    return make_verdicts([f"{n} overlaps {rname}" for n in names], value=radius - margin, threshold=radius,
                         margin=margin, sigma=sigma, k=k, evidence=evidence, frame_ids=frame_ids,
                         detail=[{"piece": n, "region": rname, "centre_to_boundary_mm": float(radius[i] - margin[i])}
                                 for i, n in enumerate(names)])


def out_of_bounds_calls(xy, radius, sigma, play_area, *, k: float, names=None, frame_ids=()) -> list[Verdict]:
    """"Is piece i completely outside the play area?" for n discs. ``play_area`` is a Region or a
    shapely polygon (the whole mat: ``shapely.box(0, 0, length, width)``)."""
    xy, radius = _arrays(xy, radius)
    names = list(names) if names is not None else [f"piece {i}" for i in range(len(xy))]
    inside_margin, near = overlap_margin(xy, radius, play_area)
    margin = -inside_margin
    area = region_shapes(play_area, "play area")
    evidence = [tuple(area) + _disc_to_point(xy[i], radius[i], near[i], names[i], margin[i]) for i in range(len(xy))]
    return make_verdicts([f"{n} is out of bounds" for n in names], value=radius + margin, threshold=radius,
                         margin=margin, sigma=sigma, k=k, evidence=evidence, frame_ids=frame_ids,
                         detail=[{"piece": n} for n in names])


def _disc_to_point(c, r, p, name, margin) -> tuple:
    from referee.core import Distance

    d = float(np.hypot(*(np.asarray(p) - c)))
    return (Circle(float(c[0]), float(c[1]), float(r), label=name),
            Distance(float(c[0]), float(c[1]), float(p[0]), float(p[1]), d, label=f"centre to edge {d:.1f} mm"),
            Label(float(c[0]), float(c[1]) - float(r) - 4.0, f"margin {margin:+.2f} mm"))


# --------------------------------------------------------------------------------------------
# slides


def slide_out_of(xy, radius, region) -> np.ndarray:
    """(n, 2) the shortest translation (mm) of each disc so that no part of it overlaps the region
    (zero for discs already clear). "When a dinosaur token overlaps a scoring zone, slide the token
    the shortest distance so that the entire token is outside of the scoring zone." A disc centred
    exactly on a circular zone's centre has no unique shortest slide; +x is returned."""
    xy, radius = _arrays(xy, radius)
    out = np.zeros_like(xy)
    if len(xy) == 0:
        return out
    circle = exact_circle(region)
    if circle is not None:
        cx, cy, rz = circle
        v = xy - np.array([cx, cy])
        dist = np.hypot(v[:, 0], v[:, 1])
        unit = np.where(dist[:, None] > 0, v / np.where(dist > 0, dist, 1.0)[:, None], np.array([1.0, 0.0]))
        need = np.maximum(rz + radius - dist, 0.0)
        return unit * need[:, None]
    import shapely

    geom = region_geometry(region)
    for i, (c, r) in enumerate(zip(xy, radius)):
        grown = geom.buffer(float(r), quad_segs=BUFFER_QUAD_SEGS)
        p = shapely.Point(c)
        if grown.contains(p):
            line = shapely.shortest_line(grown.boundary, p)
            target = np.asarray(line.coords)[0]
            out[i] = target - c
    return out


def slide_onto(xy, radius, area) -> np.ndarray:
    """(n, 2) the shortest translation (mm) that puts each disc entirely within ``area`` (a Region or
    shapely polygon; the mat for "slide the token the shortest distance so that the entire token is
    within the play area"). Zero for discs already inside. Exact for rectangles."""
    xy, radius = _arrays(xy, radius)
    out = np.zeros_like(xy)
    if len(xy) == 0:
        return out
    rect = None
    if getattr(area, "shape", None) == "rect" and getattr(area, "clip_to", None) is None:
        rect = area.params
    else:
        geom = region_geometry(area)
        if geom.geom_type == "Polygon" and len(geom.interiors) == 0 and np.isclose(geom.area, geom.envelope.area):
            rect = geom.bounds
    if rect is not None:
        x0, y0, x1, y1 = rect
        lo = np.column_stack([x0 + radius, y0 + radius])
        hi = np.column_stack([x1 - radius, y1 - radius])
        target = np.clip(xy, lo, np.maximum(lo, hi))
        return target - xy
    import shapely

    geom = region_geometry(area)
    for i, (c, r) in enumerate(zip(xy, radius)):
        core = geom.buffer(-float(r), quad_segs=BUFFER_QUAD_SEGS)
        p = shapely.Point(c)
        if core.is_empty or core.contains(p):
            continue
        line = shapely.shortest_line(core, p)
        out[i] = np.asarray(line.coords)[0] - c
    return out


def slide_shapes(xy, vectors, names=None) -> list[tuple]:
    """Evidence: one slide Segment per disc that has to move."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    vectors = np.asarray(vectors, dtype=np.float64).reshape(-1, 2)
    names = list(names) if names is not None else [f"piece {i}" for i in range(len(xy))]
    out = []
    for c, v, n in zip(xy, vectors, names):
        length = float(np.hypot(*v))
        out.append((Segment(float(c[0]), float(c[1]), float(c[0] + v[0]), float(c[1] + v[1]),
                            label=f"{n}: slide {length:.1f} mm", role="slide"),) if length > 0 else ())
    return out
