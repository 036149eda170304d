"""Decode a video with OpenCV and sample frames from it.

Frames are sampled at fixed times (`k / sample_fps`), each mapped to the nearest frame index,
so the same video and rate give the same frames whichever chunk, process or machine reads
them. A file OpenCV cannot open, or a stream that ends before its header says it should,
raises `VideoError` naming what is wrong and (for a stream that ends early) how far it got.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Literal, Sequence

# FFmpeg prints decoder complaints straight to stderr; our own errors say what matters.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

ErrorKind = Literal["missing", "unreadable", "truncated"]

# A stream may legitimately stop a frame or two short of the frame count in its header.
_END_SLACK_FRAMES = 2


class VideoError(Exception):
    """A video that cannot be (fully) read. `at_s` is where reading stopped, if it started."""

    def __init__(self, kind: ErrorKind, message: str, at_s: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.at_s = at_s


@dataclass(frozen=True)
class VideoInfo:
    path: str
    fps: float
    frame_count: int
    width: int
    height: int

    @property
    def duration_s(self) -> float:
        return self.frame_count / self.fps

    def to_json(self) -> dict:
        return {"path": self.path, "fps": self.fps, "frame_count": self.frame_count,
                "width": self.width, "height": self.height}


@dataclass(frozen=True)
class Frame:
    index: int
    t: float
    image: np.ndarray  # H×W×3 uint8 RGB


def _open(path: str | Path) -> cv2.VideoCapture:
    p = Path(path)
    if not p.exists():
        raise VideoError("missing", f"{p}: no such file")
    if not p.is_file():
        raise VideoError("unreadable", f"{p}: not a file")
    cap = cv2.VideoCapture(str(p))
    if not cap.isOpened():
        cap.release()
        raise VideoError("unreadable", f"{p}: cannot open as a video (corrupt, truncated or not a video file)")
    return cap


def probe_video(path: str | Path) -> VideoInfo:
    """Read the header: frame rate, frame count, size. Raises VideoError if unusable."""
    still = VideoError("unreadable", f"{path}: a still image, not a video "
                                     "(to score a photo of a hand, use `tsumo score`)")
    try:
        info = _probe(path)
    except VideoError as exc:
        # OpenCV opens a photo as a "video" of one frame, or of none: say what the file really is
        if exc.kind == "unreadable" and Path(path).is_file() and cv2.haveImageReader(str(path)):
            raise still from None
        raise
    if info.frame_count <= 1 and cv2.haveImageReader(str(path)):
        raise still
    return info


def _probe(path: str | Path) -> VideoInfo:
    cap = _open(path)
    try:
        fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        width = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0)
        height = int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
        if not (fps > 0 and np.isfinite(fps)):
            raise VideoError("unreadable", f"{path}: the video has no usable frame rate")
        if count <= 0 or width <= 0 or height <= 0:
            raise VideoError("unreadable", f"{path}: the video has no frames")
        ok = cap.grab()
        if not ok:
            raise VideoError("unreadable", f"{path}: the first frame cannot be decoded (corrupt file?)", at_s=0.0)
        return VideoInfo(str(path), fps, count, width, height)
    finally:
        cap.release()


def sample_indices(info: VideoInfo, sample_fps: float) -> list[int]:
    """Frame indices nearest to the times 0, 1/sample_fps, 2/sample_fps, … (no duplicates)."""
    if sample_fps <= 0:
        raise ValueError("sample_fps must be positive")
    if sample_fps >= info.fps:  # every frame (what the loop gives, without k running to fps × frames)
        return list(range(info.frame_count))
    out: list[int] = []
    k = 0
    while True:
        idx = int(round(k / sample_fps * info.fps))
        if idx >= info.frame_count:
            return out
        if not out or idx != out[-1]:
            out.append(idx)
        k += 1


def read_frames(info: VideoInfo, indices: Sequence[int]) -> Iterator[Frame]:
    """Yield the frames at `indices` (ascending), decoding through the ones in between.

    Raises VideoError("truncated") after the last good frame if the stream stops early.
    """
    if not indices:
        return
    cap = _open(info.path)
    try:
        first = indices[0]
        if first > 0:
            cap.set(cv2.CAP_PROP_POS_FRAMES, first)
        pos = first  # index of the frame the next grab() returns
        for idx in indices:
            while pos <= idx:
                if not cap.grab():
                    if pos >= info.frame_count - _END_SLACK_FRAMES:
                        return  # the header over-counted by a frame or two: a normal end
                    at = pos / info.fps
                    raise VideoError(
                        "truncated",
                        f"{info.path}: the video stream stops at {at:.1f} s of {info.duration_s:.1f} s "
                        f"(frame {pos} of {info.frame_count}); the file is truncated or corrupt",
                        at_s=at)
                pos += 1
            ok, bgr = cap.retrieve()
            if not ok or bgr is None:
                at = idx / info.fps
                raise VideoError("truncated", f"{info.path}: frame {idx} ({at:.1f} s) cannot be decoded; "
                                 "the file is corrupt", at_s=at)
            yield Frame(idx, idx / info.fps, cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
    finally:
        cap.release()
