"""Export a YOLO-format detection dataset from the simulated table (boxes in **image px**,
normalised), plus crops for the classifiers, with every random choice recorded.

Layout of ``out``::

    data.yaml                     path, train, val, nc, names (ultralytics format)
    images/{train,val}/000123.png
    labels/{train,val}/000123.txt one line per visible piece: class cx cy w h (0..1)
    crops/egg-face/{whole,broken}/000123_egg-1.png      Morris egg faces
    crops/card/{cat,dog,bear,cookie,good-boy,back}/...   Dogo Dash cards (face up: kind; down: back)
    crops/disc-team/{home,away}/...                      Dino Dunk discs by team
    randomisation.jsonl           per image: suite, index, seed, frame, split, camera, style, labels
    summary.json                  counts per class and split, options

Each image is one frame of one scene from the (non near-miss) suites in turn; a piece is labelled
when at least ``min_visible`` of it is seen and its box is at least 3 px on a side. The split is
drawn from the image's own seed, so it is stable when the dataset grows.
"""

from __future__ import annotations

import json
from pathlib import Path

# YOLO classes: what the detector must find, by piece kind (scene kind -> class name)
CLASS_NAMES = ("disc-large", "disc-medium", "disc-small", "ball", "backboard", "racer", "meteorite", "log", "dodo-egg",
               "feather", "banana", "dodo", "egg", "toucan", "card")
KIND_TO_CLASS = {"disc-large": "disc-large", "disc-medium": "disc-medium", "disc-small": "disc-small", "disc-tiny": "ball",
                 "ball": "ball", "backboard": "backboard", "racer": "racer", "meteorite": "meteorite", "log": "log",
                 "feather": "feather", "banana": "banana", "dodo": "dodo", "toucan": "toucan", "card": "card"}
DATASET_SUITES = ("dino-dunk/shots", "dino-dunk/fouls", "dodo-dash/throws", "morris/eggs", "dogo-dash/reveals")
CROP_MIN_VISIBLE = 0.6


def class_of(game: str, kind: str) -> str | None:
    """The detection class of a piece kind in a game (the Dodo Dash egg projectile and the Morris
    egg token are different objects)."""
    if kind == "egg":
        return "dodo-egg" if game == "dodo-dash" else "egg"
    return KIND_TO_CLASS.get(kind)


def yolo_line(cls_id: int, bbox: tuple, size: tuple) -> str:
    """``cls cx cy w h`` normalised by the image ``size`` (w, h) from an (x0, y0, x1, y1) px box."""
    w, h = size
    x0, y0, x1, y1 = (float(v) for v in bbox)
    return f"{cls_id} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"


def labelled_boxes(truth: dict, scene, class_name, min_visible: float) -> list[tuple]:
    """(piece id, class, (x0, y0, x1, y1) image px, visible fraction) of every rendered piece worth a
    detector label: ``class_name(piece, piece_truth)`` gives a class (None: not labelled), it is at
    least ``min_visible`` visible and its box is at least 3 px each way."""
    out = []
    by_id = scene.by_id()
    for pid, t in truth.items():
        p = by_id.get(pid)
        cname = class_name(p, t) if p is not None else None
        if cname is None or t.bbox_px is None or t.visible < min_visible:
            continue
        x0, y0, x1, y1 = (float(v) for v in t.bbox_px)
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue
        out.append((pid, cname, (x0, y0, x1, y1), float(t.visible)))
    return out


def crop_label(game: str, piece) -> tuple | None:
    """(crop folder, class) for the classifiers, or None."""
    a = piece.attributes
    if game == "morris" and piece.kind == "egg" and a.get("face"):
        return "egg-face", str(a["face"])
    if game == "dogo-dash" and piece.kind == "card" and a.get("seat"):
        return "card", str(a.get("card")) if a.get("face_up") else "back"
    if game == "dino-dunk" and piece.kind.startswith("disc-") and a.get("team"):
        return "disc-team", str(a["team"])
    return None


def export_dataset(out, images: int, seed: int = 0, val_fraction: float = 0.2, suites: tuple = DATASET_SUITES,
                   size: tuple = (640, 480), min_visible: float = 0.3, crops: bool = True, progress=None, cfg=None) -> dict:
    """Write ``images`` rendered frames with YOLO labels under ``out``; returns the summary dict."""
    import cv2
    import numpy as np

    from sim.export import _jsonable, render_seed, renderer, view_for
    from sim.suites import _board, get_suite, make_scenario, scene_seed

    if images < 1:
        raise ValueError(f"--images must be at least 1, got {images}")
    if not 0.0 <= val_fraction < 1.0:
        raise ValueError(f"--val must be in [0, 1), got {val_fraction}")
    for s in suites:
        get_suite(s)
    rend = renderer()
    out = Path(out)
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    cls_id = {n: i for i, n in enumerate(CLASS_NAMES)}
    counts = {split: {n: 0 for n in CLASS_NAMES} for split in ("train", "val")}
    n_split = {"train": 0, "val": 0}
    n_crops = 0
    with open(out / "randomisation.jsonl", "w", encoding="utf-8") as rf:
        for i in range(images):
            suite = suites[i % len(suites)]
            index = i // len(suites)
            scn = make_scenario(suite, index, seed, cfg=cfg)
            board = _board(scn.board)
            iseed = scene_seed("dataset", i, seed)
            rng = np.random.default_rng(iseed)
            frame_i = int(rng.integers(len(scn.run.frames)))
            scene = scn.run.frames[frame_i]
            camera, style = view_for(rend, board, iseed, False, size)
            res = rend.render_scene(board, scene, camera, style, render_seed(iseed, frame_i))
            split = "val" if rng.random() < val_fraction else "train"
            name = f"{i:06d}"
            if not cv2.imwrite(str(out / "images" / split / f"{name}.png"), res.image, [cv2.IMWRITE_PNG_COMPRESSION, 1]):
                raise OSError(f"could not write {out / 'images' / split / name}.png")
            h, w = res.image.shape[:2]
            lines, labelled = [], []
            by_id = scene.by_id()
            boxes = labelled_boxes(res.truth, scene, lambda p, t: "card" if p.attributes.get("deck") else class_of(scene.game, t.kind),
                                   min_visible)
            for pid, cname, (x0, y0, x1, y1), visible in boxes:
                p, t = by_id[pid], res.truth[pid]
                lines.append(yolo_line(cls_id[cname], (x0, y0, x1, y1), (w, h)))
                counts[split][cname] += 1
                labelled.append({"id": pid, "class": cname, "bbox_px": [x0, y0, x1, y1], "visible": round(visible, 4)})
                lab = crop_label(scene.game, p) if crops else None
                if lab and t.visible >= CROP_MIN_VISIBLE:
                    pad = 0.15 * max(x1 - x0, y1 - y0)
                    cx0, cy0 = int(max(0, x0 - pad)), int(max(0, y0 - pad))
                    cx1, cy1 = int(min(w, x1 + pad + 1)), int(min(h, y1 + pad + 1))
                    if cx1 - cx0 >= 4 and cy1 - cy0 >= 4:
                        d = out / "crops" / lab[0] / lab[1]
                        d.mkdir(parents=True, exist_ok=True)
                        cv2.imwrite(str(d / f"{name}_{pid.replace(':', '-')}.png"), res.image[cy0:cy1, cx0:cx1])
                        n_crops += 1
            (out / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
            n_split[split] += 1
            rf.write(json.dumps(_jsonable({
                "image": f"images/{split}/{name}.png", "split": split, "suite": suite, "index": index, "suite_seed": seed,
                "scene_seed": scn.seed, "image_seed": iseed, "frame": frame_i, "t": scene.t, "board": scn.board,
                "camera": camera.to_dict(), "style": style.to_dict() if hasattr(style, "to_dict") else {},
                "labels": labelled})) + "\n")
            if progress:
                progress(i + 1, images)
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES))
    (out / "data.yaml").write_text(
        f"# tableref simulated table: YOLO detection dataset (seed {seed}, {images} images)\n"
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnc: {len(CLASS_NAMES)}\nnames:\n{names}\n",
        encoding="utf-8")
    summary = {"images": images, "seed": seed, "val_fraction": val_fraction, "suites": list(suites), "size": list(size),
               "min_visible": min_visible, "splits": n_split, "labels": counts, "crops": n_crops,
               "classes": list(CLASS_NAMES), "sim_config": getattr(cfg, "source", None) or "sim/config.yaml"}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary

