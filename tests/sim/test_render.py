"""sim/render.py: geometry checked against independent references (analytic dots, fitted marker
edges, exact projected circles), reproducibility, truth, empty scenes."""

import numpy as np
import pytest

from calibration.board import load_board
from sim.camera import look_at, random_camera
from sim.mat_texture import MatTexture
from sim.render import mat_points_of_pixels, render_scene, undistorted_pixel_grid, warp_texture
from sim.scene import PieceState, Scene
from sim.style import clean_style, random_style

CAMERAS = [  # (tilt, yaw, k1, size, height): straight down, tilted with barrel, steep with pincushion, small frame
    (0, 30, 0.0, (1280, 720), 800),
    (35, 30, -0.2, (1280, 720), 800),
    (55, 120, 0.05, (1280, 720), 700),
    (45, 250, -0.25, (640, 480), 900),
]


def _bilinear(img, pts):
    x, y = pts[:, 0], pts[:, 1]
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    a, b = img[y0, x0], img[y0, x0 + 1]
    c, d = img[y0 + 1, x0], img[y0 + 1, x0 + 1]
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy


def _dot_texture(pts_mm, s=2.0, sigma_mm=3.0):
    """A white mat-plane texture with dark Gaussian dots (analytic, exact centres) at pts_mm."""
    import cv2

    x0 = y0 = -100.0
    W, H = int((914 + 200) * s), int((610 + 200) * s)
    u = (np.arange(W) + 0.5) / s + x0
    v = (np.arange(H) + 0.5) / s + y0
    dark = np.zeros((H, W))
    for p in pts_mm:  # each Gaussian within ±5 σ (beyond, it is < 4e-6)
        i0, i1 = np.searchsorted(u, [p[0] - 5 * sigma_mm, p[0] + 5 * sigma_mm])
        j0, j1 = np.searchsorted(v, [p[1] - 5 * sigma_mm, p[1] + 5 * sigma_mm])
        dark[j0:j1, i0:i1] += np.outer(np.exp(-0.5 * ((v[j0:j1] - p[1]) / sigma_mm) ** 2),
                                       np.exp(-0.5 * ((u[i0:i1] - p[0]) / sigma_mm) ** 2))
    img = cv2.merge([np.clip(255 - 255 * dark, 0, 255).astype(np.uint8)] * 3)
    levels, scales = [img], [s]
    for _ in range(3):  # the same exact 2x box reductions as the mat's pyramid
        h, w = levels[-1].shape[0] // 2, levels[-1].shape[1] // 2
        levels.append(cv2.resize(levels[-1][: 2 * h, : 2 * w], (w, h), interpolation=cv2.INTER_AREA))
        scales.append(scales[-1] / 2)
    return MatTexture(tuple(levels), tuple(scales), (x0, y0), (255, 255, 255))


@pytest.mark.parametrize("tilt, yaw, k1, size, height", CAMERAS)
def test_mat_points_render_where_the_true_camera_projects_them(tilt, yaw, k1, size, height):
    pts = np.array([[x, y] for x in np.linspace(60, 850, 6) for y in np.linspace(60, 550, 4)])
    tex = _dot_texture(pts)
    cam = look_at((457, 305), height, tilt, yaw, 0, 80, size=size, dist=(k1, 0.02, 0.001, -0.001, 0.0))
    dark = 255.0 - warp_texture(tex, cam)[:, :, 0].astype(np.float64)  # per-pixel levels, as the renderer
    expected = cam.transform().mat_to_image(pts)
    w, h = size
    errors = []
    for e in expected:
        if not (12 < e[0] < w - 13 and 12 < e[1] < h - 13):
            continue
        xi, yi = int(round(e[0])), int(round(e[1]))
        win = dark[yi - 10:yi + 11, xi - 10:xi + 11]
        ys, xs = np.mgrid[yi - 10:yi + 11, xi - 10:xi + 11]
        centroid = np.array([(win * xs).sum(), (win * ys).sum()]) / win.sum()
        errors.append(np.linalg.norm(centroid - e))
    assert len(errors) >= 12
    assert max(errors) < 0.15


def _marker_corners_by_edges(gray, corners_px, cell_px):
    """Corners of a marker's black square, independently of any detector: find its four edges as
    50 % crossings along their normals (unbiased under a symmetric blur), fit lines, intersect."""
    centre = corners_px.mean(axis=0)
    reach = min(3.0, 0.45 * cell_px)
    lines = []
    for k in range(4):
        a, b = corners_px[k], corners_px[(k + 1) % 4]
        d = (b - a) / np.linalg.norm(b - a)
        n = np.array([-d[1], d[0]])
        if n @ (a - centre) < 0:
            n = -n
        edge = []
        for t in np.linspace(0.25, 0.75, 11):
            p = a + t * (b - a)
            s = np.linspace(-reach, reach, 61)
            prof = _bilinear(gray, p + s[:, None] * n)
            mid = 0.5 * (prof[0] + prof[-1])
            i = np.nonzero((prof[:-1] < mid) & (prof[1:] >= mid))[0]
            if len(i) != 1:
                continue
            i = i[0]
            f = (mid - prof[i]) / (prof[i + 1] - prof[i])
            edge.append(p + (s[i] + f * (s[1] - s[0])) * n)
        edge = np.array(edge)
        c = edge.mean(axis=0)
        _, _, vt = np.linalg.svd(edge - c)
        lines.append((c, vt[0]))
    out = []
    for k in range(4):
        (c1, d1), (c2, d2) = lines[(k - 1) % 4], lines[k]
        t = np.linalg.solve(np.column_stack([d1, -d2]), c2 - c1)
        out.append(c1 + t[0] * d1)
    return np.array(out)


@pytest.mark.parametrize("ref", ["dino-dunk/tropic-turf", "morris/waterfall"])
@pytest.mark.parametrize("tilt, yaw, k1", [(0, 20, 0.0), (40, 60, -0.2), (55, 200, 0.04)])
def test_markers_render_exactly_where_the_transform_says(ref, tilt, yaw, k1):
    import cv2

    from sim.camera import view_points_mm

    board = load_board(ref)
    for height in range(500, 2500, 50):  # the lowest camera that sees every marker
        cam = look_at((board.length_mm / 2, board.width_mm / 2), height, tilt, yaw, 0, 85, size=(1280, 720),
                      dist=(k1, 0.02, 0.0, 0.0, 0.0))
        px = cam.transform().mat_to_image(view_points_mm(board))
        if np.all((px > 12) & (px < np.array(cam.size) - 13)):
            break
    res = render_scene(board, Scene(board.game, board.ref, []), cam, clean_style(), seed=0)
    gray = cv2.cvtColor(res.image, cv2.COLOR_BGR2GRAY).astype(np.float64)
    tr = cam.transform()
    checked = 0
    for mid, corners_mm in board.markers.corners_mm().items():
        exp = tr.mat_to_image(corners_mm)
        cell_px = np.min(np.linalg.norm(exp - np.roll(exp, 1, axis=0), axis=1)) / 6
        if cell_px < 3.5 or np.any(exp < 10) or np.any(exp > np.array(cam.size) - 11):
            continue
        found = _marker_corners_by_edges(gray, exp, cell_px)
        assert np.max(np.linalg.norm(found - exp, axis=1)) < 0.3, (mid, found - exp)
        checked += 1
    assert checked >= 2


def test_the_map_agrees_with_mattransform_image_to_mat():
    cam = look_at((457, 305), 700, 50, 33, 1, 80, dist=(-0.25, 0.06, 0.001, 0.001, 0.0))
    pts, valid = mat_points_of_pixels(cam, undistorted_pixel_grid(cam))
    rng = np.random.default_rng(1)
    ij = np.column_stack([rng.integers(0, 640, 300), rng.integers(0, 480, 300)])
    ok = valid[ij[:, 1], ij[:, 0]]
    got = pts[ij[:, 1], ij[:, 0]][ok]
    want = cam.transform().image_to_mat(ij[ok].astype(float))
    assert np.allclose(got, want, atol=1e-6)


def _polygon_centroid(p):
    x, y = p[:, 0], p[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(y, -1)
    cross = x * y1 - x1 * y
    area = cross.sum() / 2
    return np.array([((x + x1) * cross).sum(), ((y + y1) * cross).sum()]) / (6 * area)


@pytest.mark.parametrize("tilt, yaw, k1", [(0, 0, 0.0), (40, 15, -0.15), (60, 100, 0.0)])
def test_disc_top_renders_offset_from_its_base_as_the_camera_says(tilt, yaw, k1, monkeypatch):
    import sim.render as render_module
    from sim.bodies import _disc_body

    board = load_board("grid/plain-grid")
    x, y, r, h = 230.0, 180.0, 20.0, 30.0
    piece = PieceState("p", "puck", x, y, radius=r, height=h)
    cam = look_at((200, 200), 600, tilt, yaw, 0, 75, size=(1280, 720), dist=(k1, 0.0, 0.0, 0.0, 0.0))

    def render(top_colour):  # the same disc, the same sides; only its top face's colour differs
        monkeypatch.setattr(render_module, "build_body", lambda p, spec, style: _disc_body(p, r, h, top_colour, (90, 90, 90), None))
        return render_scene(board, Scene("grid", board.ref, [piece]), cam, clean_style(), seed=0)

    res, other = render((50, 50, 210)), render((210, 50, 50))
    tr = cam.transform()
    # the reference: the exact image of the top circle (dense), its area centroid
    a = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
    top_ring = np.column_stack([x + r * np.cos(a), y + r * np.sin(a), np.full_like(a, -h)])
    ref_centroid = _polygon_centroid(tr.project_3d(top_ring))
    # the rendered top face: its coverage is what changes with the top's colour (compositing is
    # linear), so the difference image weighs every pixel by how much of it is top face
    cover = np.abs(res.image.astype(float) - other.image.astype(float))[:, :, [0, 2]].sum(axis=2)
    ys, xs = np.mgrid[0:cover.shape[0], 0:cover.shape[1]]
    rendered = np.array([(cover * xs).sum(), (cover * ys).sum()]) / cover.sum()
    assert np.linalg.norm(rendered - ref_centroid) < 0.05
    ring_px = tr.project_3d(top_ring)
    nxt = np.roll(ring_px, -1, axis=0)
    exact_area = abs(np.sum(ring_px[:, 0] * nxt[:, 1] - nxt[:, 0] * ring_px[:, 1])) / 2
    assert abs(cover.sum() / 320.0 - exact_area) < 0.01 * exact_area  # 320 = |210 - 50| x 2 channels
    # truth: base and top centres are the projections of (x, y, 0) and (x, y, -h)
    t = res.truth["p"]
    assert np.allclose(t.base_px, tr.project_3d([[x, y, 0.0]])[0], atol=1e-9)
    assert np.allclose(t.top_px, tr.project_3d([[x, y, -h]])[0], atol=1e-9)
    # the top is not on the mat plane: where the plane at height h puts it, not where z = 0 would
    on_mat = tr.mat_to_image([[x, y]])[0]
    bias = np.linalg.norm(ref_centroid - t.top_px)  # an ellipse's centroid is not the projected centre
    assert bias < 0.5 and np.linalg.norm(rendered - t.top_px) < 0.3 + bias
    if tilt:
        assert np.linalg.norm(rendered - on_mat) > 5.0


def _scene(pieces):
    return Scene("dino-dunk", "dino-dunk/tropic-turf", pieces)


def _pieces():
    return [PieceState("h1", "disc-large", 300, 300, attributes={"team": "home"}),
            PieceState("a1", "disc-medium", 520, 330, attributes={"team": "away"}),
            PieceState("ball", "ball", 330, 310, vx=900, vy=200),
            PieceState("bb", "backboard", 15, 305, angle_deg=90)]


def test_same_seed_same_bytes_and_seeds_differ():
    board = load_board("dino-dunk/tropic-turf")
    rng = np.random.default_rng(11)
    style = random_style(rng)
    style = style.__class__(**{**style.to_dict(), "noise_sigma": 2.0, "jpeg_quality": 80, "exposure_ms": 20.0,
                               "occluders": style.occluders})
    cam = random_camera(rng, board)
    a = render_scene(board, _scene(_pieces()), cam, style, seed=3)
    b = render_scene(board, _scene(_pieces()), cam, style, seed=3)
    c = render_scene(board, _scene(_pieces()), cam, style, seed=4)
    assert a.image.tobytes() == b.image.tobytes()
    assert a.image.tobytes() != c.image.tobytes()
    assert a.image.dtype == np.uint8 and a.image.shape == (480, 640, 3)


def test_empty_scene():
    board = load_board("dogo-dash/table")
    cam = look_at((450, 300), 900, 20, 0, 0, 80)
    res = render_scene(board, Scene("dogo-dash", board.ref, []), cam, clean_style(), seed=0)
    assert res.image.shape == (480, 640, 3) and res.truth == {}
    assert not np.any(res.labels)


def test_visible_fraction_accounts_for_pieces_and_the_frame():
    board = load_board("dino-dunk/tropic-turf")
    cam = look_at((457, 305), 700, 30, 0, 0, 80)
    pieces = [PieceState("under", "disc-large", 400, 300, attributes={"team": "home"}),
              PieceState("ball", "ball", 400, 300, z=9.0),  # carried on top: hides the middle of "under"
              PieceState("alone", "disc-medium", 600, 300, attributes={"team": "away"}),
              PieceState("gone", "disc-medium", 5000, 300, attributes={"team": "away"})]
    res = render_scene(board, _scene(pieces), cam, clean_style(), seed=0)
    t = res.truth
    assert t["alone"].visible == 1.0 and t["ball"].visible == 1.0
    # the reference: the large disc's silhouette minus the ball's, exact polygons (shapely)
    from shapely.geometry import MultiPoint

    def silhouette(x, y, r, z0, z1):
        a = np.linspace(0, 2 * np.pi, 720, endpoint=False)
        ring = np.column_stack([x + r * np.cos(a), y + r * np.sin(a)])
        pts = np.vstack([np.column_stack([ring, np.full(720, -z0)]), np.column_stack([ring, np.full(720, -z1)])])
        return MultiPoint([tuple(p) for p in cam.transform().project_3d(pts)]).convex_hull

    under, ball = silhouette(400, 300, 25.5, 0, 9), silhouette(400, 300, 9.5, 9, 18)
    want = under.difference(ball).area / under.area
    assert 0.75 < want < 0.95 and abs(t["under"].visible - want) < 0.03
    assert t["gone"].visible == 0.0 and t["gone"].bbox_px is None
    x0, y0, x1, y1 = t["alone"].bbox_px
    assert x0 < t["alone"].top_px[0] < x1 and y0 < t["alone"].top_px[1] < y1
    assert t["ball"].top_px[1] < t["under"].top_px[1]  # higher up → further up the image (camera on +y side)


def test_moving_flag_and_blur_only_touch_moving_pieces():
    board = load_board("dino-dunk/tropic-turf")
    cam = look_at((457, 305), 700, 20, 0, 0, 80)
    still = _scene([PieceState("ball", "ball", 330, 310)])
    moving = _scene([PieceState("ball", "ball", 330, 310, vx=1500.0)])
    style = clean_style(exposure_ms=20.0)
    a = render_scene(board, still, cam, style, seed=0)
    b = render_scene(board, moving, cam, style, seed=0)
    assert not a.truth["ball"].moving and b.truth["ball"].moving
    changed = np.nonzero(np.any(a.image != b.image, axis=2))
    assert len(changed[0]) > 20
    x0, y0, x1, y1 = a.truth["ball"].bbox_px
    assert changed[1].min() >= x0 - 30 and changed[1].max() <= x1 + 30  # only around the ball


def test_a_recorded_frame_re_renders_to_the_same_bytes():
    import json

    from sim.camera import Camera
    from sim.style import Style

    board = load_board("morris/waterfall")
    rng = np.random.default_rng(21)
    cam, style = random_camera(rng, board), random_style(rng)
    scene = Scene("morris", board.ref, [PieceState("egg-1", "egg", 480, 330, attributes={"colour": "red", "face": "broken"}),
                                        PieceState("toucan", "toucan", 520, 200)])
    first = render_scene(board, scene, cam, style, seed=7)
    record = json.loads(json.dumps({"camera": cam.to_dict(), "style": style.to_dict(), "scene": scene.to_dict()}))
    again = render_scene(board, Scene.from_dict(record["scene"]), Camera.from_dict(record["camera"]),
                         Style.from_dict(record["style"]), seed=7)
    assert first.image.tobytes() == again.image.tobytes()


def test_bench_reports_every_stage():
    from sim.bench import bench_render, format_report

    r = bench_render(frames=2, boards=("grid/plain-grid",))
    assert r["frames"] == 2 and set(r["median_ms"]) == {"mat", "pieces", "effects"}
    assert r["frames_per_s"] > 0 and "frames/s" in format_report(r)


@pytest.mark.parametrize("ref", ["dino-dunk/crater-court", "dodo-dash/dodorado-jungle", "morris/waterfall", "dogo-dash/table"])
def test_typical_scenes_of_every_game_render_with_every_piece_visible_somewhere(ref):
    from sim.bench import typical_scene
    from sim.camera import top_down

    board = load_board(ref)
    scene = typical_scene(board, np.random.default_rng(0))
    res = render_scene(board, scene, top_down(board), clean_style(), seed=0)
    assert set(res.truth) == {p.id for p in scene.pieces}
    for t in res.truth.values():
        assert t.visible > 0 and t.bbox_px is not None


def test_card_corners_are_the_projected_top_corners():
    board = load_board("dogo-dash/table")
    card = PieceState("c", "card", 300, 250, angle_deg=30, size=(88.0, 63.0), attributes={"card": "bear", "face_up": True})
    cam = look_at((450, 300), 700, 35, 10, 0, 75, dist=(-0.1, 0, 0, 0, 0))
    res = render_scene(board, Scene("dogo-dash", board.ref, [card]), cam, clean_style(), seed=0)
    t = res.truth["c"]
    a = np.radians(30)
    local = np.array([[-44, -31.5], [44, -31.5], [44, 31.5], [-44, 31.5]])
    rot = local @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
    want = cam.transform().project_3d(np.column_stack([rot + [300, 250], np.full(4, -t.height_mm)]))
    assert np.allclose(np.array(t.corners_px), want, atol=1e-9)
    assert res.truth["c"].to_dict()["corners_px"][0] == list(t.corners_px[0])


def test_a_disc_half_out_of_the_frame_is_partly_visible_as_geometry_says():
    board = load_board("dino-dunk/tropic-turf")
    cam = look_at((457, 305), 500, 0, 0, 0, 60)  # straight down: the disc's outline is a circle
    x_edge = cam.transform().image_to_mat([[-0.5, 240.0]])[0]  # the frame's left edge, on the mat
    piece = PieceState("d", "disc-large", float(x_edge[0]), float(x_edge[1]), attributes={"team": "home"})
    res = render_scene(board, _scene([piece]), cam, clean_style(), seed=0)
    t = res.truth["d"]
    # the reference: the exact silhouette (hull of base and top circles), clipped by the frame (shapely)
    from shapely.geometry import MultiPoint, box

    a = np.linspace(0, 2 * np.pi, 720, endpoint=False)
    ring = np.column_stack([piece.x + 25.5 * np.cos(a), piece.y + 25.5 * np.sin(a)])
    pts = cam.transform().project_3d(np.vstack([np.column_stack([ring, np.zeros(720)]), np.column_stack([ring, np.full(720, -9.0)])]))
    sil = MultiPoint([tuple(p) for p in pts]).convex_hull
    want = sil.intersection(box(-0.5, -0.5, 639.5, 479.5)).area / sil.area  # pixel edges at ±0.5
    assert 0.3 < want < 0.5  # the top leans outwards: less than half is in
    assert abs(t.visible - want) < 0.03 and t.bbox_px[0] == 0.0


def test_a_piece_in_the_air_is_moving_but_a_carried_ball_is_not():
    board = load_board("dodo-dash/dodorado-temple")
    cam = look_at((410, 250), 800, 20, 0, 0, 75)
    falling = PieceState("m", "meteorite", 300, 200, z=40.0)  # dropped from above, no sideways speed
    carried = PieceState("b", "banana", 500, 200, z=4.0, attributes={"carried_by": "x"})
    res = render_scene(board, Scene("dodo-dash", board.ref, [falling, carried]), cam, clean_style(), seed=0)
    assert res.truth["m"].moving and not res.truth["b"].moving
