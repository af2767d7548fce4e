"""A small question syntax for ``tableref judge --ask``: one question, one call, on an Observation.

Pieces are named as in :mod:`referee.pieces` (``ball``, ``home:triceratops``, ``disc-medium#2``,
``#3``); regions, lines and tracks by their names in the board file. Keywords are case-insensitive.

===============================================  ==================================================
question                                         call
===============================================  ==================================================
``P overlaps REGION``                            any part of P over the region (overlap.py)
``P outside REGION [by centre|whole|any]``       P outside the region's line, e.g. the three-point
                                                 line (lines.py; default reading from the config)
``P inside REGION [by centre|whole|any]``        the negation of ``outside`` with the same reading
``P behind LINE [by centre|whole]``              behind a foul line, away from its team's zone
``P out-of-bounds``                              completely outside the play area (or the mat)
``P within short|long card of Q``                edge-to-edge gap ≤ one card length (specs)
``P within N mm of Q``                           edge-to-edge gap ≤ N mm
``P adjacent to Q``                              standard placement (gap ≤ the medium disc height)
``distance between P and Q``                     the edge-to-edge gap (are they apart?)
``line-of-sight P to Q [by any|centre]``         a straight line past every other dinosaur token
``P on hex [of TRACK]``                          which hex of the track (default: its first track)
``P in zone of TRACK:TRAP``                      on a hex of that Zone Trap's zone
``PROJECTILE touches P``                         the landing footprint touches racer P
``P face|colour|card``                           a classifier call (confidence)
===============================================  ==================================================
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from referee.core import RefereeError, Verdict

DINOSAUR_KINDS = ("disc-small", "disc-medium", "disc-large")
READINGS = {"centre": "centre", "center": "centre", "whole": "whole_disc", "whole_disc": "whole_disc",
            "any": "any_part", "any_part": "any_part"}
NAME = r"([\w:#.\-]+)"

SYNTAX = __doc__


class QuestionError(RefereeError):
    """The question does not follow the syntax; the message shows the forms accepted."""


def negate(v: Verdict, question: str) -> Verdict:
    """The same measurement asked the other way round ("inside" for "outside")."""
    answer = {"yes": "no", "no": "yes"}.get(v.answer, v.answer)
    return replace(v, question=question, answer=answer, margin=-v.margin)


def ask(question: str, board, obs, config, *, transform=None, specs=None) -> list[Verdict]:
    """Answer ``question`` about the Observation ``obs`` on ``board`` (mat mm)."""
    import shapely

    from referee import classify, distance, hexes, lines, overlap, sight
    from referee.pieces import find, gather

    if specs is None:
        from calibration.specs import load_specs

        specs = load_specs()
    q = " ".join(question.strip().split())
    p = gather(obs, transform, config.registration_sigma_floor_mm, config.observation_sigma_includes_registration)
    k = config.k

    def one(ref):
        i = find(obs, ref)
        return i, p.xy[[i]], p.radius[[i]], p.sigma[[i]], [p.names[i]]

    def reading(text, default, allowed):
        if not text:
            return default
        mode = READINGS.get(text.lower())
        if mode not in allowed:
            raise QuestionError(f"reading {text!r} is not one of: {', '.join(sorted(set(k for k, v in READINGS.items() if v in allowed)))}")
        return mode

    m = re.fullmatch(rf"{NAME} overlaps {NAME}", q, re.I)
    if m:
        _, xy, r, s, n = one(m[1])
        return overlap.overlap_calls(xy, r, s, board.region(m[2]), k=k, names=n, frame_ids=p.frame_ids)
    m = re.fullmatch(rf"{NAME} (outside|inside) {NAME}(?: by (\w+))?", q, re.I)
    if m:
        _, xy, r, s, n = one(m[1])
        mode = reading(m[4], config.three_point, ("centre", "whole_disc", "any_part"))
        if m[2].lower() == "inside":  # inside by X  ==  not outside by the complementary reading
            flip = {"centre": "centre", "whole_disc": "any_part", "any_part": "whole_disc"}[mode]
            (v,) = lines.outside_calls(xy, r, s, board.region(m[3]), k=k, mode=flip, names=n, frame_ids=p.frame_ids)
            return [negate(v, f"{n[0]} is inside {m[3]} ({mode})")]
        return lines.outside_calls(xy, r, s, board.region(m[3]), k=k, mode=mode, names=n, frame_ids=p.frame_ids)
    m = re.fullmatch(rf"{NAME} behind {NAME}(?: by (\w+))?", q, re.I)
    if m:
        _, xy, r, s, n = one(m[1])
        if m[2] not in board.lines:
            raise RefereeError(f"{board.ref}: no line {m[2]!r}; lines are {', '.join(sorted(board.lines))}")
        line = board.lines[m[2]]
        zones = [z for z in board.regions_of_kind("scoring-zone") if z.team == line.team]
        if not zones:
            raise RefereeError(f"{board.ref}: line {m[2]!r} has no scoring zone of its team to tell behind from in front")
        front = zones[0].geometry.centroid
        mode = reading(m[3], config.foul_line, ("centre", "whole_disc"))
        return lines.behind_calls(xy, r, s, line, (front.x, front.y), k=k, mode=mode, names=n, frame_ids=p.frame_ids)
    m = re.fullmatch(rf"{NAME} out-of-bounds", q, re.I)
    if m:
        _, xy, r, s, n = one(m[1])
        areas = board.regions_of_kind("play-area")
        area = areas[0] if areas else shapely.box(0, 0, *board.size_mm)
        return overlap.out_of_bounds_calls(xy, r, s, area, k=k, names=n, frame_ids=p.frame_ids)
    m = re.fullmatch(rf"{NAME} within (?:(short|long) card|([\d.]+) ?mm) of {NAME}", q, re.I)
    if m:
        _, xa, ra, sa, na = one(m[1])
        _, xb, rb, sb, nb = one(m[4])
        if m[2]:
            limit = specs.short_card_mm if m[2].lower() == "short" else specs.long_card_mm
            lname = f"one {m[2].lower()} card length ({limit:g} mm)"
        else:
            limit, lname = float(m[3]), f"{float(m[3]):g} mm"
        ia, ib = find(obs, m[1]), find(obs, m[4])
        (v,) = distance.within_calls(xa, ra, sa, xb, rb, sb, limit, k=k, names_a=na, names_b=nb, limit_name=lname,
                                     frame_ids=p.frame_ids, sigma=p.pair_sigma(ia, ib))
        # where P may be placed within that distance of Q (on the mat, clear of the other pieces)
        others = [i for i in range(len(obs)) if i not in (ia, ib)]
        area = distance.placement_area(xb[0], float(rb[0]), float(ra[0]), limit, mat=shapely.box(0, 0, *board.size_mm),
                                       others_xy=p.xy[others], others_radius=p.radius[others])
        shapes = distance.placement_shapes(area, label=f"{na[0]} may be placed here (centres)")
        return [replace(v, evidence=tuple(shapes) + v.evidence,
                        detail={**v.detail, "placement_area_mm2": float(area.area)})]
    m = re.fullmatch(rf"{NAME} adjacent to {NAME}", q, re.I)
    if m:
        ia, xa, ra, sa, na = one(m[1])
        ib, xb, rb, sb, nb = one(m[2])
        return distance.standard_placement_calls(xa, ra, sa, xb, rb, sb, specs.placement_gap_mm, k=k, names_placed=na,
                                                 names_target=nb, frame_ids=p.frame_ids, sigma=p.pair_sigma(ia, ib))
    m = re.fullmatch(rf"distance between {NAME} and {NAME}", q, re.I)
    if m:
        ia, xa, ra, sa, na = one(m[1])
        ib, xb, rb, sb, nb = one(m[2])
        return distance.distance_calls(xa, ra, sa, xb, rb, sb, k=k, names_a=na, names_b=nb, frame_ids=p.frame_ids,
                                       sigma=p.pair_sigma(ia, ib))
    m = re.fullmatch(rf"line-of-sight {NAME} to {NAME}(?: by (\w+))?", q, re.I)
    if m:
        i, j = find(obs, m[1]), find(obs, m[2])
        mode = config.line_of_sight
        if m[3]:
            mode = {"any": "any_segment", "any_segment": "any_segment", "centre": "centre", "center": "centre"}.get(m[3].lower())
            if mode is None:
                raise QuestionError("line-of-sight reading is 'by any' or 'by centre'")
        blockers = np.array([k_ in DINOSAUR_KINDS for k_ in p.kinds], dtype=bool)
        return sight.sight_calls(p.xy, p.radius, p.sigma, [(i, j)], k=k, mode=mode, blockers=blockers, names=p.names,
                                 frame_ids=p.frame_ids)
    m = re.fullmatch(rf"{NAME} on hex(?: of {NAME})?", q, re.I)
    if m:
        _, xy, _, s, n = one(m[1])
        track = _track(board, m[2])
        return hexes.hex_calls(xy, s, track, k=k, names=n, frame_ids=p.frame_ids)
    m = re.fullmatch(rf"{NAME} in zone of ([\w\-]+):(\d+)", q, re.I)
    if m:
        _, xy, _, s, n = one(m[1])
        return hexes.in_zone_calls(xy, s, _track(board, m[2]), int(m[3]), k=k, names=n, frame_ids=p.frame_ids)
    m = re.fullmatch(rf"{NAME} touches {NAME}", q, re.I)
    if m:
        f = find(obs, m[1])
        ir, xy, r, s, n = one(m[2])
        fp = {"xy": tuple(obs.xy[f]), "radius": float(obs.radius[f])}
        if obs.size[f].min() > 0 and str(obs.kind[f]) == "log":
            fp = {"xy": tuple(obs.xy[f]), "size": tuple(obs.size[f]), "angle": float(obs.angle[f])}
        return hexes.hit_calls(xy, r, s, fp, float(p.sigma[f]), k=k, names=n, projectile=p.names[f], frame_ids=p.frame_ids,
                               pair_sigma=p.pair_sigma(ir, f))
    m = re.fullmatch(rf"{NAME} (face|colour|color|card)", q, re.I)
    if m:
        i = find(obs, m[1])
        attr = {"color": "colour"}.get(m[2].lower(), m[2].lower())
        return classify.label_calls(obs.attribute(attr)[[i]], classify.attribute_confidence(obs, attr)[[i]],
                                    config.min_confidence, what=attr, names=[p.names[i]], xy=obs.xy[[i]],
                                    radius=obs.radius[[i]], frame_ids=p.frame_ids)
    raise QuestionError(f"cannot read the question {question!r}. Forms: overlaps, outside/inside, behind, out-of-bounds, "
                        "within short|long card of, within N mm of, adjacent to, distance between, line-of-sight, "
                        "on hex, in zone of, touches, face|colour|card (see `tableref judge --help`)")


def _track(board, name):
    if not board.tracks:
        raise RefereeError(f"{board.ref} has no hex track")
    if name is None:
        return next(iter(board.tracks.values()))
    if name not in board.tracks:
        raise RefereeError(f"{board.ref}: no track {name!r}; tracks are {', '.join(board.tracks)}")
    return board.tracks[name]
