"""``/api``: JSON REST for everything the pages do, the OpenAPI document, and the one Server-Sent
Events stream ``/api/events`` (``state`` on every change of a match, ``frame`` for piece positions).

Every handler validates its input and calls :mod:`webui.record`, :mod:`webui.boards` or the store;
errors are raised as ``ValueError`` subclasses and become 4xx JSON in :mod:`webui.app`.
"""

from __future__ import annotations

import queue
import time

from flask import Blueprint, Response, current_app, jsonify, request, send_file

from rules.core import ENGINES
from webui import boards, record
from webui.app import get_frames, get_hub, get_store
from webui.export import export_zip
from webui.openapi import openapi_document
from webui.record import InputError
from webui.store import NotFound

bp = Blueprint("api", __name__, url_prefix="/api")


def body() -> dict:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object as the request body")
    return data


def board_ref(value) -> str:
    """A board ref from a request body ("game/name"), checked to be text."""
    if not isinstance(value, str) or not value:
        raise InputError("board: expected a board ref like 'dino-dunk/tropic-turf'")
    return value


def current_or_404() -> str:
    mid = record.current_match_id(get_store())
    if mid is None:
        raise NotFound("no match on the table: start one (POST /api/matches) or resume one")
    return mid


# -- description ----------------------------------------------------------------------------------
@bp.get("/openapi.json")
def openapi():
    return jsonify(openapi_document())


@bp.get("/games")
def games():
    all_boards = boards.list_all(current_app.config["DATA_DIR"])
    return jsonify({"games": [{"game": g, "boards": [b["ref"] for b in all_boards if b["game"] == g],
                               "example_setup": _example_setup(g)} for g in ENGINES]})


def _example_setup(game: str) -> dict:
    """A setup that skips the secret roster choice (which the engine does not list as actions):
    Dino Dunk's default teams with the first legal roster of each (``rules.dino_dunk.cards``)."""
    if game != "dino-dunk":
        return {}
    from rules.dino_dunk import DEFAULT_TEAMS
    from rules.dino_dunk.cards import load_catalogue, valid_rosters

    cat = load_catalogue()
    return {"teams": dict(DEFAULT_TEAMS), "rosters": {s: list(valid_rosters(cat, t)[0]) for s, t in DEFAULT_TEAMS.items()},
            "offense": "home"}


# -- boards ---------------------------------------------------------------------------------------
@bp.get("/boards")
def list_boards():
    return jsonify({"boards": boards.list_all(current_app.config["DATA_DIR"])})


@bp.get("/boards/<game>/<name>")
def get_board(game, name):
    board = boards.load(current_app.config["DATA_DIR"], f"{game}/{name}")
    origin = next((b["origin"] for b in boards.list_all(current_app.config["DATA_DIR"]) if b["ref"] == f"{game}/{name}"), "shipped")
    return jsonify({"ref": board.ref, "origin": origin, "summary": board.summary(), "board": board.raw})


@bp.put("/boards/<game>/<name>")
def put_board(game, name):
    data = body()
    if "board" not in data:
        raise InputError("expected {\"board\": {...the board definition...}}")
    board, _ = boards.save(current_app.config["DATA_DIR"], game, name, data["board"])
    return jsonify({"ref": board.ref, "origin": "edited", "summary": board.summary(), "saved": True})


# -- matches --------------------------------------------------------------------------------------
@bp.get("/matches")
def list_matches():
    store = get_store()
    return jsonify({"matches": store.matches(), "current": record.current_match_id(store)})


@bp.post("/matches")
def create_match():
    data = body()
    board = data.get("board")
    if isinstance(board, str):
        boards.load(current_app.config["DATA_DIR"], board)  # a clear 400 for an unknown board
    match = record.start_match(get_store(), get_hub(), data.get("game"), board, data.get("setup"), data.get("title", ""))
    return jsonify(match), 201


@bp.get("/matches/<match_id>")
def get_match(match_id):
    return jsonify(record.snapshot(get_store(), get_hub(), match_id))


@bp.delete("/matches/<match_id>")
def delete_match(match_id):
    store = get_store()
    files = store.delete_match(match_id)
    get_hub().forget(match_id)
    get_hub().publish("deleted", {"match": match_id})
    return jsonify({"deleted": match_id, "evidence_removed": len(files)})


@bp.post("/matches/<match_id>/resume")
def resume_match(match_id):
    body()
    return jsonify(record.resume(get_store(), get_hub(), match_id))


@bp.get("/matches/<match_id>/log")
def match_log(match_id):
    store = get_store()
    store.match(match_id)
    after = request.args.get("after", "0")
    if not after.isdigit():
        raise InputError("after: expected a log sequence number")
    return jsonify({"match": match_id, "rows": store.rows(match_id, int(after))})


@bp.get("/matches/<match_id>/export.zip")
def export_match(match_id):
    import io

    data = export_zip(get_store(), match_id)
    return send_file(io.BytesIO(data), mimetype="application/zip", as_attachment=True,
                     download_name=f"tableref-match-{match_id}.zip")


@bp.post("/matches/<match_id>/actions")
def post_action(match_id):
    data = body()
    v = record.record_action(get_store(), get_hub(), match_id, data.get("action"), data.get("kind", "action"),
                             data.get("actor", ""))
    return jsonify(v), 201


@bp.post("/matches/<match_id>/undo")
def post_undo(match_id):
    data = body()
    return jsonify(record.undo(get_store(), get_hub(), match_id, data.get("actor", ""), data.get("reason", ""))), 201


@bp.get("/current")
def current():
    store = get_store()
    mid = record.current_match_id(store)
    if mid is None:
        return jsonify({"match": None})
    return jsonify(record.snapshot(store, get_hub(), mid))


# -- calls ----------------------------------------------------------------------------------------
@bp.post("/calls")
def post_call():
    """Body: a verdict dict, or {"verdict": {...}, "match": id, "actor": name}."""
    data = body()
    wrapped = "verdict" in data
    verdict = data["verdict"] if wrapped else data
    match_id = (data.get("match") if wrapped else None) or current_or_404()
    actor = data.get("actor", "referee") if wrapped else "referee"
    return jsonify(record.post_call(get_store(), get_hub(), match_id, verdict, actor)), 201


@bp.get("/calls")
def list_calls():
    store = get_store()
    match_id = request.args.get("match") or current_or_404()
    status = request.args.get("status", "pending")
    if status not in ("pending", "all"):
        raise InputError("status: expected pending or all")
    with get_hub().lock:
        rep = get_hub().replayed(store, match_id)
        calls = rep.pending_calls() if status == "pending" else list(rep.calls.values())
    return jsonify({"match": match_id, "calls": calls})


@bp.get("/calls/<call_id>")
def get_call(call_id):
    store = get_store()
    match_id = store.find_call(call_id)
    with get_hub().lock:
        call = dict(get_hub().replayed(store, match_id).calls[call_id])
    return jsonify({"match": match_id, **call})


@bp.post("/calls/<call_id>/decision")
def decide(call_id):
    data = body()
    return jsonify(record.decide(get_store(), get_hub(), call_id, data.get("decision"), data.get("who"),
                                 data.get("reason", ""), data.get("action"))), 201


@bp.post("/calls/<call_id>/dispute")
def dispute(call_id):
    """Reopen a decided call: {who, reason}. It goes back to the review queue."""
    data = body()
    return jsonify(record.dispute(get_store(), get_hub(), call_id, data.get("who"), data.get("reason"))), 201


@bp.post("/matches/<match_id>/identities")
def post_identity(match_id):
    """Which piece a disc is: {name, track?, xy?, who?, clear?} (see :func:`webui.record.assign_identity`)."""
    data = body()
    session = current_app.extensions.get("tableref.session")
    return jsonify(record.assign_identity(get_store(), get_hub(), match_id, data.get("name"), data.get("track"),
                                          data.get("xy"), data.get("who", ""), bool(data.get("clear")), session)), 201


@bp.get("/matches/<match_id>/identities")
def get_identities(match_id):
    store = get_store()
    with get_hub().lock:
        rep = get_hub().replayed(store, match_id)
        return jsonify({"match": match_id, "identities": dict(rep.identities), "names": record.piece_names(rep.game)})


@bp.get("/measure")
def measure():
    """The judge's measure tool: ?board=game/name&a=x,y,r&(b=x,y,r | region=name)[&sigma=mm][&na=&nb=]."""
    from webui.measure import measure as run_measure

    args = request.args
    board = boards.load(current_app.config["DATA_DIR"], args.get("board", ""))
    try:
        sigma = float(args.get("sigma", "0"))
    except ValueError:
        raise InputError("sigma: expected a number of mm") from None
    names = (args.get("na", "a")[:60], args.get("nb", "b")[:60])
    return jsonify(run_measure(board, args.get("a", ""), args.get("b"), args.get("region"), sigma, names))


@bp.post("/registration")
def registration():
    """Register the board's markers on the latest frame: {board, reset?}. ``reset`` forgets the
    previous registration (after the mat was moved on purpose)."""
    from webui import registration as reg

    data = body()
    board = boards.load(current_app.config["DATA_DIR"], board_ref(data.get("board")))
    if data.get("reset"):
        reg.forget(current_app._get_current_object(), board.ref)
    return jsonify(reg.register_latest(current_app._get_current_object(), board))


@bp.post("/empty-mat")
def empty_mat():
    """Capture the latest frame as the empty mat of {board} (for the classical detector)."""
    from webui import registration as reg

    board = boards.load(current_app.config["DATA_DIR"], board_ref(body().get("board")))
    return jsonify(reg.capture_empty_mat(current_app._get_current_object(), board)), 201


@bp.get("/empty-mat/<game>/<name>")
def get_empty_mat(game, name):
    from webui import registration as reg

    path = reg.empty_mat_path(current_app.config["DATA_DIR"], f"{game}/{name}")
    if not path.exists():
        raise NotFound(f"no empty mat captured for {game}/{name}")
    return send_file(path, mimetype="image/png", max_age=0)


# -- the live-table session on the camera ---------------------------------------------------------
@bp.get("/session")
def session_status():
    """The camera's live-table session: running, frames processed, calls, last error."""
    from webui import camera_session

    return jsonify(camera_session.status(current_app._get_current_object()))


@bp.post("/session/start")
def session_start():
    """Attach a live-table session to the current match on the served source: {method?} (the
    detector: auto, classical, hybrid, yolo). 409 when the mat is not registered or the empty mat
    not captured."""
    from webui import camera_session

    method = body().get("method", "auto")
    if method not in ("auto", "classical", "hybrid", "yolo"):
        raise InputError("method: expected auto, classical, hybrid or yolo")
    return jsonify(camera_session.start(current_app._get_current_object(), get_store(), method)), 201


@bp.post("/session/stop")
def session_stop():
    from webui import camera_session

    return jsonify(camera_session.stop(current_app._get_current_object()))


# -- camera calibration ---------------------------------------------------------------------------
@bp.get("/camera")
def camera_status():
    from webui import camera

    return jsonify(camera.status(current_app._get_current_object()))


@bp.post("/camera/views")
def camera_view():
    """A view of the ChArUco board: an image body (image/jpeg or image/png), or JSON {} to capture
    the latest frame of the source."""
    from webui import camera

    app = current_app._get_current_object()
    if request.mimetype in ("image/jpeg", "image/png"):
        view = camera.add_view(app, request.get_data(cache=False), "upload")
    else:
        body()
        view = camera.capture_view(app)
    return jsonify(view), 201


@bp.delete("/camera/views")
def camera_clear():
    from webui import camera

    return jsonify({"removed": camera.clear_views(current_app._get_current_object())})


@bp.delete("/camera/views/<view_id>")
def camera_remove(view_id):
    from webui import camera

    return jsonify({"removed": camera.clear_views(current_app._get_current_object(), view_id)})


@bp.post("/camera/solve")
def camera_solve():
    from webui import camera

    body()
    return jsonify(camera.solve(current_app._get_current_object())), 201


@bp.get("/camera/charuco.pdf")
def camera_charuco():
    import io

    from webui import camera

    return send_file(io.BytesIO(camera.charuco_pdf()), mimetype="application/pdf", download_name="tableref-charuco.pdf")


# -- teaching your own pieces ---------------------------------------------------------------------
@bp.get("/teach")
def teach_status():
    from webui import teach

    data_dir = current_app.config["DATA_DIR"]
    return jsonify({"tasks": teach.tasks(), "examples": teach.counts(data_dir), "profiles": teach.profiles(data_dir),
                    "active": teach.active(get_store())})


@bp.post("/teach/examples/<task>/<cls>")
def teach_example(task, cls):
    """An example of ``cls``: an image body (a photo or crop), or JSON {xy, radius} (mat mm) to cut
    that disc out of the latest frame."""
    from webui import teach

    if request.mimetype in ("image/jpeg", "image/png"):
        out = teach.add_upload(current_app.config["DATA_DIR"], task, cls, request.get_data(cache=False))
    else:
        data = body()
        out = teach.add_capture(current_app._get_current_object(), task, cls, data.get("xy"), data.get("radius"))
    return jsonify(out), 201


@bp.delete("/teach/examples/<task>/<cls>")
def teach_clear(task, cls):
    from webui import teach

    return jsonify({"removed": teach.clear_class(current_app.config["DATA_DIR"], task, cls)})


@bp.post("/teach/run")
def teach_run():
    """{task, profile, folds?, with_shipped?}: fit, cross-validate, save the profile."""
    from webui import teach

    data = body()
    return jsonify(teach.run(current_app.config["DATA_DIR"], data.get("task"), data.get("profile", "default"),
                             data.get("folds", 5), data.get("with_shipped", False))), 201


@bp.put("/profile")
def put_profile():
    """{profile: name | null}: the active profile (null: the shipped models)."""
    from webui import teach

    return jsonify(teach.set_active(get_store(), current_app.config["DATA_DIR"], body().get("profile")))


# -- accuracy self-test ----------------------------------------------------------------------------
def _sheet(ref, piece=None) -> dict:
    from webui import selftest

    if piece is not None and not isinstance(piece, str):
        raise InputError("piece: expected a piece kind like disc-medium")
    return selftest.layout(boards.load(current_app.config["DATA_DIR"], board_ref(ref)), piece)


@bp.get("/selftest/sheet")
def selftest_sheet():
    """The test sheet's definition (markers and targets in sheet mm): ?board=game/name[&piece=kind]."""
    return jsonify(_sheet(request.args.get("board"), request.args.get("piece")))


@bp.get("/selftest/sheet.<fmt>")
def selftest_sheet_file(fmt):
    import io

    from webui import selftest

    dpi = request.args.get("dpi", "300")
    if not dpi.isdigit():
        raise InputError("dpi: expected a whole number")
    data, mime = selftest.sheet_file(_sheet(request.args.get("board"), request.args.get("piece")), fmt, int(dpi))
    return send_file(io.BytesIO(data), mimetype=mime, download_name=f"tableref-test-sheet.{fmt}")


@bp.post("/selftest/empty")
def selftest_empty():
    """{board, piece?}: the latest frame as the empty test sheet."""
    from webui import selftest

    data = body()
    return jsonify(selftest.capture_empty(current_app._get_current_object(), _sheet(data.get("board"), data.get("piece")))), 201


@bp.post("/selftest/measure")
def selftest_measure():
    """{board, piece?}: detect the pieces on the sheet; the error in mm per target and overall."""
    from webui import selftest, teach

    data = body()
    return jsonify(selftest.measure(current_app._get_current_object(), _sheet(data.get("board"), data.get("piece")),
                                    teach.active(get_store())))


# -- evidence and frames --------------------------------------------------------------------------
@bp.post("/evidence")
def post_evidence():
    store = get_store()
    match_id = request.args.get("match") or current_or_404()
    eid = store.add_evidence(match_id, request.get_data(cache=False), request.mimetype)
    return jsonify({"id": eid, "match": match_id}), 201


@bp.get("/evidence/<evidence_id>")
def get_evidence(evidence_id):
    path, mime = get_store().evidence(evidence_id)
    if not path.exists():
        raise NotFound(f"evidence image {evidence_id} is recorded but its file is gone")
    return send_file(path, mimetype=mime, max_age=3600)


@bp.get("/frame")
def frame_info():
    """The latest frame's pieces and homography; ``demo``: which demo path runs, if any."""
    return jsonify({**get_frames().info(), "demo": current_app.extensions.get("tableref.demo")})


# -- the event stream -----------------------------------------------------------------------------
@bp.get("/events")
def events():
    """SSE: first the current state, then every ``state`` / ``frame`` / ``deleted`` message."""
    hub = get_hub()
    store = get_store()
    first = []
    mid = record.current_match_id(store)
    if mid is not None:
        v = record.snapshot(store, hub, mid)
        import json

        first.append(f"event: state\ndata: {json.dumps({**v, 'sent_t': time.time()}, separators=(',', ':'))}\n\n")
    heartbeat = float(current_app.config["SSE_HEARTBEAT_S"])
    q = hub.subscribe()

    def stream():
        try:
            yield "retry: 1000\n\n"
            for text in first:
                yield text
            while True:
                try:
                    yield q.get(timeout=heartbeat)
                except queue.Empty:
                    yield ": keep-alive\n\n"
        finally:
            hub.unsubscribe(q)

    return Response(stream(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
