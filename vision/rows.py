"""Finding the hand row among tile boxes: lines of similar, touching tiles, at any angle.

Boxes in, rows out; no pixels, no models. `vision.recognize` searches the photo's boxes for the
row to turn the photo to, and the level frame's boxes again for the layout's hint; `vision.layout`
ranks a level frame's rows with the same search. A module of its own because both need the one
row search, and it needs nothing but boxes: it can be read and tested apart from the models.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Row:
    indices: tuple[int, ...]  # member tiles, ordered along `direction`
    point: tuple[float, float]  # a point on the fitted line
    direction: tuple[float, float]  # unit vector along the row
    unit: float  # typical tile size (sqrt of box area) of the members
    score: float

    @property
    def angle(self) -> float:
        """Direction of the row in degrees, image coordinates (x right, y down), in (-90, 90]."""
        a = math.degrees(math.atan2(self.direction[1], self.direction[0]))
        if a <= -90:
            a += 180
        elif a > 90:
            a -= 180
        return a


def find_rows(boxes: np.ndarray, *, max_tilt: float | None = None, limit: int = 5,
              weights: np.ndarray | None = None, lines: "RowLines | None" = None) -> list[Row]:
    """Lines of similar-sized tiles whose centres are collinear and close to each other.

    A RANSAC-like search: every pair of neighbouring tiles proposes a line; its support is the
    chain of tiles near that line with no large gap. The score favours many and large tiles (the
    hand is the row nearest the camera, walls and discards are smaller or shorter). `max_tilt`
    (degrees) limits the lines to near-horizontal ones (used once the photo is deskewed).
    `weights` (per tile, default 1) say how much a tile counts toward a row's score, e.g. less
    for a face-down tile (walls); rows are scored before overlapping ones are dropped, so a
    wall in line with a hand cannot hide the hand's own row. `lines` = `row_lines(boxes,
    max_tilt)` computed before (the search does not depend on `weights`: scoring again with
    other weights need not search again).
    """
    found = lines if lines is not None else row_lines(boxes, max_tilt=max_tilt)
    if not found.lines:
        return list(found.fallback)
    rows = []
    for ordered, point, d, unit in found.lines:
        members = list(ordered)
        score = float((len(members) if weights is None else float(np.sum(weights[members]))) * unit)
        rows.append(Row(ordered, point, d, unit, score))
    rows.sort(key=lambda r: -r.score)
    return _distinct(rows)[:limit]


@dataclass(frozen=True)
class RowLines:
    """The candidate lines of `find_rows` before scoring: (ordered members, point, direction,
    median member size) each; `fallback` when there is none (a lone tile)."""

    lines: tuple[tuple[tuple[int, ...], tuple[float, float], tuple[float, float], float], ...]
    fallback: tuple[Row, ...] = ()


def row_lines(boxes: np.ndarray, *, max_tilt: float | None = None) -> RowLines:
    """Every distinct chain of tiles along a line proposed by a pair of neighbours (see `find_rows`)."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    n = len(boxes)
    if n == 0:
        return RowLines(())
    centres = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)
    wh = np.maximum(boxes[:, 2:] - boxes[:, :2], 1e-6)
    sizes = np.sqrt(wh[:, 0] * wh[:, 1])
    if n == 1:
        return RowLines((), (Row((0,), tuple(centres[0]), (1.0, 0.0), float(sizes[0]), float(sizes[0])),))

    diff = centres[None, :, :] - centres[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    big = np.maximum(sizes[:, None], sizes[None, :])
    ratio = big / np.minimum(sizes[:, None], sizes[None, :])
    ii, jj = np.nonzero((dist < 1.9 * big) & (ratio < 1.6) & np.triu(np.ones((n, n), bool), 1))
    seen: dict[tuple[int, ...], tuple] = {}
    tried: set[tuple[int, ...]] = set()
    for i, j in zip(ii.tolist(), jj.tolist()):
        d = diff[i, j] / max(dist[i, j], 1e-9)
        if max_tilt is not None and abs(d[1]) > math.sin(math.radians(max_tilt)):
            continue
        unit = (sizes[i] + sizes[j]) / 2
        chain = _chain(centres, sizes, centres[i], d, unit, seed=i)
        if len(chain) < 2:
            continue
        first = tuple(chain)
        if first in tried:  # the neighbours of one row propose the same chain: refit it once
            continue
        tried.add(first)
        # refit the line on the chain and collect again (walls of two-high stacks, perspective)
        pts = centres[list(chain)].astype(np.float32)
        vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        d2 = np.array([vx, vy], float)
        if d2 @ d < 0:
            d2 = -d2
        if max_tilt is None or abs(d2[1]) <= math.sin(math.radians(max_tilt)):
            unit2 = float(statistics.median(sizes[list(chain)].tolist()))  # (np.median's value, faster)
            chain2 = _chain(centres, sizes, np.array([x0, y0]), d2, unit2, seed=i)
            if i in chain2 and len(chain2) >= len(chain):
                chain, d, unit = chain2, d2, unit2
        # once more through the longest stretch without a gap: tiles in line beyond a gap (a
        # wall's end, discards) can pull the line off the hand's and cost it its end tiles
        core = longest_run(centres, chain, d, unit)
        if 3 <= len(core) < len(chain):
            vx, vy, x0, y0 = cv2.fitLine(centres[core].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            d3 = np.array([vx, vy], float)
            d3 = d3 if d3 @ d >= 0 else -d3
            if max_tilt is None or abs(d3[1]) <= math.sin(math.radians(max_tilt)):
                chain3 = _chain(centres, sizes, np.array([x0, y0]), d3, unit, seed=i)
                if i in chain3 and set(core) <= set(chain3) and len(chain3) <= len(chain):
                    chain, d = chain3, d3
        if max_tilt is not None:  # (rows of a level frame only: at any angle, other rows cross)
            chain = _extend(centres, sizes, chain, d, unit)
        key = tuple(sorted(chain))
        if key in seen:
            continue
        if d[0] < 0 or (d[0] == 0 and d[1] < 0):
            d = -d
        t = (centres[list(chain)] - centres[i]) @ d
        ordered = tuple(int(k) for _, k in sorted(zip(t.tolist(), chain)))
        seen[key] = (ordered, tuple(map(float, centres[i])), (float(d[0]), float(d[1])),
                     float(statistics.median(sizes[list(chain)].tolist())))
    if not seen:  # no two tiles side by side: every tile is its own "row"
        k = int(np.argmax(sizes))
        return RowLines((), (Row((k,), tuple(centres[k]), (1.0, 0.0), float(sizes[k]), float(sizes[k])),))
    return RowLines(tuple(seen.values()))


def _chain(centres, sizes, origin, d, unit, seed) -> list[int]:
    """Tiles within a band around the line, linked to `seed` without a gap > ~2 tiles."""
    normal = np.array([-d[1], d[0]])
    rel = centres - origin
    off = np.abs(rel @ normal)
    t = rel @ d
    ok = (off < 0.42 * unit) & (sizes > 0.62 * unit) & (sizes < 1.6 * unit)
    ok[seed] = True
    idx = np.nonzero(ok)[0]
    order = idx[np.argsort(t[idx])]
    pos = int(np.nonzero(order == seed)[0][0])
    lo = hi = pos
    def linked(a: int, b: int) -> bool:
        """Melds lie up to ~2 tiles from what is before them; up to ~2.5 if squarely in line."""
        step = abs(t[b] - t[a])
        return step < 3.2 * unit or (step < 4.0 * unit and off[b] < 0.2 * unit)

    while lo > 0 and linked(order[lo], order[lo - 1]):
        lo -= 1
    while hi < len(order) - 1 and linked(order[hi], order[hi + 1]):
        hi += 1
    return [int(k) for k in order[lo : hi + 1]]


def _extend(centres, sizes, chain, d, unit) -> list[int]:
    """The chain, followed on at each end by tiles in line with its last few tiles rather than
    with the whole line (a line fitted over a row of standing, flat and face-down tiles, whose
    centres lie at different heights, can lean enough to lose a meld a gap away at an end)."""
    t = (centres @ d).tolist()
    off = (centres @ np.array([-d[1], d[0]])).tolist()
    ok = ((sizes > 0.62 * unit) & (sizes < 1.6 * unit)).tolist()
    order = sorted(chain, key=lambda k: t[k])
    members = set(order)
    others = [k for k in range(len(t)) if ok[k] and k not in members]
    for side in (1, -1):
        while others:
            end = order[-1] if side > 0 else order[0]
            last = order[-4:] if side > 0 else order[:4]
            if len(last) >= 3:  # the end tiles run at another angle: another row crossing this line
                mt, mo = sum(t[k] for k in last) / len(last), sum(off[k] for k in last) / len(last)
                var = sum((t[k] - mt) ** 2 for k in last)
                if var > 0 and abs(sum((t[k] - mt) * (off[k] - mo) for k in last) / var) > 0.1:
                    break
            level = statistics.median(off[k] for k in (last[-3:] if side > 0 else last[:3]))
            best, best_step = None, 3.2 * unit
            for k in others:
                step = side * (t[k] - t[end])
                if 0.3 * unit < step < best_step and abs(off[k] - level) < 0.42 * unit:
                    best, best_step = k, step
            if best is None:
                break
            members.add(best)
            others.remove(best)
            order = order + [best] if side > 0 else [best] + order
    # and a tile lying midway between two of its tiles that leave room for it, at their level,
    # is the row's too (a chain collected along a line drawn askew by tiles beyond its ends can
    # pass one by)
    for k in others:
        pos = next((p for p in range(1, len(order)) if t[order[p - 1]] < t[k] < t[order[p]]), None)
        if pos is None:
            continue
        a, b = order[pos - 1], order[pos]
        if t[b] - t[a] > 1.3 * unit and abs(t[k] - (t[a] + t[b]) / 2) < 0.3 * unit \
                and abs(off[k] - (off[a] + off[b]) / 2) < 0.42 * unit:
            order.insert(pos, k)
    return order


def longest_run(centres, chain, d, unit) -> list[int]:
    """The longest stretch of the chain whose neighbours lie less than ~1 tile apart."""
    order = sorted(chain, key=lambda k: centres[k] @ d)
    best, start = (0, 1), 0
    for k in range(1, len(order) + 1):
        if k == len(order) or (centres[order[k]] - centres[order[k - 1]]) @ d > 2.0 * unit:
            if k - start > best[1] - best[0]:
                best = (start, k)
            start = k
    return order[best[0]:best[1]]


def _distinct(rows: list[Row]) -> list[Row]:
    """Drop rows that are mostly a subset of a better one."""
    kept: list[Row] = []
    for r in rows:
        s = set(r.indices)
        if all(len(s & set(k.indices)) < 0.5 * len(s) for k in kept):
            kept.append(r)
    return kept
