"""Request body limits per path, enforced while the body streams in (413 as JSON, naming the limit).

A declared `Content-Length` over the limit is refused before a byte of the body is read. Without
one (chunked uploads) the bytes are counted as they arrive and the request is cut off as soon as
the count passes the limit, so a client cannot make the server read or spool more than the limit.

(Starlette/FastAPI have a `max_body_size` too, but it answers a plain-text "Content Too Large"
that does not say what the limit is; API clients get JSON errors everywhere else.)
"""
from __future__ import annotations

import json

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class _TooLarge(Exception):
    pass


class BodyLimitMiddleware:
    """`limits` maps a path prefix to its byte limit; the longest matching prefix wins."""

    def __init__(self, app: ASGIApp, default: int, limits: dict[str, int] | None = None) -> None:
        self.app = app
        self.default = default
        self.limits = sorted((limits or {}).items(), key=lambda kv: -len(kv[0]))

    def limit_for(self, path: str) -> int:
        for prefix, limit in self.limits:
            if path.startswith(prefix):
                return limit
        return self.default

    async def _refuse(self, send: Send, limit: int) -> None:
        body = json.dumps({"detail": f"request body is over this endpoint's limit of {limit:,} bytes"}).encode()
        await send({
            "type": "http.response.start", "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                        (b"connection", b"close")],
        })
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(send, limit)
            return

        received = 0
        exceeded = False
        refused = False

        async def counted_receive() -> Message:
            nonlocal received, exceeded
            if exceeded:
                raise _TooLarge
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    exceeded = True
                    raise _TooLarge
            return message

        async def guarded_send(message: Message) -> None:
            # Once over the limit, whatever the app makes of the broken body (often a 400 "error
            # parsing the body") is replaced by our 413.
            nonlocal refused
            if exceeded:
                if not refused and message["type"] == "http.response.start":
                    refused = True
                    await self._refuse(send, limit)
                return
            await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except Exception:
            if not exceeded:
                raise
            if not refused:  # _TooLarge, or whatever the app turned it into
                refused = True
                await self._refuse(send, limit)
