"""Small factories for the session tests: simulator scenes played through a session."""

from __future__ import annotations

import pytest


class StubGame:
    """A rules engine reduced to one waiting fact (``pending`` as a method or a property is given by
    the subclasses below); records what was pushed."""

    def __init__(self, state=None):
        self.state = state or {}
        self.pushed = []
        self.popped = 0

    def push(self, action):
        self.pushed.append(action)
        return []

    def pop(self):
        self.popped += 1
        return self.pushed.pop()

    def summary(self):
        return "stub"

    def outcome(self):
        return None


@pytest.fixture
def board():
    def load(ref):
        from sim.suites import _board

        return _board(ref)

    return load
