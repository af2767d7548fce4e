"""``tableref rules …``: replay match logs and check card catalogues."""

from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser("rules", help="run the rules engines on match logs and card catalogues")
    rs = p.add_subparsers(dest="rules_command", metavar="SUBCOMMAND")
    rs.required = True

    r = rs.add_parser("replay", help="replay a match log (JSON Lines) and print the state after each action")
    r.add_argument("game", choices=["dino-dunk", "dodo-dash", "morris", "dogo-dash"])
    r.add_argument("log", help="JSONL: first line {\"setup\": {...}}, then one action per line")
    r.add_argument("--json", action="store_true", help="print the canonical JSON state after each action")
    r.set_defaults(func=_replay)


def _replay(args) -> int:
    from rules.core import replay

    with open(args.log, encoding="utf-8") as fh:
        lines = fh.readlines()
    for number, action, game, events in replay(args.game, lines):
        if action is None:
            print(f"{number}: setup")
        else:
            print(f"{number}: {json.dumps(game.action_to_dict(action), sort_keys=True)}")
        for event in events:
            print(f"    event {json.dumps(event.to_dict(), sort_keys=True)}")
        if args.json:
            print(f"    state {game.to_json()}")
        else:
            print(f"    {game.summary()}" if hasattr(game, "summary") else "")
    outcome = game.outcome()
    print(f"outcome: {json.dumps(outcome.to_dict(), sort_keys=True) if outcome else 'in progress'}")
    sys.stdout.flush()
    return 0
