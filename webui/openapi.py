"""The OpenAPI 3.1 document of ``/api`` (kept next to the routes; a test checks that every API route
is described here and every path described exists)."""

from __future__ import annotations

_ERR = {"description": "bad input (400), not found (404), illegal now (409), token missing (401)",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _op(summary: str, body: str | None = None, ok: str = "200", params: tuple = (), produces: str = "application/json") -> dict:
    op = {"summary": summary, "responses": {ok: {"description": "OK", "content": {produces: {}}}, "4XX": _ERR}}
    if params:
        op["parameters"] = [{"name": n, "in": where, "required": where == "path", "schema": {"type": "string"}}
                            for n, where in params]
    if body:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{body}"}}}}
    return op


M = (("match_id", "path"),)
C = (("call_id", "path"),)

PATHS = {
    "/api/openapi.json": {"get": _op("This document")},
    "/api/games": {"get": _op("Games with a rules engine and their boards")},
    "/api/boards": {"get": _op("Every board: shipped, user, or edited (a user copy of a shipped one)")},
    "/api/boards/{game}/{name}": {
        "get": _op("A board definition (the user's copy when there is one)", params=(("game", "path"), ("name", "path"))),
        "put": _op("Validate and save a board as the user's copy (never over the shipped file)", "BoardSave",
                   params=(("game", "path"), ("name", "path"))),
    },
    "/api/matches": {"get": _op("Every match, newest first, and the current one"),
                     "post": _op("Start a match and put it on the table", "MatchCreate", ok="201")},
    "/api/matches/{match_id}": {"get": _op("A match's replayed state, legal actions, calls and recent events", params=M),
                                "delete": _op("Delete a match, its log and its evidence images", params=M)},
    "/api/matches/{match_id}/resume": {"post": _op("Put a match back on the table", "Empty", params=M)},
    "/api/matches/{match_id}/log": {"get": _op("The append-only log", params=M + (("after", "query"),))},
    "/api/matches/{match_id}/export.zip": {"get": _op("match.json + events.jsonl + evidence images", params=M, produces="application/zip")},
    "/api/matches/{match_id}/actions": {"post": _op("Append an action (validated by the rules engine)", "ActionPost", ok="201", params=M)},
    "/api/matches/{match_id}/undo": {"post": _op("Take back the last action (a new log row)", "Undo", ok="201", params=M)},
    "/api/current": {"get": _op("The match on the table (its view), or {match: null}")},
    "/api/calls": {"get": _op("Calls of the current (or ?match=) match", params=(("match", "query"), ("status", "query"))),
                   "post": _op("Record a referee verdict; too_close / low confidence waits for a person", "CallPost", ok="201")},
    "/api/calls/{call_id}": {"get": _op("One call with its verdict and decision", params=C)},
    "/api/calls/{call_id}/decision": {"post": _op("Confirm, override or dismiss a pending call", "Decision", ok="201", params=C)},
    "/api/calls/{call_id}/dispute": {"post": _op("Reopen a decided call with a reason (back to the queue; the newest "
                                                 "decision is the one replayed)", "Dispute", ok="201", params=C)},
    "/api/matches/{match_id}/identities": {
        "get": _op("Which piece each named disc or racer is (and the names this match offers)", params=M),
        "post": _op("Name a disc: by the live session's track id and/or its position in mat mm", "Identity", ok="201",
                    params=M)},
    "/api/evidence": {"post": {**_op("Upload an evidence image (body: image/jpeg or image/png)", ok="201", params=(("match", "query"),)),
                               "requestBody": {"required": True, "content": {"image/jpeg": {}, "image/png": {}}}}},
    "/api/evidence/{evidence_id}": {"get": _op("An evidence image", params=(("evidence_id", "path"),), produces="image/jpeg")},
    "/api/measure": {"get": _op("Measure tool: edge-to-edge gap of two pieces (mm, card lengths) or a piece's overlap "
                                "of a region, by the referee", params=(("board", "query"), ("a", "query"), ("b", "query"),
                                                                       ("region", "query"), ("sigma", "query")))},
    "/api/registration": {"post": _op("Register the board's markers on the latest frame: markers found, residual px, "
                                      "σ mm, and 'mat moved' against the previous registration", "Registration")},
    "/api/empty-mat": {"post": _op("Capture the latest frame as the board's empty mat", "Registration", ok="201")},
    "/api/empty-mat/{game}/{name}": {"get": _op("The captured empty mat (PNG)", params=(("game", "path"), ("name", "path")),
                                                produces="image/png")},
    "/api/session": {"get": _op("The camera's live-table session: running, frames processed, calls, last error")},
    "/api/session/start": {"post": _op("Attach a live-table session (vision.detect) to the current match on the served "
                                       "source; needs the mat registered and the empty mat captured (409 otherwise)",
                                       "SessionStart", ok="201")},
    "/api/session/stop": {"post": _op("Stop the camera's live-table session", "Empty")},
    "/api/camera": {"get": _op("Camera calibration: the views kept so far (ChArUco corners found in each), the "
                               "board's settings, and the saved camera file (RMS error)")},
    "/api/camera/views": {
        "post": {**_op("Add a view of the ChArUco board: an image body, or {} to capture the latest frame", "Empty", ok="201"),
                 "requestBody": {"required": True, "content": {"application/json": {}, "image/jpeg": {}, "image/png": {}}}},
        "delete": _op("Forget every view")},
    "/api/camera/views/{view_id}": {"delete": _op("Forget one view", params=(("view_id", "path"),))},
    "/api/camera/solve": {"post": _op("Calibrate from the views (calibration.intrinsics); saves camera.yaml in the "
                                      "data folder, which mat registration then uses", "Empty", ok="201")},
    "/api/camera/charuco.pdf": {"get": _op("The ChArUco board to print, at true scale", produces="application/pdf")},
    "/api/teach": {"get": _op("Teaching: the tasks and their classes, the examples kept, the profiles and the active one")},
    "/api/teach/examples/{task}/{cls}": {
        "post": {**_op("Add an example: an image body, or {xy, radius} in mat mm to cut that disc out of the latest frame",
                       ok="201", params=(("task", "path"), ("cls", "path"))),
                 "requestBody": {"required": True, "content": {"application/json": {}, "image/jpeg": {}, "image/png": {}}}},
        "delete": _op("Remove a class's examples", params=(("task", "path"), ("cls", "path")))},
    "/api/teach/run": {"post": _op("Fit the task's classifier on the examples (vision.teach), cross-validate, save the "
                                   "profile in the data folder", "TeachRun", ok="201")},
    "/api/profile": {"put": _op("Pick the active profile (null: the shipped models)", "Profile")},
    "/api/selftest/sheet": {"get": _op("The accuracy test sheet: markers and numbered targets in sheet mm",
                                       params=(("board", "query"), ("piece", "query")))},
    "/api/selftest/sheet.{fmt}": {"get": _op("The test sheet to print at true scale (pdf or png)",
                                             params=(("fmt", "path"), ("board", "query"), ("piece", "query"), ("dpi", "query")),
                                             produces="application/pdf")},
    "/api/selftest/empty": {"post": _op("Capture the latest frame as the empty test sheet", "SelfTest", ok="201")},
    "/api/selftest/measure": {"post": _op("Detect the pieces on the sheet (vision.detect): error in mm per target and "
                                          "overall", "SelfTest")},
    "/api/frame": {"get": _op("The latest frame's pieces (mat mm) and mat→image homography")},
    "/api/events": {"get": _op("Server-Sent Events: state, frame, deleted", produces="text/event-stream")},
}

SCHEMAS = {
    "Error": {"type": "object", "properties": {"error": {"type": "string"}, "status": {"type": "integer"}}},
    "Empty": {"type": "object"},
    "SessionStart": {"type": "object", "properties": {
        "method": {"type": "string", "enum": ["auto", "classical", "hybrid", "yolo"], "default": "auto",
                   "description": "vision.detect's method"}}},
    "Action": {"type": "object", "required": ["type"], "description": "an engine action: {type: ClassName, ...fields}",
               "properties": {"type": {"type": "string"}}, "additionalProperties": True},
    "MatchCreate": {"type": "object", "required": ["game", "board"], "properties": {
        "game": {"type": "string", "enum": ["dino-dunk", "dodo-dash", "morris", "dogo-dash"]},
        "board": {"type": "string", "example": "dino-dunk/tropic-turf"},
        "setup": {"type": "object", "description": "keyword arguments of the engine's new_game"},
        "title": {"type": "string"}}},
    "ActionPost": {"type": "object", "required": ["action"], "properties": {
        "action": {"$ref": "#/components/schemas/Action"},
        "kind": {"type": "string", "enum": ["action", "fact"]}, "actor": {"type": "string"}}},
    "Undo": {"type": "object", "properties": {"actor": {"type": "string"}, "reason": {"type": "string"}}},
    "Verdict": {"type": "object", "required": ["question", "answer"], "properties": {
        "question": {"type": "string"}, "answer": {"type": "string", "enum": ["yes", "no", "too_close"]},
        "measured_mm": {"type": ["number", "null"]}, "threshold_mm": {"type": ["number", "null"]},
        "margin_mm": {"type": ["number", "null"]}, "sigma_mm": {"type": ["number", "null"]},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "evidence": {"type": "object", "properties": {"frames": {"type": "array", "items": {"type": "string"}},
                                                      "shapes": {"type": "array", "items": {"type": "object"}}}},
        "proposed_action": {"oneOf": [{"$ref": "#/components/schemas/Action"}, {"type": "null"}]},
        "alternative_action": {"oneOf": [{"$ref": "#/components/schemas/Action"}, {"type": "null"}]}}},
    "CallPost": {"oneOf": [{"$ref": "#/components/schemas/Verdict"},
                           {"type": "object", "required": ["verdict"], "properties": {
                               "verdict": {"$ref": "#/components/schemas/Verdict"}, "match": {"type": "string"},
                               "actor": {"type": "string"}}}]},
    "Decision": {"type": "object", "required": ["decision", "who"], "properties": {
        "decision": {"type": "string", "enum": ["confirm", "override", "dismiss"]}, "who": {"type": "string"},
        "reason": {"type": "string", "description": "required for a too_close call"},
        "action": {"$ref": "#/components/schemas/Action"}}},
    "Dispute": {"type": "object", "required": ["who", "reason"], "properties": {
        "who": {"type": "string"}, "reason": {"type": "string"}}},
    "Identity": {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "example": "home:triceratops"}, "track": {"type": ["integer", "null"]},
        "xy": {"type": ["array", "null"], "items": {"type": "number"}, "description": "mat mm"},
        "who": {"type": "string"}, "clear": {"type": "boolean"}}},
    "TeachRun": {"type": "object", "required": ["task"], "properties": {
        "task": {"type": "string", "description": "an attribute task of vision.classify (GET /api/teach lists them)"},
        "profile": {"type": "string"}, "folds": {"type": "integer", "minimum": 2, "maximum": 10},
        "with_shipped": {"type": "boolean"}}},
    "Profile": {"type": "object", "required": ["profile"], "properties": {"profile": {"type": ["string", "null"]}}},
    "SelfTest": {"type": "object", "required": ["board"], "properties": {
        "board": {"type": "string"}, "piece": {"type": "string", "example": "disc-medium"}}},
    "Registration": {"type": "object", "required": ["board"], "properties": {
        "board": {"type": "string"}, "reset": {"type": "boolean"}}},
    "BoardSave": {"type": "object", "required": ["board"], "properties": {
        "board": {"type": "object", "description": "a tableref-board/1 definition (see calibration/board.py)"}}},
}


def openapi_document() -> dict:
    return {
        "openapi": "3.1.0",
        "info": {"title": "tableref", "version": "1",
                 "description": "The local referee's API. State-changing requests send JSON and, when the server "
                                "was started with --token, the X-Tableref-Token header."},
        "paths": PATHS,
        "components": {"schemas": SCHEMAS, "securitySchemes": {
            "token": {"type": "apiKey", "in": "header", "name": "X-Tableref-Token"}}},
    }
