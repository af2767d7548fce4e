"""Pages render, the board editor's save path validates and never writes over a shipped board, the
overlay options are checked, and the SSE stream sends the state."""

import pathlib

import pytest
import yaml

from calibration.board import BOARDS_DIR


@pytest.mark.parametrize("url, words", [
    ("/", b"Legal actions now"),
    ("/judge", b"Review queue"),
    ("/overlay?game=dino-dunk&theme=light&panels=score,review", b"theme-light"),
    ("/setup", b"New match"),
    ("/setup/board/dino-dunk/tropic-turf", b"Board editor"),
    ("/matches", b"Matches"),
    ("/setup/camera", b"Camera calibration"),
    ("/setup/identities", b"Assigning identities"),
    ("/setup/teach", b"Teach your own pieces"),
    ("/setup/selftest", b"Accuracy self-test"),
])
def test_pages_render(client, url, words):
    r = client.get(url)
    assert r.status_code == 200 and words in r.data


def test_unknown_setup_page_is_404(client):
    r = client.get("/setup/nothing")
    assert r.status_code == 404 and "no setup page" in r.get_json()["error"]


def test_board_save_goes_to_the_user_folder(app, client):
    shipped = (BOARDS_DIR / "dino-dunk" / "tropic-turf.yaml").read_bytes()
    raw = client.get("/api/boards/dino-dunk/tropic-turf").get_json()["board"]
    raw["regions"]["scoring-zone-home"]["circle"][0] += 10
    r = client.put("/api/boards/dino-dunk/tropic-turf", json={"board": raw})
    assert r.status_code == 200 and r.get_json()["origin"] == "edited"
    saved = pathlib.Path(app.config["DATA_DIR"]) / "boards" / "dino-dunk" / "tropic-turf.yaml"
    assert yaml.safe_load(saved.read_text())["regions"]["scoring-zone-home"]["circle"] == raw["regions"]["scoring-zone-home"]["circle"]
    assert (BOARDS_DIR / "dino-dunk" / "tropic-turf.yaml").read_bytes() == shipped
    again = client.get("/api/boards/dino-dunk/tropic-turf").get_json()
    assert again["origin"] == "edited" and again["board"]["regions"]["scoring-zone-home"]["circle"] == raw["regions"]["scoring-zone-home"]["circle"]


@pytest.mark.parametrize("change, status, words", [
    (lambda b: b["regions"]["scoring-zone-home"].update(circle=[95, 305, -5]), 400, "r > 0"),       # negative radius
    (lambda b: b["regions"]["water-north"].update(polygon=[[0, 0], [10, 10], [0, 10], [10, 0]]), 400, "polygon"),  # crossing edges
    (lambda b: b.update(name="other-name"), 400, "saved as"),                                        # renamed in the body
    (lambda b: b.update(size_mm="big"), 400, "size_mm"),                                             # not numbers
])
def test_invalid_board_edits_are_400_and_nothing_is_written(app, client, change, status, words):
    raw = client.get("/api/boards/dino-dunk/tropic-turf").get_json()["board"]
    change(raw)
    r = client.put("/api/boards/dino-dunk/tropic-turf", json={"board": raw})
    assert r.status_code == status and words in r.get_json()["error"], r.get_json()
    assert not (pathlib.Path(app.config["DATA_DIR"]) / "boards").exists() or not list((pathlib.Path(app.config["DATA_DIR"]) / "boards").rglob("*.yaml"))


def test_board_put_cannot_escape_the_folder(client):
    raw = client.get("/api/boards/dino-dunk/tropic-turf").get_json()["board"]
    for ref in ("dino-dunk/..%2f..%2fevil", "..%2f../x", "dino-dunk/UPPER"):
        r = client.put(f"/api/boards/{ref}", json={"board": raw})
        assert r.status_code in (400, 404), ref


def test_event_stream_sends_the_current_state(client, started):
    r = client.get("/api/events", buffered=False)
    assert r.mimetype == "text/event-stream"
    chunks = []
    for chunk in r.response:
        chunks.append(chunk if isinstance(chunk, str) else chunk.decode())
        if "event: state" in "".join(chunks):
            break
    r.close()
    assert started in "".join(chunks)


@pytest.mark.parametrize("argv, code", [
    (["serve", "--host", "0.0.0.0", "--port", "0"], 2),        # another address without a token
    (["serve", "--host", "192.168.1.5", "--port", "0"], 2),
    (["serve", "--port", "70000"], 2),                          # not a port
    (["serve", "--port", "0", "--source", "http://cam"], 2),    # not a source this build can open
    (["serve", "--port", "0", "--source", "sim://chess"], 2),   # not a simulated game
    (["serve", "--port", "0", "--demo", "--source", "sim://morris"], 2),  # both
])
def test_serve_refuses_unsafe_options(argv, code, capsys):
    from cli.main import main

    assert main(argv) == code
    assert "tableref: error:" in capsys.readouterr().err


def test_every_shipped_board_round_trips_through_the_editor_api(client):
    for b in client.get("/api/boards").get_json()["boards"]:
        raw = client.get(f"/api/boards/{b['ref']}").get_json()["board"]
        r = client.put(f"/api/boards/{b['ref']}", json={"board": raw})
        assert r.status_code == 200, (b["ref"], r.get_json())


def test_a_sim_source_publishes_video_and_pieces(app):
    import time

    from webui.sources import SimVideo

    video = SimVideo(app, "sim://morris?seed=1&size=160x120&realtime=0&turns=3").start()
    feed = app.extensions["tableref.frames"]
    deadline = time.time() + 30
    while feed.published < 3 and time.time() < deadline:
        time.sleep(0.05)
    video.stop()
    info = feed.info()
    assert feed.published >= 3 and info["live"] and info["size"] == [160, 120] and info["mat_to_image"]
    assert video.status in ("playing", "finished")


def _publish_render(app, target=(457.0, 305.0)):
    import cv2

    from calibration.board import load_board
    from sim.camera import look_at, top_down
    from sim.render import render_scene
    from sim.scene import Scene

    b = load_board("dino-dunk/tropic-turf")
    cam0 = top_down(b, size=(960, 640))
    cam = look_at(target, 900.0, 0.0, 0.0, 0.0, cam0.params["hfov_deg"], (960, 640))
    r = render_scene(b, Scene("dino-dunk", b.ref, []), cam, seed=1)
    app.extensions["tableref.frames"].publish(cv2.imencode(".jpg", r.image)[1].tobytes())


def test_mat_registration_feedback_and_mat_moved(app, client):
    body = {"board": "dino-dunk/tropic-turf"}
    assert client.post("/api/registration", json=body).status_code == 409  # no frame yet
    _publish_render(app)
    r = client.post("/api/registration", json=body).get_json()
    assert r["ok"] and r["markers_found"] == r["markers_expected"] and r["residual_px"] < 0.5 and r["sigma_mm_max"] < 1
    assert "drift" not in r  # the first one is the reference
    assert client.post("/api/registration", json=body).get_json()["drift"]["moved"] is False
    _publish_render(app, target=(480.0, 305.0))  # the camera (or the mat) shifted by 23 mm
    moved = client.post("/api/registration", json=body).get_json()["drift"]
    assert moved["moved"] is True and moved["max_mm"] > 10
    assert client.post("/api/registration", json={**body, "reset": True}).get_json().get("drift") is None
    assert client.post("/api/registration", json={"board": "../x"}).status_code == 400


def test_capture_the_empty_mat(app, client):
    body = {"board": "dino-dunk/tropic-turf"}
    assert client.post("/api/empty-mat", json=body).status_code == 409
    _publish_render(app)
    r = client.post("/api/empty-mat", json=body)
    assert r.status_code == 201 and r.get_json()["size"] == [960, 640]
    img = client.get("/api/empty-mat/dino-dunk/tropic-turf")
    assert img.status_code == 200 and img.data.startswith(b"\x89PNG")
    assert client.get("/api/empty-mat/dino-dunk/nothing-here").status_code == 404
    assert client.post("/api/empty-mat", json={"board": "dino-dunk/../../x"}).status_code == 400


@pytest.mark.parametrize("ref", ["dino-dunk/tropic-turf", "dodo-dash/dodorado-jungle", "morris/waterfall", "dogo-dash/table",
                                 "grid/plain-grid"])
def test_board_edits_with_wrong_types_are_never_500(app, client, ref):
    """Every key (three levels deep, first two list items) of a shipped board replaced by values of
    the wrong type: a 400 with a message, or a 200 when the result is still a valid board."""
    import copy

    raw = client.get(f"/api/boards/{ref}").get_json()["board"]
    paths = []

    def walk(o, p, depth):
        if p:
            paths.append(p)
        if depth == 0:
            return
        items = o.items() if isinstance(o, dict) else enumerate(o[:2]) if isinstance(o, list) else ()
        for k, v in items:
            walk(v, p + [k], depth - 1)

    walk(raw, [], 3)
    for p in paths:
        for value in ("x", None, [[0, 0], [1, 1]], {"a": 1}):
            b = copy.deepcopy(raw)
            o = b
            for k in p[:-1]:
                o = o[k]
            o[p[-1]] = value
            r = client.put(f"/api/boards/{ref}", json={"board": b})
            assert r.status_code in (200, 400), (p, value, r.get_json())
            assert r.get_json().get("error", "x")
