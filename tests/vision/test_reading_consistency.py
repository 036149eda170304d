"""The consistency step's rules for real detector/classifier faults: one tile boxed twice, the
closed tiles' sort order, branch and bound over legal hands (vision/reading.py)."""
from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from tests.vision.test_layout import U, scene_from_sequence
from tests.vision.test_layout_golden import load_tiles
from vision import layout, reading
from vision.layout import Arrangement, Group, arrange
from vision.reading import _sort_breaks, read_hand
from vision.recognize import Candidate


def _boxed_twice(tiles, label: str, shift: float = 0.45):
    """A second box of the first upright `label` tile, shifted `shift` of a tile width along the
    row (the detector's non-maximum suppression lets such a pair through)."""
    i = next(k for k, t in enumerate(tiles) if t.label == label and not t.sideways)
    t = tiles[i]
    dx = shift * (t.frame_box[2] - t.frame_box[0])
    box = (t.frame_box[0] + dx, t.frame_box[1], t.frame_box[2] + dx, t.frame_box[3])
    return tiles[: i + 1] + [replace(t, box=box, frame_box=box, det_score=0.35)] + tiles[i + 1:]


def test_one_tile_boxed_twice_is_read_once():
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z"
    tiles = _boxed_twice(scene_from_sequence(seq, rng=random.Random(4)), "8s")
    r = read_hand(tiles)
    assert r.error is None, r.error
    assert r.sequence == seq
    assert r.hand["concealed"] == "123m456p789s11555z"
    # the extra box left out, as one of two overlapping boxes or (its score is low) as a faint box
    assert any("taken as one tile" in n or "taken as no tile" in n for n in r.notes)


def test_neighbours_apart_are_not_taken_for_one_tile():
    """Fifteen tiles whose boxes do not overlap: no box is dropped to make a hand of them."""
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 8s 9s 1z 1z 5z 5z | 5z"
    r = read_hand(scene_from_sequence(seq, rng=random.Random(4)))
    assert r.hand is None
    assert not any("taken as one tile" in n for n in r.notes)


def _squeezed_first(tiles, shift: float = 0.55):
    """The row's first tile boxed `shift` of a tile too far right, so that its box overlaps its
    neighbour's (of the same face) by more than `layout.DUPLICATE_OVERLAP`: a run of like tiles
    seen at a slant (tune9_x3 #156: 1m 1m 1m read 1m 1m)."""
    first = min(range(len(tiles)), key=lambda k: tiles[k].frame_box[0])
    x1, y1, x2, y2 = tiles[first].frame_box
    box = (x1 + shift * U, y1, x2 + shift * U, y2)
    return [replace(t, box=box, frame_box=box, det_score=0.5) if k == first else t for k, t in enumerate(tiles)]


@pytest.mark.parametrize("seed", [0, 1, 5])
def test_two_overlapping_boxes_of_one_face_are_two_tiles_when_the_hand_needs_both(seed, monkeypatch):
    seq = "1m 1m 1m 2m 3m 4m 5p 6p 7p 7s 8s 9s 5z | 5z"
    tiles = _squeezed_first(scene_from_sequence(seq, rng=random.Random(seed)))
    assert arrange(tiles)[0].twice  # the layout alone merges the two boxes into one tile
    r = read_hand(tiles)
    assert r.error is None and r.sequence == seq
    assert "two boxes of one face overlapping much were taken as two tiles" in r.notes
    monkeypatch.setattr(reading, "PEN_KEEP", 99.0)  # without the retry: a 13-tile hand, a tile short
    assert read_hand(tiles).error_code == "no_winning_tile"


def test_a_cleanly_read_hand_short_of_its_winning_tile_is_sure():
    """What a 13-tile reading costs for that alone is no doubt about its tiles: not retried."""
    seq = "1m 1m 1m 2m 3m 4m 5p 6p 7p 7s 8s 9s 5z"
    r = read_hand(scene_from_sequence(seq, rng=random.Random(2)))
    assert r.error_code == "no_winning_tile" and r.sequence == seq
    assert r.cost == pytest.approx(reading.THIRTEEN_COST) and r.sure


def test_thirteen_tiles_with_one_set_apart_are_a_tile_lost_not_sure():
    """A photo that sets its winning tile apart shows 14 tiles: read as 13, one of the hand's was lost
    (tune10_x3 #206, #236: a closed tile not boxed, read as a sure tenpai hand). Only a hand with no
    tile set apart is short of its winning tile; the one read here costs about as much, yet is not sure."""
    full = "1m 1m 1m 2m 3m 4m 5p 6p 7p 7s 8s 9s 5z | 5z"
    tiles = scene_from_sequence(full, rng=random.Random(2))
    lost = next(k for k, t in enumerate(tiles) if t.label == "2m")
    r = read_hand(tiles[:lost] + tiles[lost + 1:])
    assert r.sequence == "1m 1m 1m 3m 4m 5p 6p 7p 7s 8s 9s 5z | 5z"
    assert r.error_code == "no_winning_tile"
    assert r.cost - reading.THIRTEEN_COST <= reading.FAINT_TRY_ABOVE  # (bent no more than a sure short hand)
    assert not r.sure
    short = read_hand(scene_from_sequence("1m 1m 1m 3m 4m 5p 6p 7p 7s 8s 9s 5z 5z", rng=random.Random(2)))
    assert short.error_code == "no_winning_tile" and short.sure  # the same tiles, none set apart


@pytest.mark.parametrize("gap, level, sure", [(0.02, 0.1, False), (-0.2, 0.3, False), (1.5, 0.0, True), (0.02, 1.5, True)])
def test_a_box_touching_the_end_of_a_13_tile_hand_makes_it_unsure(gap, level, sure):
    """The winning tile turned sideways whose shape read upright, then misread (tune9 #51: a lying 4s
    read 4p at the end of 7m 7m … 9s), lies just past the closed part, out of the row: the 13-tile
    reading then passes for a hand whose winning tile is not in the photo. A face-up box touching the
    last closed tile, level with it, makes it unsure; one further off, or off the row's level, does not."""
    seq = "1m 1m 1m 2m 3m 4m 5p 6p 7p 7s 8s 9s 5z"
    tiles = scene_from_sequence(seq, rng=random.Random(2), gaps="none")
    row = tuple(range(len(tiles)))
    x2 = max(t.frame_box[2] for t in tiles)
    box = (x2 + gap * 0.75 * U, -U + level * U, x2 + (gap + 1) * 0.75 * U, level * U)
    beside = replace(tiles[0], box=box, frame_box=box, label="4p", candidates=(Candidate("4p", 0.96),))
    assert read_hand(tiles, row=row).sure  # without it: a clean tenpai hand
    r = read_hand(tiles + [beside], row=row)
    assert r.sequence == seq and r.error_code == "no_winning_tile"
    assert r.sure is sure


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_a_standing_tile_taken_twice_beside_a_drawn_tile_left_out_is_not_sure(seed, monkeypatch):
    """A standing tile boxed by its face and with its top (one box 0.3 of a height above the other) read
    as two tiles makes 14 with the drawn tile left out (tune9 #54: 7m 7m 7m … for 7m 7m … | 7z): the
    hand is legal, so nothing but that pair and the box left beside it says the reading is wrong."""
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z"
    tiles = scene_from_sequence(seq, rng=random.Random(seed))
    i = next(k for k, t in enumerate(tiles) if t.label == "1z")
    x1, y1, x2, y2 = tiles[i].frame_box
    box = (x1, y1 - 0.3 * U, x2, y2 - 0.3 * U)
    tiles = tiles[: i + 1] + [replace(tiles[i], box=box, frame_box=box, det_score=0.5)] + tiles[i + 1:]
    r = read_hand(tiles)
    assert r.sequence == "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 1z 5z 5z" and not r.sure
    monkeypatch.setattr(reading, "TWICE_BESIDE", False)
    assert read_hand(tiles).sure  # (read so, it passed as sure)
    assert read_hand(scene_from_sequence(seq, rng=random.Random(seed))).sure  # without the second box


def test_a_tile_boxed_twice_is_not_kept_twice_when_the_hand_is_whole():
    """The retry keeps a merged box only at a cost: one tile boxed twice in a whole hand stays one."""
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z"
    tiles = _boxed_twice(scene_from_sequence(seq, rng=random.Random(4)), "8s", shift=0.2)
    assert arrange(tiles)[0].twice
    r = read_hand(tiles)
    assert r.sequence == seq and not any("taken as two tiles" in n for n in r.notes)


def _faint_box_in_the_gap(tiles, score: float, label: str = "5z"):
    """The drawn (last) tile set 0.8 tile widths apart, and a box where there is no tile filling
    that gap: the detector's box on a gap or a shadow, read as a blank white dragon."""
    order = sorted(range(len(tiles)), key=lambda k: tiles[k].frame_box[0])  # (the scene is shuffled)
    last, before = tiles[order[-1]], tiles[order[-2]]
    x = before.frame_box[2] + 0.8 * U
    fb = last.frame_box
    moved = (x, fb[1], x + fb[2] - fb[0], fb[3])
    last = replace(last, box=moved, frame_box=moved)
    box = (before.frame_box[2] - 0.05 * U, before.frame_box[1], x, before.frame_box[3])
    other = "back" if label == "5z" else "5z"
    phantom = replace(before, box=box, frame_box=box, label=label, confidence=0.8, det_score=score,
                      candidates=(Candidate(label, 0.8), Candidate(other, 0.1)), turned_candidates=())
    return [last if k == order[-1] else t for k, t in enumerate(tiles)] + [phantom]


def test_a_faint_box_in_the_gap_is_taken_as_no_tile():
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 2s 3s | 4s"
    clean = scene_from_sequence(seq, rng=random.Random(7))
    assert read_hand(clean).sequence == seq
    r = read_hand(_faint_box_in_the_gap(clean, score=0.45))
    assert r.error is None, r.error
    assert r.sequence == seq  # the drawn tile set apart again, not a 15th tile
    assert r.hand["win_tile"] == "4s" and r.win_tile_source == "drawn"
    assert any("no tile" in n for n in r.notes)


def test_a_faint_box_that_ends_the_laid_out_row_is_tried_from_the_recognisers_row():
    """Read as a face-down tile, the gap's box ends the layout's rows before it (and the drawn
    tile): only the recogniser's row (`seen_row`) still holds it, and there it is tried as no tile."""
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 2s 3s | 4s"
    tiles = _faint_box_in_the_gap(scene_from_sequence(seq, rng=random.Random(7)), score=0.5, label="back")
    assert read_hand(tiles).sequence != seq
    r = read_hand(tiles, seen_row=tuple(range(len(tiles))))
    assert r.error is None and r.sequence == seq and r.win_tile_source == "drawn"
    assert any("no tile" in n for n in r.notes)


def test_a_faint_box_is_tried_as_no_tile_when_the_hand_reads_cleanly_as_thirteen():
    """A faint face-down box in the drawn tile's gap ends the row: read without the drawn tile, the
    hand is a clean 13-tile one (sure), and the faint box is still tried as no tile (tune10_x3 #209)."""
    seq = "4m 4m 3p 3p 4p 4p 2s 0s 5s 3z 3z 5z 5z | 2s"
    tiles = _faint_box_in_the_gap(scene_from_sequence(seq, rng=random.Random(7)), score=0.39, label="back")
    assert read_hand(tiles).error_code == "no_winning_tile"  # (the recogniser's row not given)
    r = read_hand(tiles, seen_row=tuple(range(len(tiles))))
    assert r.error is None and r.sequence == seq and r.win_tile_source == "drawn"
    assert "a faint box was taken as no tile" in r.notes


def test_a_clean_thirteen_tile_reading_retries_only_faint_gap_reads():
    """Faint faces are real tiles more often than not: a clean 13-tile reading (sure) does not pay
    to lay out the hand without each (real-dev's 12-MP lietxia_test: 33 -> 67 ms if it did)."""
    seq = "4m 4m 3p 3p 4p 4p 2s 0s 5s 3z 3z 5z 5z | 2s"
    tiles = _faint_box_in_the_gap(scene_from_sequence(seq, rng=random.Random(7)), score=0.39, label="back")
    faint_face = next(i for i, t in enumerate(tiles) if t.label == "3p")
    tiles[faint_face] = replace(tiles[faint_face], det_score=0.3)
    arrangements = arrange(tiles)
    seen = tuple(range(len(tiles)))
    assert faint_face in reading._faint_boxes(tiles, arrangements, seen)
    assert reading._faint_boxes(tiles, arrangements, seen, reading.GAP_READS) == [len(tiles) - 1]


def test_a_surely_detected_box_is_not_taken_for_a_gap():
    """The same fifteenth box detected with a high score is a tile: it is not dropped."""
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 2s 3s | 4s"
    r = read_hand(_faint_box_in_the_gap(scene_from_sequence(seq, rng=random.Random(7)), score=0.9))
    assert r.sequence != seq
    assert not any("no tile" in n for n in r.notes)


def _closed(labels: str, drawn: bool = True):
    labs = labels.split()
    n = len(labs) - 1 if drawn else len(labs)
    groups = (Group("closed", tuple(range(n))),) + ((Group("drawn", (n,)),) if drawn else ())
    return Arrangement(groups, 0.0, tuple(range(len(labs)))), dict(enumerate(labs))


def test_sort_breaks_counts_falling_neighbours_and_split_suits():
    assert _sort_breaks(*_closed("1m 2m 3m 4m 5m 6m 7p 8p 9p 2s 3s 4s 5z | 5z".replace("| ", ""))) == 0
    # any order of suits; honours in any order; red five counts as a five
    assert _sort_breaks(*_closed("7z 5z 5z 2s 3s 4s 0s 6s 1m 1m 7p 8p 9p 3z")) == 0
    assert _sort_breaks(*_closed("1m 2m 3m 7m 5m 6m 7p 8p 9p 2s 3s 4s 5z 5z")) == 1  # 7m 5m falls
    assert _sort_breaks(*_closed("1m 2m 7p 8p 9p 3m 4m 5m 2s 3s 4s 6m 5z 5z")) == 2  # man in three blocks
    # the last of 14 closed tiles (none set apart) is the winning tile: not counted
    assert _sort_breaks(*_closed("1m 2m 3m 4m 5m 6m 7p 8p 9p 2s 3s 4s 5z 1m", drawn=False)) == 0


def test_sort_order_chooses_between_two_legal_fixes():
    """4m read as 7z (unsure), runner-ups 7m (0.26) and 4m (0.24): both make a legal hand
    (123m 567m or 123m 456m), but 7m between 3m and 5m breaks the sort order players keep."""
    seq = "1m 2m 3m 4m 5m 6m 7p 8p 9p 2s 3s 4s 5z | 5z"
    tiles = scene_from_sequence(seq, rng=random.Random(5))
    i = next(k for k, t in enumerate(tiles) if t.label == "4m")
    tiles[i] = replace(tiles[i], label="7z", confidence=0.5,
                       candidates=(Candidate("7z", 0.5), Candidate("7m", 0.26), Candidate("4m", 0.24)))
    r = read_hand(tiles)
    assert r.error is None and r.sequence == seq
    assert [(c.read, c.now) for c in r.changes] == [("7z", "4m")]


def test_an_unsorted_hand_still_reads_as_seen():
    """The sort order is a prior, not a rule: a confidently read unsorted hand stays as read."""
    seq = "5z 1m 2m 3m 7p 8p 9p 4m 5m 6m 3s 2s 4s | 5z"
    r = read_hand(scene_from_sequence(seq, rng=random.Random(6)))
    assert r.error is None and r.sequence == seq and not r.changes


def test_two_tiles_boxed_twice_are_read_once_each():
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z"
    tiles = _boxed_twice(_boxed_twice(scene_from_sequence(seq, rng=random.Random(4)), "8s"), "2m")
    r = read_hand(tiles)
    assert r.error is None, r.error
    assert r.sequence == seq
    assert sum("taken as one tile" in n for n in r.notes) == 2


def test_a_whole_hand_is_preferred_to_a_tenpai_reading(monkeypatch):
    """The layout offers the 13 closed tiles alone (a tenpai hand as read, geometry 0) and with
    the drawn tile (geometry 1), the drawn 5z read as 6z (0.55; 5z 0.4). Photos of a winning hand
    show 14 tiles: the whole hand, one cheap fix away, wins over asking for the winning tile."""
    import vision.reading as reading

    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z"
    tiles = sorted(scene_from_sequence(seq, rng=random.Random(12)), key=lambda t: t.centre[0])
    tiles[13] = replace(tiles[13], label="6z", confidence=0.55,
                        candidates=(Candidate("6z", 0.55), Candidate("5z", 0.4), Candidate("7z", 0.05)))
    row = tuple(range(14))
    thirteen = Arrangement((Group("closed", tuple(range(13))),), 0.0, row[:13], geometry=0.0)
    whole = Arrangement((Group("closed", tuple(range(13))), Group("drawn", (13,))), 1.0, row, geometry=1.0)
    monkeypatch.setattr(reading, "arrange", lambda *a, **k: [thirteen, whole])
    r = read_hand(tiles)
    assert r.error is None and r.sequence == seq
    assert [(c.read, c.now) for c in r.changes] == [("6z", "5z")]
    monkeypatch.setattr(reading, "PEN_THIRTEEN", 0.0)
    assert read_hand(tiles).error_code == "no_winning_tile"


def test_a_drawn_tile_misread_surely_is_fixed_rather_than_left_out(monkeypatch):
    """Tune render 71 of seed 9601: the drawn 3s read 5z (0.75; 3s 0.01) breaks the hand, and
    leaving it out (geometry 2.1: a tile in line with the row trimmed) gives a 13-tile tenpai
    reading waiting on 3s. Taking its runner-up costs log(0.75 / 0.01) = 4.3 over a whole-hand
    layout of geometry 0.26: the whole hand (4.6) beats the tenpai reading at `PEN_THIRTEEN` 3
    (5.1), not at the old 2 (4.1)."""
    import vision.reading as reading

    seq = "7m 8m 9m 1s 2s 4s 6s 0s 2z 2z 2z 4z 4z | 3s"
    tiles = sorted(scene_from_sequence(seq, rng=random.Random(15)), key=lambda t: t.centre[0])
    tiles[13] = replace(tiles[13], label="5z", confidence=0.75,
                        candidates=(Candidate("5z", 0.75), Candidate("back", 0.13), Candidate("2s", 0.03),
                                    Candidate("3s", 0.01)))
    row = tuple(range(14))
    thirteen = Arrangement((Group("closed", tuple(range(13))),), 2.1, row[:13], geometry=2.1)
    whole = Arrangement((Group("closed", tuple(range(13))), Group("drawn", (13,))), 0.26, row, geometry=0.26)
    monkeypatch.setattr(reading, "arrange", lambda *a, **k: [whole, thirteen])
    r = read_hand(tiles)
    assert r.error is None and r.sequence == seq
    monkeypatch.setattr(reading, "PEN_THIRTEEN", 2.0)
    assert read_hand(tiles).error_code == "no_winning_tile"


def _called_tile_boxed_in_part(tiles, score: float = 0.8):
    """A second, upright-shaped box over the right part of the (first) sideways tile and the gap
    after it, surely read as a blank white dragon: the detector's box of a lying tile's part, which
    its NMS lets through (as on tune render 800592)."""
    i = next(k for k, t in enumerate(tiles) if t.sideways)
    fb = tiles[i].frame_box
    w = fb[2] - fb[0]
    part = (fb[0] + 0.4 * w, fb[1], fb[2] + 0.25 * w, fb[3])
    return tiles + [replace(tiles[i], box=part, frame_box=part, label="5z", rotation=0, confidence=0.99,
                            candidates=(Candidate("5z", 0.99),), turned_candidates=(), det_score=score)]


def test_a_called_tile_boxed_whole_and_in_part_is_read_once(monkeypatch):
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 5z | 5z | 3s- 4s 0s"
    clean = scene_from_sequence(seq, rng=random.Random(3))
    assert read_hand(clean).sequence == seq
    tiles = _called_tile_boxed_in_part(clean)
    r = read_hand(tiles)
    assert r.error is None, r.error
    assert r.sequence == seq and r.hand["melds"][0]["kind"] == "chi"
    assert any("in a meld were taken as one tile" in n for n in r.notes)
    monkeypatch.setattr(reading, "_split_boxes", lambda *a: [])  # what the rule mends
    assert read_hand(tiles).sequence != seq


def test_a_kakan_is_not_taken_for_a_split_tile():
    """An added kan's two stacked sideways tiles overlap along the row by design: all four stay."""
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 5z | 5z | 3s- 3s= 3s 3s"
    r = read_hand(scene_from_sequence(seq, rng=random.Random(3)))
    assert r.sequence == seq and r.error is None
    assert not any("in a meld" in n for n in r.notes)


def _last_read_upright(seq: str, seed: int, label: str, turned: str, odds: float):
    """`seq` laid out touching, its last tile's box looking upright (sideways log-odds `odds`) and read
    as `label` from its upright crop, as `turned` from its crop turned sideways."""
    tiles = scene_from_sequence(seq, rng=random.Random(seed), gaps="none")
    last = max(range(len(tiles)), key=lambda k: tiles[k].frame_box[0])
    tiles[last] = replace(tiles[last], label=label, confidence=0.98, side_odds=odds,
                          candidates=(Candidate(label, 0.98), Candidate("6z", 0.015), Candidate("2z", 0.005)),
                          turned_candidates=(Candidate(turned, 0.9), Candidate("6z", 0.1)))
    return tiles


@pytest.mark.parametrize("seed,odds", [(0, -3.0), (1, -4.0), (2, -6.0)])
def test_a_last_tile_that_looked_upright_is_read_turned_when_only_that_makes_a_hand(seed, odds, monkeypatch):
    """The winning tile shown sideways at the end of the closed tiles, its box looking upright: read upright it is a
    surely read 7z that makes no hand; read from its sideways crop it is the 5z that does (layout.END_TURN_PER_ODDS)."""
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z 5z"
    tiles = _last_read_upright(seq, seed, "7z", "5z", odds)
    r = read_hand(tiles)
    assert r.error is None and r.sequence == seq + "-"
    assert layout.TURNED_END_NOTE in r.notes
    monkeypatch.setattr(layout, "END_TURN_PER_ODDS", 99.0)  # never turned: a tile short
    assert read_hand(tiles).error_code == "no_winning_tile"


def test_a_last_tile_whose_upright_read_makes_the_hand_stays_upright():
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z 5z"
    r = read_hand(_last_read_upright(seq, 0, "5z", "7z", -4.0))
    assert r.error is None and r.sequence == seq
    assert layout.TURNED_END_NOTE not in r.notes


def _backs_read_white(tiles, p_back: float = 0.02):
    """Every face-down tile read as a blank white dragon, the back its runner-up (a closed kan in a
    pale back colour: tune10_x3 #289, "x 7s 7s x" read "5z 7s 7s 5z")."""
    return [replace(t, label="5z", confidence=1 - p_back,
                    candidates=(Candidate("5z", 1 - p_back), Candidate("back", p_back)))
            if t.label == "back" else t for t in tiles]


@pytest.mark.parametrize("seq", ["1m 2m 3m 4p 5p 6p 7s 8s 9s 1z | 1z | x 2z 2z x",
                                 "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z | 1z | 2z x x 2z"])
def test_white_dragons_at_a_closed_kans_face_down_places_are_read_face_down(seq, monkeypatch):
    tiles = _backs_read_white(scene_from_sequence(seq, rng=random.Random(3)))
    r = read_hand(tiles)
    assert r.error is None, r.error
    assert r.sequence == seq
    assert r.hand["melds"] == [{"kind": "ankan", "tiles": "2222z"}]
    assert "two white dragons were taken as a closed kan's face-down tiles" in r.notes
    assert sorted((c.read, c.now) for c in r.changes) == [("5z", "back"), ("5z", "back")]
    assert r.cost >= reading.PEN_WHITE_BACK
    monkeypatch.setattr(reading, "MAX_WHITE_BACKS", 0)  # without the retry: no hand
    assert read_hand(tiles).hand is None


@pytest.mark.parametrize("seq", ["6m 6m | 7m 7m 7m- 7m= | 9s 9s 9s- 9s= | 6p x x 6p | x 6z 6z x",
                                 "1m 2m 3m 4p 5p 6p 1z | 1z | x 2z 2z x | 3s x x 3s"])
def test_two_closed_kans_in_pale_backs_are_both_read_face_down(seq, monkeypatch):
    """Each pair of whites turned alone leaves the other kan unread: no hand; both together read it
    (tune_close_x3 #16, the first of these hands, was read "6p 5z 5z 6p- | 5z- 6z 6z 5z")."""
    tiles = _backs_read_white(scene_from_sequence(seq, rng=random.Random(3)))
    r = read_hand(tiles)
    assert r.error is None, r.error
    assert r.sequence == seq
    assert [m["kind"] for m in r.hand["melds"]].count("ankan") == 2
    assert sorted((c.read, c.now) for c in r.changes) == [("5z", "back")] * 4
    assert r.cost >= 2 * reading.PEN_WHITE_BACK
    monkeypatch.setattr(reading, "_white_back_sets", lambda pairs: [(p,) for p in pairs])  # one pair at a time
    assert read_hand(tiles).sequence != seq


def test_white_back_sets_try_each_pair_then_two_apart():
    assert reading._white_back_sets([(1, 4), (2, 3), (4, 7)]) == [((1, 4),), ((2, 3),), ((4, 7),),
                                                                  ((1, 4), (2, 3)), ((2, 3), (4, 7))]
    assert reading._white_back_sets([]) == []


def test_white_dragons_of_a_whole_hand_stay_white():
    """A hand read whole with whites at such places is sure: they are not turned face down."""
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 5z 5z 5z | 1z"
    r = read_hand(scene_from_sequence(seq, rng=random.Random(3)))
    assert r.sequence == seq and r.sure
    assert not any("face-down" in n for n in r.notes)


def _boxed_twice_across(tiles, label: str, last: bool = False, shift: float = 0.2):
    """A second box of an upright `label` tile (the first such, or the rightmost), shifted `shift`
    of its height across the row and 0.05 along it, and 0.15 taller: the detector boxes a standing
    tile seen from above once by its face and once with its top (tune10_x3 #282: 1m and the drawn
    1p boxed so, read as 1m 1m 1m with the drawn tile left out)."""
    ids = [k for k, t in enumerate(tiles) if t.label == label and not t.sideways]
    i = max(ids, key=lambda k: tiles[k].frame_box[0]) if last else min(ids, key=lambda k: tiles[k].frame_box[0])
    x1, y1, x2, y2 = tiles[i].frame_box
    box = (x1 + 0.05 * U, y1 - (shift + 0.15) * U, x2 + 0.05 * U, y2 - shift * U)
    return tiles + [replace(tiles[i], box=box, frame_box=box, det_score=0.4)]


def test_one_tile_boxed_by_its_face_and_with_its_top_is_read_once(monkeypatch):
    seq = "1m 1m 4m 5m 6m 1p 1p 2s 3s 3s 4s 4s 0s | 1p"
    clean = scene_from_sequence(seq, rng=random.Random(3))
    tiles = _boxed_twice_across(_boxed_twice_across(clean, "1m"), "1p", last=True)
    r = read_hand(tiles)
    assert r.error is None and r.sequence == seq and r.win_tile_source == "drawn"
    assert any("one above the other" in n for n in r.notes)
    # not up front: the layout alone keeps the pair 0.27 of a height apart as two tiles
    assert not any(a.twice for a in arrange(tiles))
    assert layout.merges_wider(tiles) and not layout.merges_wider(clean)  # (the retry is tried only then)
    monkeypatch.setattr(layout, "DUPLICATE_ACROSS_UPRIGHT", layout.DUPLICATE_ACROSS)
    assert read_hand(tiles).sequence != seq


@pytest.mark.parametrize("lying", [True, False])
def test_an_added_kans_pair_that_looks_upright_stays_two_tiles(lying, monkeypatch):
    """Both tiles of an added kan can look upright, the stacked one a little off its base across the
    row, whether or not they read alike from their crops turned sideways (tune10_x3 #55 did, det_test_x1g
    #98 did not). Merged up front as one tile boxed twice, #98's kan read as a pon; offered as a retry,
    the merge pays PEN_WIDE and the unmerged kan reads cheaper."""
    seq = "5p 6p 7p 5s 6s 7s 2z | 2z | 1m 1m- 1m | 4z 4z 4z- 4z="
    tiles = scene_from_sequence(seq, rng=random.Random(2))
    side = [k for k, t in enumerate(tiles) if t.label == "4z" and t.sideways]
    base, top = sorted(side, key=lambda k: -tiles[k].frame_box[3])  # (the stacked one lies above)
    x1, y1, x2, y2 = tiles[base].frame_box
    box = (x1, y1 - 0.35 * (y2 - y1), x2, y2 - 0.35 * (y2 - y1))
    turned = (Candidate("4z", 0.9), Candidate("1z", 0.05)) if lying else (Candidate("2p", 0.6), Candidate("4z", 0.3))
    tiles[base] = replace(tiles[base], rotation=0, turned_candidates=turned)
    tiles[top] = replace(tiles[top], box=box, frame_box=box, rotation=0, turned_candidates=turned)
    assert layout._duplicate(tiles[base], tiles[top], wide=True)  # (the retry may merge them …)
    monkeypatch.setattr(reading, "FAINT_TRY_ABOVE", -1.0)  # (… and is tried: no reading counts as sure)
    assert read_hand(tiles).sequence == seq  # (… but the kan laid out unmerged reads cheaper)


def test_a_box_straddling_two_tiles_that_pushes_the_drawn_tile_out_costs_pen_twice_beside(monkeypatch):
    """The first look's detections of det_test_x3g #9 (data, no model): a box straddling the 1m and the 9m of a
    thirteen-orphans hand, read 1m at 0.37, makes 14 with the drawn 1z left out, and that reading is legal and
    cheap (1m 1m 9m … 7z, sure). PEN_TWICE_BESIDE (off as shipped: session 48's gate lost a tile with it) charges
    a reading that takes two boxes overlapping along the row while an untaken face-up box lies just past its end;
    with it the reading without the straddling box and with the drawn tile wins."""
    entry = json.loads((Path(__file__).parent / "data" / "straddling_box.json").read_text())
    tiles = load_tiles(entry)

    def read():
        return read_hand(tiles, players=entry["players"], seen_row=tuple(entry["seen_row"]))

    assert reading.PEN_TWICE_BESIDE == 0.0
    assert read().sequence == "1m 1m 9m 1p 9p 1s 9s 1z 2z 3z 4z 5z 6z 7z"
    monkeypatch.setattr(reading, "PEN_TWICE_BESIDE", 2.0)
    r = read()
    assert r.sequence == "1m 9m 1p 9p 1s 9s 1z 2z 3z 4z 5z 6z 7z | 1z"
    assert r.hand["win_tile"] == "1z"
