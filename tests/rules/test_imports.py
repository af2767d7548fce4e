"""Every rules engine imports only the standard library and ``rules`` itself, and importing one loads
no heavy library (DESIGN.md: Dependency direction)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ["dino_dunk", "dodo_dash", "morris", "dogo_dash"]


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:  # relative imports stay in the package
            yield node.module or ""


@pytest.mark.parametrize("engine", ENGINES)
def test_only_the_standard_library_and_rules(engine):
    files = sorted((ROOT / "rules" / engine).rglob("*.py"))
    assert files
    for path in files:
        for name in _imports(path):
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top == "rules", f"{path.relative_to(ROOT)} imports {name}"


def test_rules_core_imports_only_the_standard_library():
    for name in _imports(ROOT / "rules" / "core.py"):
        assert name.split(".")[0] in sys.stdlib_module_names, f"rules/core.py imports {name}"


@pytest.mark.parametrize("engine", ENGINES)
def test_importing_an_engine_loads_no_heavy_library(engine):
    code = (f"import sys, rules.{engine}; bad = [m for m in ('numpy', 'cv2', 'yaml', 'torch') if m in sys.modules];"
            "print(bad); sys.exit(1 if bad else 0)")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
