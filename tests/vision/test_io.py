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
    data = _heic_bytes()
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
    huge = _png_bomb(100_000, 100_000)  # past Pillow's own guard: its "decompression bomb" text was passed on
    for read in (load_image, probe_image):
        with pytest.raises(ImageError) as err:
            read(huge)
        assert err.value.kind == "too_large"
        assert str(err.value) == ("the photo declares 10,000 MP (10,000,000,000 pixels), far more than any "
                                  "camera makes: refused before decoding")


def test_pixel_limit_is_configurable():
    data = _encode(_test_image(300, 200), "PNG")
    assert load_image(data, max_pixels=60_000).shape == (200, 300, 3)
    with pytest.raises(ImageError) as err:
        load_image(data, max_pixels=59_999)
    assert err.value.kind == "too_large" and "MP" in str(err.value)


def test_16bit_greyscale_png_keeps_its_tones():
    """Pillow's own convert clips 16-bit grey at 255: the photo came out almost all white."""
    ramp = np.tile(np.linspace(0, 255, 60).astype(np.uint16), (40, 1))
    data = _encode(Image.fromarray(ramp * 257), "PNG")
    assert Image.open(io.BytesIO(data)).mode.startswith("I")
    arr = load_image(data)
    assert arr.shape == (40, 60, 3)
    assert np.abs(arr[0, :, 0].astype(int) - ramp[0]).max() <= 1
    assert (arr[..., 0] == arr[..., 2]).all()


def test_mpo_phone_jpeg_reads_as_jpeg():
    """Many phone cameras write MPO (a JPEG plus depth/stereo frames); it was refused as unsupported."""
    img = _test_image()
    data = _encode(img, "MPO", save_all=True, append_images=[img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)])
    assert Image.open(io.BytesIO(data)).format == "MPO"
    info = probe_image(data)
    assert (info.format, info.width, info.height) == ("jpeg", 60, 40)
    arr = load_image(data)
    assert arr.shape == (40, 60, 3)
    assert arr[20, 5, 0] > 200 and arr[20, 55, 2] > 200  # the first frame, not the flipped one


def _heic_bytes() -> bytes:
    pillow_heif = pytest.importorskip("pillow_heif")
    buf = io.BytesIO()
    try:
        pillow_heif.from_pillow(_test_image()).save(buf, quality=95)
    except Exception as exc:  # encoder missing in this libheif build
        pytest.skip(f"no HEIC encoder: {exc}")
    return buf.getvalue()


@pytest.mark.parametrize("make,name", [
    (lambda: _heic_bytes()[: len(_heic_bytes()) // 2], "HEIC"),
    (lambda: _encode(_test_image(), "JPEG")[:4], "JPEG"),
    (lambda: _encode(_test_image(), "PNG")[:12], "PNG"),
])
def test_truncated_file_of_a_taken_format_is_corrupt_not_unsupported(make, name):
    """A damaged HEIC was answered 'not a supported image (expected … HEIC)': wrong and misleading."""
    data = make()
    for fn in (probe_image, load_image):
        with pytest.raises(ImageError) as err:
            fn(data)
        assert err.value.kind == "corrupt"
        assert name in str(err.value) and "truncated" in str(err.value)


@pytest.mark.parametrize("orientation,corner", [
    (1, "green"), (2, "blue"), (3, "blue"), (4, "red"), (5, "green"), (6, "red"), (7, "blue"), (8, "blue"),
])
def test_every_exif_orientation(orientation, corner):
    """The displayed top-left corner for each EXIF orientation (green marks the stored top-left)."""
    arr = np.asarray(_test_image()).copy()
    arr[:10, :15] = (0, 255, 0)
    exif = Image.Exif()
    exif[0x0112] = orientation
    data = _encode(Image.fromarray(arr), "PNG", exif=exif.tobytes())
    out = load_image(data)
    assert out.shape == ((60, 40, 3) if orientation >= 5 else (40, 60, 3))
    rgb = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255)}[corner]
    assert tuple(out[0, 0]) == rgb


def test_a_jpeg_over_the_pixel_limit_is_decoded_at_a_reduced_scale():
    """Refused before (a 48 MP phone photo at the 40 MP default); libjpeg scales while decoding."""
    data = _encode(_test_image(600, 400), "JPEG", quality=95)
    info = probe_image(data)
    assert info.read_size(240_000) == (600, 400)
    assert info.read_size(100_000) == (300, 200)
    assert info.read_size(3_750) == (75, 50)
    assert info.read_size(3_749) is None
    arr = load_image(data, max_pixels=100_000)
    assert arr.shape == (200, 300, 3)
    assert arr[100, 10, 0] > 200 and arr[100, 290, 2] > 200
    exif = Image.Exif()
    exif[0x0112] = 6
    turned = load_image(_encode(_test_image(600, 400), "JPEG", exif=exif.tobytes()), max_pixels=100_000)
    assert turned.shape == (300, 200, 3)
    with pytest.raises(ImageError) as err:
        load_image(data, max_pixels=3_749)
    assert err.value.kind == "too_large"
    png = _encode(_test_image(600, 400), "PNG")
    assert probe_image(png).read_size(100_000) is None  # only JPEG can be decoded smaller
