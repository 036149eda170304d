"""One hand from many frames: align the hand rows of a reveal's frames tile by tile, average
each tile's class probabilities over the frames, and run the legal-hand search once.

Frames of one reveal disagree in every way a photo can go wrong: a tile missed, a box doubled,
the row cut in two, a tile read sideways, a face misread. So rows are not grouped by shape;
each row is *aligned* to a reference row — tile order along the row, class similarity and
position (after fitting the frame's scale and offset to the reference) — and a tile of the
hand is whatever most frames saw at that place:

- the reference is the row sharing most tiles with the others; rows unlike it (another hand,
  the wall read as faces) are left out, so they neither vote nor extend the event — they are
  tried as a group of their own if the first group makes no hand;
- a tile most frames that see its place have but the reference missed is added (its box mapped
  into the reference's coordinates); a box few of them have (a doubled box) is dropped, and of
  two overlapping tiles the better-seen one stays;
- per tile, the classes' log-probabilities are averaged over the frames that see it; when frames
  disagree on whether it lies sideways, the way whose crops read more surely wins.

`vision.reading.read_hand` then lays out the fused tiles and fixes them into a legal hand if
it can. Everything is deterministic (ties broken by frame order), so resumed and distributed
runs fuse alike.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from audit.reader import FrameReading, Fused

MAX_HAND_TILES = 18      # four kans: more tiles in the row is no hand (a wall, two rows joined)
MIN_SIMILARITY = 0.45    # a row this unlike the reference is another picture, not a vote
MIN_SUPPORT = 0.34       # a tile fewer of the rows that see its place have is dropped (doubled box)
ADD_SUPPORT = 0.4        # a tile the reference lacks is added when this share of those rows has it
SIDE_SHARE = 0.2         # both ways a tile lies must be seen this often to be weighed against each other
MIN_GROUP = 3            # rows other than the most common picture's must be this many to be read
FLOOR = 1e-4             # the probability of a class outside a frame's top-k


_KINDS = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)] + ["back"]
_KIND = {k: i for i, k in enumerate(_KINDS)}


@dataclass
class _Row:
    reading: FrameReading
    cx: np.ndarray        # tile centres in the hand frame (row along +x)
    cy: np.ndarray
    width: float          # median tile width (upright tiles' short side)
    root: np.ndarray      # per tile: √probability of each kind (red fives as fives), tiles × kinds
    cand: list[dict]      # per tile: class → probability

    @property
    def tiles(self) -> list[dict]:
        return self.reading.row["tiles"]

    def __len__(self) -> int:
        return len(self.cx)


def _plain(label: str) -> str:
    return "5" + label[1] if label[0] == "0" else label


def _prepare(r: FrameReading) -> _Row:
    tiles = r.row["tiles"]
    fb = np.array([t["frame_box"] for t in tiles], float).reshape(-1, 4)
    cx, cy = (fb[:, 0] + fb[:, 2]) / 2, (fb[:, 1] + fb[:, 3]) / 2
    short = np.minimum(fb[:, 2] - fb[:, 0], fb[:, 3] - fb[:, 1])
    cand = []
    dist = np.zeros((len(tiles), len(_KINDS)))
    for k, t in enumerate(tiles):
        c = {str(lb): float(p) for lb, p in t["cand"]}
        for lb, p in c.items():
            if _plain(lb) in _KIND:
                dist[k, _KIND[_plain(lb)]] += p
        cand.append(c)
    return _Row(r, cx, cy, float(np.median(short)) if len(short) else 1.0, np.sqrt(dist), cand)


def _align(ref: _Row, row: _Row, place: np.ndarray | None = None) -> tuple[float, list[tuple[int, int]]]:
    """Order-preserving alignment of `row`'s tiles to `ref`'s (dynamic programming; skipping a
    tile costs nothing). Pair score: class similarity; when `place` (row's centres mapped into
    ref's frame) is given, only tiles at the same place pair, and closeness adds a little (so a
    misread tile still pairs with the tile it is). Returns (summed class similarity of the
    pairs, [(ref i, row j)])."""
    n, m = len(ref), len(row)
    sim = ref.root @ row.root.T  # Bhattacharyya coefficients of the class distributions, 0..1
    score = sim.copy()
    if place is not None:
        dx = np.abs(place[None, :] - ref.cx[:, None]) / ref.width
        score = np.where(dx < 0.6, sim + 0.3 * (1.0 - dx), -1.0)
    # best[i, j]: the best alignment of the first i ref tiles with the first j row tiles;
    # a row of the table at a time: best[i+1, j+1] = max(best[i, j+1], best[i+1, j], best[i, j] + score)
    best = np.zeros((n + 1, m + 1))
    for i in range(n):
        step = np.empty(m + 1)
        step[0] = 0.0
        step[1:] = np.maximum(best[i, 1:], best[i, :-1] + score[i])
        best[i + 1] = np.maximum.accumulate(step)
    pairs = []
    i, j = n, m
    while i > 0 and j > 0:
        if best[i, j] == best[i - 1, j]:
            i -= 1
        elif best[i, j] == best[i, j - 1]:
            j -= 1
        else:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
    pairs.reverse()
    return float(sum(sim[i, j] for i, j in pairs)), pairs


def _fit(ref: _Row, row: _Row, pairs: list[tuple[int, int]]) -> tuple[float, float, float]:
    """Scale and offsets mapping `row`'s hand frame onto `ref`'s (the camera moved and zoomed)."""
    if len(pairs) >= 2:
        i, j = np.array(pairs).T
        xs, xr = row.cx[j], ref.cx[i]
        if np.ptp(xs) > row.width:
            s = float(np.polyfit(xs, xr, 1)[0])
            if 0.5 < s < 2.0:
                tx = float(np.median(xr - s * xs))
                ty = float(np.median(ref.cy[i] - s * row.cy[j]))
                return s, tx, ty
    s = ref.width / max(row.width, 1e-6)
    if pairs:
        i, j = np.array(pairs).T
        return s, float(np.median(ref.cx[i] - s * row.cx[j])), float(np.median(ref.cy[i] - s * row.cy[j]))
    return s, float(np.median(ref.cx) - s * np.median(row.cx)), float(np.median(ref.cy) - s * np.median(row.cy))


def _match(ref: _Row, row: _Row) -> tuple[float, list[tuple[int, int]], tuple[float, float, float]]:
    """Align by classes, fit the camera change, align again by classes and place.
    Returns (summed pair score, pairs, fit)."""
    _, pairs = _align(ref, row)
    fit = _fit(ref, row, pairs)
    score, pairs = _align(ref, row, fit[0] * row.cx + fit[1])
    return max(0.0, score), pairs, fit


def plausible(r: FrameReading) -> bool:
    """A row that could be a hand: kept by the reader, read (not reused), not too long."""
    return bool(r.row) and r.gate == "read" and len(r.row["tiles"]) <= MAX_HAND_TILES


def fuse_rows(readings: Sequence[FrameReading], players: int = 4) -> Fused | None:
    """The hand these frames show, read from all their rows at once (see the module doc); None
    if no frame has a plausible row. Rows are grouped around references (the row most like
    the others first); the first group whose fused tiles make a legal complete hand wins —
    otherwise the largest group's reading is returned with `hand` None (e.g. 13 tiles: a
    tenpai hand shown at a draw)."""
    rows = [_prepare(r) for r in readings if plausible(r)]
    if not rows:
        return None
    # The reference is the row that shares most tiles with the others (a whole row, not one
    # cut short): tiles shared, counted on the rows' class distributions (order-free, cheap).
    # A row belongs to the reference's group when, aligned to it, its tiles match over the
    # shorter of the two (a row cut short or a tile missed is still a vote for the tiles it
    # shows).
    n = len(rows)
    bags = np.array([(r.root ** 2).sum(axis=0) for r in rows])
    shared = np.minimum(bags[:, None, :], bags[None, :, :]).sum(axis=2)
    np.fill_diagonal(shared, 0.0)
    matches: dict[tuple[int, int], tuple] = {}
    left = list(range(n))
    first = None
    while len(left) >= (1 if first is None else MIN_GROUP):
        # ties: the surer row, then the earlier
        ref_i = max(left, key=lambda a: (round(float(shared[a, left].sum()), 6), rows[a].reading.row["mean_conf"], -a))
        members = [ref_i]
        for b in left:
            if b != ref_i:
                matches[ref_i, b] = _match(rows[ref_i], rows[b])
                if matches[ref_i, b][0] / min(len(rows[ref_i]), len(rows[b])) >= MIN_SIMILARITY:
                    members.append(b)
        members.sort()
        if first is not None and len(members) < MIN_GROUP:
            break
        fused = _fuse_group(ref_i, members, rows, matches, players)
        if fused.hand is not None:
            return fused
        first = first or fused
        left = [b for b in left if b not in members]
    return first


def _fuse_group(ref_i: int, members: list[int], rows: list[_Row], matches: dict, players: int) -> Fused:
    ref = rows[ref_i]
    # Columns: the reference's tiles, then tiles most rows have where the reference has none.
    # "Most" counts only the rows that see that place: a row cut short says nothing of the
    # tiles beyond its end.
    cols: list[list[tuple[int, int]]] = [[(ref_i, i)] for i in range(len(ref))]
    mapped: dict[int, tuple[float, float, float]] = {ref_i: (1.0, 0.0, 0.0)}
    extra: list[tuple[float, int, int]] = []  # (x in ref frame, member, tile)
    for b in members:
        if b == ref_i:
            continue
        _, pairs, fit = matches[ref_i, b]
        mapped[b] = fit
        for i, j in pairs:
            cols[i].append((b, j))
        used = {j for _, j in pairs}
        extra += [(fit[0] * rows[b].cx[j] + fit[1], b, j) for j in range(len(rows[b])) if j not in used]
    half = 0.5 * ref.width
    spans = [(mapped[b][0] * rows[b].cx.min() + mapped[b][1] - half,
              mapped[b][0] * rows[b].cx.max() + mapped[b][1] + half) for b in members]

    def seen_by(x: float) -> int:
        return max(1, sum(lo <= x <= hi for lo, hi in spans))

    def place(col: list[tuple[int, int]]) -> float:
        return float(np.median([mapped[b][0] * rows[b].cx[j] + mapped[b][1] for b, j in col]))

    extra.sort()
    while extra:  # cluster leftover tiles by place, one tile per row per cluster
        x0 = extra[0][0]
        group = [e for e in extra if e[0] - x0 < half]
        seen, col = set(), []
        for x, b, j in group:
            if b not in seen:
                seen.add(b)
                col.append((b, j))
        extra = [e for e in extra if e not in group]
        if len(col) >= ADD_SUPPORT * seen_by(place(col)):
            cols.append(col)
    cols = [c for c in cols if len(c) >= MIN_SUPPORT * seen_by(place(c))]
    tiles = sorted(((len(c), _fuse_column(c, rows, mapped)) for c in cols),
                   key=lambda st: (st[1].frame_box[0] + st[1].frame_box[2]) / 2)
    # Two tiles of a row cannot lie in one place: of two overlapping columns (a box doubled in
    # some frames), the one more frames saw stays.
    kept: list[tuple[int, object]] = []
    for support, t in tiles:
        if kept and _overlap(kept[-1][1].frame_box, t.frame_box) > 0.5 * ref.width:
            if support > kept[-1][0]:
                kept[-1] = (support, t)
            continue
        kept.append((support, t))
    tiles = [t for _, t in kept]

    from vision.reading import read_hand

    row = ref.reading.row
    reading = read_hand(tiles, players=players, row_angle=row.get("row_angle"),
                        image_size=tuple(row["image_size"]) if row.get("image_size") else None)
    hand = reading.hand if not reading.error else None
    return Fused(hand, reading.sequence or None, float(reading.confidence or 0.0) if hand else 0.0,
                 len(members), ref.reading.index, tuple(sorted(rows[b].reading.index for b in members)))


def _overlap(a, b) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0]))


def _lying(rotation: int) -> bool:
    return rotation in (90, 270)


def _fuse_column(col: list[tuple[int, int]], rows: list[_Row], mapped: dict):
    """One tile from its sightings: mean log-probabilities, rotation, median box.

    Frames disagree on whether a tile lies sideways (a call's tile, or a standing tile whose
    box came out wide), and a tile is classified from a crop turned the way its frame judged
    it — a crop turned the wrong way reads unsure or wrong. So when both ways are seen often
    enough, the way whose crops read more surely is taken, and only those sightings count for
    the class; otherwise the way most frames saw (upright on a tie)."""
    from vision.recognize import Candidate, TileDetection

    turns = [rows[b].tiles[j]["rotation"] for b, j in col]
    side = [(b, j) for (b, j), r in zip(col, turns) if _lying(r)]
    up = [(b, j) for (b, j), r in zip(col, turns) if not _lying(r)]
    enough = max(2, SIDE_SHARE * len(col))
    if len(side) >= enough and len(up) >= enough:
        def sureness(group):
            return float(np.mean([max(rows[b].cand[j].values(), default=0.0) for b, j in group]))
        col = side if sureness(side) > sureness(up) else up
    else:
        col = side if len(side) > len(up) else up
    turns = [rows[b].tiles[j]["rotation"] for b, j in col]
    rotation = max(sorted(set(turns)), key=lambda r: (turns.count(r), r in (0, 180)))
    union = sorted({lb for b, j in col for lb in rows[b].cand[j]})
    scores = {lb: float(np.mean([np.log(max(rows[b].cand[j].get(lb, FLOOR), FLOOR)) for b, j in col]))
              for lb in union}
    labels = sorted(scores, key=lambda lb: (-scores[lb], lb))[:5]
    logits = np.array([scores[lb] for lb in labels])
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    cands = tuple(Candidate(lb, float(p)) for lb, p in zip(labels, probs))
    frame_boxes, boxes = [], []
    for b, j in col:
        s, tx, ty = mapped[b]
        x1, y1, x2, y2 = rows[b].tiles[j]["frame_box"]
        frame_boxes.append([s * x1 + tx, s * y1 + ty, s * x2 + tx, s * y2 + ty])
    ref_b, ref_j = col[0]
    frame_box = tuple(float(v) for v in np.median(np.array(frame_boxes), axis=0))
    box = tuple(float(v) for v in rows[ref_b].tiles[ref_j]["box"])  # for drawing only
    det = float(np.mean([rows[b].tiles[j]["det"] for b, j in col]))
    return TileDetection(box, frame_box, cands[0].label, rotation, cands[0].prob, cands, det)

