"""The progress line: share done, video time, speed, ETA; redraws on a terminal, throttled otherwise."""
from __future__ import annotations

import io

from audit.progress import Progress


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_eta_from_fresh_work_only(monkeypatch):
    clock = iter([0.0, 10.0, 10.0, 20.0, 20.0, 20.0])
    monkeypatch.setattr("audit.progress.time.monotonic", lambda: next(clock))
    out = Tty()
    p = Progress(600.0, out)
    p.advance(300.0, resumed=True)          # resumed work says nothing about speed
    assert "ETA --:--" in out.getvalue()
    p.advance(60.0, events=2)               # 60 s of video in 20 s: 3× real time, 240 s left → 80 s
    line = out.getvalue().split("\r")[-1]
    assert "60.0%" in line and "6:00/10:00 of video" in line and "3.0× real time" in line
    assert "ETA 1:20" in line and "2 events" in line


def test_not_a_terminal_prints_whole_lines_now_and_then():
    out = io.StringIO()
    p = Progress(100.0, out, every_s=3600)
    for _ in range(10):
        p.advance(10.0)
    p.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in out.getvalue() and "100.0%" in lines[-1]


def test_disabled_prints_nothing():
    out = io.StringIO()
    p = Progress(10.0, out, enabled=False)
    p.advance(5.0)
    p.close()
    assert out.getvalue() == ""
