"""The demo through the live-table session (``tableref serve --demo``): calls come from
``session.DinoDunkSession`` into the record through TableLink; the fallback path and its label."""

import time

import pytest

from webui.demo_session import LABEL_SESSION, LABEL_TRUTH, SessionDemoTable, start_demo


def _wait(pred, timeout):
    end = time.time() + timeout
    while time.time() < end:
        out = pred()
        if out:
            return out
        time.sleep(0.3)
    return None


def test_session_demo_records_the_sessions_calls(app, client):
    demo = SessionDemoTable(app, seed=7, pace_s=0.05, fps=60, auto_confirm_s=0.5, hold_s=0.2, render_every=4).start()
    try:
        def enough():
            if not demo.match_id:
                return None
            rows = client.get(f"/api/matches/{demo.match_id}/log").get_json()["rows"]
            calls = [r for r in rows if r["kind"] == "call"]
            return rows if len(calls) >= 4 else None

        rows = _wait(enough, 120)
        assert rows, f"the session demo made no calls: {demo.status}"
        calls = [r for r in rows if r["kind"] == "call"]
        assert all(r["actor"] == "referee (live-table session)" for r in calls)
        assert any(r["data"]["verdict"]["evidence"]["frames"] and r["data"]["verdict"]["evidence"]["ghost"] for r in calls)
        facts = [r for r in rows if r["kind"] == "fact" and r["data"].get("call")]
        assert facts and {f["data"]["call"] for f in facts} <= {c["data"]["id"] for c in calls}
        idents = [r for r in rows if r["kind"] == "identity"]
        assert len(idents) >= 10 and all(isinstance(r["data"]["track"], int) for r in idents)
        info = client.get("/api/frame").get_json()
        assert info["demo"]["path"] == "session" and info["demo"]["label"] == LABEL_SESSION
        assert any(p["track_id"] >= 0 for p in info["pieces"])
        view = client.get(f"/api/matches/{demo.match_id}").get_json()
        assert view["problems"] == [] and len(view["identities"]) >= 10
    finally:
        demo.stop()
    assert not demo.status.startswith("stopped"), demo.status


def test_fallback_when_the_session_is_not_usable(app, client, monkeypatch):
    from webui import demo_session

    monkeypatch.setattr(demo_session, "session_usable", lambda: (False, "session package not usable (ImportError: x)"))
    demo = start_demo(app, "auto", seed=7, pace_s=0.1, auto_confirm_s=0.5)
    try:
        from webui.demo import DemoTable

        assert isinstance(demo, DemoTable)
        info = client.get("/api/frame").get_json()["demo"]
        assert info == {"path": "truth", "label": LABEL_TRUTH, "why": "session package not usable (ImportError: x)"}
    finally:
        demo.stop()
    with pytest.raises(RuntimeError, match="not usable"):
        start_demo(app, "session")


def test_resume_keeps_the_truth_path(app, client):
    demo = start_demo(app, "auto", seed=7, pace_s=0.1, auto_confirm_s=0.5, new_match=False)
    try:
        assert client.get("/api/frame").get_json()["demo"]["why"].startswith("--resume")
    finally:
        demo.stop()


def test_session_demo_with_vision_detect_in_the_loop(app, client):
    from webui.demo_session import LABEL_SESSION_VISION

    demo = SessionDemoTable(app, seed=7, pace_s=0.05, fps=60, auto_confirm_s=0.3, hold_s=0.3, detector="vision").start()
    try:
        def called():
            if not demo.match_id:
                return None
            rows = client.get(f"/api/matches/{demo.match_id}/log").get_json()["rows"]
            return rows if sum(r["kind"] == "call" for r in rows) >= 2 else None

        rows = _wait(called, 150)
        assert rows, f"no calls with vision.detect in the loop: {demo.status}"
        assert client.get("/api/frame").get_json()["demo"]["label"] == LABEL_SESSION_VISION
        assert sum(r["kind"] == "identity" for r in rows) >= 8  # the players named what the detector found
    finally:
        demo.stop()
    assert not demo.status.startswith("stopped"), demo.status


def test_unknown_demo_detector_is_refused(app):
    with pytest.raises(ValueError, match="oracle or vision"):
        SessionDemoTable(app, detector="magic")
