"""Setup → camera calibration: ChArUco views uploaded or captured from the source, solved by
``calibration.intrinsics``, saved as camera.yaml in the data folder and used by registration."""

import pathlib
from functools import lru_cache

import numpy as np
import pytest

from calibration.config import load_config

ICFG = load_config().intrinsics
SIZE = (960, 640)
POSES = [(0, 90, 0), (25, 0, 10), (25, 90, -15), (25, 180, 20), (25, 270, -5), (40, 45, 0), (40, 135, 25),
         (40, 225, -20), (40, 315, 5), (15, 60, 30)]


def _hfov():
    from calibration.board import load_board
    from sim.camera import top_down

    return top_down(load_board("dino-dunk/tropic-turf"), size=SIZE).params["hfov_deg"]


@lru_cache(maxsize=None)
def charuco_pngs() -> tuple:
    """The printed ChArUco board seen by the demo's camera (the sim's K, no distortion) from ten poses, as PNG."""
    import cv2

    from calibration.synthetic import camera_matrix, charuco_view, fit_distance

    K = camera_matrix(SIZE, _hfov())
    bw, bh = ICFG.squares_x * ICFG.square_mm, ICFG.squares_y * ICFG.square_mm
    extent = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], float)
    out = []
    rng = np.random.default_rng(7)
    for i, (tilt, az, roll) in enumerate(POSES):
        R, t = fit_distance(extent, K, SIZE, tilt, az, fill=0.6, roll_deg=roll)
        t = t + np.array([rng.uniform(-90, 90), rng.uniform(-50, 50), 0.0])  # off-centre: the lens edges count
        img = charuco_view(ICFG, K, R, t, SIZE, px_per_mm=4.0, noise_sigma=1.0, seed=i)
        out.append(cv2.imencode(".png", img)[1].tobytes())
    return tuple(out)


def test_upload_views_solve_save_and_registration_uses_it(app, client):
    from tests.webui.test_webui_pages import _publish_render

    for png in charuco_pngs():
        r = client.post("/api/camera/views", data=png, content_type="image/png")
        assert r.status_code == 201, r.get_json()
        assert r.get_json()["usable"] and r.get_json()["corners"] >= ICFG.min_corners_per_view
    st = client.get("/api/camera").get_json()
    assert st["usable"] == len(POSES) and st["camera"] is None
    r = client.post("/api/camera/solve", json={})
    assert r.status_code == 201, r.get_json()
    cam = r.get_json()
    print(f"\nweb calibration: RMS {cam['rms_px']:.3f} px over {cam['n_views']} views, fx {cam['fx']:.1f}")
    assert cam["rms_px"] < 0.5 and cam["n_views"] == len(POSES) and not cam["poor"]
    assert (pathlib.Path(app.config["DATA_DIR"]) / "camera.yaml").is_file()
    assert client.get("/api/camera").get_json()["camera"]["rms_px"] == pytest.approx(cam["rms_px"])
    # registration on the demo camera's frame now uses the calibration
    _publish_render(app)
    reg = client.post("/api/registration", json={"board": "dino-dunk/tropic-turf"}).get_json()
    assert reg["ok"] and reg["camera"] == "camera calibration camera.yaml used", reg
    assert reg["sigma_mm_max"] < 1.5


def test_capture_from_the_source_and_clear(app, client):
    assert client.post("/api/camera/views", json={}).status_code == 409  # no frame yet
    import cv2

    img = cv2.imdecode(np.frombuffer(charuco_pngs()[0], np.uint8), cv2.IMREAD_COLOR)
    app.extensions["tableref.frames"].publish(cv2.imencode(".jpg", img)[1].tobytes())
    r = client.post("/api/camera/views", json={})
    assert r.status_code == 201 and r.get_json()["source"] == "camera" and r.get_json()["usable"]
    vid = r.get_json()["id"]
    assert client.delete(f"/api/camera/views/{vid}").get_json() == {"removed": 1}
    assert client.delete("/api/camera/views/0123456789abcdef").status_code == 400
    client.post("/api/camera/views", json={})
    assert client.delete("/api/camera/views").get_json() == {"removed": 1}
    assert client.get("/api/camera").get_json()["views"] == []


@pytest.mark.parametrize("setup, request_, status, words", [
    (lambda c: None, ("post", "/api/camera/solve", {"json": {}}), 409, "no views yet"),                       # nothing to solve
    (lambda c: c.post("/api/camera/views", data=charuco_pngs()[0], content_type="image/png"),
     ("post", "/api/camera/solve", {"json": {}}), 400, "need at least"),                                      # too few views
    (lambda c: None, ("post", "/api/camera/views", {"data": b"\x89PNGnot really", "content_type": "image/png"}), 400, "decoded"),  # junk image
    (lambda c: None, ("post", "/api/camera/views", {"data": b"", "content_type": "image/png"}), 400, "decoded"),  # empty body
    (lambda c: None, ("post", "/api/camera/views", {"data": "x", "content_type": "text/plain"}), 415, "JSON"),   # wrong type
])
def test_bad_calibration_requests_are_4xx(client, setup, request_, status, words):
    setup(client)
    method, url, kwargs = request_
    r = getattr(client, method)(url, **kwargs)
    assert r.status_code == status and words in r.get_json()["error"], r.get_json()


def test_another_resolution_is_refused(client):
    import cv2

    client.post("/api/camera/views", data=charuco_pngs()[0], content_type="image/png")
    small = cv2.imencode(".png", np.zeros((100, 200, 3), np.uint8))[1].tobytes()
    r = client.post("/api/camera/views", data=small, content_type="image/png")
    assert r.status_code == 400 and "one resolution at a time" in r.get_json()["error"]


def test_charuco_sheet_is_a_pdf(client):
    r = client.get("/api/camera/charuco.pdf")
    assert r.status_code == 200 and r.data.startswith(b"%PDF") and r.mimetype == "application/pdf"
