"""The two worked examples printed in the rulebook, step by step, the state checked after each."""

from .dino_dunk_helpers import METEORS, play, quiet_turn, start

from rules.dino_dunk import (Activate, ChooseCarrier, MoveResult, PassResult, PlacementDone, Skip,
                             UseAbility, new_game)


def test_alice_brontosaurus_and_triceratops_turn():
    # "Alice chooses to activate her Brontosaurus on her turn and performs a Move action, moving the
    # Brontosaurus closer towards the scoring zone."
    game = start(carrier="home:triceratops")  # Alice plays home (Mesozoic Meteors)
    st = game.state
    assert st["turn"] == {"number": 1, "side": "home", "activated": [], "stole": False}
    game.push(Activate("home:brontosaurus", "move"))
    assert game.pending()["expects"] == "MoveResult"
    game.push(MoveResult(positions=(("home:brontosaurus", 700.0, 300.0),)))
    assert st["turn"]["activated"] == ["home:brontosaurus"]
    assert st["ball"]["carrier"] == "home:triceratops"
    assert st["positions"]["home:brontosaurus"] == [700.0, 300.0]
    assert game.pending()["kind"] == "activation"

    # "Alice is unable to activate the Brontosaurus again"
    assert not game.is_legal(Activate("home:brontosaurus", "move"))
    # "but chooses to activate her Triceratops instead and performs a Pass action to her Brontosaurus."
    game.push(Activate("home:triceratops", "pass"))
    assert [o["ability"] for o in game.offers()] == ["bounce_pass"]  # Triceratops' before-Pass ability
    game.push(Skip())
    assert game.pending()["expects"] == "PassResult"
    game.push(PassResult(caught_by="home:brontosaurus"))
    assert st["ball"]["carrier"] == "home:brontosaurus"
    # "After receiving the pass from the Triceratops, Alice's Brontosaurus is then able to trigger her
    # special ability to make a free Pass action."
    assert [(o["piece"], o["ability"]) for o in game.offers()] == [("home:brontosaurus", "tail_whip")]
    game.push(UseAbility("home:brontosaurus", "tail_whip"))
    assert game.pending() == {"kind": "fact", "expects": "PassResult", "piece": "home:brontosaurus",
                              "action": "pass", "side": "home"}
    assert st["stack"][-1]["free"] is True
    kinds = play(game, PassResult(caught_by="home:stegosaurus"))
    assert st["ball"]["carrier"] == "home:stegosaurus"
    # Both activations are used: the turn ends, the shot clock advances one space, Harry's turn.
    assert kinds.count("end_turn") == 1
    assert st["clock"] == {"side": "home", "space": 1}
    assert st["turn"]["side"] == "away" and st["turn"]["number"] == 2


def test_harry_shot_clock_and_alice_steal():
    # Harry and Alice both field Mesozoic Meteors dinosaurs, as in the rulebook's example.
    game = new_game(teams={"harry": "mesozoic_meteors", "alice": "mesozoic_meteors"},
                    rosters={"harry": METEORS, "alice": METEORS}, offense="harry")
    play(game, ChooseCarrier("harry:stegosaurus"), PlacementDone("harry"), PlacementDone("alice"))
    st = game.state
    # "Harry controls the offensive team and has taken three turns during his team's current
    # possession. The shot clock has advanced to space '3' just before Alice takes her turn."
    for turn in range(1, 6):
        side = "harry" if turn % 2 else "alice"
        assert st["turn"] == {"number": turn, "side": side, "activated": [], "stole": False}
        quiet_turn(game)
        assert st["clock"] == {"side": "harry", "space": (turn + 1) // 2}
    assert st["turn"]["side"] == "alice" and st["clock"]["space"] == 3
    assert st["offense"] == "harry" and st["ball"]["carrier"] == "harry:stegosaurus"

    # "During Alice's turn she uses her Velociraptor to steal the ball from Harry's Stegosaurus."
    game.push(Activate("alice:velociraptor", "move"))
    assert [o["ability"] for o in game.offers()] == ["swift_seizer"]
    game.push(UseAbility("alice:velociraptor", "swift_seizer"))  # placed within one short card length
    kinds = play(game, MoveResult(touched_ball=True))
    assert "turnover" in kinds and "foul" not in kinds
    assert st["ball"]["carrier"] == "alice:velociraptor"
    # "Alice then moves the possession token to her team's starting space on the shot clock, and her
    # team then becomes the offensive team."
    assert st["offense"] == "alice"
    assert st["clock"] == {"side": "alice", "space": 0}
    # "Since Alice only activated one dinosaur on her turn she may then activate a second dinosaur,
    # and chooses to activate her Tyrannosaurus Rex."
    assert st["turn"]["side"] == "alice" and st["turn"]["activated"] == ["alice:velociraptor"]
    game.push(Activate("alice:tyrannosaurus_rex", "move"))
    game.push(MoveResult())
    # Her turn ends; she is the offensive team at its end, so the clock advances (option
    # clock_counts_steal_turn, the literal reading).
    assert st["turn"]["side"] == "harry"
    assert st["clock"] == {"side": "alice", "space": 1}
