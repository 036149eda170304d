"""Why a rendered photo was not read exactly: the first cause, from the truth and the `Reading`.

`eval_reading.py` tallies these for every missed photo, so a session can see whether the
detector's boxes, the classifier's classes or the reading step's layout lose the most hands before
choosing what to train or change. Causes are checked in the order of `CAUSES` (the pipeline's own
order: a tile must be boxed before it is laid out, and laid out before its class matters), and
the first that holds is the photo's cause:

- `hand_missed`: most of the hand's tiles have no box in the reading: the reader read another row
  (a wall, discards, another hand: its second detection then replaces the photo's boxes), or the
  detector missed the whole hand;
- `not_detected`: a hand tile has no box (no reader box centred on it);
- `boxed_twice`: a hand tile is taken into the hand as two boxes (often a sideways tile in halves);
- `left_out`: a hand tile is boxed but the layout leaves its box out of the hand;
- `non_hand_taken`: the hand takes in a box of a tile that is not the hand's (a wall, a discard);
- `no_tile_taken`: the hand takes in a box over no tile (a gap, a shadow);
- `wrong_class`: every hand tile is taken once, but one reads as another class
  (`wrong_class_top_k` when the truth was among the tile's runner-up classes: the consistency
  search could have chosen it);
- `layout`: the right boxes and classes, laid out wrong (meld split, sideways tile, drawn tile…).

`scores_alike` says whether a reading, exact or not, gives the labelled hand for scoring.
"""
from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

CAUSES = ("hand_missed", "not_detected", "boxed_twice", "left_out", "non_hand_taken", "no_tile_taken",
          "wrong_class", "wrong_class_top_k", "layout")


def _outline(tile: dict) -> np.ndarray:
    """The labelled tile's outline in the photo: the hull of its visible pixels, else its box."""
    if tile.get("hull"):
        return np.asarray(tile["hull"], np.float32).reshape(-1, 1, 2)
    x1, y1, x2, y2 = tile["box"]
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32).reshape(-1, 1, 2)


def box_owners(truth_tiles: Sequence[dict], boxes: np.ndarray) -> np.ndarray:
    """For each reader box (N×4 photo xyxy), the index of the labelled tile it stands for, or −1.

    A box stands for a tile when its centre lies on the tile (inside the outline of its visible
    pixels). That holds for the reader's boxes of a turned row too: those are the photo-axis boxes
    around tiles boxed in the turned frame, larger than the tile's own box (so their IoU with it
    is low), while their centres stay put. Boxes and tiles are paired one to one, nearest centres
    first; a box left over stands for the tile under its centre (a second box on it), or none."""
    owner = np.full(len(boxes), -1)
    if not len(boxes) or not len(truth_tiles):
        return owner
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    outlines = [_outline(t) for t in truth_tiles]
    middles = np.array([o.reshape(-1, 2).mean(axis=0) for o in outlines])
    dist = np.linalg.norm(centres[:, None] - middles[None], axis=2)
    on = np.array([[cv2.pointPolygonTest(o, (float(c[0]), float(c[1])), False) >= 0 for o in outlines]
                   for c in centres])
    dist[~on] = np.inf
    taken: set[int] = set()
    for i, k in zip(*np.unravel_index(np.argsort(dist, axis=None), dist.shape)):
        if not np.isfinite(dist[i, k]):
            break
        if owner[i] < 0 and k not in taken:
            owner[i] = k
            taken.add(k)
    for i in np.flatnonzero(owner < 0):
        k = int(np.argmin(dist[i]))
        if np.isfinite(dist[i, k]):
            owner[i] = k
    return owner


def first_cause(truth_tiles: Sequence[dict], reading) -> str:
    """The first cause (one of `CAUSES`) of a reading that differs from the truth.

    `truth_tiles`: the rendered photo's labelled tiles (`labels.jsonl` "tiles": box, hull, cls,
    in_hand); `reading`: the `vision.reading.Reading` of that photo (boxes paired with tiles by
    `box_owners`)."""
    owner, boxes_of, used = _paired(truth_tiles, reading)
    hand = list(boxes_of)
    unboxed = sum(not boxes_of[k] for k in hand)
    if 2 * unboxed > len(hand):
        return "hand_missed"
    if unboxed:
        return "not_detected"
    if any(sum(i in used for i in boxes_of[k]) > 1 for k in hand):
        return "boxed_twice"
    if any(not any(i in used for i in boxes_of[k]) for k in hand):
        return "left_out"
    if any(owner[i] >= 0 and not truth_tiles[owner[i]]["in_hand"] for i in used):
        return "non_hand_taken"
    if any(owner[i] < 0 for i in used):
        return "no_tile_taken"
    wrong = [i for i in used if reading.tiles[i].label != truth_tiles[owner[i]]["cls"]]
    if wrong:
        seen = all(any(c.label == truth_tiles[owner[i]]["cls"] for c in reading.tiles[i].candidates) for i in wrong)
        return "wrong_class_top_k" if seen else "wrong_class"
    return "layout"


def _paired(truth_tiles: Sequence[dict], reading) -> tuple[np.ndarray, dict[int, list[int]], set[int]]:
    """(owner of each reader box (`box_owners`), each hand tile's reader boxes in `truth_tiles` order, the boxes
    the reading's groups took)."""
    boxes = np.array([t.box for t in reading.tiles], np.float64).reshape(-1, 4)
    owner = box_owners(truth_tiles, boxes)
    boxes_of = {k: [i for i in range(len(boxes)) if owner[i] == k] for k, t in enumerate(truth_tiles) if t["in_hand"]}
    return owner, boxes_of, {i for g in reading.groups for i in g.tiles}


TILE_COUNTS = ("n", "boxed", "taken", "right")


def hand_tile_takes(truth_tiles: Sequence[dict], reading) -> list[tuple[int, bool, int | None]]:
    """Each hand tile of one photo (in `truth_tiles` order): its index in `truth_tiles`, whether a reader box stands
    for it (`box_owners`), and the one box of it the reading's groups took (None when none or several): the pairing
    `hand_tile_states` and `hand_tile_misses` both read, made once per photo."""
    _, boxes_of, used = _paired(truth_tiles, reading)
    takes = []
    for k, mine in boxes_of.items():
        taken = [i for i in mine if i in used]
        takes.append((k, bool(mine), taken[0] if len(taken) == 1 else None))
    return takes


def hand_tile_states(truth_tiles: Sequence[dict], reading,
                     takes: Sequence[tuple[int, bool, int | None]] | None = None) -> list[tuple[bool, bool, bool]]:
    """How far the reader got with each hand tile of one photo (hand tiles in `truth_tiles` order): (boxed, a
    reader box stands for it — `box_owners`: the whole reader's tile recall, second looks included, not the
    detector's first pass; taken, exactly one of its boxes is in the hand; right, that box also reads its class).
    `takes`: `hand_tile_takes` of the same photo, when already made."""
    takes = hand_tile_takes(truth_tiles, reading) if takes is None else takes
    return [(boxed, i is not None, i is not None and reading.tiles[i].label == truth_tiles[k]["cls"])
            for k, boxed, i in takes]


def hand_tile_misses(truth_tiles: Sequence[dict], reading, legible: Sequence[bool] | None = None,
                     takes: Sequence[tuple[int, bool, int | None]] | None = None) -> list[dict]:
    """The hand tiles of one photo the reader did not read right, each with what became of it: `kind` unboxed (no
    reader box stands for it), not_once (none or several of its boxes in the hand) or wrong (taken once, another
    class), its true class, index in `truth_tiles` and legibility (None when unmeasured); for a tile taken once also
    the reader's label, confidence, photo box and top candidates. The per-tile list a session needs to see which
    tiles cost the figures (`eval_reading.py --json` keeps it per photo), kept in the repo because `cache/` is lost.
    `takes`: `hand_tile_takes` of the same photo, when already made."""
    takes = hand_tile_takes(truth_tiles, reading) if takes is None else takes
    out = []
    for j, (k, boxed, i) in enumerate(takes):
        tile = None if i is None else reading.tiles[i]
        if tile is not None and tile.label == truth_tiles[k]["cls"]:
            continue
        kind = "wrong" if tile is not None else "not_once" if boxed else "unboxed"
        miss = {"tile": k, "cls": truth_tiles[k]["cls"], "kind": kind,
                "legible": None if legible is None else bool(legible[j])}
        if tile is not None:
            miss.update(label=tile.label, confidence=round(float(tile.confidence), 3),
                        box=[round(float(v), 1) for v in tile.box],
                        candidates=[[c.label, round(float(c.prob), 3)] for c in tile.candidates[:4]])
        out.append(miss)
    return out


def mark_first_pass(truth_tiles: Sequence[dict], misses: list[dict], first_boxes: np.ndarray) -> int:
    """Mark each unboxed miss (`hand_tile_misses`) with `first_pass`: whether a box of the first detector's
    first pass (`first_boxes`, N×4 photo xyxy) stands for its tile (`box_owners`). How many were.
    Why: an unboxed hand tile is either one no detector found, which only training mends, or one the first
    pass found and the reading lost on the way (another row read, a second detection that missed it), which
    the reading step can mend: the split says which to work on."""
    unboxed = [m for m in misses if m["kind"] == "unboxed"]
    if not unboxed:
        return 0
    seen = {int(k) for k in box_owners(truth_tiles, np.asarray(first_boxes, float).reshape(-1, 4)) if k >= 0}
    for m in unboxed:
        m["first_pass"] = m["tile"] in seen
    return sum(m["first_pass"] for m in unboxed)


def tile_counts(states: Sequence[tuple[bool, bool, bool]], which: Sequence[bool] | None = None) -> dict[str, int]:
    """`hand_tile_states` as counts (`TILE_COUNTS`), over the hand tiles flagged True in `which` (all when None)."""
    if which is not None:
        states = [st for st, keep in zip(states, which, strict=True) if keep]
    return {"n": len(states), **{key: sum(st[j] for st in states) for j, key in enumerate(TILE_COUNTS[1:])}}


def scoring_hand(hand: dict | None, *, win_tile: bool = True) -> tuple | None:
    """What of a CONTRACTS §1 hand its score depends on and a photo shows: the closed tiles, the winning
    tile (unless `win_tile` is False), the melds in any order (kind, tiles, called tile, who from) and
    set-aside norths. None for no hand."""
    if not hand:
        return None
    from scoring.tiles import format_tiles, parse_tiles

    def tiles(text: str) -> str:
        return format_tiles(parse_tiles(text), sort=True)

    melds = sorted((m["kind"], tiles(m["tiles"]), m.get("called") or "", m.get("from") or "")
                   for m in hand.get("melds", []))
    return (tiles(hand.get("concealed", "")), hand.get("win_tile") if win_tile else None, tuple(melds),
            int(hand.get("nukidora", 0) or 0))


def _concealed_count(hand: dict) -> int:
    """How many concealed tiles a whole hand with these melds has (a meld, kans too, counting 3)."""
    return 14 - 3 * len(hand.get("melds", []))


def whole_hand(hand: dict | None) -> bool:
    """Is this labelled §1 hand a whole one (14 tiles, a meld counting 3)? A render showing part of the row
    labels only the tiles it shows."""
    if not hand:
        return False
    from scoring.tiles import parse_tiles

    return len(parse_tiles(hand.get("concealed", ""))) == _concealed_count(hand)


def win_tile_shown(sequence: str, hand: dict) -> bool:
    """Does the photo say which tile won: set apart (the closed part one tile short of the hand's) or
    lying sideways at the closed part's end? Otherwise the reader can only assume it (the last closed
    tile), and the product asks the user."""
    closed = sequence.split("|")[0].split()
    return len(closed) == _concealed_count(hand) - 1 or bool(closed) and closed[-1].endswith("-")


def scores_alike(label: dict, read_hand: dict | None) -> bool:
    """Does the reading give the labelled photo's hand for scoring (`scoring_hand`), its winning tile
    compared only where the photo shows it (`win_tile_shown`)? A photo of part of a row (no `whole_hand`)
    never does. Why: sequences can differ in notation only (the drawn tile's gap not seen: "9m | 9m"
    read as "9m 9m", whose winning tile is then the last closed one, 9m again) and score the same."""
    hand = label.get("hand")
    if not whole_hand(hand):
        return False
    shown = win_tile_shown(label["sequence"], hand)
    truth = scoring_hand(hand, win_tile=shown)
    return truth == scoring_hand(read_hand, win_tile=shown)
