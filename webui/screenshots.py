"""Screenshots of every page on the demo table, for the README: ``python -m webui.screenshots docs/img``.

Needs Debian's ``/usr/bin/chromium`` (Playwright drives it; nothing is downloaded). The demo runs
with no automatic judge so that a too-close call is waiting on the live and judge pages.
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
    from webui.demo import DemoTable
    from webui.store import Store

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"DATA_DIR": tmp, "SOURCE": "sim (demo)"})
        srv = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{srv.port}"
        demo = DemoTable(app, seed=11, pace_s=0.3, auto_confirm_s=None, near_miss_every=2).start()
        store = Store(tmp)
        deadline = time.time() + 120
        while time.time() < deadline:  # wait for a score and a call waiting for a person
            mid = demo.match_id
            if mid:
                rep = app.extensions["tableref.hub"].replayed(store, mid)
                if rep.pending_calls() and any(rep.game.state.get("score", {}).values()):
                    break
            time.sleep(0.5)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1366, "height": 860})
            shots = [("live", "/", None), ("judge", "/judge", ".judge-item"), ("setup", "/setup", "#boards tr"),
                     ("editor", "/setup/board/dino-dunk/tropic-turf", "circle.handle"), ("matches", "/matches", "tr[data-id]")]
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
