"""Random Morris games (seeded and hypothesis-driven): eggs conserved, games end, pop/JSON exact."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core import action_from_dict, action_to_dict
from rules.morris import Game, Landed, LoadEggs, PlaceEgg, new_game


def random_game(seed, p_broken, big_rush, players, no_free_slot, check=None, max_steps=3000, careful=False):
    """Play random legal actions; a landing is broken with probability ``p_broken``. ``careful``
    players put eggs into slots of their own colour before multicolour ones."""
    rng = random.Random(seed)
    g = new_game(players=players, big_rush=big_rush, no_free_slot=no_free_slot)
    steps = 0
    while g.outcome() is None and steps < max_steps:
        acts = g.legal_actions()
        assert acts, "a running game always has a legal action"
        if g.state["phase"] in ("load", "slide"):
            if g.state["phase"] == "load" and rng.random() < 0.5:
                action = rng.choice([a for a in acts if isinstance(a, LoadEggs)])
            else:
                colours = (g.state["toucan"] if g.state["phase"] == "slide"
                           else rng.choice([a for a in acts if isinstance(a, LoadEggs)]).colours)
                action = Landed(tuple((c, "broken" if rng.random() < p_broken else "whole") for c in colours))
        else:
            if careful:
                own = [a for a in acts if isinstance(a, PlaceEgg)
                       and g.state["shelters"][a.shelter]["slots"][a.slot] == a.colour]
                acts = own or acts
            action = rng.choice(acts)
        g.push(action)
        steps += 1
        if check:
            check(g)
    return g, steps


def conserved(g):
    c = g.egg_counts()
    assert sum(c.values()) == 28, c
    assert min(c.values()) >= 0
    shelters = sum(e is not None for sh in g.state["shelters"] for e in sh["eggs"])
    assert shelters == c["shelters"]
    assert 0 <= g.state["hunter"] <= len(g.state["path"])


def json_round_trip(g):
    conserved(g)
    other = Game.from_json(g.to_json())
    assert other == g and type(other) is type(g)
    assert other.legal_actions() == g.legal_actions()
    assert json.loads(g.to_json())["state"] == g.state


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), p_broken=st.floats(0.05, 0.95), big_rush=st.booleans(),
       players=st.integers(1, 5), no_free_slot=st.sampled_from(["nest", "set_aside"]))
def test_random_games_conserve_eggs_round_trip_and_end(seed, p_broken, big_rush, players, no_free_slot):
    g, steps = random_game(seed, p_broken, big_rush, players, no_free_slot, check=json_round_trip)
    assert g.outcome() is not None, f"game did not end in {steps} steps"
    assert g.legal_actions() == []


def test_pop_restores_every_earlier_state_exactly():
    for seed in range(20):
        snapshots = []

        def record(g):
            snapshots.append(g.to_json())

        g, _ = random_game(seed, 0.4, seed % 2 == 0, 3, "nest", check=record)
        history = [action_to_dict(a) for a in g.move_stack]
        for expected in reversed(snapshots[:-1]):
            g.pop()
            assert g.to_json() == expected
        g.pop()
        assert g == new_game(players=3, big_rush=seed % 2 == 0)
        # the actions replay from their dicts to the same end state
        h = new_game(players=3, big_rush=seed % 2 == 0)
        for d in history:
            h.push(action_from_dict(json.loads(json.dumps(d)), Game.ACTIONS))
        assert h.to_json() == snapshots[-1]


def test_every_seeded_game_ends():
    outcomes = set()
    for seed in range(300):
        p = [0.0, 0.2, 0.5, 0.8][seed % 4]
        g, steps = random_game(seed, p, seed % 3 == 0, 1 + seed % 5, ["nest", "set_aside"][seed % 2],
                               check=conserved, careful=p == 0.0)
        assert g.outcome() is not None, (seed, steps)
        if p == 0.0:
            assert g.outcome().reason == "nest_empty"  # no egg breaks and every egg finds a slot
        outcomes.add(g.outcome().reason)
    assert outcomes == {"nest_empty", "hunter_reached_end"}  # both ends are reached


def test_listed_actions_are_legal():
    for seed in range(5):
        rng = random.Random(seed)
        g = new_game(players=2, big_rush=seed % 2 == 1)
        while g.outcome() is None:
            acts = g.legal_actions()
            assert all(g.is_legal(a) for a in acts)
            g.push(rng.choice(acts))
