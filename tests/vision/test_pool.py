"""``vision.pool.DetectorPool``: frames seen on several processes come back in order, each as one
detector in this process sees it."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detect import DetectError, Detector
from vision.pool import DetectorPool


@pytest.fixture(scope="module")
def frames():
    from vision.bench import FRAMED, bench_frames

    return list(bench_frames(4, FRAMED, 3))


def _setup(fr, **kw):
    return dict(board=fr.board, transform=fr.transform, background=fr.empty, method="classical", attributes=False, **kw)


def test_the_pool_sees_each_frame_as_one_detector_does_in_order(frames):
    setups = [_setup(fr) for fr in frames]
    order = [2, 0, 3, 1, 2]  # setups out of order, one twice: each answer must be its own frame's
    want = [Detector(**setups[k])(frames[k].image, n, 0.1 * n) for n, k in enumerate(order)]
    with DetectorPool(setups, workers=2, ahead=3) as pool:
        got = list(pool.detect((k, frames[k].image, n, 0.1 * n) for n, k in enumerate(order)))
        assert pool.methods == ["classical"] * 4
        assert len(pool.cpu_ms) == len(order) and all(ms > 0 for ms in pool.cpu_ms)
    assert len(got) == len(want)
    for n, (a, b) in enumerate(zip(got, want)):
        assert a.frame_index == n and abs(a.timestamp - 0.1 * n) < 1e-9
        assert len(a) == len(b) > 0
        assert list(a.kind) == list(b.kind)
        np.testing.assert_array_equal(a.xy, b.xy)
        np.testing.assert_array_equal(a.sigma, b.sigma)
    # the frames differ: an answer out of order would not match
    assert len({len(o) for o in want}) > 1 or not np.array_equal(want[0].xy, want[1].xy)


def test_a_setup_that_cannot_work_is_one_clear_error(frames):
    bad = dict(_setup(frames[0]), background=None)
    with pytest.raises(DetectError, match="^the classical detector needs the empty mat"):  # as one detector says it
        DetectorPool([bad], workers=2)
    with pytest.raises(DetectError, match="set up in a worker: TypeError: .*no_such_option"):
        DetectorPool([dict(_setup(frames[0]), no_such_option=1)], workers=1)


def test_a_frame_for_no_setup_is_refused(frames):
    with DetectorPool([_setup(frames[0])], workers=1) as pool:
        with pytest.raises(DetectError, match="setup 3 is not one of the pool's 1"):
            list(pool.detect([(3, frames[0].image, 0, 0.0)]))
    with pytest.raises(DetectError, match="workers must be >= 1"):
        DetectorPool([_setup(frames[0])], workers=0)


def test_the_bench_reports_the_pool_throughput_of_the_same_frames(frames):
    from vision.bench import pool_throughput

    setups = [_setup(fr) for fr in frames[:2]]
    out = pool_throughput(setups, [fr.image for fr in frames[:2]], 2, 100.0)
    assert out["workers"] == 2 and out["frames"] == 2
    assert out["ms_per_frame"] > 0 and abs(out["fps"] * out["ms_per_frame"] - 1000.0) < 1e-6
    assert abs(out["speedup"] - 100.0 / out["ms_per_frame"]) < 1e-9
    assert out["worker_cpu_ms_mean"] > 0


def test_a_frame_the_detector_refuses_raises_its_error_here(frames):
    with DetectorPool([_setup(frames[0])], workers=1) as pool:
        with pytest.raises(DetectError, match="the frame is 4x4 but the empty mat was captured at"):
            list(pool.detect([(np.zeros((4, 4), np.uint8), 0, 0.0)]))


@pytest.mark.parametrize("wait_s", [0.0, 1.0])  # the death seen when the frame is handed over, or while it waits
def test_a_worker_that_dies_is_an_error_not_a_wait(frames, wait_s):
    import os
    import signal
    import time

    with DetectorPool([_setup(frames[0])], workers=1) as pool:
        pid = next(iter(pool._pool._processes))  # the worker (test only: the executor's own table)
        os.kill(pid, signal.SIGKILL)
        time.sleep(wait_s)
        with pytest.raises(DetectError, match="worker process stopped"):
            list(pool.detect([(frames[0].image, 0, 0.0)]))


def test_the_bench_commands_check_their_own_arguments(capsys):
    from cli.main import main

    assert main(["bench", "vision", "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert "--workers must be at least 1" in err and len(err.strip().splitlines()) == 1
    # the render bench has no --workers: its own checks only (it once read one)
    assert main(["bench", "render", "--frames", "0"]) == 2
    assert "--frames must be at least 1" in capsys.readouterr().err
    assert main(["bench", "render", "--frames", "1", "--size", "160x120", "--json"]) == 0
