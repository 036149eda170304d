"""Liability (pao / 責任払い): who fed the call that made a yakuman certain.

The seat is read from the deciding meld's `from`. Melds are taken to be listed in the order they
were called (first call first; on the table the first call lies rightmost, 新報知 第31条), so the
deciding call is the last listed meld of the yakuman's sets. A caller who knows better states
the seat with the hand's `liable` key. A closed kan is one of the sets like a called one but never
the deciding call (nobody fed it); with a concealed triplet among the sets (not a meld, so when it
was completed is unknown), liability is inferred only from `liable`.
"""
from __future__ import annotations

from .errors import HandError
from .hand import Hand, Meld
from .yaku import DRAGONS, GREEN_MASK, TERMINAL_MASK, WINDS

HONORS = tuple(range(27, 34))


def _open_sets(melds: tuple[Meld, ...], tiles: tuple[int, ...] | None, need: int,
               kinds=("pon", "minkan", "kakan", "ankan"), mask: int | None = None) -> Meld | None:
    """The deciding (last listed) meld when `need` melds of the group complete the yakuman and the
    last one was called: an earlier closed kan is one of the sets (新報知 第67条 "3組目をポン")."""
    chosen = []
    for m in melds:
        if m.kind not in kinds:
            continue
        t = m.first
        if tiles is not None and t not in tiles:
            continue
        if mask is not None and any(not (mask >> x.index) & 1 for x in m.tiles):
            continue
        chosen.append(m)
    return chosen[-1] if len(chosen) == need and chosen[-1].kind != "ankan" else None


def deciding_meld(key: str, hand: Hand, pair: int) -> Meld | None:
    melds = hand.melds
    if key == "daisangen":
        return _open_sets(melds, DRAGONS, 3)
    if key == "daisuushii":
        return _open_sets(melds, WINDS, 4)
    if key == "shousuushii":
        return _open_sets(melds, WINDS, 3) if pair in WINDS else None
    if key == "tsuuiisou":
        return _open_sets(melds, HONORS, 4)
    if key == "chinroutou":
        return _open_sets(melds, None, 4, mask=TERMINAL_MASK)
    if key == "ryuuiisou":
        return _open_sets(melds, None, 4, kinds=("chi", "pon", "minkan", "kakan", "ankan"), mask=GREEN_MASK)
    if key == "suukantsu":
        kans = [m for m in melds if m.is_kan]
        if len(kans) == 4 and kans[-1].kind == "minkan":
            return kans[-1]
        return None
    return None


def find_liability(yakuman_keys: list[str], hand: Hand, pair: int, rules) -> tuple[list[str], str | None, list[str]]:
    """(liable yakuman keys, liable seat, notes)."""
    eligible = [k for k in yakuman_keys if k in rules.pao]
    notes: list[str] = []
    if hand.liable is not None:
        if not eligible:
            raise HandError("no yakuman with liability (pao) in this hand under these rules "
                            f"(pao applies to: {', '.join(rules.pao) or 'nothing'})", "liable")
        return eligible, hand.liable, notes
    by_seat: dict[str, list[str]] = {}
    for key in eligible:
        m = deciding_meld(key, hand, pair)
        if m is None:
            continue
        if m.from_ is None:
            notes.append(f"pao for {key} not applied: the deciding meld {m.to_json()['tiles']} has no 'from' seat")
            continue
        by_seat.setdefault(m.from_, []).append(key)
    if not by_seat:
        return [], None, notes
    seat = next(iter(by_seat))
    if len(by_seat) > 1:
        notes.append(f"several liable seats; liability applied to {seat} only")
    return by_seat[seat], seat, notes

