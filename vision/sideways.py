"""How a tile lies, from box shapes alone: sideways, a base another box lies on, or one box
holding an added kan's two tiles.

In the hand frame (`vision.frame`: row along +x), a tile's width and height against its row
neighbours' say whether its long side runs along the row (log-odds, fitted on rendered rows), and
how boxes lie on one another says where a kan's tile is stacked. No pixels, no models:
`vision.recognize` uses these to decide which way to cut each crop and which crops to read both
ways. Apart so the shape rules and their fitted constants are read, tested and swept on boxes.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

# Is a tile's long side along the row? Log-odds from its width and height against its row
# neighbours' (a sideways tile is ~4/3 as wide and, lying flat, ~3/4 as high): fitted on rendered
# rows of flat and standing tiles (seeds 800000+, not the held-out set). A row's first and last
# tiles count their width half: nothing hides part of them, so standing end tiles look wider.
WIDTH_WEIGHT = 19.6
HEIGHT_WEIGHT = 33.0
SHAPE_BIAS = -8.8
HEIGHT_CAP = 1.45  # neighbours higher than this × a tile's height stand (a flat tile is no such)
AMBIGUOUS = 6.0  # |log-odds| under which both ways are classified and the surer read helps decide
# (4 → 6 with CROP_WEIGHT 4: oracle tune 831 → 833/851; shipped models on 300 tune renders 163 → 168)


def _shape_features(frame_boxes: np.ndarray, row: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log relative width, log relative height, row end?) of each tile (see `sideways_flags`).

    Relative to the row neighbours within three places: the width to a low percentile of theirs
    (other sideways tiles nearby don't count), the height to a high percentile of those not much
    higher than the tile itself (standing closed tiles next to a flat meld are no measure of it).
    """
    w = np.maximum(frame_boxes[:, 2] - frame_boxes[:, 0], 1e-6)
    h = np.maximum(frame_boxes[:, 3] - frame_boxes[:, 1], 1e-6)
    row = [int(i) for i in row]
    base = row if row else list(range(len(w)))
    ref_w = np.full(len(w), float(np.percentile(w[base], 35)))
    ref_h = np.full(len(w), float(np.percentile(h[base], 65)))
    end = np.zeros(len(w), bool)
    if len(row) >= 4:
        order = sorted(row, key=lambda i: frame_boxes[i, 0])
        end[[order[0], order[-1]]] = True
        for pos, i in enumerate(order):
            near = [order[k] for k in range(max(0, pos - 3), min(len(order), pos + 4)) if k != pos]
            ref_w[i] = float(np.percentile(w[near], 35))
            comparable = [k for k in near if h[k] < HEIGHT_CAP * h[i]]
            ref_h[i] = float(np.percentile(h[comparable], 65)) if comparable else h[i]
    return np.log(w / ref_w), np.log(h / ref_h), end


def sideways_flags(frame_boxes: np.ndarray, row: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sideways, ambiguous, log-odds): is the tile's long side along the row?

    Judged by the width along the row and the height across it, against the neighbouring row
    tiles': widths, not aspect ratios, because a standing tile shows its top and a flat one is
    foreshortened, so heights differ with posture — but a sideways tile lies flat and is lower
    than its neighbours, flat or standing, while a standing end tile that looks wide is as high;
    neighbours, not the whole row, because perspective makes far tiles smaller. Tiles whose
    log-odds are near 0 are `ambiguous`: `recognize` classifies them both ways and weighs how
    surely each way reads against this evidence.
    """
    log_w, log_h, end = _shape_features(frame_boxes, row)
    log_odds = WIDTH_WEIGHT * np.where(end, 0.5, 1.0) * log_w - HEIGHT_WEIGHT * log_h + SHAPE_BIAS
    return log_odds > 0, np.abs(log_odds) < AMBIGUOUS, log_odds


def on_base(boxes: np.ndarray, base: np.ndarray, reach: float = 1.8) -> np.ndarray:
    """Mask of the boxes (frame units) lying on or under `base` as an added kan's stacked tile lies on
    its base: over 0.4 of the narrower one's width along the row, the centres 0.3–`reach` of the base's
    height apart across it (as `vision.layout.arrange` pairs them)."""
    h = base[3] - base[1]
    ov = np.minimum(boxes[:, 2], base[2]) - np.maximum(boxes[:, 0], base[0])
    dy = np.abs((boxes[:, 1] + boxes[:, 3]) / 2 - (base[1] + base[3]) / 2)
    return (ov > 0.4 * np.minimum(boxes[:, 2] - boxes[:, 0], base[2] - base[0])) & (dy >= 0.3 * h) & (dy <= reach * h)


def stack_bases(frame_boxes: np.ndarray, row: Sequence[int]) -> np.ndarray:
    """Mask of the row's tiles another box lies on or under (`on_base`)."""
    out = np.zeros(len(frame_boxes), bool)
    fb = frame_boxes
    w = fb[:, 2] - fb[:, 0]
    row = [int(k) for k in row]
    for b in row:
        ov = np.minimum(fb[:, 2], fb[b, 2]) - np.maximum(fb[:, 0], fb[b, 0])
        hit = on_base(fb, fb[b])
        hit[b] = False
        # (not a box of the row with another row box at its place besides the one on it: a box around a
        # stack and its base, or a tile boxed twice, is no base)
        same_place = [o for o in row if o != b and ov[o] > 0.65 * min(w[o], w[b])]
        out[b] = any(not [o for o in same_place if o != t] for t in np.flatnonzero(hit))
    return out


# An added kan's tile lies beyond its sideways base (from the owner), and seen from low down the
# two overlap so much that the detector often boxes them once: a box wider and taller than its row
# neighbours (a sideways tile is wider but lower). On the tune renders the bases whose added tile
# had no box were 1.13–1.39 times as wide and 1.03–1.25 as tall as their neighbours; plain
# sideways tiles 0.95–1.51 wide but 0.72–1.04 tall (5–95 %). Such a box (at most MAX_PAIRS, the
# tallest first) is also read as two sideways tiles: its lower PAIR_BASE as the base, its upper
# PAIR_TOP as the added tile; the reading step lays them out instead of the box when no reading
# is sure, at a cost (`vision.reading.PEN_PAIR`).
PAIR_WIDE = 1.1
PAIR_TALL = 1.0
PAIR_BASE = 0.6
PAIR_TOP = 0.5
MAX_PAIRS = 2
SURE_SIDEWAYS = 6.0  # log-odds given to a part of a pair box: an added kan's tiles both lie sideways


def pair_boxes(frame_boxes: np.ndarray, row: Sequence[int], k: int = 4) -> list[int]:
    """The row's boxes that may hold two tiles of an added kan (see PAIR_WIDE), tallest first:
    sizes against the median of the `k` row neighbours nearest along the row (near tiles are larger)."""
    row = sorted((int(i) for i in row), key=lambda i: frame_boxes[i, 0] + frame_boxes[i, 2])
    if len(row) < 5:
        return []
    fb = frame_boxes
    cx = (fb[row, 0] + fb[row, 2]) / 2
    found = []
    for n, i in enumerate(row):
        near = [row[m] for m in np.argsort(np.abs(cx - cx[n])) if m != n][:k]
        w, h = np.median(fb[near, 2] - fb[near, 0]), np.median(fb[near, 3] - fb[near, 1])
        tall = (fb[i, 3] - fb[i, 1]) / max(h, 1e-6)
        if (fb[i, 2] - fb[i, 0]) >= PAIR_WIDE * w and tall >= PAIR_TALL:
            found.append((tall, i))
    return [i for _, i in sorted(found, reverse=True)[:MAX_PAIRS]]
