"""Random seeded games: cards conserved, positions on the track, every race ends, pop() restores
exactly, the JSON form and the actions round-trip."""

import json
import random

import pytest
from .dodo_helpers import movement_total
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core import action_from_dict, action_to_dict
from rules.dodo_dash import ACTIONS, Choose, Game, Roll, new_game

SETUPS = [
    dict(players=["A", "B", "C"]),
    dict(players=["A"]),
    dict(players=["A", "B"], board="temple"),
    dict(players=list("ABCDEFG"), board="temple"),
    dict(players=list("ABCDEFGHI")),
    dict(players=list("ABCD"), variant="treasure"),
    dict(players=list("ABC"), variant="treasure", dice="table"),
    dict(players=list("ABCDE"), track="connected"),
    dict(players=list("ABC"), board="temple", track="connected", dice="table"),
    # the first Charm card is Plesiododo: most of these races are finished in the reversed direction
    dict(players=list("ABC"), board="temple", charm_deck_top=["plesiododo"]),
    dict(players=list("ABCD"), board="temple", track="connected", charm_deck_top=["plesiododo"]),
]
MAX_ACTIONS = 4000


def play(setup, seed, check_every=1):
    g = new_game(seed=seed, **setup)
    rnd = random.Random(seed)
    total = movement_total(g)
    tr = g.track
    n = 0
    while g.outcome() is None:
        acts = g.legal_actions()
        assert acts, g.summary()
        a = rnd.choice(acts)
        if n % check_every == 0:
            if n % (check_every * 7) == 0:
                assert all(g.is_legal(x) for x in acts)  # every listed action is legal ...
                assert not g.is_legal(Roll(7)) and not g.is_legal(Choose("nobody", "boring"))  # ... not these
            before = g.to_json()
            g.push(a)
            after = g.to_json()
            g.pop()
            assert g.to_json() == before  # pop() restores exactly
            g.push(a)
            assert g.to_json() == after  # the engine is deterministic (RNG state lives in the state)
            again = Game.from_json(after)
            assert again == g and again.legal_actions() == g.legal_actions()
            assert action_from_dict(json.loads(json.dumps(action_to_dict(a))), ACTIONS) == a
        else:
            g.push(a)
        n += 1
        assert n < MAX_ACTIONS, "the race did not end"
        assert movement_total(g) == total == 84  # deck + hands + discard + in play
        for R in g.state["racers"]:
            assert 0 <= tr.hex(R["pos"]) < tr.size or not tr.loop
            if tr.loop and g.state["mode"] == "standard":
                assert R["pos"] > -tr.size  # never pushed back a whole lap
            if not tr.loop:
                assert R["pos"] >= tr.min_progress
        assert len(g.state["power_deck"]) + sum(len(R["powers"]) for R in g.state["racers"]) == 12
    return g, n


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: f"{len(s['players'])}p-{s.get('board', 'jungle')}-"
                         f"{s.get('variant', 'standard')}-{s.get('track', 'default')}"
                         + ("-plesiododo" if s.get("charm_deck_top") else ""))
def test_random_games_keep_invariants(setup):
    for seed in range(3):
        g, n = play(setup, seed, check_every=3)
        assert g.outcome().winners


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), which=st.integers(0, len(SETUPS) - 1))
def test_hypothesis_every_race_ends(seed, which):
    g, _ = play(SETUPS[which], seed, check_every=50)
    out = g.outcome()
    assert out is not None and set(out.winners) <= {R["id"] for R in g.state["racers"]}


def test_pop_back_to_the_start_restores_the_initial_state():
    g = new_game(players=["A", "B", "C"], seed=3)
    start = g.to_json()
    rnd = random.Random(1)
    for _ in range(60):
        if g.outcome():
            break
        g.push(rnd.choice(g.legal_actions()))
    while g.move_stack:
        g.pop()
    assert g.to_json() == start


def test_same_seed_same_game_different_seed_different_deck():
    a, b, c = (new_game(players=["A", "B"], seed=s) for s in (1, 1, 2))
    assert a == b
    assert a.state["deck"] != c.state["deck"]
