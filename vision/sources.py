"""Frames in: a webcam by index, a video file, a folder of images, an RTSP/HTTP stream, the simulator.

Every frame is a :class:`Frame` (BGR image in **image px**, timestamp in seconds, index). A
:class:`Grabber` reads a source on a background thread and keeps only the newest frame, so a slow
consumer never falls behind a live camera; a source that fails (a camera unplugged, a stream that
drops) is reopened with exponential backoff and its status is reported, never raised into the loop.

``open_source(spec)`` takes:
- ``"0"``, ``"1"``, ``0`` … a webcam by index;
- a path to a video file (``.mp4``, ``.avi``, ``.mkv``, ``.mov``, ``.webm``);
- a path to a folder of images (sorted by name) or a single image;
- ``rtsp://…``, ``http://…``, ``https://…`` streams;
- ``sim://<game>?seed=N&…`` the simulated table (``sim.live``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v"}


class SourceError(OSError):
    """A frame source cannot be opened or read; the message says what to check."""


@dataclass
class Frame:
    """One camera frame. ``image`` is (H, W, 3) uint8 BGR; ``timestamp`` seconds (monotonic clock
    for live sources, media time for files); ``index`` counts frames from 0 within the source."""

    image: np.ndarray
    timestamp: float
    index: int
    source: str = ""
    extra: dict | None = None


class Source:
    """A finite or endless sequence of frames. ``read()`` returns the next frame or None at the end;
    it raises :class:`SourceError` when the device fails."""

    live = False
    name = ""

    def open(self) -> None:  # pragma: no cover - trivial default
        pass

    def read(self) -> Frame | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __iter__(self) -> Iterator[Frame]:
        self.open()
        try:
            while True:
                frame = self.read()
                if frame is None:
                    return
                yield frame
        finally:
            self.close()


class ImageFolderSource(Source):
    """Images of a folder in name order (or one image file). Timestamps advance at ``fps``."""

    def __init__(self, path: str | Path, fps: float = 30.0):
        self.path = Path(path)
        self.fps = fps
        self.name = str(path)
        if self.path.is_dir():
            self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self.files:
                raise SourceError(f"{path}: no images in this folder (expected {', '.join(sorted(IMAGE_SUFFIXES))})")
        elif self.path.is_file():
            self.files = [self.path]
        else:
            raise SourceError(f"{path}: no such file or folder")
        self._i = 0

    def read(self) -> Frame | None:
        import cv2

        if self._i >= len(self.files):
            return None
        f = self.files[self._i]
        image = cv2.imread(str(f), cv2.IMREAD_COLOR)
        if image is None or image.size == 0:
            raise SourceError(f"{f}: not a readable image")
        frame = Frame(image, self._i / self.fps, self._i, self.name, {"path": str(f)})
        self._i += 1
        return frame


class CaptureSource(Source):
    """OpenCV ``VideoCapture``: webcams, video files and network streams."""

    def __init__(self, target: int | str, live: bool, width: int = 0, height: int = 0):
        self.target = target
        self.live = live
        self.name = f"camera {target}" if isinstance(target, int) else str(target)
        self.width, self.height = width, height
        self._cap = None
        self._index = 0
        self._t0 = 0.0

    def open(self) -> None:
        import cv2

        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            what = "camera" if isinstance(self.target, int) else "video or stream"
            raise SourceError(f"cannot open {what} {self.target!r}: check that it is connected, not used by another "
                              "program, and that the index, path or URL is right")
        if self.width and self.height:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        self._cap = cap
        self._t0 = time.monotonic()

    def read(self) -> Frame | None:
        import cv2

        if self._cap is None:
            self.open()
        ok, image = self._cap.read()
        if not ok or image is None:
            if self.live:
                raise SourceError(f"{self.name}: no frame (device lost?)")
            return None
        if self.live:
            ts = time.monotonic() - self._t0
        else:
            ts = self._cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
        frame = Frame(image, ts, self._index, self.name)
        self._index += 1
        return frame

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class CallableSource(Source):
    """Frames from a Python iterator of (image, timestamp[, extra]) tuples or Frames (the simulator)."""

    def __init__(self, factory: Callable[[], Iterator], name: str, live: bool = True):
        self.factory = factory
        self.name = name
        self.live = live
        self._it = None
        self._index = 0

    def open(self) -> None:
        self._it = iter(self.factory())

    def read(self) -> Frame | None:
        if self._it is None:
            self.open()
        try:
            item = next(self._it)
        except StopIteration:
            return None
        if isinstance(item, Frame):
            return item
        image, ts, *rest = item
        frame = Frame(image, float(ts), self._index, self.name, rest[0] if rest else None)
        self._index += 1
        return frame


def open_source(spec: str | int, width: int = 0, height: int = 0) -> Source:
    """A :class:`Source` for a webcam index, file, folder, stream URL or ``sim://`` URL."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return CaptureSource(int(spec), live=True, width=width, height=height)
    text = str(spec).strip()
    if not text:
        raise SourceError("empty source: give a camera index, a file, a folder, a stream URL or sim://GAME")
    if text.startswith("sim://"):
        try:
            from sim.live import frames_from_url
        except ImportError as exc:
            raise SourceError(f"the simulator's live source is not available ({exc})") from None
        return CallableSource(lambda: frames_from_url(text), text, live=True)
    if text.startswith(("rtsp://", "http://", "https://")):
        return CaptureSource(text, live=True)
    path = Path(text)
    if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFolderSource(path)
    if path.suffix.lower() in VIDEO_SUFFIXES:
        if not path.is_file():
            raise SourceError(f"{text}: no such video file")
        return CaptureSource(str(path), live=False)
    if not path.exists():
        raise SourceError(f"{text}: no such file, folder or camera")
    raise SourceError(f"{text}: not a known image or video type (images: {', '.join(sorted(IMAGE_SUFFIXES))}; "
                      f"videos: {', '.join(sorted(VIDEO_SUFFIXES))})")


@dataclass
class SourceStatus:
    """What the grabber knows about its source, for the dashboard."""

    state: str = "starting"  # starting | running | retrying | ended | failed
    message: str = ""
    frames: int = 0
    dropped: int = 0
    retries: int = 0
    fps: float = 0.0


class Grabber:
    """Reads a source on a background thread; :meth:`latest` returns the newest frame only.

    A live source that fails is reopened after ``backoff`` seconds, doubling up to
    ``max_backoff``; after ``max_retries`` consecutive failures (0 = forever) the status becomes
    ``failed``. A finite source ends with status ``ended``."""

    def __init__(self, source: Source, backoff: float = 0.5, max_backoff: float = 8.0, max_retries: int = 0,
                 pace: bool = False, sleep: Callable[[float], None] = time.sleep):
        self.source = source
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_retries = max_retries
        self.pace = pace
        self._sleep = sleep
        self.status = SourceStatus()
        self._lock = threading.Condition()
        self._frame: Frame | None = None
        self._taken = -1
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"grabber:{source.name}", daemon=True)

    def start(self) -> "Grabber":
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        with self._lock:
            self._lock.notify_all()
        self._thread.join(timeout)

    def latest(self, wait: float = 0.0, newer_than: int = -1) -> Frame | None:
        """The newest frame (None if none yet). With ``wait`` > 0, wait up to that long for a frame
        whose index is greater than ``newer_than``."""
        deadline = time.monotonic() + wait
        with self._lock:
            while wait > 0 and (self._frame is None or self._frame.index <= newer_than) and self.status.state in ("starting", "running", "retrying"):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._lock.wait(left)
            if self._frame is not None and self._frame.index > self._taken:
                self._taken = self._frame.index
            return self._frame

    def _publish(self, frame: Frame) -> None:
        with self._lock:
            if self._frame is not None and self._frame.index > self._taken:
                self.status.dropped += 1
            self._frame = frame
            self.status.frames += 1
            self._lock.notify_all()

    def _run(self) -> None:
        delay = self.backoff
        failures = 0
        opened = False
        t_last = None
        while not self._stop.is_set():
            try:
                if not opened:
                    self.source.open()
                    opened = True
                    self.status.state, self.status.message = "running", ""
                frame = self.source.read()
                if frame is None:
                    self.status.state, self.status.message = "ended", "end of source"
                    break
                if self.pace and t_last is not None:
                    gap = frame.timestamp - t_last
                    if 0 < gap < 1.0:
                        self._sleep(gap)
                t_last = frame.timestamp
                failures = 0
                delay = self.backoff
                self._publish(frame)
            except SourceError as exc:
                failures += 1
                self.status.retries += 1
                try:
                    self.source.close()
                except Exception:  # closing a broken device must not kill the grabber
                    pass
                opened = False
                if not self.source.live or (self.max_retries and failures >= self.max_retries):
                    self.status.state, self.status.message = "failed", str(exc)
                    break
                self.status.state = "retrying"
                self.status.message = f"{exc}; retrying in {delay:.1f} s"
                self._stop.wait(delay)
                delay = min(delay * 2, self.max_backoff)
        try:
            self.source.close()
        except Exception:
            pass
        with self._lock:
            self._lock.notify_all()
