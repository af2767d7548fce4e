"""The seam a table session uses: frames reach /video.mjpg and /api/frame, calls and facts reach the
record through the same functions as the API."""

from webui.link import TableLink

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 32 + b"\xff\xd9"


def test_link_frames_calls_and_facts(app, client, started):
    link = TableLink(app, actor="live session")
    try:
        pieces = [{"xy": [10.0, 20.0], "radius": 19.0, "kind": "disc-medium", "attributes": {"team": "home"}}]
        link.frame(JPEG, pieces=pieces, mat_to_image=[[1, 0, 0], [0, 1, 0], [0, 0, 1]], size=(640, 480), source="test")
        info = client.get("/api/frame").get_json()
        assert info["live"] and info["pieces"] == pieces and info["size"] == [640, 480]
        body = next(app.extensions["tableref.frames"].mjpeg(idle_timeout=0.5))
        assert body.startswith(b"--tablerefframe") and JPEG in body

        game, pending = link.game_copy()
        a = game.action_to_dict(game.legal_actions()[0])
        eid = link.evidence(JPEG)
        r = link.call({"question": "Is it?", "answer": "too_close", "proposed_action": a, "evidence_images": [],
                       "evidence": {"frames": [eid]}})
        assert r["status"] == "pending"
        link.decide(r["id"], "confirm", "judge", "clear on replay")
        rows = client.get(f"/api/matches/{started}/log").get_json()["rows"]
        assert [(x["kind"], x["actor"]) for x in rows] == [("call", "live session"), ("decision", "judge"), ("fact", "judge")]
    finally:
        link.close()


def test_a_session_can_follow_the_record(app, client, started):
    link = TableLink(app)
    try:
        game, _ = link.game_copy()
        seq = 0
        a = client.get(f"/api/matches/{started}").get_json()["legal"][0]
        client.post(f"/api/matches/{started}/actions", json={"action": a, "actor": "web"})
        rows = link.rows_since(seq)
        assert [(r["kind"], r["actor"], r["data"]["action"]) for r in rows] == [("action", "web", a)]
        for r in rows:  # the session applies them to its own copy
            game.push(game.action_from_dict(r["data"]["action"]))
        assert game.to_json() == link.game_copy()[0].to_json()
        assert link.rows_since(rows[-1]["seq"]) == []
    finally:
        link.close()
