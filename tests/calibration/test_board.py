"""Board definitions: every shipped board validates; broken copies fail naming file, key and problem."""

import copy

import pytest
import yaml

from calibration.board import BoardError, list_boards, load_board, parse_board


def test_every_shipped_board_validates():
    refs = list_boards()
    assert {"dino-dunk/tropic-turf", "dino-dunk/crater-court", "dodo-dash/dodorado-jungle",
            "dodo-dash/dodorado-temple", "morris/waterfall", "dogo-dash/table", "grid/plain-grid"} <= set(refs)
    for ref in refs:
        board = load_board(ref)
        assert board.ref == ref
        assert board.markers is not None and len(board.markers.items) >= 4


def test_dino_dunk_has_what_the_rules_need():
    b = load_board("dino-dunk/tropic-turf")
    for team in ("home", "away"):
        zone = b.region(f"scoring-zone-{team}")
        three = b.region(f"three-point-{team}")
        assert three.geometry.contains(zone.geometry)
        assert f"foul-line-{team}" in b.lines and f"baseline-{team}" in b.lines
        assert b.region(f"half-{team}").geometry.area == pytest.approx(914 * 610 / 2)
    # three-point area is clipped to the mat
    assert b.region("three-point-home").geometry.bounds[0] == pytest.approx(0.0)
    assert b.regions_of_kind("water") and b.regions_of_kind("snow")
    # fouled dinosaurs come back along a sideline in water terrain: water must touch a sideline
    assert any(r.geometry.bounds[1] <= 0.5 or r.geometry.bounds[3] >= 609.5 for r in b.regions_of_kind("water"))


def test_dodo_dash_tracks():
    for name, n_traps in (("dodorado-jungle", (7, 5)), ("dodorado-temple", None)):
        b = load_board(f"dodo-dash/{name}")
        outer, inner = b.tracks["outer"], b.tracks["inner"]
        if n_traps:
            assert (len(outer.traps), len(inner.traps)) == n_traps
        assert len(outer.start) == 3 and outer.start[0] == len(outer.hexes) - 1
    temple = load_board("dodo-dash/dodorado-temple")
    assert temple.tracks["outer"].drift and temple.tracks["outer"].charms
    assert len(temple.tracks["outer"].bases) == 4 and len(temple.tracks["inner"].bases) == 3


def test_morris_and_dogo():
    m = load_board("morris/waterfall")
    assert m.stones[-1].colour == "multi"
    assert {s.colour for s in m.stones[:-1]} == {"blue", "purple", "red", "yellow"}
    d = load_board("dogo-dash/table")
    assert sorted(d.seats) == [2, 3, 4, 5] and all(len(v) == k for k, v in d.seats.items())


def test_grid_board_makes_cells():
    g = load_board("grid/plain-grid")
    assert len([r for r in g.regions.values() if r.kind == "cell"]) == 64
    assert g.region("cell-7-7").geometry.bounds == (350.0, 350.0, 400.0, 400.0)


def _raw(ref):
    return yaml.safe_load(open(load_board(ref).path))


# (board, mutation, words the message must contain)
BROKEN = [
    ("dino-dunk/tropic-turf", lambda d: d["regions"]["scoring-zone-home"].update(circle=[95, 305, -5]), ["regions.scoring-zone-home.circle", "r > 0"]),
    ("dino-dunk/tropic-turf", lambda d: d["regions"]["half-home"].update(rect=[0, 0, 2000, 610]), ["regions.half-home", "inside the mat"]),
    ("dino-dunk/crater-court", lambda d: d["markers"]["items"][1].update(id=99), ["markers.items[1].id", "0..49"]),
    ("dino-dunk/crater-court", lambda d: d["markers"]["items"][1].update(id=4), ["markers.items[1].id", "used once"]),
    ("dodo-dash/dodorado-jungle", lambda d: d["tracks"]["outer"]["hexes"].pop(10), ["tracks.outer.hexes[10]", "gap"]),
    ("dodo-dash/dodorado-temple", lambda d: d["tracks"]["outer"]["drift"][0].update(rolls=[3, 9]), ["drift[0].rolls"]),
    ("morris/waterfall", lambda d: d["stones"][-1].update(colour="red"), ["stones[16].colour", "multi"]),
    ("dogo-dash/table", lambda d: d["seats"][3].append("deck"), ["seats.3", "3 region names"]),
    ("grid/plain-grid", lambda d: d.update(size_mm=[400, "wide"]), ["size_mm", "two numbers"]),
    ("grid/plain-grid", lambda d: d.update(colour="blue"), ["colour", "one of the keys"]),
]


@pytest.mark.parametrize("ref,mutate,words", BROKEN)
def test_broken_copy_names_the_problem(ref, mutate, words):
    data = copy.deepcopy(_raw(ref))
    mutate(data)
    with pytest.raises(BoardError) as info:
        parse_board(data, f"broken-{ref.replace('/', '-')}.yaml")
    message = str(info.value)
    assert message.startswith(f"broken-{ref.replace('/', '-')}.yaml: ")
    for w in words:
        assert w in message


def test_every_board_has_a_broken_copy_test():
    assert {r for r, _, _ in BROKEN} == set(list_boards())


def test_invalid_yaml_and_missing_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: [unclosed\n")
    with pytest.raises(BoardError, match="bad.yaml.*not valid YAML"):
        load_board(bad)
    with pytest.raises(BoardError, match="no such board file"):
        load_board(tmp_path / "missing.yaml")
    with pytest.raises(BoardError, match="unknown board"):
        load_board("dino-dunk/nowhere")
