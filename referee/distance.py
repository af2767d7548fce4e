"""Edge-to-edge distance between pieces, card lengths, standard placement, placement areas.

Frame: mat mm. Pieces are discs ((n, 2) centres, (n,) radii, (n,) combined σ). Batch-first and pure;
empty in, empty out.

Rulebook (Dino Dunk, "Measuring Distance Using Card Length"): "Distance is measured as a straight
line from any part of one token to any part of another token": for discs that is the edge-to-edge
gap ``|ci − cj| − ri − rj`` (negative when they overlap, which real discs cannot: a measured
negative gap is read as touching). "A short card length refers to the width of a dinosaur's
Character Card, while a long card length refers to the length" (``Specs.short_card_mm`` 63.5,
``long_card_mm`` 88.9). "Standard placement": "the distance between both tokens is within the
height of one medium wooden disc" (``Specs.placement_gap_mm``, 9).

σ of a gap: both pieces' σ in quadrature, or, better, :func:`referee.core.pair_sigma` passed as
``sigma``: the registration error of the difference of the two positions (two near pieces are seen
through the same homography, so most of its error is shared and cancels) and both detection σ.
"""

from __future__ import annotations

import numpy as np

from referee.core import Circle, Distance, Label, Polygon, RefereeError, Verdict, make_verdicts, quadrature
from referee.overlap import _arrays


def edge_gaps(xy_a, radius_a, xy_b, radius_b) -> np.ndarray:
    """(n, m) edge-to-edge gaps in mm between n discs A and m discs B (negative = overlap)."""
    a, ra = _arrays(xy_a, radius_a)
    b, rb = _arrays(xy_b, radius_b)
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    d = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
    return d - ra[:, None] - rb[None, :]


def closest_points(xy_a, radius_a, xy_b, radius_b) -> tuple[np.ndarray, np.ndarray]:
    """((n, 2), (n, 2)): for n pairs of discs, the points of A and of B that are closest (on the
    segment between the centres; the edges where the gap is measured)."""
    a, ra = _arrays(xy_a, radius_a)
    b, rb = _arrays(xy_b, radius_b)
    v = b - a
    d = np.hypot(v[:, 0], v[:, 1])
    unit = np.where(d[:, None] > 0, v / np.where(d > 0, d, 1.0)[:, None], np.array([1.0, 0.0]))
    return a + unit * ra[:, None], b - unit * rb[:, None]


def within_calls(xy_a, radius_a, sigma_a, xy_b, radius_b, sigma_b, limit_mm: float, *, k: float,
                 names_a=None, names_b=None, limit_name: str = "", frame_ids=(), sigma=None) -> list[Verdict]:
    """"Is piece a_i within ``limit_mm`` of piece b_i (edge to edge)?" for n pairs (row-aligned
    arrays). yes when the gap is at most the limit; a negative gap counts as 0 (touching). The gap's
    σ is ``sigma`` (n,) when given (:func:`referee.core.pair_sigma`, which lets the shared
    registration error cancel), else ``sigma_a`` and ``sigma_b`` in quadrature."""
    a, ra = _arrays(xy_a, radius_a)
    b, rb = _arrays(xy_b, radius_b)
    if len(a) != len(b):
        raise RefereeError(f"within: {len(a)} pieces A but {len(b)} pieces B (pairs are row-aligned)")
    names_a = list(names_a) if names_a is not None else [f"piece {i}" for i in range(len(a))]
    names_b = list(names_b) if names_b is not None else [f"piece {i}" for i in range(len(b))]
    gap = np.maximum(np.diagonal(edge_gaps(a, ra, b, rb)) if len(a) else np.zeros(0), 0.0)
    margin = limit_mm - gap
    sigma = quadrature(sigma_a, sigma_b) if sigma is None else sigma
    pa, pb = closest_points(a, ra, b, rb)
    lname = limit_name or f"{limit_mm:g} mm"
    evidence = [(Circle(*map(float, a[i]), float(ra[i]), label=names_a[i]),
                 Circle(*map(float, b[i]), float(rb[i]), label=names_b[i]),
                 Circle(*map(float, a[i]), float(ra[i] + limit_mm), label=f"{lname} from {names_a[i]}", role="candidate"),
                 Distance(*map(float, pa[i]), *map(float, pb[i]), float(gap[i]), label=f"gap {gap[i]:.1f} mm"),
                 Label(*map(float, (a[i] + b[i]) / 2), f"margin {margin[i]:+.2f} mm"))
                for i in range(len(a))]
    return make_verdicts([f"{na} within {lname} of {nb}" for na, nb in zip(names_a, names_b)], value=gap,
                         threshold=limit_mm, margin=margin, sigma=sigma, k=k, evidence=evidence,
                         frame_ids=frame_ids,
                         detail=[{"a": na, "b": nb, "limit_mm": float(limit_mm)} for na, nb in zip(names_a, names_b)])


def distance_calls(xy_a, radius_a, sigma_a, xy_b, radius_b, sigma_b, *, k: float, names_a=None,
                   names_b=None, frame_ids=(), sigma=None) -> list[Verdict]:
    """"How far apart are a_i and b_i (edge to edge)?" as verdicts on "are they apart (gap > 0)?":
    the measurement is the gap in mm, too_close when the two are within k σ of touching."""
    a, ra = _arrays(xy_a, radius_a)
    b, rb = _arrays(xy_b, radius_b)
    names_a = list(names_a) if names_a is not None else [f"piece {i}" for i in range(len(a))]
    names_b = list(names_b) if names_b is not None else [f"piece {i}" for i in range(len(b))]
    gap = np.diagonal(edge_gaps(a, ra, b, rb)) if len(a) else np.zeros(0)
    pa, pb = closest_points(a, ra, b, rb)
    evidence = [(Circle(*map(float, a[i]), float(ra[i]), label=names_a[i]),
                 Circle(*map(float, b[i]), float(rb[i]), label=names_b[i]),
                 Distance(*map(float, pa[i]), *map(float, pb[i]), float(gap[i]), label=f"gap {gap[i]:.1f} mm"))
                for i in range(len(a))]
    return make_verdicts([f"distance between {na} and {nb} (apart?)" for na, nb in zip(names_a, names_b)],
                         value=gap, threshold=0.0, margin=gap,
                         sigma=quadrature(sigma_a, sigma_b) if sigma is None else sigma, k=k,
                         evidence=evidence, frame_ids=frame_ids,
                         detail=[{"a": na, "b": nb, "gap_mm": float(g)} for na, nb, g in zip(names_a, names_b, gap)])


def standard_placement_calls(xy_placed, radius_placed, sigma_placed, xy_target, radius_target, sigma_target,
                             gap_mm: float, *, k: float, names_placed=None, names_target=None,
                             frame_ids=(), sigma=None) -> list[Verdict]:
    """"Is the placed token adjacent to its target by standard placement (gap ≤ ``gap_mm``)?"
    The lower bound (touching, gap 0) is where tokens are normally placed, so only the upper bound
    is a margin: a measured overlap reads as touching."""
    verdicts = within_calls(xy_placed, radius_placed, sigma_placed, xy_target, radius_target, sigma_target,
                            gap_mm, k=k, names_a=names_placed, names_b=names_target,
                            limit_name=f"standard placement ({gap_mm:g} mm)", frame_ids=frame_ids, sigma=sigma)
    return verdicts


def placement_area(xy_from, radius_from: float, radius_piece: float, limit_mm: float, *, mat=None,
                   others_xy=None, others_radius=None, quad_segs: int = 64):
    """Where the *centre* of a piece of radius ``radius_piece`` may go so that the piece lies within
    ``limit_mm`` (edge to edge) of the token at ``xy_from`` (radius ``radius_from``): the annulus
    ``r_from + r_piece <= |c − c_from| <= r_from + r_piece + limit``, without overlapping the other
    tokens (``others_xy`` (m, 2), ``others_radius`` (m,)) and, when ``mat`` (a shapely polygon or
    Region) is given, with the whole piece on it. Returns a shapely geometry in mat mm (empty when
    nowhere fits); circles are drawn as ``quad_segs``·4-gons, so its edges are exact to
    r (1 − cos(π / (4 quad_segs))), 0.01 mm for r = 100 mm; judge a proposed position with
    :func:`within_calls`, which is exact."""
    import shapely

    c = np.asarray(xy_from, dtype=np.float64).reshape(2)
    outer = shapely.Point(c).buffer(radius_from + radius_piece + limit_mm, quad_segs=quad_segs)
    area = outer.difference(shapely.Point(c).buffer(radius_from + radius_piece, quad_segs=quad_segs))
    if others_xy is not None and np.size(others_xy):
        o, ro = _arrays(others_xy, others_radius)
        for oc, r in zip(o, ro):
            area = area.difference(shapely.Point(oc).buffer(r + radius_piece, quad_segs=quad_segs))
    if mat is not None:
        geom = mat.geometry if hasattr(mat, "shape") else mat
        area = area.intersection(geom.buffer(-radius_piece))
    return area


def placement_shapes(area, label: str = "may be placed here (centres)") -> list:
    """Evidence Polygons for a placement area (each part's exterior)."""
    if area.is_empty:
        return []
    parts = area.geoms if hasattr(area, "geoms") else [area]
    out = []
    for p in parts:
        if p.geom_type != "Polygon":
            continue
        for ring in [p.exterior, *p.interiors]:  # holes (the token itself, other pieces) drawn too
            out.append(Polygon(tuple((float(x), float(y)) for x, y in np.asarray(ring.coords)), label=label, role="area"))
    return out
