"""Test doubles for the audit: a video whose frames carry a barcode naming the hand shown, and a
`FrameReader` that really reads that barcode from the pixels (so decoding, sampling, chunking,
gating and checkpointing are exercised for real, without the models)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from audit.reader import FrameReading
from audit.video import Frame

HANDS = {
    1: {"concealed": "123m456p789s11122z", "win_tile": "2z", "melds": []},
    2: {"concealed": "234567m345s22p", "win_tile": "2p",
        "melds": [{"kind": "pon", "tiles": "777z", "called": "7z", "from": "across"}]},
    3: {"concealed": "22334455667788p", "win_tile": "8p", "melds": []},
    4: {"concealed": "123456789m11p", "win_tile": "1p",
        "melds": [{"kind": "chi", "tiles": "345s", "called": "3s", "from": "left"}]},
}
BITS = 6
W, H = 320, 240


def draw_code(img: np.ndarray, code: int) -> None:
    for b in range(BITS):
        v = 255 if (code >> b) & 1 else 0
        img[8:38, 10 + b * 50:50 + b * 50] = v


def read_code(img: np.ndarray) -> int:
    return sum(1 << b for b in range(BITS) if img[23, 30 + b * 50].mean() > 127)


def write_video(path: Path, timeline: list[tuple[float, int]], *, fps: float = 10.0, duration: float,
                seed: int = 0, shake: float = 0.0) -> Path:
    """timeline: (from_s, code) steps; code 0 = no hand; -1 = a frame of pure noise (blur/occlusion)."""
    rng = np.random.default_rng(seed)
    base = cv2.resize((rng.random((H // 8, W // 8, 3)) * 255).astype(np.uint8), (W, H), interpolation=cv2.INTER_LINEAR)
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (W, H))
    n = int(round(duration * fps))
    for i in range(n):
        t = i / fps
        code = 0
        for start, c in timeline:
            if t >= start:
                code = c
        img = base.copy()
        if code == -1:
            img = (rng.random((H, W, 3)) * 255).astype(np.uint8)
        else:
            draw_code(img, code)
        if shake:  # the camera shakes: the whole picture moves
            dx, dy = rng.normal(0, shake, 2)
            img = cv2.warpAffine(img, np.float32([[1, 0, dx], [0, 1, dy]]), (W, H), borderMode=cv2.BORDER_REFLECT)
        vw.write(img)
    vw.release()
    return path


class BarcodeReader:
    """Reads the barcode: code k → HANDS[k]; counts how many frames it really read."""

    identity = "barcode/1"

    def __init__(self, confidence: float = 0.9, delay: float = 0.0):
        self.confidence = confidence
        self.delay = delay
        self.reads = 0

    def read(self, frame: Frame) -> FrameReading:
        self.reads += 1
        if self.delay:
            time.sleep(self.delay)  # as slow as a real model, for interruption tests
        code = read_code(frame.image)
        hand = HANDS.get(code)
        # a confidence with more decimals than the checkpoint keeps, as a model's has: a resumed
        # run must still give the same report
        conf = self.confidence * (1.0 - 1.234567e-5 * (frame.index % 7)) if hand else 0.0
        return FrameReading(frame.index, frame.t, hand, None if hand is None else f"hand {code}",
                            conf, 14 if hand else 0, "read")

    def annotate(self, frame: Frame) -> np.ndarray:
        img = frame.image.copy()
        cv2.rectangle(img, (5, 5), (W - 5, 40), (255, 0, 0), 2)
        return img


@dataclass(frozen=True)
class BarcodeReaderFactory:
    """Picklable: builds a BarcodeReader in each worker process."""

    confidence: float = 0.9
    delay: float = 0.0
    identity: str = "barcode/1"

    def __call__(self) -> BarcodeReader:
        return BarcodeReader(self.confidence, self.delay)


def fake_score(hand: dict) -> dict:
    """A stand-in scorer with a visible dependence on the context: points = 1000 × hand number (+500 tsumo)."""
    code = next(k for k, h in HANDS.items() if h["concealed"] == hand["concealed"])
    pts = 1000 * code + (500 if hand.get("win") == "tsumo" else 0)
    return {"han": code, "fu": 30, "yakuman": 0, "limit": None, "points": pts, "payments": {"discarder": pts},
            "total": pts + 300 * hand.get("honba", 0), "yaku": [{"name": "fake", "han": code}], "error": None}


@dataclass(frozen=True)
class DyingReaderFactory:
    """A worker process that dies (as if killed for memory) on reaching `die_at_s` of the video."""

    die_at_s: float
    identity: str = "barcode/1"

    def __call__(self) -> BarcodeReader:
        return _DyingReader(self.die_at_s)


class _DyingReader(BarcodeReader):
    def __init__(self, die_at_s: float):
        super().__init__()
        self.die_at_s = die_at_s

    def read(self, frame: Frame) -> FrameReading:
        if frame.t >= self.die_at_s:
            import os

            os._exit(9)
        return super().read(frame)
