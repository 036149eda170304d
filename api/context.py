"""The photo request's `context` field: parse it, and merge it into the hand the photo gave.

Kept apart from the routes so the rules (what context may say, what wins over the reading) are
plain functions with their own tests.
"""
from __future__ import annotations

import json
from typing import Any

from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from api import strict_json
from api.schemas import PhotoContext
from scoring import HandError, resolve_rules

TILE_KEYS = ("concealed", "melds")
# What /v1/photos/read takes: the keys that change the reading or the hand it gives (a winning tile, set-aside
# norths, the player count the reader looks for). The rest (winds, dora, flags, counters…) only matter to a score.
READ_KEYS = ("rules", "players", "win_tile", "nukidora")
LOC = ("body", "context")


def _error(loc: tuple[Any, ...], msg: str, kind: str, value: Any) -> RequestValidationError:
    return RequestValidationError([{"type": kind, "loc": (*LOC, *loc), "msg": msg, "input": value}])


def parse_context(raw: str | None) -> PhotoContext:
    """A `context` form value → `PhotoContext`; a 422-ready error naming the field if it is wrong."""
    if raw is None or raw.strip() == "":
        return PhotoContext()
    try:
        data = strict_json.loads(raw)
    except json.JSONDecodeError as exc:
        raise _error((), f"context is not valid JSON: {exc.msg} at character {exc.pos}", "json_invalid", raw) from exc
    except strict_json.JsonProblem as exc:  # a repeated key (which one wins?), absurd nesting
        raise _error(exc.loc, f"context: {exc}", exc.kind, raw[:200]) from exc
    if data is None:  # JSON null: no context, like an absent field
        return PhotoContext()
    if not isinstance(data, dict):
        raise _error((), "context must be a JSON object, e.g. {\"win\": \"tsumo\"}", "dict_type", data)
    for key in TILE_KEYS:
        if key in data:
            raise _error(
                (key,),
                f"'{key}' is read from the photo and cannot be given in context; "
                "to score corrected tiles, POST the whole hand to /v1/hands/score",
                "tiles_from_photo",
                data[key],
            )
    try:
        return PhotoContext.model_validate(data)
    except ValidationError as exc:
        errors = [
            {"type": e["type"], "loc": (*LOC, *e["loc"]), "msg": e["msg"], "input": e.get("input")}
            for e in exc.errors(include_url=False)
        ]
        raise RequestValidationError(errors) from exc


def unused_by_read(context: PhotoContext) -> list[str]:
    """The context keys /v1/photos/read takes (CONTRACTS §4: any §1 key but the tiles) and does not use:
    they only matter to a score. Listed in its answer, never dropped without a word; `null` is "not given"."""
    given = context.model_dump(exclude_unset=True, exclude_none=True)
    return [key for key in given if key not in READ_KEYS]


def merge_hand(read_hand: dict[str, Any], context: PhotoContext) -> dict[str, Any]:
    """The §1 hand to score: the photo's tiles, then every key the user gave (the user wins).

    `win_tile` in context overrides the reading's choice; the engine checks it is in the hand.
    """
    hand = {key: value for key, value in read_hand.items() if value is not None}
    hand.update(context.model_dump(exclude_unset=True, exclude_none=True))  # null = not given
    return hand


def resolve_context_rules(context: PhotoContext) -> Any:
    """The rule set the context names, checked before any photo work (422 naming the field)."""
    try:
        return resolve_rules(context.rules)
    except HandError as exc:
        field = getattr(exc, "field", None) or "rules"
        message = getattr(exc, "message", None) or str(exc)
        raise _error(tuple(field.split(".")), message, "rules_invalid", context.rules) from exc


def players_for(context: PhotoContext, rules: Any) -> int:
    """How many players the reader should assume (3 lets it look for set-aside norths)."""
    if context.players is not None:
        return context.players
    return int(getattr(rules, "players", 4))
