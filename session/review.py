"""Offline review of a recorded match for judges: every flick with its calls, evidence images, and a
summary (``review.json``, ``review.txt``, ``review.html``) in an output folder.

``review(source, game, board, out_dir, ...)`` plays the recording through the game's session. The
players' choices come from the match log (``actions``: a JSON-lines file of ``{"t": s, "action":
{...}}``, as the dashboard records them) or, for a ``sim://`` recording, from the simulator's own
events, which also carry the facts the simulator measured: the review then shows, per flick, whether
the camera's call agrees with them, and the recorded fact stands where they differ (the log is the
match as it was played). With nobody at hand, a too-close call takes its proposed default and is
marked provisional.

Per flick ``flicks/NNN/``: one evidence PNG per verdict (:func:`referee.evidence.save_evidence`:
the measurement drawn in mm on the top-down view, beside the camera frame when there is one and a
calibration) and, when the frames carry images, ``before.jpg``, ``settle.jpg`` and the frames of the
motion as ``frame-IIIII.jpg`` (at most ``max_frames``).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

SESSIONS = {"dino-dunk": "session.dino_dunk:DinoDunkSession", "dodo-dash": "session.dodo_dash:DodoDashSession",
            "morris": "session.morris:MorrisSession", "dogo-dash": "session.dogo_dash:DogoDashSession"}


class ReviewError(ValueError):
    """The recording cannot be reviewed as asked; the message says what to give."""


def session_class(game: str):
    import importlib

    if game not in SESSIONS:
        raise ReviewError(f"unknown game {game!r}; use one of {', '.join(SESSIONS)}")
    mod, cls = SESSIONS[game].split(":")
    return getattr(importlib.import_module(mod), cls)


def _sim_frames(url: str):
    """(frames, spec) of a sim:// recording played as fast as possible."""
    from sim.live import SimSource, parse_sim_url
    from dataclasses import replace

    spec = replace(parse_sim_url(url), realtime=False)
    return SimSource(spec), spec


def _setup_from_sim(game: str, first_frame, spec) -> dict:
    """The engine set-up a sim:// recording implies (the simulator's bots set it up in code)."""
    if game == "dino-dunk":
        rosters = {"home": [], "away": []}
        for p in first_frame.scene.pieces:
            side, _, card = p.id.partition(":")
            if side in rosters and card:
                rosters[side].append(card)
        chooser = next((e for e in first_frame.events if e.get("type") == "ChooseCarrier"), None)
        offense = chooser["piece"].split(":")[0] if chooser else "home"
        return {"rosters": rosters, "offense": offense, "target_score": spec.target}
    if game == "morris":
        return {"players": 2}
    return {}


def _log_actions(path) -> list:
    rows = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReviewError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if "action" not in row:
            raise ReviewError(f"{path}:{n}: each line is {{\"t\": seconds, \"action\": {{\"type\": ...}}}}")
        rows.append((float(row.get("t", 0.0)), row["action"]))
    return sorted(rows, key=lambda r: r[0])


def review(source: str, game: str, board_ref: str, out_dir, *, calibration=None, setup: dict | None = None,
           actions_path=None, names: list | None = None, max_frames: int = 40, detector=None, limit_frames: int = 0,
           background=None, workers: int = 1) -> dict:
    """Review a recording; returns the summary dict (also written as review.json). A camera
    recording's frames are seen by the real detector; with ``workers`` > 1 on that many processes
    at once (:class:`vision.pool.DetectorPool`, the frames ahead of the session): the same calls
    in less time (a still piece's place within the detector's ``reuse_mm`` of one process's)."""
    from calibration.board import load_board
    from rules.core import action_from_dict, engine_for

    board = load_board(board_ref)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cls = session_class(game)
    is_sim = str(source).startswith("sim://")
    transform = calibration
    closing = None  # the detector pool made here, closed when the review ends
    if is_sim:
        frames, spec = _sim_frames(source)
        if spec.game != game:
            raise ReviewError(f"{source} is a {spec.game} recording, not {game}")
        from session.oracle import OracleDetector

        det = detector or OracleDetector(board, seed=spec.seed)
    else:
        from vision.sources import open_source

        frames = open_source(source)
        if detector is None and transform is None:
            raise ReviewError("a camera recording needs the mat registration: give --calibration reg.json")
        if detector is None and workers > 1:
            det, frames = _pooled_detector(board, transform, background, frames, workers)
            closing = det.close
        else:
            det = detector or _camera_detector(board, transform, background)
    engine_cls = engine_for(game)
    log = _log_actions(actions_path) if actions_path else []
    session = None
    rows, recorded_facts, notes = [], [], []
    fact_types = _fact_types(game)
    named = False
    frame_count = 0
    try:
        it = iter(frames)
        for frame in it:
            if session is None:
                setup = dict(setup or (_setup_from_sim(game, frame, spec) if is_sim else {}))
                session = cls(board, det, transform=transform, **setup)
            session.step(frame)
            frame_count += 1
            if not named:
                if is_sim:
                    for tid, truth_id in zip(session._last_obs.track_id, getattr(det, "last_ids", [])):
                        session.assign(int(tid), truth_id)
                elif names:
                    session.assign_at(names)
                named = True
            # the players' choices and the recorded facts at this frame's time
            t = float(getattr(frame, "t", getattr(frame, "timestamp", 0.0)))
            todo = []
            if is_sim:
                for e in frame.events:
                    if e.get("kind") == "rules-action":
                        todo.append({k: v for k, v in e.items() if k not in ("kind", "t")})
            while log and log[0][0] <= t:
                todo.append(log.pop(0)[1])
            for a in todo:
                action = action_from_dict(a, engine_cls.ACTIONS)
                if type(action).__name__ in fact_types:
                    recorded_facts.append(action)
                    continue
                _settle_recorded(session, recorded_facts, rows, notes, flush=True)
                try:
                    session.act(action)
                except ValueError as exc:
                    notes.append(f"frame {frame_count}: {a.get('type')} not legal for the session's game: {exc}")
            if session.pending is not None:  # nobody at hand: the proposed defaults, marked provisional
                flick = session.pending
                session.confirm(by="review (default, provisional)")
                flick.notes.append("too close: the proposed default was applied; a judge should look")
            _settle_recorded(session, recorded_facts, rows, notes, flush=False)
            for flick in session.flicks:
                if flick.status in ("applied", "corrected", "no-call") and not getattr(flick, "_written", False):
                    rows.append(_write_flick(out, flick, board, session, transform, max_frames))
                    flick._written = True
            if limit_frames and frame_count >= limit_frames:
                break
    finally:
        if closing is not None:
            closing()
    if session is None:
        raise ReviewError(f"{source}: no frames")
    summary = {"source": str(source), "game": game, "board": board_ref, "detector": getattr(det, "name", type(det).__name__),
               "frames": frame_count, "flicks": rows, "notes": notes,
               "state": session.game.summary() if hasattr(session.game, "summary") else None,
               "outcome": session.game.outcome().to_dict() if session.game.outcome() else None,
               "agreement": _agreement(rows)}
    (out / "review.json").write_text(json.dumps(summary, indent=2, default=_json_default), encoding="utf-8")
    (out / "review.txt").write_text(format_text(summary), encoding="utf-8")
    (out / "review.html").write_text(format_html(summary), encoding="utf-8")
    return summary


def _fact_types(game: str) -> set:
    return {"dino-dunk": {"MoveResult", "PassResult", "ShotResult", "DunkResult"}, "dodo-dash": {"Hits"},
            "morris": {"Landed"}, "dogo-dash": {"Reveal"}}[game]


def _settle_recorded(session, queue: list, rows, notes, flush: bool) -> None:
    """Match recorded facts with the session's flicks once they settled. ``flush``: the next choice
    is here, so a fact the session never called is applied from the log now."""
    while queue:
        action = queue[0]
        done = [f for f in session.flicks if f.status in ("applied", "corrected", "no-call") and not hasattr(f, "review")]
        if done:
            queue.pop(0)
            done[0].review = {}
            _reconcile_fact(session, action, done[0], rows, notes)
        elif flush:
            queue.pop(0)
            _reconcile_fact(session, action, None, rows, notes)
        else:
            return


def _reconcile_fact(session, action, last, rows, notes) -> None:
    """A recorded fact against the session's call for the same flick; where they differ the log stands."""
    from rules.core import action_to_dict

    rec = {k: v for k, v in action_to_dict(action).items() if k != "positions"}
    if last is None or last.status == "no-call":
        try:
            session.act(action)
            notes.append(f"{rec['type']}: the session made no call; the recorded fact was applied")
        except ValueError as exc:
            notes.append(f"{rec['type']}: could not apply the recorded fact: {exc}")
        return
    mine = {k: v for k, v in (last.fact or {}).items() if k != "positions"}
    same = _same(rec, mine)
    last.review = {"recorded": rec, "agrees": same, "session_fact": mine}
    last.notes.append("agrees with the recorded fact" if same else f"recorded fact differs: {rec}")
    if not same:
        try:
            session.correct(action)
        except ValueError as exc:
            notes.append(f"flick {last.id}: could not apply the recorded fact: {exc}")
    for row in rows:
        if row["id"] == last.id:
            row.update(last.review)


def _same(a: dict, b: dict) -> bool:
    def norm(v):
        return sorted(v) if isinstance(v, (list, tuple)) else v

    keys = set(a) | set(b)
    return all(norm(a.get(k)) == norm(b.get(k)) for k in keys if k not in ("automatic",))


def _camera_detector(board, transform, background=None):
    """The real detector for camera frames (:class:`vision.detect.Detector`: YOLO when a model is
    installed, else the classical one, which needs the empty mat ``background``, BGR image px; the
    mat's registration ``transform``)."""
    from vision.detect import Detector

    det = Detector(board, transform, background=background, method="auto")

    def detector(frame, quality="full"):
        return det(frame.image, frame_index=int(frame.index), timestamp=float(frame.timestamp))

    detector.name = f"vision.detect.Detector ({det.method})"
    detector.set_reference = det.set_reference  # (a session whose pieces arrive during an action hands it the table at rest)
    return detector


def _pooled_detector(board, transform, background, frames, workers: int):
    """(detector, frames) for a camera recording seen on a :class:`vision.pool.DetectorPool` of
    ``workers`` processes: the frames come out only once their observation is back, the next
    ones already in the workers; the detector answers the frame just handed out."""
    from vision.pool import DetectorPool

    pool = DetectorPool([dict(board=board, transform=transform, background=background, method="auto")], workers=workers)
    current: dict = {}
    handed: list = []

    def jobs():
        for frame in frames:
            handed.append(frame)
            yield frame.image, int(frame.index), float(frame.timestamp)

    def ahead():
        try:
            for obs in pool.detect(jobs()):
                frame = handed.pop(0)
                current.clear()
                current[int(frame.index)] = obs
                yield frame
        finally:
            pool.close()

    def detector(frame, quality="full"):
        return current[int(frame.index)]

    detector.name = f"vision.detect.Detector ({pool.methods[0]}) on {workers} processes"
    detector.close = pool.close
    return detector, ahead()


def _write_flick(out: Path, flick, board, session, transform, max_frames: int) -> dict:
    import cv2

    from referee.evidence import save_evidence

    d = out / "flicks" / f"{flick.id:03d}"
    d.mkdir(parents=True, exist_ok=True)
    settle = next((f for f in flick.frames if f.index == flick.index_settle), flick.frames[-1] if flick.frames else None)
    image = settle.image if settle is not None else None
    evidence = []
    card = session.specs.short_card_mm
    for i, v in enumerate(getattr(flick.ruling, "verdicts", ()) or ()):
        if v.unit != "mm" or not v.evidence:
            continue
        path = d / f"call-{i:02d}.png"
        save_evidence(path, v, board, frame=image if transform is not None else None, transform=transform, card_mm=card)
        evidence.append(path.relative_to(out).as_posix())
    images = []
    with_img = [f for f in flick.frames if f.image is not None]
    if with_img:
        step = max(1, len(with_img) // max(max_frames, 1))
        for f in with_img[::step][:max_frames]:
            p = d / f"frame-{f.index:05d}.jpg"
            cv2.imwrite(str(p), f.image)
            images.append(p.relative_to(out).as_posix())
        cv2.imwrite(str(d / "before.jpg"), with_img[0].image)
        if image is not None:
            cv2.imwrite(str(d / "settle.jpg"), image)
    row = {**flick.to_dict(), **getattr(flick, "review", {}), "evidence": evidence, "images": images,
           "calls": [v.summary(card) for v in getattr(flick.ruling, "verdicts", ()) or ()]}
    (d / "flick.json").write_text(json.dumps(row, indent=2, default=_json_default), encoding="utf-8")
    return row


def _agreement(rows) -> dict:
    judged = [r for r in rows if "agrees" in r]
    return {"with_recorded_fact": sum(r["agrees"] for r in judged), "compared": len(judged)}


def _json_default(o):
    import numpy as np

    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def format_text(s: dict) -> str:
    lines = [f"tableref review: {s['game']} on {s['board']} from {s['source']} ({s['frames']} frames, detector {s['detector']})"]
    for r in s["flicks"]:
        exp = r.get("expected") or {}
        lines.append(f"flick {r['id']:3d}  t {r['t_start']:.2f}-{(r['t_settle'] or 0):.2f} s  {exp.get('action', '')} "
                     f"{exp.get('piece', '') or exp.get('projectile', '')}  [{r['status']}]"
                     + (f"  recorded: {'agrees' if r['agrees'] else 'DIFFERS'}" if "agrees" in r else ""))
        fact = r.get("session_fact") or r.get("fact")
        if fact:
            lines.append(f"    fact: {json.dumps({k: v for k, v in fact.items() if k != 'positions'}, default=_json_default)}")
        if "agrees" in r and not r["agrees"]:
            lines.append(f"    recorded: {json.dumps(r['recorded'], default=_json_default)}")
        for c in r.get("calls", []):
            lines.append(f"    {c}")
        for n in r.get("notes", []):
            lines.append(f"    note: {n}")
    a = s["agreement"]
    lines.append(f"agreement with the recorded facts: {a['with_recorded_fact']}/{a['compared']}")
    lines.append(f"state: {s['state']}")
    if s["outcome"]:
        lines.append(f"outcome: {s['outcome']}")
    for n in s["notes"]:
        lines.append(f"note: {n}")
    return "\n".join(lines) + "\n"


def format_html(s: dict) -> str:
    esc = html.escape
    rows = []
    for r in s["flicks"]:
        exp = r.get("expected") or {}
        imgs = "".join(f'<a href="{esc(p)}"><img src="{esc(p)}" height="160"></a>' for p in r.get("evidence", []))
        frames = "".join(f'<a href="{esc(p)}">{esc(Path(p).stem)}</a> ' for p in r.get("images", []))
        calls = "<br>".join(esc(c) for c in r.get("calls", []))
        agree = "" if "agrees" not in r else ("agrees" if r["agrees"] else "<b>differs</b>")
        rows.append(f"<tr><td>{r['id']}</td><td>{r['t_start']:.2f}</td><td>{esc(str(exp.get('action', '')))} "
                    f"{esc(str(exp.get('piece', '') or exp.get('projectile', '')))}</td><td>{esc(r['status'])}</td>"
                    f"<td><code>{esc(json.dumps({k: v for k, v in (r.get('fact') or {}).items() if k != 'positions'}, default=_json_default))}</code></td>"
                    f"<td>{agree}</td><td>{calls}<br>{imgs}<br>{frames}</td></tr>")
    a = s["agreement"]
    return (f"<!doctype html><meta charset=utf-8><title>tableref review</title>"
            f"<style>body{{font-family:sans-serif}}td{{vertical-align:top;border-top:1px solid #ccc;padding:4px}}</style>"
            f"<h1>{esc(s['game'])} review</h1><p>{esc(s['source'])} on {esc(s['board'])}: {s['frames']} frames, detector "
            f"{esc(s['detector'])}; agreement with the recorded facts {a['with_recorded_fact']}/{a['compared']}</p>"
            f"<p>{esc(str(s['state']))}</p><table><tr><th>flick</th><th>t (s)</th><th>action</th><th>status</th><th>fact</th>"
            f"<th>recorded</th><th>calls and evidence</th></tr>{''.join(rows)}</table>"
            f"<ul>{''.join(f'<li>{esc(n)}</li>' for n in s['notes'])}</ul>")
