"""A winning tile lying loose beside the hand (lietxia_70008812: the 0p askew in front of the row).

When the row reads one tile short of a hand and a lone face-up tile lies close beside it, the
reading tries it as the winning tile and takes it only if it completes the hand, saying so in
the notes. It must never pull a discard into a hand that is already whole.
"""
from __future__ import annotations

import random

from tests.vision.test_layout import U, _det, scene_from_sequence
from vision.reading import read_hand

THIRTEEN = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z"  # waits 1z and 5z
NOTE = "winning tile taken from a loose tile beside the hand; could be a discard"
ABOVE_LEFT_END = (0.2 * U, -2.25 * U, 0.95 * U, -1.25 * U)  # askew in front of the row's left end


def _with(seq: str, *extra, seed: int = 3, **kw):
    tiles = scene_from_sequence(seq, rng=random.Random(seed), **kw)
    return tiles + [_det(box, label, rot, rng=random.Random(seed)) for box, label, rot in extra]


def test_loose_tile_that_completes_the_hand_is_the_winning_tile():
    for seed in range(4):
        tiles = _with(THIRTEEN, (ABOVE_LEFT_END, "5z", 0), seed=seed)
        r = read_hand(tiles)
        assert r.hand == {"concealed": "123m456p789s11555z", "win_tile": "5z", "melds": []}, seed
        assert r.win_tile_source == "drawn" and NOTE in r.notes
        assert r.sequence == THIRTEEN + " | 5z"


def test_loose_tile_below_the_right_end_turned_askew():
    row = scene_from_sequence(THIRTEEN, rng=random.Random(1), gaps="none")
    right = max(t.frame_box[2] for t in row)
    box = (right + 0.3 * U, 0.2 * U, right + 1.3 * U, 0.95 * U)  # lying flat, nearer the owner
    r = read_hand(row + [_det(box, "1z", 90)])
    assert r.hand is not None and r.hand["win_tile"] == "1z" and NOTE in r.notes


def test_loose_tile_that_completes_nothing_is_left_out():
    tiles = _with(THIRTEEN, (ABOVE_LEFT_END, "3m", 0))
    r = read_hand(tiles)
    assert r.hand is None and r.error_code == "no_winning_tile"
    assert r.win_tile_candidates == ["1z", "5z"]
    loose = len(tiles) - 1
    assert all(loose not in g.tiles for g in r.groups) and NOTE not in r.notes


def test_whole_hand_never_takes_a_loose_tile():
    """14 tiles read: a loose tile beside them (one that would make another hand) stays out."""
    for seq in (THIRTEEN + " | 5z", THIRTEEN + " 5z", "2m 3m 4m 6p 7p 8p 1z 1z 5s 5s | 5s | 7z 7z- 7z"):
        for seed in range(3):
            tiles = _with(seq, (ABOVE_LEFT_END, "1z", 0), seed=seed)
            r = read_hand(tiles)
            assert r.sequence == seq and NOTE not in r.notes, (seq, seed)


def test_tile_of_a_discard_row_or_far_away_is_not_taken():
    # beside another face-up tile (a row of discards), or three tiles' heights above the row
    neighbour = (0.95 * U + 0.02 * U, -2.25 * U, 1.7 * U, -1.25 * U)
    far = (0.2 * U, -4.4 * U, 0.95 * U, -3.4 * U)
    for extra in ([(ABOVE_LEFT_END, "5z", 180), (neighbour, "7p", 180)], [(far, "5z", 0)]):
        r = read_hand(_with(THIRTEEN, *extra))
        assert r.hand is None and r.error_code == "no_winning_tile" and NOTE not in r.notes


def test_loose_winning_tile_among_distractors():
    for seed in range(3):
        tiles = _with(THIRTEEN, (ABOVE_LEFT_END, "1z", 0), seed=seed, distractors=True)
        r = read_hand(tiles)
        assert r.hand is not None and r.hand["win_tile"] == "1z", (seed, r.sequence)


def test_loose_tile_boxed_twice_counts_once():
    """lietxia_70008812: the detector boxed the loose 0p twice; the two boxes are no 'neighbours'."""
    x1, y1, x2, y2 = ABOVE_LEFT_END
    shifted = (x1 + 0.15 * U, y1 + 0.12 * U, x2 + 0.12 * U, y2 + 0.05 * U)
    for seed in range(3):
        tiles = _with(THIRTEEN, (ABOVE_LEFT_END, "5z", 0), (shifted, "5z", 0), seed=seed)
        r = read_hand(tiles)
        assert r.hand == {"concealed": "123m456p789s11555z", "win_tile": "5z", "melds": []}, seed
        assert NOTE in r.notes
