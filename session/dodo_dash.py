"""The Dodo Dash session (``rules.dodo_dash``): throws and their hits, racer positions, the dice.

- **Throws.** When the engine waits for ``hits`` (``game.pending["kind"] == "hits"``), the next
  motion is the projectile's flight. At the settle the projectile's path is followed from the moment
  its base came below a racer's top (a token flying higher passes over) to its rest, and each racer
  gets a verdict "was it touched": the smallest edge gap between the projectile's path (straight
  between samples) and the racer, margin = −gap, σ that of the path's samples (a token in the air is
  seen less sharply than one sliding on the mat); a bounce off a racer (:func:`vision.contacts.deflected_by`)
  is a touch. Racers in the order first touched; the engine keeps only the first for the Feather and
  the Dodo. too_close touches wait for a person (``dodo-dash.hit`` default: not hit).
- **Positions.** After every settle each named racer's hex is read (:func:`referee.hexes.hex_calls`)
  and compared with the engine's; a mismatch is an event proposing a ``Correct`` (a judge's action).
- **Dice, traps, drifts.** The players enter the dice (``act(Roll(value))`` with ``dice="table"``);
  traps and drifts follow in the engine from the rolls.
"""

from __future__ import annotations

import numpy as np

from session.core import Flick, Session
from vision.contacts import ContactConfig, closest_approach, deflected_by, kinked_by
from vision.core import Observation

GAME = "dodo-dash"
PROJECTILES = ("meteorite", "log", "egg", "feather", "banana", "dodo")
FIRST_ONLY = ("feather", "dodo")


class DodoDashSession(Session):
    GAME = GAME

    def new_game(self, **setup):
        from rules import dodo_dash

        setup.setdefault("dice", "table")
        return dodo_dash.new_game(**setup)

    def expecting(self) -> dict | None:
        p = self.game.pending
        if p and p.get("kind") == "hits":
            return {"action": "throw", "projectile": p.get("projectile", ""), "by": p.get("by", "")}
        return None

    # -- throws ------------------------------------------------------------------------------------
    def judge(self, flick: Flick, obs: Observation):
        from referee.adapters.dodo_dash import hits_ruling

        proj = self.projectile_track(flick)
        if proj is None:
            flick.notes.append("no projectile was seen moving")
            return None
        flick.mover = proj.name or proj.kind
        racers = [tr for tr in self.flick_tracks(flick, self.t0(flick)) if tr.kind == "racer" and tr.name]
        verdicts, order = self.hit_verdicts(flick, proj, racers)
        flick.contacts = [{"racer": v.detail["racer"], "gap_mm": round(-v.margin, 2), "answer": v.answer,
                           "evidence": v.detail["evidence"], "t": v.detail.get("t")} for v in verdicts]
        return hits_ruling(verdicts, [v.detail["racer"] for v in verdicts], self.referee, order=order)

    def projectile_track(self, flick: Flick):
        """The projectile: the track of a projectile kind that moved most during the flick."""
        kind = flick.expected.get("projectile", "")
        best, best_d = None, 0.0
        for tr in self.flick_tracks(flick, self.t0(flick)):
            if tr.kind not in PROJECTILES or (kind and tr.kind != kind):
                continue
            _, xy = tr.trajectory()
            d = float(np.ptp(xy, axis=0).max()) if len(xy) > 1 else 0.0
            if best is None or d > best_d:
                best, best_d = tr, d
        return best

    def _heights(self, flick: Flick, track_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(t, base height above the mat mm, σ mm) of a track's samples in the flick."""
        ts, zs, ss = [], [], []
        for f in flick.frames:
            k = np.flatnonzero(f.obs.track_id == track_id)
            if len(k):
                ts.append(f.t)
                zs.append(float(f.obs.height[k[0]]))
                ss.append(float(f.obs.sigma[k[0]]))
        return np.array(ts), np.array(zs), np.array(ss)

    def hit_verdicts(self, flick: Flick, proj, racers, sub: int = 8) -> tuple[list, list]:
        """(one Verdict per racer "was it touched", racer names in the order first touched).

        Along the projectile's path (straight between samples, ``sub`` steps per interval; a box
        token turning with it) a racer is touched when (a) their footprints start to overlap while
        the token's base is below the racer's top (a token that comes over the racer higher passes
        over it), (b) the token lands overlapping it, or (c) the token bounces off it
        (:func:`vision.contacts.deflected_by`) below its top. The margin is the overlap depth (the
        gap's opposite) at the touch, or the closest the token came while low enough to touch."""
        from referee.core import make_verdicts

        spec_h = self.specs.piece(GAME, proj.kind).height
        racer_h = self.specs.piece(GAME, "racer").height
        path = self._path(flick, proj.id)
        if path is None:
            return [], []
        t, xy, z, sig, ang, size = path
        k = self.referee.k
        cfg = self.flick_contact_config(flick)
        bounced = {c.b: c for c in deflected_by(proj, racers, t[0], ContactConfig(
            touch_mm=max(3.0, k * self._rest_sigma()), rest_mm=cfg.rest_mm, start_mm_s=cfg.start_mm_s))}
        for c in kinked_by(proj, racers, t[0], float(np.median(sig))):
            if c.b not in bounced or c.t < bounced[c.b].t:
                bounced[c.b] = c
        # a landing kills speed too: a kink within a sample of the landing, or above the racers, is no bounce
        z_base = z - spec_h
        on = np.flatnonzero(z_base <= max(2.0, 2 * self._rest_sigma()))
        t_land = float(t[on[0]]) if len(on) else None
        dt = float(np.median(np.diff(t))) if len(t) > 1 else 1 / 30
        bounced = {rid: c for rid, c in bounced.items()
                   if not (t_land is not None and t[0] < t_land and abs(c.t - t_land) <= 1.5 * dt)
                   and np.interp(c.t, t, z_base) < racer_h}
        # a sample missing (a dropped detection) hides what happened in between: there the path is
        # only known to within the distance covered
        dt_all = np.diff(t)
        step = float(np.median(dt_all)) if len(dt_all) else 1 / 30
        sig = sig.astype(float).copy()
        moving = np.flatnonzero(np.hypot(*np.diff(xy, axis=0).T) > 4 * np.maximum(sig[:-1], sig[1:]))
        if len(moving) and z[int(moving[0])] - spec_h <= max(2.0, 2 * self._rest_sigma()):
            # flicked along the mat: the flick itself (and any racer right beside the token) is hidden
            # in the first moving interval. A token thrown from the hand starts in the air, clear.
            j = int(moving[0])
            blur = float(np.hypot(*(xy[j + 1] - xy[j]))) / 2.0
            sig[j + 1] = max(sig[j + 1], blur)
        for j in np.flatnonzero(dt_all > 1.5 * step):
            blur = float(np.hypot(*(xy[j + 1] - xy[j]))) / 2.0 + 2.0 * step * 300.0 * (dt_all[j] / step - 1)
            sig[j] = max(sig[j], blur)
            sig[j + 1] = max(sig[j + 1], blur)
        # sub-sampled path
        f = np.linspace(0.0, 1.0, sub, endpoint=False)
        T = np.concatenate([t[j] + f * (t[j + 1] - t[j]) for j in range(len(t) - 1)] + [t[-1:]])
        P = np.column_stack([np.interp(T, t, xy[:, 0]), np.interp(T, t, xy[:, 1])])
        Z = np.interp(T, t, z) - spec_h
        S = np.interp(T, t, sig)
        A = np.interp(T, t, np.unwrap(np.radians(ang)))
        landed = np.flatnonzero(Z <= max(2.0, 2 * self._rest_sigma()))
        i_land = int(landed[0]) if len(landed) else len(T) - 1
        z_sigma = float(getattr(getattr(self.detector, "config", None), "height_sigma_mm", 1.0))
        rows = []
        for r in racers:
            q = np.column_stack([np.interp(T, *_txy(r, 0)), np.interp(T, *_txy(r, 1))])
            gap = _gap(P, A, size, proj.radius, q, r.radius)
            low = Z < racer_h
            over = gap <= 0
            # candidates (margin mm > 0: touched, σ mm, time, evidence); the one furthest from its noise decides
            cands = []
            free = np.ones(len(T), dtype=bool)  # samples not inside an overlap that began above the racer
            onsets = np.flatnonzero(over & ~np.concatenate([[False], over[:-1]]))
            for i in onsets:
                end = i + int(np.argmax(~over[i:])) if (~over[i:]).any() else len(over)
                depth = float(-gap[i:end].min())
                if i <= i_land < end:
                    cands.append((depth, float(S[i_land]), float(T[i_land]), "landed on"))
                elif low[i]:
                    cands.append((min(depth, racer_h - float(Z[i])), float(S[i]), float(T[i]), "overlap"))
                else:
                    free[i:end] = False
                    cands.append((racer_h - float(Z[i]), z_sigma, float(T[i]), "passed over"))
            if r.id in bounced and np.interp(bounced[r.id].t, T, Z) < racer_h:
                tb = bounced[r.id].t
                sb = float(np.hypot(np.interp(tb, T, S), self._rest_sigma()))
                if bounced[r.id].evidence == "kinked-ambiguous":  # it bounced off this racer or another
                    cands.append((0.0, sb, tb, "bounce, which racer unsure"))
                else:
                    cands.append((1.5 * k * sb, sb, tb, "bounce"))  # categorical: a kink or turn at the racer
            g = np.where(low & free, gap, np.inf)
            j = int(np.argmin(g))
            if np.isfinite(g[j]) and g[j] > 0:
                cands.append((-float(g[j]), float(S[j]), None, "path"))
            if not cands:
                cands.append((-1e3, float(S[-1]), None, "path"))
            best = max(cands, key=lambda c: c[0] / max(c[1], 1e-6))
            rows.append((r.name, best[0], best[2] if best[0] > 0 else best[2], best[1], best[3]))
        if not rows:
            return [], []
        names = [n for n, *_ in rows]
        margins = np.array([m for _, m, *_ in rows])
        sigmas = np.array([np.hypot(s, self._rest_sigma()) for *_, s, _ in rows])
        verdicts = make_verdicts([f"{flick.mover} touched {n}" for n in names], value=-margins, threshold=0.0, margin=margins,
                                 sigma=sigmas, k=k, frame_ids=(flick.index_start, flick.index_settle),
                                 detail=[{"racer": n, "t": tt, "evidence": e} for n, _, tt, _, e in rows])
        touched = sorted((v for v in verdicts if v.answer != "no"), key=lambda v: v.detail["t"] if v.detail["t"] is not None else 1e9)
        return verdicts, [v.detail["racer"] for v in touched]

    def _path(self, flick: Flick, track_id: int):
        """The projectile's samples in the flick: (t, (m, 2) mat mm, top height mm, σ mm, angle deg,
        (length, width) mm or None for a round token)."""
        rows = []
        for fr in flick.frames:
            k = np.flatnonzero(fr.obs.track_id == track_id)
            if len(k):
                i = k[0]
                rows.append((fr.t, fr.obs.xy[i], fr.obs.height[i], fr.obs.sigma[i], fr.obs.angle[i], fr.obs.size[i]))
        if len(rows) < 2:
            return None
        size = rows[-1][5]
        t, xy, top = np.array([r[0] for r in rows]), np.array([r[1] for r in rows]), np.array([r[2] for r in rows])
        sig = np.array([r[3] for r in rows], dtype=float)
        spec_h = self.specs.piece(GAME, self.tracker.tracks[track_id].kind).height if track_id in self.tracker.tracks else 0.0
        xy, sig = self._smooth_flight(t, xy, top - spec_h, sig)
        return t, xy, top, sig, np.array([r[4] for r in rows]), tuple(size) if size[0] > 0 else None

    smooth_half = 2  # samples each side of a flight sample in its straight-line fit

    def _smooth_flight(self, t, xy, z, sig):
        """In the air a token's path is smooth (no friction; a Feather curves slowly), so each airborne
        sample is replaced by a straight-line fit over its airborne neighbours (``smooth_half`` each
        side): σ falls by about √(2·smooth_half+1). Samples on the mat, and the two either side of the
        landing, are kept as seen. Bounces are found on the raw track."""
        air = z > max(2.0, 2 * self._rest_sigma())
        out, s_out = xy.copy(), sig.copy()
        h = self.smooth_half
        for j in np.flatnonzero(air):
            lo, hi = max(j - h, 0), min(j + h + 1, len(t))
            idx = [i for i in range(lo, hi) if air[i]]
            if len(idx) < 3:
                continue
            tt = t[idx] - t[j]
            A = np.column_stack([np.ones(len(idx)), tt])
            coef, *_ = np.linalg.lstsq(A, xy[idx], rcond=None)
            out[j] = coef[0]
            # variance of the fitted value at tt = 0 for independent samples of σ
            cov = np.linalg.inv(A.T @ A)
            s_out[j] = float(np.sqrt(cov[0, 0]) * np.max(sig[idx]))
        return out, s_out

    def _rest_sigma(self) -> float:
        cfg = getattr(self.detector, "config", None)
        return float(getattr(cfg, "sigma_mm", 1.0))

    # -- positions -----------------------------------------------------------------------------------
    def racer_hexes(self, obs: Observation) -> dict:
        """{racer name: Verdict of its hex} for the named racers in ``obs`` (mat mm)."""
        from referee.core import piece_sigma
        from referee.hexes import hex_calls

        names = obs.attribute("name")
        idx = [i for i in range(len(obs)) if obs.kind[i] == "racer" and names[i]]
        if not idx or not self.board.tracks:
            return {}
        track = self._track()
        sig = piece_sigma(self.transform, obs.xy[idx], obs.sigma[idx], self.referee.registration_sigma_floor_mm)
        calls = hex_calls(obs.xy[idx], sig, track, k=self.referee.k, names=[str(names[i]) for i in idx],
                          frame_ids=(int(obs.frame_index),))
        return {str(names[i]): v for i, v in zip(idx, calls)}

    def _track(self):
        name = getattr(self.game, "track", None)
        name = getattr(name, "name", None)
        tracks = self.board.tracks
        return tracks.get(name) if name in tracks else next(iter(tracks.values()))

    def on_settled(self, obs: Observation) -> None:
        hexes = self.racer_hexes(obs)
        if not hexes:
            return
        engine = {}
        try:
            engine = {rid: p["hex"] for rid, p in self.game.positions().items()}
        except Exception:  # a game without positions (a stub in a benchmark)
            pass
        seen = {n: v.finding for n, v in hexes.items()}
        mismatch = {n: {"camera": f, "engine": engine[n]} for n, f in seen.items()
                    if n in engine and f.split(":")[-1] != str(engine[n]) and hexes[n].answer == "yes"}
        self._emit({"kind": "positions", "racers": seen, "mismatch": mismatch,
                    "too_close": [n for n, v in hexes.items() if v.answer == "too_close"]})


def _txy(track, axis: int):
    ts, xy = track.trajectory()
    return ts, xy[:, axis]


def _gap(P, A, size, radius, q, r) -> np.ndarray:
    """(n,) edge gap (mm) between the token at (n, 2) P (a disc of ``radius``, or a box ``size``
    turned by (n,) A radians) and discs of radius ``r`` at (n, 2) q."""
    if size is None:
        return np.hypot(*(P - q).T) - radius - r
    d = q - P
    c, s = np.cos(A), np.sin(A)
    u, v = c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1]
    hx, hy = size[0] / 2, size[1] / 2
    ex, ey = np.maximum(np.abs(u) - hx, 0.0), np.maximum(np.abs(v) - hy, 0.0)
    outside = np.hypot(ex, ey)
    inside = np.minimum(hx - np.abs(u), hy - np.abs(v))
    return np.where(outside > 0, outside, -inside) - r


def _at(track, t: float) -> np.ndarray:
    ts, xy = track.trajectory()
    if t <= ts[0]:
        return xy[0]
    if t >= ts[-1]:
        return xy[-1]
    return np.array([np.interp(t, ts, xy[:, 0]), np.interp(t, ts, xy[:, 1])])
