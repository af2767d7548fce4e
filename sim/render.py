"""Render a simulated table: a :class:`sim.scene.Scene` on a board, seen by a :class:`Camera`.

``render_scene(board, scene, camera, style, seed)`` returns a :class:`RenderResult`: the BGR image
(H x W x 3 uint8, **image px**) and the ground truth per piece id: where its base centre and its
top-face centre are in the image, its bounding box, how much of it is visible (other pieces,
occluders and the frame edge taken into account) and whether it is moving.

How (one frame, one core, about 10 ms of CPU at 640x480 once the camera's maps are cached):
1. the mat is drawn once per (board, style) top-down (:mod:`sim.mat_texture`, a pyramid of exact
   2x reductions) and warped through the camera with ``cv2.remap`` whose maps (output px →
   undistort → ray ∩ mat plane → texture px) are computed once per camera and cached: lens
   distortion comes out exactly as :class:`MatTransform` models it. Each pixel samples the pyramid
   level that matches its footprint (blended with the next near the switch), so a tilted mat is
   sharp near the camera and does not alias far from it;
2. pieces are 3-D bodies (:mod:`sim.bodies`): all their points are projected in one call, shadows
   are cast onto the mat, and bodies are painted far to near (by the distance from the camera to
   their top), with their face art warped onto the top plane; a label image records which body
   owns each pixel, for visible fractions;
3. effects (:mod:`sim.effects`): motion blur of moving pieces, occluders, lighting, glare,
   vignetting, lens softness, noise and JPEG, drawn from the style and the seed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from sim import effects
from sim.bodies import Body, build_body
from sim.camera import Camera
from sim.lru import LruCache
from sim.mat_texture import mat_texture

SHIFT = 4
ONE = 1 << SHIFT


@dataclass(frozen=True)
class PieceTruth:
    """Ground truth of one piece in one frame. Image px unless named: ``base_px`` the base centre,
    ``top_px`` the top-face centre, ``bbox_px`` (x0, y0, x1, y1) of its silhouette clipped to the
    frame (None when none of it is in frame), ``visible`` the fraction of its silhouette seen
    (0..1), ``moving`` sliding or in the air (as :func:`sim.truth.frame_truth` has it), ``base_mm``
    (x, y) and ``z_mm``, ``height_mm`` as in the scene; ``corners_px`` the four
    top corners of a rectangular piece (card, block) in the order (-x-y, +x-y, +x+y, -x+y) of its
    own frame, else None."""

    id: str
    kind: str
    base_px: tuple
    top_px: tuple
    bbox_px: tuple | None
    visible: float
    moving: bool
    base_mm: tuple
    z_mm: float
    height_mm: float
    corners_px: tuple | None = None

    def to_dict(self) -> dict:
        return {"id": self.id, "kind": self.kind, "base_px": list(self.base_px), "top_px": list(self.top_px),
                "bbox_px": None if self.bbox_px is None else list(self.bbox_px), "visible": self.visible,
                "moving": self.moving, "base_mm": list(self.base_mm), "z_mm": self.z_mm, "height_mm": self.height_mm,
                "corners_px": None if self.corners_px is None else [list(c) for c in self.corners_px]}


@dataclass
class RenderResult:
    """``image`` BGR uint8 (H, W, 3); ``truth`` piece id → :class:`PieceTruth`; ``labels`` (H, W)
    uint16: 0 the mat/table, i+1 the piece ``label_ids[i]``, 65535 an occluder; ``timings_ms`` per
    stage (mat, pieces, effects) in wall-clock ms, ``cpu_ms`` the same in process CPU ms."""

    image: np.ndarray
    truth: dict
    camera: Camera
    labels: np.ndarray
    label_ids: list
    timings_ms: dict = field(default_factory=dict)
    cpu_ms: dict = field(default_factory=dict)

    def transform(self):
        return self.camera.transform()


# --------------------------------------------------------------------------------------------
# the mat


_MAPS = LruCache(8)  # per (camera, texture level): the output px → texture px map


def undistorted_pixel_grid(camera: Camera) -> np.ndarray:
    """(H, W, 2) float64: the undistorted image px of every (distorted) output pixel centre."""
    import cv2

    w, h = camera.size
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    grid = np.dstack([xs, ys])
    if not np.any(camera.dist):
        return grid
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10)
    und = cv2.undistortPoints(grid.reshape(-1, 1, 2), camera.K, camera.dist, R=None, P=camera.K, criteria=crit)
    return und.reshape(h, w, 2)


def mat_points_of_pixels(camera: Camera, und_px: np.ndarray) -> tuple:
    """Where the ray of each undistorted image px meets the mat plane: ((..., 2) mat mm, valid)."""
    Kinv = np.linalg.inv(camera.K)
    rays_cam = np.stack([und_px[..., 0] * Kinv[0, 0] + und_px[..., 1] * Kinv[0, 1] + Kinv[0, 2],
                         und_px[..., 0] * Kinv[1, 0] + und_px[..., 1] * Kinv[1, 1] + Kinv[1, 2],
                         np.ones(und_px.shape[:-1])], axis=-1)
    rays = rays_cam @ camera.R  # camera → mat frame (R^T applied to row vectors)
    C = camera.centre_mm()
    dz = rays[..., 2]
    valid = dz > 1e-9
    s = np.where(valid, -C[2] / np.where(valid, dz, 1.0), 0.0)
    pts = np.stack([C[0] + s * rays[..., 0], C[1] + s * rays[..., 1]], axis=-1)
    return pts, valid


def _level_maps(u0: np.ndarray, v0: np.ndarray, level: int):
    """Fixed-point remap maps for texture ``level`` from level-0 texture coordinates (exact: level
    k's continuous coordinate is (u0 + 0.5) / 2^k - 0.5)."""
    import cv2

    f = 1.0 / (1 << level)
    return cv2.convertMaps(((u0 + 0.5) * f - 0.5).astype(np.float32), ((v0 + 0.5) * f - 0.5).astype(np.float32),
                           cv2.CV_16SC2)


def _texture_coords(camera: Camera, tex):
    """Level-0 texture coordinates (u, v) of every output pixel's ray on the mat plane, and valid."""
    pts, valid = mat_points_of_pixels(camera, undistorted_pixel_grid(camera))
    s = tex.scales[0]
    u = np.where(valid, (pts[..., 0] - tex.origin_mm[0]) * s - 0.5, -1e5)
    v = np.where(valid, (pts[..., 1] - tex.origin_mm[1]) * s - 0.5, -1e5)
    return u, v, valid


def _mat_maps(camera: Camera, tex, level: int):
    """Remap maps of one texture level for ``camera`` (cached)."""
    key = ("level", camera.key(), tex.origin_mm, tex.scales[0], tex.levels[0].shape, level)

    def make():
        u, v, _ = _texture_coords(camera, tex)
        return _level_maps(u, v, level)

    return _MAPS.get_or_make(key, make)


LOD_BIAS = -0.5  # a little sharper than isotropic trilinear filtering, at a hint of aliasing
LOD_BAND = 0.2  # half-width (in levels) of the blend between two levels; elsewhere one level alone


def _mat_plan(camera: Camera, tex):
    """Per-pixel level of detail for ``camera`` (cached): [(level, (y0, y1, x0, x1), map1, map2,
    full, band)]: each level's maps on the box where it contributes, ``full`` (uint8) where it is
    copied as is (alone, or under the next level's blend), ``band`` the box and weights where it blends with the level below. A pixel uses the level nearest log2(texels per pixel) (the
    larger of its two axes), blended with the next one within ``LOD_BAND`` of their boundary, so
    near parts of a tilted mat stay sharp, far parts do not alias, and no seam shows."""
    key = ("plan", camera.key(), tex.origin_mm, tex.scales[0], tex.levels[0].shape, len(tex.levels))

    def make():
        u, v, valid = _texture_coords(camera, tex)
        gx = np.hypot(np.gradient(u, axis=1), np.gradient(v, axis=1))
        gy = np.hypot(np.gradient(u, axis=0), np.gradient(v, axis=0))
        top = len(tex.levels) - 1
        lod = np.clip(np.log2(np.maximum(np.maximum(gx, gy), 1e-6)) + LOD_BIAS, 0.0, float(top))
        h0, w0 = tex.levels[0].shape[:2]
        inside = valid & (u > -2) & (v > -2) & (u < w0 + 1) & (v < h0 + 1)  # else the flat table colour
        plan = []
        for k in range(int(np.floor(lod.min())), int(np.ceil(lod.max())) + 1):
            rise = np.clip((lod - (k - 0.5 - LOD_BAND)) / (2 * LOD_BAND), 0.0, 1.0) if k > 0 else 1.0
            fall = np.clip(((k + 0.5 + LOD_BAND) - lod) / (2 * LOD_BAND), 0.0, 1.0) if k < top else 1.0
            w = (np.ones_like(lod) * rise * fall * inside).astype(np.float32)
            rows, cols = np.nonzero(w.max(axis=1))[0], np.nonzero(w.max(axis=0))[0]
            if not len(rows):
                continue
            y0, y1, x0, x1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
            m1, m2 = _level_maps(u[y0:y1, x0:x1], v[y0:y1, x0:x1], k)
            wr = w[y0:y1, x0:x1]
            # the rising edge: where this level blends with the one below (already drawn there)
            rising = (wr > 0) & (wr < 1) & (lod[y0:y1, x0:x1] < k) if plan else np.zeros(wr.shape, bool)
            full = ((wr > 0) & ~rising).astype(np.uint8)  # drawn as is (blended over by the next level)
            band = None
            if rising.any():
                br, bc = np.nonzero(rising.any(axis=1))[0], np.nonzero(rising.any(axis=0))[0]
                b = (br[0], br[-1] + 1, bc[0], bc[-1] + 1)
                wb = np.ascontiguousarray(np.where(rising, wr, 0.0)[b[0]:b[1], b[2]:b[3]]).astype(np.float32)
                band = (b, wb, np.ascontiguousarray(np.where(rising[b[0]:b[1], b[2]:b[3]], 1.0 - wb, 1.0)).astype(np.float32))
            plan.append((k, (y0, y1, x0, x1), m1, m2, full, band))
        return plan

    return _PLANS.get_or_make(key, make)


_PLANS = LruCache(4)  # per (camera, texture geometry): the per-pixel level-of-detail plan


def image_scale_px_per_mm(camera: Camera, board) -> float:
    """Geometric mean over the mat's corners and centre of the image px per mat mm."""
    tr = camera.transform()
    pts = np.vstack([board.corners_mm(), [[board.length_mm / 2, board.width_mm / 2]]])
    scale = 1.0 / tr.mm_per_px(pts)
    scale = scale[np.isfinite(scale) & (scale > 0)]
    return float(np.exp(np.mean(np.log(scale)))) if len(scale) else 1.0


def warp_texture(tex, camera: Camera, level: int | None = None) -> np.ndarray:
    """A top-down texture of the mat plane (any :class:`MatTexture`) as ``camera`` sees it:
    (H, W, C) uint8 in image px, lens distortion included. ``level`` None: per-pixel level of
    detail (what the renderer does); an int: that one level. The one geometric path every mat takes."""
    import cv2

    def remap(k, m1, m2):
        return cv2.remap(tex.levels[k], m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=tex.border)

    if level is not None:
        return remap(level, *_mat_maps(camera, tex, level))
    plan = _mat_plan(camera, tex)
    w_px, h_px = camera.size
    out = np.empty((h_px, w_px) + tex.levels[0].shape[2:], np.uint8)
    out[:] = tex.border  # the table beyond the texture (no level draws there)
    for k, (y0, y1, x0, x1), m1, m2, full, band in plan:
        new = remap(k, m1, m2)
        roi = out[y0:y1, x0:x1]
        cv2.copyTo(new, full, roi)  # alone, or to be blended with the next level
        if band is not None:  # where it blends with the level below, drawn before it
            (b0, b1, c0, c1), wb, keep = band
            sub = roi[b0:b1, c0:c1]
            sub[:] = cv2.blendLinear(sub, new[b0:b1, c0:c1], keep, wb)
    return out


def warp_mat(board, style, camera: Camera) -> np.ndarray:
    """The mat (and table) as the camera sees it: (H, W, 3) uint8, image px."""
    return warp_texture(mat_texture(board, style), camera)


# --------------------------------------------------------------------------------------------
# pieces


def _fixed(px: np.ndarray) -> np.ndarray:
    return np.round(px * ONE).astype(np.int32)


def _face_visible(part, camera_centre: np.ndarray, body_centre: np.ndarray) -> bool:
    c = part.pts.mean(axis=0)
    normal = c - body_centre
    normal[2] = 0.0
    return float(normal @ (camera_centre - c)) > 0


FILL_BIAS_SS = 0.55  # cv2.fillPoly (LINE_8) colours ~0.55 px beyond a polygon's outline: shrink by it


def _ss_poly(px: np.ndarray, origin, ss: int) -> np.ndarray:
    """Image px → fixed-point coordinates on a supersampled (x ``ss``) layer whose pixel (0, 0)
    covers the image pixel ``origin``, pulled in by fillPoly's growth so the fill is exact."""
    big = (px - origin + 0.5) * ss - 0.5
    c = big.mean(axis=0)
    d = big - c
    n = np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)[:, None]
    return np.round((c + d * np.maximum(1.0 - FILL_BIAS_SS / n, 0.0)) * ONE).astype(np.int32)


def _draw_art(layer: np.ndarray, part, origin, ss: int) -> None:
    """Warp the part's (premultiplied BGRA) art onto its projected quad, over the supersampled
    premultiplied BGRA ``layer`` (pixel (0, 0) = image pixel ``origin``)."""
    import cv2

    quad = part.px[:4]
    side_px = max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[3] - quad[0]))
    if side_px < 4.0:  # the art would be below a pixel: the face colour already says it all
        return
    src = part.art.level(side_px * ss / max(part.art.size_mm))
    sh, sw = src.shape[:2]
    src_quad = np.array([[-0.5, -0.5], [sw - 0.5, -0.5], [sw - 0.5, sh - 0.5], [-0.5, sh - 0.5]], np.float32)
    dst_quad = ((quad - origin + 0.5) * ss - 0.5).astype(np.float32)
    M = cv2.getPerspectiveTransform(src_quad, dst_quad)
    h, w = layer.shape[:2]
    warped = cv2.warpPerspective(src, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=(0, 0, 0, 0))
    inv = cv2.bitwise_not(warped[:, :, 3])
    keep = cv2.multiply(layer, cv2.merge([inv, inv, inv, inv]), scale=1 / 255.0)
    cv2.add(keep, warped, dst=layer)


def _hull(part) -> np.ndarray:
    import cv2

    if part.kind != "hull":
        return part.px
    h = getattr(part, "_hull", None)
    if h is None:
        h = cv2.convexHull(part.px.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        part._hull = h
    return h


def _silhouette(body: Body) -> list:
    """Image-px polygons whose union is the body's silhouette (convex hulls and face polygons)."""
    return [_hull(p) for p in body.parts if p.kind in ("hull", "poly", "side") and p.ok]


def _supersampling(area_px: int) -> int:
    return 4 if area_px <= 40_000 else 2 if area_px <= 250_000 else 1


def _draw_body(img, labels, body: Body, label: int, cam_centre, blur: tuple | None):
    """Paint one body with exact anti-aliasing (its parts filled on a supersampled layer, shrunk by
    fillPoly's growth, box-filtered down to coverage); record its silhouette (coverage ≥ 1/2) in
    ``labels``. Returns the silhouette's pixel count (frame edge ignored) and bbox (clipped), or
    (0, None)."""
    import cv2

    H, W = img.shape[:2]
    sil = _silhouette(body)
    if not sil:
        return 0, None
    allp = np.vstack(sil)
    bx0, by0 = np.floor(allp.min(axis=0)).astype(int) - 1
    bx1, by1 = np.ceil(allp.max(axis=0)).astype(int) + 2
    if bx1 - bx0 > 4 * W or by1 - by0 > 4 * H:
        return 0, None
    bw, bh = bx1 - bx0, by1 - by0
    ss = _supersampling(bw * bh)
    origin = np.array([bx0, by0], dtype=np.float64)
    layer = np.zeros((bh * ss, bw * ss, 4), np.uint8)  # premultiplied BGRA, supersampled
    centre = None
    for p in body.parts:
        if not p.ok:
            continue
        if p.kind == "side":
            if centre is None:
                centre = np.mean(np.vstack([q.pts for q in body.parts]), axis=0)
            if not _face_visible(p, cam_centre, centre):
                continue
        if p.kind in ("hull", "poly", "side"):
            cv2.fillPoly(layer, [_ss_poly(_hull(p), origin, ss)], tuple(p.colour) + (255,), cv2.LINE_8, SHIFT)
        elif p.kind == "art":
            _draw_art(layer, p, origin, ss)
    small = layer if ss == 1 else cv2.resize(layer, (bw, bh), interpolation=cv2.INTER_AREA)
    alpha = small[:, :, 3]
    inside = (alpha >= 128).astype(np.uint8)
    total = int(cv2.countNonZero(inside))
    X0, Y0, X1, Y1 = max(bx0, 0), max(by0, 0), min(bx1, W), min(by1, H)
    if X1 <= X0 or Y1 <= Y0:
        return total, None
    sl = (slice(Y0 - by0, Y1 - by0), slice(X0 - bx0, X1 - bx0))
    roi = img[Y0:Y1, X0:X1]
    inv = cv2.bitwise_not(alpha[sl])
    keep = cv2.multiply(roi, cv2.merge([inv, inv, inv]), scale=1 / 255.0)
    cv2.add(keep, np.ascontiguousarray(small[sl][:, :, :3]), dst=roi)
    sub = inside[sl]
    labels[Y0:Y1, X0:X1][sub > 0] = label
    bx, by, bw2, bh2 = cv2.boundingRect(sub)
    bbox = (float(X0 + bx), float(Y0 + by), float(X0 + bx + bw2), float(Y0 + by + bh2)) if bw2 and bh2 else None
    if blur is not None:
        vel, exposure = blur
        effects.motion_blur(img, np.ascontiguousarray(alpha[sl]), (X0, Y0, X1, Y1), vel, exposure)
    return total, bbox


# --------------------------------------------------------------------------------------------


def render_scene(board, scene, camera: Camera, style=None, seed: int = 0, specs=None) -> "RenderResult":
    """Render ``scene`` (mat mm) on ``board`` through ``camera`` in ``style`` (the clean style if
    None). Same arguments and seed → the same bytes."""
    from sim.style import clean_style

    style = style or clean_style()
    specs = specs or _default_specs()
    rng = np.random.default_rng(seed)
    t0, c0 = time.perf_counter(), time.process_time()
    img = warp_mat(board, style, camera)
    t1, c1 = time.perf_counter(), time.process_time()

    game_specs = specs.of_game(scene.game)
    bodies = [build_body(p, game_specs.get(p.kind), style) for p in scene.pieces]
    for occ in style.occluders:
        if occ.kind == "cup":
            bodies.append(effects.cup_body(occ, board))
    # one projection for every point of every part, and of every shadow
    chunks = []
    for b in bodies:
        chunks.extend(p.pts for p in b.parts)
    shadow_src = [b.shadow_pts for b in bodies] if style.shadow_strength > 0 else []
    shadow_mat = [effects.shadow_points(s, style) for s in shadow_src]
    anchors = np.array([b.anchor for b in bodies]).reshape(-1, 3)
    n = len(scene.pieces)
    heights = [float(-b.anchor[2] - b.piece.z) for b in bodies[:n]]  # anchors are the top centres
    state = np.array([[p.x, p.y, p.z, p.vx, p.vy] for p in scene.pieces]).reshape(-1, 5)
    bases = np.column_stack([state[:, 0], state[:, 1], -state[:, 2]])
    tops = anchors[:n]
    vel_pts = np.column_stack([state[:, 0] + 0.01 * state[:, 3], state[:, 1] + 0.01 * state[:, 4], tops[:, 2]])
    (ldx, ldy), _ = effects.light_direction(style)
    c = (board.length_mm / 2, board.width_mm / 2)
    light_pts = np.array([[c[0], c[1], 0.0], [c[0] + 100 * ldx, c[1] + 100 * ldy, 0.0]])
    corner_sets = [b.corners for b in bodies[:n]]
    allpts = np.vstack(chunks + shadow_mat + [bases, tops, vel_pts, light_pts] + corner_sets)
    px = camera.project(allpts)
    all_ok = bool(np.all(np.isfinite(px)))  # else something is behind the camera: skip those parts
    k = 0
    for b in bodies:
        for p in b.parts:
            p.px = px[k:k + len(p.pts)]
            p.ok = all_ok or bool(np.all(np.isfinite(p.px)))
            k += len(p.pts)
    shadow_px = []
    for s in shadow_mat:
        shadow_px.append(px[k:k + len(s)])
        k += len(s)
    base_px, top_px, vel_px = px[k:k + n], px[k + n:k + 2 * n], px[k + 2 * n:k + 3 * n]
    light_px = px[k + 3 * n:k + 3 * n + 2]
    k += 3 * n + 2
    corners_px = []
    for c in corner_sets:
        corners_px.append(tuple(tuple(map(float, q)) for q in px[k:k + len(c)]) if len(c) else None)
        k += len(c)

    if shadow_px:
        import cv2

        hulls = [cv2.convexHull(s.astype(np.float32)).reshape(-1, 2).astype(np.float64) for s in shadow_px
                 if len(s) and np.all(np.isfinite(s))]
        effects.apply_shadows(img, hulls, style)

    H, W = img.shape[:2]
    labels = np.zeros((H, W), np.uint16)
    cam_centre = camera.centre_mm()
    dist = np.linalg.norm(anchors - cam_centre, axis=1) if len(anchors) else np.zeros(0)
    order = sorted(range(len(bodies)), key=lambda i: (-dist[i], i))
    totals, bboxes = {}, {}
    for i in order:
        b = bodies[i]
        blur = None
        if not b.occluder and b.piece.moving and style.exposure_ms > 0:
            blur = ((vel_px[i] - top_px[i]) / 0.01, style.exposure_ms)
        label = effects.OCCLUDER_LABEL if b.occluder else i + 1
        totals[i], bboxes[i] = _draw_body(img, labels, b, label, cam_centre, blur)
    t2, c2 = time.perf_counter(), time.process_time()

    gdir = _unit(light_px[1] - light_px[0])
    for occ in style.occluders:
        if occ.kind == "hand":
            effects.draw_hand(img, labels, occ, style, gdir)
    counts = np.bincount(labels.ravel(), minlength=n + 1)[: n + 1] if n else np.zeros(1, np.int64)
    truth = {}
    for i, p in enumerate(scene.pieces):
        tot = totals.get(i, 0)
        vis = float(min(1.0, counts[i + 1] / tot)) if tot else 0.0
        truth[p.id] = PieceTruth(p.id, p.kind, tuple(map(float, base_px[i])), tuple(map(float, top_px[i])),
                                 bboxes.get(i) if counts[i + 1] else None, vis, _moving(p),
                                 (float(p.x), float(p.y)), float(p.z), float(heights[i]), corners_px[i])
    # camera effects
    img = effects.apply_lighting(img, style, gdir)
    img = effects.apply_glare(img, style)
    img = effects.apply_defocus(img, style.defocus_px)
    img = effects.apply_noise(img, style.noise_sigma, rng)
    img = effects.apply_jpeg(img, style.jpeg_quality)
    t3, c3 = time.perf_counter(), time.process_time()
    return RenderResult(img, truth, camera, labels, [p.id for p in scene.pieces],
                        {"mat": 1000 * (t1 - t0), "pieces": 1000 * (t2 - t1), "effects": 1000 * (t3 - t2)},
                        {"mat": 1000 * (c1 - c0), "pieces": 1000 * (c2 - c1), "effects": 1000 * (c3 - c2)})


def _moving(p) -> bool:
    """Sliding faster than 1 mm/s, or in the air (above the mat, not carried, not fixed): the same
    rule as the simulator's frame truth (``sim.truth.frame_truth``)."""
    airborne = p.z > 0 and not p.attributes.get("carried_by") and not p.attributes.get("static")
    return bool(p.moving or airborne)


def _unit(d) -> tuple:
    """A unit image direction (towards the light), or straight up when it is undefined."""
    n = float(np.hypot(*d))
    return (float(d[0] / n), float(d[1] / n)) if n > 0 and np.isfinite(n) else (0.0, -1.0)


_SPECS = None


def _default_specs():
    global _SPECS
    if _SPECS is None:
        from calibration.specs import load_specs

        _SPECS = load_specs()
    return _SPECS
