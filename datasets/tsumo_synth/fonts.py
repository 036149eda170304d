"""Find the CJK fonts installed on this machine, so tile characters come in several typefaces.

Fonts are found with `fc-list` (Debian packages fonts-noto-cjk, fonts-ipaexfont-*, fonts-wqy-microhei,
fonts-vlgothic, fonts-arphic-ukai, fonts-arphic-uming); nothing is ever downloaded. A missing family is simply absent from the list.
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache

from PIL import ImageFont

# Families drawn from, with a note on why each is useful. Several Noto faces come from one .ttc
# file (index picks the face); the TC face gives traditional-style 發 and 萬.
WANTED_FAMILIES: tuple[str, ...] = (
    "Noto Sans CJK JP",
    "Noto Serif CJK JP",
    "Noto Serif CJK TC",
    "IPAexGothic",
    "IPAexMincho",
    "WenQuanYi Micro Hei",
    "VL Gothic",
    "AR PL UKai TW",   # brush (kaishu) strokes, like the numerals printed on most real tiles
    "AR PL UMing TW",
)

# Every character a tile face may be drawn with.
TILE_CHARS = "一二三四五六七八九伍萬万東南西北發中"


@dataclass(frozen=True)
class FontFace:
    family: str
    style: str
    path: str
    index: int

    def load(self, size: int) -> ImageFont.FreeTypeFont:
        return _load(self.path, self.index, size)


@lru_cache(maxsize=256)
def _load(path: str, index: int, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size=size, index=index)


def list_fc_faces() -> list[FontFace]:
    """Every Japanese- or traditional-Chinese-capable face fontconfig knows, sorted (so renders are reproducible)."""
    if shutil.which("fc-list") is None:
        return []
    out = ""
    for lang in (":lang=ja", ":lang=zh-tw"):  # the AR PL brush fonts register as Chinese only
        try:
            out += subprocess.run(
                ["fc-list", lang, "--format", "%{family[0]}|%{style[0]}|%{file}|%{index}\n"],
                capture_output=True, text=True, timeout=30, check=True,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            continue
    faces = set()
    for line in out.splitlines():
        parts = line.split("|")
        if len(parts) != 4:
            continue
        family, style, path, index = parts
        try:
            faces.add(FontFace(family.strip(), style.strip(), path.strip(), int(index or 0)))
        except ValueError:
            continue
    return sorted(faces, key=lambda f: (f.family, f.style, f.path, f.index))


def find_tile_fonts(families: tuple[str, ...] = WANTED_FAMILIES) -> list[FontFace]:
    """The installed faces of the wanted families that can draw every tile character."""
    faces = [f for f in list_fc_faces() if f.family in families]
    usable: list[FontFace] = []
    seen: set[tuple[str, str]] = set()
    for face in faces:
        if (face.family, face.style.lower()) in seen:  # one font installed under two paths
            continue
        try:
            font = face.load(32)
        except OSError:
            continue
        if all(_has_glyph(font, ch) for ch in "萬東南西北發中五"):
            usable.append(face)
            seen.add((face.family, face.style.lower()))
    return usable


def _has_glyph(font: ImageFont.FreeTypeFont, ch: str) -> bool:
    """True if the font draws `ch` itself (not the empty/tofu box of a missing glyph)."""
    mask = font.getmask(ch)
    if mask.size[0] == 0 or mask.size[1] == 0:
        return False
    tofu = font.getmask("\uffff")
    return bytes(mask) != bytes(tofu) or mask.size != tofu.size
