"""Fu (minipoints) of one reading of a hand, with the breakdown a user can check by hand.

20 base; +10 closed ron; +2 tsumo (not for pinfu tsumo; a rinshan win per the rules); sets:
open triplet 2 / 4 (simple / terminal-honor), closed 4 / 8, open kan 8 / 16, closed kan 16 / 32,
a triplet completed by ron counts as open; value pair 2 each (a double-wind pair per the rules);
kanchan, penchan and tanki waits 2. Rounded up to 10. Seven pairs 25 flat; an open hand without
fu won by ron is 30; pinfu tsumo 20.
"""
from __future__ import annotations

from .tiles import TILE_NAMES
from .yaku import CHIITOI, KANCHAN, KOKUSHI, PENCHAN, TANKI, WAIT_NAMES, YAOCHU_MASK


def set_fu(tile: int, concealed: bool, kan: bool) -> int:
    fu = 2
    if (YAOCHU_MASK >> tile) & 1:
        fu = 4
    if concealed:
        fu *= 2
    if kan:
        fu *= 4
    return fu


# fu of a triplet-like set by tile and (concealed + 2 * kan)
SET_FU: tuple[tuple[int, ...], ...] = tuple(tuple(set_fu(t, bool(k & 1), bool(k & 2)) for k in range(4))
                                            for t in range(34))


def _item(fu: int, reason: str) -> dict:
    return {"fu": fu, "reason": reason}


# every breakdown item that can occur, made once; fu_details hands out copies (cheaper than building)
_BASE = _item(20, "base")
_CLOSED_RON = _item(10, "closed ron")
_TSUMO = _item(2, "tsumo")
_OPEN_PINFU = _item(10, "open hand without fu, won by ron (counted as 30)")
_CHIITOI = _item(25, "seven pairs (fixed)")
_PINFU_TSUMO = _item(20, "pinfu tsumo (fixed)")
_CLOSED_TRIP = tuple(_item(SET_FU[t][1], f"closed triplet {TILE_NAMES[t]}") for t in range(34))
_RON_TRIP = tuple(_item(SET_FU[t][0], f"triplet completed by ron (open) {TILE_NAMES[t]}") for t in range(34))
_MELD = tuple(tuple(_item(SET_FU[t][k], f"{kind} {TILE_NAMES[t]}")
                    for k, kind in enumerate(("open triplet", "open triplet", "open kan", "closed kan")))
              for t in range(34))
_WAIT = {w: _item(2, f"{WAIT_NAMES[w]} wait") for w in (KANCHAN, PENCHAN, TANKI)}


def fu_details(form: int, closed: bool, tsumo: bool, pinfu: bool, rinshan: bool, pair: int, pair_fu: int,
               wait: int, conc_trips: tuple[int, ...], ron_trip: int, melds: list[tuple[int, bool, bool]],
               rules) -> tuple[int, list[dict]]:
    """(fu, breakdown) for one reading. `melds` are (tile, concealed, kan) triplet-like melds;
    `ron_trip` is the concealed triplet the ron tile completed (or -1)."""
    if form == CHIITOI:
        return 25, [_CHIITOI.copy()]
    if form == KOKUSHI:
        return 0, []
    out = [_BASE.copy()]
    total = 20
    if closed and not tsumo:
        out.append(_CLOSED_RON.copy())
        total += 10
    if pinfu and tsumo:
        return 20, [_PINFU_TSUMO.copy()]
    for t in conc_trips:
        if t == ron_trip:
            item = _RON_TRIP[t]
            ron_trip = -2  # only one of two identical triplets is the ron one
        else:
            item = _CLOSED_TRIP[t]
        out.append(item.copy())
        total += item["fu"]
    for t, concealed, kan in melds:
        item = _MELD[t][(1 if concealed else 0) + (2 if kan else 0)]
        out.append(item.copy())
        total += item["fu"]
    if pair_fu:
        out.append({"fu": pair_fu, "reason": f"value pair {TILE_NAMES[pair]}"})
        total += pair_fu
    if wait == KANCHAN or wait == PENCHAN or wait == TANKI:
        out.append(_WAIT[wait].copy())
        total += 2
    if tsumo and not pinfu and (not rinshan or rules.rinshan_tsumo_fu):
        out.append(_TSUMO.copy())
        total += 2
    if total == 20 and not closed and not tsumo and rules.open_pinfu_fu:
        out.append(_OPEN_PINFU.copy())
        total = 30
    return -(-total // 10) * 10, out


def fu_value(form: int, closed: bool, tsumo: bool, pinfu: bool, rinshan: bool, pair_fu: int, wait: int,
             conc_trips: tuple[int, ...], ron_trip: int, meld_fu: int, rules) -> int:
    """The fu number alone, for ranking readings on the hot path (same rules as `fu_details`)."""
    if form == CHIITOI:
        return 25
    if form == KOKUSHI:
        return 0
    if pinfu:
        return 20 if tsumo else 30
    total = 20 + meld_fu + pair_fu
    if closed and not tsumo:
        total += 10
    for t in conc_trips:
        if t == ron_trip:
            total += 4 if (YAOCHU_MASK >> t) & 1 else 2
            ron_trip = -2
        else:
            total += 8 if (YAOCHU_MASK >> t) & 1 else 4
    if wait == KANCHAN or wait == PENCHAN or wait == TANKI:
        total += 2
    if tsumo and (not rinshan or rules.rinshan_tsumo_fu):
        total += 2
    if total == 20 and not closed and not tsumo and rules.open_pinfu_fu:
        return 30
    return -(-total // 10) * 10
