"""`RequestClassRoute`: routes that read their request through a `Request` subclass of their own.

FastAPI's documented way to change how a route reads its request ("Custom Request and APIRoute class"):
the route's handler is given the request re-made as `request_class`. `api.strict_json.StrictJsonRoute`
(JSON bodies parsed strictly) and `api.routes.photos.MultipartRoute` (a multipart body must be whole)
set it.
"""
from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute


class RequestClassRoute(APIRoute):
    """`APIRouter(route_class=…)` with a subclass that sets `request_class`."""

    request_class: type[Request] = Request

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        request_class = self.request_class

        async def handle(request: Request) -> Response:
            return await handler(request_class(request.scope, request.receive))

        return handle
