"""Reveal-event detection from frame readings (pure logic)."""
from __future__ import annotations

from audit.events import EventParams, detect_events
from audit.reader import FrameReading

A = {"concealed": "123m456p789s11122z", "win_tile": "2z", "melds": []}
B = {"concealed": "22334455667788p", "win_tile": "8p", "melds": []}
C = {"concealed": "123456789m11p", "win_tile": "1p", "melds": []}


def seq(pattern: str, fps: float = 2.0, conf: float = 0.9):
    """'..AAA..' → readings at fps; '.' = no hand."""
    hands = {"A": A, "B": B, "C": C}
    return [FrameReading(i, i / fps, hands.get(ch), ch if ch != "." else None,
                         conf if ch != "." else 0.0) for i, ch in enumerate(pattern)]


def test_one_event_span_and_hand():
    ev = detect_events(seq("....AAAAAA...."))
    assert len(ev) == 1
    assert ev[0].hand == A
    assert ev[0].start_s == 2.0 and ev[0].end_s == 4.5
    assert ev[0].agreement == 1.0 and ev[0].frames == 6


def test_too_short_is_no_event():
    assert detect_events(seq("...AA...")) == []          # 2 frames < min_frames
    assert detect_events(seq("...A.A.A..."), EventParams(max_gap_s=0.4)) == []  # gaps break the run


def test_short_gaps_and_lone_misreads_do_not_split():
    ev = detect_events(seq("AAA..AACAAA"))
    assert len(ev) == 1 and ev[0].hand == A
    assert ev[0].agreement == 8 / 9


def test_long_gap_gives_two_events_of_same_hand():
    ev = detect_events(seq("AAAA" + "." * 8 + "AAAA"))
    assert [e.hand for e in ev] == [A, A]


def test_durable_change_splits_without_gap():
    ev = detect_events(seq("AAAAABBBBB"))
    assert [e.hand for e in ev] == [A, B]
    assert ev[0].end_s < ev[1].start_s


def test_majority_wins_and_best_frame_is_most_confident():
    rs = seq("ABAAB.A")
    rs[3] = FrameReading(3, 1.5, A, "A", 0.99)
    ev = detect_events(rs)
    assert len(ev) == 1 and ev[0].hand == A
    assert ev[0].best_index == 3
    assert 0 < ev[0].confidence <= 0.99


def test_until_s_holds_back_events_that_may_still_grow():
    rs = seq("..AAAA......AAA")
    assert len(detect_events(rs[:8], until_s=rs[7].t + 0.5)) == 0   # 1.5 s after the run: may continue
    assert len(detect_events(rs[:12], until_s=rs[11].t + 0.5)) == 1  # 3.5 s after: final
    assert len(detect_events(rs)) == 2


def test_events_are_a_pure_function_of_readings():
    rs = seq("..AAAA....BBBB..CCC")
    assert detect_events(rs) == detect_events(list(reversed(rs)))
