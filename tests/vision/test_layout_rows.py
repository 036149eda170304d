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


def test_wall_tiles_showing_above_the_hand_row_are_left_out():
    """The wall behind the hand shows above its first tiles, its face-down tiles at the same
    places along the row, in line with it: each is left out (the face-up tile at the row's level
    stays), not read as part of the row (tune render 720168 lost its first two tiles)."""
    for seed in range(4):
        tiles = scene_from_sequence(HAND, rng=random.Random(seed), gaps="none")
        first = sorted(tiles, key=lambda t: t.frame_box[0])[:3]
        for t in first:
            x1, y1, x2, y2 = t.frame_box
            tiles.append(_det((x1 + 0.35 * U, y1 - 0.45 * U, x2 + 0.35 * U, y1 + 0.05 * U), "back", 0))
        best = arrange(tiles, row=sorted(range(len(tiles)), key=lambda i: tiles[i].frame_box[0]))[0]
        assert _seq(best, tiles) == HAND, seed
        assert not any(tiles[i].label == "back" for i in best.used), seed


def test_a_sideways_discard_beyond_a_standing_tile_of_its_face_makes_no_added_kan():
    """A discard laid sideways (a riichi declaration) lying beyond a closed tile of the same face
    is no added kan's tile when the closed tile's shape said surely that it stands (tune render
    720242: thirteen orphans read as an added kan of 9s)."""
    from dataclasses import replace

    seq = "1m 9m 1p 9p 1s 9s 1z 2z 3z 4z 5z 6z 7z 5z-"
    tiles = scene_from_sequence(seq, rng=random.Random(2), gaps="none")
    tiles = [replace(t, side_odds=8.0 if t.sideways else -9.5) for t in tiles]
    k = next(i for i, t in enumerate(tiles) if t.label == "9s")
    x1, y1, x2, y2 = tiles[k].frame_box
    tiles.append(replace(_det((x1 + 0.1 * U, y1 - 0.9 * U, x1 + 1.1 * U, y1 - 0.15 * U), "9s", 90), side_odds=12.0))
    best = arrange(tiles)[0]
    assert _seq(best, tiles) == seq
    assert len(tiles) - 1 not in best.used
    # (a tile whose shape was unsure may still be the base of an added kan)
    tiles[k] = replace(tiles[k], side_odds=-2.0)
    assert any(len(tiles) - 1 in a.used for a in arrange(tiles))


def test_a_tile_beyond_the_row_end_off_its_level_is_no_drawn_tile():
    """A discard lying a little beyond the row's end, in line with it but half a tile higher, is
    not the drawn tile set apart (which stands at the closed tiles' level): leaving the row's
    first tile out to take it made a hand of the same tiles (tune render 700184)."""
    from dataclasses import replace

    seq = "2m 2m 2m 6m 6m 2p 3p 3s 3s 3s 3s 4s 5s 4p-"
    tiles = scene_from_sequence(seq, rng=random.Random(4), gaps="none")
    # (the turned winning tile read upright by its crop, sideways only by its place: out of the
    # hand's sort order, with a shape near sideways)
    tiles = [replace(t, rotation=0, side_odds=1.0) if t.sideways else replace(t, side_odds=-9.0) for t in tiles]
    x1, y1, x2, y2 = max((t.frame_box for t in tiles), key=lambda b: b[2])
    # (lying flat, 0.75 U high, its centre half a standing tile's height above theirs)
    tiles.append(replace(_det((x2 + 0.45 * U, y2 - 1.375 * U, x2 + 1.45 * U, y2 - 0.625 * U), "2m", 0), side_odds=-1.0))
    row = sorted(range(len(tiles)), key=lambda i: tiles[i].frame_box[0])
    best = arrange(tiles, row=row)[0]
    assert _seq(best, tiles) == seq
    assert len(tiles) - 1 not in best.used
