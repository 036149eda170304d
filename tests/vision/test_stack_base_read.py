"""`vision.recognize`: a row tile another box lies on (an added kan's base) is read both ways (READ session 16)."""
from __future__ import annotations

import cv2
import numpy as np

from tests.vision.test_recognize import BrightBlobs
from vision.classes import CLASS_INDEX, TILE_CLASSES
from vision.recognize import recognize
from vision.sideways import stack_bases

ROW = [(200 + 52 * i, 250, 248 + 52 * i, 320) for i in range(10)]  # ten standing tiles
BASE = 6
STACKED = (ROW[BASE][0] - 8, 190, ROW[BASE][2] + 8, 240)  # a flat tile lying on the row's 7th, a little beyond it


class BaseReadsOtherFace:
    """Every box reads as 1m, but the kan's base reads 4s upright and 4p from its crop turned sideways (as the
    real classifier read tune render 158's base with ft12 e5's boxes)."""

    def classify_tiles(self, image, frame, frame_boxes, sideways):
        probs = np.full((len(frame_boxes), len(TILE_CLASSES)), 0.01 / (len(TILE_CLASSES) - 1), np.float32)
        flips = np.tile(np.array([[0.95, 0.05]], np.float32), (len(frame_boxes), 1))
        bx = (ROW[BASE][0] + ROW[BASE][2]) / 2
        for n, fb in enumerate(frame_boxes):
            c = frame.to_photo(np.array([[(fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2]]))[0]
            on_base = abs(c[0] - bx) < 10 and 260 < c[1] < 310
            label = ("4p" if sideways[n] else "4s") if on_base else "1m"
            probs[n, CLASS_INDEX[label]] = 0.99
        return probs, flips


def _photo():
    image = np.zeros((600, 900, 3), np.uint8)
    for x1, y1, x2, y2 in ROW + [STACKED]:
        cv2.rectangle(image, (x1, y1), (x2, y2), (230, 230, 230), -1)
    return image


def test_a_row_tile_with_a_box_lying_on_it_is_read_both_ways():
    rec = recognize(_photo(), BrightBlobs(), BaseReadsOtherFace())
    base = next(t for t in rec.tiles if abs(t.centre[1] - np.median([u.centre[1] for u in rec.tiles])) < 5
                and abs((t.box[0] + t.box[2]) / 2 - (ROW[BASE][0] + ROW[BASE][2]) / 2) < 10)
    assert base.label == "4s" and not base.sideways  # its shape still says how it lies
    assert base.turned_candidates and base.turned_candidates[0].label == "4p"


def test_stack_bases_are_row_tiles_with_a_box_beyond_them_not_their_neighbours():
    boxes = np.array(ROW + [STACKED], float)
    mask = stack_bases(boxes, range(len(ROW)))
    assert mask.tolist() == [k == BASE for k in range(len(ROW))] + [False]
