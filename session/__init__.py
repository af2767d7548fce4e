"""The live table: one session per table and game wires vision, the referee and a rules engine.

    from session.dino_dunk import DinoDunkSession
    s = DinoDunkSession(board, detector, rosters=..., offense="home")   # detector(frame, quality) -> Observation
    s.step(frame)                        # every frame: detect, track, motion; at a settle: calls -> facts -> engine
    s.assign(track_id, "home:triceratops")   # the user names a piece once
    s.act(Activate("home:triceratops", "shoot"))   # a player's choice (dashboard, hotkey)
    s.pending                            # a flick whose too-close call waits; s.confirm() / s.override(fact, value)
    s.correct(ShotResult(...))           # a judge replaces the last fact

Modules, one concept each:

- ``core``      :class:`~session.core.Session` (the loop, flicks and their evidence frames, pending facts,
                identities), :class:`~session.core.Flick`, :class:`~session.core.SessionConfig`
- ``motion``    started / settled from tracked observations, noise-aware
- ``oracle``    :class:`~session.oracle.OracleDetector`: the simulator's truth with realistic noise
- ``dino_dunk`` / ``dodo_dash`` / ``morris`` / ``dogo_dash``: one session type per game
- ``simgame``   a whole simulated Dino Dunk game through a session, checked against the truth
- ``review``    ``tableref review``: a recorded match for judges
- ``bench``     ``tableref bench live``

No global state: everything a table needs lives in its Session, so tables run side by side.
"""
