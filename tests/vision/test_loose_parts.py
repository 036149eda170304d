"""recognize._loose_parts: a partial box on a loose tile (off the hand row) is left unread.

Real-dev `lietxia_70008812`'s drawn 0p lies turned ~25° above the row; detectors box it whole and
again by its right ¾ (80 % inside the whole box, under `tidy_boxes`' 90 % cover); that part read 6p
and the hand lost its drawn tile (session 11's ft9 e5 at the photo's own size and at 12 MP)."""
from __future__ import annotations

import numpy as np

import vision.recognize as rec

ROW = [[x, 100.0, x + 30.0, 140.0] for x in range(0, 390, 30)]  # 13 standing tiles, in the row


def _mask(extra: list[list[float]], scores: list[float]) -> np.ndarray:
    boxes = np.array(ROW + extra, float)
    sc = np.array([0.9] * len(ROW) + scores, float)
    return rec._loose_parts(boxes, sc, tuple(range(len(ROW))))


def test_a_smaller_less_sure_box_mostly_inside_a_loose_tile_is_left_unread():
    whole, part = [430.0, 60.0, 480.0, 110.0], [442.0, 62.0, 480.0, 110.0]  # the part: 100 % inside
    assert _mask([whole, part], [0.53, 0.47]).tolist() == [False] * 13 + [False, True]
    shifted = [445.0, 65.0, 485.0, 112.0]  # 40×47 px, 80 % of it inside the whole box (the real-dev case)
    assert _mask([whole, shifted], [0.53, 0.47])[-1]


def test_the_surer_or_larger_box_and_boxes_barely_inside_stay():
    whole, part = [430.0, 60.0, 480.0, 110.0], [442.0, 62.0, 480.0, 110.0]
    assert not _mask([whole, part], [0.40, 0.47]).any()  # the part is the surer read: both read
    assert not _mask([whole, [455.0, 60.0, 505.0, 110.0]], [0.53, 0.47]).any()  # half inside: another tile
    # a kan's stacked tile beside its sideways base (both off the row here): they touch along an edge
    assert not _mask([[430.0, 110.0, 470.0, 140.0], [430.0, 80.0, 470.0, 111.0]], [0.8, 0.5]).any()


def test_boxes_in_the_row_are_never_parts():
    boxes = np.array(ROW + [[5.0, 102.0, 28.0, 138.0]], float)  # a part of the first standing tile …
    sc = np.array([0.9] * len(ROW) + [0.4])
    assert not rec._loose_parts(boxes, sc, tuple(range(len(boxes)))).any()  # … but taken into the row
    assert rec._loose_parts(boxes, sc, tuple(range(len(ROW)))).tolist() == [False] * 14  # row boxes are not loose


def test_the_rule_can_be_switched_off():
    whole, part = [430.0, 60.0, 480.0, 110.0], [442.0, 62.0, 480.0, 110.0]
    old = rec.LOOSE_PART_COVER
    try:
        rec.LOOSE_PART_COVER = 1.01
        assert not _mask([whole, part], [0.53, 0.47]).any()
    finally:
        rec.LOOSE_PART_COVER = old
