"""Photo endpoints as a service: limits, error codes, queueing, threads, keeping photos, logs.

These use the stand-in reader (see conftest) because they test the HTTP layer; the shipped models
are exercised in test_photos_real.py.
"""
from __future__ import annotations

import asyncio
import io
import json
import logging
import resource
import time
from datetime import datetime

import httpx2 as httpx
import numpy as np
import pytest
from PIL import Image

from api.app import create_app
from api.request_log import JsonFormatter
from api.settings import ApiSettings
from tests.api.conftest import FakeReader, jpeg_bytes, png_declaring, reading_13_json, reading_json


def post_photo(client, data: bytes, *, path="/v1/photos/read", name="hand.jpg", ctype="image/jpeg", headers_id=None,
               **form):
    headers = {"x-request-id": headers_id} if headers_id else None
    return client.post(path, files={"photo": (name, data, ctype)}, data=form, headers=headers)


# ---- the happy path -----------------------------------------------------------------------------


def test_read_returns_tiles_boxes_groups_and_image_info(client):
    r = post_photo(client, jpeg_bytes(64, 48))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["image"] == {"format": "jpeg", "width": 64, "height": 48}
    tiles = body["reading"]["tiles"]
    assert [t["label"] for t in tiles] == ["1m", "2m"]
    assert tiles[0]["box"] == [10.0, 20.0, 40.0, 60.0] and tiles[1]["confidence"] == 0.55
    assert body["reading"]["groups"][0]["kind"] == "closed"
    assert body["reading"]["hand"]["concealed"] == "123m456p789s11122z"
    assert body["kept"] is None
    assert set(body["timings_ms"]) >= {"decode", "read", "queue", "total"}
    assert r.headers["x-request-id"]


def test_reader_gets_the_decoded_rgb_image_and_the_player_count(make_client):
    reader = FakeReader()
    client = make_client(reader)
    assert post_photo(client, jpeg_bytes(64, 48)).status_code == 200
    assert post_photo(client, jpeg_bytes(), context=json.dumps({"rules": "sanma"})).status_code == 200
    assert post_photo(client, jpeg_bytes(), context=json.dumps({"players": 3})).status_code == 200
    assert [c["shape"] for c in reader.calls][0] == (48, 64, 3)
    assert [c["players"] for c in reader.calls] == [4, 3, 3]


def test_exif_rotated_photo_reports_the_turned_size(client):
    from PIL import Image
    import io

    img = Image.new("RGB", (80, 40))
    exif = img.getexif()
    exif[0x0112] = 6  # rotate 90° on display
    buf = io.BytesIO()
    img.save(buf, "JPEG", exif=exif)
    r = post_photo(client, buf.getvalue())
    assert r.status_code == 200
    assert (r.json()["image"]["width"], r.json()["image"]["height"]) == (40, 80)


# ---- bad photos ---------------------------------------------------------------------------------


def test_body_over_the_limit_is_413_from_content_length(make_client):
    reader = FakeReader()
    client = make_client(reader, max_photo_bytes=100_000)
    r = post_photo(client, b"\xff\xd8" + b"\0" * 150_000)
    assert r.status_code == 413
    assert "100,000 bytes" in r.json()["detail"]
    assert reader.calls == []


def test_body_over_the_limit_is_413_while_streaming_without_content_length():
    """A chunked upload (no Content-Length) is cut off once the count passes the limit: the app
    pulls little more than the limit from the server, not the whole 5 MB the client offers.
    Driven at the ASGI level, because TestClient reads a request body whole before sending it."""
    app = _ready_app(FakeReader(), max_photo_bytes=100_000)
    head = (b'--xyz\r\nContent-Disposition: form-data; name="photo"; filename="a.jpg"\r\n'
            b"Content-Type: image/jpeg\r\n\r\n")
    status, body, pulled = _stream_upload(app, [head] + [b"\0" * 65536] * 80)
    assert status == 413
    assert "100,000 bytes" in json.loads(body)["detail"]
    assert pulled < 100_000 + 65536 + len(head) + 1, f"the app pulled {pulled} bytes before refusing"


def _stream_upload(app, chunks: list[bytes]) -> tuple[int, bytes, int]:
    """POST `chunks` to /v1/photos/read as a streamed multipart upload (boundary `xyz`), at the ASGI level
    (TestClient sends a body whole); returns (status, response body, bytes the app pulled)."""
    chunks = list(chunks)
    pulled = 0
    sent: list[dict] = []

    async def receive():
        nonlocal pulled
        chunk = chunks.pop(0) if chunks else b""
        pulled += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": "/v1/photos/read", "raw_path": b"/v1/photos/read", "query_string": b"",
             "root_path": "", "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000),
             "headers": [(b"content-type", b"multipart/form-data; boundary=xyz"), (b"host", b"t")]}
    asyncio.run(app(scope, receive, send))
    status = next(m for m in sent if m["type"] == "http.response.start")["status"]
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"), pulled


def test_hand_json_has_its_own_smaller_limit(make_client):
    client = make_client(max_json_bytes=1000)
    r = client.post("/v1/hands/score", content=b'{"concealed": "' + b"1" * 2000 + b'"}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_pixel_bomb_is_refused_from_the_header_fast(make_client):
    reader = FakeReader()
    client = make_client(reader, max_pixels=1_000_000)
    bomb = png_declaring(60_000, 60_000)  # 3.6 gigapixels (10.8 GB as RGB) in a ~100-byte file
    assert len(bomb) < 200
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB, the peak so far
    start = time.perf_counter()
    r = post_photo(client, bomb, name="bomb.png", ctype="image/png")
    elapsed = time.perf_counter() - start
    assert r.status_code == 413
    assert "pixels" in r.json()["detail"]
    assert elapsed < 0.5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before < 50_000, "memory stays flat"
    assert reader.calls == []


def test_pixel_limit_message_names_the_size_and_the_limit(make_client):
    client = make_client(max_pixels=1_000_000)
    r = post_photo(client, png_declaring(10_000, 10_000), name="big.png", ctype="image/png")
    assert r.status_code == 413
    assert r.json()["detail"] == ("photo: 10000×10000 = 100,000,000 pixels is over this server's limit of "
                                  "1,000,000 pixels; send a smaller photo")


def _png_bytes(width: int, height: int) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 60)).save(buf, "PNG")
    return buf.getvalue()


def test_image_just_over_the_pixel_limit_is_413_and_under_is_read(make_client):
    client = make_client(max_pixels=64 * 48)
    assert post_photo(client, _png_bytes(64, 48), ctype="image/png").status_code == 200
    assert post_photo(client, _png_bytes(65, 48), ctype="image/png").status_code == 413


def test_a_jpeg_over_the_pixel_limit_is_read_smaller_not_refused(make_client):
    """A 48 MP phone JPEG (8064×6048) was a 413 at the default 40 MP limit; libjpeg decodes it at
    1/2 as cheaply as a 12 MP one. The response's size is the one the boxes are in."""
    reader = FakeReader()
    client = make_client(reader, max_pixels=100_000)
    r = post_photo(client, jpeg_bytes(640, 480))  # 307 200 pixels → read at 1/2
    assert r.status_code == 200, r.text
    assert r.json()["image"] == {"format": "jpeg", "width": 320, "height": 240}
    assert reader.calls[0]["shape"] == (240, 320, 3)
    assert post_photo(client, jpeg_bytes(3000, 2200)).status_code == 413  # over the limit even at 1/8


@pytest.mark.parametrize("data,name,ctype", [
    (b"hello, this is text", "notes.txt", "text/plain"),
    (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", "scan.pdf", "application/pdf"),
    (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;", "a.gif", "image/gif"),
])
def test_unsupported_type_is_415(make_client, data, name, ctype):
    reader = FakeReader()
    client = make_client(reader)
    r = post_photo(client, data, name=name, ctype=ctype)
    assert r.status_code == 415, r.text
    assert r.json()["detail"].startswith("photo:")
    assert reader.calls == []


def test_type_is_sniffed_from_bytes_not_the_declared_name(client):
    r = post_photo(client, jpeg_bytes(), name="photo.txt", ctype="application/octet-stream")
    assert r.status_code == 200


def test_truncated_jpeg_is_422_naming_photo(client):
    data = jpeg_bytes(640, 480)
    r = post_photo(client, data[: len(data) // 3])
    assert r.status_code == 422, r.text
    err = r.json()["detail"][0]
    assert err["loc"] == ["body", "photo"]
    assert "damaged" in err["msg"] or "cannot" in err["msg"]


def test_empty_photo_is_422_naming_photo(client):
    r = post_photo(client, b"")
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "photo"]
    assert "empty" in r.json()["detail"][0]["msg"]


def test_a_phone_mpo_photo_is_read_as_jpeg(make_client):
    """MPO (a JPEG plus a depth or stereo frame, from many phone cameras) was a 415."""
    import io

    from PIL import Image

    img = Image.new("RGB", (64, 48), (30, 120, 60))
    buf = io.BytesIO()
    img.save(buf, "MPO", save_all=True, append_images=[img])
    reader = FakeReader()
    client = make_client(reader)
    r = post_photo(client, buf.getvalue(), keep="true")
    assert r.status_code == 200, r.text
    assert r.json()["image"] == {"format": "jpeg", "width": 64, "height": 48}
    assert r.json()["kept"].endswith(".jpg")
    assert reader.calls[0]["shape"] == (48, 64, 3)


def test_truncated_heic_is_422_damaged_not_415_unsupported(client):
    """A damaged HEIC was told it is 'not a supported image (expected … HEIC)'."""
    pillow_heif = pytest.importorskip("pillow_heif")
    from PIL import Image
    import io

    buf = io.BytesIO()
    pillow_heif.from_pillow(Image.new("RGB", (60, 40), (200, 10, 10))).save(buf, quality=95)
    data = buf.getvalue()
    r = post_photo(client, data[: len(data) // 2], name="IMG_0001.HEIC", ctype="image/heic")
    assert r.status_code == 422, r.text
    err = r.json()["detail"][0]
    assert err["loc"] == ["body", "photo"] and "HEIC" in err["msg"] and "truncated" in err["msg"]


def test_missing_photo_field_is_422(client):
    r = client.post("/v1/photos/read", data={"context": "{}"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "photo"]


def test_photo_sent_as_a_text_field_says_it_must_be_a_file(client):
    r = client.post("/v1/photos/read", data={"photo": "IMG_0001.jpg"})
    assert r.status_code == 422
    err = r.json()["detail"][0]
    assert err["loc"] == ["body", "photo"] and err["msg"] == "must be a file upload (the image), not a text field"


# ---- the form's fields --------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/photos/read", "/v1/photos/score"])
def test_a_misspelt_form_field_is_422_naming_it_not_dropped(make_client, path):
    """`contxt` (riichi, dora, winds…) was ignored and the hand scored without it."""
    reader = FakeReader()
    client = make_client(reader)
    r = post_photo(client, jpeg_bytes(), path=path, contxt='{"riichi": true}')
    assert r.status_code == 422, r.text
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", "contxt"] and "unknown form field 'contxt'" in err["msg"]
    assert reader.calls == []


def test_the_photo_under_another_field_name_is_named(client):
    r = client.post("/v1/photos/read", files={"image": ("a.jpg", jpeg_bytes(), "image/jpeg")})
    assert r.status_code == 422
    locs = [e["loc"] for e in r.json()["detail"]]
    assert locs == [["body", "image"], ["body", "photo"]]


@pytest.mark.parametrize("first,second", [(b"junk", None), (None, b"junk")])
def test_two_photos_are_422_not_one_read_and_one_dropped(make_client, first, second):
    """Only the last `photo` part was read (the first silently ignored), whichever was valid."""
    reader = FakeReader()
    client = make_client(reader)
    parts = [("photo", ("a.jpg", first or jpeg_bytes(), "image/jpeg")),
             ("photo", ("b.jpg", second or jpeg_bytes(), "image/jpeg"))]
    r = client.post("/v1/photos/score", files=parts)
    assert r.status_code == 422, r.text
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", "photo"] and "one photo per request" in err["msg"]
    assert reader.calls == []


def test_two_contexts_are_422_not_last_one_wins(client):
    r = client.post("/v1/photos/score", files={"photo": ("a.jpg", jpeg_bytes(), "image/jpeg")},
                    data={"context": ['{"win": "tsumo"}', '{"win": "ron"}']})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "context"]


def test_context_sent_as_a_file_is_named_without_dumping_the_upload(client):
    """The 422 echoed the upload object's internals (spool, temp-file arguments)."""
    r = client.post("/v1/photos/score", files={"photo": ("a.jpg", jpeg_bytes(), "image/jpeg"),
                                               "context": ("ctx.json", b'{"win": "tsumo"}', "application/json")})
    assert r.status_code == 422
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", "context"] and "not a file upload" in err["msg"]
    assert err["input"] == "a file upload ('ctx.json', 16 bytes)"


# ---- context errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("context,loc,words", [
    ("{not json", ["body", "context"], "not valid JSON"),
    ("[1, 2]", ["body", "context"], "JSON object"),
    ('{"concealed": "123m"}', ["body", "context", "concealed"], "read from the photo"),
    ('{"melds": []}', ["body", "context", "melds"], "read from the photo"),
    ('{"win": "tsum"}', ["body", "context", "win"], "'ron' or 'tsumo'"),
    ('{"round_wind": "X"}', ["body", "context", "round_wind"], "'E'"),
    ('{"dora_indicators": ["3m", "10x"]}', ["body", "context", "dora_indicators", 1], "pattern"),
    ('{"honba": -1}', ["body", "context", "honba"], "greater than or equal"),
    ('{"riichii": true}', ["body", "context", "riichii"], "Extra inputs"),
    ('{"rules": "tenhoo"}', ["body", "context", "rules"], "unknown rule set"),
    ('{"rules": {"preset": "tenhou", "kiriage": "yes"}}', ["body", "context", "rules", "kiriage"], "true or false"),
    ('{"win_tile": "5"}', ["body", "context", "win_tile"], "pattern"),
    ("NaN", ["body", "context"], "JSON object"),                     # found by the fuzz test: was a 500
    ('{"honba": Infinity}', ["body", "context", "honba"], "finite number"),
    pytest.param("[" * 100_000 + "]" * 100_000, ["body", "context"], "nested too deeply",
                 id="deep-nesting"),                                   # was a 500 (RecursionError)
    ('{"win": "tsumo", "win": "ron"}', ["body", "context", "win"], "given twice"),  # was last-one-wins, silently
    ('{"rules": {"preset": "tenhou", "kiriage": true, "kiriage": false}}', ["body", "context", "rules", "kiriage"],
     "given twice"),
])
def test_context_errors_are_422_naming_the_field(make_client, context, loc, words):
    reader = FakeReader()
    client = make_client(reader)
    r = post_photo(client, jpeg_bytes(), context=context)
    assert r.status_code == 422, r.text
    err = r.json()["detail"][0]
    assert err["loc"] == loc
    assert words in err["msg"]
    assert reader.calls == [], "a bad context is refused before any photo work"


# ---- the multipart body ---------------------------------------------------------------------------


def multipart(boundary: bytes, *parts: tuple[str, str | None, bytes]) -> bytes:
    """A multipart body by hand (name, file name or None, content), without its closing boundary."""
    out = b""
    for name, filename, content in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        out += b"--" + boundary + f"\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + content + b"\r\n"
    return out


def test_a_truncated_multipart_body_is_400_saying_so(make_client):
    """A body cut off before its closing boundary was read as far as it went: "photo: Field required" (422),
    or a photo read from half its bytes. docs/api.md: broken multipart is a 400 naming the problem."""
    reader = FakeReader()
    client = make_client(reader)
    whole = multipart(b"xyz", ("context", None, b'{"win_tile": "1z"}'), ("photo", "a.jpg", jpeg_bytes()))
    headers = {"content-type": "multipart/form-data; boundary=xyz"}
    for cut in (whole, whole[:-2], whole[:40], b""):
        r = client.post("/v1/photos/read", content=cut, headers=headers)
        assert r.status_code == 400, r.text
        assert "multipart body is broken" in r.json()["detail"] and "--xyz--" in r.json()["detail"]
    assert reader.calls == []
    r = client.post("/v1/photos/read", content=whole + b"--xyz--\r\n", headers=headers)
    assert r.status_code == 200, r.text
    # A closing boundary split over the chunks of a streamed upload is still found (driven at the ASGI level:
    # TestClient sends a body whole).
    app = _ready_app(FakeReader())
    body = whole + b"--xyz--\r\n"
    for size in (3, 5, 7):
        status, answer, _ = _stream_upload(app, [body[i:i + size] for i in range(0, len(body), size)])
        assert status == 200, (size, answer)


# ---- models not ready, saturation, threads ---------------------------------------------------------


def test_photo_requests_are_503_while_models_load_and_hands_still_work(make_client):
    import threading

    release = threading.Event()

    def slow_factory(settings):
        release.wait(10)
        return FakeReader()

    client = make_client(slow_factory, wait=False)
    r = client.get("/healthz")
    assert r.status_code == 503 and r.json()["status"] == "loading"
    assert r.headers["retry-after"]
    r = post_photo(client, jpeg_bytes())
    assert r.status_code == 503 and "loading" in r.json()["detail"]
    assert r.headers["retry-after"]
    assert client.get("/v1/rules").status_code == 200
    release.set()
    deadline = time.monotonic() + 5
    while client.get("/healthz").status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert client.get("/healthz").json()["status"] == "ready"
    assert post_photo(client, jpeg_bytes()).status_code == 200


def test_failed_model_load_is_503_with_the_reason(make_client):
    def broken(settings):
        raise FileNotFoundError("models/detector.onnx not found")

    client = make_client(broken, wait=False)
    deadline = time.monotonic() + 5
    while client.get("/healthz").json()["status"] == "loading" and time.monotonic() < deadline:
        time.sleep(0.01)
    h = client.get("/healthz")
    assert h.status_code == 503
    assert h.json()["status"] == "failed" and "detector.onnx" in h.json()["error"]
    r = post_photo(client, jpeg_bytes())
    assert r.status_code == 503 and "detector.onnx" in r.json()["detail"]


def test_server_without_models_says_so(make_client):
    client = make_client(load_models=False)
    assert client.get("/healthz").json()["status"] == "disabled"
    r = post_photo(client, jpeg_bytes())
    assert r.status_code == 503 and "disabled" in r.json()["detail"]


def _ready_app(reader: FakeReader, **settings) -> object:
    app = create_app(ApiSettings(**settings), reader_factory=lambda s: reader)
    app.state.reader_state.load(lambda: reader)
    return app


async def _post_async(client: httpx.AsyncClient, data: bytes) -> httpx.Response:
    return await client.post("/v1/photos/read", files={"photo": ("a.jpg", data, "image/jpeg")})


def test_saturated_server_answers_503_with_retry_after_at_once():
    """1 worker, 1 waiting: of 4 simultaneous photos, 2 are served and 2 refused immediately."""
    reader = FakeReader(delay=1.0)
    app = _ready_app(reader, inference_workers=1, inference_queue=1)

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            async def timed():
                t = time.perf_counter()
                r = await _post_async(client, jpeg_bytes())
                return r, time.perf_counter() - t
            return await asyncio.gather(*[timed() for _ in range(4)])

    results = asyncio.run(scenario())
    codes = sorted(r.status_code for r, _ in results)
    assert codes == [200, 200, 503, 503]
    for r, elapsed in results:
        if r.status_code == 503:
            assert int(r.headers["retry-after"]) >= 1
            assert "busy" in r.json()["detail"]
            assert elapsed < 0.5, "refused at once, not after waiting for a worker (1 s)"
    assert len(reader.calls) == 2


def test_inference_runs_off_the_event_loop():
    """While a (blocking) read takes 1 s, the same server answers /healthz in well under that."""
    reader = FakeReader(delay=1.0)
    app = _ready_app(reader)

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            photo = asyncio.create_task(_post_async(client, jpeg_bytes()))
            deadline = time.monotonic() + 5
            while not reader.calls and time.monotonic() < deadline:  # until the read has started
                await asyncio.sleep(0.01)
            t = time.perf_counter()
            health = await client.get("/healthz")
            health_s = time.perf_counter() - t
            return await photo, health, health_s

    photo, health, health_s = asyncio.run(scenario())
    assert photo.status_code == 200 and health.status_code == 200
    assert health.json()["in_flight"] == 1
    assert health_s < 0.5
    assert reader.calls[0]["thread"] != "MainThread"


# ---- keeping photos -----------------------------------------------------------------------------


def test_photos_are_not_kept_unless_asked(make_client, tmp_path):
    client = make_client(keep_dir=tmp_path / "kept")
    assert post_photo(client, jpeg_bytes()).json()["kept"] is None
    assert not (tmp_path / "kept").exists()


def test_keep_true_saves_the_photo_and_its_reading(make_client, tmp_path):
    client = make_client(keep_dir=tmp_path / "kept")
    data = jpeg_bytes()
    r = post_photo(client, data, path="/v1/photos/score", keep="true", context='{"win": "tsumo"}')
    assert r.status_code == 200
    kept = r.json()["kept"]
    assert kept.endswith(".jpg") and r.headers["x-request-id"] in kept
    photo = tmp_path / "kept" / kept
    assert photo.read_bytes() == data
    sidecar = json.loads(photo.with_suffix(".json").read_text())
    assert sidecar["context"] == {"win": "tsumo"}
    assert sidecar["reading"]["tiles"][0]["label"] == "1m"
    # the sidecar's time is the photo's (its name), not when the reading was written seconds later
    received = datetime.fromisoformat(sidecar["received"])
    assert photo.parent.name == received.strftime("%Y-%m-%d") and photo.name.startswith(received.strftime("%H%M%S"))


def test_a_damaged_photo_asked_to_be_kept_is_kept_with_why(make_client, tmp_path):
    """The photo is kept before it is decoded (in a thread of its own, not an inference slot): one that starts
    like a JPEG but breaks the decoder is the one worth keeping, with the error beside it."""
    client = make_client(keep_dir=tmp_path / "kept")
    noise = np.random.default_rng(0).integers(0, 255, (240, 320, 3)).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(noise).save(buf, "JPEG")
    damaged = buf.getvalue()[:buf.tell() * 6 // 10]  # the header whole, the scan cut off
    r = post_photo(client, damaged, keep="true", headers_id="half")
    assert r.status_code == 422, r.text
    (photo,) = (tmp_path / "kept").glob("*/*-half.jpg")
    assert photo.read_bytes() == damaged
    sidecar = json.loads(photo.with_suffix(".json").read_text())
    assert sidecar["reading"] is None and "ImageError" in sidecar["error"]


def test_a_photo_refused_with_keep_says_whether_it_was_kept(make_client, tmp_path):
    """The 422 of a photo that failed to decode did not say it was kept: it names the file as a 200 does
    (`kept`), and one refused from its header, before keeping, says it was not (`keep_error`)."""
    client = make_client(keep_dir=tmp_path / "kept")
    noise = np.random.default_rng(0).integers(0, 255, (240, 320, 3)).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(noise).save(buf, "JPEG")
    r = post_photo(client, buf.getvalue()[:buf.tell() * 6 // 10], keep="true", headers_id="half")
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["kept"].endswith("-half.jpg") and (tmp_path / "kept" / body["kept"]).is_file()
    assert body["keep_error"] is None and f"kept as {body['kept']}" in body["detail"][0]["msg"]
    assert body["detail"][0]["loc"] == ["body", "photo"]
    r = post_photo(client, jpeg_bytes()[:100], keep="true")  # the header itself cut off: refused before keeping
    assert r.status_code == 422, r.text
    assert r.json()["kept"] is None and "not kept" in r.json()["keep_error"]
    assert "kept" not in post_photo(client, jpeg_bytes()[:100]).json()  # not asked to keep: as before


def test_a_keep_folder_that_cannot_be_written_still_returns_the_reading(make_client, tmp_path):
    """An unwritable keep folder made every keep=true request a 500, the reading lost with it."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    client = make_client(keep_dir=blocker / "kept")
    r = post_photo(client, jpeg_bytes(), path="/v1/photos/score", keep="true")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["kept"] is None and "could not be kept" in body["keep_error"]
    assert len(body["reading"]["tiles"]) == 2 and body["result"]["points"] > 0
    assert post_photo(client, jpeg_bytes()).json()["keep_error"] is None


def test_kept_photos_never_overwrite_each_other(make_client, tmp_path):
    """Names were time-to-the-second + request id: a client reusing its X-Request-ID lost photos."""
    client = make_client(keep_dir=tmp_path / "kept")
    first, second = jpeg_bytes(64, 48), jpeg_bytes(32, 32)
    names = [post_photo(client, data, keep="true", headers_id="same").json()["kept"] for data in (first, second)]
    assert names[0] != names[1]
    assert [(tmp_path / "kept" / n).read_bytes() for n in names] == [first, second]


def test_a_photo_that_crashes_the_reader_is_still_kept(tmp_path):
    """keep=true wrote the photo after the read: the one photo worth keeping (a reader bug) was lost."""
    from fastapi.testclient import TestClient

    from tests.api.conftest import wait_ready

    app = create_app(ApiSettings(keep_dir=tmp_path / "kept"), reader_factory=lambda s: BrokenReader())
    with TestClient(app, raise_server_exceptions=False) as client:
        wait_ready(client)
        data = jpeg_bytes()
        r = client.post("/v1/photos/read", files={"photo": ("a.jpg", data, "image/jpeg")}, data={"keep": "true"},
                        headers={"x-request-id": "crash-1"})
        assert r.status_code == 500 and "crash-1" in r.json()["detail"]
    (photo,) = (tmp_path / "kept").glob("*/*-crash-1.jpg")
    kept = f"{photo.parent.name}/{photo.name}"  # the 500 says where the photo is, as a 200 or 422 does
    assert r.json()["kept"] == kept and f"kept as {kept}" in r.json()["detail"]
    assert photo.read_bytes() == data
    sidecar = json.loads(photo.with_suffix(".json").read_text())
    assert sidecar["reading"] is None and "layout exploded" in sidecar["error"]


class _FullOnceKept:
    """A gate with room when the request arrives, full once the photo is kept (another request won the race)."""

    workers, queue = 1, 0

    def check(self) -> None:
        pass

    async def run(self, fn):
        from api.inference import Saturated

        raise Saturated(retry_after=2)


def test_a_kept_photo_refused_as_busy_says_where_it_was_kept(tmp_path):
    """A 503 after `keep=true` had saved the photo did not name the file: the client could not tell it was kept."""
    from fastapi.testclient import TestClient

    from tests.api.conftest import wait_ready

    app = create_app(ApiSettings(keep_dir=tmp_path / "kept"))
    with TestClient(app, raise_server_exceptions=False) as client:
        wait_ready(client)
        app.state.gate = _FullOnceKept()
        r = client.post("/v1/photos/read", files={"photo": ("a.jpg", jpeg_bytes(), "image/jpeg")},
                        data={"keep": "true"}, headers={"x-request-id": "busy-1"})
        plain = client.post("/v1/photos/read", files={"photo": ("a.jpg", jpeg_bytes(), "image/jpeg")})
    assert r.status_code == 503 and r.headers["retry-after"] == "2"
    (photo,) = (tmp_path / "kept").glob("*/*-busy-1.jpg")
    kept = f"{photo.parent.name}/{photo.name}"
    assert r.json()["kept"] == kept and f"kept as {kept}" in r.json()["detail"]
    assert plain.status_code == 503 and "kept" not in plain.json()  # not asked to keep: as before


class _FullAtOnce(_FullOnceKept):
    """A gate full when the request arrives: the photo is refused before it is read or kept."""

    def check(self) -> None:
        from api.inference import Saturated

        raise Saturated(retry_after=3)


def test_every_answer_to_a_keep_request_says_whether_the_photo_was_kept(tmp_path):
    """A keep=true request refused before its photo was saved (busy at once, a context the rules refuse, a 415) said
    nothing about keeping, and a 500 after a failed save did not say it had failed: the client could not tell whether
    the server had the photo. Every answer to such a request now carries `kept` and `keep_error`, as a 200 does."""
    from fastapi.testclient import TestClient

    from tests.api.conftest import wait_ready

    def send(client, data=None, **form):
        return client.post("/v1/photos/read", files={"photo": ("a.jpg", data or jpeg_bytes(), "image/jpeg")},
                           data={"keep": "true", **form})

    app = create_app(ApiSettings(keep_dir=tmp_path / "kept"))
    with TestClient(app, raise_server_exceptions=False) as client:
        wait_ready(client)
        refused = {"context": send(client, context='{"rules": "no-such-rules"}'),
                   "415": send(client, b"GIF89a" + bytes(64))}
        shipped_gate, app.state.gate = app.state.gate, _FullAtOnce()
        refused["busy"] = send(client)
        app.state.gate = shipped_gate
    assert [r.status_code for r in refused.values()] == [422, 415, 503], {k: r.text for k, r in refused.items()}
    for why, r in refused.items():
        assert r.json()["kept"] is None and "not kept" in r.json()["keep_error"], (why, r.text)
    assert not (tmp_path / "kept").exists()

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    app = create_app(ApiSettings(keep_dir=blocker / "kept"), reader_factory=lambda s: BrokenReader())
    with TestClient(app, raise_server_exceptions=False) as client:
        wait_ready(client)
        crashed = send(client)
        plain = client.post("/v1/photos/read", files={"photo": ("a.jpg", jpeg_bytes(), "image/jpeg")})
    assert crashed.status_code == 500
    assert crashed.json()["kept"] is None and "could not be kept" in crashed.json()["keep_error"]
    assert "kept as" not in crashed.json()["detail"]
    assert plain.status_code == 500 and "kept" not in plain.json() and "keep_error" not in plain.json()


# ---- logs ---------------------------------------------------------------------------------------


def test_one_json_log_line_per_request_with_its_id(client, caplog):
    caplog.set_level(logging.INFO, logger="tsumo.api")
    r = post_photo(client, jpeg_bytes(64, 48))
    bad = post_photo(client, b"text", ctype="text/plain")
    lines = [json.loads(JsonFormatter().format(rec)) for rec in caplog.records if rec.name == "tsumo.api"]
    assert len(lines) == 2
    ok, refused = lines
    assert ok["request_id"] == r.headers["x-request-id"]
    assert ok["method"] == "POST" and ok["path"] == "/v1/photos/read" and ok["status"] == 200
    assert ok["image"] == "jpeg 64x48" and ok["tiles"] == 2 and ok["ms"] > 0
    assert refused["status"] == 415 and refused["request_id"] == bad.headers["x-request-id"]


# ---- scoring a photo ----------------------------------------------------------------------------


def test_score_merges_context_into_the_read_hand(make_client):
    client = make_client()
    ctx = {"rules": "tenhou", "win": "tsumo", "round_wind": "E", "seat_wind": "E"}
    r = post_photo(client, jpeg_bytes(), path="/v1/photos/score", context=json.dumps(ctx))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["hand"]["concealed"] == "123m456p789s11122z" and body["hand"]["win"] == "tsumo"
    assert body["result"]["error"] is None and body["error"] is None
    names = [y["name"].lower() for y in body["result"]["yaku"]]
    assert any("tsumo" in n for n in names)
    assert body["result"]["han"] >= 2


def test_score_with_win_tile_override(make_client):
    client = make_client()
    r = post_photo(client, jpeg_bytes(), path="/v1/photos/score", context='{"win_tile": "1z", "win": "ron"}')
    assert r.status_code == 200, r.text
    assert r.json()["hand"]["win_tile"] == "1z"
    bad = post_photo(client, jpeg_bytes(), path="/v1/photos/score", context='{"win_tile": "9p"}')
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"] == ["body", "context", "win_tile"]


def test_a_win_tile_not_in_the_read_hand_is_422_with_the_reading_kept(make_client):
    """The 422 dropped the reading (a second of inference): the client had nothing to correct."""
    client = make_client()
    r = post_photo(client, jpeg_bytes(), path="/v1/photos/score", context='{"win_tile": "9p"}')
    assert r.status_code == 422
    body = r.json()
    assert body["detail"][0]["loc"] == ["body", "context", "win_tile"]
    assert [t["label"] for t in body["reading"]["tiles"]] == ["1m", "2m"]
    assert body["reading"]["hand"]["concealed"] == "123m456p789s11122z"
    assert body["result"] is None and "9p" in body["error"]


def test_a_win_tile_when_no_hand_was_read_is_the_usual_200_with_the_reading(make_client):
    """Without win_tile this photo is a 200 (reading + why no score); with one it was a 422 and lost it."""
    client = make_client(FakeReader(reading=reading_json(hand=None)))
    r = post_photo(client, jpeg_bytes(), path="/v1/photos/score", context='{"win_tile": "1m"}')
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["result"] is None and "no complete hand" in body["error"]
    assert len(body["reading"]["tiles"]) == 2


def test_read_honours_the_win_tile_in_context(make_client):
    """/read took `context` and dropped its `win_tile` without a word. Now `hand` is the reading's hand with it
    (another of its tiles, or the one a 13-tile reading lacks); `reading` stays what was read."""
    client = make_client()
    r = post_photo(client, jpeg_bytes(), context='{"win_tile": "1z", "rules": "tenhou"}')
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["hand"] == {"concealed": "123m456p789s11122z", "win_tile": "1z", "melds": [], "nukidora": 0,
                            "rules": "tenhou"}
    assert body["reading"]["hand"]["win_tile"] == "2z"
    assert post_photo(client, jpeg_bytes()).json()["hand"]["win_tile"] == "2z"
    bad = post_photo(client, jpeg_bytes(), context='{"win_tile": "9p"}')
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["body", "context", "win_tile"]
    assert bad.json()["reading"]["hand"]["concealed"] == "123m456p789s11122z"

    client = make_client(FakeReader(reading=reading_13_json()))
    body = post_photo(client, jpeg_bytes(), context='{"win_tile": "2z"}').json()
    assert body["hand"]["concealed"] == "123m456p789s1112z2z" and body["hand"]["win_tile"] == "2z"
    assert post_photo(client, jpeg_bytes()).json()["hand"] is None


@pytest.mark.parametrize("context,keys", [
    ('{"riichi": true}', ["riichi"]), ('{"win_tile": "2z", "dora_indicators": ["3m"]}', ["dora_indicators"]),
    ('{"win": "tsumo", "seat_wind": "S", "honba": 2}', ["win", "seat_wind", "honba"]),
])
def test_read_names_the_context_keys_it_takes_but_does_not_use(make_client, context, keys):
    """/read dropped riichi, dora, winds… without a word. CONTRACTS §4 lets any §1 key through, so they
    are accepted (and checked: a bad value is still a 422) and named in `unused_context`."""
    client = make_client(FakeReader())
    r = post_photo(client, jpeg_bytes(), context=context)
    assert r.status_code == 200, r.text
    assert r.json()["unused_context"] == keys
    assert not set(keys) & set(r.json()["hand"] or {})  # the hand /read gives holds only what it used
    ok = post_photo(client, jpeg_bytes(), context='{"riichi": null, "players": 4, "rules": "tenhou", "nukidora": 1}')
    assert ok.status_code == 200, ok.text  # null is "not given"; these change the reading or the hand
    assert ok.json()["unused_context"] == [] and ok.json()["hand"]["nukidora"] == 1
    bad = post_photo(client, jpeg_bytes(), context='{"riichi": "yes"}')
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["body", "context", "riichi"]
    scored = post_photo(client, jpeg_bytes(), path="/v1/photos/score", context=context)
    assert scored.status_code == 200 and "unused_context" not in scored.json()


@pytest.mark.parametrize("path", ["/v1/photos/score", "/v1/photos/read"])
def test_a_win_tile_that_does_not_complete_a_13_tile_reading_is_422_listing_the_waits(make_client, path):
    """It was a 200 saying "the winning tile is not in the photo" although the user gave one; a 14-tile reading
    with a wrong win_tile was already a 422. The reading comes back with it, to correct."""
    client = make_client(FakeReader(reading=reading_13_json()))
    r = post_photo(client, jpeg_bytes(), path=path, context='{"win_tile": "5p"}')
    assert r.status_code == 422, r.text
    body = r.json()
    (err,) = body["detail"]
    assert err["loc"] == ["body", "context", "win_tile"] and err["input"] == "5p"
    assert err["msg"] == "5p does not complete the hand read (123m456p789s1112z): it waits on 2z"
    assert body["reading"]["partial"]["waits"] == ["2z"] and len(body["reading"]["tiles"]) == 2
    assert body["hand"] is None
    if path.endswith("score"):
        assert body["result"] is None and body["error"] == err["msg"]
        assert post_photo(client, jpeg_bytes(), path=path, context='{"win_tile": "2z"}').json()["result"]["han"] > 0


def test_score_without_a_hand_returns_the_reading_and_says_why(make_client):
    client = make_client(FakeReader(reading=reading_json(hand=None)))
    r = post_photo(client, jpeg_bytes(), path="/v1/photos/score")
    assert r.status_code == 200
    body = r.json()
    assert body["result"] is None and body["hand"] is None
    assert "no complete hand" in body["error"]
    assert len(body["reading"]["tiles"]) == 2


# ---- a bug in the reader ------------------------------------------------------------------------


class BrokenReader(FakeReader):
    def read(self, image, *, players=4):
        raise RuntimeError("layout exploded")


def test_a_reader_bug_is_a_json_500_with_the_request_id_and_a_logged_traceback(make_client, caplog):
    from fastapi.testclient import TestClient

    from tests.api.conftest import wait_ready

    caplog.set_level(logging.INFO, logger="tsumo.api")
    app = create_app(ApiSettings(), reader_factory=lambda s: BrokenReader())
    with TestClient(app, raise_server_exceptions=False) as client:
        wait_ready(client)
        r = client.post("/v1/photos/read", files={"photo": ("a.jpg", jpeg_bytes(), "image/jpeg")},
                        headers={"x-request-id": "trace-42"})
        assert r.status_code == 500
        assert r.json()["detail"] == "internal error (RuntimeError); please report request trace-42"
        # The server keeps serving.
        assert client.get("/healthz").status_code == 200
    lines = [json.loads(JsonFormatter().format(rec)) for rec in caplog.records if rec.name == "tsumo.api"]
    (trace,) = [x for x in lines if x.get("event") == "error"]
    assert trace["request_id"] == "trace-42" and "layout exploded" in trace["exc"]
    (req,) = [x for x in lines if x.get("event") == "request" and x["path"] == "/v1/photos/read"]
    assert req["status"] == 500 and req["level"] == "error" and req["request_id"] == "trace-42"


def test_a_client_request_id_is_kept_only_if_it_is_a_plain_token(client):
    assert client.get("/healthz", headers={"x-request-id": "abc-123_x.y"}).headers["x-request-id"] == "abc-123_x.y"
    odd = client.get("/healthz", headers={"x-request-id": "a b\"<script>"}).headers["x-request-id"]
    assert odd != "a b\"<script>" and len(odd) == 16
