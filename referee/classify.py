"""Classifier calls: an egg's colour and face (Morris), a seat's revealed card (Dogo Dash).

The measurement is the classifier's confidence (0..1) instead of a distance: ``value`` is the
confidence, ``threshold`` the configured minimum (``RefereeConfig.min_confidence``), ``margin =
confidence − threshold`` and σ = 0, so a label below the threshold is ``too_close`` (a person reads
it) and one at or above it stands (``yes``, with the label as the ``finding``). There is no "no": a
classifier call confirms a label or asks.

Where the confidence comes from: ``Observation.attributes[f"{name}_confidence"]`` when vision gives a
per-attribute confidence, else the detection's ``Observation.confidence``.
"""

from __future__ import annotations

import numpy as np

from referee.core import Circle, Label, RefereeError, Verdict, make_verdicts


def label_calls(labels, confidences, min_confidence: float, *, what: str, names=None, xy=None, radius=None,
                frame_ids=()) -> list[Verdict]:
    """n calls "what is piece i's ``what``?": ``labels`` (n,) strings ("" = unknown, always too
    close), ``confidences`` (n,) in 0..1. yes when confidence ≥ ``min_confidence``."""
    labels = [str(x) for x in np.asarray(labels, dtype=object).reshape(-1)]
    conf = np.asarray(confidences, dtype=np.float64).reshape(-1)
    if len(conf) != len(labels):
        raise RefereeError(f"{len(labels)} labels but {len(conf)} confidences")
    if np.any((conf < 0) | (conf > 1)):
        raise RefereeError("a classifier confidence must be in 0..1")
    names = list(names) if names is not None else [f"piece {i}" for i in range(len(labels))]
    # >= threshold stands: shift by a hair so that margin 0 (exactly the threshold) is a yes
    margin = conf - min_confidence
    margin = np.where(margin >= 0, np.maximum(margin, 1e-12), margin)
    margin = np.where(np.array([lb == "" for lb in labels], dtype=bool), -1.0, margin) if labels else margin
    evidence = []
    for i, lb in enumerate(labels):
        if xy is not None:
            c = np.asarray(xy, dtype=np.float64).reshape(-1, 2)[i]
            r = float(np.broadcast_to(np.asarray(radius if radius is not None else 10.0, dtype=np.float64), (len(labels),))[i])
            evidence.append((Circle(float(c[0]), float(c[1]), r, label=names[i]),
                             Label(float(c[0]), float(c[1]) - r - 4, f"{what}: {lb or '?'} ({conf[i]:.2f})")))
        else:
            evidence.append(())
    verdicts = make_verdicts([f"{what} of {n}" for n in names], value=conf, threshold=min_confidence, margin=margin,
                             sigma=0.0, k=1.0, unit="confidence", finding=labels, evidence=evidence,
                             frame_ids=frame_ids,
                             detail=[{"piece": n, "label": lb, "attribute": what} for n, lb in zip(names, labels)])
    # a label below the threshold is too_close (never a "no")
    return [v if v.answer == "yes" else _too_close(v) for v in verdicts]


def _too_close(v: Verdict) -> Verdict:
    from dataclasses import replace

    return replace(v, answer="too_close")


def attribute_confidence(obs, name: str) -> np.ndarray:
    """(n,) the confidence of attribute ``name`` of an Observation (see module docstring)."""
    key = f"{name}_confidence"
    if key in obs.attributes:
        vals = obs.attributes[key]
        try:
            return np.array([float(v) if v not in ("", None) else 0.0 for v in vals], dtype=np.float64)
        except (TypeError, ValueError):
            raise RefereeError(f"attribute {key!r} must hold numbers 0..1") from None
    return np.asarray(obs.confidence, dtype=np.float64)


def egg_calls(obs, min_confidence: float, *, kind: str = "egg", frame_ids=()) -> list[Verdict]:
    """Colour and face calls for every piece of ``kind`` in an Observation: two verdicts per egg,
    colour then face, findings like "red" and "broken"."""
    sel = np.flatnonzero(np.asarray(obs.kind == kind))
    out = []
    names = [f"{kind} {i}" for i in sel]
    for attr in ("colour", "face"):
        out.append(label_calls(obs.attribute(attr)[sel], attribute_confidence(obs, attr)[sel], min_confidence,
                               what=attr, names=names, xy=obs.xy[sel], radius=obs.radius[sel],
                               frame_ids=frame_ids or (obs.frame_index,)))
    return [v for pair in zip(*out) for v in pair]


def seat_card_calls(obs, board, players: int, min_confidence: float, *, kind: str = "card", frame_ids=()) -> list[Verdict]:
    """One call per seat of a ``players``-player Dogo Dash table: the card revealed in the seat's
    region (the card piece whose centre lies in it; several or none is too_close with finding "")."""
    import shapely

    if players not in board.seats:
        raise RefereeError(f"{board.ref} has seats for {sorted(board.seats)} players, not {players}")
    sel = np.flatnonzero(np.asarray(obs.kind == kind))
    conf = attribute_confidence(obs, "card")
    cards = obs.attribute("card")
    labels, confs, xy, names = [], [], [], []
    for seat in board.seats[players]:
        geom = board.region(seat).geometry
        inside = [i for i in sel if shapely.contains_xy(geom, *obs.xy[i])]
        names.append(seat)
        if len(inside) == 1:
            i = inside[0]
            labels.append(str(cards[i]))
            confs.append(float(conf[i]))
            xy.append(obs.xy[i])
        else:
            labels.append("")
            confs.append(0.0)
            c = geom.centroid
            xy.append([c.x, c.y])
    return label_calls(labels, confs, min_confidence, what="revealed card", names=names, xy=np.array(xy).reshape(-1, 2),
                       radius=20.0, frame_ids=frame_ids or (obs.frame_index,))
