"""Small factories for the Dodo Dash tests."""

from rules.dodo_dash import EndReactions, new_game

# A plain loop with no special hexes, for rules that have nothing to do with the board.
PLAIN = {"loop": True, "hexes": 36}


def plain_game(players=("A", "B", "C"), **kw):
    kw.setdefault("layout", dict(PLAIN))
    kw.setdefault("seed", 7)
    return new_game(players=list(players), **kw)


def pos(game, pid):
    return game.racer(pid)["pos"]


def hand(game, pid):
    return sorted(game.racer(pid)["hand"])


def kinds(events):
    return [e.kind for e in events]


def close_windows(game):
    """Push EndReactions while a Reaction window is open."""
    while game.pending and game.pending["kind"] == "reactions":
        game.push(EndReactions())


def movement_total(game):
    st = game.state
    return (len(st["deck"]) + len(st["discard"]) + len(st["in_play"])
            + sum(len(R["hand"]) for R in st["racers"]) + sum(1 for c in st["played"] if c))


def catalogue_with(**effects):
    """The default catalogue with some Movement cards' fields replaced: card_id={"effects": [...], ...}."""
    from rules.dodo_dash import catalogue

    cat = catalogue.load()
    for cid, fields in effects.items():
        card = next(c for c in cat["movement"] if c["id"] == cid.replace("_", "-"))
        card.update(fields)
    return cat


def choose_all(game, choices):
    from rules.dodo_dash import Choose

    for pid, card in choices.items():
        game.push(Choose(pid, card))


def drain(game, events=None):
    """Answer every decision with EndReactions / the first legal action until the next Scheming
    phase (or the end), collecting the events (those of the last push first)."""
    events = list(game.last_events) if events is None else events
    while game.pending and game.pending["kind"] != "choose":
        events += game.push(EndReactions() if game.pending["kind"] == "reactions" else game.legal_actions()[0])
    return events
