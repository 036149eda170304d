"""Checks that need the rule set (the rule-free ones live in `hand.py`).

They raise HandError naming the field for what cannot be (3-player tiles, seats, calls; more red
fives than the set has; kan or ura dora where there are none) and return notes for what is
scored differently than flagged (ippatsu where it is no yaku, haitei with rinshan, …).
"""
from __future__ import annotations

from .errors import HandError
from .hand import Hand
from .payments import absent_seat
from .rules import Rules
from .tiles import NORTH, WIND_NAMES

_MANZU_2_TO_8 = frozenset(range(1, 8))


def check_rules(hand: Hand, rules: Rules) -> list[str]:
    """Rule-set-dependent checks; returns notes for things scored differently than flagged."""
    notes: list[str] = list(hand.notes)
    players = rules.players
    if hand.players is not None and hand.players != players:
        raise HandError(f"rule set {rules.name!r} is for {players} players; choose a {hand.players}-player rule set "
                        f"(e.g. {'sanma or tenhou-sanma' if hand.players == 3 else 'tenhou'})", "players")
    if players == 3:
        check_three_player(hand)
    if hand.nukidora:
        if players != 3:
            raise HandError("nuki-dora (north set aside) exist only in 3-player games", "nukidora")
        if not rules.nukidora:
            raise HandError(f"rule set {rules.name!r} does not set norths aside", "nukidora")
    reds = hand.red_counts
    if reds[0] or reds[1] or reds[2]:
        for s, n in enumerate(reds):
            if n and n > rules.red_fives[s]:
                name = f"0{'mps'[s]}"
                if rules.red_fives[s] == 0:
                    notes.append(f"{rules.name} has no red fives: {name} counted as a plain 5{'mps'[s]}")
                else:
                    raise HandError(f"{n} red {name} but the set has {rules.red_fives[s]}",
                                    _past_red_limit(hand, s, rules.red_fives[s]))
    if len(hand.dora_indicators) > 1 and not rules.kan_dora:
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


def _past_red_limit(hand: Hand, suit: int, allowed: int) -> str:
    """The part of the hand (concealed, then melds in order) whose red fives of `suit` pass `allowed`:
    a meld written 0000p is the error, not the concealed tiles."""
    seen = 0
    parts = [("concealed", hand.concealed)] + [(f"melds[{i}].tiles", m.tiles) for i, m in enumerate(hand.melds)]
    for field, tiles in parts:
        seen += sum(1 for t in tiles if t.red and t.index // 9 == suit)
        if seen > allowed:
            return field
    return "concealed"  # pragma: no cover - called only when the hand holds more than allowed


def check_three_player(hand: Hand) -> None:
    groups = [("concealed", hand.concealed)] + [(f"melds[{i}].tiles", m.tiles) for i, m in enumerate(hand.melds)] \
        + [("dora_indicators", hand.dora_indicators), ("ura_indicators", hand.ura_indicators)]
    for where, group in groups:
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
            raise HandError(f"the {absent} seat is the empty north seat in 3-player "
                            f"(winner {WIND_NAMES[hand.seat_wind]})", where)
    if hand.chankan and hand.win_tile.index == NORTH:
        raise HandError("ron on a set-aside north is allowed but is not chankan", "chankan")
