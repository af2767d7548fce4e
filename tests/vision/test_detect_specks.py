"""Specks of the difference: the few-px parts of the half-size mask that the full-size mask's opening
loses (a small piece coloured like the mat), taken as weak round candidates."""

import numpy as np

from vision.detect import Background, DetectConfig, _specks


def _masks(small):
    bg = Background(np.full((2 * small.shape[0], 2 * small.shape[1], 3), 100, np.uint8), scale=0.5)
    return bg.foreground(None, 20.0, small, (2 * small.shape[0], 2 * small.shape[1], 3))


def test_specks_the_opening_loses_are_found_away_from_hands_and_kept_parts():
    small = np.zeros((120, 160), np.uint8)
    small[30, 40:42] = 255             # a speck of 2 px: lost by the opening at full size
    small[80, 100] = 255               # a speck of 1 px
    small[60:75, 120:135] = 255        # a part the full-size mask keeps: a piece found the usual way
    small[10, 150:152] = 255           # a speck inside a hand's margin
    full = _masks(small)
    assert full[56:66, 76:88].sum() == 0 and full[120:150, 240:270].all()   # what the opening did
    hands = np.zeros_like(full)
    hands[0:40, 280:320] = 255
    got = _specks(small, full, hands, 0.5, DetectConfig(speck_min_px=1))
    # centres in full-size image px
    assert np.allclose(sorted(map(tuple, got)), [(81.5, 60.5), (200.5, 160.5)])
    got = _specks(small, full, hands, 0.5, DetectConfig(speck_min_px=2))
    assert np.allclose(got, [(81.5, 60.5)])
    assert len(_specks(small, full, None, 0.5, DetectConfig(speck_min_px=2))) == 2
