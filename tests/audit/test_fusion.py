"""Fusing the frames of a reveal with the real hand reader (vision.reading.read_hand) on rows
built by hand: no frame alone is read right, together they are."""
from __future__ import annotations

from audit.reader import FrameReading, fuse_rows

TRUE = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "2z", "2z", "2z"]
WRONG = {"1m": "7m", "2m": "5m", "3m": "8m", "4p": "1p", "5p": "3p", "6p": "9p", "7s": "1s", "8s": "3s",
         "9s": "6s", "1z": "3z", "2z": "4z"}


def row(misread: set[int], n: int = 14) -> dict:
    """A hand row: 13 closed tiles in a line, the drawn tile apart; at `misread` positions the
    true class is not even among the candidates."""
    tiles = []
    x = 100.0
    for k in range(n):
        if k == 13:
            x += 30  # the drawn tile lies apart
        truth = TRUE[k]
        cand = [[WRONG[truth], 0.9], ["5z", 0.05]] if k in misread else [[truth, 0.97], [WRONG[truth], 0.02]]
        box = [x, 300.0, x + 40, 356.0]
        tiles.append({"box": box, "frame_box": box, "rotation": 0, "det": 0.9, "cand": cand})
        x += 42
    return {"shape": [["closed", 13], ["drawn", 1]][: 2 if n == 14 else 1], "tiles": tiles, "mean_conf": 0.9,
            "row_angle": 0.0, "image_size": [1280, 720]}


def frame(i: int, r: dict | None, hand=None) -> FrameReading:
    return FrameReading(i, i / 2, hand, None, 0.0, 14, "read", r)


def test_frames_each_misread_once_fuse_to_the_right_hand():
    frames = [frame(i, row({k})) for i, k in enumerate([0, 4, 8, 11, 13])]
    for f in frames:  # alone, no frame gives the hand
        alone = fuse_rows([f]).hand
        assert alone is None or alone["concealed"] != "123m456p789s11222z" or alone["win_tile"] != "2z"
    fused = fuse_rows(frames)
    assert fused is not None and fused.hand is not None
    assert fused.hand["concealed"] == "123m456p789s11222z" and fused.hand["win_tile"] == "2z"
    assert fused.frames == 5 and fused.reference in range(5)


def test_a_shape_seen_once_does_not_count_and_still_frames_are_not_votes():
    good = [frame(i, row({i})) for i in range(3)]
    odd = frame(9, {**row(set()), "shape": [["closed", 12], ["drawn", 1]]})
    assert fuse_rows(good + [odd]).frames == 3
    # the same misread repeated by still frames cannot outvote the frames actually read
    stills = [FrameReading(20 + i, 10 + i / 2, None, None, 0.0, 14, "still", row({0, 1, 2})) for i in range(9)]
    assert fuse_rows(good + stills).hand["concealed"] == "123m456p789s11222z"


def test_thirteen_tiles_fuse_to_no_hand():
    frames = [frame(i, row(set(), n=13)) for i in range(4)]
    fused = fuse_rows(frames)
    assert fused is not None and fused.hand is None
    assert fuse_rows([frame(0, None)]) is None
