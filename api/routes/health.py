"""`GET /healthz`: a readiness probe — 200 once the photo models are loaded, 503 before."""
from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from api.deps import ReaderStateDep
from api.schemas import Health

router = APIRouter(tags=["service"])


@router.get("/healthz", response_model=Health, responses={503: {"model": Health}}, summary="Ready to read photos?")
async def healthz(request: Request, state: ReaderStateDep) -> JSONResponse:
    """200 with `status: ready` once the models are loaded; 503 with `loading`, `failed` (and the
    error) or `disabled`. Hand scoring works in every state."""
    body = Health(
        status=state.status, models_loaded=state.status == "ready", error=state.error,
        load_seconds=state.load_seconds, in_flight=request.app.state.gate.in_flight,
    )
    headers = {"Retry-After": "2"} if state.status == "loading" else None
    return JSONResponse(body.model_dump(), status_code=200 if body.models_loaded else 503, headers=headers)
