"""Real photographs of pieces that are not ours (../shared/realdata, read-only): the disc finder on
the clean checkers photos, the card finder on some card photos, the matching rules and the report
table. Skipped cleanly when the photographs are not there."""

from pathlib import Path

import numpy as np
import pytest

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
needs_realdata = pytest.mark.skipif(not (REALDATA / "checkers").is_dir() or not (REALDATA / "cards").is_dir(),
                                    reason=f"{REALDATA} is absent")

from vision.realdata import format_report, match_boxes, match_discs


@pytest.mark.parametrize("pred, score, true, expected", [
    ([[0, 0, 10, 10]], [1.0], [[0, 0, 10, 10]], [0]),                          # identical
    ([[0, 0, 10, 10]], [1.0], [[5, 5, 15, 15]], [-1]),                         # IoU 1/7: no match
    ([[0, 0, 10, 10], [1, 1, 11, 11]], [0.5, 0.9], [[0, 0, 10, 10]], [-1, 0]),  # the better score takes it
    (np.zeros((0, 4)), [], [[0, 0, 1, 1]], []),                                # nothing found
])
def test_match_boxes(pred, score, true, expected):
    assert list(match_boxes(np.array(pred, float), np.array(score, float), np.array(true, float))) == expected


@pytest.mark.parametrize("centre, radius, expected", [
    ([[10, 10]], [8.0], [0]),    # top face smaller than the box round the whole piece: a match
    ([[14, 10]], [8.0], [-1]),   # centre off by 0.4 of the half-size
    ([[10, 10]], [4.0], [-1]),   # far too small
])
def test_match_discs(centre, radius, expected):
    true = np.array([[0, 0, 20, 20]], float)
    assert list(match_discs(np.array(centre, float), np.array(radius), np.ones(len(radius)), true)) == expected


def test_format_report_prints_every_row():
    row = {"recall": 0.5, "precision": 0.25, "tp": 1, "labelled": 2, "predicted": 4}
    report = {"root": "/x", "checkers": {"rows": {"discs": dict(row, colour={"accuracy": 1.0})}, "images": ["a"], "teach_images": ["b"]},
              "cards": {"rows": {"quads": row}, "images": 3, "teach_images": ["c"]}}
    text = format_report(report)
    assert "checkers: discs" in text and "50.0%" in text and "100.0%" in text and "cards: quads" in text
    # a finder that found nothing has no precision: a dash, not "nan%"
    report["cards"]["rows"]["quads"] = dict(row, recall=0.0, precision=float("nan"), tp=0, predicted=0)
    line = next(x for x in format_report(report).splitlines() if x.startswith("cards: quads"))
    assert "nan" not in line and "–" in line and "0.0%" in line


@needs_realdata
def test_disc_finder_on_clean_checkers_photos():
    from vision.realdata import _disc_scores, _run_discs, checkers_images

    runs = _run_discs(checkers_images(REALDATA, "test") + checkers_images(REALDATA, "valid"), None)
    s = _disc_scores(runs)
    print(f"checkers discs: recall {s['recall']:.3f} precision {s['precision']:.3f} ({s['tp']}/{s['labelled']})")
    assert s["labelled"] > 100
    assert s["recall"] >= 0.9 and s["precision"] >= 0.9  # measured 96.5% / 96.5%


@needs_realdata
def test_card_finder_on_some_card_photos():
    from vision.realdata import _card_scores, _run_cards, card_images

    s = _card_scores(_run_cards(card_images(REALDATA)[:12], None))
    print(f"card quads (12 photos): recall {s['recall']:.3f} precision {s['precision']:.3f}")
    assert s["recall"] >= 0.5


def test_missing_root_is_a_clear_error(tmp_path):
    from vision.realdata import realdata_report

    with pytest.raises(FileNotFoundError, match="real photographs are not here"):
        realdata_report(tmp_path)
