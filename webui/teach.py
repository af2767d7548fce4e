"""Setup → teaching your own pieces: about ten photos or crops per class (uploaded, or cut from the
camera's latest frame around a disc), :func:`vision.teach.teach` (what ``tableref teach`` uses) with
its cross-validated accuracy, the profile stored in ``<data dir>/profiles/<name>/`` (the data folder
is ``TABLEREF_HOME``, next to and never over the shipped ``models/attributes``), and the active
profile (the ``profile`` meta key of the record; the live session's detector reads it).

Examples are kept as ``<data dir>/teach/<task>/<class>/<fresh id>.png``: the task and class are
checked against the task's own classes (or, for ``team`` / ``colour``, a plain slug); no file name
comes from a request.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

from webui.record import ConflictError, InputError

SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
MAX_PER_CLASS = 200
PROFILE_META = "profile"
CROP_SCALE = 1.25  # a capture keeps the disc and a little of the mat around it


def tasks() -> dict:
    from vision.classify import TASKS
    from vision.teach import FREE_CLASSES

    return {name: {"classes": list(t.classes), "free_classes": name in FREE_CLASSES} for name, t in TASKS.items() if t.teach}


def check_task_class(task, cls=None) -> tuple[str, str | None]:
    from vision.teach import ALIASES, FREE_CLASSES

    known = tasks()
    if task not in known:
        raise InputError(f"task: expected one of {', '.join(known)}, got {task!r}")
    if cls is None:
        return task, None
    if not isinstance(cls, str):
        raise InputError("class: expected the class name as text")
    name = ALIASES.get(cls.strip().lower(), cls.strip().lower())
    if not SLUG.match(name):
        raise InputError(f"class {cls!r}: use lowercase letters, digits, '-' or '_'")
    if task not in FREE_CLASSES and name not in known[task]["classes"]:
        raise InputError(f"class {cls!r} is not a class of {task}; choose one of {', '.join(known[task]['classes'])}")
    return task, name


def examples_dir(data_dir, task: str, cls: str | None = None) -> Path:
    task, cls = check_task_class(task, cls)
    root = Path(data_dir) / "teach" / task
    return root / cls if cls else root


def _save(data_dir, task: str, cls: str, image) -> dict:
    import cv2

    folder = examples_dir(data_dir, task, cls)
    folder.mkdir(parents=True, exist_ok=True)
    if len(list(folder.glob("*.png"))) >= MAX_PER_CLASS:
        raise ConflictError(f"{task}/{cls} already has {MAX_PER_CLASS} examples; about ten is enough")
    path = folder / f"{uuid.uuid4().hex[:16]}.png"
    tmp = path.with_suffix(".part.png")
    cv2.imwrite(str(tmp), image)
    tmp.replace(path)
    return {"task": task, "class": folder.name, "id": path.stem, "count": len(list(folder.glob("*.png"))),
            "size": [int(image.shape[1]), int(image.shape[0])]}


def add_upload(data_dir, task, cls, content: bytes) -> dict:
    from webui.camera import decode

    task, cls = check_task_class(task, cls)
    image = decode(content)
    if min(image.shape[:2]) < 8:
        raise InputError(f"the image is {image.shape[1]}x{image.shape[0]} px: too small to learn from")
    return _save(data_dir, task, cls, image)


def add_capture(app, task, cls, xy, radius) -> dict:
    """Cut the disc at ``xy`` (mat mm, radius mm) out of the latest frame (through the frame's
    mat→image homography) and keep it as an example."""
    import numpy as np

    from calibration.transform import apply_homography
    from webui.camera import decode

    task, cls = check_task_class(task, cls)
    if not (isinstance(xy, list) and len(xy) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                          and abs(v) < 1e5 for v in xy)):
        raise InputError("xy: expected [x, y] in mat mm (click a disc)")
    if not (isinstance(radius, (int, float)) and not isinstance(radius, bool) and 2 <= radius <= 200):
        raise InputError("radius: expected the disc's radius in mm (2 to 200)")
    feed = app.extensions["tableref.frames"]
    info = feed.info()
    if feed.jpeg is None:
        raise ConflictError("no camera frame yet: start a source, or upload photos instead")
    if info["mat_to_image"] is None:
        raise ConflictError("the frame has no mat registration yet: register the mat first, or upload crops")
    image = decode(feed.jpeg)
    H = np.asarray(info["mat_to_image"], dtype=np.float64)
    ring = np.array([[xy[0] + radius * np.cos(a), xy[1] + radius * np.sin(a)] for a in np.linspace(0, 2 * np.pi, 16)])
    pts = apply_homography(H, np.vstack([[xy], ring]))
    c, r = pts[0], float(np.max(np.linalg.norm(pts[1:] - pts[0], axis=1))) * CROP_SCALE
    h, w = image.shape[:2]
    x0, y0, x1, y1 = int(c[0] - r), int(c[1] - r), int(np.ceil(c[0] + r)), int(np.ceil(c[1] + r))
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or r < 4:
        raise InputError("that disc is not (wholly) in the camera's view")
    return _save(app.config["DATA_DIR"], task, cls, image[y0:y1, x0:x1].copy())


def clear_class(data_dir, task, cls) -> int:
    folder = examples_dir(data_dir, task, cls)
    files = list(folder.glob("*.png")) if folder.is_dir() else []
    for f in files:
        f.unlink()
    if folder.is_dir():
        folder.rmdir()
    return len(files)


def counts(data_dir) -> dict:
    """{task: {class: number of examples}}."""
    out = {}
    for task in tasks():
        root = Path(data_dir) / "teach" / task
        if root.is_dir():
            per = {d.name: len(list(d.glob("*.png"))) for d in sorted(root.iterdir()) if d.is_dir() and SLUG.match(d.name)}
            if per:
                out[task] = per
    return out


def profiles(data_dir) -> list[dict]:
    root = Path(data_dir) / "profiles"
    out = []
    if root.is_dir():
        for d in sorted(root.iterdir()):
            info_path = d / "profile.json"
            if d.is_dir() and SLUG.match(d.name) and info_path.is_file():
                try:
                    info = json.loads(info_path.read_text())
                except ValueError:
                    continue
                out.append({"profile": d.name, "tasks": info.get("tasks", {})})
    return out


def run(data_dir, task, profile, folds=5, with_shipped=False) -> dict:
    from vision.teach import load_examples, teach

    task, _ = check_task_class(task)
    if not isinstance(profile, str) or not SLUG.match(profile):
        raise InputError("profile: a name of lowercase letters, digits, '-' or '_'")
    if isinstance(folds, bool) or not isinstance(folds, int) or not 2 <= folds <= 10:
        raise InputError("folds: expected a whole number from 2 to 10")
    folder = examples_dir(data_dir, task)
    if not folder.is_dir():
        raise ConflictError(f"no examples for {task} yet: add about ten photos per class first")
    crops, labels = load_examples(folder, task)
    result = teach(task, crops, labels, profile=profile, with_shipped=bool(with_shipped), folds=folds, home=data_dir)
    out = result.to_dict()
    out["path"] = str(Path(result.path).relative_to(Path(data_dir))) if result.path else ""
    return out


def set_active(store, data_dir, profile) -> dict:
    """Pick the active profile (None: the shipped models only)."""
    if profile is not None:
        if not isinstance(profile, str) or profile not in {p["profile"] for p in profiles(data_dir)}:
            raise InputError(f"profile: no profile {profile!r}; teach one first (or send null for the shipped models)")
    store.set_meta(PROFILE_META, json.dumps(profile))
    return {"active": profile}


def active(store) -> str | None:
    raw = store.get_meta(PROFILE_META)
    return json.loads(raw) if raw else None
