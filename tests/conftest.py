"""Shared test configuration: tests follow the package tree (tests/<package>/test_<module>.py)."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

SHARED = os.path.join(os.path.dirname(ROOT), "shared")
