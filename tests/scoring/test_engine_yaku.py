"""Every yaku of the table, each on a hand where it is (and what else is) expected."""
import pytest

from scoring import score_json
from scoring.yaku import YAKU


def pon(t, src="across"):
    return {"kind": "pon", "tiles": t[0] * 3 + t[1], "from": src}


def kan(t, kind="minkan", src="right"):
    m = {"kind": kind, "tiles": t[0] * 4 + t[1]}
    if kind != "ankan":
        m["from"] = src
    return m


def yaku_of(hand, rules="tenhou"):
    out = score_json({**hand, "rules": rules})
    assert out["error"] is None, out["error"]
    return {y["key"]: y["han"] for y in out["yaku"] if y["key"] not in ("dora", "ura_dora", "aka_dora", "nuki_dora")}, out


CLOSED = {"concealed": "123m456p789s11z234m", "win_tile": "4m"}  # East seat, East round: 1z pair is value

CASES = {
    "riichi": ({**CLOSED, "riichi": True}, {"riichi": 1}),
    "double_riichi": ({**CLOSED, "double_riichi": True}, {"double_riichi": 2}),
    "ippatsu": ({**CLOSED, "riichi": True, "ippatsu": True}, {"riichi": 1, "ippatsu": 1}),
    "menzen_tsumo": ({**CLOSED, "win": "tsumo"}, {"menzen_tsumo": 1}),
    "pinfu": ({"concealed": "123m456m789s234p55s", "win_tile": "4p"}, {"pinfu": 1}),
    "tanyao": ({"concealed": "234m567m234p678s55p", "win_tile": "5p"}, {"tanyao": 1}),
    "tanyao open": ({"concealed": "234m567m55p", "win_tile": "5p",
                     "melds": [{"kind": "chi", "tiles": "234p", "from": "left"}, pon("6s")]}, {"tanyao": 1}),
    "iipeikou": ({"concealed": "112233m456p789s55z", "win_tile": "3m"}, {"iipeikou": 1}),
    "haku": ({"concealed": "123m456p789s99m", "win_tile": "9m", "melds": [pon("5z")]}, {"haku": 1}),
    "hatsu": ({"concealed": "123m456p789s99m", "win_tile": "9m", "melds": [pon("6z")]}, {"hatsu": 1}),
    "chun": ({"concealed": "123m456p789s99m", "win_tile": "9m", "melds": [pon("7z")]}, {"chun": 1}),
    "seat_wind": ({"concealed": "123m456p789s99m", "win_tile": "9m", "melds": [pon("2z")], "seat_wind": "S"},
                  {"seat_wind": 1}),
    "round_wind": ({"concealed": "123m456p789s99m", "win_tile": "9m", "melds": [pon("2z")], "seat_wind": "W",
                    "round_wind": "S"}, {"round_wind": 1}),
    "double wind": ({"concealed": "123m456p789s99m", "win_tile": "9m", "melds": [pon("1z")]},
                    {"seat_wind": 1, "round_wind": 1}),
    "rinshan": ({"concealed": "123m456p99m789s", "win_tile": "9s", "win": "tsumo", "melds": [kan("2z", "ankan")],
                 "rinshan": True, "seat_wind": "W"}, {"menzen_tsumo": 1, "rinshan": 1}),
    "chankan": ({**CLOSED, "chankan": True}, {"chankan": 1}),
    "haitei": ({**CLOSED, "win": "tsumo", "haitei": True}, {"menzen_tsumo": 1, "haitei": 1}),
    "houtei": ({**CLOSED, "houtei": True}, {"houtei": 1}),
    "chiitoitsu": ({"concealed": "1133m5577p99s1122z", "win_tile": "2z"}, {"chiitoitsu": 2}),
    "sanshoku": ({"concealed": "123m123p123s456m99s", "win_tile": "6m"}, {"sanshoku": 2, "pinfu": 1}),
    "sanshoku open": ({"concealed": "123m123p99s456m", "win_tile": "6m",
                       "melds": [{"kind": "chi", "tiles": "123s", "from": "left"}]}, {"sanshoku": 1}),
    "ittsu": ({"concealed": "123456789m456p99s", "win_tile": "9m"}, {"ittsu": 2, "pinfu": 1}),
    "chanta": ({"concealed": "123m789p999s111z22z", "win_tile": "2z", "seat_wind": "W"},
               {"chanta": 2, "round_wind": 1}),
    "toitoi": ({"concealed": "777s888s11z", "win_tile": "1z", "seat_wind": "W", "round_wind": "S",
                "melds": [pon("2m"), pon("5p")]}, {"toitoi": 2}),
    "sanankou": ({"concealed": "111m222p333s456m77s", "win_tile": "5m", "win": "tsumo"},
                 {"menzen_tsumo": 1, "sanankou": 2}),
    "sanshoku_doukou": ({"concealed": "222p222s456m77s", "win_tile": "6m", "melds": [pon("2m")]},
                        {"sanshoku_doukou": 2, "tanyao": 1}),
    "sankantsu": ({"concealed": "456m77s", "win_tile": "6m",
                   "melds": [kan("1m"), kan("2p", "ankan"), kan("3s", "minkan", "left")]}, {"sankantsu": 2}),
    "honroutou": ({"concealed": "111m999p111s222z11z", "win_tile": "2z", "seat_wind": "W"},
                  {"honroutou": 2, "toitoi": 2, "sanankou": 2}),
    "honroutou seven pairs": ({"concealed": "1199m1199p11s1122z", "win_tile": "2z"},
                              {"chiitoitsu": 2, "honroutou": 2}),
    "shousangen": ({"concealed": "123m456m77z", "win_tile": "7z", "melds": [pon("5z"), pon("6z")]},
                   {"haku": 1, "hatsu": 1, "shousangen": 2, "honitsu": 2}),
    "ryanpeikou": ({"concealed": "223344m556677p99s", "win_tile": "9s"}, {"ryanpeikou": 3}),
    "junchan": ({"concealed": "123m789m123p999s11s", "win_tile": "1s"}, {"junchan": 3}),
    "honitsu": ({"concealed": "123m456m777m11z222z", "win_tile": "1z", "seat_wind": "W"}, {"honitsu": 3}),
    "chinitsu": ({"concealed": "123m234m345m678m99m", "win_tile": "9m"}, {"chinitsu": 6}),
    "chinitsu open": ({"concealed": "123m234m99m", "win_tile": "9m", "melds": [pon("5m"), pon("7m")]},
                      {"chinitsu": 5}),
    # yakuman
    "tenhou": ({**CLOSED, "win": "tsumo", "tenhou": True}, {"tenhou": 13}),
    "chiihou": ({**CLOSED, "win": "tsumo", "chiihou": True, "seat_wind": "S"}, {"chiihou": 13}),
    "kokushi": ({"concealed": "119m19p19s1234567z", "win_tile": "9m"}, {"kokushi": 13}),
    "kokushi_13": ({"concealed": "119m19p19s1234567z", "win_tile": "1m"}, {"kokushi_13": 13}),
    "suuankou": ({"concealed": "111m222p333s444m55z", "win_tile": "4m", "win": "tsumo"}, {"suuankou": 13}),
    "suuankou_tanki": ({"concealed": "111m222p333s444m55z", "win_tile": "5z"}, {"suuankou_tanki": 13}),
    "daisangen": ({"concealed": "555666777z123m99m", "win_tile": "9m"}, {"daisangen": 13}),
    "daisuushii": ({"concealed": "333444z55m", "win_tile": "5m", "melds": [pon("1z"), pon("2z")]},
                   {"daisuushii": 13}),
    "shousuushii": ({"concealed": "333z44z567m", "win_tile": "7m", "melds": [pon("1z"), pon("2z")]},
                    {"shousuushii": 13}),
    "tsuuiisou": ({"concealed": "222z333z555z66z", "win_tile": "6z", "melds": [pon("1z")]}, {"tsuuiisou": 13}),
    "tsuuiisou seven pairs": ({"concealed": "11223344556677z", "win_tile": "7z"}, {"tsuuiisou": 13}),
    "chinroutou": ({"concealed": "999m111p999p11s", "win_tile": "1s", "melds": [pon("1m")]}, {"chinroutou": 13}),
    "ryuuiisou": ({"concealed": "223344s666s888s66z", "win_tile": "6z"}, {"ryuuiisou": 13}),
    "ryuuiisou without hatsu": ({"concealed": "223344s666s888s22s", "win_tile": "2s"}, {"ryuuiisou": 13}),
    "chuuren": ({"concealed": "11123456788999m", "win_tile": "9m"}, {"chuuren": 13}),
    "junsei_chuuren": ({"concealed": "11123456789999m", "win_tile": "9m"}, {"junsei_chuuren": 13}),
    "suukantsu": ({"concealed": "11z", "win_tile": "1z",
                   "melds": [kan("1m"), kan("2p", "ankan"), kan("3s", "minkan", "left"), kan("4s", "kakan")]},
                  {"suukantsu": 13}),
}


@pytest.mark.parametrize("name", CASES)
def test_yaku(name):
    hand, expected = CASES[name]
    got, _ = yaku_of(hand)
    assert got == expected


def test_every_yaku_has_a_case():
    covered = set()
    for hand, expected in CASES.values():
        covered |= set(expected)
    covered.add("renhou_yakuman")  # below, under a rule set that has it
    assert covered == {y.key for y in YAKU}


def test_renhou_as_yakuman_when_the_rules_say_so():
    got, out = yaku_of({**CLOSED, "renhou": True, "seat_wind": "S"}, {"preset": "tenhou", "renhou": "yakuman"})
    assert got == {"renhou_yakuman": 13} and out["points"] == 32000


def test_dora_of_every_kind():
    hand = {"concealed": "123m406p789s11z234m", "win_tile": "4m", "riichi": True, "dora_indicators": ["9s", "4p"],
            "ura_indicators": ["7z", "3m"]}
    _, out = yaku_of(hand)
    dora = {y["key"]: y["han"] for y in out["yaku"] if y["key"] in ("dora", "ura_dora", "aka_dora")}
    # dora: 9s -> 1s (none), 4p -> 5p (the red 0p counts); ura: 7z -> 5z (none), 3m -> 4m; red: 0p
    assert dora == {"dora": 1, "ura_dora": 1, "aka_dora": 1}
    # riichi + 3 dora = 4 han; 30 + 4 (double-east pair, tenhou) = 34 -> 40 fu: 2560 base, paid as mangan
    assert (out["han"], out["fu"], out["limit"], out["points"]) == (4, 40, "mangan", 12000)


def test_nuki_dora_in_sanma():
    # 002 1.1.1 (11) 北は抜きドラ; with a west indicator the set-aside norths are dora as well
    hand = {"concealed": "111m999m123p456s11z", "win_tile": "1z", "riichi": True, "nukidora": 2,
            "dora_indicators": ["3z"], "rules": "sanma"}
    out = score_json(hand)
    got = {y["key"]: y["han"] for y in out["yaku"]}
    assert got["nuki_dora"] == 2 and got["dora"] == 2


def test_open_hands_lose_closed_only_yaku():
    # pinfu-shape open hand: no pinfu, no menzen tsumo, ittsu open value 1
    hand = {"concealed": "123m456m55p", "win_tile": "6m", "win": "tsumo",
            "melds": [{"kind": "chi", "tiles": "789m", "from": "left"}, {"kind": "chi", "tiles": "234s", "from": "left"}]}
    got, out = yaku_of(hand)
    assert got == {"ittsu": 1}
    assert out["is_open"]


def test_kuitan_off():
    hand = {"concealed": "234m567m55p", "win_tile": "5p", "melds": [{"kind": "chi", "tiles": "234p", "from": "left"},
                                                                    pon("6s")]}
    out = score_json({**hand, "rules": {"preset": "tenhou", "open_tanyao": False}})
    assert "no yaku" in out["error"]
