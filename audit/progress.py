"""A progress line with ETA on stderr, counted in seconds of video processed."""
from __future__ import annotations

import sys
import time
from typing import TextIO


def _clock(seconds: float) -> str:
    s = int(round(max(seconds, 0)))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """On a terminal the line redraws in place; otherwise a line at most every `every_s`."""

    def __init__(self, total_s: float, stream: TextIO | None = None, *, enabled: bool = True,
                 every_s: float = 10.0, width: int = 24):
        self.total = max(total_s, 1e-9)
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every_s = every_s
        self.width = width
        self.done = 0.0
        self.fresh = 0.0          # video seconds processed in this run (resumed work excluded)
        self.events = 0
        self.t0 = time.monotonic()
        self._last_print = -1e9

    def advance(self, video_s: float, *, resumed: bool = False, events: int | None = None) -> None:
        self.done = min(self.total, self.done + video_s)
        if not resumed:
            self.fresh += video_s
        if events is not None:
            self.events = events
        self._draw()

    def line(self) -> str:
        frac = self.done / self.total
        filled = int(round(frac * self.width))
        bar = "█" * filled + "·" * (self.width - filled)
        elapsed = time.monotonic() - self.t0
        speed = self.fresh / elapsed if elapsed > 0 and self.fresh > 0 else 0.0
        eta = (self.total - self.done) / speed if speed > 0 else None
        parts = [f"audit {frac * 100:5.1f}% |{bar}| {_clock(self.done)}/{_clock(self.total)} of video"]
        if speed > 0:
            parts.append(f"{speed:.1f}× real time")
        parts.append(f"ETA {_clock(eta)}" if eta is not None else "ETA --:--")
        parts.append(f"{self.events} event{'s' * (self.events != 1)}")
        return "  ".join(parts)

    def _draw(self, final: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r" + self.line() + ("\n" if final else ""))
        elif final or now - self._last_print >= self.every_s:
            self.stream.write(self.line() + "\n")
            self._last_print = now
        else:
            return
        self.stream.flush()

    def close(self) -> None:
        self._draw(final=True)
