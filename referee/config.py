"""Referee configuration: ``referee/config.yaml`` loaded once into a frozen :class:`RefereeConfig`.

Every threshold and every interpretation a call depends on lives there (k, the classifier's minimum
confidence, line-of-sight reading, three-point and foul-line readings, the default each too_close
fact proposes). Pass the config in; nothing reads it from a global.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from calibration.yamlfile import merge, read_mapping
from typing import Any

from referee.core import RefereeError

CONFIG_PATH = Path(__file__).resolve().parent / "config.yaml"
SCHEMA = "tableref-referee/1"
LINE_OF_SIGHT = ("any_segment", "centre")
THREE_POINT = ("centre", "whole_disc", "any_part")
FOUL_LINE = ("whole_disc", "centre")


class ConfigError(RefereeError):
    """The referee configuration file is unreadable or invalid; the message names file and key."""


@dataclass(frozen=True)
class RefereeConfig:
    """Frozen referee settings (see ``config.yaml`` for the meaning of each)."""

    k: float = 4.5
    min_confidence: float = 0.90
    line_of_sight: str = "any_segment"
    three_point: str = "whole_disc"
    foul_line: str = "whole_disc"
    registration_sigma_floor_mm: float = 0.0
    observation_sigma_includes_registration: bool = False
    defaults: dict = field(default_factory=dict)

    def default_for(self, game: str, fact: str) -> Any:
        """The value a too_close ``fact`` of ``game`` proposes; KeyError-free (None when unset)."""
        return self.defaults.get(f"{game}.{fact}")

    def with_(self, **changes) -> "RefereeConfig":
        from dataclasses import replace

        return replace(self, **changes)


def _read(path: Path) -> dict:
    return read_mapping(path, ConfigError, "a mapping of settings (k, min_confidence, ...)")


def load_config(override: str | Path | None = None) -> RefereeConfig:
    """The shipped configuration with ``override`` (a YAML with any subset of the keys) applied."""
    data = _read(CONFIG_PATH)
    source = str(CONFIG_PATH)
    if override is not None:
        data = merge(data, _read(Path(override)))
        source = str(override)
    return parse_config(data, source)


def parse_config(data: dict, source: str = "<referee config>") -> RefereeConfig:
    known = {"schema", "k", "min_confidence", "line_of_sight", "three_point", "foul_line",
             "registration_sigma_floor_mm", "observation_sigma_includes_registration", "defaults"}
    for key in data:
        if key not in known:
            raise ConfigError(f"{source}: {key}: expected one of the keys {', '.join(sorted(known))}")
    if data.get("schema", SCHEMA) != SCHEMA:
        raise ConfigError(f"{source}: schema: expected {SCHEMA!r}, got {data.get('schema')!r}")

    def num(key: str, default: float, lo: float, hi: float) -> float:
        value = data.get(key, default)
        if not (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and lo <= value <= hi):
            raise ConfigError(f"{source}: {key}: expected a number in [{lo:g}, {hi:g}], got {value!r}")
        return float(value)

    def choice(key: str, default: str, allowed: tuple) -> str:
        value = data.get(key, default)
        if value not in allowed:
            raise ConfigError(f"{source}: {key}: expected one of {', '.join(allowed)}, got {value!r}")
        return value

    def flag(key: str, default: bool) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise ConfigError(f"{source}: {key}: expected true or false, got {value!r}")
        return value

    defaults = data.get("defaults", {}) or {}
    if not isinstance(defaults, dict):
        raise ConfigError(f"{source}: defaults: expected a mapping '<game>.<fact>': value")
    return RefereeConfig(
        k=num("k", 4.5, 0.0, 100.0),
        min_confidence=num("min_confidence", 0.9, 0.0, 1.0),
        line_of_sight=choice("line_of_sight", "any_segment", LINE_OF_SIGHT),
        three_point=choice("three_point", "whole_disc", THREE_POINT),
        foul_line=choice("foul_line", "whole_disc", FOUL_LINE),
        registration_sigma_floor_mm=num("registration_sigma_floor_mm", 0.0, 0.0, 1000.0),
        observation_sigma_includes_registration=flag("observation_sigma_includes_registration", False),
        defaults=dict(defaults),
    )
