"""Mat registration: accuracy on synthetic views at known poses (a printed marker sheet and a whole
mat, tilts 0-60°, 640x480 and 1280x720, noise and blur), with intrinsics and lens distortion, the
uncertainty model, the outline method, the drift check, the configuration, and every bad input."""

import dataclasses
from functools import lru_cache

import cv2
import numpy as np
import pytest

from calibration.board import load_board, parse_board
from calibration.config import ConfigError, load_config
from calibration.errors import (ImageError, MarkersNotFoundError, OutlineNotFoundError, RegistrationError,
                                UnknownMarkersError)
from calibration.intrinsics import CameraIntrinsics
from calibration.outline import register_outline
from calibration.register import (MarkerDetections, check_drift, detect_markers, refine_homography,
                                  register_detections, register_markers, sigma_summary)
from calibration.synthetic import MatScene, camera_matrix, page_view
from calibration.transform import MatTransform, apply_homography

CFG = load_config()
SIZES = [(640, 480), (1280, 720)]
TILTS = [0, 15, 30, 45, 60]


def _grid(board, n=(20, 14)):
    xs, ys = np.meshgrid(np.linspace(0, board.length_mm, n[0]), np.linspace(0, board.width_mm, n[1]))
    return np.column_stack([xs.ravel(), ys.ravel()])


def _errors_mm(view, transform, points_mm):
    """How far registration puts each mat point from where it is: true image position → mat mm."""
    return np.linalg.norm(transform.image_to_mat(view.transform.mat_to_image(points_mm)) - points_mm, axis=1)


@lru_cache(maxsize=None)
def _scene(ref, markers=True, paint=True):
    return MatScene(load_board(ref), markers=markers, paint=paint)


# --------------------------------------------------------------------------------------------
# accuracy


def test_printed_sheet_at_known_poses_median_under_half_a_mm():
    """warpPerspective of the generated marker sheet (A4, four 50 mm markers), tilts 0-60°, both
    resolutions, noise σ 3 grey levels and blur σ 0.8 px."""
    from calibration.markers import board_marker_sheet

    board = load_board("dino-dunk/tropic-turf")
    sheet = board_marker_sheet(board, CFG.sheet, dpi=150)
    paper = parse_board({"game": "sheet", "name": "a4", "size_mm": list(sheet.paper_mm), "markers": {
        "dictionary": board.markers.dictionary, "size_mm": board.markers.size_mm,
        "items": [{"id": int(mid), "center": c.mean(axis=0).tolist()} for _, mid, c in sheet.placements]}})
    # the sheet's markers are pasted at whole pixels: use their true size (within 0.05 mm of 50)
    side = float(np.mean([np.linalg.norm(c[1] - c[0]) for _, _, c in sheet.placements]))
    paper = dataclasses.replace(paper, markers=dataclasses.replace(paper.markers, size_mm=side))
    grid = _grid(paper)
    errors = []
    for size in SIZES:
        for tilt in TILTS:
            for az in (70, 200):
                view = page_view(sheet.pages[0], sheet.dpi, size, tilt, az, roll_deg=5, noise_sigma=3,
                                 blur_sigma=0.8, seed=tilt + az)
                t = register_markers(view.image, paper, CFG.detector, CFG.registration)
                assert t.extra["markers_found"] == [0, 1, 2, 3]
                errors.append(_errors_mm(view, t, grid))
    e = np.concatenate(errors)
    print(f"\nsheet views: {len(errors)}, median {np.median(e):.3f} mm, p95 {np.percentile(e, 95):.3f} mm, "
          f"max {e.max():.3f} mm")
    assert np.median(e) < 0.5
    assert np.percentile(e, 95) < 1.0


def test_whole_mat_at_known_poses_median_under_half_a_mm():
    """The Tropic Turf mat (914 x 610 mm) with its four 50 mm corner markers filling the view."""
    board = load_board("dino-dunk/tropic-turf")
    scene = _scene("dino-dunk/tropic-turf")
    grid = _grid(board)
    rows, errors = [], []
    for size in SIZES:
        for tilt in TILTS:
            for az in (30, 160):
                view = scene.view(size, tilt, az, roll_deg=7, noise_sigma=3, blur_sigma=0.8, seed=tilt + az)
                t = register_markers(view.image, board, CFG.detector, CFG.registration)
                e = _errors_mm(view, t, grid)
                s_med, _ = sigma_summary(t, board)
                errors.append(e)
                rows.append((size, tilt, az, len(t.extra["markers_found"]), np.median(e), np.percentile(e, 95), s_med))
                if size == (1280, 720) or len(t.extra["markers_found"]) == 4:
                    assert np.median(e) < 1.0, rows[-1]
                # σ is honest: the error is of the order it claims (2-D error ≈ 1.25 σ per axis)
                assert np.median(e) < 4 * max(s_med, 0.02), rows[-1]
    e = np.concatenate(errors)
    print(f"\nmat views: {len(errors)}, median {np.median(e):.3f} mm, p95 {np.percentile(e, 95):.3f} mm")
    for r in rows:
        print("  %sx%s tilt %2d az %3d: %d markers, median %.3f mm, p95 %.3f mm, sigma %.3f mm" % (*r[0], *r[1:]))
    assert np.median(e) < 0.5
    assert np.percentile(e, 95) < 3.0


def test_with_intrinsics_and_lens_distortion():
    """A distorting lens: with the camera file, registration undistorts and solves the pose (exact
    R, t); the mat and a plane 9 mm above it (a disc's top) map back to within a fraction of a mm."""
    board = load_board("dino-dunk/tropic-turf")
    scene = _scene("dino-dunk/tropic-turf")
    size = (1280, 720)
    dist = np.array([-0.15, 0.05, 0.0005, -0.0005, 0.0])
    K = camera_matrix(size, 60.0)
    cam = CameraIntrinsics(K, dist, size)
    grid = _grid(board)
    for tilt in (0, 30, 50):
        view = scene.view(size, tilt, 60, roll_deg=4, dist=dist, noise_sigma=2, blur_sigma=0.6, seed=tilt)
        t = register_markers(view.image, board, CFG.detector, CFG.registration, cam)
        assert t.method == "markers+pose"
        assert np.median(_errors_mm(view, t, grid)) < 0.3
        # the camera pose is recovered: the camera centre within a few mm at ~1.5 m
        assert np.linalg.norm(t.camera_centre_mm() - view.transform.camera_centre_mm()) < 15
        # planes above the mat (the top of a 9 mm disc) come out right too
        top = view.transform.mat_to_image(grid, height_mm=9.0)
        assert np.median(np.linalg.norm(t.image_to_mat(top, height_mm=9.0) - grid, axis=1)) < 0.4
        # without the camera file, the distortion costs millimetres at the edges
        t0 = register_markers(view.image, board, CFG.detector, CFG.registration)
        assert np.max(_errors_mm(view, t0, grid)) > np.max(_errors_mm(view, t, grid))
    # a camera file for another resolution of the same aspect is scaled
    half = CameraIntrinsics(K * np.array([[0.5], [0.5], [1.0]]) + np.array([[0, 0, -0.25], [0, 0, -0.25], [0, 0, 0]]),
                            dist, (640, 360))
    t = register_markers(view.image, board, CFG.detector, CFG.registration, half)
    assert np.median(_errors_mm(view, t, grid)) < 0.3


def test_refine_homography_reaches_the_true_one():
    rng = np.random.default_rng(1)
    H = np.array([[0.9, -0.2, 300.0], [0.1, 0.7, 120.0], [1e-4, 2e-4, 1.0]])
    X = rng.uniform([0, 0], [900, 600], (60, 2))
    x = apply_homography(H, X) + rng.normal(0, 0.2, (60, 2))
    x[:3] += 15.0  # three gross outliers, down-weighted by the Huber loss
    H0 = H + np.array([[0.01, 0.0, 3.0], [0.0, -0.01, -2.0], [1e-5, 0.0, 0.0]])
    Hr = refine_homography(H0, X, x, iterations=30, huber_px=0.5)
    grid = _grid(load_board("dino-dunk/tropic-turf"))
    assert np.max(np.linalg.norm(apply_homography(Hr, grid) - apply_homography(H, grid), axis=1)) < 0.3


def test_sigma_grows_where_there_are_no_markers():
    """Two markers on one side only: σ is small near them and large at the far side."""
    board = load_board("dino-dunk/tropic-turf")
    view = _scene("dino-dunk/tropic-turf").view((1280, 720), 20, 60, noise_sigma=2, blur_sigma=0.7)
    det = detect_markers(view.image, board.markers.dictionary, CFG.detector)
    keep = np.isin(det.ids, [0, 3])  # the two markers at x = -40
    two = MarkerDetections(det.ids[keep], det.corners[keep], det.dictionary, det.edge_refined[keep])
    t = register_detections(two, board, (1280, 720), CFG.registration)
    near, far = t.sigma_mm([[0.0, 305.0], [914.0, 305.0]])
    assert far > 3 * near


# --------------------------------------------------------------------------------------------
# outline


def test_outline_of_an_asymmetric_board_resolves_orientation():
    board = load_board("morris/waterfall")
    scene = _scene("morris/waterfall", markers=False)
    grid = _grid(board)
    errors = []
    for size in SIZES:
        for tilt, az in ((0, 250), (30, 30), (55, 120)):
            view = scene.view(size, tilt, az, roll_deg=7, fill=0.8, noise_sigma=3, blur_sigma=0.8, seed=tilt)
            t = register_outline(view.image, board, CFG.outline)
            assert t.extra["orientation"] == "print", (size, tilt, az)
            errors.append(_errors_mm(view, t, grid))
    e = np.concatenate(errors)
    print(f"\noutline (morris/waterfall): median {np.median(e):.3f} mm, p95 {np.percentile(e, 95):.3f} mm")
    assert np.median(e) < 1.0 and np.percentile(e, 95) < 3.0


def test_outline_of_a_symmetric_board_reports_the_ambiguity():
    board = load_board("dino-dunk/tropic-turf")  # home and away ends look alike
    view = _scene("dino-dunk/tropic-turf").view((1280, 720), 25, 250, fill=0.8, noise_sigma=2, blur_sigma=0.7)
    t = register_outline(view.image, board, CFG.outline)
    assert t.extra["orientation"] == "ambiguous"
    flipped = register_outline(view.image, board, CFG.outline, flip=True)
    assert flipped.extra["orientation"] == "ambiguous+flip"
    grid = _grid(board)
    e = [np.median(_errors_mm(view, x, grid)) for x in (t, flipped)]
    assert min(e) < 1.5 and max(e) > 300  # one of the two is the mat, the other is it turned round


def test_outline_not_found_on_a_bare_table():
    board = load_board("morris/waterfall")
    scene = _scene("morris/waterfall", markers=False)
    view = scene.view((640, 480), 0, 90, fill=0.8)
    bare = cv2.GaussianBlur(view.image, (0, 0), 1)[:60, :]  # a strip of table only
    bare = cv2.resize(bare, (640, 480))
    with pytest.raises(OutlineNotFoundError, match="no outline"):
        register_outline(bare, board, CFG.outline)


# --------------------------------------------------------------------------------------------
# drift


def test_drift_check():
    board = load_board("dino-dunk/tropic-turf")
    scene = _scene("dino-dunk/tropic-turf")
    a = scene.view((1280, 720), 30, 60, noise_sigma=2, blur_sigma=0.7, seed=1)
    b = scene.view((1280, 720), 30, 60, noise_sigma=2, blur_sigma=0.7, seed=2)  # same pose, new noise
    ta = register_markers(a.image, board, CFG.detector, CFG.registration)
    tb = register_markers(b.image, board, CFG.detector, CFG.registration)
    still = check_drift(ta, tb, board, CFG.drift)
    assert not still.moved and still.max_mm < 0.5 and "in place" in still.message
    # the mat pushed 10 mm along x: the image shifts by the mat's scale at its centre
    moved_H = tb.H @ np.array([[1, 0, -10.0], [0, 1, 0], [0, 0, 1]])
    pushed = MatTransform(H=moved_H, image_size=tb.image_size)
    report = check_drift(ta, pushed, board, CFG.drift)
    assert report.moved and report.max_mm == pytest.approx(10.0, abs=0.5)
    assert "mat moved" in report.message and "10." in report.message
    small = MatTransform(H=tb.H, image_size=(640, 480))
    with pytest.raises(RegistrationError, match="different image sizes"):
        check_drift(ta, small, board, CFG.drift)


# --------------------------------------------------------------------------------------------
# bad input: each raises a typed error whose message says what to do


@lru_cache(maxsize=None)
def _tropic_view():
    return _scene("dino-dunk/tropic-turf").view((1280, 720), 20, 60, noise_sigma=2, blur_sigma=0.7)


def _only_markers(image, board, keep):
    """The image with every marker except ``keep`` painted over with table colour."""
    out = image.copy()
    det = detect_markers(image, board.markers.dictionary, CFG.detector)
    for mid, c in zip(det.ids, det.corners):
        if int(mid) not in keep:
            centre = c.mean(axis=0)
            cv2.fillConvexPoly(out, np.round(centre + (c - centre) * 1.6).astype(np.int32), (70, 110, 150))
    return out


@pytest.mark.parametrize("case, error, message", [
    # an empty array
    ("empty", ImageError, "empty or too small"),
    # a blank frame: nothing to find
    ("blank", MarkersNotFoundError, r"no markers of dino-dunk/tropic-turf found \(expected #0, #1, #2, #3"),
    # one marker left in view
    ("one", MarkersNotFoundError, r"only 1 marker\(s\) .* found \(#2\); need at least 2 of .*missing #0, #1, #3"),
    # the Crater Court board on a Tropic Turf image: other ids
    ("other-board", UnknownMarkersError, r"found markers #0, #1, #2, #3 .* expects #4, #5, #6, #7: is this another mat"),
    # a mirrored webcam image
    ("mirrored", RegistrationError, "the image is mirrored"),
])
def test_bad_inputs(case, error, message):
    board = load_board("dino-dunk/tropic-turf")
    view = _tropic_view()
    image = {"empty": lambda: np.zeros((0, 0, 3), np.uint8),
             "blank": lambda: np.full((720, 1280, 3), 128, np.uint8),
             "one": lambda: _only_markers(view.image, board, {2}),
             "other-board": lambda: view.image,
             "mirrored": lambda: cv2.flip(view.image, 1)}[case]()
    if case == "other-board":
        board = load_board("dino-dunk/crater-court")
    with pytest.raises(error, match=message):
        register_markers(image, board, CFG.detector, CFG.registration)


def test_mirrored_homography_is_refused():
    """Detections that only a mirror image explains (corner ids consistent, layout flipped)."""
    board = load_board("dino-dunk/tropic-turf")
    view = _tropic_view()
    det = detect_markers(view.image, board.markers.dictionary, CFG.detector)
    mirrored = det.corners.copy()
    mirrored[..., 0] = 1279 - mirrored[..., 0]
    with pytest.raises(RegistrationError, match="mirrors the mat"):
        register_detections(MarkerDetections(det.ids, mirrored, det.dictionary), board, (1280, 720), CFG.registration)


def test_degenerate_homography_is_refused():
    """Every corner on one image line: no plane maps there."""
    board = load_board("dino-dunk/tropic-turf")
    ids = np.array([0, 1, 2, 3])
    corners = np.zeros((4, 4, 2))
    corners[..., 0] = np.arange(16).reshape(4, 4) * 20.0 + 100
    corners[..., 1] = 300.0
    with pytest.raises(RegistrationError, match="degenerate"):
        register_detections(MarkerDetections(ids, corners), board, (1280, 720), CFG.registration)


def test_markers_not_where_the_board_says():
    """A board file whose marker #1 is 150 mm off: the others agree, #1 is reported and left out;
    with the minimum raised to four markers, it is an error naming #1."""
    board = load_board("dino-dunk/tropic-turf")
    raw = dict(board.raw)
    raw["markers"] = dict(raw["markers"], items=[dict(m) for m in raw["markers"]["items"]])
    raw["markers"]["items"][1]["center"] = [804.0, -40.0]
    wrong = parse_board(raw)
    t = register_markers(_tropic_view().image, wrong, CFG.detector, CFG.registration)
    assert t.extra["outlier_ids"] == [1]
    strict = dataclasses.replace(CFG.registration, min_markers=4)
    with pytest.raises(RegistrationError, match=r"#1 are not where"):
        register_markers(_tropic_view().image, wrong, CFG.detector, strict)


def test_board_without_markers():
    board = parse_board({"game": "g", "name": "n", "size_mm": [400, 300]})
    with pytest.raises(MarkersNotFoundError, match="no markers section"):
        register_markers(_tropic_view().image, board, CFG.detector, CFG.registration)


# --------------------------------------------------------------------------------------------
# configuration


def test_config_is_frozen_and_complete():
    assert CFG.registration.min_markers >= 1 and CFG.drift.moved_mm > 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        CFG.drift.moved_mm = 1.0  # type: ignore[misc]


@pytest.mark.parametrize("text, message", [
    ("drift: {moved_mm: 5}\n", None),  # a partial override is fine
    ("drift: {moved_mm: five}\n", r"drift\.moved_mm: expected a number"),
    ("drift: {moved: 5}\n", r"drift\.moved: unknown setting"),
    ("wobble: {x: 1}\n", "wobble: unknown section"),
    ("drift: [1, 2]\n", "drift: expected a mapping"),
    ("detector: {corner_refine: magic}\n", "corner_refine: expected none, subpix"),
    ("drift: {moved_mm: -1}\n", "moved_mm: expected a positive number"),
    ("{{{\n", "not valid YAML"),
])
def test_user_config(tmp_path, text, message):
    path = tmp_path / "cfg.yaml"
    path.write_text(text)
    if message is None:
        assert load_config(path).drift.moved_mm == 5.0
        assert load_config(path).registration == CFG.registration
    else:
        with pytest.raises(ConfigError, match=message):
            load_config(path)
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "missing.yaml")
