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
        if key == "throws":
            assert sum(sum(v.values()) for v in f["by_kind"].values()) == scenes
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


def test_fouls_an_open_carrier_contact_is_asked_only_when_the_defence_flicked(monkeypatch):
    """The foul figure counts a carrier contact left to a person as "asked" only when a foul was
    possible (the defence flicked); after an offence flick the open question is a stun, and the
    foul call ("no foul") is right."""
    from types import SimpleNamespace

    import session.bench as bench
    from sim.suites import make_scenario

    sides = {}
    for i in range(40):
        meta = make_scenario("dino-dunk/fouls", i, 0).meta
        sides.setdefault(meta["actor"].split(":")[0] == meta["offense"], i)
        if len(sides) == 2:
            break
    assert len(sides) == 2

    def fake_play(scn, board, make_session, **kw):
        ruling = SimpleNamespace(pending={"carrier_struck": {}}, facts={})
        flick = SimpleNamespace(ruling=ruling, contacts=[], notes=[])
        return SimpleNamespace(flicks=[flick]), None, [0.001], 0.05

    monkeypatch.setattr(bench, "play_scene", fake_play)
    monkeypatch.setattr(bench, "_identities_kept", lambda s, d: True)
    for offence_flicked, index in sides.items():
        f = bench.SuiteFigures("dino-dunk/fouls")
        bench.bench_fouls(1, 0, index, f)
        if offence_flicked:
            assert (f.right, f.asked, f.other_asked) == (1, 0, 1)
        else:
            assert (f.right, f.asked, f.other_asked) == (0, 1, 0)
