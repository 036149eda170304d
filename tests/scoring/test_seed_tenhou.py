"""Preset `tenhou` against its seed: 003_05dc44a1c51e318a.txt (beginner's guide, Tenhou conventions).

Sections cited as in the document: 4章 (yaku list, dora), 5章 2.符計算の方法 (fu), 5章 3.例題
(worked examples), 5章 4.点数計算表 (points tables; images in the source, reproduced here from the
standard table they show), 6章 (liability and other rules). Where the guide says rules vary it
names Tenhou's choice (double-wind pair 4 fu); RULESETS.md fills in the rest for this preset.
Hands default to a non-dealer (South seat, East round) winning by ron.
"""
from __future__ import annotations

import pytest

from scoring import PRESETS, score_json
from tests.scoring.results import han_of, keys, ok
from tests.scoring.handgen import hand, hand_with, hand_with_han

RULES = "tenhou"


# ---------------------------------------------------------------- 5章 3. worked examples

def test_example_1_riichi_tsumo_kanchan_chun_pair_is_30_fu():
    """例題1: 20 base + 2 kanchan + 2 chun pair + 2 tsumo = 26 -> 30 fu."""
    res = ok(hand("234m567p345789s77z", "8s", tsumo=True, riichi=True))
    assert res["fu"] == 30 and sum(d["fu"] for d in res["fu_details"]) == 26
    assert sorted(keys(res)) == ["menzen_tsumo", "riichi"]
    assert res["payments"] == {"left": 1000, "across": 500, "right": 500}  # 2 han 30 fu: 500/1000


def test_example_2_dealer_ron_penchan_haku_pair_9m_triplet_is_50_fu():
    """例題2: East 1, dealer, closed ron: 30 + 2 penchan + 2 haku pair + 8 closed 9m = 42 -> 50 fu."""
    res = ok(hand("999m123p456678s55z", "3p", seat="E", riichi=True))
    assert res["fu"] == 50 and sum(d["fu"] for d in res["fu_details"]) == 42
    assert res["wait"] == "penchan"
    assert res["points"] == 2400  # 1 han 50 fu dealer ron


@pytest.mark.parametrize("win", ["1p", "4p", "7p"])
def test_three_sided_wait_147p_is_two_ryanmen_waits(win):
    """2.符計算: 147p 3-sided wait = two ryanmen waits, 0 fu whichever tile wins (here: pinfu)."""
    res = ok(hand("123m789s55m23456p" + win[0] + "p", win, riichi=True))
    assert res["wait"] == "ryanmen" and res["fu"] == 30
    assert "pinfu" in keys(res) and res["points"] == 2000


@pytest.mark.parametrize("win, wait, fu, points", [
    ("4m", "tanki", 40, 1300),    # 4m: 555m + 44m, tanki 2 fu + closed simple triplet 4
    ("3m", "ryanmen", 30, 2000),  # 3m: 345m + 55m, ryanmen, pinfu
    ("6m", "ryanmen", 30, 2000),
])
def test_tanki_or_ryanmen_depends_on_the_winning_tile(win, wait, fu, points):
    """2.符計算: 4555m waits on 4m (tanki, 2 fu) and 3m/6m (ryanmen, 0 fu)."""
    res = ok(hand("123p789p456s4555m" + win[0] + "m", win, riichi=True))
    assert (res["wait"], res["fu"], res["points"]) == (wait, fu, points)


def test_the_wait_reading_that_scores_more_is_taken():
    """2.符計算: 12334p + 2p is ryanmen (0 fu) or kanchan (2 fu); take the kanchan when it pays.
    30 closed ron + 8 (999m) + 2 (chun pair) = 40, + 2 kanchan = 42 -> 50 fu."""
    res = ok(hand("12334p999m456s77z2p", "2p", riichi=True))
    assert (res["wait"], res["fu"], res["points"]) == ("kanchan", 50, 1600)
    five = ok(hand("12334p999m456s77z5p", "5p", riichi=True))  # 5p: only ryanmen
    assert (five["wait"], five["fu"], five["points"]) == ("ryanmen", 40, 1300)


# ---------------------------------------------------------------- 5章 2. fu rules

def test_shanpon_ron_triplet_counts_as_open_and_is_not_sanankou():
    """三暗刻 / 符計算: two closed triplets + shanpon completed by ron -> open triplet, no sanankou;
    by tsumo it is the third closed triplet."""
    ron = ok(hand("111m999p222456s77s", "2s", riichi=True))
    assert "sanankou" not in keys(ron)
    assert ron["fu"] == 50 and sum(d["fu"] for d in ron["fu_details"]) == 48  # 30 + 8 + 8 + 2
    tsumo = ok(hand("111m999p222456s77s", "2s", tsumo=True, riichi=True))
    assert "sanankou" in keys(tsumo)


def test_four_triplets_shanpon_ron_is_sanankou_toitoi_not_suuankou():
    """四暗刻: シャボ待ちのロンアガリは、三暗刻と対々和の複合 (tsumo: suuankou)."""
    ron = ok(hand("111m999p555z22277s", "2s"))
    assert ron["yakuman"] == 0 and {"sanankou", "toitoi"} <= set(keys(ron))
    tsumo = ok(hand("111m999p555z22277s", "2s", tsumo=True))
    assert keys(tsumo) == ["suuankou"] and tsumo["points"] == 32000


def test_suuankou_tanki_is_a_single_yakuman_on_tenhou():
    """四暗刻: 単騎待ちの場合、ダブル役満扱いとするルールもあります (not Tenhou: RULESETS)."""
    res = ok(hand("111m999p555z2227s7s", "7s"))
    assert res["yakuman"] == 1 and res["points"] == 32000


def test_double_wind_pair_is_4_fu_on_tenhou():
    """雀頭: ダブ東やダブ南を4符とするルールもあります…ネット麻雀「天鳳」は4符扱い.
    Dealer in the East round, EE pair: 30 + 8 (999m) + 4 = 42 -> 50 fu (2 fu would give 40)."""
    res = ok(hand("999m123p456678s11z", "6s", seat="E", riichi=True))
    assert res["fu"] == 50 and res["points"] == 2400


def test_open_pinfu_shape_ron_is_30_fu():
    """例外1: ピンフ形の鳴いてのロンアガりは30符."""
    res = ok(hand("234m567p55s", "2m", "chi 678s left", "chi 345s left"))
    assert res["fu"] == 30 and keys(res) == ["tanyao"] and res["points"] == 1000


def test_seven_pairs_is_25_fu_and_four_of_a_kind_is_not_two_pairs():
    """例外2: チートイツは25符; 七対子: 同一牌四枚で対子2組として扱うことはできない."""
    res = ok(hand("1199m2288p3366s77z", "7z", riichi=True))
    assert res["fu"] == 25 and res["points"] == 3200  # riichi + chiitoitsu, 3 han 25 fu
    bad = score_json(hand("1111m2288p3366s77z", "7z", riichi=True))
    assert bad["error"] and "not a winning hand" in bad["error"]


def test_pinfu_tsumo_is_20_fu():
    """例外3: ピンフツモは20符で固定."""
    res = ok(hand("123m456p12355789s", "1s", tsumo=True))
    assert res["fu"] == 20 and sorted(keys(res)) == ["menzen_tsumo", "pinfu"]
    assert res["payments"] == {"left": 700, "across": 400, "right": 400}


# ---------------------------------------------------------------- 5章 4. points tables
# Non-dealer ron, non-dealer tsumo (non-dealer/dealer pay), dealer ron, dealer tsumo (each pays).
# None = no such hand ("20符の1翻がない", chiitoitsu has no 1 han and no 2 han tsumo).
TABLE = {  # fu: {han: (ko ron, (ko, oya) tsumo, oya ron, oya tsumo all)}
    20: {2: (None, (400, 700), None, 700), 3: (None, (700, 1300), None, 1300),
         4: (None, (1300, 2600), None, 2600)},
    25: {2: (1600, None, 2400, None), 3: (3200, (800, 1600), 4800, 1600), 4: (6400, (1600, 3200), 9600, 3200)},
    30: {1: (1000, (300, 500), 1500, 500), 2: (2000, (500, 1000), 2900, 1000), 3: (3900, (1000, 2000), 5800, 2000),
         4: (7700, (2000, 3900), 11600, 3900)},
    40: {1: (1300, (400, 700), 2000, 700), 2: (2600, (700, 1300), 3900, 1300), 3: (5200, (1300, 2600), 7700, 2600)},
    50: {1: (1600, (400, 800), 2400, 800), 2: (3200, (800, 1600), 4800, 1600), 3: (6400, (1600, 3200), 9600, 3200)},
    60: {1: (2000, (500, 1000), 2900, 1000), 2: (3900, (1000, 2000), 5800, 2000),
         3: (7700, (2000, 3900), 11600, 3900)},
    70: {1: (2300, (600, 1200), 3400, 1200), 2: (4500, (1200, 2300), 6800, 2300)},
    80: {1: (2600, (700, 1300), 3900, 1300), 2: (5200, (1300, 2600), 7700, 2600)},
    90: {1: (2900, (800, 1500), 4400, 1500), 2: (5800, (1500, 2900), 8700, 2900)},
    100: {1: (3200, (800, 1600), 4800, 1600), 2: (6400, (1600, 3200), 9600, 3200)},
    110: {1: (3600, (900, 1800), 5300, 1800), 2: (7100, (1800, 3600), 10600, 3600)},
}
LIMITS = {  # han: (name, ko ron, (ko, oya), oya ron, oya all)
    5: ("mangan", 8000, (2000, 4000), 12000, 4000), 6: ("haneman", 12000, (3000, 6000), 18000, 6000),
    7: ("haneman", 12000, (3000, 6000), 18000, 6000), 8: ("baiman", 16000, (4000, 8000), 24000, 8000),
    10: ("baiman", 16000, (4000, 8000), 24000, 8000), 11: ("sanbaiman", 24000, (6000, 12000), 36000, 12000),
    12: ("sanbaiman", 24000, (6000, 12000), 36000, 12000), 13: ("yakuman", 32000, (8000, 16000), 48000, 16000),
}


def table_cells(table):
    for fu, row in table.items():
        for han, (ko_ron, ko_tsumo, oya_ron, oya_tsumo) in row.items():
            for dealer, tsumo, value in ((False, False, ko_ron), (False, True, ko_tsumo), (True, False, oya_ron),
                                         (True, True, oya_tsumo)):
                if value is not None:
                    kind = f"{'oya' if dealer else 'ko'}-{'tsumo' if tsumo else 'ron'}"
                    yield pytest.param(fu, han, dealer, tsumo, value, id=f"{fu}fu-{han}han-{kind}")


def check_payments(res: dict, dealer: bool, tsumo: bool, value, players: int = 4) -> None:
    """Ron: the discarder pays `value`. Tsumo: (ko, oya) or the dealer's 'all'. Seat South's
    dealer sits on the left; in three-player the North seat (across from South) is empty."""
    if not tsumo:
        assert res["payments"] == {"discarder": value} and res["points"] == value
        return
    if dealer:
        assert sorted(res["payments"].values()) == [value] * (players - 1)
        assert res["points"] == value * (players - 1)
    else:
        ko, oya = value
        assert res["payments"]["left"] == oya
        assert sorted(res["payments"].values()) == sorted([oya] + [ko] * (players - 2))
        assert res["points"] == oya + ko * (players - 2)


@pytest.mark.parametrize("fu, han, dealer, tsumo, value", list(table_cells(TABLE)))
def test_points_table_below_mangan(fu, han, dealer, tsumo, value):
    """4.点数計算表 (4翻以下, チートイツ, 80符以降): every cell, each with a real hand of that fu and han."""
    obj = hand_with(fu, han, tsumo=tsumo, dealer=dealer, rules=RULES)
    if obj is None:  # 110 fu 1 han: no legal hand has it (a third heavy set brings sankantsu or sanankou)
        from scoring.payments import hand_value, limit_and_base
        assert (fu, han) == (110, 1)
        _, base, _ = limit_and_base(han, fu, PRESETS[RULES])
        pays = hand_value(base, dealer, tsumo, 0 if dealer else 1, PRESETS[RULES])
        res = {"payments": pays, "points": sum(pays.values())}
    else:
        res = ok(obj)
        assert (res["han"], res["fu"], res["limit"]) == (han, fu, None)
    check_payments(res, dealer, tsumo, value)


@pytest.mark.parametrize("han", list(LIMITS))
@pytest.mark.parametrize("dealer", [False, True], ids=["ko", "oya"])
@pytest.mark.parametrize("tsumo", [False, True], ids=["ron", "tsumo"])
def test_points_table_from_5_han(han, dealer, tsumo):
    """4.点数計算表 5翻以上: 5 mangan, 6-7 haneman, 8-10 baiman, 11-12 sanbaiman, 13+ (kazoe) yakuman."""
    name, ko_ron, ko_tsumo, oya_ron, oya_all = LIMITS[han]
    res = ok(hand_with_han(han, tsumo=tsumo, dealer=dealer, rules=RULES))
    assert res["han"] == han and res["limit"] == name
    assert res["kazoe"] == (han >= 13) and res["yakuman"] == (1 if han >= 13 else 0)
    value = (oya_all if tsumo else oya_ron) if dealer else (ko_tsumo if tsumo else ko_ron)
    check_payments(res, dealer, tsumo, value)


def test_doubling_fu_is_worth_one_han():
    """点数表を覚えるコツ: 30符2翻 = 60符1翻, 30符3翻 = 60符2翻, 20符/40符 and 25符/50符 alike."""
    for (fu_a, han_a), (fu_b, han_b) in [((30, 2), (60, 1)), ((30, 3), (60, 2)), ((40, 2), (20, 3)),
                                         ((40, 3), (20, 4)), ((50, 2), (25, 3)), ((50, 3), (25, 4))]:
        for dealer in (False, True):
            a = ok(hand_with(fu_a, han_a, tsumo=True, dealer=dealer, rules=RULES))
            b = ok(hand_with(fu_b, han_b, tsumo=True, dealer=dealer, rules=RULES))
            assert (a["fu"], a["han"], b["fu"], b["han"]) == (fu_a, han_a, fu_b, han_b)
            assert a["payments"] == b["payments"]


# ---------------------------------------------------------------- 4章 dora

def test_dora_alone_is_not_a_yaku():
    """ドラについて: ドラだけでアガることはできません (the guide's hand: 3 dora, no yaku)."""
    res = score_json(hand("11234567m", "7m", "chi 345p left", "pon 222s across", dora=["1m"]))
    assert res["error"] and "no yaku" in res["error"]


@pytest.mark.parametrize("indicator, dora_tile", [("9m", "1m"), ("4z", "1z"), ("7z", "5z"), ("3z", "4z"),
                                                   ("5p", "6p")])
def test_dora_is_the_tile_after_the_indicator(indicator, dora_tile):
    """ドラ表示牌とドラの関係: 9の次は1, 北なら東, 中なら白, 西なら北."""
    pair = dora_tile[0] * 2 + dora_tile[1]  # the dora tile as the pair: 2 dora
    obj = hand("234m789p345678s" + pair, "3s", riichi=True, dora=[indicator])
    res = ok(obj)
    assert han_of(res, "dora") == 2
    assert ok({**obj, "dora_indicators": []})["han"] == res["han"] - 2


def test_ura_dora_under_every_indicator_only_for_riichi():
    """裏ドラ: リーチでアガった場合のみ; カンドラの下の牌も裏ドラ."""
    obj = hand("234567p345s66s", "3s", "ankan 9999m", riichi=True, dora=["1z", "2z"], ura=["5s", "8m"])
    res = ok(obj)
    assert han_of(res, "ura_dora") == 2 + 4  # 66s under 5s, 9999m under 8m
    no_riichi = score_json({**obj, "riichi": False})
    assert no_riichi["error"] and "ura" in no_riichi["error"]


def test_red_fives_are_one_dora_each():
    """RULESETS: Tenhou plays one red five in each suit (0m 0p 0s), each a dora."""
    res = ok(hand("340m406p067s22z555z", "2z", riichi=True))
    assert han_of(res, "aka_dora") == 3


# ---------------------------------------------------------------- 4章 yaku (han closed / open)

@pytest.mark.parametrize("name, closed, opened, expect", [
    ("sanshoku", hand("123m123p123s456s99m", "9m", riichi=True),
     hand("123p123s456s99m", "9m", "chi 123m left"), (2, 1)),
    ("ittsu", hand("123456789p234s55z", "5z", riichi=True), hand("456789p234s55z", "5z", "chi 123p left"), (2, 1)),
    ("chanta", hand("123m789p789s444z99m", "9m", riichi=True), hand("789p789s444z99m", "9m", "chi 123m left"), (2, 1)),
    ("junchan", hand("123m789p111789s99m", "9m", riichi=True), hand("789p111789s99m", "9m", "chi 123m left"), (3, 2)),
    ("honitsu", hand("123456789m444z22z", "2z", riichi=True), hand("456789m444z22z", "2z", "chi 123m left"), (3, 2)),
    ("chinitsu", hand("22234456678999s", "3s", riichi=True), hand("22456678999s", "5s", "chi 234s left"), (6, 5)),
])
def test_kuisagari_yaku_lose_one_han_when_open(name, closed, opened, expect):
    """役の一覧: 三色/一通/チャンタ 2翻 (鳴くと1翻), 純チャン/ホンイツ 3翻 (2翻), チンイツ 6翻 (5翻)."""
    assert han_of(ok(closed), name) == expect[0]
    assert han_of(ok(opened), name) == expect[1]


def test_iipeikou_needs_a_closed_hand_even_if_the_pair_of_sequences_is_concealed():
    """イーペーコー: イーペーコー以外の部分を鳴いていて…役になりません."""
    closed = ok(hand("112233m456p789s55p", "5p", riichi=True))
    assert "iipeikou" in keys(closed)
    opened = ok(hand("112233m456p55p", "5p", "chi 789s left", houtei=True))
    assert "iipeikou" not in keys(opened)


def test_ryanpeikou_is_sequences_not_seven_pairs():
    """二盃口: 形の上では七対子ですが…順子として扱われるため、複合しません."""
    res = ok(hand("223344m556677p99s", "9s", riichi=True))
    assert "ryanpeikou" in keys(res) and "chiitoitsu" not in keys(res) and han_of(res, "ryanpeikou") == 3


def test_toitoi_and_honroutou_stay_2_han_open():
    """対々和 鳴いても2翻; 混老頭 鳴いた場合でも2翻, always with toitoi or chiitoitsu."""
    res = ok(hand("999m11z", "1z", "pon 111p left", "pon 999s across", "pon 222z right"))
    assert han_of(res, "toitoi") == 2 and han_of(res, "honroutou") == 2
    pairs = ok(hand("1199m1199p99s1122z", "2z", riichi=True))
    assert {"chiitoitsu", "honroutou"} <= set(keys(pairs))


def test_shousangen_counts_four_han_with_its_dragon_triplets():
    """小三元 4翻: 役自体は2翻ですが…翻牌と合わせて4翻."""
    res = ok(hand("123m456p555z66z", "6z", "pon 777z left"))
    assert han_of(res, "shousangen") == 2 and han_of(res, "haku") == 1 and han_of(res, "chun") == 1
    assert res["han"] == 4


def test_sanankou_counts_closed_kans_but_not_open_ones():
    """三暗刻: 暗槓でも可能ですが、明槓ではいけません."""
    closed = ok(hand("111m999p456s77s", "4s", "ankan 2222z", riichi=True))
    assert "sanankou" in keys(closed)
    opened = ok(hand("111m999p456s77s", "4s", "minkan 2222z left"))
    assert "sanankou" not in keys(opened)


def test_sankantsu_any_kans_and_suukantsu_is_yakuman():
    """三槓子 暗槓、明槓を問わず 2翻; 四槓子 役満 (必ず単騎待ち)."""
    res = ok(hand("234p11z", "1z", "ankan 5555m", "minkan 9999s left", "kakan 7777z across"))
    assert han_of(res, "sankantsu") == 2
    four = ok(hand("11z", "1z", "ankan 5555m", "minkan 9999s left", "kakan 7777z across", "minkan 2222p right"))
    assert four["yakuman"] == 1 and "suukantsu" in keys(four)


@pytest.mark.parametrize("name, obj", [
    ("daisangen", hand("123m11p", "1p", "pon 555z left", "pon 666z across", "pon 777z right")),
    ("daisuushii", hand("11m", "1m", "pon 111z left", "pon 222z across", "pon 333z right", "pon 444z left")),
    ("shousuushii", hand("123m44z", "4z", "pon 111z left", "pon 222z across", "pon 333z right")),
    ("tsuuiisou", hand("11122255577z", "7z", "pon 666z left")),
    ("chinroutou", hand("11m", "1m", "pon 999m left", "pon 111p across", "pon 999s right", "pon 111s left")),
    ("ryuuiisou", hand("223344666s88s666z", "8s", riichi=True)),
    ("ryuuiisou", hand("22334466688822s", "2s", riichi=True)),  # without hatsu
    ("chuuren", hand("11123455678999m", "3m", riichi=True)),
    ("kokushi", hand("19m19p19s12345677z", "1m")),
    ("tenhou", hand("123m456p789s11122z", "2z", seat="E", tsumo=True, tenhou=True)),
    ("chiihou", hand("123m456p789s11122z", "2z", tsumo=True, chiihou=True)),
])
def test_yakuman_are_one_yakuman_each(name, obj):
    """役満: 天和 地和 大三元 大四喜 小四喜 四暗刻 清老頭 四槓子 字一色 緑一色 (發なしも可) 国士 九蓮."""
    res = ok(obj)
    assert name in keys(res) and res["yakuman"] >= 1
    assert all(y.get("yakuman") for y in res["yaku"])  # 役満 absorbs ordinary yaku and dora


@pytest.mark.parametrize("obj, key", [
    (hand("19m19p19s1234567z1m", "1m"), "kokushi_13"),
    (hand("11112345678999m", "1m", riichi=True), "junsei_chuuren"),
    (hand("11m", "1m", "pon 111z left", "pon 222z across", "pon 333z right", "pon 444z left"), "daisuushii"),
])
def test_double_yakuman_hands_are_single_on_tenhou(obj, key):
    """国士13面 / 純正九蓮 / 大四喜: ダブル役満扱いとするルールもあります; Tenhou: single (RULESETS)."""
    res = ok(obj)
    assert key in keys(res) and res["yakuman"] == 1 and res["points"] == 32000


def test_several_yakuman_add_up():
    """RULESETS: on Tenhou yakuman in one hand add up (daisangen + tsuuiisou = 64000)."""
    res = ok(hand("11122z", "2z", "pon 555z left", "pon 666z across", "pon 777z right", discarder="left"))
    assert res["yakuman"] == 2 and res["points"] == 64000


def test_tenhou_not_after_a_kan():
    """天和: 配牌で槓子があり、そのまま槓をして、ツモあがった場合天和にはなりません."""
    res = score_json(hand("123m456p789s22z", "2z", "ankan 1111z", seat="E", tsumo=True, tenhou=True))
    assert res["error"] and "tenhou" in res["error"]


# ---------------------------------------------------------------- 6章 and RULESETS table

def test_daisangen_liability_tsumo_and_ron():
    """責任払い: 3回目のポンでさせた人がパオ; ツモ: パオの人が1人で払う; ロン: 半分ずつ."""
    melds = ("pon 555z left", "pon 666z across", "pon 777z right")
    tsumo = ok(hand("123m11p", "1p", *melds, tsumo=True))
    assert tsumo["payments"] == {"right": 32000} and tsumo["liability"]["seat"] == "right"
    ron = ok(hand("123m11p", "1p", *melds, discarder="across"))
    assert ron["payments"] == {"right": 16000, "across": 16000}


def test_daisuushii_liability_goes_to_the_fourth_wind():
    melds = ("pon 111z left", "pon 222z across", "pon 333z right", "pon 444z across")
    res = ok(hand("11m", "1m", *melds, tsumo=True))
    assert res["payments"] == {"across": 32000}


def test_honba_are_300_each():
    """RULESETS: 300 per honba (ron: the discarder; tsumo: 100 from each)."""
    ron = ok(hand("123m456p789s11122z", "2z", riichi=True, honba=2, kyotaku=1, discarder="right"))
    assert ron["payments"] == {"right": ron["points"] + 600} and ron["total"] == ron["points"] + 600 + 1000
    tsumo = ok(hand("123m456p789s11122z", "2z", riichi=True, honba=2, tsumo=True))
    assert tsumo["payments"] == {"left": 2600 + 200, "across": 1300 + 200, "right": 1300 + 200}


def test_haitei_does_not_count_with_rinshan():
    """RULESETS (tenhou): haitei + rinshan on the same tile -> rinshan only."""
    res = ok(hand("234p567s11z", "1z", "ankan 9999m", "pon 777z left", tsumo=True, rinshan=True, haitei=True))
    assert "rinshan" in keys(res) and "haitei" not in keys(res)


def test_kokushi_cannot_rob_a_closed_kan_on_tenhou():
    res = score_json(hand("19m19p19s12345677z", "1m", chankan=True, robbed_kan="ankan"))
    assert res["error"] and "closed kan" in res["error"]
    assert ok(hand("19m19p19s12345677z", "1m", chankan=True))["yakuman"] == 1  # robbing an added kan is fine


def test_ippatsu_rinshan_chankan_houtei_are_one_han():
    base = dict(riichi=True, dora=["1z"])
    assert han_of(ok(hand("123m456p789s11122z", "2z", ippatsu=True, **base)), "ippatsu") == 1
    assert han_of(ok(hand("123m456p789s11122z", "2z", houtei=True, **base)), "houtei") == 1
    assert han_of(ok(hand("123m456p345789s11z", "3s", chankan=True, **base)), "chankan") == 1
    assert han_of(ok(hand("456p789s11122z", "2z", "ankan 1111m", tsumo=True, rinshan=True)), "rinshan") == 1
