"""Classifier training crops: one tile as a detector would hand it to `vision.classify.crop_tile`.

Each crop is a small scene (the tile with its neighbours in a row, sometimes a row behind it, on a
table texture) seen through a cheap camera: perspective, a tilt left over after deskewing, the
tile only 30–130 px tall, blur, noise, JPEG, uneven light, colour casts, a glare spot, a finger.
The box is the tile's true outline moved by up to ±15 % per edge (detector looseness), then cut
with the very `crop_tile` recognition uses.

Also: crops from the real Chinese-set photos (`chinese-mahjong-detection-v4`) for the classes
riichi shares with them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.classes import BACK, TILE_CLASSES
from vision.classify import CROP_MARGIN, FLIP_SUFFIX, INPUT_SIZE, crop_tile

from .tiles import TileArtist, TileSprite

TABLE_COLORS = [
    (40, 110, 70), (30, 80, 60), (20, 60, 110), (35, 45, 70), (90, 90, 95), (150, 150, 150),
    (120, 80, 50), (170, 130, 90), (30, 30, 30), (200, 200, 195), (60, 100, 140), (110, 40, 40),
]


@dataclass
class Crop:
    image: np.ndarray  # INPUT_SIZE × INPUT_SIZE × 3 uint8 RGB
    label: str
    flipped: bool       # the face in the crop is upside down
    # how hard the camera made it (tile px, blur, glare over the tile, finger cover, box cuts):
    # recorded, never drawn, so the held-out set can be split into readable/degraded by rule
    params: dict = field(default_factory=dict)

    @property
    def class_name(self) -> str:
        return self.label + FLIP_SUFFIX if self.flipped and self.label != BACK else self.label


def _background(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """Table cloth, plastic or wood: a base colour with low-frequency blotches and fine grain."""
    base = np.array(TABLE_COLORS[rng.integers(len(TABLE_COLORS))], np.float32)
    base = np.clip(base + rng.normal(0, 15, 3), 0, 255)
    low = cv2.resize(rng.normal(0, 1, (4, 4, 1)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    img = base[None, None] * (1 + 0.12 * low[..., None] if low.ndim == 2 else 1 + 0.12 * low)
    grain = cv2.resize(rng.normal(0, rng.uniform(2, 12), (h // 2 + 1, w // 2 + 1)).astype(np.float32), (w, h),
                       interpolation=cv2.INTER_NEAREST)[..., None]
    img = img + grain
    if rng.random() < 0.3:  # a table edge or rail line
        y = int(rng.uniform(0, h))
        cv2.line(img, (0, y), (w, y + int(rng.normal(0, h * 0.1))), tuple(float(v) for v in base * rng.uniform(0.3, 1.6)),
                 int(rng.integers(2, 12)))
    return np.clip(img, 0, 255).astype(np.float32)


def _paste(canvas: np.ndarray, sprite: np.ndarray, x: int, y: int, shadow: tuple[float, float, float] | None) -> None:
    """Alpha-composite an RGBA sprite at (x, y) (may be partly outside), with a soft shadow."""
    h, w = sprite.shape[:2]
    H, W = canvas.shape[:2]
    a = sprite[..., 3:4].astype(np.float32) / 255.0
    if shadow is not None:
        dx, dy, strength = shadow
        sa = cv2.GaussianBlur(a[..., 0], (0, 0), max(w * 0.04, 1.0))[..., None] * strength
        _blend(canvas, np.zeros_like(sprite[..., :3], np.float32), sa, x + int(dx), y + int(dy))
    _blend(canvas, sprite[..., :3].astype(np.float32), a, x, y)


def _blend(canvas, rgb, a, x, y):
    h, w = rgb.shape[:2]
    H, W = canvas.shape[:2]
    xa, ya, xb, yb = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if xa >= xb or ya >= yb:
        return
    sub_a = a[ya - y:yb - y, xa - x:xb - x]
    canvas[ya:yb, xa:xb] = canvas[ya:yb, xa:xb] * (1 - sub_a) + rgb[ya - y:yb - y, xa - x:xb - x] * sub_a


class CropMaker:
    """Renders classifier crops; all randomness from the rng passed in (reproducible per seed)."""

    def __init__(self, artist: TileArtist, size: int = INPUT_SIZE, margin: float = CROP_MARGIN,
                 px_range: tuple[float, float] = (30.0, 130.0), pool_size: int = 370, pool_seed: int = 0):
        self.artist = artist
        self.size = size
        self.margin = margin
        self.px_range = px_range
        # Neighbours only need variety, not fresh faces: a fixed pool of drawn faces (much faster),
        # drawn from its own seed so every crop depends only on its own rng and this pool.
        prng = np.random.default_rng(pool_seed)
        labels = [c for c in TILE_CLASSES if c != BACK]
        self._pool: list[tuple[str, np.ndarray]] = []
        for i in range(pool_size):
            lab = labels[i % len(labels)]
            self._pool.append((lab, self.artist.face(lab, prng)))

    def make(self, label: str, rng: np.random.Generator, *, turn: int | None = None) -> Crop:
        """One crop of `label`. `turn` as in `TileArtist.tile` (random when None)."""
        return self.make_views(label, rng, turn=turn, views=1)[0]

    def make_views(self, label: str, rng: np.random.Generator, *, turn: int | None = None, views: int = 1) -> list[Crop]:
        """`views` crops of one rendered scene, each through its own camera, light and box.

        Drawing the scene is the costly part; extra views of it are cheap and still differ in
        size, blur, tilt, light and box."""
        if turn is None:
            turn = int(rng.choice([0, 180, 90, 270], p=[0.36, 0.36, 0.14, 0.14]))
        # Seen from across the table (until recognition turns the frame): the whole tile, its
        # visible side included, is upside down. Render the opposite turn and rotate the crop.
        across = bool(rng.random() < 0.25)
        if across:
            turn = (turn + 180) % 360
        lying = True if turn in (90, 270) else bool(rng.random() < 0.65)
        back_color = self.artist.back_color(rng)
        # side strip / face height = thickness/height × cot(elevation) (≈ 0.57 cot e for a lying tile):
        # 0.08–0.45 from above, up to ~1 in low shots across the table (the real-dev photos)
        strip = float(rng.uniform(0.08, 0.45)) if rng.random() < 0.6 else float(rng.uniform(0.45, 1.0))
        lo, hi = self.px_range
        targets = np.exp(rng.uniform(np.log(lo), np.log(hi), views))  # tile's long side in the photo, px
        # the scene is composed at a little over the final resolution (cheap), sprites shrunk first
        fh = self.artist.face_size[1] * (1 + strip)
        self._pre = min(1.0, 1.6 * float(targets.max()) / fh)
        centre = self._shrink(self.artist.tile(label, rng, lying=lying, back_color=back_color, strip_frac=strip,
                                               turn=turn))
        canvas, cbox = self._scene(centre, rng, lying, back_color, strip, float(targets.max()))
        flipped = (turn in (90, 180)) != across and label != BACK
        out = []
        for target in targets:
            img, box = self._camera(canvas, cbox, rng, float(target))
            params = {"tile_px": float(target), "sideways": turn in (90, 270)}
            img = self._photometric(img, rng, tile_box=box, params=params)
            tight = box
            box = self._loosen(box, rng, sideways=turn in (90, 270))
            # how far each edge of the detector box lies inside the tile (share of its width/height)
            tw, th = tight[2] - tight[0], tight[3] - tight[1]
            params["box_cut"] = float(max((box[0] - tight[0]) / tw, (box[1] - tight[1]) / th,
                                          (tight[2] - box[2]) / tw, (tight[3] - box[3]) / th, 0.0))
            crop = crop_tile(img, box, turn in (90, 270), size=self.size, margin=self.margin)
            if across:
                crop = np.ascontiguousarray(crop[::-1, ::-1])
            out.append(Crop(crop, label, flipped, params))
        return out

    # ---- scene ------------------------------------------------------------------------------
    def _shrink(self, sprite: TileSprite) -> np.ndarray:
        img = sprite.image
        if self._pre >= 0.999:
            return img
        h, w = img.shape[:2]
        return cv2.resize(img, (max(2, int(round(w * self._pre))), max(2, int(round(h * self._pre)))),
                          interpolation=cv2.INTER_AREA)

    def _neighbour(self, rng, lying, back_color, strip) -> np.ndarray:
        lab = TILE_CLASSES[rng.integers(len(TILE_CLASSES))]
        turn = 0
        if lying and rng.random() < 0.12:
            turn = int(rng.choice([90, 270]))
        elif rng.random() < 0.15:
            turn = 180
        if lab == BACK:
            face = self.artist.face(lab, rng, back_color=back_color)
        else:
            lab, face = self._pool[rng.integers(len(self._pool))]
        return self._shrink(self.artist.assemble(face, lab, rng, lying=lying, back_color=back_color,
                                                 strip_frac=strip, turn=turn))

    def _scene(self, centre: np.ndarray, rng, lying: bool, back_color, strip: float, target: float):
        """Canvas (float RGB) with the centre tile, neighbours, maybe a row behind; centre's tight box."""
        ch, cw = centre.shape[:2]
        unit = max(ch, cw)
        W, H = int(cw + 1.8 * unit), int(ch + 1.8 * unit)
        canvas = _background(W, H, rng)
        x0, y0 = (W - cw) // 2, (H - ch) // 2 + int(rng.uniform(-0.1, 0.1) * ch)
        base_y = y0 + ch  # tiles in a row rest on one line
        shadow = (rng.uniform(-0.08, 0.08) * cw, rng.uniform(0.0, 0.08) * ch, rng.uniform(0.2, 0.6))
        placed = []
        if rng.random() < 0.25:  # a row further away (wall, discards): above, smaller and partly hidden
            y_far = y0 - int(rng.uniform(0.6, 1.1) * ch)
            x = int(x0 - rng.uniform(0, 1.2) * cw)
            while x < W:
                s = self._neighbour(rng, bool(rng.random() < 0.6), back_color, strip)
                k = rng.uniform(0.8, 1.0)
                img = cv2.resize(s, (max(2, int(s.shape[1] * k)), max(2, int(s.shape[0] * k))))
                placed.append((img, x, y_far + ch - img.shape[0]))
                x += img.shape[1] + int(rng.uniform(0, 0.05) * cw)
        for img, x, y in placed:
            _paste(canvas, img, x, y, shadow)
        gap = lambda: int(rng.uniform(0, 0.06) * cw) if rng.random() < 0.6 else 0  # noqa: E731
        # right-hand neighbours
        x = x0 + cw + gap()
        if rng.random() < 0.8:
            for _ in range(2):
                s = self._neighbour(rng, lying, back_color, strip)
                _paste(canvas, s, x, base_y - s.shape[0], shadow)
                x += s.shape[1] + gap()
        x = x0
        if rng.random() < 0.8:
            for _ in range(2):
                s = self._neighbour(rng, lying, back_color, strip)
                x -= s.shape[1] + gap()
                _paste(canvas, s, x, base_y - s.shape[0], shadow)
        _paste(canvas, centre, x0, y0, shadow)
        if rng.random() < 0.15:  # a tile stacked on top/in front overlapping a little (kan, clutter)
            s = self._neighbour(rng, True, back_color, strip)
            dy = int(rng.uniform(0.75, 0.95) * ch) * (1 if rng.random() < 0.5 else -1)
            _paste(canvas, s, x0 + int(rng.normal(0, 0.2) * cw), y0 + dy, shadow)
        return canvas, (x0, y0, x0 + cw, y0 + ch)

    # ---- camera -----------------------------------------------------------------------------
    def _camera(self, canvas, cbox, rng, target: float):
        """Shrink to `target` px tile size with perspective and residual tilt; tile box in the result."""
        x1, y1, x2, y2 = cbox
        tw, th = x2 - x1, y2 - y1
        s = target / max(tw, th)
        # pre-shrink with area averaging, then a near-identity perspective warp
        small = cv2.resize(canvas, (max(2, int(canvas.shape[1] * s)), max(2, int(canvas.shape[0] * s))),
                           interpolation=cv2.INTER_AREA)
        src = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32) * s
        c = src.mean(0)
        ang = np.deg2rad(rng.normal(0, 3.5) if rng.random() < 0.85 else rng.uniform(-12, 12))
        R = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]], np.float32)
        sx = rng.uniform(0.85, 1.15)
        # camera elevation squashes the tile vertically (a face seen at 35° is ~0.6 of its height)
        sy = rng.uniform(0.55, 1.0) if rng.random() < 0.5 else 1.0
        dst = (src - c) @ R.T * np.array([sx, sy], np.float32)
        # keystone: the far edge of the tile a little narrower (camera looks down at an angle)
        k = rng.uniform(0.0, 0.12)
        dst[[0, 1], 0] *= (1 - k)
        dst += rng.normal(0, 0.025, dst.shape).astype(np.float32) * target
        out_w, out_h = int(target * 2.2), int(target * 2.2)
        dst += np.array([out_w / 2, out_h / 2], np.float32)
        M = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        img = cv2.warpPerspective(small, M, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        pts = cv2.perspectiveTransform(src[None], M)[0]
        box = (pts[:, 0].min(), pts[:, 1].min(), pts[:, 0].max(), pts[:, 1].max())
        return img, box

    def _loosen(self, box, rng, *, sideways: bool = False):
        """The detector's box: each edge off by up to ±15 %; a sideways tile's box sometimes much
        too narrow (the detector draws it like an upright neighbour's)."""
        x1, y1, x2, y2 = box
        w, h = x2 - x1, y2 - y1
        j = np.clip(rng.normal(0, 0.06, 4), -0.15, 0.15)
        if sideways and rng.random() < 0.25:
            cut = rng.uniform(0.08, 0.25) * w
            side = rng.uniform(0, 1)
            j[0] += side * cut / w
            j[2] -= (1 - side) * cut / w
        return (x1 + j[0] * w, y1 + j[1] * h, x2 + j[2] * w, y2 + j[3] * h)

    def _photometric(self, img: np.ndarray, rng, *, tile_box=None, params: dict | None = None) -> np.ndarray:
        """Light, colour, glare, finger, blur, noise, JPEG. `params` (if given) receives what was
        applied over the tile (`tile_box`): recording only, the rng draws are the same either way."""
        h, w = img.shape[:2]
        rec = params if params is not None else {}
        if tile_box is None:
            tile_box = (0, 0, w, h)
        bx1, by1, bx2, by2 = (int(round(v)) for v in tile_box)
        bx1, by1, bx2, by2 = max(bx1, 0), max(by1, 0), min(max(bx2, bx1 + 1), w), min(max(by2, by1 + 1), h)
        rec.update(glare=0.0, finger=0.0, blur_sigma=0.0, motion_px=0, jpeg=100)
        img = img.astype(np.float32)
        # light: overall level and a gradient across the crop
        gx, gy = rng.normal(0, 0.15, 2)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        field = rng.uniform(0.6, 1.2) * (1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5))
        img *= field[..., None]
        # white balance / colour cast
        warm = rng.normal(0, 0.06)
        gains = np.array([1 + warm, 1.0, 1 - warm]) * rng.normal(1, 0.04, 3)
        img *= gains.astype(np.float32)
        if rng.random() < 0.2:  # glare spot
            cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.1, 0.4) * w
            spot = rng.uniform(30, 100) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
            img += spot[..., None]
            rec["glare"] = float(spot[by1:by2, bx1:bx2].max()) if by2 > by1 and bx2 > bx1 else 0.0
        if rng.random() < 0.08:  # a finger or an object over one edge
            col = np.array([(200, 150, 120), (60, 50, 45), (230, 230, 230)][rng.integers(3)], np.float32)
            cx = rng.choice([rng.uniform(-0.1, 0.25), rng.uniform(0.75, 1.1)]) * w
            cy = rng.uniform(0, 1) * h
            m = np.zeros((h, w), np.float32)
            cv2.ellipse(m, (int(cx), int(cy)), (int(w * rng.uniform(0.1, 0.25)), int(h * rng.uniform(0.2, 0.5))),
                        float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
            img = img * (1 - m[..., None]) + col * m[..., None]
            rec["finger"] = float(m[by1:by2, bx1:bx2].mean()) if by2 > by1 and bx2 > bx1 else 0.0
        img = np.clip(img, 0, 255)
        if rng.random() < 0.7:
            # a tile only ~20 px tall stays readable only with little blur
            sigma = rng.uniform(0.15, 0.35 + 0.45 * min(1.0, max(h, w) / 130))
            rec["blur_sigma"] = float(sigma)
            img = cv2.GaussianBlur(img, (0, 0), sigma)
        if rng.random() < 0.08:  # motion blur
            k = int(rng.integers(3, max(4, min(8, max(h, w) // 16))))  # a few px, less on a small tile
            rec["motion_px"] = k
            ker = np.zeros((k, k), np.float32)
            ker[k // 2] = 1.0 / k
            ker = cv2.warpAffine(ker, cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1), (k, k))
            img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-6))
        img += rng.normal(0, rng.uniform(0, 5), img.shape).astype(np.float32)
        out = np.clip(img, 0, 255).astype(np.uint8)
        if rng.random() < 0.7:
            q = int(rng.integers(45, 96))
            rec["jpeg"] = q
            ok, enc = cv2.imencode(".jpg", out[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, q])
            out = cv2.imdecode(enc, cv2.IMREAD_COLOR)[..., ::-1]
        return np.ascontiguousarray(out)


# Fixed before any result was looked at (session 3): a crop is "degraded" when the camera, not
# the model, may have taken the face away. Thresholds are on generator parameters only.
DEGRADED_RULE = (
    "glare adding >= 60 levels somewhere on the tile; a finger covering >= 20 % of the tile box; "
    "a detector box edge >= 20 % inside the tile (>= 10 % of the tile cut off after the crop margin); motion blur >= 0.1 x tile length; "
    "a tile < 36 px long with Gaussian blur sigma >= 0.4 px or JPEG quality < 60"
)


def degraded(params: dict) -> bool:
    """`DEGRADED_RULE` applied to a crop's recorded `params` (see `Crop.params`)."""
    px = params["tile_px"]
    return bool(params["glare"] >= 60 or params["finger"] >= 0.2 or params["box_cut"] >= 0.2
                or params["motion_px"] >= 0.1 * px
                or (px < 36 and (params["blur_sigma"] >= 0.4 or params["jpeg"] < 60)))


# ---- crops cut from rendered photos (the scene renderer's tiles, as the reader cuts them) ---------

def hand_frame(tiles: list[dict]):
    """The hand's frame as the reader sets it: the hand tiles (in hand order) run left to right,
    the owner's up is the row direction turned a quarter counter-clockwise."""
    from vision.frame import Frame

    cs = np.array([np.mean(t["quad"], axis=0) for t in tiles])
    d = cs[-1] - cs[0] if len(cs) > 1 else np.array([1.0, 0.0])
    if len(cs) > 2:  # least-squares direction, signed by the hand order
        d = np.linalg.svd(cs - cs.mean(0))[2][0] * np.sign(np.linalg.svd(cs - cs.mean(0))[2][0] @ d)
    up = np.array([d[1], -d[0]])
    return Frame(float((-90.0 - np.degrees(np.arctan2(up[1], up[0]))) % 360.0),
                 (float(cs[:, 0].mean()), float(cs[:, 1].mean())))


def frame_box(frame, tile: dict) -> np.ndarray:
    """The box (x0, y0, x1, y1) of a labelled tile's visible pixels (its hull, else its face quad) in `frame`:
    the box a detector draws once the reader has turned the photo into that frame."""
    q = frame.to_frame(np.array(tile.get("hull") or tile["quad"], float))
    return np.array([*q.min(0), *q.max(0)])


def _own_frame(tile: dict):
    """A frame in which this tile's printed face stands upright (for tiles outside the hand)."""
    from vision.frame import Frame

    q = np.array(tile["quad"], float)
    up = (q[0] + q[1]) / 2 - (q[3] + q[2]) / 2
    c = q.mean(0)
    return Frame(float((-90.0 - np.degrees(np.arctan2(up[1], up[0]))) % 360.0), (float(c[0]), float(c[1])))


def _face_flipped(frame, tile: dict, sideways: bool) -> bool:
    """Does the face read upside down once `crop_tile` has turned a sideways crop clockwise?"""
    qf = frame.to_frame(np.array(tile["quad"], float))
    upv = (qf[0] + qf[1]) / 2 - (qf[3] + qf[2]) / 2
    a = np.arctan2(upv[0], -upv[1])  # clockwise from the frame's up
    return bool(np.sin(a) > 0) if sideways else bool(np.cos(a) < 0)


@dataclass
class PhotoTileCrop:
    image: np.ndarray
    label: str
    flipped: bool | None    # None for a face-down tile
    in_hand: bool
    sideways: bool
    long_px: float          # the tile's box, long side, in photo pixels
    visible: float
    patch: np.ndarray | None = None   # with keep_patch: the patch the crop was cut from ...
    box: tuple[float, float, float, float] | None = None  # ... and the tile's box in it (re-cuts, TTA)

    @property
    def class_name(self) -> str:
        return self.label + FLIP_SUFFIX if self.flipped and self.label != BACK else self.label


def photo_tile_crops(image: np.ndarray, tiles: list[dict], *, size: int = INPUT_SIZE, margin: float = CROP_MARGIN,
                     hand_only: bool = True, min_visible: float = 0.0, min_px: float = 0.0,
                     rng: np.random.Generator | None = None, jitter: float = 0.0,
                     turn_hand: float = 0.0, offset: tuple[float, float, float, float] | None = None,
                     keep_patch: bool = False) -> list[PhotoTileCrop]:
    """Cut the labelled tiles of a rendered photo (`PhotoLabels.to_json()["tiles"]`) as the reader
    does: photo turned into the hand's frame (`vision.frame.extract_patch`), the box a detector
    draws (the tile's visible pixels), `crop_tile` with the tile's true sideways flag. Tiles outside
    the hand (`hand_only=False`) are cut in a frame of their own in which their face is upright,
    then turned 180° half of the time (`rng`); hand tiles with probability `turn_hand` (a hand
    read in a frame turned the wrong way). `jitter` moves each box edge by N(0, jitter) of its
    size (detector looseness); `offset` moves the edges (x0, y0, x1, y1) by these fixed shares
    of the box's width/height instead (box-shift steadiness measure). `keep_patch`: also return the
    patch and box each crop was cut from (to cut it again, e.g. for test-time augmentation)."""
    from vision.frame import extract_patch

    hand = sorted((t for t in tiles if t["in_hand"]), key=lambda t: t["index"])
    frame = hand_frame(hand) if hand else None
    out = []
    for t in (hand if hand_only else hand + [t for t in tiles if not t["in_hand"]]):
        if t["visible"] < min_visible:
            continue
        own = not t["in_hand"] or frame is None
        fr = _own_frame(t) if own else frame
        sideways = False if own else bool(t["sideways"])
        fb = frame_box(fr, t)
        long_px = float(max(fb[2] - fb[0], fb[3] - fb[1]))
        if long_px < min_px:
            continue
        if jitter and rng is not None:
            w, h = fb[2] - fb[0], fb[3] - fb[1]
            fb = fb + np.clip(rng.normal(0, jitter, 4), -2.5 * jitter, 2.5 * jitter) * np.array([w, h, w, h])
            if fb[2] - fb[0] < 2 or fb[3] - fb[1] < 2:
                continue
        if offset is not None:
            w, h = fb[2] - fb[0], fb[3] - fb[1]
            fb = fb + np.asarray(offset, float) * np.array([w, h, w, h])
        patch, inner = extract_patch(image, fr, fb)
        turn = bool(t["cls"] != BACK and rng is not None and rng.random() < (0.5 if own else turn_hand))
        crop = crop_tile(patch, inner, sideways, turn, size=size, margin=margin)
        flipped = None if t["cls"] == BACK else (_face_flipped(fr, t, sideways) != turn)
        out.append(PhotoTileCrop(crop, t["cls"], flipped, bool(t["in_hand"]), sideways, long_px, float(t["visible"]),
                                 patch if keep_patch else None, tuple(float(v) for v in inner) if keep_patch else None))
    return out


# ---- real crops from the Chinese-set photos -----------------------------------------------------

# class index in chinese-mahjong-detection-v4 → riichi label (flowers/seasons have none)
CHINESE_NAMES = ("bs1 sc1 sd1 sb1 hwe bs2 sc2 sd2 sb2 hws bs3 sc3 sd3 sb3 hww bs4 sc4 sd4 sb4 hwn bf1 sc5 sd5 "
                 "sb5 hdw bf2 sc6 sd6 sb6 hdg bf3 sc7 sd7 sb7 hdr bf4 sc8 sd8 sb8 sc9 sd9 sb9").split()
_CN_TO_RIICHI = {"sc": "m", "sd": "p", "sb": "s"}
_CN_HONOURS = {"hwe": "1z", "hws": "2z", "hww": "3z", "hwn": "4z", "hdw": "5z", "hdg": "6z", "hdr": "7z"}


def chinese_label(class_index: int) -> str | None:
    name = CHINESE_NAMES[class_index]
    if name in _CN_HONOURS:
        return _CN_HONOURS[name]
    if name[:2] in _CN_TO_RIICHI:
        return f"{name[2]}{_CN_TO_RIICHI[name[:2]]}"
    return None  # flower or season


@dataclass
class RealBox:
    image: Path
    box: tuple[float, float, float, float]  # pixels
    label: str
    sideways: bool


def chinese_boxes(split_dir: Path) -> list[RealBox]:
    """Every box of a split whose class riichi shares; sideways when clearly wider than tall."""
    out = []
    for lbl in sorted((Path(split_dir) / "labels").glob("*.txt")):
        img = Path(split_dir) / "images" / (lbl.stem + ".jpg")
        if not img.is_file():
            continue
        for line in lbl.read_text().splitlines():
            parts = line.split()
            if len(parts) != 5:
                continue
            label = chinese_label(int(parts[0]))
            if label is None:
                continue
            cx, cy, w, h = (float(v) * 640 for v in parts[1:])
            out.append(RealBox(img, (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), label, w > h * 1.15))
    return out
