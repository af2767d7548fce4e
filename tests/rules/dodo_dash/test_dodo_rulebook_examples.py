"""The rulebook's three worked examples, step by step, with the state checked after each step."""

from .dodo_helpers import close_windows, hand, kinds, plain_game, pos

from rules.dodo_dash import Choose, Discard, EndReactions, Hits, PlayReaction, Roll, new_game


def test_turn_example_pam_pepe_will():
    g = plain_game(
        players=("Pam", "Pepe", "Will"),
        hands={"Pam": ["thunderbolt", "normal-01", "normal-02"],
               "Pepe": ["normal-03", "fine-blocking", "normal-04"],
               "Will": ["normal-05", "great-blocking", "normal-06"]},
        positions={"Pam": -3, "Pepe": 5, "Will": 6})
    for pid, card in (("Pam", "thunderbolt"), ("Pepe", "normal-03"), ("Will", "normal-05")):
        g.push(Choose(pid, card))
    # 1. Pam plays Thunderbolt. First, she advances 2 hexes.
    assert pos(g, "Pam") == -1
    # 2. She asks for Reactions: Pepe plays Fine Blocking to cancel Thunderbolt's effect.
    assert g.pending == {"kind": "reactions", "stage": "effect"}
    g.push(PlayReaction("Pepe", "fine-blocking"))
    assert hand(g, "Pepe") == ["normal-04"]
    assert [i["card"] for i in g.state["chain"]] == ["thunderbolt", "fine-blocking"]
    # 3. Will plays Great Blocking to cancel Fine Blocking and deal 1 damage to Pepe.
    # Nobody holds another Reaction card, so the window closes by itself and the chain resolves
    # from the top: Great Blocking, then (canceled) Fine Blocking, then Thunderbolt.
    events = g.push(PlayReaction("Will", "great-blocking"))
    assert [e.data["card"] for e in events if e.kind == "reaction"] == ["great-blocking"]
    assert g.state["chain"][:1] != [{"card": "thunderbolt"}]
    k = kinds(events)
    # ... Pepe runs out of cards after taking the damage.
    cancel = next(e for e in events if e.kind == "canceled")
    assert cancel.data == {"racer": "Pepe", "card": "fine-blocking", "by": "great-blocking"}
    damage = next(e for e in events if e.kind == "damage")
    assert damage.data["racer"] == "Pepe" and damage.data["discarded"] == ["normal-04"]
    # 4. Fine Blocking was canceled: Thunderbolt resolves, everyone ahead of Pam moves back 1.
    moves = [e.data for e in events if e.kind == "move" and e.data["cause"] == "effect"]
    assert moves == [{"racer": "Pepe", "to": 4, "by": -1, "cause": "effect"},
                     {"racer": "Will", "to": 5, "by": -1, "cause": "effect"}]
    # 5. Pam discards Thunderbolt (and the two Blocking cards went to the pile as they resolved).
    assert g.state["discard"][-3:] == ["great-blocking", "fine-blocking", "thunderbolt"] or \
        set(g.state["discard"]) >= {"thunderbolt", "fine-blocking", "great-blocking"}
    assert g.state["played"][0] is None
    # 6. Pepe has no cards: he moves back 3 hexes and draws a new hand of 6.
    assert k.index("recover") > k.index("resolve")
    back = [e.data for e in events if e.kind == "move" and e.data["cause"] == "recover"]
    assert back == [{"racer": "Pepe", "to": 1, "by": -3, "cause": "recover"}]
    drew = [e.data for e in events if e.kind == "draw" and e.data["racer"] == "Pepe"]
    assert len(drew[0]["cards"]) == 6
    assert pos(g, "Will") == 5
    # Then it is Pepe's turn: he advances from hex 1 by his card's Speed (3).
    assert g.state["active"] == 1
    assert pos(g, "Pepe") == 1 + 3


def test_drifting_example_william():
    g = new_game(players=["William", "Ana", "Bo"], board="temple", track="outer", dice="table", seed=3,
                 hands={"William": ["boring", "normal-01"], "Ana": ["normal-02", "normal-03"],
                        "Bo": ["normal-04", "normal-05"]},
                 positions={"William": 1, "Ana": -1, "Bo": -1})
    start = g.state["layout"]["drift"][0]["start"]
    assert start == 4
    for pid, card in (("William", "boring"), ("Ana", "normal-02"), ("Bo", "normal-04")):
        g.push(Choose(pid, card))
    # Boring has Speed 5: advancing 3 hexes he lands on the Drifting section; the sequence starts.
    assert pos(g, "William") == 4 and g.pending["kind"] == "roll"
    # First roll 4: he advances to the next Drifting hex.
    g.push(Roll(4))
    assert pos(g, "William") == 5 and g.pending["kind"] == "roll"
    # Second roll 3: the next hex.
    g.push(Roll(3))
    assert pos(g, "William") == 6
    # Third roll 6: the next hex and its bonus, a card from the Movement deck.
    before = len(g.racer("William")["hand"])
    g.push(Roll(6))
    assert pos(g, "William") == 7 and len(g.racer("William")["hand"]) == before + 1
    # Last roll 1: the sequence ends; he advances the 2 hexes left of his Speed.
    events = g.push(Roll(1))
    assert "drift_end" in kinds(events)
    after = [e.data for e in events if e.kind == "move" and e.data["racer"] == "William"]
    assert after[0] == {"racer": "William", "to": 9, "by": 2, "cause": "speed"}
    # (No one holds a Reaction card, so the round runs on: at the End of Round William, the Lead
    # Racer, advances 1 more hex.)
    assert after[1] == {"racer": "William", "to": 10, "by": 1, "cause": "lead"}


def test_treasure_hunt_round_example():
    g = new_game(
        players=["Pepe", "Ivan", "William", "Pam"], variant="treasure", dice="table", seed=5,
        layout={"loop": True, "hexes": 36, "treasure_bases": [0, 9, 18, 27]},
        hands={"Pepe": ["urgency", "normal-01", "normal-02"], "Ivan": ["dino-jump", "normal-03"],
               "William": ["banana", "normal-04"], "Pam": ["feather", "fast-legs", "normal-05"]},
        positions={"Pepe": 17, "Ivan": 17, "William": 20, "Pam": 5},
        boost={"Pepe": 8, "Ivan": 8, "William": 8, "Pam": 8},
        taken={"Pam": ["William"]})  # mid-game: Pam already holds one of William's tokens
    for pid, card in (("Pepe", "urgency"), ("Ivan", "dino-jump"), ("William", "banana"), ("Pam", "feather")):
        g.push(Choose(pid, card))
    # a) Pepe plays Urgency, rolls a 6 and has a modifier of 3 on his Boost card ...
    assert g.pending["kind"] == "roll"
    g.push(Roll(6))
    assert pos(g, "Pepe") == 26
    # ... he passes William, who becomes Hunted: a token to Pepe, back to the nearest Base,
    # miniature laid down (immune), 3 Movement cards drawn.
    assert g.racer("Pepe")["taken"] == ["William"]
    W = g.racer("William")
    assert W["pos"] == 18 and W["immune"] and len(W["hand"]) == 1 + 3 and W["tokens"] == 1
    g.push(EndReactions())  # Pam could react (she holds Fast Legs) but does not
    g.push(EndReactions())
    # b) Ivan plays Dino Jump and passes William, but takes no token: William is Hunted and in the Base.
    assert g.state["active"] == 1
    assert pos(g, "Ivan") == 24
    assert g.racer("Ivan")["taken"] == [] and g.racer("William")["tokens"] == 1
    g.push(EndReactions())
    g.push(EndReactions())
    # c) William plays Banana (he leaves the Base and loses his immunity) and hits Ivan ...
    assert g.state["active"] == 2 and pos(g, "William") == 23 and not g.racer("William")["immune"]
    g.push(EndReactions())
    assert g.pending == {"kind": "hits", "projectile": "banana", "by": "William"}
    g.push(Hits(("Ivan",)))
    # ... who moves back, is Hunted by William (a token), goes back to the nearest Base, draws 3.
    assert g.racer("William")["taken"] == ["Ivan"]
    I = g.racer("Ivan")
    assert I["pos"] == 18 and I["immune"] and len(I["hand"]) == 1 + 3
    g.push(EndReactions())
    # d) Pam plays Feather, hits Pepe and moves behind him ...
    assert g.state["active"] == 3 and pos(g, "Pam") == 10
    g.push(EndReactions())
    g.push(Hits(("Pepe",)))
    assert g.pending == {"kind": "discard", "player": "Pepe", "n": 1}  # the Feather's 1 damage
    g.push(Discard("Pepe", ("normal-01",)))
    assert pos(g, "Pam") == 25 and pos(g, "Pepe") == 26
    # ... afterwards she uses Fast Legs and Hunts Pepe: a token, Pepe back to the Base, 3 cards.
    assert g.pending == {"kind": "reactions", "stage": "after"}
    g.push(PlayReaction("Pam", "fast-legs"))
    close_windows(g)  # players who drew cards when Hunted may hold Reactions now; none is played
    assert pos(g, "Pam") == 27
    assert g.racer("Pam")["taken"] == ["William", "Pepe"]
    P = g.racer("Pepe")
    assert P["pos"] == 18 and P["immune"] and P["tokens"] == 2
    assert len(P["hand"]) == 1 + 3 + 1  # 3 when Hunted, 1 at the End of Round
    # End of Round (Treasure Hunt): marker passes, everyone draws 1, Dinomeeples step on.
    assert g.state["phase"] == "scheming" and g.state["round"] == 2
    assert g.state["first"] == 1
    assert all(R["boost"] == 9 for R in g.state["racers"])
    assert g.outcome() is None
