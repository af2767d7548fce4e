"""Match logs replay through rules.core.replay and the CLI; ``tableref rules cards validate``."""

import glob
import json
import os

import pytest

from rules.core import ReplayError, action_from_dict, action_to_dict, replay
from rules.dodo_dash import ACTIONS, Choose, Discard, Hits, new_game

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "rules", "dodo_dash", "examples", "*.jsonl")))
CARDS = os.path.join(ROOT, "rules", "dodo_dash", "cards.json")


def cli(argv):
    """``tableref`` with only the ``rules`` command group registered (so that these tests do not
    depend on the other groups' modules); the real entry point is exercised once below."""
    import argparse

    from cli import rules as rules_cli

    parser = argparse.ArgumentParser(prog="tableref")
    sub = parser.add_subparsers(dest="command")
    rules_cli.register(sub)
    args = parser.parse_args(argv)
    return args.func(args)


def test_the_tableref_entry_point_runs_cards_validate(capsys):
    from cli.main import main

    assert main(["rules", "cards", "validate", CARDS]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(": ok")


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_logs_replay_to_the_end(path):
    with open(path, encoding="utf-8") as fh:
        steps = list(replay("dodo-dash", fh))
    game = steps[-1][2]
    assert game.outcome() is not None
    assert len(steps) == sum(1 for line in open(path) if line.strip())


def test_actions_with_tuples_round_trip_through_dicts():
    for action in (Hits(("A", "B")), Discard("A", ("normal-01", "boring")), Choose("A", "boring"), Hits()):
        data = json.loads(json.dumps(action_to_dict(action)))
        assert action_from_dict(data, ACTIONS) == action


def test_a_bad_log_line_names_the_line_and_the_rule():
    lines = [json.dumps({"setup": {"players": ["A", "B", "C"]}}),
             json.dumps({"type": "Choose", "player": "A", "card": "no-such-card"})]
    with pytest.raises(ReplayError, match="line 2: Scheming Phase: A has no 'no-such-card' in hand"):
        list(replay("dodo-dash", lines))


def test_cli_replay_prints_the_summary_and_outcome(capsys):
    assert cli(["rules", "replay", "dodo-dash", EXAMPLES[0]]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("outcome: {")
    assert "round 1 scheming" in out


def test_cli_cards_validate_the_shipped_catalogue(capsys):
    assert cli(["rules", "cards", "validate", CARDS]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].endswith(": ok")
    assert any("entries are marked todo" in line for line in lines)


def test_cli_cards_validate_reports_each_problem_and_exits_2(tmp_path, capsys):
    cat = json.load(open(CARDS))
    cat["movement"][0]["speed"] = -1
    cat["movement"][1]["id"] = cat["movement"][0]["id"]
    cat["movement"][2]["effects"] = [{"op": "teleport"}]
    cat["movement"][3]["effects"] = [{"op": "damage", "target": "moon", "n": 0}]
    cat["movement"][4]["effects"] = [{"op": "cancel"}]  # not a Reaction card
    cat["charm_tiles"][0]["faces"] = {"1-3": [], "3-6": []}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(cat))
    assert cli(["rules", "cards", "validate", str(bad)]) == 2
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert len(errors) == 7, out
    assert "speed must be an integer 0..12" in out and "is used twice" in out
    assert "op must be one of" in out and "target must be one of" in out and "integer n" in out
    assert "only Reaction cards can cancel" in out and "exactly once" in out
    assert out.splitlines()[-1].endswith("7 error(s)")


def test_cli_cards_validate_not_json(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    assert cli(["rules", "cards", "validate", str(bad)]) == 2
    assert "not JSON (line 1" in capsys.readouterr().out


def test_a_catalogue_that_fails_validation_cannot_start_a_game():
    cat = json.load(open(CARDS))
    cat["movement"][0]["icon"] = "beak"
    from rules.dodo_dash import SetupError

    with pytest.raises(SetupError, match="icon must be one of"):
        new_game(players=["A", "B", "C"], cards=cat)
