"""From han and fu to who pays what: limits, base points, honba, riichi sticks, liability (pao),
3-player tsumo. Seats are relative to the winner: left (kamicha), across (toimen), right
(shimocha); the seat of wind w seen from a winner of wind s is (w - s) mod 4 -> 1 right,
2 across, 3 left.
"""
from __future__ import annotations

from .rules import Rules

SEAT_OF_OFFSET = {1: "right", 2: "across", 3: "left"}
OFFSET_OF_SEAT = {"right": 1, "across": 2, "left": 3}
LIMIT_BASE = {"mangan": 2000, "haneman": 3000, "baiman": 4000, "sanbaiman": 6000}
MULTI_NAMES = {1: "yakuman", 2: "double yakuman", 3: "triple yakuman", 4: "quadruple yakuman",
               5: "quintuple yakuman", 6: "sextuple yakuman"}


def yakuman_limit_name(n: int) -> str:
    return MULTI_NAMES.get(n, f"{n}x yakuman")


def limit_and_base(han: int, fu: int, rules: Rules) -> tuple[str | None, int, bool]:
    """(limit name or None, base points, kazoe) of a hand without yakuman."""
    if rules.kazoe_han is not None and han >= rules.kazoe_han:
        return "yakuman", 8000, True
    if han >= rules.sanbaiman_han:
        return "sanbaiman", 6000, False
    if han >= rules.baiman_han:
        return "baiman", 4000, False
    if han >= rules.haneman_han:
        return "haneman", 3000, False
    if han >= rules.mangan_han:
        return "mangan", 2000, False
    base = fu << (han + 2)
    if base >= 2000 or (rules.kiriage and ((han == 4 and fu == 30) or (han == 3 and fu == 60))):
        return "mangan", 2000, False
    return None, base, False


def ceil100(x: int) -> int:
    return -(-x // 100) * 100


def seat_of_wind(wind: int, winner_wind: int) -> str:
    return SEAT_OF_OFFSET[(wind - winner_wind) % 4]


def absent_seat(winner_wind: int, players: int) -> str | None:
    """In 3-player the north seat is empty; which seat is that, seen from the winner."""
    return seat_of_wind(3, winner_wind) if players == 3 else None


def dealer_seat(winner_wind: int) -> str | None:
    """Where the dealer (East) sits, seen from the winner; None when the winner is the dealer."""
    return None if winner_wind == 0 else seat_of_wind(0, winner_wind)


# (seat, is the dealer's seat) for every paying seat, by (winner wind, players)
_PAYERS = {(w, n): tuple((SEAT_OF_OFFSET[off], (off + w) % 4 == 0) for off in (3, 2, 1)
                         if not (n == 3 and (off + w) % 4 == 3))
           for w in range(4) for n in (3, 4)}


def hand_value(base: int, dealer: bool, tsumo: bool, winner_wind: int, rules: Rules,
               discarder: str = "discarder") -> dict[str, int]:
    """What each seat pays for the hand itself (no honba, no liability)."""
    if not tsumo:
        return {discarder: -(-base * (6 if dealer else 4) // 100) * 100}
    out: dict[str, int] = {}
    extra = 0
    if rules.players == 3 and rules.sanma_tsumo == "split":
        absent_share = 2 * base if dealer else base  # the north seat is never the dealer
        extra = (absent_share + 1) // 2
    for seat, is_east in _PAYERS[(winner_wind, rules.players)]:
        share = 2 * base if (dealer or is_east) else base
        out[seat] = -(-(share + extra) // 100) * 100
    return out


def settle(base: int, pao_base: int, liable: str | None, dealer: bool, tsumo: bool, winner_wind: int,
           discarder: str | None, honba: int, kyotaku: int, rules: Rules) -> tuple[dict[str, int], int, int]:
    """(payments by seat, points, total). `pao_base` is the part of `base` a liable seat answers
    for (0 without liability); honba and riichi sticks follow the rule set."""
    ron_key = discarder or "discarder"
    honba_total = honba * rules.honba_points
    sticks = kyotaku * rules.riichi_stick_points
    if not tsumo and (not pao_base or liable is None):  # the common ron: one payer
        points = -(-base * (6 if dealer else 4) // 100) * 100
        return {ron_key: points + honba_total}, points, points + honba_total + sticks
    if not pao_base or liable is None:
        pay = hand_value(base, dealer, tsumo, winner_wind, rules, ron_key)
        points = sum(pay.values())
        if honba_total:
            n = len(pay)
            each, rest = divmod(honba_total, n)
            first = True
            for seat in pay:
                pay[seat] += each + (rest if first else 0)
                first = False
        return pay, points, points + honba_total + sticks
    pay = {}

    def add(seat: str, amount: int) -> None:
        if amount:
            pay[seat] = pay.get(seat, 0) + amount

    rest = base - pao_base
    pao_value = ceil100(pao_base * (6 if dealer else 4))
    if tsumo:
        add(liable, pao_value)
        if rest:
            for seat, amount in hand_value(rest, dealer, True, winner_wind, rules).items():
                add(seat, amount)
        add(liable, honba_total)
    else:
        if rules.pao_ron == "split":
            half = pao_value // 2  # yakuman values are multiples of 8000: halves stay round
            add(liable, half)
            add(ron_key, pao_value - half)
        else:
            add(liable, pao_value)
        if rest:
            add(ron_key, ceil100(rest * (6 if dealer else 4)))
        add(liable if rules.pao_honba == "liable" else ron_key, honba_total)
    points = sum(pay.values()) - honba_total
    return pay, points, points + honba_total + sticks
