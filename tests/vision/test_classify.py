"""The linear attribute classifier: fitting, shapes, files, and where models are read from."""

import numpy as np
import pytest

from vision.attributes import FeatureSpec
from vision.classify import LinearClassifier, ModelError, get_task, load_classifier, model_path, profile_dir

SPEC = FeatureSpec((8, 8), ("colour",))


def toy(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(-2, 1, (n, 3)), rng.normal(2, 1, (n, 3))])
    y = np.array(["a"] * n + ["b"] * n, dtype=object)
    return X, y


def test_fit_separates_and_probabilities_sum_to_one():
    X, y = toy()
    clf = LinearClassifier.fit("toy", X, y, ("a", "b"), SPEC)
    P = clf.predict_proba_features(X)
    assert P.shape == (120, 2) and np.allclose(P.sum(1), 1)
    assert (clf.classes[P.argmax(1)] == y).mean() > 0.97
    assert clf.predict_proba_features(np.zeros((0, 3))).shape == (0, 2)


def test_unknown_label_is_an_error():
    X, y = toy()
    y[0] = "c"
    with pytest.raises(ValueError, match="not classes"):
        LinearClassifier.fit("toy", X, y, ("a", "b"), SPEC)


@pytest.mark.parametrize("field, value, message", [
    ("weights", np.zeros((3, 3)), "weights must have shape"),   # k = 2 classes, not 3
    ("bias", np.zeros(3), "bias must have shape"),
    ("scale", np.zeros(2), "scale must have shape"),           # d = 3 features
])
def test_shapes_are_checked(field, value, message):
    args = dict(task="t", classes=["a", "b"], spec=SPEC, mean=np.zeros(3), scale=np.ones(3), weights=np.zeros((3, 2)), bias=np.zeros(2))
    args[field] = value
    with pytest.raises(ValueError, match=message):
        LinearClassifier(**args)


def test_save_load_round_trip(tmp_path):
    X, y = toy()
    clf = LinearClassifier.fit("toy", X, y, ("a", "b"), SPEC, meta={"data": "toy"})
    path = clf.save(tmp_path / "m.npz")
    back = LinearClassifier.load(path)
    assert list(back.classes) == ["a", "b"] and back.spec == SPEC and back.meta["data"] == "toy"
    assert np.allclose(back.predict_proba_features(X), clf.predict_proba_features(X), atol=1e-4)


def test_missing_or_broken_model_says_what_to_do(tmp_path):
    with pytest.raises(ModelError, match="tableref train attributes"):
        LinearClassifier.load(tmp_path / "nope.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ModelError, match="retrain"):
        LinearClassifier.load(tmp_path / "bad.npz")


def test_profile_is_preferred_and_never_the_shipped_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLEREF_HOME", str(tmp_path))
    shipped = model_path("card")
    assert shipped.parent.name == "attributes"
    assert model_path("card", profile="mine") == shipped  # no profile file yet: the shipped one
    X, y = toy()
    LinearClassifier.fit("card", X, y, ("a", "b"), SPEC).save(profile_dir("mine") / "card.npz")
    assert model_path("card", profile="mine") == tmp_path / "profiles" / "mine" / "card.npz"
    assert list(load_classifier("card", profile="mine").classes) == ["a", "b"]


@pytest.mark.parametrize("name", ["../x", "a/b", ".hidden", ""])
def test_bad_profile_names(name):
    with pytest.raises(ValueError, match="profile name"):
        profile_dir(name)


def test_unknown_task():
    with pytest.raises(ValueError, match="unknown attribute task"):
        get_task("hat-colour")


# --------------------------------------------------------------------------------------------
# the small CNN (egg face, card kind): torch to train, numpy to run


def _shapes(n=48, seed=0, size=20):
    """Crops of a filled disc ("disc") or a cross ("cross") of random colour, place and size."""
    import cv2

    rng = np.random.default_rng(seed)
    crops, labels = [], []
    for i in range(n):
        img = np.full((size, size, 3), rng.integers(60, 120, 3), np.uint8)
        colour = tuple(int(v) for v in rng.integers(150, 255, 3))
        c = size // 2 + int(rng.integers(-2, 3))
        r = int(rng.integers(size // 4, size // 3 + 1))
        if i % 2:
            cv2.circle(img, (c, c), r, colour, -1)
        else:
            cv2.line(img, (c - r, c), (c + r, c), colour, 2)
            cv2.line(img, (c, c - r), (c, c + r), colour, 2)
        crops.append(img)
        labels.append("disc" if i % 2 else "cross")
    return crops, np.array(labels, dtype=object)


def test_numpy_network_matches_torch():
    torch = pytest.importorskip("torch")
    import torch.nn as nn

    from vision.classify import _from_torch, conv_input

    torch.manual_seed(0)
    layers = []
    for i, (a, b) in enumerate(((3, 8), (8, 16), (16, 16))):
        layers += [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU()] + ([nn.MaxPool2d(2)] if i < 2 else [])
    net = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 3))
    for m in net:
        if isinstance(m, nn.BatchNorm2d):  # batch norm that is not the identity, to be folded
            m.running_mean.uniform_(-1, 1)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    net.eval()
    rng = np.random.default_rng(0)
    crops = [rng.integers(0, 255, (int(rng.integers(10, 60)), int(rng.integers(10, 60)), 3), dtype=np.uint8) for _ in range(5)]
    x = conv_input(crops, (24, 40))
    assert x.shape == (5, 40, 24, 3)
    with torch.no_grad():
        expected = net(torch.from_numpy(x).permute(0, 3, 1, 2)).numpy()
    model = _from_torch(net, "t", ("a", "b", "c"), (24, 40), "none", {})
    assert np.abs(model.logits(x, engine="numpy") - expected).max() < 1e-4
    pytest.importorskip("onnxruntime")
    assert np.abs(model.logits(x, engine="onnx") - expected).max() < 1e-4


def test_conv_fit_separates_saves_and_averages_its_symmetries(tmp_path):
    pytest.importorskip("torch")
    from vision.classify import ConvClassifier, ConvRecipe, fit_conv, load_model

    crops, labels = _shapes(64)
    recipe = ConvRecipe(size=(12, 12), widths=(6, 12), epochs=5, symmetry="quarter-turns", batch=16, lr=1e-2)
    val_crops, val_labels = _shapes(40, seed=1)
    model, history = fit_conv("toy", crops, labels, ("disc", "cross"), recipe, val_crops=val_crops, val_labels=val_labels,
                              threads=1)
    assert len(history) == 5 and "val_accuracy" in history[-1]
    pred, conf = model.predict(val_crops)
    assert (pred == val_labels).mean() >= 0.9
    assert conf.shape == (40,) and ((conf >= 0.5) & (conf <= 1)).all()
    # every quarter turn averaged: a turned crop gets the very same probabilities
    P = model.predict_proba(val_crops[:6])
    P_turned = model.predict_proba([np.ascontiguousarray(np.rot90(c)) for c in val_crops[:6]])
    assert np.allclose(P, P_turned, atol=1e-5)
    assert model.predict_proba([]).shape == (0, 2) and model.predict([])[0].shape == (0,)
    back = load_model(model.save(tmp_path / "m.npz"))
    assert isinstance(back, ConvClassifier) and back.symmetry == "quarter-turns" and back.spec.size == (12, 12)
    assert np.allclose(back.predict_proba(val_crops), model.predict_proba(val_crops), atol=1e-6)
    with pytest.raises(ModelError, match="not a linear"):
        LinearClassifier.load(tmp_path / "m.npz")


def test_conv_shapes_are_checked():
    from vision.classify import ConvClassifier

    args = dict(task="t", classes=["a", "b"], spec=SPEC, convs=[np.zeros((3, 3, 3, 4))], biases=[np.zeros(4)],
                fc_w=np.zeros((4, 2)), fc_b=np.zeros(2))
    ConvClassifier(**args)
    with pytest.raises(ValueError, match="does not follow"):
        ConvClassifier(**{**args, "convs": [np.zeros((3, 3, 2, 4))]})
    with pytest.raises(ValueError, match="fc_w"):
        ConvClassifier(**{**args, "fc_w": np.zeros((4, 3))})
    with pytest.raises(ValueError, match="symmetry"):
        ConvClassifier(**{**args, "symmetry": "mirror"})
    with pytest.raises(ValueError, match="square"):
        ConvClassifier(**{**args, "spec": FeatureSpec((8, 12)), "symmetry": "quarter-turns"})


def test_a_profile_is_named_or_given_as_its_folder(tmp_path, monkeypatch):
    from vision.classify import SHIPPED_DIR, model_path

    monkeypatch.setenv("TABLEREF_HOME", str(tmp_path / "home"))
    named = tmp_path / "home" / "profiles" / "mine"
    named.mkdir(parents=True)
    (named / "card.npz").write_bytes(b"x")
    elsewhere = tmp_path / "data" / "profiles" / "mine"
    elsewhere.mkdir(parents=True)
    (elsewhere / "team.npz").write_bytes(b"x")
    assert model_path("card", "mine") == named / "card.npz"
    assert model_path("team", str(elsewhere)) == elsewhere / "team.npz"
    assert model_path("card", str(elsewhere)) == SHIPPED_DIR / "card.npz"  # the profile lacks it: shipped
