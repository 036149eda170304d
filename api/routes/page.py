"""The phone page: `/` serves `api/static/index.html`; its assets are mounted at `/static`.

The page is the file as it is, but for one thing this server's settings decide: the photo input's
`data-max-photo-bytes` is filled in with `max_photo_bytes`, so the page knows the upload limit
before it sends a byte (it reduces a bigger photo, or says it is too big, instead of uploading
20 MB to be refused with a 413)."""
from __future__ import annotations

import functools
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from api.deps import SettingsDep

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
LIMIT_SLOT = 'data-max-photo-bytes=""'

router = APIRouter(include_in_schema=False)


# Everything the page uses comes from this server (blob: is the photo preview); the browser then
# enforces "no CDN" too.
CSP = ("default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")


@functools.cache
def index_html(max_photo_bytes: int) -> str:
    """index.html with this server's photo limit in the slot left for it (read once per limit, not per request)."""
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    return html.replace(LIMIT_SLOT, f'data-max-photo-bytes="{int(max_photo_bytes)}"', 1)


@router.get("/")
async def index(settings: SettingsDep) -> HTMLResponse:
    return HTMLResponse(index_html(settings.max_photo_bytes), headers={
        "Cache-Control": "no-cache", "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    })
