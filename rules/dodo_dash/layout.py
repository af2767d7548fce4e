"""The logical track layout: hexes per lap, traps, drift sections, charms, Treasure Hunt bases.

Positions are *progress* integers counted along the race from the first hex past the finish line
(progress 0); the start hexes are progress -1, -2 and -3. On a looped track the printed hex is
``progress mod hexes`` and a lap is complete at ``progress >= hexes``; on the Connecting-tile path
(``loop: false``) the printed hex is the progress itself, the finish is at ``length`` and a racer
cannot move back more than ``behind`` hexes behind the start line. The defaults live in
``boards.json`` next to this file (documented there); ``new_game(layout=...)`` replaces them.
"""

from __future__ import annotations

import json
import os

from rules.dodo_dash.actions import SetupError

_HERE = os.path.dirname(os.path.abspath(__file__))


class LayoutError(SetupError):
    """A board layout is malformed; the message names the field."""


def default_layouts() -> dict:
    with open(os.path.join(_HERE, "boards.json"), encoding="utf-8") as fh:
        return json.load(fh)


def load_track(board: str, track: str, override: dict | None = None) -> dict:
    """The layout of one track (a plain dict), validated. ``override`` replaces the default."""
    if board not in ("jungle", "temple"):
        raise LayoutError(f"Setup: the board is 'jungle' or 'temple', not {board!r}")
    if track not in ("outer", "inner", "connected"):
        raise LayoutError(f"Setup: the track is 'outer', 'inner' or 'connected', not {track!r}")
    data = dict(override) if override is not None else dict(default_layouts()[board][track])
    data.setdefault("traps", [])
    data.setdefault("drift", [])
    data.setdefault("charms", [])
    data.setdefault("treasure_bases", [])
    data.pop("about", None)
    problems = validate_track(data)
    if problems:
        raise LayoutError(f"layout {board}/{track}: " + "; ".join(problems))
    return data


def validate_track(t: dict) -> list[str]:
    out = []
    loop = t.get("loop", True)
    if loop:
        n = t.get("hexes")
        if not isinstance(n, int) or n < 8:
            out.append("a looped track needs 'hexes', an integer >= 8")
            return out
        lo, hi = 0, n - 1
    else:
        n = t.get("length")
        if not isinstance(n, int) or n < 8:
            out.append("a path track (loop: false) needs 'length', an integer >= 8")
            return out
        if not isinstance(t.get("behind", 10), int) or t.get("behind", 10) < 3:
            out.append("'behind' must be an integer >= 3")
        lo, hi = 0, n - 1
    used = set()
    for key in ("traps", "charms", "treasure_bases"):
        for h in t.get(key, []):
            if not isinstance(h, int) or not lo <= h <= hi:
                out.append(f"{key}: hex {h!r} is not an index in {lo}..{hi}")
    for h in t.get("traps", []) + t.get("charms", []):
        if h in used:
            out.append(f"hex {h} holds two special tiles")
        used.add(h)
    for i, sec in enumerate(t.get("drift", [])):
        s = sec.get("start") if isinstance(sec, dict) else None
        hexes = sec.get("hexes") if isinstance(sec, dict) else None
        if not isinstance(s, int) or not lo <= s <= hi or not isinstance(hexes, list) or not hexes:
            out.append(f"drift[{i}]: needs 'start' (a hex index) and a non-empty 'hexes' list")
            continue
        for j, hx in enumerate(hexes):
            need = hx.get("need") if isinstance(hx, dict) else None
            if not isinstance(need, int) or not 1 <= need <= 6:
                out.append(f"drift[{i}].hexes[{j}]: 'need' is the die result 1..6 to reach it")
            bonus = hx.get("bonus", {}) if isinstance(hx, dict) else {}
            if not isinstance(bonus, dict) or set(bonus) - {"draw", "advance"}:
                out.append(f"drift[{i}].hexes[{j}]: 'bonus' may only hold 'draw' and 'advance'")
    return out


class Track:
    """Read-only helper over a track dict (kept in the game state).

    ``reversed``: the Plesiododo Charm turned the race around ("now they advance in the opposite
    direction of the printed arrows on the track"). Progress still grows as a racer advances and a
    lap is still complete at ``progress >= finish``, but progress q stands on printed hex
    ``size - 1 - q`` (mod ``size`` on a loop): the finish line is crossed going from printed hex 0
    to the last printed hex. See ``progress_of``."""

    def __init__(self, data: dict, reversed: bool = False):
        self.d = data
        self.loop = data.get("loop", True)
        self.size = data["hexes"] if self.loop else data["length"]
        self.finish = self.size
        self.min_progress = None if self.loop else -int(data.get("behind", 10))
        self.reversed = bool(reversed)

    def hex(self, progress: int) -> int:
        """The printed hex index of a progress value."""
        if self.reversed:
            progress = self.size - 1 - progress
        return progress % self.size if self.loop else progress

    def progress_of(self, hex_index: int) -> int:
        """The progress, within one lap (0..size-1 on a loop), that stands on printed hex ``hex_index``
        in the current direction: its inverse of ``hex`` (on a path, exact for indices 0..length-1)."""
        if self.reversed:
            hex_index = self.size - 1 - hex_index
        return hex_index % self.size if self.loop else hex_index

    def clamp(self, progress: int) -> int:
        if self.min_progress is not None and progress < self.min_progress:
            return self.min_progress
        return progress

    def trap_at(self, progress: int) -> int | None:
        h = self.hex(progress)
        return h if h in self.d["traps"] else None

    def zone_of(self, progress: int) -> int | None:
        """The trap hex whose zone holds ``progress``: the last trap hex at or behind it, up to (not
        including) the next trap hex; on a loop the last zone wraps past the finish line."""
        traps = sorted(self.d["traps"])
        if not traps:
            return None
        h = self.hex(progress)
        behind = [t for t in traps if t <= h]
        if behind:
            return behind[-1]
        return traps[-1] if self.loop else None

    def drift_start_between(self, a: int, b: int) -> tuple[int, int] | None:
        """First drift section whose start lies in progress (a, b]: (section index, progress).
        Choice: after a Plesiododo reversal no Drifting sequence is triggered (a sequence runs along the
        printed arrows from its first hex, and is "only triggered when advancing to the first hex of
        the sequence"; racers going the other way reach its last hex first)."""
        if self.reversed:
            return None
        best = None
        for i, sec in enumerate(self.d["drift"]):
            s = sec["start"]
            if self.loop:
                k = (s - a) % self.size
                p = a + (k if k else self.size)
            else:
                p = s
            if a < p <= b and (best is None or p < best[1]):
                best = (i, p)
        return best

    def charms_between(self, a: int, b: int) -> list[int]:
        """Charm hexes reached or passed when advancing from progress a to b, in order."""
        out = []
        for c in self.d["charms"]:
            pc = self.progress_of(c)
            if self.loop:
                k = (pc - a) % self.size
                p = a + (k if k else self.size)
            else:
                p = pc
            if a < p <= b:
                out.append((p, c))
        return [c for _, c in sorted(out)]

    def cyclic_ahead(self, a: int, b: int) -> int:
        """Hexes from progress a forward to progress b on the loop (0..size-1)."""
        return (self.hex(b) - self.hex(a)) % self.size
