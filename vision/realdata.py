"""How well the vision generalises to real photographs of pieces that are not ours.

``../shared/realdata`` (read-only; never copied into the project) holds ``checkers/`` (top-down
photos of red and green checkers, YOLO labels 0=G green king, 1=R red king, 2=g green man, 3=r red
man; ``test/`` and ``valid/`` clean, ``train/`` augmented copies of *other* photos) and
``cards/test/`` (phone photos of playing cards, Pascal VOC boxes).

``realdata_report(root, teach_images=3)`` measures, each time with the shipped settings and after
teaching from a few labelled photos that are not evaluated:

- checkers: disc recall and precision (a found disc matched to a labelled box by its centre and
  radius, ``match_discs``; also by box IoU >= 0.5, which penalises a finder that measures the top
  face rather than the annotator's box round the whole piece) of the classical disc finder (``vision/classical_discs.py``) and of any extra
  detector passed in ``detectors``; and the colour (red / green) accuracy of the matched discs —
  shipped: the ``colour`` classifier's named colour; taught: ``teach`` on crops of the teaching
  photos (``team`` task, classes green / red);
- cards: card-quad recall (and precision) of ``vision/cards.find_card_quads`` (a quad's box matched
  to a VOC box by IoU >= 0.5); taught: the finder's thresholds chosen on the teaching photos.

Teaching for the finders is a small grid search of their thresholds on the labelled teaching photos
(best F1); the images evaluated are never among them. ``format_report`` prints the table.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import numpy as np

CHECKER_COLOURS = {0: "green", 1: "red", 2: "green", 3: "red"}
RED_NAMES = {"red", "pink", "orange", "brown", "purple", "yellow"}  # warm-ish named colours → red team


def default_root() -> Path:
    """``<repo>/../shared/realdata``."""
    return Path(__file__).resolve().parents[1].parent / "shared" / "realdata"


# ------------------------------------------------------------------------------------------------
# reading the labelled photos


def read_yolo(image_path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(n, 4) xyxy image px and (n,) class ids of the YOLO label file next to ``image_path``."""
    import cv2

    label = image_path.parent.parent / "labels" / (image_path.stem + ".txt")
    h, w = cv2.imread(str(image_path)).shape[:2]
    boxes, cls = [], []
    if label.exists():
        for line in label.read_text().split("\n"):
            parts = line.split()
            if len(parts) != 5:
                continue
            c, x, y, bw, bh = int(parts[0]), *map(float, parts[1:])
            boxes.append([(x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h])
            cls.append(c)
    return np.array(boxes, np.float64).reshape(-1, 4), np.array(cls, np.int64)


def read_voc(xml_path: Path) -> np.ndarray:
    """(n, 4) xyxy image px of the objects of a Pascal VOC file."""
    import xml.etree.ElementTree as ET

    root = ET.parse(xml_path).getroot()
    out = []
    for o in root.findall("object"):
        b = o.find("bndbox")
        out.append([float(b.find(k).text) for k in ("xmin", "ymin", "xmax", "ymax")])
    return np.array(out, np.float64).reshape(-1, 4)


def checkers_images(root: Path, split: str) -> list:
    return sorted((root / "checkers" / split / "images").glob("*.jpg"))


def card_images(root: Path) -> list:
    folder = root / "cards" / "test"
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png") and p.with_suffix(".xml").exists())


# ------------------------------------------------------------------------------------------------
# matching


def match_boxes(pred_xyxy: np.ndarray, score: np.ndarray, true_xyxy: np.ndarray, iou: float = 0.5) -> np.ndarray:
    """(n_pred,) index of the true box each prediction matches (-1: none), greedy by score, each
    true box used once."""
    from vision.cards import box_iou_batch

    pred = np.asarray(pred_xyxy, np.float64).reshape(-1, 4)
    out = np.full(len(pred), -1, dtype=np.int64)
    if not len(pred) or not len(true_xyxy):
        return out
    ious = box_iou_batch(pred, true_xyxy)
    used = np.zeros(len(true_xyxy), bool)
    for i in np.argsort(-np.asarray(score)):
        cand = np.where(~used & (ious[i] >= iou))[0]
        if len(cand):
            j = cand[np.argmax(ious[i, cand])]
            out[i] = j
            used[j] = True
    return out


def match_discs(centre: np.ndarray, radius: np.ndarray, score: np.ndarray, true_xyxy: np.ndarray) -> np.ndarray:
    """(n_pred,) index of the labelled box each found disc matches (-1: none): its centre within
    a third of the box's half-size of the box centre and its radius 0.5-1.5 of that half-size
    (labelled boxes take in the piece's side and the annotator's margin, so a disc's top face is
    smaller than its box); greedy by score, nearest first, each box used once."""
    c = np.asarray(centre, np.float64).reshape(-1, 2)
    out = np.full(len(c), -1, dtype=np.int64)
    t = np.asarray(true_xyxy, np.float64).reshape(-1, 4)
    if not len(c) or not len(t):
        return out
    tc = (t[:, :2] + t[:, 2:]) / 2
    half = np.minimum(t[:, 2] - t[:, 0], t[:, 3] - t[:, 1]) / 2
    d = np.linalg.norm(c[:, None, :] - tc[None], axis=2)
    ratio = np.asarray(radius, np.float64).reshape(-1, 1) / half[None]
    ok = (d <= half[None] / 3) & (ratio >= 0.5) & (ratio <= 1.5)
    used = np.zeros(len(t), bool)
    for i in np.argsort(-np.asarray(score)):
        cand = np.where(ok[i] & ~used)[0]
        if len(cand):
            j = cand[np.argmin(d[i, cand])]
            out[i] = j
            used[j] = True
    return out


def _pr(tp: int, n_pred: int, n_true: int) -> dict:
    return {"recall": tp / n_true if n_true else float("nan"), "precision": tp / n_pred if n_pred else float("nan"),
            "tp": tp, "predicted": n_pred, "labelled": n_true}


# ------------------------------------------------------------------------------------------------
# checkers


def _run_discs(paths, config, detector=None):
    """Per photo: (pred xyxy, score, true xyxy, true class, image)."""
    import cv2

    from vision.classical_discs import find_discs

    out = []
    for p in paths:
        img = cv2.imread(str(p))
        true, cls = read_yolo(p)
        if detector is None:
            d = find_discs(img, config)
            xyxy, score = d.xyxy, d.score
        else:
            xyxy, score = detector(img)
        out.append((np.asarray(xyxy).reshape(-1, 4), np.asarray(score).reshape(-1), true, cls, img))
    return out


def _disc_match(xyxy, score, true) -> np.ndarray:
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    centre = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    radius = np.minimum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]) / 2
    return match_discs(centre, radius, score, true)


def _disc_scores(runs) -> dict:
    tp = tp_iou = npred = ntrue = 0
    for xyxy, score, true, _, _ in runs:
        tp += int((_disc_match(xyxy, score, true) >= 0).sum())
        tp_iou += int((match_boxes(xyxy, score, true) >= 0).sum())
        npred += len(xyxy)
        ntrue += len(true)
    out = _pr(tp, npred, ntrue)
    out["iou50"] = _pr(tp_iou, npred, ntrue)
    return out


def teach_disc_finder(paths) -> "DiscFinderConfig":
    """The disc finder's thresholds that find the labelled discs of ``paths`` best (F1)."""
    from vision.classical_discs import DiscFinderConfig

    return _best_settings(DiscFinderConfig(), lambda cfg: _f1(_disc_scores(_run_discs(paths, cfg))),
                          k_mad=(4.0, 6.0, 9.0), min_chroma=(5.0, 7.0, 10.0), hough_perfectness=(0.6, 0.7, 0.8))


def _best_settings(base, f1, **grid):
    """The settings of ``base`` with the grid's values (every combination) that score the highest
    ``f1(settings)``; ties keep ``base``."""
    from itertools import product

    best, best_f1 = base, f1(base)
    for values in product(*grid.values()):
        cfg = replace(base, **dict(zip(grid, values)))
        score = f1(cfg)
        if score > best_f1 + 1e-9:
            best, best_f1 = cfg, score
    return best


def _colour_accuracy(runs, predict) -> dict:
    """Accuracy of ``predict(img, xyxy) -> names`` on the matched discs."""
    right = total = 0
    for xyxy, score, true, cls, img in runs:
        m = _disc_match(xyxy, score, true)
        ok = m >= 0
        if not ok.any():
            continue
        names = predict(img, xyxy[ok])
        truth = np.array([CHECKER_COLOURS[int(c)] for c in cls[m[ok]]], dtype=object)
        right += int((names == truth).sum())
        total += int(ok.sum())
    return {"accuracy": right / total if total else float("nan"), "n": total}


def checkers_report(root: Path, teach_images: int = 3, detectors: dict | None = None, profile_home: Path | None = None,
                    models: str | None = None) -> dict:
    """Disc recall / precision and colour accuracy on checkers test + valid (see the module docstring)."""
    from vision.attributes import crops_from_boxes
    from vision.classify import load_classifier
    from vision.teach import teach

    evals = checkers_images(root, "test") + checkers_images(root, "valid")
    # one augmented copy of each of the first training photos (other shots than the evaluated ones)
    seen, teach_paths = set(), []
    for p in checkers_images(root, "train"):
        stem = p.name.split("_jpg")[0]
        if stem not in seen and len(teach_paths) < teach_images:
            seen.add(stem)
            teach_paths.append(p)
    rows = {}
    t0 = time.perf_counter()
    shipped_runs = _run_discs(evals, None)
    rows["classical discs, shipped"] = {**_disc_scores(shipped_runs), "ms_per_image": 1000 * (time.perf_counter() - t0) / max(len(evals), 1)}
    colour = load_classifier("colour", profile=models)

    def shipped_colour(img, xyxy):
        names, _ = colour.predict(crops_from_boxes(img, xyxy))
        return np.array(["red" if n in RED_NAMES else "green" if n in ("green", "cyan", "grey", "blue", "black", "white") else n
                         for n in names], dtype=object)

    rows["classical discs, shipped"]["colour"] = _colour_accuracy(shipped_runs, shipped_colour)
    for name, det in (detectors or {}).items():
        runs = _run_discs(evals, None, det)
        rows[f"{name}, shipped"] = _disc_scores(runs)
    if teach_images:
        cfg = teach_disc_finder(teach_paths)
        taught_runs = _run_discs(evals, cfg)
        crops, labels = [], []
        for p in teach_paths:
            import cv2

            img = cv2.imread(str(p))
            true, cls = read_yolo(p)
            crops += crops_from_boxes(img, true)
            labels += [CHECKER_COLOURS[int(c)] for c in cls]
        res = teach("team", crops, np.array(labels, dtype=object), profile="realdata-checkers", folds=3,
                    home=profile_home, save=profile_home is not None)
        clf = _refit_for_prediction(crops, labels)

        def taught_colour(img, xyxy):
            names, _ = clf.predict(crops_from_boxes(img, xyxy))
            return names

        key = f"classical discs, taught ({len(teach_paths)} photos)"
        rows[key] = _disc_scores(taught_runs)
        rows[key]["colour"] = _colour_accuracy(taught_runs, taught_colour)
        rows[key]["colour"]["cv_accuracy_on_teaching_crops"] = res.cv_accuracy
        rows[key]["finder"] = {"k_mad": cfg.k_mad, "min_chroma": cfg.min_chroma, "hough_perfectness": cfg.hough_perfectness}
    return {"images": [p.name for p in evals], "teach_images": [p.name for p in teach_paths], "rows": rows}


def _refit_for_prediction(crops, labels):
    """The taught ``team`` classifier fitted on all teaching crops (what ``teach`` saves)."""
    from vision.teach import _fit

    classes = tuple(sorted(set(labels)))
    return _fit("team", classes, crops, np.array(labels, dtype=object), None, 0, 8)


# ------------------------------------------------------------------------------------------------
# cards


def _run_cards(paths, config):
    import cv2

    from vision.cards import find_card_quads, quads_to_xyxy

    out = []
    for p in paths:
        img = cv2.imread(str(p))
        quads, score = find_card_quads(img, config)
        out.append((quads_to_xyxy(quads), score, read_voc(p.with_suffix(".xml"))))
    return out


def _card_scores(runs) -> dict:
    tp = npred = ntrue = 0
    for xyxy, score, true in runs:
        m = match_boxes(xyxy, score, true)
        tp += int((m >= 0).sum())
        npred += len(xyxy)
        ntrue += len(true)
    return _pr(tp, npred, ntrue)


def teach_card_finder(paths) -> "CardFinderConfig":
    """The card finder's thresholds that find the labelled cards of ``paths`` best (F1)."""
    from vision.cards import CardFinderConfig

    return _best_settings(CardFinderConfig(), lambda cfg: _f1(_card_scores(_run_cards(paths, cfg))),
                          min_area=(0.004, 0.01, 0.02), min_score=(0.45, 0.55, 0.65), min_fill=(0.75, 0.82, 0.9))


def _f1(s: dict) -> float:
    return 2 * s["recall"] * s["precision"] / max(s["recall"] + s["precision"], 1e-9)


def cards_report(root: Path, teach_images: int = 3) -> dict:
    """Card-quad recall (and precision) on cards/test, shipped and taught (see the module docstring)."""
    paths = card_images(root)
    # teaching photos spread over the set (it is ordered by shooting session), never evaluated
    step = max(1, len(paths) // max(teach_images, 1))
    teach_paths = paths[::step][:teach_images] if teach_images else []
    evals = [p for p in paths if p not in teach_paths]
    rows = {}
    t0 = time.perf_counter()
    rows["card quads, shipped"] = {**_card_scores(_run_cards(evals, None)),
                                   "ms_per_image": 1000 * (time.perf_counter() - t0) / max(len(evals), 1)}
    if teach_images:
        cfg = teach_card_finder(teach_paths)
        key = f"card quads, taught ({len(teach_paths)} photos)"
        rows[key] = _card_scores(_run_cards(evals, cfg))
        rows[key]["finder"] = {"min_fill": cfg.min_fill, "min_score": cfg.min_score, "min_area": cfg.min_area}
    return {"images": len(evals), "teach_images": [p.name for p in teach_paths], "rows": rows}


# ------------------------------------------------------------------------------------------------


ROUND_CLASSES = ("disc", "ball", "tail", "token", "egg", "meteorite", "dodo")


def shipped_yolo_detector():
    """The shipped YOLO detector (``models/detector/*.onnx``) as ``image -> (xyxy, score)`` keeping
    the round classes, or None when no model is shipped yet."""
    models = sorted((Path(__file__).resolve().parents[1] / "models" / "detector").glob("*.onnx"))
    if not models:
        return None
    from vision.yolo import OnnxDetector

    det = OnnxDetector(models[0])

    def run(image):
        d = det(image)
        names = d.class_name
        keep = np.array([any(str(n).startswith(r) for r in ROUND_CLASSES) for n in names], bool).reshape(-1)
        return d.xyxy[keep], d.confidence[keep]

    return run


def realdata_report(root: str | Path | None = None, models: str | None = None, teach_images: int = 3,
                    detectors: dict | None = None, profile_home: str | Path | None = None) -> dict:
    """Both reports. ``models``: a ``tableref teach`` profile whose ``colour`` classifier replaces
    the shipped one in the "shipped" rows (None: the shipped models); ``teach_images``: how many
    labelled photos the "taught" rows learn from (0: none); ``detectors``: extra disc detectors,
    name -> callable(BGR image) -> ((n, 4) xyxy image px, (n,) score) (None: the shipped YOLO
    detector when ``models/detector`` holds one); ``profile_home``: where the
    taught checkers profile is saved (None: not saved). Raises ``FileNotFoundError`` when ``root``
    is missing."""
    root = Path(root) if root else default_root()
    if not (root / "checkers").is_dir() or not (root / "cards").is_dir():
        raise FileNotFoundError(f"{root}: no checkers/ and cards/ folders (the real photographs are not here)")
    if detectors is None:
        yolo = shipped_yolo_detector()
        detectors = {"YOLO (shipped)": yolo} if yolo is not None else {}
    return {"root": str(root), "checkers": checkers_report(root, teach_images, detectors, Path(profile_home) if profile_home else None, models),
            "cards": cards_report(root, teach_images)}


def _pct(x, width: int) -> str:
    """A fraction as a percentage ``width`` wide; "–" where it is undefined (nothing found: no
    precision)."""
    return f"{'–':>{width + 1}s}" if x is None or x != x else f"{x * 100:{width}.1f}%"


def format_report(report: dict) -> str:
    """A plain-text table of ``realdata_report``."""
    lines = [f"real photographs: {report['root']}",
             f"{'what':44s} {'recall':>7s} {'precision':>9s} {'found/labelled':>15s} {'colour':>8s}  {'IoU>=0.5 R / P':>15s}"]
    for part in ("checkers", "cards"):
        for name, r in report[part]["rows"].items():
            col = r.get("colour", {}).get("accuracy")
            col_s = "" if col is None else f"{col * 100:7.1f}%"
            iou = r.get("iou50")
            iou_s = "" if iou is None else f"{iou['recall'] * 100:5.1f}% / {_pct(iou['precision'], 5)}"
            lines.append(f"{part + ': ' + name:44s} {r['recall'] * 100:6.1f}% {_pct(r['precision'], 8)} "
                         f"{r['tp']:>6d}/{r['labelled']:<8d} {col_s:>8s}  {iou_s:>15s}")
    lines.append(f"checkers: evaluated {len(report['checkers']['images'])} photos (test + valid); taught on "
                 f"{', '.join(report['checkers']['teach_images'])}")
    lines.append(f"cards: evaluated {report['cards']['images']} photos; taught on {', '.join(report['cards']['teach_images'])}")
    return "\n".join(lines)


def main(argv: list | None = None) -> int:
    """``python -m vision.realdata [--teach-images N] [--json]``: print the report."""
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m vision.realdata", description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=None)
    ap.add_argument("--teach-images", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    report = realdata_report(args.root, teach_images=args.teach_images)
    print(json.dumps(report, indent=1) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
