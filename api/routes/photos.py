"""`POST /v1/photos/read` and `POST /v1/photos/score` (CONTRACTS §4).

Order of checks, cheapest first, so bad requests cost nothing: body size (413, enforced while the
upload streams, by `api.body_limit`) and a whole multipart body (400 when it stops before its closing
boundary, `MultipartRequest`) → the form's fields (422 naming an unknown or repeated one)
→ `context` (422 naming the field, incl. the rule set) → room in the queue (503 + Retry-After,
before the photo is held in memory) → the image header (415 not an image we read, 422
corrupt/empty, 413 too many pixels — before any decode, so a decompression bomb is refused in
microseconds; a JPEG over the limit is decoded at 1/2…1/8 instead) → a free inference slot →
decode and read in a worker thread. With `keep=true` the photo is saved before that, in a thread of its
own (not an inference slot), so a photo the decoder or the reader fails on is kept too, its sidecar saying
why; a keep that fails is reported, never fatal.

Both routes make the same §1 hand of the reading (`_request_hand`): the context's `win_tile` may pick
another winning tile or complete a 13-tile reading, and one that fits no hand read is a 422 with the
reading. /read uses only the context keys that change the reading or the hand and lists the others it was
sent (`unused_context`: CONTRACTS §4 lets any §1 key through, so they are named, not refused or dropped).
"""
from __future__ import annotations

import itertools
import json
import logging
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from python_multipart.multipart import parse_options_header

from api.context import merge_hand, parse_context, players_for, resolve_context_rules, unused_by_read
from api.deps import GateDep, ReaderDep, SettingsDep
from api.inference import Saturated
from api.keep import KeepOutcome, record_keep
from api.request_log import LOGGER_NAME, log_fields, request_id
from api.routing import RequestClassRoute
from api.schemas import ErrorBody, ImageInfo, PhotoContext, PhotoErrorBody, PhotoReadResponse, PhotoScoreResponse
from api.settings import ApiSettings
from scoring import score_json
from vision.io import ImageError, load_image, probe_image


class MultipartRequest(Request):
    """A request whose multipart body must reach its closing boundary (`--BOUNDARY--`).

    python-multipart stops at the last byte without a word (its `finalize` does not check the end yet), so a
    cut-off upload lost its unfinished parts and was told "photo: Field required". Here it is the 400 of a
    body that cannot be parsed. Only a body with no closing boundary at all is refused: a whole one never is."""

    async def stream(self) -> AsyncGenerator[bytes, None]:
        kind, params = parse_options_header(self.headers.get("content-type"))
        boundary = params.get(b"boundary")
        if kind != b"multipart/form-data" or not boundary:  # Starlette names a missing boundary itself
            async for chunk in super().stream():
                yield chunk
            return
        close = b"--" + boundary + b"--"
        seen, tail = False, b""
        async for chunk in super().stream():
            if not seen and chunk:
                seen = close in tail + chunk[:len(close)] or close in chunk  # it may straddle two chunks
                tail = (tail + chunk[-len(close):])[-len(close):]
            yield chunk
        if not seen:
            raise HTTPException(400, f"the multipart body is broken: it ends before its closing boundary "
                                     f"({close.decode('latin-1')[:80]}), so it was cut off on the way or built "
                                     "wrong; send the whole request again")


class MultipartRoute(RequestClassRoute):
    """`APIRouter(route_class=MultipartRoute)`: its routes read their form with `MultipartRequest`."""

    request_class = MultipartRequest


router = APIRouter(prefix="/v1/photos", tags=["photos"], route_class=MultipartRoute)

PhotoField = Annotated[
    UploadFile,
    File(description="the photo: JPEG, PNG, WebP or HEIC/HEIF; the type is read from the bytes, not the name"),
]
ContextField = Annotated[
    str | None,
    Form(
        description='JSON object with any CONTRACTS §1 key except the tiles, e.g. '
        '`{"rules": "tenhou", "win": "tsumo", "seat_wind": "S", "dora_indicators": ["3m"]}`',
    ),
]
ReadContextField = Annotated[
    str | None,
    Form(
        description='JSON object, as for /v1/photos/score (CONTRACTS §4). The keys that change the reading or the '
        'hand are used: `rules`, `players` (the player count the reader looks for), `win_tile` (another winning '
        'tile, or the one a 13-tile reading lacks) and `nukidora`, e.g. `{"win_tile": "4s"}`. The others only '
        'matter to a score: checked, then listed in the answer\'s `unused_context`',
    ),
]
KeepField = Annotated[
    bool,
    Form(description="keep the uploaded photo (and its reading) on the server; off by default"),
]

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "the multipart body cannot be parsed"},
    413: {"model": PhotoErrorBody, "description": "request body or image pixel count over the limit"},
    415: {"model": PhotoErrorBody, "description": "the photo is not an image type the reader takes"},
    503: {"model": PhotoErrorBody, "description": "models loading, or every inference slot busy (see Retry-After)"},
}

FORM_FIELDS = ("photo", "context", "keep")


async def check_form_fields(request: Request) -> None:
    """Refuse unknown and repeated form fields by name. A misspelt `context` was dropped silently
    (the hand scored without its riichi, dora, winds…), and of two photos only the last was read."""
    form = await request.form()  # already parsed by FastAPI for the route: cached, no second read
    errors: list[dict[str, Any]] = []
    for key in dict.fromkeys(form.keys()):
        count = len(form.getlist(key))
        if key not in FORM_FIELDS:
            errors.append({"type": "extra_forbidden", "loc": ("body", key[:100]), "input": None,
                           "msg": f"unknown form field {key[:100]!r}; the fields are 'photo' (the image file), "
                                  "'context' (JSON text) and 'keep'"})
        elif count > 1:
            what = "one photo per request" if key == "photo" else f"'{key}' once"
            errors.append({"type": "too_many_parts", "loc": ("body", key), "input": None,
                           "msg": f"{count} '{key}' fields in one request; send {what}"})
    if errors and "photo" not in form:
        errors.append({"type": "missing", "loc": ("body", "photo"), "msg": "Field required", "input": None})
    if errors:
        raise RequestValidationError(errors)


FormChecked = Annotated[None, Depends(check_form_fields)]

IMAGE_STATUS = {"unsupported": 415, "too_large": 413, "corrupt": 422, "empty": 422}


def _image_error(exc: Exception) -> Exception:
    """`vision.io.ImageError` → the HTTP error for it (the photo field named on 422)."""
    status = IMAGE_STATUS.get(getattr(exc, "kind", ""), 422)
    if status == 422:
        return RequestValidationError(
            [{"type": f"image_{getattr(exc, 'kind', 'invalid')}", "loc": ("body", "photo"), "msg": str(exc), "input": None}]
        )
    return HTTPException(status, f"photo: {exc}")


def _check_header(data: bytes, settings: ApiSettings) -> ImageInfo:
    """Format and size from the header only; refuse what we will not decode."""
    if not data:
        raise RequestValidationError(
            [{"type": "image_empty", "loc": ("body", "photo"), "msg": "the uploaded photo is empty (0 bytes)", "input": None}]
        )
    try:
        info = probe_image(data)
    except ImageError as exc:
        raise _image_error(exc) from exc
    pixels = info.width * info.height
    size = info.read_size(settings.max_pixels)  # a big JPEG is decoded at 1/2…1/8 (boxes are in that size)
    if size is None:
        raise HTTPException(
            413,
            f"photo: {info.width}×{info.height} = {pixels:,} pixels is over this server's limit of "
            f"{settings.max_pixels:,} pixels; send a smaller photo",
        )
    width, height = size
    if getattr(info, "orientation", 1) in (5, 6, 7, 8):  # EXIF turns it a quarter: boxes use the turned size
        width, height = height, width
    return ImageInfo(format=str(info.format).lower(), width=width, height=height)


def _busy(gate: Any, exc: Saturated, fields: dict[str, Any]) -> HTTPException:
    fields["saturated"] = True
    return HTTPException(
        503, f"all {gate.workers} photo workers are busy and {gate.queue} photos are waiting; retry shortly",
        headers={"Retry-After": str(exc.retry_after)},
    )


@dataclass(frozen=True)
class Kept:
    """A photo saved for `keep=true`: where, and when it was received (its sidecar says the same time)."""

    photo: Path
    received: datetime


def _keep_photo(settings: ApiSettings, rid: str, data: bytes, info: ImageInfo) -> Kept:
    """Save the photo under `keep_dir/YYYY-MM-DD/`, never over another one (a client that reuses
    its X-Request-ID within a second overwrote the earlier photo)."""
    now = datetime.now(timezone.utc)
    folder = settings.photos_dir / now.strftime("%Y-%m-%d")
    folder.mkdir(parents=True, exist_ok=True)
    ext = {"jpeg": "jpg"}.get(info.format, info.format)
    stem = f"{now.strftime('%H%M%S')}-{rid}"
    for n in itertools.count():
        path = folder / (f"{stem}.{ext}" if n == 0 else f"{stem}-{n}.{ext}")
        try:
            with open(path, "xb") as f:
                f.write(data)
            return Kept(path, now)
        except FileExistsError:
            continue
    raise AssertionError("unreachable")


def _keep_sidecar(kept: Kept, rid: str, info: ImageInfo, context: PhotoContext, reading: dict | None,
                  error: str | None = None) -> None:
    """The JSON next to a kept photo: context and reading (or the error that stopped the read)."""
    sidecar = {"request_id": rid, "received": kept.received.isoformat(), "image": info.model_dump(),
               "context": context.model_dump(exclude_unset=True), "reading": reading}
    if error is not None:
        sidecar["error"] = error
    kept.photo.with_suffix(".json").write_text(json.dumps(sidecar, ensure_ascii=False, indent=1))


async def _keep_sidecar_quietly(kept: Kept, *args: Any) -> bool:
    """`_keep_sidecar` off the event loop; False (logged) when the disk refuses it: never the client's fault."""
    try:
        await anyio.to_thread.run_sync(_keep_sidecar, kept, *args)
        return True
    except OSError as exc:
        logging.getLogger(LOGGER_NAME).error("keep sidecar failed", exc_info=exc,
                                             extra={"fields": {"event": "keep_failed", "photo": kept.photo.name}})
        return False


def _kept_name(kept: Kept) -> str:
    return str(Path(kept.photo.parent.name) / kept.photo.name)


async def _read(
    request: Request, photo: UploadFile, context_raw: str | None, keep: bool,
    settings: ApiSettings, reader: Any, gate: Any,
) -> tuple[PhotoReadResponse, PhotoContext, Any]:
    started = time.perf_counter()
    if keep:  # until the photo is saved, any refusal (context, queue, header) says it was not (`api.keep`)
        record_keep(request, KeepOutcome(None, "the photo was not kept: the request was refused before it "
                                               "would have been saved"))
    context = parse_context(context_raw)
    rules = resolve_context_rules(context)
    players = players_for(context, rules)
    try:
        gate.check()  # refuse before holding the photo in memory if it would be refused anyway
    except Saturated as exc:
        raise _busy(gate, exc, log_fields(request)) from exc
    data = await photo.read()
    info = _check_header(data, settings)  # (a damaged or empty photo is refused before it would be kept)
    fields = log_fields(request)
    fields.update(image=f"{info.format} {info.width}x{info.height}", bytes=len(data))

    rid = request_id(request)
    kept = kept_name = keep_error = None
    if keep:  # before the read (its own thread, not an inference slot), so a photo that breaks the reader is kept too
        try:
            kept = await anyio.to_thread.run_sync(_keep_photo, settings, rid, data, info)
            kept_name = fields["kept"] = _kept_name(kept)
        except OSError as exc:  # the server's disk, not the client's photo: read it anyway
            keep_error = f"the photo could not be kept ({type(exc).__name__}: {exc})"
            logging.getLogger(LOGGER_NAME).error(
                "keep failed", exc_info=exc, extra={"fields": {"event": "keep_failed", "request_id": rid}})
        # every answer from here on, error or not, says where the photo is or why it is not (`api.keep`)
        record_keep(request, KeepOutcome(kept_name, keep_error))

    def decode_and_read() -> tuple[Any, dict[str, float]]:
        t0 = time.perf_counter()
        image = load_image(data, max_pixels=settings.max_pixels)
        t1 = time.perf_counter()
        reading = reader.read(image, players=players)
        t2 = time.perf_counter()
        return reading, {"decode": (t1 - t0) * 1000, "read": (t2 - t1) * 1000}

    queued = time.perf_counter()
    try:
        try:
            reading, timings = await gate.run(decode_and_read)
        except Exception as exc:  # the kept photo says why it has no reading (busy, damaged, a reader bug)
            if kept is not None:
                await _keep_sidecar_quietly(kept, rid, info, context, None, f"{type(exc).__name__}: {exc}")
            raise
    except Saturated as exc:
        raise _busy(gate, exc, fields) from exc
    except ImageError as exc:
        raise _image_error(exc) from exc
    done = time.perf_counter()
    reading_json = reading.to_json()
    timings["queue"] = max(0.0, (done - queued) * 1000 - timings["decode"] - timings["read"])
    if kept is not None and not await _keep_sidecar_quietly(kept, rid, info, context, reading_json):
        keep_error = "the photo was kept but its reading could not be written beside it"
        record_keep(request, KeepOutcome(kept_name, keep_error))
    if keep_error:
        fields["keep_error"] = keep_error
    timings["total"] = (time.perf_counter() - started) * 1000
    timings = {k: round(v, 1) for k, v in timings.items()}
    fields.update(tiles=len(reading_json.get("tiles") or []), hand=bool(reading_json.get("hand")), **{f"{k}_ms": v for k, v in timings.items()})
    response = PhotoReadResponse(image=info, reading=reading_json, kept=kept_name, keep_error=keep_error,
                                 timings_ms=timings)
    return response, context, reading


class WinTileRefused(Exception):
    """The context's `win_tile` fits no hand that was read: a 422 naming it (with the reading, to correct)."""

    def __init__(self, kind: str, message: str, win_tile: str):
        super().__init__(message)
        self.detail = [{"type": kind, "loc": ["body", "context", "win_tile"], "msg": message, "input": win_tile}]


def _request_hand(read: PhotoReadResponse, reading: Any, context: PhotoContext) -> dict[str, Any] | None:
    """The §1 hand this request makes of the photo: the reading's, with the context's keys merged in (they win).

    A `win_tile` may pick another of the hand's tiles or complete a 13-tile reading (the reader knows how);
    one that does neither raises `WinTileRefused`. None when no hand was read (`reading.error` says why)."""
    read_hand = read.reading.hand
    if context.win_tile is not None and hasattr(reading, "hand_with_win"):
        try:
            read_hand = reading.hand_with_win(context.win_tile)
        except ValueError as exc:
            partial = (read.reading.model_extra or {}).get("partial") or {}
            if read_hand:  # a hand was read and the tile is not in it: the context is wrong
                raise WinTileRefused("win_tile_not_in_hand", str(exc), context.win_tile) from exc
            if partial.get("waits"):  # 13 tiles read, waiting: the user's tile is not one they wait on
                melds = "".join(f" + {m.get('tiles')}" for m in partial.get("melds") or [])
                raise WinTileRefused(
                    "win_tile_not_a_wait",
                    f"{context.win_tile} does not complete the hand read ({partial.get('concealed')}{melds}): "
                    f"it waits on {' '.join(partial['waits'])}", context.win_tile) from exc
            read_hand = None  # no hand read: the same answer as without a win_tile, saying why
    if not read_hand or not read_hand.get("concealed"):
        return None
    return merge_hand(read_hand, context)


@router.post("/read", response_model=PhotoReadResponse, responses=ERRORS, summary="Read the tiles in a photo")
async def read_photo(
    request: Request, photo: PhotoField, settings: SettingsDep, reader: ReaderDep, gate: GateDep, _: FormChecked,
    context: ReadContextField = None, keep: KeepField = False,
) -> Any:
    """Every tile found (box, class, confidence, candidates), the groups, and the hand (§1 tile
    keys) when one could be read: as read in `reading`, with the context's `win_tile` in `hand`."""
    read, ctx, reading = await _read(request, photo, context, keep, settings, reader, gate)
    unused = unused_by_read(ctx)
    try:  # (the hand carries only the keys /read uses: riichi in it would contradict `unused_context`)
        hand = _request_hand(read, reading, ctx.model_copy(update=dict.fromkeys(unused)))
    except WinTileRefused as exc:  # the reading (a second of inference) comes back with the 422
        return JSONResponse({**read.model_dump(mode="json"), "detail": exc.detail}, status_code=422)
    return PhotoReadResponse(**{**read.model_dump(), "hand": hand, "unused_context": unused})


@router.post("/score", response_model=PhotoScoreResponse, responses=ERRORS, summary="Read a photo and score the hand")
async def score_photo(
    request: Request, photo: PhotoField, settings: SettingsDep, reader: ReaderDep, gate: GateDep, _: FormChecked,
    context: ContextField = None, keep: KeepField = False,
) -> Any:
    """The reading, the §1 hand (reading + context; context wins, e.g. `win_tile`) and its §2
    score. A photo without a complete hand, or a hand the engine refuses, is still a 200: the
    reading is returned so a client can correct tiles, with `error` saying why there is no score."""
    read, ctx, reading = await _read(request, photo, context, keep, settings, reader, gate)
    try:
        hand = _request_hand(read, reading, ctx)
    except WinTileRefused as exc:  # the context is wrong (422), but the reading comes back, to correct and rescore
        body = PhotoScoreResponse(**read.model_dump(), error=str(exc)).model_dump(mode="json")
        return JSONResponse({**body, "detail": exc.detail}, status_code=422)
    if hand is None:
        extra = read.reading.model_extra or {}
        message = extra.get("error") or "no complete hand could be read in the photo"
        return PhotoScoreResponse(**read.model_dump(), error=message)
    result = score_json(hand)
    log_fields(request).update(han=result.get("han"), points=result.get("points"), score_error=result.get("error"))
    return PhotoScoreResponse(**{**read.model_dump(), "hand": hand}, result=result, error=result.get("error"))
