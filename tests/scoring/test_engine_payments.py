"""Limits, payments by seat, honba and riichi sticks, liability (pao), 3-player tsumo."""
import pytest

from scoring import score_json
from scoring.payments import limit_and_base, settle
from scoring.rules import PRESETS

TENHOU = PRESETS["tenhou"]


def ok(hand, rules="tenhou"):
    out = score_json({**hand, "rules": rules})
    assert out["error"] is None, out["error"]
    return out


@pytest.mark.parametrize("han, fu, limit, base", [
    (1, 30, None, 240), (3, 30, None, 960), (4, 30, None, 1920), (3, 60, None, 1920), (4, 40, "mangan", 2000),
    (3, 70, "mangan", 2000), (5, 30, "mangan", 2000), (6, 30, "haneman", 3000), (7, 30, "haneman", 3000),
    (8, 30, "baiman", 4000), (10, 30, "baiman", 4000), (11, 30, "sanbaiman", 6000), (12, 30, "sanbaiman", 6000),
    (13, 30, "yakuman", 8000), (20, 30, "yakuman", 8000),
])
def test_limits_tenhou(han, fu, limit, base):
    assert limit_and_base(han, fu, TENHOU)[:2] == (limit, base)


def test_kiriage_only_for_4_30_and_3_60():
    rules = PRESETS["saikyosen-2022"]
    assert limit_and_base(4, 30, rules)[:2] == ("mangan", 2000)
    assert limit_and_base(3, 60, rules)[:2] == ("mangan", 2000)
    assert limit_and_base(4, 25, rules)[:2] == (None, 1600)
    assert limit_and_base(4, 20, rules)[:2] == (None, 1280)


@pytest.mark.parametrize("dealer, tsumo, base, payments", [
    (False, False, 240, {"discarder": 1000}),
    (True, False, 240, {"discarder": 1500}),
    (False, True, 240, {"left": 300, "across": 300, "right": 500}),  # winner N: dealer (E) sits right
    (True, True, 240, {"left": 500, "across": 500, "right": 500}),
    (False, True, 2000, {"left": 2000, "across": 2000, "right": 4000}),
    (True, False, 8000, {"discarder": 48000}),
])
def test_basic_payments(dealer, tsumo, base, payments):
    wind = 0 if dealer else 3
    pay, points, total = settle(base, 0, None, dealer, tsumo, wind, None, 0, 0, TENHOU)
    assert pay == payments and points == total == sum(payments.values())


@pytest.mark.parametrize("seat, dealer_at", [("S", "left"), ("W", "across"), ("N", "right")])
def test_dealer_seat_relative_to_winner(seat, dealer_at):
    out = ok({"concealed": "123m456p789s11s234m", "win_tile": "4m", "win": "tsumo", "seat_wind": seat})
    assert max(out["payments"], key=out["payments"].get) == dealer_at


def test_honba_and_sticks_ron_and_tsumo():
    hand = {"concealed": "123m456p789s11s234m", "win_tile": "4m", "seat_wind": "S", "riichi": True, "honba": 2,
            "kyotaku": 3}
    ron = ok({**hand, "discarder": "across"})
    # riichi pinfu 2 han 30 fu = 2000; 2 honba = 600; 3 sticks = 3000
    assert ron["points"] == 2000 and ron["payments"] == {"across": 2600} and ron["total"] == 5600
    tsumo = ok({**hand, "win": "tsumo"})
    # riichi tsumo pinfu 3 han 20 fu: 700/1300, each payer +200
    assert tsumo["payments"] == {"left": 1500, "across": 900, "right": 900}
    assert tsumo["points"] == 2700 and tsumo["total"] == 2700 + 600 + 3000


def test_ron_without_known_discarder_names_discarder():
    out = ok({"concealed": "123m456p789s11s234m", "win_tile": "4m", "riichi": True})
    assert list(out["payments"]) == ["discarder"]


# ---- liability (pao) ---------------------------------------------------------------------------
DAISANGEN = {"concealed": "123m99p", "win_tile": "9p", "seat_wind": "S",
             "melds": [{"kind": "pon", "tiles": "555z", "from": "left"}, {"kind": "pon", "tiles": "666z", "from": "across"},
                       {"kind": "pon", "tiles": "777z", "from": "right"}]}


def test_pao_tsumo_liable_pays_all():
    # 003 6章 責任払い: ツモアガりの場合「パオ」の人が1人で役満のアガり点数を支払います
    out = ok({**DAISANGEN, "win": "tsumo"})
    assert out["payments"] == {"right": 32000} and out["liability"]["seat"] == "right"


def test_pao_ron_split_with_discarder():
    # 003 6章: ロンされた人と「パオ」の人で半分ずつ
    out = ok({**DAISANGEN, "discarder": "across"})
    assert out["payments"] == {"right": 16000, "across": 16000} and out["points"] == 32000


def test_pao_ron_by_the_liable_player_himself():
    assert ok({**DAISANGEN, "discarder": "right"})["payments"] == {"right": 32000}


def test_pao_honba_paid_by_liable_player():
    # 002 1.1.2 (6): 積み棒分は包を確定させた対局者が支払う
    out = ok({**DAISANGEN, "discarder": "across", "honba": 2})
    assert out["payments"] == {"right": 16600, "across": 16000} and out["total"] == 32600
    other = ok({**DAISANGEN, "discarder": "across", "honba": 2}, {"preset": "tenhou", "pao_honba": "discarder"})
    assert other["payments"] == {"right": 16000, "across": 16600}


def test_pao_only_for_the_liable_yakuman_when_combined():
    # 002 1.1.2 (6): 包と別の役満が複合した場合は、包の役満のみ責任払い
    hand = {**DAISANGEN, "concealed": "111z22z", "win_tile": "2z"}
    tsumo = ok({**hand, "win": "tsumo"})  # daisangen (pao, right) + tsuuiisou (normal): 64000
    assert tsumo["payments"] == {"right": 32000 + 8000, "left": 16000, "across": 8000}
    ron = ok({**hand, "discarder": "left"})
    assert ron["payments"] == {"right": 16000, "left": 48000}


def test_pao_needs_the_deciding_meld_seat_or_an_explicit_liable():
    melds = DAISANGEN["melds"][:2] + [{"kind": "pon", "tiles": "777z"}]
    out = ok({**DAISANGEN, "melds": melds, "win": "tsumo"})
    assert out["liability"] is None and "no 'from'" in out["notes"][0]
    assert ok({**DAISANGEN, "melds": melds, "win": "tsumo", "liable": "left"})["payments"] == {"left": 32000}


def test_no_pao_with_a_concealed_dragon_triplet():
    hand = {"concealed": "777z123m99p", "win_tile": "9p", "seat_wind": "S", "win": "tsumo",
            "melds": DAISANGEN["melds"][:2]}
    out = ok(hand)
    assert out["liability"] is None and out["payments"] == {"left": 16000, "across": 8000, "right": 8000}


def test_pao_when_an_earlier_dragon_set_is_a_closed_kan():
    """A closed kan declared before the calls is one of the three sets (000 第67条 大三元の3組目をポン):
    the third call decides; a closed kan listed last decided it itself, so nobody is liable."""
    ankan = {"kind": "ankan", "tiles": "5555z"}
    hand = {**DAISANGEN, "win": "tsumo", "melds": [ankan] + DAISANGEN["melds"][1:]}
    out = ok(hand)
    assert out["liability"]["seat"] == "right" and out["payments"] == {"right": 32000}
    ron = ok({**hand, "win": "ron", "discarder": "left"}, "shinhouchi")
    assert ron["payments"] == {"right": 16000, "left": 16000}
    last = ok({**hand, "melds": DAISANGEN["melds"][1:] + [ankan]})
    assert last["liability"] is None and last["payments"] == {"left": 16000, "across": 8000, "right": 8000}


def test_pao_daisuushii_with_a_closed_wind_kan():
    hand = {"concealed": "55m", "win_tile": "5m", "seat_wind": "S", "win": "tsumo",
            "melds": [{"kind": "ankan", "tiles": "1111z"}, {"kind": "pon", "tiles": "222z", "from": "left"},
                      {"kind": "pon", "tiles": "333z", "from": "across"}, {"kind": "pon", "tiles": "444z", "from": "left"}]}
    out = ok(hand, "saikyosen-2022")
    assert out["liability"]["seat"] == "left" and out["payments"] == {"left": 32000}


def test_daisuushii_pao_last_wind_call():
    hand = {"concealed": "44z567m", "win_tile": "7m", "seat_wind": "S", "win": "tsumo",
            "melds": [{"kind": "pon", "tiles": "111z", "from": "left"}, {"kind": "pon", "tiles": "222z", "from": "left"},
                      {"kind": "pon", "tiles": "333z", "from": "across"}]}
    assert ok(hand)["liability"] is None  # a concealed north pair: shousuushii, no pao in tenhou
    full = {**hand, "concealed": "55m", "win_tile": "5m", "melds": hand["melds"] + [{"kind": "pon", "tiles": "444z", "from": "right"}]}
    out = ok(full)
    assert out["liability"]["seat"] == "right" and out["payments"] == {"right": 32000}


# ---- 3 players -----------------------------------------------------------------------------------
SANMA = {"concealed": "111m999m123p456s11z", "win_tile": "1z", "riichi": True, "seat_wind": "S", "win": "tsumo"}


def test_sanma_tsumo_loss():
    # 002 1.1.1: north's share is not paid; S winner: dealer on the left, W across is... empty north across
    out = ok(SANMA, "sanma")
    assert out["payments"] == {"left": 1600, "right": 800} and out["points"] == 2400


def test_sanma_tsumo_split_option():
    out = ok(SANMA, {"preset": "sanma", "sanma_tsumo": "split"})
    # 50 fu 2 han: base 800; north's 800 split: dealer 1600 + 400, child 800 + 400
    assert out["payments"] == {"left": 2000, "right": 1200}


def test_sanma_dealer_tsumo_and_honba():
    out = ok({**SANMA, "seat_wind": "E", "honba": 1}, "sanma")
    # 002 1.1.1 (4): 1 本場 200 点 -> 100 from each of the two payers
    assert out["payments"] == {"across": 1700, "right": 1700} and out["total"] == 3400


def test_sanma_ron_honba_200():
    out = ok({**SANMA, "win": "ron", "discarder": "left", "honba": 2}, "sanma")
    assert out["payments"] == {"left": 1600 + 400}
