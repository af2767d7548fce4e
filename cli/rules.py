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

    c = rs.add_parser("cards", help="work with card catalogues")
    cs = c.add_subparsers(dest="cards_command", metavar="SUBCOMMAND")
    cs.required = True
    v = cs.add_parser("validate", help="check a card catalogue (JSON, or YAML when PyYAML is installed)")
    v.add_argument("file", help="the catalogue, e.g. rules/dodo_dash/cards.json")
    v.add_argument("--game", choices=["dodo-dash"], default="dodo-dash", help="whose catalogue (default dodo-dash)")
    v.add_argument("--todo", action="store_true", help="also list every entry marked 'todo' (still to fill in)")
    v.set_defaults(func=_cards_validate)


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


def _cards_validate(args) -> int:
    """One line per problem; exit 2 when there are errors, 0 otherwise."""
    from rules.dodo_dash import catalogue

    with open(args.file, encoding="utf-8") as fh:
        text = fh.read()
    if args.file.endswith((".yaml", ".yml")):
        import yaml  # the CLI may use PyYAML; the rules package itself stays standard-library only

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            print(f"{args.file}: error: not YAML ({' '.join(str(exc).split())})")
            return 2
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            print(f"{args.file}: error: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
            return 2
    problems = catalogue.validate(data)
    errors = [p for p in problems if p.level == "error"]
    todos = [p for p in problems if p.level == "warning" and p.message.startswith("todo:")]
    for p in problems:
        if p in todos and not args.todo:
            continue
        print(f"{args.file}: {p.line()}")
    if todos and not args.todo:
        print(f"{args.file}: note: {len(todos)} entries are marked todo (still to check or fill in; --todo lists them)")
    if errors:
        print(f"{args.file}: {len(errors)} error(s)")
        sys.stdout.flush()
        return 2
    print(f"{args.file}: ok")
    sys.stdout.flush()
    return 0
