"""Setup (``/setup``): choose the game, board and camera and start a match; the board editor
(``/setup/board/<game>/<name>``) draws a board from its definition as SVG in mat mm and saves the
user's copy through ``PUT /api/boards/<game>/<name>``. Sub-pages: camera calibration
(``/setup/camera``), identities (``/setup/identities``), teaching your own pieces
(``/setup/teach``) and the accuracy self-test (``/setup/selftest``); each calls ``/api``."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

from webui import boards

bp = Blueprint("setup", __name__)


@bp.get("/setup")
def index():
    return render_template("setup.html", source=current_app.config.get("SOURCE", ""))


SUBPAGES = {"camera": "setup_camera.html", "identities": "setup_identities.html", "teach": "setup_teach.html",
            "selftest": "setup_selftest.html"}


@bp.get("/setup/<page>")
def subpage(page):
    from webui.store import NotFound

    if page not in SUBPAGES:
        raise NotFound(f"no setup page {page!r}")
    return render_template(SUBPAGES[page], source=current_app.config.get("SOURCE", ""), page=page)


@bp.get("/setup/board/<game>/<name>")
def editor(game, name):
    board = boards.load(current_app.config["DATA_DIR"], f"{game}/{name}")
    return render_template("editor.html", ref=board.ref)
