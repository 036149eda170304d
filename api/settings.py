"""How one API process is configured: limits, model folder, where kept photos go.

Settings are a frozen dataclass handed to `create_app`, so tests build an app with any limits they
need. `from_env` reads `TSUMO_*` variables: that is how `tsumo serve --workers N` passes its flags
to the worker processes uvicorn starts (they import the app factory afresh).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from pathlib import Path

MB = 1024 * 1024


def default_keep_dir() -> Path:
    """Where `keep=true` photos go unless configured: `$XDG_DATA_HOME/tsumo/photos`."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "tsumo" / "photos"


@dataclass(frozen=True)
class ApiSettings:
    models_dir: Path | None = None
    """Folder with the ONNX models; None = the models shipped in the repository."""
    reader_threads: int = 2
    """onnxruntime intra-op threads per inference."""
    inference_workers: int = 1
    """Photos read at the same time. On a 2-core box one read already uses both cores."""
    inference_queue: int = 4
    """Photos allowed to wait for a worker; one more gets 503 + Retry-After at once."""
    max_photo_bytes: int = 20 * MB
    """Largest photo request body (multipart, photo + context); larger is refused with 413 while streaming."""
    max_json_bytes: int = 256 * 1024
    """Largest JSON request body for /v1/hands/score."""
    max_pixels: int = 40_000_000
    """Largest image (width × height, from the header, before any decode); larger → 413."""
    keep_dir: Path | None = None
    """Where photos go when a request asks `keep=true`; None = `default_keep_dir()`."""
    load_models: bool = True
    """False serves hands and rules only (photo endpoints and /healthz answer 503)."""

    @property
    def photos_dir(self) -> Path:
        return self.keep_dir if self.keep_dir is not None else default_keep_dir()

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> "ApiSettings":
        """Read `TSUMO_<FIELD>` (e.g. `TSUMO_MODELS_DIR`, `TSUMO_MAX_PHOTO_BYTES`)."""
        env = os.environ if environ is None else environ
        settings = cls()
        changes: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get(f"TSUMO_{f.name.upper()}")
            if raw is None or raw == "":
                continue
            current = getattr(settings, f.name)
            if f.name in ("models_dir", "keep_dir"):
                changes[f.name] = Path(raw)
            elif isinstance(current, bool):
                changes[f.name] = raw.strip().lower() in ("1", "true", "yes", "on")
            else:
                try:
                    changes[f.name] = int(raw)
                except ValueError as exc:
                    raise ValueError(f"TSUMO_{f.name.upper()} must be an integer, got {raw!r}") from exc
        return replace(settings, **changes)

    def to_env(self) -> dict[str, str]:
        """The inverse of `from_env`, for handing settings to worker processes."""
        env: dict[str, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            env[f"TSUMO_{f.name.upper()}"] = ("1" if value else "0") if isinstance(value, bool) else str(value)
        return env
