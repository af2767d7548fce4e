"""The video seam: whoever owns the camera (the live-table session, the demo driver) publishes each
frame here as a JPEG with what is known about it (pieces in mat mm, the mat→image homography); the
``/video.mjpg`` stream and the page overlays read it. Nothing here decodes, detects or measures.

``publish(jpeg, index=..., pieces=[...], mat_to_image=[[...]*3]*3)`` — ``pieces`` are
:meth:`vision.core.Observation.to_pieces` dicts (``xy`` base centre in mat mm, ``radius`` mm, ``kind``,
``attributes``); ``mat_to_image`` is the 3×3 homography from mat mm to image px (so the browser can
draw mat-mm shapes over the video) or None.
"""

from __future__ import annotations

import threading
import time

BOUNDARY = "tablerefframe"


class FrameFeed:
    def __init__(self):
        self._cond = threading.Condition()
        self.jpeg: bytes | None = None
        self.index = -1
        self.t = 0.0
        self.pieces: list = []
        self.mat_to_image: list | None = None
        self.size: tuple | None = None
        self.source = ""
        self.published = 0
        self.closed = False

    def publish(self, jpeg: bytes, index: int | None = None, pieces: list | None = None,
                mat_to_image: list | None = None, size: tuple | None = None, source: str | None = None) -> None:
        with self._cond:
            self.jpeg = jpeg
            self.index = self.index + 1 if index is None else int(index)
            self.t = time.time()
            if pieces is not None:
                self.pieces = pieces
            if mat_to_image is not None:
                self.mat_to_image = mat_to_image
            if size is not None:
                self.size = tuple(size)
            if source is not None:
                self.source = source
            self.published += 1
            self._cond.notify_all()

    def wait_newer(self, index: int, timeout: float) -> tuple[bytes | None, int]:
        """Block until a frame newer than ``index`` (or the timeout); returns (jpeg, index)."""
        with self._cond:
            self._cond.wait_for(lambda: self.closed or (self.jpeg is not None and self.index != index), timeout)
            return self.jpeg, self.index

    def info(self) -> dict:
        """What the page needs to draw overlays (no image)."""
        with self._cond:
            return {"index": self.index, "t": self.t, "pieces": self.pieces, "mat_to_image": self.mat_to_image,
                    "size": list(self.size) if self.size else None, "source": self.source,
                    "live": self.jpeg is not None}

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def mjpeg(self, max_fps: float = 30.0, idle_timeout: float = 5.0):
        """Generator of a ``multipart/x-mixed-replace`` body: each new frame once, at most ``max_fps``."""
        index = -2
        min_gap = 1.0 / max_fps
        last = 0.0
        while not self.closed:
            jpeg, new_index = self.wait_newer(index, idle_timeout)
            if jpeg is None or new_index == index:
                continue
            gap = time.monotonic() - last
            if gap < min_gap:
                time.sleep(min_gap - gap)
            last = time.monotonic()
            index = new_index
            yield (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n").encode() + jpeg + b"\r\n"
