"""Small factories for the Dino Dunk tests: a game in play, and a way to push many actions."""

from __future__ import annotations

from rules.dino_dunk import ChooseCarrier, PlacementDone, new_game

METEORS = ["tyrannosaurus_rex", "triceratops", "stegosaurus", "velociraptor", "brontosaurus"]
TROPICS = ["spinosaurus", "mauisaurus", "parasaurolophus", "ankylosaurus", "pterodactyl"]


def start(carrier="home:triceratops", offense=None, home=METEORS, away=TROPICS,
          home_team="mesozoic_meteors", away_team="triassic_tropics", **setup):
    """A game after setup steps 1-11: ``carrier`` holds the ball, its side is on offense, turn 1."""
    offense = offense or carrier.split(":")[0]
    game = new_game(teams={"home": home_team, "away": away_team},
                    rosters={"home": list(home), "away": list(away)}, offense=offense, **setup)
    game.push(ChooseCarrier(carrier))
    skip_offers(game)  # Tail Fake: an Ankylosaurus given the ball in step 7 may place its tail
    game.push(PlacementDone(offense))
    game.push(PlacementDone(game.other(offense)))
    return game


def play(game, *actions):
    """Push each action; return the kinds of all events, in order."""
    kinds = []
    for action in actions:
        kinds += [e.kind for e in game.push(action)]
    return kinds


def events(game, kind):
    return [e.data for e in game.last_events if e.kind == kind]


def skip_offers(game):
    """Decline every optional ability offered now."""
    from rules.dino_dunk import Skip

    kinds = []
    while game.offers() and not any(o["required"] for o in game.offers()):
        kinds += [e.kind for e in game.push(Skip())]
    return kinds


def move(game, piece, result=None):
    """Activate ``piece`` for a plain Move (declining abilities) with ``result`` (default: nothing hit)."""
    from rules.dino_dunk import Activate, MoveResult

    game.push(Activate(piece, "move"))
    skip_offers(game)
    kinds = [e.kind for e in game.push(result or MoveResult())]
    return kinds + skip_offers(game)


def quiet_turn(game):
    """The side to play moves two dinosaurs that do not hold the ball, hitting nothing."""
    st = game.state
    side = st["turn"]["side"]
    pieces = [p for p in sorted(st["pieces"]) if p.startswith(side + ":") and p != st["ball"]["carrier"]
              and game.can_act(p)][:2]
    for p in pieces:
        move(game, p)
