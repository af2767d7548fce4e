"""The seam between a table session (the live camera loop of issue 9, or :mod:`webui.demo`) and the
dashboard: a small object bound to one app, with the same record functions the API uses.

    link = TableLink(app)                       # in the process that serves the dashboard
    link.frame(jpeg, pieces=obs.to_pieces(), mat_to_image=transform.H.tolist(), size=(w, h))
    eid = link.evidence(jpeg)                   # an evidence image, named by a fresh id
    link.call(verdict.to_dict() | {"proposed_action": ..., "alternative_action": ...,
                                   "evidence_images": [eid], "ghost": [...]})
    link.fact(game.action_to_dict(MoveResult(...)))   # a settled fact, no call needed
    link.action({...}), link.current(), link.close()

The record is the truth. A session that keeps its own engine (``session.core.Session.game``) stays
in step by following it: ``rows = link.rows_since(seq)`` gives every row appended after ``seq`` —
actions pushed from the pages, decisions on its calls and the facts they applied, undos — to apply
to its copy in order (or simply take ``link.game_copy()`` again). Facts it pushes itself go through
``link.fact`` / ``link.call`` *first*; the record refuses what the engine refuses (409), so an
out-of-step session finds out at once.

A session in another process uses the HTTP API instead (``POST /api/calls``, ``/api/evidence``,
``/api/matches/<id>/actions``); only frames need this in-process link.
"""

from __future__ import annotations

import time

from webui import record
from webui.store import Store

FRAME_EVENT_MIN_S = 0.2  # piece positions go out on /api/events at most 5 times a second


class TableLink:
    def __init__(self, app, actor: str = "referee"):
        self.hub = app.extensions["tableref.hub"]
        self.feed = app.extensions["tableref.frames"]
        self.store = Store(app.config["DATA_DIR"])  # this thread's own connection
        self.actor = actor
        self._last_frame_event = 0.0
        self._last_pieces = None

    def close(self) -> None:
        self.store.close()

    # -- the match on the table -----------------------------------------------------------------
    def current(self) -> str | None:
        return record.current_match_id(self.store)

    def _match(self, match_id: str | None) -> str:
        mid = match_id or self.current()
        if mid is None:
            raise record.InputError("no match on the table")
        return mid

    def start(self, game: str, board: str, setup: dict | None = None, title: str = "") -> str:
        return record.start_match(self.store, self.hub, game, board, setup or {}, title)["id"]

    def snapshot(self, match_id: str | None = None) -> dict:
        return record.snapshot(self.store, self.hub, self._match(match_id))

    def game_copy(self, match_id: str | None = None):
        """A private copy of the replayed game and the pending calls (safe to read at leisure)."""
        with self.hub.lock:
            rep = self.hub.replayed(self.store, self._match(match_id))
            return rep.game.copy(stack=False), [dict(c) for c in rep.pending_calls()]

    def rows_since(self, seq: int = 0, match_id: str | None = None) -> list[dict]:
        """Log rows after ``seq`` ({seq, t, kind, actor, data}), oldest first."""
        return self.store.rows(self._match(match_id), after=seq)

    # -- writing --------------------------------------------------------------------------------
    def action(self, action: dict, actor: str = "player", match_id: str | None = None) -> dict:
        return record.record_action(self.store, self.hub, self._match(match_id), action, "action", actor)

    def fact(self, action: dict, actor: str | None = None, match_id: str | None = None) -> dict:
        return record.record_action(self.store, self.hub, self._match(match_id), action, "fact", actor or self.actor)

    def call(self, verdict: dict, actor: str | None = None, match_id: str | None = None) -> dict:
        return record.post_call(self.store, self.hub, self._match(match_id), verdict, actor or self.actor)

    def decide(self, call_id: str, decision: str, who: str, reason: str = "", action: dict | None = None) -> dict:
        return record.decide(self.store, self.hub, call_id, decision, who, reason, action)

    def dispute(self, call_id: str, who: str, reason: str) -> dict:
        return record.dispute(self.store, self.hub, call_id, who, reason)

    def identities(self, match_id: str | None = None) -> dict:
        """{name: {name, track, xy, who, t}}: which disc is which, as the players said on the
        dashboard (``identity`` rows; a session also sees them in :meth:`rows_since`)."""
        with self.hub.lock:
            return dict(self.hub.replayed(self.store, self._match(match_id)).identities)

    def identity(self, name: str, track: int | None, xy: list | None = None, unsure: bool = False, why: str = "",
                 match_id: str | None = None) -> dict:
        """Record which piece a track is, as the session named it; ``unsure`` (``why``): a guess the
        pages ask a person to check (:func:`webui.record.assign_identity`)."""
        return record.assign_identity(self.store, self.hub, self._match(match_id), name, track, xy, self.actor,
                                      unsure=unsure, why=why)

    def evidence(self, jpeg: bytes, match_id: str | None = None) -> str:
        return self.store.add_evidence(self._match(match_id), jpeg, "image/jpeg")

    # -- video ----------------------------------------------------------------------------------
    def frame(self, jpeg: bytes, pieces: list | None = None, mat_to_image: list | None = None,
              size: tuple | None = None, source: str = "") -> None:
        """Publish a frame to ``/video.mjpg``; piece positions also go to ``/api/events`` (``frame``)
        when they changed, at most every :data:`FRAME_EVENT_MIN_S`."""
        self.feed.publish(jpeg, pieces=pieces, mat_to_image=mat_to_image, size=size, source=source or None)
        now = time.monotonic()
        if pieces is not None and pieces is not self._last_pieces and now - self._last_frame_event >= FRAME_EVENT_MIN_S:
            self._last_frame_event = now
            self._last_pieces = pieces
            self.hub.publish("frame", self.feed.info())
