"""Attribute classifiers: a multinomial logistic regression on the features of
``vision/attributes.py``, one per task, saved as a small ``.npz``.

Tasks (``TASKS``): ``egg-face`` (whole / broken), ``egg-colour`` (blue, purple, red, yellow),
``card`` (cat, dog, bear, cookie, good-boy, back: on a card rectified upright), ``team`` (home /
away, from the disc's printed team pattern, whatever the team colours), ``colour`` (the named colour
of a disc's top face), ``racer-colour`` (a Dodo Dash racer, cut by the box of the whole figure).

Where models are read from: a user profile made by ``tableref teach``
(``$TABLEREF_HOME/profiles/<name>/<task>.npz``, ``TABLEREF_HOME`` defaulting to ``~/.tableref``)
when one is named and holds the task, else the shipped ``models/attributes/<task>.npz``. A profile
never overwrites a shipped model.

Inputs are crops in **image px** (BGR); ``classify_boxes`` takes the frame and (n, 4) boxes,
``classify_cards`` the frame and (n, 4, 2) card quads. Outputs are parallel arrays: (n,) labels
(object) and (n,) confidence; empty in, empty out.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.attributes import FeatureSpec, crops_from_boxes, features

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_DIR = ROOT / "models" / "attributes"

CARD_KINDS = ("cat", "dog", "bear", "cookie", "good-boy", "back")
EGG_COLOURS = ("blue", "purple", "red", "yellow")
RACER_COLOURS = ("red", "blue", "yellow", "green", "purple", "orange", "white", "pink")
DISC_COLOURS = ("blue", "purple", "red", "yellow", "green", "orange", "white", "black", "pink", "brown", "grey", "cyan")


@dataclass(frozen=True)
class Task:
    name: str
    classes: tuple
    spec: FeatureSpec
    l2: float = 1e-3
    help: str = ""


TASKS = {
    "egg-face": Task("egg-face", ("whole", "broken"), FeatureSpec((32, 32), ("colour", "radial", "hog", "lbp"), 8, True),
                     help="Morris egg token: whole or broken face up"),
    "egg-colour": Task("egg-colour", EGG_COLOURS, FeatureSpec((24, 24), ("colour", "radial"), 8, True),
                       help="Morris egg token colour"),
    "card": Task("card", CARD_KINDS, FeatureSpec((40, 56), ("colour", "hog"), 8, False),
                 help="Dogo Dash card kind on the card rectified upright"),
    "team": Task("team", ("home", "away"), FeatureSpec((40, 40), ("colour", "radial", "hog", "lbp"), 8, True),
                 help="Dino Dunk team from the disc's printed pattern (ring: home, stripes: away)"),
    "colour": Task("colour", DISC_COLOURS, FeatureSpec((24, 24), ("colour", "radial"), 8, True),
                   help="named colour of a disc's top face"),
    "racer-colour": Task("racer-colour", RACER_COLOURS, FeatureSpec((24, 24), ("colour", "radial"), 8, False),
                         help="Dodo Dash racer colour, on the box of the whole figure (base and top rims)"),
}


class ModelError(OSError):
    """An attribute model is missing or unreadable: says which file and how to make it."""


def tableref_home() -> Path:
    return Path(os.environ.get("TABLEREF_HOME") or Path.home() / ".tableref")


def profile_dir(name: str, home: str | Path | None = None) -> Path:
    """``<home>/profiles/<name>`` (``home`` defaults to ``tableref_home()``)."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"profile name {name!r}: use letters, digits, '-' or '_' (no slashes)")
    return Path(home or tableref_home()) / "profiles" / name


def get_task(name: str) -> Task:
    if name not in TASKS:
        raise ValueError(f"unknown attribute task {name!r}: choose one of {', '.join(TASKS)}")
    return TASKS[name]


@dataclass
class LinearClassifier:
    """Softmax regression on standardised features. ``classes`` (k,) str; ``mean``, ``scale`` (d,);
    ``weights`` (d, k); ``bias`` (k,); ``spec`` the features it expects; ``meta`` provenance."""

    task: str
    classes: np.ndarray
    spec: FeatureSpec
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        self.classes = np.asarray(self.classes, dtype=object).reshape(-1)
        k = len(self.classes)
        self.mean = np.asarray(self.mean, np.float64).reshape(-1)
        d = len(self.mean)
        self.scale = np.asarray(self.scale, np.float64).reshape(-1)
        self.weights = np.asarray(self.weights, np.float64)
        self.bias = np.asarray(self.bias, np.float64).reshape(-1)
        for name, shape in (("scale", (d,)), ("weights", (d, k)), ("bias", (k,))):
            if getattr(self, name).shape != shape:
                raise ValueError(f"{name} must have shape {shape}, but got {getattr(self, name).shape}")

    # ---------------------------------------------------------------- fitting

    @classmethod
    def fit(cls, task: str, X: np.ndarray, y, classes, spec: FeatureSpec, l2: float = 1e-3,
            sample_weight: np.ndarray | None = None, meta: dict | None = None, max_iter: int = 400,
            feature_weight: np.ndarray | None = None, standardise: tuple | None = None,
            prior: "LinearClassifier | None" = None) -> "LinearClassifier":
        """Fit on (n, d) features ``X`` and (n,) labels ``y`` (members of ``classes``).
        ``feature_weight`` (d,) scales the standardised features (see ``attributes.part_weights``);
        ``standardise`` (mean, scale) replaces the statistics of ``X`` (few examples: use the
        shipped model's, measured on thousands of crops); ``prior`` a model of the same classes and
        features to start from and to be pulled towards (L2 on the difference, a fine-tune): its
        standardisation is kept."""
        from scipy.optimize import minimize

        X = np.asarray(X, np.float64)
        classes = np.asarray(classes, dtype=object)
        index = {c: i for i, c in enumerate(classes)}
        unknown = sorted({str(v) for v in y} - set(index))
        if unknown:
            raise ValueError(f"labels {unknown} are not classes of {task!r} ({', '.join(classes)})")
        yi = np.array([index[v] for v in y], dtype=np.int64)
        n, d = X.shape
        k = len(classes)
        w_s = np.ones(n) if sample_weight is None else np.asarray(sample_weight, np.float64)
        w_s = w_s / w_s.sum()
        mean, scale = (X.mean(0), X.std(0) + 1e-6) if standardise is None else (np.asarray(standardise[0], np.float64), np.asarray(standardise[1], np.float64))
        if feature_weight is not None:
            scale = scale / np.asarray(feature_weight, np.float64)
        W0 = np.zeros((d, k))
        if prior is not None:
            if list(prior.classes) != list(classes) or prior.weights.shape != (d, k):
                raise ValueError(f"prior model of {list(prior.classes)} does not fit classes {list(classes)}")
            mean, scale, W0 = prior.mean, prior.scale, prior.weights
        Z = (X - mean) / scale
        Y = np.zeros((n, k))
        Y[np.arange(n), yi] = 1.0

        def loss(theta):
            W = theta[: d * k].reshape(d, k)
            b = theta[d * k:]
            logits = Z @ W + b
            logits -= logits.max(1, keepdims=True)
            P = np.exp(logits)
            P /= P.sum(1, keepdims=True)
            nll = -(w_s * np.log(np.maximum((P * Y).sum(1), 1e-300))).sum()
            G = (P - Y) * w_s[:, None]
            gW = Z.T @ G + l2 * (W - W0)
            gb = G.sum(0)
            return nll + 0.5 * l2 * ((W - W0) ** 2).sum(), np.concatenate([gW.ravel(), gb])

        start = np.concatenate([W0.ravel(), prior.bias if prior is not None else np.zeros(k)])
        res = minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
        W = res.x[: d * k].reshape(d, k)
        b = res.x[d * k:]
        info = dict(meta or {})
        info.update({"n_train": int(n), "l2": l2, "iterations": int(res.nit)})
        return cls(task, classes, spec, mean, scale, W, b, info)

    # ---------------------------------------------------------------- inference

    def predict_proba_features(self, X: np.ndarray) -> np.ndarray:
        """(n, k) class probabilities of (n, d) features."""
        X = np.asarray(X, np.float64).reshape(-1, len(self.mean))
        logits = ((X - self.mean) / self.scale) @ self.weights + self.bias
        logits -= logits.max(1, keepdims=True) if len(logits) else 0
        P = np.exp(logits)
        return P / P.sum(1, keepdims=True) if len(P) else P

    def predict_proba(self, crops) -> np.ndarray:
        """(n, k) probabilities of n crops (BGR, image px, any size)."""
        return self.predict_proba_features(features(crops, self.spec))

    def predict(self, crops) -> tuple[np.ndarray, np.ndarray]:
        """(n,) labels (object) and (n,) confidence of n crops."""
        P = self.predict_proba(crops)
        if not len(P):
            return np.zeros(0, dtype=object), np.zeros(0)
        i = P.argmax(1)
        return self.classes[i], P[np.arange(len(P)), i]

    # ---------------------------------------------------------------- files

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"task": self.task, "classes": [str(c) for c in self.classes], "spec": self.spec.to_dict(), **self.meta}
        with open(path, "wb") as fh:
            np.savez_compressed(fh, mean=self.mean.astype(np.float32), scale=self.scale.astype(np.float32),
                                weights=self.weights.astype(np.float32), bias=self.bias.astype(np.float32),
                                meta=np.array(json.dumps(meta)))
        return path

    @classmethod
    def load(cls, path: str | Path) -> "LinearClassifier":
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                arrays = {k: z[k] for k in ("mean", "scale", "weights", "bias")}
        except FileNotFoundError:
            raise ModelError(f"{path}: no such attribute model (run `tableref train attributes`)") from None
        except (OSError, KeyError, ValueError) as exc:
            raise ModelError(f"{path}: not a tableref attribute model ({exc}); retrain it with `tableref train attributes`") from None
        task = meta.pop("task")
        classes = meta.pop("classes")
        spec = FeatureSpec.from_dict(meta.pop("spec"))
        return cls(task, classes, spec, arrays["mean"], arrays["scale"], arrays["weights"], arrays["bias"], meta)


def model_path(task: str, profile: str | None = None, shipped_dir: str | Path | None = None) -> Path:
    """Where ``task``'s model is read from: the profile's file if it exists, else the shipped one."""
    get_task(task)
    if profile:
        p = profile_dir(profile) / f"{task}.npz"
        if p.exists():
            return p
    return Path(shipped_dir or SHIPPED_DIR) / f"{task}.npz"


_LOADED: dict = {}


def load_classifier(task: str, profile: str | None = None, shipped_dir: str | Path | None = None) -> LinearClassifier:
    """The classifier for ``task`` (a profile's own when it has one, else the shipped one), cached."""
    path = model_path(task, profile, shipped_dir)
    key = (str(path), path.stat().st_mtime if path.exists() else 0.0)
    if key not in _LOADED:
        _LOADED[key] = LinearClassifier.load(path)
    return _LOADED[key]


def classify_boxes(image: np.ndarray, xyxy: np.ndarray, task: str, profile: str | None = None,
                   classifier: LinearClassifier | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Labels (n,) and confidence (n,) of the round pieces in boxes ``xyxy`` (n, 4) **image px**:
    the box of the top face for discs and eggs, of the whole figure (base and top rims) for
    ``racer-colour``."""
    from vision.attributes import box_crop

    clf = classifier or load_classifier(task, profile)
    if task == "racer-colour":
        return clf.predict([box_crop(image, b) for b in np.asarray(xyxy, np.float64).reshape(-1, 4)])
    return clf.predict(crops_from_boxes(image, xyxy))


def classify_cards(image: np.ndarray, quads_px: np.ndarray, profile: str | None = None,
                   classifier: LinearClassifier | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Card kinds (n,) and confidence (n,) of the cards whose corners are ``quads_px`` (n, 4, 2)
    **image px** (any order round the card): each is rectified upright, then classified."""
    from vision.cards import rectify_card

    quads = np.asarray(quads_px, np.float64).reshape(-1, 4, 2)
    clf = classifier or load_classifier("card", profile)
    return clf.predict([rectify_card(image, q, clf.spec.size) for q in quads])


def face_colour(crop: np.ndarray) -> np.ndarray:
    """(3,) Lab (OpenCV 0..255 scale) median of a round piece's face between 0.55 and 0.9 of its
    radius: the team colour, without the sticker in the middle or the mat round it."""
    import cv2

    from vision.attributes import FeatureSpec as _Spec, normalise_crop

    img = normalise_crop(crop, _Spec((24, 24)))
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    rr = np.hypot((xx - (w - 1) / 2) / (w / 2), (yy - (h - 1) / 2) / (h / 2))
    band = (rr > 0.55) & (rr < 0.85)
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)[band].astype(np.float64)
    return np.median(lab, axis=0)


def teams_by_colour(crops, team_colours_bgr, labels=("home", "away"), min_split: float = 12.0) -> tuple[np.ndarray, np.ndarray]:
    """Team of each round piece of one frame when the teams' colours are known (set up once, e.g.
    ``Style.teams`` or the user's choice): (n,) labels and (n,) confidence.

    The face colours of the frame are split in two (2-means in Lab); when they do split (centres
    more than ``min_split`` apart), the clusters are matched to the teams by the direction from one
    team colour to the other, which a colour cast or a change of brightness does not turn round;
    otherwise each piece goes to the nearer team colour."""
    import cv2

    n = len(crops)
    if n == 0:
        return np.zeros(0, dtype=object), np.zeros(0)
    labels = np.asarray(labels, dtype=object)
    tc = cv2.cvtColor(np.uint8(team_colours_bgr).reshape(1, -1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float64)
    F = np.array([face_colour(c) for c in crops])
    d_team = tc[1] - tc[0]
    if n >= 2:
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.1)
        _, assign, centres = cv2.kmeans(F.astype(np.float32), 2, None, crit, 3, cv2.KMEANS_PP_CENTERS)
        assign = assign.reshape(-1)
        centres = centres.astype(np.float64)
        if np.linalg.norm(centres[1] - centres[0]) > min_split:
            flip = float(np.dot(centres[1] - centres[0], d_team)) < 0
            team = (assign ^ int(flip)).astype(int)
            proj = (F - (centres[0] + centres[1]) / 2) @ (d_team / max(np.linalg.norm(d_team), 1e-9))
            conf = 1.0 / (1.0 + np.exp(-np.abs(proj) / 4.0))
            return labels[team], conf
    dist = np.linalg.norm(F[:, None, :] - tc[None], axis=2)
    team = dist.argmin(1)
    margin = np.abs(dist[:, 0] - dist[:, 1])
    return labels[team], 1.0 / (1.0 + np.exp(-margin / 4.0))


def evaluate(clf: LinearClassifier, X: np.ndarray, y) -> dict:
    """Accuracy, per-class recall and the confusion counts of ``clf`` on (n, d) features ``X``
    with (n,) true labels ``y``."""
    y = np.asarray(y, dtype=object)
    P = clf.predict_proba_features(X)
    pred = clf.classes[P.argmax(1)] if len(P) else np.zeros(0, dtype=object)
    out = {"n": int(len(y)), "accuracy": float((pred == y).mean()) if len(y) else float("nan"), "recall": {}, "confusion": {}}
    for c in clf.classes:
        m = y == c
        if m.any():
            out["recall"][str(c)] = float((pred[m] == c).mean())
    for a, b in zip(y, pred):
        if a != b:
            key = f"{a}->{b}"
            out["confusion"][key] = out["confusion"].get(key, 0) + 1
    return out


def train_task(task: str, train_crops: list, train_labels, test_crops: list | None = None, test_labels=None,
               meta: dict | None = None, sample_weight: np.ndarray | None = None) -> tuple[LinearClassifier, dict]:
    """Fit ``task``'s classifier on crops and measure it on the test crops (if given)."""
    t = get_task(task)
    X = features(train_crops, t.spec)
    clf = LinearClassifier.fit(task, X, train_labels, t.classes, t.spec, l2=t.l2, sample_weight=sample_weight, meta=meta)
    metrics = {}
    if test_crops is not None and len(test_crops):
        metrics = evaluate(clf, features(test_crops, t.spec), test_labels)
        clf.meta["test_accuracy"] = metrics["accuracy"]
        clf.meta["n_test"] = metrics["n"]
    return clf, metrics
