"""Morris the Dodo: one test (or table) per rule of ../shared/rulebooks/morris-the-dodo.txt."""

import json

import pytest

from rules.core import IllegalActionError, action_from_dict, action_to_dict
from rules.morris import (
    BigRushGame,
    EggNotInNestError,
    Game,
    GameOverError,
    Landed,
    LandedMismatchError,
    LoadEggs,
    MoveHunter,
    NoSuchEggError,
    PlaceEgg,
    SlotColourError,
    WrongEggCountError,
    WrongPhaseError,
    new_game,
)

# The tests pin their own layout, so that a user correcting data/default_layout.json breaks nothing.
PATH = ["yellow", "red", "blue", "purple", "red", "yellow", "purple", "blue",
        "yellow", "blue", "red", "purple", "blue", "purple", "yellow", "red", "multi"]
SHELTERS = [
    {"slots": ["blue", "red"], "back": 1},
    {"slots": ["purple", "yellow"], "back": 1},
    {"slots": ["blue", "purple", "multi"], "back": 2},
    {"slots": ["red", "yellow", "multi"], "back": 2},
    {"slots": ["blue", "yellow", "red"], "back": 3},
    {"slots": ["purple", "red", "blue"], "back": 3},
    {"slots": ["yellow", "purple", "multi"], "back": 2},
    {"slots": ["red", "blue", "multi"], "back": 2},
    {"slots": ["yellow", "purple", "red"], "back": 3},
    {"slots": ["blue", "yellow", "purple"], "back": 3},
]


def make(big_rush=False, **kw):
    kw.setdefault("path", PATH)
    kw.setdefault("shelters", SHELTERS)
    return new_game(players=kw.pop("players", ["Ann", "Ben", "Cy"]), big_rush=big_rush, **kw)


def turn(g, colour, face, slot=None):
    """One normal turn: load, land, and (whole) place into ``slot`` (or the first legal slot)."""
    g.push(LoadEggs((colour,)))
    g.push(Landed(((colour, face),)))
    if face == "whole" and g.state["phase"] == "resolve":
        shelter, s = slot if slot is not None else own_slot_first(g, colour)
        g.push(PlaceEgg(colour, shelter, s))


def own_slot_first(g, colour):
    """A free slot of the egg's own colour if any, else a multicolour one (keeps the multicolour slots)."""
    slots = g.legal_slots(colour)
    own = [(i, j) for i, j in slots if g.state["shelters"][i]["slots"][j] == colour]
    return (own or slots)[0]


def counts(g):
    return sum(g.egg_counts().values())


# -- Setup --------------------------------------------------------------------------------------
def test_setup_puts_28_eggs_in_the_nest_and_the_hunter_at_the_start():
    g = make()
    assert g.state["nest"] == {"blue": 7, "purple": 7, "red": 7, "yellow": 7}
    assert g.egg_counts() == {"nest": 28, "toucan": 0, "shelters": 0, "set_aside": 0}
    assert len(g.state["shelters"]) == 10 and not any(sh["flipped"] for sh in g.state["shelters"])
    assert g.state["hunter"] == 0
    assert g.current_player() == "Ann" and g.state["phase"] == "load"
    assert g.outcome() is None


def test_first_player_option():
    assert make(first_player=2).current_player() == "Cy"


# -- How to Play 2: choose 1 egg from the nest --------------------------------------------------
@pytest.mark.parametrize("colours, error", [
    (("blue",), None),                       # one egg: fine
    ((), WrongEggCountError),                # no egg
    (("blue", "red"), WrongEggCountError),   # two eggs outside Big Rush
    (("green",), EggNotInNestError),         # no such colour
])
def test_load_one_egg(colours, error):
    g = make()
    if error is None:
        g.push(LoadEggs(colours))
        assert g.state["toucan"] == list(colours) and g.state["phase"] == "slide"
        assert counts(g) == 28
    else:
        with pytest.raises(error):
            g.push(LoadEggs(colours))
        assert g.state["phase"] == "load"


def test_an_egg_colour_no_longer_in_the_nest_cannot_be_chosen():
    g = make()
    for _ in range(7):
        turn(g, "red", "whole")
    assert g.state["nest"]["red"] == 0
    with pytest.raises(EggNotInNestError, match="nest holds 0 red"):
        g.push(LoadEggs(("red",)))
    assert all(a.colours != ("red",) for a in g.legal_actions() if isinstance(a, LoadEggs))


def test_landed_must_match_the_loaded_egg():
    g = make()
    g.push(LoadEggs(("blue",)))
    with pytest.raises(LandedMismatchError):
        g.push(Landed((("red", "whole"),)))
    with pytest.raises(LandedMismatchError):
        g.push(Landed((("blue", "cracked"),)))
    with pytest.raises(WrongPhaseError):
        g.push(LoadEggs(("red",)))


def test_landed_without_a_load_implies_the_load():
    g = make()
    g.push(Landed((("yellow", "whole"),)))
    assert g.state["nest"]["yellow"] == 6 and g.state["phase"] == "resolve"
    assert counts(g) == 28


# -- Egg landed whole ---------------------------------------------------------------------------
def test_whole_egg_legal_slots_are_its_colour_or_multicolour():
    g = make()
    g.push(Landed((("blue", "whole"),)))
    slots = g.legal_slots("blue")
    for i, j in slots:
        assert SHELTERS[i]["slots"][j] in ("blue", "multi")
    expected = [(i, j) for i, sh in enumerate(SHELTERS) for j, c in enumerate(sh["slots"]) if c in ("blue", "multi")]
    assert slots == expected
    assert set(g.legal_actions()) == {PlaceEgg("blue", i, j) for i, j in expected}


@pytest.mark.parametrize("shelter, slot, error", [
    (0, 0, None),             # blue slot: fine
    (2, 2, None),             # multicolour slot takes any colour
    (0, 1, SlotColourError),  # red slot: "may not be placed in slots of other colours"
    (10, 0, SlotColourError), # no such shelter
    (0, 5, SlotColourError),  # no such slot
])
def test_place_a_whole_blue_egg(shelter, slot, error):
    g = make()
    g.push(Landed((("blue", "whole"),)))
    if error is None:
        events = g.push(PlaceEgg("blue", shelter, slot))
        assert g.state["shelters"][shelter]["eggs"][slot] == "blue"
        assert [e.kind for e in events] == ["egg_placed", "next_player"]
        assert g.current_player() == "Ben"
    else:
        with pytest.raises(error):
            g.push(PlaceEgg("blue", shelter, slot))


def test_an_occupied_slot_is_not_free():
    g = make()
    turn(g, "blue", "whole", (0, 0))
    g.push(Landed((("blue", "whole"),)))
    with pytest.raises(SlotColourError, match="not free"):
        g.push(PlaceEgg("blue", 0, 0))
    assert (0, 0) not in g.legal_slots("blue")


def test_place_needs_a_landed_whole_egg_of_that_colour():
    g = make()
    with pytest.raises(WrongPhaseError):
        g.push(PlaceEgg("blue", 0, 0))
    g.push(Landed((("blue", "whole"),)))
    with pytest.raises(NoSuchEggError):
        g.push(PlaceEgg("red", 0, 1))


# -- Egg landed broken --------------------------------------------------------------------------
@pytest.mark.parametrize("start, colour, expected", [
    (0, "yellow", 1),   # first yellow stone
    (0, "red", 2),
    (0, "blue", 3),
    (0, "purple", 4),
    (1, "yellow", 6),   # the *next* stone of that colour, not the one it stands on
    (4, "purple", 7),
    (15, "yellow", 17), # no yellow stone left: the multicolour stone takes any colour
    (16, "red", 17),    # last stone before the end
    (13, "blue", 17),
])
def test_broken_egg_moves_the_hunter_to_the_next_stone_of_its_colour(start, colour, expected):
    g = make()
    g.state["hunter"] = start
    assert g.next_stone(colour) == expected
    events = g.push(Landed(((colour, "broken"),)))
    assert g.state["hunter"] == expected
    assert g.state["set_aside"][colour] == 1  # "Set the token aside"
    assert counts(g) == 28
    assert "hunter_moved" in [e.kind for e in events]


def test_broken_egg_is_never_used_again():
    g = make()
    turn(g, "red", "broken")
    assert g.state["nest"]["red"] == 6 and g.state["set_aside"]["red"] == 1
    assert g.egg_counts()["shelters"] == 0
    assert g.current_player() == "Ben"  # the turn passes


# -- Shelters -----------------------------------------------------------------------------------
def test_a_full_shelter_turns_over_and_moves_the_hunter_back():
    g = make()
    turn(g, "red", "broken")    # hunter → stone 2
    turn(g, "red", "broken")    # → 5
    assert g.state["hunter"] == 5
    turn(g, "blue", "whole", (0, 0))
    hunter_before = g.state["hunter"]
    g.push(Landed((("red", "whole"),)))
    events = g.push(PlaceEgg("red", 0, 1))  # shelter 0 (back 1) is full
    assert g.state["shelters"][0]["flipped"]
    assert g.state["hunter"] == hunter_before - 1
    full = [e for e in events if e.kind == "shelter_full"][0]
    assert full.data == {"shelter": 0, "back": 1, "hunter_from": 5, "hunter_to": 4}
    # a turned-over shelter offers no slot
    assert all(i != 0 for i, _ in g.legal_slots("blue"))


def test_moving_back_stops_at_the_start():
    g = make()
    turn(g, "blue", "whole", (4, 0))
    turn(g, "yellow", "whole", (4, 1))
    turn(g, "red", "broken")  # hunter on stone 2
    turn(g, "red", "whole", (4, 2))  # shelter 4 has back 3: 2 - 3 → the start
    assert g.state["shelters"][4]["flipped"] and g.state["hunter"] == 0


# -- End of Game --------------------------------------------------------------------------------
def test_hunter_on_the_multicolour_stone_with_eggs_in_the_nest_loses():
    g = make()
    g.state["hunter"] = 16
    events = g.push(Landed((("blue", "broken"),)))
    assert g.state["hunter"] == 17
    assert [e.kind for e in events][-1] == "game_lost"
    o = g.outcome()
    assert o.winners == () and o.reason == "hunter_reached_end"
    assert g.legal_actions() == []
    with pytest.raises(GameOverError):
        g.push(LoadEggs(("blue",)))


def play_to_win(g):
    """Save every egg: each colour fills its own slots, the 7th egg of each colour takes a multicolour slot."""
    for colour in ("blue", "purple", "red", "yellow"):
        for _ in range(7):
            turn(g, colour, "whole")


def test_an_empty_nest_wins():
    g = make()
    play_to_win(g)
    assert g.egg_counts() == {"nest": 0, "toucan": 0, "shelters": 28, "set_aside": 0}
    assert all(sh["flipped"] for sh in g.state["shelters"])
    o = g.outcome()
    assert o.winners == ("Ann", "Ben", "Cy") and o.reason == "nest_empty"
    assert g.last_events[-1].kind == "game_won"


def test_win_with_some_eggs_broken():
    g = make()
    turn(g, "blue", "broken")
    play_to_win_rest = [c for c in ("blue", "purple", "red", "yellow") for _ in range(g.state["nest"][c])]
    for colour in play_to_win_rest:
        turn(g, colour, "whole")
    assert g.outcome().reason == "nest_empty"
    assert g.egg_counts()["set_aside"] == 1 and counts(g) == 28


def test_last_egg_broken_onto_the_multicolour_stone_is_a_loss():
    # the win needs "the hunter has not reached the multicolour stone"
    g2 = make()
    for colour in ("blue", "purple", "red", "yellow"):
        for _ in range(7 if colour != "yellow" else 6):
            turn(g2, colour, "whole")
    g2.state["hunter"] = 16
    g2.push(Landed((("yellow", "broken"),)))
    assert g2.outcome().reason == "hunter_reached_end"


# -- A whole egg with nowhere to go (the rulebook is silent) ------------------------------------
@pytest.mark.parametrize("policy, nest, set_aside", [("nest", 7, 0), ("set_aside", 6, 1)])
def test_whole_egg_without_a_free_slot(policy, nest, set_aside):
    shelters = [{"slots": ["blue"], "back": 1} for _ in range(10)]
    g = make(shelters=shelters, no_free_slot=policy)
    events = g.push(Landed((("red", "whole"),)))
    assert g.state["nest"]["red"] == nest and g.state["set_aside"]["red"] == set_aside
    assert g.state["hunter"] == 0 and g.current_player() == "Ben"
    assert "egg_returned" in [e.kind for e in events]
    assert counts(g) == 28


# -- Turn order -----------------------------------------------------------------------------------
def test_play_passes_clockwise():
    g = make()
    seen = []
    for _ in range(4):
        seen.append(g.current_player())
        turn(g, "blue", "whole")
    assert seen == ["Ann", "Ben", "Cy", "Ann"]


# -- Big Rush -------------------------------------------------------------------------------------
def test_big_rush_loads_two_eggs():
    g = make(big_rush=True)
    assert isinstance(g, BigRushGame)
    with pytest.raises(WrongEggCountError):
        g.push(LoadEggs(("blue",)))
    g.push(LoadEggs(("blue", "blue")))
    assert g.state["toucan"] == ["blue", "blue"] and counts(g) == 28


def test_big_rush_both_whole_into_one_shelter_or_two():
    g = make(big_rush=True)
    g.push(Landed((("blue", "whole"), ("red", "whole"))))
    g.push(PlaceEgg("blue", 0, 0))
    assert g.state["phase"] == "resolve"  # the second egg still waits
    g.push(PlaceEgg("red", 0, 1))         # same shelter: it fills and turns over
    assert g.state["shelters"][0]["flipped"] and g.current_player() == "Ben"
    g.push(Landed((("blue", "whole"), ("blue", "whole"))))
    g.push(PlaceEgg("blue", 2, 0))
    g.push(PlaceEgg("blue", 4, 0))        # two shelters
    assert g.current_player() == "Cy" and counts(g) == 28


def test_big_rush_order_changes_the_result():
    def at_choice():
        g = make(big_rush=True)
        g.push(Landed((("blue", "whole"), ("purple", "whole"))))
        g.push(PlaceEgg("blue", 0, 0))
        g.push(PlaceEgg("purple", 1, 0))
        g.state["hunter"] = 4  # on stone 4 (purple)
        g.push(Landed((("red", "whole"), ("yellow", "broken"))))
        return g

    a = at_choice()
    a.push(PlaceEgg("red", 0, 1))   # shelter 0 full: back 1 → 3; then yellow: next yellow after 3 is 6
    assert a.state["hunter"] == 6
    b = at_choice()
    b.push(MoveHunter("yellow"))   # 4 → 6 (yellow)
    b.push(PlaceEgg("red", 0, 1))  # 6 - 1 = 5
    assert b.state["hunter"] == 5
    assert a.state["phase"] == b.state["phase"] == "load"


def test_big_rush_both_broken_same_colour_moves_twice():
    g = make(big_rush=True)
    events = g.push(Landed((("red", "broken"), ("red", "broken"))))
    assert g.state["hunter"] == 5  # red stones 2 then 5
    assert [e.data["to"] for e in events if e.kind == "hunter_moved"] == [2, 5]
    assert g.state["phase"] == "load" and counts(g) == 28


def test_big_rush_both_broken_different_colours_order_is_chosen():
    g = make(big_rush=True)
    g.push(Landed((("blue", "broken"), ("yellow", "broken"))))
    assert set(g.legal_actions()) == {MoveHunter("blue"), MoveHunter("yellow")}
    a = g.copy()
    a.push(MoveHunter("blue"))      # 0 → 3 (blue), then yellow → 6
    assert a.state["hunter"] == 6
    b = g.copy()
    b.push(MoveHunter("yellow"))    # 0 → 1 (yellow), then blue → 3
    assert b.state["hunter"] == 3
    with pytest.raises(NoSuchEggError):
        g.push(MoveHunter("red"))


def test_big_rush_loss_is_immediate_even_if_a_shelter_would_move_the_hunter_back():
    g = make(big_rush=True)
    g.push(Landed((("blue", "whole"), ("purple", "whole"))))
    g.push(PlaceEgg("blue", 0, 0))
    g.push(PlaceEgg("purple", 1, 0))
    g.state["hunter"] = 16
    g.push(Landed((("red", "whole"), ("yellow", "broken"))))
    g.push(MoveHunter("yellow"))
    assert g.outcome().reason == "hunter_reached_end"
    assert counts(g) == 28  # the red egg is still on Sebastian


def test_big_rush_last_egg_is_loaded_alone():
    g = make(big_rush=True)
    for colour in ("blue", "purple", "red", "yellow"):
        g.state["nest"][colour] = 0
    g.state["nest"]["red"] = 1
    g.state["set_aside"] = {"blue": 7, "purple": 7, "red": 6, "yellow": 7}
    assert g.eggs_this_turn() == 1
    g.push(LoadEggs(("red",)))
    g.push(Landed((("red", "whole"),)))
    g.push(PlaceEgg("red", 0, 1))
    assert g.outcome().reason == "nest_empty"


# -- history, copy, JSON, action dicts ---------------------------------------------------------
def test_pop_copy_and_json_round_trip():
    g = make(big_rush=True)
    start = g.to_json()
    g.push(Landed((("blue", "whole"), ("red", "broken"))))
    mid = g.to_json()
    other = Game.from_json(mid)
    assert isinstance(other, BigRushGame) and other == g
    assert other.legal_actions() == g.legal_actions()
    c = g.copy()
    c.push(MoveHunter("red"))
    assert g.to_json() == mid
    assert g.pop() == Landed((("blue", "whole"), ("red", "broken")))
    assert g.to_json() == start


def test_illegal_action_leaves_the_state_untouched():
    g = make()
    before = g.to_json()
    with pytest.raises(IllegalActionError):
        g.push(Landed((("blue", "whole"), ("red", "whole"))))
    assert g.to_json() == before


@pytest.mark.parametrize("action", [
    LoadEggs(("blue",)), Landed((("blue", "whole"), ("red", "broken"))), PlaceEgg("red", 3, 1), MoveHunter("red"),
])
def test_actions_round_trip_through_dicts_and_json(action):
    data = json.loads(json.dumps(action_to_dict(action)))
    assert action_from_dict(data, Game.ACTIONS) == action


def test_summary_is_one_line():
    g = make()
    turn(g, "blue", "broken")
    text = g.summary()
    assert "\n" not in text and "Ben" in text and "hunter at stone 3" in text
