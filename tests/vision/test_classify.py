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
