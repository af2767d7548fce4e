"""Pieces as solid bodies: the 3-D parts (in the **mat frame**, z = -height) the renderer projects
and fills, built from a :class:`sim.scene.PieceState` and the piece specs.

A :class:`Body` is a list of :class:`Part` s drawn in order (far faces first) plus the points whose
shadow falls on the mat. Parts are ``hull`` (fill the convex hull of the projected points: the
side of a disc is the hull of its base and top circles), ``poly`` (fill the projected polygon: a top
face) or ``art`` (warp an :class:`sim.art.Art` onto the projected rectangle ``pts[:4]``). A body's
silhouette (for visible fractions) is the union of its ``hull`` and ``poly`` parts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sim import art as artlib

N_CIRCLE = 48
TEAM_INDEX = {"home": 0, "a": 0, "0": 0, "team-a": 0, "1": 1, "away": 1, "b": 1, "team-b": 1}
RACER_COLOURS = ("red", "blue", "yellow", "green", "purple", "orange", "white", "pink")


@dataclass
class Part:
    kind: str  # hull | poly | art
    pts: np.ndarray  # (k, 3) mat frame
    colour: tuple = (128, 128, 128)
    art: object = None
    px: np.ndarray | None = None  # (k, 2) image px, filled in by the renderer
    ok: bool = False  # all of px finite (in front of the camera), set by the renderer


@dataclass
class Body:
    piece: object  # PieceState (or None for an occluder)
    parts: list = field(default_factory=list)
    shadow_pts: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    anchor: np.ndarray = field(default_factory=lambda: np.zeros(3))  # top centre, for depth order
    occluder: bool = False
    corners: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # a rectangle's top corners


_UNIT = {}


def ring(cx, cy, z_mm, r, n=N_CIRCLE, angle=0.0) -> np.ndarray:
    """(n, 3) a horizontal circle of radius r mm at height z_mm (mat frame z = -z_mm), as an
    n-gon with the circle's area (vertices a hair outside it, edges a hair inside)."""
    r = r * math.sqrt((math.tau / n) / math.sin(math.tau / n))
    if angle == 0.0:
        unit = _UNIT.get(n)
        if unit is None:
            a = np.linspace(0, math.tau, n, endpoint=False)
            unit = _UNIT[n] = np.column_stack([np.cos(a), np.sin(a), np.zeros(n)])
        out = unit * r
        out += (cx, cy, -z_mm)
        return out
    a = angle + np.linspace(0, math.tau, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a), np.full(n, -z_mm)])


def place(local_xy, piece, z_mm) -> np.ndarray:
    """(k, 2) points in the piece's own frame (mm, x along angle_deg) → (k, 3) mat frame at z_mm."""
    p = np.asarray(local_xy, dtype=np.float64).reshape(-1, 2)
    a = math.radians(piece.angle_deg)
    c, s = math.cos(a), math.sin(a)
    x = piece.x + c * p[:, 0] - s * p[:, 1]
    y = piece.y + s * p[:, 0] + c * p[:, 1]
    return np.column_stack([x, y, np.full(len(p), -z_mm)])


def art_quad(piece, size_mm, z_mm) -> np.ndarray:
    """(4, 3) corners (top-left, top-right, bottom-right, bottom-left of the art) at z_mm."""
    w, h = size_mm
    return place([(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)], piece, z_mm)


def shade(colour, k) -> tuple:
    return tuple(int(min(255.0, max(0.0, c * k))) for c in colour)


def named_colour(name, default=(150, 150, 150)) -> tuple:
    if isinstance(name, (list, tuple)) and len(name) == 3:
        return tuple(int(c) for c in name)
    return artlib.NAMED_COLOURS.get(str(name).lower(), default)


def team_index(piece) -> int:
    team = str(piece.attributes.get("team", "")).lower()
    if team in TEAM_INDEX:
        return TEAM_INDEX[team]
    return -1 if not team else sum(team.encode()) % 2


# --------------------------------------------------------------------------------------------


def _dims(piece, spec):
    r = piece.radius or (spec.radius if spec is not None else 10.0)
    h = piece.height or (spec.height if spec is not None else 5.0)
    size = tuple(piece.size) or (tuple(spec.size) if spec is not None and spec.size else (2 * r, 2 * r))
    return r, h, size


def _lit_half(base, top, centre_xy, light, colour):
    """The half of a cylinder's side that faces the light, as one hull part (the top face, drawn
    after it, covers what of the hull is not side)."""
    if light is None:
        return []
    n = base[:, :2] - centre_xy
    lit = n @ np.asarray(light) > 0
    if lit.sum() < 2:
        return []
    return [Part("hull", np.vstack([base[lit], top[lit]]), colour)]


def _disc_body(piece, r, h, top_colour, side_colour, face, light=None) -> Body:
    z = piece.z
    base, top = ring(piece.x, piece.y, z, r), ring(piece.x, piece.y, z + h, r)
    parts = [Part("hull", np.vstack([base, top]), shade(side_colour, 0.85))]
    parts += _lit_half(base, top, (piece.x, piece.y), light, shade(side_colour, 1.2))
    parts.append(Part("poly", top, top_colour))
    if face is not None:
        parts.append(Part("art", art_quad(piece, face.size_mm, z + h), art=face))
    return Body(piece, parts, np.vstack([base, top]), np.array([piece.x, piece.y, -(z + h)]))


def _block(piece, size, h, colour) -> Body:
    L, W = size
    z = piece.z
    foot = [(-L / 2, -W / 2), (L / 2, -W / 2), (L / 2, W / 2), (-L / 2, W / 2)]
    b, t = place(foot, piece, z), place(foot, piece, z + h)
    parts = []
    for i in range(4):
        j = (i + 1) % 4
        k = 0.55 + 0.12 * i
        parts.append(Part("side", np.vstack([b[i], b[j], t[j], t[i]]), shade(colour, k)))
    parts.append(Part("poly", t, colour))
    return Body(piece, parts, np.vstack([b, t]), np.array([piece.x, piece.y, -(z + h)]), corners=t)


def _card(piece, size, h, face) -> Body:
    L, W = size
    z = piece.z + h
    outline = place(artlib._round_rect(L, W, 3.0), piece, z)
    parts = [Part("poly", outline, (225, 230, 235))]
    if face is not None:
        parts.append(Part("art", art_quad(piece, face.size_mm, z), art=face))
    return Body(piece, parts, outline, np.array([piece.x, piece.y, -z]), corners=art_quad(piece, (L, W), z))


def _deck(piece, size, h, face) -> Body:
    """A face-down pile of cards: a low box with pale edges and the top card's art."""
    body = _block(piece, size, h, (215, 220, 225))
    if face is not None:
        body.parts.append(Part("art", art_quad(piece, face.size_mm, piece.z + h), art=face))
    return body


def _figure_body(piece, r, h, colour, head_colour, extra=(), light=None) -> Body:
    z = piece.z
    x, y = piece.x, piece.y
    base_h = min(4.0, 0.1 * h)
    b0, b1 = ring(x, y, z + base_h, 0.62 * r), ring(x, y, z + 0.72 * h, 0.5 * r)
    h0, h1 = ring(x, y, z + 0.72 * h, 0.5 * r), ring(x, y, z + h, 0.42 * r)
    parts = [Part("hull", np.vstack([ring(x, y, z, r), ring(x, y, z + base_h, r)]), (50, 50, 50)),
             Part("poly", ring(x, y, z + base_h, r), (80, 80, 80)),
             Part("hull", np.vstack([b0, b1]), shade(colour, 0.65))]
    parts += _lit_half(b0, b1, (x, y), light, shade(colour, 0.95))
    parts.append(Part("hull", np.vstack([h0, h1]), shade(head_colour, 0.8)))
    parts += _lit_half(h0, h1, (x, y), light, head_colour)
    parts.append(Part("poly", h1, shade(head_colour, 1.15)))
    parts.extend(extra)
    return Body(piece, parts, np.vstack([ring(x, y, z, r), ring(x, y, z + h, 0.45 * r)]), np.array([x, y, -(z + h)]))


def _flat_token(piece, h, outline_local, side_colour, face) -> Body:
    """A thin token of any outline (banana, feather, dodo …): its base and top outlines in the side
    colour (their union is the extruded silhouette of a thin token), the face art on top."""
    z = piece.z
    base, top = place(outline_local, piece, z), place(outline_local, piece, z + h)
    parts = [Part("poly", base, side_colour), Part("poly", top, side_colour)]
    if face is not None:
        parts.append(Part("art", art_quad(piece, face.size_mm, z + h), art=face))
    return Body(piece, parts, np.vstack([base, top]), np.array([piece.x, piece.y, -(z + h)]))


def _log(piece, length, diameter, colour) -> Body:
    """A log lying on the mat: a cylinder along the piece's x axis; the end facing the camera shows
    its rings."""
    rr = diameter / 2.0
    a = np.linspace(0, math.tau, 32, endpoint=False)
    ends = []
    for sx in (-length / 2, length / 2):
        local = np.column_stack([np.full_like(a, sx), rr * np.cos(a)])
        pts = place(local, piece, 0.0)
        pts[:, 2] = -(piece.z + rr + rr * np.sin(a))
        ends.append(pts)
    strip = place([(-length / 2, -rr * 0.3), (length / 2, -rr * 0.3), (length / 2, rr * 0.3), (-length / 2, rr * 0.3)],
                  piece, piece.z + diameter)
    parts = [Part("hull", np.vstack(ends), colour), Part("poly", strip, shade(colour, 1.25))]
    for e in ends:
        parts.append(Part("side", e, (90, 170, 215)))
    return Body(piece, parts, np.vstack(ends), np.array([piece.x, piece.y, -(piece.z + diameter)]))


def _racer_colour(piece) -> tuple:
    c = piece.attributes.get("colour")
    if c:
        return named_colour(c)
    return named_colour(RACER_COLOURS[sum(piece.id.encode()) % len(RACER_COLOURS)])


def build_body(piece, spec, style) -> Body:
    """The body of one piece. ``spec`` is its :class:`calibration.specs.Piece` (or None)."""
    kind = piece.kind
    shape = spec.shape if spec is not None else ("card" if piece.size and len(piece.size) == 2 else "disc")
    r, h, size = _dims(piece, spec)
    attrs = piece.attributes
    teams = style.teams
    az = math.radians(style.light_azimuth_deg)
    light = (math.cos(az), math.sin(az))

    def disc(*a):
        return _disc_body(*a, light=light)

    def figure(*a):
        return _figure_body(*a, light=light)

    ti = team_index(piece)
    team_colour = tuple(teams[ti]) if ti >= 0 else named_colour(attrs.get("colour"), (170, 170, 170))
    if kind == "ball":
        return disc(piece, r, h, (30, 120, 245), (20, 80, 180), artlib.ball_face(round(2 * r, 3)))
    if kind.startswith("disc-"):
        face = artlib.disc_face(round(2 * r, 3), team_colour, max(ti, 0), "dino")
        return disc(piece, r, h, team_colour, shade(team_colour, 0.6), face)
    if kind == "tail":
        face = artlib.disc_face(round(2 * r, 3), team_colour, max(ti, 0), "tail")
        return disc(piece, r, h, team_colour, shade(team_colour, 0.6), face)
    if kind in ("possession-token", "scoring-token"):
        colour = (40, 200, 240) if kind == "possession-token" else (200, 200, 200)
        face = artlib.disc_face(round(2 * r, 3), colour, 2, "star" if kind == "possession-token" else "coin")
        return disc(piece, r, h, colour, shade(colour, 0.6), face)
    if shape == "block":
        return _block(piece, size, h, (45, 90, 140))
    if shape == "card":
        size = tuple(float(v) for v in size)
        if "face_up" in attrs:
            face_up = bool(attrs["face_up"])
        else:
            face_up = str(attrs.get("face", "up")).lower() not in ("down", "back")
        if kind == "card" or "card" in attrs and kind not in ("character-card", "exhibition-card", "movement-card"):
            name = str(attrs.get("card", "")).lower()
            face = artlib.card_face(name, size) if face_up and name in artlib.CARD_FACES + ("goodboy", "good_boy") else artlib.card_back(size)
        elif kind == "movement-card":
            face = artlib.movement_card(size, int(attrs.get("value", 1))) if face_up else artlib.card_back(size)
        else:
            face = artlib.character_card(size, team_colour if ti >= 0 else (120, 160, 90))
        if attrs.get("deck"):
            return _deck(piece, size, max(h, 0.3 * int(attrs.get("count", 1))), face)
        return _card(piece, size, h, face)
    if kind == "racer":
        colour = _racer_colour(piece)
        return figure(piece, r, h, colour, (235, 235, 235))
    if kind == "toucan":
        beak = place([(0.3 * r, -0.12 * r), (1.25 * r, 0.0), (0.3 * r, 0.12 * r)], piece, piece.z + 0.9 * h)
        return figure(piece, r, h, (35, 35, 35), (40, 40, 40), [Part("poly", beak, (20, 140, 250))])
    if kind == "hunter":
        brim = ring(piece.x, piece.y, piece.z + 0.86 * h, 0.75 * r)
        return figure(piece, r, h, (80, 130, 150), (60, 140, 200), [Part("poly", brim, (30, 60, 90)),
                        Part("poly", ring(piece.x, piece.y, piece.z + h, 0.4 * r), (40, 75, 110))])
    if shape == "figure":
        colour = named_colour(attrs.get("colour"), (60, 140, 200))
        return figure(piece, r, h, colour, shade(colour, 1.1))
    if spec is not None and spec.game == "morris" and kind == "egg":
        face = artlib.egg_token(str(attrs.get("colour", "blue")).lower(), str(attrs.get("face", "whole")).lower(), round(2 * r, 3))
        col = named_colour(attrs.get("colour"), (150, 150, 150))
        return disc(piece, r, h, col, shade(col, 0.6), face)
    if kind == "shelter":
        return disc(piece, r, h, (80, 160, 110), (50, 100, 70), artlib.shelter(round(2 * r, 3)))
    if kind == "log":
        length = float(size[0]) if size and size[0] > 0 else 2 * r
        return _log(piece, length, h if h > 0 else 2 * r, artlib.PROJECTILE_COLOURS["log"])
    if kind in artlib.PROJECTILES:
        col = artlib.PROJECTILE_COLOURS[kind]
        return _flat_token(piece, h, artlib.projectile_outline(kind, 2 * r), shade(col, 0.6),
                           artlib.projectile_face(kind, round(2 * r, 3)))
    colour = named_colour(attrs.get("colour"), team_colour)
    return disc(piece, r, h, colour, shade(colour, 0.6), None)
