"""Camera intrinsics from synthetic views of the ChArUco board (known K and distortion), the camera
file, undistortion, and the errors a user can cause."""

import dataclasses
from functools import lru_cache

import numpy as np
import pytest

from calibration.config import load_config
from calibration.errors import ImageError, IntrinsicsError
from calibration.intrinsics import (CameraIntrinsics, calibrate_folder, calibrate_images, load_intrinsics,
                                    save_intrinsics, undistort_image, undistort_points)
from calibration.synthetic import camera_matrix, charuco_view, fit_distance

ICFG = load_config().intrinsics
SIZE = (960, 540)
K_TRUE = camera_matrix(SIZE, 62.0)
DIST_TRUE = np.array([-0.12, 0.04, 0.001, -0.0005, 0.0])
POSES = [(0, 90, 0), (25, 0, 10), (25, 90, -15), (25, 180, 20), (25, 270, -5), (40, 45, 0), (40, 135, 25),
         (40, 225, -20), (40, 315, 5), (15, 60, 30)]


@lru_cache(maxsize=None)
def _views(noise=2.0):
    """The printed board seen from ten poses: tilts 0-40° from every side, some off-centre."""
    bw, bh = ICFG.squares_x * ICFG.square_mm, ICFG.squares_y * ICFG.square_mm
    extent = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], float)
    rng = np.random.default_rng(7)
    out = []
    for i, (tilt, az, roll) in enumerate(POSES):
        R, t = fit_distance(extent, K_TRUE, SIZE, tilt, az, fill=0.65, roll_deg=roll)
        t = t + np.array([rng.uniform(-60, 60), rng.uniform(-30, 30), 0.0])  # off-centre: distortion shows
        out.append((f"view{i}.png", charuco_view(ICFG, K_TRUE, R, t, SIZE, dist=DIST_TRUE, px_per_mm=5.0,
                                                 noise_sigma=noise, blur_sigma=0.6, seed=i)))
    return tuple(out)


def test_recovers_the_focal_length_and_distortion():
    intr = calibrate_images(_views(), ICFG)
    print(f"\nfx {intr.K[0, 0]:.1f} (true {K_TRUE[0, 0]:.1f}), fy {intr.K[1, 1]:.1f}, cx {intr.K[0, 2]:.1f} "
          f"cy {intr.K[1, 2]:.1f}, dist {np.round(intr.dist, 4)}, RMS {intr.rms_px:.3f} px")
    assert intr.n_views == len(POSES) and intr.image_size == SIZE
    assert intr.K[0, 0] == pytest.approx(K_TRUE[0, 0], rel=0.02)
    assert intr.K[1, 1] == pytest.approx(K_TRUE[1, 1], rel=0.02)
    assert intr.K[0, 2] == pytest.approx(K_TRUE[0, 2], abs=8) and intr.K[1, 2] == pytest.approx(K_TRUE[1, 2], abs=8)
    assert intr.rms_px < 0.5 and len(intr.per_view_rms_px) == len(POSES)


def test_held_out_view_reprojects():
    """Calibrate on nine views; the tenth, posed by solvePnP with the estimate, reprojects within
    a fraction of a pixel (the lens model, not just K, is right where the board was seen)."""
    import cv2

    from calibration.intrinsics import charuco_detector, detect_charuco

    views = _views()
    intr = calibrate_images(views[:-1], ICFG)
    det = charuco_detector(ICFG)
    corners, ids = detect_charuco(views[-1][1], det)
    obj = det.getBoard().getChessboardCorners()[ids].astype(np.float64)
    ok, rvec, tvec = cv2.solvePnP(obj, corners, intr.K, intr.dist)
    proj, _ = cv2.projectPoints(obj, rvec, tvec, intr.K, intr.dist)
    rms = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - corners) ** 2, axis=1))))
    # and the same with the lens ignored is clearly worse
    ok0, r0, t0 = cv2.solvePnP(obj, corners, intr.K, None)
    proj0, _ = cv2.projectPoints(obj, r0, t0, intr.K, None)
    rms0 = float(np.sqrt(np.mean(np.sum((proj0.reshape(-1, 2) - corners) ** 2, axis=1))))
    assert rms < 0.3 and rms0 > 2 * rms


def test_camera_file_round_trip(tmp_path):
    intr = CameraIntrinsics(K_TRUE, DIST_TRUE, SIZE, 0.21, 12, [0.2] * 12, {"squares": [5, 7]})
    for name in ("cam.yaml", "cam.json"):
        back = load_intrinsics(save_intrinsics(intr, tmp_path / name))
        np.testing.assert_allclose(back.K, intr.K)
        np.testing.assert_allclose(back.dist, intr.dist)
        assert back.image_size == SIZE and back.rms_px == 0.21 and back.board == {"squares": [5, 7]}


def test_scaled_to_another_resolution():
    intr = CameraIntrinsics(K_TRUE, DIST_TRUE, SIZE)
    half = intr.scaled_to((480, 270))
    assert half.K[0, 0] == pytest.approx(K_TRUE[0, 0] / 2)
    # the same ray: pixel centres scale about the image's corner, not pixel (0, 0)'s centre
    assert half.K[0, 2] == pytest.approx((K_TRUE[0, 2] + 0.5) / 2 - 0.5)
    with pytest.raises(IntrinsicsError, match="another aspect ratio"):
        intr.scaled_to((640, 480))


def test_undistort_image_straightens_the_board():
    """After undistortion the board's corners fit a homography (straight lines) much better."""
    import cv2

    from calibration.intrinsics import charuco_detector, detect_charuco

    det = charuco_detector(ICFG)
    board = det.getBoard()
    bw, bh = ICFG.squares_x * ICFG.square_mm, ICFG.squares_y * ICFG.square_mm
    R, t = fit_distance(np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], float), K_TRUE, SIZE, 20, 0, fill=0.97,
                        roll_deg=90)
    img = charuco_view(ICFG, K_TRUE, R, t, SIZE, dist=DIST_TRUE, px_per_mm=5.0)

    def residual(image):
        corners, ids = detect_charuco(image, det)
        obj = board.getChessboardCorners()[ids][:, :2]
        H, _ = cv2.findHomography(obj, corners, 0)
        proj = cv2.perspectiveTransform(obj.reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
        return float(np.sqrt(np.mean(np.sum((proj - corners) ** 2, axis=1))))

    before = residual(img)
    after = residual(undistort_image(img, CameraIntrinsics(K_TRUE, DIST_TRUE, SIZE)))
    assert before > 0.2 and after < before / 3 and after < 0.12  # 0.08 px: the corner detector on a render


def test_folder_calibration_and_its_errors(tmp_path):
    import cv2

    for name, img in _views()[:6]:
        cv2.imwrite(str(tmp_path / name), img)
    intr = calibrate_folder(tmp_path, ICFG)
    assert intr.n_views == 6
    # too few usable views: a blank image and only two views of the board
    few = tmp_path / "few"
    few.mkdir()
    for name, img in _views()[:2]:
        cv2.imwrite(str(few / name), img)
    cv2.imwrite(str(few / "blank.png"), np.full((SIZE[1], SIZE[0], 3), 200, np.uint8))
    with pytest.raises(IntrinsicsError, match=r"found in only 2 view\(s\); need at least 5 .* skipped: blank.png"):
        calibrate_folder(few, ICFG)
    # the wrong board description: nothing found
    wrong = dataclasses.replace(ICFG, dictionary="DICT_4X4_50")
    with pytest.raises(IntrinsicsError, match="found in only 0"):
        calibrate_folder(tmp_path, wrong)
    with pytest.raises(ImageError, match="no images in the folder"):
        calibrate_folder(_empty(tmp_path), ICFG)
    with pytest.raises(ImageError, match="no such folder"):
        calibrate_folder(tmp_path / "nope", ICFG)
    # mixed resolutions
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    cv2.imwrite(str(mixed / "a.png"), _views()[0][1])
    cv2.imwrite(str(mixed / "b.png"), cv2.resize(_views()[1][1], (640, 360)))
    with pytest.raises(ImageError, match="calibrate one resolution at a time"):
        calibrate_folder(mixed, ICFG)


def _empty(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    (d / "notes.txt").write_text("no images here")
    return d


@pytest.mark.parametrize("text, message", [
    ("K: [[1, 0, 0], [0, 1, 0]]\ndist: [0, 0, 0, 0, 0]\nimage_size: [640, 480]\n", "K must be a 3x3"),  # 2 rows
    ("K: [[500, 0, 320], [0, 500, 240], [0, 0, 1]]\ndist: [0, 0]\nimage_size: [640, 480]\n", "dist must be"),
    ("K: [[500, 0, 320], [0, 500, 240], [0, 0, 1]]\n", "missing image_size"),
    ("H: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\nimage_size: [640, 480]\n", "a mat registration, not a camera file"),
    ("- just\n- a list\n", "not a camera file"),
    ("{{{", "not valid YAML"),
])
def test_invalid_camera_files(tmp_path, text, message):
    path = tmp_path / "cam.yaml"
    path.write_text(text)
    with pytest.raises(IntrinsicsError, match=message):
        load_intrinsics(path)


def test_camera_that_cannot_be_opened():
    from calibration.errors import CameraError
    from calibration.intrinsics import calibrate_camera

    with pytest.raises(CameraError, match="camera 99 cannot be opened"):
        calibrate_camera(99, 5, ICFG)


def test_undistort_points_inverts_the_lens():
    """Points projected through the lens come back to where a pinhole camera (same K) puts them."""
    import cv2

    rng = np.random.default_rng(3)
    rays = np.column_stack([rng.uniform(-0.5, 0.5, (40, 2)), np.ones(40)])
    seen, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), K_TRUE, DIST_TRUE)
    pinhole = (rays @ K_TRUE.T)[:, :2]
    back = undistort_points(seen.reshape(-1, 2), CameraIntrinsics(K_TRUE, DIST_TRUE, SIZE))
    np.testing.assert_allclose(back, pinhole, atol=1e-3)
    assert undistort_points(np.zeros((0, 2)), CameraIntrinsics(K_TRUE, DIST_TRUE, SIZE)).shape == (0, 2)
