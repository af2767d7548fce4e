"""Setup (``/setup``): choose the game, board and camera and start a match; the board editor
(``/setup/board/<game>/<name>``) draws a board from its definition as SVG in mat mm and saves the
user's copy through ``PUT /api/boards/<game>/<name>``."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

from webui import boards

bp = Blueprint("setup", __name__)


@bp.get("/setup")
def index():
    return render_template("setup.html", source=current_app.config.get("SOURCE", ""))


@bp.get("/setup/board/<game>/<name>")
def editor(game, name):
    board = boards.load(current_app.config["DATA_DIR"], f"{game}/{name}")
    return render_template("editor.html", ref=board.ref)
