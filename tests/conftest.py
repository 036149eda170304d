"""Shared test helpers: where the read-only reference material (`../shared`) and the repo are."""
from __future__ import annotations

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
