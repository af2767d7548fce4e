"""What the API does to a match, as plain functions over a :class:`~webui.store.Store` and the
:class:`~webui.hub.Hub`: start a match, record an action, undo, post a referee call, decide a call.
The pages, the API and the demo driver all go through these, so there is one way in.

Game logic stays in the engines: an action is validated by pushing it on the replayed game (and
popped again) before it is appended; the state that everyone sees is replayed from the log.
"""

from __future__ import annotations

import json
import math
from typing import Any

from rules.core import IllegalActionError, RulesError, engine_for
from webui.hub import Hub
from webui.store import OPEN_STATUSES, NotFound, Replayed, Store, StoreError, check_id, new_game_for, new_id

ANSWERS = ("yes", "no", "too_close")
DECISIONS = ("confirm", "override", "dismiss")
MIN_CONFIDENCE = 0.8  # a yes/no verdict below this is held for a person, like too_close
MAX_LEGAL_SHOWN = 150
MAX_TEXT = 500


class InputError(StoreError):
    """A request body that does not say what it should; the message names the field."""


class ConflictError(StoreError):
    """The request is well formed but not possible now (illegal action, call already decided)."""


# -- matches ------------------------------------------------------------------------------------
def start_match(store: Store, hub: Hub, game: Any, board: Any, setup: Any = None, title: Any = "") -> dict:
    if not isinstance(game, str):
        raise InputError("game: expected a game slug like 'dino-dunk'")
    if not isinstance(board, str) or not board:
        raise InputError("board: expected a board ref like 'dino-dunk/tropic-turf'")
    setup = {} if setup is None else setup
    if not isinstance(setup, dict):
        raise InputError("setup: expected an object of new_game keyword arguments")
    if not isinstance(title, str) or len(title) > 120:
        raise InputError("title: expected text of at most 120 characters")
    try:
        engine_for(game).new_game(**setup)
    except TypeError as exc:
        raise InputError(f"setup: {exc}") from None
    match = store.create_match(game, board, setup, title)
    store.set_meta("current", match["id"])
    publish_state(store, hub, match["id"])
    return match


def current_match_id(store: Store) -> str | None:
    mid = store.get_meta("current")
    if mid is None:
        return None
    try:
        store.match(mid)
    except NotFound:
        return None
    return mid


def resume(store: Store, hub: Hub, match_id: str) -> dict:
    match = store.match(match_id)
    store.set_meta("current", match_id)
    publish_state(store, hub, match_id)
    return match


# -- actions ------------------------------------------------------------------------------------
def record_action(store: Store, hub: Hub, match_id: str, action: Any, kind: str = "action", actor: Any = "",
                  call: str | None = None) -> dict:
    """Validate ``action`` (an engine action dict) on the replayed game, append it, publish."""
    if kind not in ("action", "fact"):
        raise InputError("kind: expected 'action' (a player's choice) or 'fact' (the referee's)")
    actor = _text(actor, "actor")
    with hub.lock:
        rep = hub.replayed(store, match_id)
        _check_legal(rep, action)
        data = {"action": action} if call is None else {"action": action, "call": call}
        seq = store.append(match_id, kind, data, actor)
        return publish_state(store, hub, match_id, seq=seq)


def undo(store: Store, hub: Hub, match_id: str, actor: Any = "", reason: Any = "") -> dict:
    actor, reason = _text(actor, "actor"), _text(reason, "reason")
    with hub.lock:
        rep = hub.replayed(store, match_id)
        if not rep.game.move_stack:
            raise ConflictError("nothing to undo")
        seq = store.append(match_id, "undo", {"reason": reason}, actor)
        return publish_state(store, hub, match_id, seq=seq)


def _check_legal(rep: Replayed, action: Any) -> None:
    if not isinstance(action, dict):
        raise InputError("action: expected an object like {\"type\": \"Choose\", ...}")
    try:
        parsed = rep.game.action_from_dict(action)
    except RulesError as exc:
        raise InputError(f"action: {exc}") from None
    trial = rep.game.copy(stack=False)  # never touch the shared game: readers may be looking at it
    try:
        trial.push(parsed)
    except IllegalActionError as exc:
        raise ConflictError(f"illegal now: {exc}") from None
    except RulesError as exc:
        raise InputError(f"action: {exc}") from None
    except (TypeError, KeyError, AttributeError, IndexError) as exc:  # fields of the wrong type for the engine
        raise InputError(f"action: {action.get('type')} could not be applied ({type(exc).__name__}: {exc}); "
                         "check the types of its fields") from None


# -- calls --------------------------------------------------------------------------------------
def parse_verdict(store: Store, data: Any) -> dict:
    """Check a referee verdict dict: question, answer (yes / no / too_close), measured_mm,
    threshold_mm, margin_mm, sigma_mm, confidence, evidence ({frames: [evidence ids], shapes: [...]}
    or a list of ids), proposed_action, alternative_action."""
    if not isinstance(data, dict):
        raise InputError("verdict: expected an object")
    data = _from_referee(data)
    q = data.get("question")
    if not (isinstance(q, str) and q.strip() and len(q) <= MAX_TEXT):
        raise InputError("verdict.question: expected the question asked, as text")
    answer = data.get("answer")
    if answer not in ANSWERS:
        raise InputError(f"verdict.answer: expected one of {', '.join(ANSWERS)}, got {answer!r}")
    out = {"question": q.strip(), "answer": answer}
    for key in ("measured_mm", "threshold_mm", "margin_mm", "sigma_mm"):
        value = data.get(key)
        if value is not None and not _finite(value):
            raise InputError(f"verdict.{key}: expected a number of mm or null, got {value!r}")
        out[key] = None if value is None else float(value)
    conf = data.get("confidence", 1.0)
    if not (_finite(conf) and 0.0 <= conf <= 1.0):
        raise InputError(f"verdict.confidence: expected a number from 0 to 1, got {conf!r}")
    out["confidence"] = float(conf)
    ev = data.get("evidence") or {}
    if isinstance(ev, list):
        ev = {"frames": ev}
    if not isinstance(ev, dict):
        raise InputError("verdict.evidence: expected {frames: [evidence ids], shapes: [...]} or a list of ids")
    frames = ev.get("frames", [])
    if not (isinstance(frames, list) and len(frames) <= 64):
        raise InputError("verdict.evidence.frames: expected a list of at most 64 evidence ids")
    for fid in frames:
        try:
            store.evidence(fid)
        except NotFound as exc:
            raise InputError(f"verdict.evidence.frames: {exc}; upload it first with POST /api/evidence") from None
    shapes = ev.get("shapes", [])
    if not (isinstance(shapes, list) and len(shapes) <= 100 and all(isinstance(s, dict) for s in shapes)):
        raise InputError("verdict.evidence.shapes: expected a list of at most 100 objects (mat mm)")
    ghost = ev.get("ghost", [])
    if not (isinstance(ghost, list) and len(ghost) <= 64 and all(_is_ghost(g) for g in ghost)):
        raise InputError("verdict.evidence.ghost: expected at most 64 pieces {xy: [x, y], radius, id?, team?} in mat mm "
                         "(where the pieces were before the turn)")
    out["evidence"] = {"frames": list(frames), "shapes": shapes,
                       "ghost": [{"xy": [float(g["xy"][0]), float(g["xy"][1])], "radius": float(g["radius"]),
                                  "id": str(g.get("id", ""))[:60], "team": str(g.get("team", ""))[:20]} for g in ghost]}
    extra = data.get("referee")
    if extra is not None:
        if not isinstance(extra, dict) or len(json.dumps(extra)) > 20000:
            raise InputError("verdict.referee: expected a small object")
        out["referee"] = extra
    for key in ("proposed_action", "alternative_action"):
        value = data.get(key)
        if value is not None and not isinstance(value, dict):
            raise InputError(f"verdict.{key}: expected an engine action object or null")
        out[key] = value
    return out


def _is_ghost(g: Any) -> bool:
    return (isinstance(g, dict) and isinstance(g.get("xy"), list) and len(g["xy"]) == 2
            and all(_finite(v) for v in g["xy"]) and _finite(g.get("radius")) and 0 < g["radius"] < 500)


def _from_referee(d: dict) -> dict:
    """Accept ``referee.core.Verdict.to_dict()`` as it is: value/threshold/margin/sigma (when the
    unit is mm) become the *_mm fields, its evidence shapes become ``evidence.shapes``, its frame ids
    and the rest (leaning, k, finding, detail) are kept under ``referee``."""
    if "measured_mm" in d or "value" not in d:
        return d
    out = {k: d[k] for k in ("question", "answer", "confidence", "proposed_action", "alternative_action") if k in d}
    if d.get("unit", "mm") == "mm":
        for src, dst in (("value", "measured_mm"), ("threshold", "threshold_mm"), ("margin", "margin_mm"), ("sigma", "sigma_mm")):
            out[dst] = d.get(src)
    frames = d.get("evidence_images", [])
    out["evidence"] = {"frames": frames, "shapes": d.get("evidence", []) if isinstance(d.get("evidence"), list) else [],
                       "ghost": d.get("ghost", [])}
    out["referee"] = {k: d[k] for k in ("leaning", "k", "unit", "finding", "frame_ids", "detail", "value", "threshold",
                                         "margin", "sigma") if k in d}
    return out


def post_call(store: Store, hub: Hub, match_id: str, verdict: Any, actor: Any = "referee") -> dict:
    """Record a referee call. A too-close or low-confidence call waits for a person; a confident one
    is applied at once (its proposed action appended as a fact), unless that action is not legal
    now, in which case it waits too, with the reason."""
    verdict = parse_verdict(store, verdict)
    actor = _text(actor, "actor") or "referee"
    cid = new_id()
    with hub.lock:
        rep = hub.replayed(store, match_id)
        held = verdict["answer"] == "too_close" or verdict["confidence"] < MIN_CONFIDENCE
        note = ""
        rows = []
        if not held and verdict["proposed_action"] is not None:
            try:
                _check_legal(rep, verdict["proposed_action"])
            except StoreError as exc:
                held, note = True, f"the proposed action cannot be applied: {exc}"
        status = "pending" if held else "applied"
        rows.append(("call", {"id": cid, "verdict": verdict, "status": status, "note": note}, actor))
        if not held and verdict["proposed_action"] is not None:
            rows.append(("fact", {"action": verdict["proposed_action"], "call": cid}, actor))
        seqs = store.append_many(match_id, rows)
        publish_state(store, hub, match_id, seq=seqs[-1])
        return {"id": cid, "status": status, "note": note, "match": match_id}


def decide(store: Store, hub: Hub, call_id: str, decision: Any, who: Any, reason: Any = "", action: Any = None) -> dict:
    """Settle a pending or disputed call: ``confirm`` applies its proposed action, ``override``
    applies ``action`` (or the verdict's alternative_action, or nothing), ``dismiss`` applies nothing.
    A too-close call and a disputed call need a reason; every decision needs who made it.

    A disputed call's new decision is appended like any other; the replay puts its action in the
    place of the call's first fact (see :mod:`webui.store`). It is refused (409) when the rows after
    that place would no longer replay with it (undo them first)."""
    check_id(call_id, "call")
    if decision not in DECISIONS:
        raise InputError(f"decision: expected one of {', '.join(DECISIONS)}, got {decision!r}")
    who, reason = _text(who, "who"), _text(reason, "reason")
    if not who:
        raise InputError("who: say who decides (a name or role)")
    match_id = store.find_call(call_id)
    with hub.lock:
        rep = hub.replayed(store, match_id)
        call = rep.calls[call_id]
        if call["status"] not in OPEN_STATUSES:
            raise ConflictError(f"call {call_id} is already {call['status']} (dispute it to decide it again)")
        if call["verdict"]["answer"] == "too_close" and not reason:
            raise InputError("reason: a too-close call needs the reason for the decision")
        disputed = call["status"] == "disputed"
        if disputed and not reason:
            raise InputError("reason: a disputed call needs the reason for the new decision")
        verdict = call["verdict"]
        if decision == "confirm":
            applied = verdict["proposed_action"]
        elif decision == "override":
            applied = action if action is not None else verdict["alternative_action"]
        else:
            applied = None
        if applied is not None and not isinstance(applied, dict):
            raise InputError("action: expected an engine action object")
        kind = "override" if decision == "override" else "decision"
        status = {"confirm": "confirmed", "override": "overridden", "dismiss": "dismissed"}[decision]
        rows = [(kind, {"call": call_id, "decision": status, "reason": reason, "action": applied}, who)]
        if applied is not None:
            rows.append(("fact", {"action": applied, "call": call_id}, who))
        if disputed:
            _check_replays(store, rep, match_id, rows, applied)
        elif applied is not None:
            _check_legal(rep, applied)
        seqs = store.append_many(match_id, rows)
        publish_state(store, hub, match_id, seq=seqs[-1])
        return {"id": call_id, "status": status, "applied": applied, "match": match_id}


def _check_replays(store: Store, rep: Replayed, match_id: str, rows: list, applied: Any) -> None:
    """Replay the whole log with ``rows`` appended (not written): a new problem means the new
    decision does not fit where the call was (a 409 that says which row breaks)."""
    from webui.store import replay_rows

    if applied is not None:
        try:
            rep.game.action_from_dict(applied)
        except RulesError as exc:
            raise InputError(f"action: {exc}") from None
    log = store.rows(match_id)
    last = log[-1]["seq"] if log else 0
    trial_rows = log + [{"seq": last + i + 1, "t": 0.0, "kind": k, "actor": a, "data": d} for i, (k, d, a) in enumerate(rows)]
    before = {p["seq"] for p in replay_rows(rep.match, log).problems}
    new = [p for p in replay_rows(rep.match, trial_rows).problems if p["seq"] not in before]
    if new:
        p = new[0]
        raise ConflictError(f"this decision does not replay: log row #{p['seq']} ({p['kind']}) would fail with it "
                            f"({p['error']}); undo the actions after the call first")


def dispute(store: Store, hub: Hub, call_id: str, who: Any, reason: Any) -> dict:
    """Reopen a decided call (a dispute): it goes back to the review queue with the reason; its
    earlier decision stays in force until a new one is made (:func:`decide`)."""
    check_id(call_id, "call")
    who, reason = _text(who, "who"), _text(reason, "reason")
    if not who:
        raise InputError("who: say who disputes the call (a name or role)")
    if not reason:
        raise InputError("reason: a dispute needs the reason (what looks wrong about the decision)")
    match_id = store.find_call(call_id)
    with hub.lock:
        rep = hub.replayed(store, match_id)
        call = rep.calls[call_id]
        if call["status"] in OPEN_STATUSES:
            raise ConflictError(f"call {call_id} is {call['status']}: it is already waiting for a decision")
        seq = store.append(match_id, "dispute", {"call": call_id, "reason": reason}, who)
        publish_state(store, hub, match_id, seq=seq)
        return {"id": call_id, "status": "disputed", "was": call["status"], "match": match_id}


# -- identities -----------------------------------------------------------------------------------
def piece_names(game) -> list[str]:
    """The names a disc or racer can be given in this game (from the engine's state)."""
    state = game.state
    if isinstance(state.get("pieces"), dict):
        return sorted(state["pieces"]) + (["ball"] if "ball" in state else [])
    if isinstance(state.get("racers"), list):
        return [str(r.get("racer")) for r in state["racers"] if isinstance(r, dict) and r.get("racer")]
    return []


def assign_identity(store: Store, hub: Hub, match_id: str, name: Any, track: Any = None, xy: Any = None,
                    who: Any = "", clear: Any = False, session: Any = None, unsure: Any = False, why: Any = "") -> dict:
    """Say which piece a disc is: ``name`` (one of :func:`piece_names`, when the game has names) for
    the ``track`` id of the live session and/or the disc at ``xy`` (mat mm). Appended as an
    ``identity`` row (the newest wins; one name per track) and passed to ``session.assign`` when a
    live session is attached and a track is given. ``unsure`` (with ``why``): a name the table
    session gave as a guess, which the pages ask a person to check (a name given again clears it)."""
    who = _text(who, "who")
    why = _text(why, "why")
    if not isinstance(unsure, bool):
        raise InputError("unsure: expected true or false")
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise InputError("name: expected the piece's name, like 'home:triceratops'")
    name = name.strip()
    if track is not None and (isinstance(track, bool) or not isinstance(track, int) or not 0 <= track < 10**9):
        raise InputError("track: expected a track id (a whole number) or null")
    if xy is not None:
        if not (isinstance(xy, list) and len(xy) == 2 and all(_finite(v) and abs(v) < 1e5 for v in xy)):
            raise InputError("xy: expected [x, y] in mat mm, or null")
        xy = [float(xy[0]), float(xy[1])]
    if not clear and track is None and xy is None:
        raise InputError("say which disc: give its track id or its position xy (mat mm)")
    with hub.lock:
        rep = hub.replayed(store, match_id)
        names = piece_names(rep.game)
        if names and name not in names:
            raise InputError(f"name: {name!r} is not a piece of this match; choose one of {', '.join(names)}")
        if clear and name not in rep.identities:
            raise ConflictError(f"{name} has no identity to clear")
        if session is not None and track is not None and not clear and callable(getattr(session, "assign", None)):
            session.assign(int(track), name)  # a SessionError (ValueError) is the user's 400
        data = {"name": name, "track": track, "xy": xy}
        if unsure:
            data.update(unsure=True, why=why)
        if clear:
            data = {"name": name, "clear": True, "track": None, "xy": None}
        seq = store.append(match_id, "identity", data, who or "table")
        v = publish_state(store, hub, match_id, seq=seq)
        return {"name": name, "track": track, "xy": xy, "identities": v["identities"], "match": match_id}


# -- views --------------------------------------------------------------------------------------
def view(rep: Replayed) -> dict:
    """Everything a page shows about a match, JSON-able."""
    g = rep.game
    try:
        legal = g.legal_actions()
    except RulesError:
        legal = []
    outcome = g.outcome()
    summary = g.summary() if hasattr(g, "summary") else ""
    return {
        "match": rep.match, "seq": rep.seq, "game": rep.match["game"], "board": rep.match["board"],
        "state": g.state, "summary": summary, "outcome": outcome.to_dict() if outcome else None,
        "legal": [g.action_to_dict(a) for a in legal[:MAX_LEGAL_SHOWN]], "legal_count": len(legal),
        "pending": rep.pending_calls(), "last_call": rep.calls.get(rep.last_call) if rep.last_call else None,
        "events": rep.events[-20:], "problems": rep.problems, "can_undo": bool(g.move_stack),
        "calls": list(rep.calls.values())[-50:], "extras": _extras(g),
        "identities": dict(rep.identities), "piece_names": piece_names(g),
    }


def _extras(g) -> dict:
    """What an engine offers beyond ``state`` through its public methods (what it waits for, who
    can act, its constants), for the game panel."""
    out = {}
    if callable(getattr(g, "pending", None)):
        try:
            out["waiting"] = g.pending()
        except (RulesError, KeyError, TypeError):
            out["waiting"] = None
    if callable(getattr(g, "can_act", None)) and isinstance(g.state.get("pieces"), dict):
        out["can_act"] = sorted(p for p in g.state["pieces"] if g.can_act(p))
    from webui.measure import piece_radii

    out["piece_radius_mm"] = piece_radii(g.GAME, g.state)
    module = engine_for(g.GAME)
    for name in ("SHOT_CLOCK_TURNS", "HAND_SIZE"):
        if hasattr(module, name):
            out[name.lower()] = getattr(module, name)
    return out


def snapshot(store: Store, hub: Hub, match_id: str) -> dict:
    """The view of a match, taken under the hub's lock (so never half way through a catch-up)."""
    with hub.lock:
        v = view(hub.replayed(store, match_id))
        v["current"] = current_match_id(store) == match_id
        return v


def publish_state(store: Store, hub: Hub, match_id: str, seq: int | None = None) -> dict:
    v = snapshot(store, hub, match_id)
    hub.publish("state", v)
    return v


def fresh_replay(store: Store, match_id: str) -> Replayed:
    """Replay from scratch, bypassing every cache (what a restart does)."""
    from webui.store import replay_rows

    return replay_rows(store.match(match_id), store.rows(match_id))


def _text(value: Any, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise InputError(f"{name}: expected text of at most {MAX_TEXT} characters")
    return value.strip()


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


__all__ = ["start_match", "resume", "record_action", "undo", "post_call", "decide", "dispute", "assign_identity",
           "piece_names", "view", "publish_state",
           "current_match_id", "parse_verdict", "fresh_replay", "InputError", "ConflictError", "new_game_for"]
