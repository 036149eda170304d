"""Which side of the row its owner sits on, when few faces can tell.

Half-turn-symmetric faces (1p, 8s, 5z, …) look the same upside down and abstain from the
owner-side vote; a hand made mostly of them, photographed from across the table with a discard
of another player lying upright in line, was read reversed. Players sort their hands, so
numbers of one suit falling left to right in the photo say the row is seen from across.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from vision.classes import CLASS_INDEX, TILE_CLASSES
from vision.pipeline import PhotoReader
from vision.recognize import _sort_evidence


def test_sort_evidence_counts_rising_and_falling_neighbours_of_one_suit():
    assert _sort_evidence(["1m", "2m", "3m", "5p", "0p", "7p", "1z", "1z"]) == 3  # 0p counts as 5p
    assert _sort_evidence(["7p", "0p", "5p", "3m", "2m", "1m"]) == -3
    assert _sort_evidence(["1m", None, "2m", "back", "3m", "4s"]) == 0  # sideways/unread/backs break pairs


class _Boxes:
    def __init__(self, boxes):
        self.boxes = boxes

    def detect(self, image):
        return [SimpleNamespace(x1=b[0], y1=b[1], x2=b[2], y2=b[3], score=0.9) for b in self.boxes]


class _Faces:
    """Reads each box as its label (by the nearest box centre), every face upright in the crop."""

    def __init__(self, boxes, labels):
        self.centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes])
        self.labels = labels

    def classify_tiles(self, image, frame, frame_boxes, sideways):
        probs = np.full((len(frame_boxes), len(TILE_CLASSES)), 0.01 / (len(TILE_CLASSES) - 1), np.float32)
        flips = np.tile(np.array([[0.95, 0.05]], np.float32), (len(frame_boxes), 1))
        for n, fb in enumerate(frame_boxes):
            c = frame.to_photo(np.array([[(fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2]]))[0]
            k = int(np.argmin(np.hypot(*(self.centres - c).T)))
            probs[n, CLASS_INDEX[self.labels[k]]] = 0.99
            if frame.angle % 360 > 90 and frame.angle % 360 < 270:  # the crop is turned half a turn
                flips[n] = (0.05, 0.95)
        return probs, flips


def test_hand_of_symmetric_faces_seen_from_across_reads_in_its_owners_order():
    hand = "1p 2p 3p 3p 4p 5p 8p 8p 8p 4s 5s 6s 9s 9s".split()
    labels = hand[::-1] + ["1m"]  # the photo, left to right: the hand from across, then a discard
    boxes = [(100 + 42 * k, 300, 140 + 42 * k, 355) for k in range(14)] + [(100 + 42 * 15, 300, 140 + 42 * 15, 355)]
    reading = PhotoReader(detector=_Boxes(boxes), classifier=_Faces(boxes, labels)).read(np.zeros((600, 900, 3), np.uint8))
    assert reading.sequence == " ".join(hand)
    assert abs(reading.row_angle) > 90  # the owner sits at the photo's top
