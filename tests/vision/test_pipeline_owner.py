"""Which side of the row its owner sits on, when few faces can tell.

Half-turn-symmetric faces (1p, 8s, 5z, …) look the same upside down and abstain from the
owner-side vote; a hand made mostly of them, photographed from across the table with a discard
of another player lying upright in line, was read reversed. Players sort their hands, so
numbers of one suit falling left to right in the photo say the row is seen from across.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from vision.pipeline import PhotoReader
from vision.recognize import _sort_evidence

from .fakes import LabelledFaces


def test_sort_evidence_counts_rising_and_falling_neighbours_of_one_suit():
    assert _sort_evidence(["1m", "2m", "3m", "5p", "0p", "7p", "1z", "1z"]) == 3  # 0p counts as 5p
    assert _sort_evidence(["7p", "0p", "5p", "3m", "2m", "1m"]) == -3
    assert _sort_evidence(["1m", None, "2m", "back", "3m", "4s"]) == 0  # sideways/unread/backs break pairs


class _Boxes:
    def __init__(self, boxes):
        self.boxes = boxes

    def detect(self, image):
        return [SimpleNamespace(x1=b[0], y1=b[1], x2=b[2], y2=b[3], score=0.9) for b in self.boxes]


def test_hand_of_symmetric_faces_seen_from_across_reads_in_its_owners_order():
    hand = "1p 2p 3p 3p 4p 5p 8p 8p 8p 4s 5s 6s 9s 9s".split()
    labels = hand[::-1] + ["1m"]  # the photo, left to right: the hand from across, then a discard
    boxes = [(100 + 42 * k, 300, 140 + 42 * k, 355) for k in range(14)] + [(100 + 42 * 15, 300, 140 + 42 * 15, 355)]
    reading = PhotoReader(detector=_Boxes(boxes), classifier=LabelledFaces(boxes, labels, up_in_photo=True)).read(np.zeros((600, 900, 3), np.uint8))
    assert reading.sequence == " ".join(hand)
    assert abs(reading.row_angle) > 90  # the owner sits at the photo's top


class _FacingFaces(LabelledFaces):
    """Reads each box as its label; each tile's face has its own up: towards the photo's bottom
    (its owner sits there) or, for tiles in `across`, towards the top."""

    def __init__(self, boxes, labels, across):
        super().__init__(boxes, labels)
        self.across = set(across)

    def classify_tiles(self, image, frame, frame_boxes, sideways):
        probs, flips = super().classify_tiles(image, frame, frame_boxes, sideways)
        turned = 90 < frame.angle % 360 < 270
        for n, fb in enumerate(frame_boxes):
            flips[n] = (0.05, 0.95) if (self.nearest(frame, fb) in self.across) != turned else (0.95, 0.05)
        return probs, flips


def _level_row(x0, y, n, w=40, h=55, step=42, apart_after=None):
    boxes = []
    for k in range(n):
        x = x0 + step * k + (18 if apart_after is not None and k > apart_after else 0)
        boxes.append((x, y, x + w, y + h))
    return boxes


def test_hand_row_below_another_players_likelier_row_reads_in_its_owners_order():
    """Another player's standing hand (13 tiles, larger, its faces towards the photo's top) lies
    level with the hand in the photo and looks likelier; its faces turn the photo around, the
    hand then reads reversed and makes none. The reader reads the photo turned around: the hand
    row's own faces said its owner sits at the bottom (seen on tune renders, 700415)."""
    other = "1m 4m 7m 2p 5p 8p 3s 6s 9s 1z 2z 3z 4z".split()
    hand = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 2z 2z 2z".split()
    boxes = _level_row(100, 120, 13, w=46, h=62, step=48) + _level_row(100, 600, 14, apart_after=12)
    labels = other + hand
    cls = _FacingFaces(boxes, labels, across=range(13))
    reading = PhotoReader(detector=_Boxes(boxes), classifier=cls).read(np.zeros((800, 1000, 3), np.uint8))
    assert reading.sequence == " ".join(hand[:13]) + " | 2z"
    assert any("other side" in n for n in reading.notes)
    assert abs(reading.row_angle) < 90  # the owner at the photo's bottom


def test_hand_like_rows_count_face_down_tiles_little():
    """The owner's side is voted by the row the layout will take for the hand: a row of many
    face-down tiles (a wall) with some faces in line ranks below a shorter row of faces."""
    from vision.recognize import _hand_like_rows

    boxes = np.array(_level_row(0, 0, 18) + _level_row(0, 300, 14), float)
    labels = {k: "back" if k < 12 else "5m" if k < 16 else "1p" for k in range(18)}
    labels.update({18 + k: lab for k, lab in enumerate("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 2z 2z 2z".split())})
    wall, hand = tuple(range(18)), tuple(range(18, 32))
    assert _hand_like_rows(wall, [wall, hand], boxes, labels)[0] == hand
    # a tie keeps the row the photo was turned for first
    twin = {**labels, **{k: labels[18 + k] for k in range(14)}}
    first, second = tuple(range(14)), hand
    assert _hand_like_rows(second, [first, second], boxes, twin)[:2] == [second, first]
