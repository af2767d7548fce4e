"""The right answers, computed from exact geometry in **mat mm** (shapely / closed forms), never from
images.

Per frame (:func:`frame_truth`): each piece's base centre (mat mm), height, z, moving or at rest,
attributes, and, when the frame was rendered, its image px base centre, visible fraction and bbox
(taken from the renderer's per-piece truth). Per scenario (:func:`scenario_truth`): the contact log,
events, settle time, the overlap of each piece with each region, edge-to-edge distances, and the
game's answers (score, points, first dinosaur struck, fouls and chains, Dodo Dash hits and first hit,
Morris egg faces, Dogo Dash revealed cards), plus near-miss margins.

Signed margins: :func:`region_margin` is how far (mm) a piece overlaps a region (> 0) or how far it
is from touching it (< 0): the distance the piece would have to move to change the answer.
"""

from __future__ import annotations

import math

from sim.physics import causal_tree, chain_to, is_box, touched
from sim.scene import PieceState, Scene

CIRCLE_QUAD_SEGS = 64  # a footprint circle as a 256-gon (chord error < 0.002 mm for r = 25 mm)
SKIP_REGION_KINDS = ("cell",)


def footprint(p: PieceState):
    """The piece's footprint on the mat: a shapely polygon in mat mm (disc or rotated rectangle)."""
    from shapely import affinity, box
    from shapely.geometry import Point

    if is_box(p):
        length, width = float(p.size[0]), float(p.size[1])
        geom = box(p.x - length / 2, p.y - width / 2, p.x + length / 2, p.y + width / 2)
        return affinity.rotate(geom, p.angle_deg, origin=(p.x, p.y)) if p.angle_deg else geom
    return Point(p.x, p.y).buffer(p.radius, quad_segs=CIRCLE_QUAD_SEGS)


def region_margin(p: PieceState, region_geom) -> float:
    """Signed mm: > 0 the piece overlaps the region by that depth, < 0 the gap to it. For a disc this
    is exact (the distance it must move to change the answer): r - distance(centre, region) when the
    centre is outside, r + distance(centre, boundary) when inside. For a rectangle the overlap depth is
    the depth of the deepest vertex of either shape inside the other (exact when one edge crosses)."""
    from shapely.geometry import Point

    if is_box(p):  # a rectangle: the deepest vertex of either shape inside the other, or the gap
        fp = footprint(p)
        if fp.intersection(region_geom).area > 0:
            inner = [float(region_geom.boundary.distance(Point(x, y))) for x, y in fp.exterior.coords
                     if region_geom.contains(Point(x, y))]
            ring = region_geom.exterior if hasattr(region_geom, "exterior") else region_geom.boundary
            inner += [float(fp.boundary.distance(Point(x, y))) for x, y in getattr(ring, "coords", [])
                      if fp.contains(Point(x, y))]
            return max(inner, default=0.0)
        return -float(fp.distance(region_geom))
    c = Point(p.x, p.y)
    if region_geom.contains(c):
        return p.radius + float(region_geom.boundary.distance(c))
    return p.radius - float(region_geom.distance(c))


def overlaps(scene: Scene, board, pieces: list | None = None) -> dict:
    """id -> region name -> {"overlaps": bool, "margin_mm": signed, "area_mm2": intersection area}
    for every on-mat piece (``pieces`` ids, default all) and every region but grid cells."""
    out = {}
    for p in scene.pieces:
        if pieces is not None and p.id not in pieces:
            continue
        if p.z > 0 and not p.attributes.get("carried_by"):
            continue
        fp = footprint(p)
        row = {}
        for name, region in board.regions.items():
            if region.kind in SKIP_REGION_KINDS:
                continue
            margin = region_margin(p, region.geometry)
            area = float(fp.intersection(region.geometry).area) if margin > -1e-9 else 0.0
            row[name] = {"overlaps": bool(margin > 0 and area > 0), "margin_mm": round(margin, 4), "area_mm2": round(area, 3)}
        out[p.id] = row
    return out


def edge_distance(a: PieceState, b: PieceState) -> float:
    """Edge-to-edge distance in mm (negative: overlap depth for two discs; 0 for touching boxes)."""
    if not is_box(a) and not is_box(b):
        return math.hypot(a.x - b.x, a.y - b.y) - a.radius - b.radius
    return float(footprint(a).distance(footprint(b)))


def closest_edge_gap(run, pid: str, kinds: tuple = ("disc-",)) -> tuple:
    """(gap mm, other id): the least edge-to-edge gap between disc ``pid`` and any other disc (kinds
    starting with one of ``kinds``) over ``run``'s frames and between them, with both pieces moving
    in a straight line at a steady pace from one frame to the next (exact where one of the two is at
    rest: the other slides along a straight line between frames unless it collides). Negative: they
    overlapped. (inf, None) when no other such piece shares two consecutive frames with it."""
    best = (math.inf, None)
    frames = run.frames
    for f0, f1 in zip(frames[:-1], frames[1:]):
        b0 = {p.id: p for p in f0.pieces}
        a0, a1 = b0.get(pid), next((p for p in f1.pieces if p.id == pid), None)
        if a0 is None or a1 is None:
            continue
        for q1 in f1.pieces:
            q0 = b0.get(q1.id)
            if q1.id == pid or q0 is None or not q1.kind.startswith(kinds):
                continue
            r0 = (q0.x - a0.x, q0.y - a0.y)
            dr = (q1.x - a1.x - r0[0], q1.y - a1.y - r0[1])
            dd = dr[0] ** 2 + dr[1] ** 2
            s = 0.0 if dd <= 0 else min(max(-(r0[0] * dr[0] + r0[1] * dr[1]) / dd, 0.0), 1.0)
            gap = math.hypot(r0[0] + s * dr[0], r0[1] + s * dr[1]) - a1.radius - q1.radius
            if gap < best[0]:
                best = (gap, q1.id)
    return best


def edge_distances(scene: Scene, ids: list | None = None) -> dict:
    """{"ids": [...], "mm": n x n nested list} of edge-to-edge distances between pieces."""
    pieces = [p for p in scene.pieces if ids is None or p.id in ids]
    mm = [[0.0 if a is b else round(edge_distance(a, b), 4) for b in pieces] for a in pieces]
    return {"ids": [p.id for p in pieces], "mm": mm}


def frame_truth(scene: Scene, render_truth: dict | None = None) -> dict:
    """One frame's truth: t and, per piece, base centre (mat mm), z, height, moving (sliding faster than
    1 mm/s or in the air), airborne, attributes, and
    from ``render_truth`` (the renderer's id -> {image px of base centre, visible fraction, bbox})."""
    rows = []
    for p in scene.pieces:
        airborne = p.z > 0 and not p.attributes.get("carried_by") and not p.attributes.get("static")
        row = {"id": p.id, "kind": p.kind, "x_mm": round(p.x, 4), "y_mm": round(p.y, 4), "z_mm": round(p.z, 4),
               "height_mm": p.height, "radius_mm": p.radius, "size_mm": list(p.size), "angle_deg": round(p.angle_deg, 4),
               "moving": p.moving or airborne, "airborne": airborne, "attributes": dict(p.attributes)}
        if render_truth and p.id in render_truth:
            rt = render_truth[p.id]
            rt = rt if isinstance(rt, dict) else getattr(rt, "__dict__", {})
            for k, v in rt.items():
                row[k] = _jsonable(v)
        rows.append(row)
    return {"t": scene.t, "pieces": rows}


def _jsonable(v):
    if hasattr(v, "tolist"):
        return v.tolist()
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, float):
        return round(v, 4)
    return v


# --- per game answers ------------------------------------------------------------------------------


def _is_disc(pid: str, scene: Scene) -> bool:
    p = scene.by_id().get(pid)
    return p is not None and p.kind.startswith("disc-")


def dino_dunk_answers(scn, board) -> dict:
    meta = scn.meta
    final = scn.final
    by_id = final.by_id()
    contacts = scn.run.contacts
    outs = scn.run.out_of_bounds()
    ans: dict = {"out_of_bounds": sorted(outs)}
    actor = meta.get("actor")
    action = meta.get("action")
    if actor:
        ans["touched"] = touched(contacts, actor)
        ans["first_touch"] = ans["touched"][0] if ans["touched"] else None
        static = {p.id for p in final.pieces if p.attributes.get("static")}
        tree = causal_tree(contacts, actor, static)
        ans["chains"] = {pid: chain_to(tree, pid) for pid in tree if len(chain_to(tree, pid)) > 2}
    zone_name = meta.get("target_zone")
    ball = by_id.get("ball")
    if zone_name and ball is not None:
        zone = board.region(zone_name).geometry
        ans["ball_zone_margin_mm"] = round(region_margin(ball, zone), 4)
        ans["ball_overlaps_zone"] = ans["ball_zone_margin_mm"] > 0 and "ball" not in outs
    if action == "shoot":
        tp = meta.get("three_point_region")
        shooter = scn.initial.by_id()[actor]
        outside = True if not tp else region_margin(shooter, board.region(tp).geometry) <= 0
        ans["shooter_outside_three_point"] = outside
        scored = ans.get("ball_overlaps_zone", False)
        ans["result"] = "turnover" if "ball" in outs else ("score" if scored else "loose-ball")
        ans["points"] = (3 if outside else 2) if ans["result"] == "score" else 0
    elif action == "pass":
        discs = {p.id for p in final.pieces if p.kind.startswith("disc-")} - {actor}
        first = next((c.b if c.a == "ball" else c.a for c in contacts
                      if "ball" in (c.a, c.b) and (c.b if c.a == "ball" else c.a) in discs), None)
        ans["first_struck_by_ball"] = first
        if first is not None:
            same = first.split(":")[0] == meta["offense"]
            ans["result"] = "caught" if same else "turnover"
        else:
            ans["result"] = "turnover" if "ball" in outs else "loose-ball"
    elif action == "dunk":
        carrier = meta["carrier"]
        still_on = bool(by_id["ball"].attributes.get("carried_by") == carrier)
        fell = [e for e in scn.run.events if e.kind == "ball-fell"]
        cm = region_margin(by_id[carrier], board.region(zone_name).geometry)
        ans.update(ball_on_top=still_on, ball_fell_at_s=fell[0].t if fell else None, carrier_zone_margin_mm=round(cm, 4),
                   carrier_overlaps_zone=cm > 0)
        if carrier in outs:
            ans["result"] = "turnover"
        elif not still_on:
            ans["result"] = "loose-ball"
        else:
            ans["result"] = "dunk" if cm > 0 else "retains"
        ans["points"] = 2 if ans["result"] == "dunk" else 0
    carrier = meta.get("carrier")
    if action == "move" and actor and carrier and carrier != actor:
        disc_contacts = [c for c in contacts if _is_disc(c.a, final) and _is_disc(c.b, final)]
        tree = causal_tree(disc_contacts, actor)
        struck = carrier in tree
        path = chain_to(tree, carrier)
        mover_side = actor.split(":")[0]
        ans["carrier_struck"] = struck
        ans["carrier_chain"] = path
        ans["foul"] = struck and mover_side != meta.get("offense")
        ans["stunned"] = struck and mover_side == meta.get("offense")
        ans["gained_ball"] = "ball" in touched(contacts, actor) and not struck
    if meta.get("near_miss") == "card-gap":
        d = edge_distance(by_id[actor], by_id[meta["target_piece"]])
        ans["edge_gap_mm"] = round(d, 4)
        ans["within_card_length"] = d <= meta["card_mm"]
        ans["margin_mm"] = round(meta["card_mm"] - d, 4)
    elif meta.get("near_miss") == "zone-edge":
        ans["margin_mm"] = ans.get("ball_zone_margin_mm")
    elif meta.get("near_miss") == "three-point":  # > 0: the shooter overlaps the three-point area
        shooter = scn.initial.by_id()[actor]
        ans["margin_mm"] = round(region_margin(shooter, board.region(meta["three_point_region"]).geometry), 4)
    elif meta.get("near_miss") == "placement-gap":
        gap = edge_distance(by_id[actor], by_id["ball"])
        ans["placement_gap_mm"] = round(gap, 4)
        ans["standard_placement"] = 0.0 <= gap <= meta["standard_gap_mm"]
        ans["margin_mm"] = round(meta["standard_gap_mm"] - gap, 4)
    return ans


def dodo_dash_answers(scn, board) -> dict:
    meta = scn.meta
    proj = meta["projectile_id"]
    racers = {p.id for p in scn.final.pieces if p.kind == "racer"}
    hit_order = [pid for pid in touched(scn.run.contacts, proj) if pid in racers]
    first_only = bool(meta.get("first_hit_only"))
    hits = hit_order[:1] if first_only else hit_order
    landed = [e for e in scn.run.events if e.kind == "landed" and e.piece == proj]
    extra = {}
    if meta.get("path"):  # near miss: the unobstructed straight path's clearance to the target racer
        from shapely.geometry import LineString, Point

        tok, racer = scn.initial.by_id()[proj], scn.initial.by_id()[meta["target"]]
        d = LineString(meta["path"]).distance(Point(racer.x, racer.y)) - tok.radius - racer.radius
        extra = {"path_clearance_mm": round(float(d), 4), "margin_mm": round(-float(d), 4)}
    extra["racer_hex"] = racer_hexes(scn.final, board)
    return {**extra,"touched_racers": hit_order, "hits": hits, "first_hit": hit_order[0] if hit_order else None,
            "landed_on": [c.b if c.a == proj else c.a for c in scn.run.contacts if c.kind == "landing" and proj in (c.a, c.b)],
            "landed_at_s": landed[0].t if landed else None, "out_of_bounds": sorted(scn.run.out_of_bounds()),
            "projectile": meta["projectile"], "thrower": meta.get("thrower")}


def racer_hexes(scene: Scene, board) -> dict:
    """Racer id -> {track, index, off_centre_mm}: the hex whose centre is nearest its base centre."""
    import numpy as np

    out = {}
    racers = [p for p in scene.pieces if p.kind == "racer"]
    for p in racers:
        best = None
        for name, track in board.tracks.items():
            c = track.centres()
            d = np.hypot(c[:, 0] - p.x, c[:, 1] - p.y)
            i = int(np.argmin(d))
            if best is None or d[i] < best[2]:
                best = (name, i, float(d[i]))
        if best is not None:
            out[p.id] = {"track": best[0], "index": best[1], "off_centre_mm": round(best[2], 3)}
    return out


def morris_answers(scn, board) -> dict:
    eggs = [p for p in scn.final.pieces if p.kind == "egg"]
    landing = board.regions_of_kind("landing")
    out = {"eggs": {p.id: {"face": p.attributes.get("face"), "colour": p.attributes.get("colour")} for p in eggs}}
    if scn.meta.get("near_miss") == "landing-edge" and landing:
        out["margin_mm"] = round(region_margin(eggs[0], landing[0].geometry), 4)
    if landing:
        out["in_landing_area"] = {p.id: region_margin(p, landing[0].geometry) > 0 for p in eggs}
        out["landing_margin_mm"] = {p.id: round(region_margin(p, landing[0].geometry), 4) for p in eggs}
    out["out_of_bounds"] = sorted(scn.run.out_of_bounds())
    out["broken"] = sorted(p.id for p in eggs if p.attributes.get("face") == "broken")
    out["whole"] = sorted(p.id for p in eggs if p.attributes.get("face") == "whole")
    return out


def dogo_dash_answers(scn, board) -> dict:
    cards = [p for p in scn.final.pieces if p.kind == "card"]
    seat_of = {}
    for p in cards:
        seat_of[p.attributes.get("seat")] = p
    out = {"revealed": {seat: p.attributes.get("card") for seat, p in seat_of.items() if p.attributes.get("face_up")},
           "reveal_at_s": scn.meta.get("reveal_at_s")}
    # each card's place in its seat zone: the fraction of the card inside, and the containment margin
    out["seat_overlap_fraction"] = {}
    out["seat_margin_mm"] = {}
    for seat, p in seat_of.items():
        if seat not in board.regions:
            continue
        fp, zone = footprint(p), board.region(seat).geometry
        out["seat_overlap_fraction"][seat] = round(float(fp.intersection(zone).area / fp.area), 6)
        out["seat_margin_mm"][seat] = round(containment_margin(fp, zone), 4)
    if scn.meta.get("near_miss") == "seat-edge":
        card = scn.final.by_id()[scn.meta["card"]]
        out["margin_mm"] = out["seat_margin_mm"][card.attributes["seat"]]
    return out


def containment_margin(geom, zone) -> float:
    """Signed mm for a convex polygon in a convex zone: > 0 wholly inside, the smallest distance of a
    vertex to the zone's edge; < 0 the largest distance of a vertex outside."""
    from shapely.geometry import Point

    pts = [Point(x, y) for x, y in geom.exterior.coords]
    outside = [float(zone.distance(q)) for q in pts if not zone.contains(q)]
    if outside:
        return -max(outside)
    return min(float(zone.exterior.distance(q)) for q in pts)


ANSWERS = {"dino-dunk": dino_dunk_answers, "dodo-dash": dodo_dash_answers, "morris": morris_answers,
           "dogo-dash": dogo_dash_answers}


def scenario_truth(scn, board) -> dict:
    """The whole ground truth of a :class:`sim.scenarios.common.Scenario` (JSON-able)."""
    final = scn.final
    on_mat = [p.id for p in final.pieces if not p.attributes.get("static")]
    return {
        "game": scn.game, "board": scn.board, "kind": scn.kind, "seed": scn.seed, "meta": scn.meta,
        "settle_time_s": scn.run.settle_time,
        "contacts": [c.to_dict() for c in scn.run.contacts],
        "events": [e.to_dict() for e in scn.run.events],
        "final": [frame_truth(final)["pieces"]][0],
        "overlaps": overlaps(final, board, on_mat),
        "edge_distances": edge_distances(final, on_mat),
        "answers": ANSWERS.get(scn.game, lambda s, b: {})(scn, board),
    }
