"""Tiles and MPSZ notation ("123m406p789s1122z", 0 = red five, 1z..7z = E S W N white green red).

A tile is an index 0..33 (1m..9m = 0..8, 1p..9p = 9..17, 1s..9s = 18..26, East..Red = 27..33)
plus a red flag. There are only 37 distinct tiles, so `Tile` objects are shared singletons:
parsing is a table lookup and the engine's hot path works on plain ints.
"""
from __future__ import annotations

import re
from typing import Iterable, NamedTuple

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


_WELL_FORMED = re.compile(r"(?:[0-9]+[mps]|[1-7]+z)+")
_RUN = re.compile(r"[0-9]+[mpsz]")
_RUN_CACHE: dict[str, tuple[Tile, ...]] = {}
_TEXT_CACHE: dict[str, tuple[Tile, ...]] = {}


def parse_tiles(text: str, field: str | None = None) -> list[Tile]:
    """Parse MPSZ notation ("123m0p" -> 1m 2m 3m 0p). Spaces are ignored; the suit letter may be
    upper case. Raises HandError (naming `field`) on anything else."""
    if type(text) is str:
        whole = _TEXT_CACHE.get(text)  # indicators and meld texts ("5m", "777z") repeat all the time
        if whole is not None:
            return list(whole)
    if type(text) is str and _WELL_FORMED.fullmatch(text):  # fast path: runs like "234m" repeat a lot
        out: list[Tile] = []
        cache = _RUN_CACHE
        for run in _RUN.findall(text):
            tiles = cache.get(run)
            if tiles is None:
                if len(cache) > 50000:  # bounded: any input may add runs
                    cache.clear()
                suit = run[-1]
                tiles = cache[run] = tuple(_LOOKUP[(d, suit)] for d in run[:-1])
            out.extend(tiles)
        if len(text) <= 6:
            if len(_TEXT_CACHE) > 50000:
                _TEXT_CACHE.clear()
            _TEXT_CACHE[text] = tuple(out)
        return out
    return _parse_slow(text, field)


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


_WIND_CODES = {"E": 0, "S": 1, "W": 2, "N": 3}


def parse_wind(value: object, field: str) -> int:
    """A wind as 0..3 (E S W N) from "E", "east", "1z"… ."""
    if type(value) is str and value in _WIND_CODES:
        return _WIND_CODES[value]
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("e", "east", "1z"):
            return 0
        if v in ("s", "south", "2z"):
            return 1
        if v in ("w", "west", "3z"):
            return 2
        if v in ("n", "north", "4z"):
            return 3
    raise HandError(f"expected a wind: E, S, W or N, got {value!r}", field)
