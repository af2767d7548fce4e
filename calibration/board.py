"""Board definitions: the printed geometry of a mat in **mat mm**, loaded from YAML and validated.

Frame: mat mm, origin at the board's top-left corner as drawn, x along the board's length
(``size_mm[0]``), y along its width (``size_mm[1]``).

A board file lives at ``calibration/boards/<game>/<name>.yaml`` (shipped) or anywhere on disk (a
user's own mat). Its keys (see ``boards/grid/plain-grid.yaml`` for the smallest example):

``schema``      ``tableref-board/1``
``game``        ``dino-dunk`` | ``dodo-dash`` | ``morris`` | ``dogo-dash`` | ``grid`` | any slug
``name``        slug; ``title`` free text; ``notes`` free text (say what was measured)
``size_mm``     ``[length, width]``
``regions``     name → shape, each with an optional ``kind`` (``scoring-zone``, ``three-point``,
                ``water``, ``snow``, ``half``, ``backboard``, ``nest``, ``landing``, ``shelters``,
                ``seat``, ``deck``, ``cell`` …) and optional ``team``. A shape is exactly one of
                ``rect: [x0, y0, x1, y1]``, ``circle: [cx, cy, r]``, ``polygon: [[x, y], …]``;
                ``clip: mat`` intersects it with the mat (e.g. a three-point arc cut by the baseline).
``lines``       name → ``{points: [[x, y], …], kind, team}`` (foul lines, baselines, finish lines)
``tracks``      name → ``{hex_mm, hexes: [[x, y], …] (in race order, index 0 the first hex past the
                finish line), closed, start: [i, …] (1st, 2nd, 3rd hex behind the line), finish_line:
                [[x, y], [x, y]], traps: [i, …], drift: [{hexes: [i, …], rolls: [n, …], bonuses: [str, …]}],
                charms: [i, …], bases: [i, …]}``
``connections`` name → ``{from: [track, i], to: [track, j], hexes: [[x, y], …]}``
``stones``      ``[{center: [x, y], colour: str}, …]`` (Morris: the hunter's path in order, the last
                ``multi``)
``seats``       number of players → list of region names (Dogo Dash reveal zones)
``grid``        ``{origin: [x, y], cell_mm: [w, h], rows, cols}`` (a plain grid board; each cell is
                also a region ``cell-<row>-<col>``)
``markers``     ``{dictionary: DICT_4X4_50, size_mm, items: [{id, center: [x, y], rotation_deg}]}``

Every error names the file, the key and what was expected.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

BOARDS_DIR = Path(__file__).resolve().parent / "boards"
SCHEMA = "tableref-board/1"
SHAPES = ("rect", "circle", "polygon")
MARKER_DICTIONARIES = {
    "DICT_4X4_50": 50, "DICT_4X4_100": 100, "DICT_4X4_250": 250, "DICT_4X4_1000": 1000,
    "DICT_5X5_50": 50, "DICT_5X5_100": 100, "DICT_5X5_250": 250, "DICT_5X5_1000": 1000,
    "DICT_6X6_50": 50, "DICT_6X6_100": 100, "DICT_6X6_250": 250, "DICT_6X6_1000": 1000,
    "DICT_ARUCO_ORIGINAL": 1024,
}
CIRCLE_SEGMENTS = 256  # vertices of a circle drawn as a polygon (chord error < 0.01% of r)


class BoardError(ValueError):
    """A board file is missing, unreadable or invalid. The message names file, key and expectation."""


@dataclass(frozen=True)
class Region:
    """A named area of the board in mat mm. ``shape`` is rect | circle | polygon; ``params`` holds
    ``[x0, y0, x1, y1]``, ``[cx, cy, r]`` or an (n, 2) vertex list; ``clip_to`` is an (4,) mat rect
    or None."""

    name: str
    shape: str
    params: tuple
    kind: str = ""
    team: str = ""
    clip_to: tuple | None = None

    @cached_property
    def geometry(self):
        """The region as a shapely geometry in mat mm (circles with CIRCLE_SEGMENTS vertices)."""
        from shapely import box
        from shapely.geometry import Point, Polygon

        if self.shape == "rect":
            geom = box(*self.params)
        elif self.shape == "circle":
            cx, cy, r = self.params
            geom = Point(cx, cy).buffer(r, quad_segs=CIRCLE_SEGMENTS // 4)
        else:
            geom = Polygon(self.params)
        if self.clip_to is not None:
            geom = geom.intersection(box(*self.clip_to))
        return geom

    def outline(self) -> np.ndarray:
        """(n, 2) float array: the exterior ring in mat mm, for drawing."""
        geom = self.geometry
        if geom.geom_type == "MultiPolygon":
            geom = max(geom.geoms, key=lambda g: g.area)
        return np.asarray(geom.exterior.coords, dtype=float)


@dataclass(frozen=True)
class Line:
    """A named polyline in mat mm; ``points`` is (n, 2)."""

    name: str
    points: tuple
    kind: str = ""
    team: str = ""

    def as_array(self) -> np.ndarray:
        return np.asarray(self.points, dtype=float)


@dataclass(frozen=True)
class Drift:
    """A Drifting section: ``hexes`` track indices in order, ``rolls`` the least die result that
    reaches each, ``bonuses`` what reaching each grants ("" none, "draw-1", "advance-2", ...)."""

    hexes: tuple
    rolls: tuple
    bonuses: tuple = ()


@dataclass(frozen=True)
class Track:
    """An ordered hex track. ``hexes`` (n, 2) centres in mat mm in race order."""

    name: str
    hex_mm: float
    hexes: tuple
    closed: bool = True
    start: tuple = ()
    finish_line: tuple = ()
    traps: tuple = ()
    drift: tuple = ()
    charms: tuple = ()
    bases: tuple = ()

    def centres(self) -> np.ndarray:
        return np.asarray(self.hexes, dtype=float).reshape(-1, 2)


@dataclass(frozen=True)
class Stone:
    center: tuple
    colour: str


@dataclass(frozen=True)
class Marker:
    id: int
    center: tuple
    rotation_deg: float = 0.0


@dataclass(frozen=True)
class MarkerSet:
    dictionary: str
    size_mm: float
    items: tuple

    def corners_mm(self) -> dict[int, np.ndarray]:
        """id → (4, 2) corners in mat mm in OpenCV's ArUco order (top-left, top-right,
        bottom-right, bottom-left as the marker is printed, before rotation)."""
        half = self.size_mm / 2.0
        local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        out = {}
        for m in self.items:
            a = math.radians(m.rotation_deg)
            rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
            out[m.id] = local @ rot.T + np.asarray(m.center, dtype=float)
        return out


@dataclass(frozen=True)
class Board:
    """A whole board definition. Frame: mat mm."""

    game: str
    name: str
    title: str
    size_mm: tuple
    regions: dict = field(default_factory=dict)
    lines: dict = field(default_factory=dict)
    tracks: dict = field(default_factory=dict)
    connections: dict = field(default_factory=dict)
    stones: tuple = ()
    seats: dict = field(default_factory=dict)
    grid: dict | None = None
    markers: MarkerSet | None = None
    notes: str = ""
    path: str = ""
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def ref(self) -> str:
        return f"{self.game}/{self.name}"

    @property
    def length_mm(self) -> float:
        return float(self.size_mm[0])

    @property
    def width_mm(self) -> float:
        return float(self.size_mm[1])

    def region(self, name: str) -> Region:
        try:
            return self.regions[name]
        except KeyError:
            raise BoardError(f"{self.ref}: no region {name!r}; regions are {', '.join(sorted(self.regions))}") from None

    def regions_of_kind(self, kind: str) -> list[Region]:
        return [r for r in self.regions.values() if r.kind == kind]

    def corners_mm(self) -> np.ndarray:
        """(4, 2) the mat's corners in mat mm, clockwise from the origin."""
        length, width = self.size_mm
        return np.array([[0.0, 0.0], [length, 0.0], [length, width], [0.0, width]])

    def summary(self) -> str:
        parts = [f"{self.ref} ({self.title}): {self.size_mm[0]:g} x {self.size_mm[1]:g} mm",
                 f"{len(self.regions)} regions", f"{len(self.lines)} lines"]
        if self.tracks:
            parts.append("tracks " + ", ".join(f"{t.name}={len(t.hexes)} hexes" for t in self.tracks.values()))
        if self.stones:
            parts.append(f"{len(self.stones)} stones")
        if self.seats:
            parts.append("seats for " + ",".join(str(k) for k in sorted(self.seats)) + " players")
        if self.markers:
            parts.append(f"{len(self.markers.items)} markers {self.markers.dictionary}")
        return "; ".join(parts)


# --------------------------------------------------------------------------------------------
# loading and validation


def list_boards(root: Path | str = BOARDS_DIR) -> list[str]:
    """Refs (``game/name``) of every shipped board, sorted."""
    root = Path(root)
    return sorted(f"{p.parent.name}/{p.stem}" for p in root.glob("*/*.yaml"))


def board_path(ref: str | os.PathLike) -> Path:
    """Resolve ``game/name`` or a file path to the YAML file."""
    text = str(ref)
    if text.endswith((".yaml", ".yml")) or os.sep in text and Path(text).exists():
        path = Path(text)
        if not path.exists():
            raise BoardError(f"{text}: no such board file")
        return path
    path = BOARDS_DIR / f"{text}.yaml"
    if not path.exists():
        raise BoardError(f"unknown board {text!r}; known boards: {', '.join(list_boards())} (or give a path to a .yaml file)")
    return path


def load_board(ref: str | os.PathLike) -> Board:
    """Load and validate a board from ``game/name`` or a YAML path. Raises :class:`BoardError`."""
    import yaml

    path = board_path(ref)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise BoardError(f"{path}:{where} not valid YAML ({getattr(exc, 'problem', exc)})") from None
    except UnicodeDecodeError:
        raise BoardError(f"{path}: not a text file") from None
    return parse_board(data, str(path))


def parse_board(data: Any, source: str = "<board>") -> Board:
    """Validate a board dict (as loaded from YAML) and build the :class:`Board`."""
    v = _Validator(source)
    if not isinstance(data, dict):
        v.fail("(top level)", "a mapping of keys (schema, game, name, size_mm, ...)", data)
    schema = data.get("schema", SCHEMA)
    if schema != SCHEMA:
        v.fail("schema", f"{SCHEMA!r}", schema)
    known = {"schema", "game", "name", "title", "notes", "size_mm", "regions", "lines", "tracks",
             "connections", "stones", "seats", "grid", "markers"}
    for key in data:
        if key not in known:
            v.fail(key, f"one of the keys {', '.join(sorted(known))}", key)
    game = v.slug(data, "game")
    name = v.slug(data, "name")
    size = v.point(data.get("size_mm"), "size_mm", positive=True)
    length, width = size
    mat = (0.0, 0.0, length, width)

    regions: dict[str, Region] = {}
    for rname, spec in v.mapping(data, "regions").items():
        regions[rname] = v.region(rname, spec, mat)

    grid = data.get("grid")
    if grid is not None:
        grid = v.grid(grid, mat)
        ox, oy = grid["origin"]
        cw, ch = grid["cell_mm"]
        for r in range(grid["rows"]):
            for c in range(grid["cols"]):
                cell = f"cell-{r}-{c}"
                regions.setdefault(cell, Region(cell, "rect", (ox + c * cw, oy + r * ch, ox + (c + 1) * cw, oy + (r + 1) * ch), kind="cell"))

    lines = {}
    for lname, spec in v.mapping(data, "lines").items():
        key = f"lines.{lname}"
        if not isinstance(spec, dict):
            v.fail(key, "a mapping with points: [[x, y], ...]", spec)
        pts = v.points(spec.get("points"), f"{key}.points", minimum=2, within=mat, slack=1.0)
        lines[lname] = Line(lname, pts, kind=str(spec.get("kind", "")), team=str(spec.get("team", "")))

    tracks = {}
    for tname, spec in v.mapping(data, "tracks").items():
        tracks[tname] = v.track(tname, spec, mat)

    connections = {}
    for cname, spec in v.mapping(data, "connections").items():
        key = f"connections.{cname}"
        if not isinstance(spec, dict):
            v.fail(key, "a mapping with from, to and hexes", spec)
        ends = []
        for end in ("from", "to"):
            ref = spec.get(end)
            if not (isinstance(ref, list) and len(ref) == 2 and ref[0] in tracks and isinstance(ref[1], int)):
                v.fail(f"{key}.{end}", f"[track name, hex index] with a track among {sorted(tracks)}", ref)
            if not 0 <= ref[1] < len(tracks[ref[0]].hexes):
                v.fail(f"{key}.{end}", f"a hex index of track {ref[0]!r} (0..{len(tracks[ref[0]].hexes) - 1})", ref[1])
            ends.append((ref[0], ref[1]))
        hexes = v.points(spec.get("hexes", []), f"{key}.hexes", minimum=0, within=mat)
        connections[cname] = {"from": ends[0], "to": ends[1], "hexes": hexes}

    stones = []
    raw_stones = data.get("stones", [])
    if not isinstance(raw_stones, list):
        v.fail("stones", "a list of {center: [x, y], colour: name}", raw_stones)
    for i, s in enumerate(raw_stones):
        key = f"stones[{i}]"
        if not isinstance(s, dict) or "colour" not in s:
            v.fail(key, "a mapping {center: [x, y], colour: name}", s)
        stones.append(Stone(v.point(s.get("center"), f"{key}.center", within=mat), str(s["colour"])))
    if stones and stones[-1].colour != "multi":
        v.fail(f"stones[{len(stones) - 1}].colour", "'multi' (the hunter's path ends on the multicolour stone)", stones[-1].colour)

    seats = {}
    raw_seats = data.get("seats", {}) or {}
    if not isinstance(raw_seats, dict):
        v.fail("seats", "a mapping: number of players -> list of region names", raw_seats)
    for n, names in raw_seats.items():
        key = f"seats.{n}"
        if not (isinstance(n, int) and n > 0):
            v.fail(key, "a positive number of players as the key", n)
        if not (isinstance(names, list) and len(names) == n):
            v.fail(key, f"a list of {n} region names", names)
        for nm in names:
            if nm not in regions:
                v.fail(key, f"names of regions defined under regions (unknown {nm!r})", nm)
        seats[n] = tuple(names)

    markers = v.markers(data.get("markers"), length, width) if data.get("markers") is not None else None

    return Board(game=game, name=name, title=str(data.get("title", name)), size_mm=size, regions=regions,
                 lines=lines, tracks=tracks, connections=connections, stones=tuple(stones), seats=seats,
                 grid=grid, markers=markers, notes=str(data.get("notes", "")), path=source, raw=data)


class _Validator:
    """Small helpers that raise BoardError('<file>: <key>: expected <what>, got <value>')."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, expected: str, got: Any) -> None:
        shown = repr(got)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        raise BoardError(f"{self.source}: {key}: expected {expected}, got {shown}")

    def slug(self, data: dict, key: str) -> str:
        value = data.get(key)
        if not (isinstance(value, str) and value and all(ch.isalnum() or ch in "-_" for ch in value)):
            self.fail(key, "a short name of letters, digits, '-' or '_'", value)
        return value

    def mapping(self, data: dict, key: str) -> dict:
        value = data.get(key, {}) or {}
        if not isinstance(value, dict):
            self.fail(key, "a mapping of names to definitions", value)
        return value

    @staticmethod
    def _is_num(x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

    def point(self, value: Any, key: str, positive: bool = False, within: tuple | None = None, slack: float = 0.0) -> tuple:
        if not (isinstance(value, list) and len(value) == 2 and all(self._is_num(x) for x in value)):
            self.fail(key, "[x, y] in mm (two numbers)", value)
        if positive and not (value[0] > 0 and value[1] > 0):
            self.fail(key, "two positive numbers", value)
        if within is not None:
            x0, y0, x1, y1 = within
            if not (x0 - slack <= value[0] <= x1 + slack and y0 - slack <= value[1] <= y1 + slack):
                self.fail(key, f"a point on the mat (0..{x1:g}, 0..{y1:g} mm)", value)
        return (float(value[0]), float(value[1]))

    def points(self, value: Any, key: str, minimum: int, within: tuple | None = None, slack: float = 0.0) -> tuple:
        if not (isinstance(value, list) and len(value) >= minimum):
            self.fail(key, f"a list of at least {minimum} [x, y] points", value)
        return tuple(self.point(p, f"{key}[{i}]", within=within, slack=slack) for i, p in enumerate(value))

    def region(self, name: str, spec: Any, mat: tuple) -> Region:
        key = f"regions.{name}"
        if not isinstance(spec, dict):
            self.fail(key, "a mapping with one of rect, circle, polygon", spec)
        shapes = [s for s in SHAPES if s in spec]
        if len(shapes) != 1:
            self.fail(key, "exactly one of rect: [x0, y0, x1, y1], circle: [cx, cy, r], polygon: [[x, y], ...]", sorted(spec))
        shape = shapes[0]
        value = spec[shape]
        clip = spec.get("clip")
        if clip not in (None, "mat"):
            self.fail(f"{key}.clip", "'mat' or nothing", clip)
        x0, y0, x1, y1 = mat
        if shape == "rect":
            if not (isinstance(value, list) and len(value) == 4 and all(self._is_num(x) for x in value)):
                self.fail(f"{key}.rect", "[x0, y0, x1, y1] in mm", value)
            if not (value[0] < value[2] and value[1] < value[3]):
                self.fail(f"{key}.rect", "x0 < x1 and y0 < y1", value)
            params = tuple(float(x) for x in value)
            bounds = params
        elif shape == "circle":
            if not (isinstance(value, list) and len(value) == 3 and all(self._is_num(x) for x in value) and value[2] > 0):
                self.fail(f"{key}.circle", "[cx, cy, r] in mm with r > 0", value)
            params = tuple(float(x) for x in value)
            cx, cy, r = params
            bounds = (cx - r, cy - r, cx + r, cy + r)
        else:
            pts = self.points(value, f"{key}.polygon", minimum=3)
            from shapely.geometry import Polygon

            poly = Polygon(pts)
            if not poly.is_valid or poly.area <= 0:
                self.fail(f"{key}.polygon", "a simple polygon with non-zero area (edges must not cross)", value)
            params = pts
            bounds = poly.bounds
        tol = 0.5
        if clip is None and (bounds[0] < x0 - tol or bounds[1] < y0 - tol or bounds[2] > x1 + tol or bounds[3] > y1 + tol):
            self.fail(key, f"a region inside the mat (0..{x1:g} x 0..{y1:g} mm), or clip: mat", [round(b, 1) for b in bounds])
        return Region(name, shape, params, kind=str(spec.get("kind", "")), team=str(spec.get("team", "")),
                      clip_to=mat if clip == "mat" else None)

    def grid(self, spec: Any, mat: tuple) -> dict:
        if not isinstance(spec, dict):
            self.fail("grid", "a mapping {origin, cell_mm, rows, cols}", spec)
        origin = self.point(spec.get("origin", [0, 0]), "grid.origin", within=mat)
        cell = self.point(spec.get("cell_mm"), "grid.cell_mm", positive=True)
        rows, cols = spec.get("rows"), spec.get("cols")
        for k, val in (("rows", rows), ("cols", cols)):
            if not (isinstance(val, int) and val > 0):
                self.fail(f"grid.{k}", "a positive whole number", val)
        if origin[0] + cols * cell[0] > mat[2] + 0.5 or origin[1] + rows * cell[1] > mat[3] + 0.5:
            self.fail("grid", "a grid that fits on the mat", {"rows": rows, "cols": cols})
        return {"origin": origin, "cell_mm": cell, "rows": rows, "cols": cols}

    def track(self, name: str, spec: Any, mat: tuple) -> Track:
        key = f"tracks.{name}"
        if not isinstance(spec, dict):
            self.fail(key, "a mapping with hex_mm and hexes", spec)
        hex_mm = spec.get("hex_mm")
        if not (self._is_num(hex_mm) and hex_mm > 0):
            self.fail(f"{key}.hex_mm", "the hex size across flats in mm (a positive number)", hex_mm)
        hexes = self.points(spec.get("hexes"), f"{key}.hexes", minimum=2, within=mat)
        closed = bool(spec.get("closed", True))
        pts = np.asarray(hexes)
        steps = np.linalg.norm(np.diff(pts, axis=0), axis=1)
        for i, step in enumerate(steps):
            if step > 1.6 * hex_mm:
                self.fail(f"{key}.hexes[{i + 1}]", f"a hex next to hex {i} (a gap of {step:.0f} mm > {1.6 * hex_mm:.0f} mm)", list(hexes[i + 1]))
            if step < 0.5 * hex_mm:
                self.fail(f"{key}.hexes[{i + 1}]", f"a hex that does not overlap hex {i} ({step:.0f} mm apart)", list(hexes[i + 1]))
        if closed and np.linalg.norm(pts[0] - pts[-1]) > 1.6 * hex_mm:
            self.fail(f"{key}.hexes", "a closed loop (last hex next to the first) or closed: false", "gap at the finish line")
        n = len(hexes)

        def indices(field_name: str) -> tuple:
            value = spec.get(field_name, [])
            if not (isinstance(value, list) and all(isinstance(i, int) and 0 <= i < n for i in value)):
                self.fail(f"{key}.{field_name}", f"a list of hex indices 0..{n - 1}", value)
            return tuple(value)

        drift = []
        for j, d in enumerate(spec.get("drift", []) or []):
            dkey = f"{key}.drift[{j}]"
            if not isinstance(d, dict):
                self.fail(dkey, "{hexes: [i, ...], rolls: [n, ...], bonuses: [text, ...]}", d)
            hx, rolls = d.get("hexes"), d.get("rolls")
            if not (isinstance(hx, list) and all(isinstance(i, int) and 0 <= i < n for i in hx) and hx):
                self.fail(f"{dkey}.hexes", f"a list of hex indices 0..{n - 1}", hx)
            if not (isinstance(rolls, list) and len(rolls) == len(hx) and all(isinstance(r, int) and 1 <= r <= 6 for r in rolls)):
                self.fail(f"{dkey}.rolls", f"{len(hx)} die results 1..6, one per drift hex", rolls)
            bonuses = d.get("bonuses", [""] * len(hx))
            if not (isinstance(bonuses, list) and len(bonuses) == len(hx) and all(isinstance(b, str) for b in bonuses)):
                self.fail(f"{dkey}.bonuses", f"{len(hx)} bonus names ('' for none), one per drift hex", bonuses)
            drift.append(Drift(tuple(hx), tuple(rolls), tuple(bonuses)))
        finish = spec.get("finish_line")
        finish = self.points(finish, f"{key}.finish_line", minimum=2, within=mat, slack=30) if finish else ()
        return Track(name, float(hex_mm), hexes, closed, indices("start"), finish, indices("traps"),
                     tuple(drift), indices("charms"), indices("bases"))

    def markers(self, spec: Any, length: float, width: float) -> MarkerSet:
        if not isinstance(spec, dict):
            self.fail("markers", "a mapping {dictionary, size_mm, items}", spec)
        dictionary = spec.get("dictionary", "DICT_4X4_50")
        if dictionary not in MARKER_DICTIONARIES:
            self.fail("markers.dictionary", f"one of {', '.join(MARKER_DICTIONARIES)}", dictionary)
        size = spec.get("size_mm")
        if not (self._is_num(size) and size > 0):
            self.fail("markers.size_mm", "the printed marker's side in mm (a positive number)", size)
        items = spec.get("items")
        if not (isinstance(items, list) and items):
            self.fail("markers.items", "a list of {id, center: [x, y]}", items)
        seen = set()
        out = []
        limit = MARKER_DICTIONARIES[dictionary]
        margin = 4 * size
        for i, m in enumerate(items):
            mkey = f"markers.items[{i}]"
            if not isinstance(m, dict):
                self.fail(mkey, "{id, center: [x, y]}", m)
            mid = m.get("id")
            if not (isinstance(mid, int) and 0 <= mid < limit):
                self.fail(f"{mkey}.id", f"a marker id of {dictionary} (0..{limit - 1})", mid)
            if mid in seen:
                self.fail(f"{mkey}.id", "an id used once", mid)
            seen.add(mid)
            center = self.point(m.get("center"), f"{mkey}.center",
                                within=(-margin, -margin, length + margin, width + margin))
            rot = m.get("rotation_deg", 0.0)
            if not self._is_num(rot):
                self.fail(f"{mkey}.rotation_deg", "an angle in degrees", rot)
            out.append(Marker(mid, center, float(rot)))
        return MarkerSet(dictionary, float(size), tuple(out))
