"""``tableref bench render``: how fast the renderer makes 640x480 frames of typical scenes on ONE
core (``cv2.setNumThreads(1)``), per stage (mat warp, pieces, effects), median ms and frames/s.

Typical scenes: for each game a fixed camera (as in a video: the per-camera warp map is built once
and cached, and reported apart as the first-frame cost) and a random style with every effect on
(shadows, lighting, vignetting, noise, motion blur of the moving pieces, JPEG), rendering a
sequence of frames in which the pieces move.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

BENCH_BOARDS = ("dino-dunk/tropic-turf", "dodo-dash/dodorado-temple", "morris/waterfall", "dogo-dash/table")


def typical_scene(board, rng: np.random.Generator, t: float = 0.0):
    """A plausible mid-game scene of the board's game at time ``t`` s (pieces drift with their
    velocity so that frames differ), in mat mm."""
    from sim.scene import PieceState as P, Scene

    L, W = board.length_mm, board.width_mm
    pieces = []

    def xy():
        return float(rng.uniform(0.1, 0.9) * L), float(rng.uniform(0.1, 0.9) * W)

    if board.game == "dino-dunk":
        sizes = ["disc-large"] + ["disc-medium"] * 6 + ["disc-small"] + ["disc-tiny"] * 2
        for team in ("home", "away"):
            for i, kind in enumerate(sizes[:7]):
                pieces.append(P(f"{team}:{i}", kind, *xy(), attributes={"team": team}))
        pieces.append(P("ball", "ball", *xy(), vx=900.0, vy=-400.0))
        pieces += [P("tail-home", "tail", *xy(), attributes={"team": "home"}), P("tail-away", "tail", *xy(), attributes={"team": "away"})]
        pieces += [P("bb-home", "backboard", 15, W / 2, angle_deg=90), P("bb-away", "backboard", L - 15, W / 2, angle_deg=90)]
        pieces[3].vx, pieces[3].vy = 600.0, 300.0
    elif board.game == "dodo-dash":
        track = list(board.tracks.values())[0].centres()
        for i, c in enumerate(("red", "blue", "yellow", "green", "purple", "white")):
            x, y = track[int(rng.integers(len(track)))]
            pieces.append(P(f"racer-{i}", "racer", float(x), float(y), attributes={"colour": c}))
        pieces.append(P("banana", "banana", *xy(), z=30.0, vx=700.0, vy=200.0, angle_deg=float(rng.uniform(0, 360))))
        pieces.append(P("log", "log", *xy(), angle_deg=float(rng.uniform(0, 360)), size=(40.0, 18.0)))
    elif board.game == "morris":
        for i, (c, f) in enumerate((("blue", "whole"), ("red", "broken"))):
            pieces.append(P(f"egg-{i}", "egg", float(rng.uniform(420, 580)), float(rng.uniform(280, 430)),
                            angle_deg=float(rng.uniform(0, 360)), vx=300.0 * i, attributes={"colour": c, "face": f}))
        pieces += [P("toucan", "toucan", 520, 200, angle_deg=200), P("hunter", "hunter", 150, 370),
                   P("shelter-1", "shelter", 320, 380), P("shelter-2", "shelter", 330, 300)]
    elif board.game == "dogo-dash":
        seats = board.seats.get(4, ())
        for i, seat in enumerate(seats):
            c = board.region(seat).geometry.centroid
            pieces.append(P(f"card-{i + 1}", "card", c.x, c.y, angle_deg=90.0 + float(rng.uniform(-8, 8)), size=(88.0, 63.0),
                            attributes={"card": ("cat", "dog", "bear", "cookie")[i], "face_up": True}))
        pieces.append(P("deck", "card", W * 0.75, W / 2, angle_deg=90, size=(88.0, 63.0), attributes={"deck": True, "count": 20}))
    for p in pieces:  # moving pieces creep along their velocity (at 1/50 of it) so that frames differ
        p.x += 0.02 * p.vx * t
        p.y += 0.02 * p.vy * t
    return Scene(board.game, board.ref, pieces, t)


def bench_render(frames: int = 120, size: tuple = (640, 480), seed: int = 0, boards=BENCH_BOARDS, threads: int = 1) -> dict:
    """Render ``frames`` frames per board; return median ms per stage and in total, and frames/s."""
    import cv2

    from calibration.board import load_board
    from sim.camera import random_camera
    from sim.render import render_scene
    from sim.style import load_render_config, random_style

    cv2.setNumThreads(int(threads))
    cfg = load_render_config()
    stages = {"mat": [], "pieces": [], "effects": []}
    cpu_stages = {"mat": [], "pieces": [], "effects": []}
    totals, cpu_totals, first = [], [], []
    for bi, ref in enumerate(boards):
        board = load_board(ref)
        rng = np.random.default_rng([seed, bi])
        camera = random_camera(rng, board, cfg.camera, size)
        style = random_style(rng, cfg, occluders=True)
        style = style.__class__(**{**style.to_dict(), "occluders": style.occluders,
                                   "jpeg_quality": style.jpeg_quality or 85})  # JPEG on: the worst case
        scene_rng_seed = int(rng.integers(1 << 30))
        t0 = time.perf_counter()
        render_scene(board, typical_scene(board, np.random.default_rng(scene_rng_seed)), camera, style, seed=0)
        first.append(1000 * (time.perf_counter() - t0))
        for k in range(frames):
            scene = typical_scene(board, np.random.default_rng(scene_rng_seed), t=k / 30.0)
            t0, c0 = time.perf_counter(), time.process_time()
            res = render_scene(board, scene, camera, style, seed=k)
            totals.append(1000 * (time.perf_counter() - t0))
            cpu_totals.append(1000 * (time.process_time() - c0))
            for key in stages:
                stages[key].append(res.timings_ms[key])
                cpu_stages[key].append(res.cpu_ms[key])
    med = {k: statistics.median(v) for k, v in stages.items()}
    cpu = {k: statistics.median(v) for k, v in cpu_stages.items()}
    total, cpu_total = statistics.median(totals), statistics.median(cpu_totals)
    return {"frames": len(totals), "size": list(size), "threads": threads, "median_ms": med, "median_total_ms": total,
            "frames_per_s": 1000.0 / total, "cpu_median_ms": cpu, "cpu_median_total_ms": cpu_total,
            "cpu_frames_per_s": 1000.0 / cpu_total, "first_frame_ms": statistics.median(first), "boards": list(boards)}


def format_report(r: dict) -> str:
    w, h = r["size"]
    lines = [f"render bench: {r['frames']} frames {w}x{h} on {r['threads']} thread(s), boards: {', '.join(r['boards'])}"]
    lines.append("  stage      wall ms   CPU ms   (median per frame; CPU time is what one core costs when others compete)")
    for k, v in r["median_ms"].items():
        lines.append(f"  {k:<8} {v:8.2f} {r['cpu_median_ms'][k]:8.2f}")
    lines.append(f"  total    {r['median_total_ms']:8.2f} {r['cpu_median_total_ms']:8.2f}   "
                 f"= {r['frames_per_s']:.1f} frames/s wall, {r['cpu_frames_per_s']:.1f} frames/s per CPU-second")
    lines.append(f"  first frame of a new camera/style (mat texture + warp map): {r['first_frame_ms']:.0f} ms median")
    return "\n".join(lines)
