"""Dogo Dash: the whole rulebook (../shared/rulebooks/dogo-dash.txt) as a pure engine.

A round: every player in it secretly chooses a card (:class:`Choose`, optional: a UI may record it;
the camera cannot), the cards are revealed at once (:class:`Reveal`, a fact: the card each seat
revealed, ``None`` for seats not in this round), and the strongest card wins every card on the table
(see :mod:`rules.dogo_dash.strength` for the exact meaning of "strongest"). Ties and Good Boys send the
tied players into another round among themselves with no drawing; everyone then draws back to 4.
When the deck is empty the Last Round is played with the Super Pot. The Catnip variant is the
subclass :class:`CatnipGame`; the Dogo Dash combo is the :class:`DogoDash` action.

State (all plain JSON, in ``self.state``)::

    variant     "standard" | "catnip"
    players     names, clockwise (seat = index)
    seed        the seed the deck was shuffled with (None when the deck order was given)
    deck        the draw deck, top card first (the order is fixed at setup: nothing random later)
    hands       per seat, the kinds in hand (sorted)
    piles       per seat, the score pile
    table       [{"seat", "card"}] the cards played in this round, across its tie-break replays
    super_pot   the unplayed cards put in the middle in the Last Round
    discard     cards out of the game (the odd card of a split)
    round       round number (1-based); ``replay``: how many tie-break replays this round
    last_round  True while the Last Round is being played
    active      seats in the current (sub-)round; ``chosen``: per seat, the secret choice or None
    phase       "choose" | "dogo_dash" | "over";  ``winner``: the round winner while Dogo Dashes may
                be declared; ``dashed``: seats that made a Dogo Dash this round
    options     {"strongest", "good_boy"}

Choices made where the rulebook is silent (all documented, the first two are options):

* "strongest" and Good Boys: see :mod:`rules.dogo_dash.strength` (options ``strongest``, ``good_boy``).
* Dealing: one card at a time, clockwise from seat 0, from the top of the deck. Drawing back to 4:
  seat by seat from seat 0, each player drawing all they need; when the deck runs out, the players
  later in that order get fewer.
* Tie-break replays continue while every tied player still has a card; when one of them has none
  ("they have played all of their cards") the cards on the table are split among the tied players.
* Splits: each tied player gets ``floor(cards / tied)``; the remainder ("the extra card") is
  discarded. The cards are dealt out from the table in the order they were played.
* The Last Round: the Super Pot holds the unplayed hands *and* the cards played in the Last Round;
  the winner takes all of it; a tie splits it at once (there are no cards left to replay with).
  Players with no card left sit the Last Round out. It begins when the deck is empty after drawing.
* Catnip ("If you have four cats in your hand"): a hand of exactly four Cats; the four go straight to
  the player's own score pile and that player is out of the round's comparison ("Everyone else
  continues the round as normal"); a round left with one player is won by that player.
* Dogo Dash ("If you played a Dog and didn't win the round, but you have another Dog in your hand
  ... Before the winner takes the cards"): only when the round has a winner (not after a split),
  by any other player who has a Dog they played on the table this round and a Dog in hand; one per
  player per round; it moves that played Dog and the Dog from hand into the player's score pile.
  When someone may declare one, the engine waits for :class:`DogoDash` or :class:`Collect`.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any, ClassVar

from rules.core import Event, GameBase, IllegalActionError, Outcome, RulesError
from rules.dogo_dash.strength import (
    CAT,
    DECK_COUNTS,
    DOG,
    GOOD_BOY_RULES,
    KINDS,
    STRONGEST_RULES,
    round_result,
)

HAND_SIZE = 4  # "Deal four cards to each player"
CATNIP = "catnip"


class WrongPhaseError(IllegalActionError):
    """The action belongs to another step of the round."""


class NotInRoundError(IllegalActionError):
    """That seat is not playing in this (sub-)round."""


class CardNotInHandError(IllegalActionError):
    """The card is not in that player's hand."""


class RevealMismatchError(IllegalActionError):
    """The revealed card is not the one chosen, or a seat's reveal is missing/extra."""


class CatnipError(IllegalActionError):
    """Catnip needs the Catnip variant and four Cats in hand."""


class DogoDashError(IllegalActionError):
    """A Dogo Dash needs a played Dog that did not win and another Dog in hand."""


class GameOverError(IllegalActionError):
    """The game has ended."""


# -- actions ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Choose:
    """Round 1–2: seat ``seat`` secretly chooses ``card`` (a kind, or "catnip" in the Catnip variant)."""

    seat: int
    card: str


@dataclass(frozen=True)
class Reveal:
    """Round 4 (a fact from the camera): per seat, the card revealed, ``None`` for a seat not in this
    round."""

    cards: tuple


@dataclass(frozen=True)
class DogoDash:
    """The Dogo Dash combo by ``seat``: reveal a second Dog and keep it with the played Dog."""

    seat: int


@dataclass(frozen=True)
class Collect:
    """The round winner takes the played cards (closes the moment for Dogo Dashes)."""


class Game(GameBase):
    GAME: ClassVar[str] = "dogo-dash"
    ACTIONS: ClassVar[tuple] = (Choose, Reveal, DogoDash, Collect)
    VARIANT: ClassVar[str] = "standard"
    CATNIP: ClassVar[bool] = False

    # -- setup ----------------------------------------------------------------------------------
    @classmethod
    def new(cls, players: Any = 2, seed: int | None = 0, deck: Any = None, hands: Any = None,
            strongest: str = "unbeaten", good_boy: str = "all") -> "Game":
        if isinstance(players, int) and not isinstance(players, bool):
            names = [f"P{i + 1}" for i in range(players)]
        elif isinstance(players, (list, tuple)) and all(isinstance(p, str) for p in players):
            names = list(players)
            if len(set(names)) != len(names):
                raise RulesError("player names must be different")
        else:
            raise RulesError("players is a count or a list of names")
        if not 2 <= len(names) <= 5:
            raise RulesError("Dogo Dash is for 2 to 5 players (rulebook)")
        if strongest not in STRONGEST_RULES:
            raise RulesError(f"strongest is one of {STRONGEST_RULES}")
        if good_boy not in GOOD_BOY_RULES:
            raise RulesError(f"good_boy is one of {GOOD_BOY_RULES}")
        n = len(names)
        if hands is not None:
            if deck is None:
                raise RulesError("hands= needs deck= too (the rest of the cards, top first)")
            hands = [sorted(_kinds(h, "hands")) for h in hands]
            if len(hands) != n or any(len(h) != HAND_SIZE for h in hands):
                raise RulesError(f"hands= is {n} hands of {HAND_SIZE} cards")
            deck = _kinds(deck, "deck")
            _check_composition(deck + [c for h in hands for c in h])
            used_seed = None
        else:
            if deck is None:
                deck = [k for k in KINDS for _ in range(DECK_COUNTS[k])]
                random.Random(seed).shuffle(deck)  # "Shuffle the deck of cards face down"
                used_seed = seed
            else:
                deck = _kinds(deck, "deck")
                used_seed = None
            _check_composition(deck)
            hands = [[] for _ in range(n)]
            for _ in range(HAND_SIZE):  # "Deal four cards to each player"
                for seat in range(n):
                    hands[seat].append(deck.pop(0))
            hands = [sorted(h) for h in hands]
        state = {
            "variant": cls.VARIANT,
            "players": names,
            "seed": used_seed,
            "deck": deck,
            "hands": hands,
            "piles": [[] for _ in range(n)],
            "table": [],
            "super_pot": [],
            "discard": [],
            "round": 1,
            "replay": 0,
            "last_round": False,
            "active": list(range(n)),
            "chosen": [None] * n,
            "phase": "choose",
            "winner": None,
            "dashed": [],
            "options": {"strongest": strongest, "good_boy": good_boy},
        }
        game = cls(state)
        if not deck:  # cannot happen with 60 cards and at most 5 players; kept for custom decks
            game._start_last_round()
        return game

    def _restore_extra(self) -> None:
        self.__class__ = VARIANTS[self.state["variant"]]

    # -- queries ---------------------------------------------------------------------------------
    def card_counts(self) -> dict:
        """Where the 60 cards are: hands, deck, table (played this round + Super Pot), piles, discard."""
        s = self.state
        return {
            "hands": sum(len(h) for h in s["hands"]),
            "deck": len(s["deck"]),
            "table": len(s["table"]) + len(s["super_pot"]),
            "piles": sum(len(p) for p in s["piles"]),
            "discard": len(s["discard"]),
        }

    def scores(self) -> dict:
        """"Each card counts as a point at the end of the game." Player name → cards in score pile."""
        return {name: len(pile) for name, pile in zip(self.state["players"], self.state["piles"])}

    def can_catnip(self, seat: int) -> bool:
        hand = self.state["hands"][seat]
        return self.CATNIP and len(hand) == HAND_SIZE and all(c == CAT for c in hand)

    def choices(self, seat: int) -> list[str]:
        """What ``seat`` may reveal now (kinds in hand, plus "catnip" when allowed); [] if not playing."""
        s = self.state
        if s["phase"] != "choose" or seat not in s["active"]:
            return []
        out = sorted(set(s["hands"][seat]))
        if self.can_catnip(seat):
            out.append(CATNIP)
        return out

    def dogo_dash_seats(self) -> list[int]:
        """Seats that may make a Dogo Dash now."""
        s = self.state
        if s["phase"] != "dogo_dash":
            return []
        return [seat for seat in range(len(s["players"])) if self._can_dash(seat)]

    def _can_dash(self, seat: int) -> bool:
        s = self.state
        return (seat != s["winner"] and seat not in s["dashed"] and DOG in s["hands"][seat]
                and any(t["seat"] == seat and t["card"] == DOG for t in s["table"]))

    def legal_reveals(self):
        """Every Reveal legal now (a generator: up to 6**5 of them)."""
        s = self.state
        if s["phase"] != "choose":
            return
        per_seat = []
        for seat in range(len(s["players"])):
            if seat not in s["active"]:
                per_seat.append([None])
            elif s["chosen"][seat] is not None:
                per_seat.append([s["chosen"][seat]])
            else:
                per_seat.append(self.choices(seat))
        for combo in itertools.product(*per_seat):
            yield Reveal(tuple(combo))

    def legal_actions(self) -> list:
        """In the choose step: a Choose for each seat still to choose, or the one Reveal once everyone
        has chosen (a Reveal with no Choose before it is legal too: see :meth:`legal_reveals`). In the
        Dogo Dash moment: the possible DogoDash actions and Collect."""
        s = self.state
        if s["phase"] == "choose":
            pending = [seat for seat in s["active"] if s["chosen"][seat] is None]
            if pending:
                return [Choose(seat, c) for seat in pending for c in self.choices(seat)]
            return [Reveal(tuple(s["chosen"][seat] if seat in s["active"] else None
                                 for seat in range(len(s["players"]))))]
        if s["phase"] == "dogo_dash":
            return [DogoDash(seat) for seat in self.dogo_dash_seats()] + [Collect()]
        return []

    def outcome(self) -> Outcome | None:
        s = self.state
        if s["phase"] != "over":
            return None
        scores = self.scores()
        best = max(scores.values())
        winners = tuple(name for name in s["players"] if scores[name] == best)
        # "Whoever has collected the most cards wins. If there is a tie, then all tied players win!"
        return Outcome(winners=winners, reason="shared_victory" if len(winners) > 1 else "most_cards",
                       scores=scores)

    def summary(self) -> str:
        s = self.state
        head = f"Dogo Dash{' (Catnip)' if s['variant'] == 'catnip' else ''}: "
        if s["phase"] == "over":
            o = self.outcome()
            head += f"game over, winner(s) {', '.join(o.winners)}; "
        else:
            what = "Last Round" if s["last_round"] else f"round {s['round']}"
            if s["replay"]:
                what += f" replay {s['replay']}"
            if s["phase"] == "dogo_dash":
                head += f"{what}, {s['players'][s['winner']]} wins, Dogo Dash?; "
            else:
                names = ", ".join(s["players"][i] for i in s["active"])
                head += f"{what}, playing: {names}; "
        sc = " ".join(f"{n}={v}" for n, v in self.scores().items())
        return head + f"deck {len(s['deck'])}, table {len(s['table']) + len(s['super_pot'])}; scores {sc}"

    # -- applying --------------------------------------------------------------------------------
    def _apply(self, action: Any) -> list[Event]:
        s = self.state
        if s["phase"] == "over":
            raise GameOverError("the game is over (rulebook: Scoring)")
        if isinstance(action, Choose):
            return self._choose(action)
        if isinstance(action, Reveal):
            return self._reveal(action)
        if isinstance(action, DogoDash):
            return self._dogo_dash(action)
        if isinstance(action, Collect):
            if s["phase"] != "dogo_dash":
                raise WrongPhaseError("there is no round winner waiting to take the cards")
            return self._collect()
        raise IllegalActionError(f"unknown action {action!r}")  # pragma: no cover

    def _check_seat(self, seat: Any) -> None:
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.state["players"])):
            raise NotInRoundError(f"there is no seat {seat!r}")

    def _check_card(self, seat: int, card: Any) -> None:
        s = self.state
        if card == CATNIP:
            if not self.CATNIP:
                raise CatnipError("Catnip is only played with the Catnip variant (rulebook: Combos)")
            if not self.can_catnip(seat):
                raise CatnipError(f"{s['players'][seat]} has no four Cats in hand "
                                  "(rulebook: If you have four cats in your hand, you can choose to play a Catnip)")
            return
        if card not in s["hands"][seat]:
            raise CardNotInHandError(f"{s['players'][seat]} has no {card!r} in hand {s['hands'][seat]} "
                                     "(rulebook: choose a card from their hand)")

    def _choose(self, action: Choose) -> list[Event]:
        s = self.state
        if s["phase"] != "choose":
            raise WrongPhaseError(f"cards are chosen at the start of a round; now is the {s['phase']} step")
        self._check_seat(action.seat)
        if action.seat not in s["active"]:
            raise NotInRoundError(f"{s['players'][action.seat]} is not playing in this round "
                                  "(rulebook: the tied players play another round between themselves)")
        if s["chosen"][action.seat] is not None:
            raise RevealMismatchError(f"{s['players'][action.seat]} has already chosen a card")
        self._check_card(action.seat, action.card)
        s["chosen"][action.seat] = action.card
        return [Event("chosen", {"seat": action.seat})]  # the card stays secret

    def _reveal(self, action: Reveal) -> list[Event]:
        s = self.state
        if s["phase"] != "choose":
            raise WrongPhaseError(f"cards are revealed after choosing; now is the {s['phase']} step")
        n = len(s["players"])
        cards = action.cards
        if not isinstance(cards, tuple) or len(cards) != n:
            raise RevealMismatchError(f"a Reveal lists one entry per seat ({n}), None for seats not playing")
        for seat, card in enumerate(cards):
            if seat not in s["active"]:
                if card is not None:
                    raise NotInRoundError(f"{s['players'][seat]} is not playing in this round, but revealed {card!r}")
                continue
            if card is None:
                raise RevealMismatchError(f"{s['players'][seat]} must reveal a card (rulebook: All players reveal)")
            if s["chosen"][seat] is not None and s["chosen"][seat] != card:
                raise RevealMismatchError(f"{s['players'][seat]} chose another card than {card!r}")
            self._check_card(seat, card)
        events = [Event("reveal", {"round": s["round"], "replay": s["replay"], "cards": list(cards)})]
        contenders = {}
        for seat, card in enumerate(cards):
            if card is None:
                continue
            hand = s["hands"][seat]
            if card == CATNIP:
                # "put down all four cards ... put all four of your played cards onto your own score pile"
                s["piles"][seat].extend(hand)
                s["hands"][seat] = []
                events.append(Event("catnip", {"seat": seat, "cards": HAND_SIZE}))
                continue
            hand.remove(card)
            s["table"].append({"seat": seat, "card": card})
            contenders[seat] = card
        s["chosen"] = [None] * n
        if s["last_round"]:
            # "All players take all of their unplayed cards ... in the middle of the table. This makes the Super Pot!"
            for seat in range(n):
                s["super_pot"].extend(s["hands"][seat])
                s["hands"][seat] = []
            events.append(Event("super_pot", {"cards": len(s["super_pot"]) + len(s["table"])}))
        result = round_result(contenders, s["options"]["strongest"], s["options"]["good_boy"])
        if not result.seats:  # everyone played a Catnip: nothing is on the table to win
            events.append(Event("no_contest", {}))
            return events + self._end_round()
        if result.winner is not None:
            s["winner"] = result.winner
            events.append(Event("round_won", {"seat": result.winner, "reason": result.reason}))
            if self.dogo_dash_seats_for(result.winner):
                s["phase"] = "dogo_dash"
                return events
            return events + self._collect()
        tied = list(result.seats)
        events.append(Event("tie", {"seats": tied, "reason": result.reason}))
        if not s["last_round"] and all(s["hands"][seat] for seat in tied):
            # "the tied players play another round between themselves but do not draw any additional cards"
            s["active"] = tied
            s["replay"] += 1
            return events
        return events + self._split(tied) + self._end_round()

    def dogo_dash_seats_for(self, winner: int) -> list[int]:
        s = self.state
        saved = (s["phase"], s["winner"])
        s["phase"], s["winner"] = "dogo_dash", winner
        try:
            return self.dogo_dash_seats()
        finally:
            s["phase"], s["winner"] = saved

    def _dogo_dash(self, action: DogoDash) -> list[Event]:
        s = self.state
        if s["phase"] != "dogo_dash":
            raise WrongPhaseError("a Dogo Dash is made after a round is won, before the winner takes the cards")
        self._check_seat(action.seat)
        seat = action.seat
        if seat == s["winner"]:
            raise DogoDashError("the round winner cannot make a Dogo Dash (rulebook: If you played a Dog and didn't win)")
        if seat in s["dashed"]:
            raise DogoDashError(f"{s['players'][seat]} already made a Dogo Dash this round")
        if not any(t["seat"] == seat and t["card"] == DOG for t in s["table"]):
            raise DogoDashError(f"{s['players'][seat]} played no Dog this round (rulebook: If you played a Dog)")
        if DOG not in s["hands"][seat]:
            raise DogoDashError(f"{s['players'][seat]} has no other Dog in hand (rulebook: you have another Dog in your hand)")
        # the Dog just played: the latest Dog this seat put on the table
        idx = max(i for i, t in enumerate(s["table"]) if t["seat"] == seat and t["card"] == DOG)
        s["table"].pop(idx)
        s["hands"][seat].remove(DOG)
        s["piles"][seat].extend([DOG, DOG])
        s["dashed"].append(seat)
        events = [Event("dogo_dash", {"seat": seat, "cards": 2})]
        if not self.dogo_dash_seats():
            events += self._collect()
        return events

    def _collect(self) -> list[Event]:
        s = self.state
        winner = s["winner"]
        cards = [t["card"] for t in s["table"]] + s["super_pot"]
        s["piles"][winner].extend(cards)
        s["table"] = []
        s["super_pot"] = []
        events = [Event("collect", {"seat": winner, "cards": len(cards)})]
        return events + self._end_round()

    def _split(self, tied: list[int]) -> list[Event]:
        # "the players split the points as evenly as possible, discarding the extra card if it's an odd amount"
        s = self.state
        cards = [t["card"] for t in s["table"]] + s["super_pot"]
        s["table"] = []
        s["super_pot"] = []
        each = len(cards) // len(tied)
        for i, card in enumerate(cards[: each * len(tied)]):
            s["piles"][tied[i % len(tied)]].append(card)
        extra = cards[each * len(tied):]
        s["discard"].extend(extra)
        return [Event("split", {"seats": tied, "each": each, "discarded": len(extra)})]

    def _end_round(self) -> list[Event]:
        s = self.state
        n = len(s["players"])
        events: list[Event] = []
        s["winner"] = None
        s["dashed"] = []
        s["replay"] = 0
        s["chosen"] = [None] * n
        if s["last_round"]:
            s["phase"] = "over"
            s["active"] = []
            o = self.outcome()
            return [Event("game_over", {"winners": list(o.winners), "scores": o.scores})]
        # "Once the winner has been determined, all players draw cards until they have four cards in hand."
        for seat in range(n):
            need = HAND_SIZE - len(s["hands"][seat])
            drawn = [s["deck"].pop(0) for _ in range(min(need, len(s["deck"])))]
            if drawn:
                s["hands"][seat] = sorted(s["hands"][seat] + drawn)
                events.append(Event("draw", {"seat": seat, "cards": len(drawn)}))
        s["round"] += 1
        s["phase"] = "choose"
        if not s["deck"]:
            events += self._start_last_round()
        else:
            s["active"] = list(range(n))
        return events

    def _start_last_round(self) -> list[Event]:
        # "The Last Round happens when there are no more cards to draw from the draw deck."
        s = self.state
        s["last_round"] = True
        s["active"] = [seat for seat, hand in enumerate(s["hands"]) if hand]
        if not s["active"]:
            s["phase"] = "over"
            o = self.outcome()
            return [Event("last_round", {"seats": []}),
                    Event("game_over", {"winners": list(o.winners), "scores": o.scores})]
        return [Event("last_round", {"seats": list(s["active"])})]


class CatnipGame(Game):
    """The Catnip Variant: with four Cats in hand, a player may play all four as a Catnip."""

    VARIANT: ClassVar[str] = "catnip"
    CATNIP: ClassVar[bool] = True


VARIANTS = {"standard": Game, "catnip": CatnipGame}


def _kinds(cards: Any, what: str) -> list[str]:
    if not isinstance(cards, (list, tuple)):
        raise RulesError(f"{what} is a list of card kinds")
    for c in cards:
        if c not in KINDS:
            raise RulesError(f"{what}: {c!r} is not a card kind; kinds are {KINDS}")
    return list(cards)


def _check_composition(cards: list[str]) -> None:
    counts = {k: cards.count(k) for k in KINDS}
    if counts != DECK_COUNTS:
        raise RulesError(f"the game has 60 cards: {DECK_COUNTS} (rulebook: Components), got {counts}")


def new_game(players: Any = 2, seed: int | None = 0, deck: Any = None, hands: Any = None,
             catnip: bool = False, strongest: str = "unbeaten", good_boy: str = "all") -> Game:
    """A new game. The deck is shuffled with ``random.Random(seed)`` once, at setup, and its order is
    kept in the state; or give ``deck`` (60 kinds, top first) to deal from, or ``hands`` + ``deck``
    (the rest, top first) to start from a known position."""
    cls = CatnipGame if catnip else Game
    return cls.new(players=players, seed=seed, deck=deck, hands=hands, strongest=strongest, good_boy=good_boy)
