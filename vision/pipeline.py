"""One object that reads photos: loads both ONNX models once, then `read(image) -> Reading`.

`PhotoReader` holds no per-photo state, and onnxruntime sessions may be run from several
threads at once, so one reader serves every request of the HTTP API.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from vision.reading import Reading, read_hand
from vision.recognize import Classifier, Detector, recognize

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DETECTOR_FILE = "tile_detector.onnx"
CLASSIFIER_FILE = "tile_classifier.onnx"
# Optional: a detector trained for the reader's second, closer look around the hand only
# (`vision.recognize.turned_view`); without it the photo's detector looks again.
CLOSER_FILE = "tile_detector_closer.onnx"


class PhotoReader:
    """Photo (RGB uint8 array) → `Reading`: detect, deskew, classify, lay out, check."""

    def __init__(self, models_dir: Path | None = None, threads: int = 2, *,
                 detector: Detector | None = None, classifier: Classifier | None = None,
                 classify_all: bool = False, closer: Detector | None = None):
        models_dir = Path(models_dir) if models_dir else MODELS_DIR
        if detector is None:
            from vision.detect import TileDetector

            detector = TileDetector(_model(models_dir, DETECTOR_FILE), threads)
            if closer is None and (models_dir / CLOSER_FILE).is_file():
                closer = TileDetector(models_dir / CLOSER_FILE, threads)
        if classifier is None:
            from vision.classify import TileClassifier

            classifier = TileClassifier(_model(models_dir, CLASSIFIER_FILE), threads)
        self.detector = detector
        self.closer = closer
        self.classifier = classifier
        self.classify_all = classify_all

    def read(self, image: np.ndarray, *, players: int = 4) -> Reading:
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError("PhotoReader.read expects an H×W×3 uint8 RGB array (see vision.io.load_image)")
        if players not in (3, 4):
            raise ValueError(f"players must be 3 or 4, not {players!r}")
        t0 = time.perf_counter()
        rec = recognize(image, self.detector, self.classifier, classify_all=self.classify_all, closer=self.closer)
        t1 = time.perf_counter()
        reading = self._read_either_side(rec, players)
        reading.timings["layout_ms"] = (time.perf_counter() - t1) * 1000
        # no hand in that row: try the next rows at other angles, likeliest first (another
        # player's hand or discards nearer the camera can look likelier than the hand seen askew);
        # the photo's boxes, rows and first-pass classes are the same: not found again
        for rank in range(1, rec.other_rows + 1):
            if reading.hand is not None:
                break
            rec2 = recognize(image, self.detector, self.classifier, classify_all=self.classify_all, row_rank=rank,
                             survey=rec.survey, closer=self.closer)
            second = self._read_either_side(rec2, players)
            if second.hand is None and rec2.row:
                # (the row the photo was turned for, even when a longer row in line with it
                # outscores it so far that the layout would not weigh it)
                second = self._read(rec2, players, row=rec2.row)
            if second.hand is not None:
                second.notes.append("the hand was read in another row than the likeliest one")
                second.timings["layout_ms"] = reading.timings["layout_ms"]
                reading = second
        reading.timings["total_ms"] = (time.perf_counter() - t0) * 1000
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
        angle = (-rec.frame.angle + 180.0) % 360.0 - 180.0 if rec.tiles else None
        return read_hand(rec.tiles, players=players, row=row, row_angle=angle, image_size=rec.image_size,
                         timings=rec.timings, seen_row=rec.row, pairs=rec.read_pairs)


def _read_in(reading: Reading, row: tuple[int, ...]) -> bool:
    """Was the hand (most of its tiles) read in this row?"""
    used = [i for g in reading.groups for i in g.tiles]
    return bool(used) and 2 * sum(i in set(row) for i in used) > len(used)


def _model(models_dir: Path, name: str) -> Path:
    path = models_dir / name
    if not path.is_file():
        raise FileNotFoundError(f"model {name} not found in {models_dir} (train it, or pass --models)")
    return path
