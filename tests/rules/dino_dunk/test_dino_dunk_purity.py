"""rules/dino_dunk imports only the standard library and rules.core (DESIGN.md: Dependency direction)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

PACKAGE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "rules", "dino_dunk")
ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")


def test_only_stdlib_and_rules_core_are_imported():
    for name in sorted(os.listdir(PACKAGE)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(PACKAGE, name), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module or ""] if node.level == 0 else []
            else:
                continue
            for mod in mods:
                top = mod.split(".")[0]
                assert mod in ("rules", "rules.core") or top in sys.stdlib_module_names, f"{name} imports {mod}"


def test_importing_the_engine_loads_no_heavy_library():
    code = ("import sys, rules.dino_dunk; bad = [m for m in ('numpy', 'cv2', 'yaml', 'torch') if m in sys.modules];"
            "print(bad); sys.exit(1 if bad else 0)")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
