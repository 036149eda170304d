"""Procedural table surfaces (felt, wood, cloth, laminate, automatic-table frames) in world units.

A `Table` is a texture laid on the plane z = 0 (see `layouts.py` for the world frame); `scene.py`
warps it into the photo with the camera's homography. Textures are made from seeded noise only
(nothing is downloaded), so a scene is reproducible from its seed.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

FELT_COLOURS = [
    (38, 110, 72), (30, 92, 60), (52, 128, 88), (24, 70, 112), (30, 44, 86), (120, 34, 44),
    (96, 96, 100), (128, 124, 118), (70, 52, 96), (22, 24, 28), (30, 100, 104), (180, 160, 120),
    (150, 146, 140), (66, 120, 150), (48, 60, 50),
]
WOOD_COLOURS = [(150, 100, 60), (120, 78, 44), (176, 128, 80), (92, 58, 34), (196, 160, 112), (70, 44, 30)]
CLOTH_COLOURS = [(34, 44, 70), (200, 196, 186), (150, 40, 40), (60, 80, 60), (210, 200, 160), (40, 40, 44),
                 (110, 130, 170)]
RIM_COLOURS = [(90, 200, 90), (220, 214, 230), (200, 200, 205), (60, 60, 70), (190, 170, 210), (240, 240, 236),
               (40, 120, 60), (180, 60, 60)]
OUTSIDE_COLOURS = [(40, 34, 30), (90, 80, 70), (20, 20, 24), (150, 140, 130), (60, 50, 60)]


# Table kinds and how often a photo gets each by default (every existing set was drawn with these).
# Session 15 measured the shipped detector's hand recall by kind on tune9 / det_def12: felt 98.6 / 97.3 %,
# auto 97.3 / 96.7, wood 96.5 / 98.5, laminate 94.2 / 95.3, cloth 93.4 / 90.1 % (waffle and plaid weaves with
# tile-sized cells hide whole rows); `photos.PRESETS["tables"]` draws the weak kinds more often.
TABLE_KINDS = ("felt", "auto", "wood", "cloth", "laminate")
TABLE_WEIGHTS = (0.3, 0.3, 0.15, 0.15, 0.1)
# The cloth patterns, drawn alike by default. Session 33: plaid is the held-out photos' worst table by far
# (det_test_x3g: 10 of 20 plaid photos read exactly, 246 of the other 280): its stripes, a tile or two apart,
# hide whole rows from the detector at its 512-px input (no box at all on a clear photo).
CLOTH_PATTERNS = ("waffle", "plaid", "plain")


@dataclass
class Table:
    """A texture covering world rectangle `bounds` (x0, y0, x1, y1) at `ppu` pixels per unit."""

    texture: np.ndarray           # H×W×3 uint8 RGB
    bounds: tuple[float, float, float, float]
    ppu: float
    outside: tuple[int, int, int]  # colour beyond the texture (floor, room)
    kind: str
    gloss: float                  # 0 matte felt … 1 glossy laminate (how strong glare on it is)
    pattern: str | None = None    # a cloth's weave (one of `CLOTH_PATTERNS`)

    def texture_to_world(self) -> np.ndarray:
        """3×3 matrix from texture pixel (col, row, 1) to world (x, y, 1)."""
        x0, y0, _, _ = self.bounds
        return np.array([[1 / self.ppu, 0, x0], [0, 1 / self.ppu, y0], [0, 0, 1]], dtype=np.float64)


def _noise(rng: np.random.Generator, shape: tuple[int, int], cells: float) -> np.ndarray:
    """Smooth noise in [-1, 1] with about `cells` blobs across the larger side."""
    h, w = shape
    ch = max(2, int(cells * h / max(h, w)) + 1)
    cw = max(2, int(cells * w / max(h, w)) + 1)
    small = rng.uniform(-1, 1, (ch, cw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _jitter(rng: np.random.Generator, colour: tuple[int, int, int], amount: float = 14) -> np.ndarray:
    return np.clip(np.array(colour, np.float32) + rng.normal(0, amount, 3), 0, 255)


def _felt(rng: np.random.Generator, shape: tuple[int, int], ppu: float) -> np.ndarray:
    base = _jitter(rng, FELT_COLOURS[int(rng.integers(len(FELT_COLOURS)))])
    span = max(shape) / ppu
    lum = 1 + 0.05 * _noise(rng, shape, span / 6) + 0.03 * _noise(rng, shape, span * 1.5)
    lum += rng.standard_normal(shape, dtype=np.float32) * 0.035
    return base[None, None, :] * lum[..., None]


def _wood(rng: np.random.Generator, shape: tuple[int, int], ppu: float) -> np.ndarray:
    base = _jitter(rng, WOOD_COLOURS[int(rng.integers(len(WOOD_COLOURS)))], 10)
    h, w = shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32) / ppu
    plank_w = rng.uniform(3, 8)
    along_x = rng.random() < 0.5
    a, b = (xs, ys) if along_x else (ys, xs)
    span = max(shape) / ppu
    warp = 1.2 * _noise(rng, shape, span / 5)
    rings = np.sin((b * rng.uniform(3, 7) + warp * 3) * np.pi)
    plank = np.floor(b / plank_w)
    plank_tone = (np.sin(plank * 12.9898) * 43758.5453) % 1.0 - 0.5
    fine = 0.04 * _noise(rng, shape, span * 5)
    lum = 1 + 0.08 * rings + 0.12 * plank_tone + fine
    seam = (np.abs((b / plank_w) - np.round(b / plank_w)) * plank_w < 0.04).astype(np.float32)
    lum = lum * (1 - 0.35 * seam)
    return base[None, None, :] * lum[..., None]


def _cloth(rng: np.random.Generator, shape: tuple[int, int], ppu: float,
           patterns: tuple[float, ...] | None = None) -> tuple[np.ndarray, str]:
    """A woven cloth and its pattern; `patterns` weighs `CLOTH_PATTERNS` (None: alike, the draw every existing
    set made)."""
    base = _jitter(rng, CLOTH_COLOURS[int(rng.integers(len(CLOTH_COLOURS)))], 12)
    h, w = shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32) / ppu
    period = rng.uniform(0.25, 0.7)
    style = rng.integers(3) if patterns is None else rng.choice(len(CLOTH_PATTERNS), p=list(patterns))
    if style == 0:  # waffle / woven bumps
        bx = np.cos(xs / period * 2 * np.pi)
        by = np.cos(ys / period * 2 * np.pi)
        checker = (np.floor(xs / period) + np.floor(ys / period)) % 2
        lum = 1 + 0.18 * bx * by + 0.1 * checker
    elif style == 1:  # plaid
        second = _jitter(rng, CLOTH_COLOURS[int(rng.integers(len(CLOTH_COLOURS)))], 12)
        sx = (np.sin(xs / (period * 4) * 2 * np.pi) > 0.6).astype(np.float32)
        sy = (np.sin(ys / (period * 4) * 2 * np.pi) > 0.6).astype(np.float32)
        mix = np.clip(0.5 * (sx + sy), 0, 1)[..., None]
        tex = base[None, None] * (1 - mix) + second[None, None] * mix
        return tex * (1 + 0.05 * np.sin(xs * 40)[..., None] * np.sin(ys * 40)[..., None]), CLOTH_PATTERNS[style]
    else:  # plain weave
        lum = 1 + 0.06 * np.sin(xs * 2 * np.pi / (period / 3)) * np.sin(ys * 2 * np.pi / (period / 3))
    lum = lum + 0.05 * _noise(rng, shape, max(shape) / ppu / 4)
    return base[None, None, :] * lum[..., None], CLOTH_PATTERNS[style]


def _laminate(rng: np.random.Generator, shape: tuple[int, int], ppu: float) -> np.ndarray:
    base = _jitter(rng, [(226, 222, 214), (196, 190, 180), (60, 60, 64), (170, 180, 170)][int(rng.integers(4))], 10)
    lum = 1 + 0.03 * _noise(rng, shape, max(shape) / ppu / 10) + rng.standard_normal(shape, dtype=np.float32) * 0.01
    return base[None, None, :] * lum[..., None]


MATERIALS = {"felt": _felt, "wood": _wood, "laminate": _laminate}  # and cloth (`_cloth`, which has patterns)


def random_table(
    rng: np.random.Generator,
    *,
    hand_extent: tuple[float, float, float, float],
    bounds: tuple[float, float, float, float] | None = None,
    ppu: float = 40.0,
    kind: str | None = None,
    weights: tuple[float, ...] | None = None,
    cloth_patterns: tuple[float, ...] | None = None,
) -> Table:
    """A table around the hand: material, and for automatic tables the frame grooves and the rim.
    `kind` fixes the table; else it is drawn with `weights` (over `TABLE_KINDS`; default `TABLE_WEIGHTS`),
    which draws the same number from `rng` whatever the weights; `cloth_patterns` weighs a cloth's
    `CLOTH_PATTERNS`.

    The rim (a raised plastic band between the owner and the hand on automatic tables) and the
    table's near edge lie at y < hand y0; grooves run parallel to the hand.
    """
    x0, y0, x1, y1 = hand_extent
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if bounds is None:
        bounds = (cx - 22.0, cy - 22.0, cx + 22.0, cy + 22.0)
    n = max(2, int(round((bounds[2] - bounds[0]) * ppu)))
    m = max(2, int(round((bounds[3] - bounds[1]) * ppu)))
    shape = (m, n)
    if kind is None:
        kind = str(rng.choice(list(TABLE_KINDS), p=list(weights or TABLE_WEIGHTS)))
    material = "felt" if kind == "auto" else kind
    pattern = None
    if material == "cloth":
        tex, pattern = _cloth(rng, shape, ppu, cloth_patterns)
    else:
        tex = MATERIALS[material](rng, shape, ppu)
    gloss = {"felt": 0.15, "wood": 0.45, "cloth": 0.1, "laminate": 0.8}[material]

    def row_of(y: float) -> int:
        return int(round((y - bounds[1]) * ppu))

    def col_of(x: float) -> int:
        return int(round((x - bounds[0]) * ppu))

    if kind == "auto":
        # grooves / slots parallel to the hand (the tile-lift slot in front of the player, frame lines)
        dark = np.array([20, 22, 22], np.float32) + rng.uniform(0, 30)
        for _ in range(int(rng.integers(1, 4))):
            y = rng.choice([y0 - rng.uniform(0.6, 2.5), y1 + rng.uniform(0.8, 6.0)])
            thick = max(1, int(rng.uniform(0.03, 0.12) * ppu))
            r = row_of(y)
            xa = col_of(cx - rng.uniform(6, 16))
            xb = col_of(cx + rng.uniform(6, 16))
            cv2.line(tex, (xa, r), (xb, r), dark.tolist(), thick)
            if rng.random() < 0.5:  # a slot: a recessed band
                depth = int(rng.uniform(0.6, 2.0) * ppu)
                band = tex[max(0, r): max(0, r + depth), max(0, xa): max(0, xb)]
                band *= rng.uniform(0.75, 0.92)
        # the rim on the owner's side
        rim_y = y0 - rng.uniform(1.2, 4.0)
        rim_colour = _jitter(rng, RIM_COLOURS[int(rng.integers(len(RIM_COLOURS)))], 10)
        r = max(0, row_of(rim_y))
        if r > 0:
            rows = np.arange(r)[:, None].astype(np.float32)
            streak = 1 + 0.12 * _noise(rng, (r, n), n / ppu / 2) + 0.25 * np.exp(-((rows - r * rng.uniform(0.2, 0.9)) / (0.2 * ppu)) ** 2)
            tex[:r] = rim_colour[None, None] * streak[..., None]
            cv2.line(tex, (0, r), (n - 1, r), (dark * 0.8).tolist(), max(1, int(0.05 * ppu)))
    elif rng.random() < 0.35:
        # the table's near edge: beyond it the floor / the player's lap, darker and out of focus
        edge_y = y0 - rng.uniform(1.5, 5.0)
        r = max(0, row_of(edge_y))
        if r > 0:
            tex[:r] = tex[:r] * rng.uniform(0.25, 0.6)
            cv2.line(tex, (0, r), (n - 1, r), (20, 20, 20), max(1, int(0.08 * ppu)))
    outside = tuple(int(c) for c in _jitter(rng, OUTSIDE_COLOURS[int(rng.integers(len(OUTSIDE_COLOURS)))], 12))
    return Table(texture=np.clip(tex, 0, 255).astype(np.uint8), bounds=bounds, ppu=ppu, outside=outside,
                 kind=kind, gloss=gloss, pattern=pattern)
