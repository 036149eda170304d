"""Shared test helpers: where the read-only reference material (`../shared`) and the repo are, and how many
processes the large rendered-set tests may use."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"reference material not found at {SHARED} (CI clones the repo beside shared/)")
    return SHARED


@pytest.fixture(scope="session")
def repo_dir() -> Path:
    return REPO


@pytest.fixture(scope="session")
def processes() -> int:
    """Processes for the large rendered-set tests: `$TSUMO_TEST_WORKERS`, else every CPU this process may use."""
    return int(os.environ.get("TSUMO_TEST_WORKERS") or len(os.sched_getaffinity(0)))
