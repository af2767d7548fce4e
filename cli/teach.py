"""``tableref teach``: adapt an attribute classifier to your own pieces.

``tableref teach --task egg-face|egg-colour|card|team|colour --images DIR [--profile NAME]
[--with-shipped] [--folds K]``: DIR holds one subfolder per class with about ten crops or photos
each. Prints the cross-validated accuracy and stores the profile in
``$TABLEREF_HOME/profiles/NAME/`` (default ``~/.tableref``), never over the shipped models.
``--camera SOURCE`` captures the examples first (it asks for each class in turn).
"""

from __future__ import annotations

import argparse

TASK_NAMES = ("egg-face", "egg-colour", "card", "team", "colour", "racer-colour")


def register(subparsers) -> None:
    p = subparsers.add_parser("teach", help="teach the classifiers your own pieces (a user profile)",
                              description="Adapt an attribute classifier to photos or crops of your own pieces.")
    p.add_argument("--task", required=True, choices=TASK_NAMES, help="which classifier to adapt")
    p.add_argument("--images", required=True, metavar="DIR",
                   help="folder with one subfolder per class (e.g. whole/ and broken/), ~10 images each; "
                        "with --camera, where the captured crops are stored")
    p.add_argument("--camera", metavar="SOURCE", default=None,
                   help="capture the examples first from this source (webcam index, stream, folder); "
                        "asks you to lay out each class in turn")
    p.add_argument("--classes", default=None, help="with --camera: class names, comma-separated (team, colour)")
    p.add_argument("--shots", type=int, default=3, help="with --camera: frames per class (default 3)")
    p.add_argument("--profile", default="default", help="profile name (default: default)")
    p.add_argument("--with-shipped", action="store_true",
                   help="fit together with a sample of rendered training crops (slower; keeps the renders working)")
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--keep-worse", action="store_true",
                   help="save the profile even when the shipped model does better on these examples")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from vision.teach import capture_examples, load_examples, teach

    if args.folds < 2:
        raise ValueError("--folds must be at least 2")
    if args.camera is not None:
        classes = [c.strip() for c in args.classes.split(",")] if args.classes else None
        capture_examples(args.camera, args.task, args.images, classes, shots=args.shots)
    crops, labels = load_examples(args.images, args.task)
    result = teach(args.task, crops, labels, profile=args.profile, with_shipped=args.with_shipped,
                   folds=args.folds, seed=args.seed, keep_worse=args.keep_worse)
    print(json.dumps(result.to_dict(), indent=1) if args.json else result.summary())
    return 0
