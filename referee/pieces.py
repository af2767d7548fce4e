"""Naming pieces of an Observation and gathering what the calls take: (n, 2) mat-mm centres, radii,
and each piece's combined σ (registration at its position and detection, in quadrature).

A piece is named, in this order of preference, by its ``name`` attribute ("home:triceratops"), by
``#i`` (its index), by ``kind`` when exactly one piece has it ("ball"), or by ``kind#j`` (the j-th
piece of that kind, 0-based: "disc-medium#2").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.core import RefereeError, piece_sigma


@dataclass(frozen=True)
class Pieces:
    """Arrays for the calls, all (n, …) and aligned with the Observation."""

    xy: np.ndarray
    radius: np.ndarray
    sigma: np.ndarray
    names: tuple
    kinds: tuple
    teams: tuple
    frame_ids: tuple
    detection_sigma: np.ndarray | None = None
    transform: object = None
    floor_mm: float = 0.0

    def __len__(self) -> int:
        return len(self.xy)

    def pair_sigma(self, ia, ib) -> np.ndarray:
        """(n,) σ of a margin between pieces ``ia[i]`` and ``ib[i]`` (index arrays): the shared
        registration error cancels (:func:`referee.core.pair_sigma`); when the detection σ is not
        known apart from the registration's, the two full σ in quadrature."""
        from referee.core import pair_sigma, quadrature

        ia, ib = np.atleast_1d(ia), np.atleast_1d(ib)
        if self.detection_sigma is None:
            return quadrature(self.sigma[ia], self.sigma[ib])
        return pair_sigma(self.transform, self.xy[ia], self.detection_sigma[ia], self.xy[ib],
                          self.detection_sigma[ib], self.floor_mm)


def piece_names(obs) -> list[str]:
    """A display name per piece: its ``name`` attribute, else its kind when it is the only one of
    its kind, else ``kind#j``."""
    names = obs.attribute("name")
    kinds = [str(k) for k in obs.kind]
    total = {k: kinds.count(k) for k in set(kinds)}
    count: dict = {}
    out = []
    for i, kind in enumerate(kinds):
        j = count.get(kind, 0)
        count[kind] = j + 1
        out.append(str(names[i]) if names[i] else (kind if total[kind] == 1 else f"{kind}#{j}"))
    return out


def gather(obs, transform=None, floor_mm: float = 0.0, sigma_includes_registration: bool = False) -> Pieces:
    """The Observation's pieces as call inputs; σ combines the registration σ at each piece
    (:func:`referee.core.registration_sigma`) and ``obs.sigma`` in quadrature (``floor_mm`` is the
    least registration σ assumed), or, when ``sigma_includes_registration``, takes the larger."""
    if sigma_includes_registration:
        from referee.core import registration_sigma

        sigma = np.maximum(obs.sigma, registration_sigma(transform, obs.xy, floor_mm))
        detection = None
    else:
        sigma = piece_sigma(transform, obs.xy, obs.sigma, floor_mm)
        detection = obs.sigma.copy()
    return Pieces(xy=obs.xy.copy(), radius=obs.radius.copy(), sigma=sigma, detection_sigma=detection,
                  transform=transform, floor_mm=floor_mm,
                  names=tuple(piece_names(obs)), kinds=tuple(str(k) for k in obs.kind),
                  teams=tuple(str(t) for t in obs.attribute("team")),
                  frame_ids=(int(obs.frame_index),) if obs.frame_index >= 0 else ())


def find(obs, ref: str) -> int:
    """The index of the piece named ``ref`` (see module docstring); RefereeError when none or
    several match."""
    ref = ref.strip()
    names = obs.attribute("name")
    hits = [i for i in range(len(obs)) if names[i] and str(names[i]) == ref]
    if len(hits) == 1:
        return hits[0]
    if ref.startswith("#") and ref[1:].isdigit():
        i = int(ref[1:])
        if i < len(obs):
            return i
        raise RefereeError(f"no piece {ref}: the observation has {len(obs)} pieces")
    kind, _, j = ref.partition("#")
    of_kind = [i for i in range(len(obs)) if str(obs.kind[i]) == kind]
    if j:
        if j.isdigit() and int(j) < len(of_kind):
            return of_kind[int(j)]
        raise RefereeError(f"no piece {ref!r}: {len(of_kind)} piece(s) of kind {kind!r}")
    if len(of_kind) == 1:
        return of_kind[0]
    known = ", ".join(piece_names(obs)) or "none"
    if len(of_kind) > 1:
        raise RefereeError(f"{ref!r} is ambiguous: {len(of_kind)} pieces of that kind; name one as {kind}#0..{kind}#{len(of_kind) - 1} (pieces: {known})")
    raise RefereeError(f"no piece {ref!r} in the observation (pieces: {known})")
