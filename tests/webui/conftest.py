"""Fixtures in the Flask tutorial's shape: ``app`` (on a temporary data dir), ``client``, ``runner``;
plus ``started`` (a Dogo Dash match on the table) and small helpers to post JSON."""

import pytest

from webui import create_app


@pytest.fixture
def app(tmp_path):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "SSE_HEARTBEAT_S": 0.2})
    yield app
    app.extensions["tableref.frames"].close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def started(client):
    """A two-player Dogo Dash match (the deck shuffled with seed 0) on the table; returns its id."""
    r = client.post("/api/matches", json={"game": "dogo-dash", "board": "dogo-dash/table", "setup": {"players": 2, "seed": 0}})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def first_legal(client, match_id, **match):
    """The first legal action whose fields include ``match``."""
    legal = client.get(f"/api/matches/{match_id}").get_json()["legal"]
    for a in legal:
        if all(a.get(k) == v for k, v in match.items()):
            return a
    raise AssertionError(f"no legal action like {match} in {legal}")
