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


def test_a_dodo_dash_session_hands_the_table_at_rest_before_the_throw():
    s, det = _play(DodoDashSession, _StubDodoDash({"projectile": "log"}), _log_at, 50)
    assert len(s.flicks) == 1 and s.flicks[0].t_settle is not None
    # the first frame (a throw awaited, the table at rest); the last frame at rest before the
    # motion (frame 20's step is seen on frame 21); then, the throw called and applied, nothing is
    # awaited: a new wait, the first frame at rest after the settle
    assert s.expecting() is None and s.flicks[0].status == "applied"
    assert det.references[:2] == [0, 20]
    assert len(det.references) == 3 and det.references[2] > s.flicks[0].index_settle


def test_a_new_wait_renews_the_reference():
    game = _StubDodoDash({"projectile": "log"})
    det = Recording()
    s = DodoDashSession(_board(BOARD), det, game=game)
    for i in range(12):
        if i == 6:
            game.meta = {"projectile": "banana"}  # the engine now awaits another throw
        s.step(LiveFrame(i, i / 30, Scene("dodo-dash", BOARD, _log_at(0), i / 30), image=np.full((4, 4, 3), i, np.uint8)))
    assert det.references == [0, 6]


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


def test_the_same_throw_still_awaited_after_its_call_keeps_the_reference():
    class Unapplied(_StubDodoDash):  # an engine still awaiting the throw (a call left to a person)
        def push(self, action):
            return []

    s, det = _play(DodoDashSession, Unapplied({"projectile": "log"}), _log_at, 50)
    assert len(s.flicks) == 1 and s.flicks[0].t_settle is not None and s.expecting() is not None
    assert det.references == [0, 20]  # the frames after the settle still see the table before the throw
