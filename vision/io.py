"""Photo bytes → RGB array, safely.

Phones send JPEG or HEIC with an EXIF orientation tag; browsers may send PNG or WebP. We read
the header first (format and size, no pixel decoding), refuse anything too large *before*
decoding it (a 50-kB PNG can declare 100 000 × 100 000 pixels), then decode and apply the EXIF
orientation so every later stage sees the photo the way the user framed it.
"""
from __future__ import annotations

import io
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

SUPPORTED_FORMATS = {"JPEG": "jpeg", "PNG": "png", "WEBP": "webp", "HEIF": "heic"}
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


def _open(data: bytes) -> Image.Image:
    if not data:
        raise ImageError("empty", "the photo is empty (0 bytes)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        raise ImageError("too_large", f"the photo is too large: {exc}") from None
    except UnidentifiedImageError:
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
        if w * h > max_pixels:
            raise ImageError(
                "too_large",
                f"the photo has {w}×{h} = {w * h / 1e6:.1f} MP; the limit is {max_pixels / 1e6:.0f} MP",
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                img.load()
                oriented = ImageOps.exif_transpose(img)
                rgb = oriented.convert("RGB")
        except Image.DecompressionBombError as exc:
            raise ImageError("too_large", f"the photo is too large: {exc}") from None
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise ImageError("corrupt", f"the image data is damaged: {exc}") from None
        arr = np.asarray(rgb, dtype=np.uint8)
        if arr.ndim != 3 or arr.shape[2] != 3 or arr.size == 0:
            raise ImageError("corrupt", "the image decoded to no pixels")
        return np.ascontiguousarray(arr)
    finally:
        img.close()
