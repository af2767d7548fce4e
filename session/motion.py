"""Motion of the table from tracked observations, in **mat mm**: at rest, moving, settled.

A piece moves when its base centre (or its height: a token dropped straight down) changed by more
than the noise allows since any of the last ``window`` frames: more than ``max(min_mm, k * σ_pair)``, σ_pair
the two observations' σ in quadrature. Comparing with the noise, not with a fixed speed, keeps a
still piece still under a noisy low-resolution detection, and catches the few frames in which a
flicked disc decelerates to a stop. The table has *started* on the first frame something moves after
rest and has *settled* once nothing moved for ``settle_frames`` frames.

Pieces that appear or vanish (a hand placing a piece, an occlusion) do not count as motion; a piece
back after at most ``gap_frames`` unseen is compared with where it was before (displaced, it moved
unseen). A piece that was moving when it went unseen (a detector drop-out in the blur of a fast
slide) keeps the table moving for up to ``gap_frames`` frames: one missed frame of a sliding disc
must not read as the table at rest (the flick would be judged before it was over). Those frames
count towards ``settle_frames`` when nothing seen moved in them: a piece that is not back when its
gap is over leaves a table that has been still since it went unseen.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from vision.core import Observation


@dataclass(frozen=True)
class MotionConfig:
    window: int = 2
    k: float = 6.0  # a still piece crosses 6 σ once in ~10^8 comparisons (Rayleigh tail exp(-k²/2))
    min_mm: float = 1.5
    settle_frames: int = 2
    height_sigma_mm: float = 1.0  # 1-σ of a detection's height (its own, whatever the position σ)
    gap_frames: int = 3  # a moving piece unseen for up to this many frames still moves


class Motion:
    """Feed :meth:`update` every tracked Observation; it returns "started", "settled" or None."""

    def __init__(self, config: MotionConfig | None = None):
        self.config = config or MotionConfig()
        self.history: dict[int, deque] = {}
        self.still_frames = 10 ** 9
        self.moving_ids: list[int] = []
        self.stepped_ids: list[int] = []
        self.at_rest = True
        self.last_rest_t: float | None = None
        self.last_rest_index: int = -1
        self._missed: dict[int, int] = {}  # track id -> frames unseen in a row
        self._lost_moving: set[int] = set()  # unseen tracks that were moving when last seen

    def update(self, obs: Observation) -> str | None:
        cfg = self.config
        moving, stepped = [], []
        seen = set()
        for i, tid in enumerate(obs.track_id):
            tid = int(tid)
            if tid < 0:
                continue
            seen.add(tid)
            h = self.history.setdefault(tid, deque(maxlen=cfg.window))
            sample = (float(obs.xy[i, 0]), float(obs.xy[i, 1]), float(obs.height[i]), float(obs.sigma[i]))
            for j, old in enumerate(reversed(h)):
                d = np.hypot(sample[0] - old[0], sample[1] - old[1])
                dz = abs(sample[2] - old[2])
                limit = max(cfg.min_mm, cfg.k * float(np.hypot(sample[3], old[3])))
                if d > limit or dz > max(cfg.min_mm, cfg.k * np.sqrt(2.0) * cfg.height_sigma_mm):
                    moving.append(tid)
                    if j == 0:
                        stepped.append(tid)
                    break
            h.append(sample)
        was_moving = set(self.moving_ids)
        for tid in list(self.history):
            if tid in seen:
                self._missed.pop(tid, None)
                self._lost_moving.discard(tid)
                continue
            n = self._missed.get(tid, 0) + 1
            self._missed[tid] = n
            if n == 1 and tid in was_moving:
                self._lost_moving.add(tid)
            if tid in self._lost_moving and n <= cfg.gap_frames:
                moving.append(tid)  # a drop-out in mid-slide: still moving, history kept
            elif n > cfg.gap_frames:  # unseen too long: its history no longer describes the last window
                self.history[tid].clear()
                self._lost_moving.discard(tid)
            # (a still piece missed for a frame or two keeps its history too: back displaced, it moved
            # while unseen, as a token dropped straight down in the frame the detector missed)
        self.moving_ids = moving
        self.stepped_ids = stepped  # moved since the previous frame itself
        event = None
        # the frames in which only pieces unseen since they moved count as moving are still frames
        # of every piece seen: when the gap allowance is over and they are not back, the table has
        # been still since they went unseen
        if any(tid in seen for tid in moving):
            self.still_frames = 0
        else:
            self.still_frames += 1
        if moving:
            if self.at_rest:
                event = "started"
            self.at_rest = False
        else:
            if not self.at_rest and self.still_frames >= cfg.settle_frames:
                self.at_rest = True
                event = "settled"
            if self.at_rest:
                self.last_rest_t = float(obs.timestamp)
                self.last_rest_index = int(obs.frame_index)
        return event
