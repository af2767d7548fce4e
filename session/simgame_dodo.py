"""A Dodo Dash race played through a :class:`~session.dodo_dash.DodoDashSession` with the real rules
engine (:mod:`rules.dodo_dash`, ``dice="table"``), every call checked against the simulator.

The engine's track is the board's (``engine_layout``: the calibration board's hexes, traps, drift
sections, charms and bases), so a printed hex index means the same hex to the camera and to the
engine. A seeded bot plays the players: it picks the Scheming cards (projectile cards first, a kind
not thrown yet preferred), closes most Reaction windows, rolls the dice (the players enter each
roll: ``session.act(Roll(v))``; drift, charms and traps follow in the engine) and makes the damage
discards, targets and "may" choices. Every choice reaches the session as a dashboard would send it
(``session.act``).

The table follows the engine: racers stand on the board's hexes (within ``dodo-dash.racer_offset_mm``
of the centre, like :func:`sim.scenarios.dodo_dash._racers`). When the engine moves a racer the
player lifts it, puts it down on its new hex and straightens it (a small slide, so the table is seen
to settle): the session re-reads every racer's hex (``positions`` events) and renames the lifted
racer (same kind, its own colour). Each throw the engine asks for (``pending["kind"] == "hits"``) is
simulated with :func:`sim.scenarios.dodo_dash.make_throw` at the racers as they stand, the engine's
projectile, the engine's thrower, and played frame by frame; the session's ruling pushes the hits.
A call too close to call is decided by a "person" who knows the truth; a confident call that
disagrees with the truth (:func:`sim.truth.dodo_dash_answers`, hits after the Feather/Dodo first-only
rule) is counted wrong and corrected by a judge (``session.correct``), so the race goes on as
simulated. After the throw the token is picked up, racers set aside (the Egg) or knocked over are
stood back where they were.

At the end the engine's state is compared with a replay of the true facts (the bot's choices and
the simulator's hits) on a fresh engine. ``python -m session.simgame_dodo --seed N`` prints the
report.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from session.dodo_dash import engine_layout
from session.simgame import _check_identities

GAME = "dodo-dash"
FIRST_ONLY = ("feather", "dodo")


@dataclass
class RaceReport:
    seed: int
    setup: dict = field(default_factory=dict)
    throws: list = field(default_factory=list)  # one row per throw: truth, session, status
    positions: dict = field(default_factory=lambda: {"right": 0, "asked": 0, "wrong": 0})
    position_wrong: list = field(default_factory=list)
    mismatch_events: int = 0  # "positions" events proposing a correction (camera sure, engine differs)
    hand_moves: int = 0  # racers moved by hand to follow the engine
    hand_flicks: int = 0  # hand moves while a throw was awaited, seen as a flick (no call made)
    rolls: int = 0
    drift_events: int = 0
    trap_events: int = 0
    charm_events: int = 0
    identity_checks: int = 0
    identity_errors: int = 0
    identity_flicks: int = 0  # checks of every named piece (:func:`session.simgame._check_identities`) ...
    identity_flicks_kept: int = 0  # ... that found each with its own name
    frames: int = 0
    seconds: float = 0.0
    actions: int = 0
    engine_equal: bool = False
    engine_diff: list = field(default_factory=list)
    final_positions: dict = field(default_factory=dict)
    truth_positions: dict = field(default_factory=dict)
    winners: list | None = None
    truth_winners: list | None = None

    def count(self, status: str) -> int:
        return sum(r["status"] == status for r in self.throws)

    @property
    def wrong(self) -> list:
        return [r for r in self.throws if r["status"] == "wrong"]

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "session"}

    def text(self) -> str:
        lines = [f"Dodo Dash race, seed {self.seed}: {self.setup.get('players')} on {self.setup.get('board_ref')} "
                 f"({self.actions} actions, {self.rolls} dice, {self.frames} frames, {self.seconds:.1f} s)"]
        for r in self.throws:
            extra = ""
            if r.get("asked"):
                extra += f" asked {r['asked']}"
            if r.get("diffs"):
                extra += f" ({r['diffs']})"
            if r.get("reordered"):
                extra += " (order corrected)"
            lines.append(f"  throw {r['throw']}: {r['projectile']:<9} by {r['by']:<3} truth {r['truth_hits']} "
                         f"(touched {r['touched']}) session {r.get('session_hits')} -> {r['status']}{extra}")
        lines.append(f"throws: {len(self.throws)}, right {self.count('right')}, asked {self.count('asked')}, "
                     f"wrong {self.count('wrong')}, missed {self.count('missed')}, not thrown {self.count('not thrown')}")
        p = self.positions
        lines.append(f"racer hex reads: right {p['right']}, asked {p['asked']}, wrong {p['wrong']}; "
                     f"mismatch events {self.mismatch_events}; hand moves {self.hand_moves} "
                     f"({self.hand_flicks} seen as a flick while a throw was awaited, no call)")
        lines.append(f"dice-driven: drift steps {self.drift_events}, traps {self.trap_events}, charms {self.charm_events}")
        lines.append(f"identities: {self.identity_checks} checks, {self.identity_errors} errors")
        lines.append(f"engine vs replay of the true facts: {'equal' if self.engine_equal else 'DIFFERENT ' + str(self.engine_diff)}")
        lines.append(f"final positions {self.final_positions}; winners {self.winners} (truth {self.truth_winners})")
        return "\n".join(lines)


class _Bot:
    """The players' choices: seeded, projectile cards first (a kind not thrown yet preferred)."""

    def __init__(self, rng, reaction_p: float = 0.25):
        self.rng = rng
        self.reaction_p = reaction_p
        self.thrown: set = set()

    def choose(self, game):
        from rules.dodo_dash import EndReactions, Roll

        p = game.pending
        kind = p["kind"]
        if kind == "roll":
            return Roll(int(self.rng.integers(1, 7)))
        legal = game.legal_actions()
        if kind == "choose":
            player = legal[0].player
            mine = [a for a in legal if a.player == player]
            proj = [a for a in mine if _projectile(game, a.card)]
            fresh = [a for a in proj if _projectile(game, a.card) not in self.thrown]
            pool = fresh or proj or mine
            return pool[int(self.rng.integers(len(pool)))]
        if kind == "reactions":
            others = [a for a in legal if not isinstance(a, EndReactions)]
            if others and self.rng.random() < self.reaction_p:
                return others[int(self.rng.integers(len(others)))]
            return EndReactions()
        return legal[int(self.rng.integers(len(legal)))]


def _projectile(game, card: str) -> str | None:
    for e in game.cat["cards"].get(card, {}).get("effects", []):
        if e.get("op") == "projectile":
            return e["kind"]
    return None


def play_dodo_dash(seed: int = 0, players: int = 3, board: str = "dodo-dash/dodorado-temple", track: str = "outer",
                   max_throws: int = 6, max_actions: int = 600, hold_s: float = 0.3, fps: float = 30.0,
                   oracle=None, session_kwargs: dict | None = None) -> RaceReport:
    """Play a race until ``max_throws`` throws were made (or it ends, or ``max_actions``)."""
    import numpy as np

    from calibration.board import load_board
    from calibration.specs import load_specs
    from rules import dodo_dash as R
    from rules.core import action_to_dict
    from session.dodo_dash import DodoDashSession
    from session.oracle import OracleDetector
    from sim.config import load_sim_config
    from sim.live import LiveFrame
    from sim.scenarios.common import ScenarioError, piece
    from sim.scenarios.dodo_dash import COLOURS, make_throw
    from sim.scene import Scene
    from sim.truth import dodo_dash_answers

    if not 2 <= players <= 4:
        raise ValueError("a race of 2 to 4 players")
    b = load_board(board)
    trk = b.tracks[track]
    centres = trk.centres()
    specs = load_specs()
    cfg = load_sim_config()
    rng = np.random.default_rng(seed)
    setup = {"players": [f"P{i + 1}" for i in range(players)], "board": "temple" if "temple" in board else "jungle",
             "track": track, "layout": engine_layout(trk), "dice": "table", "seed": seed}
    game = R.new_game(**setup)
    det = OracleDetector(b, oracle, seed=seed)
    session = DodoDashSession(b, det, game=game, specs=specs, **dict(session_kwargs or {}))
    report = RaceReport(seed, setup={**{k: v for k, v in setup.items() if k != "layout"}, "board_ref": board})
    report.session = session
    bot = _Bot(np.random.default_rng(seed + 1))
    truth_actions: list = []
    ids = [r["id"] for r in game.state["racers"]]
    colours = {rid: str(c) for rid, c in zip(ids, np.random.default_rng(seed + 2).permutation(COLOURS))}
    r_racer = specs.piece(GAME, "racer").radius
    off = cfg.dodo_dash.racer_offset_mm
    hold = max(int(round(hold_s * fps)), 4)
    index = 0
    table: dict = {}  # racer id -> (x, y) mat mm where it stands

    def hex_of(xy) -> int:
        return int(np.argmin(np.hypot(centres[:, 0] - xy[0], centres[:, 1] - xy[1])))

    def place(rid: str, h: int) -> dict:
        """A free place on hex h for ``rid`` (within the offset of its centre): {id: (x, y)}. On a
        crowded hex the racers standing there are stood around its centre with it, evenly."""
        cx, cy = centres[h]
        others = [xy for o, xy in table.items() if o != rid and xy is not None]
        for _ in range(300):
            a, d = float(rng.uniform(-math.pi, math.pi)), off * math.sqrt(float(rng.uniform(0, 1)))
            x, y = cx + d * math.cos(a), cy + d * math.sin(a)
            if hex_of((x, y)) == h and all(math.hypot(x - ox, y - oy) >= 2 * r_racer + 1.0 for ox, oy in others):
                return {rid: (float(x), float(y))}
        group = [rid] + [o for o, xy in table.items() if o != rid and xy is not None and hex_of(xy) == h]
        k = len(group)
        d = max(off, (r_racer + 1.0) / math.sin(math.pi / k)) if k > 1 else 0.0
        a0 = float(rng.uniform(-math.pi, math.pi))
        return {o: (float(cx + d * math.cos(a0 + 2 * math.pi * i / k)), float(cy + d * math.sin(a0 + 2 * math.pi * i / k)))
                for i, o in enumerate(group)}

    def racer_piece(rid: str, xy) -> object:
        return piece(specs, GAME, "racer", rid, xy[0], xy[1], colour=colours[rid], hex=[trk.name, hex_of(xy)])

    def scene(positions: dict, extra=()) -> Scene:
        return Scene(GAME, b.ref, [racer_piece(rid, xy) for rid, xy in positions.items() if xy is not None] + list(extra), 0.0)

    def show(sc: Scene) -> list:
        nonlocal index
        t = index / fps
        frame = LiveFrame(index, t, Scene(sc.game, sc.board, sc.pieces, t))
        events = session.step(frame)
        index += 1
        for e in events:
            if e["kind"] == "positions":
                _read_positions(e, sc)
        return events

    def _read_positions(e: dict, sc: Scene) -> None:
        report.mismatch_events += bool(e["mismatch"])
        true = {p.id: hex_of((p.x, p.y)) for p in sc.pieces if p.kind == "racer"}
        for name, finding in e["racers"].items():
            if name in e["too_close"]:
                report.positions["asked"] += 1
            elif finding == f"{trk.name}:{true.get(name)}":
                report.positions["right"] += 1
            else:
                report.positions["wrong"] += 1
                report.position_wrong.append({"frame": index, "racer": name, "camera": finding, "truth": true.get(name)})

    def engine_hexes() -> dict:
        return {rid: int(p["hex"]) for rid, p in session.game.positions().items()}

    def move_by_hand(moves: dict) -> None:
        """Lift the racers in ``moves`` ({id: (x, y)}), put each down a little off its place and
        straighten it (so the table is seen to move and settle)."""
        if not moves:
            return
        n_flicks = len(session.flicks)
        report.hand_moves += len(moves)
        lifted = {rid: xy for rid, xy in table.items() if rid not in moves}
        for _ in range(3):
            show(scene(lifted))
        nudge = {}
        for rid, (x, y) in moves.items():
            a = float(rng.uniform(-math.pi, math.pi))
            nudge[rid] = (8.0 * math.cos(a), 8.0 * math.sin(a))
        for frac in (1.0, 1.0, 1.0, 0.5, 0.0):
            now = dict(lifted)
            now.update({rid: (x + frac * nudge[rid][0], y + frac * nudge[rid][1]) for rid, (x, y) in moves.items()})
            show(scene(now))
        table.update(moves)
        for _ in range(hold):
            show(scene(table))
        new = session.flicks[n_flicks:]
        report.hand_flicks += sum(f.status != "discarded" for f in new)
        _check_identities(session, det, report)

    def follow_engine(back: dict | None = None) -> None:
        """Stand the racers where the engine has them: those on another hex move to a free place on
        theirs; those in ``back`` ({id: (x, y)}: set aside or knocked by a throw) go back to that
        place when it is still on their hex. One hand move for all of them."""
        eng = engine_hexes()
        back = dict(back or {})
        for rid in back:
            table[rid] = None  # lifted
        moves = {}
        for rid in ids:
            if rid in back and hex_of(back[rid]) == eng[rid]:
                moves[rid] = table[rid] = back[rid]
        for rid in ids:
            xy = table.get(rid)
            if xy is None or hex_of(xy) != eng[rid]:
                table[rid] = None  # lifted: its old place is free
                got = place(rid, eng[rid])
                moves.update(got)
                table.update(got)
        move_by_hand(moves)

    def tally_events(events) -> None:
        for e in events:
            k = e.get("kind")
            report.drift_events += k in ("drift", "drift_end")
            report.trap_events += k == "trap"
            report.charm_events += k == "charm"

    t_start = time.perf_counter()
    # the racers on their start hexes; the table still; the user names the racers once
    for rid, h in engine_hexes().items():
        table.update(place(rid, h))
    for _ in range(hold):
        show(scene(table))
    for tid, truth_id in zip(session._last_obs.track_id, det.last_ids):
        session.assign(int(tid), truth_id)
    _check_identities(session, det, report)

    while len(report.throws) < max_throws and report.actions < max_actions and session.game.state["phase"] != "over":
        p = session.game.pending
        if p is None:
            break
        if p["kind"] != "hits":
            action = bot.choose(session.game)
            report.rolls += type(action).__name__ == "Roll"
            truth_actions.append(action)
            tally_events(session.act(action))
            report.actions += 1
            follow_engine()
            continue
        # a throw
        proj, by = p["projectile"], p["by"]
        bot.thrown.add(proj)
        before = dict(table)
        pieces = [racer_piece(rid, xy) for rid, xy in table.items()]
        try:
            scn = make_throw(np.random.default_rng([seed, len(report.throws)]), b, specs, cfg, proj, seed=len(report.throws),
                             racers=pieces, thrower=by)
        except ScenarioError as err:  # an Egg with every racer on the thrower's hex: nobody to hit
            report.throws.append({"throw": len(report.throws) + 1, "projectile": proj, "by": by, "touched": [],
                                  "truth_hits": [], "status": "not thrown", "notes": [str(err)]})
            truth_actions.append(R.Hits(()))
            tally_events(session.act(R.Hits(())))
            report.actions += 1
            follow_engine()
            continue
        truth = dodo_dash_answers(scn, b)
        touched = list(truth["touched_racers"])
        true_hits = touched[:1] if proj in FIRST_ONLY else touched
        truth_action = R.Hits(tuple(touched))
        row = {"throw": len(report.throws) + 1, "projectile": proj, "by": by, "touched": touched, "truth_hits": true_hits,
               "frames": [index, None]}
        n_flicks = len(session.flicks)
        for _ in range(hold):
            show(scn.initial)
        for sc in scn.run.frames:
            show(sc)
        for _ in range(hold):
            show(scn.final)
        row["frames"][1] = index - 1
        _check_identities(session, det, report)
        new = [f for f in session.flicks[n_flicks:] if f.status != "discarded"]
        flick = new[-1] if new else None
        if len(new) > 1:
            row["flicks"] = len(new)
        if flick is None or flick.status in ("no-call", "moving"):
            row["status"] = "missed"
            if flick is not None:
                row["notes"] = list(flick.notes)
            tally_events(session.act(truth_action))
        else:
            if flick.status == "pending":
                row["asked"] = flick.ruling.open_facts()
                for name in flick.ruling.open_facts():
                    tally_events(session.override(name, _truth_of(name, touched), by="person"))
            mine = list(flick.fact["racers"]) if flick.fact else []
            row["session_touched"] = mine
            row["session_hits"] = mine[:1] if proj in FIRST_ONLY else mine
            same = row["session_hits"] == true_hits if proj in FIRST_ONLY else set(row["session_hits"]) == set(true_hits)
            if not same:
                row["status"] = "wrong"
                row["diffs"] = {"truth": true_hits, "session": row["session_hits"]}
                tally_events(session.correct(truth_action))
            else:
                row["status"] = "asked" if row.get("asked") else "right"
                if mine != touched and proj not in FIRST_ONLY:
                    # the same racers in another order: a judge puts them in the order touched
                    row["reordered"] = True
                    tally_events(session.correct(truth_action))
        truth_actions.append(truth_action)
        report.throws.append(row)
        report.actions += 1
        # the token picked up; racers set aside or knocked over stood back where they were
        final = {p.id: (p.x, p.y) for p in scn.final.pieces if p.kind == "racer"}
        back = {}
        for rid, xy in before.items():
            now = final.get(rid)
            if now is None or math.hypot(now[0] - xy[0], now[1] - xy[1]) > 1.0:
                back[rid] = xy
                table[rid] = None
            else:
                table[rid] = now
        shown = {rid: final.get(rid) for rid in ids}
        for _ in range(3):
            show(scene(shown))
        follow_engine(back)

    report.frames = index
    report.seconds = time.perf_counter() - t_start
    replay = R.new_game(**setup)
    for a in truth_actions:
        replay.push(a)
    report.engine_diff = _state_diff(session.game.state, replay.state)
    report.engine_equal = not report.engine_diff
    report.final_positions = {rid: p["progress"] for rid, p in session.game.positions().items()}
    report.truth_positions = {rid: p["progress"] for rid, p in replay.positions().items()}
    out, tout = session.game.outcome(), replay.outcome()
    report.winners = list(out.winners) if out else None
    report.truth_winners = list(tout.winners) if tout else None
    report.truth_actions = [action_to_dict(a) for a in truth_actions]
    return report


def _state_diff(a: dict, b: dict) -> list[str]:
    """Keys of two engine states that differ (racers by id and field)."""
    out = []
    for k in sorted(set(a) | set(b)):
        if k == "racers":
            for ra, rb in zip(a[k], b[k]):
                diff = sorted(x for x in set(ra) | set(rb) if ra.get(x) != rb.get(x))
                if diff:
                    out.append(f"racers.{ra['id']}: {diff}")
        elif a.get(k) != b.get(k):
            out.append(k)
    return out


def _truth_of(fact: str, touched: list) -> bool:
    """A person's answer to a throw's open fact, from the simulator's racers in the order touched:
    ``hit:<id>`` whether it was touched, ``before:<id>:<other>`` whether it was touched before the
    other (or the other not at all)."""
    kind, _, rest = fact.partition(":")
    if kind == "before":
        a, b = rest.split(":", 1)
        return a in touched and (b not in touched or touched.index(a) < touched.index(b))
    return rest in touched


def races(start: int, count: int, max_throws: int = 6) -> dict:
    """``count`` races from seed ``start``: 3 and 4 players in turn, the Jungle board every third
    seed and the Temple otherwise; totals of throws by status (and by projectile), hex reads,
    identities, and how many races ended equal to the truth's replay."""
    from collections import Counter

    throws, by_kind, pos = Counter(), {}, Counter()
    out = {"races": count, "engine_equal": 0, "finished": 0, "identity_checks": 0, "identity_errors": 0, "wrong": []}
    for seed in range(start, start + count):
        board = "dodo-dash/dodorado-jungle" if seed % 3 == 0 else "dodo-dash/dodorado-temple"
        rep = play_dodo_dash(seed=seed, players=3 + seed % 2, board=board, max_throws=max_throws)
        for row in rep.throws:
            throws[row["status"]] += 1
            by_kind.setdefault(row["projectile"], Counter())[row["status"]] += 1
            if row["status"] == "wrong":
                out["wrong"].append({"seed": seed, "projectile": row["projectile"], **row.get("diffs", {})})
        pos.update(rep.positions)
        out["engine_equal"] += bool(rep.engine_equal)
        out["finished"] += rep.winners is not None
        out["identity_checks"] += rep.identity_checks
        out["identity_errors"] += rep.identity_errors
    out.update(throws=dict(throws), by_projectile={k: dict(v) for k, v in sorted(by_kind.items())}, positions=dict(pos))
    return out


def main(argv=None) -> int:
    import argparse
    import json

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--board", default="dodo-dash/dodorado-temple")
    ap.add_argument("--track", default="outer")
    ap.add_argument("--throws", type=int, default=6)
    ap.add_argument("--races", type=int, default=0,
                    help="play this many races from --seed (3 and 4 players in turn, the Jungle every third) and print totals")
    ap.add_argument("--json", action="store_true", help="the whole report as JSON")
    a = ap.parse_args(argv)
    if a.races:
        tot = races(a.seed, a.races, a.throws)
        if a.json:
            print(json.dumps(tot, indent=1))
        else:
            print(f"{tot['races']} Dodo Dash races from seed {a.seed}: engine equal to the truth's replay in "
                  f"{tot['engine_equal']}, {tot['finished']} ran to a winner")
            print("  throws: " + ", ".join(f"{k} {v}" for k, v in sorted(tot["throws"].items())))
            print("  by projectile: " + "; ".join(f"{k} " + ", ".join(f"{s} {n}" for s, n in sorted(v.items()))
                                                for k, v in tot["by_projectile"].items()))
            print("  racer hexes read: " + ", ".join(f"{k} {v}" for k, v in sorted(tot["positions"].items())) +
                  f"; identity errors {tot['identity_errors']}/{tot['identity_checks']}")
            for w in tot["wrong"]:
                print(f"  wrong: {w}")
        return 0 if tot["engine_equal"] == tot["races"] else 1
    rep = play_dodo_dash(seed=a.seed, players=a.players, board=a.board, track=a.track, max_throws=a.throws)
    print(json.dumps(rep.to_dict(), indent=1, default=str) if a.json else rep.text())
    return 0 if rep.engine_equal else 1


if __name__ == "__main__":
    raise SystemExit(main())
