"""Every way a closed tile multiset splits into sets and one pair (plus the two special shapes).

Table-driven like Mortal's libriichi: each suit's 9-count vector is split on its own and the
splits are cached (`functools.lru_cache`), so a suit pattern is worked out once per process;
honors can only be triplets or the pair. A whole hand is the product of its suits' splits.
A shape is `(pair, seqs, trips)`: the pair's tile index, sequence start indices, triplet tiles.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import product

Shape = tuple[int, tuple[int, ...], tuple[int, ...]]

YAOCHU = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


@lru_cache(maxsize=1 << 16)  # bounded: the API scores whatever it is sent
def suit_shapes(counts: tuple[int, ...]) -> tuple[Shape, ...]:
    """All splits of one suit (9 counts) into sequences, triplets and at most one pair, in local
    indices 0..8. A suit whose tile count is 3k has no pair, 3k+2 exactly one, 3k+1 no split."""
    total = sum(counts)
    if total % 3 == 1:
        return ()
    want_pair = total % 3 == 2
    c = list(counts)
    out: set[Shape] = set()
    seqs: list[int] = []
    trips: list[int] = []

    def walk(i: int, pair: int) -> None:
        while i < 9 and c[i] == 0:
            i += 1
        if i == 9:
            if (pair >= 0) == want_pair:
                out.add((pair, tuple(seqs), tuple(trips)))
            return
        if c[i] >= 3:
            c[i] -= 3
            trips.append(i)
            walk(i, pair)
            trips.pop()
            c[i] += 3
        if pair < 0 and want_pair and c[i] >= 2:
            c[i] -= 2
            walk(i, i)
            c[i] += 2
        if i <= 6 and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            seqs.append(i)
            walk(i, pair)
            seqs.pop()
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1

    walk(0, -1)
    return tuple(sorted(out))


_AT: tuple[dict, dict, dict] = ({}, {}, {})  # per suit: 9 counts -> splits in global tile indices
_SUIT_BITS = (0x1FF, 0x1FF << 9, 0x1FF << 18)
_SUIT_TABLES = tuple(zip((0, 1, 2), _SUIT_BITS, _AT))
_EMPTY9 = (0,) * 9


def _suit_at(counts: tuple[int, ...], suit: int) -> tuple[Shape, ...]:
    """A suit's splits in global tile indices (memoised per suit on the count vector)."""
    cache = _AT[suit]
    hit = cache.get(counts)
    if hit is None:
        if len(cache) > 1 << 16:
            cache.clear()
        base = 9 * suit
        hit = cache[counts] = tuple((p + base if p >= 0 else -1, tuple(x + base for x in q), tuple(t + base for t in r))
                                    for p, q, r in suit_shapes(counts))
    return hit


_HONORS: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}  # 7 honor counts -> (pair or -1, triplets)
_NO_SPLIT = (-3, ())  # honors that are neither triplets nor one pair


def _honor_split(counts: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """Honors can only be triplets or the pair: (pair tile or -1, triplet tiles), or _NO_SPLIT."""
    hit = _HONORS.get(counts)
    if hit is None:
        pair = -1
        trips: tuple[int, ...] = ()
        hit = None
        for k, c in enumerate(counts):
            if c == 3:
                trips += (27 + k,)
            elif c == 2 and pair < 0:
                pair = 27 + k
            elif c:
                hit = _NO_SPLIT
                break
        if len(_HONORS) > 1 << 14:  # bounded: any input may add patterns
            _HONORS.clear()
        hit = _HONORS[counts] = hit or (pair, trips)
    return hit


def standard_shapes(counts, mask: int | None = None) -> list[Shape]:
    """All (pair, seqs, trips) splits of a closed 34-count vector into sets + one pair.
    Empty when the tiles don't form a standard winning shape. `mask` (bit i: tile i present)
    only speeds things up."""
    counts = tuple(counts)
    if mask is None:
        mask = 0
        for i, c in enumerate(counts):
            if c:
                mask |= 1 << i
    pair = -1
    h_trips: tuple[int, ...] = ()
    if mask >> 27:
        pair, h_trips = _honor_split(counts[27:34])
        if pair == -3:
            return []
    parts = []
    single = True  # every suit splits one way only (the common case): one shape
    for suit, bits, cache in _SUIT_TABLES:
        if not mask & bits:
            continue
        key = counts[9 * suit:9 * suit + 9]
        sh = cache.get(key)
        if sh is None:
            sh = _suit_at(key, suit)
        if not sh:
            return []
        if sh[0][0] >= 0:  # this suit holds the pair
            if pair >= 0:
                return []
            pair = -2
        if len(sh) > 1:
            single = False
        parts.append(sh)
    if pair == -1:  # no pair anywhere
        return []
    if len(parts) == 1:  # one suit holds every number tile
        if pair >= 0:
            return [(pair, q, r + h_trips if h_trips else r) for _, q, r in parts[0]]
        return [(p, q, r + h_trips if h_trips else r) for p, q, r in parts[0]]
    if single and parts:  # what product() below gives for one split per suit
        p_all = pair
        seqs: tuple[int, ...] = ()
        trips: tuple[int, ...] = ()
        for sh in parts:
            p, q, r = sh[0]
            if p >= 0:
                p_all = p
            seqs += q
            trips += r
        return [(p_all, seqs, trips + h_trips)]
    out = []
    for combo in product(*parts):
        p_all = pair
        seqs = ()
        trips = ()
        for p, q, r in combo:
            if p >= 0:
                p_all = p
            seqs += q
            trips += r
        out.append((p_all, seqs, trips + h_trips))
    if not parts:
        out.append((pair, (), h_trips))
    return out


def is_seven_pairs(counts: list[int]) -> bool:
    """Seven *different* pairs (two identical pairs do not count)."""
    pairs = 0
    for c in counts:
        if c == 2:
            pairs += 1
        elif c:
            return False
    return pairs == 7


def is_thirteen_orphans(counts: list[int]) -> bool:
    """One of each terminal and honor plus one more of them."""
    total = 0
    for i in YAOCHU:
        c = counts[i]
        if not c:
            return False
        total += c
    return total == 14
