"""The light on the tiles, measured on their faces, and a photo balanced to the light the models know.

The detectors and the classifier learned from renders whose light is near white (each channel's gain within a few
per cent: `tsumo_synth.scene`) and exposed within 0.75-1.2 of a norm, so a photo under a warm lamp or a cold screen,
or taken in dim light, is read worse, and badly once the cast is strong or the light dim: real-dev's photos tinted as
a tungsten bulb tints them (red ×1.15, green ×0.9, blue ×0.6) lost three of four readings, the detector's boxes on
one falling from 27 to 3, and at half that cast two of four (session 56); at half their brightness one of four, at a
fifth all four (session 57; docs/vision.md "Colour casts and dim light"). Tiles are the one thing in every photo
whose colour is known, ivory to white, so the light is read off their faces: the brightest part of each box the
reader found (the face's body, not its ink) gives a colour, and their median is the photo's tile white. A photo whose
tile white's hue lies further than CAST_LIMIT from the renders' own, or whose brightness lies more than DIM_LIMIT
under theirs, is scaled, channel by channel, until it matches, and read again.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.classes import BACK

# The renders' tile white, as log(red / green) and log(blue / green) (the green channel is kept as it is): the median
# over 296 photos of two tune sets (tune10_x3, tune9_x3), measured as below. Real-dev's four photos: (0.00 … 0.18,
# −0.27 … −0.01); toby_test the warmest, and read right.
REFERENCE = (0.012, -0.030)
# Balanced when the tile white lies further than this from REFERENCE (the distance in those log units). The renders'
# own spread: 95 % of each uncast tune set's photos within 0.17-0.19, 99 % within 0.21-0.24 (a photo's surest boxes
# there are now and then coloured backs or a tinted face set). Chosen on the tune sets, see docs/vision.md "Colour
# casts".
CAST_LIMIT = 0.25
FACE_SHARE = 0.4  # the brightest share of a box's inner pixels taken as its face's body
INNER = 0.2  # a box's inner part: this much of its width and height left off each side (edges, table)
CLIPPED = 250  # pixels with a channel this bright or more say nothing of the light's colour
UNCLIPPED = 0.5  # a box with fewer of its inner pixels under CLIPPED than this share is not measured
MOST_TILES = 12  # the boxes the detector scored highest are measured
SAMPLE = 1024  # about this many of a box's inner pixels are looked at (strided): ~1 ms a photo at any size
# Fewer boxes measured than this measure nothing: a median of two is no median. Session 56, the two tune sets under
# drawn casts (tune10_x3 / tune9_x3): 2 -> 250 / 170, 3 -> 251 / 170, 4 -> 251 / 169. Asking also that at least
# half of the boxes be measured (an overexposed photo's few unclipped faces are its darker ones) read 250 / 168.
FEWEST_TILES = 3
# The renders' tile white's green level (0-255): the median over 466 photos of the same tune sets measured from their
# first reading (of 500; 200 / 199 each). 5 % of each set's photos lie under 150-155, 1 % under 134-136, none under
# 121. Real-dev's four photos: 195-216.
REFERENCE_GREEN = 200.0
# Brightened when the tile white's green lies further than this under REFERENCE_GREEN's (in log units: 0.3 is 74 %,
# a green of 148). Session 57, tune10_x3 / tune9_x3 each photo under a drawn dim light (a quarter to 0.81 of its
# light: 239 / 157 read exactly unbalanced, of 261 / 173): 0.2 / 0.3 / 0.4 / 0.5 / 0.7 read 257 / 255 / 253 / 253 /
# 250 and 165 / 165 / 165 / 165 / 166; uncast, 0.2 tries 45 of their 500 photos and loses 2, 0.3 tries 17, none
# read otherwise. A photo is never darkened: a bright photo's faces are clipped, and scaling them down greys them
# without giving their ink back.
DIM_LIMIT = 0.3
MOST_GAIN = 8.0  # a photo is brightened this many times at most (its tile white ~25: more is mostly noise)


@dataclass(frozen=True)
class Light:
    """The photo's tile white against the renders': log(red / green) and log(blue / green) above REFERENCE's, and
    log(green) above REFERENCE_GREEN's."""

    red: float
    blue: float
    level: float
    tiles: int  # boxes measured

    @property
    def size(self) -> float:
        """How far the hue lies from the renders' white (log units)."""
        return float(np.hypot(self.red, self.blue))

    @property
    def coloured(self) -> bool:
        return self.size > CAST_LIMIT

    @property
    def dim(self) -> bool:
        return self.level < -DIM_LIMIT

    @property
    def off(self) -> bool:
        """Whether the photo is to be balanced."""
        return self.coloured or self.dim

    def describe(self) -> str:
        """A few words for the reading's notes on what is off: the cast's hue, one of eight (warm: red up and blue
        down, as under a bulb; cold the other way; yellow: blue down alone; …) with its ratios, and dimness."""
        said = []
        if self.coloured:
            sector = round(np.degrees(np.arctan2(self.blue, self.red)) / 45) % 8
            kind = ("red", "magenta", "blue", "cold", "cyan", "green", "yellow", "warm")[sector]
            said.append(f"{kind} (red/green {np.exp(self.red):.2f}, blue/green {np.exp(self.blue):.2f} of the "
                        "renders' white)")
        if self.dim:
            said.append(f"dim (the tiles' white {np.exp(self.level):.2f} as bright as the renders')")
        return " and ".join(said) or "as the renders' light"


def tile_white(image: np.ndarray, boxes: Sequence[Sequence[float]]) -> tuple[float, float, float, int] | None:
    """The faces' white in `image` (RGB uint8) from tile `boxes` (photo px): (log r/g, log b/g, green level 0-255,
    boxes measured), or None when fewer than FEWEST_TILES boxes have face pixels to measure."""
    h, w = image.shape[:2]
    colours = []
    for x1, y1, x2, y2 in boxes:
        dx, dy = (x2 - x1) * INNER, (y2 - y1) * INNER
        cut = image[max(0, int(y1 + dy)):min(h, int(np.ceil(y2 - dy))), max(0, int(x1 + dx)):min(w, int(np.ceil(x2 - dx)))]
        step = max(1, int(np.sqrt(cut.shape[0] * cut.shape[1] / SAMPLE)))
        cut = cut[::step, ::step]  # (a 12-MP photo's tile is ~300 px tall: a strided sample says as much)
        px = cut.reshape(-1, 3).astype(np.float32)
        px = px[px.max(axis=1) < CLIPPED]
        if len(px) < max(10, cut.shape[0] * cut.shape[1] * UNCLIPPED):
            continue  # (a face blown out by glare or a bright cast: what is left is its ink)
        luma = px @ np.array([0.299, 0.587, 0.114], np.float32)
        face = px[luma >= np.quantile(luma, 1 - FACE_SHARE)]
        if face.min(initial=1.0) <= 0 or len(face) < 5:
            continue
        colours.append(face.mean(axis=0))
    if len(colours) < FEWEST_TILES:
        return None
    r, g, b = np.median(np.array(colours), axis=0)
    return float(np.log(r / g)), float(np.log(b / g)), float(g), len(colours)


def measure_light(image: np.ndarray, tiles: Sequence) -> Light | None:
    """The light on the reader's `tiles` (`TileDetection`s: the MOST_TILES the detector scored highest, face-down ones
    left out), or None when it could not be measured."""
    faces = sorted((t for t in tiles if t.label != BACK), key=lambda t: -t.det_score)[:MOST_TILES]
    white = tile_white(image, [t.box for t in faces])
    if white is None:
        return None
    red, blue, green, n = white
    return Light(red - REFERENCE[0], blue - REFERENCE[1], float(np.log(green / REFERENCE_GREEN)), n)


def balanced(image: np.ndarray, light: Light) -> np.ndarray:
    """`image` scaled so that what is off in `light` is the renders' again: a cast's red and blue (green kept), a dim
    photo's brightness (up to MOST_GAIN times); clipped to 0–255."""
    gains = np.ones(3, np.float32)
    if light.coloured:
        gains *= np.array([np.exp(-light.red), 1.0, np.exp(-light.blue)], np.float32)
    if light.dim:
        gains *= np.float32(min(MOST_GAIN, np.exp(-light.level)))
    # (a table of 256 values a channel, not a float copy of the photo: 144 MB at 12 MP)
    table = np.clip(np.arange(256, dtype=np.float32)[:, None] * gains, 0, 255).astype(np.uint8)
    return cv2.LUT(image, table.reshape(256, 1, 3))
