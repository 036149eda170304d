"""Tile faces: the printed front of one tile, drawn from several sources so a model learns the
tile and not one artwork.

Sources (picked at random per face):
- **art**: the CC0 FluffyStuff PNGs (`Export/Regular` and `Export/Black`), recoloured: each art
  pixel is softly assigned to one of the art's few flat colours ("roles"), and each role gets a
  freshly drawn ink, so one artwork yields black, navy, green or blue sticks and circles.
- **font**: man (numeral over 萬) and honours drawn with the installed CJK fonts; 30 % of man
  faces take the brush-style AR PL UKai (real numerals are brush-written) when it is installed.
- **procedural**: pins (circles) and sous (bamboo sticks) in the standard arrangements.

Red fives are the normal five with its ink turned red (plus the common small dot); the art's own
`*-Dora` faces are used only now and then, because real red fives don't look like them.
All randomness comes from the `rng` passed in, so a seed reproduces a face exactly.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw

from .fonts import FontFace

RGB = tuple[int, int, int]

ART_STEMS: dict[str, str] = {
    **{f"{n}m": f"Man{n}" for n in range(1, 10)},
    **{f"{n}p": f"Pin{n}" for n in range(1, 10)},
    **{f"{n}s": f"Sou{n}" for n in range(1, 10)},
    "1z": "Ton", "2z": "Nan", "3z": "Shaa", "4z": "Pei", "5z": "Haku", "6z": "Hatsu", "7z": "Chun",
}
DORA_STEMS = {"0m": "Man5-Dora", "0p": "Pin5-Dora", "0s": "Sou5-Dora"}

# The flat colours of each art variant (measured from the PNGs) and the role each one plays.
ART_ROLES: dict[str, list[tuple[str, RGB]]] = {
    "Regular": [
        ("bg", (255, 255, 255)), ("black", (0, 0, 0)), ("green", (0, 73, 0)),
        ("darkred", (185, 60, 60)), ("red", (215, 30, 30)), ("navy", (0, 0, 55)),
        ("blue", (25, 50, 140)), ("blue", (20, 40, 150)),
    ],
    "Black": [
        ("main", (255, 255, 255)), ("accent", (240, 160, 35)), ("bg", (0, 0, 0)), ("red", (215, 30, 30)),
    ],
}

INKS: dict[str, list[RGB]] = {
    "black": [(15, 15, 15), (35, 30, 28), (20, 22, 35), (45, 45, 45), (10, 10, 10)],
    "navy": [(0, 0, 55), (15, 20, 70), (20, 25, 60), (10, 30, 90)],
    "blue": [(20, 40, 150), (25, 50, 140), (30, 70, 170), (15, 35, 110)],
    "green": [(0, 73, 0), (20, 110, 40), (0, 90, 60), (10, 60, 30), (30, 100, 50), (0, 70, 70)],
    "red": [(215, 30, 30), (185, 40, 40), (200, 20, 45), (170, 20, 20), (225, 55, 40), (190, 35, 60)],
}

BACK_COLORS: dict[str, RGB] = {
    "green": (40, 130, 70), "darkgreen": (25, 85, 55), "blue": (40, 80, 170), "lightblue": (90, 150, 210),
    "yellow": (230, 190, 50), "orange": (235, 120, 40), "lavender": (175, 160, 225),
    "black": (35, 35, 40), "red": (210, 40, 40), "pink": (230, 140, 170), "teal": (30, 140, 150),
}
# Pale backs (pastel automatic-table sets, worn or sun-bleached backs). Only the classifier-crop
# generator draws them (`TileArtist(light_backs=True)`): adding them to BACK_COLORS would change
# every scene render of existing seeds. Face-down, they look like a blank white dragon with a tint.
LIGHT_BACK_COLORS: dict[str, RGB] = {
    "paleyellow": (240, 222, 140), "cream": (236, 218, 170), "mint": (175, 225, 195), "paleblue": (170, 205, 235),
    "palepink": (240, 195, 205), "palegrey": (205, 205, 210), "palelavender": (210, 200, 235),
    "palegreen": (190, 220, 150), "peach": (245, 200, 160), "skyblue": (140, 190, 230),
}

PIN_LAYOUTS: dict[int, tuple[float, list[tuple[float, float, str]]]] = {
    # n: (radius as a fraction of the glyph width, [(x, y, colour role)]) in the glyph box.
    1: (0.46, [(0.5, 0.5, "a")]),
    2: (0.25, [(0.5, 0.26, "b"), (0.5, 0.74, "a")]),
    3: (0.19, [(0.21, 0.19, "a"), (0.5, 0.5, "r"), (0.79, 0.81, "b")]),
    4: (0.21, [(0.27, 0.26, "a"), (0.73, 0.26, "b"), (0.27, 0.74, "b"), (0.73, 0.74, "a")]),
    5: (0.19, [(0.23, 0.2, "a"), (0.77, 0.2, "b"), (0.5, 0.5, "r"), (0.23, 0.8, "b"), (0.77, 0.8, "a")]),
    6: (0.17, [(0.3, 0.15, "b"), (0.7, 0.15, "b"), (0.3, 0.55, "r"), (0.7, 0.55, "r"), (0.3, 0.85, "r"), (0.7, 0.85, "r")]),
    7: (0.15, [(0.18, 0.1, "b"), (0.5, 0.21, "b"), (0.82, 0.32, "b"),
               (0.3, 0.6, "r"), (0.7, 0.6, "r"), (0.3, 0.87, "r"), (0.7, 0.87, "r")]),
    8: (0.15, [(x, y, "a") for y in (0.12, 0.375, 0.625, 0.88) for x in (0.3, 0.7)]),
    9: (0.15, [(x, y, c) for y, c in ((0.15, "a"), (0.5, "r"), (0.85, "b")) for x in (0.19, 0.5, 0.81)]),
}

SOU_LAYOUTS: dict[int, tuple[float, list[tuple[float, float, float, str]]]] = {
    # n: (stick length as a fraction of glyph height, [(x, y, angle°, colour role)]).
    2: (0.4, [(0.5, 0.25, 0, "a"), (0.5, 0.75, 0, "a")]),
    3: (0.4, [(0.5, 0.25, 0, "a"), (0.28, 0.75, 0, "a"), (0.72, 0.75, 0, "a")]),
    4: (0.4, [(0.28, 0.25, 0, "a"), (0.72, 0.25, 0, "b"), (0.28, 0.75, 0, "b"), (0.72, 0.75, 0, "a")]),
    5: (0.4, [(0.2, 0.25, 0, "a"), (0.8, 0.25, 0, "b"), (0.5, 0.5, 0, "r"), (0.2, 0.75, 0, "b"), (0.8, 0.75, 0, "a")]),
    6: (0.4, [(x, y, 0, "a") for y in (0.25, 0.75) for x in (0.18, 0.5, 0.82)]),
    7: (0.29, [(0.5, 0.15, 0, "r")] + [(x, y, 0, "a") for y in (0.5, 0.84) for x in (0.18, 0.5, 0.82)]),
    8: (0.4, [(0.12, 0.25, 0, "a"), (0.35, 0.25, 28, "a"), (0.65, 0.25, -28, "a"), (0.88, 0.25, 0, "a"),
              (0.12, 0.75, 0, "a"), (0.35, 0.75, -28, "a"), (0.65, 0.75, 28, "a"), (0.88, 0.75, 0, "a")]),
    9: (0.29, [(x, y, 0, "r" if x == 0.5 else "a") for y in (0.16, 0.5, 0.84) for x in (0.18, 0.5, 0.82)]),
}

WIND_CHARS = {"1z": "東", "2z": "南", "3z": "西", "4z": "北"}
MAN_NUMERALS = "一二三四五六七八九"
BRUSH_FAMILIES = ("AR PL UKai TW",)  # kaishu: the brush style of real tile numerals


@dataclass
class Palette:
    """The inks of one face: `a`/`b` the two main inks, `r` red, `bg` the face colour."""
    a: RGB
    b: RGB
    r: RGB
    black: RGB
    bg: RGB


def face_background(rng: np.random.Generator) -> RGB:
    """Ivory to white: a brightness and a warmth (less blue) shift, never a pink or green tint."""
    bright = rng.normal(246, 5)
    warm = rng.uniform(0.0, 1.0) ** 1.5
    base = np.array([bright, bright - 4 * warm, bright - 22 * warm]) + rng.normal(0, 1.5, 3)
    return tuple(int(v) for v in np.clip(base, 190, 255))


def draw_palette(rng: np.random.Generator, *, red: bool = False) -> Palette:
    pick = lambda fam: INKS[fam][rng.integers(len(INKS[fam]))]  # noqa: E731
    style = rng.random()
    if style < 0.35:     # classic: green and navy/blue
        a, b = pick("navy" if rng.random() < 0.5 else "blue"), pick("green")
    elif style < 0.7:    # one dark ink (many automatic-table sets print black sticks and circles)
        a = b = pick("black" if rng.random() < 0.7 else "navy")
    elif style < 0.85:
        a, b = pick("green"), pick("green")
    else:
        a, b = pick("blue"), pick("black")
    r = pick("red")
    black = pick("black") if rng.random() < 0.85 else pick("navy")
    bg = face_background(rng)
    if red:
        a = b = black = r
    return Palette(a=a, b=b, r=r, black=black, bg=bg)


def _jitter_color(c: RGB, rng: np.random.Generator, s: float = 12) -> RGB:
    return tuple(int(v) for v in np.clip(np.array(c) + rng.normal(0, s, 3), 0, 255))


class ArtFaces:
    """The FluffyStuff artworks, decomposed into colour roles once, recoloured per face."""

    WORK = (240, 320)  # art is kept at this (w, h): twice the default face size

    def __init__(self, tiles_dir: Path):
        self.tiles_dir = Path(tiles_dir)
        self._cache: dict[tuple[str, str], tuple[list[str], np.ndarray, np.ndarray]] = {}

    def available(self) -> bool:
        return (self.tiles_dir / "Regular" / "Man1.png").is_file()

    def _roles(self, variant: str, stem: str) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """Per pixel: the two nearest colour roles and the weight of the first (keeps anti-aliasing)."""
        key = (variant, stem)
        if key not in self._cache:
            path = self.tiles_dir / variant / f"{stem}.png"
            rgba = np.asarray(Image.open(path).convert("RGBA").resize(self.WORK, Image.LANCZOS), dtype=np.float32)
            roles = ART_ROLES[variant]
            protos = np.array([c for _, c in roles], dtype=np.float32)
            d2 = ((rgba[..., None, :3] - protos[None, None]) ** 2).sum(-1)
            order = np.argsort(d2, axis=-1)[..., :2]
            d_a = np.take_along_axis(d2, order[..., :1], -1)[..., 0]
            d_b = np.take_along_axis(d2, order[..., 1:2], -1)[..., 0]
            # weight by distance along the segment between the two prototypes
            w = np.clip(1.0 - np.sqrt(d_a) / np.maximum(np.sqrt(d_a) + np.sqrt(d_b), 1e-3), 0.0, 1.0)
            w = np.clip((w - 0.5) * 2.0 + 0.5, 0.0, 1.0)  # the art's flat fills stay flat
            names = [n for n, _ in roles]
            self._cache[key] = (names, order.astype(np.uint8), w.astype(np.float32)[..., None],
                                (rgba[..., 3] / 255.0).astype(np.float32))
        return self._cache[key]

    def glyph(self, stem: str, variant: str, pal: Palette, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(colour H×W×3 float, alpha H×W float) of one artwork in the palette's inks."""
        names, order, w, alpha = self._roles(variant, stem)
        ink = {
            "bg": pal.bg, "black": pal.black, "green": pal.b, "navy": pal.a, "blue": pal.a,
            "red": pal.r, "darkred": pal.r, "main": pal.a, "accent": pal.r,
        }
        if variant == "Regular" and stem in ("Ton", "Nan", "Shaa", "Pei"):
            ink["blue"] = pal.a if rng.random() < 0.5 else pal.black
        if variant == "Black" and stem.startswith(("Sou", "Hatsu")):
            ink["main"] = pal.b
        if variant == "Black" and stem.startswith("Man"):
            ink["main"], ink["accent"] = pal.black, pal.r
        cols = np.array([_jitter_color(ink[n], rng, 6) for n in names], dtype=np.float32)
        color = cols[order[..., 0]] * w + cols[order[..., 1]] * (1.0 - w)
        return color, alpha


def _broad_nib(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Brush/broad-pen look: thin the strokes, then drag a slanted nib along them, so strokes get
    thick one way and thin the other (tile numerals are usually brush-written)."""
    thin = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    length = max(3, int(min(mask.shape) * rng.uniform(0.03, 0.07)))
    ker = np.zeros((length, length), np.uint8)
    cv2.line(ker, (0, length - 1), (length - 1, 0), 1, 2)
    ang = float(rng.uniform(-25, 25))
    rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), ang, 1.0)
    ker = (cv2.warpAffine(ker.astype(np.float32), rot, (length, length)) > 0.3).astype(np.uint8)
    out = cv2.dilate(thin, ker)
    return cv2.GaussianBlur(out, (3, 3), 0)


def _elastic(color: np.ndarray, alpha: np.ndarray, rng: np.random.Generator, amp: float):
    """Warp a glyph by a smooth random field (a 4×4 grid of offsets, cubic-interpolated)."""
    h, w = alpha.shape
    dx = cv2.resize(rng.normal(0, amp, (4, 4)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    dy = cv2.resize(rng.normal(0, amp, (4, 4)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    xx, yy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    mx, my = xx + dx, yy + dy
    color = cv2.remap(color, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.remap(alpha, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return color, alpha


# Generator v5's floor on a face's ink (`ink_share`): 0.7 × the median of 24 v4 faces per label (seed 9502,
# session 15); a face under it (thin or pale strokes that average away at tile size) is drawn again.
# 5z may be blank: no floor.
V4_MEDIAN_INK: dict[str, float] = {
    "1m": 0.195, "2m": 0.213, "3m": 0.248, "4m": 0.252, "5m": 0.256, "6m": 0.245, "7m": 0.212, "8m": 0.188,
    "9m": 0.216, "1p": 0.296, "2p": 0.174, "3p": 0.165, "4p": 0.253, "5p": 0.274, "6p": 0.275, "7p": 0.264,
    "8p": 0.316, "9p": 0.353, "1s": 0.273, "2s": 0.056, "3s": 0.077, "4s": 0.107, "5s": 0.167, "6s": 0.16,
    "7s": 0.128, "8s": 0.232, "9s": 0.161, "1z": 0.217, "2z": 0.215, "3z": 0.266, "4z": 0.159, "6z": 0.298,
    "7z": 0.165, "0m": 0.227, "0p": 0.281, "0s": 0.168,
}
V5_MIN_INK: dict[str, float] = {k: round(0.7 * v, 3) for k, v in V4_MEDIAN_INK.items()}
V5_TRIES = 4


def ink_share(face: np.ndarray, size: tuple[int, int] = (24, 32), contrast: float = 45.0) -> float:
    """Share of a face's pixels that still show ink when the face is `size` (w, h) pixels: luminance at least
    `contrast` levels under the face colour (its 90th percentile) after area-averaging. Thin or pale
    strokes average away, which is what makes a small tile unreadable."""
    rgb = np.asarray(face)[..., :3].astype(np.float32)
    lum = rgb @ np.array([0.299, 0.587, 0.114], np.float32)
    small = cv2.resize(lum, size, interpolation=cv2.INTER_AREA)
    bg = float(np.percentile(lum, 90))
    return float(np.mean(bg - small >= contrast))


@dataclass
class FaceSpec:
    """What was drawn (kept for tests and debugging)."""
    label: str
    source: str


class FaceRenderer:
    """Draws a face for any label in `vision.classes.TILE_CLASSES`."""

    def __init__(self, art: ArtFaces | None, fonts: list[FontFace], size: tuple[int, int] = (120, 160), *,
                 red_designs: bool = False, v5_fonts: list[FontFace] | None = None):
        self.art = art if art is not None and art.available() else None
        self.fonts = fonts
        # generator v5 (None: off, so every earlier seed draws what it drew before): brush/pen hands for
        # man numerals and winds, a minimum stroke weight, and no face whose ink is (nearly) invisible
        self.v5 = v5_fonts is not None
        self.v5_fonts = list(v5_fonts or [])
        self.size = size  # (w, h), 3:4
        # more red-five designs (a crystal/jewel centre circle, solid red discs): off by default so
        # scene renders of existing seeds stay identical; the classifier-crop generator turns it on
        self.red_designs = red_designs

    # ---- public -------------------------------------------------------------------------
    def render(self, label: str, rng: np.random.Generator, *, back_color: RGB | None = None) -> tuple[np.ndarray, FaceSpec]:
        """RGBA uint8 face of `label` (H×W×4, fully opaque) and what was drawn.

        v5: a face whose ink share at tile size (`ink_share`) is under `V5_MIN_INK` of its label is drawn
        again (up to `V5_TRIES` times, from the same rng: still one face per seed)."""
        if label == "back":
            return self._back(rng, back_color), FaceSpec(label, "back")
        if not self.v5 or label == "5z":
            return self._render_face(label, rng)
        best = None
        for _ in range(V5_TRIES):
            rgba, spec = self._render_face(label, rng)
            share = ink_share(rgba)
            if best is None or share > best[0]:
                best = (share, rgba, spec)
            if share >= V5_MIN_INK.get(label, 0.0):
                break
        return best[1], best[2]

    def _render_face(self, label: str, rng: np.random.Generator) -> tuple[np.ndarray, FaceSpec]:
        red = label.startswith("0")
        base = "5" + label[1] if red else label
        pal = draw_palette(rng, red=red)
        sources = self._sources(base)
        source = sources[rng.integers(len(sources))]
        w, h = self.size
        W, H = 2 * w, 2 * h
        canvas = self._background(W, H, pal.bg, rng)
        # glyph box: margins vary with the set's design
        mx, my = rng.uniform(0.07, 0.13) * W, rng.uniform(0.06, 0.11) * H
        box = (mx, my, W - mx, H - my)
        if source == "art":
            stem = ART_STEMS[base]
            if red and rng.random() < 0.2:
                stem = DORA_STEMS[label]
                pal.a, pal.b, pal.black = draw_palette(rng).a, draw_palette(rng).b, draw_palette(rng).black
            variant = "Regular" if rng.random() < 0.65 else "Black"
            if base == "5z" and variant == "Black":
                variant = "Regular"  # both are blank; frames are drawn below
            color, alpha = self.art.glyph(stem, variant, pal, rng)
            self._place(canvas, color, alpha, box, rng, stretch=0.08)
        elif source == "font":
            self._font_face(canvas, base, pal, box, rng, red=red)
        elif source == "pins":
            solid = red and self.red_designs and rng.random() < 0.25
            self._pins(canvas, int(base[0]), pal, box, rng, style=3 if solid else None)
        elif source == "sous":
            self._sous(canvas, int(base[0]), pal, box, rng)
        if base == "5z":
            self._haku(canvas, pal, rng)
        if red and self.red_designs and label == "0p" and source in ("pins", "art") and rng.random() < 0.35:
            self._gem(canvas, pal, box, rng)  # the centre circle is a crystal/jewel insert
        elif red and rng.random() < 0.6:
            self._red_dot(canvas, label, pal, box, rng)
        face = cv2.resize(canvas, (w, h), interpolation=cv2.INTER_AREA)
        rgba = np.dstack([np.clip(face, 0, 255).astype(np.uint8), np.full((h, w), 255, np.uint8)])
        return rgba, FaceSpec(label, source)

    # ---- sources --------------------------------------------------------------------------
    def _sources(self, base: str) -> list[str]:
        suit = base[1]
        out: list[str] = []
        if self.art is not None:
            out.append("art")
        if suit == "p":
            out += ["pins", "pins"]
        elif suit == "s" and base != "1s":
            out += ["sous", "sous"]
        elif suit in "mz" and self.fonts:
            out += ["font", "font"] if self.v5 and base != "5z" else ["font"]  # v5: the art is one hand only
        if not out:  # no art and no font: still draw something recognisable
            out = ["font"] if self.fonts else ["pins" if suit == "p" else "sous"]
        return out

    def _background(self, W: int, H: int, bg: RGB, rng: np.random.Generator) -> np.ndarray:
        """Face colour with a gentle gradient: the face is a curved, slightly glossy plastic."""
        gy = np.linspace(-1, 1, H, dtype=np.float32)[:, None, None] * rng.uniform(-8, 8)
        gx = np.linspace(-1, 1, W, dtype=np.float32)[None, :, None] * rng.uniform(-6, 6)
        return (np.array(bg, np.float32)[None, None] + gy + gx).astype(np.float32)

    def _place(self, canvas: np.ndarray, color: np.ndarray, alpha: np.ndarray, box, rng, *, stretch: float = 0.0,
               keep_aspect: bool = False) -> None:
        """Composite a glyph (colour, alpha) into `box` of the canvas, with scale/offset/weight jitter."""
        x0, y0, x1, y1 = box
        bw, bh = x1 - x0, y1 - y0
        gh, gw = alpha.shape
        s = rng.uniform(0.82, 1.0)
        if keep_aspect:
            k = min(bw / gw, bh / gh) * s
            sx, sy = k, k
        else:
            sx = bw / gw * s * (1 + rng.uniform(-stretch, stretch))
            sy = bh / gh * s * (1 + rng.uniform(-stretch, stretch))
        tw, th = gw * sx, gh * sy
        tx = x0 + (bw - tw) / 2 + rng.uniform(-0.5, 0.5) * max(bw - tw, 0) + rng.normal(0, 0.015) * bw
        ty = y0 + (bh - th) / 2 + rng.uniform(-0.5, 0.5) * max(bh - th, 0) + rng.normal(0, 0.015) * bh
        # hand-drawn look: a smooth random displacement, so strokes are not one font's exact shape
        if rng.random() < 0.7:
            color, alpha = _elastic(color, alpha, rng, amp=rng.uniform(0.01, 0.035) * min(gw, gh))
        # stroke weight: blur the coverage and re-threshold it higher or lower (v5: never much thinner
        # than the font draws it; thin strokes vanish on small, bright tiles)
        a = alpha
        t = rng.uniform(0.3, 0.55 if self.v5 else 0.7)
        if abs(t - 0.5) > 0.05:
            k = max(1, int(round(min(gw, gh) * 0.012))) * 2 + 1
            ab = cv2.GaussianBlur(a, (k, k), 0)
            prem = cv2.GaussianBlur(color * a[..., None], (k, k), 0)
            color = prem / np.maximum(ab[..., None], 1e-3)
            a = np.clip((ab - t) / 0.25 + 0.5, 0, 1)
        M = np.array([[sx, 0, tx], [0, sy, ty]], np.float32)
        H, W = canvas.shape[:2]
        wa = cv2.warpAffine(a, M, (W, H), flags=cv2.INTER_LINEAR, borderValue=0)[..., None]
        wc = cv2.warpAffine(color, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        canvas *= 1 - wa
        canvas += wc * wa

    def _text_mask(self, text: str, font: FontFace, rng: np.random.Generator, *, stroke: int = 0) -> np.ndarray:
        """Coverage (float 0..1) of `text` drawn big, cropped to its ink."""
        size = 160
        f = font.load(size)
        img = Image.new("L", (int(size * 1.6 * len(text)), int(size * 1.6)), 0)
        ImageDraw.Draw(img).text((size * 0.3, size * 0.2), text, font=f, fill=255, stroke_width=stroke, stroke_fill=255)
        bbox = img.getbbox()
        if bbox is None:
            return np.zeros((8, 8), np.float32)
        mask = np.asarray(img.crop(bbox), np.float32) / 255.0
        if text in "一二三四五六七八九伍中南西北" and rng.random() < 0.45:  # dense characters would clog
            mask = _broad_nib(mask, rng)
        return mask

    def _solid(self, mask: np.ndarray, color: RGB, rng) -> np.ndarray:
        return np.broadcast_to(np.array(_jitter_color(color, rng, 5), np.float32), mask.shape + (3,)).copy()

    def _font_face(self, canvas, base: str, pal: Palette, box, rng, *, red: bool) -> None:
        font = self.fonts[rng.integers(len(self.fonts))]
        brush = [f for f in self.fonts if f.family in BRUSH_FAMILIES]
        if brush and base[1] == "m" and rng.random() < 0.3:  # real man numerals are mostly brush-written
            font = brush[rng.integers(len(brush))]
        if self.v5 and self.v5_fonts and base not in ("5z",) and rng.random() < 0.55:
            font = self.v5_fonts[rng.integers(len(self.v5_fonts))]  # v5: brush and pen hands
        stroke = int(rng.integers(0, 5))
        x0, y0, x1, y1 = box
        bh = y1 - y0
        if base[1] == "m":
            n = int(base[0])
            numeral = MAN_NUMERALS[n - 1]
            if n == 5 and rng.random() < (0.6 if red else 0.35):
                numeral = "伍"
            manchar = "萬" if rng.random() < 0.93 else "万"
            split = rng.uniform(0.42, 0.52)
            top = (x0, y0, x1, y0 + bh * split)
            bot = (x0, y0 + bh * split, x1, y1)
            if self.v5:  # numeral and 萬 in other proportions: the numeral's shape must carry the label
                split = rng.uniform(0.34, 0.58)
                nw = rng.uniform(0.7, 1.0) * (x1 - x0)
                cx = (x0 + x1) / 2 + rng.normal(0, 0.04) * (x1 - x0)
                top = (cx - nw / 2, y0, cx + nw / 2, y0 + bh * split)
                mw = rng.uniform(0.7, 1.0) * (x1 - x0)
                bot = ((x0 + x1 - mw) / 2, y0 + bh * split + rng.uniform(0, 0.04) * bh, (x0 + x1 + mw) / 2, y1)
                if not font.has(numeral):
                    font = self.fonts[rng.integers(len(self.fonts))]
            m1 = self._text_mask(numeral, font, rng, stroke=stroke)
            mfont = self.fonts[rng.integers(len(self.fonts))] if rng.random() < 0.3 else font
            if self.v5 and not mfont.has(manchar):
                mfont = self.fonts[rng.integers(len(self.fonts))]
            m2 = self._text_mask(manchar, mfont, rng, stroke=min(stroke, 2))
            # short numerals (一 二 三) keep their flat shape instead of being stretched to the box
            self._place(canvas, self._solid(m1, pal.black, rng), m1, top, rng, keep_aspect=True)
            self._place(canvas, self._solid(m2, pal.r, rng), m2, bot, rng, stretch=0.12)
        else:
            ch = {**WIND_CHARS, "6z": "發", "7z": "中"}.get(base)
            if ch is None:  # 5z: blank face, frame drawn by _haku
                return
            if base == "7z":
                ink = pal.r
            elif base == "6z":
                ink = pal.b if rng.random() < 0.7 else pal.black
            else:
                ink = [pal.a, pal.black, INKS["blue"][rng.integers(4)]][rng.integers(3)]
            if self.v5 and not font.has(ch):  # e.g. a brush face without 發
                font = self.fonts[rng.integers(len(self.fonts))]
            m = self._text_mask(ch, font, rng, stroke=stroke)
            self._place(canvas, self._solid(m, ink, rng), m, box, rng, stretch=0.22 if self.v5 else 0.15)

    def _haku(self, canvas, pal: Palette, rng) -> None:
        """White dragon: blank (most riichi sets) or a frame (blue/black; Chinese sets)."""
        if rng.random() < 0.5:
            return
        H, W = canvas.shape[:2]
        ink = [INKS["blue"][rng.integers(4)], pal.black, pal.a][rng.integers(3)]
        img = Image.new("L", (W, H), 0)
        d = ImageDraw.Draw(img)
        mx, my = rng.uniform(0.12, 0.22) * W, rng.uniform(0.1, 0.18) * H
        t = int(rng.uniform(0.025, 0.07) * W)
        d.rectangle([mx, my, W - mx, H - my], outline=255, width=max(t, 2))
        if rng.random() < 0.4:  # inner second frame
            g = t * 2.2
            d.rectangle([mx + g, my + g, W - mx - g, H - my - g], outline=255, width=max(t // 2, 2))
        a = np.asarray(img, np.float32)[..., None] / 255.0
        canvas *= 1 - a
        canvas += a * np.array(_jitter_color(ink, rng, 6), np.float32)

    def _pins(self, canvas, n: int, pal: Palette, box, rng, style: int | None = None) -> None:
        x0, y0, x1, y1 = box
        bw, bh = x1 - x0, y1 - y0
        rfrac, layout = PIN_LAYOUTS[n]
        r = rfrac * bw * rng.uniform(0.88, 1.05)
        H, W = canvas.shape[:2]
        if style is None:
            style = int(rng.integers(3))
        for (fx, fy, role) in layout:
            ink = {"a": pal.a, "b": pal.b, "r": pal.r}[role]
            cx, cy = x0 + fx * bw + rng.normal(0, 0.008 * bw), y0 + fy * bh + rng.normal(0, 0.008 * bh)
            self._circle(canvas, cx, cy, r * (0.98 if n > 1 else 1.0), ink, pal, style, rng, big=(n == 1))

    def _circle(self, canvas, cx, cy, r, ink: RGB, pal: Palette, style: int, rng, big: bool = False) -> None:
        """One pin circle: concentric rings (designs differ between sets)."""
        H, W = canvas.shape[:2]
        img = Image.new("RGB", (W, H), (0, 0, 0))
        msk = Image.new("L", (W, H), 0)
        d, dm = ImageDraw.Draw(img), ImageDraw.Draw(msk)
        ink_c = _jitter_color(ink, rng, 6)
        bg = tuple(int(v) for v in pal.bg)

        def disc(rr, col):
            d.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], fill=col)
            dm.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], fill=255)

        if style == 3:      # solid disc, small light centre (some red fives)
            rings = [(1.0, ink_c), (0.25, bg), (0.12, ink_c)]
        elif style == 0:    # thick ring, thin ring, dot
            rings = [(1.0, ink_c), (0.78, bg), (0.62, ink_c), (0.5, bg), (0.22, ink_c)]
        elif style == 1:    # solid disc with light pattern
            rings = [(1.0, ink_c), (0.7, bg), (0.55, ink_c), (0.3, bg), (0.15, ink_c)]
        else:               # thin outline, petals approximated by a dotted ring
            rings = [(1.0, ink_c), (0.88, bg), (0.45, ink_c), (0.3, bg)]
        if big:
            rings = [(1.0, ink_c), (0.9, bg), (0.82, ink_c), (0.62, bg), (0.5, pal.r), (0.32, bg), (0.18, ink_c)]
        for rr, col in rings:
            disc(rr * r, col)
        if style == 2 and not big:
            for k in range(8):
                ang = k * np.pi / 4
                px, py = cx + 0.66 * r * np.cos(ang), cy + 0.66 * r * np.sin(ang)
                rr = 0.11 * r
                d.ellipse([px - rr, py - rr, px + rr, py + rr], fill=ink_c)
        a = np.asarray(msk, np.float32)[..., None] / 255.0
        c = np.asarray(img, np.float32)
        canvas *= 1 - a
        canvas += c * a

    def _sous(self, canvas, n: int, pal: Palette, box, rng) -> None:
        x0, y0, x1, y1 = box
        bw, bh = x1 - x0, y1 - y0
        lfrac, layout = SOU_LAYOUTS[n]
        length = lfrac * bh * rng.uniform(0.85, 1.0)
        width = length * rng.uniform(0.21 if self.v5 else 0.17, 0.26)  # v5: no hair-thin sticks
        if n in (6, 9, 7):
            width = min(width, bw * 0.2)
        if n == 8:
            width = min(width, bw * 0.16)
        for (fx, fy, ang, role) in layout:
            ink = {"a": pal.b, "b": pal.a, "r": pal.r}[role]
            cx, cy = x0 + fx * bw + rng.normal(0, 0.006 * bw), y0 + fy * bh + rng.normal(0, 0.006 * bh)
            self._stick(canvas, cx, cy, length, width, ang, ink, pal, rng)

    def _stick(self, canvas, cx, cy, length, width, ang, ink: RGB, pal: Palette, rng) -> None:
        """A bamboo stick: rounded bar with a node at both ends and in the middle."""
        L, Wd = int(length), int(width)
        img = Image.new("RGBA", (Wd + 4, L + 4), (0, 0, 0, 0))
        d = ImageDraw.Draw(img)
        ink_c = _jitter_color(ink, rng, 6) + (255,)
        bg = tuple(int(v) for v in pal.bg) + (255,)
        w0 = Wd * (0.72 if self.v5 else 0.62)  # v5: a thicker shaft between the nodes
        d.rounded_rectangle([2 + (Wd - w0) / 2, 2, 2 + (Wd + w0) / 2, 2 + L], radius=w0 / 2, fill=ink_c)
        for fy in (0.08, 0.5, 0.92):  # nodes: wider bands
            y = 2 + fy * L
            d.rounded_rectangle([2, y - Wd * 0.18, 2 + Wd, y + Wd * 0.18], radius=Wd * 0.15, fill=ink_c)
        # light centre line between nodes, as printed on most sets
        lw = max(1, Wd * 0.12)
        for ya, yb in ((0.16, 0.42), (0.58, 0.84)):
            d.line([(2 + Wd / 2, 2 + ya * L), (2 + Wd / 2, 2 + yb * L)], fill=bg, width=int(lw))
        if ang:
            img = img.rotate(ang, resample=Image.BICUBIC, expand=True)
        arr = np.asarray(img, np.float32)
        h, w = arr.shape[:2]
        X, Y = int(round(cx - w / 2)), int(round(cy - h / 2))
        H, W = canvas.shape[:2]
        xa, ya, xb, yb = max(X, 0), max(Y, 0), min(X + w, W), min(Y + h, H)
        if xa >= xb or ya >= yb:
            return
        sub = arr[ya - Y:yb - Y, xa - X:xb - X]
        a = sub[..., 3:4] / 255.0
        canvas[ya:yb, xa:xb] = canvas[ya:yb, xa:xb] * (1 - a) + sub[..., :3] * a

    def _gem(self, canvas, pal: Palette, box, rng) -> None:
        """A crystal set into the centre circle of a red 5p: a clear, faceted disc (pale, with a
        coloured tint, dark facet edges and a white highlight) inside a thin red rim."""
        x0, y0, x1, y1 = box
        bw, bh = x1 - x0, y1 - y0
        cx, cy = x0 + 0.5 * bw + rng.normal(0, 0.01 * bw), y0 + 0.5 * bh + rng.normal(0, 0.01 * bh)
        r = bw * rng.uniform(0.17, 0.24)
        H, W = canvas.shape[:2]
        img = Image.new("RGB", (W, H), (0, 0, 0))
        msk = Image.new("L", (W, H), 0)
        d, dm = ImageDraw.Draw(img), ImageDraw.Draw(msk)
        rim = _jitter_color(pal.r, rng, 6)
        tints = [(235, 235, 240), (250, 200, 210), (200, 225, 250), (240, 120, 140), (225, 60, 70), (200, 235, 220)]
        tint = np.array(tints[rng.integers(len(tints))], np.float32)
        d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=rim)
        dm.ellipse([cx - r, cy - r, cx + r, cy + r], fill=255)
        ri = r * rng.uniform(0.72, 0.85)
        k = int(rng.choice([6, 8, 10, 12]))
        a0 = rng.uniform(0, np.pi)
        for i in range(k):  # facets: wedges of alternating brightness
            a, b = a0 + 2 * np.pi * i / k, a0 + 2 * np.pi * (i + 1) / k
            shade = rng.uniform(0.6, 1.05) if i % 2 else rng.uniform(0.85, 1.15)
            col = tuple(int(v) for v in np.clip(tint * shade, 0, 255))
            d.polygon([(cx, cy), (cx + ri * np.cos(a), cy + ri * np.sin(a)), (cx + ri * np.cos(b), cy + ri * np.sin(b))],
                      fill=col, outline=tuple(int(v) for v in tint * 0.55))
        hr = ri * rng.uniform(0.15, 0.3)  # specular highlight
        hx, hy = cx - ri * rng.uniform(0.1, 0.4), cy - ri * rng.uniform(0.1, 0.4)
        d.ellipse([hx - hr, hy - hr, hx + hr, hy + hr], fill=(255, 255, 255))
        a = np.asarray(msk, np.float32)[..., None] / 255.0
        canvas *= 1 - a
        canvas += np.asarray(img, np.float32) * a

    def _red_dot(self, canvas, label: str, pal: Palette, box, rng) -> None:
        """The small dot many sets add to red fives."""
        x0, y0, x1, y1 = box
        bw, bh = x1 - x0, y1 - y0
        spots = {
            "0m": [(0.12, 0.1), (0.88, 0.1), (0.12, 0.3)],
            "0p": [(0.5, 0.2), (0.12, 0.5), (0.5, 0.8)],
            "0s": [(0.5, 0.2), (0.5, 0.8), (0.2, 0.5)],
        }[label]
        fx, fy = spots[rng.integers(len(spots))]
        r = bw * rng.uniform(0.03, 0.05)
        cx, cy = x0 + fx * bw, y0 + fy * bh
        yy, xx = np.mgrid[0:canvas.shape[0], 0:canvas.shape[1]]
        a = np.clip(r + 0.5 - np.hypot(xx - cx, yy - cy), 0, 1)[..., None].astype(np.float32)
        canvas *= 1 - a
        canvas += a * np.array(pal.r, np.float32)

    def _back(self, rng: np.random.Generator, back_color: RGB | None) -> np.ndarray:
        w, h = self.size
        if back_color is None:
            names = sorted(BACK_COLORS)
            back_color = BACK_COLORS[names[rng.integers(len(names))]]
        c = np.array(_jitter_color(back_color, rng, 10), np.float32)
        canvas = np.empty((h, w, 3), np.float32)
        canvas[:] = c
        canvas += np.linspace(-1, 1, h)[:, None, None] * rng.uniform(-12, 12)
        canvas += rng.normal(0, 1.5, (h, w, 1))
        if rng.random() < 0.15:  # some backs carry a faint embossed logo or pattern
            yy, xx = np.mgrid[0:h, 0:w]
            ring = np.abs(np.hypot(xx - w / 2, yy - h / 2) - w * 0.25) < w * 0.03
            canvas[ring] *= rng.uniform(0.85, 0.95)
        return np.dstack([np.clip(canvas, 0, 255).astype(np.uint8), np.full((h, w), 255, np.uint8)])
