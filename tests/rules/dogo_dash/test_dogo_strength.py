"""Who wins a round: the rulebook's "strongest card", checked on EVERY combination of card kinds.

The engine's reading (rules/dogo_dash/strength.py) is "a card that no other card on the table is
stronger than". The reference below is written the other way round ("a card stronger than every
other kind on the table", straight from the rulebook's four lines as pairs) and by brute force.
"""

import itertools

import pytest

from rules.dogo_dash import BEAR, CAT, COOKIE, DOG, GOOD_BOY, KINDS, round_result, stronger, strongest_kinds

# The rulebook's four lines, as (stronger, weaker) pairs.
RULEBOOK_PAIRS = {
    (DOG, CAT),                    # Dog is stronger than Cat
    (BEAR, DOG), (BEAR, CAT),      # Bear is stronger than Dog and Cat
    (COOKIE, DOG), (COOKIE, BEAR), # Cookie is stronger than Dog and Bear
    (CAT, COOKIE),                 # Cat is stronger than Cookie
}
ANIMALS = (CAT, DOG, BEAR, COOKIE)


def test_the_relation_is_exactly_the_rulebook_and_decides_every_pair():
    for a, b in itertools.product(KINDS, KINDS):
        assert stronger(a, b) == ((a, b) in RULEBOOK_PAIRS)
    for a, b in itertools.combinations(ANIMALS, 2):  # exactly one of each pair of animals is stronger
        assert stronger(a, b) != stronger(b, a)
    assert not any(stronger(GOOD_BOY, k) or stronger(k, GOOD_BOY) for k in KINDS)


# Hand-worked: every set of different animal kinds (1 to 4 of them), and the strongest kind.
@pytest.mark.parametrize("kinds, unbeaten, most_beaten", [
    ({CAT}, {CAT}, {CAT}),
    ({DOG}, {DOG}, {DOG}),
    ({BEAR}, {BEAR}, {BEAR}),
    ({COOKIE}, {COOKIE}, {COOKIE}),
    ({CAT, DOG}, {DOG}, {DOG}),                 # Dog is stronger than Cat
    ({CAT, BEAR}, {BEAR}, {BEAR}),              # Bear is stronger than Cat
    ({CAT, COOKIE}, {CAT}, {CAT}),              # Cat is stronger than Cookie
    ({DOG, BEAR}, {BEAR}, {BEAR}),              # Bear is stronger than Dog
    ({DOG, COOKIE}, {COOKIE}, {COOKIE}),        # Cookie is stronger than Dog
    ({BEAR, COOKIE}, {COOKIE}, {COOKIE}),       # Cookie is stronger than Bear
    ({CAT, DOG, BEAR}, {BEAR}, {BEAR}),         # Bear beats both
    ({DOG, BEAR, COOKIE}, {COOKIE}, {COOKIE}),  # Cookie beats both
    ({CAT, DOG, COOKIE}, set(), {CAT, DOG, COOKIE}),        # cycle: Cat > Cookie > Dog > Cat
    ({CAT, BEAR, COOKIE}, set(), {CAT, BEAR, COOKIE}),      # cycle: Cat > Cookie > Bear > Cat
    ({CAT, DOG, BEAR, COOKIE}, set(), {BEAR, COOKIE}),      # cycle; Bear and Cookie each beat two
])
def test_strongest_kind_by_hand(kinds, unbeaten, most_beaten):
    assert strongest_kinds(kinds, "unbeaten") == unbeaten
    assert strongest_kinds(kinds, "most_beaten") == most_beaten


# -- the independent reference ------------------------------------------------------------------
def reference(cards, strongest, good_boy):
    """cards: the kinds played by seats 0..n-1. Returns the set of winning / tied seats."""
    seats = range(len(cards))
    if len(cards) == 1:
        return {0}
    animals = [s for s in seats if cards[s] != GOOD_BOY]
    if strongest == "unbeaten":
        # a card stronger than every card of another kind on the table
        top = {s for s in animals if all((cards[s], cards[o]) in RULEBOOK_PAIRS
                                         for o in animals if cards[o] != cards[s])}
    else:
        kinds = {cards[s] for s in animals}
        wins = {s: sum((cards[s], k) in RULEBOOK_PAIRS for k in kinds) for s in animals}
        best = max(wins.values(), default=None)
        top = {s for s in animals if wins[s] == best}
    if len(animals) < len(cards):  # a Good Boy is on the table
        if good_boy == "all" or not top:
            return set(seats)
        return top | {s for s in seats if cards[s] == GOOD_BOY}
    return top or set(seats)


def all_multisets():
    for n in range(1, 6):
        yield from itertools.combinations_with_replacement(KINDS, n)


MULTISETS = list(all_multisets())


def test_there_are_251_multisets_of_up_to_5_cards():
    assert len(MULTISETS) == 5 + 15 + 35 + 70 + 126


@pytest.mark.parametrize("strongest", ["unbeaten", "most_beaten"])
@pytest.mark.parametrize("good_boy", ["all", "with_strongest"])
def test_every_combination_of_card_kinds_against_the_reference(strongest, good_boy):
    for multiset in MULTISETS:
        # every distinct way to seat these cards: the result must not depend on who sits where
        for cards in set(itertools.permutations(multiset)):
            played = dict(enumerate(cards))
            result = round_result(played, strongest, good_boy)
            expected = reference(cards, strongest, good_boy)
            assert set(result.seats) == expected, (cards, result)
            assert result.seats == tuple(sorted(result.seats))
            if len(expected) == 1:
                assert result.winner == next(iter(expected))
            else:
                assert result.winner is None


@pytest.mark.parametrize("cards, seats, reason", [
    ((DOG, CAT), (0,), "strongest"),
    ((CAT, CAT, DOG), (2,), "strongest"),
    ((DOG, DOG, CAT), (0, 1), "same_kind"),                        # a tie for the strongest card
    ((CAT, COOKIE, DOG), (0, 1, 2), "cycle"),                      # no strongest card: all tie
    ((CAT, COOKIE, COOKIE), (0,), "strongest"),                    # win the Super Pot with a Cat
    ((BEAR, GOOD_BOY), (0, 1), "good_boy"),                        # Good Boys force a tie
    ((GOOD_BOY, GOOD_BOY, CAT), (0, 1, 2), "good_boy"),
    ((COOKIE,), (0,), "alone"),
])
def test_round_result_reasons(cards, seats, reason):
    result = round_result(dict(enumerate(cards)))
    assert result.seats == seats and result.reason == reason


def test_good_boy_with_strongest_option_keeps_only_the_strongest_other_card():
    result = round_result({0: BEAR, 1: GOOD_BOY, 2: CAT, 3: BEAR}, good_boy="with_strongest")
    assert result.seats == (0, 1, 3) and result.reason == "good_boy"


def test_unknown_rules_are_refused():
    with pytest.raises(ValueError):
        round_result({0: CAT, 1: DOG}, strongest="best")
    with pytest.raises(ValueError):
        round_result({0: CAT, 1: DOG}, good_boy="none")


def test_how_often_the_default_reading_finds_no_winner():
    """Documents the consequence of the default: among the 251 multisets, count the outcomes."""
    tally = {"winner": 0, "tie": 0}
    for multiset in MULTISETS:
        r = round_result(dict(enumerate(multiset)))
        tally["winner" if r.winner is not None else "tie"] += 1
    assert tally["winner"] + tally["tie"] == 251
    assert tally["winner"] > 0 and tally["tie"] > 0
