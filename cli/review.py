"""``tableref review VIDEO --game G --board B [--calibration C] --out DIR``: a recorded match for judges.

Every flick with its calls, evidence images (the measurement in mm on the top-down view, beside the
camera frame) and a summary (``review.json``, ``review.txt``, ``review.html``); see
:mod:`session.review`. VIDEO is any frame source: a video file, a folder of images, or a ``sim://``
recording (``sim://dino-dunk?seed=7&target=1``: the simulator's match, seen through the oracle
detector, with its recorded facts to compare against).
"""

from __future__ import annotations

import json
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("review", help="review a recorded match: every flick with its calls, evidence and a summary",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("video", help="a video file, a folder of images, or sim://GAME?seed=N")
    p.add_argument("--game", required=True, choices=["dino-dunk", "dodo-dash", "morris", "dogo-dash"])
    p.add_argument("--board", required=True, help="board ref (dino-dunk/crater-court) or a board YAML")
    p.add_argument("--calibration", help="the mat registration (MatTransform JSON); needed for camera recordings")
    p.add_argument("--out", required=True, help="output folder (created)")
    p.add_argument("--background", help="the empty mat (an image, same size as the frames) for the classical detector")
    p.add_argument("--setup", help="JSON of the game's set-up (rules engine new_game keywords: rosters, offense, ...)")
    p.add_argument("--actions", help="the players' actions as JSON lines {\"t\": s, \"action\": {...}} (a match log)")
    p.add_argument("--names", help="JSON list of [name, x_mm, y_mm]: which piece is which at the start")
    p.add_argument("--max-frames", type=int, default=40, help="frame images kept per flick (default 40)")
    p.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: the whole recording)")
    p.add_argument("--workers", type=int, default=2,
                   help="processes seeing a camera recording's frames at once (default 2: one a core of a laptop; 1: one)")
    p.set_defaults(func=_review)


def _json_file(path, what):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: {what} is not JSON ({exc.msg} at line {exc.lineno})") from None


def _review(args) -> int:
    from session.review import review

    if args.max_frames < 0 or args.frames < 0:
        raise ValueError("--max-frames and --frames must be >= 0")
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    transform = None
    if args.calibration:
        from cli.referee import load_transform

        transform = load_transform(args.calibration)
    setup = _json_file(args.setup, "the set-up") if args.setup else None
    background = None
    if args.background:
        import cv2

        background = cv2.imread(args.background, cv2.IMREAD_COLOR)
        if background is None:
            raise OSError(f"{args.background}: not an image OpenCV can read")
    names = _json_file(args.names, "the names") if args.names else None
    summary = review(args.video, args.game, args.board, args.out, calibration=transform, setup=setup,
                     actions_path=args.actions, names=names, max_frames=args.max_frames, limit_frames=args.frames,
                     background=background, workers=args.workers)
    a = summary["agreement"]
    print(f"{len(summary['flicks'])} flicks, {summary['frames']} frames; "
          f"agreement with recorded facts {a['with_recorded_fact']}/{a['compared']}; "
          f"written {Path(args.out) / 'review.html'}, review.json, review.txt")
    return 0
