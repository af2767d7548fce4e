"""What every rules engine shares: typed errors, events, the outcome and the push/pop history.

Standard library only. A concrete engine subclasses :class:`GameBase`, keeps *all* of its state in
plain JSON-able data reachable from ``self.state`` (dicts, lists, str, int, bool, None), and
implements ``_apply(action) -> list[Event]``, ``legal_actions()`` and ``outcome()``. ``push``
validates, snapshots the state, applies, and records the events; ``pop`` restores the snapshot
exactly. Because the state is plain data, ``copy()`` and the canonical JSON form come for free and
round-trip by construction.
"""

from __future__ import annotations

import copy as _copy
import importlib
import json
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any, ClassVar, Iterable


class RulesError(ValueError):
    """Base of every error a rules engine raises."""


class IllegalActionError(RulesError):
    """The action is not legal now; the message names the rule that forbids it."""


class ReplayError(RulesError):
    """A match log could not be replayed; the message names the line."""


@dataclass(frozen=True)
class Event:
    """Something that changed: ``kind`` is a short slug ("score", "turnover", "foul", ...)."""

    kind: str
    data: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"kind": self.kind, **self.data}


@dataclass(frozen=True)
class Outcome:
    """The end of a game. ``winners`` lists player/team ids (several for a shared victory, none for
    a cooperative loss); ``reason`` is a short slug."""

    winners: tuple
    reason: str
    scores: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"winners": list(self.winners), "reason": self.reason, "scores": dict(self.scores)}


def action_to_dict(action: Any) -> dict:
    """Canonical dict of a frozen dataclass action: ``{"type": ClassName, **fields}``."""
    if not is_dataclass(action):
        raise TypeError(f"actions are dataclasses, got {type(action).__name__}")
    out = {"type": type(action).__name__}
    for f in fields(action):
        out[f.name] = _plain(getattr(action, f.name))
    return out


def _plain(value: Any) -> Any:
    if is_dataclass(value):
        return asdict(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(_plain(v) for v in value)
    return value


def action_from_dict(data: dict, action_types: Iterable[type]) -> Any:
    """Inverse of :func:`action_to_dict` given the engine's action classes. Lists become tuples."""
    by_name = {t.__name__: t for t in action_types}
    if not isinstance(data, dict) or "type" not in data:
        raise RulesError("an action is an object with a 'type' key")
    cls = by_name.get(data["type"])
    if cls is None:
        raise RulesError(f"unknown action type {data['type']!r}; expected one of {sorted(by_name)}")
    kwargs = {}
    names = {f.name for f in fields(cls)}
    for key, value in data.items():
        if key == "type":
            continue
        if key not in names:
            raise RulesError(f"{cls.__name__} has no field {key!r}; fields are {sorted(names)}")
        kwargs[key] = _tuplify(value)
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise RulesError(f"bad {cls.__name__}: {exc}") from None


def _tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value


class GameBase:
    """Mutable game with explicit history (python-chess style).

    Subclasses set ``GAME`` (the slug: "dino-dunk", ...), ``ACTIONS`` (their action classes) and
    implement ``_apply``, ``legal_actions`` and ``outcome``; ``is_legal`` defaults to trying the
    action on a copy, and subclasses may override it with something cheaper.
    """

    GAME: ClassVar[str] = ""
    ACTIONS: ClassVar[tuple] = ()

    def __init__(self, state: dict):
        self.state = state
        self._stack: list[tuple[dict, Any, list[Event]]] = []
        self.last_events: list[Event] = []

    # -- to implement -------------------------------------------------------------------------
    def _apply(self, action: Any) -> list[Event]:  # pragma: no cover - abstract
        raise NotImplementedError

    def legal_actions(self) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def outcome(self) -> Outcome | None:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- shared -------------------------------------------------------------------------------
    def push(self, action: Any) -> list[Event]:
        """Validate and apply ``action``; return the events it produced. On an illegal action the
        state is left exactly as it was and :class:`IllegalActionError` says why."""
        if not isinstance(action, tuple(self.ACTIONS)):
            raise IllegalActionError(f"{type(action).__name__} is not an action of {self.GAME}")
        snapshot = _copy.deepcopy(self.state)
        previous_events = self.last_events
        try:
            events = self._apply(action)
        except Exception:
            self.state = snapshot
            raise
        self._stack.append((snapshot, action, previous_events))
        self.last_events = list(events)
        return self.last_events

    def pop(self) -> Any:
        """Undo the last action and return it."""
        if not self._stack:
            raise RulesError("nothing to undo")
        snapshot, action, previous_events = self._stack.pop()
        self.state = snapshot
        self.last_events = previous_events
        return action

    def is_legal(self, action: Any) -> bool:
        trial = self.copy(stack=False)
        try:
            trial.push(action)
        except RulesError:
            return False
        return True

    @property
    def move_stack(self) -> list:
        return [a for _, a, _ in self._stack]

    def copy(self, stack: bool = True) -> "GameBase":
        other = self.__class__.__new__(self.__class__)
        other.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("state", "_stack", "last_events")})
        other.state = _copy.deepcopy(self.state)
        other._stack = _copy.deepcopy(self._stack) if stack else []
        other.last_events = list(self.last_events)
        return other

    def to_json(self) -> str:
        """Canonical JSON of the current state (sorted keys, no whitespace variation)."""
        return json.dumps({"game": self.GAME, "state": self.state}, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "GameBase":
        data = json.loads(text)
        if data.get("game") != cls.GAME:
            raise RulesError(f"this JSON is a {data.get('game')!r} game, not {cls.GAME!r}")
        game = cls.__new__(cls)
        GameBase.__init__(game, data["state"])
        game._restore_extra()
        return game

    def _restore_extra(self) -> None:
        """Hook for subclasses that keep derived, non-state attributes (catalogues, options)."""

    def action_to_dict(self, action: Any) -> dict:
        return action_to_dict(action)

    def action_from_dict(self, data: dict) -> Any:
        return action_from_dict(data, self.ACTIONS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameBase) and self.to_json() == other.to_json()

    __hash__ = None  # mutable


# game slug -> "module:factory" that builds a new Game from a setup dict (used by replay and the UI)
ENGINES = {
    "dino-dunk": "rules.dino_dunk",
    "dodo-dash": "rules.dodo_dash",
    "morris": "rules.morris",
    "dogo-dash": "rules.dogo_dash",
}


def engine_for(game: str):
    """The engine module for a game slug; each exposes ``Game``, ``new_game(**setup)`` and
    ``replay(lines)``."""
    if game not in ENGINES:
        raise RulesError(f"unknown game {game!r}; expected one of {sorted(ENGINES)}")
    return importlib.import_module(ENGINES[game])


def replay(game: str, lines: Iterable[str]):
    """Replay a match log (JSON Lines). The first non-blank line is ``{"setup": {...}}``, the keyword
    arguments of the engine's ``new_game``; every later line is one action as written by
    :func:`action_to_dict`. Yields ``(line_number, action, game, events)`` after each action; a bad
    line raises :class:`ReplayError` naming its number and the reason."""
    module = engine_for(game)
    state = None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"line {number}: not JSON ({exc.msg})") from None
        if state is None:
            if not isinstance(data, dict) or not isinstance(data.get("setup"), dict):
                raise ReplayError(f'line {number}: the first line must be {{"setup": {{...}}}}')
            try:
                state = module.new_game(**data["setup"])
            except (RulesError, TypeError) as exc:
                raise ReplayError(f"line {number}: bad setup: {exc}") from None
            yield number, None, state, []
            continue
        try:
            action = state.action_from_dict(data)
            events = state.push(action)
        except RulesError as exc:
            raise ReplayError(f"line {number}: {exc}") from None
        yield number, action, state, events
    if state is None:
        raise ReplayError("the log is empty")
