"""Preset `sanma` against its seed: 002_5d5a5d132d8c0775.txt (三人麻雀対局ルール).

Sections cited as in the document (1.1.1 対局形式, 1.1.2 役および点数, 3.2 符計算, 3.3 点数表).
Three players sit East, South, West; the North seat is empty, so seen from South the dealer
(East) is on the left and West on the right, and a tsumo is paid by two players only (the
table's "子/親" shares, no one pays the absent North's share).
"""
from __future__ import annotations

import pytest

from scoring import PRESETS, score_json
from tests.scoring.results import han_of, keys, ok
from tests.scoring.handgen import hand, hand_with, hand_with_han

RULES = "sanma"


def sanma(concealed: str, win: str | None = None, *melds: str, **kw) -> dict:
    return hand(concealed, win, *melds, rules=RULES, **kw)


# ---------------------------------------------------------------- 3.3 点数表, every cell

M = "mangan"
TABLE = {  # fu: {han: (子ロン, (子ツモ 子/親), 親ロン, 親ツモ ALL)}; None = "-" in the table
    20: {2: (None, (400, 700), None, 700), 3: (None, (700, 1300), None, 1300), 4: (None, (1300, 2600), None, 2600)},
    25: {2: (1600, None, 2400, None), 3: (3200, (800, 1600), 4800, 1600), 4: (6400, (1600, 3200), 9600, 3200)},
    30: {1: (1000, (300, 500), 1500, 500), 2: (2000, (500, 1000), 2900, 1000), 3: (3900, (1000, 2000), 5800, 2000),
         4: (8000, (2000, 4000), 12000, 4000)},  # 満貫 (3 翻 60 符 / 4 翻 30 符は満貫に切り上げる)
    40: {1: (1300, (400, 700), 2000, 700), 2: (2600, (700, 1300), 3900, 1300), 3: (5200, (1300, 2600), 7700, 2600)},
    50: {1: (1600, (400, 800), 2400, 800), 2: (3200, (800, 1600), 4800, 1600), 3: (6400, (1600, 3200), 9600, 3200)},
    60: {1: (2000, (500, 1000), 2900, 1000), 2: (3900, (1000, 2000), 5800, 2000),
         3: (8000, (2000, 4000), 12000, 4000)},  # 満貫
    70: {1: (2300, (600, 1200), 3400, 1200), 2: (4500, (1200, 2300), 6800, 2300)},
    80: {1: (2600, (700, 1300), 3900, 1300), 2: (5200, (1300, 2600), 7700, 2600)},
    90: {1: (2900, (800, 1500), 4400, 1500), 2: (5800, (1500, 2900), 8700, 2900)},
    100: {1: (3200, (800, 1600), 4800, 1600), 2: (6400, (1600, 3200), 9600, 3200)},
    110: {1: (3600, (900, 1800), 5300, 1800), 2: (7100, (1800, 3600), 10600, 3600)},
}
KIRIAGE = {(30, 4), (60, 3)}
LIMITS = {  # 5 翻 満貫, 6~7 跳満, 8~10 倍満, 11~ 三倍満, 役満
    "mangan": (8000, (2000, 4000), 12000, 4000), "haneman": (12000, (3000, 6000), 18000, 6000),
    "baiman": (16000, (4000, 8000), 24000, 8000), "sanbaiman": (24000, (6000, 12000), 36000, 12000),
    "yakuman": (32000, (8000, 16000), 48000, 16000),
}
LIMIT_OF_HAN = {5: "mangan", 6: "haneman", 7: "haneman", 8: "baiman", 9: "baiman", 10: "baiman",
                11: "sanbaiman", 12: "sanbaiman"}


def cells():
    for fu, row in TABLE.items():
        for han, values in row.items():
            for (dealer, tsumo), value in zip(((False, False), (False, True), (True, False), (True, True)), values):
                if value is not None:
                    kind = f"{'oya' if dealer else 'ko'}-{'tsumo' if tsumo else 'ron'}"
                    yield pytest.param(fu, han, dealer, tsumo, value, id=f"{fu}fu-{han}han-{kind}")


def check_payments(res: dict, dealer: bool, tsumo: bool, value) -> None:
    """Two payers on a tsumo: the dealer pays the 親 share, the other player the 子 share."""
    if not tsumo:
        assert res["payments"] == {"discarder": value} and res["points"] == value
    elif dealer:  # seen from East: South on the right, West across
        assert res["payments"] == {"right": value, "across": value} and res["points"] == 2 * value
    else:  # seen from South: East (dealer) on the left, West on the right
        ko, oya = value
        assert res["payments"] == {"left": oya, "right": ko} and res["points"] == ko + oya


@pytest.mark.parametrize("fu, han, dealer, tsumo, value", list(cells()))
def test_points_table(fu, han, dealer, tsumo, value):
    """3.3 点数表: each cell with a real three-player hand of exactly that fu and han."""
    obj = hand_with(fu, han, tsumo=tsumo, dealer=dealer, players=3, red_suits="ps", rules=RULES)
    if obj is None:  # 110 fu 1 han: no legal hand has it (a third heavy set brings sankantsu or sanankou)
        from scoring.payments import hand_value, limit_and_base
        assert (fu, han) == (110, 1)
        _, base, _ = limit_and_base(han, fu, PRESETS[RULES])
        pays = hand_value(base, dealer, tsumo, 0 if dealer else 1, PRESETS[RULES])
        res = {"payments": dict(pays), "points": sum(pays.values())}
        if not tsumo:
            res["payments"] = {"discarder": res["points"]}
    else:
        res = ok(obj)
        assert (res["han"], res["fu"]) == (han, fu)
        assert res["limit"] == ("mangan" if (fu, han) in KIRIAGE else None)
    check_payments(res, dealer, tsumo, value)


@pytest.mark.parametrize("han", list(LIMIT_OF_HAN))
@pytest.mark.parametrize("dealer", [False, True], ids=["ko", "oya"])
@pytest.mark.parametrize("tsumo", [False, True], ids=["ron", "tsumo"])
def test_points_table_limits(han, dealer, tsumo):
    """3.3 (5 翻以上) and 3.1: 5 満貫, 6~7 跳満, 8~10 倍満, 11~ 三倍満."""
    name = LIMIT_OF_HAN[han]
    ko_ron, ko_tsumo, oya_ron, oya_all = LIMITS[name]
    res = ok(hand_with_han(han, tsumo=tsumo, dealer=dealer, players=3, red_suits="ps", rules=RULES))
    assert res["han"] == han and res["limit"] == name
    check_payments(res, dealer, tsumo, (oya_all if tsumo else oya_ron) if dealer else (ko_tsumo if tsumo else ko_ron))


@pytest.mark.parametrize("dealer", [False, True], ids=["ko", "oya"])
@pytest.mark.parametrize("tsumo", [False, True], ids=["ron", "tsumo"])
def test_kazoe_yakuman_from_13_han(dealer, tsumo):
    """1.1.2(5) 数え役満は 13 翻から採用する; 3.3 役満 32000 / 8000-16000 / 48000 / 16000 ALL."""
    ko_ron, ko_tsumo, oya_ron, oya_all = LIMITS["yakuman"]
    res = ok(hand_with_han(13, tsumo=tsumo, dealer=dealer, players=3, red_suits="ps", rules=RULES))
    assert res["kazoe"] and res["limit"] == "yakuman" and res["han"] == 13
    check_payments(res, dealer, tsumo, (oya_all if tsumo else oya_ron) if dealer else (ko_tsumo if tsumo else ko_ron))


@pytest.mark.parametrize("fu", [40, 50, 60, 70, 80, 90, 100, 110])
def test_four_han_is_mangan_except_pinfu_tsumo_and_seven_pairs(fu):
    """3.2: 4 翻は平和ツモと七対子以外は満貫."""
    res = ok(hand_with(fu, 4, tsumo=False, dealer=False, players=3, red_suits="ps", rules=RULES))
    assert res["limit"] == "mangan" and res["points"] == 8000
    assert ok(hand_with(20, 4, tsumo=True, dealer=False, players=3, red_suits="ps", rules=RULES))["points"] == 3900
    assert ok(hand_with(25, 4, tsumo=False, dealer=False, players=3, red_suits="ps", rules=RULES))["points"] == 6400


# ---------------------------------------------------------------- 1.1.2 役および点数

@pytest.mark.parametrize("obj, key", [
    (sanma("19m19p19s1234567z1m", "1m"), "kokushi_13"),             # 国士無双 13 門待ち
    (sanma("111m999p555z2227s7s", "7s"), "suuankou_tanki"),          # 四暗刻単騎待ち
    (sanma("11112345678999p", "1p", riichi=True), "junsei_chuuren"),  # 純正九蓮宝燈
    (sanma("11m", "1m", "pon 111z left", "pon 222z right", "pon 333z left", "pon 444z right"), "daisuushii"),
])
def test_double_yakuman_hands(obj, key):
    """1.1.2(5): 国士無双 13 門待ち、四暗刻単騎待ち、純正九蓮宝燈、大四喜を 2 倍役満とし…"""
    res = ok(obj)
    assert key in keys(res) and res["yakuman"] == 2 and res["points"] == 64000
    assert res["limit"] == "double yakuman"


def test_pure_yakuman_combinations_add_up():
    """1.1.2(5): 純粋な役満の複合の場合も 2 倍以上の役満を認め、その分点数を加算する.
    Daisuushii (double) + tsuuiisou = triple yakuman; daisangen + tsuuiisou = double."""
    four_winds = ok(sanma("55z", "5z", "pon 111z", "pon 222z", "pon 333z", "pon 444z"))
    assert four_winds["yakuman"] == 3 and four_winds["points"] == 96000
    dragons = ok(sanma("11122z", "2z", "pon 555z", "pon 666z", "pon 777z"))
    assert dragons["yakuman"] == 2 and dragons["points"] == 64000


def test_double_wind_pair_is_2_fu():
    """1.1.2(3) 連風牌による雀頭は 2 符: dealer, East round, EE pair: 30 + 8 + 2 = 40 fu."""
    res = ok(sanma("999m123p456678s11z", "6s", seat="E", riichi=True))
    assert res["fu"] == 40 and res["points"] == 2000


def test_rinshan_win_keeps_the_tsumo_fu():
    """1.1.2(3) / 3.2: 嶺上開花時もツモ符 2 符を加える: 20 + 32 (9m ankan) + 8 (1s) + 2 = 62 -> 70 fu."""
    res = ok(sanma("111s234p678p55p", "2p", "ankan 9999m", tsumo=True, rinshan=True))
    assert res["fu"] == 70 and sorted(keys(res)) == ["menzen_tsumo", "rinshan"]
    assert res["payments"] == {"left": 2300, "right": 1200}  # 2 han 70 fu


def test_kiriage_mangan_for_4_han_30_fu_and_3_han_60_fu():
    """1.1.2(4) 3 翻 60 符および 4 翻 30 符は満貫に切り上げる."""
    for fu, han in KIRIAGE:
        res = ok(hand_with(fu, han, tsumo=False, dealer=True, players=3, red_suits="ps", rules=RULES))
        assert (res["fu"], res["han"], res["limit"], res["points"]) == (fu, han, "mangan", 12000)


@pytest.mark.parametrize("tsumo, payments", [
    (False, {"right": 3200 + 400}),                     # 2 han 50 fu: the discarder pays 200 per honba
    (True, {"left": 2600 + 200, "right": 1300 + 200}),  # 3 han 40 fu: each of the two payers 100 per honba
])
def test_honba_are_200_each(tsumo, payments):
    """1.1.1(4) 1 本場 200 点."""
    res = ok(sanma("123p456p789s11122z", "2z", riichi=True, tsumo=tsumo, honba=2, kyotaku=1,
                   **({} if tsumo else {"discarder": "right"})))
    assert res["payments"] == payments
    assert res["total"] == res["points"] + 400 + 1000


# ---------------------------------------------------------------- 1.1.1 対局形式: tiles, dora, north

@pytest.mark.parametrize("indicator, pair", [("1m", "99m"), ("9m", "11m")])
def test_manzu_indicator_wraps_between_1m_and_9m(indicator, pair):
    """1.1.1(9) ドラ表示牌が萬子の 1 のときは萬子の 9 がドラ (and 9m shows 1m)."""
    res = ok(sanma("234p567p345678s" + pair, "3s", riichi=True, dora=[indicator]))
    assert han_of(res, "dora") == 2


@pytest.mark.parametrize("obj, field", [
    (sanma("123p456p789s11z", "1z", "chi 345s left"), "kind"),          # 1.1.1(10) チーはできない
    (sanma("234m456p789s11122z", "2z", riichi=True), "concealed"),      # 萬子は 2~8 を使用せず
    (sanma("345p456p789s11122z", "2z", riichi=True, dora=["5m"]), "dora_indicators"),
    (sanma("123p456p789s11122z", "2z", seat="N"), "seat_wind"),
])
def test_tiles_and_calls_that_do_not_exist_in_sanma(obj, field):
    res = score_json(obj)
    assert res["error"] and field in (res["error_field"] or "")


def test_set_aside_norths_are_dora_and_north_is_never_a_value_tile():
    """1.1.1(11) 北は抜きドラ; (14) 北を手牌の中で使用することもでき、その際は役牌にはならない."""
    res = ok(sanma("444z123p456p789s11s", "7s", riichi=True, nukidora=1))
    assert "riichi" in keys(res) and not {"seat_wind", "round_wind"} & set(keys(res))
    assert han_of(res, "nuki_dora") == 1
    pair = ok(sanma("123p456p789s234s44z", "4s", riichi=True))
    assert pair["fu"] == 30 and "pinfu" in keys(pair)  # a north pair is worth no fu: still pinfu


def test_rinshan_on_the_replacement_tile_after_a_north():
    """1.1.1(13) 北を抜いたときの嶺上牌に対して嶺上開花を認める (no kan needed)."""
    res = ok(sanma("123p456p789s11122z", "2z", tsumo=True, rinshan=True, nukidora=1))
    assert han_of(res, "rinshan") == 1


@pytest.mark.parametrize("flag, seat", [("tenhou", "E"), ("chiihou", "S")])
def test_no_tenhou_or_chiihou_once_a_north_is_set_aside(flag, seat):
    """1.1.1(12) 北を抜いた時点で天和、地和、ダブルリーチは成立せず (a north set aside before the win
    means the first draw was not a plain win). A double riichi declared before a later north stands."""
    base = sanma("111m999m123p456s11z", "1z", tsumo=True, seat=seat, **{flag: True})
    assert ok(base)["yakuman"] == 1
    res = score_json({**base, "nukidora": 1})
    assert res["error"] and res["error_field"] == flag


def test_ron_on_a_set_aside_north_is_not_chankan():
    """1.1.1(13) 抜いた北でロンアガリできるが、槍槓としての役はつかない."""
    res = score_json(sanma("19m19p19s12356774z", "4z", chankan=True))
    assert res["error"] and "not chankan" in res["error"]
    assert ok(sanma("19m19p19s12356774z", "4z"))["yakuman"] == 1


def test_red_fives_ura_and_kan_dora():
    """1.1.1(15) 赤ドラは、筒子、索子の 5 に 1 枚ずつ; 裏ドラ、槓ドラ、槓裏ドラあり."""
    res = ok(sanma("406p067s234s55p", "2s", "ankan 9999m", riichi=True, dora=["1z", "3z"], ura=["1m", "4s"]))
    assert han_of(res, "aka_dora") == 2
    assert han_of(res, "ura_dora") == 4 + 1  # under 1m (-> 9m): the 9999m kan; under 4s: the red 0s
    assert "dora" not in keys(res)  # indicators 1z, 3z point at 2z and 4z, not in the hand
    red_five_man = score_json(sanma("123p456p789s11122z", "2z", riichi=True, dora=["0m"]))
    assert red_five_man["error"]


# ---------------------------------------------------------------- 1.1.2(6) 包, (7) special yakuman

def test_pao_daisangen_tsumo_ron_and_honba():
    """1.1.2(6) 包は大三元の 3 副露目…ツモアガリの場合は全額支払い、ロンアガリの場合は放銃者と折半;
    積み棒分は包を確定させた対局者が支払う."""
    melds = ("pon 555z left", "pon 666z right", "pon 777z left")
    tsumo = ok(sanma("123p11s", "1s", *melds, tsumo=True, honba=1))
    assert tsumo["payments"] == {"left": 32000 + 200} and tsumo["liability"]["seat"] == "left"
    ron = ok(sanma("123p11s", "1s", *melds, discarder="right", honba=1))
    assert ron["payments"] == {"left": 16000 + 200, "right": 16000}


def test_pao_suukantsu_on_the_fourth_open_kan():
    """1.1.2(6) 四槓子の 4 副露目."""
    res = ok(sanma("11z", "1z", "ankan 9999m", "minkan 2222p left", "kakan 3333s right", "minkan 4444p right",
                   tsumo=True))
    assert res["payments"] == {"right": 32000}


def test_pao_only_for_its_own_yakuman_when_combined():
    """1.1.2(6) 包と別の役満が複合した場合は、包の役満のみ責任払い…別の役満は通常通り."""
    melds = ("pon 555z left", "pon 666z right", "pon 777z left")
    tsumo = ok(sanma("11122z", "2z", *melds, tsumo=True))
    # daisangen 32000 from the liable left; tsuuiisou as a normal tsumo: dealer (left) 16000, right 8000
    assert tsumo["payments"] == {"left": 32000 + 16000, "right": 8000}
    ron = ok(sanma("11122z", "2z", *melds, discarder="right"))
    assert ron["payments"] == {"left": 16000, "right": 16000 + 32000}


def test_kokushi_may_rob_a_closed_kan_and_ryuuiisou_needs_no_hatsu():
    """1.1.2(7) 暗槓による国士無双と發なし緑一色あり."""
    res = ok(sanma("19m19p19s12345677z", "1m", chankan=True, robbed_kan="ankan"))
    assert res["yakuman"] == 1 and "kokushi" in keys(res)
    assert ok(sanma("22334466688822s", "2s", riichi=True))["yakuman"] == 1


def test_tsumo_loss_the_north_share_is_not_paid():
    """RULESETS / 3.3: a non-dealer's mangan tsumo collects 4000 + 2000, not 8000."""
    res = ok(hand_with_han(5, tsumo=True, dealer=False, players=3, red_suits="ps", rules=RULES))
    assert res["payments"] == {"left": 4000, "right": 2000} and res["points"] == 6000
