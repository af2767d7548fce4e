"""``tableref judge IMAGE --board B [--calibration C] --ask "QUESTION" [--observation obs.json]``.

Prints the verdict (answer, measurement, margin, σ) and writes the evidence PNG. The pieces come
from ``--observation`` (the JSON of ``Observation.to_pieces()``: a list of pieces, or
``{"pieces": [...], "frame_index": n}``) or, without it, from ``vision.detect.detect(frame,
transform, board)`` when this build has it. The question syntax is in ``referee.questions``.
"""

from __future__ import annotations

import json
from pathlib import Path

QUESTION_HELP = """\
question forms (P, Q: pieces by name attribute, kind, kind#j or #i; REGION/LINE/TRACK by board name):
  P overlaps REGION                    P outside|inside REGION [by centre|whole|any]
  P behind LINE [by centre|whole]      P out-of-bounds
  P within short|long card of Q        P within N mm of Q
  P adjacent to Q                      distance between P and Q
  line-of-sight P to Q [by any|centre] P on hex [of TRACK]
  P in zone of TRACK:TRAP              PROJECTILE touches P
  P face|colour|card
example: tableref judge shot.png --board dino-dunk/crater-court --calibration reg.json \\
           --observation obs.json --ask "ball overlaps scoring-zone-home"
"""


def register(sub) -> None:
    import argparse

    p = sub.add_parser("judge", help="answer one referee question about an image, with its evidence",
                       description="Make one call on a camera image: print the verdict (yes / no / too_close, the "
                                   "measurement and margin in mm, σ) and write the evidence image.",
                       epilog=QUESTION_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("image", help="the camera frame (PNG/JPEG)")
    p.add_argument("--board", required=True, help="game/name or a board YAML")
    p.add_argument("--calibration", help="the mat registration (MatTransform JSON); needed to draw on the frame and "
                                         "for the registration σ")
    p.add_argument("--ask", required=True, metavar="QUESTION", help="the question (forms below)")
    p.add_argument("--observation", help="pieces as JSON (Observation.to_pieces); default: detect them with vision")
    p.add_argument("--out", help="evidence PNG (default: <image>-verdict.png beside the image)")
    p.add_argument("--referee-config", help="a YAML overriding referee/config.yaml (k, min_confidence, readings)")
    p.add_argument("--specs", help="a YAML overriding piece and card sizes")
    p.add_argument("--px-per-mm", type=float, default=1.0, help="scale of the top-down view (default 1)")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(func=_judge)


def load_transform(path):
    from calibration.transform import MatTransform, TransformError

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TransformError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(data, dict) and "H" not in data:
        data = data.get("transform", data.get("registration", data))
    return MatTransform.from_dict(data)


def load_observation(path):
    from referee.core import RefereeError
    from vision.core import Observation

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RefereeError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    frame_index, timestamp = -1, 0.0
    if isinstance(data, dict):
        frame_index = int(data.get("frame_index", -1))
        timestamp = float(data.get("timestamp", 0.0))
        data = data.get("pieces")
    if not isinstance(data, list):
        raise RefereeError(f"{path}: expected a list of pieces ({{xy, radius, kind, sigma, ...}}) or {{\"pieces\": [...]}}")
    try:
        return Observation.from_pieces(data, frame_index, timestamp)
    except (KeyError, TypeError) as exc:
        raise RefereeError(f"{path}: a piece is missing a field or has a wrong one ({exc}); each needs xy and radius") from None


def detect_pieces(frame, transform, board):
    """vision.detect.detect(frame, transform, board) when this build has it."""
    from referee.core import RefereeError

    try:
        from vision.detect import detect  # noqa: WPS433 (lazy: the referee never imports detectors)
    except ImportError:
        raise RefereeError("no --observation given, and this build has no vision.detect.detect(frame, transform, board) "
                           "to find the pieces; pass the pieces as --observation obs.json") from None
    if transform is None:
        raise RefereeError("detecting the pieces needs the mat registration: give --calibration")
    try:
        return detect(frame, transform, board)
    except TypeError as exc:  # vision's entry point is another package's: say so instead of a crash
        raise RefereeError(f"vision.detect.detect(frame, transform, board) could not be called ({exc}); "
                           "pass the pieces as --observation obs.json") from None


def _judge(args) -> int:
    import cv2

    from calibration.board import load_board
    from calibration.specs import load_specs
    from referee.config import load_config
    from referee.evidence import save_evidence
    from referee.questions import ask

    board = load_board(args.board)
    specs = load_specs(args.specs)
    config = load_config(args.referee_config)
    image_path = Path(args.image)
    if not image_path.exists():
        raise FileNotFoundError(2, "No such file or directory", str(image_path))
    frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
    if frame is None:
        raise OSError(f"{image_path}: not an image OpenCV can read")
    transform = load_transform(args.calibration) if args.calibration else None
    obs = load_observation(args.observation) if args.observation else detect_pieces(frame, transform, board)
    verdicts = ask(args.ask, board, obs, config, transform=transform, specs=specs)
    out = Path(args.out) if args.out else image_path.with_name(image_path.stem + "-verdict.png")
    card = specs.short_card_mm
    for i, v in enumerate(verdicts):
        target = out if len(verdicts) == 1 else out.with_name(f"{out.stem}-{i}{out.suffix}")
        save_evidence(target, v, board, frame=frame if transform is not None else None, transform=transform,
                      px_per_mm=args.px_per_mm, card_mm=card)
        if args.json:
            print(json.dumps({**v.to_dict(), "evidence_png": str(target)}, indent=2))
        else:
            print(v.summary(card_mm=card))
            print(f"evidence: {target}")
    return 0
