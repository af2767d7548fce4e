"""``tableref train attributes``: each task renders its recipe's number of frames unless told, and a
network's training shows one line per epoch (``--quiet`` none)."""

from __future__ import annotations

import numpy as np

import vision.attribute_data as attribute_data
import vision.classify as classify
from cli.main import main


class _Crops:
    crops = [np.zeros((8, 8, 3), np.uint8)] * 3
    labels = ["a"] * 3

    def __len__(self):
        return 3


class _Saved:
    def save(self, path):
        path.write_bytes(b"x")
        return path


def test_frames_follow_the_task_recipe_and_epochs_are_shown(monkeypatch, tmp_path, capsys):
    rendered = []

    def fake_render(task, frames, seed=0, progress=None):
        rendered.append((task, frames))
        return _Crops()

    def fake_train(task, crops, labels, test_crops, test_labels, meta=None, progress=None):
        if progress is not None:
            for e in (1, 2):
                progress(e, 2, [{"epoch": e, "loss": 0.5 / e}])
        return _Saved(), {"accuracy": 1.0, "n": 3}

    monkeypatch.setattr(attribute_data, "render_crops", fake_render)
    monkeypatch.setattr(classify, "train_task", fake_train)
    assert main(["train", "attributes", "--task", "egg-face", "--task", "card", "--test-frames", "1",
                 "--out", str(tmp_path), "--quiet"]) == 0
    assert rendered[::2] == [("egg-face", 1200), ("card", 600)]
    assert "epoch" not in capsys.readouterr().out
    rendered.clear()
    assert main(["train", "attributes", "--task", "card", "--frames", "5", "--test-frames", "1", "--out", str(tmp_path)]) == 0
    assert rendered[::2] == [("card", 5)]
    assert "card: epoch 2/2 (loss 0.25)" in capsys.readouterr().out
