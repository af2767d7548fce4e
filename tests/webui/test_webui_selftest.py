"""Setup → accuracy self-test: the printed sheet at true scale, the sheet found on a frame, pieces
detected by vision.detect and the error in mm per spot and overall; "detector not available" when
there is none."""

from functools import lru_cache

import numpy as np
import pytest

BOARD = "dino-dunk/tropic-turf"
DPI = 150


@lru_cache(maxsize=None)
def views():
    """(sheet, empty frame, frame with a disc painted near each target, the painted centres in
    sheet mm): the page filmed from above (calibration.synthetic.page_view)."""
    import cv2

    from calibration.board import load_board
    from calibration.markers import mm_to_px
    from calibration.synthetic import page_view
    from webui.selftest import layout, render_page

    sheet = layout(load_board(BOARD))
    page = render_page(sheet, DPI)
    empty = page_view(page, DPI, image_size=(1280, 960), fill=0.85).image
    colour = cv2.cvtColor(page, cv2.COLOR_GRAY2BGR)
    rng = np.random.default_rng(0)
    placed = []
    for t in sheet["targets"]:
        # whole pixels of the page: the painted centre is where the pixel grid puts it
        px = (mm_to_px(t["xy"][0] + rng.uniform(-3, 3), DPI), mm_to_px(t["xy"][1] + rng.uniform(-3, 3), DPI))
        placed.append([(px[0] + 0.5) * 25.4 / DPI, (px[1] + 0.5) * 25.4 / DPI])
        cv2.circle(colour, px, mm_to_px(t["radius"], DPI), (30, 40, 200), -1)
    full = page_view(colour, DPI, image_size=(1280, 960), fill=0.85).image
    return sheet, cv2.imencode(".png", empty)[1].tobytes(), cv2.imencode(".png", full)[1].tobytes(), np.array(placed)


def _publish(app, png):
    import cv2

    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    app.extensions["tableref.frames"].publish(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes())


def test_sheet_files_are_true_scale(client, tmp_path):
    from calibration.markers import png_dpi

    r = client.get(f"/api/selftest/sheet.pdf?board={BOARD}")
    assert r.status_code == 200 and r.data.startswith(b"%PDF")
    assert b"/MediaBox [0 0 595.2756 841.8898]" in r.data  # A4 in points, exactly
    r = client.get(f"/api/selftest/sheet.png?board={BOARD}&dpi=200")
    (tmp_path / "s.png").write_bytes(r.data)
    assert r.mimetype == "image/png" and png_dpi(tmp_path / "s.png") == pytest.approx(200, abs=0.1)
    sheet = client.get(f"/api/selftest/sheet?board={BOARD}").get_json()
    assert len(sheet["targets"]) == 12 and sheet["piece"] == "disc-medium" and sheet["targets"][0]["radius"] == 19.0
    assert {m["id"] for m in sheet["markers"]}.isdisjoint({0, 1, 2, 3})  # not the mat's own markers


def test_measure_reports_the_error_per_spot_and_overall(app, client, monkeypatch, tmp_path):
    # the classical path, whatever models/detector/ holds in this checkout (a trained detector.onnx
    # there would make the empty sheet optional)
    monkeypatch.setattr("vision.detect.DEFAULT_MODEL", tmp_path / "no-model.onnx")
    sheet, empty, full, placed = views()
    assert client.post("/api/selftest/measure", json={"board": BOARD}).status_code == 409  # no frame yet
    _publish(app, full)
    r = client.post("/api/selftest/measure", json={"board": BOARD})
    assert r.status_code == 409 and "capture the empty sheet first" in r.get_json()["error"]  # no model, no empty sheet
    _publish(app, empty)
    r = client.post("/api/selftest/empty", json={"board": BOARD})
    assert r.status_code == 201 and r.get_json()["markers_found"] == [m["id"] for m in sheet["markers"]]
    _publish(app, full)
    r = client.post("/api/selftest/measure", json={"board": BOARD})
    assert r.status_code == 200, r.get_json()
    res = r.get_json()
    assert res["ok"] and res["missing"] == [] and res["overall"]["spots"] == 12
    truth = np.linalg.norm(placed - np.array([t["xy"] for t in sheet["targets"]]), axis=1)
    measured = np.array([s["error_mm"] for s in res["spots"]])
    found = np.array([s["found"] for s in res["spots"]])
    print(f"\nself-test on a synthetic sheet: overall {res['overall']}; |found - painted| max "
          f"{np.linalg.norm(found - placed, axis=1).max():.2f} mm")
    # the pieces were put off the targets on purpose: the reported error is that offset
    assert np.abs(measured - truth).max() < 2.0
    assert res["overall"]["max_mm"] == pytest.approx(measured.max())


def test_detector_not_available_is_said_clearly(app, client, monkeypatch):
    from webui import selftest

    sheet, empty, full, placed = views()
    _publish(app, full)
    monkeypatch.setattr(selftest, "detector_factory", lambda: (None, "detector not available: vision.detect has no Detector"))
    r = client.post("/api/selftest/measure", json={"board": BOARD})
    assert r.status_code == 200 and r.get_json()["ok"] is False
    assert r.get_json()["error"].startswith("detector not available")


@pytest.mark.parametrize("method, url, kwargs, status, words", [
    ("get", "/api/selftest/sheet.pdf?board=nogame/x", {}, 400, "board"),                 # unknown board
    ("get", "/api/selftest/sheet.pdf", {}, 400, "board"),                                # no board
    ("get", f"/api/selftest/sheet.svg?board={BOARD}", {}, 400, "pdf or png"),            # unknown format
    ("get", f"/api/selftest/sheet.png?board={BOARD}&dpi=5000", {}, 400, "dpi"),          # absurd dpi
    ("get", f"/api/selftest/sheet.png?board={BOARD}&dpi=-3", {}, 400, "dpi"),            # not a number
    ("get", f"/api/selftest/sheet?board={BOARD}&piece=unicorn", {}, 400, "piece"),       # not a piece of the game
    ("get", "/api/selftest/sheet?board=dogo-dash/table", {}, 400, ""),                  # a board with no round pieces / markers
    ("post", "/api/selftest/measure", {"json": {"board": BOARD, "piece": 7}}, 400, "piece"),  # wrong type
    ("post", "/api/selftest/empty", {"json": {"board": BOARD}}, 409, "no camera frame"),  # nothing to capture
])
def test_bad_selftest_requests_are_4xx(client, method, url, kwargs, status, words):
    r = getattr(client, method)(url, **kwargs)
    assert r.status_code == status, (r.status_code, r.data[:300])
    assert words in r.get_json()["error"]


def test_a_frame_without_the_sheet_is_409(app, client):
    from tests.webui.test_webui_pages import _publish_render

    _publish_render(app)  # the mat, no sheet
    r = client.post("/api/selftest/empty", json={"board": BOARD})
    assert r.status_code == 409 and "test sheet was not found" in r.get_json()["error"]
