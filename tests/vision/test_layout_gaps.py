"""Gaps read from box-edge steps when most of the row's steps are groups' gaps.

A hand of four melds and a pair wait has five gaps among sixteen steps; with a detector's
jitter the touching tiles' steps scatter by ±10 % of a tile. The trend of touching steps must be
fitted through those, not through the steps' median, which the gaps pull up (the drawn tile's
step then looks like a touching one).
"""
from __future__ import annotations

from vision.classes import BACK
from vision.layout import arrange
from vision.recognize import Candidate, TileDetection
from vision.sequence import format_sequence


def _tile(box, label, sideways=False, side_odds=-9.0) -> TileDetection:
    cands = (Candidate(label, 0.97), Candidate("9z" if label != "1z" else "2z", 0.02), Candidate("8z", 0.01))
    return TileDetection(box=box, frame_box=box, label=label, rotation=270 if sideways else 0, confidence=0.97,
                         candidates=cands, side_odds=8.0 if sideways else side_odds)


# (label, sideways, x1, x2): the frame boxes of a rendered photo (25 px tiles seen at 80°
# elevation), a tanki wait on 2m after four melds, the drawn 2m 0.3 tile after the other
ROW = [
    ("2m", False, -433, -408), ("2m", False, -401, -375),
    ("8p", True, -364, -329), ("7p", False, -329, -305), ("9p", False, -304, -281),
    ("3z", False, -249, -227), ("3z", False, -227, -202), ("3z", True, -201, -169),
    (BACK, False, -159, -133), ("1m", False, -133, -110), ("1m", False, -113, -85), (BACK, False, -86, -63),
    ("6s", True, -53, -20), ("6s", False, -21, 5), ("6s", False, 4, 29), ("6s", False, 26, 53),
]


def test_the_drawn_tile_of_a_pair_wait_after_four_melds_is_set_apart():
    tiles = [_tile((x1, 51.0 if side else 42.0, x2, 78.0), label, side) for label, side, x1, x2 in ROW]
    best = arrange(tiles)[0]
    assert format_sequence(best.to_sequence(tiles)) == "2m | 2m | 8p- 7p 9p | 3z 3z 3z- | x 1m 1m x | 6s- 6s 6s 6s"


def test_touching_pair_after_four_melds_stays_together():
    """The same row with the second 2m touching the first (its step like the others'): no gap."""
    row = [("2m", False, -427, -402)] + ROW[1:]
    tiles = [_tile((x1, 51.0 if side else 42.0, x2, 78.0), label, side) for label, side, x1, x2 in row]
    kinds = [g.kind for g in arrange(tiles)[0].groups]
    assert kinds[:2] == ["closed", "called"]
