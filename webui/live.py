"""The live table page (``/``) and the camera stream (``/video.mjpg``). The page draws the overlays
(pieces, regions, the last measurement) and the top-down board itself from ``/api`` state."""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from webui.app import get_frames
from webui.frames import BOUNDARY

bp = Blueprint("live", __name__)


@bp.get("/")
def index():
    return render_template("live.html")


@bp.get("/video.mjpg")
def video():
    feed = get_frames()
    return Response(feed.mjpeg(), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                    headers={"Cache-Control": "no-cache, private", "Pragma": "no-cache"})
