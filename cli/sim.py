"""``tableref sim list | SUITE | dataset``: the simulated table from the command line.

- ``tableref sim list``                                   the named suites
- ``tableref sim SUITE --count N --out DIR [--format png|mp4|none] [--contact-sheet sheet.png]``
  writes frames and the JSONL ground truth (see :mod:`sim.export`)
- ``tableref sim dataset --out DIR --images N``           a YOLO dataset (see :mod:`sim.dataset`)
"""

from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser("sim", help="the simulated table: list suites, write scenes and ground truth, export datasets",
                       description="tableref sim list | tableref sim SUITE --count N --out DIR | "
                                   "tableref sim dataset --out DIR --images N")
    p.add_argument("target", metavar="SUITE", help="a suite name (see `tableref sim list`; several separated by commas), "
                                                  "'list' or 'dataset'")
    p.add_argument("--count", type=int, default=10, help="scenes to write (default 10)")
    p.add_argument("--start", type=int, default=0, help="index of the first scene (default 0)")
    p.add_argument("--seed", type=int, default=0, help="suite seed: (suite, index, seed) fixes a scene (default 0)")
    p.add_argument("--out", help="output folder")
    p.add_argument("--format", default="png", choices=("png", "mp4", "none"),
                   help="frames as PNG files, one MP4 per scene, or none (ground truth only)")
    p.add_argument("--frames", default="all", choices=("all", "final", "first-last"), help="which frames of each scene")
    p.add_argument("--size", default="640x480", help="image size WxH (default 640x480; 1280x720 on request)")
    p.add_argument("--clean", action="store_true", help="the neutral style: no noise, blur, shadows or occluders")
    p.add_argument("--board", help="force one board (game/name) instead of the suite's boards")
    p.add_argument("--sim-config", help="a YAML overriding any keys of sim/config.yaml (physics, ranges, p_broken ...)")
    p.add_argument("--contact-sheet", dest="sheet", help="also draw a grid of the scenes' last frames to this PNG")
    p.add_argument("--images", type=int, help="dataset: number of images")
    p.add_argument("--val", type=float, default=0.2, help="dataset: validation fraction (default 0.2)")
    p.add_argument("--min-visible", type=float, default=0.3, help="dataset: least visible fraction to label a piece")
    p.add_argument("--no-crops", action="store_true", help="dataset: skip the classifier crops")
    p.set_defaults(func=_run)


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\r{done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)


def _run(args) -> int:
    from cli.main import CliError

    if args.target == "list":
        from sim.suites import list_suites

        for s in list_suites():
            print(f"{s.name:<22} {s.description}{'  (near miss)' if s.near_miss else ''}  boards: {', '.join(s.boards)}")
        return 0
    if not args.out:
        raise CliError(f"tableref sim {args.target}: --out DIR is required")
    from sim.export import parse_size

    size = parse_size(args.size)
    cfg = None
    if args.sim_config:
        from sim.config import load_sim_config

        cfg = load_sim_config(args.sim_config)
    if args.target == "dataset":
        if args.images is None:
            raise CliError("tableref sim dataset: --images N is required")
        from sim.dataset import export_dataset

        summary = export_dataset(args.out, args.images, args.seed, args.val, size=size, min_visible=args.min_visible,
                                 crops=not args.no_crops, progress=_progress, cfg=cfg)
        labels = sum(sum(c.values()) for c in summary["labels"].values())
        print(f"wrote {summary['images']} images ({summary['splits']['train']} train, {summary['splits']['val']} val), "
              f"{labels} boxes, {summary['crops']} crops to {args.out} (data.yaml)")
        return 0
    if args.images is not None:
        raise CliError("--images is for `tableref sim dataset`; use --count for a suite")
    from sim.export import contact_sheet, write_suite
    from sim.suites import get_suite

    names = [n for n in args.target.split(",") if n]
    for name in names:
        get_suite(name)
    if len(names) == 1:
        summary = write_suite(names[0], args.count, args.out, seed=args.seed, start=args.start, fmt=args.format,
                              frames=args.frames, size=size, clean=args.clean, sheet=args.sheet, board=args.board,
                              progress=_progress, cfg=cfg)
        scenes, frames = summary["scenes"], summary["frames"]
    else:  # several suites: one folder each under --out, one contact sheet for all
        from pathlib import Path

        thumbs = [] if args.sheet else None
        scenes = frames = 0
        for name in names:
            summary = write_suite(name, args.count, Path(args.out) / name.replace("/", "-"), seed=args.seed, start=args.start,
                                  fmt=args.format, frames=args.frames, size=size, clean=args.clean, board=args.board,
                                  progress=_progress, cfg=cfg, thumbs=thumbs)
            scenes, frames = scenes + summary["scenes"], frames + summary["frames"]
        if args.sheet:
            contact_sheet(thumbs, args.sheet, cols=args.count if args.count <= 6 else None)
    extra = f", contact sheet {args.sheet}" if args.sheet else ""
    print(f"wrote {scenes} scenes, {frames} frames to {args.out} (truth.jsonl, frames.jsonl){extra}")
    return 0
