"""Preset `renmei` against its seed: 001_537bb43e3ceb6b8f.txt (公式戦ルール, パッコロ).

Articles cited as 第N条 with their items. The document counts two ba-zoro han into every hand
("二ハン場": mangan = 40 fu 6 han, haneman 8, baiman 10, sanbaiman 12; chiitoitsu 100 fu and
pinfu tsumo 80 fu with no han of their own). The engine reports han without the ba-zoro, the
way every other rule set counts (so `han` + 2 is the document's figure); the points are the same
either way, which is what these tests pin down. Hands default to a non-dealer ron.
"""
from __future__ import annotations

import pytest

from scoring import score_json
from tests.scoring.results import han_of, keys, ok
from tests.scoring.handgen import hand, hand_with, hand_with_han

RULES = "renmei"


def ren(concealed: str, win: str | None = None, *melds: str, **kw) -> dict:
    return hand(concealed, win, *melds, rules=RULES, **kw)


# ---------------------------------------------------------------- 第十一条② limits

LIMITS = {  # han without ba-zoro: (name, 子, 親); the document's han is 2 more
    5: ("mangan", 8000, 12000), 6: ("haneman", 12000, 18000), 7: ("haneman", 12000, 18000),
    8: ("baiman", 16000, 24000), 9: ("baiman", 16000, 24000), 10: ("sanbaiman", 24000, 36000),
    11: ("sanbaiman", 24000, 36000), 12: ("sanbaiman", 24000, 36000), 13: ("sanbaiman", 24000, 36000),
    14: ("sanbaiman", 24000, 36000),
}


@pytest.mark.parametrize("han", list(LIMITS))
@pytest.mark.parametrize("dealer", [False, True], ids=["ko", "oya"])
@pytest.mark.parametrize("tsumo", [False, True], ids=["ron", "tsumo"])
def test_limits(han, dealer, tsumo):
    """第十一条② ハネ満（八翻以上）倍満（十翻以上）三倍満（十二翻以上）四倍満（役満貫に限る）:
    no kazoe yakuman, sanbaiman already from 10 han (12 with ba-zoro)."""
    name, ko, oya = LIMITS[han]
    res = ok(hand_with_han(han, tsumo=tsumo, dealer=dealer, red_suits="", rules=RULES))
    assert res["han"] == han and res["limit"] == name and res["yakuman"] == 0
    assert res["points"] == (oya if dealer else ko)


def test_mangan_is_40_fu_6_han_with_ba_zoro_and_30_fu_is_not_rounded_up():
    """第十一条② 満貫（四十符の六翻）: 40 fu 4 han (+2) is mangan; 30 fu 4 han (+2) is 7700."""
    forty = ok(hand_with(40, 4, tsumo=False, dealer=False, red_suits="", rules=RULES))
    assert (forty["fu"], forty["han"], forty["limit"], forty["points"]) == (40, 4, "mangan", 8000)
    thirty = ok(hand_with(30, 4, tsumo=False, dealer=False, red_suits="", rules=RULES))
    assert (thirty["fu"], thirty["han"], thirty["limit"], thirty["points"]) == (30, 4, None, 7700)


def test_yakuman_do_not_stack():
    """第十二条 役満貫…四倍満（役満貫に限る）; no stacking is described: one yakuman at most."""
    res = ok(ren("11122z", "2z", "pon 555z", "pon 666z", "pon 777z"))
    assert res["yakuman"] == 1 and res["points"] == 32000


# ---------------------------------------------------------------- 第十二条② 特約

@pytest.mark.parametrize("dealer, riichi, payments", [
    (False, False, {"left": 700, "across": 400, "right": 400}),     # 80 fu + 2 ba-zoro = 20 fu 2 han
    (False, True, {"left": 1300, "across": 700, "right": 700}),
    (True, False, {"left": 700, "across": 700, "right": 700}),
])
def test_pinfu_tsumo_is_80_fu_without_han(dealer, riichi, payments):
    """(イ) 自摸八、門前清ピンフの形を自摸ったもの 和り点八十点 (無翻役, but it may win alone)."""
    res = ok(ren("123m456p12355789s", "1s", tsumo=True, riichi=riichi, seat="E" if dealer else "S"))
    assert res["payments"] == payments


@pytest.mark.parametrize("extra, points, limit", [
    ({}, 1600, None),                                    # 100 fu + 2 ba-zoro = 25 fu 2 han
    ({"riichi": True}, 3200, None),
    ({"dora": ["6z"]}, 6400, None),                      # 77z: two dora -> 4 han
    ({"riichi": True, "dora": ["6z"]}, 8000, "mangan"),  # 五翻で満貫
    ({"double_riichi": True, "dora": ["6z"]}, 12000, "haneman"),  # 六翻でハネ満
])
def test_seven_pairs_is_100_fu_without_han(extra, points, limit):
    """(ロ) 七対子 和り点百点; 五翻で満貫、六翻でハネ満、八翻で倍満とする."""
    res = ok(ren("1199m2288p3366s77z", "7z", **extra))
    assert res["points"] == points and res["limit"] == limit


def test_renhou_is_mangan_or_the_hand_itself_if_more():
    """(ハ) レンホー…満貫とする。和った手牌が満貫以上であればこれを認める."""
    small = ok(ren("234m567p234678s55s", "2s", renhou=True))  # tanyao pinfu: 2 han 30 fu
    assert small["points"] == 8000 and small["limit"] == "mangan" and "renhou" in keys(small)
    big = ok(ren("22234456678999s", "3s", renhou=True))         # chinitsu: 6 han haneman
    assert big["points"] == 12000 and big["limit"] == "haneman"
    dealer = score_json(ren("234m567p234678s55s", "2s", renhou=True, seat="E"))
    assert dealer["error"] and dealer["error_field"] == "renhou"


# ---------------------------------------------------------------- 第十条 fu

def test_double_wind_pair_is_2_fu():
    """第十条④(イ) 対子…連風牌 二符 (like any value pair): 30 + 8 + 2 = 40 fu."""
    res = ok(ren("999m123p456678s11z", "6s", seat="E", riichi=True))
    assert res["fu"] == 40 and res["points"] == 2000


@pytest.mark.parametrize("obj, fu", [
    (ren("234p345567s66z", "6z", "ankan 9999m", riichi=True), 70),         # 暗槓子 公九 三十二符
    (ren("234p345567s66z", "6z", "ankan 8888m", riichi=True), 50),         # 中張 暗槓子 十六符
    (ren("234p567s66z", "6z", "pon 555z across", "minkan 9999m left"), 50),  # 公九牌明槓子 十六符
    (ren("999m234p345567s66z", "6z", riichi=True), 50),                     # 公九 暗刻子 八符
    (ren("111m999p222456s77s", "2s", riichi=True), 50),                     # ron shanpon triplet counts open
])
def test_fu_table(obj, fu):
    """第十条 ①副底 二十符 ②門前清栄和 十符 ④和了点 (ロ)(ハ)(ヘ)."""
    assert ok(obj)["fu"] == fu


# ---------------------------------------------------------------- 第十二条④ yaku

@pytest.mark.parametrize("name, closed, opened, expect", [
    ("sanshoku", ren("123m123p123s456s99m", "9m", riichi=True), ren("123p123s456s99m", "9m", "chi 123m left"),
     (2, 1)),
    ("ittsu", ren("123456789p234s55z", "5z", riichi=True), ren("456789p234s55z", "5z", "chi 123p left"), (2, 1)),
    ("chanta", ren("123m789p789s444z99m", "9m", riichi=True), ren("789p789s444z99m", "9m", "chi 123m left"),
     (2, 1)),
    ("honitsu", ren("123456789m444z22z", "2z", riichi=True), ren("456789m444z22z", "2z", "chi 123m left"),
     (3, 2)),
    ("junchan", ren("123m789p111789s99m", "9m", riichi=True), ren("789p111789s99m", "9m", "chi 123m left"),
     (3, 2)),
    ("chinitsu", ren("22234456678999s", "3s", riichi=True), ren("22456678999s", "5s", "chi 234s left"), (6, 5)),
])
def test_yaku_that_lose_a_han_when_open(name, closed, opened, expect):
    """第十二条④ 副露した場合一翻役 / 二翻役 / 五翻役とする."""
    assert han_of(ok(closed), name) == expect[0]
    assert han_of(ok(opened), name) == expect[1]


def test_open_tanyao_and_closed_only_yaku():
    """第十二条④: タンヤオ has no closed-only mark (kuitan); 平和・一盃口・二盃口 are 門前清に限る."""
    res = ok(ren("234m567p55s", "2m", "chi 678s left", "chi 345s left"))
    assert keys(res) == ["tanyao"] and res["points"] == 1000
    opened = score_json(ren("112233m55p", "5p", "chi 789s left", "chi 456p left"))
    assert opened["error"] and "no yaku" in opened["error"]  # iipeikou does not count open


def test_no_ippatsu():
    """第十二条④ lists no 一発: the flag is noted and not counted."""
    res = ok(ren("123m456p789s11122z", "2z", riichi=True, ippatsu=True))
    assert "ippatsu" not in keys(res) and any("ippatsu" in n for n in res["notes"])


@pytest.mark.parametrize("obj, key", [
    (ren("123m44z", "4z", "pon 111z", "pon 222z", "pon 333z"), "shousuushii"),  # 四喜和 一風は雀頭でもよい
    (ren("22334466688822s", "2s", riichi=True), "ryuuiisou"),                   # 発の有無は問わない
    (ren("19m19p19s12345677z", "1m"), "kokushi"),                                # 一つまちでもよい
    (ren("19m19p19s1234567z1m", "1m"), "kokushi_13"),
    (ren("11123455678999m", "3m", riichi=True), "chuuren"),                       # 一つまちでもよい
    (ren("11112345678999m", "1m", riichi=True), "junsei_chuuren"),
    (ren("11z", "1z", "ankan 5555m", "minkan 9999s left", "kakan 7777z across", "minkan 2222p right"),
     "suukantsu"),
])
def test_yakuman_list_single_yakuman(obj, key):
    """第十二条④ 役満貫: each one yakuman (no double yakuman in this rule set)."""
    res = ok(obj)
    assert key in keys(res) and res["yakuman"] == 1 and res["points"] == 32000


# ---------------------------------------------------------------- 第一条⑫ chankan, 第六条 dora, 第五条 honba

def test_only_kokushi_may_rob_a_closed_kan():
    """第一条⑫ 暗槓は槍槓出来ない。但し、国士無双は例外として槍槓を認める."""
    res = ok(ren("19m19p19s12345677z", "1m", chankan=True, robbed_kan="ankan"))
    assert res["yakuman"] == 1
    other = score_json(ren("123m456p345789s11z", "3s", chankan=True, robbed_kan="ankan", riichi=True))
    assert other["error"] and other["error_field"] == "robbed_kan"


def test_no_ura_no_kan_dora_no_red_and_dora_is_not_a_yaku():
    """第六条② 一翻しばりを和る資格はない; ④ 裏ドラ及び槓ドラはない."""
    ura = score_json(ren("123m456p789s11122z", "2z", riichi=True, dora=["1m"], ura=["2m"]))
    assert ura["error"] and ura["error_field"] == "ura_indicators"
    kan = score_json(ren("234p11z", "1z", "ankan 5555m", "pon 777z left", "pon 999s right", dora=["1m", "2m"]))
    assert kan["error"] and kan["error_field"] == "dora_indicators"
    only_dora = score_json(ren("11234567m", "7m", "chi 345p left", "pon 222s across", dora=["1m"]))
    assert only_dora["error"] and "no yaku" in only_dora["error"]
    red = ok(ren("340m456p789s11122z", "2z", riichi=True))
    assert "aka_dora" not in keys(red) and red["notes"]


@pytest.mark.parametrize("tsumo, payments", [
    (True, {"left": 2600 + 200, "across": 1300 + 200, "right": 1300 + 200}),  # each player 100 per honba
    (False, {"right": 3200 + 600}),                                              # 栄和は放銃者が全部払う
])
def test_honba_100_per_player(tsumo, payments):
    """第五条① 積み場…各自百点…自摸和は各家が支払い、栄和は放銃者が全部払う."""
    kw = {} if tsumo else {"discarder": "right"}
    res = ok(ren("123m456p789s11122z", "2z", riichi=True, tsumo=tsumo, honba=2, **kw))
    assert res["payments"] == payments


# ---------------------------------------------------------------- 第七条 パオ

@pytest.mark.parametrize("obj, liable", [
    (ren("123m11p", "1p", "pon 555z left", "pon 666z across", "pon 777z right", tsumo=True), "right"),
    (ren("11m", "1m", "pon 111z left", "pon 222z across", "pon 333z right", "pon 444z left", tsumo=True), "left"),
    (ren("123m44z", "4z", "pon 111z left", "pon 222z right", "pon 333z across", tsumo=True), "across"),
    (ren("77z", "7z", "pon 111z left", "pon 222z right", "pon 555z across", "pon 666z right", tsumo=True), "right"),
    (ren("11s", "1s", "pon 111m left", "pon 999m right", "pon 111p across", "pon 999p left", tsumo=True), "left"),
    (ren("66z", "6z", "chi 234s left", "chi 234s left", "pon 666s across", "pon 888s right", tsumo=True), "right"),
], ids=["daisangen", "daisuushii", "shousuushii-3rd-wind-with-wind-pair", "tsuuiisou-4th-honor",
        "chinroutou-4th-terminal", "ryuuiisou-4th-meld"])
def test_pao_list(obj, liable):
    """第七条① 大三元 三種類目 / 四喜和 四種類目、三種類目で一風が雀頭 / 字一色 四種類目の字牌 /
    清老頭 四種類目の老頭牌 / 緑一色 四ツ目の面子: the feeder pays a tsumo in full."""
    res = ok(obj)
    assert res["yakuman"] == 1
    assert res["payments"] == {liable: 32000} and res["liability"]["seat"] == liable
