"""The classical detector's source of round candidates for a dark disc on a pale print of the mat's
own hue (dark as a shadow there, so the round mask leaves it out): a round part of the mask with a
higher shadow floor that stands apart from everything in the round mask."""

import cv2
import numpy as np

from vision.detect import DetectConfig, RoundKind, _dark_discs

KINDS = [RoundKind("ball", 9.5, 9.0), RoundKind("disc-small", 14.5, 9.0), RoundKind("disc-large", 25.5, 9.0)]
CFG = DetectConfig(dark_disc_circularity=0.6, dark_disc_floor=0.7, dark_disc_area_ratio=1.5, dark_disc_apart_mm=8.0,
                   dark_disc_held=0.5, dark_disc_ring=0.05)


def test_a_lone_round_dark_part_is_a_candidate_of_the_kind_nearest_in_area_at_its_centre():
    deep = np.zeros((200, 300), np.uint8)
    top = np.zeros_like(deep)
    cv2.circle(deep, (120, 90), 24, 255, -1)  # a large disc's top face (25.5 px) as dark as a shadow
    cv2.circle(deep, (20, 20), 14, 255, -1)  # a small one, its ring reaching past the plane's edge
    out = sorted(_dark_discs(deep, top, [0, 1, 2], KINDS, [], 1.0, (-10.0, -20.0), CFG))
    assert [k for *_, k in out] == [1, 2]
    (x1, y1, _), (x2, y2, _) = out
    assert abs(x1 - 10.0) < 0.5 and abs(y1 - 0.0) < 0.5 and abs(x2 - 110.0) < 0.5 and abs(y2 - 70.0) < 0.5


def test_a_shadow_against_its_caster_a_long_shadow_and_a_part_near_a_piece_are_not():
    deep = np.zeros((300, 500), np.uint8)
    top = np.zeros_like(deep)
    # a disc in the round mask, a round shadow against it in the deeper mask; and the two as one part
    cv2.circle(top, (80, 80), 25, 255, -1)
    cv2.circle(deep, (131, 80), 25, 255, -1)
    cv2.circle(top, (80, 230), 14, 255, -1)
    cv2.circle(deep, (80, 230), 14, 255, -1)
    cv2.circle(deep, (92, 236), 14, 255, -1)
    # a long shadow (an arm's): not round; a round one larger than any disc
    cv2.rectangle(deep, (200, 20), (300, 40), 255, -1)
    cv2.circle(deep, (420, 70), 40, 255, -1)
    # a round dark part within the ring of a piece found elsewhere (taken)
    cv2.circle(deep, (400, 200), 14, 255, -1)
    # a round part the round mask holds for the most part: the round path's own
    cv2.circle(deep, (250, 220), 14, 255, -1)
    cv2.circle(top, (250, 220), 12, 255, -1)
    # the only candidate
    cv2.circle(deep, (170, 230), 14, 255, -1)
    out = _dark_discs(deep, top, [0, 1, 2], KINDS, [(430.0, 200.0, 14.5)], 1.0, (0.0, 0.0), CFG)
    assert [(round(x), round(y), k) for x, y, k in out] == [(170, 230, 1)]
    # and none at all when the source is off
    assert _dark_discs(deep, top, [0, 1, 2], KINDS, [], 1.0, (0.0, 0.0),
                       DetectConfig(dark_disc_circularity=1.01, dark_disc_area_ratio=1.5)) == []


def test_a_dark_disc_on_a_pale_print_is_found_in_a_rendered_frame():
    """Tuning frame 15 of seed 1 (framed): a dark Dino Dunk disc on Tropic Turf's pale hexagon, which
    the round mask takes for shadow; found with the source, missed without it."""
    from dataclasses import replace

    from calibration.specs import load_specs
    from vision.bench import bench_frames
    from vision.detect import Detector

    fr = next(bench_frames(1, "framed", 1, start=15))
    truth = next(t for t in fr.truth if t["id"] == "away:4")
    cfg = DetectConfig.load()
    assert cfg.dark_disc_circularity > 0

    def nearest(config):
        det = Detector(fr.board, fr.transform, specs=load_specs(), background=fr.empty, config=config, method="classical")
        obs = det(fr.image, 0, 0.0)
        d = np.linalg.norm(obs.xy - np.asarray(truth["xy"]), axis=1) if len(obs) else np.array([np.inf])
        i = int(np.argmin(d))
        return float(d[i]), (obs.kind[i] if len(obs) else None)

    d, kind = nearest(cfg)
    assert d < 2.0 and kind == "disc-medium"
    assert nearest(replace(cfg, dark_disc_circularity=0.0))[0] > 15.0


def test_the_masks_of_higher_shadow_floors_match_the_plain_formula():
    """:meth:`Background.foreground_small_floors` works a higher floor out only where the light is
    under it; every mask is the plain one: the frame less the empty mat scaled by the light clipped to
    [floor, 1.15], or brighter than the empty mat, by more than the threshold."""
    from vision.bench import bench_frames
    from vision.detect import Background

    cfg = DetectConfig.load()
    for fr in bench_frames(4, "framed", 2):
        bg = Background(fr.empty)
        f = bg._shrink(fr.image).astype(np.float32)
        ratio = bg.light(f)
        lift = (f - bg._b + 1.0).max(axis=2) * bg.lift_gain
        masks = bg.foreground_small_floors(fr.image, cfg.diff_threshold, (0.35, 0.5, 0.7))
        for mask, floor in zip(masks, (0.35, 0.5, 0.7)):
            d = f - np.clip(ratio, floor, 1.15)[..., None] * bg._b
            diff = np.maximum(np.sqrt((d * d).sum(axis=2)), lift)
            want = np.where(np.clip(diff, 0, 255).astype(np.uint8) > cfg.diff_threshold, 255, 0)
            assert np.array_equal(mask, want), floor
        assert (masks[2] >= masks[1]).all() and (masks[1] >= masks[0]).all()  # a higher floor only adds
