"""Pending facts: a too_close call proposed with the rule's default, applied only once a person
confirms or overrides it ("umpire's call").

A :class:`Ruling` is what an adapter hands to the game: the fact action to push (a rules engine's
dataclass, e.g. ``rules.dino_dunk.actions.ShotResult``), built from settled facts; while any fact is
pending, :meth:`Ruling.action` raises :class:`PendingFactError` and nothing reaches the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from referee.core import RefereeError, Verdict

STATUSES = ("pending", "confirmed", "overridden")


class PendingFactError(RefereeError):
    """A fact is still too close to call; a person must confirm or override it first."""


@dataclass(frozen=True)
class PendingFact:
    """One fact a call could not settle. ``proposed`` is the rule's default (configurable,
    ``RefereeConfig.defaults``), ``leaning`` what the measurement leaned to, ``verdicts`` the calls
    behind it. ``confirm`` accepts the proposal, ``override`` sets another value; both record who."""

    game: str
    fact: str
    proposed: Any
    leaning: Any
    verdicts: tuple = ()
    status: str = "pending"
    value: Any = None
    decided_by: str = ""

    @property
    def settled(self) -> bool:
        return self.status != "pending"

    def confirm(self, by: str = "") -> "PendingFact":
        if self.proposed is None:
            raise PendingFactError(f"{self.game}.{self.fact}: there is no default to confirm; say the value (override)")
        return replace(self, status="confirmed", value=self.proposed, decided_by=by)

    def override(self, value: Any, by: str = "") -> "PendingFact":
        return replace(self, status="overridden", value=value, decided_by=by)

    def to_dict(self) -> dict:
        return {"game": self.game, "fact": self.fact, "proposed": self.proposed, "leaning": self.leaning,
                "status": self.status, "value": self.value, "decided_by": self.decided_by,
                "verdicts": [v.to_dict() for v in self.verdicts]}


@dataclass(frozen=True)
class Ruling:
    """Facts for one rules-engine action. ``facts`` maps field → settled value, ``pending`` field →
    PendingFact; ``build(facts) -> action`` makes the engine's action (or a plain dict where the
    engine takes none)."""

    game: str
    name: str
    facts: dict
    pending: dict = field(default_factory=dict)
    verdicts: tuple = ()
    build: Callable[[dict], Any] | None = field(default=None, compare=False, repr=False)

    @property
    def ready(self) -> bool:
        return all(p.settled for p in self.pending.values())

    def open_facts(self) -> list[str]:
        return [k for k, p in self.pending.items() if not p.settled]

    def resolve(self, fact: str, value: Any = None, *, by: str = "", confirm: bool = False) -> "Ruling":
        """A new Ruling with ``fact`` settled: ``confirm=True`` takes the proposal, else ``value``."""
        if fact not in self.pending:
            raise PendingFactError(f"{self.name}: no pending fact {fact!r}; pending: {self.open_facts() or 'none'}")
        p = self.pending[fact]
        p = p.confirm(by) if confirm else p.override(value, by)
        return replace(self, pending={**self.pending, fact: p})

    def values(self) -> dict:
        """Every fact with its value (settled ones; a pending fact raises)."""
        open_ = self.open_facts()
        if open_:
            raise PendingFactError(f"{self.name}: too close to call, awaiting a person for {', '.join(open_)}")
        return {**self.facts, **{k: p.value for k, p in self.pending.items()}}

    def action(self):
        """The engine action built from the settled facts; raises PendingFactError while pending."""
        values = self.values()
        return self.build(values) if self.build else values

    def to_dict(self) -> dict:
        return {"game": self.game, "name": self.name, "facts": dict(self.facts), "ready": self.ready,
                "pending": {k: p.to_dict() for k, p in self.pending.items()},
                "verdicts": [v.to_dict() for v in self.verdicts]}


def fact_from_verdict(game: str, fact: str, verdict: Verdict, default: Any, facts: dict, pending: dict,
                      yes: Any = True, no: Any = False) -> None:
    """Put ``fact`` in ``facts`` (a confident verdict: ``yes``/``no``) or in ``pending`` (too_close,
    proposing ``default``; the string "leaning" proposes what the measurement leaned to)."""
    if verdict.answer == "yes":
        facts[fact] = yes
    elif verdict.answer == "no":
        facts[fact] = no
    else:
        leaning = yes if verdict.leaning == "yes" else no
        pending[fact] = PendingFact(game, fact, leaning if default == "leaning" else default, leaning, (verdict,))


def all_of(verdicts) -> str:
    """The answer of "all of these are yes": no if any is a confident no, yes if all are confident
    yes, else too_close."""
    answers = [v.answer for v in verdicts]
    if "no" in answers:
        return "no"
    return "yes" if all(a == "yes" for a in answers) else "too_close"
