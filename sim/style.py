"""How a simulated frame looks: the ranges in ``sim/render.yaml`` (a frozen :class:`RenderConfig`)
and one draw from them (a frozen :class:`Style`).

``random_style(rng, config)`` draws a style; ``clean_style()`` is the neutral one (no noise, no
shadows, no blur, no JPEG, no occluders) that geometry tests use. Colours are BGR 0..255. A style is
plain data: every image made with it is reproducible from it and the frame seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from pathlib import Path

from calibration.yamlfile import merge, read_mapping
from typing import Any

import numpy as np

from sim.camera import CameraRanges

RENDER_CONFIG_PATH = Path(__file__).resolve().parent / "render.yaml"
SCHEMA = "tableref-render/1"


class RenderConfigError(ValueError):
    """``render.yaml`` (or a user's override) is unreadable or invalid; names the file and key."""


@dataclass(frozen=True)
class RenderConfig:
    """The ranges of ``sim/render.yaml``; (lo, hi) tuples are inclusive ranges."""

    px_per_mm: float = 2.0
    margin_mm: float = 140.0
    camera: CameraRanges = field(default_factory=CameraRanges)
    table_colours: tuple = ((62, 98, 140),)
    table_grain: tuple = (0.03, 0.12)
    mat_tint: tuple = (0.88, 1.12)
    teams: tuple = (((40, 40, 200), (200, 120, 30)),)
    light_azimuth_deg: tuple = (0.0, 360.0)
    light_elevation_deg: tuple = (35.0, 80.0)
    brightness: tuple = (0.75, 1.2)
    colour_gain: tuple = ((0.85, 1.10), (0.95, 1.05), (0.90, 1.15))
    gradient: tuple = (0.0, 0.25)
    shadow_strength: tuple = (0.25, 0.55)
    shadow_blur_px: tuple = (1.5, 6.0)
    vignette: tuple = (0.0, 0.35)
    noise_sigma: tuple = (0.5, 3.5)
    defocus_px: tuple = (0.0, 0.9)
    glare_probability: float = 0.25
    glare_strength: tuple = (0.08, 0.3)
    glare_radius: tuple = (0.1, 0.3)
    exposure_ms: tuple = (4.0, 33.0)
    jpeg_probability: float = 0.6
    jpeg_quality: tuple = (55, 95)
    hand_probability: float = 0.2
    cup_probability: float = 0.15
    skin: tuple = ((120, 160, 220),)
    cup_colours: tuple = ((240, 240, 240),)


@dataclass(frozen=True)
class Occluder:
    """Something between the camera and the table. ``kind`` ``hand``: an arm entering from image
    ``edge`` (0 top, 1 right, 2 bottom, 3 left) at ``along`` (0..1 of that edge), reaching ``reach``
    (fraction of the frame), turned ``angle_deg`` from the edge's normal, ``width`` a fraction of
    the frame height. ``cup``: a cylinder standing at ``(x, y)`` (fractions of the mat size; outside
    0..1 is off the mat), ``radius_mm``, ``height_mm``. ``colour`` BGR."""

    kind: str
    colour: tuple
    edge: int = 0
    along: float = 0.5
    reach: float = 0.3
    angle_deg: float = 0.0
    width: float = 0.12
    x: float = 0.0
    y: float = 0.0
    radius_mm: float = 40.0
    height_mm: float = 95.0


@dataclass(frozen=True)
class Style:
    """One look of the table. The mat texture depends only on ``table_colour``, ``table_grain``,
    ``table_seed`` and ``mat_tint`` (so it is cached across frames that share them)."""

    table_colour: tuple = (90, 130, 170)
    table_grain: float = 0.06
    table_seed: int = 0
    mat_tint: tuple = (1.0, 1.0, 1.0)
    teams: tuple = ((40, 40, 200), (200, 120, 30))
    light_azimuth_deg: float = 135.0
    light_elevation_deg: float = 60.0
    brightness: float = 1.0
    colour_gain: tuple = (1.0, 1.0, 1.0)
    gradient: float = 0.0
    shadow_strength: float = 0.0
    shadow_blur_px: float = 3.0
    vignette: float = 0.0
    noise_sigma: float = 0.0
    defocus_px: float = 0.0
    glare_strength: float = 0.0  # 0 = no glare; else at image fractions (glare_x, glare_y)
    glare_x: float = 0.5
    glare_y: float = 0.5
    glare_radius: float = 0.2
    exposure_ms: float = 0.0
    jpeg_quality: int = 0  # 0 = no JPEG round trip
    occluders: tuple = ()
    px_per_mm: float = 2.0
    margin_mm: float = 140.0

    def texture_key(self) -> tuple:
        return (tuple(self.table_colour), round(self.table_grain, 6), self.table_seed, tuple(self.mat_tint),
                self.px_per_mm, self.margin_mm)

    def to_dict(self) -> dict:
        """JSON-able (occluders as dicts); :meth:`from_dict` gives the same style back."""
        from dataclasses import asdict

        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Style":
        """The style recorded by :meth:`to_dict` (lists back to tuples, occluders rebuilt)."""
        def tup(v):
            return tuple(tup(x) for x in v) if isinstance(v, (list, tuple)) else v

        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise RenderConfigError(f"not a recorded style: unknown keys {sorted(unknown)}")
        args = {k: tup(v) for k, v in d.items() if k != "occluders"}
        occ = tuple(Occluder(**{k: tup(v) for k, v in o.items()}) for o in d.get("occluders", ()))
        return cls(**args, occluders=occ)


def clean_style(config: RenderConfig | None = None, **changes) -> Style:
    """The neutral style: white light, no shadows, noise, blur, defocus, glare, vignette, JPEG or
    occluders."""
    cfg = config or load_render_config()
    base = Style(px_per_mm=cfg.px_per_mm, margin_mm=cfg.margin_mm, teams=tuple(cfg.teams[0]))
    from dataclasses import replace

    return replace(base, **changes)


def random_style(rng: np.random.Generator, config: RenderConfig | None = None, occluders: bool = True) -> Style:
    """One style drawn uniformly from the ranges of ``config`` (the shipped ``render.yaml`` if None)."""
    cfg = config or load_render_config()

    def u(r):
        return float(rng.uniform(r[0], r[1]))

    def pick(seq):
        return tuple(seq[int(rng.integers(len(seq)))])

    occ = []
    if occluders and rng.random() < cfg.hand_probability:
        occ.append(Occluder("hand", pick(cfg.skin), edge=int(rng.integers(4)), along=u((0.15, 0.85)),
                            reach=u((0.15, 0.5)), angle_deg=u((-35, 35)), width=u((0.10, 0.18))))
    if occluders and rng.random() < cfg.cup_probability:
        side = int(rng.integers(4))
        along = u((0.0, 1.0))
        out = u((-0.12, 0.05))
        x, y = [(along, out), (1 - out, along), (along, 1 - out), (out, along)][side]
        occ.append(Occluder("cup", pick(cfg.cup_colours), x=x, y=y, radius_mm=u((35, 48)), height_mm=u((80, 120))))
    teams = cfg.teams[int(rng.integers(len(cfg.teams)))]
    if rng.random() < 0.5:
        teams = (teams[1], teams[0])
    jpeg = int(round(u(cfg.jpeg_quality))) if rng.random() < cfg.jpeg_probability else 0
    glare = rng.random() < cfg.glare_probability
    glare_args = dict(glare_strength=u(cfg.glare_strength), glare_x=u((0.1, 0.9)), glare_y=u((0.1, 0.9)),
                      glare_radius=u(cfg.glare_radius)) if glare else {}
    return Style(
        table_colour=pick(cfg.table_colours), table_grain=u(cfg.table_grain), table_seed=int(rng.integers(1 << 30)),
        mat_tint=tuple(u(cfg.mat_tint) for _ in range(3)), teams=tuple(tuple(t) for t in teams),
        light_azimuth_deg=u(cfg.light_azimuth_deg), light_elevation_deg=u(cfg.light_elevation_deg),
        brightness=u(cfg.brightness), colour_gain=tuple(u(r) for r in cfg.colour_gain), gradient=u(cfg.gradient),
        shadow_strength=u(cfg.shadow_strength), shadow_blur_px=u(cfg.shadow_blur_px), vignette=u(cfg.vignette),
        noise_sigma=u(cfg.noise_sigma), exposure_ms=u(cfg.exposure_ms), jpeg_quality=jpeg, occluders=tuple(occ),
        px_per_mm=cfg.px_per_mm, margin_mm=cfg.margin_mm, defocus_px=u(cfg.defocus_px), **glare_args)


# --------------------------------------------------------------------------------------------
# loading


def _read(path: Path) -> dict:
    return read_mapping(path, RenderConfigError, "a mapping (texture, camera, table, lighting, …)")


_CACHE: dict = {}


def load_render_config(override: str | Path | None = None) -> RenderConfig:
    """The shipped ``render.yaml`` with ``override`` (any subset of its keys) applied."""
    key = str(override) if override else ""
    if key in _CACHE:
        return _CACHE[key]
    data = _read(RENDER_CONFIG_PATH)
    source = str(RENDER_CONFIG_PATH)
    if override:
        data = merge(data, _read(Path(override)))
        source = str(override)
    cfg = parse_render_config(data, source)
    _CACHE[key] = cfg
    return cfg


def parse_render_config(data: dict, source: str = "<render>") -> RenderConfig:
    if data.get("schema", SCHEMA) != SCHEMA:
        raise RenderConfigError(f"{source}: schema: expected {SCHEMA!r}, got {data.get('schema')!r}")

    def get(path: str) -> Any:
        node: Any = data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                raise RenderConfigError(f"{source}: {path}: missing")
            node = node[part]
        return node

    def num(path: str, lo: float = -math.inf, hi: float = math.inf) -> float:
        v = get(path)
        if not (isinstance(v, (int, float)) and not isinstance(v, bool) and lo <= v <= hi):
            raise RenderConfigError(f"{source}: {path}: expected a number in [{lo}, {hi}], got {v!r}")
        return float(v)

    def rng_(path: str, lo: float = -math.inf, hi: float = math.inf) -> tuple:
        v = get(path)
        ok = (isinstance(v, list) and len(v) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
              and lo <= v[0] <= v[1] <= hi)
        if not ok:
            raise RenderConfigError(f"{source}: {path}: expected a range [lo, hi] within [{lo}, {hi}], got {v!r}")
        return (float(v[0]), float(v[1]))

    def colours(path: str, value: Any = None) -> tuple:
        v = get(path) if value is None else value
        ok = isinstance(v, list) and v and all(isinstance(c, list) and len(c) == 3 and all(isinstance(x, int) and 0 <= x <= 255 for x in c) for c in v)
        if not ok:
            raise RenderConfigError(f"{source}: {path}: expected a list of [B, G, R] colours (0..255), got {v!r}")
        return tuple(tuple(c) for c in v)

    teams = get("teams")
    if not (isinstance(teams, list) and teams and all(isinstance(p, list) and len(p) == 2 for p in teams)):
        raise RenderConfigError(f"{source}: teams: expected a list of [home, away] colour pairs, got {teams!r}")
    team_pairs = []
    for i, pair in enumerate(teams):
        team_pairs.append(colours(f"teams[{i}]", pair))

    cam = CameraRanges(
        height_mm=rng_("camera.height_mm", 50, 10000), tilt_deg=rng_("camera.tilt_deg", 0, 85),
        yaw_deg=rng_("camera.yaw_deg"), roll_deg=rng_("camera.roll_deg", -180, 180),
        hfov_deg=rng_("camera.hfov_deg", 10, 150), k1=rng_("camera.k1", -1, 1), k2=rng_("camera.k2", -1, 1),
        p=rng_("camera.p", -0.1, 0.1), principal_offset_px=rng_("camera.principal_offset_px", -100, 100),
        target_jitter=num("camera.target_jitter", 0, 0.5), margin_px=num("camera.margin_px", 0, 200),
        markers_in_view=bool(get("camera.markers_in_view")))
    return RenderConfig(
        px_per_mm=num("texture.px_per_mm", 0.25, 8), margin_mm=num("texture.margin_mm", 0, 1000), camera=cam,
        table_colours=colours("table.colours"), table_grain=rng_("table.grain", 0, 1), mat_tint=rng_("mat.tint", 0, 3),
        teams=tuple(team_pairs), light_azimuth_deg=rng_("lighting.azimuth_deg"),
        light_elevation_deg=rng_("lighting.elevation_deg", 5, 90), brightness=rng_("lighting.brightness", 0, 4),
        colour_gain=(rng_("lighting.colour_gain_b", 0, 4), rng_("lighting.colour_gain_g", 0, 4), rng_("lighting.colour_gain_r", 0, 4)),
        gradient=rng_("lighting.gradient", 0, 1), shadow_strength=rng_("shadows.strength", 0, 1),
        shadow_blur_px=rng_("shadows.blur_px", 0, 50), vignette=rng_("vignette", 0, 1), noise_sigma=rng_("noise_sigma", 0, 50),
        exposure_ms=rng_("exposure_ms", 0, 500), jpeg_probability=num("jpeg.probability", 0, 1),
        defocus_px=rng_("defocus_px", 0, 10), glare_probability=num("glare.probability", 0, 1),
        glare_strength=rng_("glare.strength", 0, 1), glare_radius=rng_("glare.radius", 0.01, 2),
        jpeg_quality=rng_("jpeg.quality", 1, 100), hand_probability=num("occluders.hand_probability", 0, 1),
        cup_probability=num("occluders.cup_probability", 0, 1), skin=colours("occluders.skin"),
        cup_colours=colours("occluders.cup_colours"))
