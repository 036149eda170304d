"""FastAPI routes that parse a JSON body with `scoring.strict_json.loads` (a key given twice and
absurd nesting refused), once, before FastAPI validates it.
"""
from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request

from api.routing import RequestClassRoute
from scoring.strict_json import JsonProblem, loads

__all__ = ["JsonProblem", "StrictJsonRequest", "StrictJsonRoute", "loads"]


class StrictJsonRequest(Request):
    """A request whose `json()` (what FastAPI parses a JSON body with) is `loads` above.

    A key given twice is a 422 naming it, like any field error; nesting too deep is a 400, as the
    body cannot be parsed. (FastAPI passes an `HTTPException` from here through as it is.)"""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = loads(await self.body())
            except JsonProblem as exc:
                if exc.kind == "json_too_deep":
                    raise HTTPException(400, str(exc)) from exc
                error = {"type": exc.kind, "loc": ["body", *exc.loc], "msg": str(exc), "input": None}
                raise HTTPException(422, [error]) from exc
        return self._json


class StrictJsonRoute(RequestClassRoute):
    """`APIRouter(route_class=StrictJsonRoute)`: its routes read JSON bodies with `StrictJsonRequest`."""

    request_class = StrictJsonRequest
