"""Training and test crops for the attribute classifiers, rendered by the simulator.

``render_crops(task, frames, seed)`` fills scenes with the task's pieces (discs of both teams, discs
of every named colour, Dodo Dash racers of every racer colour, Morris eggs of every colour and face, Dogo Dash cards of every kind face up
and down, Dino Dunk's ball and discs of every size lying against each other), renders each with a
random camera and a random style from ``sim/render.yaml``
(occluders off: a crop is of one piece), and cuts every piece at least ``min_visible`` visible out of
the frame the way the live path will: round pieces by the box of their top face (jittered like a
refined position's), for ``size`` the square of the top plane around a place within half the
piece's radius of its centre (where the detector may have put it), cards by their quad (corners
jittered like the card finder's) rectified upright.

``restyle(crops, task, rng)`` is the held-back style that the shipped models never see, for the
tests of ``tableref teach``: another printing of the pieces (hues turned, a colour cast, a paper
texture, harder light).

Everything is reproducible from ``seed``. Crops are BGR uint8 in **image px**.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vision.classify import CARD_KINDS, DISC_COLOURS, EGG_COLOURS, SIZE_HALF_MM, get_task

BOARDS = {"team": ("dino-dunk/tropic-turf", "dino-dunk/crater-court"),
          "colour": ("dino-dunk/tropic-turf", "dino-dunk/crater-court"),
          "racer-colour": ("dodo-dash/dodorado-jungle", "dodo-dash/dodorado-temple"),
          "egg-face": ("morris/waterfall",), "egg-colour": ("morris/waterfall",), "card": ("dogo-dash/table",),
          "size": ("dino-dunk/tropic-turf", "dino-dunk/crater-court")}
RACER_COLOURS = ("red", "blue", "yellow", "green", "purple", "orange", "white", "pink")


@dataclass
class CropSet:
    """``crops`` a list of n BGR crops; ``labels`` (n,) object; ``frame`` (n,) int (which render);
    ``teams`` the (home, away) BGR team colours of each render (the style's)."""

    crops: list
    labels: np.ndarray
    frame: np.ndarray
    teams: list = None

    def __post_init__(self):
        self.labels = np.asarray(self.labels, dtype=object).reshape(-1)
        self.frame = np.asarray(self.frame, dtype=np.int64).reshape(-1)
        n = len(self.crops)
        for name in ("labels", "frame"):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), but got {getattr(self, name).shape}")

    def __len__(self) -> int:
        return len(self.crops)

    def __add__(self, other: "CropSet") -> "CropSet":
        shift = (int(self.frame.max()) + 1) if len(self.frame) else 0
        return CropSet(self.crops + other.crops, np.concatenate([self.labels, other.labels]),
                       np.concatenate([self.frame, other.frame + shift]), (self.teams or []) + (other.teams or []))


def _grid_spots(rng, board, radius: float, n: int) -> list:
    """Up to n non-overlapping spots (mat mm) on the board, on a jittered grid."""
    L, W = board.length_mm, board.width_mm
    step = 2 * radius + 8.0
    xs = np.arange(radius + 10, L - radius - 10, step)
    ys = np.arange(radius + 10, W - radius - 10, step)
    spots = [(x, y) for x in xs for y in ys]
    rng.shuffle(spots)
    j = 3.0
    return [(x + rng.uniform(-j, j), y + rng.uniform(-j, j)) for x, y in spots[:n]]


def _scene(task: str, rng, board, specs, per_frame: int):
    """A scene full of the task's pieces and each piece's label."""
    from sim.scenarios.common import piece
    from sim.scene import Scene

    game = board.ref.split("/")[0]
    pieces, labels = [], {}
    if task == "racer-colour":  # racer miniatures: a white head on a coloured body
        for i, (x, y) in enumerate(_grid_spots(rng, board, 22.0, per_frame)):
            lab = RACER_COLOURS[int(rng.integers(len(RACER_COLOURS)))]
            p = piece(specs, game, "racer", f"p{i}", x, y, angle_deg=rng.uniform(0, 360), colour=lab)
            pieces.append(p)
            labels[p.id] = lab
    elif task in ("team", "colour"):
        kinds = ("disc-large", "disc-medium", "disc-medium", "disc-small")
        for i, (x, y) in enumerate(_grid_spots(rng, board, 26.0, per_frame)):
            kind = kinds[int(rng.integers(len(kinds)))]
            if task == "team":
                lab = ("home", "away")[int(rng.integers(2))]
                p = piece(specs, game, kind, f"p{i}", x, y, angle_deg=rng.uniform(0, 360), team=lab)
            else:
                lab = DISC_COLOURS[int(rng.integers(len(DISC_COLOURS)))]
                p = piece(specs, game, kind, f"p{i}", x, y, angle_deg=rng.uniform(0, 360), colour=lab)
            pieces.append(p)
            labels[p.id] = lab
    elif task in ("egg-face", "egg-colour"):
        for i, (x, y) in enumerate(_grid_spots(rng, board, 16.0, per_frame)):
            face = ("whole", "broken")[int(rng.integers(2))]
            colour = EGG_COLOURS[int(rng.integers(len(EGG_COLOURS)))]
            p = piece(specs, game, "egg", f"p{i}", x, y, angle_deg=rng.uniform(0, 360), face=face, colour=colour)
            pieces.append(p)
            labels[p.id] = face if task == "egg-face" else colour
    elif task == "card":
        for i, (x, y) in enumerate(_grid_spots(rng, board, 56.0, per_frame)):
            kind = CARD_KINDS[int(rng.integers(len(CARD_KINDS)))]
            up = kind != "back"
            card = CARD_KINDS[int(rng.integers(len(CARD_KINDS) - 1))] if not up else kind
            p = piece(specs, game, "card", f"p{i}", x, y, angle_deg=rng.uniform(0, 360), card=card, face_up=up)
            pieces.append(p)
            labels[p.id] = kind
    elif task == "size":
        _size_scene(rng, board, specs, per_frame, pieces, labels)
    else:
        get_task(task)
    return Scene(game, board.ref, pieces), labels


def _size_scene(rng, board, specs, n: int, pieces: list, labels: dict) -> None:
    """Dino Dunk's round pieces as they lie in play, into ``pieces`` and ``labels``: the ball and
    discs of every size and both teams, over the whole mat, more than half of them against another
    (0-8 mm apart: a ball beside a disc, discs in a cluster), and now and then the ball on a disc."""
    from sim.scenarios.common import piece

    game = board.ref.split("/")[0]
    L, W = board.length_mm, board.width_mm
    kinds = ("ball", "disc-small", "disc-medium", "disc-medium", "disc-large")
    placed = []  # (x, y, radius)
    for i in range(n):
        kind = kinds[int(rng.integers(len(kinds)))]
        r = specs.piece(game, kind).radius
        for _ in range(40):
            if placed and rng.random() < 0.6:
                x0, y0, r0 = placed[int(rng.integers(len(placed)))]
                a, d = rng.uniform(0, 2 * np.pi), r0 + r + rng.uniform(0.0, 8.0)
                x, y = x0 + d * np.cos(a), y0 + d * np.sin(a)
            else:
                x, y = rng.uniform(r + 5, L - r - 5), rng.uniform(r + 5, W - r - 5)
            if r + 5 <= x <= L - r - 5 and r + 5 <= y <= W - r - 5 and \
                    all(np.hypot(x - px, y - py) >= r + pr + 0.3 for px, py, pr in placed):
                break
        else:
            continue
        extra = {} if kind == "ball" else {"team": ("home", "away")[int(rng.integers(2))], "size": kind.replace("disc-", "")}
        p = piece(specs, game, kind, f"p{i}", x, y, angle_deg=rng.uniform(0, 360), **extra)
        pieces.append(p)
        labels[p.id] = kind
        placed.append((x, y, r))
    discs = [p for p in pieces if p.kind != "ball"]
    if discs and rng.random() < 0.3:  # the ball carried on a disc's top
        d = discs[int(rng.integers(len(discs)))]
        rb = specs.piece(game, "ball").radius
        a, off = rng.uniform(0, 2 * np.pi), rng.uniform(0.0, d.radius - rb)
        p = piece(specs, game, "ball", "carried", d.x + off * np.cos(a), d.y + off * np.sin(a), z=d.height)
        pieces.append(p)
        labels[p.id] = "ball"


def _card_quad_px(camera, p) -> np.ndarray:
    from sim.bodies import art_quad

    size = tuple(p.size) if p.size else (88.0, 63.0)
    return camera.project(art_quad(p, size, p.z + p.height))


def _top_face_box_px(camera, p) -> tuple:
    """The image box of a round piece's top face (its rim at the height of its top), as the live
    path cuts it from the refined position (``vision.detect``)."""
    from sim.bodies import ring

    px = camera.project(ring(p.x, p.y, p.z + p.height, p.radius or 10.0, n=48))
    return (*px.min(0), *px.max(0))


def figure_box_px(camera, p) -> tuple:
    """The image box of a standing figure (a racer): its base and its top rims together."""
    from sim.bodies import ring

    r = p.radius or 10.0
    pts = np.vstack([ring(p.x, p.y, p.z, r, n=32), ring(p.x, p.y, p.z + p.height, r, n=32)])
    px = camera.project(pts)
    return (*px.min(0), *px.max(0))


def render_crops(task: str, frames: int, seed: int, per_frame: int = 24, min_visible: float = 0.9,
                 box_jitter: float = 0.04, corner_jitter_px: float = 1.0, camera_reuse: int = 4,
                 progress=None) -> CropSet:
    """Crops of ``frames`` random renders of the task's pieces (see the module docstring)."""
    from calibration.board import load_board
    from calibration.specs import load_specs
    from sim.camera import random_camera
    from sim.render import render_scene
    from sim.style import load_render_config, random_style
    from vision.attributes import box_crop, square_crop
    from vision.cards import rectify_card
    from sim.bodies import ring
    from vision.classify import size_box

    t = get_task(task)
    card_size = t.conv.size if t.conv is not None else t.spec.size  # what the shipped model reads
    cfg = load_render_config()
    specs = load_specs()
    boards = [load_board(ref) for ref in BOARDS[task]]
    rng = np.random.default_rng(seed)
    # the mat texture (~0.5 s) and the camera's pixel maps (~0.2 s) dominate a render: a few mat
    # looks per board, and each camera kept for ``camera_reuse`` frames (new pieces, new light)
    looks = [random_style(rng, cfg, occluders=False) for _ in range(3)]
    crops, labels, frame_of, teams = [], [], [], []
    camera = None
    for f in range(frames):
        board = boards[(f // camera_reuse) % len(boards)]
        scene, lab = _scene(task, rng, board, specs, per_frame)
        if f % camera_reuse == 0:
            camera = random_camera(rng, board, cfg.camera)
        look = looks[int(rng.integers(len(looks)))]
        style = replace(random_style(rng, cfg, occluders=False), table_colour=look.table_colour,
                        table_grain=look.table_grain, table_seed=look.table_seed, mat_tint=look.mat_tint)
        res = render_scene(board, scene, camera, style, seed=int(rng.integers(1 << 30)), specs=specs)
        teams.append(tuple(style.teams))
        by_id = scene.by_id()
        for pid, t in res.truth.items():
            if pid not in lab or t.bbox_px is None or t.visible < min_visible:
                continue
            if task == "card":
                quad = _card_quad_px(camera, by_id[pid]) + rng.normal(0, corner_jitter_px, (4, 2))
                crop = rectify_card(res.image, quad, card_size)
                if rng.random() < 0.5:  # either short edge may come out on top
                    crop = crop[::-1, ::-1].copy()
            elif task == "size":
                # where the detector may have found it: anywhere within half its radius of its
                # centre (the ball: within 2 mm), the square of its top plane around that place
                p = by_id[pid]
                reach = 2.0 if p.kind == "ball" else 0.5 * p.radius
                a, d = rng.uniform(0, 2 * np.pi), reach * np.sqrt(rng.random())
                px = camera.project(ring(p.x + d * np.cos(a), p.y + d * np.sin(a), p.z + p.height, SIZE_HALF_MM, n=24))
                crop = square_crop(res.image, size_box(px), margin=0.0)
            elif task == "racer-colour":
                x0, y0, x1, y1 = figure_box_px(camera, by_id[pid])
                s = max(x1 - x0, y1 - y0, 2.0)
                jit = rng.uniform(-box_jitter, box_jitter, 4) * s
                crop = box_crop(res.image, (x0 + jit[0], y0 + jit[1], x1 + jit[2], y1 + jit[3]))
            else:
                x0, y0, x1, y1 = _top_face_box_px(camera, by_id[pid])
                s = max(x1 - x0, y1 - y0, 2.0)
                jit = rng.uniform(-box_jitter, box_jitter, 4) * s
                crop = square_crop(res.image, (x0 + jit[0], y0 + jit[1], x1 + jit[2], y1 + jit[3]))
            crops.append(crop)
            labels.append(lab[pid])
            frame_of.append(f)
        if progress is not None:
            progress(f + 1, frames)
    return CropSet(crops, labels, frame_of, teams)


def restyle(crops: list, task: str, seed: int) -> list:
    """The held-back style (see the module docstring): every crop recoloured and re-textured the
    same way for one ``seed`` (one user's print run), with a little variation per crop."""
    import cv2

    rng = np.random.default_rng(seed)
    hue_shift = int(rng.integers(35, 55)) * (1 if rng.random() < 0.5 else -1)
    cast = rng.uniform(0.75, 1.25, 3)
    gamma = rng.uniform(0.6, 0.8)
    out = []
    for c in crops:
        hsv = cv2.cvtColor(c, cv2.COLOR_BGR2HSV).astype(np.int32)
        hsv[:, :, 0] = (hsv[:, :, 0] + hue_shift) % 180
        hsv[:, :, 1] = np.clip(hsv[:, :, 1] * 1.3 + 25, 0, 255)
        img = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32) / 255.0
        img = img ** gamma * cast * rng.uniform(0.9, 1.1)
        tex = cv2.GaussianBlur(rng.normal(0, 1, c.shape[:2]).astype(np.float32), (0, 0), 1.2)
        img = img * (1.0 + 0.12 * tex[:, :, None] / max(float(tex.std()), 1e-6))
        if task == "card":  # a printed frame round the artwork
            h, w = img.shape[:2]
            t = max(1, int(round(0.07 * min(h, w))))
            frame = np.float32(cast * 0.25)
            img[:t], img[-t:], img[:, :t], img[:, -t:] = frame, frame, frame, frame
        out.append(np.clip(img * 255.0, 0, 255).astype(np.uint8))
    return out
