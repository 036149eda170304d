"""Reveal events: a complete winning hand that stays readable for a moment.

Input: the readings of the sampled frames of one video, in time order. Frames whose hand was
read form *runs* (unreadable frames shorter than `max_gap_s` — blur, a hand passing over —
do not break a run). A run splits where a different hand is read durably (`min_frames` frames
in a row), so two hands shown one after the other are two events. In each part the hand read
most often wins the vote; it is an event if at least `min_frames` frames agree on it.

Everything here is a pure function of the readings, so chunked, parallel, Ray and resumed runs
that produce the same readings produce the same events.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from statistics import median
from typing import Sequence

from audit.reader import FrameReading


@dataclass(frozen=True)
class EventParams:
    min_frames: int = 3      # frames that must agree on the hand
    min_hold_s: float = 1.0  # from the first to the last agreeing frame
    max_gap_s: float = 2.5   # longer stretches without a hand end a run

    def to_json(self) -> dict:
        return {"min_frames": self.min_frames, "min_hold_s": self.min_hold_s, "max_gap_s": self.max_gap_s}


@dataclass(frozen=True)
class Event:
    start_s: float
    end_s: float
    hand: dict
    sequence: str | None
    confidence: float     # agreement × median per-frame confidence of the agreeing frames
    agreement: float      # share of the readable frames in the event that read this hand
    frames: int           # readable frames in the event
    best_index: int       # frame index of the most confident agreeing frame
    best_t: float

    def to_json(self) -> dict:
        return {"start_s": round(self.start_s, 3), "end_s": round(self.end_s, 3), "hand": self.hand,
                "sequence": self.sequence, "confidence": round(self.confidence, 4),
                "agreement": round(self.agreement, 4), "frames": self.frames,
                "best_frame": {"index": self.best_index, "t": round(self.best_t, 3)}}

    @classmethod
    def from_json(cls, d: dict) -> "Event":
        return cls(d["start_s"], d["end_s"], d["hand"], d.get("sequence"), d["confidence"],
                   d["agreement"], d["frames"], d["best_frame"]["index"], d["best_frame"]["t"])


def _runs(hits: list[FrameReading], max_gap_s: float) -> list[list[FrameReading]]:
    runs: list[list[FrameReading]] = []
    for r in hits:
        if runs and r.t - runs[-1][-1].t <= max_gap_s:
            runs[-1].append(r)
        else:
            runs.append([r])
    return runs


def _split_on_change(run: list[FrameReading], min_frames: int) -> list[list[FrameReading]]:
    """Cut a run where a new hand is read in `min_frames` frames in a row (lone misreads stay)."""
    parts: list[list[FrameReading]] = [[]]
    current: str | None = None
    streak: list[FrameReading] = []
    for r in run:
        if current is None:
            current = r.key
        if r.key == current:
            parts[-1].extend(streak)
            streak = []
            parts[-1].append(r)
            continue
        if streak and streak[-1].key != r.key:
            parts[-1].extend(streak)
            streak = []
        streak.append(r)
        if len(streak) >= min_frames:
            if parts[-1]:
                parts.append([])
            parts[-1].extend(streak)
            current, streak = r.key, []
    parts[-1].extend(streak)
    return [p for p in parts if p]


def _event(part: list[FrameReading], params: EventParams) -> Event | None:
    votes = Counter(r.key for r in part)
    conf_sum: dict[str, float] = {}
    for r in part:
        conf_sum[r.key] = conf_sum.get(r.key, 0.0) + r.confidence
    # Most frames; then most total confidence; then the hand seen first.
    first_seen = {}
    for i, r in enumerate(part):
        first_seen.setdefault(r.key, i)
    key = max(votes, key=lambda k: (votes[k], conf_sum[k], -first_seen[k]))
    agreeing = [r for r in part if r.key == key]
    if len(agreeing) < params.min_frames or agreeing[-1].t - agreeing[0].t < params.min_hold_s:
        return None
    best = max(agreeing, key=lambda r: (r.confidence, -r.t))
    agreement = len(agreeing) / len(part)
    return Event(part[0].t, part[-1].t, agreeing[0].hand, best.sequence,
                 agreement * median(r.confidence for r in agreeing), agreement, len(part),
                 best.index, best.t)


def detect_events(readings: Sequence[FrameReading], params: EventParams = EventParams(),
                  *, until_s: float | None = None) -> list[Event]:
    """Events in time order. With `until_s` (readings known up to that time only), only the
    events that later frames can no longer change are returned."""
    hits = [r for r in sorted(readings, key=lambda r: r.t) if r.hand is not None]
    events: list[Event] = []
    for run in _runs(hits, params.max_gap_s):
        if until_s is not None and until_s - run[-1].t <= params.max_gap_s:
            break  # the run may still grow
        for part in _split_on_change(run, params.min_frames):
            ev = _event(part, params)
            if ev is not None:
                events.append(ev)
    return events
