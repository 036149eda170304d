"""Tiles and MPSZ notation ("123m406p789s1122z", 0 = red five, 1z..7z = E S W N white green red).

A tile is an index 0..33 (1m..9m = 0..8, 1p..9p = 9..17, 1s..9s = 18..26, East..Red = 27..33)
plus a red flag. There are only 37 distinct tiles, so `Tile` objects are shared singletons:
parsing is a table lookup and the engine's hot path works on plain ints.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, NamedTuple

from .errors import HandError

SUITS = "mpsz"
EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
WIND_NAMES = ("E", "S", "W", "N")
HONOR_NAMES = ("East", "South", "West", "North", "White", "Green", "Red")
HONOR_NAMES_JA = ("東", "南", "西", "北", "白", "發", "中")


class Tile(NamedTuple):
    """One tile: `index` 0..33 and `red` (only for the three fives)."""

    index: int
    red: bool = False

    @property
    def suit(self) -> str:
        return SUITS[self.index // 9]

    @property
    def number(self) -> int:
        """1..9 for suited tiles, 1..7 for honors (MPSZ numbering)."""
        return self.index % 9 + 1

    @property
    def is_honor(self) -> bool:
        return self.index >= 27

    @property
    def is_terminal(self) -> bool:
        return self.index < 27 and self.index % 9 in (0, 8)

    @property
    def is_yaochu(self) -> bool:
        """Terminal or honor (么九牌)."""
        return self.index >= 27 or self.index % 9 in (0, 8)

    def __str__(self) -> str:
        return _RED_NAMES[self.index] if self.red else TILE_NAMES[self.index]

    def __repr__(self) -> str:
        return f"Tile({self})"


TILE_NAMES: tuple[str, ...] = tuple(f"{i % 9 + 1}{SUITS[i // 9]}" for i in range(34))
_RED_NAMES = {4: "0m", 13: "0p", 22: "0s"}

# The 37 shared tile objects.
TILES: tuple[Tile, ...] = tuple(Tile(i, False) for i in range(34))
RED_TILES: dict[int, Tile] = {i: Tile(i, True) for i in (4, 13, 22)}

# char-pair lookup for the parser: ("5", "m") -> Tile
_LOOKUP: dict[tuple[str, str], Tile] = {}
for _s, _base in (("m", 0), ("p", 9), ("s", 18)):
    for _n in range(1, 10):
        _LOOKUP[(str(_n), _s)] = TILES[_base + _n - 1]
    _LOOKUP[("0", _s)] = RED_TILES[_base + 4]
for _n in range(1, 8):
    _LOOKUP[(str(_n), "z")] = TILES[27 + _n - 1]


# "5m" -> Tile for the 37 canonical one-tile texts (indicators, winning and called tiles)
TILE_BY_TEXT: dict[str, Tile] = {d + s: t for (d, s), t in _LOOKUP.items()}


def tile(text: str, field: str | None = None) -> Tile:
    """Exactly one tile from MPSZ text ("5m", "0p", "7z")."""
    if type(text) is str:
        one = TILE_BY_TEXT.get(text)
        if one is not None:
            return one
    tiles = parse_tiles(text, field)
    if len(tiles) != 1:
        raise HandError(f"expected one tile, got {len(tiles)} in {text!r}", field)
    return tiles[0]


# one run of a suit: digits then the suit letter (honors only 1..7); a well-formed text is runs only
_RUN = re.compile(r"[0-9]+[mps]|[1-7]+z")
_MANY_RUNS = 32  # a real hand's text has a few runs; past this, tiles are joined once, not run by run
# run text ("234m") -> (tiles, suit 0..3, first index of the suit, counts within the suit, kinds as a bit
# set, red fives per suit or None, most copies of one tile): each run is worked out once per process
_RUN_CACHE: dict[str, tuple] = {}
_TEXT_CACHE: dict[str, tuple[Tile, ...]] = {}


def _run_entry(run: str) -> tuple:
    entry = _RUN_CACHE.get(run)
    if entry is None:
        if len(_RUN_CACHE) > 50000:  # bounded: any input may add runs (and only short runs are kept)
            _RUN_CACHE.clear()
        letter = run[-1]
        tiles = tuple(_LOOKUP[(d, letter)] for d in run[:-1])
        suit = SUITS.index(letter)
        base = 9 * suit
        local = [0] * (9 if suit < 3 else 7)
        mask = 0
        reds = None
        for t in tiles:
            local[t.index - base] += 1
            mask |= 1 << t.index
            if t.red:
                reds = reds or [0, 0, 0]
                reds[suit] += 1
        entry = (tiles, suit, base, tuple(local), mask, tuple(reds) if reds else None, max(local))
        if len(run) <= 20:  # a hand holds at most 14 concealed tiles; longer text is junk, not worth keeping
            _RUN_CACHE[run] = entry
    return entry


def parse_tiles(text: str, field: str | None = None) -> list[Tile]:
    """Parse MPSZ notation ("123m0p" -> 1m 2m 3m 0p). Spaces are ignored; the suit letter may be
    upper case. Raises HandError (naming `field`) on anything else."""
    return list(tiles_tuple(text, field))


def tiles_tuple(text: str, field: str | None = None) -> tuple[Tile, ...]:
    """`parse_tiles` as a tuple (the form a Hand keeps). Well-formed text is read run by run, each
    run ("234m") looked up once per process; anything else goes through the explaining parser."""
    if type(text) is str:
        whole = _TEXT_CACHE.get(text)  # indicators and meld texts ("5m", "777z") repeat all the time
        if whole is not None:
            return whole
        runs = _RUN.findall(text)
        if runs and len("".join(runs)) == len(text):  # the runs cover the whole text: well-formed
            cache = _RUN_CACHE
            if len(runs) > _MANY_RUNS:  # (each += copies the tuple: absurd input would take minutes)
                return tuple(t for run in runs for t in (cache.get(run) or _run_entry(run))[0])
            out: tuple[Tile, ...] = ()
            for run in runs:
                entry = cache.get(run) or _run_entry(run)
                out += entry[0]
            if len(text) <= 6:
                if len(_TEXT_CACHE) > 50000:
                    _TEXT_CACHE.clear()
                _TEXT_CACHE[text] = out
            return out
    return tuple(_parse_slow(text, field))


def count_tiles(tiles: Iterable[Tile]) -> tuple[list[int], int, list[int]]:
    """(count per tile index, the indices present as a bit set, red fives per suit m p s)."""
    counts = [0] * 34
    mask = 0
    reds = [0, 0, 0]
    for t in tiles:
        i = t.index
        counts[i] += 1
        mask |= 1 << i
        if t.red:
            reds[i // 9] += 1
    return counts, mask, reds


def read_counted(text: Any, field: str | None = None) -> tuple[tuple[Tile, ...], tuple]:
    """`tiles_tuple` and `count_tiles` of the result in one pass: well-formed text is counted run
    by run from the run table (a suit written once is one slice copy), the rest tile by tile.
    The counts come with a fourth item: whether some tile is there more than 4 times (None when
    not worked out), which spares the caller a scan of all 34 counts."""
    if type(text) is str:
        runs = _RUN.findall(text)
        if runs and len("".join(runs)) == len(text) and len(runs) <= _MANY_RUNS:
            cache = _RUN_CACHE
            out: tuple[Tile, ...] = ()
            counts = [0] * 34
            mask = seen = top = 0
            reds = [0, 0, 0]
            for run in runs:
                tiles, suit, base, local, run_mask, run_reds, run_top = cache.get(run) or _run_entry(run)
                out += tiles
                if seen >> suit & 1:  # a second run of the same suit: add it up
                    for k, c in enumerate(local):
                        counts[base + k] += c
                    run_top = max(counts[base:base + len(local)])
                else:
                    seen |= 1 << suit
                    counts[base:base + len(local)] = local
                if run_top > top:
                    top = run_top
                mask |= run_mask
                if run_reds:
                    reds[suit] += run_reds[suit]
            return out, (counts, mask, reds, top > 4)
    tiles = tiles_tuple(text, field)
    return tiles, (*count_tiles(tiles), None)


def _parse_slow(text: str, field: str | None) -> list[Tile]:
    """The character-by-character parser: accepts spaces and upper case, explains errors."""
    if not isinstance(text, str):
        raise HandError(f"expected a string of tiles in MPSZ notation, got {type(text).__name__}", field)
    out: list[Tile] = []
    digits: list[str] = []
    for ch in text:
        if "0" <= ch <= "9":
            digits.append(ch)
            continue
        if ch in " \t,":
            continue
        suit = ch.lower()
        if suit not in "mpsz":
            raise HandError(f"unexpected character {ch!r} in {text!r} (tiles are digits followed by m, p, s or z)", field)
        if not digits:
            raise HandError(f"suit letter {ch!r} without digits in {text!r}", field)
        for d in digits:
            t = _LOOKUP.get((d, suit))
            if t is None:
                kind = "honors are 1z..7z" if suit == "z" else "numbers are 1..9 (0 = red five)"
                raise HandError(f"no tile {d}{suit} in {text!r} ({kind})", field)
            out.append(t)
        digits.clear()
    if digits:
        raise HandError(f"digits {''.join(digits)!r} at the end of {text!r} have no suit letter", field)
    return out


def format_tiles(tiles: Iterable[Tile], sort: bool = False) -> str:
    """MPSZ text, one suit letter per run of same-suit tiles ("123m05p"). With `sort`, tiles are
    ordered by suit and number first (a red five sorts as a five)."""
    seq = list(tiles)
    if sort:
        seq.sort(key=lambda t: (t.index, not t.red))
    parts: list[str] = []
    run_suit = None
    for t in seq:
        s = t.suit
        if s != run_suit and run_suit is not None:
            parts.append(run_suit)
        run_suit = s
        parts.append("0" if t.red else str(t.number))
    if run_suit is not None:
        parts.append(run_suit)
    return "".join(parts)


def tile_name(index: int) -> str:
    """"5m" style name of a tile index (never red)."""
    return TILE_NAMES[index]


def dora_of(indicator: int, three_player: bool = False) -> int:
    """The dora an indicator points at: next number (9 -> 1), winds E>S>W>N>E, dragons
    white>green>red>white. In 3-player the manzu 2..8 are not in the set, so 1m -> 9m."""
    if indicator < 27:
        n = indicator % 9
        base = indicator - n
        if three_player and base == 0:
            return 8 if n == 0 else 0
        return base + (n + 1) % 9
    if indicator <= NORTH:
        return EAST + (indicator - EAST + 1) % 4
    return WHITE + (indicator - WHITE + 1) % 3


# dora_of for every indicator, 4 and 3 players (the hot path indexes these)
DORA_NEXT: tuple[int, ...] = tuple(dora_of(i) for i in range(34))
DORA_NEXT_3P: tuple[int, ...] = tuple(dora_of(i, True) for i in range(34))


WIND_CODES = {"E": 0, "S": 1, "W": 2, "N": 3}  # the usual spelling of each wind


def parse_wind(value: object, field: str) -> int:
    """A wind as 0..3 (E S W N) from "E", "east", "1z", "東"… ."""
    if type(value) is str and value in WIND_CODES:
        return WIND_CODES[value]
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("e", "east", "1z", "東"):
            return 0
        if v in ("s", "south", "2z", "南"):
            return 1
        if v in ("w", "west", "3z", "西"):
            return 2
        if v in ("n", "north", "4z", "北"):
            return 3
    raise HandError(f"expected a wind: E, S, W or N, got {value!r}", field)
