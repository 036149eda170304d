"""An added kan's two tiles boxed as one (tune9_x3 renders 98, 122, 167, 184: seen from low down the added
tile overlaps its sideways base so much that the detector boxes the two once): the recogniser reads such a
box's two parts apart (`sideways.pair_boxes`), and the reading step lays them out instead of the box."""
from __future__ import annotations

import random
from dataclasses import replace

import numpy as np

from tests.vision.test_layout import U, scene_from_sequence
from vision import reading
from vision.reading import read_hand
from vision.recognize import Candidate
from vision.sideways import pair_boxes

KAKAN = "1s 1s 2s 3s 4s 7m 8m 9m 5z 5z | 5z | 4p- 4p= 4p 4p"


def _row(*sizes):
    """Frame boxes side by side, each (width, height), bottoms level."""
    out, x = [], 0.0
    for w, h in sizes:
        out.append((x, 20.0 - h, x + w, 20.0))
        x += w
    return np.array(out)


def test_a_box_wider_and_taller_than_its_neighbours_may_be_a_pair():
    boxes = _row(*[(10, 14)] * 4, (13, 16), *[(10, 14)] * 3)
    assert pair_boxes(boxes, range(len(boxes))) == [4]


def test_a_plain_sideways_tile_is_wide_but_low_and_an_upright_one_is_not_wide():
    boxes = _row(*[(10, 14)] * 4, (13, 11), (10, 15), *[(10, 14)] * 3)
    assert pair_boxes(boxes, range(len(boxes))) == []


def _boxed_once(seed: int = 3):
    """The kan's base and added tile as one box read upright as another face, and its two parts as read apart."""
    tiles = scene_from_sequence(KAKAN, rng=random.Random(seed))
    base, added = sorted((i for i, t in enumerate(tiles) if t.sideways), key=lambda i: -tiles[i].frame_box[1])
    b, a = tiles[base].frame_box, tiles[added].frame_box
    assert a[1] < b[1] - 0.5 * U  # (the added tile lies beyond its base from the owner)
    union = (min(a[0], b[0]), a[1], max(a[2], b[2]), b[3])
    one = replace(tiles[base], box=union, frame_box=union, label="7p", rotation=0, confidence=0.9,
                  candidates=(Candidate("7p", 0.9), Candidate("1p", 0.05), Candidate("4p", 0.01)), side_odds=-1.0)
    kept = [one if i == base else t for i, t in enumerate(tiles) if i != added]
    k = kept.index(one)
    return kept, k, tiles[base], tiles[added]


def test_the_parts_of_a_pair_box_make_the_added_kan():
    tiles, k, lower, upper = _boxed_once()
    assert read_hand(tiles).sequence != KAKAN  # the box alone: a tile short of the kan
    r = read_hand(tiles, pairs=lambda: [(k, lower, upper)])
    assert r.sequence == KAKAN, r.sequence
    assert "one box was taken as an added kan's two tiles" in r.notes
    assert len(r.tiles) == len(tiles) + 2 and k not in {i for g in r.groups for i in g.tiles}


def test_parts_read_as_two_faces_are_no_kan():
    tiles, k, lower, upper = _boxed_once()
    upper = replace(upper, label="9s", confidence=0.95, candidates=(Candidate("9s", 0.95),))
    r = read_hand(tiles, pairs=lambda: [(k, lower, upper)])
    assert r.sequence != KAKAN


def test_the_pair_costs_pen_pair(monkeypatch):
    tiles, k, lower, upper = _boxed_once()
    monkeypatch.setattr(reading, "PEN_PAIR", 99.0)
    assert read_hand(tiles, pairs=lambda: [(k, lower, upper)]).sequence != KAKAN


def test_the_parts_are_read_only_when_no_reading_is_sure():
    """`Recognition.read_pairs` classifies the parts on demand: a sure reading never asks for them."""
    tiles, k, lower, upper = _boxed_once()
    calls = []

    def read_pairs():
        calls.append(1)
        return ((k, lower, upper),)

    assert read_hand(tiles, pairs=read_pairs).sequence == KAKAN and calls == [1]
    calls.clear()
    sure = scene_from_sequence(KAKAN, rng=random.Random(3))
    assert read_hand(sure, pairs=read_pairs).sequence == KAKAN and calls == []
