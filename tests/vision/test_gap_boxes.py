"""A box the detector scores under its floor is read when it fills a gap in the hand row.

The middle one of three touching blank white dragons scores near the detector's floor (real-dev
`lietxia_70008812.jpg`: 0.256 at the photo's own size, 0.245 when the same photo comes at 12 MP,
which then lost the hand). `survey_photo` keeps boxes down to `GAP_CONF`; `_gap_boxes` adds one
only where it fills a gap between two row neighbours, in line with them and about a tile wide.
"""
from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np

from vision.pipeline import PhotoReader
from vision.recognize import GAP_CONF, _gap_boxes, _stacked_faint

from .fakes import LabelledFaces
from .test_layout import scene_from_sequence

HAND = "1m 2m 3m 4p 5p 6p 7s 8s 9s 5z 5z 5z 1z 1z".split()
ROW = [(200.0 + 42 * k, 600.0, 240.0 + 42 * k, 655.0) for k in range(14)]


class ScoredDetector:
    """Boxes with scores and a floor of its own, like `TileDetector`: `detect(image, conf=)`
    returns those scored at least `conf` (the floor by default)."""

    conf = 0.25

    def __init__(self, boxes, scores):
        self.boxes, self.scores = boxes, scores

    def detect(self, image, conf=None):
        floor = self.conf if conf is None else conf
        return [SimpleNamespace(x1=b[0], y1=b[1], x2=b[2], y2=b[3], score=s)
                for b, s in zip(self.boxes, self.scores) if s >= floor]


def read(scores, boxes=ROW, labels=HAND):
    reader = PhotoReader(detector=ScoredDetector(boxes, scores), classifier=LabelledFaces(boxes, labels))
    return reader.read(np.zeros((900, 1200, 3), np.uint8))


def test_the_faint_middle_white_is_read():
    scores = [0.9] * 14
    scores[10] = 0.2  # the middle 5z, under the floor
    reading = read(scores)
    assert reading.sequence == " ".join(HAND)


def test_a_box_under_gap_conf_is_not():
    scores = [0.9] * 14
    scores[10] = GAP_CONF / 2
    assert read(scores).sequence != " ".join(HAND)


def test_without_the_faint_box_the_hand_is_short():
    """The same photo with the box gone altogether: the reader cannot make a hand (what the rule
    saves)."""
    boxes = ROW[:10] + ROW[11:]
    labels = HAND[:10] + HAND[11:]
    assert read([0.9] * 13, boxes, labels).sequence != " ".join(HAND)


def frame(boxes):
    return np.array(boxes, float)


def test_gap_boxes_takes_only_a_tile_in_line_in_a_gap():
    row = [b for k, b in enumerate(ROW) if k != 5]
    fb = frame(row)
    idx = list(range(len(row)))
    gap = ROW[5]
    candidates = {
        "in the gap": gap,
        "off the line": (gap[0], gap[1] - 40, gap[2], gap[3] - 40),
        "too narrow": (gap[0] + 12, gap[1], gap[2] - 12, gap[3]),
        "too short": (gap[0], gap[1] + 20, gap[2], gap[3]),
        "beyond the row's end": (ROW[13][0] + 60, 600.0, ROW[13][2] + 60, 655.0),
        "over a found tile": ROW[2],
    }
    names = list(candidates)
    faint = frame([candidates[n] for n in names])
    chosen = _gap_boxes(fb, idx, faint, np.full(len(names), 0.2))
    assert [names[j] for j in chosen] == ["in the gap"]


def test_gap_boxes_one_per_place_surest_first():
    row = [b for k, b in enumerate(ROW) if k != 5]
    gap = ROW[5]
    faint = frame([gap, (gap[0] + 3, gap[1], gap[2] + 3, gap[3])])
    chosen = _gap_boxes(frame(row), list(range(len(row))), faint, np.array([0.12, 0.2]))
    assert chosen == [1]


def test_no_gap_no_box():
    """Touching neighbours leave no room: a faint box between them (a half of one) is not added."""
    fb = frame(ROW)
    faint = frame([(ROW[5][0] + 20, 600.0, ROW[5][2] + 20, 655.0)])
    assert _gap_boxes(fb, list(range(14)), faint, np.array([0.2])) == []


# After a second, closer detection (a far hand), a tile the first detection found and the second
# missed is taken from the first just beyond an end of the row (the drawn tile), not in a gap.

DRAWN = (200.0 + 42 * 13 + 20, 600.0, 240.0 + 42 * 13 + 20, 655.0)  # the 14th tile set apart


class CloserLookMisses:
    """A detector whose first look (`detect`) boxes every tile but whose second, closer look
    (`detect_turned`, the oracle seam of `recognize`) misses the tiles in `missed`. Its input is
    small (`imgsz`), so the hand's tiles look small and the reader looks again."""

    conf = 0.25
    imgsz = 320

    def __init__(self, boxes, missed):
        self.boxes, self.missed = boxes, set(missed)

    def detect(self, image, conf=None):
        return [SimpleNamespace(x1=b[0], y1=b[1], x2=b[2], y2=b[3], score=0.9) for b in self.boxes]

    def detect_turned(self, image, frame):
        kept = [b for k, b in enumerate(self.boxes) if k not in self.missed]
        return frame.boxes_to_frame(np.array(kept, float)), np.full(len(kept), 0.9)


def read_closer(missed, fill_ends=None, monkeypatch=None):
    boxes = ROW[:13] + [DRAWN]
    if fill_ends is not None:
        monkeypatch.setattr("vision.recognize.FILL_ENDS", fill_ends)
    reader = PhotoReader(detector=CloserLookMisses(boxes, missed), classifier=LabelledFaces(boxes, HAND))
    return reader.read(np.zeros((900, 1200, 3), np.uint8))


def test_the_drawn_tile_the_closer_look_missed_is_taken_from_the_first(monkeypatch):
    want = " ".join(HAND[:13]) + " | " + HAND[13]
    assert read_closer([]).sequence == want
    assert read_closer([13]).sequence == want
    assert read_closer([13], 0.0, monkeypatch).sequence != want  # what the rule saves


def test_a_gap_the_closer_look_left_is_not_filled_from_the_first():
    """Inside the row the closer look is trusted: a first-pass box in a gap there is as often a
    shadow or half a tile, and would close the gap that sets the drawn tile apart."""
    drawn = (ROW[12][2] + 60, 600.0, ROW[12][2] + 100, 655.0)
    boxes = ROW[:13] + [drawn]
    gap = (ROW[12][2] + 10, 600.0, ROW[12][2] + 50, 655.0)  # in the drawn tile's gap, first look only
    det = CloserLookMisses(boxes + [gap], missed=[14])
    reader = PhotoReader(detector=det, classifier=LabelledFaces(boxes + [gap], HAND + ["back"]))
    assert reader.read(np.zeros((900, 1200, 3), np.uint8)).sequence == " ".join(HAND[:13]) + " | " + HAND[13]


def test_gap_boxes_beyond_an_end_only_when_asked_near_and_in_line():
    fb = frame(ROW)
    w = ROW[0][2] - ROW[0][0]
    candidates = {
        "just beyond the end": (ROW[13][2] + 0.5 * w, 600.0, ROW[13][2] + 1.5 * w, 655.0),
        "before the start": (ROW[0][0] - 1.5 * w, 600.0, ROW[0][0] - 0.5 * w, 655.0),
        "far beyond the end": (ROW[13][2] + 3 * w, 600.0, ROW[13][2] + 4 * w, 655.0),
        "beyond, off the line": (ROW[13][2] + 0.5 * w, 540.0, ROW[13][2] + 1.5 * w, 595.0),
    }
    names = list(candidates)
    faint = frame([candidates[n] for n in names])
    assert _gap_boxes(fb, list(range(14)), faint, np.full(len(names), 0.5)) == []
    chosen = _gap_boxes(fb, list(range(14)), faint, np.full(len(names), 0.5), ends=1.2)
    assert sorted(names[j] for j in chosen) == ["before the start", "just beyond the end"]


# A closed kan's face-down tile the second, closer look scores under its floor (a back on a dark
# cloth, a pale back beside a white): in a gap of the row it is read, as the first pass's faint
# boxes are (`SECOND_GAP_CONF`), when the first pass boxed it too (`SEEN_BEFORE`): the closer look
# alone also faintly boxes the table between two melds (tune10_x3 #72: four phantom 6s).
# tune10_x3 #170 and #194 were read short of their closed kans.

KAN_HAND = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z".split() + ["back", "5z", "5z", "back"]
KAN_ROW = [(200.0 + 42 * k, 600.0, 240.0 + 42 * k, 655.0) for k in range(11)] + \
          [(200.0 + 42 * k + 20, 600.0, 240.0 + 42 * k + 20, 655.0) for k in range(11, 15)]


class CloserLookScores(CloserLookMisses):
    """As `CloserLookMisses`, but the closer look scores the tiles in `faint` at `score`, and
    `first_missed` are tiles the first look did not box at all."""

    def __init__(self, boxes, faint, score, first_missed=()):
        super().__init__(boxes, [])
        self.faint, self.score, self.first_missed = set(faint), score, set(first_missed)

    def detect(self, image, conf=None):
        return [b for k, b in enumerate(super().detect(image, conf)) if k not in self.first_missed]

    def detect_turned(self, image, frame):
        boxes, scores = super().detect_turned(image, frame)
        scores[list(self.faint)] = self.score
        return boxes, scores


def read_kan(faint, score, monkeypatch=None, second_gap_conf=None, first_missed=()):
    if second_gap_conf is not None:
        monkeypatch.setattr("vision.recognize.SECOND_GAP_CONF", second_gap_conf)
    det = CloserLookScores(KAN_ROW, faint, score, first_missed)
    reader = PhotoReader(detector=det, classifier=LabelledFaces(KAN_ROW, KAN_HAND))
    return reader.read(np.zeros((900, 1200, 3), np.uint8))


def test_a_faint_face_down_tile_of_the_closer_look_fills_its_gap(monkeypatch):
    want = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z | x 5z 5z x"
    assert read_kan([], 0.9).sequence == want
    assert read_kan([11], 0.2).sequence == want  # the kan's first back, between 1z and 5z
    assert read_kan([11], 0.2, monkeypatch, second_gap_conf=0.35).sequence != want  # what the rule saves


def test_a_box_of_the_closer_look_under_second_gap_conf_is_not_taken():
    from vision.recognize import SECOND_GAP_CONF
    assert read_kan([11], SECOND_GAP_CONF / 2).sequence != "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z | x 5z 5z x"


def test_a_faint_box_of_the_closer_look_alone_is_not_taken():
    """The same faint back, but the first pass never boxed it: no corroboration, no tile."""
    assert read_kan([11], 0.2, first_missed=[11]).sequence != "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z | x 5z 5z x"


def test_a_faint_box_of_the_closer_look_read_as_a_face_is_not_taken():
    """Both looks faintly box the table between the closed part and a pon (the gap is wider than
    a tile), and its crop reads as a face: left unread and out of the row, so the hand stays."""
    hand = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z".split() + ["5z", "5z", "5z"]
    row = ROW[:11] + [(200.0 + 42 * k + 50, 600.0, 240.0 + 42 * k + 50, 655.0) for k in range(11, 14)]
    gap = (ROW[10][2] + 5, 600.0, ROW[10][2] + 45, 655.0)  # the table between 1z and the pon
    det = CloserLookScores(row + [gap], faint=[14], score=0.2)

    def read_gap_as(label):
        faces = LabelledFaces(row + [gap], hand + [label])
        return PhotoReader(detector=det, classifier=faces).read(np.zeros((900, 1200, 3), np.uint8))

    want = " ".join(hand)
    assert PhotoReader(detector=CloserLookScores(row, [], 0.9), classifier=LabelledFaces(row, hand)) \
        .read(np.zeros((900, 1200, 3), np.uint8)).sequence == want  # (the scene without the box)
    reading = read_gap_as("6s")
    assert reading.sequence == want
    assert reading.tiles[14].label is None  # seen, not read
    # read face down, the same box is kept and read (as a closed kan's back would be); here the
    # reading step then leaves it out, as it does any faint back that makes no hand
    assert read_gap_as("back").tiles[14].label == "back"


# An added kan's stacked tile the second, closer look scores under its floor (the close-framed
# tune renders, session 28: the stacked tile is the kind the detector boxes least, and a kan read
# as a pon is a hand read wrong and sure). A faint box lying on a row tile where a stacked tile
# lies is taken (`STACK_FAINT`) when it and its base, both cut lying, read as one face.

KAKAN = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z | 5z- 5z= 5z 5z"


def kakan_scene():
    """Photo boxes and labels of KAKAN laid out as `scene_from_sequence` lays a hand (frame units,
    tile height 100) shrunk to the scale of ROW; the index of the stacked tile."""
    tiles = scene_from_sequence(KAKAN, rng=random.Random(5))
    boxes = [(200 + 0.55 * t.box[0], 655 + 0.55 * t.box[1], 200 + 0.55 * t.box[2], 655 + 0.55 * t.box[3]) for t in tiles]
    stacked = min((i for i, t in enumerate(tiles) if t.label == "5z"), key=lambda i: tiles[i].box[1])
    return boxes, [t.label for t in tiles], stacked


def read_kakan(score, labels=None, monkeypatch=None, stack_faint=None):
    if stack_faint is not None:
        monkeypatch.setattr("vision.recognize.STACK_FAINT", stack_faint)
    boxes, hand, stacked = kakan_scene()
    det = CloserLookScores(boxes, [stacked], score)
    reader = PhotoReader(detector=det, classifier=LabelledFaces(boxes, labels or hand))
    return reader.read(np.zeros((900, 1200, 3), np.uint8)), stacked


def test_a_faint_stacked_tile_of_the_closer_look_is_read(monkeypatch):
    assert read_kakan(0.9)[0].sequence == KAKAN
    assert read_kakan(0.2)[0].sequence == KAKAN
    without, _ = read_kakan(0.2, monkeypatch=monkeypatch, stack_faint=False)
    assert without.sequence == "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z | 5z- 5z 5z"  # a pon: what the rule saves


def test_a_faint_stacked_box_read_as_another_face_is_not_taken():
    """A faint box on the meld that reads as another face than its base (a discard behind it, the
    table) or face down is not taken: the meld stays a pon, and the reading has no box there."""
    boxes, hand, stacked = kakan_scene()
    for other in ("3p", "back"):
        labels = list(hand)
        labels[stacked] = other
        reading, _ = read_kakan(0.2, labels)
        assert reading.sequence == "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z | 5z- 5z 5z"
        assert len(reading.tiles) == len(boxes) - 1


def test_stacked_faint_takes_a_box_on_a_row_tile_only():
    row = [(200.0 + 42 * k, 600.0, 240.0 + 42 * k, 655.0) for k in range(6)]
    fb = frame(row)
    candidates = {
        "on the 4th tile": (326.0, 560.0, 366.0, 598.0),
        "far above it": (326.0, 420.0, 366.0, 458.0),
        "above, beyond the row's end": (460.0, 560.0, 500.0, 598.0),
        "in the row": (326.0, 600.0, 366.0, 655.0),
    }
    names = list(candidates)
    pairs = _stacked_faint(fb, list(range(6)), frame([candidates[n] for n in names]), np.full(len(names), 0.2))
    assert [(names[j], base) for j, base in pairs] == [("on the 4th tile", 3)]
