"""The Morris the Dodo session (``rules.morris``): each slide's eggs, whole or broken.

After ``LoadEggs`` (or straight away: the engine accepts ``Landed`` at the start of a turn), the
next motion is the slide off Sebastian the toucan. At the settle the eggs that slid (moved more
than ``min_slide_mm`` or appeared during the slide) are read: colour and face from the detector's
attributes and their confidence (:func:`referee.classify.egg_calls`); below the referee's
``min_confidence`` a fact waits for a person (:func:`referee.adapters.morris.landed_ruling`).
"""

from __future__ import annotations

import numpy as np

from session.core import Flick, Session
from vision.core import Observation

GAME = "morris"


class MorrisSession(Session):
    GAME = GAME
    min_slide_mm = 10.0

    def new_game(self, **setup):
        from rules import morris

        return morris.new_game(**setup)

    def expecting(self) -> dict | None:
        phase = self.game.state.get("phase")
        if phase in ("slide", "load"):
            return {"action": "slide", "eggs": list(self.game.state.get("toucan") or [])}
        return None

    def slid(self, flick: Flick, obs: Observation) -> np.ndarray:
        """Indices of ``obs`` eggs that slid in this flick."""
        before = {}  # where each piece was at the start of the evidence (before the slide began)
        for f in flick.frames:
            if f.t >= flick.t_start:
                break
            for i, tid in enumerate(f.obs.track_id):
                before.setdefault(int(tid), f.obs.xy[i])
        out = []
        for i in np.flatnonzero(np.asarray(obs.kind == "egg")):
            tid = int(obs.track_id[i])
            start = before.get(tid)
            if start is None or np.hypot(*(obs.xy[i] - start)) > self.min_slide_mm:
                out.append(i)
        return np.array(out, dtype=int)

    def judge(self, flick: Flick, obs: Observation):
        from referee.adapters.morris import landed_ruling
        from referee.classify import egg_calls

        idx = self.slid(flick, obs)
        if len(idx) == 0:
            flick.notes.append("no egg slid")
            return None
        eggs = obs[idx]
        flick.mover = ", ".join(f"egg {int(t)}" for t in eggs.track_id)
        verdicts = egg_calls(eggs, self.referee.min_confidence, frame_ids=(int(obs.frame_index),))
        return landed_ruling(verdicts, self.referee)
