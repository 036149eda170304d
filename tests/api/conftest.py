"""Fixtures for the API tests: apps built with chosen limits, and a stand-in photo reader.

The stand-in is used only where a test is about the *service* (limits, queueing, logging,
keeping photos): it returns a fixed reading after an optional delay, so those tests are quick
and exact. What the real models read is tested with the shipped models in test_photos_real.py.
"""
from __future__ import annotations

import io
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from api.app import create_app
from api.settings import ApiSettings

# 123m 456p 789s 111z 22z, won on 2z: East triplet (a value tile for an East seat in an East round).
HAND = {"concealed": "123m456p789s11122z", "win_tile": "2z", "melds": [], "nukidora": 0}


def reading_json(hand: dict | None = HAND) -> dict:
    """A reading shaped like `vision.reading.Reading.to_json()` (two tiles shown)."""
    return {
        "tiles": [
            {"index": 0, "box": [10.0, 20.0, 40.0, 60.0], "label": "1m", "rotation": 0, "sideways": False,
             "stacked": False, "confidence": 0.98, "candidates": [{"label": "1m", "p": 0.98}], "group": 0, "in_hand": True},
            {"index": 1, "box": [42.0, 20.0, 72.0, 60.0], "label": "2m", "rotation": 0, "sideways": False,
             "stacked": False, "confidence": 0.55, "candidates": [{"label": "2m", "p": 0.55}, {"label": "3m", "p": 0.4}],
             "group": 0, "in_hand": True},
        ],
        "groups": [{"kind": "closed", "tiles": [0, 1], "mpsz": "12m", "called": None, "added": None, "from": None}],
        "hand": hand,
        "uncertain": [1],
        "error": None if hand else "no complete hand: 2 tiles read",
    }


def reading_13_json() -> dict:
    """A reading of 13 tiles waiting on 2z (123m 456p 789s 111z 2z), shaped like the reader's."""
    return {**reading_json(hand=None), "error_code": "no_winning_tile",
            "partial": {"concealed": "123m456p789s1112z", "melds": [], "nukidora": 0, "waits": ["2z"]},
            "error": "the winning tile is not in the photo: the hand waits on 2z (give it with --win / win_tile)"}


@dataclass
class FakeReading:
    data: dict

    @property
    def hand(self) -> dict | None:
        return self.data["hand"]

    def hand_with_win(self, win_tile: str) -> dict:
        partial = self.data.get("partial") or {}
        if self.hand is None and win_tile in (partial.get("waits") or []):  # completes a 13-tile reading
            return {"concealed": partial["concealed"] + win_tile, "win_tile": win_tile, "melds": [], "nukidora": 0}
        if self.hand is None:
            raise ValueError(self.data.get("error") or "no hand was read")
        if win_tile not in ("1m", "2m", "3m", "2z", "1z"):
            raise ValueError(f"{win_tile} is not among the concealed tiles read")
        return {**self.hand, "win_tile": win_tile}

    def to_json(self) -> dict:
        return self.data


@dataclass
class FakeReader:
    """Returns `reading`; sleeps `delay` s (blocking, like real inference); records each call."""

    reading: dict = field(default_factory=reading_json)
    delay: float = 0.0
    calls: list[dict[str, Any]] = field(default_factory=list)

    def read(self, image: Any, *, players: int = 4) -> FakeReading:
        self.calls.append({"shape": getattr(image, "shape", None), "players": players,
                           "thread": threading.current_thread().name})
        if self.delay:
            time.sleep(self.delay)
        return FakeReading(self.reading)


def jpeg_bytes(width: int = 64, height: int = 48, **save: Any) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 60)).save(buf, "JPEG", **save)
    return buf.getvalue()


def png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose header declares `width`×`height` pixels (a decompression bomb's shape)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def wait_ready(client: TestClient, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if client.get("/healthz").status_code == 200:
            return
        time.sleep(0.01)
    raise AssertionError(f"models not loaded after {timeout} s: {client.get('/healthz').json()}")


@pytest.fixture
def make_client(tmp_path) -> Iterator[Callable[..., TestClient]]:
    """`make_client(reader=FakeReader(), **settings)` → a started TestClient, reader loaded."""
    clients: list[TestClient] = []

    def make(reader: Any = None, wait: bool = True, **overrides: Any) -> TestClient:
        overrides.setdefault("keep_dir", tmp_path / "kept")
        settings = ApiSettings(**overrides)
        reader = reader if reader is not None else FakeReader()
        factory = reader if callable(reader) and not hasattr(reader, "read") else (lambda s: reader)
        client = TestClient(create_app(settings, reader_factory=factory))
        client.__enter__()
        clients.append(client)
        if wait and settings.load_models:
            wait_ready(client)
        return client

    yield make
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def client(make_client) -> TestClient:
    return make_client()
