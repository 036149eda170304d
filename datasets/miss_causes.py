"""Why a rendered photo was not read exactly: the first cause, from the truth and the `Reading`.

`eval_reading.py` tallies these for every missed photo, so a session can see whether the
detector's boxes, the classifier's classes or the reading step's layout lose the most hands before
choosing what to train or change. Causes are checked in the order of `CAUSES` (the pipeline's own
order: a tile must be boxed before it is laid out, and laid out before its class matters), and
the first that holds is the photo's cause:

- `not_detected`: a hand tile has no box at all (no reader box over it at IoU ≥ `MATCH_IOU`);
- `boxed_twice`: a hand tile is taken into the hand as two boxes (often a sideways tile in halves);
- `left_out`: a hand tile is boxed but the layout leaves its box out of the hand;
- `non_hand_taken`: the hand takes in a box of a tile that is not the hand's (a wall, a discard);
- `no_tile_taken`: the hand takes in a box over no tile (a gap, a shadow);
- `wrong_class`: every hand tile is taken once, but one reads as another class
  (`wrong_class_top_k` when the truth was among the tile's runner-up classes: the consistency
  search could have chosen it);
- `layout`: the right boxes and classes, laid out wrong (meld split, sideways tile, drawn tile…).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CAUSES = ("not_detected", "boxed_twice", "left_out", "non_hand_taken", "no_tile_taken", "wrong_class",
          "wrong_class_top_k", "layout")
MATCH_IOU = 0.3  # a reader box over a tile: loose, since boxes of turned tiles come from a turned frame


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in `a` (N×4 xyxy) with every box in `b` (M×4): N×M."""
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def first_cause(truth_tiles: Sequence[dict], reading) -> str:
    """The first cause (one of `CAUSES`) of a reading that differs from the truth.

    `truth_tiles`: the rendered photo's labelled tiles (`labels.jsonl` "tiles": box, cls, in_hand);
    `reading`: the `vision.reading.Reading` of that photo. Each reader box stands for the labelled
    tile it overlaps most (IoU ≥ `MATCH_IOU`), or for no tile."""
    truth_boxes = np.array([t["box"] for t in truth_tiles], np.float64).reshape(-1, 4)
    boxes = np.array([t.box for t in reading.tiles], np.float64).reshape(-1, 4)
    used = {i for g in reading.groups for i in g.tiles}
    owner = np.full(len(boxes), -1)
    if len(boxes) and len(truth_boxes):
        iou = iou_matrix(boxes, truth_boxes)
        best = iou.argmax(axis=1)
        owner = np.where(iou[np.arange(len(boxes)), best] >= MATCH_IOU, best, -1)
    hand = [k for k, t in enumerate(truth_tiles) if t["in_hand"]]
    boxes_of = {k: [i for i in range(len(boxes)) if owner[i] == k] for k in hand}
    if any(not boxes_of[k] for k in hand):
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
