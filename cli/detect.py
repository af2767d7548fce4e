"""``tableref detect IMAGE --board B``: every piece in one photo, in mat mm.

- ``--calibration REG`` a saved mat registration (``tableref calibrate mat IMAGE --out REG``); without
  it the mat is registered from its ArUco markers in IMAGE (``--camera CAM`` for the intrinsics)
- ``--background EMPTY.png`` the empty mat from the same camera (the classical detector needs it; the
  refinement of round pieces is better with it)
- ``--detector classical|yolo|hybrid|auto`` (auto: hybrid with the shipped model and an empty mat)
- ``--json`` prints the Observation (``Observation.to_pieces``); ``--annotate out.png`` draws it
"""

from __future__ import annotations

from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("detect", help="find every piece in a photo and place it in mat mm",
                       description="Detect and refine every piece on the mat in IMAGE; print or draw the Observation.")
    p.add_argument("image", metavar="IMAGE", help="a photo or frame of the table (PNG/JPEG)")
    p.add_argument("--board", required=True, help="board ref (game/name) or board YAML")
    p.add_argument("--calibration", metavar="REG", help="saved mat registration (.yaml/.json); default: register "
                                                        "from the markers in IMAGE")
    p.add_argument("--camera", metavar="CAM", help="camera intrinsics file (`tableref calibrate camera`), for marker registration")
    p.add_argument("--background", metavar="EMPTY", help="the empty mat photographed from the same camera")
    p.add_argument("--detector", default="auto", choices=("classical", "yolo", "hybrid", "auto"),
                   help="detector: classical (round pieces, needs --background), yolo (every class), hybrid (both), "
                        "auto (hybrid when it can; default)")
    p.add_argument("--model", help="detector model (.onnx or .pt; default models/detector/detector.onnx)")
    p.add_argument("--config", help="detection settings overriding vision/config.yaml")
    p.add_argument("--no-attributes", action="store_true", help="skip team / colour / face classification")
    p.add_argument("--json", action="store_true", help="print the pieces as JSON")
    p.add_argument("--annotate", metavar="OUT", help="draw the pieces onto a copy of IMAGE")
    p.set_defaults(func=_run)


def _read(path: str, what: str):
    import cv2

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such {what} file")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None:
        raise OSError(f"{p}: not an image OpenCV can read (use PNG or JPEG)")
    return img


def register_image(image, board, camera: str | None = None):
    """Register the mat from its markers in ``image`` (``calibration.register``)."""
    from calibration.config import load_config
    from calibration.register import register_markers

    cfg = load_config(None)
    intrinsics = None
    if camera:
        from calibration.intrinsics import load_intrinsics

        intrinsics = load_intrinsics(camera)
    return register_markers(image, board, cfg.detector, cfg.registration, intrinsics)


def annotate(image, obs, transform, occluders=()):
    """A copy of ``image`` (BGR, image px) with each piece's base outline, its top and its kind."""
    import cv2
    import numpy as np

    out = image.copy()
    a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    for i in range(len(obs)):
        r = max(float(obs.radius[i]), 2.0)
        ring = obs.xy[i] + r * np.column_stack([np.cos(a), np.sin(a)])
        base = transform.mat_to_image(ring, 0.0)
        top = transform.mat_to_image(ring, float(obs.height[i]))
        ok = obs.confidence[i] >= 0.5
        colour = (60, 220, 60) if ok else (40, 160, 240)
        cv2.polylines(out, [np.round(base * 16).astype(np.int32)], True, (255, 255, 255), 1, cv2.LINE_AA, 4)
        cv2.polylines(out, [np.round(top * 16).astype(np.int32)], True, colour, 1, cv2.LINE_AA, 4)
        c = transform.mat_to_image(obs.xy[i:i + 1], 0.0)[0]
        cv2.drawMarker(out, (int(round(c[0])), int(round(c[1]))), (0, 0, 255), cv2.MARKER_CROSS, 6, 1)
        label = f"{obs.kind[i]} {obs.sigma[i]:.1f}mm"
        extra = [str(v[i]) for v in obs.attributes.values() if str(v[i])]
        if extra:
            label += " " + ",".join(extra)
        cv2.putText(out, label, (int(top[:, 0].max()) + 2, int(top[:, 1].min()) + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.33,
                    (20, 20, 20), 2, cv2.LINE_AA)
        cv2.putText(out, label, (int(top[:, 0].max()) + 2, int(top[:, 1].min()) + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.33,
                    (255, 255, 255), 1, cv2.LINE_AA)
    for box in occluders:
        x0, y0, x1, y1 = (int(round(v)) for v in box)
        cv2.rectangle(out, (x0, y0), (x1, y1), (0, 0, 255), 1)
        cv2.putText(out, "hand", (x0 + 2, y0 + 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 255), 1, cv2.LINE_AA)
    return out


def _run(args) -> int:
    import json

    import cv2

    from calibration.board import load_board
    from calibration.register import load_registration
    from vision.detect import DetectConfig, Detector

    board = load_board(args.board)
    image = _read(args.image, "image")
    transform = load_registration(args.calibration) if args.calibration else register_image(image, board, args.camera)
    background = _read(args.background, "empty-mat image") if args.background else None
    config = DetectConfig.load(args.config) if args.config else DetectConfig.load()
    det = Detector(board, transform, background=background, config=config, model=args.model, method=args.detector,
                   attributes=not args.no_attributes)
    obs = det(image, 0, 0.0)
    if args.json:
        print(json.dumps({"image": str(args.image), "board": board.ref, "detector": det.method,
                          "timings_ms": {k: round(v, 2) for k, v in det.timings_ms.items()},
                          "occluders_px": det.occluders.round(1).tolist(), "pieces": obs.to_pieces()}, indent=1))
    else:
        print(f"{len(obs)} pieces ({det.method}; " + ", ".join(f"{k} {v:.0f} ms" for k, v in det.timings_ms.items()) + ")")
        for p in obs.to_pieces():
            attrs = " ".join(f"{k}={v}" for k, v in p["attributes"].items() if v)
            print(f"  {p['kind']:<14} x {p['xy'][0]:7.1f} y {p['xy'][1]:7.1f} mm  σ {p['sigma']:.2f} mm  "
                  f"conf {p['confidence']:.2f} {attrs}")
    if args.annotate:
        out = annotate(image, obs, transform, det.occluders)
        if not cv2.imwrite(str(args.annotate), out):
            raise OSError(f"{args.annotate}: could not write the annotated image (use .png or .jpg)")
        if not args.json:
            print(f"wrote {args.annotate}")
    return 0
