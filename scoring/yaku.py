"""Every yaku as data plus a predicate.

A `Yaku` is its names, its han closed and open (0 open = closed only), its yakuman weight, and
which rule field enables it; `check(ctx)` says whether one reading of the hand has it. The engine
builds one `Ctx` per reading (decomposition + wait) and runs the table compiled for the rule set.
Shapes are in tile indices (see `tiles.py`); masks are 34-bit sets of the tile kinds present.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from .hand import FLAGS
from .tiles import EAST, GREEN, NORTH, RED, WHITE

# ---- forms and waits -------------------------------------------------------------------------
STANDARD, CHIITOI, KOKUSHI = 0, 1, 2
RYANMEN, KANCHAN, PENCHAN, SHANPON, TANKI, THIRTEEN = 0, 1, 2, 3, 4, 5
WAIT_NAMES = ("ryanmen", "kanchan", "penchan", "shanpon", "tanki", "kokushi 13-wait")


def _mask(indices) -> int:
    m = 0
    for i in indices:
        m |= 1 << i
    return m


HONOR_MASK = _mask(range(27, 34))
MIDDLE_MASK = _mask(i for s in (0, 9, 18) for i in (s + 3, s + 4, s + 5))  # 4, 5, 6: in no outside set
WIND_MASK = _mask(range(27, 31))
DRAGON_MASK = _mask(range(31, 34))
TERMINAL_MASK = _mask((0, 8, 9, 17, 18, 26))
YAOCHU_MASK = HONOR_MASK | TERMINAL_MASK
GREEN_MASK = _mask((19, 20, 21, 23, 25, GREEN))  # 2 3 4 6 8 sou and hatsu
SUIT_MASKS = (_mask(range(0, 9)), _mask(range(9, 18)), _mask(range(18, 27)))
DRAGONS = (WHITE, GREEN, RED)
WINDS = (EAST, EAST + 1, EAST + 2, NORTH)
CHUUREN_BASE = (3, 1, 1, 1, 1, 1, 1, 1, 3)


class Ctx:
    """One reading of a winning hand: what the predicates look at."""

    __slots__ = ("form", "closed", "tsumo", "pair", "seqs", "trips", "ankou", "kans", "wait", "mask",
                 "conc", "win", "seat", "round", "value_pair", "hand", "rules", "suits", "flags")

    def __init__(self) -> None:
        self.seqs: tuple[int, ...] = ()
        self.trips: tuple[int, ...] = ()


@dataclass(frozen=True)
class Yaku:
    key: str
    name: str
    name_ja: str
    han: int                      # closed han (yakuman: 13 per yakuman)
    han_open: int                 # open han; 0 = closed only
    check: Callable[[Ctx], bool]
    gate: str = "always"          # a cheap necessary condition (see GATES): the engine skips the check when false
    yakuman: int = 0              # yakuman weight (2 = double where rules.double_yakuman)
    enabled_by: str | None = None  # Rules field that must be truthy for the yaku to exist
    open_needs: str | None = None  # Rules field that must be truthy for the open value to exist

    @property
    def is_yakuman(self) -> bool:
        return self.yakuman > 0

    @property
    def per_reading(self) -> bool:
        """Depends on the decomposition or the wait (else it is checked once per hand form)."""
        return self.gate in READING_GATES


# Necessary conditions ("gates") of the yaku, as Python expressions on a Ctx `c`. They only let the
# engine skip predicates that cannot hold — every predicate is complete on its own (the tests
# check gate => predicate on random hands). All the gates of a hand are evaluated in one call
# of a function compiled from these expressions, so fine gates cost almost nothing.
GATE_EXPRESSIONS: dict[str, str] = {
    "always": "True",
    # one per win flag (riichi, ippatsu, rinshan...): its bit in Hand.flag_bits
    **{name: f"c.flags & {1 << i}" for i, name in enumerate(FLAGS)},
    "closed_tsumo": "c.tsumo and c.closed",
    "white": "c.mask >> WHITE & 1",
    "green_dragon": "c.mask >> GREEN & 1",
    "red_dragon": "c.mask >> RED & 1",
    "seat_wind": "c.mask >> c.seat & 1",
    "round_wind": "c.mask >> c.round & 1",
    "three_dragons": "c.mask & DRAGON_MASK == DRAGON_MASK",
    "four_winds": "c.mask & WIND_MASK == WIND_MASK",
    "honors_only": "not c.mask & ~HONOR_MASK",
    "no_terminals_honors": "not c.mask & YAOCHU_MASK",
    "terminals_honors_only": "not c.mask & ~YAOCHU_MASK",
    "terminals_only": "not c.mask & ~TERMINAL_MASK",
    "one_suit_honors": "c.suits == 1 and c.mask >> 27",
    "one_suit_pure": "c.suits == 1 and not c.mask >> 27",
    "one_suit_closed": "c.suits == 1 and c.closed and not c.kans and not c.mask >> 27",
    "green": "not c.mask & ~GREEN_MASK",
    "kans3": "c.kans == 3",
    "kans4": "c.kans == 4",
    "seven_pairs": "c.form == CHIITOI",
    "kokushi": "c.form == KOKUSHI",
    # per reading
    "outside": "c.seqs and not c.mask & MIDDLE_MASK",
    "sanshoku": "c.suits == 3 and len(c.seqs) >= 3",
    "ittsu": "len(c.seqs) >= 3 and (c.mask & 0x1FF == 0x1FF or c.mask >> 9 & 0x1FF == 0x1FF"
             " or c.mask >> 18 & 0x1FF == 0x1FF)",
    "peikou": "c.closed and len(c.seqs) >= 2 and len(set(c.seqs)) < len(c.seqs)",
    "pinfu_shape": "c.wait == RYANMEN and c.closed and not c.trips",
    "no_seqs": "c.form == STANDARD and not c.seqs",
    "doukou": "c.suits == 3 and len(c.trips) >= 3",
    "ankou3": "c.ankou >= 3",
    "ankou4": "c.ankou == 4",
}
READING_GATES = frozenset(("outside", "sanshoku", "ittsu", "peikou", "pinfu_shape", "no_seqs", "doukou", "ankou3",
                           "ankou4"))


# Gates that can only hold when a cheaper condition does: evaluated together behind it.
GATE_FAMILIES: dict[str, str] = {
    **{name: "c.flags" for name in FLAGS},
    **{name: "c.mask >> 27" for name in ("white", "green_dragon", "red_dragon", "seat_wind", "round_wind",
                                          "three_dragons", "four_winds", "honors_only")},
    **{name: "c.form" for name in ("seven_pairs", "kokushi")},
    **{name: "c.kans" for name in ("kans3", "kans4")},
    **{name: "not c.mask & ~YAOCHU_MASK" for name in ("terminals_only", "terminals_honors_only")},
    **{name: "c.suits == 1" for name in ("one_suit_honors", "one_suit_pure", "one_suit_closed")},
}


class _KeyStub:
    """The few Ctx fields a keyed gate family reads, for building its table."""

    __slots__ = ("flags", "mask", "seat", "round")

    def __init__(self, flags: int = 0, mask: int = 0, seat: int = EAST, round: int = EAST) -> None:  # noqa: A002
        self.flags, self.mask, self.seat, self.round = flags, mask, seat, round


# Families whose gates (the ones listed) depend on one small integer only: their bits are read from a
# table built once, indexed by that integer (key expression, number of keys, a stub Ctx for a key).
GATE_KEYS: dict[str, tuple[str, int, Callable[[int], _KeyStub], frozenset[str]]] = {
    "c.flags": ("c.flags", 1 << len(FLAGS), lambda k: _KeyStub(flags=k), frozenset(FLAGS)),
    "c.mask >> 27": ("c.mask >> 27 | (c.seat - 27) << 7 | (c.round - 27) << 9", 1 << 11,
                     lambda k: _KeyStub(mask=(k & 127) << 27, seat=EAST + (k >> 7 & 3), round=EAST + (k >> 9 & 3)),
                     frozenset(("white", "green_dragon", "red_dragon", "seat_wind", "round_wind", "three_dragons",
                                "four_winds"))),
}


@lru_cache(maxsize=64)
def _key_table(family: str, gates: tuple[tuple[int, str], ...]) -> tuple[int, ...]:
    """The bits of (bit, gate name) pairs of a keyed family for every key value (rule-set free)."""
    _, size, stub, _ = GATE_KEYS[family]
    return tuple(sum(1 << i for i, n in gates if GATES[n](stub(k))) for k in range(size))


def compile_gates(names: list[str]) -> Callable[[Ctx], int]:
    """One function returning the bit set of the named gates that hold (bit i = names[i])."""
    families: dict[str, list[str]] = {}
    keyed: dict[str, list[tuple[int, str]]] = {}
    for i, n in enumerate(names):
        family = GATE_FAMILIES.get(n, "")
        families.setdefault(family, [])
        if family in GATE_KEYS and n in GATE_KEYS[family][3]:
            keyed.setdefault(family, []).append((i, n))
        else:
            families[family].append(f"({1 << i} if ({GATE_EXPRESSIONS[n]}) else 0)")
    env = dict(globals())
    parts = []
    for family, terms in families.items():
        if family in keyed:
            key = GATE_KEYS[family][0]
            table = _key_table(family, tuple(keyed[family]))
            name = f"_TABLE_{len(env)}"
            env[name] = table
            terms = [f"{name}[{key}]"] + terms
        joined = " | ".join(terms)
        parts.append(f"(({joined}) if ({family}) else 0)" if family else joined)
    return eval(f"lambda c: {' | '.join(parts) or '0'}", env)  # noqa: S307 - from the constant tables above


GATES: dict[str, Callable[[Ctx], bool]] = {
    name: eval(f"lambda c: bool({expr})", globals()) for name, expr in GATE_EXPRESSIONS.items()  # noqa: S307
}


# ---- predicates --------------------------------------------------------------------------------
def _peikou(c: Ctx) -> int:
    """Number of identical-sequence pairs (closed hands only)."""
    s = c.seqs
    if len(s) < 2 or not c.closed or len(set(s)) == len(s):
        return 0
    s = sorted(s)
    n = 0
    i = 0
    while i < len(s) - 1:
        if s[i] == s[i + 1]:
            n += 1
            i += 2
        else:
            i += 1
    return n


def _in_all_three_suits(groups: tuple[int, ...]) -> bool:
    """Some number starts a group (sequence or triplet, by its first tile) in man, pin and sou alike."""
    if len(groups) < 3:
        return False
    for n in groups:
        if n < 9 and n + 9 in groups and n + 18 in groups:
            return True
    return False


def _sanshoku(c: Ctx) -> bool:
    return _in_all_three_suits(c.seqs)


def _ittsu(c: Ctx) -> bool:
    s = c.seqs
    if len(s) < 3:
        return False
    for b in (0, 9, 18):
        if b in s and b + 3 in s and b + 6 in s:
            return True
    return False


def _outside(c: Ctx) -> bool:
    """Every set and the pair hold a terminal or honor, with at least one sequence."""
    if c.form != STANDARD or not c.seqs or not (YAOCHU_MASK >> c.pair) & 1:
        return False
    for s in c.seqs:
        if s % 9 not in (0, 6):
            return False
    for t in c.trips:
        if not (YAOCHU_MASK >> t) & 1:
            return False
    return True


def _sanshoku_doukou(c: Ctx) -> bool:
    return _in_all_three_suits(c.trips)


def _count_in(tiles: tuple[int, ...], group: tuple[int, ...]) -> int:
    return sum(1 for t in tiles if t in group)


def _shousangen(c: Ctx) -> bool:
    return c.form == STANDARD and c.pair in DRAGONS and _count_in(c.trips, DRAGONS) == 2


def _daisangen(c: Ctx) -> bool:
    return _count_in(c.trips, DRAGONS) == 3


def _shousuushii(c: Ctx) -> bool:
    return c.form == STANDARD and c.pair in WINDS and _count_in(c.trips, WINDS) == 3


def _daisuushii(c: Ctx) -> bool:
    return _count_in(c.trips, WINDS) == 4


def _chuuren(c: Ctx) -> bool:
    if not c.closed or c.kans or c.form != STANDARD or c.suits != 1 or c.mask & HONOR_MASK:
        return False
    base = (c.mask & -c.mask).bit_length() - 1
    base -= base % 9
    conc = c.conc
    for k in range(9):
        if conc[base + k] < CHUUREN_BASE[k]:
            return False
    return True


def _junsei(c: Ctx) -> bool:
    """Chuuren whose 13 tiles before the win were exactly 1112345678999 (nine-sided wait)."""
    if not _chuuren(c):
        return False
    base = c.win - c.win % 9
    conc = c.conc
    for k in range(9):
        n = conc[base + k] - (1 if base + k == c.win else 0)
        if n != CHUUREN_BASE[k]:
            return False
    return True


def _honroutou(c: Ctx) -> bool:
    m = c.mask
    return not m & ~YAOCHU_MASK and bool(m & HONOR_MASK) and bool(m & TERMINAL_MASK) and c.form != KOKUSHI


def _yakuhai(tile: int) -> Callable[[Ctx], bool]:
    return lambda c: tile in c.trips


def _flag(name: str) -> Callable[[Ctx], bool]:
    return lambda c: getattr(c.hand, name)


def _haitei(c: Ctx) -> bool:
    return c.hand.haitei and (not c.hand.rinshan or c.rules.haitei_with_rinshan)


# ---- the table (output order) --------------------------------------------------------------------
Y = Yaku
YAKU: tuple[Yaku, ...] = (
    # yakuman
    Y("tenhou", "Tenhou", "天和", 13, 0, _flag("tenhou"), "tenhou", yakuman=1),
    Y("chiihou", "Chiihou", "地和", 13, 0, _flag("chiihou"), "chiihou", yakuman=1),
    Y("renhou_yakuman", "Renhou", "人和", 13, 0, _flag("renhou"), "renhou", yakuman=1,
      enabled_by="renhou_is_yakuman"),
    Y("kokushi_13", "Kokushi musou 13-sided wait", "国士無双十三面待ち", 26, 0,
      lambda c: c.form == KOKUSHI and c.conc[c.win] == 2, "kokushi", yakuman=2),
    Y("kokushi", "Kokushi musou", "国士無双", 13, 0,
      lambda c: c.form == KOKUSHI and c.conc[c.win] == 1, "kokushi", yakuman=1),
    Y("suuankou_tanki", "Suuankou tanki", "四暗刻単騎", 26, 0, lambda c: c.ankou == 4 and c.wait == TANKI, "ankou4",
      yakuman=2),
    Y("suuankou", "Suuankou", "四暗刻", 13, 0, lambda c: c.ankou == 4 and c.wait != TANKI, "ankou4", yakuman=1),
    Y("daisangen", "Daisangen", "大三元", 13, 13, _daisangen, "three_dragons", yakuman=1),
    Y("daisuushii", "Daisuushii", "大四喜", 26, 26, _daisuushii, "four_winds", yakuman=2),
    Y("shousuushii", "Shousuushii", "小四喜", 13, 13, _shousuushii, "four_winds", yakuman=1),
    Y("tsuuiisou", "Tsuuiisou", "字一色", 13, 13, lambda c: not c.mask & ~HONOR_MASK, "honors_only", yakuman=1),
    Y("chinroutou", "Chinroutou", "清老頭", 13, 13, lambda c: not c.mask & ~TERMINAL_MASK, "terminals_only",
      yakuman=1),
    Y("ryuuiisou", "Ryuuiisou", "緑一色", 13, 13, lambda c: not c.mask & ~GREEN_MASK, "green", yakuman=1),
    Y("junsei_chuuren", "Junsei chuuren poutou", "純正九蓮宝燈", 26, 0, _junsei, "one_suit_closed", yakuman=2),
    Y("chuuren", "Chuuren poutou", "九蓮宝燈", 13, 0, lambda c: _chuuren(c) and not _junsei(c), "one_suit_closed", yakuman=1),
    Y("suukantsu", "Suukantsu", "四槓子", 13, 13, lambda c: c.kans == 4, "kans4", yakuman=1),
    # 1 han
    Y("riichi", "Riichi", "立直", 1, 0, lambda c: c.hand.riichi and not c.hand.double_riichi, "riichi"),
    Y("double_riichi", "Double riichi", "ダブル立直", 2, 0, _flag("double_riichi"), "double_riichi"),
    Y("ippatsu", "Ippatsu", "一発", 1, 0, _flag("ippatsu"), "ippatsu", enabled_by="ippatsu"),
    Y("menzen_tsumo", "Menzen tsumo", "門前清自摸和", 1, 0, lambda c: c.tsumo and c.closed, "closed_tsumo"),
    Y("pinfu", "Pinfu", "平和", 1, 0,
      lambda c: c.form == STANDARD and c.closed and not c.trips and c.wait == RYANMEN and not c.value_pair, "pinfu_shape"),
    Y("tanyao", "Tanyao", "断么九", 1, 1, lambda c: not c.mask & YAOCHU_MASK, "no_terminals_honors",
      open_needs="open_tanyao"),
    Y("iipeikou", "Iipeikou", "一盃口", 1, 0, lambda c: c.form == STANDARD and _peikou(c) == 1, "peikou"),
    Y("haku", "Yakuhai: white", "役牌 白", 1, 1, _yakuhai(WHITE), "white"),
    Y("hatsu", "Yakuhai: green", "役牌 發", 1, 1, _yakuhai(GREEN), "green_dragon"),
    Y("chun", "Yakuhai: red", "役牌 中", 1, 1, _yakuhai(RED), "red_dragon"),
    Y("seat_wind", "Seat wind", "自風牌", 1, 1, lambda c: c.seat in c.trips, "seat_wind"),
    Y("round_wind", "Round wind", "場風牌", 1, 1, lambda c: c.round in c.trips, "round_wind"),
    Y("rinshan", "Rinshan kaihou", "嶺上開花", 1, 1, _flag("rinshan"), "rinshan"),
    Y("chankan", "Chankan", "搶槓", 1, 1, _flag("chankan"), "chankan"),
    Y("haitei", "Haitei raoyue", "海底摸月", 1, 1, _haitei, "haitei"),
    Y("houtei", "Houtei raoyui", "河底撈魚", 1, 1, _flag("houtei"), "houtei"),
    # 2 han
    Y("chiitoitsu", "Chiitoitsu", "七対子", 2, 0, lambda c: c.form == CHIITOI, "seven_pairs"),
    Y("sanshoku", "Sanshoku doujun", "三色同順", 2, 1, _sanshoku, "sanshoku"),
    Y("ittsu", "Ittsu", "一気通貫", 2, 1, _ittsu, "ittsu"),
    Y("chanta", "Chanta", "混全帯么九", 2, 1, lambda c: bool(c.mask & HONOR_MASK) and _outside(c), "outside"),
    Y("toitoi", "Toitoi", "対々和", 2, 2, lambda c: c.form == STANDARD and not c.seqs, "no_seqs"),
    Y("sanankou", "Sanankou", "三暗刻", 2, 2, lambda c: c.ankou == 3, "ankou3"),
    Y("sanshoku_doukou", "Sanshoku doukou", "三色同刻", 2, 2, _sanshoku_doukou, "doukou"),
    Y("sankantsu", "Sankantsu", "三槓子", 2, 2, lambda c: c.kans == 3, "kans3"),
    Y("honroutou", "Honroutou", "混老頭", 2, 2, _honroutou, "terminals_honors_only"),
    Y("shousangen", "Shousangen", "小三元", 2, 2, _shousangen, "three_dragons"),
    # 3 han and more
    Y("ryanpeikou", "Ryanpeikou", "二盃口", 3, 0, lambda c: c.form == STANDARD and _peikou(c) == 2, "peikou"),
    Y("junchan", "Junchan", "純全帯么九", 3, 2, lambda c: not c.mask & HONOR_MASK and _outside(c), "outside"),
    Y("honitsu", "Honitsu", "混一色", 3, 2, lambda c: c.suits == 1 and bool(c.mask & HONOR_MASK), "one_suit_honors"),
    Y("chinitsu", "Chinitsu", "清一色", 6, 5, lambda c: c.suits == 1 and not c.mask & HONOR_MASK, "one_suit_pure"),
)
del Y

YAKU_BY_KEY = {y.key: y for y in YAKU}

# Not yaku but counted like them (after the yaku, only when the hand has a yaku).
DORA_NAMES = {
    "dora": ("Dora", "ドラ"),
    "ura_dora": ("Ura dora", "裏ドラ"),
    "aka_dora": ("Red five", "赤ドラ"),
    "nuki_dora": ("Nuki dora", "抜きドラ"),
}
RENHOU_MANGAN = ("renhou", "Renhou", "人和")
