"""The example match logs replay through rules.core.replay and the CLI."""

import glob
import os

import pytest

from cli.main import main
from rules.core import ReplayError, replay

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "rules", "dogo_dash", "examples", "*.jsonl")))


def test_there_are_examples():
    assert EXAMPLES


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_replays(path, capsys):
    with open(path, encoding="utf-8") as fh:
        steps = list(replay("dogo-dash", fh.readlines()))
    assert len(steps) > 1
    assert main(["rules", "replay", "dogo-dash", path]) == 0
    out = capsys.readouterr().out
    assert "outcome:" in out and "in progress" not in out  # the example is a whole game


def test_a_bad_line_names_its_number():
    lines = ['{"setup": {"players": 2, "seed": 1}}', '{"type": "DogoDash", "seat": 0}']
    with pytest.raises(ReplayError, match="line 2"):
        list(replay("dogo-dash", lines))
