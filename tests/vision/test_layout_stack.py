"""An added kan's stacked tile as detectors other than the shipped one box it (READ session 16, tune9 of seed
9601): a stack whose two tiles both look upright off the row, and a stacked tile the row finder took in
that reaches the standing tile before the kan."""
from __future__ import annotations

import random
from dataclasses import replace

from tests.vision.test_layout import U, scene_from_sequence
from vision.reading import read_hand
from vision.recognize import Candidate


def _looked_upright(tile, label: str, odds: float, lying: str, p_lying: float = 1.0):
    return replace(tile, label=label, rotation=0, confidence=0.9, side_odds=odds,
                   candidates=(Candidate(label, 0.9), Candidate(lying, 0.08)),
                   turned_candidates=(Candidate(lying, p_lying),))


def test_an_upright_looking_stack_off_the_row_pairs_by_both_sideways_reads():
    """Both tiles of the stack looked upright and read 4s, each sideways crop 4p (tune render 392 with ft14 e5;
    218 alike): the one off the row lying alone on the other is the added tile. With sideways reads of two
    faces they are no pair, and the added tile stays out."""
    seq = "3m 3m 6s 7s | 5s | x 1s 1s x | 4p- 4p= 4p 4p | 5p 5p- 0p"
    tiles = scene_from_sequence(seq, rng=random.Random(21))
    pair = [i for i, t in enumerate(tiles) if t.sideways and t.label == "4p"]
    assert len(pair) == 2
    base, added = sorted(pair, key=lambda i: -tiles[i].frame_box[1])
    tiles[base] = _looked_upright(tiles[base], "4p", -1.8, "4p", 0.69)
    tiles[added] = _looked_upright(tiles[added], "4s", -3.5, "4p")
    assert read_hand(tiles).sequence == seq
    tiles[base] = _looked_upright(tiles[base], "4p", -1.8, "2s", 0.9)
    assert read_hand(tiles).sequence != seq


def test_a_stacked_tile_in_the_row_lies_on_the_box_it_overlaps_most():
    """A stacked tile the row finder took in, seen shifted towards the standing tile before its kan, comes
    first along the row and overlaps that standing tile too (tune render 338 with ft12 e5: 3s 3s- 3s= 3s,
    the added 3s centred left of its base): it lies on its base, the row box it overlaps more."""
    seq = "1s 1s | 3s 3s- 3s= 3s | 2p 2p 2p- | 9m- 7m 8m | 0m 5m- 5m"
    tiles = scene_from_sequence(seq, rng=random.Random(22), gaps="none")
    added = next(i for i, t in enumerate(tiles) if t.sideways and t.frame_box[1] < -1.2 * U)
    base = next(i for i, t in enumerate(tiles) if t.sideways and t.label == "3s" and i != added)
    before = max((i for i, t in enumerate(tiles) if t.frame_box[2] <= tiles[base].frame_box[0] + 0.05 * U),
                 key=lambda i: tiles[i].frame_box[2])
    bx1, by1, bx2, by2 = tiles[base].frame_box
    shift = (bx1 - tiles[before].frame_box[0]) * 0.55  # reaches over half the standing tile's width
    box = (bx1 - shift, by1 - 0.6 * U, bx2 - shift, by2 - 0.6 * U)
    assert (box[0] + box[2]) / 2 < (bx1 + bx2) / 2
    tiles[added] = replace(tiles[added], box=box, frame_box=box)
    assert read_hand(tiles, row=range(len(tiles))).sequence == seq
