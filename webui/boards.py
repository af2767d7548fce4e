"""Boards for the setup page and the board editor: the shipped ones and the user's own copies.

An edited board is saved to ``<data dir>/boards/<game>/<name>.yaml`` — never over the shipped file.
The file name comes from the board's own ``game`` and ``name`` after :func:`calibration.board.parse_board`
has validated them as slugs, and must equal the ref in the URL; nothing else from the request names a
file. A user copy shadows the shipped board of the same ref in this app.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from calibration.board import Board, BoardError, board_path, list_boards, load_board, parse_board

SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def user_dir(data_dir: Path | str) -> Path:
    return Path(data_dir) / "boards"


def _check_ref(game: str, name: str) -> None:
    if not (SLUG.match(game or "") and SLUG.match(name or "")):
        raise BoardError(f"board ref {game}/{name}: expected lowercase letters, digits, '-' or '_'")


def user_path(data_dir: Path | str, game: str, name: str) -> Path:
    _check_ref(game, name)
    root = user_dir(data_dir).resolve()
    path = (root / game / f"{name}.yaml").resolve()
    if root not in path.parents:
        raise BoardError(f"board ref {game}/{name} is not a plain name")
    return path


def list_all(data_dir: Path | str) -> list[dict]:
    """Every board ref with where it comes from: ``shipped``, ``user`` or ``edited`` (a user copy of
    a shipped board)."""
    shipped = set(list_boards())
    user = set()
    root = user_dir(data_dir)
    if root.is_dir():
        user = {f"{p.parent.name}/{p.stem}" for p in root.glob("*/*.yaml") if SLUG.match(p.parent.name) and SLUG.match(p.stem)}
    out = []
    for ref in sorted(shipped | user):
        origin = "edited" if ref in shipped and ref in user else "user" if ref in user else "shipped"
        game, name = ref.split("/", 1)
        out.append({"ref": ref, "game": game, "name": name, "origin": origin})
    return out


def load(data_dir: Path | str, ref: str) -> Board:
    """The user's copy if there is one, else the shipped board."""
    if "/" not in ref:
        raise BoardError(f"board ref {ref!r}: expected game/name")
    game, name = ref.split("/", 1)
    path = user_path(data_dir, game, name)
    if path.exists():
        return load_board(path)
    board_path(ref)  # raises a clear BoardError for an unknown ref
    return load_board(ref)


def save(data_dir: Path | str, game: str, name: str, raw: Any) -> tuple[Board, Path]:
    """Validate ``raw`` (the board as a dict) and write it as the user's copy of ``game/name``."""
    import yaml

    path = user_path(data_dir, game, name)
    raw = _from_json(raw)
    try:
        board = parse_board(raw, f"{game}/{name}")
    except (TypeError, KeyError, AttributeError, IndexError) as exc:  # a shape parse_board did not expect
        raise BoardError(f"{game}/{name}: not a valid board definition ({type(exc).__name__}: {exc}); "
                         "check the types of seats, markers and connections") from None
    if (board.game, board.name) != (game, name):
        raise BoardError(f"the board says it is {board.game}/{board.name} but is being saved as {game}/{name}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part")
    header = (f"# {game}/{name}: edited in the tableref board editor. Frame: mat mm, origin top-left.\n"
              f"# The shipped definition is untouched; delete this file to go back to it.\n")
    tmp.write_text(header + yaml.safe_dump(raw, sort_keys=False, allow_unicode=True), encoding="utf-8")
    tmp.replace(path)
    return board, path


def _from_json(raw: Any) -> Any:
    """JSON object keys are always text; the board format keys ``seats`` by number of players
    (YAML ints). Turn ``"2"`` back into ``2`` there, and nowhere else."""
    if isinstance(raw, dict) and isinstance(raw.get("seats"), dict):
        raw = {**raw, "seats": {int(k) if isinstance(k, str) and k.isdigit() else k: v for k, v in raw["seats"].items()}}
    return raw
