"""`POST /v1/hands/score`: CONTRACTS §1 → §2 through the real engine, and every kind of bad input."""
from __future__ import annotations

import pytest

from scoring import score_json

# Dealer tsumo: 123m 456p 789s 111z 22z. Menzen tsumo + seat wind + round wind, 40 fu.
HAND = {"concealed": "123m456p789s11122z", "win_tile": "2z", "win": "tsumo", "rules": "tenhou"}


def test_scores_a_hand_exactly_like_the_engine(client):
    r = client.post("/v1/hands/score", json=HAND)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body == score_json(HAND)
    assert (body["han"], body["fu"], body["points"]) == (3, 40, 7800)
    assert body["payments"] == {"left": 2600, "across": 2600, "right": 2600}
    assert body["error"] is None


def test_full_contract_example_with_melds_counters_and_discarder(client):
    hand = {
        "rules": {"preset": "tenhou", "kiriage": True},
        "concealed": "234m055p55z", "win_tile": "5z",
        "melds": [
            {"kind": "pon", "tiles": "777z", "called": "7z", "from": "across"},
            {"kind": "chi", "tiles": "345s", "called": "3s", "from": "left"},
        ],
        "win": "ron", "round_wind": "E", "seat_wind": "S", "dora_indicators": ["3m"],
        "honba": 2, "kyotaku": 1, "discarder": "right", "id": "case-7",
    }
    r = client.post("/v1/hands/score", json=hand)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body == score_json(hand)
    assert body["id"] == "case-7"
    assert list(body["payments"]) == ["right"]
    assert body["total"] == body["points"] + 600 + 1000


def test_result_has_no_id_unless_the_hand_gave_one(client):
    """CONTRACTS §2: `id` is echoed if given — absent, not null, otherwise (also where a
    result is nested in a response model, as in /v1/photos/score)."""
    from api.schemas import ScoreResult

    body = client.post("/v1/hands/score", json=HAND).json()
    assert "id" not in body and body == score_json(HAND)
    assert "id" not in ScoreResult.model_validate(score_json(HAND)).model_dump(mode="json")
    assert ScoreResult.model_validate(score_json({**HAND, "id": 7})).model_dump()["id"] == 7


def test_expected_key_from_batch_files_is_ignored(client):
    r = client.post("/v1/hands/score", json={**HAND, "expected": {"points": 1}})
    assert r.status_code == 200 and r.json()["points"] == 7800


@pytest.mark.parametrize("patch,loc", [
    ({"concealed": "123m456p789s1112z"}, ["body", "concealed"]),           # 13 tiles
    ({"melds": [{"kind": "pon", "tiles": "123m"}]}, ["body", "melds", 0, "tiles"]),
    ({"rules": "tenhoo"}, ["body", "rules"]),
    ({"rules": {"preset": "tenhou", "kiriage": 3}}, ["body", "rules", "kiriage"]),
])
def test_hands_the_engine_refuses_are_422_with_the_section2_error(client, patch, loc):
    hand = {**HAND, **patch}
    r = client.post("/v1/hands/score", json=hand)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["error"] == score_json(hand)["error"] and body["error"]
    assert body["detail"][0]["loc"] == loc
    assert body["detail"][0]["msg"] == body["error"]


def test_no_yaku_is_422_saying_so(client):
    # An open hand with nothing but a pon of a non-value wind (North, South seat, East round): no yaku.
    hand = {"concealed": "234m456p678s99s", "win_tile": "9s", "win": "ron", "seat_wind": "S", "round_wind": "E",
            "melds": [{"kind": "pon", "tiles": "444z", "called": "4z", "from": "left"}]}
    r = client.post("/v1/hands/score", json=hand)
    assert r.status_code == 422
    assert "yaku" in r.json()["error"].lower()


@pytest.mark.parametrize("body,loc", [
    ({"win_tile": "2z"}, ["body", "concealed"]),                          # missing
    ({**HAND, "concealed": "123x"}, ["body", "concealed"]),                # not MPSZ
    ({**HAND, "win_tile": "22z"}, ["body", "win_tile"]),
    ({**HAND, "win": "draw"}, ["body", "win"]),
    ({**HAND, "seat_wind": "East"}, ["body", "seat_wind"]),
    ({**HAND, "honba": -1}, ["body", "honba"]),
    ({**HAND, "riichi": "maybe"}, ["body", "riichi"]),
    ({**HAND, "dora_indicators": "3m"}, ["body", "dora_indicators"]),
    ({**HAND, "melds": [{"kind": "peng", "tiles": "777z"}]}, ["body", "melds", 0, "kind"]),
    ({**HAND, "melds": [{"kind": "pon", "tiles": "777z", "from": "north"}]}, ["body", "melds", 0, "from"]),
    ({**HAND, "riichii": True}, ["body", "riichii"]),                       # a typo is not silently ignored
    ({**HAND, "players": 5}, ["body", "players"]),
])
def test_malformed_input_is_422_naming_the_field(client, body, loc):
    r = client.post("/v1/hands/score", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == loc


@pytest.mark.parametrize("raw,loc,echo", [
    ('"concealed": NaN', ["body", "concealed"], "NaN"),
    ('"concealed": "123m", "honba": Infinity', ["body", "honba"], "Infinity"),
    ('"concealed": -1e999', ["body", "concealed"], "-Infinity"),        # overflows to -inf when parsed
])
def test_non_finite_numbers_are_422_naming_the_field_not_500(client, raw, loc, echo):
    """Python's JSON parser takes NaN, Infinity and 1e999; the 422 that echoes them must still be
    strict JSON (it was a 500: the response itself could not be encoded)."""
    r = client.post("/v1/hands/score", content=("{" + raw + "}").encode(), headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    err = next(e for e in r.json()["detail"] if e["loc"] == loc)
    assert err["input"] == echo


@pytest.mark.parametrize("raw,loc", [
    (b'{"concealed": "123m456p789s11122z", "win_tile": "2z", "riichi": false, "riichi": true}', ["body", "riichi"]),
    (b'{"concealed": "234m055p55z", "win_tile": "5z", "melds": [{"kind": "pon", "tiles": "777z", "tiles": "666z"}]}',
     ["body", "melds", 0, "tiles"]),
])
def test_a_key_given_twice_is_422_naming_it_not_last_one_wins(client, raw, loc):
    r = client.post("/v1/hands/score", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    (err,) = r.json()["detail"]
    assert err["loc"] == loc and "given twice" in err["msg"]


def test_the_body_is_parsed_strictly_before_it_is_validated(client):
    """One strict parse feeds validation (it was a second parse after it): a key given twice is named
    even when another field is wrong too, and a body nested past the cap never reaches validation."""
    raw = b'{"concealed": "123m456p789s11122z", "concealed": "123m", "win_tile": 7}'
    r = client.post("/v1/hands/score", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert [e["loc"] for e in r.json()["detail"]] == [["body", "concealed"]]
    deep = b'{"concealed": "123m456p789s11122z", "win_tile": "2z", "x": ' + b"[" * 40 + b"]" * 40 + b"}"
    r = client.post("/v1/hands/score", content=deep, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "nested too deeply (the limit is 32 levels)" in r.json()["detail"]


@pytest.mark.parametrize("raw,words", [
    (b'{"concealed": "123m456p789s11122z", "win_tile": "2z", "id": "caf\xe9"}',  # Latin-1 é
     "not UTF-8 text (byte 0xe9"),
    pytest.param(b'{"concealed": "123m", "expected": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply",
                 id="deep-nesting"),
])
def test_a_body_that_cannot_be_parsed_says_why(client, raw, words):
    """Both were a bare 'There was an error parsing the body'."""
    r = client.post("/v1/hands/score", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert words in r.json()["detail"]


@pytest.mark.parametrize("ctype", ["application/x-www-form-urlencoded", "text/plain", None])
def test_json_sent_under_another_content_type_says_so(client, ctype):
    """`curl -d` sends form-urlencoded: the 422 said only 'Input should be a valid dictionary'."""
    r = client.post("/v1/hands/score", content=b'{"concealed": "123m456p789s11122z", "win_tile": "2z"}',
                    headers={"content-type": ctype} if ctype else {})
    assert r.status_code == 422
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body"] and "Content-Type: application/json" in err["msg"]
    assert f"this request's Content-Type: {ctype or 'none'}" in err["msg"]


def test_not_json_is_422(client):
    r = client.post("/v1/hands/score", content=b"{oops", headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["type"] == "json_invalid"


def test_array_instead_of_object_is_422(client):
    r = client.post("/v1/hands/score", json=[HAND])
    assert r.status_code == 422


def test_an_engine_bug_is_a_500_not_the_callers_fault(client, monkeypatch):
    import api.routes.hands as hands

    def broken(obj):
        return {"han": 0, "error": "internal error (KeyError: 'x'); please report this hand", "error_field": None}

    monkeypatch.setattr(hands, "score_json", broken)
    r = client.post("/v1/hands/score", json=HAND)
    assert r.status_code == 500
    assert r.json()["error"].startswith("internal error")


def test_the_documented_example_hand_scores(client):
    example = client.get("/openapi.json").json()["components"]["schemas"]["HandIn"]["examples"][0]
    r = client.post("/v1/hands/score", json=example)
    assert r.status_code == 200, r.text
    assert r.json()["points"] > 0


# Ron on 4s: pinfu, riichi when asked (the tester's hand).
PINFU = {"concealed": "123456m456p23s55p4s", "win_tile": "4s"}


@pytest.mark.parametrize("key,value", [
    ("riichi", "yes"), ("riichi", "off"), ("riichi", 1), ("riichi", "y"), ("riichi", "true"), ("ippatsu", 0),
    ("honba", "3"), ("honba", True), ("kyotaku", "2"), ("nukidora", "2"), ("players", "4"), ("players", True),
])
def test_flags_and_counters_are_taken_as_the_engine_takes_them(client, key, value):
    """Pydantic's lax mode scored "riichi": "yes" as riichi, "off" as false, and "honba": true as 1 honba; the
    engine (`score_json`, `tsumo batch`) refuses them, so the API does too, naming the field."""
    hand = {**PINFU, key: value}
    assert score_json(hand)["error"], "the engine refuses it"
    r = client.post("/v1/hands/score", json=hand)
    assert r.status_code == 422, r.text
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", key]
    assert key == "players" or repr(value) in err["msg"]  # players: "Input should be 3 or 4"


def test_a_whole_float_count_scores_as_the_engine_scores_it(client):
    hand = {**PINFU, "riichi": True, "honba": 3.0, "kyotaku": 2.0}
    r = client.post("/v1/hands/score", json=hand)
    assert r.status_code == 200, r.text
    assert r.json() == score_json(hand) and r.json()["total"] == score_json({**PINFU, "riichi": True, "honba": 3,
                                                                          "kyotaku": 2})["total"]
    assert client.post("/v1/hands/score", json={**PINFU, "honba": 3.5}).status_code == 422


@pytest.mark.parametrize("value", [True, False, 0, 1.5, -7, "", "case-7", {"game": 3, "hand": [1, "E"]}, [1, None]])
def test_any_json_id_is_echoed_unchanged(client, value):
    """CONTRACTS §1: `id` is echoed back, as `tsumo batch` does: "id": true came back 1; 1.5 and objects were 422."""
    r = client.post("/v1/hands/score", json={**HAND, "id": value})
    assert r.status_code == 200, r.text
    assert type(r.json()["id"]) is type(value) and r.json()["id"] == value
    from api.schemas import ScoreResult

    assert ScoreResult.model_validate(r.json()).model_dump(mode="json")["id"] == value


def test_an_id_that_json_cannot_echo_is_422_naming_it(client):
    raw = b'{"concealed": "123m456p789s11122z", "win_tile": "2z", "id": {"n": NaN}}'
    r = client.post("/v1/hands/score", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", "id"]
    schema = client.get("/openapi.json").json()["components"]["schemas"]["HandIn"]["properties"]["id"]
    assert "echoed" in schema["description"] and "type" not in schema and "anyOf" not in schema
