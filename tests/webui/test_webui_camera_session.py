"""The live-table session on a non-demo source (``tableref serve --source sim://dino-dunk?seed=3``):
registration and the empty mat through the API, then ``POST /api/session/start`` runs
vision.detect through the session on the feed's newest frames; the 4xx cases say what is missing."""

from __future__ import annotations

import time

import pytest

URL = "sim://dino-dunk?seed=3&size=640x480&realtime=1&fps=15&turns=40"
BOARD = "dino-dunk/crater-court"  # the default board of a sim dino-dunk source


def _publish_empty_mat(app):
    """The source's own view of the mat with no pieces on it (what a person would capture before
    putting the discs down), published as the latest frame."""
    import cv2

    from calibration.board import load_board
    from sim.export import render_seed, renderer, view_for
    from sim.live import parse_sim_url
    from sim.scene import Scene

    spec = parse_sim_url(URL + "&render=1")
    board = load_board(spec.board)
    rend = renderer()
    camera, style = view_for(rend, board, spec.seed, spec.clean, spec.size)
    image = rend.render_scene(board, Scene("dino-dunk", board.ref, []), camera, style, render_seed(spec.seed, 0)).image
    app.extensions["tableref.frames"].publish(cv2.imencode(".jpg", image)[1].tobytes())
    return spec


def _start_match(client):
    r = client.post("/api/matches", json={"game": "dino-dunk", "board": BOARD})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def test_session_start_says_what_is_missing(app, client):
    app.config["SOURCE"] = URL
    assert client.get("/api/session").get_json()["running"] is False
    r = client.post("/api/session/start", json={})
    assert r.status_code == 409 and "match" in r.get_json()["error"]
    _start_match(client)
    r = client.post("/api/session/start", json={})
    assert r.status_code == 409 and "register the mat first" in r.get_json()["error"]
    _publish_empty_mat(app)
    assert client.post("/api/registration", json={"board": BOARD}).get_json()["ok"]
    r = client.post("/api/session/start", json={})
    assert r.status_code == 409 and "capture the empty mat first" in r.get_json()["error"]
    assert client.post("/api/session/start", json={"method": "magic"}).status_code == 400
    assert client.post("/api/session/stop", json={}).get_json()["running"] is False


def test_session_start_refuses_on_the_demo(app, client):
    app.extensions["tableref.demo"] = {"path": "session", "label": "demo", "why": ""}
    r = client.post("/api/session/start", json={})
    assert r.status_code == 409 and "demo" in r.get_json()["error"]


def test_camera_session_runs_vision_detect_on_the_source(app, client):
    from webui.sources import SimVideo

    app.config["SOURCE"] = URL
    mid = _start_match(client)
    _publish_empty_mat(app)
    reg = client.post("/api/registration", json={"board": BOARD}).get_json()
    assert reg["ok"], reg
    assert client.post("/api/empty-mat", json={"board": BOARD}).status_code == 201
    # the user's taught pieces: the active profile (in the dashboard's data folder) reaches the detector
    import json
    from pathlib import Path

    pdir = Path(app.config["DATA_DIR"]) / "profiles" / "my-discs"
    pdir.mkdir(parents=True)
    (pdir / "profile.json").write_text(json.dumps({"profile": "my-discs", "tasks": {}}))
    assert client.put("/api/profile", json={"profile": "my-discs"}).status_code == 200
    video = SimVideo(app, URL).start()
    try:
        r = client.post("/api/session/start", json={"method": "classical"})
        assert r.status_code == 201, r.get_json()
        assert r.get_json()["match"] == mid
        assert app.extensions["tableref.session"].detector.detector.profile == str(pdir)
        assert app.extensions["tableref.session"] is not None  # identities reach the session
        assert client.post("/api/session/start", json={}).status_code == 409  # already running
        deadline = time.time() + 40
        st = {}
        while time.time() < deadline:
            st = client.get("/api/session").get_json()
            if st["frames_processed"] >= 10 or st["last_error"]:
                break
            time.sleep(0.1)
        assert st["running"] and st["frames_processed"] >= 10 and st["last_error"] is None, st
        session = app.extensions["tableref.session"]
        obs = session._last_obs
        assert obs is not None and len(obs) >= 4  # the discs on the table, found by vision.detect
        # the simulated players flick: the session sees the motion start and settle (no call is made:
        # the sim's own game is not the match's, and nobody named the discs or pushed an Activate)
        while time.time() < deadline and not {"started", "settled"} <= {e.get("state") for e in session.events}:
            time.sleep(0.1)
        assert {"started", "settled"} <= {e.get("state") for e in session.events if e["kind"] == "motion"}
    finally:
        out = client.post("/api/session/stop", json={}).get_json()
        video.stop()
    assert out["running"] is False and out["frames_processed"] >= 10
    assert "tableref.session" not in app.extensions


@pytest.mark.parametrize("path", ["/api/session", "/api/session/start", "/api/session/stop"])
def test_session_routes_are_in_the_openapi_document(client, path):
    assert path in client.get("/api/openapi.json").get_json()["paths"]
