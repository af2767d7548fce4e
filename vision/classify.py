"""Attribute classifiers, one per task, each saved as a small ``.npz``: a multinomial logistic
regression on the features of ``vision/attributes.py`` (``LinearClassifier``), or, for the tasks
with a ``ConvRecipe`` (egg face, card kind), a very small CNN on the crop's pixels
(``ConvClassifier``: trained with torch by ``fit_conv``, run with onnxruntime, numpy as the
reference). ``load_model`` reads either; both have ``classes``, ``spec`` and ``predict`` on crops.

Tasks (``TASKS``): ``egg-face`` (whole / broken), ``egg-colour`` (blue, purple, red, yellow),
``card`` (cat, dog, bear, cookie, good-boy, back: on a card rectified upright), ``team`` (home /
away, from the disc's printed team pattern, whatever the team colours), ``colour`` (the named colour
of a disc's top face), ``racer-colour`` (a Dodo Dash racer, cut by the box of the whole figure),
``size`` (a Dino Dunk round piece's kind: the ball or a small, medium or large disc, from the square
of its top plane ``SIZE_HALF_MM`` either side of where it was found: :func:`size_crops`).

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
ROUND_SIZES = ("ball", "disc-small", "disc-medium", "disc-large")  # the "size" task's classes: Dino Dunk's kinds
SIZE_HALF_MM = 30.0  # the "size" crop: the top plane this far either side of the place (mat mm)


@dataclass(frozen=True)
class ConvRecipe:
    """How ``tableref train attributes`` fits a task's ``ConvClassifier``: input ``size`` (w, h)
    px, the channels of its convolution blocks (``widths``), ``epochs`` over the training crops,
    ``symmetry`` (a key of ``SYMMETRIES``: the turns used as augmentation in training and averaged
    at inference), ``val_frames`` the last renders of the training seed kept out for validation."""

    size: tuple = (32, 32)
    widths: tuple = (16, 32, 64, 64)
    epochs: int = 12
    symmetry: str = "none"
    batch: int = 128
    lr: float = 3e-3
    val_frames: int = 120


@dataclass(frozen=True)
class Task:
    """An attribute task. ``spec`` the hand-made features of its linear model (the model a
    ``tableref teach`` profile fits); ``conv`` when set, the shipped model is a ``ConvClassifier``
    trained by that recipe instead (cards are then rectified to its input size)."""

    name: str
    classes: tuple
    spec: FeatureSpec
    l2: float = 1e-3
    help: str = ""
    conv: ConvRecipe | None = None
    frames: int = 600  # training renders ``tableref train attributes`` makes by default (about 24 pieces each)
    teach: bool = True  # whether ``tableref teach`` (and the dashboard's teach page) adapts it to a user's pieces


TASKS = {
    "egg-face": Task("egg-face", ("whole", "broken"), FeatureSpec((32, 32), ("colour", "radial", "hog", "lbp"), 8, True),
                     help="Morris egg token: whole or broken face up",
                     conv=ConvRecipe((32, 32), (16, 32, 64, 64), epochs=12, symmetry="quarter-turns"), frames=1200),
    "egg-colour": Task("egg-colour", EGG_COLOURS, FeatureSpec((24, 24), ("colour", "radial"), 8, True),
                       help="Morris egg token colour"),
    "card": Task("card", CARD_KINDS, FeatureSpec((40, 56), ("colour", "hog"), 8, False),
                 help="Dogo Dash card kind on the card rectified upright",
                 conv=ConvRecipe((40, 56), (16, 32, 64, 64), epochs=4, symmetry="half-turn")),
    "team": Task("team", ("home", "away"), FeatureSpec((40, 40), ("colour", "radial", "hog", "lbp"), 8, True),
                 help="Dino Dunk team from the disc's printed pattern (ring: home, stripes: away)"),
    "colour": Task("colour", DISC_COLOURS, FeatureSpec((24, 24), ("colour", "radial"), 8, True),
                   help="named colour of a disc's top face"),
    "racer-colour": Task("racer-colour", RACER_COLOURS, FeatureSpec((24, 24), ("colour", "radial"), 8, False),
                         help="Dodo Dash racer colour, on the box of the whole figure (base and top rims)"),
    "size": Task("size", ROUND_SIZES, FeatureSpec((32, 32), ("colour", "radial", "hog", "lbp"), 8, True),
                 help="Dino Dunk round piece: the ball or a small, medium or large disc, from a crop of its top "
                      "plane 60 mm across centred anywhere within half its radius of its centre",
                 conv=ConvRecipe((32, 32), (16, 32, 64, 64), epochs=10, symmetry="quarter-turns"), frames=600,
                 teach=False),  # (a check of the detector's own fit, on a square it cuts itself: not a user's crops)
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


class _Predicts:
    """``predict`` from a classifier's ``predict_proba`` and ``classes``."""

    def predict(self, crops) -> tuple[np.ndarray, np.ndarray]:
        """(n,) labels (object) and (n,) confidence of n crops."""
        P = self.predict_proba(crops)
        if not len(P):
            return np.zeros(0, dtype=object), np.zeros(0)
        i = P.argmax(1)
        return self.classes[i], P[np.arange(len(P)), i]


@dataclass
class LinearClassifier(_Predicts):
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
        model = load_model(path)
        if not isinstance(model, cls):
            raise ModelError(f"{path}: a {type(model).__name__}, not a linear attribute model")
        return model

    @classmethod
    def from_arrays(cls, meta: dict, arrays: dict) -> "LinearClassifier":
        meta = dict(meta)
        meta.pop("model", None)
        task = meta.pop("task")
        classes = meta.pop("classes")
        spec = FeatureSpec.from_dict(meta.pop("spec"))
        return cls(task, classes, spec, arrays["mean"], arrays["scale"], arrays["weights"], arrays["bias"], meta)


def load_model(path: str | Path) -> "LinearClassifier | ConvClassifier":
    """An attribute model file (``.npz``): a ``LinearClassifier`` or a ``ConvClassifier``, as its
    ``meta`` says (files without a ``model`` entry are linear)."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            arrays = {k: z[k] for k in z.files if k != "meta"}
        kind = meta.get("model", "linear")
        if kind == "conv":
            return ConvClassifier.from_arrays(meta, arrays)
        if kind != "linear":
            raise ValueError(f"unknown model kind {kind!r}")
        return LinearClassifier.from_arrays(meta, arrays)
    except FileNotFoundError:
        raise ModelError(f"{path}: no such attribute model (run `tableref train attributes`)") from None
    except (OSError, KeyError, ValueError) as exc:
        raise ModelError(f"{path}: not a tableref attribute model ({exc}); retrain it with `tableref train attributes`") from None


# ------------------------------------------------------------------------------------------------
# a very small convolutional network (egg face, card kind): trained with torch, run with numpy


def conv_input(crops, size: tuple) -> np.ndarray:
    """(n, h, w, 3) float32 network input of n BGR crops (image px, any size): each resized to
    ``size`` (w, h) (area-averaged when shrunk), less its mean colour, divided by its spread (the
    light's level and cast do not matter, the print's pattern and relative colours do)."""
    from vision.attributes import FeatureSpec as _Spec, normalise_crop

    w, h = int(size[0]), int(size[1])
    out = np.zeros((len(crops), h, w, 3), np.float32)
    spec = _Spec((w, h))
    for i, c in enumerate(crops):
        img = normalise_crop(c, spec).astype(np.float32) / 255.0
        img -= img.reshape(-1, 3).mean(0)
        out[i] = img / (float(img.std()) + 0.02)
    return out


def _conv3x3_relu(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 convolution (zero padding 1) + bias + ReLU of (n, h, w, c) by ``w`` (3, 3, c, o)."""
    n, h, wd, c = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.empty((n * h * wd, w.shape[3]), np.float32)
    out[:] = b
    for dy in range(3):
        for dx in range(3):
            out += xp[:, dy:dy + h, dx:dx + wd, :].reshape(-1, c) @ w[dy, dx]
    return np.maximum(out, 0.0, out=out).reshape(n, h, wd, -1)


def _maxpool2(x: np.ndarray) -> np.ndarray:
    n, h, w, c = x.shape
    return x[:, : h // 2 * 2, : w // 2 * 2].reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


# the turns of the input that do not change the label, averaged at inference (test-time augmentation)
SYMMETRIES = {"none": ((0, False),), "half-turn": ((0, False), (2, False)),
              "quarter-turns": ((0, False), (1, False), (2, False), (3, False))}


@dataclass
class ConvClassifier(_Predicts):
    """A small CNN on the crop's pixels: blocks of 3x3 convolution + ReLU (batch norm folded in),
    a 2x2 max-pool after every block but the last, global average pooling and a linear layer.
    ``convs`` a list of (3, 3, c_in, c_out) float32 kernels, ``biases`` their (c_out,) biases;
    ``fc_w`` (c, k), ``fc_b`` (k,); ``spec.size`` (w, h) the input size; ``symmetry`` a key of
    ``SYMMETRIES`` (the turns averaged at inference); ``meta`` provenance."""

    task: str
    classes: np.ndarray
    spec: FeatureSpec
    convs: list
    biases: list
    fc_w: np.ndarray
    fc_b: np.ndarray
    symmetry: str = "none"
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        self.classes = np.asarray(self.classes, dtype=object).reshape(-1)
        self.convs = [np.asarray(w, np.float32) for w in self.convs]
        self.biases = [np.asarray(b, np.float32).reshape(-1) for b in self.biases]
        self.fc_w = np.asarray(self.fc_w, np.float32)
        self.fc_b = np.asarray(self.fc_b, np.float32).reshape(-1)
        if self.symmetry not in SYMMETRIES:
            raise ValueError(f"symmetry {self.symmetry!r}: choose one of {', '.join(SYMMETRIES)}")
        if self.symmetry == "quarter-turns" and self.spec.size[0] != self.spec.size[1]:
            raise ValueError(f"quarter-turns need a square input, not {self.spec.size}")
        if not self.convs or len(self.convs) != len(self.biases):
            raise ValueError("convs and biases must be non-empty lists of the same length")
        c = 3
        for w, b in zip(self.convs, self.biases):
            if w.shape[:3] != (3, 3, c) or b.shape != (w.shape[3],):
                raise ValueError(f"convolution of shape {w.shape} (bias {b.shape}) does not follow {c} channels")
            c = w.shape[3]
        if self.fc_w.shape != (c, len(self.classes)) or self.fc_b.shape != (len(self.classes),):
            raise ValueError(f"fc_w must have shape {(c, len(self.classes))} and fc_b {(len(self.classes),)}")

    def onnx_model(self) -> bytes:
        """The network as an ONNX graph (input ``x`` (n, 3, h, w), output ``logits`` (n, k)),
        built from the arrays (the ``.npz`` stays the one source)."""
        import onnx
        from onnx import TensorProto, helper, numpy_helper

        nodes, inits, cur = [], [], "x"
        for i, (w, b) in enumerate(zip(self.convs, self.biases)):
            inits += [numpy_helper.from_array(np.ascontiguousarray(w.transpose(3, 2, 0, 1)), f"w{i}"),
                      numpy_helper.from_array(b, f"b{i}")]
            nodes += [helper.make_node("Conv", [cur, f"w{i}", f"b{i}"], [f"c{i}"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
                      helper.make_node("Relu", [f"c{i}"], [f"r{i}"])]
            cur = f"r{i}"
            if i < len(self.convs) - 1:
                nodes.append(helper.make_node("MaxPool", [cur], [f"p{i}"], kernel_shape=[2, 2], strides=[2, 2]))
                cur = f"p{i}"
        inits += [numpy_helper.from_array(self.fc_w, "fc_w"), numpy_helper.from_array(self.fc_b, "fc_b")]
        nodes += [helper.make_node("GlobalAveragePool", [cur], ["gap"]), helper.make_node("Flatten", ["gap"], ["flat"]),
                  helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"])]
        w, h = self.spec.size
        graph = helper.make_graph(nodes, self.task, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, h, w])],
                                  [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", len(self.classes)])], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        return model.SerializeToString()

    def _session(self):
        """An onnxruntime session of the network (one thread), or None without onnxruntime."""
        if not hasattr(self, "_ort"):
            try:
                import onnxruntime as ort

                opts = ort.SessionOptions()
                opts.intra_op_num_threads = 1
                opts.inter_op_num_threads = 1
                self._ort = ort.InferenceSession(self.onnx_model(), opts, providers=["CPUExecutionProvider"])
            except ImportError:
                self._ort = None
        return self._ort

    def logits(self, x: np.ndarray, engine: str = "auto") -> np.ndarray:
        """(n, k) logits of (n, h, w, 3) network input (``conv_input``). ``engine``: ``onnx``
        (onnxruntime, ~0.1 ms a crop), ``numpy`` (the reference, ~20x slower) or ``auto`` (onnx
        where onnxruntime is installed)."""
        if engine != "numpy" and len(x):
            sess = self._session() if engine in ("auto", "onnx") else None
            if sess is not None:
                return sess.run(None, {"x": np.ascontiguousarray(x.transpose(0, 3, 1, 2), np.float32)})[0]
            if engine == "onnx":
                raise ImportError("onnxruntime is not installed")
        for i, (w, b) in enumerate(zip(self.convs, self.biases)):
            x = _conv3x3_relu(x, w, b)
            if i < len(self.convs) - 1:
                x = _maxpool2(x)
        return x.mean(axis=(1, 2)) @ self.fc_w + self.fc_b

    def predict_proba(self, crops) -> np.ndarray:
        """(n, k) probabilities of n crops (BGR, image px, any size), averaged over the task's
        symmetries."""
        k = len(self.classes)
        if len(crops) == 0:
            return np.zeros((0, k))
        x = conv_input(crops, self.spec.size)
        n, views = len(x), SYMMETRIES[self.symmetry]
        z = self.logits(np.concatenate([np.rot90(x, turns, axes=(1, 2)) for turns, _ in views])).astype(np.float64)
        z -= z.max(1, keepdims=True)
        e = np.exp(z)
        e /= e.sum(1, keepdims=True)
        return e.reshape(len(views), n, k).mean(0)


    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"model": "conv", "task": self.task, "classes": [str(c) for c in self.classes], "spec": self.spec.to_dict(),
                "symmetry": self.symmetry, **self.meta}
        arrays = {f"conv{i}": w.astype(np.float32) for i, w in enumerate(self.convs)}
        arrays.update({f"bias{i}": b.astype(np.float32) for i, b in enumerate(self.biases)})
        with open(path, "wb") as fh:
            np.savez_compressed(fh, fc_w=self.fc_w, fc_b=self.fc_b, meta=np.array(json.dumps(meta)), **arrays)
        return path

    @classmethod
    def from_arrays(cls, meta: dict, arrays: dict) -> "ConvClassifier":
        meta = dict(meta)
        meta.pop("model", None)
        n = sum(1 for k in arrays if k.startswith("conv"))
        return cls(meta.pop("task"), meta.pop("classes"), FeatureSpec.from_dict(meta.pop("spec")),
                   [arrays[f"conv{i}"] for i in range(n)], [arrays[f"bias{i}"] for i in range(n)],
                   arrays["fc_w"], arrays["fc_b"], meta.pop("symmetry", "none"), meta)


def model_path(task: str, profile: str | None = None, shipped_dir: str | Path | None = None) -> Path:
    """Where ``task``'s model is read from: the profile's file if it exists, else the shipped one.
    ``profile``: a profile's name (under ``tableref_home()``) or the absolute path of a profile's
    folder (a dashboard's data folder may be elsewhere)."""
    get_task(task)
    if profile:
        p = (Path(profile) if Path(profile).is_absolute() else profile_dir(profile)) / f"{task}.npz"
        if p.exists():
            return p
    return Path(shipped_dir or SHIPPED_DIR) / f"{task}.npz"


_LOADED: dict = {}


def load_classifier(task: str, profile: str | None = None, shipped_dir: str | Path | None = None) -> "LinearClassifier | ConvClassifier":
    """The classifier for ``task`` (a profile's own when it has one, else the shipped one), cached.
    Either kind has ``classes``, ``spec`` (``spec.size`` the crop size it expects), ``predict``
    and ``predict_proba`` on crops."""
    path = model_path(task, profile, shipped_dir)
    key = (str(path), path.stat().st_mtime if path.exists() else 0.0)
    if key not in _LOADED:
        _LOADED[key] = load_model(path)
    return _LOADED[key]


def classify_boxes(image: np.ndarray, xyxy: np.ndarray, task: str, profile: str | None = None,
                   classifier=None) -> tuple[np.ndarray, np.ndarray]:
    """Labels (n,) and confidence (n,) of the round pieces in boxes ``xyxy`` (n, 4) **image px**:
    the box of the top face for discs and eggs, of the whole figure (base and top rims) for
    ``racer-colour``."""
    from vision.attributes import box_crop

    clf = classifier or load_classifier(task, profile)
    if task == "racer-colour":
        return clf.predict([box_crop(image, b) for b in np.asarray(xyxy, np.float64).reshape(-1, 4)])
    return clf.predict(crops_from_boxes(image, xyxy))


def size_box(points_px: np.ndarray) -> tuple:
    """The image box (x0, y0, x1, y1) of the "size" task's square: ``points_px`` the image points of
    a ring of radius ``SIZE_HALF_MM`` on the piece's top plane (:func:`size_crops`)."""
    pts = np.asarray(points_px, np.float64).reshape(-1, 2)
    return (*pts.min(0), *pts.max(0))


def size_crops(image: np.ndarray, transform, xy_mm, top_mm) -> list:
    """The "size" task's crops: for each place ``xy_mm`` (n, 2) mat mm, the square of the image
    around a ring of radius ``SIZE_HALF_MM`` on the plane ``top_mm`` (n,) above the mat (a piece's
    top face), the way the training renders cut them (``vision.attribute_data``)."""
    from vision.attributes import square_crop

    n = 24
    a = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    # (the renders' polygon of the circle's area: its corners a hair outside it)
    ring = SIZE_HALF_MM * np.sqrt((2.0 * np.pi / n) / np.sin(2.0 * np.pi / n)) * np.column_stack([np.cos(a), np.sin(a)])
    xy = np.asarray(xy_mm, np.float64).reshape(-1, 2)
    top = np.broadcast_to(np.asarray(top_mm, np.float64), (len(xy),))
    return [square_crop(image, size_box(transform.mat_to_image(c + ring, float(h))), margin=0.0) for c, h in zip(xy, top)]


def classify_cards(image: np.ndarray, quads_px: np.ndarray, profile: str | None = None,
                   classifier=None) -> tuple[np.ndarray, np.ndarray]:
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


def _scores(classes, pred, y) -> dict:
    y = np.asarray(y, dtype=object)
    out = {"n": int(len(y)), "accuracy": float((pred == y).mean()) if len(y) else float("nan"), "recall": {}, "confusion": {}}
    for c in classes:
        m = y == c
        if m.any():
            out["recall"][str(c)] = float((pred[m] == c).mean())
    for a, b in zip(y, pred):
        if a != b:
            key = f"{a}->{b}"
            out["confusion"][key] = out["confusion"].get(key, 0) + 1
    return out


def evaluate(clf: LinearClassifier, X: np.ndarray, y) -> dict:
    """Accuracy, per-class recall and the confusion counts of ``clf`` on (n, d) features ``X``
    with (n,) true labels ``y``."""
    P = clf.predict_proba_features(X)
    pred = clf.classes[P.argmax(1)] if len(P) else np.zeros(0, dtype=object)
    return _scores(clf.classes, pred, y)


SIZE_BINS_PX = (0, 12, 14, 16, 20, 24)


def evaluate_crops(clf, crops, y, by_size: bool = False) -> dict:
    """``evaluate`` for a classifier of either kind on (n,) crops (BGR, image px). ``by_size``:
    also ``by_size`` {"<lo>-<hi>px": {"n", "accuracy"}}, by the crop's longer side (``SIZE_BINS_PX``;
    for round pieces the square crop round the top face, 1.16 times its box)."""
    pred, _ = clf.predict(crops)
    out = _scores(clf.classes, pred, y)
    if by_size and len(crops):
        side = np.array([max(c.shape[:2]) for c in crops])
        ok = pred == np.asarray(y, dtype=object)
        edges = list(SIZE_BINS_PX) + [np.inf]
        out["by_size"] = {}
        for lo, hi in zip(edges[:-1], edges[1:]):
            m = (side >= lo) & (side < hi)
            if m.any():
                key = f"{lo}-{hi}px" if np.isfinite(hi) else f">={lo}px"
                out["by_size"][key] = {"n": int(m.sum()), "accuracy": float(ok[m].mean())}
    return out


def fit_conv(task: str, crops: list, labels, classes, recipe: ConvRecipe, seed: int = 0, val_crops=None, val_labels=None,
             meta: dict | None = None, threads: int = 1, progress=None) -> tuple[ConvClassifier, list]:
    """Train a ``ConvClassifier`` on crops (BGR, image px) and (n,) labels with torch (CPU,
    ``threads`` threads, deterministic for a ``seed``): AdamW, one-cycle learning rate, the
    recipe's symmetries as augmentation (quarter turns also mirror). Returns the model (batch
    norm folded into the convolutions) and the per-epoch history (train loss, validation
    accuracy when ``val_crops`` are given). ``progress(epoch, epochs, history)`` is called after each epoch."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    classes = tuple(classes)
    index = {c: i for i, c in enumerate(classes)}
    unknown = sorted({str(v) for v in labels} - set(index))
    if unknown:
        raise ValueError(f"labels {unknown} are not classes of {task!r} ({', '.join(classes)})")
    X = torch.from_numpy(conv_input(crops, recipe.size)).permute(0, 3, 1, 2).contiguous()
    y = torch.tensor([index[v] for v in labels], dtype=torch.int64)
    Xv = torch.from_numpy(conv_input(val_crops, recipe.size)).permute(0, 3, 1, 2).contiguous() if val_crops is not None and len(val_crops) else None
    yv = np.array([index[v] for v in val_labels]) if Xv is not None else None

    layers, c = [], 3
    for i, w in enumerate(recipe.widths):
        layers += [nn.Conv2d(c, w, 3, padding=1, bias=False), nn.BatchNorm2d(w), nn.ReLU()]
        if i < len(recipe.widths) - 1:
            layers.append(nn.MaxPool2d(2))
        c = w
    net = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, len(classes)))
    opt = torch.optim.AdamW(net.parameters(), lr=recipe.lr, weight_decay=1e-4)
    per_epoch = (len(y) + recipe.batch - 1) // recipe.batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=recipe.lr, total_steps=recipe.epochs * per_epoch, pct_start=0.15)
    turns = [t for t, _ in SYMMETRIES[recipe.symmetry]]
    history = []
    for epoch in range(recipe.epochs):
        net.train()
        perm = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), recipe.batch):
            idx = perm[i:i + recipe.batch]
            xb = X[idx]
            k = turns[int(torch.randint(len(turns), (1,), generator=gen))]
            if k:
                xb = torch.rot90(xb, k, (2, 3))
            if recipe.symmetry == "quarter-turns" and float(torch.rand(1, generator=gen)) < 0.5:
                xb = xb.flip(3)
            loss = F.cross_entropy(net(xb), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        row = {"epoch": epoch + 1, "loss": round(total / len(y), 5)}
        if Xv is not None:
            net.eval()
            with torch.no_grad():
                pv = torch.cat([net(Xv[j:j + 512]) for j in range(0, len(Xv), 512)]).argmax(1).numpy()
            row["val_accuracy"] = float((pv == yv).mean())
        history.append(row)
        if progress is not None:
            progress(epoch + 1, recipe.epochs, history)
    info = dict(meta or {})
    info.update({"n_train": int(len(y)), "epochs": recipe.epochs, "widths": list(recipe.widths), "history": history,
                 "parameters": int(sum(p.numel() for p in net.parameters()))})
    return _from_torch(net, task, classes, recipe.size, recipe.symmetry, info), history


def _from_torch(net, task: str, classes, size, symmetry: str, meta: dict) -> ConvClassifier:
    """The numpy ``ConvClassifier`` of a torch ``Sequential`` of (Conv2d, BatchNorm2d, ReLU[,
    MaxPool2d]) blocks, pooling and a Linear layer: batch norm folded into the convolutions."""
    import torch
    import torch.nn as nn

    net.eval()
    convs, biases = [], []
    mods = list(net)
    with torch.no_grad():
        for j, m in enumerate(mods):
            if isinstance(m, nn.Conv2d):
                bn = mods[j + 1]
                g = bn.weight / torch.sqrt(bn.running_var + bn.eps)
                convs.append((m.weight * g[:, None, None, None]).permute(2, 3, 1, 0).numpy().copy())
                biases.append((bn.bias - bn.running_mean * g).numpy().copy())
        fc = mods[-1]
        fc_w, fc_b = fc.weight.numpy().T.copy(), fc.bias.numpy().copy()
    spec = FeatureSpec(tuple(int(v) for v in size), ("pixels",), 8, False)
    return ConvClassifier(task, classes, spec, convs, biases, fc_w, fc_b, symmetry, meta)


def train_task(task: str, train_crops: list, train_labels, test_crops: list | None = None, test_labels=None,
               meta: dict | None = None, sample_weight: np.ndarray | None = None, val_crops=None, val_labels=None,
               progress=None):
    """Fit ``task``'s shipped classifier on crops and measure it on the test crops (if given): a
    ``ConvClassifier`` when the task has a ``conv`` recipe (``val_crops`` watched per epoch), else a
    ``LinearClassifier`` on the task's features."""
    t = get_task(task)
    if t.conv is not None:
        clf, _ = fit_conv(task, train_crops, train_labels, t.classes, t.conv, val_crops=val_crops, val_labels=val_labels,
                          meta=meta, progress=progress)
    else:
        X = features(train_crops, t.spec)
        clf = LinearClassifier.fit(task, X, train_labels, t.classes, t.spec, l2=t.l2, sample_weight=sample_weight, meta=meta)
    metrics = {}
    if test_crops is not None and len(test_crops):
        metrics = evaluate_crops(clf, test_crops, test_labels, by_size=task != "card")
        clf.meta["test_accuracy"] = metrics["accuracy"]
        clf.meta["n_test"] = metrics["n"]
    return clf, metrics
