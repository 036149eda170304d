"""Seeded generator of random *valid winning* hands, as CONTRACTS §1 dicts.

Shared by the differential test (`test_differential.py`) and the benchmark
(`benchmarks/scoring.py`), so both look at the same kind of hands. Every hand is physically
possible: no tile is used more than four times (hand, melds and indicators together), red fives
only where the rules have them, chi only from the left and never in three-player, flags only in
combinations a real table produces (ippatsu needs riichi, rinshan a kan, chankan a lone copy of
the winning tile, tenhou/chiihou a closed hand with no kan, ...).

Hands are built shape first (four sets and a pair, seven pairs, thirteen orphans, nine gates) with
a "style" that steers them towards the yaku a uniform draw would almost never reach (honitsu,
toitoi, dragons, all green, ...). Whether a hand actually has a yaku is left to the scorers: a
shape without one is still a fair question ("no yaku" must be answered the same way by both).

`to_mahjong(hand, options)` turns a hand into the arguments of the `mahjong` package's
`HandCalculator.estimate_hand_value`, and `expected_from_mahjong` turns its answer into the
fields of a CONTRACTS §2 result, so the two engines can be compared field by field.
"""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Any

# Tiles are 34-indices: 0-8 = 1m..9m, 9-17 = 1p..9p, 18-26 = 1s..9s, 27-33 = E S W N haku hatsu chun.
SUIT_LETTERS = "mpsz"
EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
HAKU, HATSU, CHUN = 31, 32, 33
WINDS = "ESWN"
TERMINALS = (0, 8, 9, 17, 18, 26)
HONORS = tuple(range(27, 34))
ORPHANS = TERMINALS + HONORS
GREEN = (19, 20, 21, 23, 25, HATSU)  # 2s 3s 4s 6s 8s hatsu

# Seats relative to the winner. Turn order is E -> S -> W -> N; the next seat in turn order sits
# on your right (shimocha), the previous one on your left (kamicha), the one after next across.
# Three-player games keep the four-seat geometry with the North seat empty (as the engine does),
# so for an East winner the players are right (S) and across (W).
def relative_seat(winner: str, other: str, players: int = 4) -> str:
    """Where seat wind `other` sits as seen from seat wind `winner`."""
    return ("right", "across", "left")[(WINDS.index(other) - WINDS.index(winner)) % 4 - 1]


def present_seats(winner: str, players: int = 4) -> list[str]:
    """The relative seats that hold a player (three-player: not the empty North seat)."""
    others = [w for w in WINDS[:players] if w != winner]
    return [relative_seat(winner, w) for w in others]


def suit_of(t: int) -> int:
    return t // 9


def is_five(t: int) -> bool:
    return t < 27 and t % 9 == 4


def tile_str(t: int, red: bool = False) -> str:
    """One tile in MPSZ notation: `5m`, `0p` (red five), `7z`."""
    if t >= 27:
        return f"{t - 26}z"
    return f"{0 if red else t % 9 + 1}{SUIT_LETTERS[t // 9]}"


def tiles_str(tiles: list[tuple[int, bool]]) -> str:
    """Several tiles in compact MPSZ (`234m0556p11z`), sorted by suit then rank."""
    out: list[str] = []
    for suit in range(4):
        digits = [
            ("0" if red else str(t % 9 + 1)) if suit < 3 else str(t - 26)
            for t, red in sorted(tiles, key=lambda x: (x[0], not x[1]))
            if suit_of(t) == suit
        ]
        if digits:
            out.append("".join(digits) + SUIT_LETTERS[suit])
    return "".join(out)


@dataclass
class GenMeld:
    kind: str                          # chi, pon, ankan, minkan, kakan
    tiles: list[tuple[int, bool]]      # (34-index, red)
    called: tuple[int, bool] | None = None
    source: str | None = None          # left / across / right

    @property
    def opened(self) -> bool:
        return self.kind != "ankan"

    @property
    def is_kan(self) -> bool:
        return self.kind in ("ankan", "minkan", "kakan")

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"kind": self.kind, "tiles": tiles_str(self.tiles)}
        if self.called is not None:
            obj["called"] = tile_str(*self.called)
        if self.source is not None:
            obj["from"] = self.source
        return obj


@dataclass
class GenHand:
    """One generated winning hand; `to_json()` gives the CONTRACTS §1 dict."""

    concealed: list[tuple[int, bool]]
    win_tile: tuple[int, bool]
    melds: list[GenMeld]
    style: str
    players: int = 4
    tsumo: bool = False
    round_wind: str = "E"
    seat_wind: str = "E"
    dora: list[tuple[int, bool]] = field(default_factory=list)
    ura: list[tuple[int, bool]] = field(default_factory=list)
    flags: dict[str, bool] = field(default_factory=dict)
    honba: int = 0
    kyotaku: int = 0
    nukidora: int = 0
    discarder: str | None = None

    @property
    def dealer(self) -> bool:
        return self.seat_wind == "E"

    @property
    def is_open(self) -> bool:
        return any(m.opened for m in self.melds)

    def to_json(self, rules: Any = "tenhou") -> dict[str, Any]:
        obj: dict[str, Any] = {
            "rules": rules,
            "concealed": tiles_str(self.concealed),
            "win_tile": tile_str(*self.win_tile),
            "melds": [m.to_json() for m in self.melds],
            "win": "tsumo" if self.tsumo else "ron",
            "round_wind": self.round_wind,
            "seat_wind": self.seat_wind,
            "dora_indicators": [tile_str(*t) for t in self.dora],
            "ura_indicators": [tile_str(*t) for t in self.ura],
            "honba": self.honba,
            "kyotaku": self.kyotaku,
            "players": self.players,
        }
        for name in FLAGS:
            obj[name] = bool(self.flags.get(name, False))
        if self.players == 3:
            obj["nukidora"] = self.nukidora
        if self.discarder is not None and not self.tsumo:
            obj["discarder"] = self.discarder
        return obj


FLAGS = ("riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei",
         "tenhou", "chiihou", "renhou")

STYLES = (  # (name, weight)
    ("any", 55), ("tanyao", 10), ("honitsu", 8), ("chinitsu", 5), ("chanta", 5),
    ("honors", 4), ("toitoi", 4), ("green", 1), ("chiitoi", 6), ("kokushi", 1), ("chuuren", 1),
)


class HandGenerator:
    """Random valid winning hands from one seed (same seed, same hands, on any machine).

    `players=3` makes sanma hands (no 2m-8m, no chi, nuki-dora); `red_suits` says which suits
    carry one red five ("mps" for Tenhou, "ps" for sanma, "" for none); `max_kan_dora` caps
    the number of dora indicators at 1 + kans (set 0 for rule sets with a single indicator).
    """

    def __init__(self, seed: int = 0, players: int = 4, red_suits: str = "mps",
                 kan_dora: bool = True, ura_dora: bool = True) -> None:
        self.rng = random.Random(seed)
        self.players = players
        self.red_suits = {SUIT_LETTERS.index(c) for c in red_suits}
        self.kan_dora = kan_dora
        self.ura_dora = ura_dora
        self.allowed = [t for t in range(34) if players == 4 or not (1 <= t <= 7)]
        self._styles = [s for s, _ in STYLES]
        self._weights = [w for _, w in STYLES]

    # ---- public -------------------------------------------------------------------------
    def hands(self, n: int):
        for _ in range(n):
            yield self.hand()

    def hand(self) -> GenHand:
        while True:  # a style can paint itself into a corner (tiles used up): draw again
            style = self.rng.choices(self._styles, self._weights)[0]
            hand = self._try(style)
            if hand is not None:
                return hand

    # ---- tile bookkeeping ---------------------------------------------------------------
    def _reset(self) -> None:
        self.counts = [0] * 34
        self.red_left = set(self.red_suits)

    def _take(self, t: int) -> tuple[int, bool]:
        """Use one physical copy of tile `t` (maybe the red one); the caller checked counts."""
        self.counts[t] += 1
        red = False
        if is_five(t) and suit_of(t) in self.red_left:
            # the red copy is one of four; favour it a little so red fives show up often
            if self.rng.random() < 0.4 or self.counts[t] == 4:
                red = True
                self.red_left.discard(suit_of(t))
        return (t, red)

    def _free(self, t: int, n: int) -> bool:
        return self.counts[t] + n <= 4

    # ---- shapes -------------------------------------------------------------------------
    def _pool(self, style: str) -> tuple[list[int], float]:
        """(tiles a group may start from, probability that a group is a triplet)."""
        rng = self.rng
        suits = [0, 1, 2] if self.players == 4 else [1, 2]
        if style == "tanyao":
            return [t for t in self.allowed if t < 27 and t % 9 not in (0, 8)], 0.25
        if style == "honitsu":
            s = rng.choice(suits if self.players == 4 else [0, 1, 2])
            return [t for t in self.allowed if suit_of(t) == s] + list(HONORS), 0.35
        if style == "chinitsu":
            s = rng.choice(suits)
            return [t for t in self.allowed if suit_of(t) == s], 0.3
        if style == "chanta":
            return [t for t in self.allowed if t in ORPHANS or (t < 27 and t % 9 == 6)], 0.45
        if style == "honors":
            return list(HONORS) + [t for t in self.allowed if t < 27], 0.9
        if style == "toitoi":
            return list(self.allowed), 1.0
        if style == "green":
            return list(GREEN), 0.5
        return list(self.allowed), 0.2

    def _group(self, style: str, pool: list[int], p_triplet: float, n_honor_groups: int):
        """Pick one set: ('seq', [t, t+1, t+2]) or ('tri', t) with tiles still free."""
        rng = self.rng
        for _ in range(30):
            if style == "honors" and n_honor_groups < 3:
                t = rng.choice(HONORS)
            else:
                t = rng.choice(pool)
            want_triplet = rng.random() < p_triplet
            seq_ok = t < 27 and t % 9 <= 6 and all(
                (t + i) in self.allowed and self._free(t + i, 1) for i in range(3))
            if style == "green":
                seq_ok = seq_ok and t == 19  # 234s is the only all-green sequence
            if style == "chanta":
                seq_ok = seq_ok and t % 9 in (0, 6)
            if style == "tanyao":
                seq_ok = seq_ok and t % 9 in range(1, 6)
            if (want_triplet or not seq_ok) and self._free(t, 3):
                if style == "chanta" and t not in ORPHANS:
                    continue
                return ("tri", t)
            if seq_ok:
                return ("seq", t)
        return None

    def _try(self, style: str) -> GenHand | None:
        self._reset()
        rng = self.rng
        self.seat = rng.choice(WINDS[: self.players])
        if style == "chiitoi":
            return self._finish(self._seven_pairs(), [], style)
        if style == "kokushi":
            return self._finish(self._kokushi(), [], style)
        if style == "chuuren":
            tiles = self._chuuren()
            return self._finish(tiles, [], style) if tiles else None

        pool, p_tri = self._pool(style)
        open_hand = rng.random() < 0.4
        concealed: list[tuple[int, bool]] = []
        melds: list[GenMeld] = []
        honor_groups = 0
        for _ in range(4):
            g = self._group(style, pool, p_tri, honor_groups)
            if g is None:
                return None
            kind, t = g
            if kind == "seq":
                tiles = [self._take(t + i) for i in range(3)]
                if open_hand and self.players == 4 and rng.random() < 0.5:
                    melds.append(GenMeld("chi", tiles, called=rng.choice(tiles), source="left"))
                else:
                    concealed += tiles
                continue
            if t in HONORS:
                honor_groups += 1
            r = rng.random()
            if self._free(t, 4) and r < (0.3 if open_hand else 0.12):
                tiles = [self._take(t) for _ in range(4)]
                kan = "ankan" if not open_hand else rng.choice(["ankan", "minkan", "kakan"])
                if kan == "ankan":
                    melds.append(GenMeld("ankan", tiles))
                else:
                    melds.append(GenMeld(kan, tiles, called=rng.choice(tiles), source=self._source()))
            else:
                tiles = [self._take(t) for _ in range(3)]
                if open_hand and rng.random() < 0.55:
                    melds.append(GenMeld("pon", tiles, called=rng.choice(tiles), source=self._source()))
                else:
                    concealed += tiles
        # the pair
        for _ in range(30):
            if style == "honors" and rng.random() < 0.6:
                t = rng.choice(HONORS)
            elif style == "chanta":
                t = rng.choice([x for x in self.allowed if x in ORPHANS])
            else:
                t = rng.choice(pool)
            if self._free(t, 2):
                break
        else:
            return None
        concealed += [self._take(t), self._take(t)]
        return self._finish(concealed, melds, style)

    def _seven_pairs(self) -> list[tuple[int, bool]]:
        rng = self.rng
        kind = rng.random()
        if kind < 0.15:
            pool = list(ORPHANS) + ([] if self.players == 4 else [])
        elif kind < 0.3:
            s = rng.choice([1, 2] if self.players == 3 else [0, 1, 2])
            pool = [t for t in self.allowed if suit_of(t) == s] + list(HONORS)
        else:
            pool = list(self.allowed)
        types = rng.sample(pool, 7)
        return [self._take(t) for t in types for _ in range(2)]

    def _kokushi(self) -> list[tuple[int, bool]]:
        tiles = [self._take(t) for t in ORPHANS]
        tiles.append(self._take(self.rng.choice(ORPHANS)))
        return tiles

    def _chuuren(self) -> list[tuple[int, bool]] | None:
        s = self.rng.choice([1, 2] if self.players == 3 else [0, 1, 2])
        base = [3, 1, 1, 1, 1, 1, 1, 1, 3]
        base[self.rng.randrange(9)] += 1
        return [self._take(9 * s + i) for i, n in enumerate(base) for _ in range(n)]

    def _source(self) -> str:
        return self.rng.choice(present_seats(self.seat, self.players))

    # ---- win, context, flags, indicators ------------------------------------------------
    def _finish(self, concealed, melds, style) -> GenHand:
        rng = self.rng
        win_tile = rng.choice(concealed)
        h = GenHand(concealed=concealed, win_tile=win_tile, melds=melds, style=style,
                    players=self.players)
        h.tsumo = rng.random() < 0.45
        h.seat_wind = self.seat
        h.round_wind = rng.choices("ESWN" if self.players == 4 else "ESW",
                                   [50, 40, 7, 3] if self.players == 4 else [55, 40, 5])[0]
        n_kans = sum(m.is_kan for m in melds)
        closed = not h.is_open
        f = h.flags
        if closed and not melds and h.tsumo and rng.random() < 0.1:
            f["tenhou" if h.dealer else "chiihou"] = True
        else:
            if closed and rng.random() < 0.45:
                if rng.random() < 0.12:
                    f["double_riichi"] = True
                    f["riichi"] = rng.random() < 0.5  # both spellings of a double riichi
                else:
                    f["riichi"] = True
            if h.tsumo and n_kans and rng.random() < 0.3:
                f["rinshan"] = True
            if (f.get("riichi") or f.get("double_riichi")) and not f.get("rinshan") \
                    and rng.random() < 0.2:
                f["ippatsu"] = True
            if h.tsumo and not f.get("rinshan") and rng.random() < 0.05:
                f["haitei"] = True
        # indicators (they are physical tiles too)
        n_ind = 1 + (n_kans if self.kan_dora else 0)
        if rng.random() < 0.3:
            n_ind = rng.randint(1, n_ind)
        h.dora = self._indicators(n_ind)
        if self.ura_dora and (f.get("riichi") or f.get("double_riichi")):
            h.ura = self._indicators(n_ind)
        if not h.tsumo:
            # chankan: the hand holds the only copy the others do not (the robbed kakan's 4th tile);
            # a north in three-player is set aside rather than added to a kan (ron on it is not chankan)
            if self.counts[win_tile[0]] == 1 and not (self.players == 3 and win_tile[0] == NORTH) \
                    and rng.random() < 0.3:
                f["chankan"] = True
            elif rng.random() < 0.05:
                f["houtei"] = True
            h.discarder = None if rng.random() < 0.1 else self._source()
        h.honba = rng.choices(range(6), [50, 20, 12, 8, 5, 5])[0]
        h.kyotaku = rng.choices(range(4), [60, 25, 10, 5])[0]
        if self.players == 3 and not (f.get("tenhou") or f.get("chiihou")):
            # 002 §1.1.1(12): a north set aside before the win rules out tenhou and chiihou (a double
            # riichi declared before setting norths aside stands, like a closed kan after riichi)
            free_north = 4 - self.counts[NORTH]
            h.nukidora = rng.choices(range(free_north + 1), [50, 25, 12, 8, 5][: free_north + 1])[0]
            self.counts[NORTH] += h.nukidora
        return h

    def _indicators(self, n: int) -> list[tuple[int, bool]]:
        out = []
        for _ in range(n):
            free = [t for t in self.allowed if self.counts[t] < 4]
            out.append(self._take(self.rng.choice(free)))
        return out


# ---- the `mahjong` package side ---------------------------------------------------------

def to_mahjong(hand: GenHand, options: Any):
    """Arguments for `HandCalculator.estimate_hand_value(tiles, win_tile, melds, dora, config,
    ura_dora_indicators=...)`, given the package's `OptionalRules`.

    Copies are numbered 4*t .. 4*t+3; the package treats copy 0 of each five as the red one.
    """
    from mahjong.hand_calculating.hand_config import HandConfig
    from mahjong.meld import Meld

    next_copy = [0] * 34
    for t in range(34):
        if is_five(t):
            next_copy[t] = 1  # copy 0 is reserved for the red five

    def phys(tile: tuple[int, bool]) -> int:
        t, red = tile
        if red:
            return 4 * t
        c = next_copy[t]
        next_copy[t] += 1
        if c > 3:  # the fourth plain five of a rule set without red fives
            c = 0
        return 4 * t + c

    closed_136 = [phys(t) for t in hand.concealed]
    win_136 = None
    for tile, idx in zip(hand.concealed, closed_136):
        if tile == hand.win_tile:
            win_136 = idx
            break
    melds = []
    all_136 = list(closed_136)
    kinds = {"chi": Meld.CHI, "pon": Meld.PON, "ankan": Meld.KAN, "minkan": Meld.KAN,
             "kakan": Meld.SHOUMINKAN}
    for m in hand.melds:
        ids = [phys(t) for t in m.tiles]
        all_136 += ids
        melds.append(Meld(meld_type=kinds[m.kind], tiles=ids, opened=m.opened))
    dora = [phys(t) for t in hand.dora]
    ura = [phys(t) for t in hand.ura]
    f = hand.flags
    riichi = bool(f.get("riichi") or f.get("double_riichi"))
    config = HandConfig(
        is_tsumo=hand.tsumo, is_riichi=riichi, is_daburu_riichi=bool(f.get("double_riichi")),
        is_ippatsu=bool(f.get("ippatsu")), is_rinshan=bool(f.get("rinshan")),
        is_chankan=bool(f.get("chankan")), is_haitei=bool(f.get("haitei")),
        is_houtei=bool(f.get("houtei")), is_tenhou=bool(f.get("tenhou")),
        is_chiihou=bool(f.get("chiihou")), is_renhou=bool(f.get("renhou")),
        player_wind=EAST + WINDS.index(hand.seat_wind), round_wind=EAST + WINDS.index(hand.round_wind),
        tsumi_number=hand.honba, kyoutaku_number=hand.kyotaku, num_nuki_dora=hand.nukidora,
        options=options,
    )
    return all_136, win_136, melds, dora, config, ura


def expected_from_mahjong(hand: GenHand, response: Any) -> dict[str, Any]:
    """The `mahjong` package's answer as CONTRACTS §2 fields (han, fu, yakuman, points,
    payments, total), or {"error": message} when it refuses the hand."""
    if response.error:
        return {"error": response.error}
    cost = response.cost
    yakuman = response.han // 13 if any(y.is_yakuman for y in response.yaku) else 0
    payments: dict[str, int] = {}
    if not hand.tsumo:
        payments[hand.discarder or "discarder"] = cost["main"] + cost["main_bonus"]
        points = cost["main"]
    else:
        points = 0
        for other in WINDS[: hand.players]:
            if other == hand.seat_wind:
                continue
            rel = relative_seat(hand.seat_wind, other, hand.players)
            if hand.dealer or other == "E":
                amount, bonus = cost["main"], cost["main_bonus"]
            else:
                amount, bonus = cost["additional"], cost["additional_bonus"]
            payments[rel] = amount + bonus
            points += amount
    return {
        "han": response.han, "fu": response.fu, "yakuman": yakuman, "points": points,
        "payments": payments, "total": cost["total"], "level": cost["yaku_level"],
        "yaku": [y.name for y in response.yaku],
    }


# ---- hands with a chosen fu and han (points-table tests) --------------------------------

_TABLE_SEQS = (10, 22, 14, 19)           # 234p (always present, holds the wait), 567s, 678p, 234s
_TABLE_TRIPLET_TILES = (HAKU, NORTH, 0, 17, 25)   # haku (yakuhai), north, 1m, 9p, 8s
_GROUP_FU = {"anko": (4, 8), "pon": (2, 4), "minkan": (8, 16), "ankan": (16, 32)}


def _next_dora(t: int, players: int) -> int:
    if players == 3 and t in (0, 8):
        return 8 if t == 0 else 0          # sanma: 1m shows 9m, 9m shows 1m
    if t < 27:
        return t - t % 9 + (t % 9 + 1) % 9
    if t < 31:
        return 27 + (t - 27 + 1) % 4
    return 31 + (t - 31 + 1) % 3


@functools.lru_cache(maxsize=2)
def _table_candidates(tsumo: bool) -> tuple[dict, ...]:
    return tuple(_enumerate_table_candidates(tsumo))


def _enumerate_table_candidates(tsumo: bool):
    """Every hand shape of the points-table menu, with the fu and han (before dora) it scores.

    The menu is chosen so no yaku appears by accident: 234p is always a closed sequence (no
    toitoi, no chanta), the pair is 9s or hatsu (no tanyao), at most two concealed triplets (no
    sanankou), sequences never repeat or line up (no iipeikou, ittsu, sanshoku), both p and s
    are present (no honitsu). What it can score: riichi, menzen tsumo, pinfu, haku, sankantsu.
    """
    import itertools

    items = [("seq", t) for t in _TABLE_SEQS[1:]]
    items += [(kind, t) for t in _TABLE_TRIPLET_TILES for kind in _GROUP_FU]
    for combo in itertools.combinations(items, 3):
        tiles_used = [t for k, t in combo if k != "seq"]
        if len(set(tiles_used)) != len(tiles_used):
            continue
        groups = [("seq", 10)] + list(combo)
        kans = sum(k in ("minkan", "ankan") for k, _ in groups)
        concealed_sets = sum(k in ("anko", "ankan") for k, _ in groups)
        if concealed_sets > 2:
            continue
        opened = any(k in ("pon", "minkan") for k, _ in groups)
        for pair in (26, HATSU):  # 9s, hatsu
            suits = {suit_of(t) for k, t in groups for _ in [0] if t < 27} | ({2} if pair == 26 else set())
            if not {1, 2} <= suits:
                continue
            for wait in ("ryanmen", "kanchan", "tanki"):
                for riichi in ((False, True) if not opened else (False,)):
                    all_seq = all(k == "seq" for k, _ in groups)
                    pinfu = not opened and all_seq and pair != HATSU and wait == "ryanmen"
                    han = int(riichi) + int(tsumo and not opened) + int(pinfu)
                    han += sum(1 for k, t in groups if t == HAKU)
                    han += 2 if kans == 3 else 0
                    if han == 0:
                        continue
                    if pinfu and tsumo:
                        fu = 20
                    else:
                        fu = 30 if (not opened and not tsumo) else 20
                        fu += sum(_GROUP_FU[k][t in ORPHANS] for k, t in groups if k != "seq")
                        fu += 2 if pair == HATSU else 0
                        fu += 2 if wait != "ryanmen" else 0
                        fu += 2 if tsumo else 0
                        if opened and fu == 20:
                            fu = 30
                        fu = -(-fu // 10) * 10
                    yield {"groups": groups, "pair": pair, "wait": wait, "riichi": riichi,
                           "opened": opened, "kans": kans, "fu": fu, "han": han}


@functools.lru_cache(maxsize=2)
def _sorted_candidates(tsumo: bool) -> tuple[dict, ...]:
    """Simplest shapes first (fewest kans, closed before open), so tests read naturally."""
    return tuple(sorted(_table_candidates(tsumo), key=lambda c: (c["kans"], c["opened"], len(str(c)))))


def _tile_counts(groups, pair) -> dict[int, int]:
    counts: dict[int, int] = {}
    for k, t in groups:
        for x in ([t, t + 1, t + 2] if k == "seq" else [t] * (4 if k in ("minkan", "ankan") else 3)):
            counts[x] = counts.get(x, 0) + 1
    counts[pair] = counts.get(pair, 0) + 2
    return counts


def hand_with(fu: int, han: int, *, tsumo: bool, dealer: bool, players: int = 4,
              red_suits: str = "mps", rules: Any = "tenhou") -> dict[str, Any] | None:
    """A legal §1 hand that scores exactly `han` han and `fu` fu under standard counting
    (20/25/30.. fu, han from riichi / menzen tsumo / pinfu / haku / sankantsu / chiitoitsu plus
    one dora indicator and red fives), or None when no hand of the menu reaches that pair.

    Used to check every cell of a points table with real hands instead of a formula.
    """
    seat = "E" if dealer else "S"
    base = {"rules": rules, "win": "tsumo" if tsumo else "ron", "round_wind": "E",
            "seat_wind": seat, "players": players, "ura_indicators": []}
    allowed = [t for t in range(34) if players == 4 or not (1 <= t <= 7)]
    reds = {SUIT_LETTERS.index(c) for c in red_suits}

    def indicator_for(counts: dict[int, int], k: int) -> int | None:
        for ind in allowed:
            if counts.get(ind, 0) >= 4:
                continue
            if counts.get(_next_dora(ind, players), 0) == k:
                return ind
        return None

    if fu == 25:  # seven pairs: 1m 9m 2p 5p 8p 3s north
        pairs = [0, 8, 10, 13, 16, 20, NORTH]
        counts = {t: 2 for t in pairs}
        for riichi in (False, True):
            for aka in ((0, 1) if 1 in reds else (0,)):
                for k in (0, 2):
                    if 2 + int(tsumo) + int(riichi) + k + aka != han:
                        continue
                    ind = indicator_for(counts, k)
                    if ind is None:
                        continue
                    tiles = [(t, False) for t in pairs for _ in range(2)]
                    if aka:
                        tiles[tiles.index((13, False))] = (13, True)
                    return {**base, "concealed": tiles_str(tiles), "win_tile": tile_str(NORTH),
                            "melds": [], "riichi": riichi, "dora_indicators": [tile_str(ind)]}
        return None

    for c in _sorted_candidates(tsumo):
        if c["fu"] != fu or c["han"] > han:
            continue
        counts = _tile_counts(c["groups"], c["pair"])
        can_red = 2 in reds  # 567s may hold the red 5s
        has_567s = any(k == "seq" and t == 22 for k, t in c["groups"])
        for aka in ((0, 1) if can_red and has_567s else (0,)):
            k = han - c["han"] - aka
            if k < 0 or k > 4:
                continue
            ind = indicator_for(counts, k)
            if ind is None:
                continue
            concealed: list[tuple[int, bool]] = []
            melds: list[dict[str, Any]] = []
            for kind, t in c["groups"]:
                if kind == "seq":
                    concealed += [(t + i, aka == 1 and t + i == 22) for i in range(3)]
                elif kind == "anko":
                    concealed += [(t, False)] * 3
                elif kind == "ankan":
                    melds.append({"kind": "ankan", "tiles": tiles_str([(t, False)] * 4)})
                else:
                    n = 3 if kind == "pon" else 4
                    melds.append({"kind": kind, "tiles": tiles_str([(t, False)] * n),
                                  "called": tile_str(t), "from": "right"})
            concealed += [(c["pair"], False)] * 2
            win = {"ryanmen": 12, "kanchan": 11, "tanki": c["pair"]}[c["wait"]]  # 4p / 3p / pair
            return {**base, "concealed": tiles_str(concealed), "win_tile": tile_str(win),
                    "melds": melds, "riichi": c["riichi"], "dora_indicators": [tile_str(ind)]}
    return None


# ---- hands written by hand (seed tests) --------------------------------------------------

def hand(concealed: str, win: str | None = None, *melds: str, rules: Any = "tenhou", tsumo: bool = False,
         seat: str = "S", round: str = "E", dora: tuple[str, ...] | list[str] = (),
         ura: tuple[str, ...] | list[str] = (), **extra: Any) -> dict[str, Any]:
    """A CONTRACTS §1 dict with short spelling: `hand("123m456p789s11122z", "2z", "pon 777z across")`.

    The winning tile defaults to the last tile written; melds are "KIND TILES [FROM [CALLED]]";
    the seat defaults to South (a non-dealer) so payments are the common case. Other keyword
    arguments (riichi=True, honba=2, discarder="left", ...) go into the dict unchanged.
    """
    if win is None:
        digits = concealed.rstrip("mpsz")
        win = digits[-1] + concealed[-1]
    obj: dict[str, Any] = {"rules": rules, "concealed": concealed, "win_tile": win, "melds": [],
                           "win": "tsumo" if tsumo else "ron", "seat_wind": seat, "round_wind": round,
                           "dora_indicators": list(dora), "ura_indicators": list(ura)}
    for spec in melds:
        parts = spec.split()
        m: dict[str, Any] = {"kind": parts[0], "tiles": parts[1]}
        if len(parts) > 2:
            m["from"] = parts[2]
        if len(parts) > 3:
            m["called"] = parts[3]
        elif parts[0] != "ankan":
            m["called"] = parts[1][0] + parts[1][-1]
        obj["melds"].append(m)
    obj.update(extra)
    return obj


def hand_with_han(han: int, *, tsumo: bool, dealer: bool, players: int = 4, red_suits: str = "mps",
                  rules: Any = "tenhou") -> dict[str, Any]:
    """A legal §1 hand worth exactly `han` han (5 and up: the limit rows of a points table).

    One of `hand_with`'s hands when it reaches the han, else a closed pinzu chinitsu won on 4p
    (chinitsu 6 + pinfu + iipeikou [+ ittsu 2]; + riichi, + menzen tsumo, + 0-3 dora from
    one indicator).
    """
    for fu in (30, 40, 50, 60, 70, 80, 20, 25, 90, 100, 110):
        obj = hand_with(fu, han, tsumo=tsumo, dealer=dealer, players=players, red_suits=red_suits, rules=rules)
        if obj is not None:
            return obj
    # closed pinzu chinitsu won on 4p (ryanmen): (tiles, han by ron without riichi, indicators by dora count)
    families = (
        ("11223345678999p", "4p", 10, {0: "1z", 1: "3p", 2: "9p", 3: "8p"}),  # + pinfu, iipeikou, ittsu
        ("11223345667899p", "4p", 8, {0: "1z", 1: "3p", 2: "9p"}),           # + pinfu, iipeikou
        ("22234456678999p", "3p", 6, {0: "1z", 1: "2p", 2: "3p", 3: "1p"}),  # chinitsu alone (kanchan)
    )
    for concealed, win, ron_han, indicator_for in families:
        for riichi in (False, True):
            k = han - ron_han - int(tsumo) - int(riichi)
            if k in indicator_for:
                return {"rules": rules, "concealed": concealed, "win_tile": win, "melds": [],
                        "win": "tsumo" if tsumo else "ron", "seat_wind": "E" if dealer else "S",
                        "round_wind": "E", "players": players, "riichi": riichi,
                        "dora_indicators": [indicator_for[k]], "ura_indicators": []}
    raise ValueError(f"no test hand with {han} han")
