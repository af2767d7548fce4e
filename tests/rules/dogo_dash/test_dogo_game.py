"""Dogo Dash: one test (or table) per rule of ../shared/rulebooks/dogo-dash.txt."""

import json
from collections import Counter

import pytest

from rules.core import IllegalActionError, RulesError, action_from_dict, action_to_dict
from rules.dogo_dash import (
    BEAR,
    CAT,
    CATNIP,
    COOKIE,
    DECK_COUNTS,
    DOG,
    GOOD_BOY,
    CardNotInHandError,
    CatnipError,
    CatnipGame,
    Choose,
    Collect,
    DogoDash,
    DogoDashError,
    Game,
    GameOverError,
    NotInRoundError,
    Reveal,
    RevealMismatchError,
    WrongPhaseError,
    new_game,
)

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve"]


def position(hands, deck_top=(), **kw):
    """A game that starts from known hands; the deck is ``deck_top`` then the remaining cards."""
    rest = Counter(DECK_COUNTS) - Counter(c for h in hands for c in h) - Counter(deck_top)
    deck = list(deck_top) + sorted(rest.elements())
    return new_game(players=NAMES[: len(hands)], hands=hands, deck=deck, **kw)


def arrange(g, hands, deck=(), piles=None):
    """Set hands / deck / piles directly (the state is plain data); every other card is put out of the
    game in the discard, so that the 60 cards stay accounted for."""
    s = g.state
    pool = Counter(DECK_COUNTS)
    s["hands"] = [sorted(h) for h in hands]
    s["deck"] = list(deck)
    s["piles"] = [list(p) for p in (piles or [[] for _ in hands])]
    for c in [c for h in hands for c in h] + list(deck) + [c for p in s["piles"] for c in p]:
        pool[c] -= 1
    assert min(pool.values()) >= 0
    s["discard"] = sorted(pool.elements())
    s["table"], s["super_pot"] = [], []
    if not deck:
        s["last_round"] = True
    s["active"] = [i for i, h in enumerate(hands) if h]
    return g


def total(g):
    return sum(g.card_counts().values())


def reveal(g, *cards):
    return g.push(Reveal(tuple(cards)))


def kinds(events):
    return [e.kind for e in events]


# -- Components & Setup -----------------------------------------------------------------------------
def test_setup_shuffles_with_the_seed_and_deals_four_each():
    g = new_game(players=3, seed=7)
    assert [len(h) for h in g.state["hands"]] == [4, 4, 4]
    assert len(g.state["deck"]) == 48 and total(g) == 60
    all_cards = g.state["deck"] + [c for h in g.state["hands"] for c in h]
    assert Counter(all_cards) == Counter(DECK_COUNTS)  # 22 Cats, 18 Dogs, 12 Bears, 4 Cookies, 4 Good Boys
    assert new_game(players=3, seed=7) == g                    # the same seed deals the same game
    assert new_game(players=3, seed=8).state["deck"] != g.state["deck"]
    assert g.state["seed"] == 7


def test_deal_one_card_at_a_time_clockwise_from_the_top():
    deck = [k for k in (CAT, DOG, BEAR, COOKIE, GOOD_BOY) for _ in range(DECK_COUNTS[k])]
    deck = deck[::-1]  # top: Good Boys, Cookies, Bears...
    g = new_game(players=2, deck=deck)
    assert g.state["hands"][0] == sorted([deck[0], deck[2], deck[4], deck[6]])
    assert g.state["hands"][1] == sorted([deck[1], deck[3], deck[5], deck[7]])
    assert g.state["deck"] == deck[8:] and g.state["seed"] is None


@pytest.mark.parametrize("setup, message", [
    ({"players": 1}, "2 to 5"),
    ({"players": 6}, "2 to 5"),
    ({"players": ["A", "A"]}, "different"),
    ({"deck": [CAT] * 60}, "60 cards"),
    ({"hands": [[CAT] * 4, [DOG] * 4]}, "deck"),
    ({"strongest": "loudest"}, "strongest"),
    ({"good_boy": "bad"}, "good_boy"),
])
def test_bad_setups_are_refused(setup, message):
    with pytest.raises(RulesError, match=message):
        new_game(**setup)


# -- Round: secret choice, simultaneous reveal ----------------------------------------------------
def test_secret_choice_then_reveal():
    g = position([[BEAR, CAT, CAT, CAT], [DOG, CAT, CAT, CAT]])
    events = g.push(Choose(0, BEAR))
    assert events[0].data == {"seat": 0}  # the card stays secret
    with pytest.raises(RevealMismatchError, match="already chosen"):
        g.push(Choose(0, CAT))
    with pytest.raises(CardNotInHandError):
        g.push(Choose(1, COOKIE))
    with pytest.raises(RevealMismatchError, match="chose another"):
        reveal(g, CAT, DOG)
    g.push(Choose(1, DOG))
    assert g.legal_actions() == [Reveal((BEAR, DOG))]
    reveal(g, BEAR, DOG)
    assert g.state["piles"][0] == [BEAR, DOG]


def test_a_reveal_without_choices_is_a_fact_too():
    g = position([[BEAR, CAT, CAT, CAT], [DOG, CAT, CAT, CAT]])
    assert g.is_legal(Reveal((CAT, DOG)))
    for bad in [(CAT,), (COOKIE, DOG), (CAT, None)]:
        with pytest.raises(IllegalActionError):
            reveal(g, *bad)


# -- Round Winner -----------------------------------------------------------------------------------
def test_strongest_card_takes_all_played_cards_then_everyone_draws_back_to_four():
    g = position([[BEAR, CAT, CAT, CAT], [DOG, CAT, CAT, CAT], [CAT, DOG, DOG, DOG]], deck_top=[COOKIE, COOKIE, GOOD_BOY])
    deck_before = len(g.state["deck"])
    events = reveal(g, BEAR, DOG, CAT)  # "Bear is stronger than Dog and Cat"
    assert g.state["piles"] == [[BEAR, DOG, CAT], [], []]
    assert g.scores() == {"Ann": 3, "Ben": 0, "Cy": 0}
    assert [len(h) for h in g.state["hands"]] == [4, 4, 4]
    assert len(g.state["deck"]) == deck_before - 3
    assert g.state["hands"][0] == sorted([CAT, CAT, CAT, COOKIE])  # seat 0 draws first, from the top
    assert kinds(events) == ["reveal", "round_won", "collect", "draw", "draw", "draw"]
    assert g.state["round"] == 2 and total(g) == 60


def test_tie_for_the_strongest_card_replays_among_the_tied_without_drawing():
    g = position([[DOG, BEAR, CAT, CAT], [DOG, CAT, CAT, CAT], [CAT, CAT, CAT, CAT]])
    deck_before = list(g.state["deck"])
    events = reveal(g, DOG, DOG, CAT)
    assert kinds(events) == ["reveal", "tie"] and events[1].data["seats"] == [0, 1]
    assert g.state["active"] == [0, 1] and g.state["deck"] == deck_before  # no drawing
    assert [len(h) for h in g.state["hands"]] == [3, 3, 3]
    with pytest.raises(NotInRoundError):
        reveal(g, BEAR, CAT, CAT)            # Cy is not in the replay
    with pytest.raises(NotInRoundError):
        g.push(Choose(2, CAT))
    events = reveal(g, BEAR, CAT, None)
    assert kinds(events)[:3] == ["reveal", "round_won", "collect"]
    assert len(g.state["piles"][0]) == 5     # both rounds' cards
    assert [len(h) for h in g.state["hands"]] == [4, 4, 4]
    assert total(g) == 60


def test_cards_that_beat_each_other_round_tie_everyone():
    g = position([[CAT, CAT, CAT, BEAR], [COOKIE, CAT, CAT, CAT], [DOG, CAT, CAT, CAT]])
    events = reveal(g, CAT, COOKIE, DOG)
    assert events[-1].kind == "tie" and events[-1].data == {"seats": [0, 1, 2], "reason": "cycle"}


def test_most_beaten_option_can_pick_in_a_cycle():
    g = position([[CAT, CAT, CAT, BEAR], [COOKIE, CAT, CAT, CAT], [DOG, CAT, CAT, CAT], [BEAR, CAT, CAT, CAT]],
                 strongest="most_beaten")
    events = reveal(g, CAT, COOKIE, DOG, BEAR)
    assert events[-1].data == {"seats": [1, 3], "reason": "most_beaten_tie"}


@pytest.mark.parametrize("good_boy, tied", [("all", [0, 1, 2]), ("with_strongest", [0, 1])])
def test_a_good_boy_forces_a_tie(good_boy, tied):
    g = position([[GOOD_BOY, CAT, CAT, CAT], [BEAR, CAT, CAT, CAT], [CAT, CAT, CAT, DOG]], good_boy=good_boy)
    events = reveal(g, GOOD_BOY, BEAR, CAT)
    assert events[-1].kind == "tie" and events[-1].data == {"seats": tied, "reason": "good_boy"}
    assert g.state["active"] == tied


def test_ties_until_the_cards_run_out_split_evenly():
    g = position([[BEAR, CAT, COOKIE, DOG], [BEAR, CAT, COOKIE, DOG]])
    for card in (BEAR, CAT, COOKIE):
        assert reveal(g, card, card)[-1].kind == "tie"
    events = reveal(g, DOG, DOG)
    split = [e for e in events if e.kind == "split"][0]
    assert split.data == {"seats": [0, 1], "each": 4, "discarded": 0}
    assert g.scores() == {"Ann": 4, "Ben": 4}


def test_an_odd_card_of_a_split_is_discarded():
    g = position([[DOG] * 4, [DOG] * 4, [CAT] * 4])
    reveal(g, DOG, DOG, CAT)                     # 3 cards on the table, Ann and Ben tie
    for _ in range(3):
        reveal(g, DOG, DOG, None)                # 2 more each time
    assert g.scores() == {"Ann": 4, "Ben": 4, "Cy": 0}
    assert g.state["discard"] == [DOG]          # 9 cards: 4 each, the last one played is discarded
    assert total(g) == 60


def test_replay_ends_when_one_tied_player_has_no_card_left():
    g = position([[DOG] * 4, [DOG] * 4, [CAT] * 4])
    arrange(g, [[DOG], [DOG, DOG], [CAT, CAT]], deck=[CAT] * 5)
    events = reveal(g, DOG, DOG, CAT)            # Ann has no card left to replay with
    assert [e.kind for e in events][:3] == ["reveal", "tie", "split"]
    assert events[2].data == {"seats": [0, 1], "each": 1, "discarded": 1}
    assert g.scores() == {"Ann": 1, "Ben": 1, "Cy": 0}


# -- Drawing and the Last Round ---------------------------------------------------------------------
def test_the_last_round_starts_when_the_deck_runs_out():
    g = position([[BEAR, CAT, CAT, CAT], [DOG, CAT, CAT, CAT]])
    arrange(g, [[BEAR, CAT, CAT, CAT], [DOG, CAT, CAT, CAT]], deck=[COOKIE])
    events = reveal(g, BEAR, DOG)
    assert g.state["hands"] == [sorted([CAT, CAT, CAT, COOKIE]), [CAT, CAT, CAT]]  # Ben gets none
    assert g.state["last_round"] and events[-1].kind == "last_round"
    assert g.state["active"] == [0, 1]


def test_last_round_super_pot_goes_to_the_winner():
    g = arrange(new_game(players=NAMES[:3]), [[BEAR, DOG, CAT], [DOG, CAT], [CAT, CAT, CAT]])
    events = reveal(g, BEAR, DOG, CAT)
    assert "super_pot" in kinds(events)
    # the winner takes the 3 played cards and the 5 unplayed ones
    assert g.scores() == {"Ann": 8, "Ben": 0, "Cy": 0}
    assert g.state["phase"] == "over" and events[-1].kind == "game_over"
    assert g.outcome().winners == ("Ann",) and g.outcome().reason == "most_cards"
    with pytest.raises(GameOverError):
        reveal(g, None, None, None)


def test_last_round_tie_splits_the_super_pot_at_once():
    g = arrange(new_game(players=NAMES[:3]), [[DOG, BEAR], [DOG, CAT, CAT], [CAT, COOKIE]])
    events = reveal(g, DOG, DOG, CAT)  # no replay: the hands went into the Super Pot
    split = [e for e in events if e.kind == "split"][0]
    assert split.data == {"seats": [0, 1], "each": 3, "discarded": 1}  # 7 cards
    assert g.state["phase"] == "over" and total(g) == 60


def test_players_without_cards_sit_the_last_round_out():
    g = arrange(new_game(players=NAMES[:3]), [[CAT], [], [DOG]])
    assert g.state["active"] == [0, 2]
    with pytest.raises(NotInRoundError):
        reveal(g, CAT, CAT, DOG)
    reveal(g, CAT, None, DOG)
    assert g.scores()["Cy"] == 2


def test_keep_your_eyes_open_win_the_super_pot_with_a_cat():
    """Rulebook: "if you paid attention to how many Cookies were played, you can win the Super Pot
    with a cat, which is the character beaten by most cards, but wins against Cookie." Ann counted: all
    four Cookies are in the other hands, and nothing else is left."""
    hands = [[CAT, BEAR], [COOKIE, COOKIE], [COOKIE, COOKIE]]
    with_cat = arrange(new_game(players=NAMES[:3]), hands)
    reveal(with_cat, CAT, COOKIE, COOKIE)
    assert with_cat.scores() == {"Ann": 6, "Ben": 0, "Cy": 0}  # 3 played + 3 in the Super Pot
    assert with_cat.outcome().winners == ("Ann",)
    with_bear = arrange(new_game(players=NAMES[:3]), hands)
    reveal(with_bear, BEAR, COOKIE, COOKIE)                    # Cookie is stronger than Bear
    assert with_bear.scores()["Ann"] == 0


# -- Scoring ------------------------------------------------------------------------------------------
def test_most_cards_wins_and_ties_share_the_victory():
    g = arrange(new_game(players=NAMES[:3]), [[CAT], [CAT], [BEAR]], piles=[[DOG] * 5, [DOG] * 7, [DOG] * 4])
    reveal(g, CAT, CAT, BEAR)  # Cy takes 3: Ann 5, Ben 7, Cy 7
    o = g.outcome()
    assert o.scores == {"Ann": 5, "Ben": 7, "Cy": 7}
    assert o.winners == ("Ben", "Cy") and o.reason == "shared_victory"


# -- The Catnip Variant ---------------------------------------------------------------------------------
def test_catnip_needs_the_variant():
    g = position([[CAT] * 4, [DOG, CAT, CAT, CAT]])
    with pytest.raises(CatnipError, match="variant"):
        reveal(g, CATNIP, DOG)


def test_catnip_keeps_four_cats_and_the_others_play_on():
    g = position([[CAT] * 4, [DOG, CAT, CAT, CAT], [BEAR, CAT, CAT, CAT]], catnip=True)
    assert isinstance(g, CatnipGame)
    assert Choose(0, CATNIP) in g.legal_actions() and Choose(1, CATNIP) not in g.legal_actions()
    with pytest.raises(CatnipError, match="four Cats"):
        reveal(g, CAT, CATNIP, BEAR)
    events = reveal(g, CATNIP, DOG, BEAR)
    assert "catnip" in kinds(events)
    assert [sorted(p) for p in g.state["piles"]] == [[CAT] * 4, [], [BEAR, DOG]]  # Ann didn't win, but keeps her four cards
    assert [len(h) for h in g.state["hands"]] == [4, 4, 4] and total(g) == 60


def test_catnip_leaving_one_player_gives_that_player_the_round():
    g = position([[CAT] * 4, [DOG, CAT, CAT, CAT]], catnip=True)
    events = reveal(g, CATNIP, CAT)
    won = [e for e in events if e.kind == "round_won"][0]
    assert won.data == {"seat": 1, "reason": "alone"}


# -- The Dogo Dash! -------------------------------------------------------------------------------------
def test_dogo_dash_rescues_the_played_dog_and_the_second_dog():
    g = position([[BEAR, CAT, CAT, CAT], [DOG, DOG, CAT, CAT], [CAT, CAT, CAT, CAT]])
    events = reveal(g, BEAR, DOG, CAT)
    assert g.state["phase"] == "dogo_dash" and kinds(events)[-1] == "round_won"
    assert set(g.legal_actions()) == {DogoDash(1), Collect()}
    with pytest.raises(DogoDashError, match="winner"):
        g.push(DogoDash(0))
    with pytest.raises(DogoDashError, match="no Dog"):
        g.push(DogoDash(2))
    with pytest.raises(WrongPhaseError):
        reveal(g, CAT, CAT, CAT)
    events = g.push(DogoDash(1))
    assert kinds(events)[:2] == ["dogo_dash", "collect"]  # nobody else can: the winner takes the rest
    assert g.state["piles"] == [[BEAR, CAT], [DOG, DOG], []]
    assert [len(h) for h in g.state["hands"]] == [4, 4, 4]  # Ben draws 2 back
    assert total(g) == 60


def test_declining_the_dogo_dash_lets_the_winner_take_the_dog():
    g = position([[BEAR, CAT, CAT, CAT], [DOG, DOG, CAT, CAT]])
    reveal(g, BEAR, DOG)
    g.push(Collect())
    assert g.state["piles"] == [[BEAR, DOG], []]
    with pytest.raises(WrongPhaseError):
        g.push(DogoDash(1))


def test_no_dogo_dash_without_a_second_dog():
    g = position([[BEAR, CAT, CAT, CAT], [DOG, CAT, CAT, CAT]])
    events = reveal(g, BEAR, DOG)
    assert "collect" in kinds(events) and g.state["phase"] == "choose"


def test_dogo_dash_after_a_replay_uses_the_dog_played_earlier():
    g = position([[DOG, BEAR, CAT, CAT], [DOG, DOG, CAT, CAT]])
    reveal(g, DOG, DOG)               # tie
    reveal(g, BEAR, CAT)              # Ann wins the replay
    assert g.dogo_dash_seats() == [1]
    g.push(DogoDash(1))
    assert g.scores() == {"Ann": 3, "Ben": 2}


def test_no_dogo_dash_after_a_split():
    g = position([[DOG] * 4, [DOG] * 4])
    for _ in range(4):
        reveal(g, DOG, DOG)
    assert g.state["phase"] == "choose" and g.scores() == {"Ann": 4, "Ben": 4}


# -- history, copy, JSON, action dicts --------------------------------------------------------------
def test_pop_copy_and_json_round_trip():
    g = position([[CAT] * 4, [DOG, DOG, CAT, CAT], [BEAR, CAT, CAT, CAT]], catnip=True)
    start = g.to_json()
    reveal(g, CAT, DOG, BEAR)
    mid = g.to_json()
    other = Game.from_json(mid)
    assert isinstance(other, CatnipGame) and other == g and other.legal_actions() == g.legal_actions()
    c = g.copy()
    c.push(Collect())
    assert g.to_json() == mid
    assert g.pop() == Reveal((CAT, DOG, BEAR))
    assert g.to_json() == start


@pytest.mark.parametrize("action", [Choose(2, GOOD_BOY), Reveal((CAT, None, CATNIP)), DogoDash(1), Collect()])
def test_actions_round_trip_through_dicts_and_json(action):
    assert action_from_dict(json.loads(json.dumps(action_to_dict(action))), Game.ACTIONS) == action


def test_summary_is_one_line():
    g = new_game(players=3)
    assert "\n" not in g.summary() and "round 1" in g.summary()
