"""``tableref train``: reproduce the shipped models.

- ``tableref train attributes [--task T ...] [--frames N] [--test-frames N] [--seed S] [--out DIR]``
  renders training crops with the simulator, fits the attribute classifiers
  (``vision/classify.py``), measures them on renders of other seeds and writes
  ``models/attributes/<task>.npz`` and ``metrics.json``.

- ``tableref train detector [--images N] [--seed S] [--epochs E] [--hours H] [--data DIR] [--out DIR]``
  renders the YOLO dataset (``vision/detector_data.py``), trains yolo11n from scratch on the CPU
  (``vision/yolo.py``), and writes ``detector.pt``, ``detector.onnx`` and ``train.json`` to
  ``models/detector`` (see its README for the shipped run).

- ``tableref train blobs [--frames N] [--seed S] [--epochs E] [--out DIR]`` renders scenes of the
  four games, finds the classical detector's proposals and round pieces in them as it does at run
  time (``vision/blobs.py``), labels each by the rendered piece under it, fits the small CNN that
  names them and writes ``blobs.npz`` and ``metrics.json`` to ``models/blobs``.
"""

from __future__ import annotations

import argparse


def register(subparsers) -> None:
    p = subparsers.add_parser("train", help="train the shipped models (attribute classifiers, detector, non-round classifier)",
                              description="Train the shipped models from simulator renders.")
    sub = p.add_subparsers(dest="train_what", metavar="WHAT")
    sub.required = True
    a = sub.add_parser("attributes", help="the attribute classifiers (egg face and colour, card kind, team, colour, racer colour, "
                                          "Dino Dunk's round piece size)",
                       description="Render crops, fit the attribute classifiers, measure them on other seeds, save them.")
    a.add_argument("--task", action="append", default=None,
                   help="a task to train (repeat; default: all of egg-face, egg-colour, card, team, colour, racer-colour, size)")
    a.add_argument("--frames", type=int, default=None,
                   help="training renders per task (about 24 pieces each; default: the task's recipe, 600 or 1200)")
    a.add_argument("--test-frames", type=int, default=150, help="held-out renders per task (other seeds)")
    a.add_argument("--seed", type=int, default=1, help="training seed; the test seed is seed + 1000")
    a.add_argument("--out", default=None, help="output folder (default: models/attributes)")
    a.add_argument("--quiet", action="store_true", help="no progress bars")
    a.set_defaults(func=run_attributes)

    d = sub.add_parser("detector", help="the YOLO piece detector (every class of the four games), from scratch on the CPU",
                       description="Render the simulator's detection dataset, train yolo11n from scratch, export ONNX.")
    d.add_argument("--images", type=int, default=1000, help="rendered images (default 1000, 20%% for validation)")
    d.add_argument("--seed", type=int, default=11, help="dataset seed (the vision bench uses another)")
    d.add_argument("--epochs", type=int, default=60, help="epochs (default 60; --hours caps the run)")
    d.add_argument("--hours", type=float, default=1.1, help="wall-clock budget in hours (default 1.1; 0: epochs only)")
    d.add_argument("--imgsz", type=int, default=320, help="network input size (default 320)")
    d.add_argument("--batch", type=int, default=16)
    d.add_argument("--optimizer", default="AdamW", help="ultralytics optimizer (default AdamW; 'auto' picks a "
                                                        "fine-tuning rate that barely trains a network from scratch)")
    d.add_argument("--lr0", type=float, default=0.002, help="initial learning rate (default 0.002)")
    d.add_argument("--workers", type=int, default=2)
    d.add_argument("--data", default=None, help="dataset folder (reused if it has data.yaml; default a temp folder)")
    d.add_argument("--runs", default=None, help="ultralytics run folder (default: a temp folder)")
    d.add_argument("--out", default=None, help="output folder (default: models/detector)")
    d.set_defaults(func=run_detector)

    b = sub.add_parser("blobs", help="the classical detector's classifier of non-round pieces (racers, projectiles, "
                                     "cards, toucan, hunter) and of round finds that are part of a figure",
                       description="Render scenes, cut the classical detector's proposals, fit the small CNN, save it.")
    b.add_argument("--frames", type=int, default=2400, help="rendered scenes (default 2400; the last 10%% validate)")
    b.add_argument("--seed", type=int, default=11, help="scene seed (default 11; the vision bench uses 90210)")
    b.add_argument("--epochs", type=int, default=None, help="training epochs (default: the recipe's)")
    b.add_argument("--out", default=None, help="output folder (default: models/blobs)")
    b.add_argument("--quiet", action="store_true", help="no progress bars")
    b.set_defaults(func=run_blobs)


def run_attributes(args: argparse.Namespace) -> int:
    import json
    import time
    from pathlib import Path

    from vision.attribute_data import render_crops
    from vision.classify import SHIPPED_DIR, TASKS, get_task, train_task

    tasks = args.task or list(TASKS)
    for t in tasks:
        get_task(t)
    if (args.frames is not None and args.frames < 2) or args.test_frames < 1:
        raise ValueError("--frames must be at least 2 and --test-frames at least 1")
    out = Path(args.out) if args.out else SHIPPED_DIR
    out.mkdir(parents=True, exist_ok=True)
    metrics_path = out / "metrics.json"
    all_metrics = json.loads(metrics_path.read_text()) if metrics_path.exists() else {}
    for task in tasks:
        t0 = time.perf_counter()
        frames = args.frames or get_task(task).frames
        train = render_crops(task, frames, seed=args.seed, progress=_bar(f"{task}: train renders", args.quiet))
        test = render_crops(task, args.test_frames, seed=args.seed + 1000, progress=_bar(f"{task}: test renders", args.quiet))
        t1 = time.perf_counter()
        meta = {"data": f"render_crops({task!r}, frames={frames}, seed={args.seed})",
                "test_data": f"render_crops({task!r}, frames={args.test_frames}, seed={args.seed + 1000})"}
        clf, m = train_task(task, train.crops, train.labels, test.crops, test.labels, meta=meta,
                            progress=None if args.quiet else _epochs(task))
        t2 = time.perf_counter()
        path = clf.save(out / f"{task}.npz")
        m.update({"n_train": len(train), "render_s": round(t1 - t0, 1), "fit_s": round(t2 - t1, 1),
                  "frames": frames, "test_frames": args.test_frames, "seed": args.seed,
                  "file_kb": round(path.stat().st_size / 1024, 1)})
        all_metrics[task] = m
        metrics_path.write_text(json.dumps(all_metrics, indent=1, sort_keys=True) + "\n")
        print(f"{task:10s} accuracy {m['accuracy'] * 100:6.2f}% on {m['n']} held-out crops "
              f"({len(train)} train; render {t1 - t0:.0f}s, fit {t2 - t1:.0f}s) -> {path}")
    return 0


def _epochs(task: str):
    """``progress(epoch, epochs, history)`` for a network's training: one line per epoch."""

    def show(epoch: int, epochs: int, history: list) -> None:
        last = history[-1] if history else {}
        figures = ", ".join(f"{k} {v:.4g}" for k, v in last.items() if isinstance(v, (int, float)) and k != "epoch")
        print(f"{task}: epoch {epoch}/{epochs}" + (f" ({figures})" if figures else ""), flush=True)

    return show


def run_detector(args: argparse.Namespace) -> int:
    import json
    import platform
    import shutil
    import tempfile
    import time
    from pathlib import Path

    from vision.detector_data import CLASSES, export, write_data_yaml
    from vision.yolo import export_onnx, train

    if args.images < 10:
        raise ValueError("--images must be at least 10")
    root = Path(__file__).resolve().parents[1]
    out = Path(args.out) if args.out else root / "models" / "detector"
    data = Path(args.data) if args.data else Path(tempfile.mkdtemp(prefix="tableref-detector-data-"))
    runs = Path(args.runs) if args.runs else Path(tempfile.mkdtemp(prefix="tableref-detector-runs-"))
    t0 = time.perf_counter()
    if not (data / "data.yaml").exists():
        export(data, args.images, seed=args.seed, progress=_bar("render dataset", False))
    write_data_yaml(data, args.seed, args.images)
    t1 = time.perf_counter()
    print(f"dataset: {data} ({t1 - t0:.0f}s); training yolo11n from scratch, imgsz {args.imgsz}, "
          f"{args.epochs} epochs or {args.hours} h", flush=True)
    best = train(data / "data.yaml", runs / "detector", epochs=args.epochs, imgsz=args.imgsz, batch=args.batch,
                 seed=args.seed, workers=args.workers, hours=args.hours or None, optimizer=args.optimizer, lr0=args.lr0)
    t2 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(best, out / "detector.pt")
    onnx = export_onnx(out / "detector.pt", imgsz=args.imgsz)
    facts = {"classes": list(CLASSES), "images": args.images, "seed": args.seed, "imgsz": args.imgsz, "batch": args.batch,
             "optimizer": args.optimizer, "lr0": args.lr0, "epochs_asked": args.epochs, "hours": args.hours, "data_s": round(t1 - t0), "train_s": round(t2 - t1),
             "results_csv": (runs / "detector" / "results.csv").read_text() if (runs / "detector" / "results.csv").exists() else "",
             "machine": f"{platform.machine()} {platform.processor()}", "onnx": onnx.name}
    (out / "train.json").write_text(json.dumps(facts, indent=1) + "\n")
    print(f"wrote {out / 'detector.pt'} and {onnx} (train {t2 - t1:.0f}s)")
    return 0


def run_blobs(args: argparse.Namespace) -> int:
    import json
    import time
    from pathlib import Path

    from vision.blobs import DEFAULT_MODEL, RECIPE_EPOCHS, render_crops, train

    if args.frames < 10:
        raise ValueError("--frames must be at least 10")
    if args.seed == 90210:
        raise ValueError("seed 90210 is the vision bench's: train on another")
    epochs = args.epochs or RECIPE_EPOCHS
    out = Path(args.out) if args.out else DEFAULT_MODEL.parent
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    data = render_crops(args.frames, seed=args.seed, progress=_bar("blobs: renders", args.quiet))
    t1 = time.perf_counter()
    counts = {}
    for lab in data.labels:
        counts[lab] = counts.get(lab, 0) + 1
    print(f"{len(data)} crops from {args.frames} renders ({t1 - t0:.0f}s): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), flush=True)
    meta = {"data": f"vision.blobs.render_crops(frames={args.frames}, seed={args.seed})", "counts": counts}
    clf, metrics = train(data, epochs=epochs, meta=meta, progress=None if args.quiet else _epochs("blobs"))
    t2 = time.perf_counter()
    path = clf.save(out / "blobs.npz")
    metrics.update({"frames": args.frames, "seed": args.seed, "epochs": epochs, "counts": counts,
                    "render_s": round(t1 - t0, 1), "fit_s": round(t2 - t1, 1), "file_kb": round(path.stat().st_size / 1024, 1)})
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1, sort_keys=True) + "\n")
    val = metrics.get("val", {})
    print(f"blobs: validation accuracy {100 * val.get('accuracy', float('nan')):.2f}% on {val.get('n', 0)} crops "
          f"(render {t1 - t0:.0f}s, fit {t2 - t1:.0f}s) -> {path}")
    return 0


def _bar(label: str, quiet: bool):
    if quiet:
        return None
    from tqdm import tqdm

    state = {}

    def update(done: int, total: int) -> None:
        if "bar" not in state:
            state["bar"] = tqdm(total=total, desc=label, unit="frame", leave=False)
        state["bar"].update(done - state["bar"].n)
        if done >= total:
            state["bar"].close()

    return update
