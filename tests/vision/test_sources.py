"""Frame sources: folders, videos, bad input, and a grabber that keeps the newest frame and retries."""

import time

import cv2
import numpy as np
import pytest

from vision.sources import CallableSource, Grabber, ImageFolderSource, Source, SourceError, open_source


def _write_images(folder, n):
    for i in range(n):
        img = np.full((24, 32, 3), i * 10, np.uint8)
        cv2.imwrite(str(folder / f"f{i:03d}.png"), img)


def test_folder_in_name_order_with_timestamps(tmp_path):
    _write_images(tmp_path, 3)
    frames = list(open_source(str(tmp_path)))
    assert [f.index for f in frames] == [0, 1, 2]
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 10, 20]
    assert frames[1].timestamp == pytest.approx(1 / 30)


def test_video_file_round_trip(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (32, 24))
    for i in range(5):
        writer.write(np.full((24, 32, 3), i * 40, np.uint8))
    writer.release()
    frames = list(open_source(str(path)))
    assert len(frames) == 5
    assert frames[-1].timestamp == pytest.approx(0.4, abs=0.02)


@pytest.mark.parametrize("spec,words", [
    ("", "empty source"),                       # nothing given
    ("/nonexistent/folder", "no such file"),    # missing path
    ("/nonexistent/clip.mp4", "no such video"),  # missing video
])
def test_bad_specs_say_what_is_wrong(spec, words):
    with pytest.raises(SourceError, match=words):
        open_source(spec)


def test_unreadable_image_and_empty_folder(tmp_path):
    with pytest.raises(SourceError, match="no images"):
        ImageFolderSource(tmp_path)
    (tmp_path / "bad.png").write_bytes(b"not a png")
    with pytest.raises(SourceError, match="not a readable image"):
        list(open_source(str(tmp_path)))


def test_camera_that_cannot_be_opened():
    src = open_source("57")  # no such webcam index here
    with pytest.raises(SourceError, match="cannot open camera 57"):
        src.open()


def test_grabber_keeps_only_the_newest_frame():
    def frames():
        for i in range(50):
            yield np.full((4, 4, 3), i, np.uint8), i / 1000
    g = Grabber(CallableSource(frames, "fast"), backoff=0.01).start()
    time.sleep(0.3)
    latest = g.latest()
    g.stop()
    assert latest.index == 49 and g.status.state == "ended"
    assert g.status.frames == 50 and g.status.dropped >= 40


class FlakyCamera(Source):
    """A live source that fails twice when opened, then delivers frames."""

    live = True
    name = "flaky"

    def __init__(self):
        self.opens = 0
        self.i = 0

    def open(self):
        self.opens += 1
        if self.opens <= 2:
            raise SourceError("camera unplugged")

    def read(self):
        from vision.sources import Frame
        self.i += 1
        if self.i > 3:
            return None
        return Frame(np.zeros((2, 2, 3), np.uint8), float(self.i), self.i - 1, self.name)


def test_lost_camera_is_retried_with_backoff_and_reported():
    cam = FlakyCamera()
    g = Grabber(cam, backoff=0.01, max_backoff=0.02).start()
    frame = g.latest(wait=2.0, newer_than=1)
    g.stop()
    assert cam.opens == 3 and g.status.retries == 2
    assert frame is not None and frame.index == 2


def test_a_camera_that_never_comes_back_fails_cleanly():
    class Dead(FlakyCamera):
        def open(self):
            raise SourceError("camera unplugged")
    g = Grabber(Dead(), backoff=0.001, max_backoff=0.002, max_retries=4).start()
    g._thread.join(2)
    assert g.status.state == "failed" and "unplugged" in g.status.message
    assert g.latest() is None
