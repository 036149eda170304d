"""FastAPI dependencies: what a route needs, taken from `app.state` (set up by the lifespan).

Nothing here is a module global; a test builds its own app with its own settings and reader.
"""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request

from api.inference import InferenceGate, Reader, ReaderState
from api.settings import ApiSettings


def get_settings(request: Request) -> ApiSettings:
    return request.app.state.settings


def get_reader_state(request: Request) -> ReaderState:
    return request.app.state.reader_state


def get_gate(request: Request) -> InferenceGate:
    return request.app.state.gate


def get_reader(state: Annotated[ReaderState, Depends(get_reader_state)]) -> Reader:
    """The loaded photo reader, or 503: still loading (retry soon), failed or disabled."""
    if state.status == "ready" and state.reader is not None:
        return state.reader
    if state.status == "loading":
        raise HTTPException(503, "the photo models are still loading; retry shortly", headers={"Retry-After": "2"})
    if state.status == "disabled":
        raise HTTPException(503, "photo reading is disabled on this server (started without models)")
    raise HTTPException(503, f"the photo models failed to load: {state.error}")


SettingsDep = Annotated[ApiSettings, Depends(get_settings)]
ReaderDep = Annotated[Reader, Depends(get_reader)]
GateDep = Annotated[InferenceGate, Depends(get_gate)]
ReaderStateDep = Annotated[ReaderState, Depends(get_reader_state)]
