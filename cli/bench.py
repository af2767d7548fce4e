"""``tableref bench …``: performance benchmarks (commands, not timed tests). Each subcommand imports
its benchmark lazily; other packages add theirs here with a parser and a small runner."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("bench", help="performance benchmarks (renderer, …)")
    bs = p.add_subparsers(dest="bench_command", metavar="BENCHMARK")
    bs.required = True

    rp = bs.add_parser("render", help="frames/s of the simulated-table renderer on one core, per stage")
    rp.add_argument("--frames", type=int, default=120, help="frames per board (default 120)")
    rp.add_argument("--size", default="640x480", help="frame size WxH (default 640x480)")
    rp.add_argument("--threads", type=int, default=1, help="OpenCV threads (default 1: one core)")
    rp.add_argument("--seed", type=int, default=0)
    rp.add_argument("--json", action="store_true", help="print the figures as JSON")
    rp.set_defaults(func=_render)

    ref = bs.add_parser("referee", help="every referee call on noisy near-miss cases: correct / too close / wrong-while-confident")
    ref.add_argument("--calls", type=int, default=10000, help="calls per call type (default 10000)")
    ref.add_argument("--k", type=float, default=None, help="too-close multiple of σ (default: referee/config.yaml)")
    ref.add_argument("--seed", type=int, default=0)
    ref.add_argument("--no-sim", action="store_true", help="skip the simulator's near-miss suites")
    ref.add_argument("--json", action="store_true", help="print the rows as JSON")
    ref.set_defaults(func=_referee)

    sp = bs.add_parser("sim", help="scenes/s of each simulator suite (physics + ground truth, no rendering)")
    sp.add_argument("--count", type=int, default=50, help="scenes per suite (default 50)")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--suite", action="append", help="only this suite (repeatable)")
    sp.add_argument("--json", action="store_true", help="print the rows as JSON")
    sp.set_defaults(func=_sim)

    vp = bs.add_parser("vision", help="detection + refinement on simulated frames: recall, precision, mm errors, "
                                      "σ calibration, ms per stage; classical and YOLO side by side")
    vp.add_argument("--frames", type=int, default=60, help="frames per view (default 60)")
    vp.add_argument("--view", action="append", choices=("framed", "wide"),
                    help="camera view: framed (the mat fills the frame: the bars) or wide (the simulator's cameras); "
                         "default both")
    vp.add_argument("--method", action="append", choices=("classical", "yolo", "hybrid"),
                    help="detector (default: all three)")
    vp.add_argument("--model", help="detector model (default models/detector/detector.onnx)")
    vp.add_argument("--seed", type=int, default=90210, help="suite seed (the detector trained on seed 11)")
    vp.add_argument("--threads", type=int, default=2, help="OpenCV and ONNX Runtime threads (default 2)")
    vp.add_argument("--workers", type=int, default=2,
                    help="also the framed frames on this many worker processes, a frame each: the throughput of the "
                         "cores (default 2; 1: skip)")
    vp.add_argument("--cold", action="store_true",
                    help="the classical detector reads the table's light from each frame as it goes (default: it holds "
                         "the light read in a first, untimed, look at the frame, as a camera that has watched the table does)")
    vp.add_argument("--json", metavar="OUT", help="also write the full report as JSON")
    vp.set_defaults(func=_vision)

    lv = bs.add_parser("live", help="the live table on simulator suites: hits, fouls, identities, frame time, call latency, memory")
    lv.add_argument("--throws", type=int, default=1000, help="dodo-dash/throws scenes (default 1000)")
    lv.add_argument("--fouls", type=int, default=1000, help="dino-dunk/fouls scenes (default 1000)")
    lv.add_argument("--seed", type=int, default=7, help="suite seed (default 7: never used to set a threshold)")
    lv.add_argument("--start", type=int, default=10000, help="first scene index (default 10000)")
    lv.add_argument("--no-game", action="store_true", help="skip the whole-game memory run")
    lv.add_argument("--real", type=int, default=0, help="also N dino-dunk/fouls scenes rendered and seen by the real detector")
    lv.add_argument("--real-throws", type=int, default=0,
                    help="also N dodo-dash/throws scenes rendered and seen by the real detector")
    lv.add_argument("--games", type=int, default=20,
                    help="also N whole simulated Dino Dunk games, every call against the truth (default 20; 0: skip)")
    lv.add_argument("--games-start", type=int, default=1000,
                    help="first game seed (default 1000: never used to set a threshold)")
    lv.add_argument("--json", action="store_true", help="print the figures as JSON")
    lv.set_defaults(func=_live)

    web = bs.add_parser("web", help="50 overlay SSE viewers + 5 MJPEG viewers on loopback; state change -> viewer latency")
    web.add_argument("--viewers", type=int, default=50, help="SSE (overlay) viewers, 1..200")
    web.add_argument("--video", type=int, default=5, help="MJPEG viewers, 0..20")
    web.add_argument("--changes", type=int, default=30, help="state changes to time, 1..500")
    web.add_argument("--interval", type=float, default=0.2, help="seconds between changes")
    web.add_argument("--fps", type=float, default=15.0, help="the live loop's frame rate")
    web.add_argument("--timeout", type=float, default=90.0, help="bound on the whole run, seconds")
    web.add_argument("--browsers", type=int, default=1, help="Chromium overlay pages timing the DOM update (0..5; needs /usr/bin/chromium)")
    web.set_defaults(func=_web)


def _size(text: str) -> tuple:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size must look like 640x480, got {text!r}") from None
    if not (16 <= w <= 4096 and 16 <= h <= 4096):
        raise ValueError(f"--size must be between 16x16 and 4096x4096, got {text!r}")
    return w, h


def _render(args) -> int:
    import json

    from sim.bench import bench_render, format_report

    if args.frames < 1:
        raise ValueError(f"--frames must be at least 1, got {args.frames}")
    report = bench_render(frames=args.frames, size=_size(args.size), seed=args.seed, threads=args.threads)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


def _sim(args) -> int:
    import json

    from sim.suites import bench_suites, get_suite

    if args.count < 1:
        raise ValueError(f"--count must be at least 1, got {args.count}")
    for name in args.suite or ():
        get_suite(name)
    rows = bench_suites(args.count, args.seed, tuple(args.suite) if args.suite else None)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'suite':<22} {'scenes':>6} {'s':>7} {'scenes/s':>9} {'settle s':>9} {'contacts':>9}")
    for r in rows:
        print(f"{r['suite']:<22} {r['scenes']:>6} {r['seconds']:>7.2f} {r['scenes_per_s']:>9.1f} {r['mean_settle_s']:>9.3f} "
              f"{r['mean_contacts']:>9.2f}")
    return 0


def _vision(args) -> int:
    import json
    import sys

    from vision.bench import format_report, run_bench

    if args.frames < 1:
        raise ValueError(f"--frames must be at least 1, got {args.frames}")
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    report = run_bench(args.frames, tuple(args.view or ("framed", "wide")), tuple(args.method or ("classical", "yolo", "hybrid")),
                       model=args.model, seed=args.seed, threads=args.threads, progress=progress,
                       workers=args.workers, warm=not args.cold)
    print(format_report(report))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
    return 0


def _web(args) -> int:
    from webui.bench import main

    return main(args)


def _referee(args) -> int:
    from referee.bench import main

    return main(args)


def _live(args) -> int:
    from session.bench import main

    return main(args)
