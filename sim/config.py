"""The simulated table's configuration (``sim/config.yaml``) loaded into frozen dataclasses.

Units are mm, s, g and degrees; positions are in **mat mm**. ``load_sim_config(override)`` applies a
user's YAML with any subset of the keys on top of the shipped file. Errors are :class:`SimConfigError`
naming the file and the key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from pathlib import Path

from calibration.yamlfile import merge, read_mapping
from typing import Any

CONFIG_PATH = Path(__file__).resolve().parent / "config.yaml"
SCHEMA = "tableref-sim/1"


class SimConfigError(ValueError):
    """The simulation config is unreadable or invalid; the message names the file and key."""


@dataclass(frozen=True)
class KindPhysics:
    """Per piece-kind overrides (None = use the global value)."""

    table_mu: float | None = None
    mass_g: float | None = None
    static: bool = False
    restitution: float | None = None


@dataclass(frozen=True)
class PhysicsConfig:
    dt_s: float = 0.001
    iterations: int = 20
    gravity_mm_s2: float = 9810.0
    table_mu: float = 0.30
    spin_decel_rad_s2: float = 60.0
    piece_mu: float = 0.20
    restitution: float = 0.55
    density_g_mm3: float = 0.0007
    settle_speed_mm_s: float = 2.0
    settle_spin_rad_s: float = 0.5
    max_time_s: float = 8.0
    fps: float = 30.0
    min_contact_impulse: float = 0.5
    kinds: dict = field(default_factory=dict)  # kind -> KindPhysics

    def kind(self, kind: str) -> KindPhysics:
        return self.kinds.get(kind, KindPhysics())


@dataclass(frozen=True)
class DinoDunkConfig:
    carry_max_accel_mm_s2: float = 6000.0
    carry_max_launch_mm_s: float = 1100.0
    ball_fall_height_mm: float = 9.0
    flick_speed_mm_s: tuple = (500.0, 1800.0)
    aim_sigma_deg: float = 6.0
    shot_distance_mm: tuple = (120.0, 420.0)
    pieces_per_team: int = 5
    roster: tuple = ("disc-small", "disc-medium", "disc-medium", "disc-medium", "disc-large")
    placement_gap_mm: tuple = (0.0, 9.0)
    near_miss_mm: float = 3.0
    bot_shoot_mm: float = 330.0
    bot_dunk_mm: float = 240.0


@dataclass(frozen=True)
class Projectile:
    """How one Dodo Dash projectile is thrown: ranges [lo, hi] in mm and mm/s, mat mm frame."""

    drop_height_mm: tuple = (0.0, 0.0)
    speed_mm_s: tuple = (0.0, 0.0)
    airborne: bool = True
    spread_mm: float = 0.0
    curve_mm_s2: tuple = (0.0, 0.0)
    vz_mm_s: tuple = (0.0, 0.0)


@dataclass(frozen=True)
class DodoDashConfig:
    racers: tuple = (2, 5)
    racer_offset_mm: float = 14.0
    projectiles: dict = field(default_factory=dict)  # name -> Projectile
    landing_bounce: float = 0.35
    aim_sigma_deg: float = 10.0
    egg_aim_sigma_deg: float = 8.0
    first_hit_only: tuple = ("feather", "dodo")


@dataclass(frozen=True)
class MorrisConfig:
    p_broken: float = 0.5
    eggs: tuple = (1, 2)
    colours: tuple = ("blue", "purple", "red", "yellow")
    slide_speed_mm_s: tuple = (120.0, 450.0)
    fall_height_mm: tuple = (15.0, 40.0)
    spread_deg: float = 50.0


@dataclass(frozen=True)
class DogoDashConfig:
    players: tuple = (2, 5)
    deck: dict = field(default_factory=dict)  # card kind -> count
    deal_jitter_mm: float = 6.0
    deal_jitter_deg: float = 8.0
    reveal_at_s: float = 1.0
    fps: float = 10.0
    duration_s: float = 2.0


@dataclass(frozen=True)
class SimConfig:
    physics: PhysicsConfig
    dino_dunk: DinoDunkConfig
    dodo_dash: DodoDashConfig
    morris: MorrisConfig
    dogo_dash: DogoDashConfig
    source: str = ""


def _read(path: Path) -> dict:
    return read_mapping(path, SimConfigError, "a mapping with physics, dino-dunk, dodo-dash, morris, dogo-dash")


def _build(cls, data: Any, key: str, source: str):
    """A frozen dataclass from a mapping, checking names and number types; lists become tuples."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SimConfigError(f"{source}: {key}: expected a mapping, got {data!r}")
    known = {f.name: f for f in fields(cls)}
    kwargs = {}
    for name, value in data.items():
        attr = name.replace("-", "_")
        if attr not in known:
            raise SimConfigError(f"{source}: {key}.{name}: unknown key; expected one of {', '.join(sorted(known))}")
        default = getattr(cls(), attr) if attr != "kinds" and attr != "projectiles" else None
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise SimConfigError(f"{source}: {key}.{name}: expected true or false, got {value!r}")
        elif isinstance(default, (int, float)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise SimConfigError(f"{source}: {key}.{name}: expected a non-negative number, got {value!r}")
            value = type(default)(value)
        elif isinstance(default, tuple):
            if not isinstance(value, list):
                raise SimConfigError(f"{source}: {key}.{name}: expected a list, got {value!r}")
            if len(default) == 2 and all(isinstance(x, (int, float)) for x in default):
                if len(value) != 2 or not all(isinstance(x, (int, float)) for x in value) or value[0] > value[1]:
                    raise SimConfigError(f"{source}: {key}.{name}: expected a range [low, high] with low <= high, got {value!r}")
            value = tuple(value)
        kwargs[attr] = value
    return cls(**kwargs)


def parse_sim_config(data: dict, source: str = "<sim config>") -> SimConfig:
    if data.get("schema", SCHEMA) != SCHEMA:
        raise SimConfigError(f"{source}: schema: expected {SCHEMA!r}, got {data.get('schema')!r}")
    phys = dict(data.get("physics") or {})
    kinds = {k: _build(KindPhysics, v, f"physics.kinds.{k}", source) for k, v in (phys.pop("kinds", None) or {}).items()}
    physics = _build(PhysicsConfig, phys, "physics", source)
    physics = PhysicsConfig(**{**{f.name: getattr(physics, f.name) for f in fields(PhysicsConfig)}, "kinds": kinds})
    if physics.dt_s <= 0 or physics.dt_s > 0.01:
        raise SimConfigError(f"{source}: physics.dt_s: expected a step in (0, 0.01] s, got {physics.dt_s}")
    if physics.fps <= 0:
        raise SimConfigError(f"{source}: physics.fps: expected a positive frame rate, got {physics.fps}")
    dd = dict(data.get("dodo-dash") or {})
    projectiles = {k: _build(Projectile, v, f"dodo-dash.projectiles.{k}", source) for k, v in (dd.pop("projectiles", None) or {}).items()}
    dodo = _build(DodoDashConfig, dd, "dodo-dash", source)
    dodo = DodoDashConfig(**{**{f.name: getattr(dodo, f.name) for f in fields(DodoDashConfig)}, "projectiles": projectiles})
    dogo = _build(DogoDashConfig, data.get("dogo-dash"), "dogo-dash", source)
    if not dogo.deck:
        raise SimConfigError(f"{source}: dogo-dash.deck: expected card kind -> count")
    morris = _build(MorrisConfig, data.get("morris"), "morris", source)
    if not 0.0 <= morris.p_broken <= 1.0:
        raise SimConfigError(f"{source}: morris.p_broken: expected a probability in [0, 1], got {morris.p_broken}")
    return SimConfig(physics, _build(DinoDunkConfig, data.get("dino-dunk"), "dino-dunk", source), dodo, morris, dogo, source)


def load_sim_config(override: str | Path | None = None) -> SimConfig:
    """The shipped ``sim/config.yaml`` with ``override`` (a YAML with any subset of keys) applied."""
    data = _read(CONFIG_PATH)
    source = str(CONFIG_PATH)
    if override is not None:
        data = merge(data, _read(Path(override)))
        source = str(override)
    return parse_sim_config(data, source)
