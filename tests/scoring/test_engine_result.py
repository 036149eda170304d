"""The §2 result: every contract key, JSON-clean, the same from score() and score_json()."""
import json

from scoring import Hand, resolve_rules, score, score_json

CONTRACT_KEYS = {"han", "fu", "yakuman", "limit", "points", "payments", "total", "yaku", "error"}
HAND = {"concealed": "234m456p11s", "win_tile": "1s", "seat_wind": "S", "discarder": "across", "id": "h1",
        "melds": [{"kind": "pon", "tiles": "777z", "from": "across"}, {"kind": "chi", "tiles": "345s", "from": "left"}]}


def test_every_contract_key_and_json_clean():
    out = score_json(HAND)
    assert CONTRACT_KEYS <= set(out) and out["id"] == "h1"
    assert json.loads(json.dumps(out, ensure_ascii=False)) == out
    assert all({"name", "name_ja", "han"} <= set(y) for y in out["yaku"])


def test_error_results_carry_the_contract_keys_too():
    out = score_json({"id": 5, "concealed": "123m", "win_tile": "1m"})
    assert CONTRACT_KEYS <= set(out) and out["error"] and out["id"] == 5
    assert (out["han"], out["points"], out["payments"], out["yaku"]) == (0, 0, {}, [])


def test_score_and_score_json_agree():
    result = score(Hand.from_json(HAND), resolve_rules("tenhou"))
    out = result.to_json()
    assert out == {k: v for k, v in score_json(HAND).items() if k not in ("id", "error_field")}
    assert result.groups == ["234m", "456p", "11s", "pon 777z", "chi 345s"]
    assert [d["fu"] for d in result.fu_details] == [20, 4, 2]  # base, open terminal-honor pon, tanki
    assert "points=1000" in repr(result)


def test_yaku_json_is_a_fresh_dict():
    a = score_json(HAND)["yaku"][0]
    a["han"] = 99
    assert score_json(HAND)["yaku"][0]["han"] == 1
