"""Read many photos with per-process models: in this process, or in a pool of spawned processes.

The measuring scripts (`eval_reading.py`, `same_readings.py`) all read a list of photo jobs with readers
that are costly to build (ONNX sessions) and must not cross a process boundary. `job_map` builds the
readers once per process and gives back a function from jobs to results, in job order, so a script's
figures do not depend on how many processes read them.

Why spawn: a forked child would inherit onnxruntime's threads half-initialised.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

_STATE: list[Any] = []  # a worker process's readers, built by `_init`


def _init(setup: Callable[..., Any], args: tuple) -> None:
    _STATE[:] = [setup(*args)]


def _call(work: Callable[[Any, Any], Any], job: Any) -> Any:
    return work(_STATE[0], job)


@contextmanager
def job_map(setup: Callable[..., Any], args: tuple, work: Callable[[Any, Any], Any], workers: int
            ) -> Iterator[Callable[[Iterable[Any]], Iterator[Any]]]:
    """Yield `run(jobs)` → `work(state, job)` for each job, in order, where `state = setup(*args)`.

    `workers` <= 1: built and run here, lazily. Otherwise `workers` spawned processes each build their own
    state; `setup` and `work` must then be module-level functions (they are pickled by name). Leaving the
    block cancels jobs not yet started."""
    if workers <= 1:
        state = setup(*args)
        yield lambda jobs: (work(state, job) for job in jobs)
        return
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_init, initargs=(setup, args))
    try:
        yield lambda jobs: pool.map(partial(_call, work), jobs, chunksize=2)
    finally:
        pool.shutdown(cancel_futures=True)
