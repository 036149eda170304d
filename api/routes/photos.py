"""`POST /v1/photos/read` and `POST /v1/photos/score` (CONTRACTS §4).

Order of checks, cheapest first, so bad requests cost nothing: body size (413, enforced while the
upload streams, by `api.body_limit`) → `context` (422 naming the field, incl. the rule
set) → room in the queue (503 + Retry-After, before the photo is held in memory) → the image
header (415 not an image we read, 422 corrupt/empty, 413 too many pixels — before any decode, so
a decompression bomb is refused in microseconds) → a free inference slot → decode and read in a
worker thread.
"""
from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.exceptions import RequestValidationError

from api.context import merge_hand, parse_context, players_for, resolve_context_rules
from api.deps import GateDep, ReaderDep, SettingsDep
from api.inference import Saturated
from api.request_log import log_fields, request_id
from api.schemas import ErrorBody, ImageInfo, PhotoContext, PhotoReadResponse, PhotoScoreResponse
from api.settings import ApiSettings
from scoring import score_json
from vision.io import ImageError, load_image, probe_image

router = APIRouter(prefix="/v1/photos", tags=["photos"])

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
KeepField = Annotated[
    bool,
    Form(description="keep the uploaded photo (and its reading) on the server; off by default"),
]

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "the multipart body cannot be parsed"},
    413: {"model": ErrorBody, "description": "request body or image pixel count over the limit"},
    415: {"model": ErrorBody, "description": "the photo is not an image type the reader takes"},
    503: {"model": ErrorBody, "description": "models loading, or every inference slot busy (see Retry-After)"},
}

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
    if pixels > settings.max_pixels:
        raise HTTPException(
            413,
            f"photo: {info.width}×{info.height} = {pixels:,} pixels is over this server's limit of "
            f"{settings.max_pixels:,} pixels; send a smaller photo",
        )
    width, height = info.width, info.height
    if getattr(info, "orientation", 1) in (5, 6, 7, 8):  # EXIF turns it a quarter: boxes use the turned size
        width, height = height, width
    return ImageInfo(format=str(info.format).lower(), width=width, height=height)


def _busy(gate: Any, exc: Saturated, fields: dict[str, Any]) -> HTTPException:
    fields["saturated"] = True
    return HTTPException(
        503, f"all {gate.workers} photo workers are busy and {gate.queue} photos are waiting; retry shortly",
        headers={"Retry-After": str(exc.retry_after)},
    )


def _keep(settings: ApiSettings, rid: str, data: bytes, info: ImageInfo, context: PhotoContext, reading: dict) -> str:
    """Save the photo and a JSON sidecar (context + reading) under `keep_dir/YYYY-MM-DD/`."""
    now = datetime.now(timezone.utc)
    folder = settings.photos_dir / now.strftime("%Y-%m-%d")
    folder.mkdir(parents=True, exist_ok=True)
    ext = {"jpeg": "jpg"}.get(info.format, info.format)
    name = f"{now.strftime('%H%M%S')}-{rid}"
    (folder / f"{name}.{ext}").write_bytes(data)
    sidecar = {"request_id": rid, "received": now.isoformat(), "image": info.model_dump(),
               "context": context.model_dump(exclude_unset=True), "reading": reading}
    (folder / f"{name}.json").write_text(json.dumps(sidecar, ensure_ascii=False, indent=1))
    return str(Path(folder.name) / f"{name}.{ext}")


async def _read(
    request: Request, photo: UploadFile, context_raw: str | None, keep: bool,
    settings: ApiSettings, reader: Any, gate: Any,
) -> tuple[PhotoReadResponse, PhotoContext, Any]:
    started = time.perf_counter()
    context = parse_context(context_raw)
    rules = resolve_context_rules(context)
    players = players_for(context, rules)
    try:
        gate.check()  # refuse before holding the photo in memory if it would be refused anyway
    except Saturated as exc:
        raise _busy(gate, exc, log_fields(request)) from exc
    data = await photo.read()
    info = _check_header(data, settings)
    fields = log_fields(request)
    fields.update(image=f"{info.format} {info.width}x{info.height}", bytes=len(data))

    def decode_and_read() -> tuple[Any, dict[str, float]]:
        t0 = time.perf_counter()
        image = load_image(data, max_pixels=settings.max_pixels)
        t1 = time.perf_counter()
        reading = reader.read(image, players=players)
        t2 = time.perf_counter()
        return reading, {"decode": (t1 - t0) * 1000, "read": (t2 - t1) * 1000}

    queued = time.perf_counter()
    try:
        reading, timings = await gate.run(decode_and_read)
    except Saturated as exc:
        raise _busy(gate, exc, fields) from exc
    except ImageError as exc:
        raise _image_error(exc) from exc
    done = time.perf_counter()
    reading_json = reading.to_json()
    timings["queue"] = max(0.0, (done - queued) * 1000 - timings["decode"] - timings["read"])
    kept = None
    if keep:
        kept = await anyio.to_thread.run_sync(  # up to 20 MB of disk writes: not on the event loop
            _keep, settings, request_id(request), data, info, context, reading_json)
        fields["kept"] = kept
    timings["total"] = (time.perf_counter() - started) * 1000
    timings = {k: round(v, 1) for k, v in timings.items()}
    fields.update(tiles=len(reading_json.get("tiles") or []), hand=bool(reading_json.get("hand")), **{f"{k}_ms": v for k, v in timings.items()})
    response = PhotoReadResponse(image=info, reading=reading_json, kept=kept, timings_ms=timings)
    return response, context, reading


@router.post("/read", response_model=PhotoReadResponse, responses=ERRORS, summary="Read the tiles in a photo")
async def read_photo(
    request: Request, photo: PhotoField, settings: SettingsDep, reader: ReaderDep, gate: GateDep,
    context: ContextField = None, keep: KeepField = False,
) -> PhotoReadResponse:
    """Every tile found (box, class, confidence, candidates), the groups, and the hand (§1 tile
    keys) when one could be read. `context` only matters here for the player count (rules)."""
    response, _, _ = await _read(request, photo, context, keep, settings, reader, gate)
    return response


@router.post("/score", response_model=PhotoScoreResponse, responses=ERRORS, summary="Read a photo and score the hand")
async def score_photo(
    request: Request, photo: PhotoField, settings: SettingsDep, reader: ReaderDep, gate: GateDep,
    context: ContextField = None, keep: KeepField = False,
) -> PhotoScoreResponse:
    """The reading, the §1 hand (reading + context; context wins, e.g. `win_tile`) and its §2
    score. A photo without a complete hand, or a hand the engine refuses, is still a 200: the
    reading is returned so a client can correct tiles, with `error` saying why there is no score."""
    read, context, reading = await _read(request, photo, context, keep, settings, reader, gate)
    read_hand = read.reading.hand
    if context.win_tile is not None and hasattr(reading, "hand_with_win"):
        # The user names the winning tile: the reader knows how (it may complete a 13-tile reading).
        try:
            read_hand = reading.hand_with_win(context.win_tile)
        except ValueError as exc:
            raise RequestValidationError([{
                "type": "win_tile_not_in_hand", "loc": ("body", "context", "win_tile"), "msg": str(exc),
                "input": context.win_tile,
            }]) from exc
    if not read_hand or not read_hand.get("concealed"):
        extra = read.reading.model_extra or {}
        message = extra.get("error") or "no complete hand could be read in the photo"
        return PhotoScoreResponse(**read.model_dump(), error=message)
    hand = merge_hand(read_hand, context)
    result = score_json(hand)
    log_fields(request).update(han=result.get("han"), points=result.get("points"), score_error=result.get("error"))
    return PhotoScoreResponse(**read.model_dump(), hand=hand, result=result, error=result.get("error"))
