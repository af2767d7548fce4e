"""Card quads on constructed photos (a card warped into a textured background with a known
homography, so the true corners are exact), rectification and quad geometry."""

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.cards import (box_iou_batch, card_quads_px, find_card_quads, order_clockwise, quad_area, quad_iou_batch, quads_to_xyxy,
                          rectify_card, upright_corners)

CARD_W, CARD_H = 126, 176  # 63 x 88 mm at 2 px/mm, portrait


def card_art(seed: int = 0) -> np.ndarray:
    """A white card with a coloured picture and corner marks (asymmetric top/bottom)."""
    rng = np.random.default_rng(seed)
    img = np.full((CARD_H, CARD_W, 3), 245, np.uint8)
    cv2.rectangle(img, (18, 30), (CARD_W - 18, CARD_H - 50), tuple(int(c) for c in rng.integers(30, 200, 3)), -1)
    cv2.circle(img, (CARD_W // 2, 70), 20, (20, 20, 200), -1)
    cv2.putText(img, "A", (6, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 2)
    return img


def background(h: int, w: int, seed: int) -> np.ndarray:
    """A darker, textured table (wood-like grain plus noise)."""
    rng = np.random.default_rng(seed)
    base = np.array([60, 90, 130], np.float32) * rng.uniform(0.7, 1.1)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), sigmaX=12, sigmaY=1.5)
    img = base[None, None, :] * (1 + 0.25 * grain[:, :, None] / grain.std())
    img += rng.normal(0, 4, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def card_in_photo(angle_deg: float, centre, scale: float, tilt: float = 0.0, seed: int = 0, size=(640, 480)):
    """A photo with one card; returns the image and the true corners (4, 2) image px of the card's
    top-left, top-right, bottom-right, bottom-left (as drawn in ``card_art``)."""
    w, h = size
    art = card_art(seed)
    src = np.float32([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]]) - 0.5
    a = np.radians(angle_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [CARD_W / 2, CARD_H / 2]) * scale
    local[:, 0] *= 1 + tilt * np.array([-1, -1, 1, 1]) * 0.5 * (local[:, 1] / np.abs(local[:, 1]).max())  # a keystone
    dst = (local @ R.T + np.asarray(centre)).astype(np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    photo = background(h, w, seed + 1)
    warped = cv2.warpPerspective(art, H, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((CARD_H, CARD_W), 255, np.uint8), H, (w, h), flags=cv2.INTER_LINEAR)
    alpha = mask.astype(np.float32)[:, :, None] / 255.0
    out = (warped * alpha + photo * (1 - alpha)).astype(np.uint8)
    return out, dst.astype(np.float64)


def corner_error(found: np.ndarray, true: np.ndarray) -> float:
    """Max corner distance after matching the found corners to the true ones (any start, same turn)."""
    f = order_clockwise(found)
    t = order_clockwise(true)
    return min(np.linalg.norm(np.roll(f, k, 0) - t, axis=1).max() for k in range(4))


@pytest.mark.parametrize("angle, centre, scale, tilt", [
    (0.0, (320, 240), 1.0, 0.0),     # upright, centred
    (23.0, (300, 250), 1.2, 0.0),    # turned
    (-61.0, (360, 220), 0.8, 0.0),   # turned the other way, smaller
    (90.0, (320, 240), 1.0, 0.0),    # landscape
    (35.0, (330, 240), 1.1, 0.25),   # turned, seen obliquely (keystone)
    (135.0, (250, 200), 0.6, 0.0),   # small card
])
def test_find_card_quads_corner_error(angle, centre, scale, tilt):
    img, true = card_in_photo(angle, centre, scale, tilt, seed=3)
    quads, scores = find_card_quads(img)
    assert quads.shape[1:] == (4, 2) and len(quads) == len(scores)
    assert len(quads) >= 1
    errs = [corner_error(q, true) for q in quads]
    best = int(np.argmin(errs))
    assert errs[best] < 2.0, f"corner error {errs[best]:.2f} px"
    assert best == 0, "the card must be the best candidate"
    assert len(quads) == 1, f"only one card in the photo, found {len(quads)}"


def test_find_card_quads_empty_photo():
    quads, scores = find_card_quads(background(480, 640, 5))
    assert quads.shape == (0, 4, 2) and scores.shape == (0,)


def test_rectify_recovers_the_card():
    img, true = card_in_photo(40.0, (320, 240), 1.3, seed=2)
    crop = rectify_card(img, true[[2, 0, 3, 1]], (CARD_W // 2, CARD_H // 2))  # corners in any order
    ref = cv2.resize(card_art(2), (CARD_W // 2, CARD_H // 2), interpolation=cv2.INTER_AREA)
    # upright, up to a half turn (the classifier sees both)
    err = min(np.abs(crop.astype(int) - ref).mean(), np.abs(crop[::-1, ::-1].astype(int) - ref).mean())
    assert err < 12.0


@pytest.mark.parametrize("quad, expected_first_edge_short", [
    ([[0, 0], [63, 0], [63, 88], [0, 88]], True),      # portrait, clockwise
    ([[0, 0], [0, 88], [63, 88], [63, 0]], True),      # portrait, counter-clockwise input
    ([[0, 0], [88, 0], [88, 63], [0, 63]], True),      # landscape: rotated to portrait
    ([[50, 0], [100, 50], [50, 120], [0, 70]], True),  # turned
])
def test_upright_corners_short_edge_on_top(quad, expected_first_edge_short):
    q = upright_corners(quad)
    top = np.linalg.norm(q[1] - q[0])
    side = np.linalg.norm(q[2] - q[1])
    assert (top < side) == expected_first_edge_short
    # clockwise on screen (y down): positive cross product
    cross = (q[1, 0] - q[0, 0]) * (q[2, 1] - q[1, 1]) - (q[1, 1] - q[0, 1]) * (q[2, 0] - q[1, 0])
    assert cross > 0


def test_quad_geometry_batch_and_empty():
    q = np.array([[[0, 0], [10, 0], [10, 20], [0, 20]], [[5, 5], [15, 5], [15, 25], [5, 25]]], float)
    assert np.allclose(quad_area(q), [200, 200])
    assert np.allclose(quads_to_xyxy(q), [[0, 0, 10, 20], [5, 5, 15, 25]])
    iou = quad_iou_batch(q, q)
    assert iou.shape == (2, 2) and np.allclose(np.diag(iou), 1)
    assert np.isclose(iou[0, 1], 75 / 325)
    assert np.allclose(box_iou_batch(quads_to_xyxy(q), quads_to_xyxy(q)), iou)
    assert box_iou_batch(np.zeros((0, 4)), quads_to_xyxy(q)).shape == (0, 2)
    assert quads_to_xyxy(np.zeros((0, 4, 2))).shape == (0, 4)


def test_card_quads_px_through_a_transform():
    class Scale:  # a stand-in MatTransform: 2 px per mm, no distortion
        def mat_to_image(self, pts, height_mm=0.0):
            return np.asarray(pts) * 2.0

    q = card_quads_px(Scale(), [[100, 50]], [90.0], [[88, 63]])
    assert q.shape == (1, 4, 2)
    assert np.allclose(quads_to_xyxy(q), [[200 - 63, 100 - 88, 200 + 63, 100 + 88]])
    assert card_quads_px(Scale(), np.zeros((0, 2)), [], np.zeros((0, 2))).shape == (0, 4, 2)


def court_card_on_carpet(seed: int = 0, size=(640, 480)):
    """A court card (a picture filling all but a plain white margin, with two light panels in it, as
    a court card's two half-figures) turned on a light, speckled carpet; returns the image and the
    card's true corners (4, 2) image px."""
    rng = np.random.default_rng(seed)
    art = np.full((CARD_H, CARD_W, 3), 245, np.uint8)
    m = 14
    cv2.rectangle(art, (m, m), (CARD_W - m, CARD_H - m), (40, 60, 190), -1)
    for y0 in (m + 10, CARD_H // 2 + 6):
        cv2.rectangle(art, (m + 10, y0), (CARD_W - m - 10, y0 + 56), (230, 235, 240), -1)
        cv2.circle(art, (CARD_W // 2, y0 + 28), 16, (30, 170, 220), -1)
    w, h = size
    carpet = np.clip(rng.normal(170, 35, (h // 3, w // 3)), 0, 255).astype(np.float32)
    carpet = cv2.resize(cv2.GaussianBlur(carpet, (0, 0), 0.8), (w, h), interpolation=cv2.INTER_LINEAR)
    photo = np.clip(carpet[:, :, None] * np.float32([0.75, 0.9, 1.0]), 0, 255).astype(np.uint8)
    src = np.float32([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]]) - 0.5
    a = np.radians(12.0)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [CARD_W / 2, CARD_H / 2] * 1.3
    dst = (local @ R.T + np.array([w / 2, h / 2])).astype(np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(art, H, (w, h), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(np.full((CARD_H, CARD_W), 255, np.uint8), H, (w, h)).astype(np.float32)[:, :, None] / 255
    return (warped * alpha + photo * (1 - alpha)).astype(np.uint8), dst.astype(np.float64)


def test_court_card_on_a_light_carpet_is_one_card():
    # a card is known by its plain margin, whatever is printed inside it; the light panels of its
    # picture are not cards of their own
    img, true = court_card_on_carpet(seed=2)
    quads, _ = find_card_quads(img)
    assert len(quads) >= 1, "the court card is not found"
    errs = [corner_error(q, true) for q in quads]
    assert min(errs) < 3.0, f"corner error {min(errs):.2f} px"
    assert len(quads) == 1, f"one card in the photo, found {len(quads)}"


def two_cards_touching(size=(640, 480), seed=0):
    """Two cards side by side, turned, their long edges touching (a faint shadow along the seam):
    one light region. Returns the image and the two cards' true corners."""
    w, h = size
    photo = background(h, w, seed + 1).astype(np.float32)
    s, a = 1.1, np.radians(8.0)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    ex = R @ np.array([CARD_W * s, 0.0])
    src = np.float32([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]]) - 0.5
    local = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [CARD_W / 2, CARD_H / 2] * s
    trues = []
    for k, c in enumerate([np.array([w / 2, h / 2]) - ex / 2, np.array([w / 2, h / 2]) + ex / 2]):
        dst = (local @ R.T + c).astype(np.float32)
        H = cv2.getPerspectiveTransform(src, dst)
        warped = cv2.warpPerspective(card_art(seed + k).astype(np.float32), H, (w, h), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpPerspective(np.full((CARD_H, CARD_W), 255, np.uint8), H, (w, h)).astype(np.float32)[:, :, None] / 255
        photo = warped * alpha + photo * (1 - alpha)
        trues.append(dst.astype(np.float64))
    seam = np.zeros((h, w), np.uint8)
    cv2.line(seam, tuple(int(v) for v in np.round(trues[0][1])), tuple(int(v) for v in np.round(trues[0][2])), 255, 2)
    photo[seam > 0] *= 0.75
    return np.clip(photo, 0, 255).astype(np.uint8), trues


def test_two_touching_cards_are_two_cards_not_one():
    # the quad round both is not a card: the two card quads inside it explain it
    img, trues = two_cards_touching()
    quads, _ = find_card_quads(img)
    assert len(quads) == 2, f"two cards, found {len(quads)}"
    for t in trues:
        assert min(corner_error(q, t) for q in quads) < 4.0
