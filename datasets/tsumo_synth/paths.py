"""Where the training tools keep their work folders (rendered sets, crop mixes, ultralytics runs)."""
from __future__ import annotations

import os
from pathlib import Path

ENV = "TSUMO_TRAIN_CACHE"


def work_cache(repo: Path) -> Path:
    """`$TSUMO_TRAIN_CACHE` when set (the recipe test trains in a temporary folder), else `<repo>/cache`."""
    return Path(os.environ.get(ENV) or Path(repo) / "cache")
