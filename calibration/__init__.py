"""Where is the board? Board and piece definitions, camera intrinsics, mat registration.

Imports numpy, OpenCV and shapely (lazily where heavy). Frames: **image px** and **mat mm** (see
``calibration.transform``).
"""

from calibration.board import Board, BoardError, Line, Region, Track, list_boards, load_board, parse_board
from calibration.specs import Piece, Specs, SpecsError, load_specs
from calibration.transform import MatTransform, TransformError

__all__ = [
    "Board", "BoardError", "Line", "Region", "Track", "list_boards", "load_board", "parse_board",
    "Piece", "Specs", "SpecsError", "load_specs", "MatTransform", "TransformError",
]
