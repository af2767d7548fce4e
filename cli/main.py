"""``tableref`` entry point.

Each command group lives in its own module under ``cli/`` and exposes ``register(subparsers)``,
which adds its parsers and sets ``func`` (called with the parsed ``args``; returns an exit code or
None). Heavy libraries are imported inside those functions so that ``tableref --help`` is instant.

Errors: anything a user can cause (a missing file, bad YAML, too few markers, an illegal action)
is raised as a ``ValueError``/``OSError`` subclass with a message that says what to do; it is
printed as one line on stderr and the exit code is 2. Anything else is a bug: one line on stderr,
exit 1, and the traceback only with ``TABLEREF_DEBUG=1``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# Command modules in the order their groups appear in --help.
COMMAND_MODULES = [
    "cli.boards",
    "cli.calibrate",
    "cli.rules",
    "cli.serve",
    "cli.referee",
    "cli.review",
    "cli.sim",
    "cli.bench",
    "cli.train",
    "cli.teach",
    "cli.detect",
]


class CliError(Exception):
    """A user error found by the CLI layer itself (bad combination of options, ...)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tableref",
        description="A camera referee for table games (Dino Dunk, Dodo Dash, Morris the Dodo, Dogo Dash).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = os.environ.get("TABLEREF_DEBUG") == "1"
    try:
        code = args.func(args)
    except KeyboardInterrupt:
        print("tableref: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except (CliError, ValueError, OSError, LookupError) as exc:
        if debug:
            raise
        print(f"tableref: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug, not a user error: still no traceback by default
        if debug:
            raise
        print(f"tableref: internal error ({type(exc).__name__}): {_one_line(exc)} "
              "(run again with TABLEREF_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1
    return int(code or 0)


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"
    return " ".join(text.split())


if __name__ == "__main__":
    sys.exit(main())
