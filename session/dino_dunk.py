"""The Dino Dunk session: each flick the engine waits for becomes its fact (``rules.dino_dunk``).

The engine says what it waits for (``game.pending()``): after a player's ``Activate(piece, action)``
(dashboard, hotkey) it waits for the fact of that flick. When the players flick without declaring,
the action is inferred from the first piece that moved: a disc is a Move (a Dunk when it carried the
ball and the ball stayed on top), the ball is a Pass when it first struck a team-mate, else a Shot.

Calls at the settle, in **mat mm** (referee verdicts; too_close ones wait for a person):

- Move: the mover out of bounds, over a scoring zone; contacts from the trajectories
  (:func:`vision.contacts.struck_contacts`): pieces it struck, the ball touched, the carrier struck
  directly or through a chain (a foul when the mover defends; the engine decides), the carrier
  inside the three-point line when struck (where it stood), other discs knocked out.
- Pass: the first disc the ball touched (its path, and a bounce off a disc), the ball out of bounds.
- Shot / foul shot: the ball over the target zone, the shooter outside the three-point line (where it
  stood before the flick), the ball out of bounds.
- Dunk: the disc over the zone, out of bounds, and the ball still on top: it stands above the disc
  (height) and within its footprint at the settle, and never came down to the mat during the flick.

Contacts between discs that the raw samples leave within the noise (a path passing within k σ of a
resting disc that did not visibly move) are measured again on fitted paths
(:func:`vision.contacts.path_gap`: straight stretches through the rest position, the gap and its σ
from the fits): a path that runs into the disc, turns away from it at it, or leaves it pushed on
beyond k σ of its rest positions touched it; one that passes beyond k σ did not; the rest waits for
a person, and is looked at again once the table has stayed still for ``revisit_s`` (a pushed disc's
new rest is the sharper for it): the session's second look (:meth:`session.core.Session.second_look`)
makes the calls again on the frames after the settle and takes them when they leave fewer facts
open and agree with every fact already settled. A disc that came to rest elsewhere moved, however
slowly (tight chains), and its striker is the moving disc that touched it when it left its rest.

The shot clock, possession, loose balls, fouls, resets and the score are the engine's.
"""

from __future__ import annotations

import numpy as np

from session.core import Flick, Session
from vision.contacts import Contact, _interp, table_contacts, touched, turned_at_start
from vision.core import Observation

GAME = "dino-dunk"
START_SURE = "turned at the start"  # the first stretch misses the rest: the one piece within reach turned it
START_UNSURE = "turned at the start, which piece unsure"


class DinoDunkSession(Session):
    GAME = GAME
    auto_names = {"ball": "ball"}
    min_flick_mm = 10.0  # an inferred flick moved its piece at least this far
    revisit_s = 0.2  # a call left too close at the settle is made again this long after, the table still

    def new_game(self, **setup):
        from rules import dino_dunk

        return dino_dunk.new_game(**setup)

    def off_table(self) -> set:
        """The dinosaurs removed from the play area for a foul (until they return)."""
        return {n for n, v in self.game.state["pieces"].items() if v.get("status", "on_mat") != "on_mat"}

    # -- what the game waits for -----------------------------------------------------------------
    def expecting(self) -> dict | None:
        pend = self.game.pending()
        if pend["kind"] == "fact":
            return {"action": pend["action"], "piece": pend["piece"] or "", "side": pend["side"]}
        if pend["kind"] == "activation":
            return {"action": "infer", "piece": "", "side": pend["side"]}
        return None

    def on_action(self, action) -> None:
        from rules.dino_dunk import PlacementDone

        if isinstance(action, PlacementDone) and action.positions:
            self.assign_at(action.positions)

    # -- board ------------------------------------------------------------------------------------
    def zone(self, side: str):
        """The scoring zone ``side`` attacks (the other side's zone)."""
        other = [s for s in self.game.state["sides"] if s != side][0]
        for r in self.board.regions_of_kind("scoring-zone"):
            if r.team == other:
                return r
        raise ValueError(f"{self.board.ref}: no scoring-zone region for team {other!r}")

    def three_point(self, zone):
        return next((r for r in self.board.regions_of_kind("three-point") if r.team == zone.team), None)

    def play_area(self):
        import shapely

        areas = self.board.regions_of_kind("play-area")
        return areas[0] if areas else shapely.box(0, 0, self.board.length_mm, self.board.width_mm)

    # -- calls -------------------------------------------------------------------------------------
    def _arrays(self, obs: Observation, names: list[str]):
        from referee.core import piece_sigma

        idx = [self._index(obs, n) for n in names]
        ok = [i for i in idx if i is not None]
        xy, r = obs.xy[ok], obs.radius[ok]
        sigma = piece_sigma(self.transform, xy, obs.sigma[ok], self.referee.registration_sigma_floor_mm)
        return idx, xy, r, sigma

    @staticmethod
    def _index(obs: Observation, name: str):
        hits = np.flatnonzero(obs.attribute("name") == name)
        return int(hits[0]) if len(hits) else None

    def _one(self, fn, obs, name, *args, **kw):
        """One verdict for piece ``name`` (None when it is not seen)."""
        from referee.core import piece_sigma

        i = self._index(obs, name)
        if i is None:
            return None
        sig = piece_sigma(self.transform, obs.xy[[i]], obs.sigma[[i]], self.referee.registration_sigma_floor_mm)
        return fn(obs.xy[[i]], obs.radius[[i]], sig, *args, k=self.referee.k, names=[name],
                  frame_ids=(int(obs.frame_index),), **kw)[0]

    def _oob(self, obs, name, flick: Flick):
        from referee.overlap import out_of_bounds_calls

        v = self._one(out_of_bounds_calls, obs, name, self.play_area())
        if v is None and name in flick.before:  # gone from view: out when last seen near the edge
            tr = self.track(name)
            if tr is not None:
                from referee.core import make_verdicts

                x, y = tr.position()
                edge = float(min(x, y, self.board.length_mm - x, self.board.width_mm - y))
                flick.notes.append(f"{name} not seen at the settle; last seen {edge:.0f} mm from the edge")
                (v,) = make_verdicts([f"{name} is out of bounds (not seen at the settle; last seen {edge:.0f} mm "
                                      f"from the mat's edge)"], value=edge, threshold=80.0, margin=80.0 - edge,
                                     sigma=10.0, k=self.referee.k, frame_ids=(int(obs.frame_index),),
                                     detail={"piece": name, "seen": False})
        return v

    def _before_obs(self, flick: Flick, names: list[str]) -> Observation:
        """Where named pieces stood before the flick, as an Observation (σ of the settled detector)."""
        rows = []
        for n in names:
            tr = self.track(n)
            if n in flick.before and tr is not None:
                rows.append({"xy": flick.before[n], "radius": tr.radius, "kind": tr.kind, "sigma": self._rest_sigma(),
                             "attributes": {"name": n}})
        obs = Observation.from_pieces(rows)
        obs.frame_index = flick.index_start
        return obs

    def _rest_sigma(self) -> float:
        cfg = getattr(self.detector, "config", None)
        return float(getattr(cfg, "sigma_mm", 1.0))

    def _contacts(self, flick: Flick):
        """(contacts, doubtful, tracks, names, t0). A contact seen only as a path passing within
        k σ of another piece (no motion of the other, no bounce) is doubtful: it may go either way
        and waits for a person when it changes a fact."""
        t0 = self.t0(flick)
        tracks = self.flick_tracks(flick, t0)
        cfg = self.flick_contact_config(flick)
        band = self.referee.k * self.gap_sigma(flick)
        exp = flick.expected
        flicked = "ball" if exp.get("action") in ("shoot", "pass", "foul_shot") else exp.get("piece", "")
        # the flicked piece left rest after the last frame before the motion was seen: that frame's
        # own time (a camera's frames are not exactly 1/30 s apart; a start a fraction of a
        # millisecond after that frame would drop it, and the path's first stretch with it)
        before = [fr.t for fr in flick.frames if fr.t < flick.t_start]
        t_left = max(before) if before else flick.t_start - 1.0 / 30
        rest = self.rest_means(t0)
        fid = self._id(flicked)
        t_left = self._last_at_rest(tracks, fid, rest.get(fid), t_left)
        known = {fid: t_left} if fid is not None else {}
        moved = self._displaced(flick)
        # pieces that came to rest elsewhere moved, however briefly (a tight chain moves its pieces a
        # few mm, too slowly for a start to be seen): they start on the frame before they left rest
        for tr in tracks:
            if moved.get(tr.id) and tr.id not in known:
                t_left = _left_rest(tr, t0, self._rest_sigma())
                if t_left is not None:
                    known[tr.id] = t_left
        # any piece that left another's side within the noise of touching it, and not clearly away
        # from it, may have brushed it as it left (a passed ball: the first disc it touched catches
        # it; a disc: it struck it): in doubt; the flicked piece was set moving by the finger alone
        contacts = table_contacts(tracks, t0, cfg, path_mm=band, known_starts=known,
                                  graze=self.referee.k,
                                  flicked=frozenset(k for k in (fid,) if k is not None), rest=rest)
        names = {tr.id: (tr.name or f"#{tr.id}") for tr in tracks}
        contacts = contacts + self._turned_at_start(flick, fid, known, tracks, contacts, rest.get(fid))
        doubt = [c for c in contacts if c.evidence in ("brushed", START_UNSURE) or
                 (c.evidence == "touched" and c.gap_mm > -band and not moved.get(c.b, False))]
        # the doubtful ones between discs measured again on the fitted paths (σ from the fits, not one
        # sample's; the light ball hops and bounces off everything, its contacts stay as they were)
        sigma = {c: band / self.referee.k for c in contacts}
        kinds = {tr.id: tr.kind for tr in tracks}
        keep = []
        for c in contacts:
            if c not in doubt or c.evidence == START_UNSURE or \
                    not (kinds.get(c.a, "").startswith("disc-") and kinds.get(c.b, "").startswith("disc-")):
                keep.append(c)  # (a turn at the start is off the fitted lines by its nature)
                continue
            g = self._path_gap(flick, t0, c.a, c.b)
            if g is None:
                keep.append(c)
                continue
            k = self.referee.k
            if g.deflected > k and g.gap_mm < k * g.sigma_mm:
                c2 = Contact(c.t, c.a, c.b, g.gap_mm, "deflected")  # it turned away from the piece, at the piece
            elif g.gap_mm < -k * g.sigma_mm:
                c2 = Contact(g.t, c.a, c.b, g.gap_mm, "path")
            elif g.gap_mm <= k * g.sigma_mm and self._pushed(flick, t0, c.a, c.b, g.t) > k and \
                    not any(c.b in (o.a, o.b) and c.a not in (o.a, o.b) for o in contacts):
                # the resting piece moved on, away from it, and no other piece came near it (else
                # that one may have pushed it)
                c2 = Contact(g.t, c.a, c.b, g.gap_mm, "pushed")
            elif g.gap_mm > k * g.sigma_mm:
                flick.notes.append(f"{names.get(c.a, c.a)} passed {names.get(c.b, c.b)} {g.gap_mm:.2f} ± {g.sigma_mm:.2f} mm "
                                   f"clear (fitted path, {g.how})")
                continue
            else:
                c2 = Contact(g.t, c.a, c.b, g.gap_mm, "touched")
                doubt.append(c2)
            sigma[c2] = g.sigma_mm
            keep.append(c2)
        contacts = keep
        doubt = [c for c in doubt if c in keep]
        flick.contacts = [{"t": round(c.t, 4), "a": names.get(c.a, c.a), "b": names.get(c.b, c.b), "gap_mm": round(c.gap_mm, 2),
                           "sigma_mm": round(sigma[c], 3), "evidence": c.evidence, "doubtful": c in doubt} for c in contacts]
        return [c for c in contacts if c not in doubt], contacts, tracks, names, t0

    def _last_at_rest(self, tracks: list, fid, rest, t_left: float) -> float:
        """When the flicked piece (track ``fid``, at rest at ``rest`` mat mm) left rest: ``t_left``
        (the last frame before the motion was seen), or the time of its last sample at rest when a
        sample at or before ``t_left`` is already away from it (its detection dropped in between,
        the motion was seen a frame late: its path from rest starts at that last sample)."""
        tr = next((t for t in tracks if t.id == fid), None) if fid is not None else None
        if tr is None or rest is None:
            return t_left
        ts, xy = tr.trajectory()
        away = np.linalg.norm(xy - np.asarray(rest, float), axis=1) > 4.0 * self._rest_sigma() * np.sqrt(2.0)
        first = np.flatnonzero(away)
        if not len(first) or first[0] == 0 or ts[first[0]] > t_left + 1e-6:
            return t_left
        return float(ts[first[0] - 1])

    def _turned_at_start(self, flick: Flick, fid, known: dict, tracks: list, contacts: list, rest) -> list:
        """Contacts of the flicked piece ``fid`` (at rest at ``rest`` before the flick, mat mm) in its
        first interval from rest, seen only as its
        first straight stretch missing where it rested (:func:`vision.contacts.turned_at_start`): a
        piece it had no other contact with, alone within reach, turned it ("turned at the start");
        of several, each may have (``START_UNSURE``: a person is asked). None found otherwise."""
        if fid is None or fid not in known:
            return []
        tr = next((t for t in tracks if t.id == fid), None)
        if tr is None or rest is None:
            return []
        later = [c.t for c in contacts if fid in (c.a, c.b) and c.t > known[fid] + 1e-9]
        found = turned_at_start(tr, rest, self._rest_sigma(), known[fid], tracks, self.gap_sigma(flick), self.referee.k,
                                t_until=min(later) - 1e-6 if later else None)
        if not found:
            return []
        new = [(b, g) for b, g in found if not any({fid, b} == {c.a, c.b} for c in contacts)]
        t = known[fid]  # (touching when it turned it: gap 0)
        if len(found) == 1 and new:
            return [Contact(t, fid, new[0][0], 0.0, START_SURE)]
        # (several within reach, or one already seen touched there: each other one may have turned it)
        return [Contact(t, fid, b, 0.0, START_UNSURE) for b, _ in new]

    def _pushed(self, flick: Flick, t0: float, a: int, b: int, t: float) -> float:
        """How far resting piece ``b`` moved on away from ``a`` after ``t`` (its rest position after
        against before, along the line from ``a`` at ``t`` to ``b``), in σ of that difference (the
        means of its samples at rest before ``t`` and at the end)."""
        A, B = self.tracker.tracks.get(a), self.tracker.tracks.get(b)
        if A is None or B is None:
            return 0.0
        sigma = self._rest_sigma()
        tb, pb = B.trajectory()
        t_lo = flick.frames[0].t if flick.frames else t0 - 0.5
        pre = _rest_run(tb, pb, t_lo, t - 1.5 / 30, sigma)
        if len(pre) < 2 or len(pb) < 2:
            return 0.0
        # the samples at the end, at rest where it came to rest
        n = 1
        while n < len(pb) and tb[-n - 1] > t + 1.5 / 30 and \
                np.linalg.norm(pb[-n - 1] - np.median(pb[-n:], axis=0)) < 3.0 * sigma * np.sqrt(2.0):
            n += 1
        post = pb[-n:]
        if n < 2 or tb[-n] <= t:
            return 0.0
        u = pre.mean(0) - _interp(A, t)
        u = u / max(float(np.linalg.norm(u)), 1e-9)
        d = float(np.dot(post.mean(0) - pre.mean(0), u))
        return d / (sigma * np.sqrt(1.0 / len(pre) + 1.0 / len(post)))

    def _path_gap(self, flick: Flick, t0: float, a: int, b: int):
        """:func:`vision.contacts.path_gap` of track ``a``'s path (from ``t0``) to track ``b`` at
        rest: ``a`` rested before ``t0`` (the mean of those samples anchors its first stretch), and
        ``b``'s rest position is the mean of its samples before ``t0`` and up to a frame before the
        path came close (None when either has too few samples)."""
        from vision.contacts import path_gap

        A, B = self.tracker.tracks.get(a), self.tracker.tracks.get(b)
        if A is None or B is None:
            return None
        sig = {}
        for f in flick.frames:
            for i, tid in enumerate(f.obs.track_id):
                if int(tid) in (a, b):
                    sig[(int(tid), round(f.t, 6))] = float(f.obs.sigma[i])
        rest_sigma = self._rest_sigma()
        ta, pa = A.trajectory()
        tb, pb = B.trajectory()
        t_lo = flick.frames[0].t if flick.frames else t0 - 0.5
        pre_a = _rest_run(ta, pa, t_lo, t0, rest_sigma)
        mov = ta > t0 + 1e-9
        if len(pre_a) < 2 or mov.sum() < 2:
            return None
        sa = np.array([sig.get((a, round(t, 6)), rest_sigma) for t in ta[mov]])
        # b at rest: before the path came within a frame of it
        b_before = (tb >= t_lo - 1e-9) & (tb <= t0 + 1e-9)
        if not b_before.any():  # b not seen before the motion: no rest to measure from
            return None
        d = np.linalg.norm(pa[mov] - pb[b_before].mean(0), axis=1)
        t_close = float(ta[mov][int(np.argmin(d))])
        pre_b = _rest_run(tb, pb, t_lo, t_close - 1.5 / 30, rest_sigma)
        if len(pre_b) < 2:
            return None
        # after the pass too, when b stayed where it was (3 σ of the difference of the means)
        post_b = pb[tb >= t_close + 1.5 / 30]
        if len(post_b) and np.linalg.norm(post_b.mean(0) - pre_b.mean(0)) < \
                3.0 * rest_sigma * np.sqrt(2.0) * np.sqrt(1.0 / len(pre_b) + 1.0 / len(post_b)):
            pre_b = np.vstack([pre_b, post_b])
        rest = (pre_a.mean(0), rest_sigma / np.sqrt(len(pre_a)), t0)
        others = []
        for tr in self.tracker.tracks.values():
            if tr.id in (a, b) or not tr.t or tr.t[-1] < t0 or tr.retired:
                continue
            others += [(_interp(tr, t0), tr.radius), (_interp(tr, t_close), tr.radius)]  # at rest, and then
        return path_gap(ta[mov], pa[mov], sa, A.radius, pre_b.mean(0), rest_sigma / np.sqrt(len(pre_b)), B.radius,
                        rest=rest, others=others)

    def gap_sigma(self, flick: Flick) -> float:
        """1-σ of the gap between a moving piece's path and a resting piece (mm): the path's
        samples carry the detection σ, the resting piece is averaged over many frames."""
        sig = [float(np.median(f.obs.sigma)) for f in flick.frames if len(f.obs)]
        return float(np.median(sig) if sig else 1.0)

    def _displaced(self, flick: Flick, k: float = 5.0) -> dict:
        """{track id: True} for pieces whose rest position after the flick differs from the one
        before by more than k σ of the difference (each the mean of its samples in those frames that lie
        within k σ√2 of their median)."""
        pre = [f for f in flick.frames if f.t < flick.t_start]
        post = flick.frames[-self.motion.config.settle_frames:]
        out = {}

        def means(frames):
            # the mean of the samples within k σ√2 of their median: the frames before the flick reach
            # back into the action before, and a piece still sliding into place in the first of them
            # had moved its mean by 4 mm (a ball "displaced" where it never stirred, then struck for sure)
            acc = {}
            for f in frames:
                for i, tid in enumerate(f.obs.track_id):
                    acc.setdefault(int(tid), []).append((f.obs.xy[i], f.obs.sigma[i]))
            rested = {}
            for t, v in acc.items():
                p, q = np.array([p for p, _ in v], dtype=float), np.array([q for _, q in v], dtype=float)
                near = np.linalg.norm(p - np.median(p, axis=0), axis=1) <= k * q * np.sqrt(2.0)
                p, q = (p[near], q[near]) if near.any() else (p, q)
                rested[t] = (p.mean(axis=0), float(q.mean()) / np.sqrt(len(p)))
            return rested

        a, b = means(pre), means(post)
        for tid in set(a) & set(b):
            sig = float(np.hypot(a[tid][1], b[tid][1]))
            out[tid] = bool(np.hypot(*(b[tid][0] - a[tid][0])) > k * sig)
        return out

    def _doubt(self, ruling, fact: str, sure, maybe, flick: Flick, question: str, verdicts: tuple = ()):
        """A ruling with ``fact`` pending when the doubtful contacts change it (proposing ``sure``:
        a touch counts only when shown); ``verdicts``: the calls too close behind it, when they are
        not the contacts' (a disc at the mat's edge)."""
        from dataclasses import replace

        from referee.core import make_verdicts
        from referee.pending import PendingFact

        if sure == maybe:
            return ruling
        if not verdicts:
            doubtful = [c for c in flick.contacts if c["doubtful"]]
            worst = min(doubtful, key=lambda c: c["gap_mm"] / max(c["sigma_mm"], 1e-9), default=None)
            gap = worst["gap_mm"] if worst else 0.0
            sigma = worst["sigma_mm"] if worst else self.gap_sigma(flick)
            verdicts = make_verdicts([question], value=gap, threshold=0.0, margin=-gap, sigma=sigma,
                                     k=self.referee.k, frame_ids=(flick.index_start, flick.index_settle),
                                     detail={"doubtful_contacts": doubtful})
        facts = {k: x for k, x in ruling.facts.items() if k != fact}
        pend = PendingFact(GAME, fact, sure, maybe, tuple(verdicts))
        return replace(ruling, facts=facts, pending={**ruling.pending, fact: pend}, verdicts=ruling.verdicts + tuple(verdicts))

    def _engine_ids(self) -> set:
        return set(self.game.state["pieces"])

    def judge(self, flick: Flick, obs: Observation):
        from referee.adapters import dino_dunk as adapt

        exp = dict(flick.expected)
        sure, every, tracks, names, t0 = self._contacts(flick)
        contacts = sure
        first = _first_mover(tracks, t0, self.flick_contact_config(flick))
        flick.mover = names.get(first, "") if first is not None else flick.mover
        if exp["action"] == "infer":
            if not self._infer(flick, exp, contacts, tracks, names, t0, obs):
                return None
            exp = flick.expected
        action, piece, side = exp["action"], exp.get("piece", ""), exp["side"]
        positions = tuple((n, round(x, 1), round(y, 1)) for n, (x, y) in sorted(flick.after.items()))
        zone = self.zone(side)
        if action in ("shoot", "foul_shot"):
            from referee.lines import outside_calls
            from referee.overlap import overlap_calls

            ov = self._one(overlap_calls, obs, "ball", zone)
            if ov is None:
                flick.notes.append("the ball was not seen at the settle")
                return None
            out3 = None
            tp = self.three_point(zone)
            if action == "shoot" and piece and tp is not None:
                out3 = self._one(outside_calls, self._before_obs(flick, [piece]), piece, tp, mode=self.referee.three_point)
            return adapt.shot_ruling(ov, out3 if action == "shoot" else None, self._oob(obs, "ball", flick), self.referee,
                                     positions=positions) if action == "shoot" else _foul_shot(adapt, ov, self._oob(obs, "ball", flick),
                                                                                                self.referee, positions)
        if action == "dunk":
            from referee.overlap import overlap_calls

            ov = self._one(overlap_calls, obs, piece, zone)
            if ov is None:
                flick.notes.append(f"{piece} was not seen at the settle")
                return None
            return adapt.dunk_ruling(ov, self._oob(obs, piece, flick), self.referee,
                                     ball_on_top=self._ball_on_top(flick, obs, piece), positions=positions)
        if action == "pass":
            return self._pass_ruling(flick, obs, piece, sure, every, names, positions)
        return self._move_ruling(flick, obs, piece, sure, every, tracks, names, positions)

    def _move_facts(self, piece: str, contacts, tracks, names) -> tuple:
        """(struck, carrier_struck, touched_ball) from ``contacts``."""
        mover = self._id(piece)
        engine = self._engine_ids()
        disc_ids = {tr.id for tr in tracks if tr.kind.startswith("disc-")}
        direct = [names[c.b] for c in contacts if c.a == mover and c.b in disc_ids] + \
                 [names[c.a] for c in contacts if c.b == mover and c.a in disc_ids]
        struck = tuple(sorted(dict.fromkeys(n for n in direct if n in engine and n != piece)))
        ball = self.track("ball")
        touched_ball = ball is not None and any({c.a, c.b} == {mover, ball.id} for c in contacts)
        carrier = self.game.state["ball"]["carrier"]
        disc_contacts = [c for c in contacts if c.a in disc_ids and c.b in disc_ids]
        reached = [names.get(i, "") for i in _reached(disc_contacts, mover)] if mover is not None else []
        return struck, bool(carrier) and carrier != piece and carrier in reached, touched_ball

    def _move_ruling(self, flick, obs, piece, sure, every, tracks, names, positions):
        from referee.adapters import dino_dunk as adapt
        from referee.lines import outside_calls
        from referee.overlap import overlap_calls

        engine = self._engine_ids()
        struck, carrier_struck, touched_ball = self._move_facts(piece, sure, tracks, names)
        m_struck, m_carrier, m_ball = self._move_facts(piece, every, tracks, names)
        carrier = self.game.state["ball"]["carrier"]
        inside3 = None
        if carrier_struck or m_carrier:
            tp = self.three_point(self.zone(carrier.split(":")[0]))
            if tp is not None:
                from referee.questions import negate

                v = self._one(outside_calls, self._before_obs(flick, [carrier]), carrier, tp, mode=self.referee.three_point)
                inside3 = negate(v, f"{carrier} is inside {tp.name}") if v is not None else None
        zones = self.board.regions_of_kind("scoring-zone")
        over = [self._one(overlap_calls, obs, piece, z) for z in zones]
        over = [v for v in over if v is not None]
        over_v = max(over, key=lambda v: v.margin) if over else None
        knocked, close = [], []  # out; too close to call (a person says)
        L, W = self.board.length_mm, self.board.width_mm
        # a dinosaur removed from the play area for a foul is off the mat by the rules, not knocked out
        off = self.off_table()
        for n in [n for n in flick.before if n in engine and n not in off and n != piece]:
            x, y = flick.after.get(n, (-1e9, -1e9))
            if min(x, y, L - x, W - y) > 60.0:
                continue  # well inside the mat: not out (skip the call)
            v = self._oob(obs, n, flick)
            if getattr(v, "answer", "") == "yes":
                knocked.append(n)
            elif getattr(v, "answer", "") == "too_close":
                close.append(v)
        ruling = adapt.move_ruling(self._oob(obs, piece, flick), over_v, inside3 if (carrier_struck or m_carrier) else None,
                                   self.referee, struck=struck, carrier_struck=carrier_struck or m_carrier,
                                   touched_ball=touched_ball, knocked_out=tuple(sorted(knocked)), positions=positions)
        from dataclasses import replace

        inner = ruling.build

        def build(values):  # the foul's place matters only when the carrier was struck
            return inner({**values, "carrier_inside_three": bool(values["carrier_inside_three"] and values["carrier_struck"])})

        ruling = replace(ruling, build=build)
        ruling = self._doubt(ruling, "struck", struck, m_struck, flick, f"{piece} touched {', '.join(set(m_struck) - set(struck))}")
        ruling = self._doubt(ruling, "carrier_struck", carrier_struck, m_carrier, flick, f"{piece} struck the carrier {carrier}")
        ruling = self._doubt(ruling, "touched_ball", touched_ball, m_ball, flick, f"{piece} touched the ball")
        # a disc whose edge lies within the noise of the mat's edge: out or not is a person's call
        # (knocked out only when shown: the proposal leaves it on the mat)
        return self._doubt(ruling, "knocked_out", tuple(sorted(knocked)),
                           tuple(sorted(knocked + [v.detail["piece"] for v in close])), flick, "", verdicts=tuple(close))

    def _pass_ruling(self, flick, obs, carrier, sure, every, names, positions):
        from referee.pending import Ruling

        engine = self._engine_ids()
        ball = self.track("ball")

        def first(contacts):
            for c in contacts:
                if ball is not None and ball.id in (c.a, c.b):
                    other = names.get(c.b if c.a == ball.id else c.a, "")
                    if other in engine and other != carrier:
                        return other
            return ""

        caught, maybe = first(sure), first(every)
        if maybe == caught and ball is not None:
            # a disc that came to rest elsewhere with nothing seen to touch it (it may have struck
            # others since): the ball may have struck it and bounced back within a frame (the
            # nearest to where the ball left from), before any touch seen (a bounce off it put on
            # a disc the ball's way in ran on to)
            moved = self._displaced(flick)
            seen = {c.b for c in every}
            start = flick.before.get("ball")
            cands = [(float(np.hypot(*(np.asarray(flick.before[n]) - start))) if start is not None else 0.0, n)
                     for t, m in moved.items() if m and t != ball.id and t not in seen
                     for n in [names.get(t, "")] if n in engine and n != carrier and n in flick.before]
            if cands:
                maybe = min(cands)[1]
                flick.notes.append(f"{maybe} came to rest elsewhere with no touch seen: the ball may have struck it")
        facts, pending = {"caught_by": caught, "automatic": False, "positions": positions}, {}
        oob = self._oob(obs, "ball", flick)
        verdicts = ()
        if oob is not None:
            from referee.pending import fact_from_verdict

            fact_from_verdict(GAME, "out_of_bounds", oob, self.referee.default_for(GAME, "out_of_bounds"), facts, pending)
            verdicts = (oob,)
        else:
            facts["out_of_bounds"] = False

        def build(values):
            from rules.dino_dunk.actions import PassResult

            return PassResult(caught_by=values["caught_by"], out_of_bounds=bool(values["out_of_bounds"]) and not values["caught_by"],
                              automatic=False, positions=values["positions"])

        ruling = Ruling(GAME, "PassResult", facts, pending, verdicts, build)
        return self._doubt(ruling, "caught_by", caught, maybe, flick, f"the ball first touched {maybe or 'no dinosaur'}")

    def _id(self, name: str):
        tr = self.track(name)
        return tr.id if tr is not None else None

    def _ball_on_top(self, flick: Flick, obs: Observation, carrier: str) -> bool:
        """The ball stands above the disc (its top higher than the disc's by most of the ball's own
        height) and within its footprint at the settle, and was never seen down on the mat."""
        b, c = self._index(obs, "ball"), self._index(obs, carrier)
        if b is None or c is None:
            return False
        ball_h = self.specs.piece(GAME, "ball").height
        disc_top = float(obs.height[c])
        on = obs.height[b] > disc_top + 0.5 * ball_h and np.hypot(*(obs.xy[b] - obs.xy[c])) <= obs.radius[c] + 3 * obs.sigma[b]
        ball = self.track("ball")
        if ball is not None and on:
            for f in flick.frames:
                if f.t < flick.t_start:
                    continue
                k = np.flatnonzero(f.obs.track_id == ball.id)
                if len(k) and f.obs.height[k[0]] < disc_top - 0.25 * ball_h:
                    return False
        return bool(on)

    def _infer(self, flick, exp, contacts, tracks, names, t0, obs) -> bool:
        """No action was declared: push the Activate the first mover implies (see module doc)."""
        from rules.dino_dunk import Activate

        mover = flick.mover
        carrier = self.game.state["ball"]["carrier"]
        if not mover or mover not in flick.before or mover not in flick.after or \
                np.hypot(*np.subtract(flick.after[mover], flick.before[mover])) < self.min_flick_mm:
            flick.notes.append("could not tell which piece was flicked; declare the action")
            return False
        if mover == "ball":
            side = carrier.split(":")[0] if carrier else exp["side"]
            ball = self.track("ball")
            discs = [tr for tr in tracks if tr.kind.startswith("disc-") and tr.name != carrier]
            hits = touched(ball, discs, t0, self.contact_config, deflections=True) if ball is not None else []
            first = names.get(hits[0].b, "") if hits else ""
            action = "pass" if first.split(":")[0] == side else "shoot"
            piece = carrier or ""
        else:
            piece = mover
            action = "dunk" if mover == carrier and self._ball_on_top(flick, obs, mover) else "move"
        try:
            self.act(Activate(piece, action))
        except ValueError as exc:
            flick.notes.append(f"inferred {action} by {piece} is not legal now: {exc}")
            return False
        flick.notes.append(f"inferred: {piece} {action} (first mover {mover})")
        pend = self.game.pending()
        if pend["kind"] != "fact":
            self.game.pop()
            flick.notes.append(f"the engine waits for {pend['kind']} after the inferred activation; declare the action")
            return False
        flick.expected = {"action": pend["action"], "piece": pend["piece"] or "", "side": pend["side"], "inferred": True}
        return True


def _reached(contacts, origin, dt: float = 1 / 30) -> list:
    """Every piece set moving by ``origin``, directly or through others: a contact passes the motion
    on from a piece already reached to the other one, whichever the measurement called the striker
    (in a tight chain the pieces start within a frame and the direction is a guess), if it came no
    more than a frame before that piece was reached. Order of reaching."""
    reach = {origin: -np.inf}
    changed = True
    while changed:
        changed = False
        for c in sorted(contacts, key=lambda c: c.t):
            for x, y in ((c.a, c.b), (c.b, c.a)):
                if x in reach and y not in reach and c.t >= reach[x] - dt:
                    reach[y] = c.t
                    changed = True
    return [k for k, _ in sorted(reach.items(), key=lambda kv: kv[1]) if k != origin]


def _rest_run(ts, xy, t_lo: float, t_hi: float, sigma: float, k: float = 4.0) -> np.ndarray:
    """The samples (n, 2) of the rest that ends at ``t_hi``: going back from there (not before
    ``t_lo``) while they stay within ``k`` σ√2 of the median of the last three (a piece placed or
    moved earlier rested elsewhere then)."""
    idx = np.flatnonzero((ts >= t_lo - 1e-9) & (ts <= t_hi + 1e-9))
    if not len(idx):
        return np.zeros((0, 2))
    ref = np.median(xy[idx[-3:]], axis=0)
    ok = np.linalg.norm(xy[idx] - ref, axis=1) < k * sigma * np.sqrt(2.0)
    n = 0
    while n < len(idx) and ok[len(idx) - 1 - n]:
        n += 1
    return xy[idx[len(idx) - n:]]


def _left_rest(track, t0: float, sigma: float, k: float = 4.0):
    """When ``track`` left its rest position at ``t0``: half-way between the last sample at rest and
    the first away from it, the earlier of two readings: the first of two samples in a row more than
    ``k`` σ√2 from the first one (a piece that slid off), and the split where a step from one rest to
    another fits the samples best, when that step is more than ``k`` σ of the difference of the two
    means (a large disc struck hard moves a few mm, and a sample beyond k σ√2 of a noisy first one may
    come any time after). None when it never left."""
    ts, xy = track.trajectory()
    keep = ts >= t0 - 1e-9
    ts, xy = ts[keep], xy[keep]
    if len(ts) < 2:
        return None
    out = []
    beyond = np.linalg.norm(xy - xy[0], axis=1) > k * sigma * np.sqrt(2.0)
    far = np.flatnonzero(beyond[:-1] & beyond[1:])  # and stayed away: one sample that far may be noise
    if len(far) and far[0] > 0:
        out.append(float(0.5 * (ts[far[0] - 1] + ts[far[0]])))
    # the step: every split of the samples into a rest before and one after, by the squared
    # residuals about each part's mean
    n = len(xy)
    c1 = np.cumsum(xy, axis=0)
    c2 = np.cumsum((xy ** 2).sum(1))
    m = np.arange(1, n)
    mean_b, mean_a = c1[m - 1] / m[:, None], (c1[-1] - c1[m - 1]) / (n - m)[:, None]
    cost = (c2[m - 1] - m * (mean_b ** 2).sum(1)) + (c2[-1] - c2[m - 1] - (n - m) * (mean_a ** 2).sum(1))
    j = int(np.argmin(cost))
    if float(np.linalg.norm(mean_a[j] - mean_b[j])) > k * sigma * np.sqrt(1.0 / m[j] + 1.0 / (n - m[j])):
        out.append(float(0.5 * (ts[m[j] - 1] + ts[m[j]])))
    return min(out) if out else None


def _foul_shot(adapt, overlaps, oob, config, positions):
    return adapt.shot_ruling(overlaps, None, oob, config, positions=positions)


def _first_mover(tracks, t0, cfg):
    """The track that started to move first after ``t0`` (None when nothing did)."""
    from vision.contacts import _start_of_motion

    starts = []
    for tr in tracks:
        s = _start_of_motion(tr, cfg, t0)
        if s is not None:
            starts.append((s[0], tr.id))
    return min(starts)[1] if starts else None
