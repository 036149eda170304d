"""Resumable progress: `REPORT_DIR/checkpoint.json`, rewritten atomically after every chunk.

It holds every finished chunk's readings and the events already final, under a fingerprint of
everything that decides readings (videos by path/size/mtime, sampling, chunking, gate, reader
identity). A rerun with the same fingerprint skips the finished chunks; since events and
scores are pure functions of the readings, the final report equals an uninterrupted run's.
A write is `tmp file → fsync → rename`, so `kill -9` leaves the old or the new file, never half.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from audit.scan import ChunkResult

FILENAME = "checkpoint.json"
VERSION = 1


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that a crash leaves either the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass  # some filesystems cannot fsync a directory; the rename is still atomic


class OtherRunCheckpoint(Exception):
    """The folder holds the checkpoint of a run with other videos or settings (see `Checkpoint.open`)."""


# Fingerprint keys as a user would name them.
_WHAT = {"videos": "videos (or video files changed since)", "sample_fps": "--fps", "chunk_s": "--chunk",
         "gate": "frame gate", "scan": "tsumo version", "reader": "models or player count"}


def _differences(old: dict, new: dict) -> str:
    keys = [k for k in new if old.get(k) != new.get(k)] + [k for k in old if k not in new]
    return ", ".join(dict.fromkeys(_WHAT.get(k, k) for k in keys)) or "format"


class Checkpoint:
    def __init__(self, out_dir: Path, fingerprint: dict):
        self.path = Path(out_dir) / FILENAME
        self.fingerprint = fingerprint
        self.chunks: dict[tuple[int, int], ChunkResult] = {}
        self.events: dict[int, list[dict]] = {}

    @classmethod
    def open(cls, out_dir: Path, fingerprint: dict, *,
             restart: bool = False) -> tuple["Checkpoint", str | None]:
        """Resume from a matching checkpoint, else start empty. Returns (checkpoint, note).

        A checkpoint of another run (other videos or settings) raises `OtherRunCheckpoint`: its
        finished chunks may be hours of work, so only `restart` (asked for) starts over on it. The file
        is replaced at the first save, so a run that fails before finishing a chunk loses nothing."""
        cp = cls(out_dir, fingerprint)
        if not cp.path.exists():
            return cp, None
        if restart:
            return cp, f"discarding {cp.path} (restart); starting over"
        try:
            data = json.loads(cp.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as exc:
            return cp, f"ignoring unreadable checkpoint {cp.path} ({exc}); starting over"
        if data.get("version") != VERSION or data.get("fingerprint") != fingerprint:
            n = len(data.get("chunks") or [])
            other = data.get("fingerprint") if isinstance(data.get("fingerprint"), dict) else {}
            raise OtherRunCheckpoint(
                f"{cp.path} holds {n} finished chunk{'s' * (n != 1)} of a run with other "
                f"{_differences(other, fingerprint)}; rerun with the same videos and settings to resume "
                f"it, add --restart to discard it, or write this report to another folder")
        for c in data.get("chunks", []):
            r = ChunkResult.from_json(c)
            cp.chunks[(r.video, r.number)] = r
        cp.events = {int(k): v for k, v in data.get("events", {}).items()}
        n = len(cp.chunks)
        return cp, f"resuming from {cp.path}: {n} chunk{'s' * (n != 1)} already done"

    def add(self, result: ChunkResult) -> None:
        # Kept as a resumed run would load it (the JSON rounds times and confidences), so a run
        # killed and resumed derives its events from exactly the readings an uninterrupted run has.
        self.chunks[(result.video, result.number)] = ChunkResult.from_json(
            json.loads(json.dumps(result.to_json())))

    def save(self) -> None:
        data = {
            "version": VERSION,
            "fingerprint": self.fingerprint,
            "events": {str(k): v for k, v in sorted(self.events.items())},
            "chunks": [self.chunks[k].to_json() for k in sorted(self.chunks)],
        }
        atomic_write(self.path, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
