"""The match record: an append-only log in SQLite (standard library ``sqlite3``, WAL) and the game
state replayed from it through the rules engines.

Tables (``<data dir>/tableref.sqlite3``)::

    matches   id, game, board, setup (JSON: the engine's new_game keyword arguments), title, created,
              deleted (set only on the way to deleting the whole match)
    log       seq (grows), match_id, t (unix seconds), kind, actor, data (JSON)
              kind: "action" (a player's choice), "fact" (the referee's, or a confirmed call's),
              "undo" (a correction: takes back the last action; never a rewrite), "call" (a referee
              verdict), "decision" / "override" (a person settled a call), "dispute" (a decided call
              reopened with a reason: back in the queue), "identity" (which piece a disc or track is)
    evidence  id, match_id, t, mime: images on disk at ``<data dir>/evidence/<id>.<ext>``
    meta      key -> value (``current``: the match on the live table)

Rows of ``log`` can never be updated, and deleted only together with their match (SQLite triggers
enforce both). Every write is one transaction with ``synchronous=FULL``: a crash or ``kill -9`` loses
at most the request that was in flight, never a row that was acknowledged.

Replaying (:func:`replay_rows`) builds ``rules.core.engine_for(game).new_game(**setup)`` and pushes
every action in order, so the state is never stored, only derived.

Disputes: a decided call can be reopened (a ``dispute`` row) and decided again. Its rows stay as
they were; the replay uses the call's *newest* resolution: the first fact row of that call carries
the newest decision's action (or nothing, for a dismissal) and the call's later fact rows are
skipped, so the game reads as if the call had been decided that way in the first place.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.core import GameBase, RulesError, engine_for

DB_NAME = "tableref.sqlite3"
KINDS = ("action", "fact", "undo", "call", "decision", "override", "dispute", "identity")
ID_RE = re.compile(r"^[0-9a-f]{12,32}$")
IMAGE_TYPES = {"image/jpeg": "jpg", "image/png": "png"}
MAX_EVIDENCE_BYTES = 8 * 1024 * 1024
RECENT_EVENTS = 40
OPEN_STATUSES = ("pending", "disputed")

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, board TEXT NOT NULL, setup TEXT NOT NULL,
    title TEXT NOT NULL, created REAL NOT NULL, deleted INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, match_id TEXT NOT NULL REFERENCES matches(id),
    t REAL NOT NULL, kind TEXT NOT NULL, actor TEXT NOT NULL DEFAULT '', data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS log_by_match ON log(match_id, seq);
CREATE TABLE IF NOT EXISTS evidence (
    id TEXT PRIMARY KEY, match_id TEXT NOT NULL, t REAL NOT NULL, mime TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS log_never_updated BEFORE UPDATE ON log
BEGIN SELECT RAISE(ABORT, 'the match log is append-only: add a correction instead'); END;
CREATE TRIGGER IF NOT EXISTS log_deleted_only_with_match BEFORE DELETE ON log
WHEN (SELECT deleted FROM matches WHERE id = OLD.match_id) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'the match log is append-only: delete the whole match'); END;
"""


class StoreError(ValueError):
    """A request the record cannot honour (unknown match, bad id, bad image); the message says why."""


class NotFound(StoreError):
    """No such match, call or evidence image."""


def default_data_dir() -> Path:
    """``$TABLEREF_HOME`` or ``~/.tableref``."""
    return Path(os.environ.get("TABLEREF_HOME") or Path.home() / ".tableref")


def new_id() -> str:
    return uuid.uuid4().hex[:16]


class Store:
    """One connection to the record in ``data_dir`` (one per thread: open, use, :meth:`close`)."""

    def __init__(self, data_dir: Path | str):
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        (self.data_dir / "evidence").mkdir(exist_ok=True)
        self.db = sqlite3.connect(self.data_dir / DB_NAME, timeout=30, isolation_level=None,
                                  check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # -- matches --------------------------------------------------------------------------------
    def create_match(self, game: str, board: str, setup: dict, title: str = "") -> dict:
        mid = new_id()
        now = time.time()
        title = title or f"{game} {time.strftime('%Y-%m-%d %H:%M', time.localtime(now))}"
        with self._tx():
            self.db.execute("INSERT INTO matches (id, game, board, setup, title, created) VALUES (?, ?, ?, ?, ?, ?)",
                            (mid, game, board, json.dumps(setup, sort_keys=True), title, now))
        return self.match(mid)

    def match(self, match_id: str) -> dict:
        check_id(match_id, "match")
        row = self.db.execute("SELECT * FROM matches WHERE id = ? AND deleted = 0", (match_id,)).fetchone()
        if row is None:
            raise NotFound(f"no match {match_id!r}")
        return _match_dict(row)

    def matches(self) -> list[dict]:
        rows = self.db.execute(
            "SELECT m.*, COUNT(l.seq) AS rows, MAX(l.t) AS last_t FROM matches m LEFT JOIN log l ON l.match_id = m.id "
            "WHERE m.deleted = 0 GROUP BY m.id ORDER BY m.created DESC").fetchall()
        out = []
        for row in rows:
            d = _match_dict(row)
            d["rows"] = row["rows"]
            d["last_t"] = row["last_t"]
            out.append(d)
        return out

    def delete_match(self, match_id: str) -> list[Path]:
        """Delete a match, its log and its evidence images; returns the image files removed."""
        self.match(match_id)
        files = [self.evidence_path(e["id"], e["mime"]) for e in self.evidence_of(match_id)]
        with self._tx():
            self.db.execute("UPDATE matches SET deleted = 1 WHERE id = ?", (match_id,))
            self.db.execute("DELETE FROM log WHERE match_id = ?", (match_id,))
            self.db.execute("DELETE FROM evidence WHERE match_id = ?", (match_id,))
            self.db.execute("DELETE FROM matches WHERE id = ?", (match_id,))
            if self.get_meta("current") == match_id:
                self.db.execute("DELETE FROM meta WHERE key = 'current'")
        for path in files:
            path.unlink(missing_ok=True)
        return files

    # -- the log --------------------------------------------------------------------------------
    def append(self, match_id: str, kind: str, data: dict, actor: str = "") -> int:
        return self.append_many(match_id, [(kind, data, actor)])[-1]

    def append_many(self, match_id: str, rows: list[tuple[str, dict, str]]) -> list[int]:
        """Append rows in one transaction; returns their ``seq``."""
        now = time.time()
        seqs = []
        with self._tx():
            for kind, data, actor in rows:
                if kind not in KINDS:
                    raise StoreError(f"unknown log kind {kind!r}; expected one of {KINDS}")
                cur = self.db.execute("INSERT INTO log (match_id, t, kind, actor, data) VALUES (?, ?, ?, ?, ?)",
                                      (match_id, now, kind, actor, json.dumps(data, sort_keys=True)))
                seqs.append(cur.lastrowid)
        return seqs

    def rows(self, match_id: str, after: int = 0) -> list[dict]:
        cur = self.db.execute("SELECT * FROM log WHERE match_id = ? AND seq > ? ORDER BY seq", (match_id, after))
        return [_row_dict(r) for r in cur.fetchall()]

    def last_seq(self, match_id: str) -> int:
        row = self.db.execute("SELECT MAX(seq) FROM log WHERE match_id = ?", (match_id,)).fetchone()
        return row[0] or 0

    def find_call(self, call_id: str) -> str:
        """The match id that holds call ``call_id``."""
        check_id(call_id, "call")
        row = self.db.execute("SELECT match_id FROM log WHERE kind = 'call' AND json_extract(data, '$.id') = ?",
                              (call_id,)).fetchone()
        if row is None:
            raise NotFound(f"no call {call_id!r}")
        return row[0]

    # -- meta -----------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._tx():
            self.db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                            (key, value))

    # -- evidence -------------------------------------------------------------------------------
    def add_evidence(self, match_id: str, content: bytes, mime: str) -> str:
        """Save an image; its file is named by a fresh id, never by anything the client sent."""
        self.match(match_id)
        if mime not in IMAGE_TYPES:
            raise StoreError(f"evidence must be one of {sorted(IMAGE_TYPES)}, got {mime!r}")
        if not content or len(content) > MAX_EVIDENCE_BYTES:
            raise StoreError(f"evidence must be 1 byte to {MAX_EVIDENCE_BYTES // 1024 // 1024} MiB, got {len(content)} bytes")
        magic = {"image/jpeg": b"\xff\xd8", "image/png": b"\x89PNG"}[mime]
        if not content.startswith(magic):
            raise StoreError(f"the body is not a {mime} image")
        eid = uuid.uuid4().hex
        path = self.evidence_path(eid, mime)
        tmp = path.with_suffix(".part")
        tmp.write_bytes(content)
        os.replace(tmp, path)
        with self._tx():
            self.db.execute("INSERT INTO evidence (id, match_id, t, mime) VALUES (?, ?, ?, ?)", (eid, match_id, time.time(), mime))
        return eid

    def evidence(self, evidence_id: str) -> tuple[Path, str]:
        check_id(evidence_id, "evidence")
        row = self.db.execute("SELECT * FROM evidence WHERE id = ?", (evidence_id,)).fetchone()
        if row is None:
            raise NotFound(f"no evidence image {evidence_id!r}")
        return self.evidence_path(row["id"], row["mime"]), row["mime"]

    def evidence_of(self, match_id: str) -> list[dict]:
        return [dict(r) for r in self.db.execute("SELECT * FROM evidence WHERE match_id = ? ORDER BY t", (match_id,))]

    def evidence_path(self, evidence_id: str, mime: str) -> Path:
        return self.data_dir / "evidence" / f"{evidence_id}.{IMAGE_TYPES[mime]}"

    # -- helpers --------------------------------------------------------------------------------
    def _tx(self):
        return _Transaction(self.db)


class _Transaction:
    def __init__(self, db):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb):
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
        return False


def check_id(value: Any, what: str) -> str:
    if not (isinstance(value, str) and ID_RE.match(value)):
        raise NotFound(f"no {what} {value!r} (ids are 12 to 32 lowercase hex digits)")
    return value


def _match_dict(row) -> dict:
    return {"id": row["id"], "game": row["game"], "board": row["board"], "setup": json.loads(row["setup"]),
            "title": row["title"], "created": row["created"]}


def _row_dict(row) -> dict:
    return {"seq": row["seq"], "t": row["t"], "kind": row["kind"], "actor": row["actor"], "data": json.loads(row["data"])}


# ------------------------------------------------------------------------------------------------
# replay


@dataclass
class Replayed:
    """A match's state derived from its log: the engine's game, the calls and the recent events."""

    match: dict
    game: GameBase
    seq: int = 0
    calls: dict = field(default_factory=dict)
    events: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    last_call: str | None = None
    identities: dict = field(default_factory=dict)  # name -> {name, track, xy, who, t, seq}
    effective: dict = field(default_factory=dict)   # call id -> newest resolution's action (re-decided calls)
    facts_of: set = field(default_factory=set)      # calls whose fact slot was used in this replay

    def pending_calls(self) -> list[dict]:
        """Calls waiting for a person: new ones and disputed ones."""
        return [c for c in self.calls.values() if c["status"] in OPEN_STATUSES]


def new_game_for(match: dict) -> GameBase:
    """Build the match's game from its setup (``RulesError``/``TypeError`` when the setup is bad)."""
    return engine_for(match["game"]).new_game(**match["setup"])


def replay_rows(match: dict, rows: list[dict], into: Replayed | None = None) -> Replayed:
    """Apply log rows in order (from scratch, or on top of ``into``). A row that no longer replays
    (an engine changed under an old match) is reported in ``problems`` and skipped, so the rest of the
    match is never lost."""
    if into is None:
        rep = Replayed(match=match, game=new_game_for(match), effective=newest_resolutions(rows))
    else:
        rep = into
    for row in rows:
        try:
            apply_row(rep, row)
        except (RulesError, KeyError, TypeError, AttributeError, IndexError) as exc:
            rep.problems.append({"seq": row["seq"], "kind": row["kind"], "error": str(exc)})
        rep.seq = row["seq"]
    return rep


def newest_resolutions(rows: list[dict]) -> dict:
    """{call id: the action of its newest resolution} for every call resolved more than once (a
    confident call applied at once counts as one resolution; each decision as one)."""
    action, count = {}, {}
    for row in rows:
        kind, data = row["kind"], row["data"]
        if kind == "call" and data.get("status") == "applied":
            action[data["id"]] = data["verdict"].get("proposed_action")
            count[data["id"]] = 1
        elif kind in ("decision", "override") and isinstance(data.get("call"), str):
            action[data["call"]] = data.get("action")
            count[data["call"]] = count.get(data["call"], 0) + 1
    return {c: a for c, a in action.items() if count[c] > 1}


def apply_row(rep: Replayed, row: dict) -> None:
    kind, data = row["kind"], row["data"]
    base = {"seq": row["seq"], "t": row["t"], "kind": kind, "actor": row["actor"]}
    call_id = data.get("call") if kind == "fact" else None
    if call_id is not None and call_id in rep.effective:
        # a re-decided call: its first fact slot carries the newest decision; later slots are skipped
        if call_id in rep.facts_of:
            _remember(rep, {**base, "action": data["action"], "call": call_id, "superseded": True, "events": []})
            return
        rep.facts_of.add(call_id)
        newest = rep.effective[call_id]
        if newest is None:
            _remember(rep, {**base, "action": data["action"], "call": call_id, "superseded": True, "events": []})
            return
        events = rep.game.push(rep.game.action_from_dict(newest))
        _remember(rep, {**base, "action": newest, "call": call_id, "replaces": data["action"],
                        "events": [e.to_dict() for e in events]})
        return
    if kind in ("action", "fact"):
        action = rep.game.action_from_dict(data["action"])
        events = rep.game.push(action)
        _remember(rep, {**base, "action": data["action"], "call": data.get("call"),
                        "events": [e.to_dict() for e in events]})
    elif kind == "undo":
        action = rep.game.pop()
        _remember(rep, {**base, "action": rep.game.action_to_dict(action), "reason": data.get("reason", "")})
    elif kind == "call":
        call = {"id": data["id"], "seq": row["seq"], "t": row["t"], "verdict": data["verdict"],
                "status": data["status"], "note": data.get("note", ""), "decision": None}
        rep.calls[data["id"]] = call
        rep.last_call = data["id"]
        _remember(rep, {**base, "call": data["id"], "status": data["status"], "question": data["verdict"].get("question", "")})
    elif kind in ("decision", "override"):
        call = rep.calls[data["call"]]
        if call["decision"] is not None:
            call.setdefault("history", []).append(call["decision"])
        call["status"] = "overridden" if kind == "override" else data.get("decision", "confirmed")
        call["decision"] = {"kind": kind, "who": row["actor"], "t": row["t"], "reason": data.get("reason", ""),
                            "action": data.get("action"), "status": call["status"]}
        _remember(rep, {**base, "call": data["call"], "status": call["status"], "reason": data.get("reason", "")})
    elif kind == "dispute":
        call = rep.calls[data["call"]]
        call["disputes"] = call.get("disputes", []) + [{"who": row["actor"], "t": row["t"], "reason": data.get("reason", ""),
                                                        "was": call["status"], "seq": row["seq"]}]
        call["status"] = "disputed"
        _remember(rep, {**base, "call": data["call"], "status": "disputed", "reason": data.get("reason", "")})
    elif kind == "identity":
        name = data["name"]
        track = data.get("track")
        for other in [n for n, v in rep.identities.items() if track is not None and v.get("track") == track and n != name]:
            del rep.identities[other]  # one name per track: the newest wins
        if data.get("clear"):
            rep.identities.pop(name, None)
        else:
            rep.identities[name] = {"name": name, "track": track, "xy": data.get("xy"), "who": row["actor"],
                                    "t": row["t"], "seq": row["seq"], "unsure": bool(data.get("unsure")),
                                    "why": str(data.get("why") or "")}
        _remember(rep, {**base, "identity": name, "track": track, "clear": bool(data.get("clear")),
                        "unsure": bool(data.get("unsure"))})


def _remember(rep: Replayed, event: dict) -> None:
    rep.events.append(event)
    if len(rep.events) > RECENT_EVENTS:
        del rep.events[: len(rep.events) - RECENT_EVENTS]
