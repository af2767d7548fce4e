"""The Flask app factory (Flask tutorial style): configuration, one blueprint per feature, the record
reached through :func:`get_store` and closed in a teardown hook, and the safety rules.

Safety:
- The CLI binds 127.0.0.1 unless told otherwise, and refuses other addresses without a token.
- With ``TOKEN`` set, every request that changes anything (POST/PUT/PATCH/DELETE) must carry it
  (header ``X-Tableref-Token``, ``Authorization: Bearer``, or ``?token=``); pages, the overlay, the
  video and the event stream stay open.
- A state-changing request must send JSON (or an image, for evidence): a plain cross-site HTML form
  cannot, so a web page elsewhere cannot drive the referee through the browser.
- Served on loopback, only the loopback host names are accepted (``TRUSTED_HOSTS``, set by the CLI):
  a page whose own domain resolves to 127.0.0.1 (DNS rebinding) gets a 400.
- Bad input is a 4xx with a message; anything unexpected is a JSON 500 without a traceback.
"""

from __future__ import annotations

import hmac
import logging
from pathlib import Path

from flask import Flask, current_app, g, jsonify, request
from werkzeug.exceptions import HTTPException

from rules.core import IllegalActionError  # a RulesError (ValueError) that means "not now": 409
from webui.frames import FrameFeed
from webui.hub import Hub
from webui.record import ConflictError
from webui.store import NotFound, Store, default_data_dir

log = logging.getLogger("tableref.webui")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
BODY_TYPES = ("application/json", "image/jpeg", "image/png")


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(
        DATA_DIR=str(default_data_dir()),
        TOKEN=None,            # required on state-changing requests when set
        SSE_HEARTBEAT_S=10.0,  # a comment line on idle streams so that proxies and clients stay connected
        MAX_CONTENT_LENGTH=10 * 1024 * 1024,
        SOURCE="",             # the frame source in use, shown on the setup page
        JSON_SORT_KEYS=False,
    )
    if test_config:
        app.config.update(test_config)
    Path(app.config["DATA_DIR"]).mkdir(parents=True, exist_ok=True)
    app.extensions["tableref.hub"] = Hub()
    app.extensions["tableref.frames"] = FrameFeed()

    from webui import api, judge, live, matches, overlay, setup

    for bp in (live.bp, judge.bp, overlay.bp, setup.bp, matches.bp, api.bp):
        app.register_blueprint(bp)
    app.teardown_appcontext(close_store)
    app.before_request(_guard)
    _register_errors(app)
    return app


# -- shared resources -----------------------------------------------------------------------------
def get_store() -> Store:
    """The record for this request (opened on first use, closed in teardown)."""
    if "store" not in g:
        g.store = Store(current_app.config["DATA_DIR"])
    return g.store


def close_store(exc=None) -> None:
    store = g.pop("store", None)
    if store is not None:
        store.close()


def get_hub() -> Hub:
    return current_app.extensions["tableref.hub"]


def get_frames() -> FrameFeed:
    return current_app.extensions["tableref.frames"]


# -- safety ---------------------------------------------------------------------------------------
def _guard():
    if request.method in SAFE_METHODS:
        return None
    token = current_app.config.get("TOKEN")
    if token:
        given = request.headers.get("X-Tableref-Token") or request.args.get("token") or ""
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            given = auth[7:]
        if not hmac.compare_digest(given.encode(), str(token).encode()):
            return _error(401, "this server needs its token for changes: send the X-Tableref-Token header "
                               "(open the page with ?token=... once and it is remembered)")
    if request.content_length and request.mimetype not in BODY_TYPES:
        return _error(415, f"send JSON (Content-Type: application/json), not {request.mimetype or 'no type'}")
    if request.method in ("POST", "PUT", "PATCH") and request.mimetype not in BODY_TYPES:
        return _error(415, "send a JSON body (Content-Type: application/json), even if it is just {}")
    return None


def _error(status: int, message: str):
    response = jsonify({"error": message, "status": status})
    response.status_code = status
    return response


def _register_errors(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return _error(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(NotFound)
    def not_found(exc):
        return _error(404, str(exc))

    @app.errorhandler(ConflictError)
    @app.errorhandler(IllegalActionError)
    def conflict(exc):
        return _error(409, str(exc))

    @app.errorhandler(ValueError)  # StoreError, InputError, RulesError, BoardError: the user's input
    def bad_input(exc):
        return _error(400, str(exc) or type(exc).__name__)

    @app.errorhandler(Exception)
    def unexpected(exc):
        log.exception("unexpected error on %s %s", request.method, request.path)
        return _error(500, f"internal error ({type(exc).__name__}); the details are in the server log")
