"""Random Dogo Dash games (seeded and hypothesis-driven): 60 cards conserved, games end, pop/JSON exact."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core import action_from_dict, action_to_dict
from rules.dogo_dash import DECK_COUNTS, Game, Reveal, new_game


def random_game(seed, players, catnip, strongest, good_boy, check=None, max_steps=2000):
    """Random legal play; half the rounds go through secret Choose actions, half are a bare Reveal."""
    rng = random.Random(seed)
    g = new_game(players=players, seed=seed, catnip=catnip, strongest=strongest, good_boy=good_boy)
    steps = 0
    while g.outcome() is None and steps < max_steps:
        acts = g.legal_actions()
        assert acts, "a running game always has a legal action"
        if g.state["phase"] == "choose" and all(c is None for c in g.state["chosen"]) and rng.random() < 0.5:
            action = rng.choice(list(g.legal_reveals()))
        else:
            action = rng.choice(acts)
        g.push(action)
        steps += 1
        if check:
            check(g)
    return g, steps


def conserved(g):
    c = g.card_counts()
    assert sum(c.values()) == 60, c  # hands + deck + table + score piles + discarded
    s = g.state
    cards = (s["deck"] + [x for h in s["hands"] for x in h] + [t["card"] for t in s["table"]] + s["super_pot"]
             + [x for p in s["piles"] for x in p] + s["discard"])
    assert {k: cards.count(k) for k in DECK_COUNTS} == DECK_COUNTS
    assert all(len(h) <= 4 for h in s["hands"])


def json_round_trip(g):
    conserved(g)
    other = Game.from_json(g.to_json())
    assert other == g and type(other) is type(g)
    assert other.legal_actions() == g.legal_actions()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 5), catnip=st.booleans(),
       strongest=st.sampled_from(["unbeaten", "most_beaten"]), good_boy=st.sampled_from(["all", "with_strongest"]))
def test_random_games_conserve_cards_round_trip_and_end(seed, players, catnip, strongest, good_boy):
    g, steps = random_game(seed, players, catnip, strongest, good_boy, check=json_round_trip)
    assert g.outcome() is not None, f"no end after {steps} steps"
    assert g.legal_actions() == [] and list(g.legal_reveals()) == []
    o = g.outcome()
    assert set(o.winners) <= set(g.state["players"]) and o.winners
    assert max(o.scores.values()) == o.scores[o.winners[0]]


def test_every_seeded_game_ends():
    reasons, seen = set(), set()

    def check(g):
        conserved(g)
        seen.update(e.kind for e in g.last_events)

    for seed in range(200):
        g, steps = random_game(seed, 2 + seed % 4, seed % 2 == 0, ["unbeaten", "most_beaten"][seed % 3 == 0],
                               ["all", "with_strongest"][seed % 5 == 0], check=check)
        assert g.outcome() is not None, (seed, steps)
        reasons.add(g.outcome().reason)
    assert reasons == {"most_cards", "shared_victory"}
    # the random games do reach every rule
    assert {"tie", "split", "dogo_dash", "catnip", "last_round", "super_pot", "round_won"} <= seen


def test_pop_restores_every_earlier_state_exactly():
    for seed in range(15):
        snapshots = []
        g, _ = random_game(seed, 2 + seed % 4, seed % 2 == 1, "unbeaten", "all", check=lambda g: snapshots.append(g.to_json()))
        history = [action_to_dict(a) for a in g.move_stack]
        for expected in reversed(snapshots[:-1]):
            g.pop()
            assert g.to_json() == expected
        g.pop()
        fresh = new_game(players=2 + seed % 4, seed=seed, catnip=seed % 2 == 1)
        assert g == fresh
        for d in history:
            fresh.push(action_from_dict(json.loads(json.dumps(d)), Game.ACTIONS))
        assert fresh.to_json() == snapshots[-1]


def test_listed_actions_and_reveals_are_legal():
    for seed in range(4):
        rng = random.Random(seed)
        g = new_game(players=3, seed=seed, catnip=True)
        while g.outcome() is None:
            acts = g.legal_actions()
            assert all(g.is_legal(a) for a in acts)
            reveals = list(g.legal_reveals())
            for r in rng.sample(reveals, min(5, len(reveals))):
                assert g.is_legal(r)
            g.push(rng.choice(acts))
        assert not g.is_legal(Reveal((None, None, None)))
