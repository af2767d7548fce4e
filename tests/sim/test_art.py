"""sim/art.py: the artwork is distinct where a classifier must tell things apart."""

import itertools

import numpy as np
import pytest

from sim import art


def _rgb(a: art.Art, size=(88, 63)) -> np.ndarray:
    import cv2

    img = a.image[:, :, :3].astype(np.float32)
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA)


def test_five_card_faces_and_the_back_are_all_distinct():
    faces = {f: _rgb(art.card_face(f)) for f in art.CARD_FACES}
    faces["back"] = _rgb(art.card_back())
    for (a, x), (b, y) in itertools.combinations(faces.items(), 2):
        assert np.abs(x - y).mean() > 20, (a, b)


def test_card_art_covers_the_card_with_rounded_corners():
    a = art.card_face("dog", (88.0, 63.0))
    h, w = a.image.shape[:2]
    assert (w, h) == (704, 504)  # 8 px/mm
    assert a.image[h // 2, w // 2, 3] == 255 and a.image[0, 0, 3] == 0


def test_unknown_card_face():
    with pytest.raises(KeyError, match="no card face"):
        art.card_face("unicorn")


@pytest.mark.parametrize("colour", sorted(art.EGG_COLOURS))
def test_whole_and_broken_eggs_differ(colour):
    whole, broken = _rgb(art.egg_token(colour, "whole"), (60, 60)), _rgb(art.egg_token(colour, "broken"), (60, 60))
    assert np.abs(whole - broken).mean() > 12


def test_egg_colours_differ():
    imgs = {c: _rgb(art.egg_token(c, "whole"), (60, 60)) for c in art.EGG_COLOURS}
    for a, b in itertools.combinations(imgs, 2):
        assert np.abs(imgs[a] - imgs[b]).mean() > 15, (a, b)


def _mask(outline, px=4.0, ext=40.0):
    import cv2

    m = np.zeros((int(2 * ext * px), int(2 * ext * px)), np.uint8)
    cv2.fillPoly(m, [np.round((outline + ext) * px).astype(np.int32)], 1)
    return m.astype(bool)


def test_six_projectiles_have_distinct_shapes_and_colours():
    masks = {k: _mask(art.projectile_outline(k, 26.0)) for k in art.PROJECTILES}
    for a, b in itertools.combinations(art.PROJECTILES, 2):
        inter = np.logical_and(masks[a], masks[b]).sum()
        union = np.logical_or(masks[a], masks[b]).sum()
        assert inter / union < 0.85, (a, b)
    colours = [art.PROJECTILE_COLOURS[k] for k in art.PROJECTILES]
    assert len(set(colours)) == 6


def test_art_is_premultiplied_and_has_smaller_levels():
    for a in (art.card_back(), art.egg_token("red", "broken"), art.disc_face(51.0, (40, 40, 200), 1),
              art.ball_face(19.0), art.projectile_face("banana", 26.0), art.shelter()):
        img = a.image.astype(int)
        assert np.all(img[:, :, :3] <= img[:, :, 3:4] + 1)  # colours never exceed coverage
        small = a.level(1.0)
        assert small.shape[1] < a.image.shape[1] and small.shape[2] == 4


def test_team_discs_differ_by_pattern_as_well_as_colour():
    same_colour = (120, 120, 120)
    a = _rgb(art.disc_face(38.0, same_colour, 0), (60, 60))
    b = _rgb(art.disc_face(38.0, same_colour, 1), (60, 60))
    assert np.abs(a - b).mean() > 5
