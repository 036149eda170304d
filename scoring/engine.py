"""Score one winning hand under one rule set: every reading, the best one, its payments.

A reading is one decomposition of the closed tiles plus one interpretation of the winning tile
(which set or the pair it completed, hence the wait). All readings are scored and the highest
wins (新報知 第60条: the arrangement that scores most must be chosen); ties go to a real
yakuman, then more han, then more fu.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from . import fu as fu_mod
from .decompose import is_seven_pairs, is_thirteen_orphans, standard_shapes
from .errors import HandError
from .hand import Hand
from .pao import find_liability
from .payments import LIMIT_BASE, absent_seat, limit_and_base, settle, yakuman_limit_name
from .rules import Rules
from .tiles import NORTH, TILES, WIND_NAMES, dora_of, format_tiles
from .yaku import (CHIITOI, DORA_NAMES, KANCHAN, KOKUSHI, PENCHAN, RENHOU_MANGAN, RYANMEN, SHANPON, STANDARD,
                   TANKI, THIRTEEN, WAIT_NAMES, YAKU, Ctx, Yaku)


@dataclass(frozen=True)
class YakuHit:
    key: str
    name: str
    name_ja: str
    han: int
    yakuman: int = 0

    def to_json(self) -> dict:
        out: dict[str, Any] = {"key": self.key, "name": self.name, "name_ja": self.name_ja, "han": self.han}
        if self.yakuman:
            out["yakuman"] = self.yakuman
        return out


@dataclass
class Result:
    """The score of one hand (CONTRACTS §2 plus the working)."""

    han: int
    fu: int
    yakuman: int
    limit: str | None
    points: int
    payments: dict[str, int]
    total: int
    yaku: list[YakuHit]
    fu_details: list[dict] = field(default_factory=list)
    kazoe: bool = False
    dealer: bool = False
    is_open: bool = False
    win: str = "ron"
    form: str = "standard"
    groups: list[str] = field(default_factory=list)
    wait: str | None = None
    base_points: int = 0
    honba_points: int = 0
    sticks_points: int = 0
    liability: dict | None = None
    rules: str = ""
    players: int = 4
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "han": self.han, "fu": self.fu, "yakuman": self.yakuman, "limit": self.limit,
            "points": self.points, "payments": dict(self.payments), "total": self.total,
            "yaku": [y.to_json() for y in self.yaku], "error": None,
            "fu_details": self.fu_details, "kazoe": self.kazoe, "dealer": self.dealer, "is_open": self.is_open,
            "win": self.win, "form": self.form, "groups": self.groups, "wait": self.wait,
            "base_points": self.base_points, "honba_points": self.honba_points, "sticks_points": self.sticks_points,
            "liability": self.liability, "rules": self.rules, "players": self.players, "notes": self.notes,
        }


# ---------------------------------------------------------------------------- compiled rule tables
@dataclass(frozen=True)
class _Table:
    yakuman: tuple[tuple[Yaku, int, int], ...]  # (yaku, weight, han-per-entry) usable under the rules
    normal: tuple[tuple[Yaku, int, int], ...]   # (yaku, closed han, open han)


@lru_cache(maxsize=64)
def _table(rules: Rules) -> _Table:
    yakuman, normal = [], []
    for y in YAKU:
        if y.enabled_by and not getattr(rules, y.enabled_by):
            continue
        if y.is_yakuman:
            weight = y.yakuman if rules.double_yakuman else 1
            yakuman.append((y, weight, 13 * weight))
        else:
            han_open = y.han_open if (y.open_needs is None or getattr(rules, y.open_needs)) else 0
            normal.append((y, y.han, han_open))
    return _Table(tuple(yakuman), tuple(normal))


# ---------------------------------------------------------------------------- checks needing rules
_MANZU_2_TO_8 = frozenset(range(1, 8))


def _check_rules(hand: Hand, rules: Rules) -> list[str]:
    """Rule-set-dependent checks; returns notes for things scored differently than flagged."""
    notes: list[str] = list(hand.notes)
    players = rules.players
    if hand.players is not None and hand.players != players:
        raise HandError(f"rule set {rules.name!r} is for {players} players; choose a {hand.players}-player rule set "
                        f"(e.g. {'sanma or tenhou-sanma' if hand.players == 3 else 'tenhou'})", "players")
    all_groups = [("concealed", hand.concealed)] + [(f"melds[{i}].tiles", m.tiles) for i, m in enumerate(hand.melds)] \
        + [("dora_indicators", hand.dora_indicators), ("ura_indicators", hand.ura_indicators)]
    if players == 3:
        for where, group in all_groups:
            for t in group:
                if t.index in _MANZU_2_TO_8:
                    raise HandError(f"{t} is not in a 3-player set (manzu 2-8 are removed)", where)
        for i, m in enumerate(hand.melds):
            if m.kind == "chi":
                raise HandError("no chi in 3-player mahjong", f"melds[{i}].kind")
        if hand.seat_wind == 3:
            raise HandError("3-player seats are E, S, W (north is empty)", "seat_wind")
        if hand.round_wind == 3:
            raise HandError("3-player rounds are E, S or W", "round_wind")
        absent = absent_seat(hand.seat_wind, 3)
        for where, seat in [("discarder", hand.discarder), ("liable", hand.liable)] + \
                [(f"melds[{i}].from", m.from_) for i, m in enumerate(hand.melds)]:
            if seat is not None and seat == absent:
                raise HandError(f"the {absent} seat is the empty north seat in 3-player (winner {WIND_NAMES[hand.seat_wind]})",
                                where)
        if hand.chankan and hand.win_tile.index == NORTH:
            raise HandError("ron on a set-aside north is allowed but is not chankan", "chankan")
    if hand.nukidora:
        if players != 3:
            raise HandError("nuki-dora (north set aside) exist only in 3-player games", "nukidora")
        if not rules.nukidora:
            raise HandError(f"rule set {rules.name!r} does not set norths aside", "nukidora")
    if hand.rinshan and not any(m.is_kan for m in hand.melds) and players != 3:
        raise HandError("rinshan kaihou needs a kan", "rinshan")
    # red fives
    reds = [0, 0, 0]
    for _, group in all_groups:
        for t in group:
            if t.red:
                reds[t.index // 9] += 1
    for s, n in enumerate(reds):
        if n and n > rules.red_fives[s]:
            name = f"0{'mps'[s]}"
            if rules.red_fives[s] == 0:
                notes.append(f"{rules.name} has no red fives: {name} counted as a plain 5{'mps'[s]}")
            else:
                raise HandError(f"{n} red {name} but the set has {rules.red_fives[s]}", "concealed")
    if not rules.kan_dora and len(hand.dora_indicators) > 1:
        raise HandError(f"{rules.name} turns over one dora indicator (no kan dora), got {len(hand.dora_indicators)}",
                        "dora_indicators")
    if hand.ura_indicators and not rules.ura_dora:
        raise HandError(f"{rules.name} has no ura dora", "ura_indicators")
    if hand.ippatsu and not rules.ippatsu:
        notes.append(f"ippatsu is not a yaku in {rules.name}: not counted")
    if hand.haitei and hand.rinshan and not rules.haitei_with_rinshan:
        notes.append("haitei is not counted together with rinshan kaihou: rinshan only")
    if hand.renhou and rules.renhou == "none":
        notes.append(f"renhou is not a yaku in {rules.name}: not counted")
    if hand.robbed_kan == "ankan" and not rules.kokushi_chankan_ankan:
        raise HandError(f"in {rules.name} a closed kan cannot be robbed, not even for kokushi", "robbed_kan")
    if hand.honba and not rules.honba_points:
        notes.append(f"{rules.name} pays nothing for honba")
    return notes


# ---------------------------------------------------------------------------- the hand's constants
class _Facts:
    """What every reading of the hand shares."""

    __slots__ = ("conc", "mask", "suits", "closed", "meld_seqs", "meld_trips", "meld_fu", "meld_sets", "kans",
                 "ankans", "seat", "round", "value", "pair_fu", "dora", "ura", "aka", "nuki")


def _facts(hand: Hand, rules: Rules) -> _Facts:
    f = _Facts()
    conc = [0] * 34
    for t in hand.concealed:
        conc[t.index] += 1
    f.conc = conc
    mask = 0
    for i in range(34):
        if conc[i]:
            mask |= 1 << i
    meld_seqs: list[int] = []
    meld_trips: list[int] = []
    meld_sets: list[tuple[int, bool, bool]] = []
    meld_fu = 0
    kans = ankans = 0
    closed = True
    all_counts = conc[:]
    for m in hand.melds:
        first = m.first
        for t in m.tiles:
            all_counts[t.index] += 1
            mask |= 1 << t.index
        if m.kind == "chi":
            meld_seqs.append(first)
            closed = False
            continue
        kan = m.is_kan
        concealed = m.kind == "ankan"
        if not concealed:
            closed = False
        kans += kan
        ankans += concealed
        meld_trips.append(first)
        meld_sets.append((first, concealed, kan))
        meld_fu += fu_mod.set_fu(first, concealed, kan)
    f.mask = mask
    f.suits = sum(1 for s in (0x1FF, 0x1FF << 9, 0x1FF << 18) if mask & s)
    f.closed = closed
    f.meld_seqs = tuple(meld_seqs)
    f.meld_trips = tuple(meld_trips)
    f.meld_sets = meld_sets
    f.meld_fu = meld_fu
    f.kans = kans
    f.ankans = ankans
    seat = 27 + hand.seat_wind
    rnd = 27 + hand.round_wind
    f.seat, f.round = seat, rnd
    value = [0] * 34
    value[31] = value[32] = value[33] = 1
    value[seat] += 1
    value[rnd] += 1
    f.value = value
    pair_fu = [2 * v for v in value]
    if seat == rnd:
        pair_fu[seat] = rules.double_wind_pair_fu
    f.pair_fu = pair_fu
    # dora
    three = rules.players == 3
    dora = 0
    for ind in hand.dora_indicators:
        d = dora_of(ind.index, three)
        dora += all_counts[d] + (hand.nukidora if d == NORTH else 0)
    ura = 0
    if hand.riichi or hand.double_riichi:
        for ind in hand.ura_indicators:
            d = dora_of(ind.index, three)
            ura += all_counts[d] + (hand.nukidora if d == NORTH else 0)
    aka = 0
    if any(rules.red_fives):
        for t in hand.concealed:
            if t.red and rules.red_fives[t.index // 9]:
                aka += 1
        for m in hand.melds:
            for t in m.tiles:
                if t.red and rules.red_fives[t.index // 9]:
                    aka += 1
    f.dora, f.ura, f.aka, f.nuki = dora, ura, aka, hand.nukidora
    return f


# ---------------------------------------------------------------------------- readings
def _waits(shape, win: int):
    """(wait, set position) for every place the winning tile can sit in one shape."""
    pair, seqs, trips = shape
    out = []
    if pair == win:
        out.append((TANKI, -1))
    if win in trips:
        out.append((SHANPON, win))
    seen = -1
    for s in seqs:
        if s <= win <= s + 2 and s != seen:
            seen = s
            pos = win - s
            n = s % 9
            if pos == 1:
                out.append((KANCHAN, s))
            elif (pos == 2 and n == 0) or (pos == 0 and n == 6):
                out.append((PENCHAN, s))
            else:
                out.append((RYANMEN, s))
    return out


class _Best:
    __slots__ = ("key", "shape", "wait", "form", "hits", "han", "fu", "yakuman", "base", "limit", "kazoe",
                 "renhou", "ron_trip", "pinfu")


def score(hand: Hand, rules: Rules) -> Result:
    """Score a validated hand under a rule set (HandError if it is not a winning hand or has no yaku)."""
    notes = _check_rules(hand, rules)
    f = _facts(hand, rules)
    table = _table(rules)
    win = hand.win_tile.index
    tsumo = hand.tsumo
    closed = f.closed
    c = Ctx()
    c.closed = closed
    c.tsumo = tsumo
    c.mask = f.mask
    c.suits = f.suits
    c.conc = f.conc
    c.win = win
    c.seat = f.seat
    c.round = f.round
    c.hand = hand
    c.rules = rules
    c.kans = f.kans
    dora_total = f.dora + f.ura + f.aka + f.nuki
    renhou_mangan = hand.renhou and rules.renhou == "mangan"
    stacking = rules.yakuman_stacking
    best: _Best | None = None

    readings: list[tuple[int, tuple, int, int]] = []  # (form, shape, wait, ron_trip)
    if not hand.melds:
        if is_thirteen_orphans(f.conc):
            readings.append((KOKUSHI, (-1, (), ()), THIRTEEN if f.conc[win] == 2 else TANKI, -1))
        elif is_seven_pairs(f.conc):
            readings.append((CHIITOI, (win, (), ()), TANKI, -1))
    for shape in standard_shapes(f.conc):
        for wait, where in _waits(shape, win):
            readings.append((STANDARD, shape, wait, where if (wait == SHANPON and not tsumo) else -1))
    if not readings:
        raise HandError("not a winning hand: the tiles do not make four sets and a pair, seven different pairs "
                        "or thirteen orphans", "concealed")

    for form, shape, wait, ron_trip in readings:
        pair, seqs, trips = shape
        c.form = form
        c.pair = pair
        c.wait = wait
        c.seqs = seqs + f.meld_seqs if f.meld_seqs else seqs
        c.trips = trips + f.meld_trips if f.meld_trips else trips
        c.ankou = len(trips) - (1 if ron_trip >= 0 else 0) + f.ankans
        c.value_pair = f.value[pair] if pair >= 0 else 0
        # yakuman first: when one holds, normal yaku do not matter
        hits = []
        weight = 0
        for y, w, han in table.yakuman:
            if y.check(c):
                hits.append((y, han, w))
                weight += w
        if hits:
            if not stacking:
                weight = 1
            base = 8000 * weight
            key = (base, 1, 13 * weight, 0)
            fu = 0
            limit = yakuman_limit_name(weight)
            kazoe = False
            han_total = sum(h for _, h, _ in hits) if stacking else 13
            pinfu = False
        else:
            han = 0
            pinfu = False
            for y, hc, ho in table.normal:
                if y.check(c):
                    h = hc if closed else ho
                    if h:
                        hits.append((y, h, 0))
                        han += h
                        if y.key == "pinfu":
                            pinfu = True
            pfu = f.pair_fu[pair] if pair >= 0 else 0
            fu = fu_mod.fu_value(form, closed, tsumo, pinfu, hand.rinshan, pfu, wait, trips, ron_trip, f.meld_fu, rules)
            han_total = han + dora_total if han else 0
            if han_total:
                limit, base, kazoe = limit_and_base(han_total, fu, rules)
            else:
                limit, base, kazoe = None, 0, False
            weight = 1 if kazoe else 0
            key = (base, 0, han_total, fu)
        renhou = False
        if renhou_mangan and not weight and base < 2000:
            renhou, base, limit, key = True, 2000, "mangan", (2000, 0, rules.mangan_han, fu)
        if best is None or key > best.key:
            b = best = _Best()
            b.key, b.shape, b.wait, b.form, b.hits = key, shape, wait, form, hits
            b.han, b.fu, b.yakuman, b.base, b.limit = han_total, fu, weight, base, limit
            b.kazoe, b.renhou, b.ron_trip, b.pinfu = kazoe, renhou, ron_trip, pinfu

    assert best is not None
    if best.base == 0:
        raise HandError("no yaku: the hand needs at least one yaku (dora alone do not count)")
    if hand.robbed_kan == "ankan" and best.form != KOKUSHI:
        raise HandError("only thirteen orphans may rob a closed kan", "robbed_kan")
    return _result(hand, rules, f, best, notes)


def _result(hand: Hand, rules: Rules, f: _Facts, b: _Best, notes: list[str]) -> Result:
    pair, seqs, trips = b.shape
    yaku: list[YakuHit] = []
    if b.renhou:
        k, n, nj = RENHOU_MANGAN
        yaku.append(YakuHit(k, n, nj, rules.mangan_han))
        han = rules.mangan_han
        notes.append("renhou: paid as mangan")
    else:
        for y, h, w in b.hits:
            yaku.append(YakuHit(y.key, y.name, y.name_ja, h, w))
        han = b.han
        if not b.yakuman or b.kazoe:
            for key, n in (("dora", f.dora), ("ura_dora", f.ura), ("aka_dora", f.aka), ("nuki_dora", f.nuki)):
                if n:
                    name, name_ja = DORA_NAMES[key]
                    yaku.append(YakuHit(key, name, name_ja, n))
        if b.yakuman and not b.kazoe and not rules.yakuman_stacking and len(b.hits) > 1:
            notes.append(f"{rules.name}: several yakuman count as one")
    fu_total, details = (b.fu, [])
    if not b.yakuman or b.kazoe:
        fu_total, details = fu_mod.fu_details(
            b.form, f.closed, hand.tsumo, b.pinfu, hand.rinshan, pair, f.pair_fu[pair] if pair >= 0 else 0, b.wait,
            trips, b.ron_trip, f.meld_sets, rules)
    elif b.form != KOKUSHI:
        fu_total, details = fu_mod.fu_details(
            b.form, f.closed, hand.tsumo, False, hand.rinshan, pair, f.pair_fu[pair] if pair >= 0 else 0, b.wait,
            trips, b.ron_trip, f.meld_sets, rules)
    # liability
    liability = None
    pao_base = 0
    liable = None
    if b.yakuman and not b.kazoe and rules.pao:
        keys = [y.key for y, _, _ in b.hits]
        pao_keys, liable, pao_notes = find_liability(keys, hand, pair, rules)
        notes.extend(pao_notes)
        if liable is not None and pao_keys:
            if rules.yakuman_stacking:
                pao_base = 8000 * sum(w for y, _, w in b.hits if y.key in pao_keys)
            else:
                pao_base = b.base
            liability = {"seat": liable, "yakuman": pao_keys, "base_points": pao_base}
            if liable == hand.discarder:
                pass
    payments, points, total = settle(b.base, pao_base, liable, hand.seat_wind == 0, hand.tsumo, hand.seat_wind,
                                     hand.discarder, hand.honba, hand.kyotaku, rules)
    groups = _groups(b, hand)
    return Result(
        han=han, fu=fu_total if (not b.yakuman or b.kazoe or b.form != KOKUSHI) else 0,
        yakuman=b.yakuman, limit=b.limit, points=points, payments=payments, total=total, yaku=yaku,
        fu_details=details, kazoe=b.kazoe, dealer=hand.seat_wind == 0, is_open=not f.closed,
        win="tsumo" if hand.tsumo else "ron", form=("standard", "seven pairs", "thirteen orphans")[b.form],
        groups=groups, wait=WAIT_NAMES[b.wait], base_points=b.base,
        honba_points=hand.honba * rules.honba_points, sticks_points=hand.kyotaku * rules.riichi_stick_points,
        liability=liability, rules=rules.name, players=rules.players, notes=notes)


def _groups(b: _Best, hand: Hand) -> list[str]:
    """The chosen decomposition in MPSZ text: closed sets, the pair, then the melds as given."""
    pair, seqs, trips = b.shape
    if b.form == KOKUSHI:
        return [format_tiles(sorted(hand.concealed, key=lambda t: t.index))]
    if b.form == CHIITOI:
        kinds = sorted({t.index for t in hand.concealed})
        return [format_tiles([TILES[k]] * 2) for k in kinds]
    out = []
    for s in seqs:
        out.append(format_tiles([TILES[s], TILES[s + 1], TILES[s + 2]]))
    for t in trips:
        out.append(format_tiles([TILES[t]] * 3))
    out.append(format_tiles([TILES[pair]] * 2))
    for m in hand.melds:
        out.append(f"{m.kind} {format_tiles(m.tiles)}")
    return out
