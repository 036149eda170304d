"""Whole physical tiles: a face on an ivory body with its coloured back layer showing at one edge.

`TileArtist` is what scene renderers and the classifier-crop generator use; it holds the loaded
art and fonts (no global state) and draws every label of `vision.classes.TILE_CLASSES`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.classes import TILE_CLASSES

from .faces import BACK_COLORS, LIGHT_BACK_COLORS, RGB, ArtFaces, FaceRenderer, _jitter_color
from .fonts import FontFace, find_tile_fonts, find_v5_fonts


@dataclass
class TileSprite:
    """One tile as seen from the front.

    `image` is RGBA (transparent outside the tile's rounded outline). `face_quad` is the printed
    face (or, face-down, the back surface) as 4 points tl, tr, br, bl in image pixels: the part a
    label refers to; the points follow the printed face (its own top-left first, also when the tile
    is turned). `strip` says where the visible thickness is ("bottom" for a tile lying face up
    seen from the player's side, "top" for a standing tile seen from above).
    """
    image: np.ndarray
    face_quad: np.ndarray
    label: str
    lying: bool
    back_color: RGB
    strip: str
    source: str = ""
    turn: int = 0


class TileArtist:
    """Draws tile faces and whole tiles. `shared_dir` is the reference folder (`../shared`)."""

    def __init__(self, shared_dir: Path, seed: int | None = None, *, face_size: tuple[int, int] = (120, 160),
                 fonts: list[FontFace] | None = None, use_art: bool = True, light_backs: bool = False,
                 red_designs: bool = False, v5: bool = False):
        """`light_backs` (pale back colours too) and `red_designs` (crystal-centre and solid-disc red
        fives) are the classifier generator's v4 options; off, a seed draws exactly what it drew
        before, so the scene renders (oracle sets, audit footage) of existing seeds don't change.
        `v5` (generator v5, off by default likewise): brush/pen hands for man numerals and winds
        (`fonts.find_v5_fonts`), a minimum stroke weight, no (nearly) blank faces."""
        self.shared_dir = Path(shared_dir)
        self.rng = np.random.default_rng(seed)  # used only when a call passes rng=None
        art = ArtFaces(self.shared_dir / "data" / "tiles" / "fluffystuff" / "Export") if use_art else None
        self.fonts = find_tile_fonts() if fonts is None else list(fonts)
        self.faces = FaceRenderer(art, self.fonts, face_size, red_designs=red_designs,
                                  v5_fonts=find_v5_fonts() if v5 else None)
        self.face_size = face_size
        self.light_backs = light_backs

    def face(self, label: str, rng: np.random.Generator | None = None, *, back_color: RGB | None = None) -> np.ndarray:
        """RGBA face (H×W×4 uint8, 3:4 portrait) of `label`."""
        return self.face_with_source(label, rng, back_color=back_color)[0]

    def face_with_source(self, label: str, rng: np.random.Generator | None = None, *,
                         back_color: RGB | None = None) -> tuple[np.ndarray, str]:
        _check_label(label)
        rng = self.rng if rng is None else rng
        img, spec = self.faces.render(label, rng, back_color=back_color)
        return img, spec.source

    def back_color(self, rng: np.random.Generator) -> RGB:
        """A random back colour from the common sets (one table uses one colour for all tiles)."""
        names = sorted(BACK_COLORS)
        if self.light_backs and rng.random() < 0.3:
            light = sorted(LIGHT_BACK_COLORS)
            return LIGHT_BACK_COLORS[light[rng.integers(len(light))]]
        return BACK_COLORS[names[rng.integers(len(names))]]

    def tile(self, label: str, rng: np.random.Generator | None = None, *, lying: bool,
             back_color: RGB | None = None, strip_frac: float | None = None, turn: int = 0) -> TileSprite:
        """The whole tile seen from the front.

        lying=True: the tile lies on the table (face up, or face down for "back"); the camera sees
        its front plus the side below it: ivory body, then the coloured back layer at the bottom.
        lying=False: the tile stands facing the camera; the camera (above) sees the top edge:
        coloured back layer farthest away, ivory nearest the face. `strip_frac` (strip height /
        face height) depends on the viewing angle; random when None.
        `turn` (0, 90, 180, 270; 90/270 only when lying) turns the tile clockwise on the table as seen by
        the camera: 180 is an upside-down tile, 270 a called tile lying sideways with its top to
        the left. The visible side stays at the bottom, because it depends on the camera only.
        """
        if turn not in (0, 90, 180, 270) or (turn in (90, 270) and not lying):
            raise ValueError(f"turn must be 0, 90, 180 or 270 (90/270 only for lying tiles), got {turn}")
        _check_label(label)
        rng = self.rng if rng is None else rng
        if back_color is None:
            back_color = self.back_color(rng)
        face, source = self.face_with_source(label, rng, back_color=back_color)
        return self.assemble(face, label, rng, lying=lying, back_color=back_color, strip_frac=strip_frac,
                             turn=turn, source=source)

    def assemble(self, face: np.ndarray, label: str, rng: np.random.Generator, *, lying: bool,
                 back_color: RGB, strip_frac: float | None = None, turn: int = 0, source: str = "") -> TileSprite:
        """Build the physical tile around an already drawn face (cheap; lets callers reuse faces)."""
        if strip_frac is None:
            strip_frac = float(rng.uniform(0.12, 0.45))
        sh = max(2, int(round(face.shape[0] * strip_frac)))
        if turn:
            face = np.ascontiguousarray(np.rot90(face, k=-turn // 90))
        h, w = face.shape[:2]
        ivory = np.array(_jitter_color((235, 230, 215), rng, 8), np.float32)
        back = np.array(_jitter_color(back_color, rng, 8), np.float32)
        face_down = label == "back"
        # layers of the strip, from the face outwards: (fraction, colour)
        ivory_frac = float(rng.uniform(0.45, 0.75))
        near, far = (back, ivory) if face_down else (ivory, back)
        strip = np.empty((sh, w, 3), np.float32)
        n_near = int(round(sh * (ivory_frac if not face_down else 1 - ivory_frac)))
        strip[:n_near] = near
        strip[n_near:] = far
        # the side faces away from the light: darker, a little gradient
        strip *= rng.uniform(0.7, 0.95)
        strip += np.linspace(0, 1, sh)[:, None, None] * rng.uniform(-15, 5)
        # the face's edge is bevelled: darken a thin rim
        body = face[..., :3].astype(np.float32)
        rim = max(1, int(round(w * rng.uniform(0.015, 0.04))))
        shade = np.ones((h, w), np.float32)
        k = rng.uniform(0.8, 0.95)
        shade[:rim, :] *= k
        shade[-rim:, :] *= k
        shade[:, :rim] *= k
        shade[:, -rim:] *= k
        body *= shade[..., None]
        if lying:
            img = np.concatenate([body, strip], axis=0)
            face_top = 0
            strip_side = "bottom"
        else:
            img = np.concatenate([strip[::-1], body], axis=0)
            face_top = sh
            strip_side = "top"
        H = img.shape[0]
        alpha = _rounded_mask(w, H, int(round(min(w, h) * rng.uniform(0.06, 0.14))))
        rgba = np.dstack([np.clip(img, 0, 255).astype(np.uint8), alpha])
        quad = np.array([[0, face_top], [w, face_top], [w, face_top + h], [0, face_top + h]], np.float32)
        quad = np.roll(quad, -(turn // 90), axis=0)  # in the printed face's own order
        return TileSprite(rgba, quad, label, lying, tuple(int(v) for v in back_color), strip_side, source, turn)


def _check_label(label: str) -> None:
    if label not in TILE_CLASSES:
        raise ValueError(f"unknown tile label {label!r}; expected one of {', '.join(TILE_CLASSES)}")


@lru_cache(maxsize=512)
def _rounded_mask(w: int, h: int, radius: int) -> np.ndarray:
    """Anti-aliased rounded-rectangle alpha (uint8), drawn at 4× and reduced."""
    s = 4
    m = np.zeros((h * s, w * s), np.uint8)
    r = int(radius * s)
    cv2.rectangle(m, (r, 0), (w * s - 1 - r, h * s - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w * s - 1, h * s - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * s - 1 - r, r), (r, h * s - 1 - r), (w * s - 1 - r, h * s - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)
