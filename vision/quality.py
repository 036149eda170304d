"""Warnings about the photo itself: what no reading step can make up for.

A greyscale, blurred or dark photo, or one whose tiles are only a few pixels tall, still gives a reading, often a
confident-looking one (the classifier reads *something* from every box), so the reader says what
is wrong with the photo, measured, next to the reading (`Reading.warnings`, docs/vision.md).
Nothing here changes a reading: the tiles, hand and costs are as read.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.boxes import long_sides
from vision.classes import RED_FIVES
from vision.colour import Light

# Greyscale: a pixel counts as coloured when its three channels, less the photo's overall tint (the median of each
# channel's offset from the pixel's mean: a white-balance cast, a warm lamp; not when the median pixel itself is
# coloured beyond COLOUR_LEVEL: a photo mostly of one colour), span more than COLOUR_LEVEL (of 255).
# A photo with under GREY_SHARE of its pixels coloured is greyscale. Measured on the four real-dev photos and
# examples/hand.jpg at full size and 1 024, 320 and 64 px wide, JPEG quality 95/75/40 (60 photos): 6.8-97 % of the
# pixels coloured (lietxia_test the least); the same 60 made grey and saved as colour JPEGs: 0 %, and still 0 %
# with ±4 levels of per-channel noise and a tint of up to 10 levels (JPEG 90 and 40). About 2 ms a photo, 4.5 ms at
# 12 MP (a strided sample of COLOUR_SAMPLE pixels).
COLOUR_LEVEL = 24
GREY_SHARE = 0.001
COLOUR_SAMPLE = 100_000  # pixels looked at (a strided view)

# Small tiles: the median long side (in photo pixels, along the row's frame) of the hand's tiles. Measured on the
# four real-dev photos and examples/hand.jpg downscaled (Lanczos, JPEG 90) to 19 sizes from their own down to 64 px
# wide, 125 readings (6 sizes twice; the stacked 9m of lietxia_70008812's added kan, which the reader loses at larger sizes too,
# 97 px and 30-38 px, not counted as a misreading): misread 0 of 38 at 30 px and over; 1 of 29 at 20-30 px
# (lietxia_70008812 at 23 px lost its loose winning tile); 3 of 17 at 16-20 px; 6 of 23 at 12-16 px; 8 of 10 at
# 9-12 px (two read surely, a 5s as 0s); 8 of 8 under 9 px.
SMALL_TILE_PX = 20.0
# With no tile box to measure: a photo whose long side is under this cannot show 14 tiles SMALL_TILE_PX tall
# (about 3/4 as wide) side by side.
SMALL_PHOTO_PX = round(14 * 0.75 * SMALL_TILE_PX)


# Blur: each hand tile cut from the photo (its box), grey, scaled so its long side is SHARP_SIDE px (blur then counts
# relative to the tile, as tsumo_synth.legibility.BLUR_RULE does); its sharpness is the weaker of its mean absolute
# second derivatives across and down the crop, over the crop's contrast (standard deviation, + 4 levels so a flat
# crop is not sharp by division): motion blur wipes one direction's detail and keeps the other's, defocus both. The
# photo's sharpness is the median over the hand's tiles (a blank white dragon or a tile in shadow does not decide).
# Session 52, four tune sets (tune10_x3, tune9_x3, tune_close_x3, tune_plaid_x3: 899 photos with a hand, labelled
# boxes), a photo's blur b = the larger of motion / 0.18 and defocus / 0.04 of its hand tiles' median long side
# (b ≥ 1: past BLUR_RULE): BLUR_SHARPNESS is the value 2 % of the photos with b < 0.5 fall under; it catches 28 of
# the 33 photos with b ≥ 1 (85 %) and 39 % of the 201 in between. Of nine measures tried (docs/vision.md, "Photo
# warnings") this one caught the most at that 2 %.
SHARP_SIDE = 48
BLUR_SHARPNESS = 0.374

# Dark: the tiles' white (`vision.colour.Light.level`, log of its green against the renders') under this. The reader
# brightens a photo from `colour.DIM_LIMIT` (0.3) on, and reads it about as well down to 0.55 of the renders' light;
# darker, the levels a JPEG kept are too few. Session 57, tune10_x3 / tune9_x3 each under a drawn dim light (500
# photos), read exactly as shipped against the same photos lit: at 0.55-0.74 of the light 88 % / 88 %, 0.41-0.55 84 %
# / 86 %, 0.30-0.41 82 % / 87 %, under 0.30 82 % / 93 %. So the warning starts at 0.41 (log -0.9).
DARK_LEVEL = -0.9


def colour_share(image: np.ndarray) -> float:
    """The share of pixels (of a strided sample) with colour beyond the photo's tint: 0 for a grey photo."""
    step = max(1, int(np.sqrt(image.shape[0] * image.shape[1] / COLOUR_SAMPLE)))
    r, g, b = (image[::step, ::step, c].astype(np.int16) for c in range(3))
    if r.size == 0:
        return 0.0
    total = r + g + b
    off = [3 * c - total for c in (r, g, b)]  # each channel's offset from the pixel's mean (×3, in integers)
    tint = [np.int16(np.median(o)) for o in off]
    if max(tint) - min(tint) <= 3 * COLOUR_LEVEL:  # a cast (not a photo mostly of one colour): left out
        off = [o - t for o, t in zip(off, tint)]
    span = np.maximum(np.maximum(off[0], off[1]), off[2]) - np.minimum(np.minimum(off[0], off[1]), off[2])
    return float((span > 3 * COLOUR_LEVEL).mean())


def is_greyscale(image: np.ndarray) -> bool:
    """Has the photo (H×W×3 RGB) no colour to speak of? JPEG chroma noise and a tint do not count."""
    return colour_share(image) < GREY_SHARE


def _measured_tiles(reading, used: list[int] | None) -> list:
    """The tiles a photo is judged by: the hand's (`used`, default `reading.used`), else every read tile."""
    used = reading.used if used is None else used
    return [reading.tiles[i] for i in used] or [t for t in reading.tiles if t.label is not None]


def tile_px(reading, used: list[int] | None = None) -> float | None:
    """The median long side of the hand's tiles (`used`, default `reading.used`; all tiles when no hand was
    laid out), photo pixels; None when nothing was boxed."""
    tiles = _measured_tiles(reading, used) or reading.tiles
    if not tiles:
        return None
    return float(np.median(long_sides(np.array([t.frame_box for t in tiles], float))))


def box_sharpness(image: np.ndarray, box) -> float | None:
    """One tile's sharpness (see BLUR_SHARPNESS) from its box (photo pixels); None for a box under 4 px."""
    h, w = image.shape[:2]
    x1, y1 = max(0, int(np.floor(box[0]))), max(0, int(np.floor(box[1])))
    x2, y2 = min(w, int(np.ceil(box[2]))), min(h, int(np.ceil(box[3])))
    if x2 - x1 < 4 or y2 - y1 < 4:
        return None
    grey = cv2.cvtColor(image[y1:y2, x1:x2], cv2.COLOR_RGB2GRAY).astype(np.float32)
    scale = SHARP_SIDE / max(x2 - x1, y2 - y1)
    size = (max(4, round((x2 - x1) * scale)), max(4, round((y2 - y1) * scale)))
    grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    across = np.abs(cv2.Sobel(grey, cv2.CV_32F, 2, 0, ksize=3)).mean()
    down = np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 2, ksize=3)).mean()
    return float(min(across, down) / (grey.std() + 4.0))


def median_sharpness(image: np.ndarray, boxes) -> float | None:
    """The median of `box_sharpness` over these tile boxes; None with none to measure."""
    values = [v for v in (box_sharpness(image, b) for b in boxes) if v is not None]
    return float(np.median(values)) if values else None


def tile_sharpness(image: np.ndarray, reading, used: list[int] | None = None) -> float | None:
    """The photo's sharpness where it matters: the median over the hand's tiles (`used`, default `reading.used`; all
    read tiles when no hand was laid out) of each tile's sharpness at SHARP_SIDE px; None with no tile to measure."""
    return median_sharpness(image, [t.box for t in _measured_tiles(reading, used)])


def photo_warnings(image: np.ndarray, reading, light: Light | None = None) -> list[dict]:
    """What is wrong with the photo itself, as `Reading.warnings` entries ({code, message, …}). `light`: the light
    measured on the tiles of the photo as taken (`vision.colour.measure_light`), if it was."""
    out: list[dict] = []
    used = reading.used
    if is_greyscale(image):
        red = [reading.tiles[i].label for i in used or range(len(reading.tiles)) if reading.tiles[i].label in RED_FIVES]
        out.append({"code": "greyscale", "message": (
            "the photo is greyscale: red fives cannot be told from plain fives, and tiles told apart by colour "
            "(the green and red dragons, the green sou) are often misread; check every tile, or retake the photo "
            "in colour" + (f" (read as red fives from their shape alone: {' '.join(red)})" if red else ""))})
    if light is not None and light.level < DARK_LEVEL:
        bright = float(np.exp(light.level))
        out.append({"code": "dark", "brightness": round(bright, 2), "message": (
            f"the photo is dark (its tiles' white {bright:.0%} as bright as a well-lit photo's): a photo this dark "
            "reads less surely, brightened or not; check every tile, or retake the photo in more light")})
    px = tile_px(reading, used)
    # tiles under SMALL_TILE_PX are scaled up to be measured, which blurs them: small_tiles says what is wrong then
    sharp = tile_sharpness(image, reading, used) if px is not None and px >= SMALL_TILE_PX else None
    if sharp is not None and sharp < BLUR_SHARPNESS:
        out.append({"code": "blurred", "sharpness": round(sharp, 3), "message": (
            "the photo is blurred (moved or out of focus): numerals, the man tiles' first, may be misread; "
            "check every tile, or hold the phone still, let it focus and retake the photo")})
    if px is not None and px < SMALL_TILE_PX:
        n = int(round(px))
        out.append({"code": "small_tiles", "tile_px": n, "message": (
            f"the tiles are only {n} px tall (under {SMALL_TILE_PX:.0f}): the reading is unreliable; "
            "take the photo closer or at a higher resolution")})
    elif px is None and max(image.shape[:2]) < SMALL_PHOTO_PX:
        h, w = image.shape[:2]
        out.append({"code": "small_photo", "message": (
            f"the photo is only {w}×{h} px: too small to show a hand's tiles; "
            "take the photo closer or at a higher resolution")})
    return out

