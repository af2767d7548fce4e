"""Thresholds of calibration and registration, loaded once from ``calibration/config.yaml`` into a
frozen :class:`CalibrationConfig` and passed to each stage (each takes only its own section).

``load_config(path)`` reads the shipped defaults and overlays a user file (any subset of keys), so
an old user file keeps working when a key is added. Errors name the file, the key and what was
expected.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from calibration.errors import ConfigError

DEFAULT_CONFIG = Path(__file__).resolve().parent / "config.yaml"


@dataclass(frozen=True)
class DetectorConfig:
    """ArUco detection (see ``cv2.aruco.DetectorParameters``)."""

    corner_refine: str
    corner_refine_win_px: int
    corner_refine_max_iterations: int
    corner_refine_min_accuracy_px: float
    adaptive_thresh_win_min_px: int
    adaptive_thresh_win_max_px: int
    adaptive_thresh_win_step_px: int
    min_marker_perimeter_rate: float
    error_correction_rate: float
    perspective_remove_px_per_cell: int
    perspective_remove_margin_per_cell: float
    upscale_below_px: int
    edge_refine: bool
    edge_refine_min_module_px: float
    edge_refine_band_modules: float


@dataclass(frozen=True)
class RegistrationConfig:
    """Registration from markers: RANSAC, refinement, acceptance."""

    min_markers: int
    ransac_threshold_px: float
    refine_iterations: int
    huber_px: float
    sigma_floor_px: float
    corner_sigma_px: float
    max_residual_px: float
    outlier_marker_fraction: float


@dataclass(frozen=True)
class OutlineConfig:
    """Registration from the mat's outline."""

    max_side_px: int
    min_area_fraction: float
    approx_epsilon_fraction: float
    min_edge_support: float
    aspect_tolerance: float
    edge_band_px: float
    corner_exclusion_fraction: float
    outer_edge_fraction: float
    sigma_floor_px: float
    orientation_min_ratio: float


@dataclass(frozen=True)
class DriftConfig:
    moved_mm: float


@dataclass(frozen=True)
class IntrinsicsConfig:
    """The ChArUco board and the acceptance of a camera calibration."""

    squares_x: int
    squares_y: int
    square_mm: float
    marker_mm: float
    dictionary: str
    min_corners_per_view: int
    min_views: int
    max_rms_px: float
    fix_k3: bool
    live_min_interval_s: float
    live_min_motion_px: float
    live_timeout_s: float


@dataclass(frozen=True)
class SheetConfig:
    dpi: int
    paper: str
    page_margin_mm: float
    quiet_zone_modules: float


@dataclass(frozen=True)
class RectifyConfig:
    mm_per_px: float
    margin_mm: float


@dataclass(frozen=True)
class CalibrationConfig:
    detector: DetectorConfig
    registration: RegistrationConfig
    outline: OutlineConfig
    drift: DriftConfig
    intrinsics: IntrinsicsConfig
    sheet: SheetConfig
    rectify: RectifyConfig
    source: str = ""


_SECTIONS = {f.name: f.type for f in dataclasses.fields(CalibrationConfig) if f.name != "source"}
_CLASSES = {"DetectorConfig": DetectorConfig, "RegistrationConfig": RegistrationConfig,
            "OutlineConfig": OutlineConfig, "DriftConfig": DriftConfig, "IntrinsicsConfig": IntrinsicsConfig,
            "SheetConfig": SheetConfig, "RectifyConfig": RectifyConfig}


def _read_yaml(path: Path) -> dict:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of sections ({', '.join(_SECTIONS)})")
    return data


def _coerce(value: Any, kind: str, where: str) -> Any:
    if kind == "bool":
        if isinstance(value, bool):
            return value
    elif kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif kind == "float":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif kind == "str":
        if isinstance(value, str):
            return value
    raise ConfigError(f"{where}: expected {'a number' if kind in ('int', 'float') else 'a ' + kind}"
                      f"{' (a whole number)' if kind == 'int' else ''}, got {value!r}")


def _build(data: dict, source: str) -> CalibrationConfig:
    sections = {}
    for name, type_name in _SECTIONS.items():
        cls = _CLASSES[type_name] if isinstance(type_name, str) else type_name
        raw = data.get(name)
        if not isinstance(raw, dict):
            raise ConfigError(f"{source}: {name}: expected a mapping of settings, got {raw!r}")
        fields = {f.name: f.type for f in dataclasses.fields(cls)}
        for key in raw:
            if key not in fields:
                raise ConfigError(f"{source}: {name}.{key}: unknown setting; {name} has {', '.join(fields)}")
        missing = [k for k in fields if k not in raw]
        if missing:
            raise ConfigError(f"{source}: {name}: missing {', '.join(missing)}")
        sections[name] = cls(**{k: _coerce(raw[k], str(fields[k]), f"{source}: {name}.{k}") for k in fields})
    return CalibrationConfig(**sections, source=source)


def _merge(base: dict, over: dict, source: str) -> dict:
    out = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
    for key, value in over.items():
        if key not in _SECTIONS:
            raise ConfigError(f"{source}: {key}: unknown section; sections are {', '.join(_SECTIONS)}")
        if not isinstance(value, dict):
            raise ConfigError(f"{source}: {key}: expected a mapping of settings, got {value!r}")
        out[key].update(value)
    return out


@lru_cache(maxsize=1)
def _default() -> CalibrationConfig:
    cfg = _build(_read_yaml(DEFAULT_CONFIG), str(DEFAULT_CONFIG))
    _check(cfg)
    return cfg


def load_config(path: str | os.PathLike | None = None) -> CalibrationConfig:
    """The shipped defaults, overlaid with the user file at ``path`` (any subset of the keys).
    Raises :class:`ConfigError` naming the file and key."""
    if path is None:
        return _default()
    user = Path(path)
    merged = _merge(_read_yaml(DEFAULT_CONFIG), _read_yaml(user), str(user))
    cfg = _build(merged, str(user))
    _check(cfg)
    return cfg


def _check(cfg: CalibrationConfig) -> None:
    src = cfg.source
    if cfg.detector.corner_refine not in ("none", "subpix", "contour", "apriltag"):
        raise ConfigError(f"{src}: detector.corner_refine: expected none, subpix, contour or apriltag, "
                          f"got {cfg.detector.corner_refine!r}")
    if cfg.registration.min_markers < 1:
        raise ConfigError(f"{src}: registration.min_markers: expected at least 1")
    if cfg.sheet.paper not in ("a4", "letter", "a3"):
        raise ConfigError(f"{src}: sheet.paper: expected a4, letter or a3, got {cfg.sheet.paper!r}")
    for section, key in (("drift", "moved_mm"), ("rectify", "mm_per_px"), ("sheet", "dpi")):
        if getattr(getattr(cfg, section), key) <= 0:
            raise ConfigError(f"{src}: {section}.{key}: expected a positive number")
