"""``tableref bench live`` runs end to end on a few scenes (the figures themselves come from the
full run; see the report)."""

from __future__ import annotations

from session.bench import bench_live, format_report


def test_bench_live_on_a_few_scenes():
    r = bench_live(throws=3, fouls=3, seed=7, start=10000, game=False)
    assert r["detector"].startswith("oracle-with-noise")
    for key, scenes in (("throws", 3), ("fouls", 3)):
        f = r[key]
        assert f["scenes"] == scenes == f["right"] + f["asked"] + f["wrong"]
        assert f["identity_flicks"] == scenes and f["frames"] > 30 * scenes
        assert 0 < f["step_ms_mean"] < 33.3
    text = format_report(r)
    assert "dodo-dash/throws" in text and "dino-dunk/fouls" in text and "target 99.5%" in text


def test_cli_registers_bench_live(capsys):
    from cli.main import main

    assert main(["bench", "live", "--throws", "1", "--fouls", "1", "--no-game", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"throws"' in out and '"fouls"' in out
    assert main(["bench", "live", "--throws", "-1"]) == 2
