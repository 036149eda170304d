"""The phone page is served by the app itself, with every asset local (no CDN, no fonts fetched)."""
from __future__ import annotations

import re

from api.routes.page import STATIC_DIR
from vision.classes import TILE_CLASSES


def test_page_has_camera_capture_and_both_languages(client):
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    html = r.text
    assert re.search(r'<input[^>]+type="file"[^>]+accept="image/\*"[^>]+capture="environment"', html)
    assert 'name="viewport"' in html and "width=device-width" in html
    i18n = (STATIC_DIR / "i18n.js").read_text(encoding="utf-8")
    assert "en: {" in i18n and "ja: {" in i18n and "和了" in i18n


def test_every_asset_the_page_names_is_served(client):
    html = client.get("/").text
    js = (STATIC_DIR / "app.js").read_text(encoding="utf-8")
    refs = set(re.findall(r'(?:src|href)="(/static/[^"]+)"', html)) | {"/static/i18n.js"}
    for ref in refs:
        assert client.get(ref).status_code == 200, ref
    assert "/static/tiles/${code}.png" in js


def test_no_external_urls_in_page_assets():
    for path in STATIC_DIR.glob("*.*"):
        if path.suffix in (".html", ".js", ".css"):
            text = path.read_text(encoding="utf-8")
            external = re.findall(r"""(?:src|href|url|import|fetch)\s*\(?\s*["']?(https?://[^"' )]+)""", text)
            assert not external, f"{path.name} loads {external}"


def test_a_tile_picture_for_every_class_with_attribution(client):
    for code in TILE_CLASSES:
        r = client.get(f"/static/tiles/{code}.png")
        assert r.status_code == 200 and r.content[:8] == b"\x89PNG\r\n\x1a\n", code
    assert "CC0" in (STATIC_DIR / "tiles" / "LICENSE.md").read_text(encoding="utf-8")


def test_tile_pictures_are_small():
    total = sum(p.stat().st_size for p in (STATIC_DIR / "tiles").glob("*.png"))
    assert total < 200_000, f"{total} bytes of tile pictures"


def test_the_page_carries_the_servers_photo_limit(make_client):
    """The page reduces (or holds back) a photo over the server's upload limit: it learns the limit from the
    page as served, the photo input's data-max-photo-bytes, filled in from the settings."""
    html = make_client(max_photo_bytes=1_234_567).get("/").text
    assert re.search(r'<input id="photo-input"[^>]*data-max-photo-bytes="1234567"', html)
    assert 'data-max-photo-bytes=""' in (STATIC_DIR / "index.html").read_text(encoding="utf-8")  # the slot
