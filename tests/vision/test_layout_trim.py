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
