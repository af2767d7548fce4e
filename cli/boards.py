"""``tableref boards list|show|validate``."""

from __future__ import annotations

import json


def register(sub) -> None:
    p = sub.add_parser("boards", help="list, show and validate board definitions")
    bs = p.add_subparsers(dest="boards_command", metavar="SUBCOMMAND")
    bs.required = True

    lp = bs.add_parser("list", help="list the shipped boards")
    lp.set_defaults(func=_list)

    sp = bs.add_parser("show", help="print a board's regions, lines, tracks and markers")
    sp.add_argument("board", help="game/name (e.g. dino-dunk/tropic-turf) or a path to a board YAML")
    sp.add_argument("--json", action="store_true", help="print the parsed definition as JSON")
    sp.set_defaults(func=_show)

    vp = bs.add_parser("validate", help="check board files against the schema (all shipped boards if none given)")
    vp.add_argument("boards", nargs="*", help="game/name or paths")
    vp.set_defaults(func=_validate)


def _list(args) -> int:
    from calibration.board import list_boards, load_board

    for ref in list_boards():
        print(load_board(ref).summary())
    return 0


def _show(args) -> int:
    from calibration.board import load_board

    board = load_board(args.board)
    if args.json:
        print(json.dumps(board.raw, indent=2, sort_keys=False))
        return 0
    print(board.summary())
    print(f"file: {board.path}")
    for name, region in board.regions.items():
        if region.kind == "cell":
            continue
        geom = region.geometry
        print(f"  region {name:<22} {region.kind or '-':<13} {region.shape:<8} area {geom.area:9.0f} mm²"
              f"{'  team ' + region.team if region.team else ''}")
    for name, line in board.lines.items():
        print(f"  line   {name:<22} {line.kind or '-':<13} {len(line.points)} points")
    for name, track in board.tracks.items():
        extra = []
        if track.traps:
            extra.append(f"traps {list(track.traps)}")
        if track.drift:
            extra.append(f"drift {[list(d.hexes) for d in track.drift]}")
        if track.charms:
            extra.append(f"charms {list(track.charms)}")
        if track.bases:
            extra.append(f"bases {list(track.bases)}")
        print(f"  track  {name:<22} {len(track.hexes)} hexes of {track.hex_mm:g} mm, start {list(track.start)} {' '.join(extra)}")
    if board.stones:
        print("  stones " + " ".join(s.colour for s in board.stones))
    for n, seats in sorted(board.seats.items()):
        print(f"  seats for {n}: {', '.join(seats)}")
    if board.markers:
        m = board.markers
        print(f"  markers {m.dictionary} {m.size_mm:g} mm: " + ", ".join(f"#{it.id}@({it.center[0]:g},{it.center[1]:g})" for it in m.items))
    if board.notes:
        print(f"notes: {board.notes}")
    return 0


def _validate(args) -> int:
    from calibration.board import BoardError, list_boards, load_board

    refs = args.boards or list_boards()
    bad = 0
    for ref in refs:
        try:
            board = load_board(ref)
        except BoardError as exc:
            bad += 1
            print(f"INVALID {exc}")
        else:
            print(f"ok      {board.ref} ({board.path})")
    if bad:
        raise BoardError(f"{bad} of {len(refs)} board(s) invalid")
    return 0
