"""The classical path's pieces that are not round: Dodo Dash racers and projectile tokens, cards, the
Morris toucan and hunter; and a check of the round pieces it found (a round part of a figure, the
toucan's head, is not an egg).

From what the round path already has (:func:`vision.detect.classical_candidates`): the foreground
mask (the frame's difference against the empty mat, **image px**, hands and the board's fixed
blocks removed), less the silhouettes of the round pieces it kept, falls into connected components;
a component larger than one piece (``split_area_mm2``) is cut at the peaks of its distance
transform (watershed on the frame). Each part is a *proposal*.

A window of fixed size on the mat (``window_mm`` at the mat plane, centred on the proposal; the
piece's size in the image stays a cue) is cut from the frame, resized to the network's input, the
pixels outside the proposal dimmed, and classified by a small CNN (:class:`vision.classify.ConvClassifier`,
``models/blobs/blobs.npz``) into ``CLASSES``: every non-round piece kind of the four games, ``round``
(a round piece: the round path's job) and ``nothing`` (a shadow, a hand's edge, a piece's fragment).
Only the classes of the table's game are allowed (``GAME_CLASSES``).

A proposal's position (mat mm) is the centroid of its pixels carried to the plane at half the
kind's height (for a standing figure the centroid of its silhouette is near its axis half way
up); σ per kind from ``config`` (measured on renders of other seeds than the bench's, see
``models/blobs/README.md``).

Every round piece kept by the round path is cut the same way, centred on it: when the network is
sure (``veto_conf``) that the window shows a figure (``VETO_CLASSES``), the round piece is dropped.

Training data (:func:`render_crops`): simulator scenes of the benchmark suites with another seed
(the detector's, 11), extra pieces on free spots, framed and wide cameras, random styles with
occluders; the proposals and round pieces are found exactly as at run time, each labelled by the
rendered piece under most of its pixels (``RenderResult.labels``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = ROOT / "models" / "blobs" / "blobs.npz"

CLASSES = ("nothing", "round", "racer", "meteorite", "log", "dodo-egg", "feather", "banana", "dodo", "toucan",
           "hunter", "card")
GAME_CLASSES = {
    "dino-dunk": ("nothing", "round", "card"),
    "dodo-dash": ("nothing", "racer", "meteorite", "log", "dodo-egg", "feather", "banana", "dodo", "card"),
    "morris": ("nothing", "round", "toucan", "hunter"),
    "dogo-dash": ("nothing", "card"),
}
VETO_CLASSES = ("racer", "toucan", "hunter")
FIGURE_CLASSES = ("racer", "toucan", "hunter")
SIZE = (40, 40)


@dataclass(frozen=True)
class BlobConfig:
    """Thresholds of the non-round path (``blobs`` in ``vision/config.yaml``)."""

    window_mm: float = 110.0
    dim: float = 0.5
    min_area_mm2: float = 100.0
    join_small_mm: float = 0.0
    split_area_mm2: float = 3000.0
    peak_sep_mm: float = 14.0
    min_peak_mm: float = 4.0
    erase_margin_mm: float = 1.5
    min_conf: float = 0.5
    veto_conf: float = 0.7
    nothing_veto_conf: float = 0.9
    figure_base: bool = True
    figure_split: float = 1.15
    figure_split_extent: float = 0.0
    absorb_share: float = 0.0
    resplit_ratio: float = 0.0
    resplit_carve: bool = False
    regroup_reach: float = 0.0
    regroup_within: float = 0.0
    absorb_margin_mm: float = 2.0
    dark_floor: float = 0.5
    reference_diff: float = 0.0
    reference_ratio: float = 0.85
    reference_open_px: float = 0.0
    texture_low: float = 0.0
    texture_residual: float = 6.0
    texture_window: int = 5
    texture_open: int = 0
    carve_min_mm2: float = 0.0
    carve_conf: float = 0.5
    carve_top: float = 0.6
    carve_peel: float = 0.0
    behind_core: float = 0.0
    behind_margin_mm: float = 10.0
    figure_base_fraction: float = 0.75
    base_fit: bool = False
    base_kinds: tuple = ("racer",)
    base_height_mm: float = 4.0
    base_body_fraction: float = 0.62
    base_blur_px: float = 1.0
    base_first_iterations: int = 4
    base_gate_fraction: float = 0.64
    base_sigma_px: float = 0.6
    base_sigma_mm: float = 1.0
    base_retry_kinds: tuple = ()
    base_far_share: float = 0.0
    base_far_area: float = 1.0
    card_centre: bool = False
    card_stack_ratio: float = 0.0
    card_grow_px: float = 0.0
    card_merge: float = 0.0
    card_whole_share: float = 0.0
    card_whole_most: float = 1.6
    sigma_mm: tuple = (("racer", 2.5), ("figure", 3.5), ("token", 2.0), ("card", 3.0))
    sigma_px: tuple = (("racer", 1.2), ("figure", 1.8), ("token", 1.2), ("card", 2.5))

    @classmethod
    def load(cls, path=None) -> "BlobConfig":
        from vision.detect import CONFIG_PATH, config_section

        data = config_section(path or CONFIG_PATH, "blobs", cls)
        for key in ("sigma_mm", "sigma_px"):
            if key in data:
                data[key] = tuple((str(k), float(v)) for k, v in dict(data[key]).items())
        for key in ("base_kinds", "base_retry_kinds"):
            if key in data:
                data[key] = tuple(str(k) for k in data[key])
        return cls(**data)

    def sigma_of(self, cls_name: str, mm_per_px: float = 0.0) -> float:
        """σ (mm) of the position of a piece of class ``cls_name`` where the image has ``mm_per_px``:
        the kind group's ``sigma_px`` image px, at least its ``sigma_mm``. Groups: ``racer`` (the
        figures' row where a config has none), ``figure`` (the toucan, the hunter), ``card``, ``token``."""
        group = "figure" if cls_name in ("toucan", "hunter") else (cls_name if cls_name in ("racer", "card") else "token")
        px_of, mm_of = dict(self.sigma_px), dict(self.sigma_mm)
        group = group if group in px_of and group in mm_of else "figure"  # (a config without the racer's own row)
        px = float(px_of[group]) * float(mm_per_px) if np.isfinite(mm_per_px) else 0.0
        return max(float(mm_of[group]), px)


def kind_of(game: str, cls_name: str, kinds: dict) -> str | None:
    """The game's piece kind of a class (None: ``nothing``, ``round`` or not a piece of this game)."""
    if cls_name in ("nothing", "round"):
        return None
    if cls_name == "card":
        for name in ("card", "movement-card", "character-card"):
            if name in kinds:
                return name
        return None
    if cls_name == "dodo-egg":
        return "egg" if game == "dodo-dash" else None
    return cls_name if cls_name in kinds else None


def class_of(game: str, kind: str, round_kinds: set) -> str:
    """The class of a simulated piece's kind (the label of a crop on it)."""
    if kind in round_kinds or kind == "disc-tiny":
        return "round"
    if kind == "egg" and game == "dodo-dash":
        return "dodo-egg"
    if kind == "card" or kind.endswith("-card"):
        return "card"
    return kind if kind in CLASSES else "nothing"


_LOADED: dict = {}


def load_blob_model(path=None):
    """The shipped classifier (``models/blobs/blobs.npz``), or None when there is none (cached by
    file and modification time)."""
    from vision.classify import load_model

    path = Path(path or DEFAULT_MODEL)
    if not path.is_file():
        return None
    key = (str(path.resolve()), path.stat().st_mtime)
    if key not in _LOADED:
        _LOADED[key] = load_model(path)
    return _LOADED[key]


# ------------------------------------------------------------------------------------------------
# proposals


@dataclass
class Proposal:
    """A part of the foreground: ``centre`` (x, y) image px (centroid of its pixels), ``box``
    (x0, y0, x1, y1) image px, ``area_mm2`` at the mat plane, ``region`` (h, w) bool over ``box``;
    ``whole``: for a part of a component cut at several peaks (:func:`_split`), that component whole
    (a proposal itself), else None."""

    centre: tuple
    box: tuple
    area_mm2: float
    region: np.ndarray
    whole: "Proposal | None" = None


def round_silhouettes(transform, xy: np.ndarray, radius: np.ndarray, height: np.ndarray, shape: tuple,
                      margin_mm: float = 1.5) -> np.ndarray:
    """(H, W) uint8 image px mask, 255 on each upright cylinder's silhouette (base and top rims'
    hull; ``xy`` (n, 2) mat mm base centres, ``radius`` and ``height`` (n,) mm) grown by ``margin_mm``."""
    import cv2

    out = np.zeros(shape[:2], np.uint8)
    xy = np.asarray(xy, float).reshape(-1, 2)
    n, m = len(xy), 24
    if not n:
        return out
    a = np.linspace(0, 2 * np.pi, m, endpoint=False)
    ring = np.column_stack([np.cos(a), np.sin(a)])
    height = np.asarray(height, float).reshape(-1)
    pts = (xy[:, None, :] + (np.asarray(radius, float).reshape(-1, 1, 1) + margin_mm) * ring[None]).reshape(-1, 2)
    base = transform.mat_to_image(pts, 0.0).reshape(n, m, 2)
    top = np.empty_like(base)
    for h in np.unique(height):  # one projection per height
        sel = height == h
        top[sel] = transform.mat_to_image(pts.reshape(n, m, 2)[sel].reshape(-1, 2), float(h)).reshape(-1, m, 2)
    for i in range(n):
        px = np.vstack([base[i], top[i]])
        if np.isfinite(px).all():
            cv2.fillConvexPoly(out, cv2.convexHull(np.round(px).astype(np.int32)), 255)
    return out


def proposals(frame: np.ndarray, mask: np.ndarray, transform, config: BlobConfig) -> list[Proposal]:
    """The parts of ``mask`` ((H, W) uint8 image px, round pieces already removed) worth a look."""
    import cv2

    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return []
    mmpp = transform.mm_per_px(transform.image_to_mat(cents[1:], 0.0))
    mmpp = np.where(np.isfinite(mmpp), mmpp, 2.0)  # (a component off the view's map: 2 mm a px)
    out = []
    small = []
    for k in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[k])
        s = float(mmpp[k - 1])
        a_mm = area * s * s
        if a_mm < config.min_area_mm2:
            small.append(k)
            continue
        region = labels[y:y + h, x:x + w] == k
        parts = _split(frame, region, (x, y), s, config) if a_mm > config.split_area_mm2 else [region]
        whole = Proposal((float(cents[k][0]), float(cents[k][1])), (x, y, x + w, y + h), a_mm, region) \
            if len(parts) > 1 else None
        for r in parts:
            ys, xs = np.nonzero(r)
            if not len(xs):
                continue
            a = len(xs) * s * s
            if a < config.min_area_mm2:
                continue
            x0, y0, x1, y1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
            out.append(Proposal((x + float(xs.mean()), y + float(ys.mean())), (x + x0, y + y0, x + x1, y + y1), a,
                                r[y0:y1, x0:x1], whole))
    if config.join_small_mm > 0 and len(small) > 1:
        out += _joined_small(labels, stats, mmpp, small, config)
    return out


def _joined_small(labels: np.ndarray, stats: np.ndarray, mmpp: np.ndarray, small: list, config: BlobConfig) -> list:
    """Proposals of the parts too small alone (under ``min_area_mm2``) that lie within
    ``join_small_mm`` of each other and together are not: a piece whose difference from the mat
    broke up (a grey figure on a pale patch shows only its cap and parts of its rim)."""
    import cv2

    s = float(np.median(mmpp[np.asarray(small) - 1]))
    r = max(1, int(np.ceil(0.5 * config.join_small_mm / s)))
    parts = np.isin(labels, small)
    grown = cv2.dilate(parts.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    m, groups = cv2.connectedComponents(grown, connectivity=8)
    out = []
    for g in range(1, m):
        members = np.unique(labels[(groups == g) & parts])
        if len(members) < 2:
            continue
        x0 = int(min(stats[k][0] for k in members))
        y0 = int(min(stats[k][1] for k in members))
        x1 = int(max(stats[k][0] + stats[k][2] for k in members))
        y1 = int(max(stats[k][1] + stats[k][3] for k in members))
        region = np.isin(labels[y0:y1, x0:x1], members)
        ys, xs = np.nonzero(region)
        a = float(sum(stats[k][4] * float(mmpp[k - 1]) ** 2 for k in members))
        if a < config.min_area_mm2:
            continue
        out.append(Proposal((x0 + float(xs.mean()), y0 + float(ys.mean())), (x0, y0, x1, y1), a, region))
    return out


def _split(frame, region: np.ndarray, origin: tuple, mm_per_px: float, config: BlobConfig) -> list:
    """A component larger than one piece cut at the peaks of its distance transform (watershed on
    the frame's colours); the component whole when it has one peak."""
    import cv2

    pad = 2
    reg = np.pad(region, pad).astype(np.uint8) * 255
    dist = cv2.distanceTransform(reg, cv2.DIST_L2, 5)
    sep = max(3, int(round(config.peak_sep_mm / mm_per_px)))
    peaks = (dist >= config.min_peak_mm / mm_per_px) & (dist >= cv2.dilate(dist, np.ones((2 * sep + 1, 2 * sep + 1), np.uint8)) - 1e-3)
    nm, markers = cv2.connectedComponents(peaks.astype(np.uint8), connectivity=8)
    if nm <= 2:
        return [region]
    markers = markers.astype(np.int32)
    markers[cv2.dilate(reg, np.ones((3, 3), np.uint8)) == 0] = nm  # the outside
    x, y = origin
    h, w = region.shape
    H, W = frame.shape[:2]
    img = np.zeros((h + 2 * pad, w + 2 * pad, 3), np.uint8)
    y0, x0 = y - pad, x - pad
    sy0, sx0 = max(y0, 0), max(x0, 0)
    sy1, sx1 = min(y0 + h + 2 * pad, H), min(x0 + w + 2 * pad, W)
    img[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = frame[sy0:sy1, sx0:sx1]
    cv2.watershed(img, markers)
    markers = markers[pad:pad + h, pad:pad + w]
    return [(markers == m) & region for m in range(1, nm)]


def card_centre(transform, p: Proposal, height: float, card_size: tuple = (), stack_ratio: float = 0.0,
                grow_px: float = 0.0) -> np.ndarray:
    """(2,) mat mm: the centre of a card's silhouette ``p`` on the plane ``height`` above the mat:
    the area centroid, in mat mm, of its outline mapped onto that plane (the image centroid of a
    shape seen in perspective is not the image of its centre: a card's lies toward the camera). A
    silhouette over ``stack_ratio`` × the area of a card of ``card_size`` (mm) grown by half a pixel
    all round (a silhouette's edge is a pixel's width: far back that is several mm, and a single card
    is no stack) is a stack of cards (a draw pile): its footprint swept away from the camera by its
    height's parallax, so its footprint's centre lies back toward the camera by half the sweep (the
    area beyond one card's silhouette over the silhouette's width across that direction; that silhouette
    is the card grown by ``grow_px`` image px all round: how far a mask's outline lies outside what it
    outlines)."""
    import cv2
    from shapely.geometry import Polygon

    cs, _ = cv2.findContours(p.region.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = [transform.image_to_mat(c.reshape(-1, 2).astype(float) + [p.box[0], p.box[1]], height)
               for c in cs if len(c) >= 3]
    polys = [q for q in (Polygon(pts) for pts in outline) if q.area > 0]  # (a line of pixels has no centroid)
    area = sum(q.area for q in polys)
    if area < 1e-9:
        return transform.image_to_mat(np.array([p.centre], float), height)[0]
    c = sum(np.array(q.centroid.coords[0]) * q.area for q in polys) / area
    grown = 0.0
    if len(card_size) == 2 and stack_ratio > 0:
        mu = float(transform.mm_per_px(c[None])[0])
        grown = (card_size[0] + mu) * (card_size[1] + mu)
    if grown > 0 and area > stack_ratio * grown:
        d = c - transform.camera_centre_mm()[:2]
        d /= max(float(np.hypot(*d)), 1e-9)
        across = np.vstack(outline) @ np.array([-d[1], d[0]])
        width = float(across.max() - across.min())
        if width > 1e-6:
            g = 2.0 * grow_px * mu
            c = c - 0.5 * (area - (card_size[0] + g) * (card_size[1] + g)) / width * d
    return c


def flooded_card(p: Proposal, card_size: tuple, share: float, most: float) -> Proposal:
    """The silhouette a part named a card is placed by: the component it was cut from (``p.whole``)
    where the part kept under ``share`` of that component's area and the component is no larger than
    ``most`` cards of ``card_size`` (mm); else ``p``. The cut's outside marker floods a card's face or a
    deck's back of the mat's own colour (no colour edge holds it back), so only the print is left a
    part: placed by it, the card lay up to a card's half-width off."""
    w = p.whole
    if w is None or share <= 0 or p.area_mm2 >= share * w.area_mm2 or w.area_mm2 > most * card_size[0] * card_size[1]:
        return p
    return w


def card_groups(props: list, transform, height: float, card_size: tuple, slack: float) -> list:
    """The proposals ``props`` (each named a card of size ``card_size`` mm) that are parts of one card:
    lists of indices, largest part first, each list two parts or more. A card whose print matches the
    mat in places leaves the mask in pieces, each named a card; parts whose outlines on the card's
    plane (``height`` mm) fit together in a rectangle no larger than a card (each side within
    ``slack`` of the card's, plus a pixel) are one card. Largest first, each part joins the first
    group it fits."""
    import cv2

    def outline(p):
        cs, _ = cv2.findContours(p.region.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        pts = np.vstack([c.reshape(-1, 2) for c in cs]).astype(float) + [p.box[0], p.box[1]]
        return transform.image_to_mat(pts, height)

    L, W = max(card_size), min(card_size)
    order = sorted(range(len(props)), key=lambda i: -props[i].area_mm2)
    pts = {i: outline(props[i]) for i in order}
    # the directions a card may lie in, a degree apart (a rectangle the size of a card holds the points
    # when, along some direction, their spread is within its length and across it within its width)
    th = np.radians(np.arange(0.0, 180.0, 1.0))
    axes = np.stack([np.cos(th), np.sin(th)], axis=1)
    groups: list = []
    for i in order:
        if not np.isfinite(pts[i]).all():
            continue
        mu = float(transform.mm_per_px(pts[i].mean(axis=0)[None])[0])
        for g in groups:
            both = cv2.convexHull(np.vstack([pts[j] for j in g] + [pts[i]]).astype(np.float32)).reshape(-1, 2)
            along = both @ axes.T
            spread = along.max(axis=0) - along.min(axis=0)
            if np.any((spread <= L * (1 + slack) + mu) & (np.roll(spread, -90) <= W * (1 + slack) + mu)):
                g.append(i)
                break
        else:
            groups.append([i])
    return [g for g in groups if len(g) > 1]


def figure_base(p: Proposal, transform, radius: float, height: float, iterations: int = 2,
                bottom_percentile: float = 1.0, from_top: bool = False) -> np.ndarray:
    """(2,) mat mm base centre of a standing figure (footprint ``radius``, ``height`` mm) from its
    silhouette: the bottom of the silhouette (away from the direction the figure rises in the
    image, at ``bottom_percentile``) is the near edge of its base; across, the middle of the
    silhouette's lowest band (a beak or a brim higher up does not pull it). With ``from_top``, the
    top of the silhouette (at 100 − ``bottom_percentile``) is the far edge of its top rim
    (``radius`` there, ``height`` mm up) and the band is the highest: a token lying at the figure's
    foot extends the silhouette's bottom, never its top. Starts from the centroid on the plane at
    half the height."""
    ys, xs = np.nonzero(p.region)
    pts = np.column_stack([xs + p.box[0], ys + p.box[1]]).astype(float)
    xy = transform.image_to_mat(np.array([p.centre], float), height / 2.0)[0]
    a = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    ring = np.column_stack([np.cos(a), np.sin(a)])
    plane = float(height) if from_top else 0.0
    for _ in range(iterations):
        c0 = transform.mat_to_image(xy[None], 0.0)[0]
        c1 = transform.mat_to_image(xy[None], float(height))[0]
        up = c1 - c0
        n = float(np.hypot(*up))
        if not np.isfinite(n) or n < 1e-6:
            return xy
        v = up / n
        w = np.array([-v[1], v[0]])
        s = pts @ v
        rim = transform.mat_to_image(xy + radius * ring, plane) @ v
        if from_top:
            edge, reach = c1, float(rim.max() - c1 @ v)
            s_end = float(np.percentile(s, 100.0 - bottom_percentile))
            band, along = s >= s_end - 2.0 * reach, s_end - reach
        else:
            edge, reach = c0, float(c0 @ v - rim.min())
            s_end = float(np.percentile(s, bottom_percentile))
            band, along = s <= s_end + 2.0 * reach, s_end + reach
        t = pts[band] @ w
        t_mid = 0.5 * (float(np.percentile(t, 2)) + float(np.percentile(t, 98))) if len(t) else float(edge @ w)
        new = transform.image_to_mat((along * v + t_mid * w)[None], plane)[0]
        if not np.isfinite(new).all():
            return xy
        xy = new
    return xy


def _body_hull(transform, c, radius: float, z0: float, z1: float) -> np.ndarray:
    """(k, 2) image px: the convex hull of an upright cylinder of ``radius`` mm at mat mm ``c``
    from ``z0`` to ``z1`` mm above the mat (:func:`figure_outline_px`'s rims)."""
    import cv2

    pts = figure_outline_px(transform, c, radius, z1, bottom=z0).astype(np.float32)
    return cv2.convexHull(pts).reshape(-1, 2).astype(np.float64)


def fit_figure_base(image: np.ndarray, background: np.ndarray, transform, c0, radius: float, height: float,
                    config: "BlobConfig", refine_config, others=()) -> tuple | None:
    """A standing figure's base centre (mat mm) fitted to the frame (the kinds ``base_kinds``, with
    ``base_fit``): a figure stands on a round base of its footprint ``radius``,
    ``config.base_height_mm`` tall, and rises above it narrower (its body within
    ``base_body_fraction`` of the radius, ``height`` mm up). The base is fitted as an upright
    cylinder (:func:`vision.refine._model_fit`: the coverage model against the empty mat) with the
    body's pixels left out (they hide the base's far rim), first where the figure stands at ``c0``
    (the silhouette's :func:`figure_base`; ``base_first_iterations`` steps), then where that fit put
    it (the refinement's full steps). The image's blur is taken as ``base_blur_px`` (a figure's
    shaded body misleads the search for it). ``others``: image px outlines of the pieces around,
    left out too. Returns (centre (2,), σ mm: ``base_sigma_px`` image px there, at least
    ``base_sigma_mm``, or the fit's own if larger); None when a fit fails or finds no base; (None,
    the distance mm, the base found, its σ) when it found a base farther from ``c0`` than
    ``base_gate_fraction`` of the footprint radius (the silhouette's place stands, but the figure may
    stand at either)."""
    from dataclasses import replace

    from vision.refine import _fit_ok, _model_fit

    c0 = np.asarray(c0, float).reshape(2)
    h_base, body_r = config.base_height_mm, config.base_body_fraction * radius
    fit, c = None, c0
    for cfg in (replace(refine_config, iterations=config.base_first_iterations), refine_config):
        excl = [_body_hull(transform, c, body_r, h_base, height)] + list(others)
        fit = _model_fit(image, background, transform, c, radius, h_base, cfg, blur=config.base_blur_px, exclude=excl)
        if fit is None or not np.all(np.isfinite(fit.c)):
            return None
        c = fit.c
    if not _fit_ok(fit, c0, refine_config):
        return None
    moved = float(np.hypot(*(fit.c - c0)))
    own = float(np.sqrt(max(np.linalg.eigvalsh(fit.cov_unit)[-1], 0.0))) * fit.rms * refine_config.sigma_scale
    mmpp = float(transform.mm_per_px(fit.c[None])[0])
    sigma = max(config.base_sigma_mm, config.base_sigma_px * mmpp, own)
    if moved > config.base_gate_fraction * radius:
        return None, moved, fit.c.copy(), sigma
    return fit.c.copy(), sigma


def figure_top_base(p: Proposal, transform, radius: float, height: float, iterations: int = 2) -> np.ndarray:
    """:func:`figure_base` from the top of the silhouette (``radius`` the top rim's)."""
    return figure_base(p, transform, radius, height, iterations, from_top=True)


def behind_figures(transform, xy, height, fig_xy, fig_radius, fig_height, core: float, margin_mm: float,
                   steps: int = 12) -> np.ndarray:
    """(n,) bool: which round pieces (base centres ``xy`` (n, 2) mat mm, tops ``height`` (n,) mm up)
    a standing figure hides where their top is seen: the camera's ray to the top's centre passes
    through the core of a figure (``core`` × its radius ``fig_radius`` round its base ``fig_xy``
    (m, 2), up to its ``fig_height``) more than ``margin_mm`` above that top. The camera sees the
    figure there, not the piece: a round find there is the figure's own (the toucan's head read as
    an egg), or a piece too hidden to place."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    height = np.asarray(height, float).reshape(-1)
    out = np.zeros(len(xy), bool)
    C = transform.camera_centre_mm()
    cam_h = -float(C[2])
    if not len(xy) or core <= 0 or cam_h <= 0:
        return out
    for f_xy, f_r, f_h in zip(np.asarray(fig_xy, float).reshape(-1, 2), fig_radius, fig_height):
        lo = height + margin_mm
        live = (lo < f_h) & (cam_h > f_h)
        if not live.any():
            continue
        for t in np.linspace(0.0, 1.0, steps):
            z = lo + t * (f_h - lo)
            p = xy + ((z - height) / (cam_h - height))[:, None] * (C[:2] - xy)  # the ray at height z
            out |= live & (np.hypot(*(p - f_xy).T) < core * f_r)
    return out


def figure_area_px(transform, xy, radius: float, height: float) -> float:
    """Image px area of an upright cylinder's silhouette (base ``radius`` mm, ``height`` mm) at
    ``xy`` mat mm (the hull of its base and top rims)."""
    import cv2

    a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    ring = np.asarray(xy, float).reshape(1, 2) + radius * np.column_stack([np.cos(a), np.sin(a)])
    px = np.vstack([transform.mat_to_image(ring, 0.0), transform.mat_to_image(ring, float(height))])
    if not np.isfinite(px).all():
        return float("nan")
    return float(cv2.contourArea(cv2.convexHull(px.astype(np.float32))))


def figure_outline_px(transform, xy, radius: float, height: float, n: int = 24, bottom: float = 0.0) -> np.ndarray:
    """(2n, 2) image px: the base and top rims of an upright cylinder (base ``radius`` mm, ``height``
    mm) standing at ``xy`` mat mm (its silhouette is their hull); its lower rim ``bottom`` mm up."""
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = np.asarray(xy, float).reshape(1, 2) + radius * np.column_stack([np.cos(a), np.sin(a)])
    return np.vstack([transform.mat_to_image(ring, float(bottom)), transform.mat_to_image(ring, float(height))])


def figure_count(p: Proposal, transform, radius: float, height: float, max_ratio: float, extent_ratio: float = 0.0,
                 most: int = 4) -> int:
    """How many standing figures (footprint ``radius``, ``height`` mm) the proposal ``p`` holds, by
    the camera's model of one figure's silhouette where it stands: by area, when its pixels are more
    than ``max_ratio`` figures' silhouettes; and (``extent_ratio`` > 0) by length, when along the
    main axis of its pixels it reaches more than ``extent_ratio`` times one figure's silhouette
    along that axis (two figures side by side whose bodies the mask holds only in part, as a
    figure's pale or grey parts on a pale mat pass for shadow: their area stays below two
    figures', their length does not; counted as two, more only by area). 1 when neither."""
    return _figure_count(p, transform, radius, height, max_ratio, extent_ratio, most)[0]


def _figure_count(p: Proposal, transform, radius: float, height: float, max_ratio: float, extent_ratio: float,
                  most: int) -> tuple[int, float]:
    """(:func:`figure_count`, one figure's silhouette area in image px where ``p`` stands)."""
    xy = transform.image_to_mat(np.array([p.centre], float), height / 2.0)[0]
    one = figure_area_px(transform, xy, radius, height)
    n_px = int(p.region.sum())
    if not np.isfinite(one) or one <= 0:
        return 1, one
    k = int(min(most, max(2, round(n_px / one)))) if n_px >= max_ratio * one else 1
    if extent_ratio > 0 and n_px >= 8:
        ys, xs = np.nonzero(p.region)
        pts = np.column_stack([xs, ys]).astype(float)
        c = pts - pts.mean(0)
        evals, evecs = np.linalg.eigh(c.T @ c)
        u = evecs[:, -1]
        s = c @ u
        length = float(np.percentile(s, 99) - np.percentile(s, 1)) + 1.0
        hull = figure_outline_px(transform, xy, radius, height)
        if np.isfinite(hull).all():
            hs = hull @ u
            one_len = float(hs.max() - hs.min())
            if one_len > 0 and length >= extent_ratio * one_len:
                k = max(k, 2)
    return k, one


def split_figures(p: Proposal, transform, radius: float, height: float, max_ratio: float, most: int = 4,
                  extent_ratio: float = 0.0) -> list:
    """A proposal named a figure but holding more than one (:func:`figure_count`: standing close,
    their silhouettes merge in the image) cut into as many parts as it holds figures (k-means on its
    pixels); the proposal alone otherwise."""
    import cv2

    k, one = _figure_count(p, transform, radius, height, max_ratio, extent_ratio, most)
    if k < 2:
        return [p]
    n_px = int(p.region.sum())
    ys, xs = np.nonzero(p.region)
    pts = np.column_stack([xs, ys]).astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.1)
    cv2.setRNGSeed(0)
    _, lab, _ = cv2.kmeans(pts, k, None, crit, 3, cv2.KMEANS_PP_CENTERS)
    lab = lab.reshape(-1)
    out = []
    x0, y0 = p.box[:2]
    for j in range(k):
        m = lab == j
        if m.sum() < 0.2 * one:
            continue
        sx, sy = xs[m], ys[m]
        a0, b0, a1, b1 = sx.min(), sy.min(), sx.max() + 1, sy.max() + 1
        reg = np.zeros((b1 - b0, a1 - a0), bool)
        reg[sy - b0, sx - a0] = True
        out.append(Proposal((x0 + float(sx.mean()), y0 + float(sy.mean())), (x0 + a0, y0 + b0, x0 + a1, y0 + b1),
                            p.area_mm2 * m.sum() / n_px, reg))
    return out or [p]


def resplit(props: list, P: np.ndarray, classes, transform, radius: float, height: float, config: BlobConfig,
            classify) -> tuple[list, np.ndarray]:
    """Proposals of several figures side by side that the classifier did not name a figure (a blob of
    two or three racers, or of a racer and a token, looks like none of the pieces it learnt: it is
    named ``nothing`` or a token) cut as :func:`split_figures` cuts a figure's (``resplit_ratio``
    figures' silhouettes by area, ``figure_split_extent`` by length) and their parts classified
    again (``classify``: parts → (n, k) probabilities); when a part is a figure at ``min_conf`` the
    parts replace the proposal. ``P`` (n, k) the proposals' probabilities of ``classes``; cards are
    left whole. Returns the proposals and their probabilities."""
    cls = list(classes)
    figure = [c in FIGURE_CLASSES for c in cls]
    best = P.argmax(1) if len(P) else np.zeros(0, int)
    out, rows = [], []

    def carved(q, row) -> tuple:  # (parts, rows): q cut as a figure's blob where that finds one, else q whole
        cut = _carved_figure(q, transform, radius, height, config, classify, cls) if config.resplit_carve else None
        return cut if cut is not None else ([q], [row])

    for i, p in enumerate(props):
        c = cls[int(best[i])]
        if figure[int(best[i])] or c == "card":
            out.append(p)
            rows.append(P[i])
            continue
        parts = split_figures(p, transform, radius, height, config.resplit_ratio, extent_ratio=config.figure_split_extent)
        if len(parts) < 2:
            out.append(p)
            rows.append(P[i])
            continue
        Q = classify(parts)
        qb = Q.argmax(1)
        if any(figure[int(b)] and Q[j, b] >= config.min_conf for j, b in enumerate(qb)):
            for j, q in enumerate(parts):  # a part named no figure that still holds more than one (a figure and a token)
                qs, qrows = ([q], [Q[j]]) if figure[int(qb[j])] else carved(q, Q[j])
                out.extend(qs)
                rows.extend(qrows)
            continue
        qs, qrows = carved(p, P[i])
        out.extend(qs)
        rows.extend(qrows)
    return out, np.array(rows).reshape(-1, P.shape[1])


def _carved_figure(p: Proposal, transform, radius: float, height: float, config: BlobConfig, classify,
                   classes) -> tuple | None:
    """A blob of a figure and a token (a token flying over a racer meets it in the image) that the
    cut by pixels (:func:`split_figures`) did not part: cut as a racer's blob is cut
    (:func:`carve_tries`, each way: the silhouette of a figure standing at a base found from the blob,
    and the parts outside it), the pieces classified (``classify``). A way in which one piece alone
    is named a figure at ``min_conf`` and the rest a token or nothing is kept (the figure may be the
    part outside: a token above it in the image pulls the base found from the top), the surest
    figure's. Returns (the pieces, their probabilities of ``classes``) or None."""
    figure = [c in FIGURE_CLASSES for c in classes]
    _, tries = carve_tries(p, transform, radius, height, config)
    best, sure = None, 0.0
    for cut in tries:
        own = remove_parts(p, cut) if cut else p
        if own is p:
            continue
        Q = classify([own] + cut)
        qb = Q.argmax(1)
        named = [j for j, b in enumerate(qb) if figure[int(b)]]
        if len(named) != 1:
            continue
        conf = float(Q[named[0], qb[named[0]]])
        if conf >= config.min_conf and conf > sure:
            best, sure = _joined_by_name([own] + cut, Q, classes), conf
    return best


def _joined_by_name(parts: list, Q: np.ndarray, classes) -> tuple:
    """The parts of :func:`_carved_figure` given one name of ``classes`` (not ``nothing``) made one
    proposal, with the row of the surest of them: a token either side of a figure's narrower top is
    one token. Returns (the proposals, their probabilities)."""
    qb = Q.argmax(1)
    out, rows = [], []
    for b in dict.fromkeys(int(v) for v in qb):
        idx = [j for j in range(len(parts)) if qb[j] == b]
        if classes[b] == "nothing" or len(idx) == 1:
            out.extend(parts[j] for j in idx)
            rows.extend(Q[j] for j in idx)
            continue
        out.append(merge_proposals([parts[j] for j in idx]))
        rows.append(Q[max(idx, key=lambda j: Q[j, b])])
    return out, np.array(rows)


def _reach_px(transform, centre_px, radius: float, height: float) -> float:
    """Image px: the longest span of one standing figure's silhouette (footprint ``radius``,
    ``height`` mm) standing under ``centre_px`` (its centre half way up); nan off the plane."""
    xy = transform.image_to_mat(np.array([centre_px], float), height / 2.0)[0]
    hull = figure_outline_px(transform, xy, radius, height)
    if not np.isfinite(hull).all():
        return float("nan")
    return float(np.max(np.linalg.norm(hull[:, None, :] - hull[None, :, :], axis=2)))


def regroup(props: list, P: np.ndarray, classes, transform, radius: float, height: float, config: BlobConfig,
            classify, most: int = 4) -> tuple[list, np.ndarray, set]:
    """Proposals that are fragments of one standing figure joined again. The mask often holds a
    figure in pieces (its grey base or a body of the hex's colour passes for shadow, or a hand's
    margin cuts through it), and a piece alone is named a token; a token lies flat and whole. So
    proposals not named a figure or a card (a token or ``nothing``; not two ``nothing``) whose centres
    lie within ``regroup_reach`` times one figure's silhouette (its longest span where they stand) of
    each other are joined in groups, and the unions that count as one figure (:func:`figure_count`
    by area and length) classified (``classify``: parts → (n, k) probabilities); a union named a
    figure at ``min_conf``, and more surely than each of its members is named anything (or, with
    ``regroup_within``, whose members each lie within the silhouette of the figure standing at its
    base: :func:`_one_figure`), replaces its members (the surest first, members used once; a group of
    more than ``most`` is left alone).
    Returns the proposals, their probabilities (rows of ``P``, ``classes``) and the indices of the
    unions among them."""
    import itertools

    cls = list(classes)
    figure = np.array([c in FIGURE_CLASSES for c in cls], bool)
    n = len(props)
    if config.regroup_reach <= 0 or n < 2 or not figure.any():
        return props, P, set()
    best = P.argmax(1)
    name = [cls[int(b)] for b in best]
    cand = [i for i in range(n) if not figure[best[i]] and name[i] != "card"]
    links = {i: set() for i in cand}
    for a, b in itertools.combinations(cand, 2):
        if name[a] == "nothing" and name[b] == "nothing":
            continue
        ca, cb = np.asarray(props[a].centre, float), np.asarray(props[b].centre, float)
        reach = _reach_px(transform, 0.5 * (ca + cb), radius, height)
        if np.isfinite(reach) and float(np.hypot(*(ca - cb))) <= config.regroup_reach * reach:
            links[a].add(b)
            links[b].add(a)
    groups, seen = [], set()
    for i in cand:  # the linked groups (connected components)
        if i in seen or not links[i]:
            continue
        comp, todo = set(), [i]
        while todo:
            j = todo.pop()
            if j not in comp:
                comp.add(j)
                todo.extend(links[j] - comp)
        seen |= comp
        if len(comp) <= most:
            groups.append(sorted(comp))
    tries = []
    for comp in groups:
        for k in range(len(comp), 1, -1):
            for sub in itertools.combinations(comp, k):
                if all(name[j] == "nothing" for j in sub):
                    continue
                u = merge_proposals([props[j] for j in sub])
                if figure_count(u, transform, radius, height, config.figure_split, config.figure_split_extent) == 1:
                    tries.append((sub, u))
    if not tries:
        return props, P, set()
    Q = classify([u for _, u in tries])
    f = np.where(figure[None, :], Q, 0.0).max(1)
    used, unions = set(), []
    for t in np.argsort(-f, kind="stable"):
        sub, u = tries[int(t)]
        if used & set(sub) or not figure[int(Q[t].argmax())] or Q[t].max() < config.min_conf:
            continue
        if Q[t].max() <= max(float(P[j].max()) for j in sub) and not (
                config.regroup_within > 0 and _one_figure(u, [props[j] for j in sub], transform, radius, height,
                                                          config.regroup_within)):
            continue
        used |= set(sub)
        unions.append((u, Q[t]))
    if not unions:
        return props, P, set()
    keep = [i for i in range(n) if i not in used]
    out = [props[i] for i in keep] + [u for u, _ in unions]
    rows = [P[i] for i in keep] + [q for _, q in unions]
    return out, np.array(rows).reshape(-1, P.shape[1]), set(range(len(keep), len(out)))


def _one_figure(union: "Proposal", parts: list, transform, radius: float, height: float, share: float) -> bool:
    """Whether every one of ``parts`` has ``share`` of its pixels or more within the silhouette of the
    figure (``radius``, ``height`` mm) standing at the base of their ``union``
    (:func:`figure_base`): the parts stack as one figure's do (a body and its head; two tokens lying
    side by side across the view are wider than a figure)."""
    base = figure_base(union, transform, radius, height)
    if not np.all(np.isfinite(base)):
        return False
    hull = _body_hull(transform, base, radius, 0.0, height)
    return all(pixels_in_hull(p, hull) >= share * max(int(p.region.sum()), 1) for p in parts)


def pixels_in_hull(p: "Proposal", hull: np.ndarray) -> int:
    """How many of proposal ``p``'s pixels lie within the convex polygon ``hull`` ((k, 2) image px)."""
    import cv2

    x0, y0, x1, y1 = p.box
    canvas = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(canvas, np.round(np.asarray(hull, float) - [x0, y0]).astype(np.int32), 1)
    return int((canvas.astype(bool) & p.region).sum())


def absorb_parts(parts: list, xy: list, kinds: list, piece_kinds: dict, transform, config: BlobConfig,
                 keep: frozenset = frozenset()) -> tuple:
    """Drop the parts that lie inside a found figure's silhouette. ``parts`` the proposals (or
    their parts) found as pieces, ``xy`` their (2,) mat mm positions, ``kinds`` their kinds;
    ``piece_kinds`` the game's kinds (radius, height mm). A standing figure hides what is behind it
    and nothing lies on its footprint, so a part whose pixels lie mostly (``absorb_share``) within
    the silhouette of a larger figure found beside it (the hull of its base and top rims, grown by
    ``absorb_margin_mm``) is a piece of that figure: its head or a fragment of its body the mask cut
    off (named a figure again or a token). A part of the same kind is merged into the figure (whose
    base is found again from both); a token's is dropped. Cards are neither absorbed nor absorb, nor
    are the parts of index in ``keep`` (tokens cut off a figure by :func:`carve_figure`) absorbed.
    Returns the positions (a list like ``xy``) and the indices of the parts kept."""
    import cv2

    n = len(parts)
    if config.absorb_share <= 0 or n < 2:
        return list(xy), list(range(n))
    figure = [k in FIGURE_CLASSES for k in kinds]
    if not any(figure):
        return list(xy), list(range(n))
    size = [int(p.region.sum()) for p in parts]
    order = sorted(range(n), key=lambda i: (not figure[i], -size[i]))
    xy = [np.asarray(v, float) for v in xy]
    kept: list = []
    merged: dict = {}
    hulls: dict = {}
    for i in order:
        if "card" in kinds[i] or i in keep:
            kept.append(i)
            continue
        p = parts[i]
        x0, y0, x1, y1 = p.box
        host = None
        for j in kept:
            if not figure[j] or j not in hulls:
                continue
            hull = hulls[j]
            if hull[:, 0].max() < x0 or hull[:, 0].min() > x1 or hull[:, 1].max() < y0 or hull[:, 1].min() > y1:
                continue
            if pixels_in_hull(p, hull) >= config.absorb_share * max(size[i], 1):
                host = j
                break
        if host is None:
            kept.append(i)
            if figure[i]:
                k = piece_kinds[kinds[i]]
                outline = figure_outline_px(transform, xy[i], k.radius + config.absorb_margin_mm, k.height)
                if np.isfinite(outline).all():
                    hulls[i] = cv2.convexHull(outline.astype(np.float32)).reshape(-1, 2)
        elif kinds[i] == kinds[host]:
            merged.setdefault(host, []).append(i)
    for j, extra in merged.items():
        k = piece_kinds[kinds[j]]
        union = merge_proposals([parts[j]] + [parts[i] for i in extra])
        if config.figure_base:
            xy[j] = figure_base(union, transform, config.figure_base_fraction * k.radius, k.height)
    kept.sort()
    return xy, kept


def carve_figure(p: Proposal, transform, radius: float, height: float, xy, config: BlobConfig) -> list:
    """The parts of a proposal named one figure standing at ``xy`` (mat mm base, :func:`figure_base`)
    that lie outside its silhouette: a token lying against a standing figure joins it in the mask
    (or in the image), and the blob is named the figure. The silhouette: the hull of its base
    plate's rims (its radius, a tenth of its height) and that of a body ``carve_top`` of its radius
    up to its top, both grown by ``absorb_margin_mm`` (a token behind the figure's narrower upper
    part shows beside it). The pixels outside it fall into connected parts; those of at least
    ``carve_min_mm2`` are returned as proposals."""
    import cv2

    n_px = max(int(p.region.sum()), 1)
    mm2_px = p.area_mm2 / n_px
    x0, y0 = p.box[:2]
    h, w = p.region.shape
    m = config.absorb_margin_mm
    plate = figure_outline_px(transform, xy, radius + m, 0.1 * height)
    body = figure_outline_px(transform, xy, config.carve_top * radius + m, height)
    if not (np.isfinite(plate).all() and np.isfinite(body).all()):
        return []
    inside = np.zeros((h, w), np.uint8)
    for outline in (plate, body):
        cv2.fillConvexPoly(inside, np.round(cv2.convexHull(outline.astype(np.float32)).reshape(-1, 2)
                                            - [x0, y0]).astype(np.int32), 1)
    rest = (p.region & (inside == 0)).view(np.uint8)
    if rest.sum() * mm2_px < config.carve_min_mm2:
        return []
    n, lab, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
    cut = []
    for k in range(1, n):
        a, b, cw, ch, area = (int(v) for v in stats[k])
        if area * mm2_px < config.carve_min_mm2:
            continue
        reg = lab[b:b + ch, a:a + cw] == k
        ys, xs = np.nonzero(reg)
        cut.append(Proposal((x0 + a + float(xs.mean()), y0 + b + float(ys.mean())),
                            (x0 + a, y0 + b, x0 + a + cw, y0 + b + ch), area * mm2_px, reg))
    return cut


def remove_parts(p: Proposal, parts: list) -> Proposal:
    """``p`` less the pixels of ``parts`` (proposals inside its box); ``p`` when nothing is left."""
    keep = p.region.copy()
    x0, y0 = p.box[:2]
    for q in parts:
        a, b, c, d = q.box
        keep[b - y0:d - y0, a - x0:c - x0] &= ~q.region
    ys, xs = np.nonzero(keep)
    if not len(xs):
        return p
    return Proposal((x0 + float(xs.mean()), y0 + float(ys.mean())), p.box, p.area_mm2 * len(xs) / max(int(p.region.sum()), 1),
                    keep)


def merge_proposals(parts: list) -> "Proposal":
    """One proposal of the pixels of ``parts`` (their areas added)."""
    x0 = min(p.box[0] for p in parts)
    y0 = min(p.box[1] for p in parts)
    x1 = max(p.box[2] for p in parts)
    y1 = max(p.box[3] for p in parts)
    reg = np.zeros((y1 - y0, x1 - x0), bool)
    for p in parts:
        a, b, c, d = p.box
        reg[b - y0:d - y0, a - x0:c - x0] |= p.region
    ys, xs = np.nonzero(reg)
    wholes = {id(p.whole) for p in parts}
    return Proposal((x0 + float(xs.mean()), y0 + float(ys.mean())), (x0, y0, x1, y1),
                    float(sum(p.area_mm2 for p in parts)), reg, parts[0].whole if len(wholes) == 1 else None)


def window_crop(frame: np.ndarray, centre_px, side_px: float, keep: np.ndarray | None = None,
                dim: float = 0.5, size: tuple = SIZE, keep_origin: tuple = (0, 0)) -> np.ndarray:
    """The square window of ``side_px`` image px centred on ``centre_px``, resized to ``size``
    (BGR uint8; outside the frame the border is replicated); ``keep`` a bool or uint8 (0 / 255)
    mask in image px whose pixel (0, 0) is the frame's ``keep_origin`` (x, y): the pixels outside
    it are multiplied by ``dim``."""
    import cv2

    w, h = size
    k = w / max(side_px, 1.0)
    cx, cy = float(centre_px[0]), float(centre_px[1])
    M = np.array([[k, 0.0, w / 2 - k * cx - 0.5 + 0.5 * k], [0.0, k, h / 2 - k * cy - 0.5 + 0.5 * k]])
    interp = cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(frame, M, (w, h), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    if keep is not None and dim != 1.0:
        Mk = M.copy()
        Mk[:, 2] += M[:, :2] @ np.asarray(keep_origin, float)
        k8 = keep if keep.dtype == np.uint8 else keep.astype(np.uint8) * 255
        m = cv2.warpAffine(k8, Mk, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        f = (dim + (1.0 - dim) * (m.astype(np.float32) / 255.0))[..., None]
        crop = np.clip(crop.astype(np.float32) * f, 0, 255).astype(np.uint8)
    return crop


def proposal_crop(frame, transform, p: Proposal, config: BlobConfig, side_px: float | None = None) -> np.ndarray:
    """The classifier's crop of a proposal: the window round its centre, the pixels off it dimmed
    (``side_px``: the window's side if already known, see :func:`sides_px`)."""
    side = sides_px(transform, np.array([p.centre]), config)[0] if side_px is None else side_px
    return window_crop(frame, p.centre, side, p.region, config.dim, keep_origin=p.box[:2])


def proposal_crops(frame, transform, props: list, config: BlobConfig) -> list:
    """:func:`proposal_crop` of every proposal (their windows' sizes in one projection)."""
    sides = sides_px(transform, np.array([p.centre for p in props], float).reshape(-1, 2), config)
    return [proposal_crop(frame, transform, p, config, s) for p, s in zip(props, sides)]


def sides_px(transform, centres_px: np.ndarray, config: BlobConfig) -> np.ndarray:
    """(n,) image px side of the ``window_mm`` window at each of (n, 2) image px centres (the mat
    plane's scale there)."""
    c = np.asarray(centres_px, float).reshape(-1, 2)
    if not len(c):
        return np.zeros(0)
    s = np.asarray(transform.mm_per_px(transform.image_to_mat(c, 0.0)), float).reshape(-1)
    return config.window_mm / np.where(np.isfinite(s) & (s > 0), s, 2.0)


def round_crops(frame, transform, xy, height, fg_mask: np.ndarray, config: BlobConfig) -> tuple[list, np.ndarray]:
    """Crops centred on round pieces (``xy`` (n, 2) mat mm base centres, ``height`` (n,) mm: the
    window's centre is the top face's centre in image px), the pixels off ``fg_mask`` dimmed.
    Returns the crops and the (n, 2) image px centres."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    height = np.asarray(height, float).reshape(-1)
    c = np.zeros((len(xy), 2))
    for h in np.unique(height):
        sel = height == h
        c[sel] = transform.mat_to_image(xy[sel], float(h))
    keep = np.where(fg_mask > 0, 255, 0).astype(np.uint8)
    sides = sides_px(transform, c, config)
    return [window_crop(frame, c[i], sides[i], keep, config.dim) for i in range(len(xy))], c


def game_probs(model, crops: list, game: str) -> np.ndarray:
    """(n, k) probabilities of the model's classes, those not of ``game`` set to 0 and renormalised."""
    P = model.predict_proba(crops) if len(crops) else np.zeros((0, len(model.classes)))
    allowed = np.array([c in GAME_CLASSES.get(game, CLASSES) for c in model.classes], dtype=bool)
    P = P * allowed[None, :]
    s = P.sum(1, keepdims=True)
    return np.where(s > 0, P / np.maximum(s, 1e-12), 0.0)


# ------------------------------------------------------------------------------------------------
# training data


def _extras(scene, board, specs, rng):
    """A copy of ``scene`` with extra pieces on free spots of the mat (mat mm): Dodo Dash
    projectile tokens (some next to a racer), the Morris hunter, shelters and a second toucan away
    from the landing area, Dino Dunk tails."""
    from sim.scene import PieceState, Scene
    from vision.detector_data import add_extras

    scene = add_extras(scene, board, specs, rng)
    if scene.game not in ("dodo-dash", "morris"):
        return scene
    pieces = list(scene.pieces)
    taken = [(p.x, p.y, max(p.radius, 0.5 * max(p.size or (0,)))) for p in pieces]
    if scene.game == "morris":
        # the suites' toucan always stands in the landing area: one elsewhere too, half the time
        if rng.random() < 0.5:
            spec = specs.of_game("morris")["toucan"]
            r = spec.radius
            for _ in range(40):
                x = float(rng.uniform(r + 5, board.length_mm - r - 5))
                y = float(rng.uniform(r + 5, board.width_mm - r - 5))
                if all(math.hypot(x - tx, y - ty) > r + tr + 3 for tx, ty, tr in taken):
                    pieces.append(PieceState("extra:toucan", "toucan", x, y, radius=r, height=spec.height,
                                             angle_deg=float(rng.uniform(0, 360))))
                    break
        return Scene(scene.game, scene.board, pieces, scene.t)
    game_specs = specs.of_game("dodo-dash")
    racers = [p for p in pieces if p.kind == "racer"]
    for n in range(int(rng.integers(3, 8))):
        kind = str(rng.choice(["meteorite", "log", "egg", "feather", "banana", "dodo"]))
        spec = game_specs[kind]
        r = spec.radius
        size = tuple(spec.size) if spec.size else ()
        for _ in range(40):
            if racers and rng.random() < 0.4:
                t = racers[int(rng.integers(len(racers)))]
                a = rng.uniform(0, 2 * np.pi)
                d = t.radius + r + rng.uniform(0.5, 6.0)
                x, y = t.x + d * math.cos(a), t.y + d * math.sin(a)
            else:
                x = float(rng.uniform(r + 5, board.length_mm - r - 5))
                y = float(rng.uniform(r + 5, board.width_mm - r - 5))
            if all(math.hypot(x - tx, y - ty) > r + tr + 0.5 for tx, ty, tr in taken):
                pieces.append(PieceState(f"extra:{kind}-{n}", kind, float(x), float(y), radius=r, height=spec.height,
                                         angle_deg=float(rng.uniform(0, 360)), size=size))
                taken.append((x, y, r))
                break
    return Scene(scene.game, scene.board, pieces, scene.t)


TRAIN_SUITES = ("dino-dunk/shots", "dodo-dash/throws", "morris/eggs", "dogo-dash/reveals", "dodo-dash/throws",
                "morris/eggs", "dino-dunk/fouls")


@dataclass
class BlobCrops:
    crops: list
    labels: list
    frame: list
    source: list  # "proposal" or "round"

    def __len__(self):
        return len(self.crops)


def label_region(labels_map: np.ndarray, label_ids: list, by_id: dict, keep: np.ndarray, game: str,
                 round_kinds: set, min_share: float = 0.4) -> str:
    """The class of the rendered piece under most of the pixels ``keep`` (bool, same shape as
    ``labels_map``); ``nothing`` when no piece covers ``min_share`` of them."""
    vals = labels_map[keep]
    if not len(vals):
        return "nothing"
    ids, counts = np.unique(vals, return_counts=True)
    j = int(np.argmax(np.where((ids > 0) & (ids < 65535), counts, -1)))
    if ids[j] == 0 or ids[j] == 65535 or counts[j] < min_share * len(vals):
        return "nothing"
    p = by_id.get(label_ids[int(ids[j]) - 1])
    return class_of(game, p.kind, round_kinds) if p is not None else "nothing"


def _region_mask(p: Proposal, shape: tuple) -> np.ndarray:
    """The pixels of proposal ``p`` as a bool image of ``shape``."""
    keep = np.zeros(shape, bool)
    x0, y0, x1, y1 = p.box
    keep[y0:y1, x0:x1] = p.region
    return keep


def carve_tries(p: Proposal, transform, radius: float, height: float, config: BlobConfig) -> tuple:
    """The two ways :meth:`vision.detect.Detector._carve` cuts tokens off a racer's proposal ``p``:
    (the racer's base found from the whole blob (mat mm), [the parts outside its silhouette standing
    at its base found again without the parts first cut off, those at the base found from its top])
    — a token at the figure's foot pulls the first base, one in front of it is taken for its foot;
    the list is empty when nothing lies outside the silhouette at the first base."""
    r = config.figure_base_fraction * radius
    base = figure_base(p, transform, r, height)
    cut = carve_figure(p, transform, radius, height, base, config)
    if not cut:
        return base, []
    return base, [carve_figure(p, transform, radius, height, at, config) for at in
                  (figure_base(remove_parts(p, cut), transform, r, height),
                   figure_top_base(p, transform, config.carve_top * radius, height))]


def part_key(t: Proposal) -> tuple:
    """What tells a part of :func:`carve_tries` from another: (box, area mm²)."""
    return t.box, round(t.area_mm2, 3)


def unique_parts(tries: list) -> dict:
    """The parts of :func:`carve_tries`' ways, each once: {:func:`part_key`: part}."""
    uniq: dict = {}
    for one in tries:
        for t in one:
            uniq.setdefault(part_key(t), t)
    return uniq


def carve_parts(p: Proposal, transform, radius: float, height: float, config: BlobConfig) -> list:
    """The parts of a racer's proposal ``p`` that :meth:`vision.detect.Detector._carve` classifies
    (:func:`carve_tries`, each part once); [] when nothing is cut off."""
    if config.carve_min_mm2 <= 0 or not config.figure_base:
        return []
    return list(unique_parts(carve_tries(p, transform, radius, height, config)[1]).values())


def render_crops(frames: int, seed: int = 11, size=(640, 480), progress=None, start: int = 0) -> BlobCrops:
    """Labelled crops of renders ``start`` … ``start + frames - 1`` (see the module doc), found as
    :class:`vision.detect.Detector` finds them at run time."""
    from calibration.specs import load_specs
    from sim.camera import CameraRanges, random_camera
    from sim.style import random_style
    from vision.bench import framed_camera, render_with_empty, suite_frame
    from vision.detect import DetectConfig, Detector, piece_kinds

    specs = load_specs()
    config = DetectConfig.load()
    bconf = BlobConfig.load()
    out = BlobCrops([], [], [], [])
    for i in range(start, start + frames):
        scn, board, iseed, rng, fi = suite_frame(TRAIN_SUITES, i, seed, "blobs")
        scene = _extras(scn.run.frames[fi], board, specs, rng)
        camera = framed_camera(rng, board, size) if i % 2 == 0 else \
            random_camera(rng, board, CameraRanges(tilt_deg=(0.0, 55.0)), size=size)
        style = random_style(rng)
        res, empty = render_with_empty(board, scene, camera, style, iseed, fi)
        T = camera.transform()
        game = board.game
        rk = {k.name for k in piece_kinds(specs, game).values() if k.round}
        det = Detector(board, T, specs=specs, background=empty, config=config, method="classical", attributes=False,
                       blobs=False)
        det.keep_proposals = True
        det(res.image)
        aux = det.last
        by_id = scene.by_id()
        # round pieces kept by the round path: labelled by the piece under the window's centre (a
        # small disc of pixels round it)
        obs = aux["round_obs"]
        if len(obs):
            crops, centres = round_crops(res.image, T, obs.xy, obs.height, aux["fg"], bconf)
            H, W = res.image.shape[:2]
            yy, xx = np.mgrid[0:H, 0:W]
            for c, (cx, cy) in zip(crops, centres):
                if not (0 <= cx < W and 0 <= cy < H):
                    continue
                x0, x1, y0, y1 = max(int(cx) - 4, 0), min(int(cx) + 5, W), max(int(cy) - 4, 0), min(int(cy) + 5, H)
                keep = np.zeros((H, W), bool)
                keep[y0:y1, x0:x1] = True
                out.crops.append(c)
                out.labels.append(label_region(res.labels, res.label_ids, by_id, keep, game, rk))
                out.frame.append(i)
                out.source.append("round")
        H, W = res.image.shape[:2]
        racer = det.kinds.get("racer")
        for p in aux["proposals"]:
            lab = label_region(res.labels, res.label_ids, by_id, _region_mask(p, (H, W)), game, rk)
            out.crops.append(proposal_crop(res.image, T, p, bconf))
            out.labels.append(lab)
            out.frame.append(i)
            out.source.append("proposal")
            # the parts the run-time stage classifies again: what :meth:`Detector._carve` cuts off a
            # racer's blob (a token lying against it), and the parts :func:`resplit` cuts from a
            # blob of racers side by side; labelled like any proposal
            if racer is None or lab == "card":
                continue
            if lab == "racer":
                parts = carve_parts(p, T, racer.radius, racer.height, bconf)
            elif bconf.resplit_ratio > 0:
                parts = split_figures(p, T, racer.radius, racer.height, bconf.resplit_ratio,
                                      extent_ratio=bconf.figure_split_extent)
                parts = parts if len(parts) > 1 else []
            else:
                parts = []
            for q in parts:
                out.crops.append(proposal_crop(res.image, T, q, bconf))
                out.labels.append(label_region(res.labels, res.label_ids, by_id, _region_mask(q, (H, W)), game, rk))
                out.frame.append(i)
                out.source.append("part")
        if progress:
            progress(i + 1 - start, frames)
    return out


# ------------------------------------------------------------------------------------------------
# training


RECIPE_EPOCHS = 12


def recipe(epochs: int = RECIPE_EPOCHS):
    from vision.classify import ConvRecipe

    return ConvRecipe(SIZE, (16, 32, 64, 64), epochs=epochs, symmetry="none", batch=128, lr=3e-3)


def train(data: BlobCrops, val_fraction: float = 0.1, epochs: int = RECIPE_EPOCHS, meta: dict | None = None,
          progress=None, seed: int = 0, threads: int = 1):
    """Fit the classifier on ``data``, the last ``val_fraction`` of its renders held out for
    validation. Returns the model and its metrics on the held-out crops (accuracy, per-class recall,
    confusions; proposals and round pieces apart)."""
    from vision.classify import _scores, fit_conv

    frame = np.asarray(data.frame)
    cut = np.quantile(frame, 1.0 - val_fraction) if val_fraction > 0 else frame.max() + 1
    tr = frame < cut
    va = ~tr
    crops = data.crops
    labels = np.asarray(data.labels, dtype=object)
    clf, history = fit_conv("blobs", [crops[i] for i in np.nonzero(tr)[0]], labels[tr], CLASSES, recipe(epochs),
                            seed=seed, val_crops=[crops[i] for i in np.nonzero(va)[0]] or None,
                            val_labels=labels[va], meta=meta, threads=threads, progress=progress)
    metrics = {"n_train": int(tr.sum()), "n_val": int(va.sum())}
    if va.any():
        vc = [crops[i] for i in np.nonzero(va)[0]]
        pred, _ = clf.predict(vc)
        metrics["val"] = _scores(clf.classes, pred, labels[va])
        src = np.asarray(data.source, dtype=object)[va]
        for s_ in ("proposal", "round", "part"):
            m = src == s_
            if m.any():
                metrics[f"val_{s_}"] = _scores(clf.classes, pred[m], labels[va][m])
        clf.meta["val_accuracy"] = metrics["val"]["accuracy"]
    return clf, metrics
