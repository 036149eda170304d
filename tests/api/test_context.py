"""The photo `context` field: parsing (422 naming the field) and merging into the read hand."""
from __future__ import annotations

import pytest
from fastapi.exceptions import RequestValidationError

from api.context import merge_hand, parse_context, players_for, resolve_context_rules


def test_empty_context_is_all_defaults():
    for raw in (None, "", "  "):
        ctx = parse_context(raw)
        assert ctx.model_dump(exclude_unset=True) == {}


def test_context_keeps_only_what_was_given():
    ctx = parse_context('{"win": "tsumo", "dora_indicators": ["3m"], "riichi": true, "honba": 2}')
    assert ctx.model_dump(exclude_unset=True) == {"win": "tsumo", "dora_indicators": ["3m"], "riichi": True, "honba": 2}


def test_tiles_in_context_are_refused_by_name():
    with pytest.raises(RequestValidationError) as exc:
        parse_context('{"concealed": "123m", "win": "ron"}')
    err = exc.value.errors()[0]
    assert err["loc"] == ("body", "context", "concealed")
    assert "/v1/hands/score" in err["msg"]


def test_merge_user_context_wins_over_the_reading():
    read = {"concealed": "123m456p789s11122z", "win_tile": "2z", "melds": [], "nukidora": 0}
    ctx = parse_context('{"win_tile": "1z", "win": "tsumo", "seat_wind": "S"}')
    hand = merge_hand(read, ctx)
    assert hand == {"concealed": "123m456p789s11122z", "win_tile": "1z", "melds": [], "nukidora": 0,
                    "win": "tsumo", "seat_wind": "S"}
    assert read["win_tile"] == "2z", "the reading itself is not changed"


def test_merge_drops_null_reading_keys():
    hand = merge_hand({"concealed": "11z", "win_tile": "1z", "melds": None}, parse_context(None))
    assert hand == {"concealed": "11z", "win_tile": "1z"}


def test_players_from_context_then_rules():
    assert players_for(parse_context('{"players": 3}'), resolve_context_rules(parse_context(None))) == 3
    assert players_for(parse_context(None), resolve_context_rules(parse_context('{"rules": "sanma"}'))) == 3
    assert players_for(parse_context(None), resolve_context_rules(parse_context(None))) == 4


def test_rule_override_errors_name_the_rule_field():
    with pytest.raises(RequestValidationError) as exc:
        resolve_context_rules(parse_context('{"rules": {"preset": "tenhou", "honba_points": "lots"}}'))
    assert exc.value.errors()[0]["loc"] == ("body", "context", "rules", "honba_points")


@pytest.mark.parametrize("raw,key", [
    ('{"riichi": "yes"}', "riichi"), ('{"riichi": 1}', "riichi"), ('{"haitei": "false"}', "haitei"),
    ('{"honba": "3"}', "honba"), ('{"honba": true}', "honba"), ('{"kyotaku": "2"}', "kyotaku"),
    ('{"nukidora": "2"}', "nukidora"),
])
def test_context_flags_and_counters_are_strict_like_the_engine(raw, key):
    """The photo context took "yes" for riichi and true for 1 honba (pydantic's lax mode), as /v1/hands/score did."""
    with pytest.raises(RequestValidationError) as exc:
        parse_context(raw)
    assert exc.value.errors()[0]["loc"] == ("body", "context", key)
    whole = parse_context('{"honba": 3.0, "riichi": false}')
    assert whole.model_dump(exclude_unset=True) == {"honba": 3, "riichi": False}
