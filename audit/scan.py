"""Read one chunk of a video: its sampled frames → `FrameReading`s.

Most footage is still: the table between hands, a hand held up for a few seconds. A frame
that shows the same picture as the last frame actually read (after cancelling camera shake)
reuses that reading instead of running the models again — but never for longer than
`max_reuse_s`, so a slow change is still caught. The gate's state starts fresh in every
chunk, and chunk boundaries are fixed by the plan, so readings do not depend on which worker
(or which run, after a resume) read the chunk.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from audit.reader import MIN_HAND_TILES, FrameReader, FrameReading, hand_faces
from audit.video import Frame, VideoError, VideoInfo, read_frames


# Bumped when the way frames are read or gated changes: a checkpoint of another version is not resumed.
SCAN_VERSION = 6


@dataclass(frozen=True)
class GateParams:
    thumb_width: int = 160        # still-frame comparison happens on a thumbnail this wide
    pixel_delta: float = 20.0     # a thumbnail pixel "changed" if it differs by more (0–255)
    changed_pixels: int = 10      # the picture changed if at least this many pixels did
    max_shift: float = 6.0        # thumbnail pixels of camera shake cancelled before comparing
    max_reuse_s: float = 4.0      # read again at least this often
    hand_reuse_s: float = 0.0     # … and this often while a hand lies open (every sampled frame:
    #                               independent reads of a reveal are what the event vote needs)
    idle_every: int = 2           # while no hand is shown, read only every n-th sampled frame (a
    #                               reveal is still caught within n samples; it lasts many more)
    enabled: bool = True

    def to_json(self) -> dict:
        return {"thumb_width": self.thumb_width, "pixel_delta": self.pixel_delta,
                "changed_pixels": self.changed_pixels, "max_shift": self.max_shift,
                "max_reuse_s": self.max_reuse_s, "hand_reuse_s": self.hand_reuse_s,
                "idle_every": self.idle_every, "enabled": self.enabled}


def looks_like_a_hand(r: FrameReading) -> bool:
    """A hand was read, or part of one: a hand row kept for fusion, half a hand of faces read
    (a row cut in two, tiles missed in this frame may be found in the next; a row of one class
    over and over — backs or a wall misread — does not count), or a detector that found almost
    enough tiles."""
    if r.hand is not None or r.row is not None:
        return True
    if r.gate == "few-tiles":
        return r.tiles >= MIN_HAND_TILES - 4
    faces = hand_faces(tok.rstrip("-=") for tok in (r.sequence or "").split() if tok != "|")
    return faces >= MIN_HAND_TILES // 2


class StillFrameGate:
    """Tells whether a frame shows the same picture as the last frame that was read."""

    def __init__(self, params: GateParams):
        self.p = params
        self._last: np.ndarray | None = None
        self._last_t = 0.0

    def _thumb(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        tw = self.p.thumb_width
        th = max(1, round(h * tw / w))
        gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
        small = cv2.resize(gray, (tw, th), interpolation=cv2.INTER_AREA).astype(np.float32)
        return cv2.GaussianBlur(small, (3, 3), 0)

    def is_still(self, frame: Frame, max_reuse_s: float | None = None) -> bool:
        limit = self.p.max_reuse_s if max_reuse_s is None else max_reuse_s
        if not self.p.enabled or self._last is None or frame.t - self._last_t >= limit:
            return False
        thumb = self._thumb(frame.image)
        if thumb.shape != self._last.shape:
            return False
        (dx, dy), _ = cv2.phaseCorrelate(self._last, thumb)
        if abs(dx) > self.p.max_shift or abs(dy) > self.p.max_shift:
            return False
        h, w = thumb.shape
        shift = np.float32([[1, 0, -dx], [0, 1, -dy]])
        aligned = cv2.warpAffine(thumb, shift, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        m = int(np.ceil(self.p.max_shift)) + 1
        diff = np.abs(aligned[m:h - m, m:w - m] - self._last[m:h - m, m:w - m])
        return int((diff > self.p.pixel_delta).sum()) < self.p.changed_pixels

    def remember(self, frame: Frame) -> None:
        self._last = self._thumb(frame.image)
        self._last_t = frame.t


@dataclass(frozen=True)
class Chunk:
    """A fixed slice of one video's sampled frames: the unit of work, checkpoint and retry."""

    video: int                 # position of the video in the job
    number: int                # position of the chunk in the video
    info: VideoInfo
    indices: tuple[int, ...]   # sampled frame indices, ascending
    end_s: float               # the next chunk's start (the video's end for the last chunk)

    @property
    def start_s(self) -> float:
        return self.indices[0] / self.info.fps


@dataclass
class ChunkResult:
    video: int
    number: int
    readings: list[FrameReading]
    error: dict | None = None    # {"kind", "message", "at_s"} if the video broke in this chunk
    reads: int = 0               # frames that ran the models (not part of the report)
    seconds: float = 0.0         # wall time (not part of the report)
    timings: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"video": self.video, "number": self.number,
                "readings": [r.to_json() for r in self.readings], "error": self.error,
                "reads": self.reads, "seconds": round(self.seconds, 3)}

    @classmethod
    def from_json(cls, d: dict) -> "ChunkResult":
        return cls(d["video"], d["number"], [FrameReading.from_json(r) for r in d["readings"]],
                   d.get("error"), d.get("reads", 0), d.get("seconds", 0.0))


def scan_chunk(chunk: Chunk, reader: FrameReader, gate: GateParams = GateParams()) -> ChunkResult:
    """Read every sampled frame of the chunk; a broken stream ends the chunk with `error`."""
    t0 = time.perf_counter()
    still = StillFrameGate(gate)
    readings: list[FrameReading] = []
    last: FrameReading | None = None
    reads = 0
    error = None
    try:
        skipped = 0  # sampled frames since the last one read
        before: FrameReading | None = None  # the reading before `last`
        for frame in read_frames(chunk.info, chunk.indices):
            # Hand-like, unless two reads in a row gave the very same reading and no hand (the
            # discards or a face-down hand: a reveal changes what is read)
            hand = last is not None and looks_like_a_hand(last) and not (
                last.hand is None and before is not None and before.sequence == last.sequence)
            if gate.enabled and last is not None and not hand and skipped < gate.idle_every - 1:
                readings.append(last.at(frame.index, frame.t, "idle"))
                skipped += 1
                continue
            if last is not None and still.is_still(frame, gate.hand_reuse_s if hand else gate.max_reuse_s):
                readings.append(last.at(frame.index, frame.t, "still"))
                skipped += 1
                continue
            before, last = last, reader.read(frame)
            reads += 1
            skipped = 0
            still.remember(frame)
            readings.append(last)
    except VideoError as exc:
        error = {"kind": exc.kind, "message": str(exc), "at_s": exc.at_s}
    return ChunkResult(chunk.video, chunk.number, readings, error, reads, time.perf_counter() - t0)
