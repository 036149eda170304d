"""Photo decoding: formats, EXIF orientation, and refusing bad input with the right kind."""
from __future__ import annotations

import io
import struct
import time
import zlib

import numpy as np
import pytest
from PIL import Image

from vision.io import ImageError, load_image, probe_image


def _encode(img: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def _test_image(w: int = 60, h: int = 40) -> Image.Image:
    """Red left half, blue right half: orientation is visible in the pixels."""
    arr = np.zeros((h, w, 3), np.uint8)
    arr[:, : w // 2] = (255, 0, 0)
    arr[:, w // 2 :] = (0, 0, 255)
    return Image.fromarray(arr)


@pytest.mark.parametrize("fmt,name", [("JPEG", "jpeg"), ("PNG", "png"), ("WEBP", "webp")])
def test_common_formats_decode_to_rgb(fmt, name):
    data = _encode(_test_image(), fmt, **({"quality": 95} if fmt != "PNG" else {}))
    info = probe_image(data)
    assert (info.format, info.width, info.height) == (name, 60, 40)
    arr = load_image(data)
    assert arr.shape == (40, 60, 3) and arr.dtype == np.uint8
    assert arr[20, 5, 0] > 200 and arr[20, 5, 2] < 60  # left is red
    assert arr[20, 55, 2] > 200 and arr[20, 55, 0] < 60  # right is blue


def test_heic_decodes():
    pillow_heif = pytest.importorskip("pillow_heif")
    buf = io.BytesIO()
    try:
        pillow_heif.from_pillow(_test_image()).save(buf, quality=95)
    except Exception as exc:  # encoder missing in this libheif build
        pytest.skip(f"no HEIC encoder: {exc}")
    data = buf.getvalue()
    assert probe_image(data).format == "heic"
    arr = load_image(data)
    assert arr.shape == (40, 60, 3)
    assert arr[20, 5, 0] > 180 and arr[20, 55, 2] > 180


def test_exif_orientation_is_applied():
    img = _test_image()
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: viewer rotates 90° clockwise
    data = _encode(img, "JPEG", quality=95, exif=exif.tobytes())
    info = probe_image(data)
    assert info.orientation == 6 and (info.width, info.height) == (60, 40)
    arr = load_image(data)
    assert arr.shape == (60, 40, 3)  # rotated to portrait
    assert arr[5, 20, 0] > 200 and arr[55, 20, 2] > 200  # red on top, blue at the bottom


def test_path_input(tmp_path):
    p = tmp_path / "x.png"
    p.write_bytes(_encode(_test_image(), "PNG"))
    assert load_image(p).shape == (40, 60, 3)
    assert load_image(str(p)).shape == (40, 60, 3)


@pytest.mark.parametrize(
    "data,kind",
    [
        (b"", "empty"),
        (b"hello, this is not an image at all", "unsupported"),
        (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj", "unsupported"),
    ],
)
def test_not_an_image(data, kind):
    with pytest.raises(ImageError) as err:
        load_image(data)
    assert err.value.kind == kind
    with pytest.raises(ImageError):
        probe_image(data)


def test_unsupported_format_named():
    data = _encode(_test_image(), "BMP")
    with pytest.raises(ImageError) as err:
        load_image(data)
    assert err.value.kind == "unsupported" and "BMP" in str(err.value)


def test_truncated_jpeg_is_corrupt():
    data = _encode(_test_image(400, 300), "JPEG", quality=95)
    with pytest.raises(ImageError) as err:
        load_image(data[: len(data) // 2])
    assert err.value.kind == "corrupt"


def _png_bomb(width: int, height: int) -> bytes:
    """A tiny PNG whose header declares width×height pixels (the data is a few bytes)."""

    def chunk(tag: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def test_decompression_bomb_refused_before_decoding():
    data = _png_bomb(9000, 9000)  # 81 MP declared, ~100 bytes
    assert probe_image(data).pixels == 81_000_000
    t0 = time.perf_counter()
    with pytest.raises(ImageError) as err:
        load_image(data)
    assert err.value.kind == "too_large"
    assert time.perf_counter() - t0 < 0.5
    huge = _png_bomb(100_000, 100_000)
    with pytest.raises(ImageError) as err:
        load_image(huge)
    assert err.value.kind == "too_large"


def test_pixel_limit_is_configurable():
    data = _encode(_test_image(300, 200), "PNG")
    assert load_image(data, max_pixels=60_000).shape == (200, 300, 3)
    with pytest.raises(ImageError) as err:
        load_image(data, max_pixels=59_999)
    assert err.value.kind == "too_large" and "MP" in str(err.value)
