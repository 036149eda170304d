"""Score one winning hand under one rule set: every reading, the best one, its payments.

A reading is one decomposition of the closed tiles plus one interpretation of the winning tile
(which set or the pair it completed, hence the wait). All readings are scored and the highest
wins (新報知 第60条: the arrangement that scores most must be chosen); ties go to a real
yakuman, then more han, then more fu.
"""
from __future__ import annotations

from functools import lru_cache
from operator import itemgetter

from . import fu as fu_mod
from .checks import check_rules
from .decompose import is_seven_pairs, standard_shapes
from .errors import HandError
from .hand import Hand
from .pao import find_liability
from .payments import limit_and_base, settle, yakuman_limit_name
from .result import Result, YakuHit
from .rules import Rules
from .tiles import DORA_NEXT, DORA_NEXT_3P, NORTH, TILES, format_tiles
from .yaku import (CHIITOI, DORA_NAMES, KANCHAN, KOKUSHI, PENCHAN, RENHOU_MANGAN, RYANMEN, SHANPON,
                   STANDARD, TANKI, THIRTEEN, WAIT_NAMES, YAKU, YAOCHU_MASK as _YAOCHU_MASK, Ctx, compile_gates)


# ---------------------------------------------------------------------------- compiled rule tables
# An entry is (order, yaku, han closed, han open, yakuman weight, its YakuHit closed and open, the yaku's
# check); a yakuman is worth 13 han per weight.
class _Stage:
    """The yaku checked at one stage (once per hand form, or per reading): a compiled gate
    function and, per set of open gates, the entries worth checking (cached)."""

    __slots__ = ("names", "gates", "groups", "cache")

    def __init__(self, groups: dict[str, list]) -> None:
        names = self.names = list(groups)
        self.gates = compile_gates(names)
        self.groups = tuple((1 << i, tuple(groups[n])) for i, n in enumerate(names))
        self.cache: dict[int, tuple] = {}

    def entries(self, c: Ctx) -> tuple:
        sig = self.gates(c)
        hit = self.cache.get(sig)
        if hit is None:
            if len(self.cache) > 4096:
                self.cache.clear()
            hit = self.cache[sig] = tuple(e for bit, group in self.groups if sig & bit for e in group)
        return hit


class _Table:
    """What scoring needs from a rule set, worked out once per Rules object: the yaku stages, the
    value and pair-fu tables of every seat/round wind, the dora successor table and the limits."""

    __slots__ = ("hand", "reading", "winds", "dora_next", "red_allowed", "renhou_mangan", "stacking")

    def __init__(self, hand: _Stage, reading: _Stage, rules: Rules) -> None:
        self.hand, self.reading = hand, reading
        self.winds = tuple(tuple(_winds(seat, rnd, rules.double_wind_pair_fu) for rnd in range(4)) for seat in range(4))
        self.dora_next = DORA_NEXT_3P if rules.players == 3 else DORA_NEXT
        self.red_allowed = tuple(bool(n) for n in rules.red_fives)
        self.renhou_mangan = rules.renhou == "mangan"
        self.stacking = rules.yakuman_stacking


_TABLES: dict[int, tuple[Rules, _Table]] = {}


def _table(rules: Rules) -> _Table:
    """The compiled table of a Rules object (keyed by identity: hashing a dataclass is slow;
    `resolve_rules` hands out one object per rule spec)."""
    hit = _TABLES.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    if len(_TABLES) > 256:
        _TABLES.clear()
    table = _compile(rules)
    _TABLES[id(rules)] = (rules, table)
    return table


def _compile(rules: Rules) -> _Table:
    """The yaku that exist under a rule set, their han there, grouped by gate (table order kept)."""
    hand: dict[str, list] = {}
    reading: dict[str, list] = {}
    for order, y in enumerate(YAKU):
        if y.enabled_by and not getattr(rules, y.enabled_by):
            continue
        if y.is_yakuman:
            weight = y.yakuman if rules.double_yakuman else 1
            han_c, han_o = 13 * weight, 13 * weight if y.han_open else 0
            entry = (order, y, han_c, han_o, weight,
                     YakuHit(y.key, y.name, y.name_ja, han_c, weight), YakuHit(y.key, y.name, y.name_ja, han_o, weight),
                     y.check)
        else:
            han_open = y.han_open if (y.open_needs is None or getattr(rules, y.open_needs)) else 0
            entry = (order, y, y.han, han_open, 0,
                     YakuHit(y.key, y.name, y.name_ja, y.han), YakuHit(y.key, y.name, y.name_ja, han_open), y.check)
        (reading if y.per_reading else hand).setdefault(y.gate, []).append(entry)
    return _Table(_Stage(hand), _Stage(reading), rules)


# ---------------------------------------------------------------------------- the hand's constants
@lru_cache(maxsize=64)
def _winds(seat_wind: int, round_wind: int, double_wind_pair_fu: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(value count per tile, pair fu per tile) for a seat and round wind."""
    seat, rnd = 27 + seat_wind, 27 + round_wind
    value = [0] * 34
    value[31] = value[32] = value[33] = 1
    value[seat] += 1
    value[rnd] += 1
    pair_fu = [2 * v for v in value]
    if seat == rnd:
        pair_fu[seat] = double_wind_pair_fu
    return tuple(value), tuple(pair_fu)


# fu of a triplet-like meld by tile and (concealed + 2 * kan)
_SET_FU = fu_mod.SET_FU


# ---------------------------------------------------------------------------- readings
def _readings(hand: Hand, conc: tuple[int, ...], win: int) -> list[tuple[int, tuple, int, int]]:
    """(form, shape, wait, triplet completed by ron or -1) for every reading of the hand."""
    out = []
    if not hand.melds:
        mask = hand.conc_mask
        if mask == _YAOCHU_MASK:  # every terminal and honor, nothing else: thirteen orphans
            out.append((KOKUSHI, (-1, (), ()), THIRTEEN if conc[win] == 2 else TANKI, -1))
        elif mask.bit_count() == 7 and is_seven_pairs(conc):
            out.append((CHIITOI, (win, (), ()), TANKI, -1))
    ron = not hand.tsumo
    for shape in standard_shapes(conc, hand.conc_mask):
        # every place the winning tile can sit in this shape is one reading
        pair, seqs, trips = shape
        if pair == win:
            out.append((STANDARD, shape, TANKI, -1))
        if win in trips:
            out.append((STANDARD, shape, SHANPON, win if ron else -1))
        seen = -1
        for q in seqs:
            if q <= win <= q + 2 and q != seen:
                seen = q
                pos = win - q
                if pos == 1:
                    wait = KANCHAN
                elif (pos == 2 and q % 9 == 0) or (pos == 0 and q % 9 == 6):
                    wait = PENCHAN
                else:
                    wait = RYANMEN
                out.append((STANDARD, shape, wait, -1))
    return out


_PINFU = next(y for y in YAKU if y.key == "pinfu")
_new_ctx = Ctx.__new__
_ORDER = itemgetter(0)
_WEIGHT = itemgetter(4)
_CLOSED_HIT, _OPEN_HIT = itemgetter(5), itemgetter(6)
# the dora entries of the result by count (shared: a YakuHit is immutable)
_DORA_HITS = {key: tuple(YakuHit(key, *DORA_NAMES[key], n) for n in range(41)) for key in DORA_NAMES}


def _dora_hit(key: str, n: int) -> YakuHit:
    return _DORA_HITS[key][n] if n <= 40 else YakuHit(key, *DORA_NAMES[key], n)


def score(hand: Hand, rules: Rules) -> Result:
    """Score a validated hand under a rule set (HandError if it is not a winning hand or has no yaku)."""
    notes = check_rules(hand, rules)
    hit = _TABLES.get(id(rules))  # _table(rules), inlined
    table = hit[1] if hit is not None and hit[0] is rules else _table(rules)
    win = hand.win_tile.index
    conc = hand.conc_counts
    # what every reading shares: the melds, the winds, the dora
    closed, meld_seqs, meld_trips, meld_sets, kans, ankans = hand.meld_shape
    meld_fu = 0
    for t, concealed, kan in meld_sets:
        meld_fu += _SET_FU[t][concealed + 2 * kan]
    mask = hand.hand_mask
    value, pair_fu = table.winds[hand.seat_wind][hand.round_wind]
    # dora: a tile counts once per indicator pointing at it; set-aside norths count as norths
    dora = ura = aka = 0
    nuki = hand.nukidora
    if hand.dora_indicators:
        nxt = table.dora_next
        counts = hand.hand_counts
        for ind in hand.dora_indicators:
            d = nxt[ind.index]
            dora += counts[d] + (nuki if d == NORTH else 0)
        if hand.ura_indicators and (hand.riichi or hand.double_riichi):
            for ind in hand.ura_indicators:
                d = nxt[ind.index]
                ura += counts[d] + (nuki if d == NORTH else 0)
    reds = hand.hand_reds
    if reds[0] or reds[1] or reds[2]:
        allowed = table.red_allowed
        aka = (reds[0] if allowed[0] else 0) + (reds[1] if allowed[1] else 0) + (reds[2] if allowed[2] else 0)
    readings = _readings(hand, conc, win)
    if not readings:
        raise HandError("not a winning hand: the tiles do not make four sets and a pair, seven different pairs "
                        "or thirteen orphans", "concealed")
    tsumo = hand.tsumo
    c = _new_ctx(Ctx)  # every field the predicates read is set below or per reading
    c.closed = closed
    c.tsumo = tsumo
    c.mask = mask
    c.suits = (mask & 0x1FF > 0) + (mask & 0x3FE00 > 0) + (mask & 0x7FC0000 > 0)
    c.conc = conc
    c.win = win
    c.seat = 27 + hand.seat_wind
    c.round = 27 + hand.round_wind
    c.hand = hand
    c.flags = hand.flag_bits
    c.rules = rules
    c.kans = kans
    dora_total = dora + ura + aka + nuki
    renhou_mangan = hand.renhou and table.renhou_mangan
    rinshan = hand.rinshan
    fu_value = fu_mod.fu_value
    best_key: tuple | None = None
    best: tuple = ()
    per_form: dict[int, tuple] = {}
    hand_stage, reading_stage = table.hand, table.reading
    reading_gates, reading_cache = reading_stage.gates, reading_stage.cache
    hand_gates, hand_cache = hand_stage.gates, hand_stage.cache
    for form, shape, wait, ron_trip in readings:
        pair, seqs, trips = shape
        c.form = form
        c.pair = pair
        c.wait = wait
        c.seqs = seqs + meld_seqs if meld_seqs else seqs
        c.trips = trips + meld_trips if meld_trips else trips
        c.ankou = len(trips) - (ron_trip >= 0) + ankans
        c.value_pair = value[pair] if pair >= 0 else 0
        fixed = per_form.get(form)
        if fixed is None:  # yaku that hold for every reading of this form are checked once
            fixed_hits: list = []
            fixed_han = fixed_w = 0
            entries = hand_cache.get(hand_gates(c))
            if entries is None:
                entries = hand_stage.entries(c)
            for e in entries:  # check the yaku whose gates are open; keep the ones worth han here
                if e[7](c):
                    h = e[2] if closed else e[3]
                    if h:
                        fixed_hits.append(e)
                        if e[4]:
                            fixed_w += e[4]
                        else:
                            fixed_han += h
            fixed = per_form[form] = (fixed_hits, fixed_han, fixed_w)
        hits, han, weight = fixed
        entries = reading_cache.get(reading_gates(c))
        if entries is None:
            entries = reading_stage.entries(c)
        pinfu = False
        for e in entries:  # the same for the per-reading yaku: the innermost loop
            if e[7](c):
                h = e[2] if closed else e[3]
                if h:
                    hits = hits + [e]  # a new list: the form's fixed hits are shared between readings
                    if e[4]:
                        weight += e[4]
                    else:
                        han += h
                        if e[1] is _PINFU:
                            pinfu = True
        pfu = pair_fu[pair] if pair >= 0 else 0
        if weight:
            if not table.stacking:
                weight = 1
            hits = list(filter(_WEIGHT, hits))  # yakuman only
            base = 8000 * weight
            fu = fu_value(form, closed, tsumo, False, rinshan, pfu, wait, trips, ron_trip, meld_fu, rules)
            han = 13 * weight
            key = (base, 1, han, fu)
            limit, kazoe = yakuman_limit_name(weight), False
            pinfu = False
        else:
            fu = fu_value(form, closed, tsumo, pinfu, rinshan, pfu, wait, trips, ron_trip, meld_fu, rules)
            if han:
                han += dora_total
                limit, base, kazoe = limit_and_base(han, fu, rules)
                if kazoe:
                    weight = 1
            else:
                limit, base, kazoe = None, 0, False
            key = (base, 0, han, fu)
        renhou = False
        if renhou_mangan and not weight and base < 2000:
            renhou, base, limit, key = True, 2000, "mangan", (2000, 0, rules.mangan_han, fu)
        if best_key is None or key > best_key:
            best_key = key
            best = (shape, wait, form, hits, han, fu, weight, base, limit, kazoe, renhou, ron_trip, pinfu)

    if best[7] == 0:
        raise HandError("no yaku: the hand needs at least one yaku (dora alone do not count)")
    if hand.robbed_kan == "ankan" and best[2] != KOKUSHI:
        raise HandError("only thirteen orphans may rob a closed kan", "robbed_kan")
    return _result(hand, rules, best, notes, closed, dora, ura, aka, nuki, pair_fu, meld_sets)


def _result(hand: Hand, rules: Rules, best: tuple, notes: list[str], closed: bool, dora: int, ura: int, aka: int,
            nuki: int, pair_fu: tuple[int, ...], meld_sets: tuple) -> Result:
    """The Result of the best reading: yaku in table order then dora, liability, payments."""
    shape, wait, form, hits, han, fu, weight, base, limit, kazoe, renhou, ron_trip, pinfu = best
    pair = shape[0]
    real_yakuman = weight and not kazoe
    if renhou:
        k, n, nj = RENHOU_MANGAN
        yaku = [YakuHit(k, n, nj, rules.mangan_han)]
        han = rules.mangan_han
        notes.append("renhou: paid as mangan")
    else:
        hit_of = _CLOSED_HIT if closed else _OPEN_HIT
        yaku = list(map(hit_of, sorted(hits, key=_ORDER) if len(hits) > 1 else hits))
        if not real_yakuman:
            if dora:
                yaku.append(_dora_hit("dora", dora))
            if ura:
                yaku.append(_dora_hit("ura_dora", ura))
            if aka:
                yaku.append(_dora_hit("aka_dora", aka))
            if nuki:
                yaku.append(_dora_hit("nuki_dora", nuki))
        elif not rules.yakuman_stacking and len(hits) > 1:
            notes.append(f"{rules.name}: several yakuman count as one")
    liability = None
    pao_base = 0
    liable = None
    if (real_yakuman and rules.pao) or hand.liable is not None:
        keys = [e[1].key for e in hits] if real_yakuman else []
        pao_keys, liable, pao_notes = find_liability(keys, hand, pair, rules)
        notes.extend(pao_notes)
        if liable is not None:
            pao_base = (8000 * sum(e[4] for e in hits if e[1].key in pao_keys)) if rules.yakuman_stacking \
                else base
            liability = {"seat": liable, "yakuman": pao_keys, "base_points": pao_base}
    tsumo = hand.tsumo
    dealer = hand.seat_wind == 0
    payments, points, total = settle(base, pao_base, liable, dealer, tsumo, hand.seat_wind,
                                     hand.discarder, hand.honba, hand.kyotaku, rules)
    r = Result.__new__(Result)
    r.han, r.fu, r.yakuman, r.limit, r.points, r.payments, r.total, r.yaku = \
        han, fu, weight, limit, points, payments, total, yaku
    r.kazoe, r.dealer, r.is_open, r.win, r.form, r.wait = \
        kazoe, dealer, not closed, "tsumo" if tsumo else "ron", _FORM_NAMES[form], WAIT_NAMES[wait]
    r.base_points, r.honba_points, r.sticks_points = \
        base, hand.honba * rules.honba_points, hand.kyotaku * rules.riichi_stick_points
    r.liability, r.rules, r.players, r.notes = liability, rules.name, rules.players, notes
    r._fu_details = r._groups = None
    r._detail = (_fu_breakdown, _groups, (form, shape, wait, pinfu, ron_trip, hand, closed, pair_fu, meld_sets, rules))
    return r


def _fu_breakdown(detail: tuple) -> list[dict]:
    """The fu breakdown of the chosen reading (`detail` as `_result` stores it)."""
    form, shape, wait, pinfu, ron_trip, hand, closed, pair_fu, meld_sets, rules = detail
    if form == KOKUSHI:
        return []
    pair, _, trips = shape
    return fu_mod.fu_details(form, closed, hand.tsumo, pinfu, hand.rinshan, pair, pair_fu[pair], wait, trips, ron_trip,
                             meld_sets, rules)[1]


_FORM_NAMES = ("standard", "seven pairs", "thirteen orphans")
_SEQ_TEXT = tuple(format_tiles(TILES[i:i + 3]) if i < 27 and i % 9 < 7 else "" for i in range(34))
_TRIP_TEXT = tuple(format_tiles([t] * 3) for t in TILES)
_PAIR_TEXT = tuple(format_tiles([t] * 2) for t in TILES)


def _groups(detail: tuple) -> list[str]:
    """The chosen decomposition in MPSZ text: closed sets, the pair, then the melds as given."""
    form, (pair, seqs, trips), hand = detail[0], detail[1], detail[5]
    if form == KOKUSHI:
        return [format_tiles(hand.concealed, sort=True)]
    if form == CHIITOI:
        return [_PAIR_TEXT[i] for i in range(34) if hand.conc_counts[i]]
    out = list(map(_SEQ_TEXT.__getitem__, seqs))
    if trips:
        out += map(_TRIP_TEXT.__getitem__, trips)
    out.append(_PAIR_TEXT[pair])
    for m in hand.melds:
        out.append(m._text or m.text)
    return out
