"""A whole simulated Dino Dunk game played through a :class:`~session.dino_dunk.DinoDunkSession`,
every call checked against the simulator's ground truth (for the end-to-end test and
``tableref bench live``).

The simulator's rules bot (:class:`sim.scenarios.dino_dunk_rules_bot.DinoDunkRulesBot`) plays the game:
it chooses (carrier, placement, Activate, Skip …) and measures each flick's fact from the physics.
The session sees only frames, through a detector (the noisy oracle by default); the players'
choices reach it as a dashboard would send them (``session.act``), and it makes every fact itself
from the frames. Between flicks the table is shown still for ``hold_s`` (players putting pieces
back). After a reset the players confirm the new layout on the dashboard (names at positions,
``session.assign_at``): a reset lifts every piece, and pieces of the same size and team cannot be
told apart by the camera. A call too close to call is decided by a "person" who knows the truth; a confident call that
disagrees with the truth is counted wrong and then corrected by a judge (``session.correct``), so the
game goes on as the simulator played it. The report lists every flick.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

FACT_FIELDS = {
    "MoveResult": ("out_of_bounds", "struck", "carrier_struck", "carrier_inside_three", "touched_ball", "knocked_out",
                   "overlaps_scoring_zone"),
    "PassResult": ("caught_by", "out_of_bounds"),
    "ShotResult": ("overlaps_zone", "shooter_outside_three", "out_of_bounds"),
    "DunkResult": ("overlaps_zone", "ball_on_top", "out_of_bounds"),
}


@dataclass
class GameReport:
    seed: int
    flicks: list = field(default_factory=list)  # one row per flick: truth, session, verdict
    score_truth: dict = field(default_factory=dict)
    score_session: dict = field(default_factory=dict)
    identity_checks: int = 0
    identity_errors: int = 0
    identity_flicks_kept: int = 0  # flicks before which every named piece seen carried its own name
    identity_flicks: int = 0
    identities_asked: int = 0  # names the session gave in doubt ("identify", unsure): a person checked them
    identities_asked_wrong: int = 0  # ... of which the name given was not the piece's
    frames: int = 0
    seconds: float = 0.0
    latencies_s: list = field(default_factory=list)
    layouts_confirmed: int = 0

    @property
    def wrong(self) -> list:
        return [r for r in self.flicks if r["status"] == "wrong"]

    def to_dict(self) -> dict:
        return {"seed": self.seed, "flicks": self.flicks, "score_truth": self.score_truth,
                "score_session": self.score_session, "identity_checks": self.identity_checks,
                "identity_errors": self.identity_errors, "identity_flicks": self.identity_flicks,
                "identity_flicks_kept": self.identity_flicks_kept, "identities_asked": self.identities_asked,
                "identities_asked_wrong": self.identities_asked_wrong, "frames": self.frames,
                "seconds": round(self.seconds, 3)}


def _norm(name: str, value):
    if name in ("struck", "knocked_out"):
        return sorted(value or ())
    return value


def _compare(truth: dict, mine: dict, foul_shot: bool) -> list[str]:
    fields = FACT_FIELDS[truth["type"]]
    diffs = []
    for f in fields:
        if foul_shot and f == "shooter_outside_three":
            continue
        if _norm(f, truth.get(f)) != _norm(f, mine.get(f)):
            diffs.append(f"{f}: truth {truth.get(f)!r}, session {mine.get(f)!r}")
    return diffs


def play_dino_dunk(seed: int = 0, target: int = 2, board: str = "dino-dunk/crater-court", max_flicks: int = 80,
                   hold_s: float = 0.5, fps: float = 30.0, oracle=None, session_kwargs: dict | None = None,
                   image_size: tuple | None = None) -> GameReport:
    """Play one game; the report says for every flick whether the session's fact matched the truth.
    ``image_size`` (w, h) attaches an image of that size to every frame (memory benchmarks)."""
    import numpy as np

    from calibration.board import load_board
    from calibration.specs import load_specs
    from referee.config import load_config
    from rules import dino_dunk as R
    from rules.core import action_from_dict, action_to_dict
    from session.dino_dunk import DinoDunkSession
    from session.oracle import OracleDetector
    from sim.config import load_sim_config
    from sim.live import LiveFrame
    from sim.scenarios.dino_dunk_rules_bot import DinoDunkRulesBot
    from sim.scene import Scene

    b = load_board(board)
    specs = load_specs()
    rng = np.random.default_rng(seed)
    bot = DinoDunkRulesBot(rng, b, specs, load_sim_config(), target=target)
    det = OracleDetector(b, oracle, seed=seed)
    kw = dict(session_kwargs or {})
    # the simulator judges the three-point line by the whole disc (sim.truth): the session is set the same way
    kw.setdefault("referee", load_config().with_(three_point="whole_disc"))
    session = DinoDunkSession(b, det, game=R.new_game(target_score=target, rosters={s: list(v) for s, v in _rosters(bot).items()},
                                                     offense=bot.game.state["offense"]), specs=specs, **kw)
    report = GameReport(seed)
    index = 0
    hold = max(int(round(hold_s * fps)), 4)
    named = False
    t_start = time.perf_counter()

    def show(scene: Scene):
        nonlocal index
        frame = LiveFrame(index, index / fps, Scene(scene.game, scene.board, scene.pieces, index / fps))
        if image_size is not None:  # a camera-sized frame, for the memory of the evidence buffers
            frame.image = np.full((image_size[1], image_size[0], 3), index % 255, dtype=np.uint8)
        t_in = time.perf_counter()
        events = session.step(frame)
        if any(e["kind"] == "flick" and e.get("state") == "settled" for e in events):
            report.latencies_s.append(time.perf_counter() - t_in)
        _check_asked(session, det, events, report)
        index += 1
        return events

    for _ in range(max_flicks):
        ep = bot.activate()
        for _k in range(hold):
            show(ep.frames[0])
        if not named:  # the user says once which disc is which
            obs = session._last_obs
            for tid, truth_id in zip(obs.track_id, det.last_ids):
                session.assign(int(tid), truth_id)
            named = True
        for e in ep.events:
            if e["kind"] == "rules-action":
                action = action_from_dict({k: v for k, v in e.items() if k not in ("kind", "t")}, R.ACTIONS)
                if type(action).__name__ in FACT_FIELDS:
                    continue
                session.act(action)
                if isinstance(action, R.ChooseCarrier):  # a reset: the players confirm the new layout
                    session.assign_at([(p.id, p.x, p.y) for p in ep.frames[0].pieces if not p.attributes.get("static")])
                    report.layouts_confirmed += 1
        _check_identities(session, det, report)  # once the players confirmed any new layout
        n_flicks = len(session.flicks)
        first_index = index
        for scene in ep.frames[1:]:
            show(scene)
        for _k in range(hold):
            show(ep.frames[-1])
        truth_call = next((c for c in ep.calls if c["kind"] == "call"), None)
        if truth_call is None:
            if bot.over:
                break
            continue
        truth_fact = next(c for c in ep.calls if c["kind"] == "rules-action" and c.get("type") in FACT_FIELDS)
        truth = {k: v for k, v in truth_fact.items() if k not in ("kind", "t")}
        action_truth = action_from_dict(truth, R.ACTIONS)
        row = {"episode": len(report.flicks) + 1, "frames": [first_index, index - 1], "action": truth_call["action"], "piece": truth_call["piece"],
               "truth": {k: v for k, v in truth.items() if k != "positions"}}
        new = session.flicks[n_flicks:]
        flick = new[-1] if new else None
        if flick is None:
            row["status"] = "missed"
            session.act(action_truth)
        else:
            row["flick"] = flick.id
            if flick.status == "pending":
                row["asked"] = flick.ruling.open_facts()
                for name in flick.ruling.open_facts():
                    session.override(name, truth.get(name, False), by="person")
            if flick.status != "applied":
                row["status"] = f"no-call ({'; '.join(flick.notes)})"
                if session.game.pending()["kind"] == "fact":
                    session.act(action_truth)
            else:
                mine = {k: v for k, v in flick.fact.items() if k != "positions"}
                row["session"] = mine
                diffs = _compare(truth, mine, truth_call["action"] == "foul_shot")
                if diffs:
                    row["status"], row["diffs"] = "wrong", diffs
                    session.correct(action_truth)
                else:
                    row["status"] = "asked" if row.get("asked") else "right"
        report.flicks.append(row)
        diverged = _diverged(session.game.state, bot.game.state)
        if diverged:
            row["diverged"] = diverged
        if bot.over:
            break
    report.score_truth = dict(bot.game.state["score"])
    report.score_session = dict(session.game.state["score"])
    report.frames = index
    report.seconds = time.perf_counter() - t_start
    report.session = session
    return report


def _rosters(bot) -> dict:
    return {side: [c for c in bot.game.state["rosters"][side]] for side in bot.game.state["sides"]}


def _check_identities(session, det, report: GameReport) -> None:
    """Every named piece seen now carries the simulator id it should."""
    obs = session._last_obs
    names = {tr.id: tr.name for tr in session.tracker.tracks.values() if tr.name}
    e0 = report.identity_errors
    for tid, truth_id in zip(obs.track_id, det.last_ids):
        name = names.get(int(tid))
        if name:
            report.identity_checks += 1
            report.identity_errors += name != truth_id
    report.identity_flicks += 1
    report.identity_flicks_kept += report.identity_errors == e0


def _check_asked(session, det, events: list, report: GameReport) -> None:
    """A name the session gave in doubt (an ``identify`` event, unsure: "please check") is checked
    by a person, as the dashboard asks: the piece's true name is given to its track."""
    asked = [e for e in events if e["kind"] == "identify" and e.get("unsure")]
    if not asked:
        return
    truth = {int(t): tid for t, tid in zip(session._last_obs.track_id, det.last_ids)}
    for e in asked:
        report.identities_asked += 1
        right = truth.get(int(e["track"]))
        if right and right != e["name"]:
            report.identities_asked_wrong += 1
            session.assign(int(e["track"]), right)


def _diverged(a: dict, b: dict) -> list[str]:
    """Keys of the two engines' states that differ (piece positions aside)."""
    out = []
    for k in sorted(set(a) | set(b)):
        if k == "positions":
            continue
        if k == "pieces":
            for pid in sorted(set(a[k]) | set(b[k])):
                pa = {x: y for x, y in a[k].get(pid, {}).items() if x != "position"}
                pb = {x: y for x, y in b[k].get(pid, {}).items() if x != "position"}
                if pa != pb:
                    out.append(f"pieces.{pid}: {[x for x in set(pa) | set(pb) if pa.get(x) != pb.get(x)]}")
        elif a.get(k) != b.get(k):
            out.append(k)
    return out
