"""Reading and validating §1 hands: every kind of bad input gives a HandError naming the part,
and score_json turns it into an `error` without raising."""
import pytest

from scoring import Hand, HandError, Meld, resolve_rules, score, score_json

GOOD = {"concealed": "123m456p789s11z234m", "win_tile": "4m", "riichi": True}


def err(obj) -> tuple[str, str | None]:
    out = score_json(obj)
    assert out["error"], out
    return out["error"], out["error_field"]


def test_good_hand_reads_and_round_trips():
    hand = Hand.from_json(GOOD)
    assert hand.riichi and not hand.tsumo and hand.seat_wind == 0
    assert Hand.from_json(hand.to_json()) == hand
    assert score_json(GOOD)["error"] is None


def test_melds_read_with_called_tile_and_seat():
    obj = {"concealed": "234m456p11z", "win_tile": "1z", "seat_wind": "S",
           "melds": [{"kind": "pon", "tiles": "777z", "called": "7z", "from": "across"},
                     {"kind": "chi", "tiles": "345s", "called": "3s", "from": "left"}]}
    hand = Hand.from_json(obj)
    assert [m.kind for m in hand.melds] == ["pon", "chi"]
    assert hand.melds[0].from_ == "across" and str(hand.melds[1].called) == "3s"
    assert hand.is_open


@pytest.mark.parametrize("patch, field, words", [
    ({"concealed": "123m456p789s11z23m"}, "concealed", "expected 14 tiles"),
    ({"concealed": "1111m456p789s11z29m", "win_tile": "2m"}, "concealed", "not a winning hand"),
    ({"concealed": "11111m56p789s11z24m"}, "concealed", "5 copies of 1m"),
    # a fifth copy is the fault of the field whose copies passed four, named with the count of each
    ({"dora_indicators": ["1m"] * 4}, "dora_indicators", "5 copies of 1m (1 in the hand and melds, 4 as dora"),
    ({"dora_indicators": ["4m", "4m"], "ura_indicators": ["4m", "4m"]}, "ura_indicators", "2 as dora indicators, 2 as ura"),
    ({"win_tile": "9m"}, "win_tile", "not among the concealed"),
    ({"win_tile": "0m"}, "win_tile", "not among the concealed"),
    ({"win_tile": "45m"}, "win_tile", "expected one tile"),
    ({"concealed": "123m456p789s11z23q"}, "concealed", "unexpected character"),
    ({"concealed": 12}, "concealed", "MPSZ"),
    ({"riichi": "yes"}, "riichi", "true or false"),
    ({"honba": -1}, "honba", "0..1000"),
    ({"honba": 1.5}, "honba", "whole number"),
    ({"kyotaku": True}, "kyotaku", "whole number"),
    ({"win": "draw"}, "win", "'ron' or 'tsumo'"),
    ({"seat_wind": "X"}, "seat_wind", "wind"),
    ({"round_wind": 5}, "round_wind", "wind"),
    ({"discarder": "behind"}, "discarder", "left, across or right"),
    ({"players": 5}, "players", "3 or 4"),
    ({"melds": "pon"}, "melds", "list of melds"),
    ({"melds": {}}, "melds", "list of melds"),       # was read as no melds (any falsy value was)
    ({"concealed": "123m789s11z234m", "melds": [{"kind": "ankan", "tiles": "0000p"}]},  # was blamed on concealed
     "melds[0].tiles", "4 red 0p but the set has 1"),
    ({"concealed": "123m789s11z234m", "melds": [{"kind": "ankan", "tiles": "00555p"}]}, "melds[0].tiles",
     "an ankan must be 4 identical tiles"),
    ({"melds": False}, "melds", "list of melds"),
    ({"rules": {"preset": "tenhou", "name": "renmei"}}, "rules.name", "another rule set's name"),  # said renmei
    ({"rules": "tenhoo"}, "rules", "unknown rule set"),
    ({"rules": {"preset": "tenhou", "kiriagee": True}}, "rules", "unknown rule field"),
    ({"rules": {"preset": "tenhou", "kiriage": "yes"}}, "rules.kiriage", "true or false"),
    ({"rules": {"preset": "tenhou", "double_wind_pair_fu": 3}}, "rules.double_wind_pair_fu", "one of"),
    ({"rules": {"preset": 7}}, "rules.preset", "preset name"),
    ({"rules": 7}, "rules", "preset name or an object"),
    ({"dora_indicators": ["3x"]}, "dora_indicators[0]", "unexpected character"),
    ({"ura_indicators": ["3m"], "dora_indicators": ["5m"], "riichi": False}, "ura_indicators", "riichi"),
    ({"ura_indicators": ["3m", "4m"], "dora_indicators": ["5m"]}, "ura_indicators", "more ura"),
    ({"dora_indicators": ["1m", "2m", "3m", "4m", "5m", "6m"]}, "dora_indicators", "at most 5"),
])
def test_bad_input_names_the_part(patch, field, words):
    message, where = err({**GOOD, **patch})
    assert where == field, message
    assert words in message


@pytest.mark.parametrize("meld, field, words", [
    ({"kind": "chi", "tiles": "135m"}, "melds[0].tiles", "consecutive"),
    ({"kind": "chi", "tiles": "891m"}, "melds[0].tiles", "consecutive"),
    ({"kind": "chi", "tiles": "123z"}, "melds[0].tiles", "consecutive"),
    ({"kind": "chi", "tiles": "234m", "from": "across"}, "melds[0].from", "only be called from the left"),
    ({"kind": "pon", "tiles": "556m"}, "melds[0].tiles", "identical"),
    ({"kind": "pon", "tiles": "5555m"}, "melds[0].tiles", "3 identical"),
    ({"kind": "minkan", "tiles": "555m"}, "melds[0].tiles", "4 identical"),
    ({"kind": "ankan", "tiles": "5555m", "from": "left"}, "melds[0].from", "not called"),
    ({"kind": "ankan", "tiles": "5555m", "called": "5m"}, "melds[0].called", "no called tile"),
    ({"kind": "pon", "tiles": "555m", "called": "6m"}, "melds[0].called", "not one of"),
    ({"kind": "pon", "tiles": "555m", "from": "up"}, "melds[0].from", "left, across or right"),
    ({"kind": "steal", "tiles": "555m"}, "melds[0].kind", "unknown meld kind"),
    ({"kind": "pon"}, "melds[0].tiles", "missing"),
    ({"kind": "pon", "tiles": "555m", "colour": "red"}, "melds[0]", "unknown meld key"),
    ("pon 555m", "melds[0]", "expected an object"),
])
def test_impossible_melds(meld, field, words):
    obj = {"concealed": "123m456p789s11z", "win_tile": "1z", "melds": [meld]}
    message, where = err(obj)
    assert where == field, message
    assert words in message


@pytest.mark.parametrize("patch, field, words", [
    ({"riichi": True, "melds": [{"kind": "pon", "tiles": "999m", "from": "left"}], "concealed": "123m456p789s11z",
      "win_tile": "1z"}, "riichi", "closed hand"),
    ({"ippatsu": True, "riichi": False}, "ippatsu", "needs riichi"),
    ({"rinshan": True, "win": "tsumo"}, "rinshan", "needs a kan"),
    ({"rinshan": True}, "rinshan", "tsumo"),
    ({"rinshan": True, "ippatsu": True, "riichi": True, "win": "tsumo", "concealed": "123m456p11z234m",
      "melds": [{"kind": "ankan", "tiles": "5555z"}]}, "ippatsu", "kan"),
    ({"chankan": True, "win": "tsumo"}, "chankan", "ron"),
    ({"haitei": True}, "haitei", "tsumo"),
    ({"houtei": True, "win": "tsumo"}, "houtei", "ron"),
    ({"houtei": True, "chankan": True}, "houtei", "chankan"),
    ({"tenhou": True, "win": "tsumo", "seat_wind": "S", "riichi": False}, "tenhou", "dealer"),
    ({"tenhou": True, "riichi": False}, "tenhou", "dealer"),
    ({"chiihou": True, "win": "tsumo", "riichi": False}, "chiihou", "non-dealer"),
    ({"renhou": True, "seat_wind": "S"}, "renhou", "riichi"),
    ({"discarder": "left", "win": "tsumo"}, "discarder", "no discarder"),
    ({"nukidora": 1}, "nukidora", "3-player"),
    ({"robbed_kan": "ankan", "chankan": True}, "robbed_kan", "cannot be robbed"),
    ({"robbed_kan": "ankan"}, "robbed_kan", "only applies to chankan"),
    ({"liable": "left"}, "liable", "no yakuman with liability"),
    ({"players": 3}, "players", "4 players"),
])
def test_contradicting_flags(patch, field, words):
    message, where = err({**GOOD, **patch})
    assert where == field, message
    assert words in message


def test_absurdly_long_input_is_refused_quickly_and_quoted_short():
    """A 4-MB tile string took minutes (tuples joined run by run) and its error quoted all of it."""
    import time

    start = time.perf_counter()
    message, where = err({**GOOD, "concealed": "1m" * 500_000})
    assert time.perf_counter() - start < 5  # quadratic: ~2 min; linear: well under a second
    assert where == "concealed" and "got 500000" in message
    message, where = err({**GOOD, "concealed": "1m " * 200_000 + "x"})
    assert where == "concealed" and message.startswith("concealed: unexpected character 'x'")
    assert len(message) < 1050 and "characters cut" in message and message.endswith("followed by m, p, s or z)")
    message, _ = err({**GOOD, "rules": {"preset": "tenhou", "kiriagee": True}})  # a long message of our own: whole
    assert "characters cut" not in message and message.endswith("sanma_tsumo, nukidora")


def test_a_rule_set_may_carry_its_own_name_or_its_presets_own():
    assert score_json({**GOOD, "rules": {"preset": "tenhou", "name": "club"}})["rules"] == "club"
    assert score_json({**GOOD, "rules": {"preset": "tenhou", "name": "tenhou"}})["rules"] == "tenhou"


def test_chankan_needs_the_lone_copy_of_the_win_tile():
    # the robbed kan holds the other three copies, so the hand can only hold the robbed one
    message, where = err({"concealed": "123m456p789s11z444m", "win_tile": "4m", "chankan": True})
    assert where == "chankan" and "robbed" in message


def test_chankan_copy_in_a_chi_counts_too():
    # one 4m in the hand, one in the chi: the robbed kan can't hold the other three
    obj = {"concealed": "11z456p789s234m", "win_tile": "4m", "chankan": True,
           "melds": [{"kind": "chi", "tiles": "345m", "from": "left"}]}
    message, where = err(obj)
    assert where == "chankan"
    ok = {**obj, "melds": [{"kind": "chi", "tiles": "678m", "from": "left"}]}
    assert score_json(ok)["error"] is None


def test_no_yaku_is_an_error_and_dora_do_not_help():
    # open hand, no yaku, three dora: still no win (003 4章 ドラについて)
    obj = {"concealed": "234m456p11s", "win_tile": "1s", "dora_indicators": ["3p"],
           "melds": [{"kind": "pon", "tiles": "999m", "from": "left"}, {"kind": "chi", "tiles": "456s", "from": "left"}]}
    message, where = err(obj)
    assert "no yaku" in message and where is None


def test_score_json_never_raises_and_echoes_id():
    for junk in (None, 3, "hand", [], {"id": 7}, {"id": "x", "concealed": None, "win_tile": None},
                 {"concealed": "1m" * 20, "win_tile": "1m"}, {"concealed": "123m", "win_tile": "1m", "melds": [None]}):
        out = score_json(junk)
        assert isinstance(out["error"], str) and out["error"]
        if isinstance(junk, dict) and "id" in junk:
            assert out["id"] == junk["id"]
    assert score_json({**GOOD, "id": 42})["id"] == 42


def test_unknown_keys_are_ignored_but_noted():
    out = score_json({**GOOD, "id": 1, "expected": {"han": 2}, "riichii": True})
    assert out["error"] is None
    assert out["notes"] == ["ignored unknown key 'riichii'"]


def test_sanma_tiles_and_calls():
    base = {"concealed": "111m999m123p456s11z", "win_tile": "1z", "rules": "sanma", "riichi": True}
    assert score_json(base)["error"] is None
    msg, where = err({**base, "concealed": "234m999m123p456s11z", "win_tile": "1z"})
    assert where == "concealed" and "3-player" in msg
    msg, where = err({**base, "riichi": False, "concealed": "999m123p456s11z",
                      "melds": [{"kind": "chi", "tiles": "789p", "from": "left"}]})
    assert where == "melds[0].kind" and "no chi" in msg  # 002 1.1.1 (10) チーはできない
    msg, where = err({**base, "seat_wind": "N"})
    assert where == "seat_wind"
    # an East winner's left seat is the empty north seat
    msg, where = err({**base, "discarder": "left"})
    assert where == "discarder" and "empty north" in msg
    assert score_json({**base, "discarder": "right"})["error"] is None


def test_no_tenhou_after_setting_a_north_aside():
    # 002 三人麻雀 1.1.1 (12): 北を抜いた時点で天和、地和…は成立せず
    base = {"concealed": "111m999m123p456s11z", "win_tile": "1z", "rules": "sanma", "win": "tsumo"}
    assert score_json({**base, "tenhou": True})["error"] is None
    msg, where = err({**base, "tenhou": True, "nukidora": 1})
    assert where == "tenhou" and "north" in msg


def test_python_api_builds_hands_directly():
    from scoring import parse_tiles
    hand = Hand(concealed=tuple(parse_tiles("123m456p789s11z234m")), win_tile=parse_tiles("4m")[0], riichi=True)
    assert score(hand, resolve_rules("tenhou")).han == 1
    with pytest.raises(HandError) as e:
        Meld("pon", tuple(parse_tiles("123m")))
    assert e.value.field == "meld.tiles"


def test_from_json_builds_the_same_hand_as_the_constructor():
    # from_json fills the Hand in directly (shared melds, counts made while parsing); the
    # dataclass constructor validates from scratch: every field, derived ones included, must agree
    import dataclasses

    from tests.scoring.handgen import HandGenerator

    gen = HandGenerator(seed=77, players=4, red_suits="mps")
    derived = ("conc_counts", "red_counts", "conc_mask", "hand_counts", "hand_mask", "hand_reds", "flag_bits",
               "meld_shape")
    for _ in range(400):
        obj = gen.hand().to_json()
        fast = Hand.from_json(obj)
        slow = Hand(**{f.name: getattr(fast, f.name) for f in dataclasses.fields(Hand) if f.init})
        assert fast == slow
        assert all(getattr(fast, name) == getattr(slow, name) for name in derived), obj
        for m in fast.melds:
            assert Meld(m.kind, m.tiles, m.called, m.from_).set_shape == m.set_shape


def test_a_shared_meld_is_not_served_for_a_meld_with_more_keys():
    # valid melds are shared between hands; one with an extra key (even a null one) is read afresh
    obj = {"concealed": "123m456p789s11z", "win_tile": "1z", "melds": [{"kind": "pon", "tiles": "777z", "from": "left"}]}
    assert score_json(obj)["error"] is None
    obj["melds"] = [{"kind": "pon", "tiles": "777z", "from": "left", "colour": None}]
    assert err(obj) == ("melds[0]: unknown meld key 'colour' (a meld has kind, tiles, called, from)", "melds[0]")
    obj["melds"] = [{"kind": "pon", "tiles": "777z", "from": "left", "called": None}]
    assert score_json(obj)["error"] is None
    obj["melds"] = [{"kind": "pon", "tiles": ["7z", "7z", "7z"], "from": "left"}]
    assert score_json(obj)["error"] is None
