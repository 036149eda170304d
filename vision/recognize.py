"""Tile boxes → read tiles in the hand's own frame: the recogniser's steps, in order.

detect → row → frame → classify. The detector gives axis-aligned boxes in the photo, whatever way
the phone was held. Here we find the hand row among them (`vision.rows`: the longest line of
similar, touching tiles), turn the photo so that row runs left to right (`vision.frame`), detect
again on the turned photo when the row is tilted or small, decide for each tile whether it lies
sideways (`vision.sideways`), crop it upright and classify it. The classifier's second head says
whether a face is upside down; the majority over the row tells which side of the row its owner
sits on, so a photo taken from across the table (or upside down) reads like an upright one.
Those three modules are box and pixel geometry alone; here stay the detector's and classifier's
passes and the rules between them (faint boxes filling the row's gaps, the owner's side).

Output: one `TileDetection` per detected tile, with its box in the photo *and* in the hand frame
(row horizontal, owner at the bottom, photo pixel units) for `vision.layout`.
"""
from __future__ import annotations

import functools
import math
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Protocol, Sequence

import cv2
import numpy as np

# (`vision.frame.REGION_SIDE` and `vision.sideways`' pair constants are read here through their module,
# so a sweep or a test that sets one there changes what this module reads too)
import vision.frame
import vision.sideways
from vision.boxes import box_areas, intersections, long_sides
from vision.classes import BACK, CLASS_INDEX, HALF_TURN_SYMMETRIC, SUITS, TILE_CLASSES, plain
from vision.detect import STRIDE, PartRule, drop_parts
from vision.frame import BoxT, Frame, extract_patch, frame_box_to_photo_box, turn_frame, turned_boxes, turned_view
from vision.perspective import rectified_view, row_shrink, shrink_ratio
from vision.rows import Row, find_rows, longest_run, row_lines
from vision.sideways import on_base, pair_boxes, sideways_flags, stack_bases


@dataclass(frozen=True)
class Candidate:
    label: str
    prob: float


@dataclass(frozen=True)
class TileDetection:
    """One tile as read: where it is, what it is, how it lies, how sure we are.

    `rotation` is the clockwise turn of the face's up from the owner's up (the hand frame's −y):
    0 upright, 180 upside down, 270 lying sideways with its top to the left (the usual way a
    called tile lies), 90 sideways with its top to the right. `label` is None for a tile that was
    detected but not classified (far from the hand; see `recognize(classify_all=...)`).
    """

    box: BoxT  # photo pixels (x1, y1, x2, y2), as loaded (EXIF-oriented)
    frame_box: BoxT  # hand frame: row along +x, owner towards +y, photo pixel units
    label: str | None
    rotation: int = 0
    confidence: float = 1.0
    candidates: tuple[Candidate, ...] = ()
    det_score: float = 1.0
    # the top-k read from a crop turned the other way (sideways ↔ upright), when both ways were
    # read (see `recognize`): the layout may decide the tile lies the other way than it looked
    turned_candidates: tuple[Candidate, ...] = ()
    # log-odds that the tile lies sideways, from its shape (and both crops' reads when both were
    # read); None when unknown. The layout weighs it where a tile's place makes one way likelier.
    side_odds: float | None = None

    @property
    def sideways(self) -> bool:
        return self.rotation in (90, 270)

    @property
    def face_down(self) -> bool:
        return self.label == BACK

    @property
    def centre(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.frame_box
        return (x1 + x2) / 2, (y1 + y2) / 2

    @property
    def size(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.frame_box
        return x2 - x1, y2 - y1

    def turned_read(self) -> "TileDetection":
        """The tile read as lying the other way (its other crop's classes), if that was read."""
        if not self.turned_candidates:
            return self
        top = self.turned_candidates[0]
        return replace(self, label=top.label, confidence=top.prob, candidates=self.turned_candidates,
                       turned_candidates=self.candidates)

    def prob(self, label: str) -> float:
        """The classifier's probability of `label` among the candidates (0 when not among them)."""
        return next((c.prob for c in self.candidates if c.label == label), 0.0)

    def with_label(self, label: str) -> "TileDetection":
        return replace(self, label=label, confidence=self.prob(label))


# a row box that may hold an added kan's two tiles, and its two parts read apart (see `pair_boxes`)
Pair = tuple[int, TileDetection, TileDetection]


# --------------------------------------------------------------------------------------------
# Detect → deskew → classify


class Detector(Protocol):
    """`vision.detect.TileDetector`: `detect(image)` → objects with x1, y1, x2, y2, score. An
    object may also offer `detect_turned(image, frame) -> (frame boxes, scores)` (test oracles),
    and `imgsz`, its input size: a hand whose tiles are small in it is then detected again closer, and
    `detect(image, imgsz=...)` is then asked for a larger input when the closer cut has the pixels
    (SECOND_MAX_IMGSZ); one with `conf`, its score floor, is asked `detect(image, conf=...)`."""

    def detect(self, image: np.ndarray) -> list: ...


class Classifier(Protocol):
    """`vision.classify.TileClassifier`. An object may instead offer
    `classify_tiles(image, frame, frame_boxes, sideways) -> (probs, flip)` (tests use an oracle
    that reads the renderer's labels this way)."""

    def classify(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass
class Recognition:
    """Everything `recognize` found, in one value for the layout step."""

    tiles: list[TileDetection]
    frame: Frame
    row: tuple[int, ...]  # indices of the row used to set the frame (a hint for layout)
    image_size: tuple[int, int]  # (width, height)
    timings: dict[str, float] = field(default_factory=dict)  # milliseconds
    other_rows: int = 0  # other rows that could be the hand, tried when it makes none (see `recognize(row_rank=)`)
    survey: "Survey | None" = None  # the photo's boxes, rows and first-pass classes (for another row)
    # another level row that could be the hand, whose own faces say its owner sits on the other
    # side (its tiles; see `turned_around`: the reader reads it so when the hand is not found
    # elsewhere)
    other_side: tuple[int, ...] = ()
    # row boxes that may hold an added kan's two tiles boxed as one (see `pair_boxes`), read apart
    # on the first call (the reading step asks only when no reading is sure): (the box's index, its
    # lower part read as the sideways tile, its upper part read as the tile added on it)
    read_pairs: Callable[[], tuple[Pair, ...]] = tuple
    # the hand row's tight boxes (frame units, before levelling) when its tiles shrink along it (RECTIFY_ABOVE):
    # a rectified closer look (`recognize(rectify=...)`) may read it better
    steep_row: np.ndarray | None = None

    @property
    def steep(self) -> bool:
        return self.steep_row is not None

    def turned_around(self) -> "Recognition":
        """The same tiles read with the owner on the other side of the row: the frame turned by
        180°, every tile's face turned with it (the classes do not change). (An added kan's tile
        lies beyond its base from the owner: the pairs, split for this side, are not kept.)"""
        tiles = [replace(t, frame_box=(-t.frame_box[2], -t.frame_box[3], -t.frame_box[0], -t.frame_box[1]),
                         rotation=(t.rotation + 180) % 360 if t.label is not None else t.rotation)
                 for t in self.tiles]
        return replace(self, tiles=tiles, frame=self.frame.turned(180.0), other_side=(), read_pairs=tuple)


@dataclass(frozen=True)
class Survey:
    """The part of `recognize` that does not depend on which row is the hand: the photo's boxes
    (tidied), its rows ranked with face-down tiles counting little, and the first pass's
    classes (tile index → (probs, flip)); read-only once made."""

    photo_boxes: np.ndarray
    scores: np.ndarray
    rows: list[Row]
    p_back: np.ndarray
    first_pass: dict
    timings: dict
    # boxes scored under the detector's floor but at least GAP_CONF (photo px, scores): a tile
    # the detector barely sees may fill a gap in the hand row (see `_gap_boxes`)
    faint_boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    faint_scores: np.ndarray = field(default_factory=lambda: np.zeros(0))


REDETECT_ABOVE = 10.0  # residual tilt (degrees) beyond which we detect again on a turned image
# The second detection searches the turned photo only around the hand row: beyond each end by
# 2 tiles + 15 % of the row's length, above and below by 2.5 tiles. Chosen end to end with the
# shipped models on 283 tune renders (seeds 800000+): 135 → 149 read exactly (a margin of 3 tiles
# + 30 %: 133; 1 tile + 5 %: 150); on det_test_h (150 held-out renders) 54 → 64.
HAND_REGION = (2.0, 0.15, 2.5)
# A level row is detected again too when its tiles' long side is under this many px in the
# detector's input (a hand far from the camera): the hand's neighbourhood then fills the input.
# Chosen end to end with the shipped models (ft4 e1 + run 8 e4) on tune renders: 300 of seeds
# 800000+ read exactly 187 → 194 (30 px), 196 (40, 55, 80 px); 300 of seeds 700000+ 189 → 204
# (40 px); held-out det_test_h 76 → 81/150; real-dev 4/4 (its rows, 40–55 px, are not looked at again).
ZOOM_BELOW = 40.0
# The second detection keeps boxes scored at least this (the first keeps the model's 0.25): the
# hand is larger there and true tiles score high, while the extra low boxes (halves of tiles,
# shadows) misled the layout. Shipped models on the same tune renders: 300 of seeds 700000+
# 204 → 215 (0.35 and 0.45; 0.55: 195), 300 of seeds 800000+ 193 → 206 (0.45: 204).
SECOND_CONF = 0.35
# The second detection's input grows with the pixels the cut has, up to this (its long side rounded
# up to 32; never smaller than the detector's own 512): a phone photo's hand cut at up to
# REGION_SIDE px then keeps detail a 512 input throws away, while a small photo's cut (already at or
# under 512) is seen as before. Session 19, shipped models, one sweep each (0 = off): tune9_x3
# (3×) 138 → 146/200 (768: 144), tune9 273 → 273/400 (768: 268); then read once on the gates:
# det_test_x3g 220 → 236/300 (25 gained, 9 lost), det_test_x1g 200 → 205, det_test_h 102 → 104/150;
# real-dev 4/4 at every size; reader time on det_test_x3g (2 threads, 60 photos) median 148 → 149 ms.
SECOND_MAX_IMGSZ = 640
# A row whose tiles shrink along it (near over far height, fitted to its tightest boxes: the closer
# look's, or a level row's first-pass boxes) by more than RECTIFY_ABOVE and less than RECTIFY_BELOW is
# steep (`Recognition.steep`): a hand seen along its length from a seat beside it. The reader reads
# an unsure steep row again with the closer look rectified (`vision.perspective`). 0: never.
# Session 49, shipped models, one sweep of the five tune sets (tune9 / plaid / tune9_x3 / tune10_x3 /
# close): 0 → 319 / 170 / 172 / 258 / 155 = 1 074; 1.3 → 1 078 (plaid −1); 1.5 → 1 078; 1.8 → 321 /
# 170 / 172 / 260 / 156 = 1 079 (6 gained, 1 lost; docs/vision.md, session 49).
RECTIFY_ABOVE = 1.8
RECTIFY_BELOW = 4.0
FRAME_TILT = 12.0  # the hand row, once turned level, leans less than this
# A box the detector scores under its floor (0.25) but at least this is added when it fills a gap
# in the hand row (see `_gap_boxes`): the middle one of touching blank white dragons scores near
# the floor (real-dev: 0.256 at the photo's size, 0.245 when the same photo is sent at 12 MP).
GAP_CONF = 0.1
SYMMETRIC_OR_BACK = np.array([c in HALF_TURN_SYMMETRIC or c == BACK for c in TILE_CLASSES])
PHOTO_UP_PRIOR = 2.0  # log-odds for the owner sitting at the photo's bottom edge (see the vote)
SORT_WEIGHT = 1.0  # log-odds per pair of row neighbours of one suit in rising (or falling) order
# How much "which way reads surer" weighs against the shape: log-odds per unit of
# log(top p of the sideways crop / top p of the upright crop). Fitted with the shipped classifier
# (run 6) on the hand-row tiles of 851 tune renders (seeds 800000+, oracle boxes): 4.3 against
# the shape's 1.05 (errors 128 → 85 of 11 838 tiles; at the row's ends 4.1, 38 → 32 of 1 480).
# A crop turned the wrong way reads less surely (sideways tiles: median ratio +0.32, upright −0.28).
CROP_WEIGHT = 4.0
# Classes kept per crop for the reading step, which may swap a tile for a runner-up to make a legal
# hand (the JSON shows the first `reading.SHOWN_CANDIDATES`). Measured with the reading step on the
# cached tune recognitions (o5 + t5 + t6, 1 853 renders): top 3 → 1 361, 4 → 1 365, 5 → 1 378,
# 6 → 1 381, 8 → 1 383 (31 gained, 9 lost), 10 → 1 385 read exactly: kept at 8, past which the
# gain flattens while the search and the recognition object grow.
TOP_K = 8


def _split_pairs(classifier: Classifier, image: np.ndarray, frame: Frame, frame_boxes: np.ndarray,
                 found: Sequence[int], scores: np.ndarray) -> tuple[Pair, ...]:
    """Each of the boxes `found` (`pair_boxes`; frame: owner towards +y) read as an added kan's
    base and the tile on it."""
    parts = []
    for i in found:
        x1, y1, x2, y2 = frame_boxes[i]
        h = y2 - y1
        parts += [(x1, y2 - vision.sideways.PAIR_BASE * h, x2, y2), (x1, y1, x2, y1 + vision.sideways.PAIR_TOP * h)]
    parts_fb = np.array(parts, float)
    probs, flips = _classify(classifier, image, frame, parts_fb, np.ones(len(parts_fb), bool))
    out = []
    for n, i in enumerate(found):
        read = []
        for j in (2 * n, 2 * n + 1):
            cands = _top_candidates(probs[j])
            fbox = tuple(float(v) for v in parts_fb[j])
            read.append(TileDetection(frame_box_to_photo_box(frame, fbox), fbox, cands[0].label,
                                      90 if flips[j][1] > flips[j][0] else 270, cands[0].prob, cands,
                                      float(scores[i]), side_odds=vision.sideways.SURE_SIDEWAYS))
        out.append((i, read[0], read[1]))
    return tuple(out)


def _top_candidates(probs: np.ndarray) -> tuple[Candidate, ...]:
    """A tile's TOP_K likeliest classes, likeliest first, from the classifier's probabilities."""
    return tuple(Candidate(TILE_CLASSES[int(c)], float(probs[c])) for c in np.argsort(-probs)[:TOP_K])


def _near_row(frame_boxes: np.ndarray, row: Sequence[int], reach: float = 3.3,
              along: bool = False) -> np.ndarray:
    """Tiles whose centre lies within `reach` long sides of the row: close enough to matter
    (stacked kan tiles, the drawn tile, nuki-dora). `along`: anywhere along the row, only the
    distance from its level counts (the row's band)."""
    rb = frame_boxes[list(row)]
    long_side = float(np.median(long_sides(rb)))
    yc = float(np.median((rb[:, 1] + rb[:, 3]) / 2))
    near = np.abs((frame_boxes[:, 1] + frame_boxes[:, 3]) / 2 - yc) < reach * long_side
    if along:
        return near
    x1, x2 = rb[:, 0].min() - reach * long_side, rb[:, 2].max() + reach * long_side
    cx = (frame_boxes[:, 0] + frame_boxes[:, 2]) / 2
    return near & (cx > x1) & (cx < x2)


def _second_floor(detector: Detector) -> float | None:
    """The score a second detection's box needs to count as sure: the detector's own threshold, at
    least SECOND_CONF (None: a detector without a threshold of its own, whose boxes all count)."""
    floor = getattr(detector, "conf", None)
    return None if floor is None else max(floor, SECOND_CONF)


def _redetect_turned(image: np.ndarray, detector: Detector, frame: Frame,
                     max_side: int = 1600, region: Sequence[float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Detect again on a copy turned into the frame (`turned_view`): boxes come back tight, in
    frame units, scored at least SECOND_CONF, or SECOND_GAP_CONF for the faint ones `recognize`
    keeps apart; the hand's cut (`region`) at an input as large as it is, up to SECOND_MAX_IMGSZ
    (the whole turned canvas at the detector's own size)."""
    view = turned_view(image, frame, max_side, region)
    if view is None:
        return np.zeros((0, 4)), np.zeros(0)
    fb, sc = _detect_view(detector, view.image, cut=region is not None)
    return view.to_frame(fb), sc


def _detect_view(detector: Detector, view: np.ndarray, cut: bool) -> tuple[np.ndarray, np.ndarray]:
    """The second detection's boxes (view pixels) and scores on `view`: scored at least SECOND_GAP_CONF
    (or the detector's floor), and a hand's `cut` seen at an input as large as it is, up to SECOND_MAX_IMGSZ."""
    floor = _second_floor(detector)
    kw: dict[str, float] = {} if floor is None else {"conf": min(SECOND_GAP_CONF, floor)}
    own, side = getattr(detector, "imgsz", None), max(view.shape[:2])
    if cut and own and side > own and SECOND_MAX_IMGSZ > own:  # (the hand's cut, by a detector with an input size)
        kw["imgsz"] = int(min(SECOND_MAX_IMGSZ, -(-side // STRIDE) * STRIDE))
    boxes = detector.detect(view, **kw)
    fb = np.array([[b.x1, b.y1, b.x2, b.y2] for b in boxes], float).reshape(-1, 4)
    return fb, np.array([b.score for b in boxes], float)


def _steep(row_boxes: np.ndarray) -> bool:
    """Do the row's tiles shrink along it by more than RECTIFY_ABOVE (near over far height)?"""
    if not RECTIFY_ABOVE:
        return False
    shrink = row_shrink(row_boxes)
    return shrink is not None and RECTIFY_ABOVE < shrink_ratio(shrink, row_boxes) < RECTIFY_BELOW


def _row_among(boxes: np.ndarray, scores: np.ndarray, floor: float | None, chosen: np.ndarray) -> np.ndarray:
    """The sure boxes (frame units) of the level row holding most of the `chosen` centres (the row the
    photo was turned for): the closer look's row, before `recognize` finds it again for the layout."""
    sure = boxes[scores >= (-np.inf if floor is None else floor)]
    rows = find_rows(sure, max_tilt=FRAME_TILT, limit=6)
    if not rows:
        return np.zeros((0, 4))
    return sure[list(max(rows, key=lambda r: _shared(sure[list(r.indices)], chosen)).indices)]


def _redetect_rectified(image: np.ndarray, detector: Detector, frame: Frame,
                        row_boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The second detection on the hand's neighbourhood rectified (`vision.perspective`) so the
    row's tiles (`row_boxes`, tight, frame units) are one size: boxes in frame units, as
    `_redetect_turned` gives them. None: no view of it."""
    shrink = row_shrink(row_boxes)
    if shrink is None:
        return None
    view = rectified_view(image, frame.affine, shrink, row_boxes, hand_region, vision.frame.REGION_SIDE)
    if view is None:
        return None
    fb, sc = _detect_view(detector, view.image, cut=True)
    return view.to_frame(fb), sc


def _gap_boxes(frame_boxes: np.ndarray, row: Sequence[int], faint: np.ndarray, faint_scores: np.ndarray,
               ends: float = 0.0) -> list[int]:
    """Faint boxes (frame units) that fill a gap between two neighbours of the row: as tall as
    they are and in line with them, about a tile wide, centred in the gap with room for most of
    it, overlapping no box already found by much. Surest first, one per place. Why: the detector scores a featureless
    tile between two like it (touching blank white dragons) near its floor, and a hand with a
    tile missing cannot be read, while a gap inside the row is rarely empty table.
    `ends` > 0 takes boxes beyond the row's ends instead, in line with the end tile and at most
    that many tile widths from it (see `FILL_ENDS`)."""
    if len(row) < 3 or not len(faint):
        return []
    rb = frame_boxes[sorted(row, key=lambda i: frame_boxes[i, 0])]
    unit_w = float(np.median(rb[:, 2] - rb[:, 0]))
    taken = list(frame_boxes)
    chosen: list[int] = []
    for j in np.argsort(-faint_scores):
        b = faint[j]
        bw, bh, cx, cy = b[2] - b[0], b[3] - b[1], (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        if not 0.6 * unit_w <= bw <= 1.5 * unit_w:
            continue
        left = [k for k in range(len(rb)) if (rb[k, 0] + rb[k, 2]) / 2 < cx]
        right = [k for k in range(len(rb)) if (rb[k, 0] + rb[k, 2]) / 2 >= cx]
        if ends:  # beyond an end of the row, near it
            if left and right:
                continue
            a = rb[left[-1]] if left else rb[right[0]]
            h = a[3] - a[1]
            reach = b[0] - a[2] if left else a[0] - b[2]
            if not (0.7 * h <= bh <= 1.4 * h and abs(cy - (a[1] + a[3]) / 2) <= 0.3 * h
                    and -0.3 * bw <= reach <= ends * unit_w):
                continue
        else:
            if not left or not right:
                continue
            a, c = rb[left[-1]], rb[right[0]]
            h = ((a[3] - a[1]) + (c[3] - c[1])) / 2
            if not (0.7 * h <= bh <= 1.4 * h and abs(cy - ((a[1] + a[3]) + (c[1] + c[3])) / 4) <= 0.3 * h):
                continue
            # its centre in the gap, and room for most of a tile there (the neighbours' boxes of
            # touching tiles often reach into it: real-dev's 12-MP white overlaps one by 0.4 width)
            if not a[2] <= cx <= c[0] or c[0] - a[2] < 0.4 * bw:
                continue
        if intersections(b, np.array(taken)).max(initial=0.0) > 0.45 * bw * bh:
            continue
        chosen.append(int(j))
        taken.append(b)
    return chosen


# After a second detection, a box of the first in line with the row beyond an end, up to this
# many tiles' widths away, is added (0: none). tune9 with the shipped pair: 265 → 267/400
# (renders 96, 97: a drawn tile the closer look missed; 0.6: 266, 2: 267); filling gaps inside
# the row from the first pass too reads 267 as well, but closes the drawn tile's gap on held-out
# renders (det_test_h 55: a 0.28 box between the row and the drawn 9p), so it does not.
FILL_ENDS = 1.2
# After a second detection, its boxes scored at least this (and under its floor, SECOND_CONF) fill
# gaps inside the row as the first pass's faint boxes do, when the first pass boxed them too
# (SEEN_BEFORE) and they read face down: a closed kan's back on a dark cloth or beside a white, which
# a closer look scores low. Phantom boxes on the table between two melds are why both checks are
# there. SECOND_CONF or more: never. "Boxed too": a first-pass box centred within SEEN_BEFORE of the
# faint box's width.
SECOND_GAP_CONF = 0.1
SEEN_BEFORE = 0.35


def _grown(have: tuple, frame_boxes: np.ndarray, photo_boxes: np.ndarray, scores: np.ndarray,
           p_back: np.ndarray, *, in_row: bool = True) -> tuple:
    """(frame boxes, photo boxes, scores, p_back, row) with these boxes added to them, and to the row
    unless `in_row` is False (an added kan's stacked tile lies off it)."""
    fb, pb, sc, pk, row = have
    n0 = len(fb)
    added = tuple(range(n0, n0 + len(frame_boxes))) if in_row else ()
    return (np.vstack([fb, frame_boxes]), np.vstack([pb, photo_boxes]), np.concatenate([sc, scores]),
            np.concatenate([pk, p_back]), tuple(row) + added)


def _seen_before(faint: tuple[np.ndarray, np.ndarray], frame: Frame, survey: Survey) -> tuple[np.ndarray, np.ndarray]:
    """The second detection's faint boxes (frame units) that the first pass boxed too, surely or
    faintly: a centre within SEEN_BEFORE of a box width of one of its boxes' centres."""
    boxes, scores = faint
    first = np.vstack([survey.photo_boxes.reshape(-1, 4), survey.faint_boxes.reshape(-1, 4)])
    if not len(first) or not len(boxes):
        return boxes[:0], scores[:0]
    centres = frame.to_frame((first[:, :2] + first[:, 2:]) / 2)
    mine = (boxes[:, :2] + boxes[:, 2:]) / 2
    dist = np.linalg.norm(mine[:, None] - centres[None], axis=2).min(axis=1)
    keep = dist <= SEEN_BEFORE * (boxes[:, 2] - boxes[:, 0])
    return boxes[keep], scores[keep]


# After a second detection, its faint boxes (SECOND_GAP_CONF up to its floor) may also be an added
# kan's stacked tile, lying on a tile of the row (`on_base`). A closer look scores that tile low
# when it lies on its base seen nearly end on (the close-framed renders, session 28: the stacked
# tile is the kind the detector boxes least, and a kan read as a pon is read wrong and sure). Such
# a box is taken only when it and its base, both cut lying, read as one face (`recognize`), so the
# table or a wall behind a meld is not taken for it; at most MAX_STACK_FAINT of them.
STACK_FAINT = True
MAX_STACK_FAINT = 2


def _stacked_faint(frame_boxes: np.ndarray, row: Sequence[int], faint: np.ndarray,
                   faint_scores: np.ndarray) -> list[tuple[int, int]]:
    """(faint box, its base) pairs: a faint box (frame units) lying on the row tile it overlaps most
    (`on_base`), which no found box lies on yet, overlapping no row box by much and hardly any box
    off the row (a stacked tile found already). Surest first, one per base. (Any row tile: before
    its crop is read, a sideways tile's shape often says upright.)"""
    if len(row) < 3 or not len(faint):
        return []
    row = [int(k) for k in row]
    row_boxes = frame_boxes[row]
    taken = [b for k, b in enumerate(frame_boxes) if k not in row]  # (off the row: a stacked tile found)
    # (not a base a found box already lies on within a tile's height: its stacked tile is found)
    bases = [b for b in row if not on_base(frame_boxes, frame_boxes[b], 1.2).any()]
    out: list[tuple[int, int]] = []
    for j in np.argsort(-faint_scores):
        b = faint[j]
        area = (b[2] - b[0]) * (b[3] - b[1])
        if (intersections(b, row_boxes).max(initial=0.0) > 0.45 * area
                or intersections(b, np.array(taken).reshape(-1, 4)).max(initial=0.0) > 0.2 * area):
            continue
        # (on the row tile it overlaps most along the row, as `vision.layout` pairs a stacked tile)
        base = row[int(np.argmax(np.minimum(b[2], row_boxes[:, 2]) - np.maximum(b[0], row_boxes[:, 0])))]
        if base in bases and on_base(faint[j:j + 1], frame_boxes[base])[0]:
            out.append((int(j), base))
            bases.remove(base)
            taken.append(b)
    # (a hand has few added kans: faint boxes over many row tiles are their tops, or a wall behind)
    return out if len(out) <= MAX_STACK_FAINT else []


def _tile_sized(boxes: np.ndarray, row_boxes: np.ndarray) -> np.ndarray:
    """Boxes (frame units) as large as the row's tiles, around their own centres: a photo-axis
    box turned into a turned frame is the box around a turned box, larger than the tile."""
    if not len(boxes) or not len(row_boxes):
        return boxes
    half = np.median(row_boxes[:, 2:] - row_boxes[:, :2], axis=0) / 2
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    return np.hstack([centres - half, centres + half])


def _small_for(detector: Detector, row_boxes: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Are the row's tiles so small in the detector's input that a closer look finds them better?
    (Only a detector with an input size can say; the second detection then searches the hand's
    neighbourhood, which fills the input.)"""
    imgsz = getattr(detector, "imgsz", None)
    if not imgsz or len(row_boxes) < 3:
        return False
    long_side = float(np.median(long_sides(row_boxes)))
    return long_side * imgsz / max(shape[:2]) < ZOOM_BELOW


def hand_region(row_boxes: np.ndarray) -> tuple[float, float, float, float] | None:
    """The part of the turned photo worth detecting again: the row, far melds beyond its ends
    and tiles set above or below it, with room to spare (frame units). None: the whole canvas."""
    if len(row_boxes) < 3:
        return None
    unit = float(np.median(long_sides(row_boxes)))
    x1, y1 = row_boxes[:, 0].min(), row_boxes[:, 1].min()
    x2, y2 = row_boxes[:, 2].max(), row_boxes[:, 3].max()
    dx = HAND_REGION[0] * unit + HAND_REGION[1] * (x2 - x1)
    dy = HAND_REGION[2] * unit
    return (x1 - dx, y1 - dy, x2 + dx, y2 + dy)


def _shared(boxes: np.ndarray, centres: np.ndarray) -> int:
    """How many of these boxes hold one of the centres (tiles of a row found before)."""
    inside = ((centres[None, :, 0] > boxes[:, None, 0]) & (centres[None, :, 0] < boxes[:, None, 2])
              & (centres[None, :, 1] > boxes[:, None, 1]) & (centres[None, :, 1] < boxes[:, None, 3]))
    return int(inside.any(axis=1).sum())


def _level(frame_boxes: np.ndarray, row: Sequence[int]) -> float:
    """Degrees to turn the frame by so that the row's longest unbroken stretch runs level
    (0 when it already does, within a degree, or when the stretch is too short to tell)."""
    centres = (frame_boxes[:, :2] + frame_boxes[:, 2:]) / 2
    sizes = np.sqrt(np.prod(np.maximum(frame_boxes[:, 2:] - frame_boxes[:, :2], 1e-6), axis=1))
    if len(row) < 4:
        return 0.0
    core = longest_run(centres, list(row), np.array([1.0, 0.0]), float(np.median(sizes[list(row)])))
    if len(core) < 4:
        return 0.0
    pts = centres[core]
    vx, vy, x0, y0 = cv2.fitLine(pts.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    off = np.abs((pts - [x0, y0]) @ np.array([-vy, vx]))
    if off.max() > 0.12 * float(np.median(sizes[core])):
        return 0.0  # not one straight line (standing and flat tiles side by side): leave it
    delta = -math.degrees(math.atan2(vy, vx) if vx > 0 else math.atan2(-vy, -vx))
    return delta if 1.5 < abs(delta) < 10.0 else 0.0


# `tidy_boxes`: a box this much covered by another is the same tile twice.
TIDY_COVER = 0.9


def tidy_boxes(boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop a box lying inside another (over `TIDY_COVER` of it covered: the same tile twice, which
    non-maximum suppression lets through when the sizes differ); the surer box stays.

    (Joining two half-boxes of one sideways tile was tried and dropped: boxes of standing tiles
    seen from above overlap just as much.) A kakan's stacked tile overlaps its base only along
    an edge: untouched.
    """
    boxes, scores = boxes.astype(float).copy(), scores.astype(float).copy()
    inside = intersections(boxes, boxes) > TIDY_COVER * np.minimum.outer(box_areas(boxes), box_areas(boxes))
    np.fill_diagonal(inside, False)
    alive = np.ones(len(boxes), bool)
    for i, j in zip(*np.nonzero(inside)):  # (one sweep: a pair passed over has a box dropped for good)
        if alive[i] and alive[j]:
            alive[j if scores[i] >= scores[j] else i] = False

    return boxes[alive], scores[alive]


# A box off the hand row lying this much inside a box off the row at least as large and as sure is
# part of that tile: a loose tile turned on the cloth (the drawn tile) gets an axis-aligned box and
# often a partial one too, which NMS keeps (IoU 0.4–0.55) and `tidy_boxes` too when under
# `TIDY_COVER`; read on its own it is another face, and the hand loses its drawn tile. Off the row
# only: in the row, boxes of standing tiles seen from above overlap as much (which is why the
# detector's own `PartRule` stays off).
LOOSE_PART_COVER = 0.7


def _loose_parts(frame_boxes: np.ndarray, scores: np.ndarray, row_idx: Sequence[int]) -> np.ndarray:
    """Mask of the boxes off the row that `detect.drop_parts` finds parts of another box off the row
    (left unread)."""
    out = np.zeros(len(frame_boxes), bool)
    loose = np.setdiff1d(np.arange(len(frame_boxes)), np.asarray(row_idx, int))
    if len(loose) < 2:
        return out
    out[loose] = True
    out[loose[drop_parts(frame_boxes[loose], scores[loose], PartRule(LOOSE_PART_COVER, 1.0, 1.0))]] = False
    return out


def _classify(classifier: Classifier, image: np.ndarray, frame: Frame, frame_boxes: np.ndarray,
              sideways: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cut each box out upright in `frame` and classify: (probs N×38, flip N×2)."""
    if len(frame_boxes) == 0:
        return np.zeros((0, len(TILE_CLASSES)), np.float32), np.zeros((0, 2), np.float32)
    if hasattr(classifier, "classify_tiles"):
        return classifier.classify_tiles(image, frame, frame_boxes, sideways)
    from vision.classify import crop_tile  # C1's crop normalisation, shared with training

    crop = getattr(classifier, "crop", None) or crop_tile
    crops = []
    patches: dict[tuple[float, ...], tuple[np.ndarray, BoxT]] = {}  # a tile read both ways: cut out once
    for fb, side in zip(frame_boxes, sideways):
        key = tuple(float(v) for v in fb)
        if key not in patches:
            patches[key] = extract_patch(image, frame, fb)
        patch, inner = patches[key]
        crops.append(crop(patch, inner, bool(side)))
    return classifier.classify(crops)


def _beyond_band(boxes: np.ndarray, row: Row, other: Row, reach: float = 3.3) -> bool:
    """Do most of `other`'s tiles lie beyond `reach` long sides of `row`'s line (outside the band
    whose tiles `recognize` classifies when the photo is turned for `row`; see `_near_row`)?"""
    d = np.array(row.direction, float)
    normal = np.array([-d[1], d[0]])
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    members = list(row.indices)
    long_side = float(np.median(np.max(boxes[members, 2:] - boxes[members, :2], axis=1)))
    level = float(np.median(centres[members] @ normal))
    off = np.abs(centres[list(other.indices)] @ normal - level)
    return bool(np.mean(off > reach * long_side) > 0.5)


def hand_row_score(labels: Sequence[str], unit: float) -> float:
    """How much a row of classified tiles looks like a hand: many, large tiles, with face-down
    ones and faces beyond the four a set holds (light backs read as a face) counting little."""
    counts = Counter(x for x in labels if x != BACK)
    backs = (sum(x == BACK for x in labels) + sum(max(0, c - 4) for c in counts.values())) / len(labels)
    return unit * len(labels) * (1.15 - backs)


def _hand_like_rows(row: Sequence[int], others: Sequence[Sequence[int]], frame_boxes: np.ndarray,
                    labels: dict[int, str]) -> list[Sequence[int]]:
    """The photo's level rows the layout could take for the hand, likeliest first, by
    `hand_row_score` over their classified tiles (as `vision.layout.candidate_rows` ranks rows);
    the row the photo was turned for first on a tie, and only rows scoring at least 0.6 × the
    best (the layout's cut)."""
    def score(members: Sequence[int]) -> float:
        read = [int(k) for k in members if int(k) in labels]
        if len(read) < 2:
            return 0.0
        b = frame_boxes[read]
        unit = float(np.median(np.sqrt(np.maximum(b[:, 2] - b[:, 0], 1e-6) * np.maximum(b[:, 3] - b[:, 1], 1e-6))))
        return hand_row_score([labels[k] for k in read], unit)

    rows = [tuple(row)] + [tuple(o) for o in others if tuple(o) != tuple(row)]
    scored = sorted(((score(r), -k, r) for k, r in enumerate(rows)), reverse=True)
    return [r for sc, _, r in scored if sc >= 0.6 * scored[0][0] and sc > 0] or [tuple(row)]


def _owner_vote(row: Sequence[int], pos: dict[int, int], probs: np.ndarray, flips: np.ndarray,
                sideways: np.ndarray, frame_boxes: np.ndarray, frame_angle: float) -> float:
    """Log-odds that the row's owner sits across it (above, in the frame), not below.

    Upright faces vote, each weighed by how likely its face shows an up at all (face-down
    tiles and half-turn-symmetric faces such as 1p, 8p or a blank white abstain: the flip head
    can only guess them from the body, which swung real rows). Players sort their hands:
    numbers of one suit rising left to right say the owner sits below the row, falling ones that
    the row is seen from across (discards of the player across in line with the hand can outvote
    its faces, many of which abstain); one pair either way is as likely by chance: only what
    goes beyond it counts. Most photos of a hand are taken from its owner's seat: a weak prior
    for the owner's side being the photo's bottom, which a row's faces overturn at once when
    seen from across."""
    vote = 0.0
    for k in row:
        n = pos.get(int(k))
        if n is None:
            continue
        weight = 1.0 - float(probs[n][SYMMETRIC_OR_BACK].sum())
        p_flip = float(np.clip(flips[n][1], 1e-4, 1 - 1e-4))
        vote += weight * math.log(p_flip / (1 - p_flip))
    order_evidence = _sort_evidence([TILE_CLASSES[int(np.argmax(probs[pos[int(k)]]))]
                                     if int(k) in pos and not sideways[k] else None
                                     for k in sorted(row, key=lambda i: frame_boxes[i, 0])])
    vote -= SORT_WEIGHT * math.copysign(max(0, abs(order_evidence) - 1), order_evidence)
    vote -= PHOTO_UP_PRIOR * math.cos(math.radians(frame_angle))
    return vote


def _pick_row(rows: list[Row], p_back: np.ndarray) -> Row:
    """The hand among candidate rows: a wall is as long as a hand, but shows its backs."""
    return max(rows[:4], key=lambda r: r.score * (1.15 - float(np.mean(p_back[list(r.indices)]))))


def _back_likeness(probs: np.ndarray) -> np.ndarray:
    """How likely each tile is face-down: its class probability, or, when more tiles read as one
    face than a set holds (four), the share of them that must be something else — a wall of
    light-backed tiles read as white dragons is no hand."""
    p_back = probs[:, TILE_CLASSES.index(BACK)].astype(float)
    top = np.argmax(probs, axis=1)
    for c, count in zip(*np.unique(top, return_counts=True)):
        if TILE_CLASSES[int(c)] != BACK and count > 4:
            p_back[top == c] = np.maximum(p_back[top == c], 1 - 4 / count)
    return p_back


def _face_weights(p_back: np.ndarray) -> np.ndarray:
    """How much each tile counts toward a hand row: a face-down one hardly (see `find_rows`)."""
    return 1.15 - p_back


def _sort_evidence(labels: Sequence[str | None]) -> int:
    """Neighbours of one suit (m, p, s) in rising order left to right, less those falling
    (red fives count as fives; None — a sideways or unread tile — and other tiles break pairs)."""
    score = 0
    for a, b in zip(labels, labels[1:]):
        if a is None or b is None or a == BACK or b == BACK or a[1] != b[1] or a[1] not in SUITS:
            continue
        na, nb = int(plain(a)[0]), int(plain(b)[0])
        score += (nb > na) - (nb < na)
    return score


def survey_photo(image: np.ndarray, detector: Detector, classifier: Classifier) -> Survey:
    """Detect, find the rows, and tell face-down tiles from faces with a first quick classifier
    pass on the photo's own boxes (the same at any rotation): rows are ranked again with
    face-down tiles (walls) counting little."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    h, w = image.shape[:2]
    floor = getattr(detector, "conf", None)  # (a detector with a score threshold of its own)
    boxes = detector.detect(image) if floor is None or floor <= GAP_CONF else detector.detect(image, conf=GAP_CONF)
    timings["detect_ms"] = (time.perf_counter() - t0) * 1000
    photo_boxes = np.array([[b.x1, b.y1, b.x2, b.y2] for b in boxes], float).reshape(-1, 4)
    scores = np.array([b.score for b in boxes], float)
    sure = scores >= (floor if floor is not None else -np.inf)
    faint_boxes, faint_scores = photo_boxes[~sure], scores[~sure]
    photo_boxes, scores = tidy_boxes(photo_boxes[sure], scores[sure])
    if len(photo_boxes) == 0:
        return Survey(photo_boxes, scores, [], np.zeros(0), {}, timings, faint_boxes, faint_scores)
    t1 = time.perf_counter()
    lines = row_lines(photo_boxes)
    rows = find_rows(photo_boxes, limit=6, lines=lines)
    p_back = np.zeros(len(photo_boxes))
    first_pass: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    if len(rows) > 1:  # only needed to choose between rows: classify their members only
        members = np.array(sorted({i for r in rows[:4] for i in r.indices}), int)
        photo_frame = Frame(0.0, (w / 2.0, h / 2.0))
        probs0, flips0 = _classify(classifier, image, photo_frame, photo_frame.boxes_to_frame(photo_boxes[members]),
                                   np.zeros(len(members), bool))
        p_back[members] = _back_likeness(probs0)
        first_pass = {int(k): (probs0[j], flips0[j]) for j, k in enumerate(members)}
        rows = find_rows(photo_boxes, limit=6, weights=_face_weights(p_back), lines=lines)
    timings["first_pass_ms"] = (time.perf_counter() - t1) * 1000
    return Survey(photo_boxes, scores, rows, p_back, first_pass, timings, faint_boxes, faint_scores)


def recognize(image: np.ndarray, detector: Detector, classifier: Classifier, *,
              classify_all: bool = False, row_rank: int = 0, survey: Survey | None = None,
              closer: Detector | None = None, rectify: np.ndarray | None = None) -> Recognition:
    """Detect, deskew, orient and classify the tiles of one photo (RGB uint8).

    Two classifier passes: a first quick one on the photo's own boxes, only to tell face-down
    tiles (walls) from faces, which is the same at any rotation; then, once the hand row is
    chosen and the photo turned to it, the real one on upright crops of the tiles near the row.
    `row_rank` = k > 0 turns the photo to the k-th likeliest other row instead, at another angle
    or level with the likeliest but beyond the band classified around it (another player's hand
    nearer the camera can look likelier than the hand seen askew; the reader tries them when the
    first reading makes no hand; `Recognition.other_rows` counts them),
    passing the first call's `Recognition.survey` so the photo is not detected and surveyed again.
    `closer`: the detector of the second, closer look around the hand (`turned_view`), when a model
    was trained for that view alone; by default `detector` looks again.
    `rectify`: a first recognition's `Recognition.steep_row` (the same `survey` and `row_rank`): the
    closer look sees the hand rectified around that row (`vision.perspective`) instead of turned; the
    reader asks for it when the first recognition of such a row reads unsurely.
    """
    h, w = image.shape[:2]
    centre = (w / 2.0, h / 2.0)
    if survey is None:
        survey = survey_photo(image, detector, classifier)
    timings = dict(survey.timings)
    photo_boxes, scores, rows, p_back, first_pass = (survey.photo_boxes, survey.scores, survey.rows,
                                                     survey.p_back, survey.first_pass)
    if len(photo_boxes) == 0:
        return Recognition([], Frame(0.0, centre), (), (w, h), timings, survey=survey)

    t1 = time.perf_counter()
    ranked = rows[:4]
    # rows the reader may try when the likeliest makes no hand: at another angle, or level with it
    # but beyond the band around it whose tiles are classified (another player's hand and
    # discards in one long line can outscore the hand by so much that it is not read at all)
    others = [r for r in ranked[1:] if len(r.indices) >= 5 and (abs(((r.angle - ranked[0].angle) + 90) % 180 - 90) > 6
                                                               or _beyond_band(photo_boxes, ranked[0], r))]
    row = others[row_rank - 1] if 0 < row_rank <= len(others) else ranked[0]
    frame = Frame(-row.angle, centre)
    photo_row_boxes = photo_boxes[list(row.indices)]
    residual = abs(((row.angle + 45) % 90) - 45)
    frame_boxes = frame.boxes_to_frame(photo_boxes)
    redetected = False
    second_faint = None  # (frame boxes, scores) the second detection scored under its floor
    second_added: set[int] = set()  # boxes taken from second_faint (kept only when read face down)
    chosen = frame.to_frame((photo_row_boxes[:, :2] + photo_row_boxes[:, 2:]) / 2)
    again = detector if closer is None else closer
    turned = getattr(again, "detect_turned", None)  # a test oracle's seam, see Detector
    t = time.perf_counter()
    closer_look = residual > REDETECT_ABOVE or _small_for(detector, photo_row_boxes, image.shape)
    # a steep row seen before (`rectify`: the same survey and row, so the same frame) is looked at rectified
    # alone: its plain closer look was the first recognition's
    rectified = None if rectify is None or turned else _redetect_rectified(image, again, frame, rectify)
    steep_row = rectify
    if rectified is not None:
        fb, sc = rectified
        closer_look = True
    else:
        if closer_look:
            fb, sc = turned(image, frame) if turned else _redetect_turned(
                image, again, frame, region=hand_region(frame_boxes[list(row.indices)]))
        # do the row's tiles shrink along it (RECTIFY_ABOVE)? By its tightest boxes: the closer look's,
        # or a level row's first-pass boxes
        if steep_row is None and RECTIFY_ABOVE and not turned:
            steep_row = _row_among(fb, sc, _second_floor(again), chosen) if closer_look else frame_boxes[list(row.indices)]
            steep_row = steep_row if _steep(steep_row) else None
    if closer_look:
        timings["redetect_ms"] = (time.perf_counter() - t) * 1000
        floor = _second_floor(again)
        sure = sc >= (-np.inf if floor is None else floor)
        faint = ~sure & (sc >= SECOND_GAP_CONF)
        second_faint = (fb[faint], sc[faint]) if sure.any() else None
        fb, sc = fb[sure], sc[sure]
        if len(fb):
            redetected = True
            old_centres = (photo_boxes[:, :2] + photo_boxes[:, 2:]) / 2
            frame_boxes, scores = fb, sc
            photo_boxes = frame.boxes_to_photo(frame_boxes)
            new_centres = (photo_boxes[:, :2] + photo_boxes[:, 2:]) / 2
            nearest = np.argmin(np.linalg.norm(new_centres[:, None] - old_centres[None], axis=2), axis=1)
            p_back = p_back[nearest]
    def frame_row() -> tuple[tuple[int, ...], list[Row]]:
        """The row the photo was turned for, found again among the frame boxes (redetected boxes
        fit it better), not another one lying nearly level too (a hand nearer the camera)."""
        frame_rows = find_rows(frame_boxes, max_tilt=FRAME_TILT, limit=6, weights=_face_weights(p_back))
        here = frame.to_frame((photo_row_boxes[:, :2] + photo_row_boxes[:, 2:]) / 2)  # (the frame may have turned since)
        frame_rows.sort(key=lambda r: -_shared(frame_boxes[list(r.indices)], here))
        return (frame_rows[0].indices if frame_rows else tuple(range(len(frame_boxes)))), frame_rows

    row_idx, frame_rows = frame_row()
    level = _level(frame_boxes, row_idx)
    if level:  # the row still leans (its line was drawn off by tiles in line beyond a gap)
        if second_faint is not None:
            second_faint = (turned_boxes(second_faint[0], level), second_faint[1])
        frame, frame_boxes = turn_frame(frame, frame_boxes, level)
        row_idx, frame_rows = frame_row()
    # a tile missing from the row: one the detector barely saw (a faint box) in a gap; after a
    # second detection, one the first detection found and the second did not, just beyond an
    # end (the drawn tile set apart, an end tile the closer look missed). Not in a gap then: a
    # first-pass box there, as often a shadow or half a tile, would close the drawn tile's gap.
    fill = None  # (frame boxes, photo boxes, scores, p_back, reach beyond the row's ends; 0: in its gaps)
    if not redetected and len(survey.faint_boxes):
        fill = (frame.boxes_to_frame(survey.faint_boxes), survey.faint_boxes, survey.faint_scores,
                np.zeros(len(survey.faint_boxes)), 0.0)
    elif redetected and FILL_ENDS > 0 and len(survey.photo_boxes):
        fill = (_tile_sized(frame.boxes_to_frame(survey.photo_boxes), frame_boxes[list(row_idx)]),
                survey.photo_boxes, survey.scores, survey.p_back, FILL_ENDS)
    if fill is not None:
        fill_frame, fill_photo, fill_scores, fill_back, ends = fill
        gaps = _gap_boxes(frame_boxes, row_idx, fill_frame, fill_scores, ends=ends)
        if gaps:
            frame_boxes, photo_boxes, scores, p_back, row_idx = _grown(
                (frame_boxes, photo_boxes, scores, p_back, row_idx),
                fill_frame[gaps], fill_photo[gaps], fill_scores[gaps], fill_back[gaps])
    # after a second detection, a box it scored faintly in a gap of the row, which the first pass
    # boxed too: a closed kan's face-down tile (kept below only when it reads face down)
    if second_faint is not None:
        faint_frame, faint_scores = _seen_before(second_faint, frame, survey)
        gaps = _gap_boxes(frame_boxes, row_idx, faint_frame, faint_scores)
        if gaps:
            second_added = set(range(len(frame_boxes), len(frame_boxes) + len(gaps)))
            frame_boxes, photo_boxes, scores, p_back, row_idx = _grown(
                (frame_boxes, photo_boxes, scores, p_back, row_idx),
                faint_frame[gaps], frame.boxes_to_photo(faint_frame[gaps]), faint_scores[gaps], np.zeros(len(gaps)))
    # and a faint box lying on a row tile as an added kan's stacked tile, when both, cut lying,
    # read as one face (a discard behind a meld, the table, a tile's own top do not)
    stack_added: list[int] = []
    if second_faint is not None and STACK_FAINT:
        pairs = _stacked_faint(frame_boxes, row_idx, *second_faint)
        if pairs:
            j, bases = np.array([p[0] for p in pairs]), [p[1] for p in pairs]
            boxes = np.vstack([second_faint[0][j], frame_boxes[bases]])
            read = np.argmax(_classify(classifier, image, frame, boxes, np.ones(len(boxes), bool))[0], axis=1)
            j = j[(read[:len(j)] == read[len(j):]) & (read[:len(j)] != CLASS_INDEX[BACK])]
            if len(j):
                stack_added = list(range(len(frame_boxes), len(frame_boxes) + len(j)))
                frame_boxes, photo_boxes, scores, p_back, row_idx = _grown(
                    (frame_boxes, photo_boxes, scores, p_back, row_idx), second_faint[0][j],
                    frame.boxes_to_photo(second_faint[0][j]), second_faint[1][j], np.zeros(len(j)), in_row=False)
    sideways, ambiguous, shape_odds = sideways_flags(frame_boxes, row_idx)
    wanted = np.ones(len(frame_boxes), bool) if classify_all else _near_row(frame_boxes, row_idx)
    band = _near_row(frame_boxes, row_idx, 2.2, along=True)  # (the row's own, a kan's stacked tile, the drawn tile)
    if len(frame_rows) > 1:  # the runner-up row too: the reading step may find the hand there
        runner = max((r for r in frame_rows if r.indices != row_idx), key=lambda r: r.score, default=None)
        if runner is not None and runner.score >= 0.6 * max(r.score for r in frame_rows):
            wanted[list(runner.indices)] = True
            wanted |= _near_row(frame_boxes, runner.indices, 1.5)  # (its kans' stacked tiles, its drawn tile)
            band[list(runner.indices)] = True
    wanted &= ~_loose_parts(frame_boxes, scores, row_idx)
    wanted[stack_added] = True
    todo = np.nonzero(wanted)[0]
    # the row's end tiles are read both ways whatever their shape: the last one is often the
    # winning tile turned sideways with a box like a standing end tile's
    ends = [min(row_idx, key=lambda i: frame_boxes[i, 0]), max(row_idx, key=lambda i: frame_boxes[i, 2])] if len(row_idx) >= 4 else []
    ambiguous[ends] = True
    # (only tiles in the row's band or the runner-up row: others — discards, walls — read one way)
    ambiguous &= band
    # a row tile another box lies on is read both ways too (an added kan's base often looks upright and then
    # reads as another face: the layout pairs it with the stacked tile by its sideways read); its shape
    # alone still says which way it lies
    stack_base = stack_bases(frame_boxes, row_idx) & band & ~ambiguous
    twice = todo[(ambiguous | stack_base)[todo]]
    timings["geometry_ms"] = (time.perf_counter() - t1) * 1000 - timings.get("redetect_ms", 0.0)

    t2 = time.perf_counter()
    pos = {int(k): n for n, k in enumerate(todo)}  # tile → its row in probs
    # An upright tile of a nearly level photo was already cut out the same way by the first pass.
    level = not redetected and abs(((frame.angle + 180) % 360) - 180) < 4.0
    reuse = {int(k) for k in todo if level and not sideways[k] and int(k) in first_pass}
    fresh = np.array([k for k in todo if int(k) not in reuse], int)
    p_new, f_new = _classify(classifier, image, frame, frame_boxes[np.concatenate([fresh, twice])],
                             np.concatenate([sideways[fresh], ~sideways[twice]]))
    probs = np.zeros((len(todo) + len(twice), len(TILE_CLASSES)), np.float32)
    flips = np.zeros((len(todo) + len(twice), 2), np.float32)
    fresh_at = {int(k): j for j, k in enumerate(fresh)}
    for j, k in enumerate(todo):
        if int(k) in reuse:
            probs[j], flips[j] = first_pass[int(k)]
        else:
            probs[j], flips[j] = p_new[fresh_at[int(k)]], f_new[fresh_at[int(k)]]
    probs[len(todo):], flips[len(todo):] = p_new[len(fresh):], f_new[len(fresh):]
    other_way: dict[int, np.ndarray] = {}  # tile → classes read from the crop turned the other way
    if len(twice):  # keep, for each ambiguous tile, the way that reads more surely
        n = len(todo)
        for j, k in enumerate(twice):
            a, b = pos[int(k)], n + j
            if stack_base[k]:
                other_way[int(k)] = probs[b].copy()
                continue
            # log-odds of sideways: the shape's, plus how much surer the sideways crop reads
            p_side, p_up = (probs[a].max(), probs[b].max()) if sideways[k] else (probs[b].max(), probs[a].max())
            shape_odds[k] += CROP_WEIGHT * math.log(max(p_side, 1e-6) / max(p_up, 1e-6))
            side = shape_odds[k] > 0
            if side != bool(sideways[k]):
                probs[[a, b]], flips[[a, b]] = probs[[b, a]], flips[[b, a]]
                sideways[k] = not sideways[k]
            other_way[int(k)] = probs[b].copy()
        probs, flips = probs[:n], flips[:n]
    timings["classify_ms"] = (time.perf_counter() - t2) * 1000
    # a faint box of the second detection stays only when it reads face down: the table between
    # two melds, boxed faintly, reads as a face; such a box is left unread and out of the row
    not_back = {k for k in second_added if k not in pos or TILE_CLASSES[int(np.argmax(probs[pos[k]]))] != BACK}
    row_idx = tuple(i for i in row_idx if i not in not_back)

    # Which side is the owner's: the faces of the row the layout will take for the hand vote
    # (with face-down tiles counting little, another level row can be likelier than the one the
    # photo was turned for: in a photo from above, discards and a wall can line up longer than
    # the hand), and when another row could be the hand too, whether its own faces say the other
    # side is kept: the reader reads the photo turned around when the first reading makes no hand.
    hand_rows = _hand_like_rows(row_idx, [r.indices for r in frame_rows], frame_boxes,
                                {k: TILE_CLASSES[int(np.argmax(probs[n]))] for k, n in pos.items()})
    if row_rank:  # (another row is read because the likeliest made no hand: its own faces vote)
        hand_rows = [tuple(row_idx)] + [r for r in hand_rows if r != tuple(row_idx)]
    votes = [_owner_vote(r, pos, probs, flips, sideways, frame_boxes, frame.angle) for r in hand_rows[:2]]
    vote = votes[0]
    other_side = tuple(int(i) for i in hand_rows[1]) if len(votes) > 1 and (votes[1] > 0) != (vote > 0) else ()
    owner_flip = vote > 0
    if owner_flip:
        frame = frame.turned(180.0)
        frame_boxes = -frame_boxes[:, [2, 3, 0, 1]]

    tiles: list[TileDetection] = []
    for k in range(len(frame_boxes)):
        n = pos.get(k)
        pbox = tuple(float(v) for v in photo_boxes[k])
        fbox = tuple(float(v) for v in frame_boxes[k])
        if n is None or k in not_back:
            tiles.append(TileDetection(pbox, fbox, None, 270 if sideways[k] else 0, 0.0, (), float(scores[k])))
            continue
        cands = _top_candidates(probs[n])
        flipped = bool(flips[n][1] > flips[n][0]) != owner_flip
        # crop_tile turns a sideways tile 90° clockwise: top-left lying tiles then read upright
        rotation = ((270 if sideways[k] else 0) + (180 if flipped else 0)) % 360
        turned = ()
        if k in other_way:
            turned = _top_candidates(other_way[k])
        tiles.append(TileDetection(pbox, fbox, cands[0].label, rotation, cands[0].prob, cands, float(scores[k]), turned,
                                   float(shape_odds[k])))
    found = pair_boxes(frame_boxes, row_idx) if vision.sideways.MAX_PAIRS else []
    read_pairs = functools.cache(functools.partial(_split_pairs, classifier, image, frame, frame_boxes, found, scores)) \
        if found else tuple
    return Recognition(tiles, frame, tuple(int(i) for i in row_idx), (w, h), timings, len(others), survey, other_side,
                       read_pairs, steep_row)
