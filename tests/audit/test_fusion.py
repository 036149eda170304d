"""Fusing the frames of a reveal with the real hand reader (vision.reading.read_hand) on rows
built by hand: no frame alone is read right, together they are — even when the frames see the
row differently (a tile missed, a box doubled, the camera moved) or some show something else."""
from __future__ import annotations

from audit.events import detect_events
from audit.fusion import fuse_rows
from audit.reader import FrameReading

TRUE = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "2z", "2z", "2z"]
WRONG = {"1m": "7m", "2m": "5m", "3m": "8m", "4p": "1p", "5p": "3p", "6p": "9p", "7s": "1s", "8s": "3s",
         "9s": "6s", "1z": "3z", "2z": "4z", "5z": "2s", "4m": "9m", "7p": "1p", "3s": "8s", "4s": "1s",
         "5s": "2s", "6z": "3z", "7z": "1z"}
HAND = ("123m456p789s11222z", "2z")
OTHER = ["2m", "3m", "4m", "5p", "6p", "7p", "3s", "4s", "5s", "6z", "6z", "7z", "7z", "7z"]
OTHER_HAND = ("234m567p345s66777z", "7z")


def row(misread: set[int] = frozenset(), n: int = 14, *, shift: float = 0.0, zoom: float = 1.0,
        missing: set[int] = frozenset(), doubled: set[int] = frozenset(), labels: list[str] = TRUE) -> dict:
    """A hand row: 13 closed tiles in a line, the drawn tile apart, seen by a camera moved by
    `shift` px and zoomed by `zoom`. At `misread` positions the true class is not even among the
    candidates; `missing` tiles are not in the row; `doubled` ones have a second, shifted box."""
    tiles = []
    x = 100.0
    for k in range(n):
        if k == 13:
            x += 30  # the drawn tile lies apart
        truth = labels[k]
        cand = [[WRONG[truth], 0.9], ["5z", 0.05]] if k in misread else [[truth, 0.97], [WRONG[truth], 0.02]]
        boxes = [[x, 300.0, x + 40, 356.0]] + ([[x + 12, 300.0, x + 52, 356.0]] if k in doubled else [])
        if k not in missing:
            for b in boxes:
                box = [round(zoom * v + (shift if i % 2 == 0 else shift / 3), 1) for i, v in enumerate(b)]
                tiles.append({"box": box, "frame_box": box, "rotation": 0, "det": 0.9, "cand": cand})
        x += 42
    return {"shape": [["closed", 13], ["drawn", 1]][: 2 if n == 14 else 1], "tiles": tiles, "mean_conf": 0.9,
            "row_angle": 0.0, "image_size": [1280, 720]}


def frame(i: int, r: dict | None, hand=None, t: float | None = None) -> FrameReading:
    return FrameReading(i, i / 2 if t is None else t, hand, None, 0.0, 14, "read", r)


def read(fused) -> tuple | None:
    return None if fused is None or fused.hand is None else (fused.hand["concealed"], fused.hand["win_tile"])


def test_frames_each_misread_once_fuse_to_the_right_hand():
    frames = [frame(i, row({k})) for i, k in enumerate([0, 4, 8, 11, 13])]
    for f in frames:  # alone, no frame gives the hand
        assert read(fuse_rows([f])) != HAND
    fused = fuse_rows(frames)
    assert read(fused) == HAND
    assert fused.frames == 5 and fused.reference in range(5) and fused.members == (0, 1, 2, 3, 4)


def test_rows_seen_differently_are_aligned_tile_by_tile():
    """A missed tile, a doubled box, a moved and zoomed camera, a row seen in part: each frame
    also misreads a tile, yet the tiles line up and the hand is read."""
    frames = [
        frame(0, row({0}, shift=35.0)),
        frame(1, row({4}, missing={2})),                 # a tile missed: 13 in the row
        frame(2, row({8}, doubled={6}, zoom=1.08)),       # a box doubled: 15 in the row
        frame(3, row({11}, shift=-50.0, missing={0, 1, 2, 3})),  # the row's left end not seen
        frame(4, row({13}, zoom=0.93, shift=20.0)),
        frame(5, row({5}, missing={9})),
    ]
    fused = fuse_rows(frames)
    assert read(fused) == HAND
    assert fused.frames == 6


def test_tiles_at_the_end_of_the_row_count_among_the_rows_that_see_them():
    """The row's left end is cut off in most frames (an arm, the frame's edge): the two frames
    that see it decide those tiles; the frames that do not see them do not outvote them."""
    frames = [frame(0, row({5})), frame(1, row({9}, shift=12.0))]
    frames += [frame(2 + i, row({k}, missing={0, 1}, shift=-8.0 * i)) for i, k in enumerate([4, 8, 11, 13])]
    fused = fuse_rows(frames)
    assert read(fused) == HAND and fused.frames == 6


def test_rows_of_something_else_neither_vote_nor_extend_the_event():
    """A wall read as a row of faces (the same few classes over and over) before the reveal."""
    wall = ["5z"] * 14
    frames = [frame(i, row({(i * 3) % 14}, labels=wall, shift=80.0)) for i in range(6)]
    frames += [frame(6 + i, row({k})) for i, k in enumerate([0, 4, 8, 11, 13])]
    fused = fuse_rows(frames)
    assert read(fused) == HAND and fused.members == (6, 7, 8, 9, 10)
    events = detect_events(frames, fuse=fuse_rows)
    assert len(events) == 1 and events[0].start_s == 3.0 and events[0].end_s == 5.0


def test_two_hands_shown_one_after_the_other_are_two_events():
    """No pause between two reveals and no frame reads either hand alone: the rows of each
    hand are fused apart."""
    frames = [frame(i, row({k})) for i, k in enumerate([0, 4, 8, 11, 13, 2])]
    frames += [frame(6 + i, row({k}, labels=OTHER, shift=-30.0)) for i, k in enumerate([1, 5, 9, 12, 3])]
    events = detect_events(frames, fuse=fuse_rows)
    assert [(e.hand["concealed"], e.hand["win_tile"]) for e in events] == [HAND, OTHER_HAND]
    assert events[0].end_s < events[1].start_s


def test_still_frames_are_not_votes():
    good = [frame(i, row({i})) for i in range(3)]
    stills = [FrameReading(20 + i, 10 + i / 2, None, None, 0.0, 14, "still", row({0, 1, 2})) for i in range(9)]
    assert read(fuse_rows(good + stills)) == HAND


def test_thirteen_tiles_fuse_to_no_hand():
    frames = [frame(i, row(set(), n=13)) for i in range(4)]
    fused = fuse_rows(frames)
    assert fused is not None and fused.hand is None
    assert fuse_rows([frame(0, None)]) is None


def one_tile(i: int, rotation: int, cand: list) -> FrameReading:
    wide = rotation in (90, 270)
    box = [100.0, 300.0, 156.0 if wide else 140.0, 340.0 if wide else 356.0]
    r = {"shape": [["closed", 1]], "tiles": [{"box": box, "frame_box": box, "rotation": rotation, "det": 0.9,
                                              "cand": cand}], "mean_conf": 0.9, "row_angle": 0.0,
         "image_size": [1280, 720]}
    return frame(i, r)


def fused_tile(sightings: list[FrameReading]):
    from audit.fusion import _fuse_column, _prepare

    rows = [_prepare(r) for r in sightings]
    return _fuse_column([(b, 0) for b in range(len(rows))], rows, {b: (1.0, 0.0, 0.0) for b in range(len(rows))})


def test_a_tile_lies_the_way_whose_crops_read_more_surely():
    """A call's sideways tile seen sideways in a third of the frames (read surely: 7s) and
    upright in the rest (its crop turned wrong: read unsure, 8p or 2p) lies sideways and is a 7s;
    a standing tile whose box came out wide in half the frames (read unsure: 4p) stands (6s)."""
    called = [one_tile(i, 270, [["7s", 0.93], ["1s", 0.04]]) for i in range(7)]
    called += [one_tile(7 + i, 0, [["8p", 0.5], ["2p", 0.3], ["7s", 0.1]]) for i in range(15)]
    t = fused_tile(called)
    assert t.label == "7s" and t.rotation == 270
    standing = [one_tile(i, 270, [["4p", 0.45], ["6s", 0.35]]) for i in range(8)]
    standing += [one_tile(8 + i, 0, [["6s", 0.95], ["4s", 0.03]]) for i in range(8)]
    t = fused_tile(standing)
    assert t.label == "6s" and t.rotation == 0
    # seen sideways once among many: a glimpse, the majority stands
    assert fused_tile([one_tile(0, 270, [["7s", 0.99]])] + [one_tile(1 + i, 0, [["8p", 0.6]]) for i in range(12)]
                      ).rotation == 0
