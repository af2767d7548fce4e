"""Teach the attribute classifiers the user's own pieces.

Our renders will never look exactly like a user's printed stickers, eggs and cards. ``teach`` takes
about ten crops (or photos) per class of the user's real pieces, refits the task's classifier on
them (each crop augmented: turned, flipped where the piece allows it, re-lit, re-framed, blurred;
every feature part given the same weight and standardised with the shipped model's statistics, so
that ten examples are enough; or, when the classes are the shipped ones and the shipped model is a
linear one, fine-tuned from the shipped model, staying near it — whichever the k-fold
cross-validation on the user's examples prefers; a profile is always a linear model on the task's
features, also where the shipped model is a small CNN: egg face and card kind),
optionally together with a sample of the shipped training crops, reports k-fold cross-validated
accuracy on the user's crops (and what the shipped model scores on the same crops), and stores the
result as a user profile: ``$TABLEREF_HOME/profiles/<name>/<task>.npz`` plus ``profile.json``,
next to (never over) the shipped ``models/attributes``.

The folder layout is one subfolder per class (``eggs/whole/*.jpg``, ``eggs/broken/*.jpg``). For the
``card`` task a photo in which the card finder sees a card is rectified first; any other image is
taken as a crop of one piece (round pieces: the piece roughly fills it). For ``team`` and ``colour``
the class names are the user's own (``green``, ``red``); for ``egg-face``, ``egg-colour`` and
``card`` they must be the task's classes. Images are BGR, **image px**.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from vision.classify import LinearClassifier, evaluate_crops, get_task, load_classifier, profile_dir, SHIPPED_DIR

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")
FREE_CLASSES = ("team", "colour", "racer-colour")
FINE_TUNE_L2 = 0.3  # tasks whose class names the user chooses
ALIASES = {"goodboy": "good-boy", "good_boy": "good-boy", "face-down": "back", "down": "back"}


class TeachError(ValueError):
    """The examples cannot be used (missing folder, unknown class, too few images): says what to do."""


@dataclass
class TeachResult:
    """What ``teach`` did. ``cv_accuracy`` is the mean over ``folds`` folds of the accuracy on the
    user's held-out crops; ``shipped_accuracy`` what the shipped model scores on all of them (None
    when the classes differ from the shipped ones)."""

    task: str
    profile: str
    path: str
    classes: list
    counts: dict
    folds: int
    cv_accuracy: float
    fold_accuracy: list
    shipped_accuracy: float | None
    with_shipped: bool
    seconds: float
    per_class_recall: dict = field(default_factory=dict)
    method: str = "refit"
    cv_by_method: dict = field(default_factory=dict)
    kept_shipped: bool = False  # not saved: the shipped model did better on the user's examples

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in self.counts.items())
        shipped = "n/a (own classes)" if self.shipped_accuracy is None else f"{self.shipped_accuracy * 100:.1f}%"
        folds = " ".join(f"{a * 100:.0f}" for a in self.fold_accuracy)
        methods = ", ".join(f"{m} {a * 100:.1f}%" for m, a in self.cv_by_method.items())
        return (f"task {self.task}: {sum(self.counts.values())} examples ({counts})\n"
                f"  {self.folds}-fold cross-validated accuracy: {self.cv_accuracy * 100:.1f}% (folds: {folds}; "
                f"method {self.method} of {methods})\n"
                f"  shipped model on the same examples: {shipped}\n"
                + (f"  note: the shipped model (which never saw these examples) does at least as well; the profile "
                   f"is worth using only if it does better on your table\n"
                   if self.shipped_accuracy is not None and self.shipped_accuracy >= self.cv_accuracy
                   and not self.kept_shipped else "")
                + (f"  not saved: the shipped model does better on your examples, so {self.task} stays with it "
                   f"(--keep-worse saves the profile anyway) ({self.seconds:.1f}s)" if self.kept_shipped else
                   f"  profile {self.profile!r} saved: {self.path} ({self.seconds:.1f}s)"))


# ------------------------------------------------------------------------------------------------
# examples in


def load_examples(folder: str | Path, task: str) -> tuple[list, np.ndarray]:
    """Crops and labels from ``folder/<class>/*.{png,jpg,...}`` (see the module docstring)."""
    import cv2

    t = get_task(task)
    folder = Path(folder)
    if not folder.is_dir():
        raise TeachError(f"{folder}: no such folder; give --images DIR with one subfolder per class "
                         f"({', '.join(t.classes) if task not in FREE_CLASSES else 'e.g. green, red'})")
    crops, labels = [], []
    subdirs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if len(subdirs) < 2:
        raise TeachError(f"{folder}: need one subfolder per class, at least two (found {len(subdirs)})")
    for sub in subdirs:
        name = ALIASES.get(sub.name.lower(), sub.name.lower())
        if task not in FREE_CLASSES and name not in t.classes:
            raise TeachError(f"{sub}: {sub.name!r} is not a class of {task!r}; name the subfolders "
                             f"{', '.join(t.classes)}")
        files = sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        for f in files:
            img = cv2.imread(str(f), cv2.IMREAD_COLOR)
            if img is None:
                raise TeachError(f"{f}: not a readable image")
            crops.append(_as_crop(img, task))
            labels.append(name)
    return crops, np.array(labels, dtype=object)


def _as_crop(img: np.ndarray, task: str) -> np.ndarray:
    if task != "card":
        return img
    from vision.cards import find_card_quads, quad_area, rectify_card

    quads, _ = find_card_quads(img)
    if len(quads):
        areas = quad_area(quads)
        i = int(areas.argmax())
        if areas[i] >= 0.2 * img.shape[0] * img.shape[1]:
            return rectify_card(img, quads[i], get_task("card").spec.size)
    return img


def augment(crops: list, labels, task: str, copies: int = 8, seed: int = 0) -> tuple[list, np.ndarray]:
    """``copies`` variants of every crop (the originals included): turned (any angle for round
    pieces, 180° for cards), mirrored (round pieces), re-lit, re-framed and blurred."""
    import cv2

    rng = np.random.default_rng(seed)
    out, out_labels = [], []
    for crop, lab in zip(crops, labels):
        out.append(crop)
        out_labels.append(lab)
        h, w = crop.shape[:2]
        for _ in range(copies - 1):
            img = crop
            if task == "card":
                if rng.random() < 0.5:
                    img = img[::-1, ::-1]
                M = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-3, 3), rng.uniform(0.95, 1.05))
            else:
                if rng.random() < 0.5:
                    img = img[:, ::-1]
                M = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(0, 360), rng.uniform(0.92, 1.08))
            M[:, 2] += rng.uniform(-0.05, 0.05, 2) * np.array([w, h])
            img = cv2.warpAffine(np.ascontiguousarray(img), M, (w, h), borderMode=cv2.BORDER_REPLICATE)
            img = 255.0 * (img.astype(np.float32) / 255.0) ** rng.uniform(0.8, 1.25)
            img = img * rng.uniform(0.75, 1.2) * rng.uniform(0.85, 1.15, 3)
            if rng.random() < 0.5:
                img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2) * max(h, w) / 40.0)
            img = img + rng.normal(0, 2.0, img.shape)
            out.append(np.clip(img, 0, 255).astype(np.uint8))
            out_labels.append(lab)
    return out, np.array(out_labels, dtype=object)


# ------------------------------------------------------------------------------------------------
# fitting


def _bank(task: str, frames: int, seed: int) -> tuple[list, np.ndarray]:
    from vision.attribute_data import render_crops

    cs = render_crops(task, frames, seed=seed)
    return cs.crops, cs.labels


def _shipped_linear(task: str) -> LinearClassifier | None:
    """The shipped model when it is a linear one on the task's features (a profile's fine-tune
    starts from it and its feature statistics are the refit's floor), else None."""
    try:
        clf = load_classifier(task)
    except OSError:
        return None
    if not isinstance(clf, LinearClassifier) or clf.spec != get_task(task).spec:
        return None
    return clf


def _shipped_stats(task: str):
    """The shipped model's feature statistics (thousands of rendered crops), or None (no linear
    shipped model: the user's own statistics are used)."""
    clf = _shipped_linear(task)
    return None if clf is None else (clf.mean, clf.scale)


def _fit(task: str, classes, crops, labels, bank, seed: int, copies: int, l2: float = 1e-2,
         method: str = "refit") -> LinearClassifier:
    """Few-shot fit. ``refit``: every feature part weighted equally (``part_weights``),
    standardised with the shipped model's statistics, L2 ``l2``. ``fine-tune``: start from the
    shipped model and stay near it (L2 ``FINE_TUNE_L2`` on the change of its weights)."""
    from vision.attributes import features, part_weights

    t = get_task(task)
    aug, aug_labels = augment(crops, labels, task, copies, seed)
    X = features(aug, t.spec)
    if method == "fine-tune":
        prior = _shipped_linear(task)
        return LinearClassifier.fit(task, X, list(aug_labels), classes, t.spec, l2=FINE_TUNE_L2, max_iter=100, prior=prior)
    y = list(aug_labels)
    weights = np.ones(len(y))
    if bank is not None:
        Xb, yb = bank
        # the user's examples weigh three times as much as the whole rendered sample together
        weights = np.concatenate([weights * 3.0 * len(yb) / max(len(y), 1), np.ones(len(yb))])
        X = np.vstack([X, Xb])
        y = y + list(yb)
    stats = _shipped_stats(task)
    if stats is not None and len(stats[0]) == X.shape[1]:
        # the shipped spread where the user's crops vary less (it was measured on thousands of
        # renders); the user's own where a new print varies in ways the renders never did
        stats = (X.mean(0), np.maximum(stats[1], X.std(0)) + 1e-6)
    else:
        stats = None
    return LinearClassifier.fit(task, X, y, classes, t.spec, l2=l2, sample_weight=weights, max_iter=200,
                                feature_weight=part_weights(t.spec), standardise=stats)


def stratified_folds(labels, k: int, seed: int = 0) -> list:
    """k lists of indices, each class spread evenly over the folds."""
    labels = np.asarray(labels, dtype=object)
    rng = np.random.default_rng(seed)
    folds = [[] for _ in range(k)]
    j = 0
    for c in sorted(set(labels)):
        idx = np.where(labels == c)[0]
        rng.shuffle(idx)
        for i in idx:
            folds[j % k].append(int(i))
            j += 1
    return [np.array(sorted(f), dtype=np.int64) for f in folds]


def teach(task: str, crops: list, labels, profile: str = "default", with_shipped: bool = False,
          folds: int = 5, seed: int = 0, copies: int = 8, bank_frames: int = 30, home: str | Path | None = None,
          save: bool = True, keep_worse: bool = False) -> TeachResult:
    """Adapt ``task``'s classifier to the user's ``crops`` (BGR, image px) with ``labels`` (n,),
    cross-validate, save under the profile (see the module docstring). When the shipped model scores
    better on the user's examples than the profile's cross-validated accuracy, the profile's model is
    not saved (``kept_shipped``; the task keeps reading the shipped model, and a model the profile
    already holds is left as it is) unless ``keep_worse``."""
    from vision.attributes import features

    t0 = time.perf_counter()
    t = get_task(task)
    labels = np.asarray(labels, dtype=object)
    if len(crops) != len(labels):
        raise TeachError(f"{len(crops)} crops but {len(labels)} labels")
    classes = tuple(sorted(set(labels), key=lambda c: (t.classes.index(c) if c in t.classes else 99, c)))
    if len(classes) < 2:
        raise TeachError(f"need examples of at least two classes of {task!r}, got {classes}")
    if task not in FREE_CLASSES:
        missing = [c for c in t.classes if c not in classes]
        if missing:
            raise TeachError(f"no examples of {', '.join(missing)}: add a subfolder per class of {task!r}")
        classes = t.classes
    counts = {str(c): int((labels == c).sum()) for c in classes}
    smallest = min(counts.values())
    if smallest < 2:
        raise TeachError(f"need at least 2 examples per class (about 10 is good); counts: {counts}")
    k = int(min(folds, smallest))
    bank = None
    if with_shipped and set(classes) <= set(t.classes):
        bc, bl = _bank(task, bank_frames, seed + 7)
        bank = (features(bc, t.spec), bl)
    fold_idx = stratified_folds(labels, k, seed)
    methods = ["refit"]
    shipped_linear = _shipped_linear(task)
    if shipped_linear is not None and tuple(str(c) for c in shipped_linear.classes) == tuple(classes):
        methods.append("fine-tune")
    cv = {}
    for method in methods:
        fold_acc, pred_all = [], np.empty(len(labels), dtype=object)
        for i in range(k):
            test = fold_idx[i]
            train = np.setdiff1d(np.arange(len(labels)), test)
            clf = _fit(task, classes, [crops[j] for j in train], labels[train], bank, seed + i, copies, method=method)
            p, _ = clf.predict([crops[j] for j in test])
            pred_all[test] = p
            fold_acc.append(float((p == labels[test]).mean()))
        cv[method] = (fold_acc, pred_all)
    # the method the user's own examples back best (ties: refit)
    method = max(methods, key=lambda m: (np.mean(cv[m][0]), m == "refit"))
    fold_acc, pred_all = cv[method]
    recall = {str(c): float((pred_all[labels == c] == c).mean()) for c in classes}
    final = _fit(task, classes, crops, labels, bank, seed, copies, method=method)
    final.meta.update({"profile": profile, "cv_accuracy": float(np.mean(fold_acc)), "folds": k, "counts": counts,
                       "with_shipped": bank is not None, "method": method})
    shipped_acc = None
    try:
        shipped = load_classifier(task)
        if set(classes) <= set(str(c) for c in shipped.classes):
            shipped_acc = evaluate_crops(shipped, crops, labels)["accuracy"]
    except OSError:
        pass
    path = Path("")
    cv_acc = float(np.mean(fold_acc))
    kept_shipped = save and not keep_worse and shipped_acc is not None and shipped_acc > cv_acc
    if save:
        pdir = profile_dir(profile, home)
        if pdir.resolve() == SHIPPED_DIR.resolve() or SHIPPED_DIR.resolve() in pdir.resolve().parents:
            raise TeachError(f"{pdir}: a profile may not live in the shipped models folder; set TABLEREF_HOME elsewhere")
        info_path = pdir / "profile.json"
        info = json.loads(info_path.read_text()) if info_path.exists() else {"profile": profile, "tasks": {}}
        if kept_shipped:
            info.setdefault("declined", {})[task] = {"cv_accuracy": cv_acc, "shipped_accuracy": shipped_acc,
                                                     "counts": counts, "when": time.strftime("%Y-%m-%dT%H:%M:%S")}
        else:
            path = final.save(pdir / f"{task}.npz")
            info["tasks"][task] = {"classes": list(classes), "counts": counts, "cv_accuracy": cv_acc, "method": method,
                                   "folds": k, "shipped_accuracy": shipped_acc, "with_shipped": bank is not None,
                                   "saved": time.strftime("%Y-%m-%dT%H:%M:%S")}
            info.get("declined", {}).pop(task, None)
        pdir.mkdir(parents=True, exist_ok=True)
        info_path.write_text(json.dumps(info, indent=1) + "\n")
    return TeachResult(task, profile, str(path) if path != Path("") else "", list(classes), counts, k, cv_acc, fold_acc,
                       shipped_acc, bank is not None, time.perf_counter() - t0, recall, method,
                       {m: float(np.mean(v[0])) for m, v in cv.items()}, kept_shipped)


def held_back_benchmark(task: str, teach_frames: int = 6, test_frames: int = 6, per_class: int = 10, seed: int = 7000,
                        style_seed: int = 3, with_shipped: bool = False, folds: int = 5, home: str | Path | None = None) -> dict:
    """Teach ``task`` in the held-back style (``attribute_data.restyle``) from ``per_class``
    crops per class of ``teach_frames`` renders, and compare the shipped and the taught model on
    the crops of ``test_frames`` other renders in the same style."""
    from vision.attribute_data import render_crops, restyle

    data = render_crops(task, teach_frames + test_frames, seed=seed)
    crops = restyle(data.crops, task, seed=style_seed)
    rng = np.random.default_rng(seed)
    teach_idx = []
    for c in sorted(set(data.labels)):
        idx = np.where((data.labels == c) & (data.frame < teach_frames))[0]
        teach_idx += list(rng.choice(idx, min(per_class, len(idx)), replace=False))
    test_idx = np.where(data.frame >= teach_frames)[0]
    test_crops, test_labels = [crops[i] for i in test_idx], data.labels[test_idx]
    shipped = load_classifier(task)
    p, _ = shipped.predict(test_crops)
    shipped_acc = float((p == test_labels).mean())
    p, _ = shipped.predict([data.crops[i] for i in test_idx])
    shipped_own = float((p == test_labels).mean())
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        res = teach(task, [crops[i] for i in teach_idx], data.labels[teach_idx], profile="held-back",
                    with_shipped=with_shipped, folds=folds, home=home or tmp, keep_worse=True)
        taught = LinearClassifier.load(res.path)
    p, _ = taught.predict(test_crops)
    return {"task": task, "n_teach": len(teach_idx), "n_test": len(test_idx), "method": res.method,
            "shipped_on_renders": shipped_own, "shipped_on_held_back_style": shipped_acc,
            "taught_on_held_back_style": float((p == test_labels).mean()), "cv_accuracy": res.cv_accuracy,
            "with_shipped": with_shipped, "seconds": res.seconds}


def capture_examples(source, task: str, out_dir: str | Path, classes=None, shots: int = 3, ask=input, say=print) -> Path:
    """Collect examples from a camera (any ``vision.sources.open_source`` spec) into ``out_dir``,
    one subfolder per class, in the layout ``load_examples`` reads: for each class, ``shots`` times,
    ask the user to lay out pieces of that class only, grab a frame and cut out every piece found
    (cards by ``find_card_quads`` and rectified, round pieces by the classical disc finder)."""
    import cv2

    from vision.attributes import crops_from_boxes
    from vision.cards import find_card_quads, rectify_card
    from vision.classical_discs import find_discs
    from vision.sources import open_source

    t = get_task(task)
    classes = list(classes or t.classes)
    if len(classes) < 2:
        raise TeachError("give at least two classes (--classes a,b)")
    out_dir = Path(out_dir)
    src = open_source(source)
    src.open()
    try:
        for c in classes:
            (out_dir / c).mkdir(parents=True, exist_ok=True)
            for shot in range(shots):
                ask(f"[{c} {shot + 1}/{shots}] put only {c!r} pieces in view, then press Enter ")
                frame = src.read()
                if frame is None:
                    raise TeachError(f"{source}: no frame; check the camera")
                img = frame.image
                if task == "card":
                    quads, _ = find_card_quads(img)
                    crops = [rectify_card(img, q, t.spec.size) for q in quads]
                else:
                    crops = crops_from_boxes(img, find_discs(img).xyxy)
                for k, crop in enumerate(crops):
                    cv2.imwrite(str(out_dir / c / f"shot{shot}_{k}.png"), crop)
                say(f"  {len(crops)} piece(s) saved to {out_dir / c}")
    finally:
        src.close()
    return out_dir
