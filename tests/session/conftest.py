"""Small factories for the session tests: simulator scenes played through a session."""

from __future__ import annotations

import pytest


@pytest.fixture
def board():
    def load(ref):
        from sim.suites import _board

        return _board(ref)

    return load
