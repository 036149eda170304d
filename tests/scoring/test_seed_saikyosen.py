"""Preset `saikyosen-2022` against its seed: 004_981ecf88ef2c2ab8.txt (麻雀最強戦2022 ルール).

Sections cited by their headings (基本ルール, カン, パオ, アガリ役など, 捕捉事項). The document writes
han without the two ba-zoro ("場ゾロの2飜を除いた表記"), like the engine. Hands default to a
non-dealer ron.
"""
from __future__ import annotations

import pytest

from scoring import score_json
from tests.scoring.results import han_of, keys, ok
from tests.scoring.handgen import hand, hand_with, hand_with_han

RULES = "saikyosen-2022"


def sai(concealed: str, win: str | None = None, *melds: str, **kw) -> dict:
    return hand(concealed, win, *melds, rules=RULES, **kw)


# ---------------------------------------------------------------- アガリ役など: limits, 捕捉事項: kiriage

LIMITS = {5: ("mangan", 8000, 12000), 6: ("haneman", 12000, 18000), 7: ("haneman", 12000, 18000),
          8: ("baiman", 16000, 24000), 10: ("baiman", 16000, 24000), 11: ("sanbaiman", 24000, 36000),
          12: ("sanbaiman", 24000, 36000), 13: ("sanbaiman", 24000, 36000), 14: ("sanbaiman", 24000, 36000)}


@pytest.mark.parametrize("han", list(LIMITS))
@pytest.mark.parametrize("dealer", [False, True], ids=["ko", "oya"])
@pytest.mark.parametrize("tsumo", [False, True], ids=["ron", "tsumo"])
def test_limits_and_no_kazoe(han, dealer, tsumo):
    """満貫 5飜 / 跳満 6飜 / 倍満 8飜 / 三倍満 11飜; ※数え役満はない (13 han stays sanbaiman)."""
    name, ko, oya = LIMITS[han]
    res = ok(hand_with_han(han, tsumo=tsumo, dealer=dealer, red_suits="", rules=RULES))
    assert res["han"] == han and res["limit"] == name and res["yakuman"] == 0 and not res["kazoe"]
    assert res["points"] == (oya if dealer else ko)


@pytest.mark.parametrize("fu, han, dealer, tsumo, payments", [
    (30, 4, False, False, {"discarder": 8000}),                            # 子の7,700は8,000
    (60, 3, False, False, {"discarder": 8000}),
    (30, 4, False, True, {"left": 4000, "across": 2000, "right": 2000}),   # 2,000・3,900は2,000・4,000
    (60, 3, False, True, {"left": 4000, "across": 2000, "right": 2000}),
    (30, 4, True, False, {"discarder": 12000}),                            # 親の11,600は12,000
    (60, 3, True, False, {"discarder": 12000}),
    (30, 4, True, True, {"left": 4000, "across": 4000, "right": 4000}),    # 3,900オールは4,000オール
    (60, 3, True, True, {"left": 4000, "across": 4000, "right": 4000}),
    (40, 4, False, False, {"discarder": 8000}),                            # 満貫 40符~4飜
])
def test_kiriage_mangan(fu, han, dealer, tsumo, payments):
    """捕捉事項: 子の7,700は8,000、2,000・3,900は2,000・4,000、親の11,600は12,000、3,900オールは4,000オールに切り上げる."""
    res = ok(hand_with(fu, han, tsumo=tsumo, dealer=dealer, red_suits="", rules=RULES))
    assert (res["fu"], res["han"], res["limit"]) == (fu, han, "mangan")
    assert res["payments"] == payments


def test_20_and_25_fu_at_4_han_stay_below_mangan():
    """満貫: 20符30符5飜・40符~4飜: pinfu tsumo 4 han (20 fu) and chiitoitsu 4 han (25 fu) are not mangan."""
    pinfu = ok(hand_with(20, 4, tsumo=True, dealer=False, red_suits="", rules=RULES))
    assert pinfu["limit"] is None and pinfu["payments"] == {"left": 2600, "across": 1300, "right": 1300}
    pairs = ok(hand_with(25, 4, tsumo=False, dealer=False, red_suits="", rules=RULES))
    assert pairs["limit"] is None and pairs["points"] == 6400


@pytest.mark.parametrize("dealer, points", [(False, 1600), (True, 2400)])
def test_seven_pairs_base(dealer, points):
    """特種手牌 チートイツ: 2翻…子は1.600点、親は2.400点を基本点とする."""
    res = ok(sai("1199m2288p3366s77z", "7z", seat="E" if dealer else "S"))
    assert (res["han"], res["fu"], res["points"]) == (2, 25, points)


# ---------------------------------------------------------------- 役満

def test_pure_yakuman_combinations_stack():
    """(注)役満は純粋な複合に限り、ダブル、トリプル等認める."""
    res = ok(sai("11122z", "2z", "pon 555z", "pon 666z", "pon 777z"))
    assert res["yakuman"] == 2 and res["points"] == 64000
    winds = ok(sai("55z", "5z", "pon 111z", "pon 222z", "pon 333z", "pon 444z"))
    assert winds["yakuman"] == 2 and winds["points"] == 64000  # daisuushii + tsuuiisou, each single


@pytest.mark.parametrize("obj, key", [
    (sai("19m19p19s1234567z1m", "1m"), "kokushi_13"),
    (sai("111m999p555z2227s7s", "7s"), "suuankou_tanki"),
    (sai("11112345678999p", "1p", riichi=True), "junsei_chuuren"),
    (sai("11m", "1m", "pon 111z", "pon 222z", "pon 333z", "pon 444z"), "daisuushii"),
    (sai("123m44z", "4z", "pon 111z", "pon 222z", "pon 333z"), "shousuushii"),
    (sai("22334466688822s", "2s", riichi=True), "ryuuiisou"),  # 緑一色(發が入ってなくても可)
])
def test_special_waits_are_not_double_yakuman(obj, key):
    """役満 list; double yakuman only from pure combinations, not from 13-wait / tanki / 9-wait / 大四喜."""
    res = ok(obj)
    assert key in keys(res) and res["yakuman"] == 1 and res["points"] == 32000


def test_chiihou_needs_no_calls():
    """地和(チー、ポン、カンのない純粋な子の第1ツモでアガった場合のみ)."""
    ok_res = ok(sai("123m456p789s11122z", "2z", tsumo=True, chiihou=True))
    assert ok_res["yakuman"] == 1
    bad = score_json(sai("456p789s11122z", "2z", "ankan 1111m", tsumo=True, chiihou=True))
    assert bad["error"] and bad["error_field"] == "chiihou"


# ---------------------------------------------------------------- 捕捉事項: fu

def test_double_wind_pair_is_2_fu():
    """連風牌トイツは2符: 30 + 8 (999m) + 2 = 40 fu."""
    res = ok(sai("999m123p456678s11z", "6s", seat="E", riichi=True))
    assert res["fu"] == 40 and res["points"] == 2000


def test_double_wind_triplet_is_2_han():
    """2翻役 連風牌."""
    res = ok(sai("111z234p567s99s", "9s", "pon 777s left", seat="E"))
    assert han_of(res, "seat_wind") + han_of(res, "round_wind") == 2


@pytest.mark.parametrize("tsumo, raw, fu", [(False, 34, 40), (True, 26, 30)])
def test_value_tile_tanki_is_4_fu_by_ron_and_6_by_tsumo(tsumo, raw, fu):
    """役牌の単騎待ちはロンアガリは常に4符、ツモアガリは6符 (pair 2 + tanki 2, + tsumo 2)."""
    res = ok(sai("123m456p789s234s66z", "6z", riichi=True, tsumo=tsumo))
    assert res["fu"] == fu and sum(d["fu"] for d in res["fu_details"]) == raw


def test_rinshan_tsumo_keeps_the_tsumo_fu():
    """リンシャンツモ時、ツモ符は2符: 20 + 32 (9999m) + 8 (111s) + 2 = 62 -> 70 fu."""
    res = ok(sai("111s234p678p55p", "2p", "ankan 9999m", tsumo=True, rinshan=True))
    assert res["fu"] == 70


# ---------------------------------------------------------------- カン, リーチ, dora, honba

def test_rinshan_and_haitei_do_not_stack():
    """カン: 嶺上開花の1翻と海底ツモの1翻とは重複しない."""
    res = ok(sai("234p567s11z", "1z", "ankan 9999m", "pon 777z left", tsumo=True, rinshan=True, haitei=True))
    assert "rinshan" in keys(res) and "haitei" not in keys(res)


def test_no_chankan_on_a_closed_kan_not_even_kokushi():
    """カン: 暗カンにチャンカンは該当しない。国士無双の特例も認めない."""
    res = score_json(sai("19m19p19s12345677z", "1m", chankan=True, robbed_kan="ankan"))
    assert res["error"] and res["error_field"] == "robbed_kan"
    assert ok(sai("19m19p19s12345677z", "1m", chankan=True))["yakuman"] == 1  # an added kan may be robbed


def test_ippatsu_ura_kan_dora():
    """基本ルール: 一発役あり。1翻増し; 表ドラの他に、裏ドラ、カンドラ、カン裏ドラもあり."""
    res = ok(sai("234567p345s66s", "3s", "ankan 9999m", riichi=True, ippatsu=True, dora=["1z", "5s"],
                 ura=["8m", "2z"]))
    assert han_of(res, "ippatsu") == 1
    assert han_of(res, "dora") == 2       # kan dora indicator 5s -> 66s
    assert han_of(res, "ura_dora") == 4   # kan ura 8m -> 9999m


def test_no_red_fives_no_renhou():
    """No red fives in this rule set; 捕捉事項: 流し満貫、人和なし."""
    red = ok(sai("340m456p789s11122z", "2z", riichi=True))
    assert "aka_dora" not in keys(red)
    ren = ok(sai("123m456p789s11122z", "2z", renhou=True))
    assert "renhou" not in keys(ren) and ren["points"] < 8000


def test_honba_300():
    """基本ルール: 本場は1本につき300点."""
    res = ok(sai("123m456p789s11122z", "2z", riichi=True, honba=3, discarder="across"))
    assert res["payments"] == {"across": res["points"] + 900}


# ---------------------------------------------------------------- パオ

def test_pao_daisangen_daisuushii_tsumo_and_ron():
    """パオ: 大三元→三種類目の三元牌をポン(カン)させた場合; 大四喜→四種類目の風牌;
    ツモアガったら責任払い、別の放銃者がいたら折半払い."""
    dragons = ("pon 555z left", "pon 666z across", "minkan 7777z right")
    assert ok(sai("123m11p", "1p", *dragons, tsumo=True))["payments"] == {"right": 32000}
    assert ok(sai("123m11p", "1p", *dragons, discarder="left"))["payments"] == {"right": 16000, "left": 16000}
    winds = ("pon 111z left", "pon 222z across", "pon 333z right", "pon 444z across")
    assert ok(sai("11m", "1m", *winds, tsumo=True))["payments"] == {"across": 32000}


def test_pao_suukantsu_only_for_a_fourth_open_kan():
    """パオ: 四槓子→四種類目を大明カンさせた場合 (an added kan as the fourth: nobody is liable)."""
    melds = ("ankan 5555m", "minkan 9999s left", "kakan 7777z across")
    fed = ok(sai("11z", "1z", *melds, "minkan 2222p right", tsumo=True))
    assert fed["payments"] == {"right": 32000}
    added = ok(sai("11z", "1z", *melds, "kakan 2222p right", tsumo=True))
    assert added["liability"] is None and added["payments"] == {"left": 16000, "across": 8000, "right": 8000}
