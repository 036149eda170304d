"""A face that looks the same half a turn round (1p, 8p, 5z, …) has no up of its own: in the
reading it follows its row (the classifier's flip head can only guess it), while faces with an
up keep theirs. Only the reported rotation changes, never the reading."""
from __future__ import annotations

import random
from dataclasses import replace

from tests.vision.test_layout import scene_from_sequence
from vision.reading import read_hand


def test_half_turn_symmetric_faces_follow_the_row():
    seq = "2m 3m 4m 6p 7p 8p 1z 1z 5s 5s | 5s | 3s- 4s 5s"
    tiles = scene_from_sequence(seq, rng=random.Random(3))
    turned = {k for k, t in enumerate(tiles) if t.label in ("8p", "3m")}  # (tiles inside the row)
    tiles = [replace(t, rotation=180) if k in turned else t for k, t in enumerate(tiles)]
    called = next(k for k, t in enumerate(tiles) if t.label == "3s")
    reading = read_hand(tiles)
    assert reading.sequence == seq
    rot = {t.label: set() for t in reading.tiles}
    for k in turned:
        rot[reading.tiles[k].label].add(reading.tiles[k].rotation)
    assert rot["8p"] == {0}  # symmetric: as the row
    assert rot["3m"] == {180}  # 3m has an up: it was put upside down
    assert reading.tiles[called].rotation == tiles[called].rotation  # the called 3s: kept
