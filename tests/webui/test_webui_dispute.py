"""Judge → reopen a decided call (a dispute): the log stays append-only, the call goes back to the
queue, and the state is replayed with its newest decision."""

import pytest

from webui.record import fresh_replay
from webui.store import Store


class _Srv:  # the browser tests' helpers take an app with a ``client``
    def __init__(self, client):
        self.client = client


def _shot(client):
    from tests.webui.test_webui_browser import dino_dunk_match, shoot

    srv = _Srv(client)
    mid, carrier = dino_dunk_match(srv)
    made = shoot(srv, mid, carrier)
    return mid, made, {**made, "overlaps_zone": False}


def _verdict(answer, proposed, alternative, margin=3.0):
    return {"question": "Does the ball overlap scoring-zone-away?", "answer": answer, "measured_mm": 12.5,
            "threshold_mm": 9.5, "margin_mm": margin, "sigma_mm": 1.0, "proposed_action": proposed,
            "alternative_action": alternative}


def _score(client, mid):
    return client.get(f"/api/matches/{mid}").get_json()["state"]["score"]["home"]


def test_a_confirmed_call_disputed_and_overridden_replays_with_the_newest_decision(app, client):
    mid, made, missed = _shot(client)
    cid = client.post("/api/calls", json=_verdict("too_close", made, missed, -0.2)).get_json()["id"]
    r = client.post(f"/api/calls/{cid}/decision", json={"decision": "confirm", "who": "table", "reason": "edge on"})
    assert r.status_code == 201 and _score(client, mid) == 2
    rows_before = client.get(f"/api/matches/{mid}/log").get_json()["rows"]

    r = client.post(f"/api/calls/{cid}/dispute", json={"who": "away captain", "reason": "the replay shows a gap"})
    assert r.status_code == 201 and r.get_json() == {"id": cid, "status": "disputed", "was": "confirmed", "match": mid}
    view = client.get(f"/api/matches/{mid}").get_json()
    assert [c["id"] for c in view["pending"]] == [cid] and view["pending"][0]["status"] == "disputed"
    assert view["pending"][0]["disputes"][0]["reason"] == "the replay shows a gap"
    assert view["state"]["score"]["home"] == 2  # the old decision stands until a new one

    r = client.post(f"/api/calls/{cid}/decision", json={"decision": "override", "who": "Ana (head judge)",
                                                         "reason": "gap of 1 mm on the replay"})
    assert r.status_code == 201, r.get_json()
    assert _score(client, mid) == 0
    call = client.get(f"/api/calls/{cid}").get_json()
    assert call["status"] == "overridden" and call["decision"]["who"] == "Ana (head judge)"
    assert [h["status"] for h in call["history"]] == ["confirmed"]
    rows_after = client.get(f"/api/matches/{mid}/log").get_json()["rows"]
    assert rows_after[:len(rows_before)] == rows_before  # nothing rewritten
    assert [r["kind"] for r in rows_after[len(rows_before):]] == ["dispute", "override", "fact"]
    # a fresh replay (a restart) agrees with the cached one
    store = Store(app.config["DATA_DIR"])
    try:
        assert fresh_replay(store, mid).game.state == client.get(f"/api/matches/{mid}").get_json()["state"]
    finally:
        store.close()


def test_an_automatically_applied_call_can_be_disputed_and_dismissed(client):
    mid, made, missed = _shot(client)
    r = client.post("/api/calls", json=_verdict("yes", made, missed))
    cid = r.get_json()["id"]
    assert r.get_json()["status"] == "applied" and _score(client, mid) == 2
    assert client.post(f"/api/calls/{cid}/dispute", json={"who": "away", "reason": "ball was lifted"}).status_code == 201
    r = client.post(f"/api/calls/{cid}/decision", json={"decision": "dismiss", "who": "judge", "reason": "no valid shot"})
    assert r.status_code == 201
    view = client.get(f"/api/matches/{mid}").get_json()
    assert view["state"]["score"]["home"] == 0 and not view["pending"]
    # the shot's fact slot is empty again: the game waits for the shot result
    assert any(a["type"] == "ShotResult" for a in view["legal"])


def test_dispute_twice_the_latest_decision_wins(client):
    mid, made, missed = _shot(client)
    cid = client.post("/api/calls", json=_verdict("too_close", made, missed, -0.2)).get_json()["id"]
    client.post(f"/api/calls/{cid}/decision", json={"decision": "confirm", "who": "t", "reason": "r"})
    for decision, score in (("override", 0), ("confirm", 2), ("override", 0)):
        assert client.post(f"/api/calls/{cid}/dispute", json={"who": "x", "reason": "again"}).status_code == 201
        r = client.post(f"/api/calls/{cid}/decision", json={"decision": decision, "who": "j", "reason": "look"})
        assert r.status_code == 201, r.get_json()
        assert _score(client, mid) == score


@pytest.mark.parametrize("body, status, words", [
    ({"who": "x"}, 400, "reason"),                              # no reason
    ({"reason": "looks wrong"}, 400, "who"),                    # nobody
    ({"who": "x", "reason": 5}, 400, "reason"),                 # not text
    ({"who": "x", "reason": "r" * 600}, 400, "reason"),         # too long
])
def test_bad_disputes_are_400(client, body, status, words):
    mid, made, missed = _shot(client)
    cid = client.post("/api/calls", json=_verdict("yes", made, missed)).get_json()["id"]
    r = client.post(f"/api/calls/{cid}/dispute", json=body)
    assert r.status_code == status and words in r.get_json()["error"]


def test_dispute_needs_a_decided_call_and_a_known_one(client):
    mid, made, missed = _shot(client)
    cid = client.post("/api/calls", json=_verdict("too_close", made, missed, -0.2)).get_json()["id"]
    r = client.post(f"/api/calls/{cid}/dispute", json={"who": "x", "reason": "r"})
    assert r.status_code == 409 and "already waiting" in r.get_json()["error"]
    assert client.post("/api/calls/0123456789abcdef/dispute", json={"who": "x", "reason": "r"}).status_code == 404
    assert client.post("/api/calls/..%2f..%2fx/dispute", json={"who": "x", "reason": "r"}).status_code == 404
    client.post(f"/api/calls/{cid}/decision", json={"decision": "confirm", "who": "t", "reason": "r"})
    r = client.post(f"/api/calls/{cid}/decision", json={"decision": "override", "who": "t", "reason": "r"})
    assert r.status_code == 409 and "dispute it" in r.get_json()["error"]
    assert client.post(f"/api/calls/{cid}/dispute", json={"who": "x", "reason": "r"}).status_code == 201
    r = client.post(f"/api/calls/{cid}/decision", json={"decision": "confirm", "who": "t"})
    assert r.status_code == 400 and "needs the reason" in r.get_json()["error"]


def test_a_new_decision_that_later_rows_cannot_follow_is_409(client):
    mid, made, missed = _shot(client)
    cid = client.post("/api/calls", json=_verdict("yes", made, missed)).get_json()["id"]
    # play on after the made shot
    legal = client.get(f"/api/matches/{mid}").get_json()["legal"]
    assert client.post(f"/api/matches/{mid}/actions", json={"action": legal[0]}).status_code == 201
    rows = len(client.get(f"/api/matches/{mid}/log").get_json()["rows"])
    client.post(f"/api/calls/{cid}/dispute", json={"who": "x", "reason": "r"})
    r = client.post(f"/api/calls/{cid}/decision", json={"decision": "dismiss", "who": "j", "reason": "no shot"})
    assert r.status_code == 409 and "undo the actions after the call" in r.get_json()["error"]
    assert len(client.get(f"/api/matches/{mid}/log").get_json()["rows"]) == rows + 1  # only the dispute
