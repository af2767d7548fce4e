"""The classical detector's second source of round candidates: parts of the rectified mask too thin
for a peak (a piece coloured like the mat leaves only its rim, wall or print in the difference), and
the rule that drops a piece found that way when it overlaps a piece kept."""

import cv2
import numpy as np

from vision.detect import DetectConfig, RoundKind, _apart, _fragments

KINDS = [RoundKind("ball", 9.5, 9.0), RoundKind("disc-small", 14.5, 9.0), RoundKind("disc-large", 25.5, 9.0)]


def _parts(top):
    contours, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return contours


def test_a_broken_rim_is_a_candidate_of_the_smallest_kind_at_its_centroid():
    top = np.zeros((200, 300), np.uint8)
    # the rim of a disc (radius 14 px) on its far side only: no peak of the distance transform in it
    cv2.ellipse(top, (100, 100), (14, 14), 0, 200, 340, 255, thickness=3)
    ys, xs = np.nonzero(top)
    out = _fragments(_parts(top), [0, 1, 2], KINDS, [], 1.0, (-40.0, -40.0), DetectConfig(fragment_min_fraction=0.1))
    assert len(out) == 1
    x, y, k = out[0]
    assert k == 0
    assert abs(x - (xs.mean() - 40.0)) < 0.5 and abs(y - (ys.mean() - 40.0)) < 0.5


def test_parts_too_small_too_large_or_holding_a_piece_are_not_candidates():
    top = np.zeros((300, 400), np.uint8)
    cv2.circle(top, (50, 50), 2, 255, -1)           # a speck: under 0.1 of the ball's top face
    cv2.circle(top, (200, 150), 40, 255, -1)        # larger than the largest top face
    cv2.circle(top, (320, 80), 12, 255, -1)         # a piece already found
    cv2.ellipse(top, (320, 220), (14, 14), 0, 0, 120, 255, thickness=3)  # a rim: the only candidate
    taken = [(320.0, 80.0, 14.5)]
    out = _fragments(_parts(top), [0, 1, 2], KINDS, taken, 1.0, (0.0, 0.0), DetectConfig(fragment_min_fraction=0.1))
    assert [(round(x / 20), round(y / 20)) for x, y, _ in out] == [(16, 11)]


def test_a_fragment_that_overlaps_a_piece_kept_is_dropped_and_of_two_fragments_the_larger_stays():
    xy = np.array([[0.0, 0.0], [20.0, 0.0], [100.0, 0.0], [108.0, 0.0], [200.0, 0.0]])
    radius = np.array([25.5, 9.5, 9.5, 14.5, 9.5])
    keep = np.ones(5, bool)
    fragment = np.array([False, True, True, True, True])
    out = _apart(xy, radius, keep, fragment, 0.8)
    # 1 overlaps the large disc 0; 2 and 3 are one piece (3, the larger, stays); 4 stands alone
    assert out.tolist() == [True, False, False, True, True]
    # a piece already dropped (keep False) takes nothing away
    keep[0] = False
    assert _apart(xy, radius, keep, fragment, 0.8).tolist()[1] is True


def test_the_hybrid_merge_keeps_which_classical_pieces_came_from_fragments():
    from vision.detect import Candidates, _merge

    kinds = {k.name: k for k in KINDS} | {"card": RoundKind("card", 40.0, 0.5, False)}
    nan4 = np.full((3, 4), np.nan)
    classical = Candidates(np.array([[100.0, 100.0], [300.0, 100.0], [500.0, 100.0]]), ["ball", "ball", "disc-small"],
                           np.array([1.0, 0.5, 1.0]), nan4, np.zeros((0, 4)), np.array([False, True, False]))
    # YOLO sees the first disc again (the same piece) and a card elsewhere
    yolo = Candidates(np.array([[101.0, 100.0], [700.0, 300.0]]), ["ball", "card"], np.array([0.9, 0.8]),
                      np.array([[0, 0, 10, 10], [50, 50, 90, 80]], float), np.zeros((0, 4)))
    out = _merge(classical, yolo, kinds)
    assert out.kind == ["ball", "ball", "disc-small", "card"]
    assert out.fragment.tolist() == [False, True, False, False]
