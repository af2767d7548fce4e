"""Detection on several worker processes: the throughput of a recording on every core.

A :class:`vision.detect.Detector` runs one frame at a time: its fits are many small numpy steps
that hold Python's interpreter lock, so threads do not add speed (README, "Speed"). Frames of a
recording are independent at full quality, so each core can take its own frame in its own process.
:class:`DetectorPool` keeps ``workers`` processes, each with its own detectors built from
``setups`` (the keyword arguments of :class:`~vision.detect.Detector`: the board, the mat's
registration, the empty mat; one setup per camera), and hands them frames in order:
:meth:`DetectorPool.detect` yields each frame's :class:`~vision.core.Observation` in the order the
frames came, with at most ``ahead`` frames in flight (a long recording is never read into memory).

Latency is not what this buys: a frame still takes one core's time. The live loop wants the
newest frame as soon as possible and keeps one detector (whose ``reuse`` of still pieces makes a
frame at rest cheap); ``tableref review`` of a recorded match and ``tableref bench vision``'s
throughput figure use the pool. A frame goes to whichever worker is free, so each worker's
detector sees some of the frames, which ones depending on timing; its ``reuse`` compares a patch
with the last frame it saw (a still piece is still unchanged there), so a still piece's place can
differ from one detector's by up to ``reuse_mm``.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from vision.detect import DetectError

_DETECTORS: list = []
_STOPPED = "a detector worker process stopped (killed, or crashed in a native library)"


def _start(setups: list, threads: int, ready) -> None:
    """Worker set-up: OpenCV's threads (one a worker: the workers share the cores), then every
    setup's detector; reports their methods or the one-line reason it could not."""
    import cv2

    cv2.setNumThreads(threads)
    try:
        from vision.detect import Detector

        _DETECTORS[:] = [Detector(**s) for s in setups]
    except DetectError as exc:  # what one detector says when it cannot run as asked: said as it is
        ready.put(str(exc))
        return
    except Exception as exc:  # the parent turns it into a DetectError (a pool that cannot start)
        ready.put(f"the detector could not be set up in a worker: {type(exc).__name__}: {exc}")
        return
    ready.put([d.method for d in _DETECTORS])


def _ready() -> None:
    """A no-op task: handing one to each worker starts it (the executor starts workers on demand)."""


def _detect(job: tuple):
    k, image, index, timestamp = job
    det = _DETECTORS[k]
    obs = det(image, index, timestamp)
    return obs, sum(det.cpu_ms.values())  # (the detector's own CPU time of the call, its stages')


class DetectorPool:
    """``workers`` processes, each with a :class:`~vision.detect.Detector` per setup (dicts of its
    keyword arguments). Built at once (set-up work: seconds, as a Detector's own construction);
    use as a context manager or :meth:`close` it. ``threads``: OpenCV threads in each worker."""

    def __init__(self, setups: list, workers: int = 2, threads: int = 1, ahead: int | None = None):
        if workers < 1:
            raise DetectError(f"workers must be >= 1, got {workers}")
        if not setups:
            raise DetectError("a detector pool needs at least one setup")
        self.ahead = ahead or 2 * workers
        self.cpu_ms: list = []  # each frame's worker CPU time (ms), in order
        ctx = mp.get_context("spawn")  # not fork: the parent's ONNX Runtime and OpenCV thread pools do not survive a fork
        ready = ctx.Queue()
        # an executor, not multiprocessing.Pool: a worker that dies (a crash in a native library) breaks
        # the pool and every frame waiting on it raises, where a Pool would wait for it for ever
        self._pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_start, initargs=(list(setups), threads, ready))
        starts = [self._pool.submit(_ready) for _ in range(workers)]
        answers: list = []
        while len(answers) < workers:
            try:
                answers.append(ready.get(timeout=0.5))
            except queue.Empty:
                if any(f.done() and f.exception() is not None for f in starts):
                    self.close()
                    raise DetectError("a detector worker process stopped while it was being set up") from None
        errors = [a for a in answers if isinstance(a, str)]
        if errors:
            self.close()
            raise DetectError(errors[0])
        self.methods = answers[0]  # each setup's detector method (``auto`` resolved)
        self._n = len(setups)

    def detect(self, frames):
        """Observations of ``frames`` — each ``(image, frame_index, timestamp)`` or ``(setup, image,
        frame_index, timestamp)`` — in their order, at most ``ahead`` in flight."""
        todo: deque = deque()
        for item in frames:
            job = tuple(item) if len(item) == 4 else (0, *item)
            if not 0 <= int(job[0]) < self._n:
                raise DetectError(f"setup {job[0]} is not one of the pool's {self._n}")
            try:
                todo.append(self._pool.submit(_detect, job))
            except BrokenProcessPool:
                raise DetectError(_STOPPED) from None
            if len(todo) >= self.ahead:
                yield self._collect(todo.popleft())
        while todo:
            yield self._collect(todo.popleft())

    def _collect(self, pending):
        try:
            obs, cpu = pending.result()
        except BrokenProcessPool:
            raise DetectError(_STOPPED) from None
        self.cpu_ms.append(cpu)
        return obs

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
