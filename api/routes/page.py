"""The phone page: `/` serves `api/static/index.html`; its assets are mounted at `/static`."""
from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"

router = APIRouter(include_in_schema=False)


# Everything the page uses comes from this server (blob: is the photo preview); the browser then
# enforces "no CDN" too.
CSP = ("default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")


@router.get("/")
async def index() -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html", headers={
        "Cache-Control": "no-cache", "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    })
