"""``tableref bench vision``: detection + refinement measured on simulated frames the detector never
trained on (other seeds than ``vision/detector_data.py``'s), 640×480, every lighting and occluder
setting of ``sim.style.random_style``.

Views (``view``):

- ``framed`` (the bars): a user frames the mat to fill the view. Tilt 0–50°, the camera on one of
  the mat's long sides (yaw 0° or 180° ± 12°: the mat's length along the image's width), roll ±4°,
  horizontal field of view 55–95°, the lens distortion of the simulator, the look-at point within
  5% of the mat's centre, and the camera at 1.0–1.15× the least height that keeps the whole mat
  (not its outer markers) 8 px inside the frame: the mat fills most of the frame, about 1.4–2.5 mm
  per image px at the mat's centre.
- ``wide``: the simulator's own random camera (``sim.camera.random_camera``: markers in view, any
  yaw, tilt limited to 0–50° here, often far back, up to ~4 mm/px), reported separately: sub-mm
  there asks for a tenth of a pixel or better.

The registration is the true one (``Camera.transform()``): this measures detection and
refinement, not the marker registration. The empty mat is rendered once per frame with the same
camera and lighting, no pieces and no occluders, other noise.

Truth and matching (mat mm): a piece counts for recall when ≥ 80% of its silhouette is seen, it
rests on the mat (z < 1 mm) and its kind is one the detector reports (the classical method: the
round kinds, and the non-round kinds of the game when its classifier ``models/blobs/blobs.npz`` is
there, see ``vision/blobs.py``); pieces that are less visible,
in the air or of kinds it does not report are "don't care" (a detection on them is neither right nor
wrong; one camera cannot see a piece's height, so a piece in the air is also where the camera's ray
to its top meets the plane of the detection's kind). Detections are matched to truth one-to-one by
distance (Hungarian), within 0.6 × the piece's radius (at least 6 mm). A detection left unmatched is
wrong unless it lies on a piece no detection matched (its footprint grown by 3 mm: the visible end
of a part-hidden log or card is such a find; so is one on a piece counted missed because it lay too
far off to match, which is then one error, not two); a second find of a piece already matched is
wrong (a ``duplicate`` in the list). Position error is reported
for pieces ≥ 99% visible, at rest
(``unoccluded``); for round pieces (refined) and for the rest (box position) apart. Every such
piece is also listed in the report (``pieces`` of each method: its frame, kind, the kind found, the
error, its part toward the camera and the claimed σ; ``--json OUT`` writes them) to look into the
tail of the errors; so is every piece missed (``missed``: frame, kind, id, the part seen, mat mm)
and every detection on nothing (``false_positives``: frame, kind, mat mm, the nearest piece and
its distance), for all kinds and for each part (round, non-round) apart.

Each method's recall, precision and position error are also given for the round kinds alone (the
figures comparable with those of a classical detector that found round pieces only) and for the
non-round kinds alone (figures, projectile tokens, cards): ``round_kinds`` and ``other_kinds``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

FRAMED = "framed"
WIDE = "wide"
SUITES = ("dino-dunk/shots", "dino-dunk/fouls", "dodo-dash/throws", "morris/eggs", "dogo-dash/reveals")
BENCH_SEED = 90210  # the training data uses seed 11 (vision/detector_data.py); no overlap


@dataclass
class BenchFrame:
    """One simulated frame: ``image`` and ``empty`` (BGR image px), ``transform`` the true
    registration, ``board``, ``truth`` a list of dicts (id, kind, xy mat mm, visible, z, moving),
    ``params`` the camera's parameters and ``mm_per_px`` at the mat's centre."""

    image: np.ndarray
    empty: np.ndarray
    transform: object
    board: object
    truth: list
    suite: str
    mm_per_px: float
    params: dict = field(default_factory=dict)


def framed_camera(rng: np.random.Generator, board, size=(640, 480), tilt=(0.0, 50.0), fill=(1.0, 1.15),
                  yaw_jitter: float = 12.0):
    """A camera that frames the mat to fill the view (see the module doc)."""
    from sim.camera import CameraRanges, _fits, look_at, view_points_mm

    ranges = CameraRanges()
    pts = view_points_mm(board, markers=False)
    L, W = board.length_mm, board.width_mm
    for _ in range(200):
        t = float(rng.uniform(*tilt))
        # the camera on a long side of the mat (the mat's length along the image's width), turned a little
        yaw = float(rng.choice([0.0, 180.0]) + rng.uniform(-yaw_jitter, yaw_jitter))
        roll, hfov = float(rng.uniform(-4, 4)), float(rng.uniform(55, 95))
        dist = (float(rng.uniform(*ranges.k1)), float(rng.uniform(*ranges.k2)), float(rng.uniform(*ranges.p)),
                float(rng.uniform(*ranges.p)), 0.0)
        pp = (float(rng.uniform(-6, 6)), float(rng.uniform(-6, 6)))
        target = (L / 2 + rng.uniform(-0.05, 0.05) * L, W / 2 + rng.uniform(-0.05, 0.05) * W)

        def make(h):
            return look_at(target, h, t, yaw, roll, hfov, size, dist, pp)

        lo, hi = 50.0, 5000.0
        if not _fits(make(hi), pts, 8.0):
            continue
        for _ in range(30):
            mid = 0.5 * (lo + hi)
            if _fits(make(mid), pts, 8.0):
                hi = mid
            else:
                lo = mid
        h = hi * float(rng.uniform(*fill))
        cam = make(h)
        if _fits(cam, pts, 8.0):
            return cam
    raise RuntimeError("no framed camera found")


def suite_frame(suites, i: int, seed: int, tag: str):
    """Item ``i`` of a rendered data set: scene ``i // len(suites)`` of suite ``i mod len(suites)``
    (suite seed ``seed``), its board, the item's seed ``scene_seed(tag, i, seed)``, a generator
    seeded by it, and the frame index drawn from it (the last frame or a random one, half each).
    Returns ``(scn, board, iseed, rng, fi)``."""
    from sim.suites import _board, make_scenario, scene_seed

    scn = make_scenario(suites[i % len(suites)], i // len(suites), seed)
    board = _board(scn.board)
    iseed = scene_seed(tag, i, seed)
    rng = np.random.default_rng(iseed)
    n = len(scn.run.frames)
    fi = n - 1 if rng.random() < 0.5 else int(rng.integers(n))
    return scn, board, iseed, rng, fi


def render_with_empty(board, scene, camera, style, iseed: int, fi: int):
    """The frame of ``scene`` (``sim.render.RenderResult``) and the empty mat under the same camera
    and light (BGR image; no pieces, no occluders, its own noise)."""
    from dataclasses import replace

    from sim.export import render_seed
    from sim.render import render_scene
    from sim.scene import Scene

    res = render_scene(board, scene, camera, style, render_seed(iseed, fi))
    empty = render_scene(board, Scene(scene.game, scene.board, [], scene.t), camera, replace(style, occluders=()),
                         render_seed(iseed, 10_000 + fi)).image
    return res, empty


def bench_frames(n: int, view: str = FRAMED, seed: int = BENCH_SEED, size=(640, 480), suites=SUITES, progress=None,
                 start: int = 0):
    """Yield ``n`` :class:`BenchFrame` (scene i of suite i mod len(suites), its last or a random frame),
    from frame ``start`` on (each frame is drawn from its own index: the same frames as from 0)."""
    from sim.camera import CameraRanges, random_camera
    from sim.style import random_style
    from sim.truth import footprint

    for i in range(start, start + n):
        suite = suites[i % len(suites)]
        scn, board, iseed, rng, fi = suite_frame(suites, i, seed, "bench-vision")
        scene = scn.run.frames[fi]
        camera = framed_camera(rng, board, size) if view == FRAMED else \
            random_camera(rng, board, CameraRanges(tilt_deg=(0.0, 50.0)), size=size)
        style = random_style(rng)
        res, empty = render_with_empty(board, scene, camera, style, iseed, fi)
        by_id = scene.by_id()
        truth = []
        for pid, t in res.truth.items():
            p = by_id[pid]
            truth.append({"id": pid, "kind": p.kind, "xy": np.array(t.base_mm, dtype=float), "visible": float(t.visible),
                          "z": float(t.z_mm), "moving": bool(t.moving), "radius": float(p.radius or 0.5 * max(p.size or (0,))),
                          "height": float(p.height), "footprint": footprint(p),
                          "attributes": dict(p.attributes)})
        T = camera.transform()
        mmpp = float(T.mm_per_px(np.array([[board.length_mm / 2, board.width_mm / 2]]))[0])
        if progress:
            progress(i - start + 1, n)
        yield BenchFrame(res.image, empty, T, board, truth, suite, mmpp, dict(camera.params))


def match(det_xy: np.ndarray, truth_xy: np.ndarray, gate: np.ndarray) -> list[tuple[int, int]]:
    """One-to-one (detection, truth) pairs by distance in mat mm, each within its truth's ``gate``."""
    from scipy.optimize import linear_sum_assignment

    if len(det_xy) == 0 or len(truth_xy) == 0:
        return []
    d = np.linalg.norm(det_xy[:, None, :] - truth_xy[None, :, :], axis=2)
    cost = np.where(d <= gate[None, :], d, 1e6)
    r, c = linear_sum_assignment(cost)
    return [(int(i), int(j)) for i, j in zip(r, c) if d[i, j] <= gate[j]]


def truth_kind(game: str, piece: dict) -> str:
    """The kind name a detector reports for a simulated piece (tiny Dino Dunk discs are balls)."""
    k = piece["kind"]
    return "ball" if k == "disc-tiny" else k


@dataclass
class Tally:
    """Running counts and errors of one detector on one view."""

    tp: int = 0
    fn: int = 0
    fp: int = 0
    kind_ok: int = 0
    err_round: list = field(default_factory=list)
    sig_round: list = field(default_factory=list)
    err_box: list = field(default_factory=list)
    sig_box: list = field(default_factory=list)
    per_kind: dict = field(default_factory=dict)
    kind_err: dict = field(default_factory=dict)
    ms: dict = field(default_factory=dict)
    cpu: dict = field(default_factory=dict)
    frames: int = 0
    misses: list = field(default_factory=list)
    pieces: list = field(default_factory=list)
    missed: list = field(default_factory=list)
    false_positives: list = field(default_factory=list)

    def add_ms(self, timings: dict, cpu: dict) -> None:
        for k, v in timings.items():
            self.ms.setdefault(k, []).append(v)
        for k, v in cpu.items():
            self.cpu.setdefault(k, []).append(v)


def score_frame(tally: Tally, obs, frame: BenchFrame, reported: set, round_kinds: set, only: set | None = None,
                index: int | None = None) -> None:
    """Add one frame's matches to ``tally`` (see the module doc for what counts). ``only``: count
    only these kinds (the detections and the truth of other kinds are left out; a detection of
    these kinds on a piece of another kind is still not wrong). Each piece whose position error
    counts is also listed in ``tally.pieces`` (:func:`piece_row`; ``index`` the frame's)."""
    game = frame.board.game
    if only is not None:
        reported = set(reported) & set(only)
        obs = obs[np.array([str(k) in only for k in obs.kind], dtype=bool)] if len(obs) else obs
    truth = [t for t in frame.truth if truth_kind(game, t) in reported]
    care = np.array([t["visible"] >= 0.8 and t["z"] < 1.0 for t in truth], dtype=bool)
    txy = np.array([t["xy"] for t in truth]).reshape(-1, 2)
    gate = np.array([max(6.0, 0.6 * t["radius"]) for t in truth])
    pairs = match(obs.xy, txy, gate)
    matched_det = {i for i, _ in pairs}
    matched_truth = {j for _, j in pairs}
    for i, j in pairs:
        t = truth[j]
        if not care[j]:
            continue
        tally.tp += 1
        kind = truth_kind(game, t)
        pk = tally.per_kind.setdefault(kind, [0, 0, 0])
        pk[0] += 1
        ok = str(obs.kind[i]) == kind
        tally.kind_ok += ok
        pk[2] += ok
        if t["visible"] >= 0.99 and not t["moving"]:
            e = float(np.linalg.norm(obs.xy[i] - t["xy"]))
            (tally.err_round if kind in round_kinds else tally.err_box).append(e)
            (tally.sig_round if kind in round_kinds else tally.sig_box).append(float(obs.sigma[i]))
            tally.kind_err.setdefault(kind, []).append((e, float(obs.sigma[i])))
            tally.pieces.append(piece_row(frame, index, t, kind, str(obs.kind[i]), obs.xy[i], float(obs.sigma[i]),
                                          kind in round_kinds))
    for j in range(len(truth)):
        if care[j] and j not in matched_truth:
            tally.fn += 1
            pk = tally.per_kind.setdefault(truth_kind(game, truth[j]), [0, 0, 0])
            pk[1] += 1
            tally.misses.append((frame.suite, truth[j]["id"], round(truth[j]["visible"], 2)))
            tally.missed.append({"frame": index, "suite": frame.suite, "id": str(truth[j]["id"]),
                                 "kind": truth_kind(game, truth[j]), "visible": round(truth[j]["visible"], 3),
                                 "xy": [round(float(v), 1) for v in truth[j]["xy"]]})
    # a detection is wrong when it is on no piece left unclaimed. A second find of a piece another
    # detection matched (within max(8 mm, 0.8 × its radius) of it) is a duplicate: wrong. One on a
    # piece no detection matched (a don't-care piece: part hidden, in the air, of a kind not
    # reported; or a piece counted missed because this find lay too far off to match) is not wrong
    # where it lies on the piece's footprint grown by ON_PIECE_MM (at least 8 mm from its centre), or,
    # for a piece in the air, where the camera sees it (the ray to its base or its top meets the
    # plane the detector assumes within max(8 mm, 0.8 × its radius)).
    claimed = {str(truth[j]["id"]) for j in matched_truth}
    allxy = np.array([t["xy"] for t in frame.truth]).reshape(-1, 2)
    allgate = np.array([max(8.0, 0.8 * t["radius"]) for t in frame.truth])
    is_claimed = np.array([str(t["id"]) in claimed for t in frame.truth], dtype=bool)
    free = [j for j in range(len(frame.truth)) if not is_claimed[j]]
    shapes = {j: _footprint(frame.truth[j]) for j in free}
    air = [j for j in free if frame.truth[j]["z"] >= 1.0] if frame.transform is not None else []
    if air and len(obs):
        T = frame.transform
        ends = [(frame.truth[j]["z"], frame.truth[j]["z"] + frame.truth[j].get("height", 0.0)) for j in air]
        air_px = [np.vstack([T.mat_to_image(allxy[j:j + 1], z) for z in zs]) for j, zs in zip(air, ends)]
        air_gate_px = allgate[air] / T.mm_per_px(allxy[air])
    for i in range(len(obs)):
        if i in matched_det:
            continue
        p = obs.xy[i]
        if any(_on_footprint(shapes[j], frame.truth[j], p) for j in free):
            continue
        if air:
            seen = T.mat_to_image(obs.xy[i:i + 1], float(obs.height[i]))[0]
            if any(_segment_distance(seen, seg[0], seg[-1]) <= g for seg, g in zip(air_px, air_gate_px)):
                continue
        d = np.linalg.norm(allxy - p, axis=1) if len(allxy) else np.zeros(0)
        dup = bool(len(d) and np.any((d <= allgate) & is_claimed))
        tally.fp += 1
        near = int(np.argmin(d)) if len(d) else None
        tally.false_positives.append({"frame": index, "suite": frame.suite, "kind": str(obs.kind[i]),
                                      "xy": [round(float(v), 1) for v in p], "sigma_mm": round(float(obs.sigma[i]), 2),
                                      "nearest": None if near is None else str(frame.truth[near]["id"]),
                                      "nearest_mm": None if near is None else round(float(d[near]), 1),
                                      "duplicate": dup})


ON_PIECE_MM = 3.0  # how far off a piece's footprint a find of it (part hidden, placed by what is seen) may lie


def _footprint(t: dict):
    """A truth piece's footprint (shapely, mat mm): its own (``footprint``) or a disc of its radius."""
    if t.get("footprint") is not None:
        return t["footprint"]
    from shapely.geometry import Point

    return Point(float(t["xy"][0]), float(t["xy"][1])).buffer(float(t["radius"]))


def _on_footprint(shape, t: dict, p) -> bool:
    """Whether mat mm point ``p`` lies on piece ``t``'s footprint ``shape`` grown by ``ON_PIECE_MM``,
    or within 8 mm of its centre (a small piece)."""
    from shapely.geometry import Point

    if np.hypot(p[0] - t["xy"][0], p[1] - t["xy"][1]) <= 8.0:
        return True
    return shape.distance(Point(float(p[0]), float(p[1]))) <= ON_PIECE_MM


def _segment_distance(p, a, b) -> float:
    """Distance (image px) from point ``p`` to the segment ``a``–``b``."""
    ab = b - a
    L = float(ab @ ab)
    u = 0.0 if L <= 1e-12 else float(np.clip((p - a) @ ab / L, 0.0, 1.0))
    return float(np.linalg.norm(p - (a + u * ab)))


def piece_row(frame: BenchFrame, index, truth: dict, kind: str, found: str, xy, sigma: float, is_round: bool) -> dict:
    """One piece's position error (mat mm) as the report lists it: the frame (``index``, suite, the
    camera's tilt), the piece (id, kind, the kind found, round or not), the error and its parts
    (``dx``, ``dy``; ``toward_camera``: the part along the line from the piece to the point under
    the camera, positive toward it, where the registration gives the camera) and the claimed σ."""
    d = np.asarray(xy, dtype=float) - truth["xy"]
    row = {"frame": index, "suite": frame.suite, "tilt_deg": frame.params.get("tilt_deg"), "id": str(truth["id"]),
           "kind": kind, "found": found, "round": bool(is_round), "error_mm": float(np.hypot(d[0], d[1])),
           "dx": float(d[0]), "dy": float(d[1]), "sigma_mm": float(sigma)}
    centre = getattr(frame.transform, "camera_centre_mm", None)
    if centre is not None:
        u = np.asarray(centre(), dtype=float)[:2] - truth["xy"]
        n = float(np.hypot(u[0], u[1]))
        row["toward_camera"] = float(d @ u / n) if n > 0 else 0.0
    return row


def _stats(err: list, sig: list) -> dict:
    if not err:
        return {"n": 0}
    e, s = np.array(err), np.array(sig)
    return {"n": len(e), "median_mm": float(np.median(e)), "p90_mm": float(np.percentile(e, 90)),
            "p99_mm": float(np.percentile(e, 99)), "max_mm": float(e.max()),
            "within_3sigma": float(np.mean(e <= 3 * s)), "median_sigma_mm": float(np.median(s))}


def summarise_part(t: Tally) -> dict:
    """Recall, precision and position errors of a part of the kinds (round or not)."""
    return {"recall": t.tp / max(t.tp + t.fn, 1), "precision": t.tp / max(t.tp + t.fp, 1), "tp": t.tp, "fn": t.fn,
            "fp": t.fp, "kind_accuracy": t.kind_ok / max(t.tp, 1), "missed": t.missed, "false_positives": t.false_positives,
            "position": _stats(t.err_round + t.err_box, t.sig_round + t.sig_box),
            "per_kind": {k: {"found": v[0], "missed": v[1], "kind_ok": v[2],
                             **_kind_err(t.kind_err.get(k, []))} for k, v in sorted(t.per_kind.items())}}


def _kind_err(rows: list) -> dict:
    if not rows:
        return {}
    e = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows])
    return {"median_mm": float(np.median(e)), "p90_mm": float(np.percentile(e, 90)), "within_3sigma": float(np.mean(e <= 3 * s))}


def summarise(t: Tally) -> dict:
    recall = t.tp / max(t.tp + t.fn, 1)
    precision = t.tp / max(t.tp + t.fp, 1)
    ms = {k: float(np.mean(v)) for k, v in t.ms.items()}
    cpu = {k: float(np.mean(v)) for k, v in t.cpu.items()}
    total = float(sum(ms.values()))
    cpu_total = float(sum(cpu.values()))
    return {"frames": t.frames, "recall": recall, "precision": precision, "tp": t.tp, "fn": t.fn, "fp": t.fp,
            "kind_accuracy": t.kind_ok / max(t.tp, 1), "round": _stats(t.err_round, t.sig_round),
            "other": _stats(t.err_box, t.sig_box), "ms_mean": ms, "ms_total": total, "cpu_ms_mean": cpu,
            "cpu_ms_total": cpu_total, "fps_wall": 1000.0 / total if total > 0 else None,
            "fps_cpu": 1000.0 / cpu_total if cpu_total > 0 else None,
            "per_kind": {k: {"found": v[0], "missed": v[1], "kind_ok": v[2]} for k, v in sorted(t.per_kind.items())},
            "misses": t.misses[:20], "pieces": t.pieces, "missed": t.missed, "false_positives": t.false_positives}


def run_bench(frames: int = 60, views=(FRAMED, WIDE), methods=("classical", "yolo", "hybrid"), model=None, seed: int = BENCH_SEED,
              threads: int = 2, progress=None, attributes: bool = False, workers: int = 2, warm: bool = True) -> dict:
    """Run every method on the same frames of each view; returns a JSON-able report. With
    ``workers`` > 1 each method also runs the framed view's frames again on a
    :class:`vision.pool.DetectorPool` of that many processes: the throughput of the cores. ``warm``:
    the classical detector holds the table's light as a camera that has watched the table does (read
    in a first look at the frame, not timed); else it reads it from the frame as it goes."""
    import cv2

    from calibration.specs import load_specs
    from vision.detect import DEFAULT_MODEL, DetectConfig, Detector, load_model, piece_kinds, round_kinds

    cv2.setNumThreads(threads)
    specs = load_specs()
    config = DetectConfig.load()
    loaded = None
    if "yolo" in methods or "hybrid" in methods:
        loaded = load_model(model or DEFAULT_MODEL, config)
    report = {"seed": seed, "frames_per_view": frames, "threads": threads, "model": str(model or DEFAULT_MODEL) if loaded else None,
              "light": "held (read in a first, untimed, look at each frame)" if warm and config.shadow_light else
              ("read from each frame as it goes" if config.shadow_light else "off"),
              "views": {}}
    for view in views:
        tallies = {m: Tally() for m in methods}
        parts = {m: {"round": Tally(), "other": Tally()} for m in methods}
        scales = []
        kept = [] if workers > 1 and view == FRAMED else None
        lights = []  # the classical detector's light for each frame
        t_start = time.perf_counter()
        for index, fr in enumerate(bench_frames(frames, view, seed, progress=progress)):
            scales.append(fr.mm_per_px)
            if kept is not None:
                kept.append(fr)
            game = fr.board.game
            kinds = piece_kinds(specs, game)
            rk = {k.name for k in kinds.values() if k.round}
            for m in methods:
                light = None
                if m == "classical" and config.shadow_light and warm:
                    # the table's light, as a camera that has watched the table holds it (read round the
                    # pieces fitted in a first, untimed, look at the frame: :class:`vision.detect.Detector`)
                    first = Detector(fr.board, fr.transform, specs=specs, background=fr.empty, config=config,
                                     method=m, attributes=False)
                    first(fr.image, 0, 0.0)
                    light = first.light
                if m == "classical":
                    lights.append(light)
                det = Detector(fr.board, fr.transform, specs=specs, background=fr.empty, config=config,
                               model=loaded if m != "classical" else None, method=m, attributes=attributes,
                               light=light)
                obs = det(fr.image, 0, 0.0)
                reported = {k.name for k in det.round} | det.blob_kinds if m == "classical" else set(kinds) | {"ball"}
                score_frame(tallies[m], obs, fr, reported, rk, index=index)
                score_frame(parts[m]["round"], obs, fr, reported, rk, only=rk | {"ball"}, index=index)
                score_frame(parts[m]["other"], obs, fr, reported, rk, only=set(kinds) - rk - {"ball"}, index=index)
                tallies[m].add_ms(det.timings_ms, det.cpu_ms)
                tallies[m].frames += 1
        report["views"][view] = {"mm_per_px_median": float(np.median(scales)), "mm_per_px_range": [float(np.min(scales)), float(np.max(scales))],
                                 "wall_s": time.perf_counter() - t_start,
                                 "methods": {m: {**summarise(t), "round_kinds": summarise_part(parts[m]["round"]),
                                                 "other_kinds": summarise_part(parts[m]["other"])}
                                             for m, t in tallies.items()}}
        if kept:
            for m in methods:
                setups = [dict(board=fr.board, transform=fr.transform, specs=specs, background=fr.empty, config=config,
                               model=None if m == "classical" else str(model or DEFAULT_MODEL), method=m,
                               attributes=attributes, light=lights[i] if m == "classical" and lights else None)
                          for i, fr in enumerate(kept)]
                one = report["views"][view]["methods"][m]["ms_total"]
                report["views"][view]["methods"][m]["throughput"] = pool_throughput(setups, [fr.image for fr in kept], workers, one)
    return report


def pool_throughput(setups: list, images: list, workers: int, one_stream_ms: float) -> dict:
    """Frames per second of a :class:`vision.pool.DetectorPool` of ``workers`` processes (one OpenCV
    thread each) over ``images`` (image i seen with setup i), timed from the first frame handed to
    it to the last observation back (the detectors are built first, as set-up work is everywhere in
    this bench); ``one_stream_ms`` the same frames' mean wall time one after another."""
    from vision.pool import DetectorPool

    with DetectorPool(setups, workers=workers, threads=1) as pool:
        t0 = time.perf_counter()
        n = sum(1 for _ in pool.detect((i, im, i, 0.0) for i, im in enumerate(images)))
        wall = time.perf_counter() - t0
        cpu = float(np.mean(pool.cpu_ms))
    ms = 1000.0 * wall / max(n, 1)
    return {"workers": workers, "frames": n, "ms_per_frame": ms, "fps": 1000.0 / ms if ms > 0 else None,
            "worker_cpu_ms_mean": cpu, "one_stream_ms": one_stream_ms,
            "speedup": one_stream_ms / ms if ms > 0 else None}


def format_report(report: dict) -> str:
    """A plain-text table of the report (what ``tableref bench vision`` prints)."""
    lines = [f"tableref bench vision: seed {report['seed']}, {report['frames_per_view']} frames per view, "
             f"{report['threads']} threads, model {report['model']}, the table's light {report.get('light', 'off')}"]
    for view, v in report["views"].items():
        lines.append(f"\n== view {view}: {v['mm_per_px_median']:.2f} mm/px at the mat centre "
                     f"(range {v['mm_per_px_range'][0]:.2f}-{v['mm_per_px_range'][1]:.2f})")
        lines.append(f"{'method':10s} {'recall':>8s} {'precis.':>8s} {'kind':>7s} | {'round: n':>8s} {'med':>6s} {'p99':>6s} "
                     f"{'max':>6s} {'≤3σ':>6s} | {'other: n':>8s} {'med':>6s} {'p99':>6s} | CPU ms/frame (stages), wall ms")
        for m, s in v["methods"].items():
            r, o = s["round"], s["other"]
            stages = " ".join(f"{k} {val:.1f}" for k, val in s["cpu_ms_mean"].items())
            lines.append(f"{m:10s} {100 * s['recall']:7.2f}% {100 * s['precision']:7.2f}% {100 * s['kind_accuracy']:6.1f}% | "
                         f"{r['n']:8d} {r.get('median_mm', float('nan')):6.2f} {r.get('p99_mm', float('nan')):6.2f} "
                         f"{r.get('max_mm', float('nan')):6.2f} {100 * r.get('within_3sigma', float('nan')):5.1f}% | "
                         f"{o['n']:8d} {o.get('median_mm', float('nan')):6.2f} {o.get('p99_mm', float('nan')):6.2f} | "
                         f"{s['cpu_ms_total']:.1f} ({stages}) = {s['fps_cpu'] or 0:.1f} fps of CPU; wall {s['ms_total']:.1f}")
            if s.get("throughput"):
                tp = s["throughput"]
                lines.append(f"{'':10s} throughput on {tp['workers']} worker processes (a frame each, one OpenCV thread): "
                             f"{tp['ms_per_frame']:.1f} ms a frame = {tp['fps']:.1f} frames/s over the same {tp['frames']} frames "
                             f"({tp['speedup']:.2f}× one stream's {tp['one_stream_ms']:.1f} ms; {tp['worker_cpu_ms_mean']:.1f} ms CPU "
                             f"a frame in its worker)")
            dup = sum(1 for f in s.get("false_positives", []) if f.get("duplicate"))
            lines.append(f"{'':10s} tp {s['tp']} fn {s['fn']} fp {s['fp']} ({dup} a second find of a piece); missed by kind: "
                         + ", ".join(f"{k} {c['missed']}/{c['found'] + c['missed']}" for k, c in s["per_kind"].items() if c["missed"]))
            for part, label in (("round_kinds", "round kinds"), ("other_kinds", "non-round")):
                q = s.get(part)
                if not q:
                    continue
                pos = q["position"]
                lines.append(f"{'':10s} {label:11s}: recall {100 * q['recall']:6.2f}% precision {100 * q['precision']:6.2f}% "
                             f"kind {100 * q['kind_accuracy']:5.1f}% (tp {q['tp']} fn {q['fn']} fp {q['fp']}); position n {pos['n']}"
                             + (f" median {pos['median_mm']:.2f} p99 {pos['p99_mm']:.2f} max {pos['max_mm']:.2f} mm, "
                                f"≤3σ {100 * pos['within_3sigma']:.1f}% (median σ {pos['median_sigma_mm']:.2f})" if pos["n"] else ""))
                if part == "other_kinds" and q["per_kind"]:
                    lines.append(f"{'':10s} {'':11s}  by kind (found/all, median and p90 error mm): " + ", ".join(
                        f"{k} {c['found']}/{c['found'] + c['missed']}"
                        + (f" {c['median_mm']:.1f}/{c['p90_mm']:.1f}" if "median_mm" in c else "")
                        for k, c in q["per_kind"].items()))
        names = list(v["methods"])
        for mb in names[1:]:
            a, b = v["methods"][names[0]], v["methods"][mb]
            ra, rb = a["round"].get("median_mm"), b["round"].get("median_mm")
            ta, tb = a["cpu_ms_total"], b["cpu_ms_total"]
            ratio_err = f"{rb / ra:.2f}" if ra and rb else "n/a"
            ratio_t = f"{tb / ta:.2f}" if ta and tb else "n/a"
            lines.append(f"ratios {mb}/{names[0]}: round median error {ratio_err}, CPU time {ratio_t}, "
                         f"recall {b['recall'] / max(a['recall'], 1e-9):.3f}, precision "
                         f"{b['precision'] / max(a['precision'], 1e-9):.3f}")
    return "\n".join(lines)
