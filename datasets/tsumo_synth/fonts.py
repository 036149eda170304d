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

# Generator v5 (`TileArtist(v5=True)`): more hands for the man numerals and the winds, the glyphs the
# classifier still misreads on readable tiles. Brush (gyosho/sosho/kaisho) and pen-written families
# from Debian packages (fonts-kouzan-mouhitsu, fonts-aoyagi-kouzan-t, fonts-aoyagi-soseki,
# fonts-lxgw-wenkai, fonts-cwtex-kai, fonts-klee, fonts-kiloji, fonts-hanazono, fonts-dejima-mincho,
# fonts-motoya-l-maruberi). A v5 face needs only the numerals and winds/中 from them: 萬/發 come from
# another face when it lacks them (`FontFace.has`).
V5_FAMILIES: tuple[str, ...] = (
    "KouzanBrushFont", "KouzanBrushFontGyousyo", "KouzanBrushFontSousyo", "AoyagiKouzanFontT",
    "AoyagiSosekiFont2", "LXGW WenKai", "cwTeXKai", "Klee One", "kiloji", "kiloji - B", "kiloji - D",
    "HanaMinA", "Dejima", "MotoyaLMaru", "AR PL UKai CN", "AR PL KaitiM GB",
)
V5_NEEDED = "一二三四五六七八九東南西北中"


@dataclass(frozen=True)
class FontFace:
    family: str
    style: str
    path: str
    index: int

    def load(self, size: int) -> ImageFont.FreeTypeFont:
        return _load(self.path, self.index, size)

    def has(self, ch: str) -> bool:
        """True if this face draws `ch` itself."""
        return _face_has(self.path, self.index, ch)


@lru_cache(maxsize=4096)
def _face_has(path: str, index: int, ch: str) -> bool:
    return _has_glyph(_load(path, index, 32), ch)


@lru_cache(maxsize=256)
def _load(path: str, index: int, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size=size, index=index)


def list_fc_faces(langs: tuple[str, ...] = (":lang=ja", ":lang=zh-tw")) -> list[FontFace]:
    """Every Japanese- or traditional-Chinese-capable face fontconfig knows, sorted (so renders are reproducible).
    `langs` () lists every face (v5's families are checked glyph by glyph instead)."""
    if shutil.which("fc-list") is None:
        return []
    out = ""
    for lang in langs or ("",):  # the AR PL brush fonts register as Chinese only
        try:
            out += subprocess.run(
                ["fc-list", *([lang] if lang else []), "--format", "%{family[0]}|%{style[0]}|%{file}|%{index}\n"],
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


def find_v5_fonts() -> list[FontFace]:
    """Generator v5's extra faces (brush and pen hands) that are installed."""
    return find_tile_fonts(V5_FAMILIES, needed=V5_NEEDED, any_lang=True)


def find_tile_fonts(families: tuple[str, ...] = WANTED_FAMILIES, *, needed: str = "萬東南西北發中五",
                    any_lang: bool = False) -> list[FontFace]:
    """The installed faces of the wanted families that can draw every `needed` character (default: every
    tile character; v5 asks only for the numerals and winds, `V5_NEEDED`, over every installed face)."""
    faces = [f for f in list_fc_faces(() if any_lang else (":lang=ja", ":lang=zh-tw")) if f.family in families]
    usable: list[FontFace] = []
    seen: set[tuple[str, str]] = set()
    for face in faces:
        if (face.family, face.style.lower()) in seen:  # one font installed under two paths
            continue
        try:
            font = face.load(32)
        except OSError:
            continue
        if all(_has_glyph(font, ch) for ch in needed):
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
