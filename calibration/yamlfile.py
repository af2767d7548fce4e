"""Reading the project's YAML settings files: one mapping per file, user overrides merged in.

Every settings module (piece specs, referee, simulator, renderer) loads its shipped file, merges a
user's file over it key by key, and builds a frozen dataclass; this is the part they share.
"""

from __future__ import annotations

from pathlib import Path


def merge(base: dict, over: dict) -> dict:
    """``over`` laid over ``base``: nested mappings merged key by key, anything else replaced."""
    out = dict(base)
    for key, value in over.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def read_mapping(path: str | Path, error: type[Exception], expected: str) -> dict:
    """The mapping in a YAML file. A missing file, bad YAML or anything but a mapping raises
    ``error`` with a one-line message naming the file (``expected`` says what it should hold)."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise error(f"{path}: no such file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise error(f"{path}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not a text file") from None
    if not isinstance(data, dict):
        raise error(f"{path}: expected {expected}")
    return data
