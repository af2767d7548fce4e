"""The YOLO detector's training data: simulator frames with boxes in **image px** (YOLO format),
for every class the four games need.

It draws scenes from the simulator's suites like ``sim.dataset.export_dataset`` and adds what the
suites never place: Dino Dunk tails, the Morris hunter and shelters (put on free spots of the mat,
**mat mm**), cards split by face (``card-up`` / ``card-down``: the draw pile is face down) and the
hand occluder as a class of its own (its box from ``sim.effects.hand_shapes``, clipped to the frame).

Layout of ``out`` (ultralytics format)::

    data.yaml  images/{train,val}/000123.png  labels/{train,val}/000123.txt
    randomisation.jsonl   per image: suite, index, seeds, frame, camera, style, labels
    summary.json          counts per class and split

``shard=(k, n)`` writes only images ``i`` with ``i % n == k`` (run n processes, then
:func:`write_data_yaml`); the split and every draw come from the image's own seed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

CLASSES = ("disc-large", "disc-medium", "disc-small", "ball", "tail", "backboard", "racer", "meteorite", "log",
           "dodo-egg", "feather", "banana", "dodo", "egg", "toucan", "hunter", "shelter", "card-up", "card-down", "hand")
_SAME = {"disc-large", "disc-medium", "disc-small", "ball", "tail", "backboard", "racer", "meteorite", "log",
         "feather", "banana", "dodo", "toucan", "hunter", "shelter"}


def class_of(game: str, piece) -> str | None:
    """The detector class of a simulated piece (``sim.scene.PieceState``), or None if not detected."""
    kind = piece.kind
    if kind == "egg":
        return "dodo-egg" if game == "dodo-dash" else "egg"
    if kind == "disc-tiny":
        return "ball"
    if kind in _SAME:
        return kind
    if kind == "card" or kind.endswith("-card"):
        a = piece.attributes
        if a.get("deck"):
            return "card-down"
        up = bool(a["face_up"]) if "face_up" in a else str(a.get("face", "up")).lower() not in ("down", "back")
        return "card-up" if up else "card-down"
    return None


def hand_box(occ, size: tuple) -> tuple | None:
    """(x0, y0, x1, y1) image px of a hand occluder's arm and fingers clipped to the frame, or None."""
    from sim.effects import hand_shapes

    w, h = size
    pts = []
    for s in hand_shapes(occ, size):
        if s[0] == "line":
            _, p0, p1, thick, _ = s
            for p in (p0, p1):
                pts += [np.asarray(p) + [dx * thick / 2, dy * thick / 2] for dx in (-1, 1) for dy in (-1, 1)]
        else:
            _, c, axes, _, _ = s
            r = max(axes)
            pts += [np.asarray(c) + [dx * r, dy * r] for dx in (-1, 1) for dy in (-1, 1)]
    pts = np.array(pts)
    x0, y0 = np.clip(pts.min(0), 0, [w - 1, h - 1])
    x1, y1 = np.clip(pts.max(0), 0, [w - 1, h - 1])
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    return float(x0), float(y0), float(x1), float(y1)


def add_extras(scene, board, specs, rng: np.random.Generator):
    """A copy of ``scene`` with pieces the suites never place, on free spots of the mat (mat mm):
    Dino Dunk tails, the Morris hunter and shelters. Returns the new scene."""
    from sim.scene import PieceState, Scene

    extra = []
    if scene.game == "dino-dunk" and rng.random() < 0.6:
        for k in range(int(rng.integers(1, 3))):
            extra.append(("tail", {"team": str(rng.choice(["home", "away"]))}))
    if scene.game == "morris":
        if rng.random() < 0.6:
            extra.append(("hunter", {}))
        if rng.random() < 0.6:
            for k in range(int(rng.integers(1, 3))):
                extra.append(("shelter", {}))
    if not extra:
        return scene
    pieces = list(scene.pieces)
    taken = [(p.x, p.y, max(p.radius, 0.5 * max(p.size or (0,)))) for p in pieces]
    game_specs = specs.of_game(scene.game)
    for n, (kind, attrs) in enumerate(extra):
        spec = game_specs[kind]
        r = spec.radius
        for _ in range(40):
            x = float(rng.uniform(r + 5, board.length_mm - r - 5))
            y = float(rng.uniform(r + 5, board.width_mm - r - 5))
            if all(math.hypot(x - tx, y - ty) > r + tr + 3 for tx, ty, tr in taken):
                pieces.append(PieceState(f"extra:{kind}-{n}", kind, x, y, radius=r, height=spec.height, attributes=attrs))
                taken.append((x, y, r))
                break
    return Scene(scene.game, scene.board, pieces, scene.t)


def export(out, images: int, seed: int = 0, val_fraction: float = 0.2, size: tuple = (640, 480),
           min_visible: float = 0.3, shard: tuple = (0, 1), progress=None) -> dict:
    """Render ``images`` frames (those of ``shard``) with YOLO labels under ``out``; returns counts."""
    import cv2

    from calibration.specs import load_specs
    from sim.dataset import DATASET_SUITES
    from sim.export import _jsonable, render_seed, renderer, view_for
    from sim.suites import _board, make_scenario, scene_seed
    from sim.dataset import labelled_boxes, yolo_line

    if images < 1:
        raise ValueError(f"images must be at least 1, got {images}")
    rend = renderer()
    specs = load_specs()
    out = Path(out)
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    cid = {n: i for i, n in enumerate(CLASSES)}
    counts = {split: {n: 0 for n in CLASSES} for split in ("train", "val")}
    k, n_shards = shard
    mine = [i for i in range(images) if i % n_shards == k]
    with open(out / f"randomisation.{k}.jsonl", "w", encoding="utf-8") as rf:
        for done, i in enumerate(mine):
            suite = DATASET_SUITES[i % len(DATASET_SUITES)]
            index = i // len(DATASET_SUITES)
            scn = make_scenario(suite, index, seed)
            board = _board(scn.board)
            iseed = scene_seed("detector", i, seed)
            rng = np.random.default_rng(iseed)
            frame_i = int(rng.integers(len(scn.run.frames)))
            scene = add_extras(scn.run.frames[frame_i], board, specs, rng)
            camera, style = view_for(rend, board, iseed, False, size)
            res = rend.render_scene(board, scene, camera, style, render_seed(iseed, frame_i))
            split = "val" if rng.random() < val_fraction else "train"
            name = f"{i:06d}"
            if not cv2.imwrite(str(out / "images" / split / f"{name}.png"), res.image):
                raise OSError(f"could not write {out / 'images' / split / name}.png")
            h, w = res.image.shape[:2]
            lines, labelled = [], []
            for pid, cname, box, visible in labelled_boxes(res.truth, scene, lambda p, t: class_of(scene.game, p),
                                                           min_visible):
                lines.append(yolo_line(cid[cname], box, (w, h)))
                counts[split][cname] += 1
                labelled.append({"id": pid, "class": cname, "bbox_px": list(box), "visible": round(visible, 4)})
            for occ in getattr(style, "occluders", ()):
                box = hand_box(occ, (w, h)) if occ.kind == "hand" else None
                if box is not None:
                    lines.append(yolo_line(cid["hand"], box, (w, h)))
                    counts[split]["hand"] += 1
                    labelled.append({"id": "hand", "class": "hand", "bbox_px": list(box), "visible": 1.0})
            (out / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
            rf.write(json.dumps(_jsonable({
                "image": f"images/{split}/{name}.png", "split": split, "suite": suite, "index": index, "suite_seed": seed,
                "image_seed": iseed, "frame": frame_i, "board": scn.board, "camera": camera.to_dict(),
                "style": style.to_dict() if hasattr(style, "to_dict") else {}, "labels": labelled})) + "\n")
            if progress:
                progress(done + 1, len(mine))
    (out / f"summary.{k}.json").write_text(json.dumps({"images": len(mine), "seed": seed, "labels": counts}, indent=1))
    if n_shards == 1:
        write_data_yaml(out, seed, images)
    return counts


def write_data_yaml(out, seed: int, images: int) -> Path:
    """The ultralytics ``data.yaml`` for a dataset written by :func:`export`."""
    out = Path(out)
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CLASSES))
    path = out / "data.yaml"
    path.write_text(f"# tableref detector dataset (vision/detector_data.py, seed {seed}, {images} images)\n"
                    f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnc: {len(CLASSES)}\nnames:\n{names}\n",
                    encoding="utf-8")
    return path
