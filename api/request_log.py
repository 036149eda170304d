"""One JSON log line per request, so a log shipper can index them without parsing prose.

A pure ASGI middleware (cheaper than BaseHTTPMiddleware on the hot hand-scoring path). Route
handlers add fields for their request with `log_fields(request)["tiles"] = 14` and the line
carries them. Every response gets an `X-Request-ID` header matching the log line.
"""
from __future__ import annotations

import json
import logging
import re
import time
import uuid
from datetime import datetime, timezone
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOGGER_NAME = "tsumo.api"
_FIELDS_KEY = "tsumo_log"
_ID_KEY = "tsumo_request_id"
_CLIENT_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class JsonFormatter(logging.Formatter):
    """Each record as one JSON object: time, level, message, and the record's `fields`."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        line.update(getattr(record, "fields", {}) or {})
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def logging_config(level: str = "info") -> dict[str, Any]:
    """A `logging.config.dictConfig` for uvicorn (`log_config=`): the server's own messages and
    the API's request lines, all as JSON on stderr. Uvicorn's access log is off: ours replaces it."""
    lvl = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": lvl, "propagate": False},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
            LOGGER_NAME: {"handlers": ["stderr"], "level": lvl, "propagate": False},
        },
    }


def configure_logging(level: str = "info") -> None:
    """Send the API's logs to stderr as JSON lines (called by `tsumo serve`)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger(LOGGER_NAME)
    logger.handlers[:] = [handler]
    logger.setLevel(level.upper())
    logger.propagate = False


def log_fields(request: Request) -> dict[str, Any]:
    """The dict whose items the request's log line will carry (empty if not logged)."""
    return request.scope.get(_FIELDS_KEY, {})


def request_id(request: Request) -> str:
    """The id in this request's log line and `X-Request-ID` header ("" if not logged)."""
    return request.scope.get(_ID_KEY, "")


class RequestLogMiddleware:
    def __init__(self, app: ASGIApp, logger_name: str = LOGGER_NAME) -> None:
        self.app = app
        self.logger = logging.getLogger(logger_name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # A proxy's or client's X-Request-ID is kept (if it is a plain token), to trace one request
        # across systems; otherwise we make one.
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _CLIENT_ID.fullmatch(given) else uuid.uuid4().hex[:16]
        fields: dict[str, Any] = {}
        scope[_FIELDS_KEY] = fields
        scope[_ID_KEY] = request_id
        status = 500
        start = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            client = scope.get("client")
            record = {
                "event": "request",
                "request_id": request_id,
                "method": scope.get("method"),
                "path": scope.get("path"),
                "status": status,
                "ms": round((time.perf_counter() - start) * 1000, 2),
                "client": client[0] if client else None,
                **fields,
            }
            level = logging.ERROR if status >= 500 and status != 503 else logging.INFO
            self.logger.log(level, "request", extra={"fields": record})
