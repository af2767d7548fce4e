"""The record: append-only (enforced by SQLite), the state replayed from it equals the state built by
pushing the same actions on the engine directly, and a server killed with SIGKILL mid-match resumes
exactly where it was."""

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request

import pytest

from rules.core import engine_for
from webui.store import Store, replay_rows

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_log_rows_cannot_be_updated_or_deleted_alone(tmp_path):
    store = Store(tmp_path)
    m = store.create_match("morris", "morris/waterfall", {})
    store.append(m["id"], "action", {"action": {"type": "LoadEggs", "colours": ["blue"]}}, "P1")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.db.execute("UPDATE log SET data = '{}'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.db.execute("DELETE FROM log")
    assert len(store.rows(m["id"])) == 1
    store.delete_match(m["id"])  # the whole match may go, on purpose
    assert store.matches() == []


def test_replay_equals_pushing_on_the_engine(tmp_path):
    """Play a Dogo Dash match through the record with an undo in the middle; the replayed state is the
    engine's own state after the same pushes and pop."""
    store = Store(tmp_path)
    m = store.create_match("dogo-dash", "dogo-dash/table", {"players": 2, "seed": 3})
    direct = engine_for("dogo-dash").new_game(players=2, seed=3)
    for i in range(12):
        legal = direct.legal_actions()
        if not legal:
            break
        a = legal[i % len(legal)]
        direct.push(a)
        store.append(m["id"], "action", {"action": direct.action_to_dict(a)})
        if i == 5:
            direct.pop()
            store.append(m["id"], "undo", {"reason": "test"})
    rep = replay_rows(store.match(m["id"]), store.rows(m["id"]))
    assert rep.game.to_json() == direct.to_json() and rep.problems == []


def test_a_row_that_no_longer_replays_is_reported_not_fatal(tmp_path):
    store = Store(tmp_path)
    m = store.create_match("morris", "morris/waterfall", {})
    store.append(m["id"], "action", {"action": {"type": "Nonsense"}})
    store.append(m["id"], "action", {"action": {"type": "LoadEggs", "colours": ["blue"]}})
    rep = replay_rows(store.match(m["id"]), store.rows(m["id"]))
    assert [p["seq"] for p in rep.problems] == [1] and rep.game.state["toucan"] == ["blue"]


def test_referee_verdict_dict_is_accepted_as_is(client, started):
    from referee.core import Circle, Verdict

    v = Verdict("Does the ball overlap the zone?", "too_close", value=9.7, threshold=9.5, margin=-0.2, sigma=1.5, k=3.0,
                evidence=(Circle(1.0, 2.0, 9.5, "ball"),))
    r = client.post("/api/calls", json=v.to_dict())
    assert r.status_code == 201 and r.get_json()["status"] == "pending"
    call = client.get(f"/api/calls/{r.get_json()['id']}").get_json()
    assert call["verdict"]["margin_mm"] == pytest.approx(-0.2) and call["verdict"]["sigma_mm"] == 1.5
    assert call["verdict"]["evidence"]["shapes"][0]["type"] == "circle"
    assert call["verdict"]["referee"]["leaning"] == "no"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(data, port):
    env = {**os.environ, "PYTHONPATH": ROOT}
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--data", str(data)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/current", timeout=1).read()
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("server did not start: " + proc.stdout.read().decode()[-2000:])


def _call(port, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


@pytest.mark.slow
def test_kill_9_mid_match_loses_nothing(tmp_path):
    data, port = tmp_path / "data", _free_port()
    proc = _start(data, port)
    try:
        mid = _call(port, "POST", "/api/matches", {"game": "morris", "board": "morris/waterfall", "setup": {"players": 2}})["id"]
        for _ in range(7):
            legal = _call(port, "GET", f"/api/matches/{mid}")["legal"]
            _call(port, "POST", f"/api/matches/{mid}/actions", {"action": legal[-1], "actor": "P"})
        before = _call(port, "GET", "/api/current")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    proc = _start(data, port)
    try:
        after = _call(port, "GET", "/api/current")
        assert after["match"]["id"] == mid
        assert after["state"] == before["state"] and after["seq"] == before["seq"]
        assert after["legal"] == before["legal"]
        # and play continues from there
        _call(port, "POST", f"/api/matches/{mid}/actions", {"action": after["legal"][0]})
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
