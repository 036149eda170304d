"""Photo bytes → RGB array, safely.

Phones send JPEG or HEIC with an EXIF orientation tag; browsers may send PNG or WebP. We read
the header first (format and size, no pixel decoding), refuse anything too large *before*
decoding it (a 50-kB PNG can declare 100 000 × 100 000 pixels; a JPEG over the limit is decoded
at 1/2, 1/4 or 1/8 instead, which libjpeg does as cheaply), then decode and apply the EXIF
orientation so every later stage sees the photo the way the user framed it.
"""
from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

try:  # HEIC/HEIF (iPhone photos); registered once per process, no global state of ours
    import pillow_heif

    pillow_heif.register_heif_opener()
    _HEIF = True
except ImportError:  # pragma: no cover - pillow-heif is a runtime dependency
    _HEIF = False

# MPO is a JPEG with extra frames (depth, stereo) that many phone cameras write; it reads as JPEG.
SUPPORTED_FORMATS = {"JPEG": "jpeg", "MPO": "jpeg", "PNG": "png", "WEBP": "webp", "HEIF": "heic"}
HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")
DEFAULT_MAX_PIXELS = 40_000_000
ErrorKind = Literal["unsupported", "too_large", "corrupt", "empty"]


class ImageError(ValueError):
    """The input is not a photo we can read; `kind` says why (for HTTP codes and messages)."""

    def __init__(self, kind: ErrorKind, message: str):
        super().__init__(message)
        self.kind: ErrorKind = kind


@dataclass(frozen=True)
class ImageInfo:
    format: str  # "jpeg", "png", "webp" or "heic"
    width: int  # as stored (before EXIF rotation)
    height: int
    orientation: int = 1  # EXIF orientation tag (1 = as stored)

    @property
    def pixels(self) -> int:
        return self.width * self.height

    def read_size(self, max_pixels: int = DEFAULT_MAX_PIXELS) -> tuple[int, int] | None:
        """The stored size `load_image` decodes this photo at, or None if it is over `max_pixels`.
        A JPEG over the limit is decoded at 1/2, 1/4 or 1/8 (libjpeg scales while decoding, so
        memory stays under the limit): 48 or 108 MP phone photos are read, not refused."""
        k = _reduction(self.format, self.width, self.height, max_pixels)
        return None if k is None else (-(-self.width // k), -(-self.height // k))


JPEG_SCALES = (1, 2, 4, 8)


def _reduction(fmt: str, width: int, height: int, max_pixels: int) -> int | None:
    """The smallest k such that the photo decoded at 1/k fits `max_pixels` (only JPEG has k > 1)."""
    for k in JPEG_SCALES if fmt == "jpeg" else (1,):
        if -(-width // k) * -(-height // k) <= max_pixels:
            return k
    return None


def _sniff(data: bytes) -> str | None:
    """The supported format `data` starts like, from its magic bytes (None if none)."""
    if data[:3] == b"\xff\xd8\xff":
        return "JPEG"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "PNG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    if data[4:8] == b"ftyp" and data[8:12] in HEIF_BRANDS:
        return "HEIC"
    return None


def _bomb(exc: Exception) -> ImageError:
    """Pillow refuses a header declaring over ~179 MP before our own limit is asked: say it in our words."""
    declared = re.search(r"Image size \((\d+) pixels\)", str(exc))
    n = int(declared.group(1)) if declared else 0
    size = f"declares {n / 1e6:,.0f} MP ({n:,} pixels)" if declared else "declares far too many pixels"
    return ImageError("too_large", f"the photo {size}, far more than any camera makes: refused before decoding")


def _open(data: bytes) -> Image.Image:
    if not data:
        raise ImageError("empty", "the photo is empty (0 bytes)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        raise _bomb(exc) from None
    except UnidentifiedImageError:
        # A damaged or truncated file of a format we take is not an "unsupported format".
        if (looks_like := _sniff(data)) is not None:
            raise ImageError(
                "corrupt", f"the file starts like a {looks_like} image but cannot be read: it is damaged or truncated"
            ) from None
        raise ImageError(
            "unsupported", "not a supported image (expected JPEG, PNG, WebP or HEIC)"
        ) from None
    except Exception as exc:  # truncated headers, broken chunks, …
        raise ImageError("corrupt", f"the image header cannot be read: {exc}") from None
    if img.format not in SUPPORTED_FORMATS:
        fmt = img.format or "unknown"
        img.close()
        raise ImageError("unsupported", f"{fmt} images are not supported (expected JPEG, PNG, WebP or HEIC)")
    return img


def probe_image(data: bytes) -> ImageInfo:
    """Format and size from the header only (Pillow opens lazily: no pixels are decoded)."""
    img = _open(data)
    try:
        orientation = 1
        try:
            orientation = int(img.getexif().get(0x0112, 1) or 1)
        except Exception:  # a broken EXIF block must not hide a readable photo
            orientation = 1
        if img.width <= 0 or img.height <= 0:
            raise ImageError("corrupt", "the image declares no pixels")
        return ImageInfo(SUPPORTED_FORMATS[img.format], img.width, img.height, orientation)
    finally:
        img.close()


def _to_rgb(img: Image.Image) -> Image.Image:
    """8-bit RGB. 16-bit greyscale (PNG "I;16", or "I" in older Pillow) is scaled down first:
    Pillow's own `convert` clips it at 255, turning nearly every pixel white."""
    if img.mode.startswith("I;16") or img.mode == "I":
        wide = np.asarray(img).astype(np.int64)
        if img.mode.startswith("I;16") or wide.max(initial=0) > 255:
            wide = np.clip(wide, 0, 65535) >> 8
        img = Image.fromarray(wide.astype(np.uint8), "L")
    elif img.mode == "F":
        flat = np.asarray(img, dtype=np.float64)
        scale = 255.0 if np.nanmax(flat, initial=0.0) <= 1.0 else 1.0
        img = Image.fromarray(np.clip(np.nan_to_num(flat * scale), 0, 255).astype(np.uint8), "L")
    return img.convert("RGB")


def load_image(data: bytes | Path | str, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> np.ndarray:
    """Decode a photo to an H×W×3 uint8 RGB array, EXIF-oriented.

    Raises `ImageError` (kind ``empty``/``unsupported``/``too_large``/``corrupt``); a path that
    cannot be opened raises the usual `OSError`.
    """
    if isinstance(data, (str, Path)):
        data = Path(data).read_bytes()
    elif not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"load_image needs bytes or a path, not {type(data).__name__}")
    data = bytes(data)
    img = _open(data)
    try:
        w, h = img.size
        if w <= 0 or h <= 0:
            raise ImageError("corrupt", "the image declares no pixels")
        k = _reduction(SUPPORTED_FORMATS[img.format], w, h, max_pixels)
        if k is None:
            raise ImageError(
                "too_large",
                f"the photo has {w}×{h} = {w * h / 1e6:.1f} MP; the limit is {max_pixels / 1e6:.0f} MP",
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if k > 1:  # a JPEG decoded at 1/k (DCT scaling); asked w//k, Pillow picks exactly k
                    img.draft(img.mode, (max(1, w // k), max(1, h // k)))
                reduced = img.size
                img.load()
                oriented = ImageOps.exif_transpose(img)
                rgb = _to_rgb(oriented)
        except Image.DecompressionBombError as exc:
            raise _bomb(exc) from None
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise ImageError("corrupt", f"the image data is damaged: {exc}") from None
        if reduced != (-(-w // k), -(-h // k)):
            raise ImageError("too_large", f"the photo has {w}×{h} pixels and could not be reduced to fit the limit")
        arr = np.asarray(rgb, dtype=np.uint8)
        if arr.ndim != 3 or arr.shape[2] != 3 or arr.size == 0:
            raise ImageError("corrupt", "the image decoded to no pixels")
        return np.ascontiguousarray(arr)
    finally:
        img.close()
