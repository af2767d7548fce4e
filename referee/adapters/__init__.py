"""Per-game adapters: verdicts in, the facts each rules engine takes out, as a
:class:`referee.pending.Ruling` (too_close facts pending until a person confirms or overrides).

Each adapter imports its engine's action dataclasses lazily, inside the function that builds them,
so the referee does not depend on the rules package at import time.
"""
