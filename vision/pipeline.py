"""One object that reads photos: loads both ONNX models once, then `read(image) -> Reading`.

`PhotoReader` holds no per-photo state, and onnxruntime sessions may be run from several
threads at once, so one reader serves every request of the HTTP API.
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from vision.colour import balanced, measure_light
from vision.frame import turned_boxes
from vision.quality import photo_warnings
from vision.reading import Reading, read_hand
from vision.recognize import Classifier, Detector, recognize

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DETECTOR_FILE = "tile_detector.onnx"
CLASSIFIER_FILE = "tile_classifier.onnx"
# Optional: a detector trained for the reader's second, closer look around the hand only
# (`vision.frame.turned_view`); without it the photo's detector looks again.
CLOSER_FILE = "tile_detector_closer.onnx"
# When a photo reads unsurely (not `Reading.sure`: no hand, or one the reading step had to bend more
# than `reading.FAINT_TRY_ABOVE`), the detector looks again in these ways, one after the other until
# a reading is sure, and the surest reading is kept (the lowest `Reading.cost`; no legal hand costs
# infinitely much). A change of the boxes churns 5-15 % of the reads both ways
# (models/tile_detector.md, session 5), so another look mends many unsure photos, and a sure photo
# pays nothing. Session 21, shipped models, one read of each look alone, the tune sets (tune9_x3 /
# tune9, plain 152/200 / 276/400): mirrored input pooled 156 / 292; + box voting 159 / 299; + a
# 576-px input 159 / 305 (the three in any order within one; + a 448-px input instead of voting 161
# / 303). A look's reading replaces the one so far only when it costs LOOK_MARGIN less (e^0.5: 1.6
# times likelier): real-dev's 13-tile photo at 1 024 px read as 14 tiles at 576 px, one tile boxed
# twice, for 0.1 less (tune sets: margin 0 159 / 305, 0.5 159 / 304, 1 159 / 304, 2 158 / 302;
# taking sure readings only: 157 / 290). A hand short of its winning tile but otherwise read cleanly
# is sure (see `reading.THIRTEEN_COST`; 158 / 302: the tune hands all show their winning tile, so a
# look there sometimes finds a missed drawn tile, but real photos of 13 tiles, like real-dev's, are
# not read four times over for a tile not in them). Looking again at every photo bent at all (cost
# over 0.5) reads 159 / 308 for 1.8 times the looks. Session 22: a fourth look, the detector at
# 768 px, finds tiles (and far hands) a 512-px input loses in a large photo. Tune sets (tune9 /
# tune9_x3 / tune10_x3, a new 300 at 3×): 302 / 158 / 240 -> 305 / 162 / 242, hand tiles the reader
# boxes 98.46 / 98.62 / 98.67 % -> 98.82 / 99.07 / 98.73 %; at 1 024 px instead 304 / 159 / 240
# (98.63 / 98.93 / 99.03 %), both (768 then 1 024) 162 / 242 at 3×.
SECOND_LOOKS: tuple[tuple[str, dict], ...] = (
    ("the detector's input mirrored too", {"flip": True}),
    ("box voting", {"vote": 0.75}),
    ("a 576-px detector input", {"imgsz": 576}),
    ("a 768-px detector input", {"imgsz": 768}),
)
LOOK_MARGIN = 0.5
# Optional: a second detector, a fine-tune of the first (models/tile_detector_alt.md), whose boxes
# differ from the first's on the photos the first reads unsurely. After SECOND_LOOKS, a photo still
# unsure is read with it in these ways, by the same rule. Session 27, one run of each combination
# on the tune sets (tune10_x3 / tune9_x3 / tune9, shipped reader 251 / 165 / 306): plain alone
# 252 / 166 / 308; plain, then box voting 254 / 167 / 308; + a 576-px input 254 / 167 / 309; all four
# of SECOND_LOOKS' ways 254 / 166 / 309 (one photo lost in each 1x set); none lost otherwise.
ALT_FILE = "tile_detector_alt.onnx"
ALT_LOOKS: tuple[tuple[str, dict], ...] = (
    ("a second detector", {}),
    ("a second detector with box voting", {"vote": 0.75}),
)
# Then each detector at this larger input, for every photo still unsure. Session 33 found plaid cloths hide rows at
# 512 px (clear photos score 0.1-0.2 there, 0.5-0.7 at 1 024 px). Session 34, one screen of the last looks on the
# five tune sets (tune_plaid_x3 / tune_close_x3 / tune9 / tune9_x3 / tune10_x3, shipped 165 / 148 / 311 / 170 / 256
# = 1 048): the first detector at 1 024 px 1 051 (tune10_x3 -1); both at 1 024 px 1 054; both at 832 px 1 060; both
# at 896 px 166 / 151 / 316 / 172 / 257 = 1 062, none down; both at 960 px 1 052; 896 px then the first at 1 024 px
# 1 060, or with box voting 1 064. The 12-MP benchmark photo reads sure at once: it pays nothing.
LARGE_LOOKS: tuple[tuple[str, dict], ...] = (
    ("an 896-px detector input", {"imgsz": 896}),
)
# A third detector (shipped since session 41, models/tile_detector_third.md: a fine-tune on renders of lying hands
# seen from a side and low), read last, only at a photo every look above left unsure, in these ways. Taken as the
# other looks are (any reading LOOK_MARGIN cheaper), each third detector tried traded photos (session 28: ft28 /
# ft28c at most +1 a tune set; session 40: a plaid fine-tune, +2 on the plaid tune set and -1 on the close one at
# best; session 41: this one, +5 -3 and tune10_x3 -1), hence THIRD_SURE_ONLY below.
THIRD_FILE = "tile_detector_third.onnx"
THIRD_LOOKS: tuple[tuple[str, dict], ...] = (
    ("a third detector", {}),
    ("a third detector at an 896-px input", {"imgsz": 896}),
)
# Session 41: a third detector's reading is taken only when it is sure, and its tiles stay out of the pool
# (`Look.sure_only`). Why: screened as the others' looks (ft41e, fine-tuned on side-and-low renders), it gained 5
# tune photos and lost 3, and every loss was an unsure reading (its own or the pool's with its tiles), while both
# of its sure readings that changed a photo were gains. A sure reading is right 95 % of the time; an unsure one
# from a net that sees other photos better is one more chance of a cheaper wrong reading.
THIRD_SURE_ONLY = True
# A photo whose first detection finds no tile at all is one the detector cannot see at its input size: the
# stripes of a plaid cloth a tile or two apart hide whole rows at 512 px (session 33: clear photos of a hand read
# as "no tiles were found"; on the 200 plaid-heavy tune renders 3 photos, on the held-out gates 4 of 1 050). Such
# a photo is, after all the looks above, read once more by each detector at this larger input, where the tiles
# stand out from the weave. Only these photos pay for it, and these looks come after every other one, so they
# change only readings that all the others left unsure. And while no look reads a hand in such a photo, the
# reading that lays out the most tiles is kept, not the first one's none (the user can correct tiles, not an
# empty photo).
EMPTY_LOOKS: tuple[tuple[str, dict], ...] = (
    ("a 1 024-px detector input", {"imgsz": 1024}),
)
# A photo still unsure after every look is read once more from all their tiles together: each look's reading boxes
# tiles the kept one misses (tune9, session 35: of the hand tiles the kept reading leaves unboxed in its
# not-detected misses, nearly all are boxed by some other look), but no one look boxes them all. A look's tile joins
# the kept reading's when that reading's row lies within POOL_ANGLE degrees of the kept row (the frames then agree;
# a reading turned around is not mixed in) and its centre, carried into the kept frame, lies in no kept tile's core
# (its box shrunk by POOL_CORE of its size on each side), nor a kept centre in its own: a tile the kept reading
# boxed off-centre over two is still joined by the two, and the layout chooses. No model runs again, only the
# layout. The pooled reading is kept by the looks' rule and is never called sure: sure, it read 6 more photos of
# the 3x gate surely, 2 of them wrongly (sure readings exact 237 / 248 -> 241 / 254). Session 35, the five tune
# sets (shipped 166 / 151 / 316 / 172 / 257 = 1 062): 166 / 152 / 317 / 172 / 257 = 1 064, none down (at 3 degrees
# and whole boxes: tune9 +1 -1; taken only when sure: tune9 316).
POOL_ANGLE = 6.0
POOL_CORE = 0.25
# A photo still unsure after every look whose hand row was read a quarter or half turn from level (a portrait photo
# that lost its EXIF tag, one taken from across the table or upside down) is read once more turned upright (np.rot90,
# the first detector and its closer look), and that reading is kept by the looks' rule (LOOK_MARGIN cheaper); its
# boxes are carried back to the photo. The detectors see turned hands (renders roll the camera anywhere), but a
# photo's boxes change with its turn like with any look: real-dev's added-kan photo turned 180° lost its loose drawn
# 0p, at 270° its sou run was boxed twice; turned upright both read exactly (`test_real_dev_turned`). Session 54, the
# unsure photos of four tune sets (tune10_x3 / tune9_x3 / tune_plaid_x3 / tune_close_x3, 260 / 172 / 170 / 156):
# 260 / 173 / 170 / 156 (one gained, none lost). Every look again on the turned photo: 261 / 173 / 170 / 155 (+3 −2)
# for ~40 % more reading time on the gate; every turned photo read upright, sure ones too, always kept: tune10_x3
# 254; kept when cheaper by any amount: 259. Only unsure turned photos pay, one plain read (103 of the 900 tune photos).
UPRIGHT_LOOK = True
# A photo whose light on the tiles is coloured beyond the renders' (`vision.colour.CAST_LIMIT`: a warm lamp, a cold
# screen) is balanced after its first reading, which found the tiles to measure, and its first reading made again
# from the balanced photo; the cheaper of the two is kept (the balanced one when it costs at most BALANCE_MARGIN
# more), and every look after it reads that photo. Session 56, two tune sets under random casts (tune10_x3 /
# tune9_x3, each photo's gains drawn warm, cold, green or magenta at 0.25-1 of a tungsten-like strength: 238 / 163
# read exactly unbalanced, of 261 / 173 uncast): balanced whenever measured, 252 / 167 (+20 -6, +7 -3); the cheaper
# kept, 254 / 169 (+20 -4, +7 -1); margin 0.5 one loss more; -0.5 three gains and one loss fewer. Uncast, at most 4
# of the 900 photos of four tune sets are balanced, none read otherwise. `datasets/measure_casts.py`, another draw of casts:
# tune sets 240 / 159 -> 251 / 170 (`colour.FEWEST_TILES` 3); real-dev's four photos under 16 casts 49 -> 57 of 68.
# Session 57, a photo dimmer than the renders (`colour.DIM_LIMIT`) is brightened the same way: the tune sets under
# drawn dim light 239 / 157 -> 255 / 165, real-dev's four under four dim lights 12 -> 16 of 16.
BALANCE = True
BALANCE_MARGIN = 0.0
BALANCED_NOTE = "read with the photo balanced to the renders' light"
# A first reading laying out fewer tiles than this counts as read empty. 5 (tune sets, session 33) gained no exact
# reading over 1: two more plaid photos then show 6 and 9 tiles instead of 1, none right.
UNSEEN_BELOW = 1


@dataclass(frozen=True)
class Look:
    """One more way to read a photo: what it is (for the notes), its detector, and the detector of
    its closer second look (None: the look's own detector looks again)."""

    name: str
    detector: Detector
    closer: Detector | None = None
    sure_only: bool = False  # its reading is taken only when sure, and its tiles never join the pool


class PhotoReader:
    """Photo (RGB uint8 array) → `Reading`: detect, deskew, classify, lay out, check."""

    def __init__(self, models_dir: Path | None = None, threads: int = 2, *,
                 detector: Detector | None = None, classifier: Classifier | None = None,
                 classify_all: bool = False, closer: Detector | None = None, alt: Detector | None = None,
                 third: Detector | None = None, looks: Sequence[Look] | None = None,
                 empty_looks: Sequence[Look] | None = None, warnings: bool = True, upright: bool = UPRIGHT_LOOK,
                 balance: bool = BALANCE):
        """`looks`: the ways to read an unsure photo again; by default SECOND_LOOKS, made from
        `detector` (and `closer`) when it offers `variant` (`TileDetector` does), else none, then
        ALT_LOOKS made from `alt` (loaded from `models_dir` with the detector, when the file is there),
        then LARGE_LOOKS made from each detector that offers `variant`, then THIRD_LOOKS made from `third` (loaded
        from `models_dir` with the detector, when the file is there).
        `empty_looks`: the ways to read it too when its first reading found no tile; by default EMPTY_LOOKS
        made from `detector`, then from `alt`, each that offers `variant`.
        `warnings`: say what is wrong with the photo itself (`vision.quality`, a few ms a photo); a caller that
        shows nobody the warnings (the footage audit, frame after frame) turns it off.
        `upright`: read an unsure photo whose hand is turned a quarter or half way once more turned upright
        (UPRIGHT_LOOK); the footage audit, which takes no looks at a frame, turns it off too.
        `balance`: read a photo whose light is coloured beyond the renders', or dimmer, again with the photo
        balanced to their light (BALANCE, `vision.colour`)."""
        self.warnings = warnings
        self.upright = upright
        self.balance = balance
        models_dir = Path(models_dir) if models_dir else MODELS_DIR
        if detector is None:
            from vision.detect import TileDetector

            detector = TileDetector(_model(models_dir, DETECTOR_FILE), threads)
            if closer is None and (models_dir / CLOSER_FILE).is_file():
                closer = TileDetector(models_dir / CLOSER_FILE, threads)
            if alt is None and (models_dir / ALT_FILE).is_file():
                alt = TileDetector(models_dir / ALT_FILE, threads)
            if third is None and (models_dir / THIRD_FILE).is_file():
                third = TileDetector(models_dir / THIRD_FILE, threads)
        if classifier is None:
            from vision.classify import TileClassifier

            classifier = TileClassifier(_model(models_dir, CLASSIFIER_FILE), threads)
        self.detector = detector
        self.closer = closer
        self.classifier = classifier
        self.classify_all = classify_all
        self.alt = alt
        self.third = third
        if looks is None:
            looks = [Look(name, detector.variant(**changes),
                          closer.variant(**changes) if hasattr(closer, "variant") else closer)
                     for name, changes in SECOND_LOOKS] if hasattr(detector, "variant") else []
            if alt is not None:  # (the second detector takes its own closer look: a closer model pairs with the first)
                looks += _own_looks(ALT_LOOKS, alt)
            looks += _each_detector(LARGE_LOOKS, detector, alt)
            if third is not None:
                looks += _own_looks(THIRD_LOOKS, third, sure_only=THIRD_SURE_ONLY)
        if empty_looks is None:
            empty_looks = _each_detector(EMPTY_LOOKS, detector, alt)
        self.looks = list(looks)
        self.empty_looks = list(empty_looks)

    def read(self, image: np.ndarray, *, players: int = 4) -> Reading:
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError("PhotoReader.read expects an H×W×3 uint8 RGB array (see vision.io.load_image)")
        if players not in (3, 4):
            raise ValueError(f"players must be 3 or 4, not {players!r}")
        t0 = time.perf_counter()
        first = self._read_with(self.detector, self.closer, image, players)
        light = measure_light(image, first.tiles) if self.balance or self.warnings else None
        kept_balanced = False
        if self.balance and light is not None and light.off:
            t1 = time.perf_counter()
            even = balanced(image, light)
            again = self._read_with(self.detector, self.closer, even, players)
            again.timings["balance_ms"] = (time.perf_counter() - t1) * 1000
            if _cost(again) <= _cost(first) + BALANCE_MARGIN:
                image, first = even, again  # (every look, the upright one and the warnings see the balanced photo)
                kept_balanced = True
        reading = self._read_looks(image, players, first)
        if kept_balanced:
            reading.notes.append(f"the light on the tiles was {light.describe()}: {BALANCED_NOTE}")
        quarter = _quarter(reading)
        if self.upright and quarter and not reading.sure:
            t1 = time.perf_counter()
            turned = np.ascontiguousarray(np.rot90(image, quarter))
            upright = _unturned(self._read_with(self.detector, self.closer, turned, players), quarter, image.shape)
            if _cost(upright) < _cost(reading) - LOOK_MARGIN:
                upright.notes.append("read unsurely as it came; read surer with the photo turned upright")
                reading = upright
            reading.timings["upright_ms"] = (time.perf_counter() - t1) * 1000
        if self.warnings:
            reading.warnings = photo_warnings(image, reading, light)  # (said, never hidden: the reading is as read)
        reading.timings["total_ms"] = (time.perf_counter() - t0) * 1000
        return reading

    def _read_looks(self, image: np.ndarray, players: int, reading: Reading) -> Reading:
        """The photo as `reading` (the first detector's), then by each look while unsure (see SECOND_LOOKS)."""
        first_empty = _tiles_laid(reading) < UNSEEN_BELOW
        readings = [reading]
        for look in self.looks + (self.empty_looks if first_empty else []):
            if reading.sure:
                break
            other = self._read_with(look.detector, look.closer, image, players)
            if look.sure_only:
                if other.sure and _cost(other) < _cost(reading) - LOOK_MARGIN:
                    other.notes.append(f"read unsurely at first; read surely with {look.name}")
                    reading = other
                continue
            readings.append(other)
            if _cost(other) < _cost(reading) - LOOK_MARGIN:
                other.notes.append(f"read unsurely at first; read surer with {look.name}")
                reading = other
            elif first_empty and math.isinf(_cost(reading)) and math.isinf(_cost(other)) \
                    and _tiles_laid(other) > _tiles_laid(reading):
                # no hand either way: the reading that lays out the most tiles (the user corrects tiles, not
                # an empty photo)
                other.notes.append(f"no tile was found at first; {look.name} read the most")
                reading = other
        if not reading.sure and len(readings) > 1:
            pooled = _pooled(reading, readings)
            if pooled is not None and _cost(pooled) < _cost(reading) - LOOK_MARGIN:
                pooled.notes.append("read unsurely by every look; read surer from all their tiles together")
                pooled.sure = False  # (tiles no one look saw together: the user is asked to check them)
                reading = pooled
        return reading

    def _read_with(self, detector: Detector, closer: Detector | None, image: np.ndarray, players: int) -> Reading:
        """The photo read with boxes from `detector`, in the likeliest row or, failing that, another."""
        rec = recognize(image, detector, self.classifier, classify_all=self.classify_all, closer=closer)
        t1 = time.perf_counter()
        reading = self._read_either_side(rec, players)
        reading.timings["layout_ms"] = (time.perf_counter() - t1) * 1000
        reading = self._rectified_if_surer(rec, reading, detector, closer, image, players)
        # no hand in that row: try the next rows at other angles, likeliest first (another
        # player's hand or discards nearer the camera can look likelier than the hand seen askew);
        # the photo's boxes, rows and first-pass classes are the same: not found again
        for rank in range(1, rec.other_rows + 1):
            if reading.hand is not None:
                break
            rec2 = recognize(image, detector, self.classifier, classify_all=self.classify_all, row_rank=rank,
                             survey=rec.survey, closer=closer)
            second = self._read_either_side(rec2, players)
            if second.hand is None and rec2.row:
                # (the row the photo was turned for, even when a longer row in line with it
                # outscores it so far that the layout would not weigh it)
                second = self._read(rec2, players, row=rec2.row)
            second = self._rectified_if_surer(rec2, second, detector, closer, image, players, rank)
            if second.hand is not None:
                second.notes.append("the hand was read in another row than the likeliest one")
                second.timings["layout_ms"] = reading.timings["layout_ms"]
                reading = second
        return reading

    def _rectified_if_surer(self, rec, reading: Reading, detector: Detector, closer: Detector | None,
                            image: np.ndarray, players: int, row_rank: int = 0) -> Reading:
        """An unsure reading of a row whose tiles shrink along it (a hand seen from a seat beside it:
        `Recognition.steep`) is read again with the closer look rectified (`recognize(rectify=...)`,
        the same survey), and that reading kept when it is surer by LOOK_MARGIN. Only then: the
        detector was trained on the plain turned view, which reads most such rows as well."""
        if reading.sure or not rec.steep:
            return reading
        again = recognize(image, detector, self.classifier, classify_all=self.classify_all, row_rank=row_rank,
                          survey=rec.survey, closer=closer, rectify=rec.steep_row)
        other = self._read_either_side(again, players)
        if _cost(other) < _cost(reading) - LOOK_MARGIN:
            other.notes.append("the hand's row recedes from the camera; read surer with the closer look rectified")
            other.timings["layout_ms"] = reading.timings.get("layout_ms", 0.0)
            return other
        return reading

    @classmethod
    def _read_either_side(cls, rec, players: int) -> Reading:
        """Read the recognised tiles; when another level row could be the hand and its own faces
        say its owner sits across from where the likeliest row's say, and the hand was not found
        elsewhere (none, or in that row), read the photo turned around too and keep the hand found
        in that row then (the same tiles and classes: nothing is classified again)."""
        reading = cls._read(rec, players)
        if rec.other_side and (reading.hand is None or _read_in(reading, rec.other_side)):
            second = cls._read(rec.turned_around(), players)
            if second.hand is not None and _read_in(second, rec.other_side):
                second.notes.append("the hand was read with its owner on the other side of the row than the "
                                    "likeliest row's faces said")
                reading = second
        return reading

    @staticmethod
    def _read(rec, players: int, row: tuple[int, ...] | None = None) -> Reading:
        angle = _turn(-rec.frame.angle) if rec.tiles else None
        return read_hand(rec.tiles, players=players, row=row, row_angle=angle, image_size=rec.image_size,
                         timings=rec.timings, seen_row=rec.row, pairs=rec.read_pairs)


def _own_looks(ways: Sequence[tuple[str, dict]], detector: Detector, sure_only: bool = False) -> list[Look]:
    """These ways to look, made from one detector: the plain way always, the others when it offers `variant`."""
    return [Look(name, detector.variant(**changes) if changes else detector, sure_only=sure_only)
            for name, changes in ways if not changes or hasattr(detector, "variant")]


def _each_detector(ways: Sequence[tuple[str, dict]], detector: Detector, alt: Detector | None) -> list[Look]:
    """These ways to look, made from the first detector, then from the second; each detector that offers
    `variant` (the look's own detector takes its closer look: a closer model is trained for the 512-px input)."""
    return [Look(name if det is detector else f"the second detector with {name}", det.variant(**changes))
            for det in (detector, alt) if hasattr(det, "variant") for name, changes in ways]


def _pooled(kept: Reading, readings: Sequence[Reading]) -> Reading | None:
    """`kept` read again with the tiles of the other `readings` that it lacks (see POOL_ANGLE), or None when
    none joins it."""
    if kept.row_angle is None:
        return None
    tiles = list(kept.tiles)
    for other in readings:
        turn = _turn(other.row_angle - kept.row_angle) if other.row_angle is not None else math.inf
        if other is kept or abs(turn) > POOL_ANGLE or not other.tiles:
            continue
        # (every reading's frame turns about the photo's centre, its angle the row angle negated: `PhotoReader._read`)
        carried = turned_boxes(np.array([t.frame_box for t in other.tiles], float), turn)
        for t, box in zip(other.tiles, map(tuple, carried)):
            centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            if t.label is not None and not any(_in_core(k.frame_box, centre) or _in_core(box, k.centre) for k in tiles):
                tiles.append(replace(t, frame_box=box))  # (a tile never classified lies far from that row)
    if len(tiles) == len(kept.tiles):
        return None
    return read_hand(tiles, players=kept.players, row_angle=kept.row_angle, image_size=kept.image_size,
                     timings=kept.timings)


def _quarter(reading: Reading) -> int:
    """Quarter turns (counter-clockwise, as `np.rot90`) that bring the owner of the read row to the photo's bottom."""
    if reading.row_angle is None:
        return 0
    return int(round(reading.row_angle / 90.0)) % 4


def _unturned(reading: Reading, quarter: int, shape: tuple[int, ...]) -> Reading:
    """A reading of the photo turned by `quarter` (np.rot90) carried back to the photo: boxes and row angle.
    The hand frame is the same (both turn about the photo's centre), so frame boxes stay as they are."""
    h, w = shape[:2]

    def back(x: float, y: float) -> tuple[float, float]:
        if quarter == 1:
            return w - y, x
        if quarter == 2:
            return w - x, h - y
        return y, h - x

    tiles = []
    for t in reading.tiles:
        (ax, ay), (bx, by) = back(t.box[0], t.box[1]), back(t.box[2], t.box[3])
        tiles.append(replace(t, box=(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))))
    angle = None if reading.row_angle is None else _turn(reading.row_angle + 90.0 * quarter)
    return replace(reading, tiles=tiles, row_angle=angle, image_size=(w, h))


def _turn(degrees: float) -> float:
    """An angle (or a difference of two) in [−180, 180)."""
    return (degrees + 180.0) % 360.0 - 180.0


def _in_core(box: Sequence[float], point: Sequence[float]) -> bool:
    """Does `point` lie in the box shrunk by POOL_CORE of its size on each side?"""
    x1, y1, x2, y2 = box
    dx, dy = POOL_CORE * (x2 - x1), POOL_CORE * (y2 - y1)
    return x1 + dx <= point[0] <= x2 - dx and y1 + dy <= point[1] <= y2 - dy


def _cost(reading: Reading) -> float:
    """The reading step's cost of a reading (a 13-tile one included: it pays its own penalty),
    infinite when it found no legal hand."""
    return math.inf if reading.cost is None else reading.cost


def _tiles_laid(reading: Reading) -> int:
    """How many tiles the reading's sequence lays out."""
    return sum(token != "|" for token in reading.sequence.split())


def _read_in(reading: Reading, row: tuple[int, ...]) -> bool:
    """Was the hand (most of its tiles) read in this row?"""
    used = [i for g in reading.groups for i in g.tiles]
    return bool(used) and 2 * sum(i in set(row) for i in used) > len(used)


def _model(models_dir: Path, name: str) -> Path:
    path = models_dir / name
    if not path.is_file():
        raise FileNotFoundError(f"model {name} not found in {models_dir} (train it, or pass --models)")
    return path
