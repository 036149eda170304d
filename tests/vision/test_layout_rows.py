"""Which tiles the hand row holds: a tile lying above another at one place along the row is not
the row's (a discard in line with a leaning row), unless it is an added kan's stacked tile."""
from __future__ import annotations

import random

from tests.vision.test_layout import U, _det, scene_from_sequence
from vision.layout import arrange

HAND = "1m 2m 3m 3m 4m 0m 1p 1p 1p 7s 7s 7s 7z 7z"


def _seq(arr, tiles) -> str:
    from vision.sequence import format_sequence

    return format_sequence(arr.to_sequence(tiles))


def test_tile_above_a_row_tile_is_left_out_of_the_row():
    for seed in range(4):
        tiles = scene_from_sequence(HAND, rng=random.Random(seed), gaps="none")
        second = sorted(tiles, key=lambda t: t.frame_box[0])[1]
        x1, _, x2, _ = second.frame_box
        # a discard of the player across (upside down), at the same place along the row, higher
        discard = _det((x1 - 0.1 * U, -2.0 * U, x2 + 0.05 * U, -1.05 * U), "9m", 180, rng=random.Random(seed))
        tiles = tiles + [discard]
        best = arrange(tiles, row=list(range(len(tiles))))[0]
        assert len(tiles) - 1 not in best.used, seed
        assert _seq(best, tiles) == HAND


def test_added_kan_stack_is_not_taken_for_a_tile_above_the_row():
    seq = "2m 3m 4m 6p 7p 8p 1z 1z 5s 5s | 5s | 9m- 9m= 9m 9m"
    for seed in range(4):
        tiles = scene_from_sequence(seq, rng=random.Random(seed))
        best = arrange(tiles)[0]
        assert _seq(best, tiles) == seq, seed


def test_drawn_tile_a_little_apart_from_a_single_closed_tile():
    """Four melds: one closed tile and the drawn tile, a little apart (0.17 tile: more than
    touching tiles step, less than a group's gap). Two closed tiles give no trend of their own;
    their step is read against the whole row's."""
    seq = "1z | 1z | 2m- 3m 4m | 7z 7z- 7z | x 3p 3p x | 9m 9m 9m- 9m="
    for seed in range(4):
        tiles = _first_tile_moved(scene_from_sequence(seq, rng=random.Random(seed)), 0.13 * U)
        assert _seq(arrange(tiles)[0], tiles) == seq, seed


def test_sure_sideways_tile_a_little_apart_is_the_turned_winning_tile():
    """A tile surely lying sideways a little after the closed tiles (0.45 tile) is the winning tile
    turned, not a drawn tile set apart (that one stands)."""
    from dataclasses import replace

    seq = "2p 2p- | 1m- 2m 3m | 6z 6z 6z- | 4p 4p 4p- 4p= | 6s- 0s 7s"
    for seed in range(4):
        tiles = _first_tile_moved(scene_from_sequence(seq, rng=random.Random(seed)), 0.45 * 0.75 * U)
        tiles = [replace(t, side_odds=6.0 if t.sideways else -6.0) for t in tiles]
        assert _seq(arrange(tiles)[0], tiles) == seq, seed


def _first_tile_moved(tiles, gap: float):
    """The leftmost tile moved along the row to end `gap` before the second one."""
    from dataclasses import replace

    first, second = sorted(range(len(tiles)), key=lambda i: tiles[i].frame_box[0])[:2]
    x1, y1, x2, y2 = tiles[first].frame_box
    shift = tiles[second].frame_box[0] - gap - x2
    box = (x1 + shift, y1, x2 + shift, y2)
    tiles[first] = replace(tiles[first], box=box, frame_box=box)
    return tiles
