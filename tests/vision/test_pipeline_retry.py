"""The reader's second look at another row reuses the first look's survey of the photo.

When the likeliest row makes no hand, `PhotoReader` turns the photo to the next row at another
angle; the photo's boxes, rows and first-pass classes are the same, so the detector is not run on
the photo again (only on a turned copy, when that row is tilted).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from vision.classes import CLASS_INDEX, TILE_CLASSES
from vision.pipeline import PhotoReader
from vision.recognize import recognize

from .fakes import LabelledFaces


class CountingDetector:
    """A level row of 14 tiles and, at its left, a column of 7 (a row at 90°)."""

    def __init__(self):
        self.calls = 0
        self.boxes = [(200 + 42 * k, 600, 240 + 42 * k, 655) for k in range(14)]
        self.boxes += [(60, 100 + 42 * k, 115, 140 + 42 * k) for k in range(7)]

    def detect(self, image):
        self.calls += 1
        return [SimpleNamespace(x1=b[0], y1=b[1], x2=b[2], y2=b[3], score=0.9) for b in self.boxes]


class OneFace:
    """Reads every crop as the same face (so no row makes a hand: five of a kind)."""

    def __init__(self):
        self.crops = 0

    def classify(self, crops):
        self.crops += len(crops)
        probs = np.full((len(crops), len(TILE_CLASSES)), 0.01 / (len(TILE_CLASSES) - 1), np.float32)
        probs[:, CLASS_INDEX["1m"]] = 0.99
        return probs, np.tile(np.array([[0.95, 0.05]], np.float32), (len(crops), 1))


def test_second_row_reuses_the_survey():
    image = np.zeros((800, 1000, 3), np.uint8)
    det, cls = CountingDetector(), OneFace()
    rec = recognize(image, det, cls)
    assert rec.other_rows >= 1 and rec.survey is not None
    rec2 = recognize(image, det, cls, row_rank=1, survey=rec.survey)
    assert det.calls == 1
    assert abs(((rec2.frame.angle - rec.frame.angle) + 90) % 180 - 90) > 45  # the other row
    assert len(rec2.tiles) == len(rec.tiles)


def test_reader_surveys_the_photo_once_when_it_tries_another_row():
    image = np.zeros((800, 1000, 3), np.uint8)
    first, second = OneFace(), OneFace()
    rec = recognize(image, CountingDetector(), first)
    recognize(image, CountingDetector(), second, row_rank=1, survey=rec.survey)
    det, cls = CountingDetector(), OneFace()
    reading = PhotoReader(detector=det, classifier=cls).read(image)
    assert reading.hand is None  # both rows read as 1m only: no hand, and both were tried
    assert det.calls == 1
    # the crops of both looks, but the first pass (telling backs from faces) only once
    assert cls.crops == first.crops + second.crops


def test_reader_tries_every_row_at_another_angle_until_one_makes_a_hand():
    """Two longer rows at other angles make no hand (discards, another player's tiles); the hand
    lies in the third likeliest row (seen on tune renders, 700695: two chains of discards)."""
    column = [(1300, 100 + 42 * k, 1355, 140 + 42 * k) for k in range(16)]
    a = np.radians(8.0)  # a second column, leaning
    leaning = [(1000 + 42 * k * np.sin(a), 100 + 42 * k * np.cos(a)) for k in range(15)]
    leaning = [(x, y, x + 55, y + 40) for x, y in leaning]
    hand_boxes = [(100 + 42 * k + (18 if k == 13 else 0), 900, 140 + 42 * k + (18 if k == 13 else 0), 955) for k in range(14)]
    hand = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 2z 2z 2z".split()
    boxes = column + leaning + hand_boxes
    scattered = "1m 4m 7m 2p 5p 8p 3s 6s 9s 1z 2z 3z 4z 5z 6z 7z".split()  # no two of a set
    labels = scattered + scattered[::-1][:15] + hand
    det = CountingDetector()
    det.boxes = boxes
    reader = PhotoReader(detector=det, classifier=LabelledFaces(boxes, labels))
    reading = reader.read(np.zeros((1100, 1400, 3), np.uint8))
    assert reading.sequence == " ".join(hand[:13]) + " | 2z"
    assert any("another row" in n for n in reading.notes)
    assert det.calls == 1


def test_reader_tries_a_level_row_beyond_a_much_longer_one():
    """Another player's hand and discards in one long line, level with the hand but far from it,
    outscore it so much that the hand's tiles are not classified in the first look; the reader
    turns the photo to the hand row and reads it (tune render 800692)."""
    long_row = [(100 + 42 * k, 100, 140 + 42 * k, 155) for k in range(25)]
    hand_boxes = [(100 + 42 * k + (18 if k == 13 else 0), 700, 140 + 42 * k + (18 if k == 13 else 0), 755) for k in range(14)]
    hand = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 2z 2z 2z".split()
    scattered = "1m 4m 7m 2p 5p 8p 3s 6s 9s 1z 2z 3z 4z 5z 6z 7z".split()
    boxes = long_row + hand_boxes
    labels = (scattered + scattered)[:25] + hand
    det = CountingDetector()
    det.boxes = boxes
    reading = PhotoReader(detector=det, classifier=LabelledFaces(boxes, labels)).read(np.zeros((1000, 1400, 3), np.uint8))
    assert reading.sequence == " ".join(hand[:13]) + " | 2z"
    assert any("another row" in n for n in reading.notes)
    assert det.calls == 1
