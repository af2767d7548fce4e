"""Write a suite to disk: frames (PNG or MP4, **image px**) through the renderer, and the ground
truth as JSONL (**mat mm**, plus image px from the renderer), and a contact sheet.

Layout of ``out``::

    manifest.json     suite, seed, start, count, format, size, style, the command's options
    truth.jsonl       one line per scene: sim.truth.scenario_truth + camera + style + files
    frames.jsonl      one line per written frame: scene index, frame index, t, file, frame truth
    scenes/000007/frame_0003.png   (or scenes/000007.mp4)

The renderer is reached only through :func:`renderer` (``sim.render.render_scene``,
``sim.camera.random_camera``, ``random_style`` from ``sim.render`` or ``sim.style``); with
``fmt="none"`` nothing is rendered and only the ground truth is written.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from pathlib import Path

FORMATS = ("png", "mp4", "none")
FRAME_CHOICES = ("all", "final", "first-last")


class RendererUnavailable(ValueError):
    """The renderer modules are missing or failed to import; says how to go on without them."""


@dataclass(frozen=True)
class Renderer:
    render_scene: object
    random_camera: object
    random_style: object
    clean_style: object | None


def renderer() -> Renderer:
    """The renderer's entry points, or :class:`RendererUnavailable` with what to do."""
    try:
        from sim.camera import random_camera
        from sim.render import render_scene
    except Exception as exc:  # noqa: BLE001 - any failure to import means "no renderer here"
        raise RendererUnavailable(f"the renderer (sim/render.py, sim/camera.py) is not available ({exc}); "
                                  "use --format none to write the ground truth only") from None
    random_style = clean_style = None
    for mod in ("sim.render", "sim.style"):
        try:
            m = __import__(mod, fromlist=["x"])
        except Exception:  # noqa: BLE001
            continue
        random_style = random_style or getattr(m, "random_style", None)
        clean_style = clean_style or getattr(m, "clean_style", None)
    if random_style is None:
        raise RendererUnavailable("the renderer has no random_style (sim.render or sim.style); use --format none")
    return Renderer(render_scene, random_camera, random_style, clean_style)


def parse_size(text: str) -> tuple:
    try:
        w, h = (int(v) for v in str(text).lower().split("x"))
    except ValueError:
        raise ValueError(f"--size must look like 640x480, got {text!r}") from None
    if not (16 <= w <= 4096 and 16 <= h <= 4096):
        raise ValueError(f"--size must be between 16x16 and 4096x4096, got {text!r}")
    return w, h


def frame_indices(n: int, which: str) -> list:
    if which not in FRAME_CHOICES:
        raise ValueError(f"--frames must be one of {', '.join(FRAME_CHOICES)}, got {which!r}")
    if which == "all":
        return list(range(n))
    if which == "final":
        return [n - 1]
    return sorted({0, n - 1})


def view_for(rend: Renderer, board, scene_seed: int, clean: bool, size: tuple):
    """A scene's camera and style, drawn from its own seed (the camera is fixed during a scene)."""
    import numpy as np

    rng = np.random.default_rng([scene_seed, 0x5EE])
    camera = rend.random_camera(rng, board, size=size)
    style = rend.clean_style() if clean and rend.clean_style else rend.random_style(rng)
    return camera, style


def render_seed(scene_seed: int, frame: int) -> int:
    return zlib.crc32(f"{scene_seed}:{frame}".encode()) & 0x7FFFFFFF


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "to_dict"):
        return _jsonable(obj.to_dict())
    return obj


def write_suite(suite: str, count: int, out, seed: int = 0, start: int = 0, fmt: str = "png", frames: str = "all",
                size: tuple = (640, 480), clean: bool = False, sheet: str | None = None, board: str | None = None,
                progress=None, cfg=None, thumbs: list | None = None) -> dict:
    """Generate ``count`` scenes of ``suite`` into ``out`` (see the module doc); returns a summary.
    ``cfg``: a :class:`sim.config.SimConfig` (the shipped one when None). With ``thumbs`` (a list),
    the last frame of each scene and its caption are appended there for a sheet drawn by the caller."""
    import cv2

    from sim.suites import _board, make_scenario
    from sim.truth import frame_truth, scenario_truth

    if fmt not in FORMATS:
        raise ValueError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if count < 1:
        raise ValueError(f"--count must be at least 1, got {count}")
    want_thumbs = bool(sheet) or thumbs is not None
    rend = renderer() if fmt != "none" or want_thumbs else None
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"schema": "tableref-sim-suite/1", "suite": suite, "seed": seed, "start": start, "count": count,
                "format": fmt, "frames": frames, "size": list(size), "clean": clean, "board": board,
                "sim_config": getattr(cfg, "source", None) or "sim/config.yaml"}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    own_thumbs = thumbs if thumbs is not None else []
    written = 0
    with open(out / "truth.jsonl", "w", encoding="utf-8") as tf, open(out / "frames.jsonl", "w", encoding="utf-8") as ff:
        for k in range(count):
            index = start + k
            scn = make_scenario(suite, index, seed, cfg=cfg, board=board)
            b = _board(scn.board)
            truth = scenario_truth(scn, b)
            truth.update(suite=suite, index=index, suite_seed=seed)
            files = []
            if rend is not None:
                camera, style = view_for(rend, b, scn.seed, clean, size)
                truth["camera"] = _jsonable(camera.to_dict())
                truth["style"] = _jsonable(style.to_dict() if hasattr(style, "to_dict") else {})
                idx = frame_indices(len(scn.run.frames), frames) if fmt != "none" else [len(scn.run.frames) - 1]
                writer = None
                for fi in idx:
                    scene = scn.run.frames[fi]
                    res = rend.render_scene(b, scene, camera, style, render_seed(scn.seed, fi))
                    rt = {pid: (t.to_dict() if hasattr(t, "to_dict") else t) for pid, t in res.truth.items()}
                    if fmt == "png":
                        rel = f"scenes/{index:06d}/frame_{fi:04d}.png"
                        (out / rel).parent.mkdir(parents=True, exist_ok=True)
                        if not cv2.imwrite(str(out / rel), res.image, [cv2.IMWRITE_PNG_COMPRESSION, 1]):
                            raise OSError(f"could not write {out / rel}")
                        files.append(rel)
                    elif fmt == "mp4":
                        if writer is None:
                            rel = f"scenes/{index:06d}.mp4"
                            (out / rel).parent.mkdir(parents=True, exist_ok=True)
                            h, w = res.image.shape[:2]
                            writer = cv2.VideoWriter(str(out / rel), cv2.VideoWriter_fourcc(*"mp4v"), float(scn.run.fps), (w, h))
                            if not writer.isOpened():
                                raise OSError(f"OpenCV cannot write MP4 to {out / rel} here; use --format png")
                            files.append(rel)
                        writer.write(res.image)
                    if fmt != "none":
                        row = {"suite": suite, "index": index, "frame": fi, "file": files[-1], **frame_truth(scene, rt)}
                        ff.write(json.dumps(_jsonable(row)) + "\n")
                        written += 1
                    if fi == idx[-1] and want_thumbs:
                        own_thumbs.append((res.image, _caption(scn, truth)))
                if writer is not None:
                    writer.release()
            truth["files"] = files
            tf.write(json.dumps(_jsonable(truth)) + "\n")
            if progress:
                progress(k + 1, count)
    if sheet and thumbs is None:
        contact_sheet(own_thumbs, sheet)
    return {"scenes": count, "frames": written, "out": str(out), "sheet": sheet}


def _caption(scn, truth: dict) -> str:
    ans = truth.get("answers", {})
    bits = [f"{scn.game} {scn.meta.get('index', '')}", scn.kind.split("/")[-1]]
    for key in ("result", "hits", "broken", "revealed", "margin_mm"):
        if key in ans and ans[key] not in (None, [], {}):
            v = ans[key]
            if isinstance(v, dict):
                v = ",".join(str(x) for x in v.values())
            elif isinstance(v, list):
                v = f"{key}:" + ",".join(str(x) for x in v)
            elif isinstance(v, float):
                v = f"{v:+.2f}mm"
            bits.append(str(v))
    return " ".join(bits)[:60]


def contact_sheet(items: list, path, cols: int | None = None, thumb_w: int = 320) -> None:
    """A grid of (BGR image, caption) thumbnails written to ``path`` (PNG/JPEG by extension)."""
    import math

    import cv2
    import numpy as np

    if not items:
        raise ValueError("nothing to put on the contact sheet")
    cols = cols or min(6, max(1, math.ceil(math.sqrt(len(items)))))
    rows = math.ceil(len(items) / cols)
    h0, w0 = items[0][0].shape[:2]
    th = int(round(thumb_w * h0 / w0))
    sheet = np.full((rows * (th + 22), cols * thumb_w, 3), 24, np.uint8)
    for i, (img, caption) in enumerate(items):
        r, c = divmod(i, cols)
        y, x = r * (th + 22), c * thumb_w
        sheet[y:y + th, x:x + thumb_w] = cv2.resize(img, (thumb_w, th), interpolation=cv2.INTER_AREA)
        cv2.putText(sheet, caption, (x + 4, y + th + 15), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (235, 235, 235), 1, cv2.LINE_AA)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), sheet):
        raise OSError(f"could not write the contact sheet {path} (use a .png or .jpg name)")
