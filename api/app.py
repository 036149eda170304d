"""The FastAPI application: `create_app(settings)` builds one, with its own state.

    uvicorn --factory api.app:create_app        # settings from TSUMO_* environment variables
    tsumo serve --port 8000 --models models/    # the same, with flags

The lifespan starts loading the photo reader (once, in a thread) and the server answers at once:
`/healthz` is 503 "loading" until the models are in, then 200. Hand scoring and the rules never
wait for the models. Docs (Swagger UI, ReDoc) are served from local files, no CDN.
"""
from __future__ import annotations

import logging
import math
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.body_limit import BodyLimitMiddleware
from api.inference import InferenceGate, Reader, ReaderState
from api.keep import keep_fields, keep_note
from api.request_log import LOGGER_NAME, RequestLogMiddleware, request_id
from api.routes import hands, health, page, photos, rules
from api.settings import ApiSettings
from scoring.strict_json import not_utf8

ReaderFactory = Callable[[ApiSettings], Reader]

DESCRIPTION = """Score riichi-mahjong hands from a photo or from JSON.

* `POST /v1/photos/score` — a photo (+ optional context) → the tiles read, the hand, its score.
* `POST /v1/photos/read` — the reading only.
* `POST /v1/hands/score` — a hand as JSON (CONTRACTS §1) → its score (§2).
* `GET /v1/rules` — the rule-set presets; `GET /v1/rules/{name}` — every field of one.

The phone page is at `/`.
"""


def load_photo_reader(settings: ApiSettings) -> Reader:
    """The real reader: both ONNX models from `settings.models_dir` (or the shipped ones)."""
    from vision.pipeline import PhotoReader

    return PhotoReader(models_dir=settings.models_dir, threads=settings.reader_threads)


def json_safe(value: Any) -> Any:
    """`value` with every non-finite float as its JSON-ish spelling ("NaN", "Infinity", "-Infinity").

    Python's JSON parser accepts NaN, Infinity and 1e999 (→ inf), so a 422 that echoes the client's
    input could hold them, and a strict JSON response cannot: the error itself would become a 500."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


FASTAPI_BODY_ERROR = "There was an error parsing the body"


def body_error_message(cause: BaseException | None) -> str:
    """What FastAPI's bare "There was an error parsing the body" (400) was about."""
    if isinstance(cause, UnicodeDecodeError):
        return f"the request body is {not_utf8(cause)}; send JSON encoded as UTF-8"
    if isinstance(cause, RecursionError):
        return "the JSON body is nested too deeply to parse"
    if cause is None:
        return "the request body cannot be parsed"
    return f"the request body cannot be parsed ({type(cause).__name__}: {str(cause)[:200]})"


def describe_inputs(errors: list[dict[str, Any]], content_type: str | None = None) -> list[dict[str, Any]]:
    """Validation errors with an uploaded file as input described, not dumped (its internals
    leaked into the 422: spool objects, temp-file arguments), and a JSON body sent under another
    content type (`curl -d` says form-urlencoded) told so, not "Input should be a valid dictionary"."""
    out = []
    for err in errors:
        value = err.get("input")
        if tuple(err.get("loc") or ()) == ("body",) and isinstance(value, (str, bytes)) and (
                "json" not in (content_type or "").lower()):
            err = {**err, "msg": "the body must be a JSON object sent with Content-Type: application/json "
                                 f"(this request's Content-Type: {content_type or 'none'})"}
        if isinstance(value, UploadFile):
            err = {**err, "input": f"a file upload ({value.filename!r}, {value.size} bytes)"}
            if err.get("type") == "string_type":
                err["msg"] = "must be a plain form field holding text, not a file upload"
        elif "Expected UploadFile" in str(err.get("msg")):
            err = {**err, "msg": "must be a file upload (the image), not a text field"}
            err.pop("ctx", None)
        out.append(err)
    return out


class HeadAsGet:
    """HEAD answered wherever GET is: same status and headers, no body. FastAPI's routes answered HEAD with 405,
    and uptime monitors probe `/healthz` and `/` with HEAD. The GET runs (every GET here is cheap and safe)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body"):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, without_body)


def create_app(settings: ApiSettings | None = None, reader_factory: ReaderFactory | None = None) -> FastAPI:
    """Build the app. `reader_factory(settings)` makes the photo reader (default: the ONNX one)."""
    settings = settings or ApiSettings.from_env()
    factory = reader_factory or load_photo_reader

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state: ReaderState = app.state.reader_state
        if settings.load_models:
            # A daemon thread, not the request thread pool: loading must not take a request slot,
            # and the server must answer /healthz (503 "loading") meanwhile.
            threading.Thread(
                target=state.load, args=(lambda: factory(settings),), name="tsumo-model-load", daemon=True
            ).start()
        yield

    app = FastAPIOffline(
        title="Tsumo",
        version="1.0",
        summary="Point a phone at a winning riichi-mahjong hand and get its score.",
        description=DESCRIPTION,
        lifespan=lifespan,
        static_url="/static-docs",
    )
    app.state.settings = settings
    app.state.reader_state = ReaderState(status="loading" if settings.load_models else "disabled")
    app.state.gate = InferenceGate(workers=settings.inference_workers, queue=settings.inference_queue)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        """FastAPI's 422 (`detail`: a list naming each field), with the echoed input made JSON-safe
        and readable (`describe_inputs`)."""
        errors = describe_inputs(exc.errors(), request.headers.get("content-type"))
        if note := keep_note(request):  # a photo kept before it failed to decode
            errors = [{**e, "msg": f"{e['msg']} ({note})"} for e in errors]
        return JSONResponse({"detail": json_safe(jsonable_encoder(errors)), **keep_fields(request)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Any:
        """FastAPI's own handling, with its bare body-parsing 400 made to say what is wrong."""
        if exc.status_code == 400 and exc.detail == FASTAPI_BODY_ERROR:
            exc = StarletteHTTPException(400, body_error_message(exc.__cause__), headers=exc.headers)
        if keep := keep_fields(request):  # a keep=true photo refused later (413, 415, 503): where it is
            note = keep_note(request)
            return JSONResponse({"detail": f"{exc.detail} ({note})" if note else exc.detail, **keep},
                                status_code=exc.status_code, headers=exc.headers)
        return await http_exception_handler(request, exc)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        """A bug is still a JSON answer (with the id to find its traceback in the log), never a crash."""
        rid = request_id(request)
        logging.getLogger(LOGGER_NAME).error(
            "unhandled error", exc_info=exc, extra={"fields": {"event": "error", "request_id": rid}})
        note = keep_note(request)
        also = f"; {note}" if note else ""
        return JSONResponse(
            {"detail": f"internal error ({type(exc).__name__}); please report request {rid}{also}",
             **keep_fields(request)},
            status_code=500)

    app.include_router(health.router)
    app.include_router(hands.router)
    app.include_router(rules.router)
    app.include_router(photos.router)
    app.include_router(page.router)
    app.mount("/static", StaticFiles(directory=page.STATIC_DIR), name="static")
    app.add_middleware(HeadAsGet)  # innermost: the log and the limits see the HEAD as it came
    app.add_middleware(BodyLimitMiddleware, default=settings.max_json_bytes,
                       limits={"/v1/photos/": settings.max_photo_bytes})
    app.add_middleware(RequestLogMiddleware)  # outermost: every request is logged, 413s included
    return app
