"""Decomposition, wait readings and fu: the engine must find every reading and keep the best
(新報知 第60条: メンツ構成を考えて点数が最大になるように計算しなければならない)."""
import pytest

from scoring import score_json
from scoring.decompose import is_seven_pairs, standard_shapes, suit_shapes


def ok(hand, rules="tenhou"):
    out = score_json({**hand, "rules": rules})
    assert out["error"] is None, out["error"]
    return out


def keys(out):
    return {y["key"] for y in out["yaku"]}


def counts(text):
    from scoring import parse_tiles
    c = [0] * 34
    for t in parse_tiles(text):
        c[t.index] += 1
    return c


def test_suit_shapes_are_complete_and_cached():
    # 111222333: three triplets or three identical runs
    shapes = suit_shapes((3, 3, 3, 0, 0, 0, 0, 0, 0))
    assert set(shapes) == {(-1, (), (0, 1, 2)), (-1, (0, 0, 0), ())}
    assert suit_shapes((3, 3, 3, 0, 0, 0, 0, 0, 0)) is shapes
    assert suit_shapes((1, 0, 0, 0, 0, 0, 0, 0, 0)) == ()


def test_whole_hand_shapes():
    assert len(standard_shapes(counts("11122233344455m"))) == 4
    assert standard_shapes(counts("11z22z33z44z55z66z77z")) == []
    assert is_seven_pairs(counts("1133m5577p99s1122z"))
    assert not is_seven_pairs(counts("1111m5577p99s1122z"))  # two identical pairs are not seven pairs


def test_ryanpeikou_beats_seven_pairs():
    # 003 4章 二盃口: 形の上では七対子ですが…順子として扱われるため、複合しません
    out = ok({"concealed": "223344m556677p99s", "win_tile": "9s", "riichi": True})
    assert keys(out) == {"riichi", "ryanpeikou"} and out["form"] == "standard"
    assert (out["han"], out["fu"]) == (4, 40)  # 30 + tanki 2 = 32 -> 40


def test_seven_pairs_when_no_sets():
    out = ok({"concealed": "1133m5577p99s1122z", "win_tile": "2z", "win": "tsumo"})
    assert keys(out) == {"chiitoitsu", "menzen_tsumo"} and (out["han"], out["fu"]) == (3, 25)
    assert out["payments"] == {"left": 1600, "across": 1600, "right": 1600}  # 003 5章: 25 fu 3 han dealer


@pytest.mark.parametrize("win", "123456789")
def test_nine_gates_every_wait_is_pure(win):
    # 1112345678999m waits on all nine; whichever comes, the 13 before it were the pure shape
    out = ok({"concealed": "1112345678999m" + win + "m", "win_tile": win + "m"})
    assert keys(out) == {"junsei_chuuren"} and out["yakuman"] == 1 and out["points"] == 48000
    double = ok({"concealed": "1112345678999m" + win + "m", "win_tile": win + "m"}, "mahjong-soul")
    assert double["yakuman"] == 2 and double["points"] == 96000


def test_nine_gates_not_pure():
    out = ok({"concealed": "11123456788999m", "win_tile": "9m"})
    assert keys(out) == {"chuuren"}
    assert ok({"concealed": "11123456788999m", "win_tile": "9m"}, "mahjong-soul")["yakuman"] == 1


def test_sanankou_lost_to_ron_on_the_triplet_tile():
    # 003 4章 三暗刻: シャンポン待ちで3個目になるときは、ロン上がりでは三暗刻になりません
    hand = {"concealed": "111m222p333s456m77s", "win_tile": "3s", "riichi": True}
    ron = ok(hand)
    assert keys(ron) == {"riichi"}
    assert any("completed by ron" in d["reason"] for d in ron["fu_details"])
    tsumo = ok({**hand, "win": "tsumo"})
    assert keys(tsumo) == {"riichi", "menzen_tsumo", "sanankou"}


def test_triplets_or_runs_best_reading_wins():
    # 222333444p: three closed triplets or three identical runs 234p
    hand = {"concealed": "222333444p678s99m", "win_tile": "4p", "riichi": True}
    ron = ok(hand)  # runs: riichi pinfu iipeikou 3 han 30 fu (3900) beats triplets: riichi 1 han 40 fu
    assert keys(ron) == {"riichi", "pinfu", "iipeikou"} and ron["points"] == 5800
    tsumo = ok({**hand, "win": "tsumo"})  # triplets: riichi tsumo sanankou 4 han 40 fu = mangan
    assert keys(tsumo) == {"riichi", "menzen_tsumo", "sanankou"} and tsumo["limit"] == "mangan"


def test_a_win_tile_read_as_kanchan_when_it_pays_more():
    # 003 5章: アガる牌で待ちを変えられる — 4p is the edge of 23(4) or the middle of 3(4)5
    out = ok({"concealed": "111m456s233445p77z", "win_tile": "4p", "riichi": True})
    assert out["wait"] == "kanchan" and out["fu"] == 50  # 30 + 8 + 2 (77z) + 2 (kanchan) = 42 -> 50


def test_a_win_tile_read_as_ryanmen_for_pinfu():
    out = ok({"concealed": "123m456s23344588p", "win_tile": "4p", "riichi": True})
    assert out["wait"] == "ryanmen" and keys(out) == {"riichi", "pinfu"}


def test_pinfu_tsumo_is_20_fu_and_ron_30():
    hand = {"concealed": "123m456m789s234p55s", "win_tile": "4p", "seat_wind": "S"}
    tsumo = ok({**hand, "win": "tsumo"})
    assert (tsumo["han"], tsumo["fu"]) == (2, 20) and tsumo["payments"] == {"left": 700, "across": 400, "right": 400}
    assert ok(hand)["fu"] == 30


def test_open_pinfu_shape_ron_is_30_fu():
    hand = {"concealed": "234m567m55p", "win_tile": "7m",
            "melds": [{"kind": "chi", "tiles": "234p", "from": "left"}, {"kind": "chi", "tiles": "678s", "from": "left"}]}
    out = ok(hand)
    assert (out["han"], out["fu"], out["points"]) == (1, 30, 1500)
    flat = ok(hand, {"preset": "tenhou", "open_pinfu_fu": False})
    assert (flat["fu"], flat["points"]) == (20, 1000)


def test_fu_example_1_of_the_guide():
    # 003 5章 例題1: リーチツモ, カンチャン 2, 中の雀頭 2, ツモ 2: 26 -> 30 fu
    out = ok({"concealed": "123m456p789s123s77z", "win_tile": "2s", "riichi": True, "win": "tsumo", "seat_wind": "S"})
    assert out["fu"] == 30 and sum(d["fu"] for d in out["fu_details"]) == 26


def test_fu_example_2_of_the_guide():
    # 003 5章 例題2: 東1局 東家 メンゼンロン: 30 + ペンチャン 2 + 白 2 + 9萬暗刻 8 = 42 -> 50 fu
    out = ok({"concealed": "999m123p456s89s55z7s", "win_tile": "7s", "riichi": True})
    assert out["fu"] == 50 and out["wait"] == "penchan"
    assert sum(d["fu"] for d in out["fu_details"]) == 42


@pytest.mark.parametrize("meld, fu", [
    ({"kind": "pon", "tiles": "555m", "from": "left"}, 2), ({"kind": "pon", "tiles": "999m", "from": "left"}, 4),
    ({"kind": "minkan", "tiles": "5555m", "from": "left"}, 8), ({"kind": "minkan", "tiles": "1111m", "from": "left"}, 16),
    ({"kind": "kakan", "tiles": "1111m", "from": "left"}, 16),
    ({"kind": "ankan", "tiles": "5555m"}, 16), ({"kind": "ankan", "tiles": "7777z"}, 32),
])
def test_set_fu(meld, fu):
    hand = {"concealed": "234p678p345s55s", "win_tile": "3s", "melds": [meld], "houtei": True, "seat_wind": "S"}
    out = ok(hand)
    detail = [d for d in out["fu_details"] if "triplet" in d["reason"] or "kan" in d["reason"]]
    assert [d["fu"] for d in detail] == [fu]


def test_closed_triplet_fu():
    out = ok({"concealed": "555m999m345s678p11s", "win_tile": "3s", "riichi": True})
    assert sorted(d["fu"] for d in out["fu_details"] if "closed triplet" in d["reason"]) == [4, 8]


@pytest.mark.parametrize("rules, fu", [("tenhou", 4), ("shinhouchi", 2), ("renmei", 2), ("saikyosen-2022", 2),
                                       ("m-league", 2), ("mahjong-soul", 4)])
def test_double_wind_pair(rules, fu):
    # RULESETS: double-wind pair 4 fu on Tenhou; 新報知 第56条 / 連盟 第十条 / 最強戦 補足事項: 2 fu
    out = ok({"concealed": "123m456p789s11z234m", "win_tile": "4m", "riichi": True}, rules)
    assert [d["fu"] for d in out["fu_details"] if "value pair" in d["reason"]] == [fu]


def test_rinshan_tsumo_fu_per_rules():
    hand = {"concealed": "123m456p99m789s", "win_tile": "9s", "win": "tsumo", "rinshan": True, "seat_wind": "W",
            "melds": [{"kind": "minkan", "tiles": "2222p", "from": "left"}]}
    with_fu = ok(hand)
    without = ok(hand, {"preset": "tenhou", "rinshan_tsumo_fu": False})
    assert with_fu["fu"] == 30 and without["fu"] == 30  # 20 + 8 + 2 = 30; 20 + 8 = 28 -> 30
    assert sum(d["fu"] for d in with_fu["fu_details"]) - sum(d["fu"] for d in without["fu_details"]) == 2


def test_seven_pairs_is_25_fu_flat():
    out = ok({"concealed": "1133m5577p99s1122z", "win_tile": "2z"})
    assert out["fu"] == 25 and out["points"] == 2400


def test_groups_and_wait_reported():
    out = ok({"concealed": "234m456p11s", "win_tile": "1s", "seat_wind": "S",
              "melds": [{"kind": "pon", "tiles": "777z", "from": "across"},
                        {"kind": "chi", "tiles": "345s", "called": "3s", "from": "left"}]})
    assert out["groups"] == ["234m", "456p", "11s", "pon 777z", "chi 345s"] and out["wait"] == "tanki"
