"""``tableref bench web``: many overlay viewers and a few video viewers on loopback while a live loop
renders and publishes frames, and the time from a state change to each viewer receiving it.

Set-up, all on 127.0.0.1:
- the app (threaded werkzeug server, as ``tableref serve``) on a temporary data dir;
- a live loop publishing rendered frames of the simulated table (``sim.render``) at ``fps`` — its
  achieved rate is measured before the viewers connect and while they watch;
- ``viewers`` SSE clients on ``/api/events`` and ``video`` MJPEG clients on ``/video.mjpg``, in a
  separate process (threads), so that the clients do not share the server's interpreter;
- ``changes`` state changes (actions appended through :func:`webui.record.record_action`, the same
  path as the API), ``interval_s`` apart. The latency of one change for one viewer is the time from
  just before the append to the viewer having read the SSE message (same clock, one machine).

Bounded: at most 200 viewers, 20 video viewers, 500 changes and ``timeout_s`` seconds overall.
The SSE figure is the time to the *client's socket*. With Chromium installed, ``browsers`` real
overlay pages (default 1) also report the time from the change to their DOM being updated (a
MutationObserver stamps each new state; same clock).
"""

from __future__ import annotations

import http.client
import multiprocessing as mp
import re
import statistics
import tempfile
import threading
import time

SEQ = re.compile(rb'"seq":(\d+)')


# -- clients (in their own process) ---------------------------------------------------------------
def _sse_client(port: int, out: list, stop: threading.Event, ready: threading.Barrier) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/api/events")
    resp = conn.getresponse()
    try:
        ready.wait(10)
    except threading.BrokenBarrierError:
        pass
    event = b""
    while not stop.is_set():
        try:
            line = resp.fp.readline()
        except (TimeoutError, OSError):
            continue
        if not line:
            break
        if line.startswith(b"event: "):
            event = line[7:].strip()
        elif line.startswith(b"data: ") and event == b"state":
            m = SEQ.search(line)
            if m:
                out.append((int(m.group(1)), time.time()))
    conn.close()


def _mjpeg_client(port: int, out: list, stop: threading.Event) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/video.mjpg")
    resp = conn.getresponse()
    frames = 0
    nbytes = 0
    t0 = time.time()
    while not stop.is_set():
        try:
            line = resp.fp.readline()
        except (TimeoutError, OSError):
            continue
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
            resp.fp.readline()
            resp.fp.read(n)
            frames += 1
            nbytes += n
    out.append((frames, nbytes, time.time() - t0))
    conn.close()


def _clients_main(port: int, viewers: int, video: int, conn, duration_s: float) -> None:
    stop = threading.Event()
    ready = threading.Barrier(viewers + 1)
    sse_out = [[] for _ in range(viewers)]
    vid_out = [[] for _ in range(video)]
    threads = [threading.Thread(target=_sse_client, args=(port, sse_out[i], stop, ready), daemon=True) for i in range(viewers)]
    threads += [threading.Thread(target=_mjpeg_client, args=(port, vid_out[i], stop), daemon=True) for i in range(video)]
    for t in threads:
        t.start()
    try:
        ready.wait(20)
        conn.send("ready")
    except threading.BrokenBarrierError:
        conn.send("not ready")
    conn.poll(duration_s)
    conn.recv()  # "stop"
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join(timeout=6)
    conn.send({"sse": sse_out, "video": vid_out})


# -- the server side ------------------------------------------------------------------------------
class _LiveLoop:
    """Renders the simulated table and publishes frames at ``fps``; counts what it achieved."""

    def __init__(self, app, fps: float):
        self.app, self.fps = app, fps
        self.stop = threading.Event()
        self.ticks: list[float] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        import cv2
        import numpy as np

        from calibration.board import load_board
        from calibration.specs import load_specs
        from sim.camera import top_down
        from sim.config import load_sim_config
        from sim.render import render_scene
        from sim.scenarios.dino_dunk import make_shot

        board = load_board("dino-dunk/tropic-turf")
        sc = make_shot(np.random.default_rng(1), board, load_specs(), load_sim_config(), kind="shoot", seed=1)
        cam = top_down(board, size=(960, 640))
        feed = self.app.extensions["tableref.frames"]
        frames = sc.run.frames
        period = 1.0 / self.fps
        nxt = time.monotonic()
        i = 0
        while not self.stop.is_set():
            r = render_scene(board, frames[i % len(frames)], cam, seed=1)
            ok, jpg = cv2.imencode(".jpg", r.image, [cv2.IMWRITE_JPEG_QUALITY, 80])
            feed.publish(jpg.tobytes(), size=(960, 640))
            self.ticks.append(time.monotonic())
            i += 1
            nxt += period
            delay = nxt - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            else:
                nxt = time.monotonic()

    def rate(self, t0: float, t1: float) -> float:
        n = sum(1 for t in self.ticks if t0 <= t < t1)
        return n / (t1 - t0) if t1 > t0 else 0.0


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# records [seq, Date.now()] each time the overlay's DOM changes for a new state
DOM_PROBE = """
window.__lat = [];
new MutationObserver(() => {
  if (window.OVERLAY_SEQ !== undefined && window.OVERLAY_SEQ !== window.__seen) {
    window.__seen = window.OVERLAY_SEQ; window.__lat.push([window.OVERLAY_SEQ, Date.now()]);
  }
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
"""


def _open_browsers(port: int, n: int):
    """``n`` Chromium overlay pages with the DOM probe, or None when Chromium is not installed."""
    import os

    if n <= 0 or not os.path.exists(CHROMIUM):
        return None
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    pages = []
    for _ in range(n):
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.add_init_script(DOM_PROBE)
        page.goto(f"http://127.0.0.1:{port}/overlay?panels=score,call,review,summary", wait_until="domcontentloaded")
        page.wait_for_function("() => window.OVERLAY_SEQ >= 0", timeout=20000)
        pages.append(page)
    return pw, browser, pages


def run(viewers: int = 50, video: int = 5, changes: int = 30, interval_s: float = 0.2, fps: float = 15.0,
        timeout_s: float = 90.0, browsers: int = 1) -> dict:
    from werkzeug.serving import make_server

    from webui import create_app, record
    from webui.store import Store

    if not (1 <= viewers <= 200 and 0 <= video <= 20 and 1 <= changes <= 500 and 0.01 <= interval_s <= 5
            and 0 <= browsers <= 5 and 1 <= fps <= 60 and 10 <= timeout_s <= 600):
        raise ValueError("bench bounds: 1..200 viewers, 0..20 video viewers, 1..500 changes, interval 0.01..5 s, "
                         "0..5 browsers, 1..60 fps, timeout 10..600 s")
    deadline = time.monotonic() + timeout_s
    with tempfile.TemporaryDirectory(prefix="tableref-bench-") as tmp:
        app = create_app({"DATA_DIR": tmp, "SSE_HEARTBEAT_S": 2.0})
        import logging

        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        srv = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        store = Store(tmp)
        hub = app.extensions["tableref.hub"]
        mid = record.start_match(store, hub, "dogo-dash", "dogo-dash/table", {"players": 2, "seed": 0})["id"]
        loop = _LiveLoop(app, fps)
        loop.thread.start()
        while len(loop.ticks) < 3 and time.monotonic() < deadline - 30:  # the first render builds caches
            time.sleep(0.1)
        base0 = time.monotonic()
        time.sleep(2.0)
        base_rate = loop.rate(base0, time.monotonic())

        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_clients_main, args=(srv.port, viewers, video, child, timeout_s), daemon=True)
        proc.start()
        if not parent.poll(max(1.0, deadline - time.monotonic())) or parent.recv() != "ready":
            raise RuntimeError("the viewers did not connect in time")
        chrome = _open_browsers(srv.port, browsers)
        time.sleep(0.5)
        sent: dict[int, float] = {}
        w0 = time.monotonic()
        done = 0
        while done < changes and time.monotonic() < deadline - 5:
            game = hub.replayed(store, mid).game
            legal = game.legal_actions()
            if not legal or game.outcome() is not None:
                mid = record.start_match(store, hub, "dogo-dash", "dogo-dash/table", {"players": 2, "seed": done})["id"]
                continue
            t0 = time.time()
            v = record.record_action(store, hub, mid, game.action_to_dict(legal[0]), "action", "bench")
            sent[v["seq"]] = t0
            done += 1
            time.sleep(interval_s)
        w1 = time.monotonic()
        watched_rate = loop.rate(w0, w1)
        dom = []
        if chrome is not None:
            time.sleep(0.5)
            for page in chrome[2]:
                seen = {int(q): t / 1000.0 for q, t in page.evaluate("window.__lat")}
                dom += [(seen[q] - t0) * 1000.0 for q, t0 in sent.items() if q in seen]
            chrome[1].close()
            chrome[0].stop()
        dom.sort()
        parent.send("stop")
        results = parent.recv() if parent.poll(20) else {"sse": [], "video": []}
        proc.join(10)
        loop.stop.set()
        srv.shutdown()
        app.extensions["tableref.frames"].close()
        store.close()

    lat = []
    missing = 0
    for got in results["sse"]:
        seen = {}
        for seq, t in got:
            seen.setdefault(seq, t)
        for seq, t0 in sent.items():
            if seq in seen:
                lat.append((seen[seq] - t0) * 1000.0)
            else:
                missing += 1
    lat.sort()
    vid = [(f / d if d else 0.0, b / d / 1e6 if d else 0.0) for f, b, d in (r[0] for r in results["video"] if r)]
    return {
        "viewers": viewers, "video": video, "changes": len(sent), "fps_target": fps,
        "live_fps_alone": round(base_rate, 2), "live_fps_watched": round(watched_rate, 2),
        "latency_ms": {"n": len(lat), "median": _q(lat, 0.5), "p95": _q(lat, 0.95), "max": max(lat) if lat else None},
        "missing": missing,
        "browser_dom_ms": {"n": len(dom), "median": _q(dom, 0.5), "p95": _q(dom, 0.95), "max": max(dom) if dom else None},
        "video_fps": [round(f, 1) for f, _ in vid], "video_mb_s": [round(b, 2) for _, b in vid],
    }


def _q(xs: list, q: float):
    if not xs:
        return None
    return round(xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))], 2)


def main(args) -> int:
    r = run(args.viewers, args.video, args.changes, args.interval, args.fps, args.timeout, getattr(args, "browsers", 1))
    lat = r["latency_ms"]
    print(f"web bench on 127.0.0.1: {r['viewers']} overlay SSE viewers, {r['video']} MJPEG viewers, {r['changes']} state changes")
    print(f"  state change -> viewer received: median {lat['median']} ms, p95 {lat['p95']} ms, max {lat['max']:.1f} ms "
          f"({lat['n']} deliveries, {r['missing']} missing)" if lat["n"] else "  no deliveries measured")
    dom = r["browser_dom_ms"]
    if dom["n"]:
        print(f"  state change -> overlay DOM updated in Chromium: median {dom['median']} ms, p95 {dom['p95']} ms, "
              f"max {dom['max']:.1f} ms ({dom['n']} updates)")
    print(f"  live loop: {r['live_fps_alone']} fps alone, {r['live_fps_watched']} fps while watched (target {r['fps_target']})")
    if r["video_fps"]:
        print(f"  MJPEG viewers received: {statistics.median(r['video_fps']):.1f} fps median "
              f"(min {min(r['video_fps'])}), {statistics.median(r['video_mb_s']):.2f} MB/s each")
    return 0
