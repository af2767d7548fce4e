"""The judge's review queue (``/judge``): pending and disputed calls with their evidence frames,
measurement and margin, and a decision with a reason, recorded with who and when."""

from __future__ import annotations

from flask import Blueprint, render_template

bp = Blueprint("judge", __name__)


@bp.get("/judge")
def index():
    return render_template("judge.html")
