"""The JSON API through the Flask test client: matches, actions, undo, calls, decisions, evidence,
boards, the OpenAPI document, and bad input always giving a 4xx with a message."""

import io
import zipfile

import pytest

from tests.webui.conftest import first_legal

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64 + b"\xff\xd9"


def test_start_match_makes_it_current(client, started):
    cur = client.get("/api/current").get_json()
    assert cur["match"]["id"] == started and cur["game"] == "dogo-dash"
    assert cur["legal"] and cur["state"]["phase"]
    listed = client.get("/api/matches").get_json()
    assert listed["current"] == started and [m["id"] for m in listed["matches"]] == [started]


def test_action_is_validated_appended_and_replayed(client, started):
    action = first_legal(client, started, type="Choose", seat=0)
    r = client.post(f"/api/matches/{started}/actions", json={"action": action, "actor": "P1"})
    assert r.status_code == 201
    v = r.get_json()
    assert v["events"][-1]["action"] == action and v["events"][-1]["actor"] == "P1"
    log = client.get(f"/api/matches/{started}/log").get_json()["rows"]
    assert [row["kind"] for row in log] == ["action"] and log[0]["data"]["action"] == action


def test_undo_is_a_new_row_not_a_rewrite(client, started):
    before = client.get(f"/api/matches/{started}").get_json()["state"]
    action = first_legal(client, started, type="Choose", seat=0)
    client.post(f"/api/matches/{started}/actions", json={"action": action})
    r = client.post(f"/api/matches/{started}/undo", json={"actor": "judge", "reason": "misclick"})
    assert r.status_code == 201
    assert r.get_json()["state"] == before
    kinds = [row["kind"] for row in client.get(f"/api/matches/{started}/log").get_json()["rows"]]
    assert kinds == ["action", "undo"]
    assert client.post(f"/api/matches/{started}/undo", json={}).status_code == 409  # nothing left


@pytest.mark.parametrize("payload, status, words", [
    ({"action": {"type": "Nope"}}, 400, "unknown action type"),            # not an action of this game
    ({"action": {"type": "Choose", "seat": 0, "colour": "x"}}, 400, "no field"),  # wrong field
    ({"action": "Choose"}, 400, "expected an object"),                      # not an object
    ({"action": {"type": "Choose", "seat": 0, "card": "unicorn"}}, 409, "illegal"),  # legal type, illegal now
    ({"action": {"type": "Choose", "seat": 0, "card": "cat"}, "kind": "magic"}, 400, "kind"),  # bad kind
])
def test_bad_actions_are_4xx_and_append_nothing(client, started, payload, status, words):
    r = client.post(f"/api/matches/{started}/actions", json=payload)
    assert r.status_code == status, r.get_json()
    assert words in r.get_json()["error"]
    assert client.get(f"/api/matches/{started}/log").get_json()["rows"] == []


@pytest.mark.parametrize("method, url, kwargs, status", [
    ("post", "/api/matches", {"json": {"game": "chess", "board": "x/y"}}, 400),          # unknown board
    ("post", "/api/matches", {"json": {"game": "chess", "board": "dogo-dash/table"}}, 400),  # unknown game
    ("post", "/api/matches", {"json": {"game": "morris", "board": "morris/waterfall", "setup": {"wings": 2}}}, 400),  # bad setup
    ("post", "/api/matches", {"json": ["not", "an", "object"]}, 400),                   # body not an object
    ("post", "/api/matches", {"data": "game=morris", "content_type": "application/x-www-form-urlencoded"}, 415),  # a form
    ("post", "/api/matches", {}, 415),                                                   # no body at all
    ("get", "/api/matches/../../etc/passwd", {}, 404),                                   # traversal
    ("get", "/api/matches/0123456789abcdef", {}, 404),                                   # unknown id
    ("get", "/api/matches/NOT-AN-ID", {}, 404),                                          # malformed id
    ("get", "/api/evidence/..%2f..%2fsecret", {}, 404),                                  # traversal in an id
    ("get", "/api/boards/dino-dunk/..", {}, 400),                                        # traversal in a board name
    ("get", "/api/boards/nogame/noboard", {}, 400),                                      # unknown board
    ("get", "/api/calls", {}, 404),                                                      # no match on the table
    ("post", "/api/calls/0123456789abcdef/decision", {"json": {"decision": "confirm", "who": "x"}}, 404),
    ("get", "/overlay?theme=neon", {}, 400),                                             # bad overlay option
    ("get", "/api/nothing-here", {}, 404),
])
def test_bad_requests_are_4xx_with_a_message(client, method, url, kwargs, status):
    r = getattr(client, method)(url, **kwargs)
    assert r.status_code == status, (r.status_code, r.data[:200])
    assert r.get_json()["error"]


def test_an_unexpected_error_is_a_json_500_without_traceback(app, client):
    @app.get("/boom")
    def boom():
        raise RuntimeError("secret internals")

    r = client.get("/boom")
    assert r.status_code == 500
    assert "RuntimeError" in r.get_json()["error"] and "secret" not in r.get_json()["error"]
    assert b"Traceback" not in r.data


def _verdict(**over):
    v = {"question": "Does the ball overlap the scoring zone?", "answer": "too_close", "measured_mm": 0.4,
         "threshold_mm": 0.0, "margin_mm": 0.4, "sigma_mm": 1.1, "evidence": {"frames": [], "shapes": []},
         "proposed_action": None}
    v.update(over)
    return v


def test_too_close_call_waits_and_confirm_applies_the_proposed_action(client, started):
    action = first_legal(client, started, type="Choose", seat=0)
    eid = client.post("/api/evidence", data=JPEG, content_type="image/jpeg").get_json()["id"]
    r = client.post("/api/calls", json=_verdict(proposed_action=action, evidence={"frames": [eid]}))
    assert r.status_code == 201 and r.get_json()["status"] == "pending"
    cid = r.get_json()["id"]
    cur = client.get("/api/current").get_json()
    assert [c["id"] for c in cur["pending"]] == [cid] and cur["pending"][0]["verdict"]["margin_mm"] == 0.4
    assert client.get(f"/api/evidence/{eid}").data == JPEG
    # a too-close call needs a reason and someone who decides
    assert client.post(f"/api/calls/{cid}/decision", json={"decision": "confirm", "who": "ref"}).status_code == 400
    assert client.post(f"/api/calls/{cid}/decision", json={"decision": "confirm", "reason": "x"}).status_code == 400
    r = client.post(f"/api/calls/{cid}/decision", json={"decision": "confirm", "who": "Ana (judge)", "reason": "ball edge touches"})
    assert r.status_code == 201 and r.get_json()["applied"] == action
    rows = client.get(f"/api/matches/{started}/log").get_json()["rows"]
    assert [row["kind"] for row in rows] == ["call", "decision", "fact"]
    assert rows[1]["actor"] == "Ana (judge)" and rows[1]["data"]["reason"] == "ball edge touches" and rows[1]["t"] > 0
    # decided once only
    assert client.post(f"/api/calls/{cid}/decision", json={"decision": "dismiss", "who": "x", "reason": "y"}).status_code == 409
    call = client.get(f"/api/calls/{cid}").get_json()
    assert call["status"] == "confirmed" and call["decision"]["who"] == "Ana (judge)"


def test_confident_call_is_applied_at_once(client, started):
    action = first_legal(client, started, type="Choose", seat=1)
    r = client.post("/api/calls", json={"verdict": _verdict(answer="yes", margin_mm=6.0, proposed_action=action)})
    assert r.get_json()["status"] == "applied"
    kinds = [row["kind"] for row in client.get(f"/api/matches/{started}/log").get_json()["rows"]]
    assert kinds == ["call", "fact"]


def test_override_applies_the_alternative(client, started):
    yes = first_legal(client, started, type="Choose", seat=0)
    no = [a for a in client.get(f"/api/matches/{started}").get_json()["legal"] if a["seat"] == 0 and a != yes][0]
    cid = client.post("/api/calls", json=_verdict(answer="yes", confidence=0.5, proposed_action=yes,
                                                   alternative_action=no)).get_json()["id"]
    r = client.post(f"/api/calls/{cid}/decision", json={"decision": "override", "who": "P2", "reason": "saw it"})
    assert r.status_code == 201 and r.get_json()["applied"] == no
    assert client.get(f"/api/calls/{cid}").get_json()["status"] == "overridden"


@pytest.mark.parametrize("verdict, words", [
    ({"answer": "yes"}, "question"),                                     # no question
    (_verdict(answer="maybe"), "answer"),                                # not yes/no/too_close
    (_verdict(margin_mm="3"), "margin_mm"),                              # a string for a number
    (_verdict(margin_mm=float("inf")), "margin_mm"),                     # not finite (sent as a huge number below)
    (_verdict(confidence=2), "confidence"),                              # outside 0..1
    (_verdict(evidence={"frames": ["../../etc/passwd"]}), "evidence"),   # not an evidence id
    (_verdict(evidence={"frames": ["0123456789abcdef0123456789abcdef"]}), "evidence"),  # unknown id
    (_verdict(proposed_action="Choose"), "proposed_action"),             # not an object
])
def test_bad_verdicts_are_400(client, started, verdict, words):
    if verdict.get("margin_mm") == float("inf"):
        verdict["margin_mm"] = 1e999 if False else "inf"
    r = client.post("/api/calls", json=verdict)
    assert r.status_code == 400 and words in r.get_json()["error"], r.get_json()


@pytest.mark.parametrize("data, ctype", [
    (b"GIF89a....", "image/jpeg"),   # not a JPEG
    (b"", "image/png"),              # empty
])
def test_bad_evidence_is_400(client, started, data, ctype):
    assert client.post("/api/evidence", data=data, content_type=ctype).status_code == 400


def test_export_zip_and_delete(app, client, started):
    eid = client.post("/api/evidence", data=JPEG, content_type="image/jpeg").get_json()["id"]
    client.post("/api/calls", json=_verdict(evidence=[eid]))
    r = client.get(f"/api/matches/{started}/export.zip")
    assert r.status_code == 200 and r.mimetype == "application/zip"
    z = zipfile.ZipFile(io.BytesIO(r.data))
    assert set(z.namelist()) == {"match.json", "events.jsonl", f"evidence/{eid}.jpg"}
    assert z.read(f"evidence/{eid}.jpg") == JPEG
    r = client.delete(f"/api/matches/{started}")
    assert r.status_code == 200 and r.get_json()["evidence_removed"] == 1
    assert client.get(f"/api/matches/{started}").status_code == 404
    assert client.get(f"/api/evidence/{eid}").status_code == 404
    assert client.get("/api/current").get_json() == {"match": None}


def test_resume_puts_a_match_back_on_the_table(client, started):
    other = client.post("/api/matches", json={"game": "morris", "board": "morris/waterfall"}).get_json()["id"]
    assert client.get("/api/current").get_json()["match"]["id"] == other
    assert client.post(f"/api/matches/{started}/resume", json={}).status_code == 200
    assert client.get("/api/current").get_json()["match"]["id"] == started


def test_token_guards_changes_but_not_views(tmp_path):
    from webui import create_app

    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "TOKEN": "s3cret"})
    c = app.test_client()
    body = {"game": "morris", "board": "morris/waterfall"}
    assert c.post("/api/matches", json=body).status_code == 401
    assert c.post("/api/matches", json=body, headers={"X-Tableref-Token": "wrong"}).status_code == 401
    assert c.post("/api/matches", json=body, headers={"X-Tableref-Token": "s3cret"}).status_code == 201
    assert c.post("/api/matches", json=body, headers={"Authorization": "Bearer s3cret"}).status_code == 201
    for url in ("/", "/overlay", "/judge", "/matches", "/setup", "/api/current", "/api/openapi.json"):
        assert c.get(url).status_code == 200, url


def test_openapi_describes_every_api_route(app, client):
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    routes = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            path = rule.rule
            for arg in rule.arguments:
                path = path.replace(f"<{arg}>", "{" + arg + "}")
            routes.add(path)
    assert routes == set(doc["paths"])


def test_measure_tool_asks_the_referee(client):
    r = client.get("/api/measure?board=dino-dunk/tropic-turf&a=100,100,19&b=200,100,25.5").get_json()
    assert r["gap_mm"] == pytest.approx(100 - 19 - 25.5)
    assert r["short_cards"] == pytest.approx(55.5 / r["short_card_mm"])
    assert any(s["type"] == "distance" for s in r["verdict"]["evidence"])
    r = client.get("/api/measure?board=dino-dunk/tropic-turf&a=0,0,5&region=half-home").get_json()
    assert r["kind"] == "overlap" and r["overlaps"]


@pytest.mark.parametrize("query", [
    "board=dino-dunk/tropic-turf&a=1,2&b=3,4,5",              # a needs three numbers
    "board=dino-dunk/tropic-turf&a=1,2,0&b=3,4,5",            # zero radius
    "board=dino-dunk/tropic-turf&a=1,2,3",                    # neither b nor region
    "board=dino-dunk/tropic-turf&a=1,2,3&b=1,2,3&region=x",   # both
    "board=dino-dunk/tropic-turf&a=1,2,3&region=nowhere",     # unknown region
    "board=nope/nope&a=1,2,3&b=1,2,3",                        # unknown board
    "board=dino-dunk/tropic-turf&a=1,2,3&b=1,2,3&sigma=-1",   # negative sigma
])
def test_measure_bad_input_is_400(client, query):
    r = client.get(f"/api/measure?{query}")
    assert r.status_code == 400 and r.get_json()["error"]


def test_loopback_server_rejects_other_host_names(tmp_path):
    from cli.serve import LOOPBACK_NAMES
    from webui import create_app

    c = create_app({"DATA_DIR": str(tmp_path), "TRUSTED_HOSTS": LOOPBACK_NAMES}).test_client()
    for host in ("localhost", "127.0.0.1:8765", "localhost:8765"):
        assert c.get("/api/current", headers={"Host": host}).status_code == 200, host
    r = c.get("/api/current", headers={"Host": "rebound.example:8765"})
    assert r.status_code == 400 and "not trusted" in r.get_json()["error"]


GAMES = [("dino-dunk", "dino-dunk/crater-court"), ("dodo-dash", "dodo-dash/dodorado-jungle"),
         ("morris", "morris/waterfall"), ("dogo-dash", "dogo-dash/table")]


@pytest.mark.parametrize("game, board", GAMES)
def test_every_action_field_with_a_wrong_type_is_4xx(client, game, board):
    """Each field of each action class of each engine, given values of the wrong type: never a 500."""
    import dataclasses

    from rules.core import engine_for

    mid = client.post("/api/matches", json={"game": game, "board": board}).get_json()["id"]
    for cls in engine_for(game).new_game().ACTIONS:
        for f in dataclasses.fields(cls):
            for value in ("x", -1, 10**9, None, [1], {"a": 1}, True, 1.5, ""):
                r = client.post(f"/api/matches/{mid}/actions", json={"action": {"type": cls.__name__, f.name: value}})
                assert r.status_code < 500, (cls.__name__, f.name, value, r.get_json())
