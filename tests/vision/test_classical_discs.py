"""The classical disc finder on constructed photos: coloured discs (some touching, one with a
printed mark) on a black-and-white board, with exact centres and radii."""

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.classical_discs import DiscFinderConfig, Discs, colour_groups, find_discs

SQUARE = 50


def board_photo(discs, size=(640, 400), seed=0):
    """A checkerboard (white / near-black) with anti-aliased discs drawn at sub-pixel centres."""
    rng = np.random.default_rng(seed)
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.where(((xx // SQUARE) + (yy // SQUARE)) % 2 == 0, 225, 30).astype(np.uint8)
    img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    shift = 4
    for (x, y, r, colour, mark) in discs:
        c = (int(round(x * 16)), int(round(y * 16)))
        cv2.circle(img, c, int(round(r * 16)), colour, -1, cv2.LINE_AA, shift)
        if mark:
            cv2.circle(img, c, int(round(r * 0.35 * 16)), (20, 20, 20), -1, cv2.LINE_AA, shift)
    noisy = img.astype(np.float32) + rng.normal(0, 2.0, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


RED, GREEN = (80, 80, 200), (90, 160, 80)
DISCS = [
    (80.3, 75.6, 18.0, RED, False),
    (180.7, 75.2, 18.0, GREEN, False),
    (216.7, 75.2, 18.0, RED, False),     # touching the green one
    (330.1, 180.9, 18.0, GREEN, True),   # a king: dark mark in the middle
    (460.4, 260.2, 18.0, RED, True),
    (560.0, 320.5, 18.0, GREEN, False),
]


def test_finds_every_disc_with_subpixel_centres():
    img = board_photo(DISCS)
    found = find_discs(img)
    assert len(found) == len(DISCS)
    true = np.array([d[:2] for d in DISCS])
    d = np.linalg.norm(found.centre[:, None, :] - true[None], axis=2)
    assert (d.min(1) < 1.0).all(), d.min(1)
    assert np.allclose(found.radius, 18.0, atol=1.5), found.radius
    assert found.xyxy.shape == (len(DISCS), 4)


def test_colour_groups_split_the_teams():
    found = find_discs(board_photo(DISCS))
    groups = colour_groups(found)
    true = np.array([d[:2] for d in DISCS])
    nearest = np.linalg.norm(found.centre[:, None, :] - true[None], axis=2).argmin(1)
    is_red = np.array([DISCS[i][3] == RED for i in nearest])
    assert len(set(groups[is_red])) == 1 and len(set(groups[~is_red])) == 1
    assert groups[is_red][0] != groups[~is_red][0]


def test_empty_board_and_empty_results():
    found = find_discs(board_photo([]))
    assert len(found) == 0 and found.xyxy.shape == (0, 4)
    assert colour_groups(Discs.empty()).shape == (0,)


def test_without_hough_still_finds_bright_discs():
    found = find_discs(board_photo(DISCS[:3]), DiscFinderConfig(hough=False))
    assert len(found) == 3


@pytest.mark.parametrize("field, value", [("radius", np.zeros(2)), ("score", np.zeros(3)), ("lab", np.zeros((2, 3)))])
def test_discs_shapes_are_checked(field, value):
    args = dict(centre=np.zeros((1, 2)), radius=np.zeros(1), score=np.zeros(1), lab=np.zeros((1, 3)))
    args[field] = value
    with pytest.raises(ValueError, match=f"{field} must have shape"):
        Discs(**args)
