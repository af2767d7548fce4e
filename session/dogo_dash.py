"""The Dogo Dash session (``rules.dogo_dash``): each reveal, read from the seats.

A reveal is no motion: the cards lie still in the seat zones and turn face up together. While the
engine is in its choose step, the session watches the cards in the seats of the players in the
round; once every one of them has shown a face (not the back) for ``stable_frames`` frames, the
seats are read (:func:`referee.classify.seat_card_calls`, one card per seat, the classifier's
confidence against ``min_confidence``) and the ``Reveal`` goes to the engine (or waits for a person,
:func:`referee.adapters.dogo_dash.reveal_ruling`). Ties, the Super Pot, the Dogo Dash combo and the
end are the engine's; the players' own moves (``Choose``, ``DogoDash``, ``Collect``) come through
:meth:`~session.core.Session.act`.
"""

from __future__ import annotations

import numpy as np

from session.core import Flick, FrameRecord, Session
from vision.core import Observation

GAME = "dogo-dash"


class DogoDashSession(Session):
    GAME = GAME
    stable_frames = 3

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._faces_since = 0

    def new_game(self, **setup):
        from rules import dogo_dash

        return dogo_dash.new_game(**setup)

    def expecting(self) -> dict | None:
        return None  # a reveal is read from the cards' faces, not from motion

    def players(self) -> int:
        return len(self.game.state["players"])

    def active(self) -> list[int]:
        return list(self.game.state["active"])

    def step(self, frame) -> list[dict]:
        n = len(self.events)
        super().step(frame)
        if self.pending is None and self.game.state.get("phase") == "choose" and self._last_obs is not None:
            if self._all_face_up(self._last_obs):
                self._faces_since += 1
                if self._faces_since == self.stable_frames:
                    self._reveal(frame)
            else:
                self._faces_since = 0
        return self.events[n:]

    def _seat_cards(self, obs: Observation) -> list:
        import shapely

        seats = self.board.seats.get(self.players(), [])
        cards = np.flatnonzero(np.asarray(obs.kind == "card"))
        out = []
        for seat in seats:
            geom = self.board.region(seat).geometry
            out.append([i for i in cards if shapely.contains_xy(geom, *obs.xy[i])])
        return out

    def _all_face_up(self, obs: Observation) -> bool:
        per_seat = self._seat_cards(obs)
        faces = obs.attribute("card")
        act = self.active()
        if not per_seat:
            return False
        for s, idx in enumerate(per_seat):
            if s not in act:
                continue
            if len(idx) != 1 or str(faces[idx[0]]) in ("", "back"):
                return False
        return True

    def _reveal(self, frame) -> None:
        from referee.adapters.dogo_dash import reveal_ruling
        from referee.classify import seat_card_calls

        obs = self._last_obs
        rec = FrameRecord(int(obs.frame_index), float(obs.timestamp), getattr(frame, "image", None), obs)
        self._flick_ids += 1
        flick = Flick(self._flick_ids, {"action": "reveal", "seats": self.active()}, rec.t, rec.index,
                      t_settle=rec.t, index_settle=rec.index, armed=True)
        flick.frames = list(self._buffer)
        self.flicks.append(flick)
        calls = seat_card_calls(obs, self.board, self.players(), self.referee.min_confidence)
        act = set(self.active())
        flick.ruling = reveal_ruling(calls, self.referee, in_round=[s in act for s in range(len(calls))])
        flick.after = {f"seat{s}": v.finding for s, v in enumerate(calls)}
        if flick.ruling.ready and self.config.auto_apply:
            self._apply(flick)
        else:
            flick.status = "pending"
            self.pending = flick
            self._emit({"kind": "pending", "flick": flick.id, "facts": flick.ruling.open_facts(), "ruling": flick.ruling.to_dict()})
        self._emit({"kind": "flick", "state": "settled", "flick": flick.id, "status": flick.status, "compute_s": 0.0})
