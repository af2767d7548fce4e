"""``tableref serve``: the dashboard (``--demo``: on the simulated demo table, no camera needed)."""

from __future__ import annotations

import ipaddress
import sys


class ServeError(ValueError):
    """A bad combination of serve options."""


LOOPBACK = ("localhost",)
LOOPBACK_NAMES = ["localhost", "127.0.0.1"]


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the web dashboard (live table, judge, overlay, setup, matches)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; any other needs --token)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    p.add_argument("--token", default=None, help="secret required on every request that changes anything")
    p.add_argument("--data", default=None, help="data folder for the match record (default $TABLEREF_HOME or ~/.tableref)")
    p.add_argument("--demo", action="store_true", help="play Dino Dunk on the simulated table (no camera)")
    p.add_argument("--demo-seed", type=int, default=7, help="seed of the demo table")
    p.add_argument("--demo-pace", type=float, default=1.0, help="seconds between the demo players' actions")
    p.add_argument("--demo-auto-confirm", type=float, default=8.0,
                   help="seconds after which the demo's judge confirms a pending call (negative: never)")
    p.add_argument("--demo-path", choices=["auto", "session", "truth"], default="auto",
                   help="where the demo's calls come from: the live-table session (session), the simulator's true "
                        "positions with an assumed sigma (truth), or the session when usable (auto, the default)")
    p.add_argument("--demo-detector", choices=["oracle", "vision"], default="oracle",
                   help="the session demo's detector: the simulator's positions with noise (oracle, light), or "
                        "vision.detect on every rendered frame (vision, about one core)")
    p.add_argument("--resume", action="store_true", help="with --demo: continue the match on the table instead of starting one")
    p.add_argument("--source", default="", help="video source: a webcam index (0), a video file, a folder of images, "
                   "an rtsp:// or http:// stream, or sim://GAME?seed=N; refereeing starts from the setup page "
                   "once the mat is registered and the empty mat captured")
    p.add_argument("--verbose", action="store_true", help="log every request")
    p.set_defaults(func=_serve)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _serve(args) -> int:
    import logging

    from werkzeug.serving import make_server

    from webui import create_app
    from webui.store import default_data_dir

    if not is_loopback(args.host) and not args.token:
        raise ServeError(f"serving on {args.host} exposes the referee to the network: add --token SECRET "
                         "(every change then needs it), or use --host 127.0.0.1")
    if not 0 <= args.port <= 65535:
        raise ServeError(f"--port must be 0..65535, got {args.port}")
    if args.demo and args.source:
        raise ServeError("--demo brings its own simulated table: give --demo or --source, not both")
    if args.data:
        import os

        # one data folder for the whole process: vision.classify finds taught profiles under TABLEREF_HOME
        os.environ["TABLEREF_HOME"] = str(args.data)
    config = {"DATA_DIR": str(args.data or default_data_dir()), "TOKEN": args.token,
              "SOURCE": "sim (demo)" if args.demo else args.source}
    if is_loopback(args.host) and ":" not in args.host:
        # DNS rebinding: a web page's own name resolving to 127.0.0.1 gets a 400. (Werkzeug cannot
        # match IPv6 literals in TRUSTED_HOSTS, so ::1 goes without this check.)
        config["TRUSTED_HOSTS"] = sorted(set(LOOPBACK_NAMES) | {args.host})
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.INFO if args.verbose else logging.WARNING)
    app = create_app(config)
    video = None
    if args.source:
        from webui.sources import open_video

        video = open_video(app, args.source)  # a bad source fails here, before the port is taken
    server = make_server(args.host, args.port, app, threaded=True)
    demo = None
    if args.demo:
        from webui.demo_session import start_demo

        auto = None if args.demo_auto_confirm < 0 else args.demo_auto_confirm
        demo = start_demo(app, args.demo_path, seed=args.demo_seed, pace_s=args.demo_pace, auto_confirm_s=auto,
                          new_match=not args.resume, detector=args.demo_detector)
        print(f"tableref: demo {app.extensions['tableref.demo']['label']}", flush=True)
    if video:
        video.start()
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"tableref: dashboard on http://{host}:{server.port}/  (data in {config['DATA_DIR']}; Ctrl-C stops)",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("tableref: stopped", file=sys.stderr)
    finally:
        if demo:
            demo.stop()
        if video:
            video.stop()
        app.extensions["tableref.frames"].close()
        server.server_close()
    return 0
