"""Detection: a frame and a registered board in, an :class:`~vision.core.Observation` in mat mm out.

The public entry point is :class:`Detector`, built once per table set-up (board, specs, the
registration ``MatTransform``, the empty mat captured at setup, the configuration and the model)
and called on every frame: ``detector(frame_bgr, frame_index, timestamp) -> Observation``.

Two detectors find rough positions, one refinement places each round piece at its base centre:

- **classical** (OpenCV only): the difference against the empty mat, rectified onto the plane of
  the pieces' tops (``MatTransform.homography(h)``) at ``px_per_mm``; round pieces are the peaks of
  the distance transform of that mask, their size class the peak's value (and, for a small piece
  against a larger one, the peaks of what the pieces found leave of the mask). Blobs larger than
  ``hand_area_mm2`` are hands and arms, reported as occluders, not pieces.
- **yolo** (:mod:`vision.yolo`): boxes in image px with a class (every class of the four games,
  see ``vision.detector_data.CLASSES``); the rough mat position of a box is its centre mapped
  through the plane at half the piece's height.

The classical path's other pieces (figures, projectile tokens, cards) come from
:mod:`vision.blobs`: the parts of the same difference that the round pieces do not explain, each
named by a small CNN, which also drops a round find that is part of a figure (the toucan's head).

Then :func:`vision.refine.refine_discs` fits each round piece's outline in the view rectified at
its top's height (parallax removed), picks its size among those it may have, and gives σ; Dino
Dunk's round finds get a second look at their size from a small CNN (:meth:`Detector._size_checked`,
the ``size`` task of :mod:`vision.classify`). Pieces that are not round (figures, projectiles,
cards) keep the box's position with a σ from the box size. Attributes (team, egg face and colour,
card kind, racer colour) come from :mod:`vision.classify` when its models are present.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from calibration.transform import MatTransform
from vision.core import Observation
from vision.refine import RefineConfig, refine_discs

CONFIG_PATH = Path(__file__).resolve().parent / "config.yaml"
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = ROOT / "models" / "detector" / "detector.onnx"
METHODS = ("classical", "yolo", "hybrid", "auto")

# pieces refined as upright cylinders (round footprint, flat top)
ROUND_SHAPES = ("disc",)
ROUND_TOKENS = {("morris", "egg"), ("morris", "shelter")}


class DetectError(ValueError):
    """The detector cannot run as asked (no empty mat for the classical path, no model for yolo)."""


@dataclass(frozen=True)
class RoundKind:
    """A piece kind: name, footprint radius and top height in mm, and whether it is refined as an
    upright cylinder (``round``)."""

    name: str
    radius: float
    height: float
    round: bool = True
    count: int = 0  # how many the game has (0: not limited)


@dataclass(frozen=True)
class DetectConfig:
    """Thresholds of the detectors (see ``vision/config.yaml``)."""

    px_per_mm: float = 1.0
    blur_px: float = 1.5
    diff_threshold: float = 28.0
    min_radius_fraction: float = 0.6
    max_radius_fraction: float = 1.45
    hand_area_mm2: float = 12000.0
    hand_margin_mm: float = 40.0
    hand_local_scale: bool = True
    hand_piece_distance: float = 0.0
    hand_rim_distance: float = 30.0
    hand_piece_low_distance: float = 0.0
    hand_piece_low_area: float = 0.5
    border_px: int = 3
    min_confidence: float = 0.25
    yolo_conf: float = 0.25
    yolo_iou: float = 0.5
    box_sigma_fraction: float = 0.08
    mask_grow_px: float = 0.75
    remainder_open: float = 0.0
    remainder_fragments: bool = False
    remainder_apart: float = 1.0
    remainder_min_fraction: float = 0.5
    merged_smaller: bool = False
    merged_min_px: float = 0.0
    mask_scale: float = 0.5
    mask_detail_mm: float = 0.0
    mask_detail_held: float = 0.6
    hybrid_kind_conf: float = 0.6
    reuse_mm: float = 3.0
    reuse_level: float = 2.0
    attributes_still: bool = False
    edge_margin_mm: float = 40.0
    fragment_min_fraction: float = 0.0
    fragment_score: float = 0.5
    fragment_apart: float = 0.8
    dark_disc_circularity: float = 0.0
    dark_disc_floor: float = 0.7
    dark_disc_area_ratio: float = 1.5
    dark_disc_apart_mm: float = 8.0
    dark_disc_held: float = 0.5
    dark_disc_ring: float = 0.05
    lying_apart: float = 0.0
    lying_min_height_mm: float = 0.0
    lying_refit: bool = False
    thin_apart: float = 0.0
    figures_apart: float = 0.0
    kind_counts: bool = False
    shadow_light: bool = False
    shadow_light_every: int = 15
    figure_refit_mm: float = 0.0
    max_sigma_radius: float = 0.0
    radius_slack_px: float = 0.0
    radius_slack_max: float = 1.0
    stack_smallest: bool = False
    speck_min_px: int = 0
    size_veto: float = 0.0
    size_pick: float = 0.1
    size_reuse_mm: float = 0.5
    refine: RefineConfig = field(default_factory=RefineConfig)

    @classmethod
    def load(cls, path: str | Path = CONFIG_PATH) -> "DetectConfig":
        det = config_section(path, "detect", cls, ignore={"refine"})
        return cls(refine=RefineConfig(**config_section(path, "refine", RefineConfig)), **det)


def config_section(path: str | Path, section: str, klass, ignore: set = frozenset()) -> dict:
    """The keys of ``section`` in the YAML file ``path`` (``vision/config.yaml``) as a dict, checked
    against the fields of the dataclass ``klass`` (an unknown key is a ValueError naming it)."""
    import yaml

    data = dict((yaml.safe_load(Path(path).read_text()) or {}).get(section, {}) or {})
    unknown = set(data) - set(klass.__dataclass_fields__) - set(ignore)
    if unknown:
        raise ValueError(f"{path}: {section}: unknown keys {sorted(unknown)}")
    return data


def piece_kinds(specs, game: str) -> dict[str, RoundKind]:
    """Every piece kind of a game that lies on the mat, by name (radius and height from the specs)."""
    out = {}
    for p in specs.of_game(game).values():
        if p.shape in ("hex",) or (p.shape == "token" and p.height <= 0):
            continue
        if p.diameter > 0:
            r = p.radius
        elif p.size:
            r = 0.5 * float(np.hypot(*p.size))
        else:
            continue
        rnd = p.shape in ROUND_SHAPES or (game, p.name) in ROUND_TOKENS
        out[p.name] = RoundKind(p.name, r, p.height, rnd, int(p.count))
    return out


def round_kinds(specs, game: str) -> list[RoundKind]:
    """The round pieces of a game that the classical detector looks for (discs and round tokens)."""
    return [k for k in piece_kinds(specs, game).values()
            if k.round and k.name not in ("possession-token", "scoring-token", "disc-tiny")]


def class_to_kind(game: str, class_name: str, kinds: dict) -> str | None:
    """The game's piece kind of a detector class (None: not a piece of this game, or a hand)."""
    if class_name in ("card-up", "card-down"):
        for name in ("card", "movement-card", "character-card"):
            if name in kinds:
                return name
        return None
    if class_name == "dodo-egg":
        return "egg" if game == "dodo-dash" else None
    if class_name == "egg":
        return "egg" if game == "morris" else None
    return class_name if class_name in kinds else None


class Background:
    """The empty mat, captured at setup (BGR image px), blurred once; the terms of the shadow-discounted
    difference (:func:`vision.refine.foreground_distance`) that depend on it alone are kept."""

    def __init__(self, image: np.ndarray, blur_px: float = 1.5, lift_gain: float = 1.0, scale: float = 0.5):
        import cv2

        if image is None or image.size == 0:
            raise DetectError("the empty-mat image is empty: capture the mat again with nothing on it")
        self.raw = image
        self.shape = image.shape
        self.blur_px = blur_px
        self.lift_gain = lift_gain
        self.scale = scale
        self.small = self._shrink(image)
        self._b = self.small.astype(np.float32) + 1.0
        self._inv_bb = 1.0 / (self._b * self._b).sum(axis=2)
        self.detail_held = None  # see set_detail

    def set_detail(self, box, held: float = 0.6) -> None:
        """Take the difference pixel by pixel too (:meth:`_detail`), in ``box`` (x0, y0, x1, y1) image
        px, widened to whole cells of the shrink (None: not at all): a part of it the plain
        difference holds less than ``held`` of is added to the round pieces' mask."""
        self.detail_held = None
        if box is None or self.scale == 1.0:
            return
        h, w = self.shape[:2]
        step = max(1, int(round(1.0 / self.scale)))
        x0, y0 = (max(0, int(np.floor(v)) - 4 * step) for v in box[:2])
        x1, y1 = min(w, int(np.ceil(box[2])) + 4 * step), min(h, int(np.ceil(box[3])) + 4 * step)
        # whole cells: the crop's shrink lines up with the frame's
        x0, y0 = x0 - x0 % step, y0 - y0 % step
        x1, y1 = min(w, x1 + (x0 - x1) % step), min(h, y1 + (y0 - y1) % step)
        if x1 <= x0 or y1 <= y0:
            return
        self.detail_held = held
        self._roi = (x0, y0, x1, y1)
        b = self.raw[y0:y1, x0:x1].astype(np.float32) + 1.0
        self._b_full = b
        self._bb_full = (b * b).sum(axis=2)
        self._inv_bb_full = 1.0 / self._bb_full

    def _shrink(self, image: np.ndarray) -> np.ndarray:
        """The image at ``scale`` (area average), then blurred by ``blur_px`` full-size px."""
        import cv2

        out = image
        if self.scale != 1.0:
            size = (max(1, int(round(image.shape[1] * self.scale))), max(1, int(round(image.shape[0] * self.scale))))
            out = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(out, (0, 0), self.blur_px * self.scale)

    def foreground_small(self, frame: np.ndarray, threshold: float, shrunk: np.ndarray | None = None) -> np.ndarray:
        """The mask of :meth:`foreground` at ``scale`` (uint8, 0 / 255). ``shrunk``: the frame
        through :meth:`_shrink`, when the caller has it already."""
        return self.foreground_small_floors(frame, threshold, (0.35,), shrunk)[0]

    def light(self, f: np.ndarray) -> np.ndarray:
        """The brightness ratio to the empty mat that best explains ``f`` (a frame through
        :meth:`_shrink`, float32), per pixel: a shadow only scales the mat's colour by it."""
        # (per-pixel sums over the channels: einsum, which numpy's reductions over a short last axis
        # are several times slower than)
        return np.einsum("ijk,ijk->ij", f, self._b) * self._inv_bb

    def foreground_small_floors(self, frame: np.ndarray, threshold: float, floors: tuple,
                                shrunk: np.ndarray | None = None, keep: dict | None = None) -> list:
        """:meth:`foreground_small` for each of ``floors``: the darkest a shadow may make the mat (the
        brightness ratio's lower clip; 0.35 for the round pieces; a higher floor lets a dark piece on
        a light mat through, and a deep shadow with it). ``keep``: given, it receives the shrunk
        frame as float32 (``"f"``) and its :meth:`light` (``"light"``)."""
        import cv2

        if frame.shape != self.shape:
            raise DetectError(f"the frame is {frame.shape[1]}x{frame.shape[0]} but the empty mat was captured at "
                              f"{self.shape[1]}x{self.shape[0]}: capture the empty mat again")
        # the mask only finds pieces (the fit is at full resolution): half size is enough
        small = self._shrink(frame) if shrunk is None else shrunk
        f = small.astype(np.float32)
        # a shadow only darkens the mat: the empty mat scaled by the brightness ratio that best explains
        # the frame (0.35..1.15) nearly cancels it, while a piece changes the colour
        # (maxima over the channels: channel-wise, which numpy's reductions over a short last axis
        # are several times slower than)
        ratio = self.light(f)
        if keep is not None:
            keep.update(f=f, light=ratio)
        # anything clearly brighter than the empty mat is a piece too (a pale disc of the mat's own hue)
        up = f - self._b + 1.0
        lift = np.maximum(np.maximum(up[..., 0], up[..., 1]), up[..., 2]) if up.shape[2] == 3 else up.max(axis=2)
        lift *= self.lift_gain
        out = []
        detail = self._detail(frame, floors[0]) if self.detail_held is not None else None
        for floor in floors:
            if out and floor >= floors[0]:
                # a higher floor changes the scale only where the light is under it: the first mask
                # elsewhere
                mask = out[0].copy()
                at = ratio < floor
                if at.any():
                    d = f[at] - floor * self._b[at]
                    diff = np.maximum(np.sqrt(np.einsum("ij,ij->i", d, d)), lift[at])
                    _, part = cv2.threshold(np.clip(diff, 0, 255).astype(np.uint8).reshape(-1, 1), threshold, 255,
                                            cv2.THRESH_BINARY)
                    mask[at] = part.ravel()
                out.append(mask)
                continue
            k = np.clip(ratio, floor, 1.15)[..., None]
            d = f - k * self._b
            diff = np.maximum(np.sqrt(np.einsum("ijk,ijk->ij", d, d)), lift)
            _, mask = cv2.threshold(np.clip(diff, 0, 255).astype(np.uint8), threshold, 255, cv2.THRESH_BINARY)
            if detail is not None and not out:
                # only the parts the plain difference holds little of are added: where it holds a piece
                # already, the pixel-wise difference's wider reach would join it to its neighbours
                _, more = cv2.threshold(np.clip(detail, 0, 255).astype(np.uint8), threshold, 255, cv2.THRESH_BINARY)
                n, lab = cv2.connectedComponents(more, connectivity=8)
                if n > 1:
                    area = np.bincount(lab.ravel(), minlength=n)
                    held = np.bincount(lab[mask > 0], minlength=n)
                    add = held < self.detail_held * area
                    add[0] = False
                    mask[add[lab]] = 255
            out.append(mask)
        return out

    def _detail(self, frame: np.ndarray, floor: float) -> np.ndarray:
        """The shadow-discounted colour distance taken pixel by pixel at full size, then shrunk as
        :meth:`_shrink` shrinks the frame (zero outside the box of :meth:`set_detail`): a piece whose
        print is finer than the shrink (a pale face in a dark rim, far from the camera) averages to
        about the mat's colour, but its distances do not."""
        import cv2

        x0, y0, x1, y1 = self._roi
        f = frame[y0:y1, x0:x1].astype(np.float32)
        ones = np.ones((1, 3), np.float32)
        # |f - k b|² = f·f - 2 k f·b + k² b·b, k the brightness ratio f·b / b·b clipped to the floor
        ff = cv2.transform(f * f, ones)
        fb = cv2.transform(f * self._b_full, ones)
        k = np.clip(fb * self._inv_bb_full, floor, 1.15)
        d2 = ff - k * (2.0 * fb - k * self._bb_full)
        dist = cv2.sqrt(np.maximum(d2, 0.0))
        out = np.zeros(self.small.shape[:2], np.float32)
        sx0, sy0 = int(round(x0 * self.scale)), int(round(y0 * self.scale))
        part = self._shrink(dist)
        out[sy0:sy0 + part.shape[0], sx0:sx0 + part.shape[1]] = part[:out.shape[0] - sy0, :out.shape[1] - sx0]
        return out

    def texture_small(self, frame: np.ndarray, threshold: float, floor: float, low: float, residual: float,
                      window: int = 5) -> tuple[np.ndarray, np.ndarray]:
        """Two masks at ``scale`` (uint8, 0 / 255): the shadow-discounted difference with shadow floor
        ``floor`` over ``threshold`` (as :meth:`foreground_small_floors`), and the
        pixels where it is not but is over ``low`` and the frame does not follow the mat's print. A
        shadow multiplies the mat by a gain that varies slowly, so in a ``window`` (px at ``scale``)
        the frame's grey is the mat's times the ratio of their local means; a piece of the mat's own
        hue and about a shadow's darkness (a grey figure) replaces the print with its own shading and
        outline: the mean absolute residual of that fit (3×3) over ``residual`` grey levels."""
        import cv2

        if frame.shape != self.shape or self._b.shape[2] != 3:
            raise DetectError(f"the frame is {frame.shape[1]}x{frame.shape[0]} but the empty mat was captured at "
                              f"{self.shape[1]}x{self.shape[0]}: capture the empty mat again")
        cache = self.__dict__.setdefault("_texture_cache", {})
        if window not in cache:  # the mat's grey and its local mean (the empty mat does not change)
            by = cv2.transform(self._b, np.full((1, 3), 1.0 / 3.0, np.float32)) - 1.0
            cache[window] = (by, np.maximum(cv2.blur(by, (window, window)), 1.0))
        by, by_mean = cache[window]
        ones = np.ones((1, 3), np.float32)
        f = self._shrink(frame).astype(np.float32)
        ratio = cv2.transform(f * self._b, ones) * self._inv_bb
        c0, c1, c2 = cv2.split(f - self._b + 1.0)
        lift = cv2.max(cv2.max(c0, c1), c2)
        lift *= self.lift_gain
        d = f - np.clip(ratio, floor, 1.15)[..., None] * self._b
        diff = cv2.max(cv2.sqrt(cv2.transform(d * d, ones)), lift)
        fy = cv2.transform(f, np.full((1, 3), 1.0 / 3.0, np.float32))
        res = cv2.blur(cv2.absdiff(fy, cv2.blur(fy, (window, window)) / by_mean * by), (3, 3))
        plain = np.clip(diff, 0, 255).astype(np.uint8) > threshold  # rounded as foreground_small_floors does
        extra = ~plain & (diff > low) & (res > residual)
        return plain.view(np.uint8) * np.uint8(255), extra.view(np.uint8) * np.uint8(255)

    def foreground(self, frame: np.ndarray, threshold: float, small: np.ndarray | None = None,
                   shape: tuple | None = None) -> np.ndarray:
        """(H, W) uint8 mask, 255 where the frame differs from the empty mat (image px), shadows
        discounted (as ``vision.refine.foreground_distance``: a shadow darkens, a piece changes colour).
        ``small``: the mask of :meth:`foreground_small` if already made (then ``frame`` may be None
        and ``shape`` the frame's shape)."""
        import cv2

        mask = self.foreground_small(frame, threshold) if small is None else small
        h, w = (frame.shape if frame is not None else shape)[:2]
        if self.scale != 1.0:
            mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)
            mask = np.where(mask >= 128, 255, 0).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        return mask


@dataclass
class Candidates:
    """Rough pieces: ``xy`` (n, 2) mat mm, ``kind`` (n,) names, ``score`` (n,), ``xyxy`` (n, 4)
    image px boxes (NaN for the classical path), ``occluders`` (m, 4) image px boxes of hands;
    ``fragment`` (n,) bool: found from a part of the mask too thin for a peak (see :func:`_fragments`;
    None: none is); ``hands``: (H, W) bool masks of the hands' own pixels where pieces touching them
    were kept (see ``DetectConfig.hand_piece_distance``), left out of the pieces' fits; ``thin`` (n,)
    bool: a fragment from what the pieces found leave of their part of the mask (see
    ``DetectConfig.remainder_apart``; None: none is)."""

    xy: np.ndarray
    kind: list
    score: np.ndarray
    xyxy: np.ndarray
    occluders: np.ndarray
    fragment: np.ndarray | None = None
    hands: list = field(default_factory=list)
    thin: np.ndarray | None = None

    @classmethod
    def empty(cls, occluders=None) -> "Candidates":
        occ = np.zeros((0, 4)) if occluders is None else np.asarray(occluders, dtype=float).reshape(-1, 4)
        return cls(np.zeros((0, 2)), [], np.zeros(0), np.zeros((0, 4)), occ)


def plane_maps(transform: MatTransform, height_mm: float, size: tuple, px_per_mm: float, cache: dict | None = None,
               origin_mm: tuple = (0.0, 0.0)):
    """``cv2.remap`` maps from a view of the plane ``height_mm`` above the mat (``size`` (w, h) at
    ``px_per_mm``, its pixel (0, 0) at mat mm ``origin_mm``) to the frame's *distorted* image px (the
    lens included)."""
    key = (round(float(height_mm), 3), size, px_per_mm, tuple(float(v) for v in origin_mm))
    if cache is not None and key in cache:
        return cache[key]
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    pts = np.column_stack([xs.ravel() / px_per_mm + origin_mm[0], ys.ravel() / px_per_mm + origin_mm[1]])
    px = transform.mat_to_image(pts, height_mm)
    maps = (px[:, 0].reshape(h, w).astype(np.float32), px[:, 1].reshape(h, w).astype(np.float32))
    if cache is not None:
        cache[key] = maps
    return maps


def board_scale(transform: MatTransform, board) -> float:
    """mm per image px, the median over the board's corners."""
    return float(np.median(transform.mm_per_px(board.corners_mm())))


def search_plane(board, config: "DetectConfig") -> tuple[tuple, tuple]:
    """The part of each height's plane searched for round pieces: the mat and ``edge_margin_mm``
    around it (a piece that slid off the edge still lies in view). Returns ``size`` (w, h) in px at
    ``config.px_per_mm`` and ``origin_mm``, the mat mm of its pixel (0, 0)."""
    m, s = float(config.edge_margin_mm), config.px_per_mm
    size = (int(np.ceil((board.length_mm + 2 * m) * s)) + 1, int(np.ceil((board.width_mm + 2 * m) * s)) + 1)
    return size, (-m, -m)


def static_blocks(board, kinds: dict, transform: MatTransform) -> list[np.ndarray]:
    """Image px outlines (convex hulls of the block's foot and top) of the board's fixed blocks: its
    regions whose kind is a piece of the game that is not round and stands up (Dino Dunk's
    backboards). No round piece stands there (the rules keep discs off them) and the empty mat may
    have been captured without them."""
    import cv2

    out = []
    for region in board.regions.values():
        k = kinds.get(region.kind)
        if k is None or k.round or k.height <= 1.0:
            continue
        geom = region.geometry
        foot = np.asarray(geom.exterior.coords, dtype=float)[:-1]
        pts = np.vstack([np.column_stack([foot, np.zeros(len(foot))]), np.column_stack([foot, np.full(len(foot), -k.height)])])
        px = transform.project_3d(pts)
        out.append(cv2.convexHull(px.astype(np.float32)).reshape(-1, 2).astype(np.float64))
    return out


def classical_candidates(frame: np.ndarray, transform: MatTransform, board, background: Background,
                         kinds: list[RoundKind], config: DetectConfig, maps: dict | None = None,
                         static_mask: np.ndarray | None = None, out: dict | None = None,
                         dark_floor: float | None = None, reference: tuple | None = None) -> Candidates:
    """Round-piece candidates from the empty-mat difference, in mat mm. ``maps``: a cache of
    :func:`plane_maps` kept by the caller (one per height; the transform must not change).
    ``static_mask``: (H, W) image px, non-zero on the board's fixed blocks (:func:`static_blocks`),
    which are not pieces. ``out``: if given, ``out["mask"]`` receives the (H, W) uint8 image px
    foreground mask, hands and fixed blocks removed (the non-round path, :mod:`vision.blobs`, starts
    from it), ``out["hands"]`` the hands so removed (image px, grown by ``hand_margin_mm``), and
    with ``dark_floor`` ``out["dark"]`` the same mask with that shadow floor (see
    :meth:`Background.foreground_small_floors`); with ``reference`` (the table at rest, through
    :meth:`Background._shrink`, float32; the least colour distance; the most brightness ratio to
    the empty mat; the opening, image px) the pixels darker than that ratio that differ from the
    reference by more than that distance are added to ``out["dark"]`` (:func:`_arrived_dark`,
    :meth:`Detector.set_reference`)."""
    import cv2

    shrunk = background._shrink(frame)  # (the hands' colours are read from it too)
    kept: dict = {}
    # the round pieces' mask (shadow floor 0.35), the non-round path's (``dark_floor``) and the dark
    # discs' (``dark_disc_floor``, :func:`_dark_discs`): one pass
    floors = (0.35,) + ((dark_floor,) if dark_floor is not None else ()) + \
        ((config.dark_disc_floor,) if config.dark_disc_circularity > 0 else ())
    masks = background.foreground_small_floors(frame, config.diff_threshold, floors, shrunk, keep=kept)
    small = masks[0]
    small_dark = masks[1] if dark_floor is not None else None
    scale = board_scale(transform, board)  # mm per image px
    deep = _dark_disc_mask(masks[-1], small, frame.shape, scale / background.scale, kinds, config) \
        if config.dark_disc_circularity > 0 and kinds else None
    mask = background.foreground(frame, config.diff_threshold, small)
    if small_dark is not None and reference is not None:
        small_dark = small_dark | _arrived_dark(kept["f"], kept["light"], background.scale, *reference)
    dark = background.foreground(None, config.diff_threshold, small_dark, frame.shape) if small_dark is not None else None
    if dark is not None and static_mask is not None:
        dark[static_mask > 0] = 0
    if deep is not None and static_mask is not None:
        deep[static_mask > 0] = 0
    if static_mask is not None:
        mask[static_mask > 0] = 0
    h_img, w_img = mask.shape
    # hands and arms: big components (found on the small mask: the same blobs, a quarter of the pixels)
    f = background.scale
    if static_mask is not None:
        small = small.copy()
        small[cv2.resize(static_mask, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST) > 0] = 0
    n_cc, labels, stats, cents = cv2.connectedComponentsWithStats(small, connectivity=8)
    occluders = []
    hands = None
    hand_masks: list = []
    big = [k for k in range(1, n_cc) if stats[k][4] / (f * f) * scale * scale > config.hand_area_mm2]
    if big and config.hand_local_scale:
        # measured at the blob's own place too (the board's scale varies across an oblique view: a
        # card near the camera spans more pixels than its size at the board's median scale)
        at = transform.image_to_mat(np.asarray([cents[k] for k in big], float) / f, 0.0)
        local = transform.mm_per_px(at)
        big = [k for k, sc in zip(big, local) if not np.isfinite(sc)
               or stats[k][4] / (f * f) * float(sc) ** 2 > config.hand_area_mm2]
    for k in big:
        # an arm over the table can look like the table (skin and wood share a hue): the part over
        # the mat need not reach the frame's border, so size alone says "hand"
        x, y, w, h, _ = stats[k]
        occluders.append([x / f, y / f, (x + w) / f, (y + h) / f])
    if occluders:
        hands = np.isin(labels, big).astype(np.uint8) * 255
        # (the least top face of this game's round pieces, px of the small mask: a part of the hand's blob
        # that much less like skin is a piece, see :func:`_not_hand`)
        top_px = config.hand_piece_low_area * np.pi * (min(k.radius for k in kinds) * f / scale) ** 2 if kinds else 0.0
        pieces = _not_hand(shrunk, background.small, labels, big, config.hand_piece_distance,
                           config.hand_rim_distance, config.hand_piece_low_distance if top_px > 0 else 0.0,
                           top_px) \
            if config.hand_piece_distance > 0 else None
        if pieces is not None:
            hands[pieces > 0] = 0
            pieces = cv2.resize(pieces, (w_img, h_img), interpolation=cv2.INTER_NEAREST)
        hands = cv2.resize(hands, (w_img, h_img), interpolation=cv2.INTER_NEAREST)
        if pieces is not None:  # the hand's own pixels (and its blurred rim) are no part of a piece's fit
            hand_masks.append(cv2.dilate(hands, np.ones((3, 3), np.uint8)) > 0)
        # fingers the threshold cut off the arm lie near it: nothing next to a hand is a piece
        r = max(1, int(round(config.hand_margin_mm / scale)))
        hands = cv2.dilate(hands, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
        if pieces is not None:  # ... but what is not coloured like the hand and touches it is
            hands[pieces > 0] = 0
        mask[hands > 0] = 0
        if dark is not None:
            dark[hands > 0] = 0
        if deep is not None:
            deep[hands > 0] = 0
    if out is not None:
        out["mask"] = mask
        if hands is not None:
            out["hands"] = hands
        if dark is not None:
            out["dark"] = dark
    if not kinds:
        return Candidates.empty(occluders)
    specks = _specks(small, mask, hands, f, config) if config.speck_min_px > 0 else np.zeros((0, 2))
    s = config.px_per_mm
    heights = sorted({k.height for k in kinds})
    xy, kind_names, score, frag, thin_flags = [], [], [], [], []
    size, origin = search_plane(board, config)
    ox, oy = origin
    taken = []
    for height in sorted(heights, reverse=True):
        group = [i for i, k in enumerate(kinds) if k.height == height]
        mx, my = plane_maps(transform, height, size, s, maps, origin)
        top = cv2.remap(mask, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        # fill holes (printed art on a top face can match the mat behind it)
        contours, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(top, contours, -1, 255, thickness=cv2.FILLED)
        rmin = min(kinds[i].radius for i in group) * config.min_radius_fraction * s
        new = _peaks(top, transform, height, group, kinds, taken, s, origin, rmin, config)
        if config.remainder_open > 0 and new:
            # a small piece against a larger one makes one part of the mask whose distance ridge rises
            # into the larger: no peak of its own. What the pieces found leave of such a part (each
            # one's top face cleared, grown by the mask's reach), opened, is looked at again: in the
            # parts whose area exceeds the tops found in them by half the smallest top or more
            k = max(1, int(round(config.remainder_open * rmin)))
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
            r_lo, r_hi = min(kinds[i].radius for i in group), max(kinds[i].radius for i in group)
            grows = [config.mask_grow_px * float(g) for g in
                     transform.mm_per_px(np.array([[q[0], q[1]] for q in new]), height)]
            extra, thin = [], []
            for cnt in contours:
                x, y, w, h = cv2.boundingRect(cnt)
                inside = [(q, g) for q, g in zip(new, grows)
                          if x <= (q[0] - ox) * s < x + w and y <= (q[1] - oy) * s < y + h]
                left = cv2.contourArea(cnt) - sum(np.pi * ((q[2] + g) * s) ** 2 for q, g in inside) if inside else 0.0
                if left < 0.5 * np.pi * (r_lo * s) ** 2:
                    continue
                x0, y0 = max(x - k - 1, 0), max(y - k - 1, 0)
                crop = top[y0:y + h + k + 1, x0:x + w + k + 1]
                rest = crop.copy()
                for q, g in inside:
                    cv2.circle(rest, (int(round((q[0] - ox) * s)) - x0, int(round((q[1] - oy) * s)) - y0),
                               int(round((q[2] + g) * s)), 0, thickness=-1)
                rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, kernel)
                if not rest.any():
                    continue
                at = (ox + x0 / s, oy + y0 / s)
                extra += _peaks(rest, transform, height, group, kinds, taken, s, at, rmin, config)
                if config.remainder_fragments and config.fragment_min_fraction > 0 and left <= np.pi * (r_hi * s) ** 2:
                    # a part of the rest too thin for a peak (a ball of the mat's colour shows part of
                    # itself only) is a weak candidate, as a part of the mask alone is; each piece's
                    # whole silhouette cleared (its top face and its base carried onto the top's plane,
                    # the inscribed circle midway: the wall's crescents are no piece). Only where what is
                    # left is at most one more top face: more is a figure, a cup or an arm
                    rest = crop.copy()
                    c = np.array([[q[0], q[1]] for q, _ in inside])
                    for (q, g), d in zip(inside, 0.5 * _parallax(transform, c, height)):
                        a, b = ((q[0] - ox - d[0]) * s - x0, (q[1] - oy - d[1]) * s - y0), \
                            ((q[0] - ox + d[0]) * s - x0, (q[1] - oy + d[1]) * s - y0)
                        if not np.all(np.isfinite(a + b)):
                            continue
                        cv2.line(rest, tuple(int(round(v)) for v in a), tuple(int(round(v)) for v in b), 0,
                                 thickness=2 * int(round((q[2] + g) * s)) + 1)
                    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, kernel)
                    parts, _ = cv2.findContours(rest, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
                    for fx, fy, b in _fragments(parts, group, kinds, taken, s, at, config,
                                                config.remainder_min_fraction):
                        taken.append((fx, fy, kinds[b].radius))
                        thin.append((fx, fy, kinds[b].radius, b, 0.0))

            # kept only beside a piece found (touching it, not on it): what it is looked for; and
            # found from a part of the mask, like a fragment: dropped after the fit where it lies on
            # a piece kept (as the part a larger disc's lower-bound size left over does)
            def beside(p):
                d = [(np.hypot(p[0] - q[0], p[1] - q[1]), q[2] + p[2]) for q in new]
                px = p[2] / float(transform.mm_per_px(np.array([[p[0], p[1]]]), height)[0])
                return px >= config.merged_min_px and all(a >= config.fragment_apart * b for a, b in d) and \
                    any(a <= 1.25 * b for a, b in d)
            new += [(*p, True) for p in extra if beside(p)] + [(*p, "thin") for p in thin]  # ("thin": remainder_apart)
        for mx_mm, my_mm, r_kind, best, r, *part in new:
            # the blob is the top face and the base carried onto the top's plane: its inscribed
            # circle sits half the parallax from the top face's centre, towards the base
            c = np.array([[mx_mm, my_mm]])
            xy.append(tuple((c - 0.5 * _parallax(transform, c, height))[0]))
            kind_names.append(kinds[best].name)
            score.append(config.fragment_score if part else min(1.0, r / kinds[best].radius))
            frag.append(bool(part))
            thin_flags.append(part == ["thin"])
        # weak candidates (the refinement fits or drops them): the mask's parts too thin for a peak,
        # then the dark discs that pass for shadow
        weak = [lambda: _fragments(contours, group, kinds, taken, s, origin, config)] \
            if config.fragment_min_fraction > 0 else []
        if deep is not None:
            dtop = cv2.remap(deep, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            weak.append(lambda: _dark_discs(dtop, top, group, kinds, taken, s, origin, config))
        for source in weak:
            for fx, fy, best in source():
                taken.append((fx, fy, kinds[best].radius))
                c = np.array([[fx, fy]])
                xy.append(tuple((c - 0.5 * _parallax(transform, c, height))[0]))
                kind_names.append(kinds[best].name)
                score.append(config.fragment_score)
                frag.append(True)
                thin_flags.append(False)
        if len(specks):
            best = min(group, key=lambda i: kinds[i].radius)
            on_top = transform.image_to_mat(specks, height)
            for c, base in zip(on_top, on_top - 0.5 * _parallax(transform, on_top, height)):
                if not np.all(np.isfinite(c)) or not (ox <= c[0] <= ox + size[0] / s and oy <= c[1] <= oy + size[1] / s):
                    continue
                if any((c[0] - tx) ** 2 + (c[1] - ty) ** 2 < tr ** 2 for tx, ty, tr in taken):
                    continue
                taken.append((c[0], c[1], kinds[best].radius))
                xy.append(tuple(base))
                kind_names.append(kinds[best].name)
                score.append(config.fragment_score)
                frag.append(True)
                thin_flags.append(False)
    n = len(xy)
    return Candidates(np.array(xy, dtype=float).reshape(-1, 2), kind_names, np.array(score, dtype=float),
                      np.full((n, 4), np.nan), np.asarray(occluders, dtype=float).reshape(-1, 4), np.array(frag, dtype=bool),
                      hand_masks, np.array(thin_flags, dtype=bool))


def _parallax(transform: MatTransform, xy: np.ndarray, height: float) -> np.ndarray:
    """(n, 2) mm: where the mat points ``xy`` (n, 2) appear on the plane ``height`` mm above the mat
    (the same image px), less ``xy``: a piece's base carried onto its top's plane lies this far from
    its top face. Zeros at height 0."""
    if not height:
        return np.zeros_like(xy, dtype=float)
    return transform.image_to_mat(transform.mat_to_image(xy, 0.0), height) - xy


def _peaks(top: np.ndarray, transform: MatTransform, height: float, group: list, kinds: list, taken: list, s: float,
           origin: tuple, rmin: float, config: DetectConfig) -> list:
    """Round candidates at the peaks of the distance transform of ``top`` (one height's plane of the
    mask, ``s`` px per mm, pixel (0, 0) at mat mm ``origin``), largest first, at least ``rmin`` px
    from the mask's edge, each of the kind of ``group`` (indices into ``kinds``) whose radius is
    nearest the peak's (less the mask's reach), none within 0.9 of a radius of a piece in ``taken``
    ((x, y, radius) mat mm on that plane; each new one is added). Returns [(x, y, radius, kind
    index, peak radius)] mat mm on that plane."""
    import cv2

    ox, oy = origin
    dist = cv2.distanceTransform(top, cv2.DIST_L2, 5)
    peaks = (dist >= rmin) & (dist >= cv2.dilate(dist, np.ones((5, 5), np.uint8)) - 1e-3)
    found = cv2.findNonZero(peaks.view(np.uint8))  # (x, y) in the order of np.nonzero (row by row)
    xs, ys = np.reshape(found, (-1, 2)).T if found is not None else (np.zeros(0, int), np.zeros(0, int))
    order = np.argsort(-dist[ys, xs])
    # the mask reaches past the outline by about mask_grow_px image px (blur and threshold)
    grow_mm = config.mask_grow_px * transform.mm_per_px(np.column_stack([xs / s + ox, ys / s + oy]), height) \
        if len(xs) else np.zeros(0)
    out = []
    for j in order:
        mx_mm, my_mm, r = xs[j] / s + ox, ys[j] / s + oy, dist[ys[j], xs[j]] / s
        r -= float(grow_mm[j])
        if any((mx_mm - tx) ** 2 + (my_mm - ty) ** 2 < (tr * 0.9) ** 2 for tx, ty, tr in taken):
            continue
        fits = [(abs(kinds[i].radius - r), i) for i in group
                if kinds[i].radius * config.min_radius_fraction <= r <= kinds[i].radius * config.max_radius_fraction]
        if not fits:
            continue
        _, best = min(fits)
        taken.append((mx_mm, my_mm, kinds[best].radius))
        out.append((mx_mm, my_mm, kinds[best].radius, best, r))
    return out


def _arrived_dark(f: np.ndarray, light: np.ndarray, scale: float, reference: np.ndarray, distance: float,
                  ratio: float, open_px: float = 0.0) -> np.ndarray:
    """(uint8 0 / 255 at the background's ``scale``) The pixels of ``f`` (the frame through
    :meth:`Background._shrink`, float32; ``light`` its :meth:`Background.light`) darker than
    ``ratio`` of the empty mat's light (what a shadow floor explains away) whose colour is more
    than ``distance`` grey levels from ``reference`` (the table at rest, shrunk alike, float32):
    something of a shadow's colour that was not there then; opened by ``open_px`` image px (a
    token's body stays, the thin rims of shadows that would join neighbouring pieces into one blob
    do not)."""
    import cv2

    d = f - reference
    changed = np.einsum("ijk,ijk->ij", d, d) > distance * distance
    out = ((light < ratio) & changed).view(np.uint8) * np.uint8(255)
    k = int(round(open_px * scale))
    return cv2.morphologyEx(out, cv2.MORPH_OPEN, np.ones((k, k), np.uint8)) if k > 1 else out


def _dark_disc_mask(deep_small: np.ndarray, small: np.ndarray, shape: tuple, px: float, kinds: list,
                    config: DetectConfig) -> np.ndarray | None:
    """The mask with the shadow floor ``dark_disc_floor`` at image size (uint8 0 / 255) for
    :func:`_dark_discs`, or None when none of its parts (``px`` mm per px of the shrunk masks,
    ``deep_small`` and ``small``) could be a dark disc
    (a part of about a top face's area, four times either way for the board's slant and the spread of
    its scale, of which ``small``, the round pieces' mask, holds at most ``dark_disc_held``): most
    frames have none, and the rest of the search is skipped."""
    import cv2

    n, labels, stats, _ = cv2.connectedComponentsWithStats(deep_small, connectivity=8)
    if n <= 1:
        return None
    lo = np.pi * (min(k.radius for k in kinds) / px) ** 2 / config.dark_disc_area_ratio / 4.0
    hi = np.pi * (max(k.radius for k in kinds) / px) ** 2 * config.dark_disc_area_ratio * 4.0
    held = np.bincount(labels.ravel(), weights=(small > 0).ravel(), minlength=n)
    area = stats[:, cv2.CC_STAT_AREA]
    if not np.any((area[1:] >= lo) & (area[1:] <= hi) & (held[1:] <= config.dark_disc_held * area[1:])):
        return None
    return cv2.resize(deep_small, (shape[1], shape[0]), interpolation=cv2.INTER_NEAREST)


def _dark_discs(dtop: np.ndarray, top: np.ndarray, group: list, kinds: list, taken: list, s: float, origin: tuple,
                config: DetectConfig) -> list:
    """Round parts of ``dtop`` (the mask with the shadow floor ``dark_disc_floor``, on one height's
    plane, ``s`` px per mm, pixel (0, 0) at mat mm ``origin``) that the mask itself (``top``) leaves
    out and that stand apart from everything in it: a dark disc on a pale print of the mat's own hue
    is dark as a shadow, but a shadow lies against the piece that casts it. A part counts when its
    area is within ``dark_disc_area_ratio`` of a top face of ``group`` (indices into ``kinds``), its
    circularity (4π area / perimeter²) at least ``dark_disc_circularity``, at most
    ``dark_disc_held`` of it is in ``top`` and at most ``dark_disc_ring`` of the ring
    ``dark_disc_apart_mm`` wide around it, and no piece of ``taken`` ((x, y, radius) mat mm) lies
    within that ring. Returns [(x, y, kind index)] mat mm, the kind whose top face is nearest in area."""
    import cv2

    ox, oy = origin
    k = max(1, int(round(config.dark_disc_apart_mm * s)))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
    padded = cv2.copyMakeBorder(top, k + 1, k + 1, k + 1, k + 1, cv2.BORDER_CONSTANT, value=0)
    contours, _ = cv2.findContours(dtop, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for cnt in contours:
        area, per = cv2.contourArea(cnt), cv2.arcLength(cnt, True)
        if area <= 0 or per <= 0 or 4 * np.pi * area / per ** 2 < config.dark_disc_circularity:
            continue
        err, best = min((abs(np.log(area / (np.pi * (kinds[i].radius * s) ** 2))), i) for i in group)
        if err > np.log(config.dark_disc_area_ratio):
            continue
        x, y, w, h = cv2.boundingRect(cnt)
        part = np.zeros((h + 2 * k + 2, w + 2 * k + 2), np.uint8)
        cv2.drawContours(part, [cnt - np.array([x - k - 1, y - k - 1], dtype=cnt.dtype)], -1, 1, thickness=cv2.FILLED)
        ring = cv2.dilate(part, disc) - part
        held = padded[y:y + part.shape[0], x:x + part.shape[1]] > 0  # (the padding shifts by k + 1)
        if held[part > 0].mean() > config.dark_disc_held or held[ring > 0].mean() > config.dark_disc_ring:
            continue
        m = cv2.moments(cnt)
        fx, fy = m["m10"] / m["m00"] / s + ox, m["m01"] / m["m00"] / s + oy
        if any(np.hypot(fx - tx, fy - ty) < tr + kinds[best].radius + config.dark_disc_apart_mm for tx, ty, tr in taken):
            continue
        out.append((fx, fy, best))
    return out


def _fragments(contours, group: list, kinds: list, taken: list, s: float, origin: tuple,
               config: DetectConfig, min_fraction: float | None = None) -> list:
    """Parts of the rectified mask (one height's plane, ``s`` px per mm, pixel (0, 0) at mat mm
    ``origin``; ``contours`` its parts' outer outlines, as ``cv2.findContours`` gives them) too thin
    for a peak: a piece whose colour is close to the mat's leaves only its rim, its wall or its print
    in the difference. Each part that holds no piece found (``taken``: (x, y, radius) mat mm) and whose
    area lies between ``fragment_min_fraction`` (``min_fraction`` where given) of the smallest top
    face of ``group`` (indices into ``kinds``) and the largest top face is a candidate at its
    centroid, of the smallest kind (the refinement picks the size among it and the larger ones, and
    drops what no cylinder explains).
    Returns [(x, y, kind index)] in mat mm."""
    import cv2

    r_lo = min(kinds[i].radius for i in group)
    r_hi = max(kinds[i].radius for i in group)
    a_lo = (config.fragment_min_fraction if min_fraction is None else min_fraction) * np.pi * (r_lo * s) ** 2
    a_hi = np.pi * (r_hi * s) ** 2
    ox, oy = origin
    best = min(group, key=lambda i: kinds[i].radius)
    out = []
    for cnt in contours:
        x, y, w, h = cv2.boundingRect(cnt)
        if w * h < a_lo or cv2.contourArea(cnt) > a_hi:
            continue
        # the part's own pixels (its outline filled: the mask's parts are filled already)
        roi = np.zeros((h, w), np.uint8)
        cv2.drawContours(roi, [cnt - np.array([x, y], dtype=cnt.dtype)], -1, 1, thickness=cv2.FILLED)
        m = cv2.moments(roi, binaryImage=True)
        if not a_lo <= m["m00"] <= a_hi:
            continue
        cx, cy = x + m["m10"] / m["m00"], y + m["m01"] / m["m00"]
        fx, fy = cx / s + ox, cy / s + oy
        # a part that holds a piece found is that piece
        if any((fx - tx) ** 2 + (fy - ty) ** 2 < tr ** 2 or
               cv2.pointPolygonTest(cnt, ((tx - ox) * s, (ty - oy) * s), False) >= 0 for tx, ty, tr in taken):
            continue
        out.append((fx, fy, best))
    return out


def _not_hand(small_frame: np.ndarray, small_mat: np.ndarray, labels: np.ndarray, big: list,
              distance: float, rim_distance: float, low_distance: float = 0.0,
              low_area_px: float = 0.0) -> np.ndarray | None:
    """(h, w) uint8 mask at the mask's scale (0 / 255): the pixels of the hands' blobs (``labels``
    == one of ``big``) ``distance`` or more grey levels from their hand's colour (the blob's median,
    brightness discounted: scaled to the pixel's, as light and shade scale skin): a piece the
    fingers touch or partly cover joins the arm's blob, yet keeps its own colour. On the blob's
    rim (2 px) a pixel must also lie ``rim_distance`` or more from every mix of the hand's colour
    and the empty mat (``small_mat``), shaded or not (:func:`_mix_residual`): the hand's edge,
    blurred into the print under it or into its own shadow, is such a mix. Opened with a 3×3
    square. With ``low_distance`` > 0 the pixels only that far from the hand's colour (and passing
    the rim's test) are kept too where, opened, they make a part of ``low_area_px`` pixels or more:
    a disc whose colour is near the skin's (red by a brown hand) differs from it over its whole top,
    the skin itself only in specks and along its rim. None: no such pixel."""
    import cv2

    out = np.zeros(labels.shape, np.uint8)
    low = np.zeros(labels.shape, np.uint8) if low_distance > 0 else None
    frame_f = small_frame.astype(np.float32) + 1.0
    mat_f = small_mat.astype(np.float32) + 1.0
    for k in big:
        blob = labels == k
        inner = cv2.erode(blob.view(np.uint8), np.ones((5, 5), np.uint8)) > 0
        skin = np.median(frame_f[inner if inner.sum() >= 50 else blob], axis=0)
        f = frame_f[blob]
        ratio = np.clip(f @ skin / float(skin @ skin), 0.5, 1.5)
        d = np.linalg.norm(f - ratio[:, None] * skin[None, :], axis=1)
        near = d >= (min(distance, low_distance) if low is not None else distance)
        rim = near & ~inner[blob]
        if rim.any():
            near[rim] = _mix_residual(f[rim], skin, mat_f[blob][rim]) >= rim_distance
        out[blob] = np.where(near & (d >= distance), 255, 0).astype(np.uint8)
        if low is not None:
            low[blob] = np.where(near, 255, 0).astype(np.uint8)
    out = cv2.morphologyEx(out, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    if low is not None and low.any():
        low = cv2.morphologyEx(low, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, lab, stats, _ = cv2.connectedComponentsWithStats(low, connectivity=8)
        wide = [j for j in range(1, n) if stats[j][4] >= low_area_px]
        if wide:  # less the px where the blur mixes it with the skin over it (the fit's pixels are not the hand's)
            out[cv2.erode(np.isin(lab, wide).view(np.uint8), np.ones((3, 3), np.uint8)) > 0] = 255
    return out if out.any() else None


def _mix_residual(f: np.ndarray, s: np.ndarray, b: np.ndarray, lit: tuple = (0.5, 1.5), shade: tuple = (0.2, 1.15),
                  steps: int = 11) -> np.ndarray:
    """(n,) the least distance from each colour ``f`` (n, 3) to a mix ``α · g · s + (1 − α) · k · b[i]``
    of one colour ``s`` (3,) lit or shaded by ``g`` in ``lit`` and a colour per pixel ``b`` (n, 3)
    darkened or lit by ``k`` in ``shade``, over ``α`` in [0, 1] (``steps`` values, each a box of
    ``(α g, (1 − α) k)``: :func:`_box_residual`)."""
    best = np.full(len(f), np.inf)
    for alpha in np.linspace(0.0, 1.0, steps):
        best = np.minimum(best, _box_residual(f, s, b, alpha * lit[0], alpha * lit[1],
                                              (1 - alpha) * shade[0], (1 - alpha) * shade[1]))
    return best


def _box_residual(f: np.ndarray, s: np.ndarray, b: np.ndarray, a_lo: float, a_hi: float, c_lo: float,
                  c_hi: float) -> np.ndarray:
    """(n,) the least distance from each colour ``f`` (n, 3) to ``a · s + c · b[i]`` over ``a`` in
    [``a_lo``, ``a_hi``] and ``c`` in [``c_lo``, ``c_hi``]: the free least-squares solution where it
    lies in the box, else the best of the box's four edges."""
    ss = float(s @ s)
    sb = b @ s
    bb = np.maximum(np.einsum("ij,ij->i", b, b), 1e-6)
    fs = f @ s
    fb = np.einsum("ij,ij->i", f, b)

    def resid(a, c):
        d = f - np.multiply.outer(a, s) - c[:, None] * b
        return np.sqrt(np.einsum("ij,ij->i", d, d))

    det = ss * bb - sb * sb
    safe = det > 1e-6 * ss * bb
    with np.errstate(divide="ignore", invalid="ignore"):
        a0 = np.where(safe, (fs * bb - fb * sb) / det, a_lo)
        c0 = np.where(safe, (fb * ss - fs * sb) / det, c_lo)
    inside = safe & (a0 >= a_lo) & (a0 <= a_hi) & (c0 >= c_lo) & (c0 <= c_hi)
    best = np.where(inside, resid(np.clip(a0, a_lo, a_hi), np.clip(c0, c_lo, c_hi)), np.inf)
    for a in (a_lo, a_hi):  # the edges a = const: c by least squares, clipped
        best = np.minimum(best, resid(np.full(len(f), a), np.clip((fb - a * sb) / bb, c_lo, c_hi)))
    for c in (c_lo, c_hi):  # the edges c = const
        best = np.minimum(best, resid(np.clip((fs - c * sb) / ss, a_lo, a_hi), np.full(len(f), c)))
    return best


def _specks(small: np.ndarray, mask: np.ndarray, hands: np.ndarray | None, f: float,
            config: DetectConfig) -> np.ndarray:
    """(m, 2) image px centres of the specks of the difference: parts of the mask at ``f`` of the
    frame's size (``small``, fixed blocks removed) of at least ``speck_min_px`` px that the full-size
    mask ``mask`` (opened, hands and fixed blocks removed) lost, away from the hands (``hands``: full
    size, non-zero on them and their margin; None: none). A small piece coloured like the mat (a ball on a mat of its hue, a disc a few px
    across in a wide view) differs from it over a px or two only: it is a weak candidate
    (:func:`vision.refine.refine_model`), which the fit keeps only where a cylinder explains it."""
    import cv2

    h, w = small.shape
    kept = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA) > 0
    kept = cv2.dilate(kept.view(np.uint8), np.ones((3, 3), np.uint8)) > 0
    lost = (small > 0) & ~kept
    if hands is not None:
        lost &= cv2.resize(hands, (w, h), interpolation=cv2.INTER_NEAREST) == 0
    n, lab, stats, cents = cv2.connectedComponentsWithStats(lost.view(np.uint8), connectivity=8)
    sel = [k for k in range(1, n) if stats[k][4] >= config.speck_min_px]
    return (np.asarray([cents[k] for k in sel], float).reshape(-1, 2) + 0.5) / f - 0.5


def _apart(xy: np.ndarray, radius: np.ndarray, keep: np.ndarray, fragment: np.ndarray, gap) -> np.ndarray:
    """(n,) bool: False for a piece found from a mask fragment whose place (``xy`` (n, 2) mat mm,
    ``radius`` (n,) mm) overlaps that of a piece kept (``keep``) closer than ``gap`` (a number, or
    (n,) one per piece) × the sum of their radii: pieces lie side by side, so it is a part of that
    piece (its print or its shadow) or the same piece again. Pieces found from a peak come first, then
    the fragments, the larger first (two parts of one piece, its rim broken in two, are that piece:
    the larger fit covers both)."""
    out = np.ones(len(xy), bool)
    gap = np.broadcast_to(np.asarray(gap, float), (len(xy),))
    kept = [j for j in range(len(xy)) if keep[j] and not fragment[j]]
    for i in sorted(np.nonzero(fragment & keep)[0], key=lambda i: -radius[i]):
        if any(np.hypot(*(xy[i] - xy[j])) < gap[i] * (radius[i] + radius[j]) for j in kept):
            out[i] = False
        else:
            kept.append(i)
    return out


def _outlines_near(transform: MatTransform, obs: Observation, at, radius: float, height: float) -> list:
    """Image px outlines of the pieces of ``obs`` that a piece of ``radius`` and ``height`` mm at
    ``at`` (mat mm) may see beside it (within 3 × the sum of their radii plus its height), to leave
    out of its fit."""
    from vision.refine import _outline_px

    return [_outline_px(transform, obs.xy[j], float(obs.radius[j]), float(obs.height[j]), 24)[1]
            for j in range(len(obs)) if np.hypot(*(obs.xy[j] - at)) < 3.0 * (radius + obs.radius[j]) + height]


def _with_pieces(obs: Observation, xy, radius, height, kind: list, confidence, sigma) -> Observation:
    """``obs`` (its places, sizes, kinds, confidences and σ; its frame index and time) with pieces
    added: ``xy`` (k, 2) mat mm, the rest (k,)."""
    return Observation(xy=np.vstack([obs.xy, np.asarray(xy, float).reshape(-1, 2)]),
                       radius=np.concatenate([obs.radius, np.asarray(radius, float).reshape(-1)]),
                       height=np.concatenate([obs.height, np.asarray(height, float).reshape(-1)]),
                       kind=list(obs.kind) + list(kind),
                       confidence=np.concatenate([obs.confidence, np.asarray(confidence, float).reshape(-1)]),
                       sigma=np.concatenate([obs.sigma, np.asarray(sigma, float).reshape(-1)]),
                       frame_index=obs.frame_index, timestamp=obs.timestamp)


def _overlap(a, ra: float, b, rb: float, gap: float, stack_max: float = np.inf) -> bool:
    """Whether round pieces at ``a`` and ``b`` (mat mm, radii ``ra``, ``rb``) overlap more than two
    lying pieces can: centres closer than ``gap`` × the sum of their radii, unless the smaller lies
    wholly within the larger's top and is no larger than ``stack_max`` (the ball standing on a disc:
    pieces stack)."""
    d = float(np.hypot(*(np.asarray(a, float) - np.asarray(b, float))))
    small, big = sorted((float(ra), float(rb)))
    return d < gap * (ra + rb) and not (small < big and small <= stack_max + 1e-6 and _inside(a, ra, b, rb))


def _inside(a, ra: float, b, rb: float) -> bool:
    """Whether the smaller of the round pieces at ``a`` and ``b`` (mat mm, radii ``ra``, ``rb``) lies
    wholly within the larger's top."""
    return float(np.hypot(*(np.asarray(a, float) - np.asarray(b, float)))) + min(ra, rb) <= max(ra, rb)


def _surest_first(sigma, confidence=None) -> np.ndarray:
    """Indices of finds, the surest first: the smaller ``sigma`` (not finite: last), then the higher
    ``confidence``, then the earlier."""
    sigma = np.asarray(sigma, float)
    conf = np.zeros(len(sigma)) if confidence is None else np.asarray(confidence, float)
    return np.lexsort((-conf, np.where(np.isfinite(sigma), sigma, np.inf)))


def _lying_apart(xy: np.ndarray, radius: np.ndarray, sigma: np.ndarray, gap: float, better=None,
                 confidence=None, stack_max: float = np.inf) -> np.ndarray:
    """(n,) bool: False for a round piece whose place (``xy`` (n, 2) mat mm, ``radius`` (n,) mm)
    overlaps another's by more than two lying pieces can (centres closer than ``gap`` × the sum of
    their radii): one piece found twice, or a part of it (its wall, its shadow) fitted as a piece of
    its own. Of the two, the one ``better(i, j)`` says explains the frame better stays (without it,
    the smaller ``sigma``, then the higher ``confidence``). A smaller piece wholly within a larger
    one's top (the ball standing on a disc) is no overlap where its radius is at most ``stack_max``:
    pieces stack."""
    n = len(xy)
    out = np.ones(n, bool)
    kept: list[int] = []
    for i in _surest_first(sigma, confidence):
        clash = [j for j in kept if _overlap(xy[i], radius[i], xy[j], radius[j], gap, stack_max)]
        if clash and not all(better is not None and better(i, j) for j in clash):
            out[i] = False
            continue
        for j in clash:
            out[j] = False
            kept.remove(j)
        kept.append(i)
    return out


def rough_from_boxes(transform: MatTransform, xyxy: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """(n, 4) boxes in image px → (n, 2) rough base centres in mat mm (box centre on the plane at
    half the piece's height)."""
    xyxy = np.asarray(xyxy, dtype=float).reshape(-1, 4)
    heights = np.asarray(heights, dtype=float).reshape(-1)
    if len(xyxy) == 0:
        return np.zeros((0, 2))
    centres = np.column_stack([(xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2])
    out = np.empty((len(xyxy), 2))
    for h in np.unique(heights):
        sel = heights == h
        out[sel] = transform.image_to_mat(centres[sel], h / 2.0)
    return out


def yolo_candidates(frame: np.ndarray, transform: MatTransform, detector, game: str, kinds: dict,
                    config: DetectConfig) -> Candidates:
    """Every piece of the game that the YOLO detector boxes (image px → rough mat mm); hands apart."""
    det = detector(frame)
    names = det.class_name
    occ = det.xyxy[names == "hand"] if len(det) else np.zeros((0, 4))
    kind = [class_to_kind(game, str(n), kinds) for n in names]
    keep = np.array([k is not None for k in kind], dtype=bool) & (det.confidence >= config.min_confidence)
    if not keep.any():
        return Candidates.empty(occ)
    kind = [k for k, ok in zip(kind, keep) if ok]
    xyxy = det.xyxy[keep]
    heights = np.array([kinds[k].height for k in kind])
    return Candidates(rough_from_boxes(transform, xyxy, heights), kind, det.confidence[keep], xyxy, occ)


def _suppress_duplicates(cand: Candidates, kinds: dict) -> Candidates:
    """Two boxes of the same round piece (two classes for one disc): keep the more confident."""
    n = len(cand.xy)
    if n < 2:
        return cand
    order = np.argsort(-cand.score)
    keep = []
    for i in order:
        ri = kinds[cand.kind[i]].radius
        if any(kinds[cand.kind[j]].round and kinds[cand.kind[i]].round and
               np.hypot(*(cand.xy[i] - cand.xy[j])) < 0.6 * min(ri, kinds[cand.kind[j]].radius) for j in keep):
            continue
        keep.append(i)
    keep = np.sort(np.array(keep, dtype=int))
    return Candidates(cand.xy[keep], [cand.kind[i] for i in keep], cand.score[keep], cand.xyxy[keep], cand.occluders)


def _merge(classical: Candidates, yolo: Candidates, kinds: dict, kind_conf: float = 0.6) -> Candidates:
    """Hybrid: the classical round pieces (less those at a YOLO figure, card or backboard), plus YOLO's
    other pieces and the round ones it found where the empty-mat difference found nothing; hands
    from both."""
    keep = []
    ckind = list(classical.kind)
    for i, k in enumerate(yolo.kind):
        if kinds[k].round and len(classical.xy):
            d = np.linalg.norm(classical.xy - yolo.xy[i], axis=1)
            j = int(np.argmin(d))
            if d[j] < max(kinds[k].radius, 10.0):
                # the same piece: YOLO sees its print and size, the difference only a blob
                if yolo.score[i] >= kind_conf and kinds[k].height == kinds[ckind[j]].height:
                    ckind[j] = k
                continue
        keep.append(i)
    keep = np.array(keep, dtype=int)
    # a blob at the foot of a figure or on a backboard is that piece, not a disc
    others = [i for i in keep if not kinds[yolo.kind[i]].round and "card" not in yolo.kind[i]]  # discs may lie on cards
    mine = np.array([not any(np.linalg.norm(classical.xy[j] - yolo.xy[i]) < max(0.8 * kinds[yolo.kind[i]].radius, 10.0)
                             for i in others) for j in range(len(classical.xy))], dtype=bool)
    mine = np.nonzero(mine)[0] if len(classical.xy) else np.zeros(0, int)
    frag = classical.fragment if classical.fragment is not None else np.zeros(len(classical.xy), bool)
    return Candidates(np.vstack([classical.xy[mine], yolo.xy[keep]]),
                      [ckind[j] for j in mine] + [yolo.kind[i] for i in keep],
                      np.concatenate([classical.score[mine], yolo.score[keep]]),
                      np.vstack([classical.xyxy[mine], yolo.xyxy[keep]]), np.vstack([classical.occluders, yolo.occluders]),
                      np.concatenate([frag[mine], np.zeros(len(keep), bool)]), classical.hands,
                      None if classical.thin is None else np.concatenate([classical.thin[mine], np.zeros(len(keep), bool)]))


class Detector:
    """Frame (BGR, image px) → :class:`Observation` (mat mm), built once per table set-up.

    ``board`` (``calibration.board.Board``), ``transform`` the registration (image px ⇄ mat mm),
    ``specs`` (``calibration.specs``; the shipped ones if None), ``background`` the empty mat (BGR
    image, same size as the frames; needed by the classical path, used by the refinement of both),
    ``config`` (:class:`DetectConfig`; ``vision/config.yaml`` if None), ``model`` a path to an
    ``.onnx`` / ``.pt`` detector or a callable returning :class:`vision.yolo.Detections`
    (``models/detector/detector.onnx`` if None), ``method`` one of ``classical`` (round pieces from
    the empty-mat difference, and with the non-round classifier of :mod:`vision.blobs` the other
    pieces too), ``yolo`` (every class from the model), ``hybrid`` (classical round pieces + YOLO's
    others), ``auto`` (classical when the non-round classifier is there and no detector was given,
    else hybrid with a model and an empty mat, else what is possible), ``attributes``
    whether to classify team / colour / face / card, ``profile`` a ``tableref teach`` profile,
    ``blobs`` the non-round classifier (a path or a loaded model; None: ``models/blobs/blobs.npz``
    if it exists; False: none, round pieces only).

    ``reuse``: in a live loop most pieces lie still; a round piece found again at the same place
    (within ``reuse_mm``) whose image patch has not changed (mean difference below ``reuse_level``
    grey levels) keeps its last refined position instead of being fitted again (``reused`` counts
    them in the last call); the non-round classifier's crops likewise (``blobs_reused``).

    ``light``: the table's light (:class:`vision.shadows.Light`), if known. With ``shadow_light`` the
    round fits take the shade of the mat next to each piece from it (the pieces' soft shadows), and
    it is read from the frames: round the candidates on the first frame without one, then round the
    pieces as fitted, after the first call and every ``shadow_light_every`` calls (``light`` holds
    it).

    After each call ``timings_ms`` holds the wall-clock milliseconds of each stage (``cpu_ms`` the
    process CPU time, all threads), and ``occluders`` the
    (m, 4) image px boxes of hands and arms in that frame."""

    def __init__(self, board, transform: MatTransform, specs=None, background: np.ndarray | None = None,
                 config: DetectConfig | None = None, model=None, method: str = "auto", attributes: bool = True,
                 profile: str | None = None, reuse: bool = True, blobs=None, light=None):
        if method not in METHODS:
            raise DetectError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
        if specs is None:
            from calibration.specs import load_specs

            specs = load_specs()
        self.board, self.transform, self.config = board, transform, config or DetectConfig.load()
        self.game = board.game
        self.kinds = piece_kinds(specs, self.game)
        self.round = round_kinds(specs, self.game)
        # each card kind's size (mm): a card is placed by its silhouette's centre on the mat (vision.blobs.card_centre)
        self._card_size = {p.name: tuple(float(v) for v in p.size) for p in specs.of_game(self.game).values()
                           if p.shape == "card" and len(p.size) == 2}
        self.background = Background(background, self.config.blur_px, scale=self.config.mask_scale) \
            if background is not None else None
        if self.background is not None and self.config.mask_detail_mm > 0 and self.kinds:
            # far from the camera a piece's print is finer than the mask's cells: the difference is
            # taken pixel by pixel too, over the searched planes' part of the image
            if board_scale(transform, board) / self.config.mask_scale >= self.config.mask_detail_mm:
                size, (ox, oy) = search_plane(board, self.config)
                w, h = size[0] / self.config.px_per_mm, size[1] / self.config.px_per_mm
                corners = np.array([[ox, oy], [ox + w, oy], [ox + w, oy + h], [ox, oy + h]], float)
                top = max(k.height for k in self.kinds.values())  # (a figure's mask reaches its top)
                px = np.vstack([transform.project_3d(np.column_stack([corners, np.full(4, -z)])) for z in (0.0, top)])
                if np.all(np.isfinite(px)):
                    self.background.set_detail((*px.min(axis=0), *px.max(axis=0)), self.config.mask_detail_held)
        self.detector = None
        # auto with the empty mat, no detector given and the non-round classifier there: classical (see below)
        auto_classical = method == "auto" and model is None and self.background is not None and blobs is not False \
            and (blobs is not None or _blob_model_file().is_file())
        if method in ("yolo", "hybrid", "auto") and not auto_classical:
            if callable(model):
                self.detector = model
            else:
                path = Path(model) if model else DEFAULT_MODEL
                if path.is_file():
                    self.detector = load_model(path, self.config)
                elif method in ("yolo", "hybrid"):
                    raise DetectError(f"{path}: no detector model (train one with `tableref train detector`)")
        if self.detector is None and self.background is None:
            raise DetectError("the classical detector needs the empty mat (--background EMPTY.png) and no model was given")
        if method == "hybrid" and self.background is None:
            raise DetectError("the hybrid detector needs the empty mat (--background EMPTY.png)")
        # the non-round path of the classical detector (vision/blobs.py): its classifier
        self.blob_model = self.blob_config = None
        self.keep_proposals = False  # make the non-round proposals (``last``) even without a model (training data)
        if self.background is not None and method in ("classical", "auto"):
            from vision.blobs import BlobConfig, load_blob_model

            self.blob_config = BlobConfig.load()
            if blobs is not False:
                self.blob_model = blobs if blobs not in (None, True) and not isinstance(blobs, (str, Path)) \
                    else load_blob_model(blobs if isinstance(blobs, (str, Path)) else None)
        if method == "auto":
            # the classical path with its non-round classifier finds every kind (on renders of seed 1
            # it found 87 % of the non-round pieces where the hybrid found 25 %, in 60 % of the CPU
            # time: models/blobs/README.md); a detector given explicitly is used (hybrid)
            method = "classical" if self.blob_model is not None and model is None else \
                ("hybrid" if self.detector is not None and self.background is not None else
                 ("yolo" if self.detector is not None else "classical"))
        if method != "classical":
            self.blob_model = None
        session = getattr(self.blob_model, "_session", None)
        if callable(session):  # set-up work: the classifier's ONNX Runtime session (else built by the first frame)
            session()
        self.method = method
        self.blob_kinds = set()
        if self.blob_model is not None:
            from vision.blobs import GAME_CLASSES, kind_of

            self.blob_kinds = {k for c in GAME_CLASSES.get(self.game, ()) if (k := kind_of(self.game, c, self.kinds))}
        self.last: dict = {}
        self._blob_cache = None  # (centres, crops, probabilities) of the last frame's non-round classifier inputs
        self._base_cache: list = []  # (place from the silhouette, frame, fitted base) of the last frame's figures
        self.blobs_reused = 0
        self._maps: dict = {}
        if self.method in ("classical", "hybrid"):  # set-up work: the remap of each height's plane (lens included)
            size, origin = search_plane(board, self.config)
            for h in {k.height for k in self.round}:
                plane_maps(transform, h, size, self.config.px_per_mm, self._maps, origin)
        self.static = static_blocks(board, self.kinds, transform)
        self._static_mask = None
        if self.static and self.background is not None:
            import cv2

            m = np.zeros(self.background.raw.shape[:2], np.uint8)
            cv2.fillPoly(m, [np.round(p).astype(np.int32) for p in self.static], 255)
            self._static_mask = cv2.dilate(m, np.ones((5, 5), np.uint8))
        self.attributes = attributes
        self.profile = profile
        self.size_model = self._size_model()
        self.sized = 0  # round finds whose size the "size" classifier changed in the last frame
        self._size_cache: dict = {}  # (fitted x, y, kind) -> (its probabilities, its second fit or None), last frame
        self.timings_ms: dict = {}
        self.cpu_ms: dict = {}
        self.occluders = np.zeros((0, 4))
        self.reuse = reuse
        self._reference = None  # the table at rest before the action (set_reference), shrunk as the empty mat
        self._cache = None  # (frame, rough xy, kinds, Refined) of the last call, for unchanged pieces
        # the table's light (vision.shadows.Light: given, or read from the frames) and the shade it predicts;
        # the calls since it was last read from the fitted pieces; what is not mat to its reading (the last
        # frame's pieces and hands)
        self._shade, self.light, self._since_light = None, light, 0 if light is not None else None
        self._not_mat = None
        self._attr_cache = None  # (frame, xy, kinds, attributes) of the last call
        self.reused = 0
        self.attributes_reused = 0
        self.attributes_moving = 0

    def _size_model(self):
        """The "size" classifier (``vision.classify``) where this game's round pieces are its classes
        (Dino Dunk) and ``size_veto`` is set; None where it is not, or no model is there."""
        from vision.classify import ROUND_SIZES, ModelError, load_classifier

        if self.config.size_veto <= 0 or self.method not in ("classical", "hybrid") or \
                not all(k in self.kinds and self.kinds[k].round for k in ROUND_SIZES):
            return None
        try:
            return load_classifier("size")  # (the shipped model: it reads the square the detector cuts, not taught crops)
        except ModelError:
            return None

    def set_reference(self, image: np.ndarray | None) -> None:
        """The table at rest before the action now awaited (BGR image px, the frames' size), or None:
        the classical path's proposals then also hold what is darker than the empty mat and was not
        there at rest (``blobs.reference_diff``): a piece of a shadow's colour that arrived (a dark
        token landed on a mat of its hue), which the empty-mat difference alone explains as a
        shadow. Only the classical path with its non-round classifier reads it."""
        if image is None or self.background is None:
            self._reference = None
            return
        if image.shape != self.background.shape:
            raise DetectError(f"the reference is {image.shape[1]}x{image.shape[0]} but the empty mat was captured at "
                              f"{self.background.shape[1]}x{self.background.shape[0]}")
        self._reference = self.background._shrink(image).astype(np.float32)

    def __call__(self, frame: np.ndarray, frame_index: int = -1, timestamp: float = 0.0) -> Observation:
        c0 = time.process_time()
        t0 = time.perf_counter()
        self.reused = self.attributes_reused = 0
        if self.method == "yolo":
            cand = yolo_candidates(frame, self.transform, self.detector, self.game, self.kinds, self.config)
            cand = _suppress_duplicates(cand, self.kinds)
        elif self.method == "hybrid":
            cand = _merge(classical_candidates(frame, self.transform, self.board, self.background, self.round,
                                               self.config, self._maps, self._static_mask),
                          _suppress_duplicates(yolo_candidates(frame, self.transform, self.detector, self.game,
                                                               self.kinds, self.config), self.kinds), self.kinds,
                          self.config.hybrid_kind_conf)
        else:
            aux: dict = {}
            bc = self.blob_config if self.blob_model is not None or self.keep_proposals else None
            dark_floor = bc.dark_floor if bc is not None and bc.dark_floor else None
            ref = (self._reference, bc.reference_diff, bc.reference_ratio, bc.reference_open_px) \
                if dark_floor is not None and self._reference is not None and bc.reference_diff > 0 else None
            cand = classical_candidates(frame, self.transform, self.board, self.background, self.round, self.config,
                                        self._maps, self._static_mask, out=aux, dark_floor=dark_floor, reference=ref)
            # what is not mat to the light's reading: the pieces' mask and the hands cut from it (an arm
            # over the mat is no shade of it)
            self._not_mat = aux.get("mask")
            if self._not_mat is not None and aux.get("hands") is not None:
                self._not_mat = np.maximum(self._not_mat, aux["hands"])
            self._shade = self._light_shade(frame, cand, self._not_mat) if self.config.shadow_light else None
        t1, c1 = time.perf_counter(), time.process_time()
        obs = self._refined(frame, cand, frame_index, timestamp)
        if self.method == "classical" and self.config.shadow_light and self.background is not None:
            if self._since_light is not None:
                self._since_light += 1
            if self._since_light is None or self._since_light >= self.config.shadow_light_every:
                self._relight(frame, obs)
        t2, c2 = time.perf_counter(), time.process_time()
        tb, cb = t2, c2
        if self.method == "classical" and "mask" in aux and (self.blob_model is not None or self.keep_proposals):
            obs = self._blobs(frame, aux["mask"], obs, frame_index, timestamp, aux.get("dark"))
            t2, c2 = time.perf_counter(), time.process_time()
        if self.config.lying_apart > 0 and len(obs) > 1:
            obs = self._apart_lying(frame, obs)
            t2, c2 = time.perf_counter(), time.process_time()
        if self.config.figures_apart > 0 and len(obs) > 1:
            obs = self._apart_figures(frame, obs)
            t2, c2 = time.perf_counter(), time.process_time()
        if self.config.figure_refit_mm > 0 and self._unfit and len(obs):
            obs = self._refit_beside_figures(frame, obs)
            t2, c2 = time.perf_counter(), time.process_time()
        if self.config.kind_counts and len(obs) > 1:  # last: of every find, however it came
            obs = self._within_counts(obs)
            t2, c2 = time.perf_counter(), time.process_time()
        if self.attributes and len(obs):
            obs.attributes.update(self._attributes_cached(frame, obs))
        t3, c3 = time.perf_counter(), time.process_time()
        self.occluders = cand.occluders
        self.timings_ms = {"detect": 1000 * (t1 - t0), "refine": 1000 * (tb - t1), "blobs": 1000 * (t2 - tb),
                           "attributes": 1000 * (t3 - t2)}
        self.cpu_ms = {"detect": 1000 * (c1 - c0), "refine": 1000 * (cb - c1), "blobs": 1000 * (c2 - cb),
                       "attributes": 1000 * (c3 - c2)}
        return obs

    def _blobs(self, frame, mask, obs: Observation, frame_index, timestamp, dark=None) -> Observation:
        """The non-round path (:mod:`vision.blobs`): round pieces that the classifier sees as part of
        a figure (or, very surely, as nothing: the mat's print) are dropped; the foreground less the round pieces' silhouettes is cut into
        proposals, each classified; the pieces of this game's kinds are added. Without a model, the
        proposals are still made (``last``, with ``keep_proposals``) but nothing is added."""
        from vision.blobs import (FIGURE_CLASSES, VETO_CLASSES, absorb_parts, behind_figures, card_centre, figure_base,
                                  flooded_card, kind_of, proposal_crops, proposals, regroup, resplit, round_crops, round_silhouettes,
                                  split_figures)

        bc = self.blob_config
        model = self.blob_model
        cache, self._blob_cache, self.blobs_reused = self._blob_cache, ([], [], []), 0
        self._carve_last, self._carve_now = self.__dict__.get("_carve_now", {}), {}
        if model is not None and len(obs):
            crops, centres = round_crops(frame, self.transform, obs.xy, obs.height, mask, bc)
            P = self._blob_probs(crops, centres, cache)
            figure = np.array([c in VETO_CLASSES for c in model.classes], dtype=bool)
            veto = P[:, figure].sum(1) >= bc.veto_conf
            if bc.nothing_veto_conf < 1.0 and "nothing" in list(model.classes):
                veto |= P[:, list(model.classes).index("nothing")] >= bc.nothing_veto_conf
            if veto.any():
                obs = obs[~veto]
        if dark is not None and bc.texture_low > 0:
            dark = self._texture_mask(frame, dark)
        rest = (mask if dark is None else dark).copy()
        if len(obs):
            rest[round_silhouettes(self.transform, obs.xy, obs.radius, obs.height, mask.shape, bc.erase_margin_mm) > 0] = 0
        props = proposals(frame, rest, self.transform, bc)
        self.last = {"fg": mask, "round_obs": obs, "proposals": props}
        if model is None or not props:
            return obs
        P = self._blob_probs(proposal_crops(frame, self.transform, props, bc),
                             np.array([p.centre for p in props], float), cache)
        if bc.resplit_ratio > 0 and "racer" in self.blob_kinds:  # racers side by side named nothing or a token
            props, P = resplit(props, P, model.classes, self.transform, self.kinds["racer"].radius,
                               self.kinds["racer"].height, bc, lambda parts: self._blob_probs(
                                   proposal_crops(frame, self.transform, parts, bc),
                                   np.array([q.centre for q in parts], float), None))
        joined = set()
        if bc.regroup_reach > 0 and "racer" in self.blob_kinds:  # a racer the mask holds in pieces, each named a token
            props, P, joined = regroup(props, P, model.classes, self.transform, self.kinds["racer"].radius,
                                       self.kinds["racer"].height, bc, lambda parts: self._blob_probs(
                                           proposal_crops(frame, self.transform, parts, bc),
                                           np.array([q.centre for q in parts], float), None))
        cls = np.asarray(model.classes, dtype=object)
        best = P.argmax(1)
        if bc.card_merge > 0 and self._card_size:
            props, P, best, joined = self._cards_joined(props, P, best, cls, bc, joined)
        xy, kinds, conf, sig, found, carved, flooded = [], [], [], [], [], set(), set()
        for i, p in enumerate(props):
            c = str(cls[best[i]])
            k = kind_of(self.game, c, self.kinds)
            if k is None or P[i, best[i]] < bc.min_conf:
                continue
            h = self.kinds[k].height
            base = None
            cut = set()
            if c == "racer" and bc.carve_min_mm2 > 0 and bc.figure_base and i not in joined:  # a token lying against it
                p, base = self._carve(frame, p, k, cache, xy, kinds, conf, sig, found, cut)
            parts = split_figures(p, self.transform, self.kinds[k].radius, h, bc.figure_split,
                                  extent_ratio=bc.figure_split_extent) \
                if c in FIGURE_CLASSES and bc.figure_split > 0 else [p]
            if len(parts) == 1:  # the cut assumed one figure: of several, a part cut off may be another's
                carved |= cut
            for q in parts:
                if len(parts) > 1:
                    base = None
                if base is not None:
                    xy.append(base)
                elif c in FIGURE_CLASSES and bc.figure_base:
                    xy.append(figure_base(q, self.transform, bc.figure_base_fraction * self.kinds[k].radius, h))
                elif k in self._card_size and bc.card_centre:
                    whole = flooded_card(q, self._card_size[k], bc.card_whole_share, bc.card_whole_most)
                    if whole is not q and id(whole) not in flooded:  # one card placed by each component
                        flooded.add(id(whole))
                        q = whole
                    xy.append(card_centre(self.transform, q, h / 2.0, self._card_size[k], bc.card_stack_ratio,
                                          bc.card_grow_px))
                else:
                    xy.append(self.transform.image_to_mat(np.array([q.centre], float), h / 2.0)[0])
                kinds.append(k)
                conf.append(float(P[i, best[i]]))
                sig.append(bc.sigma_of(c, float(self.transform.mm_per_px(xy[-1][None])[0])))
                found.append(q)
        if not kinds:
            return obs
        xy, keep = absorb_parts(found, xy, kinds, self.kinds, self.transform, bc, frozenset(carved))
        xy, kinds, conf, sig = ([v[i] for i in keep] for v in (xy, kinds, conf, sig))
        if bc.base_fit and set(kinds) & set(bc.base_kinds) and self.background is not None:
            xy, sig = self._figure_bases(frame, xy, kinds, sig, obs, [found[i] for i in keep])
        figs = [i for i, k in enumerate(kinds) if k in FIGURE_CLASSES]
        if bc.behind_core > 0 and figs and len(obs):  # a round find a figure stands in front of is the figure's
            hidden = behind_figures(self.transform, obs.xy, obs.height, [xy[i] for i in figs],
                                    [self.kinds[kinds[i]].radius for i in figs], [self.kinds[kinds[i]].height for i in figs],
                                    bc.behind_core, bc.behind_margin_mm)
            if hidden.any():
                obs = obs[~hidden]
        return _with_pieces(obs, xy, [self.kinds[k].radius for k in kinds], [self.kinds[k].height for k in kinds], kinds,
                            conf, sig)

    def _cards_joined(self, props: list, P: np.ndarray, best: np.ndarray, cls, bc, joined: set) -> tuple:
        """The proposals named a card that are parts of one card (:func:`vision.blobs.card_groups`)
        made one proposal (placed as one card's silhouette: :func:`vision.blobs.card_centre`); its
        class probabilities the largest part's. Returns ``(props, P, best, joined)`` (``joined``: the
        indices of the proposals :func:`vision.blobs.regroup` made, renumbered)."""
        from vision.blobs import card_groups, kind_of, merge_proposals

        by_kind: dict = {}
        for i in range(len(props)):
            k = kind_of(self.game, str(cls[best[i]]), self.kinds)
            if k in self._card_size and P[i, best[i]] >= bc.min_conf:
                by_kind.setdefault(k, []).append(i)
        gone, added, rows = set(), [], []
        for k, idx in by_kind.items():
            for g in card_groups([props[i] for i in idx], self.transform, self.kinds[k].height / 2.0,
                                 self._card_size[k], bc.card_merge):
                members = [idx[j] for j in g]
                gone.update(members)
                added.append(merge_proposals([props[i] for i in members]))
                rows.append(P[members[0]])
        if not added:
            return props, P, best, joined
        keep = [i for i in range(len(props)) if i not in gone]
        P = np.vstack([P[keep], np.array(rows)])
        return [props[i] for i in keep] + added, P, P.argmax(1), {keep.index(i) for i in joined if i in keep}

    def _figure_bases(self, frame, xy: list, kinds: list, sig: list, obs: Observation,
                      props: list | None = None) -> tuple[list, list]:
        """Each figure's base fitted to the frame (the kinds ``base_kinds``: racers, the toucan, the hunter;
        :func:`vision.blobs.fit_figure_base`), from its place from the silhouette, the pieces around
        it left out (the other pieces' cylinders whole, the round pieces' outlines); where the fit
        fails the silhouette's place and σ stay; where it found a base beyond its gate, the place
        stays and its σ grows by half the distance (in quadrature). For the kinds
        ``base_retry_kinds`` (``props``: the figures' proposals, as ``xy``), a fit that failed is
        tried again from the silhouette's top (:meth:`_base_from_top`), and a base beyond the gate
        may be kept (:meth:`_far_base`): a body of the mat's colour leaves little but the head. In a
        live loop (``reuse``) a figure on an unchanged patch, placed from its silhouette within
        ``reuse_mm`` of where it was, keeps its last fit."""
        from vision.blobs import _body_hull, fit_figure_base

        bc, T, bg = self.blob_config, self.transform, self.background.raw
        last, self._base_cache = self._base_cache, []
        kept = frame.copy() if self.reuse else None  # (the camera may reuse its buffer)
        xy, sig = list(xy), list(sig)
        for i, k in enumerate(kinds):
            if k not in bc.base_kinds:
                continue
            kd = self.kinds[k]
            start = np.asarray(xy[i], float)
            res = None
            near = [(old_frame, old_res) for old_start, old_frame, old_res in last
                    if np.hypot(*(old_start - start)) <= self.config.reuse_mm]
            if near:  # (a live loop: the last frame's figures)
                hull = _body_hull(T, start, kd.radius, 0.0, kd.height)
                box = (*hull.min(0), *hull.max(0))
                res = next((old_res for old_frame, old_res in near if self._unchanged(frame, old_frame, box)), None)
            if res is None:
                others = [_body_hull(T, xy[j], self.kinds[kinds[j]].radius, 0.0, self.kinds[kinds[j]].height)
                          for j in range(len(kinds)) if j != i and kinds[j] in self.kinds
                          and np.hypot(*(np.asarray(xy[j]) - start)) < 3.0 * (kd.radius + self.kinds[kinds[j]].radius) + kd.height]
                others += _outlines_near(T, obs, start, kd.radius, kd.height)
                res = fit_figure_base(frame, bg, T, start, kd.radius, kd.height, bc, self.config.refine, others) or (None,)
                if res[0] is None and k in bc.base_retry_kinds and props is not None:
                    res = self._base_from_top(frame, props[i], kd, start, others) or res
                    if res[0] is None and len(res) > 2 and bc.base_far_share > 0:
                        places = [xy[j] for j in range(len(kinds)) if j != i] + list(obs.xy)
                        res = self._far_base(props[i], kd, start, res, places) or res
            if self.reuse:
                self._base_cache.append((start, kept, res))
            if res[0] is not None:
                xy[i], sig[i] = res
            elif len(res) > 1:  # a base found beyond the gate: the figure stands at either place (as two sizes of a disc)
                sig[i] = float(np.hypot(sig[i], 0.5 * res[1]))
        return xy, sig

    def _base_from_top(self, frame, p, kd, start, others) -> tuple | None:
        """A figure's base fitted from where the top of its silhouette ``p`` puts it
        (:func:`vision.blobs.figure_top_base`, the body's rim ``carve_top`` of the footprint radius),
        when that is beyond the gate from ``start`` (the place its bottom gave, whose fit failed): a
        body of the mat's own colour leaves only the figure's head in the difference, whose bottom is
        then no base. The fit's result (:func:`vision.blobs.fit_figure_base`) when it found a base
        within the gate of that place; else None."""
        from vision.blobs import figure_top_base, fit_figure_base

        bc, T = self.blob_config, self.transform
        top = figure_top_base(p, T, bc.carve_top * kd.radius, kd.height)
        if not np.all(np.isfinite(top)) or np.hypot(*(top - start)) <= bc.base_gate_fraction * kd.radius:
            return None
        res = fit_figure_base(frame, self.background.raw, T, top, kd.radius, kd.height, bc, self.config.refine, others)
        return res if res is not None and res[0] is not None else None

    def _far_base(self, p, kd, start, res: tuple, places: list) -> tuple | None:
        """A base fitted beyond the gate (``res``: None, the distance, the base, its σ, from
        :func:`vision.blobs.fit_figure_base`) taken for the figure's when its silhouette ``p`` is
        short of a whole figure's (at most ``base_far_area`` of the area of the figure standing at
        ``start``, its place from the silhouette: a body of the mat's colour leaves out all but the
        head, whose bottom is no base), the figure standing at the base found explains the silhouette
        (at least ``base_far_share`` of its pixels within the hull of its base and top rims, grown by
        ``absorb_margin_mm``), and no other piece found (``places``, mat mm) stands within the gate
        of it. (A token lying against a whole figure is a base's size and height too.) Returns (base,
        σ) or None."""
        import cv2

        from vision.blobs import figure_area_px, figure_outline_px, pixels_in_hull

        bc, T = self.blob_config, self.transform
        c, sigma = np.asarray(res[2], float), float(res[3])
        gate = bc.base_gate_fraction * kd.radius
        whole = figure_area_px(T, start, kd.radius, kd.height)
        if not np.isfinite(whole) or int(p.region.sum()) > bc.base_far_area * whole:
            return None
        if any(np.hypot(*(np.asarray(q, float) - c)) <= gate for q in places):
            return None
        outline = figure_outline_px(T, c, kd.radius + bc.absorb_margin_mm, kd.height)
        if not np.isfinite(outline).all():
            return None
        hull = cv2.convexHull(outline.astype(np.float32)).reshape(-1, 2)
        share = pixels_in_hull(p, hull) / max(int(p.region.sum()), 1)
        return (c, sigma) if share >= bc.base_far_share else None

    def _carve(self, frame, p, k: str, cache, xy, kinds, conf, sig, found, carved) -> tuple:
        """The tokens lying against a figure of kind ``k`` whose proposal ``p`` holds them: when
        parts of ``p`` lie outside the silhouette of the figure standing at its base
        (:func:`vision.blobs.carve_figure`), the figure is placed again two ways, by its base found
        without those parts and by the top of its silhouette (:func:`vision.blobs.figure_top_base`);
        the parts outside each are classified (one call) and those of the way whose parts are named
        a token more surely (at least ``carve_conf``) are added to the lists as tokens (their indices
        in ``found`` to ``carved``). Returns the figure's proposal without them and its base (mat mm)."""
        key = None
        if self.reuse:  # a live loop: the same blob on an unchanged patch is cut as in the last frame
            x0, y0, x1, y1 = p.box
            key = (p.box, hash(p.region.tobytes()))
            old = self.__dict__.get("_carve_last", {}).get(key)
            patch = frame[y0:y1, x0:x1]
            if old is not None and float(np.mean(np.abs(patch.astype(np.int16) - old[0]))) < self.config.reuse_level:
                self._carve_now[key] = old
                return self._carve_add(old[1], xy, kinds, conf, sig, found, carved, old[2], old[3])
        own, base, best = self._carve_fresh(frame, p, k, cache)
        if key is not None:
            self._carve_now[key] = (patch.astype(np.int16), best, own, base)
        return self._carve_add(best, xy, kinds, conf, sig, found, carved, own, base)

    def _carve_add(self, best, xy, kinds, conf, sig, found, carved, own, base) -> tuple:
        """Add the tokens ``best`` cut off a figure (:meth:`_carve`) to the lists; (``own``, ``base``)."""
        for t, tk, tc, pr, at in best:
            xy.append(at)
            kinds.append(tk)
            conf.append(pr)
            sig.append(self.blob_config.sigma_of(tc, float(self.transform.mm_per_px(at[None])[0])))
            found.append(t)
            carved.add(len(found) - 1)
        return own, base

    def _carve_fresh(self, frame, p, k: str, cache) -> tuple:
        """:meth:`_carve` computed: (the figure's proposal without the tokens, its base, the tokens
        as (proposal, kind, class, confidence, mat mm position)); with no token, the figures of its
        kind beside it (``carve_peel``) in the place of the tokens."""
        from vision.blobs import (FIGURE_CLASSES, carve_tries, figure_area_px, figure_base, kind_of, part_key, proposal_crops,
                                  remove_parts, split_figures, unique_parts)

        bc, T = self.blob_config, self.transform
        radius, h = self.kinds[k].radius, self.kinds[k].height
        r = bc.figure_base_fraction * radius
        # the base found again without the parts first cut off, or from the silhouette's top: the
        # parts of the way whose parts named a token cover more of the blob (a placing off the
        # figure's foot cuts a sliver of the token, which may be named more surely than the whole),
        # then the surer
        base, tries = carve_tries(p, T, radius, h, bc)
        uniq = unique_parts(tries)  # the parts of both, classified in one call (the same part once)
        if not uniq:
            return p, base, []
        cls = self.blob_model.classes
        parts = list(uniq.values())
        Q = dict(zip(uniq, self._blob_probs(proposal_crops(frame, T, parts, bc),
                                            np.array([t.centre for t in parts], float), cache)))
        best, best_key = [], (0.0, 0.0)
        for one in tries:
            named = []
            for t in one:
                row = Q[part_key(t)]
                tc = str(cls[int(row.argmax())])
                tk = kind_of(self.game, tc, self.kinds)
                if tk is not None and tc not in FIGURE_CLASSES and tc != "card" and row.max() >= bc.carve_conf:
                    named.append((t, tk, tc, float(row.max())))
            key = (sum(n[0].area_mm2 for n in named), max((n[3] for n in named), default=0.0))
            if named and key > best_key:
                best, best_key = named, key
        if not best and bc.carve_peel > 0:
            # no token: the parts outside the figure placed by its base found without them that are a
            # figure of its kind (at least carve_peel of one's silhouette) are other figures standing
            # beside it: peeled off, each cut as split_figures cuts a figure's blob
            peel = []
            for t in tries[0]:
                row = Q[part_key(t)]
                tc = str(cls[int(row.argmax())])
                if kind_of(self.game, tc, self.kinds) != k or row.max() < bc.min_conf:
                    continue
                one = figure_area_px(T, T.image_to_mat(np.array([t.centre], float), h / 2.0)[0], radius, h)
                if np.isfinite(one) and t.region.sum() >= bc.carve_peel * one:
                    peel.append((t, float(row.max())))
            if not peel:
                return p, base, []
            figures = []
            for t, pr in peel:
                for q in (split_figures(t, T, radius, h, bc.figure_split, extent_ratio=bc.figure_split_extent)
                          if bc.figure_split > 0 else [t]):
                    figures.append((q, k, k, pr, figure_base(q, T, r, h)))
            own = remove_parts(p, [t for t, _ in peel])
            return own, figure_base(own, T, r, h), figures
        if not best:
            return p, base, []
        tokens = [(t, tk, tc, pr, T.image_to_mat(np.array([t.centre], float), self.kinds[tk].height / 2.0)[0])
                  for t, tk, tc, pr in best]
        p = remove_parts(p, [t[0] for t in best])  # the figure without the tokens cut off, its base found again
        return p, figure_base(p, T, r, h), tokens

    def _texture_mask(self, frame, dark: np.ndarray) -> np.ndarray:
        """The figures' mask ``dark`` with the pixels :meth:`Background.texture_small` adds (a grey
        figure that only darkens the mat, as a shadow does, but not its print), less those near
        what ``dark`` had removed (hands and their margin, the board's fixed blocks)."""
        import cv2

        bc, bg = self.blob_config, self.background
        plain, extra = bg.texture_small(frame, self.config.diff_threshold, bc.dark_floor, bc.texture_low,
                                        bc.texture_residual, bc.texture_window)
        h, w = plain.shape
        # what dark had removed (hands, fixed blocks): the same mask's pixels that it lacks
        removed = cv2.morphologyEx(np.where((plain > 0) & (cv2.resize(dark, (w, h), interpolation=cv2.INTER_NEAREST) == 0),
                                            255, 0).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        if removed.any():
            scale = board_scale(self.transform, self.board)
            r = max(1, int(round(bg.scale * self.config.hand_margin_mm / scale)))
            extra[cv2.dilate(removed, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) > 0] = 0
        if not extra.any():
            return dark
        # at full size: the whole mask less the plain one (the extra pixels' own mask would lose the
        # thin parts that join the plain mask's)
        t = self.config.diff_threshold
        extra = np.where((bg.foreground(None, t, plain | extra, frame.shape) > 0)
                         & (bg.foreground(None, t, plain, frame.shape) == 0), 255, 0).astype(np.uint8)
        if bc.texture_open > 1:  # the rim a window straddling any piece's outline adds round it
            extra = cv2.morphologyEx(extra, cv2.MORPH_OPEN, cv2.getStructuringElement(
                cv2.MORPH_ELLIPSE, (bc.texture_open, bc.texture_open)))
        return np.maximum(dark, extra)

    def _blob_probs(self, crops: list, centres: np.ndarray, cache) -> np.ndarray:
        """The non-round classifier's (n, k) game probabilities of crops centred at ``centres`` (n, 2)
        image px. With ``reuse``, a crop of the last frame at the same place (within 1.5 px) that has
        not changed (mean difference below ``reuse_level``) keeps its probabilities
        (``blobs_reused`` counts them); this frame's crops are kept for the next."""
        from vision.blobs import game_probs

        n = len(crops)
        P = np.zeros((n, len(self.blob_model.classes)))
        todo = np.ones(n, bool)
        if self.reuse and cache is not None and len(cache[0]) and n:
            old_c = np.asarray(cache[0], float).reshape(-1, 2)
            for i in range(n):
                d = np.hypot(old_c[:, 0] - centres[i, 0], old_c[:, 1] - centres[i, 1])
                j = int(np.argmin(d))
                if d[j] <= 1.5 and float(np.mean(np.abs(crops[i].astype(np.int16) - cache[1][j]))) < self.config.reuse_level:
                    P[i] = cache[2][j]
                    todo[i] = False
        if todo.any():
            P[todo] = game_probs(self.blob_model, [crops[i] for i in np.nonzero(todo)[0]], self.game)
        self.blobs_reused += int((~todo).sum())
        if self.reuse:
            self._blob_cache[0].extend(np.asarray(centres, float).reshape(-1, 2))
            self._blob_cache[1].extend(crops)
            self._blob_cache[2].extend(P)
        return P

    def _unchanged(self, frame, old_frame, box) -> bool:
        """Whether the image patch in ``box`` (x0, y0, x1, y1 image px) is the same in both frames
        (mean difference below ``reuse_level`` grey levels)."""
        h, w = frame.shape[:2]
        x0, y0 = max(int(box[0]) - 2, 0), max(int(box[1]) - 2, 0)
        x1, y1 = min(int(np.ceil(box[2])) + 3, w), min(int(np.ceil(box[3])) + 3, h)
        a, b = frame[y0:y1, x0:x1], old_frame[y0:y1, x0:x1]
        return bool(a.size) and float(np.mean(np.abs(a.astype(np.int16) - b))) < self.config.reuse_level

    def _attributes_cached(self, frame, obs: Observation) -> dict:
        """:func:`_attributes` for the pieces that changed since the last frame; a piece found again
        at the same place (within ``reuse_mm``, same kind) whose patch has not changed keeps its
        last attributes (``attributes_reused`` counts them). With ``attributes_still``, a piece
        whose patch changed since the last frame (it moves, blurred, or something passes over it)
        is not classified: its attributes are unknown ("") until its patch holds still for a frame
        (``attributes_moving`` counts them)."""
        n = len(obs)
        cache, self._attr_cache, self.attributes_reused, self.attributes_moving = self._attr_cache, None, 0, 0
        src = np.full(n, -1)
        moving = np.zeros(n, bool)
        if self.reuse and cache is not None and cache[0].shape == frame.shape and len(cache[1]):
            old_frame, old_xy, old_kinds, _, old_moving = cache
            boxes = _boxes_of(self.transform, obs)
            for i in range(n):
                d = np.linalg.norm(old_xy - obs.xy[i], axis=1)
                j = int(np.argmin(d))
                if not self._unchanged(frame, old_frame, boxes[i]):
                    moving[i] = self.config.attributes_still
                elif d[j] <= self.config.reuse_mm and old_kinds[j] == obs.kind[i] and not old_moving[j]:
                    src[i] = j
        fresh = (src < 0) & ~moving
        self.attributes_reused = int((src >= 0).sum())
        self.attributes_moving = int(moving.sum())
        new = _attributes(frame, self.transform, obs[fresh], self.game, self.profile) if fresh.any() else {}
        old = cache[3] if cache is not None else {}
        out = {}
        for key in set(new) | set(old):
            col = np.full(n, "", dtype=object)
            if key in new:
                col[fresh] = new[key]
            if key in old and (src >= 0).any():
                col[src >= 0] = old[key][src[src >= 0]]
            out[key] = col
        if self.reuse:
            self._attr_cache = (frame.copy(), obs.xy.copy(), list(obs.kind), out, moving)
        return out

    def _apart_lying(self, frame, obs: Observation) -> Observation:
        """``obs`` less the round pieces that overlap another more than lying pieces can
        (:func:`_lying_apart`, ``lying_apart``); of two such, the one whose cylinder explains the
        frame better on the pixels of both (:func:`vision.refine.radius_choice`, with the empty
        mat) stays. Thin tokens (below ``lying_min_height_mm``: one may lie partly on another) only
        among themselves and closer (``thin_apart``: one token found twice)."""
        cfg = self.config
        names = {k.name for k in self.round if k.height >= cfg.lying_min_height_mm}
        thin = {k.name for k in self.round if k.height < cfg.lying_min_height_mm} if cfg.thin_apart > 0 else set()
        for group, gap, refit in ((names, cfg.lying_apart, cfg.lying_refit), (thin, cfg.thin_apart, False)):
            if group:
                obs = self._apart_group(frame, obs, group, gap, refit)
        return obs

    def _apart_group(self, frame, obs: Observation, names: set, gap: float, refit: bool = False,
                     cylinders: bool = True) -> Observation:
        """``obs`` less the finds of the kinds ``names`` that overlap another of them closer than
        ``gap`` × the sum of their radii (:func:`_lying_apart`). With ``cylinders`` (round pieces), of
        two such the one whose cylinder explains the frame better stays (:meth:`_apart_lying`), and with
        ``refit`` those dropped are fitted again at the smaller sizes (:meth:`_refit_smaller`; not thin
        tokens: a Morris shelter found twice is no egg); without (figures), the smaller σ, then the
        higher confidence."""
        from vision.refine import radius_choice

        idx = np.array([i for i, k in enumerate(obs.kind) if k in names and np.isfinite(obs.sigma[i])], int)
        if len(idx) < 2:
            return obs
        bg = self.background.raw if self.background is not None and cylinders else None

        def better(a, b):
            i, j = idx[a], idx[b]
            if bg is None or obs.height[i] != obs.height[j]:
                return False
            if _inside(obs.xy[i], float(obs.radius[i]), obs.xy[j], float(obs.radius[j])):
                # (one inside the other's top, not stacked: one piece found twice at two sizes, which
                # the cylinders' scores at one blur tell apart worse than the fits' σ: the surer stays)
                return False
            _, sc = radius_choice(frame, bg, self.transform, obs.xy[[i, j]], obs.radius[[i, j]], float(obs.height[i]),
                                  self.config.refine)
            return bool(sc[0] < sc[1])

        ok = _lying_apart(obs.xy[idx], obs.radius[idx], obs.sigma[idx], gap, better,
                          confidence=None if cylinders else obs.confidence[idx], stack_max=self._stack_max(names))
        if ok.all():
            return obs
        keep = np.ones(len(obs), bool)
        keep[idx[~ok]] = False
        out = obs[keep]
        if refit and bg is not None:
            out = self._refit_smaller(frame, out, obs, idx[~ok], names)
        return out

    def _stack_max(self, names: set) -> float:
        """The largest radius of a round piece of the kinds ``names`` that can stand on another: with
        ``stack_smallest`` only the smallest size (the ball, a tail or a token on a dinosaur; an egg on
        a shelter); a disc on a disc is no state of the game, but one disc found twice at two sizes,
        one inside the other, looked like it."""
        sizes = [k.radius for k in self.round if k.name in names]
        return min(sizes) if self.config.stack_smallest and sizes else np.inf

    def _apart_figures(self, frame, obs: Observation) -> Observation:
        """``obs`` less the figures (racers, the toucan, the hunter) whose bases overlap another
        figure's more than two standing figures can (centres closer than ``figures_apart`` × the sum
        of their radii): one figure found twice, or a part of one (its head, a silhouette cut in two)
        placed as another. Of two such, the surer stays (the smaller σ, then the higher confidence)."""
        from vision.blobs import FIGURE_CLASSES

        return self._apart_group(frame, obs, set(FIGURE_CLASSES), self.config.figures_apart, cylinders=False)

    def _within_counts(self, obs: Observation) -> Observation:
        """``obs`` with no more finds of a kind than the game has pieces of it (the specs' ``count``:
        one hunter, one toucan, one of each Dodo Dash projectile …): the surest stay (the smaller σ,
        then the higher confidence). Kinds without a count are left be, and so are the round kinds
        told apart by their size alone (Dino Dunk's discs and the ball: a disc found at the wrong
        size is a wrong size, and dropping it would lose the piece)."""
        keep = np.ones(len(obs), bool)
        kinds = np.asarray(obs.kind, dtype=object)
        sized = {k.name for k in self.round if any(o.height == k.height and o.radius != k.radius for o in self.round)}
        for name, kind in self.kinds.items():
            if kind.count <= 0 or name in sized:
                continue
            idx = np.flatnonzero(kinds == name)
            if len(idx) <= kind.count:
                continue
            keep[idx[_surest_first(obs.sigma[idx], np.asarray(obs.confidence, float)[idx])][kind.count:]] = False
        return obs if keep.all() else obs[keep]

    def _refit_smaller(self, frame, kept: Observation, obs: Observation, lost, names: set) -> Observation:
        """``kept`` with the round pieces ``lost`` (indices into ``obs``, dropped by
        :meth:`_apart_lying`) fitted again from their candidate's place at the smaller sizes of their
        height only, each added where that fit is ok, placed within its own radius (its σ grown by
        how far the fitted outline is from the size's, in quadrature), and overlaps no piece kept
        (nor one added) of the kinds ``names`` more than lying pieces can (``lying_refit``). A ball
        wedged between two discs makes one part of the mask with their edges, which a larger size
        explains best; fitted so, it overlapped a disc and was dropped."""
        T, cfg = self.transform, self.config
        rough = getattr(self, "_rough", {})
        stack_max = self._stack_max(names)
        for i in lost:
            h, r0 = float(obs.height[i]), float(obs.radius[i])
            sizes = sorted({k.radius for k in self.round if k.height == h and k.radius < r0 - 1e-6})
            if not sizes:
                continue
            start = np.asarray(rough.get((float(obs.xy[i][0]), float(obs.xy[i][1])), obs.xy[i]), float)
            res = self._fit_again(frame, start, sizes[-1], sizes, h, _outlines_near(T, kept, start, r0, h))
            got = self._refit_taken(res, sizes, h, len(sizes) - 1)
            if got is None:
                continue
            c, sig, kind = got
            r = kind.radius
            if cfg.max_sigma_radius > 0 and sig > cfg.max_sigma_radius * r:
                continue
            if any(kept.kind[j] in names and _overlap(c, r, kept.xy[j], kept.radius[j], cfg.lying_apart, stack_max)
                   for j in range(len(kept))):
                continue
            kept = _with_pieces(kept, c, [r], [h], [kind.name], [float(obs.confidence[i])], [sig])
        return kept

    def _refit_beside_figures(self, frame, obs: Observation) -> Observation:
        """``obs`` with the round candidates found from a peak whose fit failed (``_unfit``, from
        :meth:`_refined`) and whose outline comes within ``figure_refit_mm`` of a figure's silhouette
        in the image (a racer, the toucan, the hunter found) fitted again from their candidate's
        place, the figures' silhouettes (their rims' hull, grown by the blobs' ``absorb_margin_mm``)
        left out of the fit: an egg against the toucan makes one part of the difference with it, and
        its first fit, not knowing the toucan, was drawn into it. Each is added where that fit is sound
        (:meth:`_refit_taken`), lies within its own radius of the candidate and overlaps no piece found
        (nor one added) more than lying pieces can."""
        import cv2

        from vision.blobs import FIGURE_CLASSES, _body_hull

        T, cfg = self.transform, self.config
        figs = [j for j in range(len(obs)) if obs.kind[j] in FIGURE_CLASSES]
        if not figs or self.background is None:
            return obs
        grow = self.blob_config.absorb_margin_mm if self.blob_config is not None else 0.0
        hull = {j: _body_hull(T, obs.xy[j], float(obs.radius[j]) + grow, 0.0, float(obs.height[j])) for j in figs}
        kept = obs
        for start, radii, h, score in self._unfit:
            # (in the image: a figure's silhouette reaches far from its base toward the camera's far side)
            at = T.mat_to_image(start[None], h)[0]
            reach = (max(radii) + cfg.figure_refit_mm) / float(T.mm_per_px(start[None], h)[0])
            near = [j for j in figs
                    if cv2.pointPolygonTest(hull[j].astype(np.float32), (float(at[0]), float(at[1])), True) >= -reach]
            if not near:
                continue
            hulls = [hull[j] for j in near]
            res = self._fit_again(frame, start, radii[0], radii, h, hulls + _outlines_near(T, kept, start, max(radii), h))
            got = self._refit_taken(res, radii, h, 0)
            if got is None:
                continue
            c, sig, kind = got
            r = kind.radius
            if np.hypot(*(c - start)) > r or (cfg.max_sigma_radius > 0 and sig > cfg.max_sigma_radius * r):
                continue
            if any(np.hypot(*(c - kept.xy[j])) < cfg.lying_apart * (r + kept.radius[j]) for j in range(len(kept))):
                continue
            kept = _with_pieces(kept, c, [r], [h], [kind.name], [score], [sig])
        return kept

    def _fit_again(self, frame, start, radius: float, radii: list, h: float, exclude: list):
        """:func:`refine_discs` on one piece again (the refits: :meth:`_refit_smaller`,
        :meth:`_refit_beside_figures`, :meth:`_size_checked`): from ``start`` (2,) mat mm at the sizes
        ``radii`` (mm) of height ``h``, starting at ``radius``; the board's fixed blocks and the image
        px outlines ``exclude`` left out of the fit."""
        return refine_discs(frame, self.transform, np.asarray(start, float)[None], np.array([radius]), np.array([h]),
                            self.config.refine, background=self.background.raw, radius_choices=[list(radii)],
                            exclude=list(self.static) + list(exclude), shade=self._shade)

    def _light_shade(self, frame, cand: Candidates, mask):
        """The shade the frame's light predicts on the mat (:class:`vision.shadows.ShadeModel`), the light
        read round the round candidates (:func:`vision.shadows.estimate_light`, ``self.light``); None
        without an empty mat, round candidates or shadows."""
        from vision.shadows import ShadeModel, estimate_light

        if self.background is None or not len(cand.xy):
            return None
        kinds = [self.kinds[k] for k in cand.kind]
        rnd = np.array([k.round for k in kinds], bool)
        if not rnd.any():
            return None
        xy = cand.xy[rnd]
        radius = np.array([k.radius for k, r in zip(kinds, rnd) if r])
        height = np.array([k.height for k, r in zip(kinds, rnd) if r])
        if self.light is None and self._since_light is None:
            # (the first frame only: a light read round the fitted pieces of an earlier one is surer, and
            # where there is none to read, none is looked for again until the next reading's turn)
            self.light = estimate_light(frame, self.background.raw, self.transform, xy, radius, height, mask)
        return ShadeModel(self.transform, self.light, xy, radius, height) if self.light is not None else None

    def _relight(self, frame, obs: Observation) -> None:
        """The light read again round the round pieces as fitted (placed and sized: surer than round the
        candidates), for the frames after; kept if none can be read."""
        from vision.shadows import estimate_light

        self._since_light = 0
        rnd = np.array([self.kinds[k].round for k in obs.kind], bool) if len(obs) else np.zeros(0, bool)
        if rnd.any():
            light = estimate_light(frame, self.background.raw, self.transform, obs.xy[rnd], obs.radius[rnd],
                                   obs.height[rnd], self._not_mat)
            if light is not None:
                self.light = light

    def _size_off(self, radius: np.ndarray, fitted: np.ndarray, xy: np.ndarray, peak: np.ndarray) -> np.ndarray:
        """(n,) whether each round fit's radius ``fitted`` (mm) is too far off its size's ``radius``
        to be that piece or any: by more than 0.3 of it, or, for a candidate from a peak of the mask
        (``peak``, not a fragment) or a piece fitted again, by more than ``radius_slack_px`` image px
        at its place ``xy`` (n, 2) mat mm, never more than ``radius_slack_max`` of it (far back a px of
        blur at the rim is a good part of a small piece's radius)."""
        cfg = self.config
        slack = np.where(peak, cfg.radius_slack_px * self.transform.mm_per_px(xy), 0.0)
        return np.abs(radius - fitted) > np.maximum(0.3 * radius, np.minimum(slack, cfg.radius_slack_max * radius))

    def _refit_taken(self, fit, radii: list, h: float, default: int):
        """(place (2,) mat mm, σ mm, kind) of a piece fitted again (``fit``, one piece, a
        :class:`vision.refine.Refined`) at the sizes ``radii`` (mm) of height ``h``, the one its fit
        chose (``default`` when none), or None where the fit is unsound: an outline grown or
        shrunk too far from the size's is not a piece of it (:meth:`_size_off`, as the first fits, a
        second look counting as a peak's). Its σ is grown by how far the fitted outline is from the
        size's, in quadrature (a contested place)."""
        c, sig = fit.xy[0].copy(), float(fit.sigma[0])
        pick = int(fit.choice[0]) if fit.choice is not None else default
        r = radii[pick] if 0 <= pick < len(radii) else np.nan
        if not (fit.ok[0] and np.all(np.isfinite(c)) and np.isfinite(sig) and np.isfinite(r)) or \
                self._size_off(np.array([r]), fit.radius[:1], c[None], np.ones(1, bool))[0]:
            return None
        sig = float(np.hypot(sig, float(fit.radius[0]) - r))
        return c, sig, next(k for k in self.round if k.height == h and abs(k.radius - r) < 1e-6)

    def _refine_cached(self, frame, rough, kinds, radius, height, bg, choices=None, weak=None, hands=()):
        """:func:`refine_discs` on the pieces that changed since the last frame; the rest reused.
        ``choices``: per piece the radii it may have, ``weak`` whether it was found from a fragment
        of the mask (see :func:`vision.refine.refine_model`); ``hands``: frame masks left out of the fits."""
        from vision.refine import Refined

        n = len(rough)
        cache, self._cache, self.reused = self._cache, None, 0
        todo = np.ones(n, bool)
        out = Refined(rough.copy(), np.full(n, np.inf), radius.copy(), np.zeros(n), np.zeros(n, bool))
        if self.reuse and cache is not None and cache[0].shape == frame.shape and len(cache[1]):
            old_frame, old_rough, old_kinds, old = cache
            mmpp = self.transform.mm_per_px(rough)
            for i in range(n):
                d = np.linalg.norm(old_rough - rough[i], axis=1)
                j = int(np.argmin(d))
                if d[j] > self.config.reuse_mm or old_kinds[j] != kinds[i]:
                    continue
                c = self.transform.mat_to_image(rough[i:i + 1], height[i] / 2)[0]
                half = int(np.ceil((radius[i] + height[i]) / mmpp[i])) + 3
                x0, y0 = max(int(c[0]) - half, 0), max(int(c[1]) - half, 0)
                a = frame[y0:int(c[1]) + half + 1, x0:int(c[0]) + half + 1]
                b = old_frame[y0:int(c[1]) + half + 1, x0:int(c[0]) + half + 1]
                if a.size and float(np.mean(np.abs(a.astype(np.int16) - b))) < self.config.reuse_level:
                    for name in ("xy", "sigma", "radius", "quality", "ok", "residual", "choice"):
                        getattr(out, name)[i] = getattr(old, name)[j]
                    todo[i] = False
            self.reused = int((~todo).sum())
        if todo.any():
            sub = [choices[i] for i in np.nonzero(todo)[0]] if choices is not None else None
            res = refine_discs(frame, self.transform, rough[todo], radius[todo], height[todo], self.config.refine, background=bg,
                               radius_choices=sub, exclude=list(self.static) + list(hands),
                               weak=np.asarray(weak, bool)[todo] if weak is not None else None, shade=self._shade)
            for name in ("xy", "sigma", "radius", "quality", "ok", "residual", "choice"):
                getattr(out, name)[todo] = getattr(res, name)
        if self.reuse:
            self._cache = (frame.copy(), rough.copy(), list(kinds), out)
        return out

    def _size_checked(self, frame, idx, res, good, kinds: list, cand: Candidates) -> list:
        """``kinds`` with the round finds the "size" classifier says are not of the size fitted fitted
        again: where its probability of that size is under ``size_veto``, the find is fitted from
        where it was fitted (the pieces fitted beside it left out) at the other sizes it gives at
        least ``size_pick``, the cylinder that explains the frame best picking among them
        (:func:`vision.refine.radius_choice`), and takes that size where the fit is sound (as the
        first fits: within 0.3 of the size's radius). A disc of the mat's colour is
        seen by its white emblem alone, which a ball's cylinder explains as well as the disc's; a ball
        against a disc, by a small disc's. ``res`` (the fits of the finds ``idx``) is updated in place."""
        from vision.classify import ROUND_SIZES, size_crops

        T, cfg = self.transform, self.config
        sizes = {name: self.kinds[name] for name in ROUND_SIZES}
        fitted = np.nonzero(good)[0]
        own = {}  # each fit of one of the classes' sizes: that class
        for j in fitted:
            c = next((c for c, k in sizes.items() if abs(k.radius - kinds[idx[j]].radius) < 1e-6
                      and k.height == kinds[idx[j]].height), None)
            if c is not None:
                own[j] = c
        js = list(own)
        if not js:
            return kinds
        # a piece fitted within ``size_reuse_mm`` of where a piece of its size was in the last frame
        # keeps that verdict (a still piece: the network runs on pieces that moved); its second fit
        # only where its fit was reused (the same place to the bit: its patch unchanged)
        old = self._size_cache if self.reuse else {}
        key = {j: (float(res.xy[j][0]), float(res.xy[j][1]), kinds[idx[j]].name) for j in js}
        P, fresh = {}, []
        for j in js:
            prev = [v for k, v in old.items() if k[2] == key[j][2] and
                    np.hypot(k[0] - key[j][0], k[1] - key[j][1]) <= cfg.size_reuse_mm]
            if prev:
                P[j] = prev[0][0]
            else:
                fresh.append(j)
        if fresh:
            P.update(zip(fresh, self.size_model.predict_proba(
                size_crops(frame, T, res.xy[fresh], [kinds[idx[j]].height for j in fresh]))))
        cache = {key[j]: (P[j], None) for j in js}
        classes = list(self.size_model.classes)
        others = Observation(xy=res.xy[fitted], radius=np.array([kinds[idx[j]].radius for j in fitted]),
                             height=np.array([kinds[idx[j]].height for j in fitted]), kind=[kinds[idx[j]].name for j in fitted],
                             confidence=np.ones(len(fitted)), sigma=np.ones(len(fitted)))
        where = {j: n for n, j in enumerate(fitted)}  # a fit's row in ``others``
        vetoed = sorted((float(P[j][classes.index(own[j])]), j) for j in js if P[j][classes.index(own[j])] < cfg.size_veto)
        kinds = list(kinds)
        for _, j in vetoed:  # the surest first: a piece fitted again is left out of the next's fit where it now is
            i, p = idx[j], P[j]
            alt = [sizes[c] for c in sorted(classes, key=lambda c: -p[classes.index(c)])
                   if c != own[j] and p[classes.index(c)] >= cfg.size_pick and sizes[c].height == kinds[i].height]
            if not alt:
                continue
            h, start = kinds[i].height, res.xy[j].copy()
            fit = old.get(key[j], (None, None))[1]
            if fit is None:
                near = others[np.linalg.norm(others.xy - start, axis=1) > 1e-6] if len(others) else others
                r_max = max(k.radius for k in alt)
                fit = self._fit_again(frame, start, alt[0].radius, [k.radius for k in alt], h,
                                      _outlines_near(T, near, start, r_max, h))
            cache[key[j]] = (p, fit)
            got = self._refit_taken(fit, [k.radius for k in alt], h, 0)
            if got is None:
                continue
            c, sig, kind = got
            kinds[i] = kind
            cand.kind[i] = kind.name
            res.xy[j], res.sigma[j], res.radius[j] = c, sig, fit.radius[0]
            others.xy[where[j]], others.radius[where[j]] = c, kind.radius
            self.sized += 1
        self._size_cache = cache
        return kinds

    def _refined(self, frame, cand: Candidates, frame_index, timestamp) -> Observation:
        self._rough = {}
        self._unfit = []
        n = len(cand.xy)
        if n == 0:
            return Observation.empty(frame_index, timestamp)
        kinds = [self.kinds[k] for k in cand.kind]
        radius = np.array([k.radius for k in kinds])
        height = np.array([k.height for k in kinds])
        xy = cand.xy.copy()
        conf = np.asarray(cand.score, dtype=float).copy()
        # a box's position: σ a fraction of its size in mm (the box centre is not the base centre)
        mmpp = self.transform.mm_per_px(xy) if n else np.zeros(0)
        wh = np.where(np.isfinite(cand.xyxy[:, 2]), np.maximum(cand.xyxy[:, 2] - cand.xyxy[:, 0], cand.xyxy[:, 3] - cand.xyxy[:, 1]), 0)
        sigma = np.maximum(self.config.box_sigma_fraction * wh * mmpp, 1.0)
        rnd = np.array([k.round for k in kinds], dtype=bool)
        keep = np.ones(n, bool)
        if rnd.any():
            bg = self.background.raw if self.background is not None else None
            idx = np.nonzero(rnd)[0]
            choices = None
            merged = np.zeros(n, bool)
            if self.method in ("classical", "hybrid") and bg is not None:
                # the size class: the mask's peak is a lower bound (a piece whose colour is near the
                # mat's shows only in part); the fit picks among it and the larger kinds of its height
                choices = []
                if self.config.merged_smaller:
                    # two round candidates of one height closer than their radii allow are one part of
                    # the mask: a peak between them says nothing of either's size, the smaller sizes
                    # are open too (where the smallest size spans merged_min_px image px or more: far
                    # back, two sizes differ by a px or two and a second peak in one disc is taken for
                    # a ball)
                    d = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2) + np.diag(np.full(n, np.inf))
                    pair = rnd[:, None] & rnd[None, :] & (height[:, None] == height[None, :])
                    r_min = min(k.radius for k in self.round)
                    merged = (pair & (d < radius[:, None] + radius[None, :])).any(axis=1) & \
                        (r_min / self.transform.mm_per_px(xy) >= self.config.merged_min_px)
                for i in idx:
                    opts = [kinds[i]] + sorted((k for k in self.round if k.height == kinds[i].height
                                                and (k.radius > kinds[i].radius or merged[i])
                                                and k.name != kinds[i].name), key=lambda k: k.radius)
                    uniq = []
                    for k in opts:
                        if all(abs(k.radius - u.radius) > 1e-6 for u in uniq):
                            uniq.append(k)
                    choices.append(uniq)
            res = self._refine_cached(frame, xy[rnd], [cand.kind[i] for i in idx], radius[rnd], height[rnd], bg,
                                      [[k.radius for k in ch] for ch in choices] if choices is not None else None,
                                      cand.fragment[rnd] if cand.fragment is not None else None, hands=cand.hands)
            if choices is not None:
                names = list(cand.kind)
                smaller = np.zeros(n, bool)
                for j, i in enumerate(idx):
                    best = choices[j][int(res.choice[j])]
                    smaller[i] = merged[i] and best.radius < kinds[i].radius
                    names[i], kinds[i] = best.name, best
                if smaller.any():
                    # (sized down beside a piece: dropped after the fit, like a fragment, where it lies
                    # on a piece kept: a second peak in one disc taken for a ball on it)
                    cand.fragment = smaller if cand.fragment is None else (np.asarray(cand.fragment, bool) | smaller)
                radius = np.array([k.radius for k in kinds])
                cand.kind = names
                # a fit too far off its size (:meth:`_size_off`; a fragment takes no slack) is not a round
                # piece of this game at all (a figure, a card, a shadow): drop it
                frag = cand.fragment if cand.fragment is not None else np.zeros(n, bool)
                off = self._size_off(radius[idx], res.radius, xy[idx], ~frag[idx])
                keep[idx[off | ~res.ok]] = False
                # (the candidates from a peak, for a second fit beside the figures found:
                # :meth:`_refit_beside_figures`; a fragment beside a figure is mostly the figure's own)
                self._unfit = [(cand.xy[i].copy(), [k.radius for k in choices[j]], float(height[i]), float(conf[i]))
                               for j, i in enumerate(idx) if (off[j] or not res.ok[j]) and not frag[i]]
            good = res.ok & np.isfinite(res.xy).all(axis=1)
            self.sized = 0
            if self.size_model is not None and choices is not None and good.any():
                # (on copies: the fits are kept as they came for the next frame's reuse)
                res = replace(res, xy=res.xy.copy(), sigma=res.sigma.copy(), radius=res.radius.copy())
                kinds = self._size_checked(frame, idx, res, good, kinds, cand)
                radius = np.array([k.radius for k in kinds])
            xy[idx[good]] = res.xy[good]
            # each fit's candidate place, by the place fitted (:meth:`_refit_smaller`)
            self._rough = {(float(res.xy[j][0]), float(res.xy[j][1])): cand.xy[i].copy()
                           for j, i in enumerate(idx) if good[j]}
            s = np.where(good, res.sigma, np.maximum(sigma[idx], 3.0))
            sigma[idx] = np.where(np.isfinite(s), s, 5.0)
            conf[idx] = conf[idx] * np.where(good, 1.0, 0.5)
        if cand.fragment is not None and cand.fragment.any():
            gap = self.config.fragment_apart if cand.thin is None else \
                np.where(cand.thin, self.config.remainder_apart, self.config.fragment_apart)
            keep &= _apart(xy, radius, keep, cand.fragment, gap)
        if self.config.max_sigma_radius > 0:  # placed less surely than its own size: no place at all
            keep &= ~(rnd & (sigma > self.config.max_sigma_radius * radius))
        obs = Observation(xy=xy, radius=radius, height=height, kind=list(cand.kind), confidence=conf, sigma=sigma,
                          frame_index=frame_index, timestamp=timestamp)
        return obs[keep] if not keep.all() else obs


def _blob_model_file() -> Path:
    from vision.blobs import DEFAULT_MODEL as blob_model

    return blob_model


def load_model(path: str | Path, config: DetectConfig | None = None):
    """A YOLO detector from an ``.onnx`` (ONNX Runtime) or ``.pt`` (ultralytics) file."""
    from vision.yolo import OnnxDetector, TorchDetector

    config = config or DetectConfig()
    path = Path(path)
    if path.suffix == ".onnx":
        return OnnxDetector(path, conf=config.yolo_conf, iou=config.yolo_iou)
    return TorchDetector(path, conf=config.yolo_conf, iou=config.yolo_iou)


def _boxes_of(transform: MatTransform, obs: Observation) -> np.ndarray:
    """(n, 4) image px boxes around each piece's top face (for attribute crops)."""
    a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    out = np.zeros((len(obs), 4))
    for i in range(len(obs)):
        r = obs.radius[i]
        ring = obs.xy[i] + r * np.column_stack([np.cos(a), np.sin(a)])
        px = transform.mat_to_image(ring, obs.height[i])
        out[i] = [*px.min(0), *px.max(0)]
    return out


def _attributes(frame: np.ndarray, transform: MatTransform, obs: Observation, game: str, profile) -> dict:
    """Team, colour, egg face and card kind from :mod:`vision.classify` where its models exist."""
    try:
        from vision.classify import ModelError, classify_boxes
    except ImportError:
        return {}
    n = len(obs)
    boxes = _boxes_of(transform, obs)
    out: dict = {}
    kind = np.asarray(obs.kind, dtype=object)

    def run(task, sel, key):
        if not sel.any():
            return
        try:
            labels, _ = classify_boxes(frame, boxes[sel], task, profile=profile)
        except (ModelError, OSError, ValueError):
            return
        col = out.setdefault(key, np.full(n, "", dtype=object))
        col[sel] = labels

    if game == "dino-dunk":
        run("team", np.array([str(k).startswith("disc-") or k == "tail" for k in kind]), "team")
    if game == "morris":
        eggs = kind == "egg"
        run("egg-face", eggs, "face")
        run("egg-colour", eggs, "colour")
    if game == "dodo-dash":
        run("colour", kind == "racer", "colour")
    return out
