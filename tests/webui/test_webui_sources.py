"""`tableref serve --source` with something other than the simulator: a folder of images, a video
file, a missing camera — published through the frame feed, bad specs refused in one line."""

import time

import cv2
import numpy as np
import pytest

from webui.sources import CameraVideo, SimVideo, SourceError, open_video


def _folder(tmp_path, n=4, size=(96, 64)):
    for i in range(n):
        cv2.imwrite(str(tmp_path / f"f{i:02d}.png"), np.full((size[1], size[0], 3), 40 * i, np.uint8))
    return tmp_path


def test_a_folder_of_images_is_published_in_order_then_finishes(app, tmp_path):
    video = open_video(app, str(_folder(tmp_path)))
    assert isinstance(video, CameraVideo)
    video.start()
    feed = app.extensions["tableref.frames"]
    deadline = time.time() + 20
    while video.status not in ("finished",) and time.time() < deadline:
        time.sleep(0.05)
    video.stop()
    assert video.status == "finished"
    assert feed.published >= 1 and feed.info()["size"] == [96, 64]
    # the newest frame is the last image of the folder
    jpeg = np.frombuffer(feed.jpeg, np.uint8)
    assert abs(int(cv2.imdecode(jpeg, cv2.IMREAD_COLOR)[0, 0, 0]) - 120) <= 3


@pytest.mark.parametrize("spec,words", [
    ("/nonexistent/folder", "no such file"),    # a typo in a path
    ("/nonexistent/match.mp4", "no such video"),  # a missing recording
])
def test_bad_sources_are_refused_before_serving(app, spec, words):
    with pytest.raises(SourceError, match=words):
        open_video(app, spec)


def test_a_camera_that_cannot_be_opened_is_refused_before_serving(app):
    with pytest.raises(SourceError, match="cannot open camera 57"):
        open_video(app, "57")  # no such webcam here


def test_a_camera_lost_while_serving_is_reported_not_raised(app, tmp_path):
    from vision.sources import CaptureSource, Grabber

    video = CameraVideo(app, str(_folder(tmp_path)))
    video.source = CaptureSource(57, live=True)  # as if the camera went away after start-up
    video.grabber = Grabber(video.source, backoff=0.01, max_backoff=0.02, max_retries=3).start()
    video._thread.start()
    deadline = time.time() + 10
    while not video.status.startswith("stopped") and time.time() < deadline:
        time.sleep(0.05)
    video.stop()
    assert video.status.startswith("stopped") and "cannot open camera 57" in video.status


def test_sim_urls_still_go_to_the_simulator(app):
    assert isinstance(open_video(app, "sim://morris?seed=1&size=160x120&realtime=0&turns=3"), SimVideo)
