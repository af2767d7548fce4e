"""The app's shared, in-memory side: the replayed matches (a cache over the record) and the
publish/subscribe fan-out that feeds ``/api/events``.

The record in SQLite stays the truth. :meth:`Hub.replayed` catches the cached game up with any rows
appended since (by this process or another one), so the cache can always be thrown away.
"""

from __future__ import annotations

import json
import queue
import threading
import time

from webui.store import Replayed, Store, replay_rows

QUEUE_SIZE = 256


class Hub:
    def __init__(self):
        self.lock = threading.RLock()  # one writer at a time: validate, append, catch up, publish
        self._cache: dict[str, Replayed] = {}
        self._subs: set[queue.Queue] = set()
        self._subs_lock = threading.Lock()
        self.published = 0

    # -- replay cache ---------------------------------------------------------------------------
    def replayed(self, store: Store, match_id: str) -> Replayed:
        with self.lock:
            match = store.match(match_id)
            rep = self._cache.get(match_id)
            last = store.last_seq(match_id)
            if rep is None or rep.seq > last:
                rep = replay_rows(match, store.rows(match_id))
                self._cache[match_id] = rep
            elif rep.seq < last:
                new = store.rows(match_id, after=rep.seq)
                if any(_redecides(rep, row) for row in new):  # a reopened call: replay with its newest decision
                    rep = replay_rows(match, store.rows(match_id))
                    self._cache[match_id] = rep
                else:
                    replay_rows(match, new, into=rep)
            return rep

    def forget(self, match_id: str) -> None:
        with self.lock:
            self._cache.pop(match_id, None)

    # -- publish / subscribe --------------------------------------------------------------------
    def subscribe(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=QUEUE_SIZE)
        with self._subs_lock:
            self._subs.add(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._subs_lock:
            self._subs.discard(q)

    @property
    def subscribers(self) -> int:
        with self._subs_lock:
            return len(self._subs)

    def publish(self, event: str, payload: dict) -> None:
        """Send one SSE message to every subscriber. A subscriber that stopped reading (queue full)
        is dropped rather than slowing everyone else."""
        payload = {**payload, "sent_t": time.time()}
        text = f"event: {event}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n"
        with self._subs_lock:
            subs = list(self._subs)
        for q in subs:
            try:
                q.put_nowait(text)
            except queue.Full:
                self.unsubscribe(q)
        self.published += 1


def _redecides(rep: Replayed, row: dict) -> bool:
    """Whether ``row`` changes how earlier rows replay (a dispute, or a decision on a disputed or
    already decided call), so that the cache must be rebuilt from the whole log."""
    if row["kind"] == "dispute":
        return True
    if row["kind"] in ("decision", "override"):
        call = rep.calls.get(row["data"].get("call"))
        return call is not None and (call["status"] == "disputed" or call.get("decision") is not None
                                     or call.get("disputes"))
    return False
