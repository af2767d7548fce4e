"""A session whose pieces arrive during an action (Dodo Dash: a thrown token) hands its detector
the table at rest before it (``set_reference``): the first frame at rest while an action is
awaited, and the last frame at rest before each motion; a Dino Dunk session does not."""

from __future__ import annotations

import numpy as np

from session.bench import _StubDinoDunk, _StubDodoDash
from session.dino_dunk import DinoDunkSession
from session.dodo_dash import DodoDashSession
from sim.live import LiveFrame
from sim.scene import PieceState, Scene
from vision.core import Observation

BOARD = "dodo-dash/dodorado-jungle"


class Recording:
    """Every piece where it is (σ 0.5 mm, no heights); the images handed as reference, in order."""

    measures_height = False

    def __init__(self):
        self.last_ids = []
        self.references = []

    def __call__(self, frame, quality="full"):
        ps = frame.scene.pieces
        self.last_ids = [p.id for p in ps]
        return Observation([[p.x, p.y] for p in ps], [p.radius for p in ps], [p.height for p in ps],
                           [p.kind for p in ps], [1.0] * len(ps), [0.5] * len(ps),
                           frame_index=frame.index, timestamp=frame.t)

    def set_reference(self, image):
        self.references.append(int(image[0, 0, 0]))  # (each frame's image carries its index)


def _play(session_cls, game, pieces_at, n, board=BOARD):
    det = Recording()
    s = session_cls(_board(board), det, game=game)
    for i in range(n):
        image = np.full((4, 4, 3), i, np.uint8)
        s.step(LiveFrame(i, i / 30, Scene(board.split("/")[0], board, pieces_at(i), i / 30), image=image))
        if i == 3:
            for tid, pid in zip(s._last_obs.track_id, det.last_ids):
                s.assign(int(tid), pid)
            s._armed = True
    return s, det


def _board(ref):
    from sim.suites import _board as board

    return board(ref)


def _racers():
    return [PieceState("racer-1", "racer", 400.0, 300.0, 12.5, 45.0), PieceState("racer-2", "racer", 700.0, 100.0, 12.5, 45.0)]


def _log_at(i):
    # the Log at rest until frame 20, then slides 20 mm a frame to frame 26, then rests
    x = 200.0 + 20.0 * min(max(i - 20, 0), 6)
    return _racers() + [PieceState("log", "log", x, 200.0, 9.0, 18.0, size=(40.0, 18.0))]


def test_a_dodo_dash_session_hands_the_table_at_rest_before_the_throw_and_after_its_call():
    s, det = _play(DodoDashSession, _StubDodoDash({"projectile": "log"}), _log_at, 50)
    assert len(s.flicks) == 1 and s.flicks[0].t_settle is not None
    settled = s.flicks[0].index_settle
    # the first frame (a throw awaited, the table at rest); the last frame at rest before the
    # motion (frame 20's step is seen on frame 21); once the throw was called, the first frame at
    # rest after it (the same throw awaited again by the stub engine: a new wait)
    assert det.references[:2] == [0, 20]
    assert len(det.references) == 3 and det.references[2] > settled


def test_a_dino_dunk_session_hands_no_reference():
    pieces = lambda i: [PieceState("home:1", "disc-large", 300.0 + 20.0 * min(max(i - 20, 0), 6), 200.0, 20.0, 9.0)]  # noqa: E731
    s, det = _play(DinoDunkSession, _StubDinoDunk({"actor": "home:1", "offense": "home", "action": "move"}, ["home:1"]), pieces, 40,
                   board="dino-dunk/tropic-turf")
    assert len(s.flicks) == 1
    assert det.references == []


def test_the_camera_sessions_detector_passes_the_reference_on():
    from webui.camera_session import VisionDetector

    got = []
    inner = type("Inner", (), {"set_reference": lambda self, image: got.append(image)})()
    image = np.zeros((4, 4, 3), np.uint8)
    VisionDetector(inner).set_reference(image)
    assert got == [image]
