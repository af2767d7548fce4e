"""``tableref markers``, ``tableref calibrate camera|mat``, ``tableref rectify``.

Thin wrappers over ``calibration.markers``, ``.intrinsics``, ``.register``, ``.outline`` and
``.rectify``; every user error is a ``ValueError`` subclass with a message that says what to do
(printed as one line by ``cli.main``, exit 2).
"""

from __future__ import annotations

import sys
from pathlib import Path


def register(sub) -> None:
    # markers ------------------------------------------------------------------------------------
    mp = sub.add_parser("markers", help="print a board's registration markers, or the ChArUco board, at true scale",
                        description="Write printable sheets at true scale: a board's ArUco markers with cut and "
                                    "placement marks, or (--charuco) the ChArUco board for `calibrate camera`. "
                                    ".pdf pages have the paper's exact size; .png records its DPI.")
    what = mp.add_mutually_exclusive_group(required=True)
    what.add_argument("--board", help="game/name (e.g. dino-dunk/tropic-turf) or a board YAML")
    what.add_argument("--charuco", action="store_true", help="the ChArUco calibration board instead")
    mp.add_argument("--out", required=True, help="output file, .pdf or .png (extra pages: name-2.png, ...)")
    mp.add_argument("--dpi", type=int, help="resolution of the page images (default from the config: 300)")
    mp.add_argument("--paper", choices=["a4", "letter", "a3"], help="paper size (default a4)")
    _charuco_options(mp)
    _config_option(mp)
    mp.set_defaults(func=_markers)

    # calibrate camera | mat ---------------------------------------------------------------------
    cp = sub.add_parser("calibrate", help="camera intrinsics (ChArUco) and mat registration",
                        description="Calibrate the camera from views of the ChArUco board, or register the mat "
                                    "(image px <-> mat mm) from the board's markers or outline.")
    cs = cp.add_subparsers(dest="calibrate_command", metavar="SUBCOMMAND")
    cs.required = True

    cam = cs.add_parser("camera", help="camera intrinsics from views of the ChArUco board",
                        description="Estimate K and the lens distortion from images of the ChArUco board printed "
                                    "by `tableref markers --charuco`; writes a camera YAML with the RMS "
                                    "reprojection error.")
    src = cam.add_mutually_exclusive_group(required=True)
    src.add_argument("--images", metavar="DIR", help="a folder of images of the board")
    src.add_argument("--camera", type=int, metavar="INDEX", help="a live camera (0 = the first)")
    cam.add_argument("--frames", type=int, default=20, help="views to collect from a live camera (default 20)")
    cam.add_argument("--size", metavar="WxH", help="ask the live camera for this resolution, e.g. 1280x720")
    cam.add_argument("--out", required=True, help="camera file to write (.yaml or .json)")
    _charuco_options(cam)
    _config_option(cam)
    cam.set_defaults(func=_calibrate_camera)

    mat = cs.add_parser("mat", help="register the mat in an image (image px <-> mat mm)",
                        description="Find the board's markers (or the mat's outline) in IMAGE and compute the mat "
                                    "transform, its residual and its uncertainty in mm.")
    _registration_options(mat)
    mat.add_argument("--out", help="save the registration (.yaml or .json)")
    mat.add_argument("--report", action="store_true", help="print markers found, residual (px) and sigma (mm)")
    mat.add_argument("--compare", metavar="REG", help="a saved registration: report whether the mat moved since")
    mat.set_defaults(func=_calibrate_mat)

    # rectify ------------------------------------------------------------------------------------
    rp = sub.add_parser("rectify", help="top-down view of the mat with the board drawn on it",
                        description="Write the top-down view of the mat at a fixed mm per pixel with the board's "
                                    "regions, lines, tracks, stones and markers drawn on it: check at a glance that "
                                    "registration and the board file agree with the real mat.")
    _registration_options(rp)
    rp.add_argument("--registration", metavar="REG", help="use a saved registration instead of registering IMAGE")
    rp.add_argument("--out", required=True, help="output image (.png, .jpg)")
    rp.add_argument("--mm-per-px", type=float, help="scale of the view (default 1.0)")
    rp.add_argument("--margin-mm", type=float, help="table shown around the mat (default 60)")
    rp.add_argument("--plain", action="store_true", help="do not draw the board, only rectify")
    rp.set_defaults(func=_rectify)


def _config_option(p) -> None:
    p.add_argument("--config", metavar="YAML", help="calibration settings overriding calibration/config.yaml")


def _charuco_options(p) -> None:
    g = p.add_argument_group("ChArUco board (defaults from the config: 5x7 squares, 30 mm, 22 mm, DICT_5X5_100)")
    g.add_argument("--squares", metavar="XxY", help="squares across and down, e.g. 5x7")
    g.add_argument("--square-mm", type=float, help="side of a chessboard square in mm, as printed")
    g.add_argument("--marker-mm", type=float, help="side of a marker in mm, as printed")
    g.add_argument("--dictionary", help="ArUco dictionary of the board's markers")


def _registration_options(p) -> None:
    p.add_argument("image", help="a photo or frame of the mat")
    p.add_argument("--board", required=True, help="game/name (e.g. dino-dunk/tropic-turf) or a board YAML")
    p.add_argument("--calibration", metavar="CAM", help="camera file from `tableref calibrate camera` (undistorts, exact pose)")
    p.add_argument("--method", choices=["auto", "markers", "outline"], default="auto",
                   help="markers, the mat's outline, or markers falling back to the outline (default)")
    p.add_argument("--flip", action="store_true", help="outline method: turn the mat half a turn (when its print is symmetric)")
    _config_option(p)


# --------------------------------------------------------------------------------------------
# helpers


def _err(message: str):
    from cli.main import CliError

    return CliError(message)


def _size(text: str | None, what: str) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        a, b = text.lower().split("x")
        out = int(a), int(b)
    except ValueError:
        raise _err(f"{what} must look like 5x7, got {text!r}") from None
    if min(out) <= 0:
        raise _err(f"{what} must be positive, got {text!r}")
    return out


def _intrinsics_cfg(args, cfg):
    import dataclasses

    icfg = cfg.intrinsics
    changes = {}
    squares = _size(getattr(args, "squares", None), "--squares")
    if squares:
        changes.update(squares_x=squares[0], squares_y=squares[1])
    for opt, key in (("square_mm", "square_mm"), ("marker_mm", "marker_mm"), ("dictionary", "dictionary")):
        value = getattr(args, opt, None)
        if value is not None:
            if isinstance(value, float) and value <= 0:
                raise _err(f"--{opt.replace('_', '-')} must be positive, got {value:g}")
            changes[key] = value
    return dataclasses.replace(icfg, **changes) if changes else icfg


def _write_image(path: str, image) -> Path:
    import cv2

    from calibration.errors import ImageError

    out = Path(path)
    ok, buf = cv2.imencode(out.suffix or ".png", image)
    if not ok:
        raise ImageError(f"{out}: cannot write this image format; use .png or .jpg")
    out.write_bytes(buf.tobytes())
    return out


def _write_data(path: str, data: dict) -> Path:
    import json

    import yaml

    out = Path(path)
    if out.suffix.lower() == ".json":
        out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    else:
        out.write_text("# tableref mat registration: H maps mat mm to undistorted image px\n"
                       + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return out


def _register(args, cfg, image, board, intrinsics):
    """(transform, note): by markers, outline, or markers falling back to the outline."""
    from calibration.errors import MarkersNotFoundError, UnknownMarkersError
    from calibration.outline import register_outline
    from calibration.register import register_markers

    if args.method == "outline":
        return register_outline(image, board, cfg.outline, intrinsics, flip=args.flip), ""
    try:
        return register_markers(image, board, cfg.detector, cfg.registration, intrinsics), ""
    except UnknownMarkersError:
        raise
    except MarkersNotFoundError as exc:
        if args.method == "markers":
            raise
        try:
            return register_outline(image, board, cfg.outline, intrinsics, flip=args.flip), f"markers: {exc}"
        except ValueError as exc2:
            raise MarkersNotFoundError(f"{exc}; the outline did not work either ({exc2})") from None


def _prepare(args):
    from calibration.board import load_board
    from calibration.capture import read_image
    from calibration.config import load_config
    from calibration.intrinsics import load_intrinsics

    cfg = load_config(args.config)
    board = load_board(args.board)
    intrinsics = load_intrinsics(args.calibration) if args.calibration else None
    image = read_image(args.image)
    return cfg, board, intrinsics, image


# --------------------------------------------------------------------------------------------
# commands


def _markers(args) -> int:
    from calibration.config import load_config
    from calibration.markers import board_marker_sheet, charuco_sheet, save_sheet

    cfg = load_config(args.config)
    if args.charuco:
        sheet = charuco_sheet(_intrinsics_cfg(args, cfg), cfg.sheet, args.dpi, args.paper)
    else:
        from calibration.board import load_board

        if any(getattr(args, k) is not None for k in ("squares", "square_mm", "marker_mm", "dictionary")):
            raise _err("--squares, --square-mm, --marker-mm and --dictionary go with --charuco; a board's markers "
                       "come from its YAML (markers section)")
        sheet = board_marker_sheet(load_board(args.board), cfg.sheet, args.dpi, args.paper)
    files = save_sheet(sheet, args.out)
    paper = "x".join(f"{v:g}" for v in sheet.paper_mm)
    print(f"wrote {', '.join(str(f) for f in files)}: {sheet.title}, {len(sheet.pages)} page(s) of {paper} mm at "
          f"{sheet.dpi} dpi; print at 100% (actual size), then check the 100 mm bar with a ruler")
    for item in sheet.items:
        print(f"  {item}")
    return 0


def _calibrate_camera(args) -> int:
    from calibration.config import load_config
    from calibration.intrinsics import calibrate_camera, calibrate_folder, save_intrinsics

    cfg = load_config(args.config)
    icfg = _intrinsics_cfg(args, cfg)
    if args.frames < 3:
        raise _err(f"--frames must be at least 3, got {args.frames}")

    def progress(msg: str) -> None:
        print(f"  {msg}", file=sys.stderr)

    if args.images:
        intr = calibrate_folder(args.images, icfg)
    else:
        intr = calibrate_camera(args.camera, args.frames, icfg, progress, _size(args.size, "--size"))
    out = save_intrinsics(intr, args.out)
    quality = "good" if intr.rms_px <= icfg.max_rms_px else f"POOR (> {icfg.max_rms_px:g} px: refocus, hold the board flat, add views)"
    print(f"camera {intr.image_size[0]}x{intr.image_size[1]} px from {intr.n_views} views: fx {intr.K[0, 0]:.1f} "
          f"fy {intr.K[1, 1]:.1f} cx {intr.K[0, 2]:.1f} cy {intr.K[1, 2]:.1f} px, "
          f"dist {' '.join(f'{d:.4f}' for d in intr.dist)}")
    print(f"RMS reprojection error {intr.rms_px:.3f} px: {quality}")
    if intr.board.get("skipped"):
        print(f"skipped (board not found well enough): {', '.join(intr.board['skipped'])}")
    print(f"saved {out}")
    return 0


def _calibrate_mat(args) -> int:
    import numpy as np

    from calibration.register import check_drift, load_registration, sigma_summary

    cfg, board, intrinsics, image = _prepare(args)
    transform, note = _register(args, cfg, image, board, intrinsics)
    med, mx = sigma_summary(transform, board)
    ex = transform.extra
    if args.report:
        h, w = image.shape[:2]
        print(f"board      {board.ref} ({board.length_mm:g} x {board.width_mm:g} mm)")
        print(f"image      {args.image}, {w} x {h} px")
        focal = "focal length estimated (no camera file)" if ex.get("focal_estimated") else f"camera file {args.calibration}"
        print(f"method     {transform.method}; {focal}")
        if note:
            print(f"           fell back to the outline: {note}")
        if transform.method.startswith("markers"):
            expected = [m.id for m in board.markers.items]
            found = ", ".join(f"#{i}" for i in ex.get("markers_found", []))
            print(f"markers    found {found} of {len(expected)} ({board.markers.dictionary}); "
                  f"{ex.get('corners_used', 0)}/{ex.get('corners_total', 0)} corners used, "
                  f"{ex.get('corners_edge_refined', 0)} edge-fitted")
            if ex.get("markers_missing"):
                print(f"           missing: {', '.join(f'#{i}' for i in ex['markers_missing'])}")
            if ex.get("outlier_ids"):
                print(f"           not where the board file says (left out): {', '.join(f'#{i}' for i in ex['outlier_ids'])}")
            if ex.get("unknown_ids"):
                print(f"           other markers seen (ignored): {', '.join(f'#{i}' for i in ex['unknown_ids'])}")
        else:
            orient = ex.get("orientation", "")
            extra = (" - the print looks the same both ways round: the origin corner is the one nearest the image's "
                     "top-left; pass --flip if the mat lies the other way") if orient.startswith("ambiguous") else ""
            print(f"outline    corners fitted to the mat's edges; orientation by {orient} "
                  f"(score ratio {ex.get('orientation_ratio', 1.0):.2f}){extra}")
        print(f"residual   {transform.residual_px:.3f} px RMS")
        print(f"sigma      {med:.3f} mm median, {mx:.3f} mm max over the mat (1-sigma)")
        centre = np.array([[board.length_mm / 2, board.width_mm / 2]])
        print(f"scale      {float(transform.mm_per_px(centre)[0]):.3f} mm/px at the mat centre")
        cam = transform.camera_centre_mm()
        tilt = float(np.degrees(np.arccos(np.clip(abs(transform.R[2, 2]), 0, 1))))
        print(f"camera     {-cam[2]:.0f} mm above the mat, tilted {tilt:.0f} deg from straight down")
    else:
        print(f"registered {board.ref} by {transform.method}: residual {transform.residual_px:.3f} px, "
              f"sigma {med:.3f} mm median / {mx:.3f} mm max")
    if args.compare:
        drift = check_drift(load_registration(args.compare), transform, board, cfg.drift)
        print(drift.message)
    if args.out:
        print(f"saved {_write_data(args.out, transform.to_dict())}")
    return 0


def _rectify(args) -> int:
    from calibration.rectify import OVERLAY, draw_board, rectified_affine, rectify_image
    from calibration.register import load_registration

    cfg, board, intrinsics, image = _prepare(args)
    if args.registration:
        transform = load_registration(args.registration)
        h, w = image.shape[:2]
        if tuple(transform.image_size) != (w, h):
            raise _err(f"{args.registration} is for {transform.image_size[0]}x{transform.image_size[1]} px images but "
                       f"{args.image} is {w}x{h} px; register this image instead")
    else:
        transform, _ = _register(args, cfg, image, board, intrinsics)
    mm = args.mm_per_px if args.mm_per_px is not None else cfg.rectify.mm_per_px
    margin = args.margin_mm if args.margin_mm is not None else cfg.rectify.margin_mm
    if mm <= 0 or margin < 0:
        raise _err("--mm-per-px must be positive and --margin-mm not negative")
    top = rectify_image(image, transform, board, mm, margin)
    if not args.plain:
        draw_board(top, board, rectified_affine(mm, margin), OVERLAY)
    out = _write_image(args.out, top)
    print(f"wrote {out}: {top.shape[1]} x {top.shape[0]} px at {mm:g} mm/px (mat origin at pixel "
          f"({margin / mm:.0f}, {margin / mm:.0f})), registered by {transform.method}")
    return 0

