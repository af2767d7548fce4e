"""Matches (``/matches``): list, resume, export (zip) and delete, all through ``/api/matches``."""

from __future__ import annotations

from flask import Blueprint, render_template

bp = Blueprint("matches", __name__)


@bp.get("/matches")
def index():
    return render_template("matches.html")
