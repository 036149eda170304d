"""Preset `shinhouchi` against its seed: 000_9fee1330cff1642e.txt (平成版 麻雀新報知ルール).

Articles cited as 第N条 with their item numbers. Hands default to a non-dealer (South seat,
East round) winning by ron.
"""
from __future__ import annotations

import pytest

from scoring import score_json
from tests.scoring.results import han_of, keys, ok
from tests.scoring.handgen import hand, hand_with, hand_with_han

RULES = "shinhouchi"


def shin(concealed: str, win: str | None = None, *melds: str, **kw) -> dict:
    return hand(concealed, win, *melds, rules=RULES, **kw)


# ---------------------------------------------------------------- 第59条 limits

LIMITS = {  # han (yaku + dora): (name, 子, 親); 第57条② counts the 翻 of 第59条 with 2 ba-zoro han more
    5: ("mangan", 8000, 12000),                                                          # 7翻
    6: ("haneman", 12000, 18000), 7: ("haneman", 12000, 18000),                          # 8・9翻
    8: ("baiman", 16000, 24000), 9: ("baiman", 16000, 24000), 10: ("baiman", 16000, 24000),  # 10–12翻
    11: ("sanbaiman", 24000, 36000), 12: ("sanbaiman", 24000, 36000),                    # 13翻以上
    13: ("sanbaiman", 24000, 36000), 14: ("sanbaiman", 24000, 36000),
}


@pytest.mark.parametrize("han", list(LIMITS))
@pytest.mark.parametrize("dealer", [False, True], ids=["ko", "oya"])
@pytest.mark.parametrize("tsumo", [False, True], ids=["ron", "tsumo"])
def test_limits_count_the_two_ba_zoro_han(han, dealer, tsumo):
    """第59条 ①5翻・6翻・7翻…満貫 ②8翻・9翻…ハネ満 ③10翻・11翻・12翻…倍満 ④13翻以上…3倍満, the 翻 being
    第57条②'s count (アガリ役の翻数 + ドラ + 2): haneman from 6 han, baiman 8, sanbaiman 11; no kazoe
    yakuman (13 han and more stay sanbaiman)."""
    name, ko, oya = LIMITS[han]
    res = ok(hand_with_han(han, tsumo=tsumo, dealer=dealer, red_suits="", rules=RULES))
    assert res["han"] == han and res["limit"] == name and res["yakuman"] == 0 and not res["kazoe"]
    assert res["points"] == (oya if dealer else ko)
    if tsumo and not dealer:
        assert res["payments"] == {"left": ko // 2, "across": ko // 4, "right": ko // 4}


def test_yakuman_is_four_times_mangan():
    """第59条 ⑤役満…4倍満 (子3万2千、親4万8千)."""
    assert ok(shin("123m11p", "1p", "pon 555z", "pon 666z", "pon 777z"))["points"] == 32000
    assert ok(shin("123m11p", "1p", "pon 555z", "pon 666z", "pon 777z", seat="E"))["points"] == 48000


@pytest.mark.parametrize("han,fu,limit,points", [
    (4, 40, "mangan", 8000),  # 6翻 (第57条②): 40·2⁶·4 = 10 240 is past 8000 -> 満貫
    (3, 70, "mangan", 8000),  # 5翻: 70·2⁵·4 = 8 960 -> 満貫, the table's first row
    (4, 30, None, 7700),      # 7 680, not past 8000: no kiriage in this rule set
    (3, 60, None, 7700),
])
def test_hands_past_8000_points_are_mangan(han, fu, limit, points):
    """第59条: 得点が子8千点…を超える場合 -> the table, whose first row (5翻 with ba-zoro) is 3 han."""
    res = ok(hand_with(fu, han, tsumo=False, dealer=False, red_suits="", rules=RULES))
    assert (res["han"], res["fu"], res["limit"], res["points"]) == (han, fu, limit, points)


# ---------------------------------------------------------------- 第52-54条 yakuman

def test_several_yakuman_count_as_one():
    """第54条 役満同士が複合した場合でも、その価値は役満1つ分とする."""
    res = ok(shin("11122z", "2z", "pon 555z", "pon 666z", "pon 777z"))
    assert {"daisangen", "tsuuiisou"} <= set(keys(res))
    assert res["yakuman"] == 1 and res["points"] == 32000


def test_yakuman_absorbs_ordinary_yaku_and_dora():
    """第53条 役満が普通役と複合した場合は、すべて吸収したものとする."""
    res = ok(shin("111m999p555z2227s7s", "7s", tsumo=True, dora=["6s"]))
    assert keys(res) == ["suuankou_tanki"] and res["points"] == 32000  # single: no double yakuman here


@pytest.mark.parametrize("obj, key", [
    (shin("123m44z", "4z", "pon 111z", "pon 222z", "pon 333z"), "shousuushii"),      # ④② 小四喜
    (shin("11m", "1m", "pon 111z", "pon 222z", "pon 333z", "pon 444z"), "daisuushii"),  # ④① 大四喜
    (shin("22334466688822s", "2s", riichi=True), "ryuuiisou"),                        # ⑨ (no hatsu needed)
    (shin("19m19p19s1234567z1m", "1m"), "kokushi_13"),                                 # ⑪
    (shin("11123455678999m", "3m", riichi=True), "chuuren"),                            # ⑩
])
def test_yakuman_list(obj, key):
    """第52条: 四喜和 (大四喜・小四喜), 緑一色 (ソウズの2・3・4・6・8および發), 国士無双, 九連宝灯…"""
    res = ok(obj)
    assert key in keys(res) and res["yakuman"] == 1 and res["points"] == 32000


# ---------------------------------------------------------------- 第56条 fu

def test_value_pair_is_2_fu_even_when_it_is_both_winds():
    """第56条②① 雀頭 役牌は2符 (no double for a double wind): 30 + 8 + 2 = 40 fu."""
    res = ok(shin("999m123p456678s11z", "6s", seat="E", riichi=True))
    assert res["fu"] == 40 and res["points"] == 2000


@pytest.mark.parametrize("group, fu", [
    ("anko 888m", 40), ("anko 999m", 50), ("ankan 8888m", 50), ("ankan 9999m", 70),
])
def test_closed_set_fu(group, fu):
    """第56条②③④⑤⑥: 暗刻子 中張 4 / 么九 8, 暗槓子 16 / 32. Base: 30 closed ron + 2 hatsu pair + 2 tanki."""
    kind, tiles = group.split()
    if kind == "anko":
        res = ok(shin(tiles + "234p345567s66z", "6z", riichi=True))
    else:
        res = ok(shin("234p345567s66z", "6z", f"ankan {tiles}", riichi=True))
    assert res["fu"] == fu


@pytest.mark.parametrize("meld, fu", [
    ("pon 888m left", 30), ("pon 999m left", 40), ("minkan 8888m left", 40), ("minkan 9999m left", 50),
])
def test_open_set_fu(meld, fu):
    """第56条②③⑤: 明刻子 中張 2 / 么九 4, 明槓子 8 / 16. Base: 20 + 4 (haku pon) + 2 hatsu pair + 2 tanki."""
    assert ok(shin("234p567s66z", "6z", "pon 555z across", meld))["fu"] == fu


@pytest.mark.parametrize("obj, fu", [
    (shin("123m456p12355789s", "1s", tsumo=True), 20),        # ④〈特例〉ピンフの時はツモアガリでも0符
    (shin("234m567p55s", "2m", "chi 678s left", "chi 345s left"), 30),  # ⑥特例1 メンゼンでない時の20 -> 30
    (shin("1199m2288p3366s77z", "7z", riichi=True), 25),      # ⑦特例2 七対子は25
    (shin("111m999p222456s77s", "2s", riichi=True), 50),      # ③② 双碰 0符 (ron triplet open: 30+8+8+2)
    (shin("999m123p456s789s55s", "5s", riichi=True), 40),     # ③② 単騎は2符: 30 + 8 + 2
])
def test_fu_special_cases(obj, fu):
    assert ok(obj)["fu"] == fu


def test_the_arrangement_that_scores_most_is_chosen():
    """第60条 メンツ構成を考えて点数が最大になるように計算しなければならない (kanchan over ryanmen)."""
    res = ok(shin("12334p999m456s77z2p", "2p", riichi=True))
    assert (res["wait"], res["fu"], res["points"]) == ("kanchan", 50, 1600)


def test_dealer_ron_pays_three_times_b():
    """第57条④ / 第58条②② 親のロン: Bの3倍 (1 han 30 fu: B = 480, x3 = 1440 -> 1500)."""
    res = ok(shin("123m456p12355789s", "1s", seat="E"))  # pinfu only
    assert (res["han"], res["fu"], res["points"]) == (1, 30, 1500)


# ---------------------------------------------------------------- 第51条 yaku

@pytest.mark.parametrize("name, closed, opened, expect", [
    ("sanshoku", shin("123m123p123s456s99m", "9m", riichi=True), shin("123p123s456s99m", "9m", "chi 123m left"),
     (2, 1)),
    ("ittsu", shin("123456789p234s55z", "5z", riichi=True), shin("456789p234s55z", "5z", "chi 123p left"), (2, 1)),
    ("chanta", shin("123m789p789s444z99m", "9m", riichi=True), shin("789p789s444z99m", "9m", "chi 123m left"),
     (2, 1)),
    ("junchan", shin("123m789p111789s99m", "9m", riichi=True), shin("789p111789s99m", "9m", "chi 123m left"),
     (3, 2)),
    ("honitsu", shin("123456789m444z22z", "2z", riichi=True), shin("456789m444z22z", "2z", "chi 123m left"),
     (3, 2)),
    ("chinitsu", shin("22234456678999s", "3s", riichi=True), shin("22456678999s", "5s", "chi 234s left"), (6, 5)),
])
def test_kuisagari(name, closed, opened, expect):
    """第51条 ⑬⑭⑮ 2翻 (食い下がり), ㉓㉔ 3翻 (食い下がり), ㉖ 6翻 (食い下がり)."""
    assert han_of(ok(closed), name) == expect[0]
    assert han_of(ok(opened), name) == expect[1]


@pytest.mark.parametrize("obj, key, han", [
    (shin("111m111p111s234p55z", "5z", riichi=True), "sanshoku_doukou", 2),  # ⑯
    (shin("999m11z", "1z", "pon 111p", "pon 999s", "pon 444z"), "toitoi", 2),     # ⑰
    (shin("111m999p222s456p77s", "7s", riichi=True), "sanankou", 2),            # ⑲
    (shin("234p11z", "1z", "ankan 5555m", "minkan 9999s left", "kakan 7777z across"), "sankantsu", 2),  # ⑳
    (shin("999m11z", "1z", "pon 111p", "pon 999s", "pon 444z"), "honroutou", 2),  # ㉑
    (shin("223344m556677p99s", "9s", riichi=True), "ryanpeikou", 3),             # ㉒
    (shin("123m456p555z66z", "6z", "pon 777z left"), "shousangen", 2),           # ㉕ (+2 dragon triplets = 4)
    (shin("123m456p789s11122z", "2z", double_riichi=True), "double_riichi", 2),  # ⑪
    (shin("1199m2288p3366s77z", "7z"), "chiitoitsu", 2),                         # ⑫
])
def test_yaku_han(obj, key, han):
    res = ok(obj)
    assert han_of(res, key) == han
    if key == "shousangen":
        assert res["han"] == 4


def test_chanta_needs_a_sequence():
    """第51条⑮ チャンタ: 4メンツ（ただし、最低1組はシユンツがあること）: all triplets -> honroutou, not chanta."""
    res = ok(shin("999m11z", "1z", "pon 111p", "pon 999s", "pon 444z"))
    assert "chanta" not in keys(res) and "honroutou" in keys(res)


def test_haitei_is_not_counted_on_a_replacement_tile():
    """第51条⑧ その牌がリンシャン牌の場合は、この役とはならない."""
    res = ok(shin("234p567s11z", "1z", "ankan 9999m", "pon 777z left", tsumo=True, rinshan=True, haitei=True))
    assert "rinshan" in keys(res) and "haitei" not in keys(res)


def test_no_ippatsu_no_renhou():
    """第51条 lists 25 ordinary yaku without 一発, and 第52条 has no 人和: flags are noted, not counted."""
    res = ok(shin("123m456p789s11122z", "2z", riichi=True, ippatsu=True))
    assert "ippatsu" not in keys(res) and any("ippatsu" in n for n in res["notes"])
    ren = ok(shin("123m456p789s11122z", "2z", renhou=True, dora=["1z"]))
    assert "renhou" not in keys(ren) and ren["points"] < 8000


# ---------------------------------------------------------------- dora, honba, liability

def test_one_dora_indicator_no_ura_no_red_fives():
    """第16条 ドラ表示牌は1局に1枚 (no kan dora, no ura dora); 第1条 136 tiles (no red fives)."""
    two = score_json(shin("234p11z", "1z", "ankan 5555m", "pon 777z left", "pon 999s right", dora=["1m", "2m"]))
    assert two["error"] and two["error_field"] == "dora_indicators"
    ura = score_json(shin("123m456p789s11122z", "2z", riichi=True, dora=["1m"], ura=["2m"]))
    assert ura["error"] and ura["error_field"] == "ura_indicators"
    red = ok(shin("340m456p789s11122z", "2z", riichi=True))
    plain = ok(shin("345m456p789s11122z", "2z", riichi=True))
    assert red["points"] == plain["points"] and "aka_dora" not in keys(red) and red["notes"]


def test_honba_pay_nothing():
    """No honba payment is described (第22条 renchan only): honba counters add nothing."""
    res = ok(shin("123m456p789s11122z", "2z", riichi=True, honba=3, discarder="left"))
    assert res["payments"] == {"left": res["points"]} and res["total"] == res["points"]


def test_pao_daisangen_and_daisuushii():
    """第67条 大三元の3組目、大四喜の4組目をポン…ツモは全額を、ロンは放銃者と折半."""
    dragons = ("pon 555z left", "pon 666z across", "pon 777z right")
    assert ok(shin("123m11p", "1p", *dragons, tsumo=True))["payments"] == {"right": 32000}
    assert ok(shin("123m11p", "1p", *dragons, discarder="left"))["payments"] == {"right": 16000, "left": 16000}
    winds = ("pon 111z left", "pon 222z across", "pon 333z right", "pon 444z across")
    assert ok(shin("11m", "1m", *winds, tsumo=True))["payments"] == {"across": 32000}
    # only those two: shousuushii fed by the third wind is paid normally
    small = ok(shin("123m44z", "4z", "pon 111z left", "pon 222z across", "pon 333z right", tsumo=True))
    assert small["liability"] is None and small["payments"] == {"left": 16000, "across": 8000, "right": 8000}
