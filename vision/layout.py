"""Read tiles in the hand frame → the hand's physical groups.

In the hand frame (see `vision.recognize`) the owner sits below the row, so their left is −x.
A riichi hand on the table is, left to right: the closed tiles (standing), perhaps the drawn
tile set a little apart, then the called melds (lying flat), each marked by one tile turned
sideways: leftmost = called from the left player, middle = from across, rightmost = from the
right. An added kan (kakan) has a second sideways tile stacked on the first; a closed kan
(ankan) shows two face-down tiles, at the ends or in the middle. In three-player games the
North tiles set aside (nuki-dora) lie at the far right. Everything else in the photo (walls,
discards, other hands) is ignored.

The physical reading is not always unique (a sideways tile at the end of the row may be the
winning tile or the called tile of a meld with no gap before it), so `arrange` returns every
plausible `Arrangement` with a geometric penalty; `vision.reading` weighs those against the
tile classes and keeps the most probable legal hand.
"""
from __future__ import annotations

import functools
import statistics
from dataclasses import dataclass, field, replace
from typing import Collection, Literal, Sequence

import numpy as np

from vision.classes import BACK, plain
from vision.recognize import TileDetection, hand_row_score
from vision.rows import find_rows, row_lines
from vision.sequence import Groups, SeqTile

GroupKind = Literal["closed", "drawn", "called", "minkan", "kakan", "ankan", "nuki"]
Direction = Literal["left", "across", "right"]
MELD_KINDS = ("called", "minkan", "kakan", "ankan")

SET_APART = 0.1  # the drawn tile's step over the trend of the closed tiles' steps (× a tile's width)
# … when the last tile stands in the hand's sort order it may as well have been sorted in: a
# clearer step is asked for. On the tune renders (seeds 800000+, oracle boxes) in-order last
# tiles stepped 0.13–0.98 tile over the trend when set apart (91), −0.14–0.14 when sorted in
# (105); with the shipped detector's boxes some set apart stepped only 0.11–0.14. 0.12: oracle
# tune 833 → 835/851, shipped models on 800 tune renders 448 → 449 (0.14: 836, 446).
SET_APART_IN_ORDER = 0.12
GAP = 0.18  # a gap wider than this × a tile's width separates groups
PEN_SIDEWAYS_CLOSED = 0.6  # the last closed tile lies sideways (a ron/winning tile shown turned)
PEN_GAP_INSIDE = 1.0  # a group split by a visible gap
PEN_NO_GAP = 1.0  # a meld touching what lies before it (graded by the gap)
PEN_ALL_BACKS = 0.5  # a closed kan shown with four face-down tiles
PEN_MISSING_DRAWN = 1.5  # 13 tiles and no tile set apart: the winning tile is not in the photo
PEN_PARTIAL = 2.0  # neither 13 nor 14 tiles: a partial view (allowed, but unlikely for a hand)
PEN_OFF_ROW_DRAWN = 0.3  # the winning tile taken from a loose tile beside the hand
PEN_NEXT_LOOSE = 0.5  # … the second nearest such tile
LOOSE_NOTE = "winning tile taken from a loose tile beside the hand; could be a discard"
TURNED_END_NOTE = "the last closed tile looked upright and was taken as the winning tile turned sideways"
DRAWN_LEVEL = 0.25  # a drawn tile's centre this far off the closed tiles' level (× their height) …
DRAWN_LEVEL_RAMP = 0.15  # … costs up to PEN_DRAWN_OFF_LEVEL, reached this much further off
PEN_DRAWN_OFF_LEVEL = 1.0
PEN_NOT_A_SET = 1.5  # a meld whose (best-guess) classes do not form a set
STANDING_APART = 0.12  # standing closed tiles' boxes this much higher/lower than flat meld tiles'
PEN_STANDING_MELD = 1.0  # a meld whose upright tiles are as high as the standing closed ones
# Sideways log-odds (`TileDetection.side_odds`) are fitted to tiles anywhere in a row, where ~1
# in 20 lies sideways (log-odds −3); at these places the odds differ:
# The last of 14 touching closed tiles (no gap seen) lies sideways above these log-odds, by how it
# stands in the hand's sort order: after the tiles sorted before it ("in"), the winning tile was
# more often sorted in than turned (prior −1.7); out of that order ("out"), it was not sorted in:
# it is turned or, below this, the drawn tile whose gap the view hides (prior +1.4); a hand not
# sorted tells nothing ("unsorted": as often sideways as not). Priors counted on the tune renders
# (seeds 800000+: in order 75 sorted in / 14 turned; out of order 44 turned / 11 apart / 0 in).
END_SIDEWAYS_ODDS = {"in": -1.3, "out": -4.4, "unsorted": -3.0}
PEN_HIDDEN_GAP = 0.6
# The last of 14 touching closed tiles whose shape falls short of END_SIDEWAYS_ODDS is laid out upright, and
# also, as another arrangement, turned (the winning tile shown sideways: a lying tile's box at a row's end
# can look like a standing one's), for PEN_SIDEWAYS_CLOSED + this per unit of log-odds it falls short; the
# reading step then keeps whichever way reads as a hand (its crop is read both ways). Session 19, shipped
# models, tune9 / tune9_x3: 273 / 136 -> 273 / 138 (0.25, 0.5 and 1 alike; none lost); held-out
# det_test_x3g 219 -> 220, det_test_x1g 198 -> 200, det_test_h 102 (none lost). 99: never.
END_TURN_PER_ODDS = 0.5
TOUCHING_SIDEWAYS_ODDS = -2.5  # see `_turned_not_apart`
TOUCHING_SIDEWAYS_STEP = 0.35  # the last of 14 touching tiles taken for the drawn tile with no gap seen
DRAWN_SIDEWAYS_ODDS = 4.0  # a tile set apart stands unless its shape is this sure it lies
# … and a tile that sure to lie sideways, a little apart after the closed tiles (under this many
# tiles), is the winning tile turned (a drawn tile set apart stands; the turned one lies flat,
# so its box steps wider beside standing tiles)
SURE_SIDEWAYS_GAP = 0.6
MELD_SIDEWAYS_PRIOR = 2.3  # three flat tiles after the closed part: one in three lies sideways
UNSEEN_PER_ODDS = 1.0  # … per unit of log-odds its likeliest tile falls short of that
MELD_SECOND_SIDEWAYS = 4.0  # a meld's second sideways-looking tile stands unless surer than this
PEN_FORCED_UPRIGHT = 2.0  # a tile whose shape said "sideways" taken as upright (inside the closed part)
FORCED_PER_ODDS = 0.25  # … per unit of its sideways log-odds, when known
MAX_FORCED = 2
PEN_SECOND_ROW = 1.5  # reading the hand in the runner-up row
PEN_TRIM_BACK = 0.3
MAX_TRIM = 8  # tiles that may be left out at each end of the row
END_TRIM = 3  # … at the far end of a stretch beyond a gap, when the stretch is longer than that
# A tile at an end of the row left out of the hand (it lies in line with it). 1.0 until session 16; with
# detectors that box end tiles more reliably a face-up end tile touching the hand is rarely a stray, and
# leaving it out to read a 13-tile hand hid misreads elsewhere. tune9 (3 pairs, READ16 harness): 1.0: shipped
# 268, ft12 e5 268, ft14 e5 270; 1.25: 268, 269, 270; 1.5: 269, 269, 270 (none lost); 1.75: 269, 269, 270;
# 2.0 (on the recogniser before): shipped −1. Held-out, shipped pair, with session 16's stack changes (before
# → stack changes → and 1.5): det_test_h400f 239 → 239 → 239, h400e 253 → 256 → 257, hard 25, h 101 → 102 → 102.
PEN_TRIM = 1.5
PEN_TRIM_GAP = 0.6  # … when a gap separates it from the hand
# Two row boxes of one face at one place along the row, one over STACK_APART of the lower box's height above the
# other, are an added kan's stack (its base and the tile lying on it). When both look sideways, over
# STACK_APART_SIDEWAYS: seen from a low camera the stacked tile lies only a little beyond its base, and two
# sideways boxes closer than DUPLICATE_ACROSS are one tile boxed twice anyway. Session 55: tune10_x3 #167 (both
# 2s sideways, 0.28 apart) read its added kan as a pon, surely; STACK_APART_SIDEWAYS 0.3 -> 0.22 or 0.15 on four
# tune sets (tune10_x3 / tune9_x3 / tune_plaid_x3 / tune_close_x3): 260 -> 261, 173, 170, 156, none lost. Lowering
# STACK_APART itself (one of the two upright) to 0.2 gained 2 and lost 2: a sideways end tile boxed twice with an
# upright-looking second box became a stack (tune10_x3 #221, tune_plaid_x3 #7).
STACK_APART = 0.3
STACK_APART_SIDEWAYS = 0.2
STACKED_FACE_P = 0.005  # a tile lying on a sideways one is its added kan tile if it can show its face this likely
# a tile whose sideways log-odds lie under −this is surely upright (the band `vision.recognize`
# reads both ways is ±6): no added kan pairs it with a sideways tile lying beyond it
SURE_UPRIGHT = 6.0
DUPLICATE_OVERLAP = 0.65  # two row boxes overlapping this much of the narrower one's width: one tile twice
DUPLICATE_ACROSS = 0.2  # … and their centres this near across the row (× the lower box's height)
# … or, laid out again as a retry (`arrange(wide=True)`, see `vision.reading.PEN_WIDE`), this near
# when neither looks sideways: a standing tile seen from above is boxed once by its face and once
# with its top, 0.2-0.45 of a height apart. Not up front: an added kan whose two tiles both look
# upright lies so too (session 24: merged always, det_test_x1g lost one), and whether they read
# alike lying does not tell them apart (a drawn 1p boxed twice reads 1p either way: tune10_x3 #282).
DUPLICATE_ACROSS_UPRIGHT = 0.45


def _median(xs: Sequence[float]) -> float:
    """`float(np.median(xs))` of a short, non-empty list, to the bit (both take the middle value, or the two
    middle values' mean), without numpy's array overhead: the layout search asks it tens of thousands of times."""
    return float(statistics.median(xs))


def _clip(x: float, low: float = 0.0, high: float = 1.0) -> float:
    """`float(np.clip(x, low, high))` for one float, to the bit, without numpy's overhead."""
    return float(min(max(x, low), high))


def _set_apart(pitches: Sequence[float], unit: float, margin: float = SET_APART) -> bool:
    """Is the last closed tile a little apart: its pitch clearly wider than the trend before it?

    `pitches` are the steps between neighbouring closed tiles, each the smaller of the steps of
    their left and of their right box edges. Not box gaps: boxes of standing tiles overlap by as
    much as a neighbour hides, and the last tile of a row, hidden by nothing, has a wider box; a
    tile set apart moves both its edges, a wider box only one. Relative, not absolute:
    perspective makes the pitch drift along the row, so the last step is compared with the line
    fitted through the others, allowing for their scatter.
    """
    if not pitches:
        return False
    last, rest = pitches[-1], np.asarray(pitches[:-1], float)
    if len(rest) >= 3:
        k = np.arange(len(rest))
        slope, icpt = np.polyfit(k, rest, 1)
        expected = slope * len(rest) + icpt
        spread = float(np.median(np.abs(rest - (slope * k + icpt))))
    else:
        expected = float(rest.max()) if len(rest) else last
        spread = 0.0
    return last > expected + max(margin * unit, 3 * spread)


def _turned_not_apart(t: TileDetection, pitches: Sequence[float], unit: float) -> bool:
    """Does the last tile, stepping a little wider than the row's trend but with no box gap,
    look rather like the winning tile turned sideways and touching (its shape near sideways,
    log-odds over −2.5, and the step over the trend under 0.35 tile) than like one set apart?
    (A flat tile beside standing ones lets their side show, which widens the step; tiles set
    apart on the tune renders stepped 0.17–0.7 tile wider, turned ones 0.11–0.32.)"""
    if t.side_odds is None or t.side_odds <= TOUCHING_SIDEWAYS_ODDS or len(pitches) < 4:
        return False
    rest = np.asarray(pitches[:-1], float)
    k = np.arange(len(rest))
    slope, icpt = np.polyfit(k, rest, 1)
    return (pitches[-1] - (slope * len(rest) + icpt)) < TOUCHING_SIDEWAYS_STEP * unit


def is_set(labels: Sequence[str], kind: str) -> bool:
    """Do these classes form the meld `kind` ("called": chi or pon; kans: four alike)?"""
    faces = [plain(x) for x in labels if x and x != BACK]
    if not faces:
        return kind == "ankan"
    if kind == "called":
        if len(set(faces)) == 1:
            return True
        suits = {f[1] for f in faces}
        nums = sorted(int(f[0]) for f in faces)
        return len(suits) == 1 and "z" not in suits and nums == list(range(nums[0], nums[0] + 3))
    return len(set(faces)) == 1


@dataclass(frozen=True)
class Group:
    kind: GroupKind
    tiles: tuple[int, ...]  # tile indices, owner's left to right; a stacked tile follows its base
    called: int | None = None  # the sideways tile of a called meld
    added: int | None = None  # the stacked tile of an added kan
    direction: Direction | None = None

    @property
    def is_meld(self) -> bool:
        return self.kind in MELD_KINDS


@dataclass(frozen=True)
class Arrangement:
    """One way to read the hand's groups: closed, drawn (if set apart), melds, nuki-dora."""

    groups: tuple[Group, ...]
    penalty: float  # implausibility (about the scale of −log probability), for ranking
    row: tuple[int, ...]  # the hand row's tiles, left to right (without stacked tiles)
    notes: tuple[str, ...] = field(default=())
    geometry: float = 0.0  # the part of `penalty` that does not depend on the tile classes
    upright: tuple[int, ...] = ()  # tiles read as sideways that this arrangement takes as upright
    turned: tuple[int, ...] = ()  # tiles read as upright that it takes as sideways (an added kan's pair)
    twice: tuple[int, ...] = ()  # row boxes left out as a second box of their neighbour's tile (`_duplicate`)

    @property
    def used(self) -> set[int]:
        return {i for g in self.groups for i in g.tiles}

    def to_sequence(self, tiles: Sequence[TileDetection]) -> Groups:
        """The arrangement in CONTRACTS §3 terms (for labels, evaluation and display)."""
        out: Groups = []
        in_row = set(self.row)
        for g in self.groups:
            # a drawn tile lying loose off the row has no meaningful "sideways" (it is not a call)
            loose = g.kind == "drawn" and g.tiles[0] not in in_row
            # (a face-down tile is never turned: a closed kan's tiles lie along the row)
            out.append([SeqTile(tiles[i].label or BACK,
                                sideways=((tiles[i].sideways or i in self.turned) and not loose and i not in self.upright
                                          and tiles[i].label not in (None, BACK)) or i == g.added,
                                stacked=i == g.added) for i in g.tiles])
        return out

    @property
    def tile_count(self) -> int:
        """Tiles counted toward the hand (kans count as three, nuki-dora not at all)."""
        n = 0
        for g in self.groups:
            if g.kind in ("closed", "drawn"):
                n += len(g.tiles)
            elif g.is_meld:
                n += 3
        return n


def _overlap(a: Sequence[float], b: Sequence[float]) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0]))


def candidate_rows(tiles: Sequence[TileDetection], keep: float = 0.6) -> list[tuple[int, ...]]:
    """Rows that could be the hand among the classified tiles, best first: many, large, face-up
    tiles in a line; rows scoring under `keep` × the best are dropped."""
    idx = [i for i, t in enumerate(tiles) if t.label is not None]
    if not idx:
        return []
    boxes = np.array([tiles[i].frame_box for i in idx], float)
    # rows as found, and as found with face-down tiles counting little when overlapping rows
    # are dropped (a line through a hand and a wall's end must not hide the hand's own row)
    lines = row_lines(boxes, max_tilt=15.0)
    weights = np.array([0.15 if tiles[i].label == BACK else 1.15 for i in idx])
    found = {r.indices: r for w in (None, weights) for r in find_rows(boxes, limit=6, weights=w, lines=lines)}
    scored = []
    for r in found.values():
        members = [idx[k] for k in r.indices]
        scored.append((hand_row_score([tiles[i].label for i in members], r.unit), tuple(members)))
    scored.sort(key=lambda x: -x[0])
    return [m for sc, m in scored if sc >= keep * scored[0][0]]


def choose_row(tiles: Sequence[TileDetection]) -> tuple[int, ...]:
    """The most likely hand row (see `candidate_rows`)."""
    rows = candidate_rows(tiles)
    return rows[0] if rows else ()


def arrange(tiles: Sequence[TileDetection], *, players: int = 4, row: Sequence[int] | None = None,
            limit: int = 8, keep: Collection[int] = (), wide: bool = False) -> list[Arrangement]:
    """Plausible arrangements of the hand in `tiles`, best (lowest penalty) first.

    `row` forces the hand row (indices into `tiles`); by default it is found here. `keep`: boxes
    never merged with a neighbour as one tile boxed twice (the reader retries with a dropped one
    kept when the hand comes out a tile short). `wide`: two upright boxes of one face further apart
    across the row are one tile boxed twice too (`DUPLICATE_ACROSS_UPRIGHT`). Returns an empty list
    when there is no classified tile at all.
    """
    if row is None:  # each plausible row in turn; a later row pays for being less likely
        out: list[Arrangement] = []
        for rank, cand in enumerate(candidate_rows(tiles)[:2]):
            out += [replace(a, penalty=a.penalty + PEN_SECOND_ROW * rank, geometry=a.geometry + PEN_SECOND_ROW * rank)
                    for a in arrange(tiles, players=players, row=cand, limit=limit, keep=keep, wide=wide)]
        out.sort(key=lambda a: a.penalty)
        return _with_whole_hands(out, limit)
    row_idx = list(row)
    if not row_idx:
        return []
    fb = {i: tiles[i].frame_box for i in range(len(tiles))}
    row_idx.sort(key=lambda i: (fb[i][0] + fb[i][2]) / 2)

    # A sideways tile lying on another sideways tile of the row is an added kan's added tile.
    # Both lie sideways, whatever one of their shapes said: only an added kan stacks two tiles.
    side = {i for i, t in enumerate(tiles) if t.sideways}
    stacked: dict[int, int] = {}
    kept: list[int] = []
    twice: set[int] = set()  # boxes of a tile detected twice, left out
    def stack_pair(a: int, b: int) -> bool:
        """Could one of these two row boxes lie on the other as an added kan's pair?"""
        apart = STACK_APART_SIDEWAYS if a in side and b in side else STACK_APART
        return (((a in side or b in side) and _same_face(tiles[a], tiles[b], lying=True)
                 or _both_read_lying_alike(tiles[a], tiles[b])) and _one_above_other(fb[a], fb[b], apart=apart))

    for pos, i in enumerate(row_idx):
        if kept and i not in keep and kept[-1] not in keep and _duplicate(tiles[i], tiles[kept[-1]], wide):
            # one tile boxed twice: the surer box stays
            if tiles[i].det_score > tiles[kept[-1]].det_score:
                twice.add(kept[-1])
                kept[-1] = i
            else:
                twice.add(i)
            continue
        # (whatever their shapes said: two tiles of one row cannot lie at the same place — but
        # only two of one face make an added kan: a discard or a wall's tile lying on the row's
        # end tile is no kan's)
        # (one lies beyond the other, as off the row a stacked tile must: 0.3 of a height; a tile
        # beside a sideways one seen along the row overlaps it half at one level)
        # (and of two row boxes it could pair with, it lies on the one it overlaps more: a kan's
        # stacked tile seen along the row is reached before its base when it also overlaps the
        # standing tile before the kan)
        if kept and stack_pair(i, kept[-1]) and not (
                pos + 1 < len(row_idx) and stack_pair(i, row_idx[pos + 1])
                and _overlap(fb[i], fb[row_idx[pos + 1]]) > _overlap(fb[i], fb[kept[-1]])):
            lower, upper = (kept[-1], i) if fb[kept[-1]][1] > fb[i][1] else (i, kept[-1])
            kept[-1] = lower
            stacked[lower] = upper
            side |= {lower, upper}
            continue
        if kept and _one_above_other(fb[i], fb[kept[-1]]):
            # two tiles at one place along the row, one above the other, and no added kan: the
            # one off the row's level lies beyond it (a discard in line with a leaning row, the
            # wall behind the hand showing above it), the level taken from the faces near it
            faces = [k for k in row_idx if tiles[k].label not in (None, BACK)]
            level = _level_near(fb, faces if len(faces) >= 4 else row_idx, (fb[i][0] + fb[i][2]) / 2,
                                exclude=(i, kept[-1]))
            if level is not None:
                off = lambda k: abs((fb[k][1] + fb[k][3]) / 2 - level)
                if off(i) < off(kept[-1]):
                    kept[-1] = i
                continue
        kept.append(i)
    row_idx = kept
    merged = tuple(sorted(twice))  # (every arrangement of this row names them)
    heights = [fb[i][3] - fb[i][1] for i in row_idx if i in side]
    widths = [fb[i][2] - fb[i][0] for i in row_idx if i not in side]
    unit = float(np.median(widths)) if widths else float(np.median(heights or [1.0]))
    long_side = float(np.median([max(fb[i][2] - fb[i][0], fb[i][3] - fb[i][1]) for i in row_idx]))
    in_row = set(row_idx)
    for pos, b in enumerate(list(row_idx)):
        if b in stacked or tiles[b].label in (None, BACK):
            continue
        short = fb[b][3] - fb[b][1]
        best, best_d = None, None
        for t, tile in enumerate(tiles):
            if t in in_row or t in twice or t in stacked.values() or tile.label in (None, BACK):
                continue
            if t not in side and b not in side:
                # both looked upright (a stacked tile and its base, seen end on, can): as in the
                # row, only when both read surely as one face from their crops turned sideways,
                # the one off the row lying alone on the other, neither surely upright
                if (not _both_read_lying_alike(tile, tiles[b]) or _has_neighbour(tiles, t, in_row | twice)
                        or _surely_upright(tile) or _surely_upright(tiles[b])):
                    continue
            elif (t in side) != (b in side):
                # one looked upright: only the same tile, lying alone on it, makes them a kan's pair,
                # and not when its shape was sure (a standing closed tile, and beyond it a discard
                # of the same face laid sideways for riichi)
                lying, upright = (t, b) if t in side else (b, t)
                if (not _lying_label_matches(tiles[lying], tiles[upright]) or _has_neighbour(tiles, t, in_row | twice)
                        or _surely_upright(tiles[upright])):
                    continue
            if not _same_face(tile, tiles[b], STACKED_FACE_P, lying=True):
                continue  # a discard of another face lying on the meld's sideways tile
            dy = (fb[b][1] + fb[b][3]) / 2 - (fb[t][1] + fb[t][3]) / 2
            ov = _overlap(fb[b], fb[t])
            if any(_overlap(fb[o], fb[t]) > ov for o in row_idx if o != b):
                continue  # it lies more on another tile of the row
            if ov > 0.4 * min(fb[b][2] - fb[b][0], fb[t][2] - fb[t][0]) and 0.3 * short <= abs(dy) <= 1.8 * short:
                if best_d is None or abs(dy) < best_d:
                    best, best_d = (t, dy), abs(dy)
        if best is not None:
            t, dy = best
            if dy > 0:  # t lies above b: the added tile
                stacked[b] = t
            else:  # the row caught the added tile; its base lies below it
                row_idx[pos] = t
                in_row.discard(b)
                in_row.add(t)
                stacked[t] = b
            side |= {b, t}
    turned = tuple(sorted(i for i in side if not tiles[i].sideways))

    # (penalty, tiles counted, what makes the Arrangement): most of the thousands laid out are never
    # returned (`_with_whole_hands` keeps a few), so only those kept are built
    results: list[tuple[float, int, tuple]] = []

    @functools.cache
    def loose_tiles() -> list[int]:
        """Lone face-up tiles beside the hand (see `_loose_tiles`), nearest first; computed once."""
        return _loose_tiles(tiles, full, set(stacked.values()) | twice, long_side)

    def step_margin(closed: Sequence[int]) -> float:
        """How far the last closed tile must step over the trend to be set apart (see SET_APART_IN_ORDER)."""
        return SET_APART_IN_ORDER if _end_order([tiles[i].label for i in closed]) == "in" else SET_APART

    # The stretches `enumerate_row` is given overlap (every trim of the row's ends, 81 of them), and what
    # follows is a function of tile indices alone, so it is worked out once an arrange call and shared:
    # the ways to cut the row into melds from a tile to a stretch's end, keyed (first tile's place in the
    # row, the stretch's end, whether that tile begins the stretch), and the closed part's geometry keyed by
    # its tiles. (Nothing else changes: the same arrangements, in the same order, with the same penalties.)
    meld_memo: dict[tuple[int, int, bool], list[tuple[list[Group], float, float]]] = {}
    closed_memo: dict[tuple, object] = {}

    def closed_fact(key: tuple, work) -> object:
        if key not in closed_memo:
            closed_memo[key] = work()
        return closed_memo[key]

    def enumerate_row(row_idx: list[int], trim_pen: float) -> None:
        """Every arrangement of this stretch of the row into results."""
        kinds = ["X" if tiles[i].label == BACK else "S" if i in side else "U" for i in row_idx]
        # gaps over the typical spacing of touching tiles (boxes may be loose, tight or overlap)
        gaps = [full_gaps[full_pos[row_idx[k]]] for k in range(len(row_idx) - 1)]  # (stretches are contiguous)
        big = [g > GAP * unit for g in gaps]
        pitches = [min(fb[b][0] - fb[a][0], fb[b][2] - fb[a][2]) for a, b in zip(row_idx, row_idx[1:])]
        n = len(row_idx)
        offset = full_pos[row_idx[0]]
        row_tuple = tuple(row_idx)

        def turned_not_apart(closed: tuple[int, ...]) -> bool:  # (`closed` = row_idx[:c]: its steps are pitches[:c-1])
            return closed_fact(("turned", closed),
                               lambda: _turned_not_apart(tiles[closed[-1]], pitches[: len(closed) - 1], unit))

        def seg_melds(start: int) -> list[tuple[list[Group], float, float]]:
            """All ways to cut row_idx[start:] into melds (+ nuki at the end), with penalties
            (geometric, and for meld classes that form no set)."""
            key = (offset + start, offset + n, start == 0)
            if key not in meld_memo:
                meld_memo[key] = _seg_melds(start)
            return meld_memo[key]

        def _seg_melds(start: int) -> list[tuple[list[Group], float, float]]:
            if start == n:
                return [([], 0.0, 0.0)]
            out: list[tuple[list[Group], float, float]] = []
            for size in (3, 4):
                end = start + size
                if end > n:
                    continue
                ks = kinds[start:end]
                ids = tuple(row_idx[start:end])
                # (graded: a meld's sideways tile, or an end tile hidden by nothing, can step a little wide)
                pen = sum(PEN_GAP_INSIDE * min(1.0, (gaps[k] - GAP * unit) / (GAP * unit))
                          for k in range(start, end - 1) if big[k])
                if "S" not in ks and "X" not in ks:  # a meld shows one sideways tile: its likeliest
                    odds = [tiles[i].side_odds for i in ids]
                    if None not in odds:
                        j = odds.index(max(odds))  # (the first likeliest, as np.argmax)
                        ks = ks[:j] + ["S"] + ks[j + 1:]
                        # (less likely the less sideways its likeliest tile looked)
                        pen += UNSEEN_PER_ODDS * max(0.0, -MELD_SIDEWAYS_PRIOR - odds[j])
                elif ks.count("S") == 2 and "X" not in ks:  # … and only one: the other stands
                    side = [j for j, c in enumerate(ks) if c == "S"]
                    odds = [tiles[ids[j]].side_odds for j in side]
                    if None not in odds and not any(ids[j] in stacked for j in side) and min(odds) < MELD_SECOND_SIDEWAYS:
                        j = side[odds.index(min(odds))]
                        ks = ks[:j] + ["U"] + ks[j + 1:]
                        pen += _forced_cost(tiles[ids[j]])
                if start > 0:  # melds usually lie a little apart: the narrower the gap, the less likely
                    pen += PEN_NO_GAP * _clip((GAP * unit - gaps[start - 1]) / (GAP * unit))
                group = None
                if ks.count("S") == 1 and "X" not in ks:
                    pos = ks.index("S")
                    called = ids[pos]
                    if size == 3:
                        direction = ("left", "across", "right")[pos]
                        if called in stacked:
                            add = stacked[called]
                            group = Group("kakan", ids[: pos + 1] + (add,) + ids[pos + 1 :], called, add, direction)
                        else:
                            group = Group("called", ids, called, None, direction)
                    elif called not in stacked:
                        direction = ("left", "across", "across", "right")[pos]
                        group = Group("minkan", ids, called, None, direction)
                elif size == 4 and "S" not in ks:
                    xs = tuple(k for k, c in enumerate(ks) if c == "X")
                    if xs in ((0, 3), (1, 2)):
                        group = Group("ankan", ids)
                    elif len(xs) == 4:
                        group = Group("ankan", ids)
                        pen += PEN_ALL_BACKS
                if group is not None:
                    kind = "called" if group.kind == "called" else "kan"
                    lab = 0.0 if is_set([tiles[i].label for i in group.tiles], kind) else PEN_NOT_A_SET
                    for rest, p, lp in seg_melds(end):
                        out.append(([group] + rest, pen + p, lab + lp))
            # nuki-dora: upright North tiles at the very end (three-player games only)
            if players == 3 and start > 0 and n - start <= 4 and all(
                    k == "U" and tiles[i].label == "4z" for k, i in zip(kinds[start:], row_idx[start:])):
                pen = sum(PEN_GAP_INSIDE for k in range(start, n - 1) if big[k])
                pen += 0.0 if big[start - 1] else PEN_NO_GAP * 2
                out.append(([Group("nuki", tuple(row_idx[start:]))], pen, 0.0))
            return out

        for c in range(1, n + 1):
            ks = kinds[:c]
            if "X" in ks:
                continue
            # a sideways tile inside the closed part can only be a misjudged upright one
            forced = tuple(row_idx[k] for k in range(c - 1) if ks[k] == "S")
            if len(forced) > MAX_FORCED or any(i in stacked for i in forced):
                continue  # (a tile with another lying on it is an added kan's, surely sideways)
            base_pen = (PEN_SIDEWAYS_CLOSED if ks[-1] == "S" else 0.0) + sum(_forced_cost(tiles[i]) for i in forced)
            for melds, mpen, lpen in seg_melds(c):
                closed = tuple(row_idx[:c])
                pen = base_pen + mpen
                notes: list[str] = []
                inner = [k for k in range(c - 1) if big[k]]
                drawn: tuple[int, ...] = ()
                n_melds = sum(g.is_meld for g in melds)
                count = c + 3 * n_melds
                sure_side = ks[-1] == "S" and (tiles[closed[-1]].side_odds or 0.0) >= DRAWN_SIDEWAYS_ODDS
                if c >= 2 and (c - 2) in inner and gaps[c - 2] <= (SURE_SIDEWAYS_GAP if sure_side else 2 * GAP) * unit and (
                        ks[-1] == "S" or count == 14 and turned_not_apart(closed)):
                    inner.remove(c - 2)  # a sideways tile after standing ones steps wider: not apart
                # (two closed tiles give no trend of their own: their step is read against the row's)
                def apart() -> bool:  # (only worked out when needed: it fits a line)
                    if c > 2:
                        return closed_fact(("apart", closed),
                                           lambda: _set_apart(pitches[: c - 1], unit, step_margin(closed)))
                    return c == 2 and gaps[0] > step_margin(closed) * unit

                if c >= 2 and ((c - 2) in inner or (count == 14 and ks[-1] == "U" and apart()
                                                    and not turned_not_apart(closed))):
                    drawn = (closed[-1],)  # the last closed tile set apart: the drawn tile
                    closed = closed[:-1]
                    if (c - 2) in inner:
                        inner.remove(c - 2)
                pen += PEN_GAP_INSIDE * len(inner)
                upright, turned_here = forced, turned
                turn_variant = None  # the cost of also reading the last closed tile as lying sideways
                last = row_idx[c - 1]
                odds = tiles[last].side_odds
                if odds is not None and tiles[last].label != BACK:
                    # where it lies makes one way likelier: a tile set apart (the drawn tile)
                    # stands; the last of 14 touching closed tiles is the winning tile turned
                    # sideways, or one sorted in, or the drawn tile whose gap the view hides
                    # (one out of the hand's sort order was not sorted in: see `_end_order`)
                    if drawn == (last,) and ks[-1] == "S" and odds < DRAWN_SIDEWAYS_ODDS:
                        upright += (last,)
                        pen -= PEN_SIDEWAYS_CLOSED
                    elif not drawn and count == 14 and ks[-1] == "U":
                        order = _end_order([tiles[i].label for i in closed])
                        if odds > END_SIDEWAYS_ODDS[order]:
                            turned_here += (last,)
                            pen += PEN_SIDEWAYS_CLOSED
                        elif order == "out":
                            drawn = (closed[-1],)
                            closed = closed[:-1]
                            pen += PEN_HIDDEN_GAP
                            notes.append("no gap is seen before the last tile, but it is out of the hand's "
                                         "sort order: taken as the drawn tile")
                        else:  # it may lie sideways all the same (END_TURN_PER_ODDS)
                            turn_variant = PEN_SIDEWAYS_CLOSED + END_TURN_PER_ODDS * (END_SIDEWAYS_ODDS[order] - odds)
                if drawn:
                    pen += closed_fact(("level", closed, drawn[0]),
                                       lambda: _drawn_off_level_cost(fb, closed, drawn[0], side))
                # (closed, drawn, extra penalty, notes, tiles it also turns sideways)
                variants = [(closed, drawn, 0.0, (), ())]
                if turn_variant is not None:
                    variants.append((closed, drawn, turn_variant, (TURNED_END_NOTE,), (last,)))
                if count == 13 and not drawn:
                    # one short, nothing set apart: the winning tile is not in the photo, or it
                    # lies loose beside the hand (tried when close enough; the reading step takes
                    # it only if it completes the hand, which a stray discard seldom does)
                    variants = [(closed, drawn, PEN_MISSING_DRAWN, (), ())]
                    for k, loose in enumerate(loose_tiles()):
                        if _turned_at_end(tiles[loose], fb[closed[-1]], unit):
                            # the winning tile turned, lying flat after standing tiles
                            variants.append((closed + (loose,), drawn, PEN_SIDEWAYS_CLOSED, (), ()))
                        else:
                            variants.append((closed, (loose,), PEN_OFF_ROW_DRAWN + PEN_NEXT_LOOSE * k, (LOOSE_NOTE,), ()))
                elif count == 13:  # a tile set apart, yet one short: a tile was lost (or left out)
                    pen += PEN_MISSING_DRAWN
                elif count not in (13, 14):
                    pen += PEN_PARTIAL
                pen += trim_pen
                turned_here += tuple(g.called for g in melds if g.called is not None
                                     and not tiles[g.called].sideways and g.called not in turned_here)
                upright += tuple(i for g in melds if g.kind in ("called", "minkan", "kakan") for i in g.tiles
                                 if tiles[i].sideways and i not in (g.called, g.added))
                if c < n and gaps[c - 1] <= GAP * unit:  # (a meld lying apart is one, however high)
                    pen += _standing_meld_cost(tiles, closed, melds)
                for v_closed, v_drawn, v_pen, v_notes, v_turned in variants:
                    results.append((round(pen + v_pen + lpen, 6), len(v_closed) + len(v_drawn) + 3 * n_melds,
                                    (v_closed, v_drawn, melds, row_tuple, tuple(notes) + v_notes, round(pen + v_pen, 6),
                                     upright, turned_here + v_turned)))

    full = row_idx
    n_full = len(full)
    full_pos = {i: k for k, i in enumerate(full)}
    full_gaps = _gaps(full, fb, unit)
    def cost(k: int, gap: float) -> float:
        # a face-down tile is rarely the hand's (a wall's), nor one whose face is turned
        # away from the owner (discards of the player across, laid in line with the hand)
        t = tiles[full[k]]
        if t.label == BACK or t.rotation == 180:
            return PEN_TRIM_BACK
        return PEN_TRIM_GAP if gap > GAP * unit else PEN_TRIM

    def left_trim(a: int) -> float:
        return sum(cost(k, full_gaps[k]) for k in range(a))

    def right_trim(b: int) -> float:
        return sum(cost(n_full - 1 - k, full_gaps[n_full - 2 - k]) for k in range(b))

    for a in range(0, MAX_TRIM + 1):  # distractors in line with the hand (a wall's end, a stray tile)
        for b in range(0, MAX_TRIM + 1):
            if n_full - a - b < (5 if a + b else 1):
                continue
            enumerate_row(full[a:n_full - b], left_trim(a) + right_trim(b))
    for k, g in enumerate(full_gaps):  # or a whole stretch beyond a gap (a wall, discards) …
        if g > GAP * unit:
            # … and, when that stretch is longer than a trim reaches, a few tiles at the other
            # end too (a wall longer than the hand at one end, a wall's corner at the other)
            for e in range(0, END_TRIM + 1 if n_full - k - 1 > MAX_TRIM else 1):
                if n_full - k - 1 > 2 and k + 1 - e >= (5 if e else 1):
                    enumerate_row(full[e: k + 1], PEN_TRIM_GAP + 0.1 * (n_full - k - 1) + left_trim(e))
            for e in range(0, END_TRIM + 1 if k + 1 > MAX_TRIM else 1):
                if k + 1 > 2 and n_full - k - 1 - e >= (5 if e else 1):
                    enumerate_row(full[k + 1: n_full - e], PEN_TRIM_GAP + 0.1 * (k + 1) + right_trim(e))
    if not results:  # nothing fits the conventions: read the row as it lies, heavily penalised
        return [Arrangement((Group("closed", tuple(full)),), 5.0, tuple(full),
                            ("the row does not follow the usual layout",), 5.0)]
    results.sort(key=lambda r: r[0])  # (stable, by penalty alone: ties keep the order they were laid out in)
    kept = _with_whole_hands(results, limit, count=lambda r: r[1])
    return [Arrangement((Group("closed", closed),) + ((Group("drawn", drawn),) if drawn else ()) + tuple(melds),
                        penalty, row, notes, geometry, upright, turned_, merged)
            for penalty, _, (closed, drawn, melds, row, notes, geometry, upright, turned_) in kept]


def _with_whole_hands(ranked: list, limit: int, count=lambda a: a.tile_count) -> list:
    """The `limit` likeliest arrangements, and as many of the likeliest whole hands (13 or 14
    tiles) beyond those: when many tiles lie in line with the hand (another row's, discards),
    leaving them all out costs much, yet a legal hand inside the row is likelier than a reading
    of every tile that makes none (the reading step weighs them). `count`: an item's tiles counted
    (`Arrangement.tile_count`, or what `arrange` keeps before it builds the arrangements)."""
    return ranked[:limit] + [a for a in ranked[limit:] if count(a) in (13, 14)][:limit]


def _same_face(a: TileDetection, b: TileDetection, min_p: float = 0.05, *, lying: bool = False) -> bool:
    """Could these two be the same tile (an added kan's pair)? Face-down tiles never are; faces
    are compared over the classifier's candidates (p ≥ `min_p`, red fives as fives), unread tiles may be.
    `lying`: a tile that looked upright may also show the face of its crop turned sideways (both
    of an added kan's tiles lie sideways, and the one stacked on the other often looks upright)."""
    if a.label == BACK or b.label == BACK:
        return False
    if a.label is None or b.label is None:
        return True
    return bool(_faces(a, min_p, lying) & _faces(b, min_p, lying))


def _faces(t: TileDetection, min_p: float, lying: bool = False) -> set[str]:
    """The faces the tile may show (plain labels of its candidates with p ≥ `min_p`), and with
    `lying` those of its sideways crop too when it looked upright."""
    read = list(t.candidates) + (list(t.turned_candidates) if lying and not t.sideways else [])
    return {plain(c.label) for c in read if c.prob >= min_p} | {plain(t.label)}


def _both_read_lying_alike(a: TileDetection, b: TileDetection, min_p: float = 0.5) -> bool:
    """Did two tiles that both looked upright read as one face from their crops turned sideways
    (each surely, p ≥ `min_p`)? One lying on the other, they are an added kan's pair."""
    tops = [t.turned_candidates[0] for t in (a, b) if not t.sideways and t.turned_candidates]
    return (len(tops) == 2 and all(c.prob >= min_p and c.label != BACK for c in tops)
            and plain(tops[0].label) == plain(tops[1].label))


def _lying_label_matches(sideways: TileDetection, upright: TileDetection) -> bool:
    """Does the tile that looked upright read as the sideways one's face, as it looks or from its
    crop turned sideways (the top class of either)?"""
    tops = {plain(upright.label)} | ({plain(upright.turned_candidates[0].label)} if upright.turned_candidates else set())
    return plain(sideways.label) in tops


SORT_SUITS = "mpsz"


def _end_order(labels: Sequence[str | None]) -> str:
    """Where the last tile stands in the hand's sort order: "in" (not before the tile before it),
    "out" (before it: players sort their hand, the drawn tile comes after), or "unsorted" (the
    tiles before it are not sorted, allowing one swap; or unread)."""
    if any(x is None or x == BACK for x in labels) or len(labels) < 4:
        return "unsorted"
    keys = [(SORT_SUITS.index(x[1]), int(plain(x)[0])) for x in labels]
    if sum(a > b for a, b in zip(keys[:-2], keys[1:-1])) > 1:
        return "unsorted"
    return "out" if keys[-1] < keys[-2] else "in"


def _turned_at_end(t: TileDetection, last_box: Sequence[float], unit: float) -> bool:
    """Is this tile, off the row, the winning tile lying sideways right after the last closed
    tile? (Lying flat beside standing tiles it sits lower than they do, so the row finder, which
    follows their centres and sizes, leaves it out.) Sideways by its shape, touching the last one
    (a standing tile's box overlaps what it hides of its neighbour)."""
    x1 = t.frame_box[0]
    return t.sideways and (t.side_odds is None or t.side_odds > 0) and \
        -0.5 * unit < x1 - last_box[2] < GAP * unit and t.centre[0] > last_box[2]


def _duplicate(a: TileDetection, b: TileDetection, wide: bool = False) -> bool:
    """Are these two boxes one tile detected twice? Nearly the same place along the row and across
    it (an added kan's tiles lie one above the other; neighbours in a row overlap by what one
    hides of the other, well under half a tile) and the same face. `wide`: two upright boxes may
    lie further apart across it (a standing tile boxed by its face and with its top)."""
    fa, fb = a.frame_box, b.frame_box
    across = DUPLICATE_ACROSS_UPRIGHT if wide and not (a.sideways or b.sideways) else DUPLICATE_ACROSS
    return (_overlap(fa, fb) > DUPLICATE_OVERLAP * min(fa[2] - fa[0], fb[2] - fb[0])
            and _apart_across(fa, fb) < across and _same_face(a, b))


def wide_duplicate(a: TileDetection, b: TileDetection) -> bool:
    """May `arrange(wide=True)` take these two boxes as one tile that `arrange` keeps apart?"""
    return not (a.sideways or b.sideways) and _duplicate(a, b, wide=True) and not _duplicate(a, b)


def merges_wider(tiles: Sequence[TileDetection]) -> bool:
    """Are there two boxes that `arrange(wide=True)` may take as one tile and `arrange` keeps apart?
    (Without them it lays out the same hands: the reading step then skips that retry.)"""
    return any(wide_duplicate(a, b) for k, a in enumerate(tiles) for b in tiles[k + 1:])


def _apart_across(a: Sequence[float], b: Sequence[float]) -> float:
    """How far apart two boxes' centres lie across the row, in the lower box's height."""
    return abs((a[1] + a[3]) - (b[1] + b[3])) / 2 / max(min(a[3] - a[1], b[3] - b[1]), 1e-6)


def _one_above_other(a: Sequence[float], b: Sequence[float], apart: float = 0.6) -> bool:
    """Do these two boxes lie at one place along the row (over half the narrower one's width),
    one clearly above the other (centres over `apart` of the lower box's height apart)?"""
    return _overlap(a, b) > 0.5 * min(a[2] - a[0], b[2] - b[0]) and _apart_across(a, b) > apart


def _level_near(fb: dict, row: Sequence[int], x: float, exclude: Sequence[int], k: int = 4) -> float | None:
    """The row's level (median centre height) over the k row tiles nearest x, leaving some out."""
    near = sorted((i for i in row if i not in exclude), key=lambda i: abs((fb[i][0] + fb[i][2]) / 2 - x))[:k]
    if len(near) < 2:
        return None
    return _median([(fb[i][1] + fb[i][3]) / 2 for i in near])


def _standing_meld_cost(tiles: Sequence[TileDetection], closed: Sequence[int], melds: Sequence[Group]) -> float:
    """Melds lie flat: when the closed part stands (its upright tiles' boxes clearly higher or
    lower than the upright tiles of the melds after the first), a first meld whose upright tiles
    are as high as the standing closed ones is rather the closed part's end (three of a kind
    with the winning tile turned, touching it). Asked only of a first meld touching what lies
    before it: one a gap apart is a meld, however high (seen along the row, perspective makes
    the nearer meld's tiles as high as the standing ones: tune render 700178)."""
    called = [g for g in melds if g.kind in ("called", "minkan", "kakan")]
    if len(called) < 2 or len(closed) < 4:
        return 0.0
    height = lambda ids: _median([tiles[i].frame_box[3] - tiles[i].frame_box[1] for i in ids])
    up = lambda g: [i for i in g.tiles if not tiles[i].sideways and i != g.added]
    first, rest = up(called[0]), [i for g in called[1:] for i in up(g)]
    if not first or not rest:
        return 0.0
    h_c, h_f, h_m = height(closed), height(rest), height(first)
    if abs(h_c - h_f) < STANDING_APART * h_f or abs(h_m - h_c) >= abs(h_m - h_f):
        return 0.0
    return PEN_STANDING_MELD


def _drawn_off_level_cost(fb: dict, closed: Sequence[int], drawn: int, side: set[int]) -> float:
    """A drawn tile set apart lies at the level of the closed tiles' end (it stands when they
    do): one off it by more than `DRAWN_LEVEL` of their height is rather a discard in line with
    the row (on the tune renders, seeds 700000+, set-apart drawn tiles lay within 0.16 of a height
    in 99 %, at most 0.24)."""
    ref = [i for i in closed if i not in side][-4:]
    if len(ref) < 2:
        return 0.0
    level = _median([(fb[i][1] + fb[i][3]) / 2 for i in ref])
    height = _median([fb[i][3] - fb[i][1] for i in ref])
    off = abs((fb[drawn][1] + fb[drawn][3]) / 2 - level) / max(height, 1e-6)
    return PEN_DRAWN_OFF_LEVEL * _clip((off - DRAWN_LEVEL) / DRAWN_LEVEL_RAMP)


def _surely_upright(t: TileDetection) -> bool:
    """Did the tile's shape say surely that it stands upright (log-odds under −`SURE_UPRIGHT`)?"""
    return t.side_odds is not None and t.side_odds < -SURE_UPRIGHT


def _forced_cost(t: TileDetection) -> float:
    """Penalty for standing a closed tile upright that looked sideways: by how sure its shape
    was, when known (a closed tile other than the last hardly ever lies sideways)."""
    if t.side_odds is None:
        return PEN_FORCED_UPRIGHT
    return _clip(FORCED_PER_ODDS * t.side_odds, 0.3, 3.0)


def _has_neighbour(tiles: Sequence[TileDetection], t: int, exclude: set[int]) -> bool:
    """Does another tile (not in `exclude`) touch tile t (a wall, discards: not a lone stacked tile)?
    A second box of t itself is no neighbour (real-dev lietxia_70008812 at 12 MP boxes its added 9m twice),
    nor, passed in `exclude`, a row tile's second box (tune10_x3 #134: the kan's upright 3z boxed twice)."""
    bx1, by1, bx2, by2 = tiles[t].frame_box
    margin = 0.15 * max(bx2 - bx1, by2 - by1)
    for o, other in enumerate(tiles):
        if o == t or o in exclude or _duplicate(tiles[t], other):
            continue
        ox1, oy1, ox2, oy2 = other.frame_box
        if max(ox1 - bx2, bx1 - ox2, oy1 - by2, by1 - oy2) < margin:
            return True
    return False


def _gaps(row: Sequence[int], fb: dict, unit: float) -> list[float]:
    """How far apart each two neighbours of the row lie, beyond the spacing of touching tiles.

    Read from the steps of both box edges (the smaller one), not from the boxes' gap: a standing
    tile's box takes in what it hides of its neighbour, and more so at a row's end (see
    `_set_apart`). Touching tiles step by a spacing that drifts along the row with perspective:
    a line is fitted through the steps (robustly, leaving out the groups' gaps and overlapping
    boxes), and each step is measured from it.
    """
    if len(row) < 2:
        return []
    steps = np.array([min(fb[b][0] - fb[a][0], fb[b][2] - fb[a][2]) for a, b in zip(row, row[1:])], float)
    if len(steps) < 4:
        return (steps - min(steps.min(), unit)).tolist()
    xs = np.array([(fb[a][2] + fb[b][0]) / 2 for a, b in zip(row, row[1:])], float)
    xs = (xs - xs.mean()) / max(unit, 1e-6)
    # a robust start: of the lines through two steps (or level through one), one that about
    # the most steps lie near (all but one: a line tilted to take in an end step that is a
    # little wide, the drawn tile's, can gain one), the levellest of those, then the lowest
    # (the groups' gaps only ever add to a step: with many groups they pull a median, or a
    # median slope, off the touching steps); then a fit through its inliers
    i, j = np.triu_indices(len(steps), 1)
    dx = xs[j] - xs[i]
    ok = np.abs(dx) > 1e-6
    slopes = np.concatenate([(steps[j] - steps[i])[ok] / dx[ok], np.zeros(len(steps))])
    icpts = np.concatenate([steps[i][ok] - slopes[: int(ok.sum())] * xs[i][ok], steps])
    near = np.abs(steps[None, :] - (slopes[:, None] * xs[None, :] + icpts[:, None])) < 0.1 * unit
    count = near.sum(axis=1)
    best = int(np.lexsort((icpts, np.abs(slopes), count < count.max() - 1))[0])
    res = steps - (slopes[best] * xs + icpts[best])
    inlier = np.zeros(len(steps), bool)
    for _ in range(4):
        keep = np.abs(res) < 0.1 * unit
        if keep.sum() < 3:
            keep = np.abs(res) <= np.sort(np.abs(res))[2]
        if (keep == inlier).all():
            break
        inlier = keep
        slope, icpt = np.polyfit(xs[inlier], steps[inlier], 1)
        res = steps - (slope * xs + icpt)
    return res.tolist()  # Python floats: a numpy one would make every penalty it enters, and the cost, numpy


def _loose_tiles(tiles: Sequence[TileDetection], row_idx: Sequence[int], taken: set[int],
                 long_side: float, limit: int = 2) -> list[int]:
    """Lone face-up tiles close beside the hand, nearest first (at most `limit`): within about
    a tile's length of the row's band or of its ends, e.g. the winning tile put down askew in
    front of the hand — or a discard: the reading takes one only when it completes a hand one
    tile short. Not tiles of the row itself, nor `taken` ones (stacked, boxed twice), nor tiles
    with neighbours of their own (discard rows; a wall's face-up dora indicator). A loose tile
    boxed twice counts once."""
    used = set(row_idx) | taken
    rb = np.array([tiles[i].frame_box for i in row_idx], float)
    x1, x2 = rb[:, 0].min(), rb[:, 2].max()
    y_mid = float(np.median((rb[:, 1] + rb[:, 3]) / 2))
    found: list[tuple[float, int]] = []
    for t, tile in enumerate(tiles):
        if t in used or tile.label is None or tile.label == BACK:
            continue
        bx1, by1, bx2, by2 = tile.frame_box
        size = max(bx2 - bx1, by2 - by1)
        if not 0.7 * long_side <= size <= 1.5 * long_side:
            continue
        cx, cy = (bx1 + bx2) / 2, (by1 + by2) / 2
        dx = max(x1 - cx, 0.0, cx - x2)
        dy = abs(cy - y_mid)
        if dx > 1.5 * long_side or dy > 1.6 * long_side:
            continue
        # a tile with a face-up neighbour of its own is part of something else (discards), and
        # one between two others (face-down or not) lies in a wall or a row
        near = 0
        lonely = True
        for o, other in enumerate(tiles):
            if o == t or o in used:
                continue
            if _duplicate(tile, other):  # the same tile boxed twice is no neighbour; the surer box stands for it
                if other.confidence > tile.confidence:
                    lonely = False
                    break
                continue
            ox1, oy1, ox2, oy2 = other.frame_box
            gap_x = max(ox1 - bx2, bx1 - ox2)
            gap_y = max(oy1 - by2, by1 - oy2)
            if max(gap_x, gap_y) < 0.15 * long_side:
                near += 1
                if other.label != BACK or near >= 2:
                    lonely = False
                    break
        if lonely:
            found.append((float(np.hypot(dx, dy)), t))
    return [t for _, t in sorted(found)[:limit]]
