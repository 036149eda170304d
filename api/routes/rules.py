"""`GET /v1/rules` and `GET /v1/rules/{name}`: the rule-set presets and every field they set."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any

from fastapi import APIRouter, HTTPException

from api.schemas import ErrorBody, RuleField, RuleSetDetail, RuleSetSummary
from scoring import PRESETS
from scoring import rules as rules_module

router = APIRouter(prefix="/v1/rules", tags=["rules"])


def _plain(value: Any) -> Any:
    """Rule values as JSON: enums by value, tuples/sets as lists, nested dataclasses as dicts."""
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, (tuple, list, set, frozenset)):
        items = [_plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _summary(name: str, rules: Any) -> RuleSetSummary:
    summaries = getattr(rules_module, "SUMMARIES", {})
    return RuleSetSummary(name=name, players=int(getattr(rules, "players", 4)), description=summaries.get(name))


@router.get("", response_model=list[RuleSetSummary], summary="List the rule-set presets")
async def list_rules() -> list[RuleSetSummary]:
    """Every preset a hand's `rules` may name, with its player count."""
    return [_summary(name, rules) for name, rules in PRESETS.items()]


@router.get(
    "/{name}", response_model=RuleSetDetail, responses={404: {"model": ErrorBody}},
    summary="One preset: every rule field, its value and what it means",
)
async def get_rules(name: str) -> RuleSetDetail:
    """The fields a `{"preset": name, ...}` object may override, with this preset's values."""
    name = name.strip().lower()  # as hands accept them: "Tenhou" is "tenhou"
    rules = PRESETS.get(name)
    if rules is None:
        raise HTTPException(404, f"no rule set named {name!r}; known: {', '.join(PRESETS)}")
    fields = []
    for f in dataclasses.fields(rules):
        choices = f.metadata.get("choices")
        fields.append(RuleField(
            name=f.name, value=_plain(getattr(rules, f.name)), doc=f.metadata.get("doc"),
            default=_plain(f.default) if f.default is not dataclasses.MISSING else None,
            choices=[_plain(c) for c in choices] if choices else None,
        ))
    return RuleSetDetail(**_summary(name, rules).model_dump(), fields=fields)
