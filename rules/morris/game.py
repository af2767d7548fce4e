"""Morris the Dodo: the whole rulebook (../shared/rulebooks/morris-the-dodo.txt) as a pure engine.

A cooperative game. On a turn the player loads egg(s) from the nest onto Sebastian the toucan
(:class:`LoadEggs`), Sebastian slides and the camera reports how each egg landed (:class:`Landed`, a
fact: colour and ``"whole"`` / ``"broken"``). Whole eggs go into a free slot of their colour or a
multicolour slot (:class:`PlaceEgg`, the player chooses among the listed legal slots); a broken egg
is set aside and the hunter moves to the next stone of its colour (the last stone, multicolour,
takes any colour). A filled shelter turns over and moves the hunter back by its value. The players
lose when the hunter lands on the multicolour stone, and win when the nest is empty first.

"Big Rush" (two eggs per turn, with the orders the rulebook lets the players choose) is the small
subclass :class:`BigRushGame`.

State (all plain JSON, in ``self.state``)::

    variant       "standard" | "big_rush"
    players       list of player names, clockwise; ``turn`` indexes the one to play
    shelters      [{"slots": [colour|"multi"], "back": 1..3, "eggs": [colour|None], "flipped": bool}]
    path          stone colours after the start, the last one "multi"
    hunter        0 = the start (the flower meadow), k = the k-th stone (1-based); len(path) = the end
    nest          {colour: count}
    toucan        colours loaded on Sebastian and not yet landed
    pending       [{"colour", "face"}] landed eggs not yet resolved (placed / hunter moved)
    set_aside     {colour: count} of broken eggs
    phase         "load" | "slide" | "resolve" | "over"
    result        None | "won" | "lost"

Choices made where the rulebook is silent (each one is an option or documented here):

* ``no_free_slot``: a whole egg with no free slot of its colour and no free multicolour slot cannot
  be placed ("Egg tokens may not be placed in slots of other colours"). Default ``"nest"``: it goes
  back to the nest (it is not saved, it is not broken); ``"set_aside"``: it is set aside like a broken
  egg but the hunter does not move. Resolved automatically; a slot never frees up again.
* Moving back past the start: the hunter stops at the start (the meadow).
* The end: the rulebook loses "if the hunter lands on the multicolour stone while eggs are still left
  in the nest" and wins "if there are no eggs left in the nest and the hunter has not reached the
  multicolour stone". The loss is checked the moment the hunter lands (so in Big Rush the chosen
  order matters, as the rulebook intends); a hunter on the multicolour stone is a loss even when the
  nest has just been emptied (the win needs the hunter not to have reached it). The win is checked
  when the turn's eggs are all resolved.
* Big Rush with a single egg left in the nest: that egg is loaded alone.
* Big Rush "you may choose the order": the order of :class:`PlaceEgg` / :class:`MoveHunter` actions
  is the order chosen. Where there is no choice (one broken egg; two broken eggs of the same colour)
  the hunter moves automatically.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, ClassVar

from rules.core import Event, GameBase, IllegalActionError, Outcome, RulesError
from rules.morris.layout import COLOURS, EGGS_PER_COLOUR, MULTI, load_layout

WHOLE = "whole"
BROKEN = "broken"
FACES = (WHOLE, BROKEN)


class WrongPhaseError(IllegalActionError):
    """The action belongs to another part of the turn."""


class EggNotInNestError(IllegalActionError):
    """The chosen egg is not in the nest."""


class WrongEggCountError(IllegalActionError):
    """The turn uses 1 egg (2 in Big Rush)."""


class LandedMismatchError(IllegalActionError):
    """The landed eggs are not the eggs that were loaded on Sebastian."""


class SlotColourError(IllegalActionError):
    """Eggs may only go into a free slot of their colour or a multicolour slot."""


class NoSuchEggError(IllegalActionError):
    """No landed egg of that colour and face is waiting to be resolved."""


class GameOverError(IllegalActionError):
    """The game has ended."""


# -- actions ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LoadEggs:
    """How to Play 2: choose egg(s) from the nest and put them on Sebastian (1, or 2 in Big Rush)."""

    colours: tuple


@dataclass(frozen=True)
class Landed:
    """How to Play 4 (a fact from the camera): how each egg landed, as ``((colour, face), ...)``.
    Accepted straight after the previous turn too (the load is then implied)."""

    eggs: tuple


@dataclass(frozen=True)
class PlaceEgg:
    """A whole egg into slot ``slot`` of shelter ``shelter`` (both 0-based)."""

    colour: str
    shelter: int
    slot: int


@dataclass(frozen=True)
class MoveHunter:
    """Resolve a broken egg of ``colour``: the hunter moves to the next stone of that colour (used when
    the order is the players' choice; otherwise the engine moves the hunter itself)."""

    colour: str


class Game(GameBase):
    GAME: ClassVar[str] = "morris"
    ACTIONS: ClassVar[tuple] = (LoadEggs, Landed, PlaceEgg, MoveHunter)
    VARIANT: ClassVar[str] = "standard"
    EGGS_PER_TURN: ClassVar[int] = 1  # "Choose 1 egg token from the nest"

    # -- setup ----------------------------------------------------------------------------------
    @classmethod
    def new(cls, players: Any = 2, layout: Any = None, shelters: Any = None, path: Any = None,
            no_free_slot: str = "nest", first_player: int = 0) -> "Game":
        if isinstance(players, int) and not isinstance(players, bool):
            if players < 1:
                raise RulesError("at least one player")
            names = [f"P{i + 1}" for i in range(players)]
        elif isinstance(players, (list, tuple)) and players and all(isinstance(p, str) for p in players):
            names = list(players)
            if len(set(names)) != len(names):
                raise RulesError("player names must be different")
        else:
            raise RulesError("players is a count or a list of names")
        if no_free_slot not in ("nest", "set_aside"):
            raise RulesError("no_free_slot is 'nest' or 'set_aside'")
        if not isinstance(first_player, int) or not 0 <= first_player < len(names):
            raise RulesError("first_player is a player index")
        lay = load_layout(layout, shelters, path)
        state = {
            "variant": cls.VARIANT,
            "players": names,
            "turn": first_player,
            "turns": 0,
            "shelters": [{"slots": s["slots"], "back": s["back"], "eggs": [None] * len(s["slots"]),
                          "flipped": False} for s in lay["shelters"]],
            "path": lay["path"],
            "hunter": 0,
            "nest": {c: EGGS_PER_COLOUR for c in COLOURS},
            "toucan": [],
            "pending": [],
            "set_aside": {c: 0 for c in COLOURS},
            "phase": "load",
            "result": None,
            "no_free_slot": no_free_slot,
        }
        return cls(state)

    def _restore_extra(self) -> None:
        self.__class__ = VARIANTS[self.state["variant"]]

    # -- queries ---------------------------------------------------------------------------------
    @property
    def end_stone(self) -> int:
        return len(self.state["path"])

    def nest_count(self) -> int:
        return sum(self.state["nest"].values())

    def egg_counts(self) -> dict:
        """Where the 28 eggs are: nest, on Sebastian (loaded, or landed whole and not yet placed),
        shelters, set aside (broken eggs are set aside as they land, even while the hunter's move waits)."""
        s = self.state
        return {
            "nest": self.nest_count(),
            "toucan": len(s["toucan"]) + sum(p["face"] == WHOLE for p in s["pending"]),
            "shelters": sum(e is not None for sh in s["shelters"] for e in sh["eggs"]),
            "set_aside": sum(s["set_aside"].values()),
        }

    def eggs_this_turn(self) -> int:
        return min(self.EGGS_PER_TURN, self.nest_count())

    def legal_slots(self, colour: str) -> list[tuple[int, int]]:
        """Free slots an egg of ``colour`` may go into: its colour or multicolour, on unflipped shelters."""
        out = []
        for i, sh in enumerate(self.state["shelters"]):
            if sh["flipped"]:
                continue
            for j, (slot, egg) in enumerate(zip(sh["slots"], sh["eggs"])):
                if egg is None and (slot == colour or slot == MULTI):
                    out.append((i, j))
        return out

    def next_stone(self, colour: str, position: int | None = None) -> int:
        """The stone the hunter moves to for a broken egg of ``colour``: the next stone of that colour,
        or the last (multicolour) stone, which "any broken egg" reaches."""
        pos = self.state["hunter"] if position is None else position
        path = self.state["path"]
        for k in range(pos + 1, len(path) + 1):
            if path[k - 1] == colour or path[k - 1] == MULTI:
                return k
        return len(path)

    def current_player(self) -> str:
        return self.state["players"][self.state["turn"]]

    def outcome(self) -> Outcome | None:
        s = self.state
        if s["result"] is None:
            return None
        counts = self.egg_counts()
        scores = {"saved": counts["shelters"], "broken": counts["set_aside"], "hunter": s["hunter"]}
        if s["result"] == "won":
            return Outcome(winners=tuple(s["players"]), reason="nest_empty", scores=scores)
        return Outcome(winners=(), reason="hunter_reached_end", scores=scores)

    def summary(self) -> str:
        s = self.state
        nest = " ".join(f"{c[0]}{n}" for c, n in s["nest"].items())
        full = sum(sh["flipped"] for sh in s["shelters"])
        c = self.egg_counts()
        stone = "start" if s["hunter"] == 0 else f"stone {s['hunter']}/{self.end_stone} ({s['path'][s['hunter'] - 1]})"
        head = f"Morris{' (Big Rush)' if s['variant'] == 'big_rush' else ''}: "
        if s["result"]:
            head += f"game {s['result']}; "
        else:
            head += f"{self.current_player()} to {s['phase']}; "
        return (head + f"nest {c['nest']} ({nest}); toucan {c['toucan']}; shelters {full}/{len(s['shelters'])} full "
                f"with {c['shelters']} eggs; set aside {c['set_aside']}; hunter at {stone}")

    # -- legality --------------------------------------------------------------------------------
    def legal_actions(self) -> list:
        s = self.state
        if s["phase"] == "over":
            return []
        if s["phase"] == "load":
            n = self.eggs_this_turn()
            combos = self._colour_combos(n)
            out: list = [LoadEggs(c) for c in combos]
            for c in combos:
                out.extend(Landed(e) for e in self._landings(c))
            return out
        if s["phase"] == "slide":
            return [Landed(e) for e in self._landings(tuple(s["toucan"]))]
        out = []
        seen = set()
        for p in s["pending"]:
            key = (p["colour"], p["face"])
            if key in seen:
                continue
            seen.add(key)
            if p["face"] == WHOLE:
                out.extend(PlaceEgg(p["colour"], i, j) for i, j in self.legal_slots(p["colour"]))
            else:
                out.append(MoveHunter(p["colour"]))
        return out

    def _colour_combos(self, n: int) -> list[tuple]:
        nest = self.state["nest"]
        out = []
        for combo in itertools.combinations_with_replacement(COLOURS, n):
            if all(combo.count(c) <= nest[c] for c in set(combo)):
                out.append(combo)
        return out

    @staticmethod
    def _landings(colours: tuple) -> list[tuple]:
        out = set()
        for faces in itertools.product(FACES, repeat=len(colours)):
            out.add(tuple(sorted(zip(colours, faces))))
        return sorted(out)

    # -- applying --------------------------------------------------------------------------------
    def _apply(self, action: Any) -> list[Event]:
        s = self.state
        if s["phase"] == "over":
            raise GameOverError(f"the game is over ({s['result']}); no more actions (rulebook: End of Game)")
        if isinstance(action, LoadEggs):
            if s["phase"] != "load":
                raise WrongPhaseError(f"eggs are loaded at the start of a turn; now is the {s['phase']} step")
            return self._load(tuple(action.colours))
        if isinstance(action, Landed):
            events = []
            eggs = self._check_eggs(action.eggs)
            if s["phase"] == "load":
                events += self._load(tuple(c for c, _ in eggs))
            elif s["phase"] != "slide":
                raise WrongPhaseError(f"no egg is sliding; now is the {s['phase']} step")
            if sorted(c for c, _ in eggs) != sorted(s["toucan"]):
                raise LandedMismatchError(
                    f"Sebastian carries {sorted(s['toucan'])}, but {sorted(c for c, _ in eggs)} landed "
                    "(rulebook: How to Play 4 checks the eggs that were placed on him)")
            s["toucan"] = []
            s["pending"] = [{"colour": c, "face": f} for c, f in eggs]
            s["phase"] = "resolve"
            events.append(Event("landed", {"eggs": [[c, f] for c, f in eggs]}))
            for c, f in eggs:
                if f == BROKEN:
                    s["set_aside"][c] += 1
                    events.append(Event("egg_broken", {"colour": c}))
            return events + self._settle()
        if isinstance(action, PlaceEgg):
            self._need_resolve()
            return self._place(action) + self._settle()
        if isinstance(action, MoveHunter):
            self._need_resolve()
            idx = self._pending_index(action.colour, BROKEN)
            s["pending"].pop(idx)
            return self._hunter_forward(action.colour) + self._settle()
        raise IllegalActionError(f"unknown action {action!r}")  # pragma: no cover

    def _need_resolve(self) -> None:
        if self.state["phase"] != "resolve":
            raise WrongPhaseError(f"no landed egg is waiting; now is the {self.state['phase']} step")

    def _check_eggs(self, eggs: Any) -> list[tuple[str, str]]:
        out = []
        if not isinstance(eggs, tuple):
            raise LandedMismatchError("Landed.eggs is a tuple of (colour, face) pairs")
        for egg in eggs:
            if not (isinstance(egg, tuple) and len(egg) == 2 and egg[0] in COLOURS and egg[1] in FACES):
                raise LandedMismatchError(f"a landed egg is (colour in {COLOURS}, face in {FACES}), got {egg!r}")
            out.append((egg[0], egg[1]))
        return out

    def _load(self, colours: tuple) -> list[Event]:
        s = self.state
        n = self.eggs_this_turn()
        if len(colours) != n:
            raise WrongEggCountError(
                f"this turn loads {n} egg{'s' if n != 1 else ''} on Sebastian, not {len(colours)} "
                f"(rulebook: {'Big Rush' if self.EGGS_PER_TURN == 2 else 'How to Play 2, choose 1 egg token'})")
        for c in set(colours):
            if c not in COLOURS:
                raise EggNotInNestError(f"there is no {c!r} egg; colours are {COLOURS}")
            if colours.count(c) > s["nest"][c]:
                raise EggNotInNestError(f"the nest holds {s['nest'][c]} {c} egg(s), not {colours.count(c)} "
                                        "(rulebook: How to Play 2, choose from the nest)")
        for c in colours:
            s["nest"][c] -= 1
        s["toucan"] = sorted(colours)
        s["phase"] = "slide"
        return [Event("loaded", {"player": self.current_player(), "colours": list(colours)})]

    def _pending_index(self, colour: str, face: str) -> int:
        for i, p in enumerate(self.state["pending"]):
            if p["colour"] == colour and p["face"] == face:
                return i
        raise NoSuchEggError(f"no {face} {colour} egg is waiting; waiting: "
                             f"{[(p['colour'], p['face']) for p in self.state['pending']]}")

    def _place(self, action: PlaceEgg) -> list[Event]:
        s = self.state
        idx = self._pending_index(action.colour, WHOLE)
        shelters = s["shelters"]
        if not (isinstance(action.shelter, int) and 0 <= action.shelter < len(shelters)):
            raise SlotColourError(f"there is no shelter {action.shelter!r}")
        sh = shelters[action.shelter]
        if sh["flipped"]:
            raise SlotColourError(f"shelter {action.shelter} is full and turned over (rulebook: Shelters)")
        if not (isinstance(action.slot, int) and 0 <= action.slot < len(sh["slots"])):
            raise SlotColourError(f"shelter {action.shelter} has no slot {action.slot!r}")
        if sh["eggs"][action.slot] is not None:
            raise SlotColourError(f"slot {action.slot} of shelter {action.shelter} is not free "
                                  "(rulebook: place this token in any free slot)")
        colour = sh["slots"][action.slot]
        if colour not in (action.colour, MULTI):
            raise SlotColourError(f"a {action.colour} egg may not go into a {colour} slot "
                                  "(rulebook: Egg tokens may not be placed in slots of other colours)")
        s["pending"].pop(idx)
        sh["eggs"][action.slot] = action.colour
        events = [Event("egg_placed", {"colour": action.colour, "shelter": action.shelter, "slot": action.slot})]
        if all(e is not None for e in sh["eggs"]):
            sh["flipped"] = True
            before = s["hunter"]
            s["hunter"] = max(0, before - sh["back"])
            events.append(Event("shelter_full", {"shelter": action.shelter, "back": sh["back"],
                                                 "hunter_from": before, "hunter_to": s["hunter"]}))
        return events

    def _hunter_forward(self, colour: str) -> list[Event]:
        s = self.state
        before = s["hunter"]
        s["hunter"] = self.next_stone(colour)
        events = [Event("hunter_moved", {"colour": colour, "from": before, "to": s["hunter"]})]
        if s["hunter"] >= self.end_stone:
            s["phase"] = "over"
            s["result"] = "lost"
            events.append(Event("game_lost", {"reason": "the hunter landed on the multicolour stone",
                                              "nest": self.nest_count()}))
        return events

    def _settle(self) -> list[Event]:
        """Resolve what needs no choice, then end the turn when nothing is waiting."""
        s = self.state
        events: list[Event] = []
        while s["phase"] == "resolve":
            stuck = [p for p in s["pending"] if p["face"] == WHOLE and not self.legal_slots(p["colour"])]
            if stuck:
                p = stuck[0]
                s["pending"].remove(p)
                if s["no_free_slot"] == "nest":
                    s["nest"][p["colour"]] += 1
                    events.append(Event("egg_returned", {"colour": p["colour"], "to": "nest",
                                                         "reason": "no free slot of its colour or multicolour"}))
                else:
                    s["set_aside"][p["colour"]] += 1
                    events.append(Event("egg_returned", {"colour": p["colour"], "to": "set_aside",
                                                         "reason": "no free slot of its colour or multicolour"}))
                continue
            if not s["pending"]:
                events += self._end_turn()
                break
            broken = {p["colour"] for p in s["pending"] if p["face"] == BROKEN}
            if len(broken) == 1 and all(p["face"] == BROKEN for p in s["pending"]):
                colour = s["pending"].pop(0)["colour"]
                events += self._hunter_forward(colour)
                continue
            break
        return events

    def _end_turn(self) -> list[Event]:
        s = self.state
        events = []
        s["turns"] += 1
        if self.nest_count() == 0:
            s["phase"] = "over"
            s["result"] = "won"
            return [Event("game_won", {"saved": self.egg_counts()["shelters"]})]
        s["turn"] = (s["turn"] + 1) % len(s["players"])
        s["phase"] = "load"
        events.append(Event("next_player", {"player": self.current_player()}))
        return events


class BigRushGame(Game):
    """Variant "Big Rush": "instead of placing only 1 egg token on the toucan, place 2"."""

    VARIANT: ClassVar[str] = "big_rush"
    EGGS_PER_TURN: ClassVar[int] = 2


VARIANTS = {"standard": Game, "big_rush": BigRushGame}


def new_game(players: Any = 2, big_rush: bool = False, layout: Any = None, shelters: Any = None,
             path: Any = None, no_free_slot: str = "nest", first_player: int = 0) -> Game:
    """A new game. ``layout``: None (the defaults in data/default_layout.json), a dict or a JSON path;
    ``shelters`` / ``path`` override parts of it. See the module docstring for ``no_free_slot``."""
    cls = BigRushGame if big_rush else Game
    return cls.new(players=players, layout=layout, shelters=shelters, path=path,
                   no_free_slot=no_free_slot, first_player=first_player)
