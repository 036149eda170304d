"""Running photo reads: the reader loaded once, and a gate that bounds how many run at a time.

The reader is loaded in a worker thread while the server already answers, so `/healthz` can say
503 "loading" (a readiness probe) instead of the port staying closed. Reads run in worker threads
(never on the event loop) behind an `InferenceGate`: at most `workers` run, at most `queue` wait,
and the next request is refused at once with 503 + Retry-After rather than piling up latency and
memory.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Protocol, TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T")


class Reader(Protocol):
    """What the API needs from `vision.pipeline.PhotoReader`."""

    def read(self, image: Any, *, players: int = 4) -> Any: ...


@dataclass
class ReaderState:
    """The photo reader and how its loading went: "loading", "ready", "failed" or "disabled"."""

    status: str = "loading"
    reader: Reader | None = None
    error: str | None = None
    load_seconds: float | None = None

    def load(self, factory: Callable[[], Reader]) -> None:
        """Build the reader (blocking; call it in a thread). Never raises: failure is a state."""
        start = time.perf_counter()
        try:
            reader = factory()
        except Exception as exc:  # a missing or broken model must not kill the server
            self.error = f"{type(exc).__name__}: {exc}"
            self.status = "failed"
        else:
            self.reader = reader
            self.status = "ready"
        self.load_seconds = round(time.perf_counter() - start, 3)


class Saturated(Exception):
    """Every worker is busy and the queue is full."""

    def __init__(self, retry_after: int):
        super().__init__(f"busy, retry in {retry_after} s")
        self.retry_after = retry_after


@dataclass
class InferenceGate:
    """At most `workers` reads in threads at once, at most `queue` waiting; more → `Saturated`.

    The counter is only touched on the event loop (one thread), so it needs no lock.
    """

    workers: int = 1
    queue: int = 4
    in_flight: int = 0
    mean_seconds: float = 0.5  # running mean of one read, to tell clients when to come back
    _limiter: anyio.CapacityLimiter | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.workers < 1 or self.queue < 0:
            raise ValueError("InferenceGate needs workers >= 1 and queue >= 0")

    @property
    def capacity(self) -> int:
        return self.workers + self.queue

    def retry_after(self) -> int:
        """Seconds until a slot is likely free: the queue ahead divided among the workers."""
        return max(1, math.ceil(self.in_flight * self.mean_seconds / self.workers))

    def check(self) -> None:
        """Raise `Saturated` now if a new read would be refused (before reading the upload)."""
        if self.in_flight >= self.capacity:
            raise Saturated(self.retry_after())

    @asynccontextmanager
    async def _slot(self) -> AsyncIterator[None]:
        if self.in_flight >= self.capacity:
            raise Saturated(self.retry_after())
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(*args)` in a worker thread once a worker is free; raise `Saturated` if full."""
        if self._limiter is None:  # created lazily: it must belong to the running event loop
            self._limiter = anyio.CapacityLimiter(self.workers)
        async with self._slot():
            def timed() -> tuple[T, float]:
                start = time.perf_counter()
                value = fn(*args)
                return value, time.perf_counter() - start

            result, elapsed = await anyio.to_thread.run_sync(timed, limiter=self._limiter)
            self.mean_seconds = 0.8 * self.mean_seconds + 0.2 * elapsed
            return result
