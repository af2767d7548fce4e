"""Who wins a Dogo Dash round: the exact meaning of "the strongest card". Standard library only.

The rulebook (Round Winner)::

    To determine the winner, check the played cards to see who played the strongest one:
    Dog is stronger than Cat
    Bear is stronger than Dog and Cat
    Cookie is stronger than Dog and Bear
    Cat is stronger than Cookie
    Whoever played the strongest card takes all of the played cards ...
    If there is a tie between two or more players for the strongest card, the tied players play
    another round between themselves ...
    Good Boys force a tie, no matter what cards are on the table.

These four lines decide every pair of different kinds among Cat, Dog, Bear and Cookie (6 pairs, each
exactly once), but they are not a ranking: Cat > Cookie > Bear > Cat (and Cat > Cookie > Dog > Cat)
go round. So the rulebook's words need an exact reading.

``"unbeaten"`` (the default): **the strongest card is a card that no other card on the table is
stronger than.** Because every pair of different kinds is decided, a kind nothing on the table beats
is stronger than every other kind on the table, so there is at most one strongest kind. Everyone who
played it is tied for the strongest card (one player: the winner; several: "a tie between two or more
players for the strongest card"). When the cards on the table beat each other round (Cat, Cookie and
a Dog or a Bear together) no card is the strongest; nobody played it, so every player in the round is
equally tied and they all play another round (reason ``"cycle"``).

``"most_beaten"`` (an alternative, ``new_game(strongest="most_beaten")``): the strongest card is
the kind that is stronger than the most *other kinds* on the table; players of equally good kinds are
tied. It agrees with ``"unbeaten"`` whenever there is no cycle; in a cycle it can still pick: Cat,
Dog, Bear, Cookie together → Bear (beats Dog, Cat) and Cookie (beats Dog, Bear) tie.

Good Boys, ``good_boy="all"`` (the default): "Good Boys force a tie, no matter what cards are on the
table", so with any Good Boy on the table every player in the round is tied. The alternative
``good_boy="with_strongest"`` ties the Good Boy players with the player(s) of the strongest other card
only (the other players are out of the replay); with only Good Boys on the table, all are tied.

A round with a single player in it (the others played a Catnip, or have no cards left in the Last
Round) is won by that player whatever the card.
"""

from __future__ import annotations

from dataclasses import dataclass

CAT = "cat"
DOG = "dog"
BEAR = "bear"
COOKIE = "cookie"
GOOD_BOY = "good_boy"
KINDS = (CAT, DOG, BEAR, COOKIE, GOOD_BOY)
# "60 cards: 22 Cats, 18 Dogs, 12 Bears, 4 Cookies, 4 Good Boys"
DECK_COUNTS = {CAT: 22, DOG: 18, BEAR: 12, COOKIE: 4, GOOD_BOY: 4}

STRONGER_THAN = {
    DOG: frozenset({CAT}),            # "Dog is stronger than Cat"
    BEAR: frozenset({DOG, CAT}),      # "Bear is stronger than Dog and Cat"
    COOKIE: frozenset({DOG, BEAR}),   # "Cookie is stronger than Dog and Bear"
    CAT: frozenset({COOKIE}),         # "Cat is stronger than Cookie"
    GOOD_BOY: frozenset(),            # Good Boys beat nothing: they force a tie
}

STRONGEST_RULES = ("unbeaten", "most_beaten")
GOOD_BOY_RULES = ("all", "with_strongest")


def stronger(a: str, b: str) -> bool:
    """Is kind ``a`` stronger than kind ``b`` (the rulebook's four lines, nothing else)?"""
    return b in STRONGER_THAN[a]


@dataclass(frozen=True)
class RoundResult:
    """``seats``: the winner (one seat) or the tied seats (several); ``reason``: "strongest" (one
    winner), "alone" (the only player), "same_kind" (several played the strongest kind), "cycle" (no
    card is the strongest), "good_boy" (a Good Boy forced the tie) or "most_beaten_tie"."""

    seats: tuple
    reason: str

    @property
    def winner(self):
        return self.seats[0] if len(self.seats) == 1 else None


def strongest_kinds(kinds, rule: str = "unbeaten") -> frozenset:
    """The strongest kind(s) among ``kinds`` (Cat/Dog/Bear/Cookie only). Empty when none is."""
    present = set(kinds)
    if GOOD_BOY in present:
        raise ValueError("Good Boys are handled by round_result, not ranked")
    if rule == "unbeaten":
        return frozenset(k for k in present if not any(stronger(o, k) for o in present))
    if rule == "most_beaten":
        if not present:
            return frozenset()
        score = {k: sum(stronger(k, o) for o in present) for k in present}
        best = max(score.values())
        return frozenset(k for k in present if score[k] == best)
    raise ValueError(f"strongest rule is one of {STRONGEST_RULES}, got {rule!r}")


def round_result(played: dict, strongest: str = "unbeaten", good_boy: str = "all") -> RoundResult:
    """Decide a (sub-)round. ``played`` maps seat → kind for every player comparing cards."""
    if strongest not in STRONGEST_RULES:
        raise ValueError(f"strongest rule is one of {STRONGEST_RULES}, got {strongest!r}")
    if good_boy not in GOOD_BOY_RULES:
        raise ValueError(f"good_boy rule is one of {GOOD_BOY_RULES}, got {good_boy!r}")
    seats = tuple(sorted(played))
    if not seats:
        return RoundResult((), "empty")
    if len(seats) == 1:
        return RoundResult(seats, "alone")
    others = {s: k for s, k in played.items() if k != GOOD_BOY}
    if len(others) < len(played):  # "Good Boys force a tie, no matter what cards are on the table"
        if good_boy == "all" or not others:
            return RoundResult(seats, "good_boy")
        best = strongest_kinds(others.values(), strongest)
        if not best:  # a cycle among the other cards: all of them are tied with the Good Boys
            return RoundResult(seats, "good_boy")
        tied = tuple(sorted(s for s, k in played.items() if k == GOOD_BOY or k in best))
        return RoundResult(tied, "good_boy")
    best = strongest_kinds(played.values(), strongest)
    if not best:
        return RoundResult(seats, "cycle")
    top = tuple(sorted(s for s, k in played.items() if k in best))
    if len(top) == 1:
        return RoundResult(top, "strongest")
    return RoundResult(top, "same_kind" if len(best) == 1 else "most_beaten_tie")
