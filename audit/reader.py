"""What the audit needs from a frame: the `FrameReader` protocol and its real implementation.

The event logic only sees `FrameReading`s, so tests can drive it with readers built from
known labels; `PipelineFrameReader` is the real one, over `vision.pipeline.PhotoReader`.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from audit.video import Frame

# A winning hand has at least 14 tiles.
MIN_HAND_TILES = 14
# A frame whose detector finds fewer tiles is not classified: no hand lies open there. Two
# below a hand, since a tile or two of a revealed hand are missed in some frames (blur, glare).
GATE_MIN_TILES = MIN_HAND_TILES - 2
# A hand row with this many faces is kept for fusion (a hand seen in part: a tile missed, the
# row cut in two by a misjudged gap) — and counts as a hand being shown.
ROW_MIN_FACES = MIN_HAND_TILES - 4


def hand_faces(labels) -> int:
    """Faces that can belong to one hand: at most 4 of a kind count (red fives as fives). A row
    of one class over and over — tile backs or a wall misread as white dragons — is no hand."""
    counts: dict[str, int] = {}
    for lb in labels:
        if lb and lb != "back" and not lb.startswith("x"):
            k = "5" + lb[1] if lb[0] == "0" else lb
            counts[k] = counts.get(k, 0) + 1
    return sum(min(c, 4) for c in counts.values())


@dataclass(frozen=True)
class FrameReading:
    """One sampled frame as read: a complete legal hand (CONTRACTS §1 tile keys) or None."""

    index: int
    t: float
    hand: dict | None
    sequence: str | None = None  # what was read, CONTRACTS §3 notation (for people)
    confidence: float = 0.0      # the hand's confidence, 0..1 (0 without a hand)
    tiles: int = 0               # tiles found in the frame
    gate: str = "read"           # "read" | "still" (same picture as the last read) | "idle" (no hand
    #                              shown: every other frame reuses the last reading) | "few-tiles"
    row: dict | None = None      # the hand row's tiles with their class candidates, kept when
    #                              the frame shows a hand or part of one (10+ faces): see `fuse`

    @property
    def key(self) -> str | None:
        """Identity of the hand read: equal hands, equal keys."""
        return None if self.hand is None else json.dumps(self.hand, sort_keys=True)

    def at(self, index: int, t: float, gate: str) -> "FrameReading":
        return replace(self, index=index, t=t, gate=gate)

    def to_json(self) -> dict:
        d = asdict(self)
        d["t"] = round(self.t, 4)
        d["confidence"] = round(self.confidence, 4)
        return d

    @classmethod
    def from_json(cls, d: dict) -> "FrameReading":
        return cls(**d)


@dataclass(frozen=True)
class Fused:
    """A hand read from several frames at once (see `PipelineFrameReader.fuse`)."""

    hand: dict | None
    sequence: str | None
    confidence: float
    frames: int       # frames whose rows were fused
    reference: int    # frame index whose geometry was used
    members: tuple[int, ...] = ()  # frame indices of the fused rows


class FrameReader(Protocol):
    """Reads one frame. `identity` changes whenever readings could change (models, settings).
    A reader may also offer `fuse(readings) -> Fused | None` (several frames, one hand)."""

    identity: str

    def read(self, frame: Frame) -> FrameReading: ...

    def annotate(self, frame: Frame) -> np.ndarray: ...


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


class _OnceDetector:
    """Wraps the detector so the gate's detection of a frame is reused by the full read of the
    same frame (the pipeline asks again for the very same array)."""

    def __init__(self, inner):
        self.inner = inner
        self._image = None
        self._boxes = None

    def prime(self, image: np.ndarray) -> list:
        self._image, self._boxes = image, self.inner.detect(image)
        return self._boxes

    def release(self) -> None:
        self._image = self._boxes = None

    def detect(self, image: np.ndarray) -> list:
        if image is self._image:
            return self._boxes
        return self.inner.detect(image)

    def detect_turned(self, image: np.ndarray, frame) -> tuple[np.ndarray, np.ndarray]:
        """Re-detection on a copy of the photo turned into the hand frame (`vision.recognize`
        asks for it when the row is tilted), always by the bare detector: a wrapper the reader
        puts around this object to remember one photo's boxes must not answer for the turned
        copy (vision/pipeline.py `_Remembered` did, reading every tilted row off the photo)."""
        from vision.recognize import _redetect_turned

        return _redetect_turned(image, self.inner, frame)


class PipelineFrameReader:
    """`FrameReader` over the photo pipeline, with a cheap gate: when the detector finds clearly
    fewer tiles than a winning hand has, the frame is not classified at all."""

    def __init__(self, models_dir: Path | None = None, threads: int = 1, players: int = 4):
        from vision.detect import TileDetector  # heavy (onnxruntime): only where frames are read
        from vision import colour
        from vision.pipeline import DETECTOR_FILE, MODELS_DIR, PhotoReader, _model

        mdir = Path(models_dir) if models_dir else MODELS_DIR
        self._detector = _OnceDetector(TileDetector(_model(mdir, DETECTOR_FILE), threads))
        # (no second looks at an unsure frame, nor at one read empty, nor at one turned upright: most frames show
        # no winning hand, the players' hands lie every way round, and the fusion of a hand's frames is the
        # audit's own second look; with the upright look the long acceptance video read 2.5 times slower)
        self._reader = PhotoReader(models_dir=mdir, threads=threads, detector=self._detector, looks=(), empty_looks=(),
                                   warnings=False, upright=False)  # (warnings: a report of hands, not of frames)
        self.players = players
        digests = sorted(f"{p.name}:{_file_digest(p)}" for p in mdir.glob("*.onnx"))
        # (the light balance's limits: frames cached before dim light was balanced, session 57, are read again)
        light = f"cast{colour.CAST_LIMIT},dim{colour.DIM_LIMIT}" if self._reader.balance else "off"
        self.identity = (f"pipeline/players={players}/min_tiles={GATE_MIN_TILES}/row_faces={ROW_MIN_FACES}/"
                         f"fusion=2/balance={light}/") + ",".join(digests)

    def read(self, frame: Frame) -> FrameReading:
        boxes = self._detector.prime(frame.image)
        try:
            if len(boxes) < GATE_MIN_TILES:
                return FrameReading(frame.index, frame.t, None, None, 0.0, len(boxes), "few-tiles")
            return reading_to_frame(self._reader.read(frame.image, players=self.players), frame)
        finally:
            self._detector.release()

    def annotate(self, frame: Frame) -> np.ndarray:
        from vision.annotate import annotate

        return annotate(frame.image, self._reader.read(frame.image, players=self.players))

    def fuse(self, readings: list[FrameReading]) -> Fused | None:
        from audit.fusion import fuse_rows

        return fuse_rows(readings, self.players)


def reading_to_frame(reading, frame: Frame) -> FrameReading:
    """A `vision.reading.Reading` → the few facts the audit keeps about a frame."""
    hand = reading.hand if not reading.error else None
    conf = float(reading.confidence or 0.0) if hand else 0.0
    return FrameReading(frame.index, frame.t, hand, reading.sequence or None, conf, len(reading.tiles), "read",
                        _row(reading))


def _row(reading) -> dict | None:
    """The hand row's tiles (geometry + class candidates) when it shows 10+ faces that can be
    one hand's (see `hand_faces`), for `fuse`."""
    order = [i for g in reading.groups for i in g.tiles]
    if hand_faces(reading.tiles[i].label for i in order) < ROW_MIN_FACES:
        return None
    tiles = []
    for i in order:
        t = reading.tiles[i]
        cand = [[c.label, round(float(c.prob), 5)] for c in t.candidates] or [[t.label, 1.0]]
        tiles.append({"box": [round(v, 1) for v in t.box], "frame_box": [round(v, 1) for v in t.frame_box],
                      "rotation": t.rotation, "det": round(float(t.det_score), 4), "cand": cand})
    return {"shape": [[g.kind, len(g.tiles)] for g in reading.groups], "tiles": tiles,
            "mean_conf": round(float(np.mean([reading.tiles[i].confidence for i in order])), 5),
            "row_angle": reading.row_angle, "image_size": list(reading.image_size) if reading.image_size else None}
