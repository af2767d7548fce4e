"""The streamer overlay for OBS (``/overlay``): a transparent 1920×1080 stage. Options in the URL:
``game`` (only show that game), ``theme`` (dark | light | bare), ``panels`` (comma list of score,
call, review, summary). Everything updates from ``/api/events``."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from webui.record import InputError

bp = Blueprint("overlay", __name__)
THEMES = ("dark", "light", "bare")
PANELS = ("score", "call", "review", "summary")


@bp.get("/overlay")
def index():
    theme = request.args.get("theme", "dark")
    if theme not in THEMES:
        raise InputError(f"theme: expected one of {', '.join(THEMES)}")
    panels = [p for p in request.args.get("panels", "score,call,review").split(",") if p]
    bad = [p for p in panels if p not in PANELS]
    if bad:
        raise InputError(f"panels: unknown {', '.join(bad)}; expected some of {', '.join(PANELS)}")
    game = request.args.get("game", "")
    if game and not all(ch.isalnum() or ch == "-" for ch in game):
        raise InputError("game: expected a game slug like dino-dunk")
    return render_template("overlay.html", theme=theme, panels=panels, game=game)
