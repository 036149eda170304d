"""Render a photo of a mahjong hand on a table, with exact per-tile labels.

Tiles are 3-D boxes (face, ivory body, coloured back layer) laid out by `layouts.py` on a
procedural table (`tables.py`) and photographed by a pinhole camera placed anywhere above the
table (any rotation, seen from across, near/far, perspective). Faces are painted with a
`FaceSource` (C1's `TileArtist` when present; a fluffystuff-art fallback otherwise). Faces are
warped into the image one by one, far to near (painter's algorithm), and an id buffer records
which tile owns each pixel, so labels (box of the visible part, face quad, rotation, visibility)
always match the pixels. Then lighting, shadows, glare, blur, noise and JPEG.

    image, labels = render_hand_photo("1m 2m 3m … | 5z | 7z 7z- 7z", rng)
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.classes import BACK, TILE_CLASSES

from . import layouts as L
from .tables import Table, random_table

SHARED_DIR = Path(__file__).resolve().parents[3] / "shared"


# --------------------------------------------------------------------------------------------
# Tile faces
# --------------------------------------------------------------------------------------------

class FaceSource(Protocol):
    """Anything that paints a tile face: RGBA, 3:4 portrait (C1's `TileArtist` fits)."""

    def face(self, label: str, rng: np.random.Generator) -> np.ndarray: ...


_ART_NAMES = {
    **{f"{n}m": f"Man{n}" for n in range(1, 10)}, **{f"{n}p": f"Pin{n}" for n in range(1, 10)},
    **{f"{n}s": f"Sou{n}" for n in range(1, 10)},
    "1z": "Ton", "2z": "Nan", "3z": "Shaa", "4z": "Pei", "5z": "Haku", "6z": "Hatsu", "7z": "Chun",
    "0m": "Man5-Dora", "0p": "Pin5-Dora", "0s": "Sou5-Dora",
}


class ArtFaces:
    """Fallback faces from the fluffystuff art (ivory face + artwork), used when C1's artist is absent."""

    def __init__(self, shared_dir: Path = SHARED_DIR, size: tuple[int, int] = (120, 160)):
        root = Path(shared_dir) / "data" / "tiles" / "fluffystuff" / "Export"
        self.size = size
        self.art: dict[str, list[np.ndarray]] = {}
        for label, name in _ART_NAMES.items():
            imgs = []
            for style in ("Regular", "Black"):
                p = root / style / f"{name}.png"
                if p.exists():
                    rgba = cv2.cvtColor(cv2.imread(str(p), cv2.IMREAD_UNCHANGED), cv2.COLOR_BGRA2RGBA)
                    imgs.append(cv2.resize(rgba, size, interpolation=cv2.INTER_AREA))
            if not imgs:
                raise FileNotFoundError(f"tile art missing under {root}")
            self.art[label] = imgs

    def face(self, label: str, rng: np.random.Generator) -> np.ndarray:
        w, h = self.size
        out = np.zeros((h, w, 4), np.uint8)
        if label == BACK:
            return out
        art = self.art[label][0 if rng.random() < 0.8 else -1]
        s = rng.uniform(0.78, 0.9)
        aw, ah = int(w * s), int(h * s)
        a = cv2.resize(art, (aw, ah), interpolation=cv2.INTER_AREA)
        ox = (w - aw) // 2 + int(rng.integers(-2, 3))
        oy = (h - ah) // 2 + int(rng.integers(-2, 3))
        out[oy:oy + ah, ox:ox + aw] = a
        return out


class FacePool:
    """A fixed set of `per_label` variants of every face, drawn lazily from a seed of their own.

    Painting a face costs C1's artist ~30 ms; a scene shows up to ~100 tiles. Variant k of a
    label is always the same picture (its own seed), so a photo depends only on its own rng,
    whatever was rendered before with the same pool.
    """

    def __init__(self, source: FaceSource, *, per_label: int = 8, seed: int = 0):
        self.source = source
        self.per_label = per_label
        self.seed = seed
        self._cache: dict[tuple[str, int], np.ndarray] = {}

    def face(self, label: str, rng: np.random.Generator) -> np.ndarray:
        k = int(rng.integers(self.per_label))
        key = (label, k)
        if key not in self._cache:
            own = np.random.default_rng([self.seed, TILE_CLASSES.index(label), k])
            self._cache[key] = self.source.face(label, own)
        return self._cache[key]


def default_face_source(shared_dir: Path = SHARED_DIR, seed: int = 0, per_label: int = 8) -> FaceSource:
    """C1's TileArtist (through a `FacePool`) if it is importable, else the fluffystuff fallback."""
    try:
        from .tiles import TileArtist  # type: ignore[import-not-found]
    except ImportError:
        return FacePool(ArtFaces(shared_dir), per_label=2, seed=seed)
    return FacePool(TileArtist(shared_dir, seed=seed), per_label=per_label, seed=seed)


# --------------------------------------------------------------------------------------------
# Camera
# --------------------------------------------------------------------------------------------

@dataclass
class Camera:
    K: np.ndarray        # 3×3 intrinsics
    R: np.ndarray        # world → camera rotation (rows: right, down, forward)
    C: np.ndarray        # camera centre in the world
    size: tuple[int, int]  # (width, height)
    azimuth: float = 0.0
    elevation: float = 0.0
    roll: float = 0.0

    def to_cam(self, pts: np.ndarray) -> np.ndarray:
        return (pts - self.C) @ self.R.T

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points (N×3) → pixel coordinates (N×2) and depth (N)."""
        pc = self.to_cam(np.asarray(pts, np.float64))
        z = pc[:, 2]
        uv = pc @ self.K.T
        return uv[:, :2] / np.maximum(uv[:, 2:3], 1e-6), z

    def plane_homography(self) -> np.ndarray:
        """3×3 map from table-plane (x, y, 1) to pixels."""
        t = -self.R @ self.C
        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], t])


def look_at_camera(target: np.ndarray, *, azimuth: float, elevation: float, roll: float, distance: float,
                   focal: float, size: tuple[int, int]) -> Camera:
    """Camera `distance` from `target`; azimuth 0 = from the owner's seat (−y), π = from across."""
    d = np.array([np.cos(elevation) * np.sin(azimuth), -np.cos(elevation) * np.cos(azimuth), np.sin(elevation)])
    C = target + distance * d
    fwd = -d
    away = np.array([-np.sin(azimuth), np.cos(azimuth), 0.0])
    right = np.cross(fwd, away)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    c, s = np.cos(roll), np.sin(roll)
    right, down = c * right + s * down, -s * right + c * down
    R = np.stack([right, down, fwd])
    w, h = size
    K = np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1.0]])
    return Camera(K=K, R=R, C=C, size=size, azimuth=azimuth, elevation=elevation, roll=roll)


# --------------------------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------------------------

@dataclass
class TileLabel:
    """One tile as it appears in the photo (pixel coordinates of the image returned)."""

    cls: str                                 # TILE_CLASSES name (`back` for a face-down tile)
    box: tuple[float, float, float, float]   # x1, y1, x2, y2 of the visible part
    quad: list[tuple[float, float]]          # face corners: top-left, top-right, bottom-right, bottom-left
    rotation: int                            # clockwise turn of the face's up from image-up: 0/90/180/270
    in_hand: bool                            # part of the owner's hand (vs a distractor)
    group: int                               # group index in the sequence, −1 for distractors
    index: int                               # tile index in the sequence, −1 for distractors
    sideways: bool
    stacked: bool
    face_down: bool
    standing: bool
    visible: float                           # share of the tile's silhouette that is visible in the photo
    kind: str                                # hand | wall | discard | other_hand | loose | dora
    # convex hull of the visible pixels (pixel centres): the tight box of the tile in a turned copy
    # of the photo is the box of the turned hull (what a detector sees after the reader levels the row)
    hull: list[tuple[float, float]] = field(default_factory=list)
    # face-ink contrast left in the photo (grey levels, see `render_hand_photo(ink=True)`); None: not measured
    ink: float | None = None


@dataclass
class PhotoLabels:
    sequence: str
    hand: dict | None                        # CONTRACTS §1 tile keys when derivable
    tiles: list[TileLabel]
    width: int
    height: int
    players: int = 4
    camera: dict = field(default_factory=dict)
    scene: dict = field(default_factory=dict)

    @property
    def hand_tiles(self) -> list[TileLabel]:
        return sorted((t for t in self.tiles if t.in_hand), key=lambda t: t.index)

    def to_json(self) -> dict:
        d = asdict(self)
        for t in d["tiles"]:
            t["box"] = [round(v, 2) for v in t["box"]]
            t["quad"] = [[round(x, 2), round(y, 2)] for x, y in t["quad"]]
            t["visible"] = round(t["visible"], 3)
            t["hull"] = [[round(x, 1), round(y, 1)] for x, y in t["hull"]]
            if t["ink"] is None:  # labels of photos rendered without the measure read as before
                del t["ink"]
            else:
                t["ink"] = round(t["ink"], 1)
        return d


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------

@dataclass
class SceneOptions:
    """Knobs for a photo. None = drawn at random from realistic ranges."""

    size: tuple[int, int] = (1280, 960)         # (width, height)
    standing: bool | None = None                # closed part standing (seen from the owner's seat)
    azimuth_deg: float | None = None            # 0 = from the owner's seat, 180 = from across
    elevation_deg: float | None = None          # 90 = straight down
    roll_deg: float | None = None               # camera roll (photo rotated)
    hand_fraction: float | None = None          # hand's share of the larger photo side
    hand_fraction_range: tuple[float, float] = (0.42, 0.92)  # drawn from this when hand_fraction is None
    table: str | None = None                    # felt | auto | wood | cloth | laminate
    distractors: bool = True
    fingers: bool | None = None
    effects: bool = True                        # blur, noise, glare, JPEG
    players: int = 4
    min_visible: float = 0.3                    # distractor tiles less visible than this are not labelled
    # opt-in knobs (session 4, the detector's hard cases); their defaults draw nothing from the seed,
    # so every existing seed renders the same photo
    back_colours: tuple | None = None           # RGB triples the back colour is drawn from (default BACK_COLOURS)
    elevation_range_deg: tuple[float, float] | None = None  # camera elevation drawn from this when not fixed
    kakan_on_top: float = 0.0                   # share of added kans whose 2nd tile lies ON the sideways tile
    plain_haku: bool = False                    # every white dragon blank (plain ivory, as most riichi sets)
    drawn_loose: float = 0.0                    # share of drawn tiles set apart that lie loose, turned/lifted (session 12)
    table_weights: tuple | None = None          # how often each of `tables.TABLE_KINDS` is drawn (session 15)
    cloth_patterns: tuple | None = None         # how often each of `tables.CLOTH_PATTERNS` is drawn (session 33)
    camera_views: tuple | None = None           # how often a lying hand is shot from each of CAMERA_VIEWS (session 40)


BACK_COLOURS = [(226, 170, 40), (40, 110, 200), (50, 140, 70), (230, 120, 40), (175, 160, 215), (30, 30, 34),
                (210, 50, 50), (230, 150, 170), (30, 70, 50), (90, 160, 220), (240, 236, 226)]
_PLAIN_FACE = np.zeros((160, 120, 4), np.uint8)  # a face with nothing printed: the ivory shows (blank white dragon)
IVORY = [(246, 242, 230), (250, 250, 246), (238, 232, 214), (244, 238, 222), (235, 235, 230)]


@dataclass
class _TileStyle:
    dims: L.TileDims
    ivory: np.ndarray
    back: np.ndarray


# --------------------------------------------------------------------------------------------
# Painting
# --------------------------------------------------------------------------------------------

_FACES = (  # (axis, sign, u-axis of texture, v-axis of texture) for the 6 faces of a tile box
    ("n", 1, ("r", 1), ("u", -1)),    # front: texture x along r, texture y down the face
    ("n", -1, ("r", -1), ("u", -1)),  # back
    ("u", 1, ("r", 1), ("n", -1)),    # top side: rows from front (n+) to back (n−)
    ("u", -1, ("r", 1), ("n", -1)),
    ("r", 1, ("u", 1), ("n", -1)),
    ("r", -1, ("u", 1), ("n", -1)),
)


class _Painter:
    """Accumulates faces into a float canvas and an id buffer."""

    def __init__(self, image: np.ndarray):
        self.canvas = image.astype(np.float32)
        h, w = image.shape[:2]
        self.ids = np.full((h, w), -1, np.int32)

    def quad(self, texture: np.ndarray, dst: np.ndarray, owner: int, shade: float = 1.0, glint: float = 0.0) -> None:
        """Warp `texture` (h×w×4 float RGBA, alpha 1) onto the image quad `dst` (4×2: tl, tr, br, bl)."""
        H_img, W_img = self.ids.shape
        x0 = int(np.floor(max(dst[:, 0].min(), 0)))
        y0 = int(np.floor(max(dst[:, 1].min(), 0)))
        x1 = int(np.ceil(min(dst[:, 0].max(), W_img - 1)))
        y1 = int(np.ceil(min(dst[:, 1].max(), H_img - 1)))
        if x1 <= x0 or y1 <= y0:
            return
        th, tw = texture.shape[:2]
        src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
        M = cv2.getPerspectiveTransform(src, (dst - [x0, y0]).astype(np.float32))
        warped = cv2.warpPerspective(texture, M, (x1 - x0 + 1, y1 - y0 + 1), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        a = warped[..., 3:4]
        rgb = warped[..., :3] * shade
        if glint:
            rgb += glint * a
        roi = self.canvas[y0:y1 + 1, x0:x1 + 1]
        roi *= 1 - a
        roi += rgb
        self.ids[y0:y1 + 1, x0:x1 + 1][a[..., 0] > 0.5] = owner


@lru_cache(maxsize=64)
def _bevel(w: int, h: int, width: float, floor: float) -> np.ndarray:
    """Multiplier darkening a face towards its rim (reads as the rounded edge of a real tile)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    edge = np.minimum(np.minimum(xx, w - 1 - xx) / w, np.minimum(yy, h - 1 - yy) / h)
    return (floor + (1 - floor) * np.clip(edge / width, 0, 1) ** 0.5)[..., None].astype(np.float32)


def _rgba(tex: np.ndarray) -> np.ndarray:
    return np.dstack([tex, np.ones(tex.shape[:2], np.float32)])


def _face_texture(face_rgba: np.ndarray, ivory: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Ivory face with the artwork on it and a darker bevel at the rim; RGBA float."""
    w, h = size
    art = cv2.resize(face_rgba, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    a = art[..., 3:4] / 255.0
    tex = ivory * (1 - a) + art[..., :3] * a
    return _rgba(tex * _bevel(w, h, 0.06, 0.78))


def _side_texture(ivory: np.ndarray, back: np.ndarray, share: float, along: int, across: int = 24) -> np.ndarray:
    """Side of a tile: rows from the face (ivory) to the back (coloured layer); RGBA float."""
    tex = np.empty((across, along, 3), np.float32)
    cut = int(round(across * (1 - share)))
    tex[:cut] = ivory * 0.96
    tex[cut:] = back
    tex[max(cut - 1, 0):cut + 1] *= 0.85  # the seam between the layers
    return _rgba(tex)


def _back_texture(back: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    tex = np.empty((h, w, 3), np.float32)
    tex[:] = back
    return _rgba(tex * _bevel(w, h, 0.07, 0.82))


class _Textures:
    """Per-photo texture cache: faces come from a pool, so the same picture recurs."""

    def __init__(self, style: "_TileStyle", size: tuple[int, int]):
        self.style, self.size = style, size
        self.faces: dict[int, np.ndarray] = {}
        self.back = _back_texture(style.back, size)
        self.blank = _back_texture(style.ivory, size)
        self.side_r = _side_texture(style.ivory, style.back, style.dims.back, size[0])
        self.side_u = _side_texture(style.ivory, style.back, style.dims.back, size[1])

    def face(self, face_rgba: np.ndarray) -> np.ndarray:
        key = id(face_rgba)
        if key not in self.faces:
            self.faces[key] = _face_texture(face_rgba, self.style.ivory, self.size)
        return self.faces[key]


def _rotation_deg(up_vec: np.ndarray) -> int:
    ang = np.degrees(np.arctan2(up_vec[0], -up_vec[1])) % 360
    return int((np.round(ang / 90) % 4) * 90)


# --------------------------------------------------------------------------------------------
# The scene
# --------------------------------------------------------------------------------------------

# Where a lying hand is shot from, and how often by default: the owner's seat, anywhere around, across the table,
# or from a side, where the camera looks along the row and its tiles are seen end-on, each half hidden by the next
# (shot low, hands no detector here boxes well: session 40). `SceneOptions.camera_views` weighs them otherwise;
# any weights draw the same numbers from the seed, so default photos are unchanged.
CAMERA_VIEWS = ("owner", "around", "across", "side")
CAMERA_VIEW_WEIGHTS = (0.45, 0.3, 0.15, 0.1)


def _choose_camera_angles(rng: np.random.Generator, opts: SceneOptions, standing: bool) -> tuple[float, float, float]:
    if opts.azimuth_deg is not None:
        az = np.radians(opts.azimuth_deg)
    elif standing:
        az = np.radians(rng.normal(0, 14))
    else:
        mode = rng.choice(len(CAMERA_VIEWS), p=opts.camera_views or CAMERA_VIEW_WEIGHTS)
        az = np.radians([rng.normal(0, 15), rng.uniform(-180, 180), rng.normal(180, 15), rng.choice([-90, 90]) + rng.normal(0, 15)][mode])
    if opts.elevation_deg is not None:
        el = np.radians(opts.elevation_deg)
    elif opts.elevation_range_deg is not None:
        el = np.radians(rng.uniform(*opts.elevation_range_deg))
    elif standing:
        el = np.radians(rng.uniform(28, 68))
    else:
        el = np.radians(rng.uniform(35, 90) if rng.random() < 0.8 else rng.uniform(25, 40))
    if opts.roll_deg is not None:
        roll = np.radians(opts.roll_deg)
    else:
        roll = np.radians(rng.normal(0, 5) if rng.random() < 0.55 else rng.uniform(-180, 180))
    return float(az), float(el), float(roll)


def _fit_camera(rng: np.random.Generator, hand_pts: np.ndarray, opts: SceneOptions, standing: bool) -> Camera:
    """Place the camera so the hand fills a chosen share of the frame, at a random spot in it."""
    w, h = opts.size
    az, el, roll = _choose_camera_angles(rng, opts, standing)
    focal = max(w, h) * rng.uniform(0.65, 1.5)
    frac = opts.hand_fraction if opts.hand_fraction is not None else rng.uniform(*opts.hand_fraction_range)
    target = hand_pts.mean(axis=0) * np.array([1, 1, 0])
    dist = 20.0
    for _ in range(4):
        cam = look_at_camera(target, azimuth=az, elevation=el, roll=roll, distance=dist, focal=focal, size=opts.size)
        uv, _ = cam.project(hand_pts)
        span = max((uv[:, 0].max() - uv[:, 0].min()) / w, (uv[:, 1].max() - uv[:, 1].min()) / h)
        dist *= span / frac
        dist = max(dist, 3.0)
    cam = look_at_camera(target, azimuth=az, elevation=el, roll=roll, distance=dist, focal=focal, size=opts.size)
    uv, _ = cam.project(hand_pts)
    bw, bh = uv[:, 0].max() - uv[:, 0].min(), uv[:, 1].max() - uv[:, 1].min()
    margin_x, margin_y = 0.02 * w, 0.02 * h
    free_x = max(w - 2 * margin_x - bw, 0.0)
    free_y = max(h - 2 * margin_y - bh, 0.0)
    want_x0 = margin_x + rng.uniform(0, 1) * free_x
    want_y0 = margin_y + rng.uniform(0, 1) * free_y
    cam.K = cam.K.copy()
    cam.K[0, 2] += want_x0 - uv[:, 0].min()
    cam.K[1, 2] += want_y0 - uv[:, 1].min()
    return cam


def _place_blocks(rng: np.random.Generator, dims: L.TileDims, hand_extent, opts: SceneOptions) -> list[L.TilePose]:
    """Walls, discards, other players' hands and loose tiles around (never on) the hand."""
    x0, y0, x1, y1 = hand_extent
    occupied = [(x0 - 0.5, y0 - 0.5, x1 + 0.5, y1 + 0.5)]
    out: list[L.TilePose] = []
    blocks: list[list[L.TilePose]] = []
    for _ in range(int(rng.choice([0, 1, 1, 2, 2, 3]))):
        blocks.append(L.wall_block(rng, dims, stacks=int(rng.integers(4, 18)), dora=rng.random() < 0.4))
    for _ in range(int(rng.choice([0, 0, 1, 1, 2, 3]))):
        blocks.append(L.discard_block(rng, dims, count=int(rng.integers(3, 19))))
    for _ in range(int(rng.choice([0, 0, 0, 1, 1, 2]))):
        blocks.append(L.other_hand_block(rng, dims, count=int(rng.integers(4, 14))))
    for _ in range(int(rng.choice([0, 0, 1, 2, 4, 6]))):
        blocks.append(L.loose_tile(rng, dims))
    cx = (x0 + x1) / 2
    for block in blocks:
        for _ in range(12):
            yaw = rng.choice([0, np.pi / 2, np.pi, -np.pi / 2]) + rng.normal(0, 0.05)
            if block[0].kind == "loose":
                yaw = 0.0
            moved = L.transform_poses(block, yaw=yaw, dx=0.0, dy=0.0)
            fx0 = min(p.footprint(dims)[0] for p in moved)
            fy0 = min(p.footprint(dims)[1] for p in moved)
            fx1 = max(p.footprint(dims)[2] for p in moved)
            fy1 = max(p.footprint(dims)[3] for p in moved)
            # mostly beyond the hand (the table's centre), sometimes beside it
            if rng.random() < 0.8:
                tx, ty = rng.uniform(cx - 14, cx + 14), rng.uniform(y1 + 0.8, y1 + 12)
            else:
                tx = rng.choice([x0 - rng.uniform(1, 10), x1 + rng.uniform(1, 10)])
                ty = rng.uniform(y0 - 2, y1 + 4)
            dx, dy = tx - (fx0 + fx1) / 2, ty - (fy0 + fy1) / 2
            rect = (fx0 + dx, fy0 + dy, fx1 + dx, fy1 + dy)
            if any(rect[0] < o[2] + 0.2 and o[0] - 0.2 < rect[2] and rect[1] < o[3] + 0.2 and o[1] - 0.2 < rect[3]
                   for o in occupied):
                continue
            occupied.append(rect)
            out += L.transform_poses(moved, yaw=0.0, dx=dx, dy=dy)
            break
    return out


@dataclass
class _Prop:
    """A non-tile box (point stick): centre, axes, half extents, colour."""

    center: np.ndarray
    axes: np.ndarray  # 3×3 rows: x, y, z
    half: np.ndarray
    colour: np.ndarray
    dots: bool


def _sticks(rng: np.random.Generator, hand_extent) -> list[_Prop]:
    x0, y0, x1, y1 = hand_extent
    props = []
    for _ in range(int(rng.choice([0, 0, 0, 1, 2, 4]))):
        yaw = rng.uniform(-np.pi, np.pi)
        c = np.array([rng.uniform(x0 - 8, x1 + 8), rng.uniform(y1 + 1.5, y1 + 10), 0.06])
        ax = np.array([[np.cos(yaw), np.sin(yaw), 0], [-np.sin(yaw), np.cos(yaw), 0], [0, 0, 1.0]])
        props.append(_Prop(c, ax, np.array([1.9, 0.17, 0.06]), np.array([240, 240, 236], np.float32), True))
    return props


def render_hand_photo(
    sequence: str,
    rng: np.random.Generator,
    *,
    artist: FaceSource | None = None,
    options: SceneOptions | None = None,
    hand: dict | None = None,
    ink: bool = False,
    **overrides,
) -> tuple[np.ndarray, PhotoLabels]:
    """Render one photo of the hand `sequence` (CONTRACTS §3). Returns (RGB uint8 image, labels).

    `options` (or keyword overrides of `SceneOptions` fields) fix the camera, table, size…;
    everything left None is drawn from `rng`, so the same seed gives the same photo.
    `hand`: the §1 dict to store in the labels (default: derived from the sequence).
    `ink`: also measure each tile's `TileLabel.ink`, how much of its face's print survives light, glare,
    blur, noise and JPEG, by rendering the same photo a second time with nothing printed on the faces (a
    face that comes out blank cannot be read by anyone). The photo and `rng` end as without it.
    """
    opts = options or SceneOptions()
    if overrides:
        opts = SceneOptions(**{**asdict(opts), **overrides})
    state = rng.bit_generator.state if ink else None
    img, photo, ids, owners = _render(sequence, rng, artist, opts, hand, blank_faces=False)
    if ink:
        twin = np.random.Generator(type(rng.bit_generator)())
        twin.bit_generator.state = state
        blank, *_ = _render(sequence, twin, artist, opts, hand, blank_faces=True)
        for tile, owner in zip(photo.tiles, owners):
            tile.ink = ink_contrast(img, blank, ids == owner)
    return img, photo


def ink_contrast(photo: np.ndarray, blank: np.ndarray, mask: np.ndarray, top: float = 0.05) -> float:
    """Grey-level contrast of a tile's print: the mean of the top `top` share (at least 3 pixels) of
    |luma(photo) − luma(blank)| over the tile's pixels `mask`, `blank` being the same photo with blank faces.
    The mask is eroded by a pixel when enough is left, so a neighbour's print blurred over the edge does not
    count as this tile's."""
    inner = cv2.erode(mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    if inner.sum() >= 20:
        mask = inner
    if not mask.any():
        return 0.0
    w = np.array([0.299, 0.587, 0.114], np.float32)
    d = np.abs(photo[mask].astype(np.float32) @ w - blank[mask].astype(np.float32) @ w)
    k = max(3, int(np.ceil(top * d.size)))
    return float(np.sort(d)[-k:].mean())


def _render(sequence: str, rng: np.random.Generator, artist: FaceSource | None, opts: SceneOptions,
            hand: dict | None, *, blank_faces: bool) -> tuple[np.ndarray, PhotoLabels, np.ndarray, list[int]]:
    """`render_hand_photo`'s photo, labels, the id buffer (which tile owns each pixel) and each label's
    owner id. `blank_faces`: paint every face blank, drawing from the streams exactly as with its print."""
    groups = L.parse_sequence(sequence)
    artist = artist or default_face_source()
    w, h = opts.size
    backs = BACK_COLOURS if opts.back_colours is None else opts.back_colours

    style = _TileStyle(
        dims=L.TileDims(height=rng.uniform(1.25, 1.42), depth=rng.uniform(0.62, 0.85), back=rng.uniform(0.25, 0.5)),
        ivory=np.clip(np.array(IVORY[int(rng.integers(len(IVORY)))], np.float32) + rng.normal(0, 4, 3), 0, 255),
        back=np.clip(np.array(backs[int(rng.integers(len(backs)))], np.float32) + rng.normal(0, 10, 3), 0, 255),
    )
    dims = style.dims
    standing = opts.standing if opts.standing is not None else bool(rng.random() < 0.4)
    layout = L.layout_hand(groups, rng, dims, standing=standing, side_posture="side" if rng.random() < 0.8 else "side_r",
                           stack_on_top=opts.kakan_on_top, drawn_loose=opts.drawn_loose)
    hand_pts = np.concatenate([p.corners(dims) for p in layout.poses])
    cam = _fit_camera(rng, hand_pts, opts, standing)

    poses: list[L.TilePose] = list(layout.poses)
    props: list[_Prop] = []
    if opts.distractors:
        poses += _place_blocks(rng, dims, layout.extent, opts)
        props = _sticks(rng, layout.extent)

    bounds, ppu = _table_window(cam, layout.extent)
    table = random_table(rng, hand_extent=layout.extent, bounds=bounds, ppu=ppu, kind=opts.table,
                         weights=opts.table_weights, cloth_patterns=opts.cloth_patterns)
    light = np.array([rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(0.8, 2.5)])
    light /= np.linalg.norm(light)
    # painting and finishing draw from their own streams, so what is painted (e.g. a face-down
    # variant of the same hand) never changes the rest of the photo
    paint_rng = np.random.default_rng(int(rng.integers(2**63)))
    fx_rng = np.random.default_rng(int(rng.integers(2**63)))

    image = _render_table(table, cam, rng)
    _draw_shadows(image, poses, props, dims, cam, light, rng)
    painter = _Painter(image)

    # drop distractors that would cover a hand tile (the photo must show the whole hand)
    hand_hulls = [_hull(cam, p.corners(dims)) for p in layout.poses]
    hand_depth = max(cam.to_cam(p.center[None])[0, 2] for p in layout.poses)
    kept: list[L.TilePose] = []
    for p in poses:
        if not p.in_hand:
            z = cam.to_cam(p.center[None])[0, 2]
            if z < 0.5:
                continue
            hull = _hull(cam, p.corners(dims))
            if z < hand_depth + 2 and any(_overlaps(hull, hh) for hh in hand_hulls):
                continue
        kept.append(p)
    poses = kept

    order = sorted(range(len(poses)), key=lambda i: -cam.to_cam(poses[i].center[None])[0, 2])
    if opts.kakan_on_top > 0:  # a tile lying on another is never hidden by it: paint it last
        on_top = [i for i in order if poses[i].stacked and poses[i].center[2] > dims.depth]
        order = [i for i in order if i not in on_top] + on_top
    ambient = paint_rng.uniform(0.55, 0.75)
    diffuse = paint_rng.uniform(0.25, 0.5)
    tex_w = 96
    textures = _Textures(style, (tex_w, int(round(tex_w * dims.height))))
    for i in order:
        p = poses[i]
        if opts.plain_haku and p.face == "5z":
            face_rgba = _PLAIN_FACE
        else:
            face_rgba = artist.face(p.face, paint_rng) if p.face is not None else None
        if blank_faces and face_rgba is not None:
            face_rgba = _PLAIN_FACE
        _paint_tile(painter, i, p, dims, cam, light, ambient, diffuse, face_rgba, textures, paint_rng)
    for prop in props:
        _paint_prop(painter, prop, cam, light, ambient, diffuse)

    if opts.fingers if opts.fingers is not None else (opts.distractors and fx_rng.random() < 0.25):
        hand_boxes = [_hull(cam, p.corners(dims)) for p in layout.poses]
        _paint_fingers(painter, fx_rng, hand_boxes)

    img = painter.canvas
    lens: dict = {"kind": "none"}
    if opts.effects:
        img = _light_and_lens(img, fx_rng, table.gloss, lens)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if opts.effects and fx_rng.random() < 0.9:
        q = int(fx_rng.integers(45, 96))
        ok, enc = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, q])
        img = cv2.cvtColor(cv2.imdecode(enc, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)

    owned = _labels(poses, painter.ids, cam, dims, opts)
    labels = [t for _, t in owned]
    photo = PhotoLabels(
        sequence=L.format_sequence(groups),
        hand=hand if hand is not None else L.hand_from_groups(groups),
        tiles=labels,
        width=w,
        height=h,
        players=opts.players,
        camera={"azimuth_deg": round(float(np.degrees(cam.azimuth)), 2), "elevation_deg": round(float(np.degrees(cam.elevation)), 2),
                "roll_deg": round(float(np.degrees(cam.roll)), 2), "focal_px": round(float(cam.K[0, 0]), 1)},
        scene={"table": table.kind, "standing": standing, **({"cloth": table.pattern} if table.pattern else {}),
               "lens": lens},
    )
    return img, photo, painter.ids, [i for i, _ in owned]


def _table_window(cam: Camera, hand_extent, reach: float = 30.0, max_pixels: float = 1.5e6):
    """The part of the table the photo sees (world rectangle) and a texture resolution for it."""
    w, h = cam.size
    t = np.linspace(0, 1, 9)
    border = np.concatenate([np.stack([t * w, 0 * t], 1), np.stack([t * w, 0 * t + h], 1),
                             np.stack([0 * t, t * h], 1), np.stack([0 * t + w, t * h], 1)])
    rays = (np.column_stack([border, np.ones(len(border))]) @ np.linalg.inv(cam.K).T) @ cam.R
    x0, y0, x1, y1 = hand_extent
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    pts = [np.array([x0, y0]), np.array([x1, y1])]
    for d in rays:
        if d[2] < -1e-6:
            s = -cam.C[2] / d[2]
            pts.append(cam.C[:2] + s * d[:2])
        else:  # towards the horizon: as far as the table reaches
            dd = d[:2] / (np.linalg.norm(d[:2]) + 1e-9)
            pts.append(cam.C[:2] + dd * 2 * reach)
    P = np.clip(np.array(pts), [cx - reach, cy - reach], [cx + reach, cy + reach])
    bounds = (float(P[:, 0].min() - 1), float(P[:, 1].min() - 1), float(P[:, 0].max() + 1), float(P[:, 1].max() + 1))
    c = np.array([[cx, cy, 0.0], [cx + 1, cy, 0.0], [cx, cy + 1, 0.0]])
    uv, _ = cam.project(c)
    ppu = float(np.clip(max(np.linalg.norm(uv[1] - uv[0]), np.linalg.norm(uv[2] - uv[0])), 8, 36))
    area = (bounds[2] - bounds[0]) * (bounds[3] - bounds[1])
    ppu = min(ppu, float(np.sqrt(max_pixels / area)))
    return bounds, ppu


def _hull(cam: Camera, pts: np.ndarray) -> np.ndarray:
    uv, _ = cam.project(pts)
    return cv2.convexHull(uv.astype(np.float32)).reshape(-1, 2)


def _overlaps(a: np.ndarray, b: np.ndarray) -> bool:
    if a[:, 0].max() < b[:, 0].min() or b[:, 0].max() < a[:, 0].min():
        return False
    if a[:, 1].max() < b[:, 1].min() or b[:, 1].max() < a[:, 1].min():
        return False
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return area > 1.0


def _render_table(table: Table, cam: Camera, rng: np.random.Generator) -> np.ndarray:
    w, h = cam.size
    H = cam.plane_homography() @ table.texture_to_world()
    img = cv2.warpPerspective(table.texture, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=table.outside)
    # above the horizon the plane is behind the camera: paint the room instead
    Kinv = np.linalg.inv(cam.K)
    A = cam.R.T @ Kinv  # pixel (u, v, 1) → world ray direction
    ys, xs = np.mgrid[0:h:8, 0:w:8]
    dz = A[2, 0] * xs + A[2, 1] * ys + A[2, 2]
    if (dz >= -1e-3).any():
        dz_full = A[2, 0] * np.arange(w)[None, :] + A[2, 1] * np.arange(h)[:, None] + A[2, 2]
        sky = dz_full >= -0.02
        room = np.array(table.outside, np.float32) * rng.uniform(0.6, 1.3)
        img[sky] = np.clip(room, 0, 255).astype(np.uint8)
    # distant table is out of focus a little (depth of field)
    return img


def _draw_shadows(image: np.ndarray, poses, props, dims: L.TileDims, cam: Camera, light: np.ndarray,
                  rng: np.random.Generator) -> None:
    h, w = image.shape[:2]
    scale = 4
    mask = np.zeros((h // scale + 1, w // scale + 1), np.float32)
    for p in poses:
        pts = p.corners(dims)
        if (cam.to_cam(pts)[:, 2] < 0.3).any():
            continue
        shadow = pts - light[None, :] * (pts[:, 2:3] / light[2])
        uv, _ = cam.project(shadow)
        hull = cv2.convexHull((uv / scale).astype(np.float32)).astype(np.int32)
        cv2.fillConvexPoly(mask, hull, 1.0)
    for pr in props:
        pts = np.array([pr.center + sx * pr.axes[0] * pr.half[0] + sy * pr.axes[1] * pr.half[1] - pr.axes[2] * pr.half[2]
                        for sx in (-1, 1) for sy in (-1, 1)])
        uv, z = cam.project(pts)
        if (z > 0.3).all():
            cv2.fillConvexPoly(mask, cv2.convexHull((uv / scale).astype(np.float32)).astype(np.int32), 0.8)
    k = int(max(3, rng.uniform(0.005, 0.02) * w / scale)) | 1
    mask = cv2.GaussianBlur(mask, (k, k), 0)
    mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)
    strength = rng.uniform(0.25, 0.6)
    image[:] = (image * (1 - strength * mask[..., None])).astype(np.uint8)


def _paint_tile(painter: _Painter, owner: int, p: L.TilePose, dims: L.TileDims, cam: Camera, light: np.ndarray,
                ambient: float, diffuse: float, face_rgba: np.ndarray | None, textures: _Textures,
                rng: np.random.Generator) -> None:
    axes = {"r": p.r, "u": p.u, "n": p.n}
    half = {"r": dims.width / 2, "u": dims.height / 2, "n": dims.depth / 2}
    pc = cam.to_cam(p.corners(dims))
    if (pc[:, 2] < 0.3).any():
        return
    view_dir = cam.C - p.center
    view_dir /= np.linalg.norm(view_dir)
    for axis, sign, (ta, tsa), (tb, tsb) in _FACES:
        normal = sign * axes[axis]
        fc = p.center + normal * half[axis]
        if np.dot(normal, cam.C - fc) <= 0:
            continue
        ea, eb = axes[ta] * tsa * half[ta], axes[tb] * tsb * half[tb]
        corners = np.array([fc - ea - eb, fc + ea - eb, fc + ea + eb, fc - ea + eb])
        uv, _ = cam.project(corners)
        if axis == "n" and sign == 1:
            tex = textures.face(face_rgba) if face_rgba is not None else textures.blank
        elif axis == "n":
            tex = textures.back
        else:
            tex = textures.side_r if ta == "r" else textures.side_u
        shade = ambient + diffuse * max(0.0, float(np.dot(normal, light)))
        # specular glint: strong when the light's reflection points at the camera
        refl = 2 * np.dot(normal, light) * normal - light
        spec = max(0.0, float(np.dot(refl, view_dir))) ** 24
        glint = 255 * spec * rng.uniform(0.3, 0.8) if spec > 0.02 else 0.0
        painter.quad(tex, uv, owner, shade, glint)


def _paint_prop(painter: _Painter, pr: _Prop, cam: Camera, light: np.ndarray, ambient: float, diffuse: float) -> None:
    for ai in range(3):
        for sign in (-1, 1):
            normal = sign * pr.axes[ai]
            fc = pr.center + normal * pr.half[ai]
            if np.dot(normal, cam.C - fc) <= 0:
                continue
            o = [j for j in range(3) if j != ai]
            ea, eb = pr.axes[o[0]] * pr.half[o[0]], pr.axes[o[1]] * pr.half[o[1]]
            corners = np.array([fc - ea - eb, fc + ea - eb, fc + ea + eb, fc - ea + eb])
            uv, z = cam.project(corners)
            if (z < 0.3).any():
                return
            tex = np.empty((8, 64, 3), np.float32)
            tex[:] = pr.colour * (ambient + diffuse * max(0.0, float(np.dot(normal, light))))
            if pr.dots and ai == 2:
                for k in range(1, 6):
                    cv2.circle(tex, (k * 64 // 6, 4), 1, (200, 30, 30) if k == 3 else (20, 20, 20), -1)
            painter.quad(_rgba(tex), uv, -2)


def _paint_fingers(painter: _Painter, rng: np.random.Generator, hand_hulls: list[np.ndarray]) -> None:
    """A hand / fingers (skin-coloured blobs) entering from an edge, never over the hand's tiles."""
    h, w = painter.ids.shape
    skin = np.array([rng.uniform(170, 240), rng.uniform(120, 190), rng.uniform(90, 160)], np.float32)
    for _ in range(8):
        mask = np.zeros((h, w), np.uint8)
        edge = rng.integers(4)
        t = rng.uniform(0.1, 0.9)
        start = [(t * w, 0), (t * w, h), (0, t * h), (w, t * h)][edge]
        ang = [np.pi / 2, -np.pi / 2, 0, np.pi][edge] + rng.normal(0, 0.4)
        length = rng.uniform(0.12, 0.35) * min(w, h)
        width = rng.uniform(0.035, 0.07) * min(w, h)
        n_f = int(rng.integers(1, 5))
        for k in range(n_f):
            off = (k - (n_f - 1) / 2) * width * 1.05
            sx = start[0] - np.sin(ang) * off
            sy = start[1] + np.cos(ang) * off
            ex = sx + np.cos(ang) * length * rng.uniform(0.8, 1.1)
            ey = sy + np.sin(ang) * length * rng.uniform(0.8, 1.1)
            cv2.line(mask, (int(sx), int(sy)), (int(ex), int(ey)), 255, int(width))
            cv2.circle(mask, (int(ex), int(ey)), int(width / 2), 255, -1)
        ys, xs = np.where(mask > 0)
        if len(xs) == 0:
            continue
        blob = np.array([[xs.min(), ys.min()], [xs.max(), ys.min()], [xs.max(), ys.max()], [xs.min(), ys.max()]], np.float32)
        if any(_overlaps(blob, hh) and _mask_hits(mask, hh) for hh in hand_hulls):
            continue
        soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), max(1.0, width * 0.08))[..., None]
        shade = cv2.GaussianBlur((mask > 0).astype(np.float32), (0, 0), width * 0.4)[..., None]
        colour = skin * (0.75 + 0.3 * shade)
        painter.canvas[:] = painter.canvas * (1 - soft) + colour * soft
        painter.ids[soft[..., 0] > 0.5] = -2
        return


def _mask_hits(mask: np.ndarray, hull: np.ndarray) -> bool:
    poly = np.zeros_like(mask)
    cv2.fillConvexPoly(poly, hull.astype(np.int32), 255)
    return bool(((poly > 0) & (mask > 0)).any())


def _light_and_lens(img: np.ndarray, rng: np.random.Generator, gloss: float, lens: dict | None = None) -> np.ndarray:
    """Light, glare, lens blur and sensor noise. `lens` (if given) receives the blur drawn, in photo pixels
    ({"kind": "none"}, {"kind": "defocus", "sigma_px": …} or {"kind": "motion", "length_px": …}): the labels
    keep it, so a tile's blur can be set against its size (the legibility rule did not see blur)."""
    h, w = img.shape[:2]
    sh, sw = max(2, h // 8), max(2, w // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xn, yn = xx / sw - 0.5, yy / sh - 0.5
    # uneven light: a gradient and a vignette, colour temperature, exposure
    ang = rng.uniform(0, 2 * np.pi)
    grad = 1 + rng.uniform(0, 0.35) * (np.cos(ang) * xn + np.sin(ang) * yn)
    vig = 1 - rng.uniform(0, 0.35) * (xn ** 2 + yn ** 2) * 2
    gain = (grad * vig)[..., None] * ((1 + rng.normal(0, 0.05, 3)) * rng.uniform(0.75, 1.2)).astype(np.float32)
    # glare: a soft bright patch (lamp reflected by glossy tiles / table)
    add = np.zeros((sh, sw, 1), np.float32)
    if rng.random() < 0.25 + 0.3 * gloss:
        cx, cy = rng.uniform(0, sw), rng.uniform(0, sh)
        sx, sy = rng.uniform(0.05, 0.3) * sw, rng.uniform(0.03, 0.2) * sh
        add[..., 0] = rng.uniform(40, 140) * np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2))
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    img = img * gain
    if add.any():
        img += cv2.resize(add, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    # lens: defocus or motion blur
    r = rng.random()
    scale = max(w, h) / 1000
    drawn: dict = {"kind": "none"}
    if r < 0.45:
        sigma = rng.uniform(0.3, 1.6) * scale
        drawn = {"kind": "defocus", "sigma_px": round(float(sigma), 2)}
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    elif r < 0.6:
        k = max(3, int(rng.uniform(3, 11) * scale)) | 1
        drawn = {"kind": "motion", "length_px": k}
        kernel = np.zeros((k, k), np.float32)
        a = rng.uniform(0, np.pi)
        c = k // 2
        cv2.line(kernel, (int(c - np.cos(a) * c), int(c - np.sin(a) * c)), (int(c + np.cos(a) * c), int(c + np.sin(a) * c)), 1.0, 1)
        img = cv2.filter2D(img, -1, kernel / kernel.sum())
    if lens is not None:
        lens.update(drawn)
    # sensor noise
    sigma = rng.uniform(0, 9)
    if sigma > 0.5:
        img += rng.standard_normal(img.shape, dtype=np.float32) * sigma
    return img


def _labels(poses: list[L.TilePose], ids: np.ndarray, cam: Camera, dims: L.TileDims,
            opts: SceneOptions) -> list[tuple[int, TileLabel]]:
    """(owner id in `ids`, label) of every tile the photo shows enough of."""
    out = []
    h, w = ids.shape
    for i, p in enumerate(poses):
        corners = p.corners(dims)
        uv, z = cam.project(corners)
        if (z < 0.3).any():
            continue
        hull = cv2.convexHull(uv.astype(np.float32)).reshape(-1, 2)
        area = cv2.contourArea(hull)
        if area < 4:
            continue
        x0 = int(max(np.floor(uv[:, 0].min()), 0))
        y0 = int(max(np.floor(uv[:, 1].min()), 0))
        x1 = int(min(np.ceil(uv[:, 0].max()) + 1, w))
        y1 = int(min(np.ceil(uv[:, 1].max()) + 1, h))
        if x1 <= x0 or y1 <= y0:
            continue
        ys, xs = np.nonzero(ids[y0:y1, x0:x1] == i)
        if len(xs) == 0:
            continue
        visible = min(1.0, len(xs) / area)
        if not p.in_hand and visible < opts.min_visible:
            continue
        box = (float(x0 + xs.min()), float(y0 + ys.min()), float(x0 + xs.max() + 1), float(y0 + ys.max() + 1))
        pix = np.stack([x0 + xs, y0 + ys], axis=1).astype(np.int32)
        vis_hull = [(float(a) + 0.5, float(b) + 0.5) for a, b in cv2.convexHull(pix).reshape(-1, 2)]
        # face quad (front face corners: top-left, top-right, bottom-right, bottom-left of the face)
        fc = p.center + p.n * dims.depth / 2
        ea, eb = p.r * dims.width / 2, p.u * dims.height / 2
        quad_w = np.array([fc - ea + eb, fc + ea + eb, fc + ea - eb, fc - ea - eb])
        quv, _ = cam.project(quad_w)
        up, _ = cam.project(np.array([fc, fc + p.u * 0.3]))
        front_visible = np.dot(p.n, cam.C - fc) > 0
        cls = p.face if (front_visible and p.face is not None) else BACK
        out.append((i, TileLabel(
            cls=cls, box=box, quad=[(float(a), float(b)) for a, b in quv], rotation=_rotation_deg(up[1] - up[0]),
            in_hand=p.in_hand, group=p.group, index=p.index, sideways=p.sideways, stacked=p.stacked,
            face_down=not (front_visible and p.face is not None), standing=p.standing, visible=float(visible), kind=p.kind,
            hull=vis_hull,
        )))
    return out


def random_scene_hand(rng: np.random.Generator, *, players: int = 4) -> L.HandSpec:
    """A random legal winning hand to render (see `layouts.random_winning_hand`)."""
    return L.random_winning_hand(rng, players=players)


__all__ = [
    "ArtFaces", "Camera", "FaceSource", "PhotoLabels", "SceneOptions", "TileLabel", "default_face_source",
    "random_scene_hand", "render_hand_photo", "TILE_CLASSES",
]
