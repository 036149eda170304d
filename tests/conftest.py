"""Shared test helpers: where the read-only reference material (`../shared`) and the repo are, a small rendered
set, how many processes the large rendered-set tests may use, and a labelling search that hands back numpy costs."""
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
def det_test_h_three(tmp_path_factory) -> Path:
    """det_test_h's first three photos (photo seed 99), rendered once per run for the tests of the measuring
    scripts (`eval_reading.py`, `same_readings.py`), which only read them."""
    photos = pytest.importorskip("tsumo_synth.photos")
    out = tmp_path_factory.mktemp("det_test_h_three")
    photos.write_dataset(out, 3, 99, val_frac=0.0, quiet=True)
    return out


@pytest.fixture(scope="session")
def processes() -> int:
    """Processes for the large rendered-set tests: `$TSUMO_TEST_WORKERS`, else every CPU this process may use."""
    return int(os.environ.get("TSUMO_TEST_WORKERS") or len(os.sched_getaffinity(0)))


@pytest.fixture
def numpy_search_costs(monkeypatch) -> None:
    """The reading step's search (`vision.reading._best_reading`) hands back its cost as a numpy float, as it does
    where a fitted gap enters a layout penalty (session 45: the reading's `sure` then was a numpy bool that
    `json.dumps` and the API's responses could not serialise)."""
    import numpy as np

    import vision.reading as reading_mod

    real = reading_mod._best_reading

    def numpy_cost(*args, **kw):
        best = real(*args, **kw)
        return best if best is None else (np.float64(best[0]),) + tuple(best[1:])

    monkeypatch.setattr(reading_mod, "_best_reading", numpy_cost)
