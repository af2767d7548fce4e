"""Video sources for ``tableref serve --source URL`` (the camera choice), published through
:class:`webui.link.TableLink`. This is video and piece positions only: turning a camera's frames
into calls and facts is the live-table session's job (issue 9), which will use the same link.

- ``sim://<game>?seed=…`` — :class:`SimVideo`: :class:`sim.live.SimSource`, a whole game played by
  the simulator's bots and rendered (``render=1`` is implied), with the true piece positions;
- anything else :func:`vision.sources.open_source` takes (a webcam index, a video file, a folder of
  images, an RTSP/HTTP stream) — :class:`CameraVideo`: the newest frame of a background grabber
  (a lost camera is retried with backoff and its status shown, never a crash). Refereeing its frames
  is the live-table session's job (``POST /api/session/start`` once the mat is registered).
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger("tableref.sources")


class SourceError(ValueError):
    """A source URL this build cannot open; the message says what is supported."""


def open_video(app, spec: str):
    """The right publisher for a ``--source`` spec; a bad spec fails here with a one-line message."""
    return SimVideo(app, spec) if spec.startswith("sim://") else CameraVideo(app, spec)


class CameraVideo:
    """A camera, video file, image folder or stream, published through the link as it comes."""

    def __init__(self, app, spec: str):
        from vision.sources import SourceError as VisionSourceError
        from vision.sources import open_source

        try:
            self.source = open_source(spec)
            if self.source.live:
                # a camera or stream that cannot be opened now is refused before serving; once
                # serving, a lost one is retried with backoff
                self.source.open()
                self.source.close()
        except VisionSourceError as exc:
            raise SourceError(str(exc)) from None
        self.app = app
        self.spec = spec
        self.status = "starting"
        self.grabber = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera-video", daemon=True)

    def start(self) -> "CameraVideo":
        from vision.sources import Grabber

        # files play at their own pace; a live camera is read as fast as it delivers
        self.grabber = Grabber(self.source, pace=not self.source.live).start()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self.grabber is not None:
            self.grabber.stop()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        import cv2

        from webui.link import TableLink

        link = TableLink(self.app)
        last = -1
        try:
            while not self._stop.is_set():
                frame = self.grabber.latest(wait=0.5, newer_than=last)
                state = self.grabber.status.state
                if frame is None or frame.index <= last:
                    if state in ("ended", "failed"):
                        self.status = "finished" if state == "ended" else f"stopped: {self.grabber.status.message}"
                        break
                    if state == "retrying":
                        self.status = f"retrying: {self.grabber.status.message}"
                    continue
                last = frame.index
                self.status = "playing"
                ok, jpg = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 80])
                if ok:
                    h, w = frame.image.shape[:2]
                    link.frame(jpg.tobytes(), size=(w, h), source=self.spec)
        except Exception as exc:  # a source failing must not take the dashboard down
            self.status = f"stopped: {type(exc).__name__}: {exc}"
            log.exception("video source stopped")
        finally:
            link.close()


class SimVideo:
    def __init__(self, app, url: str):
        if not url.startswith("sim://"):
            raise SourceError(f"{url!r}: only sim://<game>?seed=N sources are supported until the live-table "
                              "session (webcams, video files) lands")
        from sim.live import SimSource, parse_sim_url

        sep = "&" if "?" in url else "?"
        self.url = url if "render=" in url else f"{url}{sep}render=1"
        self.spec = parse_sim_url(self.url)
        self.source = SimSource(self.spec)
        self.app = app
        self.status = "starting"
        self._thread = threading.Thread(target=self._run, name="sim-video", daemon=True)

    def start(self) -> "SimVideo":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.source.close()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        import cv2

        from calibration.board import load_board
        from sim.export import renderer, view_for
        from webui.link import TableLink

        link = TableLink(self.app)
        try:
            board = load_board(self.spec.board)
            camera, _ = view_for(renderer(), board, self.spec.seed, self.spec.clean, self.spec.size)
            H = camera.transform().H.tolist()
            self.status = "playing"
            for frame in self.source:
                if frame.image is None:
                    continue
                ok, jpg = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 80])
                pieces = [{"xy": [p.x, p.y], "radius": p.radius or (max(p.size) / 2 if p.size else 10.0), "kind": p.kind,
                           "attributes": {k: str(v) for k, v in p.attributes.items() if k in ("team", "name", "colour", "face")}}
                          for p in frame.scene.pieces]
                link.frame(jpg.tobytes(), pieces=pieces, mat_to_image=H, size=self.spec.size, source=self.url)
            self.status = "finished"
        except Exception as exc:  # a source failing must not take the dashboard down
            self.status = f"stopped: {type(exc).__name__}: {exc}"
            log.exception("video source stopped")
        finally:
            link.close()
