"""rules/morris imports only the standard library and rules.core (DESIGN.md: Dependency direction)."""

import ast
import glob
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def test_only_the_standard_library_and_rules_core():
    files = glob.glob(os.path.join(ROOT, "rules", "morris", "*.py"))
    assert files
    for path in files:
        tree = ast.parse(open(path, encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                ok = (top in sys.stdlib_module_names or name == "rules.core"
                      or name.startswith("rules.morris") or top == "__future__")
                assert ok, f"{os.path.basename(path)} imports {name}"
