"""`POST /v1/hands/score`: CONTRACTS §1 → §2, the phone page's instant rescoring path.

The shape is checked by `HandIn` (422 naming the field). A well-formed hand the engine refuses
(not a winning shape, no yaku, five of a tile, unknown rule field…) is also a 422: the body is the
§2 result with its `error` (what tools that read §2 expect) plus a FastAPI-style `detail` naming the
field at fault, so a client can treat both kinds of 422 alike.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from api.request_log import log_fields
from api.schemas import ErrorBody, HandIn, ScoreResult
from api.strict_json import StrictJsonRoute
from scoring import score_json

# The body is parsed once, strictly: a key given twice is a 422 naming it (json.loads keeps the last).
router = APIRouter(prefix="/v1/hands", tags=["hands"], route_class=StrictJsonRoute)


def error_location(result: dict[str, Any]) -> list[Any]:
    """Where the engine says the problem is (`melds[1].tiles` → body, melds, 1, tiles)."""
    field = result.get("error_field") or result.get("field")
    loc: list[Any] = ["body"]
    if isinstance(field, str) and field:
        for part in field.replace("]", "").replace("[", ".").split("."):
            if part:
                loc.append(int(part) if part.isdigit() else part)
    return loc


@router.post(
    "/score",
    response_model=ScoreResult,
    responses={
        400: {"model": ErrorBody, "description": "the body cannot be parsed (e.g. not UTF-8, nested too deeply)"},
        413: {"model": ErrorBody, "description": "the body is over the JSON size limit"},
        422: {"description": "malformed input, or a hand the engine cannot score (§2 body with `error` and a `detail`)"},
        500: {"description": "the engine failed on this hand (a bug): §2 body with `error`"},
    },
    summary="Score a hand given as CONTRACTS §1 JSON",
)
async def score_hand(hand: HandIn, request: Request) -> Any:
    """Score one hand. Defaults: ron, East round, East seat, no dora, the preset's players."""
    result = score_json(hand.to_contract())
    fields = log_fields(request)
    if result.get("error"):
        fields["score_error"] = result["error"]
        if result["error"].startswith("internal error"):  # the engine's own bug, not the caller's input
            return JSONResponse({**result, "detail": result["error"]}, status_code=500)
        detail = [{"type": "hand_invalid", "loc": error_location(result), "msg": result["error"]}]
        return JSONResponse({**result, "detail": detail}, status_code=422)
    fields.update(han=result.get("han"), points=result.get("points"))
    return JSONResponse(result)
