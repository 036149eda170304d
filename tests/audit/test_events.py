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


def test_a_misread_first_frame_does_not_cut_the_reveal_in_two():
    """The run's first legal reading is a misread (B): the true hand A, read durably after it,
    splits the run — but both parts read A, so they are one event."""
    ev = detect_events(seq("BAACAACAAAA"))
    assert [e.hand for e in ev] == [A]
    assert ev[0].start_s == 0.0 and ev[0].end_s == 5.0 and ev[0].frames == 11


def test_a_hand_read_two_ways_in_one_run_is_one_event():
    """The first frames of a reveal read a meld still being turned as another tile (A2 shares
    all but three tiles with A): one event, with the hand of the better-seen part."""
    a2 = {"concealed": "123m456p789s11z", "win_tile": "1z", "melds": [{"kind": "pon", "tiles": "555z"}]}
    rs = seq("AAAAAAAA")
    rs = [FrameReading(i, i / 2, a2, "A2", 0.9) for i in range(4)] + [
        FrameReading(4 + r.index, (4 + r.index) / 2, r.hand, r.sequence, r.confidence) for r in rs]
    ev = detect_events(rs)
    assert [e.hand for e in ev] == [A] and ev[0].start_s == 0.0 and ev[0].frames == 12


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


class FakeFuse:
    """Stands in for the reader's fusion: returns a fixed hand, records what it was given."""

    def __init__(self, hand):
        self.hand = hand
        self.calls = []

    def __call__(self, part):
        from audit.reader import Fused

        self.calls.append([r.index for r in part])
        rows = [r for r in part if r.row]
        return Fused(self.hand, "fused", 0.8, len(rows), rows[0].index) if rows else None


def near(pattern: str, fps: float = 2.0):
    """'.' nothing, 'r' a hand row with no legal hand, 'A'/'B' legal hands (with rows)."""
    hands = {"A": A, "B": B}
    return [FrameReading(i, i / fps, hands.get(ch), ch, 0.9 if ch in hands else 0.0, 14, "read",
                         {"shape": [["closed", 14]]} if ch != "." else None) for i, ch in enumerate(pattern)]


def test_fusion_reads_a_hand_no_single_frame_read():
    fuse = FakeFuse(C)
    ev = detect_events(near("..rrrrrr.."), fuse=fuse)
    assert len(ev) == 1 and ev[0].hand == C and ev[0].fused == 6 and ev[0].agreement == 0.0
    assert ev[0].start_s == 1.0 and ev[0].end_s == 3.5 and ev[0].best_index == 2
    assert detect_events(near("..rrrrrr..")) == []            # without fusion: no legal hand, no event
    assert detect_events(near("..rrrrrr.."), fuse=FakeFuse(None)) == []   # fusion finds none: no event


def test_clear_vote_wins_without_fusion():
    fuse = FakeFuse(C)
    ev = detect_events(near("rAArAAr"), fuse=fuse)
    assert [e.hand for e in ev] == [A] and fuse.calls == [] and ev[0].fused == 0


def test_split_vote_is_settled_by_fusion():
    """A vote is clear when one legal hand is read in at least half of the frames that show
    the hand; otherwise every frame's row counts (fusion). A hand read now and then — melds
    missed, the win tile taken from the row — must not win against frames that show more."""
    fuse = FakeFuse(B)
    ev = detect_events(near("AAArAr"), fuse=fuse)  # A 4 of 6 frames: a clear vote
    assert [e.hand for e in ev] == [A] and fuse.calls == []
    fuse2 = FakeFuse(B)
    ev2 = detect_events(near("AAArBrBr"), fuse=fuse2)  # A 3 of 8 frames: the rows decide
    assert [e.hand for e in ev2] == [B] and len(fuse2.calls) == 1
    fuse3 = FakeFuse(C)
    ev3 = detect_events(near("ArBrCrArBrC"), fuse=fuse3)  # 2 each: no clear vote
    assert [e.hand for e in ev3] == [C] and len(fuse3.calls) == 1
