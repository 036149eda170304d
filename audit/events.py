"""Reveal events: a complete winning hand that stays readable for a moment.

Input: the readings of the sampled frames of one video, in time order. Frames that show a hand
— a legal hand was read, or the hand row holds 13+ faces — form *runs* (frames without one
for less than `max_gap_s` — blur, an arm passing over — do not break a run). A run splits where
a different legal hand is read durably (`min_frames` frames in a row), so two hands shown one
after the other are two events. A part with at least `min_frames` such frames spanning
`min_hold_s` is a candidate. Its hand is the legal hand most frames read when the vote is
clear (`min_frames` agree, and half of the frames that show the hand); otherwise it is read
from all its frames at once when the reader can fuse them (per-tile probabilities averaged over
the frames, one legal-hand search). No complete legal hand, no event — so a
tenpai hand shown at a draw is not a win.

Everything here is a pure function of the readings, so chunked, parallel, Ray and resumed runs
that produce the same readings produce the same events.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from statistics import median
from typing import Callable, Sequence

from audit.reader import FrameReading, Fused

Fuse = Callable[[list[FrameReading]], "Fused | None"]


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
    confidence: float     # fused: the fused reading's; voted: agreement × median confidence
    agreement: float      # share of the event's frames whose own reading is this hand
    frames: int           # frames showing a hand in the event
    best_index: int       # frame index of the best frame (most confident agreeing one)
    best_t: float
    fused: int = 0        # frames whose rows were fused into the hand (0: voted)

    def to_json(self) -> dict:
        return {"start_s": round(self.start_s, 3), "end_s": round(self.end_s, 3), "hand": self.hand,
                "sequence": self.sequence, "confidence": round(self.confidence, 4),
                "agreement": round(self.agreement, 4), "frames": self.frames, "fused": self.fused,
                "best_frame": {"index": self.best_index, "t": round(self.best_t, 3)}}

    @classmethod
    def from_json(cls, d: dict) -> "Event":
        return cls(d["start_s"], d["end_s"], d["hand"], d.get("sequence"), d["confidence"],
                   d["agreement"], d["frames"], d["best_frame"]["index"], d["best_frame"]["t"], d.get("fused", 0))


def _runs(hits: list[FrameReading], max_gap_s: float) -> list[list[FrameReading]]:
    runs: list[list[FrameReading]] = []
    for r in hits:
        if runs and r.t - runs[-1][-1].t <= max_gap_s:
            runs[-1].append(r)
        else:
            runs.append([r])
    return runs


def _split_on_change(run: list[FrameReading], min_frames: int) -> list[list[FrameReading]]:
    """Cut a run where a new legal hand is read in `min_frames` frames in a row; lone misreads
    and frames without a legal hand stay in the current part."""
    parts: list[list[FrameReading]] = [[]]
    current: str | None = None
    streak: list[FrameReading] = []
    for r in run:
        key = r.key
        if key is None or current is None or key == current:
            if key is not None and current is None:
                current = key
            parts[-1].extend(streak)
            streak = []
            parts[-1].append(r)
            continue
        if streak and streak[-1].key != key:
            parts[-1].extend(streak)
            streak = []
        streak.append(r)
        if len(streak) >= min_frames:
            if parts[-1]:
                parts.append([])
            parts[-1].extend(streak)
            current, streak = key, []
    parts[-1].extend(streak)
    return [p for p in parts if p]


def _vote(voted: list[FrameReading], params: EventParams) -> tuple[str | None, int]:
    """The legal hand read most often (then with most total confidence, then first): key, count."""
    if not voted:
        return None, 0
    votes = Counter(r.key for r in voted)
    conf_sum: dict[str, float] = {}
    first_seen: dict[str, int] = {}
    for i, r in enumerate(voted):
        conf_sum[r.key] = conf_sum.get(r.key, 0.0) + r.confidence
        first_seen.setdefault(r.key, i)
    key = max(votes, key=lambda k: (votes[k], conf_sum[k], -first_seen[k]))
    agreeing = [r for r in voted if r.key == key]
    if len(agreeing) < params.min_frames or agreeing[-1].t - agreeing[0].t < params.min_hold_s:
        return None, 0
    return key, len(agreeing)


def _event(part: list[FrameReading], params: EventParams, fuse: Fuse | None) -> tuple[Event | None, Fused | None]:
    """The part's hand: a clear vote of per-frame legal hands (at least `min_frames`, and half
    of the part's frames: a hand read now and then, melds or the drawn tile missed in the other
    frames, is no clear vote); otherwise the frames fused; otherwise a weaker vote.
    A fused event spans the frames whose rows were fused (rows unlike the hand — the wall, a
    face-down hand misread — are not part of it)."""
    if len(part) < params.min_frames or part[-1].t - part[0].t < params.min_hold_s:
        return None, None
    voted = [r for r in part if r.key is not None]
    key, count = _vote(voted, params)
    fused = None
    if key is None or count * 2 < len(part):
        fused = fuse(part) if fuse is not None else None
        if fused is not None and fused.hand is not None:
            key = json.dumps(fused.hand, sort_keys=True)
        else:
            fused = None
    if key is None:
        return None, None
    span = part
    if fused is not None and fused.members:
        members = set(fused.members)
        span = [r for r in part if r.index in members or r.key == key]
        if len(span) < params.min_frames or span[-1].t - span[0].t < params.min_hold_s:
            return None, fused
    agreeing = [r for r in voted if r.key == key]
    agreement = len(agreeing) / len(span)
    if fused is not None:
        hand, sequence, confidence = fused.hand, fused.sequence, fused.confidence
    else:
        hand, sequence = agreeing[0].hand, None
        confidence = agreement * median(r.confidence for r in agreeing)
    if agreeing:
        best = max(agreeing, key=lambda r: (r.confidence, -r.t))
        best_index, best_t = best.index, best.t
        sequence = sequence or best.sequence
    else:
        best_index = fused.reference
        best_t = next(r.t for r in part if r.index == best_index)
    return Event(span[0].t, span[-1].t, hand, sequence, confidence, agreement, len(span),
                 best_index, best_t, fused.frames if fused is not None else 0), fused


def _events(part: list[FrameReading], params: EventParams, fuse: Fuse | None) -> list[Event]:
    """The part's event, and — when fusion chose the frames of one hand — the events of the
    frames left before and after it (two hands shown with no pause between, or a hand after
    a stretch of something else read as a row)."""
    ev, fused = _event(part, params, fuse)
    if fused is None or not fused.members:
        return [ev] if ev is not None else []
    members = set(fused.members)
    first = min(r.t for r in part if r.index in members)
    last = max(r.t for r in part if r.index in members)
    before = [r for r in part if r.t < first and r.index not in members]
    after = [r for r in part if r.t > last and r.index not in members]
    out = _events(before, params, fuse) if len(before) < len(part) else []
    out += [ev] if ev is not None else []
    out += _events(after, params, fuse) if len(after) < len(part) else []
    return out


def _tiles(hand: dict) -> Counter:
    """The hand's tiles, red fives as fives (to tell one reveal read two ways from two hands)."""
    out: Counter = Counter()
    texts = [hand.get("concealed", "")] + [m.get("tiles", "") for m in hand.get("melds") or []]
    for text in texts:
        digits = ""
        for ch in text:
            if ch.isdigit():
                digits += ch
            else:
                out.update(("5" if d == "0" else d) + ch for d in digits)
                digits = ""
    return out


def _one_reveal(a: Event, b: Event) -> bool:
    """Neighbouring events of one run are one reveal read two ways when their hands share at
    least half their tiles (a meld read while still being turned, a misread first reading);
    two hands shown one after the other share few."""
    if a.hand == b.hand:
        return True
    ta, tb = _tiles(a.hand), _tiles(b.hand)
    return sum((ta & tb).values()) * 2 >= max(sum(ta.values()), sum(tb.values()))


def _merge_same(events: list[Event]) -> list[Event]:
    """Neighbouring events of one run that are one reveal (see `_one_reveal`) become one event,
    with the hand of its better-seen part (a run split where a misread hand came first; frames
    left out of a fusion that read the hand — or a hand being turned — on their own)."""
    merged: list[Event] = []
    for e in events:
        if merged and _one_reveal(merged[-1], e):
            a = merged[-1]
            main = a if a.frames >= e.frames else e  # the better-seen part speaks for both
            frames = a.frames + e.frames
            merged[-1] = replace(main, start_s=a.start_s, end_s=e.end_s, frames=frames,
                                 agreement=(a.agreement * a.frames + e.agreement * e.frames) / frames)
        else:
            merged.append(e)
    return merged


def detect_events(readings: Sequence[FrameReading], params: EventParams = EventParams(),
                  *, until_s: float | None = None, fuse: Fuse | None = None) -> list[Event]:
    """Events in time order. With `until_s` (readings known up to that time only), only the
    events that later frames can no longer change are returned. `fuse`: see the module doc."""
    hits = [r for r in sorted(readings, key=lambda r: r.t)
            if r.hand is not None or (fuse is not None and r.row is not None)]
    events: list[Event] = []
    for run in _runs(hits, params.max_gap_s):
        if until_s is not None and until_s - run[-1].t <= params.max_gap_s:
            break  # the run may still grow
        found: list[Event] = []
        for part in _split_on_change(run, params.min_frames):
            found += _events(part, params, fuse)
        events += _merge_same(found)
    return events
