"""Screenshots of every page on the demo table, for the README: ``python -m webui.screenshots docs/img``.

Needs Debian's ``/usr/bin/chromium`` (Playwright drives it; nothing is downloaded). The demo runs
through the live-table session (:mod:`webui.demo_session`); once a side has scored its automatic
judge is switched off, so that a too-close call is waiting on the live and judge pages. The camera
page shows a calibration solved from synthetic views of the ChArUco board.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main(out_dir: str = "docs/img") -> int:
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    from webui import create_app
    from webui.demo_session import SessionDemoTable
    from webui.store import Store

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"DATA_DIR": tmp, "SOURCE": "sim (demo)"})
        srv = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{srv.port}"
        demo = SessionDemoTable(app, seed=7, pace_s=0.3, auto_confirm_s=0.5, fps=20).start()
        store = Store(tmp)
        _calibrate(app)
        deadline = time.time() + 300
        while time.time() < deadline:  # wait for a score, then for a call waiting for a person
            mid = demo.match_id
            if mid:
                rep = app.extensions["tableref.hub"].replayed(store, mid)
                if any(rep.game.state.get("score", {}).values()):
                    demo.auto_confirm_s = None
                    if rep.pending_calls():
                        break
            time.sleep(0.5)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1366, "height": 860})
            shots = [("live", "/", None), ("judge", "/judge", ".judge-item"), ("setup", "/setup", "#boards tr"),
                     ("editor", "/setup/board/dino-dunk/tropic-turf", "circle.handle"), ("matches", "/matches", "tr[data-id]"),
                     ("setup-camera", "/setup/camera", "#result .rms"), ("setup-identities", "/setup/identities", "#board text.id-label"),
                     ("setup-teach", "/setup/teach", "#task option"), ("setup-selftest", "/setup/selftest", "#sheet circle")]
            for name, url, sel in shots:
                page.goto(base + url, wait_until="domcontentloaded")
                if sel:
                    page.wait_for_selector(sel, timeout=10000, state="attached")
                if name == "setup":  # show the registration feedback on the demo's frame
                    page.click("#regnow")
                    page.wait_for_selector("#regout .found", timeout=10000)
                time.sleep(1.5)
                page.screenshot(path=str(out / f"{name}.png"))
            page.set_viewport_size({"width": 1920, "height": 1080})
            page.goto(base + "/overlay?theme=dark&panels=score,call,review", wait_until="domcontentloaded")
            time.sleep(1.5)
            page.screenshot(path=str(out / "overlay.png"), omit_background=True)
            browser.close()
        demo.stop()
        store.close()
        srv.shutdown()
        app.extensions["tableref.frames"].close()
    _shrink(out)
    print(f"screenshots in {out}/")
    return 0


def _calibrate(app) -> None:
    """Solve a camera calibration from synthetic views of the ChArUco board (the demo camera's K)."""
    import cv2
    import numpy as np

    from calibration.config import load_config
    from calibration.synthetic import camera_matrix, charuco_view, fit_distance
    from webui import camera

    icfg = load_config().intrinsics
    size = (960, 640)
    K = camera_matrix(size, 67.3)
    extent = np.array([[0, 0], [icfg.squares_x * icfg.square_mm, 0], [icfg.squares_x * icfg.square_mm, icfg.squares_y * icfg.square_mm],
                       [0, icfg.squares_y * icfg.square_mm]], float)
    rng = np.random.default_rng(7)
    for i, (tilt, az, roll) in enumerate([(0, 90, 0), (25, 0, 10), (25, 90, -15), (25, 180, 20), (25, 270, -5),
                                          (40, 45, 0), (40, 135, 25), (40, 225, -20), (40, 315, 5), (15, 60, 30)]):
        R, t = fit_distance(extent, K, size, tilt, az, fill=0.6, roll_deg=roll)
        t = t + np.array([rng.uniform(-90, 90), rng.uniform(-50, 50), 0.0])
        img = charuco_view(icfg, K, R, t, size, px_per_mm=4.0, noise_sigma=1.0, seed=i)
        camera.add_view(app, cv2.imencode(".png", img)[1].tobytes(), "upload")
    camera.solve(app)


def _shrink(out: Path) -> None:
    """Halve each PNG (OpenCV, area interpolation) so they stay small in the repository."""
    import cv2

    for path in out.glob("*.png"):
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is None or img.shape[1] <= 960:
            continue
        small = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2), interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(path), small, [cv2.IMWRITE_PNG_COMPRESSION, 9])


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
