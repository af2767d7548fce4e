"""The shelter/path layout file: defaults that load, user corrections, and clear errors."""

import json

import pytest

from rules.morris import DEFAULT_LAYOUT_PATH, LayoutError, load_layout, new_game

GOOD_SHELTERS = [{"slots": ["blue", "multi"], "back": 2}] * 10


def test_default_layout_file_loads_and_matches_the_rulebook():
    lay = load_layout()
    assert len(lay["shelters"]) == 10
    assert {s["back"] for s in lay["shelters"]} <= {1, 2, 3}
    assert lay["path"][-1] == "multi" and "multi" not in lay["path"][:-1]
    assert any("multi" in s["slots"] for s in lay["shelters"])  # "some shelters have a multicolour slot"
    with open(DEFAULT_LAYOUT_PATH, encoding="utf-8") as fh:
        assert "about" in json.load(fh)  # the defaults say what was guessed


def test_default_layout_has_a_slot_for_every_egg():
    lay = load_layout()
    slots = [c for s in lay["shelters"] for c in s["slots"]]
    assert len(slots) == 28
    for colour in ("blue", "purple", "red", "yellow"):
        assert slots.count(colour) + slots.count("multi") >= 7


def test_layout_from_a_user_file_and_overrides(tmp_path):
    f = tmp_path / "mine.json"
    f.write_text(json.dumps({"shelters": GOOD_SHELTERS, "path": ["red", "multi"]}))
    g = new_game(layout=str(f))
    assert g.state["path"] == ["red", "multi"]
    assert g.state["shelters"][0]["slots"] == ["blue", "multi"]
    g = new_game(layout=str(f), path=["blue", "blue", "multi"])
    assert g.state["path"] == ["blue", "blue", "multi"]


@pytest.mark.parametrize("shelters, path, message", [
    (GOOD_SHELTERS[:9], None, "10 shelter"),                                    # wrong count
    ([{"slots": ["blue"], "back": 4}] * 10, None, "1, 2 or 3"),                 # back value
    ([{"slots": ["green"], "back": 1}] * 10, None, "slot colour"),               # unknown colour
    ([{"slots": [], "back": 1}] * 10, None, "egg slots"),                       # empty shelter
    ([{"back": 1}] * 10, None, "a shelter is"),                                  # malformed
    (None, ["red", "blue"], "last stone"),                                      # path not ending in multi
    (None, ["red", "multi", "blue", "multi"], "only the last"),                 # multi in the middle
    (None, ["green", "multi"], "colour"),                                       # unknown stone colour
    (None, [], "non-empty"),                                                    # empty path
])
def test_bad_layouts_are_refused(shelters, path, message):
    with pytest.raises(LayoutError, match=message):
        new_game(shelters=shelters, path=path)


def test_unreadable_layout_file(tmp_path):
    with pytest.raises(LayoutError, match="cannot read"):
        new_game(layout=str(tmp_path / "missing.json"))
