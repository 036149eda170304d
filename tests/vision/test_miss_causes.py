"""`datasets/miss_causes.py`: the first cause of a missed photo, from its labelled tiles and reading."""
from __future__ import annotations

import numpy as np
import pytest

from vision.reading import GroupReading, Reading
from vision.recognize import Candidate, TileDetection

miss_causes = pytest.importorskip("miss_causes")

# three hand tiles in a row and a wall tile above them (photo pixels)
TRUTH = [
    {"box": [0, 100, 20, 130], "cls": "1m", "in_hand": True},
    {"box": [20, 100, 40, 130], "cls": "2m", "in_hand": True},
    {"box": [40, 100, 60, 130], "cls": "3m", "in_hand": True},
    {"box": [0, 0, 20, 30], "cls": "7z", "in_hand": False},
]


def tile(box, label, *alternatives):
    cands = (Candidate(label, 0.6),) + tuple(Candidate(a, 0.2) for a in alternatives)
    return TileDetection(box=tuple(float(v) for v in box), frame_box=tuple(float(v) for v in box), label=label,
                         confidence=0.6, candidates=cands)


def reading(tiles, used):
    return Reading(tiles, groups=[GroupReading("closed", tuple(used), tuple(tiles[i].label for i in used))])


def hand_tiles(labels=("1m", "2m", "3m")):
    return [tile(t["box"], lab) for t, lab in zip(TRUTH, labels)]


def test_a_hand_tile_without_any_box_is_not_detected():
    tiles = hand_tiles()[:2]
    assert miss_causes.first_cause(TRUTH, reading(tiles, [0, 1])) == "not_detected"


def test_a_reading_without_most_of_the_hand_missed_the_hand():
    wall = [tile(TRUTH[3]["box"], "7z"), tile(TRUTH[0]["box"], "1m")]
    assert miss_causes.first_cause(TRUTH, reading(wall, [0, 1])) == "hand_missed"


def test_a_tile_taken_as_two_halves_is_boxed_twice():
    tiles = hand_tiles() + [tile([40, 100, 52, 130], "3m")]  # 3m's left part, IoU 0.6 with it
    assert miss_causes.first_cause(TRUTH, reading(tiles, [0, 1, 2, 3])) == "boxed_twice"
    # the same extra box left out of the hand is no cause: then it reads as the right hand
    assert miss_causes.first_cause(TRUTH, reading(tiles, [0, 1, 2])) == "layout"


def test_a_box_stands_for_the_tile_under_its_centre_one_to_one():
    """The reader's box of a tile in a turned row is the photo-axis box around it, larger than the
    tile's own (IoU 0.27 here): it still stands for the tile under its centre. A box over 1m and
    (more) 2m stands for 2m, and with another box on 2m, 1m has none."""
    turned = [tile([-10, 90, 34, 140], "1m"), tile(TRUTH[1]["box"], "2m"), tile(TRUTH[2]["box"], "3m")]
    assert miss_causes.first_cause(TRUTH, reading(turned, [0, 1, 2])) == "layout"
    merged = [tile([6, 100, 36, 130], "2m"), tile(TRUTH[1]["box"], "2m"), tile(TRUTH[2]["box"], "3m")]
    assert list(miss_causes.box_owners(TRUTH, np.array([t.box for t in merged]))) == [1, 1, 2]
    assert miss_causes.first_cause(TRUTH, reading(merged, [0, 1, 2])) == "not_detected"


def test_a_tile_outline_is_its_visible_hull_when_labelled():
    hulled = [dict(TRUTH[0], hull=[[0, 100], [10, 100], [10, 130], [0, 130]])] + TRUTH[1:]  # its left half shows
    boxes = np.array([[12, 100, 20, 130]], float)  # centre x 16: on the box, not on the visible half
    assert list(miss_causes.box_owners(TRUTH, boxes)) == [0]
    assert list(miss_causes.box_owners(hulled, boxes)) == [-1]


def test_a_boxed_tile_the_layout_does_not_take_is_left_out():
    assert miss_causes.first_cause(TRUTH, reading(hand_tiles(), [0, 1])) == "left_out"


def test_a_wall_tile_or_an_empty_box_taken_in():
    wall = hand_tiles() + [tile(TRUTH[3]["box"], "7z")]
    assert miss_causes.first_cause(TRUTH, reading(wall, [0, 1, 2, 3])) == "non_hand_taken"
    gap = hand_tiles() + [tile([200, 100, 220, 130], "back")]
    assert miss_causes.first_cause(TRUTH, reading(gap, [0, 1, 2, 3])) == "no_tile_taken"


def test_a_wrong_class_says_whether_the_truth_was_a_runner_up():
    tiles = hand_tiles()
    tiles[1] = tile(TRUTH[1]["box"], "3m", "2m")
    assert miss_causes.first_cause(TRUTH, reading(tiles, [0, 1, 2])) == "wrong_class_top_k"
    tiles[1] = tile(TRUTH[1]["box"], "3m", "4m")
    assert miss_causes.first_cause(TRUTH, reading(tiles, [0, 1, 2])) == "wrong_class"


def test_the_first_cause_wins_in_pipeline_order():
    """A missed tile and a wrong class in one photo: the missed tile is the cause."""
    tiles = hand_tiles(("9p", "2m", "3m"))[:2]
    assert miss_causes.first_cause(TRUTH, reading(tiles, [0, 1])) == "not_detected"


def test_tile_counts_follow_each_hand_tile_through_the_reader():
    """1m has no box; 2m is boxed twice and both boxes are in the hand (not taken once); 3m is taken but misread;
    the wall tile is no hand tile. With only 3m selected, only 3m counts."""
    tiles = [tile(TRUTH[1]["box"], "2m"), tile([20, 100, 32, 130], "2m"), tile(TRUTH[2]["box"], "4m")]
    states = miss_causes.hand_tile_states(TRUTH, reading(tiles, [0, 1, 2]))
    assert miss_causes.tile_counts(states) == {"n": 3, "boxed": 2, "taken": 1, "right": 0}
    assert miss_causes.tile_counts(states, [False, False, True]) == {"n": 1, "boxed": 1, "taken": 1, "right": 0}
    right = hand_tiles()
    assert miss_causes.tile_counts(miss_causes.hand_tile_states(TRUTH, reading(right, [0, 1, 2]))) == {"n": 3, "boxed": 3, "taken": 3, "right": 3}
    # boxed but left out of the hand
    assert miss_causes.tile_counts(miss_causes.hand_tile_states(TRUTH, reading(right, [0, 1]))) == {"n": 3, "boxed": 3, "taken": 2, "right": 2}
    with pytest.raises(ValueError):  # the flags must cover every hand tile
        miss_causes.tile_counts(states, [True])


HAND = {"concealed": "11m", "win_tile": "1m", "win": "tsumo", "players": 4, "rules": "tenhou",
        "melds": [{"kind": "chi", "tiles": "456p", "called": "5p", "from": "left"},
                  {"kind": "pon", "tiles": "777z", "called": "7z", "from": "left"},
                  {"kind": "pon", "tiles": "111p", "called": "1p", "from": "left"},
                  {"kind": "pon", "tiles": "555s", "called": "5s", "from": "right"}]}
LABEL = {"sequence": "1m | 1m | 5p- 4p 6p | 7z- 7z 7z | 1p- 1p 1p | 5s 5s 5s-", "hand": HAND}


def test_a_hand_notated_another_way_scores_alike():
    """tune10_x3 #82: "1m | 1m | …" read "1m 1m | …" (the drawn tile's gap not seen): the reader takes the
    last closed tile as the winning one, 1m again, and lists the melds right to left: the same hand."""
    from miss_causes import scores_alike

    read = {"concealed": "11m", "win_tile": "1m", "melds": list(reversed(HAND["melds"]))}
    assert scores_alike(LABEL, read)
    red = {"sequence": "0p 1s 2s 3s 4s 5s 6s 7s 8s 9s | 5p | 5p- 4p 6p",
           "hand": {"concealed": "05p123456789s", "win_tile": "5p", "melds": [HAND["melds"][0]]}}
    assert scores_alike(red, {"concealed": "123456789s50p", "win_tile": "5p", "melds": [HAND["melds"][0]]})  # any order


def test_the_winning_tile_counts_only_where_the_photo_shows_it():
    from miss_causes import scores_alike, win_tile_shown

    assert win_tile_shown(LABEL["sequence"], HAND)  # set apart
    assert win_tile_shown("1m 1m- | 5p- 4p 6p | 7z- 7z 7z | 1p- 1p 1p | 5s 5s 5s-", HAND)  # sideways at the end
    in_row = {"sequence": "1m 1m | 5p- 4p 6p | 7z- 7z 7z | 1p- 1p 1p | 5s 5s 5s-", "hand": HAND}
    assert not win_tile_shown(in_row["sequence"], HAND)
    guessed = {"concealed": "11m", "win_tile": "5p", "melds": HAND["melds"]}  # (as if the reader had chosen 5p)
    assert scores_alike(in_row, guessed) and not scores_alike(LABEL, guessed)


def test_a_hand_read_otherwise_does_not_score_alike():
    from miss_causes import scores_alike

    read = {"concealed": "11m", "win_tile": "1m", "melds": HAND["melds"]}
    assert not scores_alike(LABEL, {**read, "concealed": "22m", "win_tile": "2m"})
    assert not scores_alike(LABEL, {**read, "concealed": "01m"})  # a red five is another tile
    kakan = {**HAND["melds"][1], "kind": "kakan", "tiles": "7777z"}
    assert not scores_alike({**LABEL, "hand": {**HAND, "melds": [kakan] + HAND["melds"][1:]}}, read)  # a kan read as a pon
    called_across = {**HAND["melds"][3], "from": "across"}
    assert not scores_alike(LABEL, {**read, "melds": HAND["melds"][:3] + [called_across]})
    assert not scores_alike({**LABEL, "hand": {**HAND, "nukidora": 1}}, read)
    assert not scores_alike(LABEL, None) and not scores_alike({"sequence": "1m 2m", "hand": None}, None)
    # det_test_close_x3g #250: part of a row, labelled with the six tiles it shows, read exactly and no hand
    part = {"sequence": "9m 2p 3p 4p 1z 1z-", "hand": {"concealed": "9m234p11z", "win_tile": "1z", "melds": []}}
    assert not scores_alike(part, None) and not scores_alike(part, part["hand"])


def test_a_whole_hand_has_fourteen_tiles_a_meld_counting_three():
    from miss_causes import whole_hand

    assert whole_hand(HAND) and whole_hand({"concealed": "19m19p19s11234567z", "melds": []})
    assert not whole_hand({"concealed": "9m234p11z", "melds": []}) and not whole_hand(None)
