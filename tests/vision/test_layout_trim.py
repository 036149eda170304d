"""Tiles in line with the hand at both ends: a wall longer than a trim reaches at one end, a few
face-down tiles (a wall's corner) at the other."""
from __future__ import annotations

import random

from tests.vision.test_layout import U, _det, read_layout, scene_from_sequence
from vision.classes import BACK


def _wall(x_end: float, count: int, rng: random.Random, face_up_at: int | None = None):
    """`count` face-down tiles touching each other, the last ending at x_end (maybe one face up)."""
    w = 0.75 * U
    return [_det((x_end - (count - k) * w, -U, x_end - (count - k - 1) * w, 0.0),
                 "1s" if k == face_up_at else BACK, rng=rng) for k in range(count)]


def test_long_wall_at_one_end_and_backs_at_the_other():
    seq = "2s 3s 4s 0s 7s 3z 3z 6s- | 6z x x 6z | x 8s 8s x"
    for seed in range(3):
        rng = random.Random(seed)
        hand = scene_from_sequence(seq, rng=rng)
        x1 = min(t.frame_box[0] for t in hand)
        x2 = max(t.frame_box[2] for t in hand)
        tiles = hand + _wall(x1 - 1.2 * U, 12, rng, face_up_at=7) + _wall(x2 + 2 * 0.75 * U, 2, rng)
        assert read_layout(tiles) == seq, seed


def test_three_alike_touching_standing_closed_tiles_is_no_meld():
    """Standing closed tiles (boxes 0.8 tile high) and a flat called meld (1.0): three of a kind
    as high as the standing ones, a little after them (0.12 tile), the last one sideways, is the
    closed part's end with the winning tile turned — not a pon touching the closed part."""
    from dataclasses import replace

    seq = "1p 2p 3p 3p 4p 0p 9p 9p 3z 3z 3z- | 1z- 1z 1z"
    for seed in range(3):
        tiles = scene_from_sequence(seq, rng=random.Random(seed))
        order = sorted(range(len(tiles)), key=lambda k: tiles[k].frame_box[0])
        out = []
        for pos, k in enumerate(order):
            x1, y1, x2, y2 = tiles[k].frame_box
            if pos >= 8:
                x1, x2 = x1 + 0.09 * U, x2 + 0.09 * U
            if pos < 11 and not tiles[k].sideways:
                y1 = y2 - 0.8 * U
            out.append(replace(tiles[k], box=(x1, y1, x2, y2), frame_box=(x1, y1, x2, y2)))
        assert read_layout(out) == seq, seed


def test_a_high_meld_a_gap_after_the_closed_part_is_a_meld():
    """Seen along the row, perspective makes the first meld's tiles nearly as high as the
    standing closed ones (and the melds beyond lower): a meld lying a gap apart is one all the
    same — only three alike touching the closed part can be its end (tune render 700178: a pair
    wait with the winning tile turned was read as a pair and four melds)."""
    from dataclasses import replace

    seq = "6p 6p 6s 6s 6s- | 4p- 2p 3p | 3z 3z 3z- | 8s- 8s 8s 8s"
    for seed in range(3):
        tiles = scene_from_sequence(seq, rng=random.Random(seed))
        order = sorted(range(len(tiles)), key=lambda k: tiles[k].frame_box[0])
        out = list(tiles)
        for pos, k in enumerate(order):
            x1, y1, x2, y2 = tiles[k].frame_box
            high = 1.0 if pos < 5 else 0.9 if pos < 8 else 0.72  # standing, first meld, the rest
            y1 = y2 - high * (0.75 if tiles[k].sideways else 1.0) * U
            out[k] = replace(tiles[k], box=(x1, y1, x2, y2), frame_box=(x1, y1, x2, y2))
        assert read_layout(out) == seq, seed


def test_a_touching_end_tile_is_not_trimmed_to_read_a_13_tile_hand_when_a_runner_up_class_makes_14():
    """The last tile of 14 touching ones read as a face that breaks the hand, its true class a far runner-up
    (cost 5.7): leaving it out reads a legal 13-tile tenpai at trim + missing drawn + 13-tile costs; with
    PEN_TRIM 1.5 (READ session 16) that costs more than the runner-up, and the 14-tile hand is read."""
    import math
    from dataclasses import replace

    from tests.vision.test_layout import scene_from_sequence
    from vision.reading import read_hand
    from vision.recognize import Candidate

    seq = "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 2p 3p 4p"
    tiles = scene_from_sequence(seq, rng=random.Random(31), gaps="none")
    last = max(range(len(tiles)), key=lambda i: tiles[i].frame_box[0])
    p_true = 0.9 * math.exp(-5.7)
    tiles[last] = replace(tiles[last], label="5s", confidence=0.9,
                          candidates=(Candidate("5s", 0.9), Candidate("6s", 0.09), Candidate("4p", p_true)))
    assert read_hand(tiles).sequence == seq
