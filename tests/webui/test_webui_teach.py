"""Setup → teaching your own pieces: examples uploaded or cut from the frame, vision.teach with its
cross-validated accuracy, the profile in the data folder, and the active profile."""

import pathlib

import numpy as np
import pytest


def _disc_png(colour, seed, size=64):
    import cv2

    rng = np.random.default_rng(seed)
    img = np.full((size, size, 3), 200, np.uint8)
    cv2.circle(img, (size // 2, size // 2), int(size * 0.4), tuple(int(c + rng.integers(-20, 20)) for c in colour), -1)
    img = np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)
    return cv2.imencode(".png", img)[1].tobytes()


def test_teach_from_uploads_saves_a_profile_and_it_can_be_picked(app, client):
    for i in range(6):
        for cls, colour in (("green", (40, 160, 40)), ("red", (40, 40, 200))):
            r = client.post(f"/api/teach/examples/team/{cls}", data=_disc_png(colour, i + (0 if cls == "green" else 50)),
                            content_type="image/png")
            assert r.status_code == 201, r.get_json()
    st = client.get("/api/teach").get_json()
    assert st["examples"] == {"team": {"green": 6, "red": 6}} and st["profiles"] == [] and st["active"] is None
    r = client.post("/api/teach/run", json={"task": "team", "profile": "my-table", "folds": 3})
    assert r.status_code == 201, r.get_json()
    res = r.get_json()
    print(f"\nteach team (6 green, 6 red): {res['folds']}-fold CV accuracy {res['cv_accuracy']:.3f}")
    assert res["cv_accuracy"] >= 0.9 and res["classes"] == ["green", "red"]
    assert res["path"] == "profiles/my-table/team.npz"
    assert (pathlib.Path(app.config["DATA_DIR"]) / res["path"]).is_file()
    st = client.get("/api/teach").get_json()
    assert st["profiles"][0]["profile"] == "my-table" and st["profiles"][0]["tasks"]["team"]["cv_accuracy"] == res["cv_accuracy"]
    assert client.put("/api/profile", json={"profile": "my-table"}).get_json() == {"active": "my-table"}
    assert client.get("/api/teach").get_json()["active"] == "my-table"
    assert client.put("/api/profile", json={"profile": None}).get_json() == {"active": None}


def test_capture_cuts_the_disc_out_of_the_latest_frame(app, client):
    import cv2

    assert client.post("/api/teach/examples/team/home", json={"xy": [100, 100], "radius": 19}).status_code == 409
    img = np.full((480, 640, 3), 90, np.uint8)
    cv2.circle(img, (320, 240), 38, (0, 0, 220), -1)
    H = [[2.0, 0.0, 120.0], [0.0, 2.0, 40.0], [0.0, 0.0, 1.0]]  # mat mm -> px: 2 px per mm
    app.extensions["tableref.frames"].publish(cv2.imencode(".jpg", img)[1].tobytes(), mat_to_image=H)
    r = client.post("/api/teach/examples/team/home", json={"xy": [100.0, 100.0], "radius": 19.0})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["size"] == [96, 96] or abs(r.get_json()["size"][0] - 95) <= 2
    r = client.post("/api/teach/examples/team/home", json={"xy": [-500.0, 100.0], "radius": 19.0})
    assert r.status_code == 400 and "not (wholly) in the camera's view" in r.get_json()["error"]
    assert client.delete("/api/teach/examples/team/home").get_json() == {"removed": 1}


@pytest.mark.parametrize("method, url, kwargs, status, words", [
    ("post", "/api/teach/examples/nope/x", {"data": b"\x89PNG", "content_type": "image/png"}, 400, "task"),          # unknown task
    ("post", "/api/teach/examples/egg-face/cracked", {"data": b"\x89PNG", "content_type": "image/png"}, 400, "not a class"),  # not a class of the task
    ("post", "/api/teach/examples/team/..", {"data": b"\x89PNG", "content_type": "image/png"}, 400, "lowercase"),   # traversal: not a slug
    ("post", "/api/teach/examples/team/a%2F..%2F..", {"data": b"\x89PNG", "content_type": "image/png"}, 404, ""),   # encoded traversal
    ("post", "/api/teach/examples/team/Bad%20Name", {"data": b"\x89PNG", "content_type": "image/png"}, 400, "lowercase"),  # not a slug
    ("post", "/api/teach/examples/team/green", {"data": b"\x89PNG junk", "content_type": "image/png"}, 400, "decoded"),  # not an image
    ("post", "/api/teach/examples/team/green", {"json": {"xy": "here", "radius": 19}}, 400, "xy"),                   # bad position
    ("post", "/api/teach/examples/team/green", {"json": {"xy": [1, 2], "radius": 9999}}, 400, "radius"),             # bad radius
    ("post", "/api/teach/run", {"json": {"task": "team", "profile": "p"}}, 409, "no examples"),                       # nothing taught yet
    ("post", "/api/teach/run", {"json": {"task": "team", "profile": "../evil"}}, 400, "profile"),                     # traversal in a profile
    ("post", "/api/teach/run", {"json": {"task": "team", "profile": "p", "folds": 1}}, 400, "folds"),                 # bad folds
    ("post", "/api/teach/run", {"json": {"task": 3}}, 400, "task"),                                                   # bad task
    ("put", "/api/profile", {"json": {"profile": "ghost"}}, 400, "no profile"),                                       # unknown profile
])
def test_bad_teach_requests_are_4xx(client, method, url, kwargs, status, words):
    r = getattr(client, method)(url, **kwargs)
    assert r.status_code == status, (r.status_code, r.data[:300])
    assert words in r.get_json()["error"]
    assert not (pathlib.Path(client.application.config["DATA_DIR"]) / "teach").exists() or \
        all(p.parent.parent.parent.name == "teach" for p in (pathlib.Path(client.application.config["DATA_DIR"]) / "teach").rglob("*.png"))


def test_one_class_only_is_a_clear_400(client):
    for i in range(3):
        client.post("/api/teach/examples/egg-face/whole", data=_disc_png((200, 200, 200), i), content_type="image/png")
    client.post("/api/teach/examples/egg-face/broken", data=_disc_png((20, 20, 200), 9), content_type="image/png")
    r = client.post("/api/teach/run", json={"task": "egg-face", "profile": "p", "folds": 2})
    assert r.status_code == 400 and "at least 2 examples per class" in r.get_json()["error"], r.get_json()
