"""``tableref markers``, ``calibrate camera``, ``calibrate mat``, ``rectify``: the good paths, --help
everywhere, and every bad input answered by one line on stderr and exit code 2 (no traceback)."""

import cv2
import numpy as np
import pytest
import yaml

from cli.main import main

TROPIC = "dino-dunk/tropic-turf"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A folder with a synthetic photo of the Tropic Turf mat (and variants), ChArUco views and the
    true camera file."""
    from calibration.board import load_board
    from calibration.config import load_config
    from calibration.intrinsics import CameraIntrinsics, save_intrinsics
    from calibration.register import detect_markers
    from calibration.synthetic import MatScene, camera_matrix, charuco_view, fit_distance

    d = tmp_path_factory.mktemp("cli")
    board = load_board(TROPIC)
    scene = MatScene(board)
    view = scene.view((960, 540), 30, 60, noise_sigma=2, blur_sigma=0.7)
    cv2.imwrite(str(d / "mat.png"), view.image)
    cv2.imwrite(str(d / "mat2.png"), scene.view((960, 540), 30, 60, noise_sigma=2, blur_sigma=0.7, seed=5).image)
    cv2.imwrite(str(d / "mirrored.png"), cv2.flip(view.image, 1))
    cv2.imwrite(str(d / "blank.png"), np.full((540, 960, 3), 120, np.uint8))
    cv2.imwrite(str(d / "small.png"), cv2.resize(view.image, (480, 270)))
    one = view.image.copy()
    det = detect_markers(view.image, "DICT_4X4_50", load_config().detector)
    for mid, c in zip(det.ids, det.corners):
        if mid != 2:
            centre = c.mean(axis=0)
            cv2.fillConvexPoly(one, np.round(centre + (c - centre) * 1.6).astype(np.int32), (70, 110, 150))
    cv2.imwrite(str(d / "one-marker.png"), one)
    (d / "empty.png").write_bytes(b"")
    (d / "text.png").write_text("not an image")
    save_intrinsics(CameraIntrinsics(view.transform.K, np.zeros(5), (960, 540)), d / "cam-true.yaml")
    (d / "bad-cam.yaml").write_text("K: [[1, 2], [3, 4]]\nimage_size: [960, 540]\n")
    (d / "bad-config.yaml").write_text("drift: {moved: 3}\n")
    # ChArUco views for `calibrate camera --images`
    icfg = load_config().intrinsics
    views = d / "charuco"
    views.mkdir()
    size = (800, 600)
    K = camera_matrix(size, 60.0)
    ext = np.array([[0, 0], [150, 0], [150, 210], [0, 210]], float)
    for i, (tilt, az) in enumerate([(0, 90), (30, 0), (30, 90), (30, 180), (30, 270), (45, 45), (45, 225)]):
        R, t = fit_distance(ext, K, size, tilt, az, fill=0.7, roll_deg=10 * i)
        cv2.imwrite(str(views / f"v{i}.png"), charuco_view(icfg, K, R, t, size, px_per_mm=5.0, noise_sigma=1.5, seed=i))
    (d / "no-images").mkdir()
    return d


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# --------------------------------------------------------------------------------------------
# help


@pytest.mark.parametrize("argv", [["markers"], ["calibrate"], ["calibrate", "camera"], ["calibrate", "mat"],
                                  ["rectify"]])
def test_help(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--help"])
    assert exc.value.code == 0
    assert "usage: tableref " + " ".join(argv) in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# good paths


def test_markers_png_and_pdf(capsys, tmp_path):
    code, out, _ = run(capsys, "markers", "--board", TROPIC, "--out", tmp_path / "sheet.png")
    assert code == 0 and (tmp_path / "sheet.png").exists()
    assert "print at 100%" in out and "marker #0 (50 mm): top-left corner of the mat, centre at (-40, -40) mm" in out
    code, out, _ = run(capsys, "markers", "--charuco", "--squares", "4x6", "--square-mm", "35", "--marker-mm", "26",
                       "--out", tmp_path / "charuco.pdf", "--paper", "letter", "--dpi", "150")
    assert code == 0 and (tmp_path / "charuco.pdf").read_bytes().startswith(b"%PDF")
    assert "ChArUco 4 x 6 squares, square 35 mm, marker 26 mm" in out


def test_calibrate_mat_report_save_and_compare(capsys, files):
    reg = files / "reg.yaml"
    code, out, err = run(capsys, "calibrate", "mat", files / "mat.png", "--board", TROPIC, "--report", "--out", reg)
    assert code == 0, err
    assert "found #0, #1, #2, #3 of 4 (DICT_4X4_50)" in out
    residual = float(next(line for line in out.splitlines() if line.startswith("residual")).split()[1])
    sigma_line = next(line for line in out.splitlines() if line.startswith("sigma"))
    assert 0 <= residual < 0.5 and "mm median" in sigma_line and "mm max over the mat" in sigma_line
    from calibration.transform import MatTransform

    saved = MatTransform.from_dict(yaml.safe_load(reg.read_text()))
    assert saved.method == "markers" and saved.cov_h is not None and saved.extra["markers_found"] == [0, 1, 2, 3]
    code, out, _ = run(capsys, "calibrate", "mat", files / "mat2.png", "--board", TROPIC, "--compare", reg,
                       "--out", files / "reg2.json")
    assert code == 0 and "mat in place" in out and (files / "reg2.json").exists()
    # with the camera file the pose is solved
    code, out, _ = run(capsys, "calibrate", "mat", files / "mat.png", "--board", TROPIC, "--calibration",
                       files / "cam-true.yaml", "--report")
    assert code == 0 and "method     markers+pose" in out
    # and from the outline
    code, out, _ = run(capsys, "calibrate", "mat", files / "mat.png", "--board", TROPIC, "--method", "outline",
                       "--report")
    assert code == 0 and "orientation by ambiguous" in out and "--flip" in out


def test_calibrate_camera_from_images(capsys, files):
    code, out, err = run(capsys, "calibrate", "camera", "--images", files / "charuco", "--out", files / "cam.yaml")
    assert code == 0, err
    assert "from 7 views" in out and "RMS reprojection error" in out
    from calibration.intrinsics import load_intrinsics

    cam = load_intrinsics(files / "cam.yaml")
    from calibration.synthetic import camera_matrix

    assert cam.K[0, 0] == pytest.approx(camera_matrix((800, 600), 60.0)[0, 0], rel=0.03)


def test_rectify(capsys, files, tmp_path):
    code, out, err = run(capsys, "rectify", files / "mat.png", "--board", TROPIC, "--out", tmp_path / "top.png",
                         "--mm-per-px", "2")
    assert code == 0, err
    top = cv2.imread(str(tmp_path / "top.png"))
    assert top.shape[:2] == (int(round((610 + 180) / 2)) + 1, int(round((914 + 180) / 2)) + 1)
    run(capsys, "calibrate", "mat", files / "mat.png", "--board", TROPIC, "--out", tmp_path / "reg.yaml")
    code, out, _ = run(capsys, "rectify", files / "mat.png", "--board", TROPIC, "--registration", tmp_path / "reg.yaml",
                       "--out", tmp_path / "top2.jpg", "--plain")
    assert code == 0 and (tmp_path / "top2.jpg").exists()


# --------------------------------------------------------------------------------------------
# bad input: exit 2, one line, says what to do


BAD = [
    # (name, argv with {d} for the files folder, expected words)
    ("unreadable image", ["calibrate", "mat", "{d}/text.png", "--board", TROPIC], "not a readable image"),
    ("empty image file", ["calibrate", "mat", "{d}/empty.png", "--board", TROPIC], "the file is empty"),
    ("missing image", ["rectify", "{d}/nope.png", "--board", TROPIC, "--out", "{d}/x.png"], "no such image file"),
    ("no markers", ["calibrate", "mat", "{d}/blank.png", "--board", TROPIC, "--method", "markers"],
     "no markers of dino-dunk/tropic-turf found"),
    ("no markers, no outline", ["calibrate", "mat", "{d}/blank.png", "--board", TROPIC],
     "the outline did not work either"),
    ("too few markers", ["calibrate", "mat", "{d}/one-marker.png", "--board", TROPIC, "--method", "markers"],
     "only 1 marker(s) of dino-dunk/tropic-turf found (#2); need at least 2"),
    ("unknown marker ids", ["calibrate", "mat", "{d}/mat.png", "--board", "dino-dunk/crater-court"],
     "is this another mat?"),
    ("mirrored image", ["calibrate", "mat", "{d}/mirrored.png", "--board", TROPIC], "the image is mirrored"),
    ("camera cannot be opened", ["calibrate", "camera", "--camera", "99", "--out", "{d}/c.yaml"],
     "camera 99 cannot be opened"),
    ("invalid camera file", ["calibrate", "mat", "{d}/mat.png", "--board", TROPIC, "--calibration", "{d}/bad-cam.yaml"],
     "invalid camera file"),
    ("camera file of another aspect", ["calibrate", "mat", "{d}/mat.png", "--board", TROPIC, "--calibration",
                                       "{d}/cam.yaml"], "another aspect ratio"),
    ("registration passed as camera", ["calibrate", "mat", "{d}/mat.png", "--board", TROPIC, "--calibration",
                                       "{d}/reg.yaml"], "not a camera file"),
    ("unknown board", ["calibrate", "mat", "{d}/mat.png", "--board", "dino-dunk/lava-land"], "unknown board"),
    ("bad config", ["calibrate", "mat", "{d}/mat.png", "--board", TROPIC, "--config", "{d}/bad-config.yaml"],
     "drift.moved: unknown setting"),
    ("sheet format", ["markers", "--board", TROPIC, "--out", "{d}/sheet.jpg"], "must end in .pdf or .png"),
    ("charuco options on a board", ["markers", "--board", TROPIC, "--squares", "5x7", "--out", "{d}/s.png"],
     "go with --charuco"),
    ("bad squares", ["markers", "--charuco", "--squares", "5by7", "--out", "{d}/s.png"], "--squares must look like"),
    ("no images", ["calibrate", "camera", "--images", "{d}/no-images", "--out", "{d}/c.yaml"], "no images in the folder"),
    ("board not in view", ["calibrate", "camera", "--images", "{d}/charuco", "--dictionary", "DICT_6X6_50", "--out",
                           "{d}/c.yaml"], "found in only 0 view(s)"),
    ("registration of another size", ["rectify", "{d}/small.png", "--board", TROPIC, "--registration", "{d}/reg.yaml",
                                      "--out", "{d}/t.png"], "register this image instead"),
    ("missing registration", ["calibrate", "mat", "{d}/mat.png", "--board", TROPIC, "--compare", "{d}/none.yaml"],
     "no such registration file"),
    ("bad scale", ["rectify", "{d}/mat.png", "--board", TROPIC, "--out", "{d}/t.png", "--mm-per-px", "0"],
     "--mm-per-px must be positive"),
    ("unwritable output", ["rectify", "{d}/mat.png", "--board", TROPIC, "--out", "{d}/no/such/dir/t.png"],
     "No such file or directory"),
]


@pytest.mark.parametrize("name, argv, words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_and_exit_2(capsys, files, name, argv, words):
    if not (files / "reg.yaml").exists():
        run(capsys, "calibrate", "mat", files / "mat.png", "--board", TROPIC, "--out", files / "reg.yaml")
    if not (files / "cam.yaml").exists():
        from calibration.intrinsics import CameraIntrinsics, save_intrinsics

        save_intrinsics(CameraIntrinsics(np.diag([700.0, 700.0, 1.0]) + [[0, 0, 399.5], [0, 0, 299.5], [0, 0, 0]],
                                         np.zeros(5), (800, 600)), files / "cam.yaml")
    code, out, err = run(capsys, *[a.replace("{d}", str(files)) for a in argv])
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tableref: error: "), err
    assert "Traceback" not in err
    assert words in lines[0], lines[0]
