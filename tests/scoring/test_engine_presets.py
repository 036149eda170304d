"""Each preset's distinctive rules, each on a hand worked from the rule document it comes from
(seeds in ../shared/seeds; RULESETS.md sums them up)."""
import dataclasses

import pytest

from scoring import PRESETS, Rules, resolve_rules, score_json

# riichi, tsumo, chinitsu: 8 han. Tiles 1m..9m x 1 2 3 2 1 1 1 1 2, so one indicator adds
# 2m->3m: 3, 8m->9m: 2, 1m->2m: 2 (shinhouchi and renmei turn over a single indicator).
CHINITSU = {"concealed": "123m234m345m678m99m", "win_tile": "9m", "riichi": True, "win": "tsumo", "seat_wind": "S"}
# riichi, tsumo, pinfu, chinitsu, ittsu: 11 han; 8m->9m adds 3, 1m->2m adds 2, 4m->5m adds 1
BIG = {"concealed": "123456789m234m99m", "win_tile": "9m", "riichi": True, "win": "tsumo", "seat_wind": "S"}
# riichi, pinfu, tanyao + one dora (5m -> 6m): 4 han 30 fu by ron
FOUR_30_RON = {"concealed": "234m567m345p678s55p", "win_tile": "8s", "riichi": True, "dora_indicators": ["5m"]}
# riichi, tsumo, tanyao + one dora, kanchan 7s: 20 + 2 + 2 = 24 -> 4 han 30 fu by tsumo
FOUR_30_TSUMO = {**FOUR_30_RON, "win_tile": "7s", "win": "tsumo"}
DAISANGEN_TSUUIISOU = {"concealed": "111z22z", "win_tile": "2z", "seat_wind": "S", "discarder": "left",
                       "melds": [{"kind": "pon", "tiles": "555z", "from": "left"},
                                 {"kind": "pon", "tiles": "666z", "from": "across"},
                                 {"kind": "pon", "tiles": "777z", "from": "across"}]}
SUUANKOU_TANKI = {"concealed": "111m222p333s444m55z", "win_tile": "5z", "seat_wind": "S"}


def ok(hand, rules):
    out = score_json({**hand, "rules": rules})
    assert out["error"] is None, out["error"]
    return out


def bad(hand, rules):
    out = score_json({**hand, "rules": rules})
    assert out["error"], out
    return out["error_field"], out["error"]


def dora(hand, indicator):
    return {**hand, "dora_indicators": [indicator]}


def test_presets_exist_and_are_small_differences():
    assert set(PRESETS) == {"tenhou", "shinhouchi", "renmei", "sanma", "saikyosen-2022", "mahjong-soul", "m-league",
                            "tenhou-sanma"}
    for name, rules in PRESETS.items():
        assert isinstance(rules, Rules) and rules.name == name
        assert resolve_rules(name) is rules
    for f in dataclasses.fields(Rules):
        assert f.metadata.get("doc"), f.name


def test_overrides_make_a_house_rule():
    house = resolve_rules({"preset": "tenhou", "kiriage": True})
    assert house.kiriage and house.name == "tenhou+custom" and not PRESETS["tenhou"].kiriage
    assert resolve_rules({"preset": "sanma"}) is PRESETS["sanma"]


# ---- tenhou (003 + RULESETS) ---------------------------------------------------------------------
@pytest.mark.parametrize("indicator, han, limit", [("4m", 12, "sanbaiman"), ("1m", 13, "yakuman"),
                                                   ("8m", 14, "yakuman")])
def test_tenhou_kazoe_yakuman(indicator, han, limit):
    out = ok(dora(BIG, indicator), "tenhou")
    assert (out["han"], out["limit"], out["kazoe"]) == (han, limit, limit == "yakuman")
    assert out["points"] == (32000 if limit == "yakuman" else 24000)


def test_tenhou_no_kiriage():
    out = ok({**FOUR_30_RON, "seat_wind": "S"}, "tenhou")
    assert (out["han"], out["fu"], out["points"], out["limit"]) == (4, 30, 7700, None)
    assert ok(FOUR_30_RON, "tenhou")["points"] == 11600


def test_tenhou_yakuman_add_up_but_no_double_hands():
    assert ok(DAISANGEN_TSUUIISOU, "tenhou")["points"] == 64000
    assert ok(SUUANKOU_TANKI, "tenhou")["points"] == 32000


def test_tenhou_haitei_not_with_rinshan():
    hand = {"concealed": "123m456p99m789s", "win_tile": "9s", "win": "tsumo", "rinshan": True, "haitei": True,
            "seat_wind": "W", "melds": [{"kind": "ankan", "tiles": "2222p"}]}
    out = ok(hand, "tenhou")
    assert {y["key"] for y in out["yaku"]} == {"menzen_tsumo", "rinshan"} and "rinshan only" in out["notes"][0]
    both = ok(hand, {"preset": "tenhou", "haitei_with_rinshan": True})
    assert "haitei" in {y["key"] for y in both["yaku"]}


KOKUSHI_ROB_ANKAN = {"concealed": "119m19p19s1234567z", "win_tile": "9m", "chankan": True, "robbed_kan": "ankan",
                     "seat_wind": "S"}


@pytest.mark.parametrize("rules, allowed", [("tenhou", False), ("saikyosen-2022", False), ("m-league", False),
                                            ("renmei", True), ("sanma", True), ("mahjong-soul", True)])
def test_kokushi_robbing_a_closed_kan(rules, allowed):
    # 001 第一条⑫ 暗槓は槍槓出来ない。但し…国士無双…は例外; 002 1.1.2 (7) 暗槓による国土無双;
    # 004 カン: 暗カンにチャンカンは該当しない。国士無双の特例も認めない
    out = score_json({**KOKUSHI_ROB_ANKAN, "rules": rules})
    if allowed:
        assert out["error"] is None and out["yakuman"] == 1
    else:
        assert out["error_field"] == "robbed_kan"


def test_only_kokushi_robs_a_closed_kan():
    field, _ = bad({"concealed": "123m456p789s11z234m", "win_tile": "4m", "chankan": True, "robbed_kan": "ankan"},
                   "renmei")
    assert field == "robbed_kan"


# ---- shinhouchi (000) -----------------------------------------------------------------------------
def test_shinhouchi_one_indicator_no_ura_no_red_no_ippatsu():
    hand = {"concealed": "123m406p789s11z234m", "win_tile": "4m", "riichi": True, "ippatsu": True}
    assert bad({**hand, "dora_indicators": ["1m", "2m"]}, "shinhouchi")[0] == "dora_indicators"  # 第16条 1局に1枚
    assert bad({**hand, "dora_indicators": ["1m"], "ura_indicators": ["2m"]}, "shinhouchi")[0] == "ura_indicators"
    out = ok(hand, "shinhouchi")  # 第51条: no ippatsu in the list of 25 yaku; no red fives in the set
    assert {y["key"] for y in out["yaku"]} == {"riichi"}
    assert any("ippatsu" in n for n in out["notes"]) and any("red fives" in n for n in out["notes"])


# 第59条's 翻 are 第57条②'s (yaku + dora + 2 ba-zoro): 8-9翻 = 6-7 han ハネ満, 10-12翻 = 8-10 han 倍満,
# 13翻以上 = 11+ han 3倍満 with no kazoe: Tenhou's table except that 13+ han stays sanbaiman.
@pytest.mark.parametrize("hand, han, limit, tenhou_limit", [
    (CHINITSU, 8, "baiman", "baiman"),                 # 10翻
    (dora(CHINITSU, "1m"), 10, "baiman", "baiman"),    # 12翻
    (dora(CHINITSU, "2m"), 11, "sanbaiman", "sanbaiman"),  # 13翻以上…3倍満
    (dora(BIG, "1m"), 13, "sanbaiman", "yakuman"),     # no kazoe
    (dora(BIG, "8m"), 14, "sanbaiman", "yakuman"),
])
def test_shinhouchi_limits(hand, han, limit, tenhou_limit):
    out = ok(hand, "shinhouchi")
    assert (out["han"], out["limit"], out["kazoe"]) == (han, limit, False)
    assert out["points"] == {"haneman": 12000, "baiman": 16000, "sanbaiman": 24000}[limit]
    assert ok(hand, "tenhou")["limit"] == tenhou_limit


def test_shinhouchi_seven_han_is_haneman():
    hand = {**CHINITSU, "riichi": False}  # chinitsu + tsumo = 7 han = 9翻: 第59条② 8翻・9翻…ハネ満
    out = ok(hand, "shinhouchi")
    assert out["han"] == 7 and out["limit"] == "haneman"
    assert ok(hand, "tenhou")["limit"] == "haneman"


def test_shinhouchi_yakuman_count_once():
    # 第54条: 役満同士が複合した場合でも、その価値は役満1つ分
    out = ok(DAISANGEN_TSUUIISOU, "shinhouchi")
    assert out["points"] == 32000 and out["yakuman"] == 1


def test_shinhouchi_pao_ron_split():
    # 第67条: 大三元の3組目…ロンアガリされた時は放銃者と折半
    out = ok(DAISANGEN_TSUUIISOU, "shinhouchi")
    assert out["payments"] == {"across": 16000, "left": 16000}


def test_shinhouchi_shousuushii_is_yakuman_and_no_honba():
    hand = {"concealed": "333z44z567m", "win_tile": "7m", "honba": 2, "seat_wind": "S",
            "melds": [{"kind": "pon", "tiles": "111z", "from": "left"}, {"kind": "pon", "tiles": "222z", "from": "left"}]}
    out = ok(hand, "shinhouchi")  # 第52条④② 小四喜
    assert out["yakuman"] == 1 and out["total"] == 32000 and any("honba" in n for n in out["notes"])


# ---- renmei (001) ---------------------------------------------------------------------------------
RENHOU = {"concealed": "123m456p789s11s234m", "win_tile": "4m", "renhou": True, "seat_wind": "S"}


def test_renmei_renhou_is_mangan():
    # 第十二条②(ハ): レンホー…満貫とする。和った手牌が満貫以上であればこれを認める
    out = ok(RENHOU, "renmei")
    assert out["limit"] == "mangan" and out["points"] == 8000 and [y["key"] for y in out["yaku"]] == ["renhou"]
    # worth more on its own (chinitsu closed ron, 6 han): the hand's own value
    own = ok({**RENHOU, "concealed": "123m234m345m678m99m", "win_tile": "9m"}, "renmei")
    assert own["limit"] == "haneman" and own["points"] == 12000
    # no renhou on Tenhou: the hand keeps its own yaku (pinfu) and says so
    tenhou = ok(RENHOU, "tenhou")
    assert [y["key"] for y in tenhou["yaku"]] == ["pinfu"] and any("renhou" in n for n in tenhou["notes"])


@pytest.mark.parametrize("hand, han, limit, tenhou_limit", [
    (dora({**CHINITSU, "riichi": False, "win": "ron"}, "8m"), 8, "baiman", "baiman"),
    (CHINITSU, 8, "baiman", "baiman"),
    (dora(CHINITSU, "1m"), 10, "sanbaiman", "baiman"),   # 三倍満（十二翻以上）= 10 + 2 ba-zoro
    (dora(BIG, "8m"), 14, "sanbaiman", "yakuman"),       # no kazoe: 四倍満（役満貫に限る）
])
def test_renmei_limits(hand, han, limit, tenhou_limit):
    # 001 第十一条②: 満貫（四十符の六翻）ハネ満（八翻以上）倍満（十翻以上）三倍満（十二翻以上）counting 2 ba-zoro han
    out = ok(hand, "renmei")
    assert (out["han"], out["limit"], out["kazoe"]) == (han, limit, False)
    assert ok(hand, "tenhou")["limit"] == tenhou_limit


def test_renmei_haneman_from_6_han():
    # 五翻で満貫、六翻でハネ満 (第十二条 注): closed chinitsu ron is 6 han, open chinitsu 5
    hand = {"concealed": "123m234m345m678m99m", "win_tile": "9m", "seat_wind": "S"}
    assert ok(hand, "renmei")["limit"] == "haneman"
    open_hand = {"concealed": "234m345m99m", "win_tile": "9m", "seat_wind": "S",
                 "melds": [{"kind": "chi", "tiles": "123m", "from": "left"}, {"kind": "chi", "tiles": "678m", "from": "left"}]}
    assert (ok(open_hand, "renmei")["han"], ok(open_hand, "renmei")["limit"]) == (5, "mangan")


@pytest.mark.parametrize("yakuman, hand", [
    ("tsuuiisou", {"concealed": "77z", "win_tile": "7z", "melds": [
        {"kind": "pon", "tiles": "111z", "from": "left"}, {"kind": "pon", "tiles": "222z", "from": "left"},
        {"kind": "pon", "tiles": "555z", "from": "right"}, {"kind": "pon", "tiles": "666z", "from": "across"}]}),
    ("chinroutou", {"concealed": "99s", "win_tile": "9s", "melds": [
        {"kind": "pon", "tiles": "111m", "from": "left"}, {"kind": "pon", "tiles": "999m", "from": "left"},
        {"kind": "pon", "tiles": "111p", "from": "right"}, {"kind": "pon", "tiles": "111s", "from": "across"}]}),
    ("ryuuiisou", {"concealed": "66z", "win_tile": "6z", "melds": [
        {"kind": "chi", "tiles": "234s", "from": "left"}, {"kind": "pon", "tiles": "666s", "from": "left"},
        {"kind": "pon", "tiles": "888s", "from": "right"}, {"kind": "chi", "tiles": "234s", "from": "left"}]}),
])
def test_renmei_wide_pao(yakuman, hand):
    # 001 第七条①: 字一色 四種類目の字牌 / 清老頭 四種類目の老頭牌 / 緑一色 四ツ目の面子
    hand = {**hand, "seat_wind": "S", "win": "tsumo"}
    out = ok(hand, "renmei")
    last = hand["melds"][-1]["from"]
    assert yakuman in out["liability"]["yakuman"] and out["payments"] == {last: 32000}
    assert ok(hand, "tenhou")["liability"] is None


def test_renmei_shousuushii_pao_third_wind():
    # 001 第七条①: 三種類目の風牌をポンさせ一風が雀頭であった場合
    hand = {"concealed": "44z567m", "win_tile": "7m", "seat_wind": "S", "win": "tsumo",
            "melds": [{"kind": "pon", "tiles": "111z", "from": "left"}, {"kind": "pon", "tiles": "222z", "from": "left"},
                      {"kind": "pon", "tiles": "333z", "from": "across"}]}
    assert ok(hand, "renmei")["payments"] == {"across": 32000}
    assert ok(hand, "tenhou")["liability"] is None


def test_renmei_no_ura_no_ippatsu_honba_100_each():
    hand = {"concealed": "123m456p789s11s234m", "win_tile": "4m", "riichi": True, "honba": 1, "win": "tsumo",
            "seat_wind": "S"}
    assert bad({**hand, "dora_indicators": ["1m"], "ura_indicators": ["1p"]}, "renmei")[0] == "ura_indicators"
    out = ok(hand, "renmei")  # 第五条①: 各自百点
    assert out["total"] - out["points"] == 300


# ---- sanma (002) --------------------------------------------------------------------------------
def test_sanma_dora_1m_means_9m():
    hand = {"concealed": "111m999m123p456s11z", "win_tile": "1z", "riichi": True, "dora_indicators": ["1m"]}
    out = ok(hand, "sanma")
    assert {y["key"]: y["han"] for y in out["yaku"]}["dora"] == 3


def test_sanma_red_fives_only_pin_and_sou():
    hand = {"concealed": "111m999m406p456s11z", "win_tile": "1z", "riichi": True}
    assert {y["key"]: y["han"] for y in ok(hand, "sanma")["yaku"]}["aka_dora"] == 1


def test_sanma_kiriage_and_kazoe_and_double_yakuman():
    # 1.1.2 (4) 3翻60符・4翻30符は満貫; (5) 数え役満は13翻から, 四暗刻単騎は2倍役満
    hand = {"concealed": "111m999m123p456s11z", "win_tile": "1z", "riichi": True, "win": "tsumo", "seat_wind": "S",
            "dora_indicators": ["9p"]}  # riichi tsumo dora 1 = 3 han, 50 fu -> 1600/3200 = 6400 (no kiriage needed)
    out = ok(hand, "sanma")
    assert out["han"] == 3
    assert ok({**SUUANKOU_TANKI, "concealed": "111m999p111s999s55z", "win_tile": "5z"}, "sanma")["yakuman"] == 2
    assert ok({**SUUANKOU_TANKI, "concealed": "111m999p111s999s55z", "win_tile": "5z"}, "tenhou-sanma")["yakuman"] == 1


def test_sanma_suukantsu_pao():
    hand = {"concealed": "11z", "win_tile": "1z", "seat_wind": "S", "win": "tsumo", "melds": [
        {"kind": "ankan", "tiles": "9999m"}, {"kind": "minkan", "tiles": "1111p", "from": "left"},
        {"kind": "kakan", "tiles": "2222p", "from": "right"}, {"kind": "minkan", "tiles": "3333s", "from": "left"}]}
    out = ok(hand, "sanma")
    assert out["liability"]["yakuman"] == ["suukantsu"] and out["payments"] == {"left": 32000}
    assert ok(hand, "tenhou-sanma")["liability"] is None


# ---- saikyosen-2022 (004) ------------------------------------------------------------------------
@pytest.mark.parametrize("hand, seat, expected", [
    (FOUR_30_RON, "S", {"discarder": 8000}),                              # 子の7,700は8,000
    (FOUR_30_TSUMO, "S", {"left": 4000, "across": 2000, "right": 2000}),  # 2,000・3,900は2,000・4,000
    (FOUR_30_RON, "E", {"discarder": 12000}),                             # 親の11,600は12,000
    (FOUR_30_TSUMO, "E", {"left": 4000, "across": 4000, "right": 4000}),  # 3,900オールは4,000オール
])
def test_saikyosen_kiriage(hand, seat, expected):
    hand = {**hand, "seat_wind": seat}
    tenhou = ok(hand, "tenhou")
    assert (tenhou["han"], tenhou["fu"], tenhou["limit"]) == (4, 30, None)
    out = ok(hand, "saikyosen-2022")
    assert out["payments"] == expected and out["limit"] == "mangan"


def test_saikyosen_no_kazoe_and_no_double_yakuman():
    assert ok(dora(BIG, "8m"), "saikyosen-2022")["limit"] == "sanbaiman"   # ※ 数え役満はない
    assert ok(SUUANKOU_TANKI, "saikyosen-2022")["yakuman"] == 1          # 純粋な複合に限り
    assert ok(DAISANGEN_TSUUIISOU, "saikyosen-2022")["yakuman"] == 2


def test_saikyosen_seven_pairs_base():
    # 特種手牌 チートイツ: 子は1.600点、親は2.400点を基本点
    hand = {"concealed": "1133m5577p99s1122z", "win_tile": "2z"}
    assert ok({**hand, "seat_wind": "S"}, "saikyosen-2022")["points"] == 1600
    assert ok(hand, "saikyosen-2022")["points"] == 2400


def test_saikyosen_value_tanki_is_4_fu_ron_6_tsumo():
    # 補足事項: 役牌の単騎待ちはロンアガリは常に4符、ツモアガリは6符
    hand = {"concealed": "123m456p789s234m55z", "win_tile": "5z", "riichi": True, "seat_wind": "S"}
    ron = ok(hand, "saikyosen-2022")
    tsumo = ok({**hand, "win": "tsumo"}, "saikyosen-2022")
    pair_and_wait = lambda out: sum(d["fu"] for d in out["fu_details"] if d["reason"] != "base"
                                    and d["reason"] != "closed ron")
    assert pair_and_wait(ron) == 4 and pair_and_wait(tsumo) == 6


def test_saikyosen_suukantsu_pao_only_by_daiminkan():
    melds = [{"kind": "ankan", "tiles": "9999m"}, {"kind": "minkan", "tiles": "1111p", "from": "left"},
             {"kind": "kakan", "tiles": "2222p", "from": "right"}, {"kind": "minkan", "tiles": "3333s", "from": "across"}]
    hand = {"concealed": "11z", "win_tile": "1z", "seat_wind": "S", "win": "tsumo", "melds": melds}
    assert ok(hand, "saikyosen-2022")["payments"] == {"across": 32000}
    last_kakan = {**hand, "melds": [melds[0], melds[1], melds[3], melds[2]]}
    assert ok(last_kakan, "saikyosen-2022")["liability"] is None  # 四種類目を大明カンさせた場合 only


# ---- online / league presets ----------------------------------------------------------------------
def test_mahjong_soul_and_m_league():
    assert ok(SUUANKOU_TANKI, "mahjong-soul")["yakuman"] == 2
    assert ok(SUUANKOU_TANKI, "m-league")["yakuman"] == 1
    assert ok(dora(BIG, "8m"), "mahjong-soul")["kazoe"]
    assert ok(dora(BIG, "8m"), "m-league")["limit"] == "sanbaiman"
    for rules in ("mahjong-soul", "m-league"):
        assert PRESETS[rules].kiriage and PRESETS[rules].red_fives == (1, 1, 1)


def test_a_rule_spec_resolves_to_one_rule_set_and_types_stay_apart():
    # house rules arrive with every hand: the same spec is one Rules object (its yaku table is
    # compiled once), and a cached spec never answers for a different one (true is not 1)
    spec = {"preset": "tenhou", "kiriage": True, "red_fives": [0, 1, 1]}
    first = resolve_rules(spec)
    assert resolve_rules({"preset": "tenhou", "kiriage": True, "red_fives": [0, 1, 1]}) is first
    assert first.kiriage and first.red_fives == (0, 1, 1) and first.name == "tenhou+custom"
    assert resolve_rules({"preset": "tenhou", "kiriage": False, "red_fives": [0, 1, 1]}) is not first
    assert bad(FOUR_30_RON, {"preset": "tenhou", "kiriage": 1})[0] == "rules.kiriage"
    assert ok(FOUR_30_RON, {"preset": "tenhou", "kiriage": True})["limit"] == "mangan"
    assert bad(FOUR_30_RON, {"preset": "tenhou", "kiriage": 1})[0] == "rules.kiriage"
    assert resolve_rules(" Tenhou ") is PRESETS["tenhou"] and resolve_rules("tenhou") is PRESETS["tenhou"]
