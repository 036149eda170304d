"""Find every tile in a photo: one-class YOLO detector on onnxruntime (no torch at run time).

    detector = TileDetector()                       # models/tile_detector.onnx, 2 threads
    boxes = detector.detect(image_rgb)              # [Box(x1, y1, x2, y2, score)] in photo pixels

The photo is letterboxed to the model's input size (long side = `imgsz`, short side padded to a
multiple of the stride, so a 4:3 photo costs 512×384, not 512×512), the raw YOLOv8 output is
decoded and overlapping boxes suppressed. Input size and thresholds come from the ONNX file's
metadata (written by `datasets/train_detector.py`), so model and code can't disagree.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.boxes import box_areas, intersections, ious, long_sides
from vision.runtime import cpu_session

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DEFAULT_PATH = MODELS_DIR / "tile_detector.onnx"
STRIDE = 32


@dataclass(frozen=True)
class Box:
    """A detected tile: corners in original photo pixels and the detector's confidence."""

    x1: float
    y1: float
    x2: float
    y2: float
    score: float

    @property
    def xyxy(self) -> tuple[float, float, float, float]:
        return (self.x1, self.y1, self.x2, self.y2)

    @property
    def width(self) -> float:
        return self.x2 - self.x1

    @property
    def height(self) -> float:
        return self.y2 - self.y1


@dataclass(frozen=True)
class Letterbox:
    """How a photo was fitted into the network input: input = photo * scale + (pad_x, pad_y)."""

    scale: float
    pad_x: int
    pad_y: int
    width: int   # network input width
    height: int  # network input height

    def to_photo(self, boxes: np.ndarray, photo_w: int, photo_h: int) -> np.ndarray:
        """xyxy boxes in network-input pixels → photo pixels, clipped to the photo."""
        out = np.array(boxes, copy=True).reshape(-1, 4)
        out[:, [0, 2]] = np.clip((out[:, [0, 2]] - self.pad_x) / self.scale, 0, photo_w)
        out[:, [1, 3]] = np.clip((out[:, [1, 3]] - self.pad_y) / self.scale, 0, photo_h)
        return out


def letterbox(image: np.ndarray, imgsz: int, *, stride: int = STRIDE, square: bool = False,
              fill: int = 114) -> tuple[np.ndarray, Letterbox]:
    """Resize so the long side is `imgsz`, pad (centred) to a multiple of `stride` (or a square)."""
    h, w = image.shape[:2]
    scale = imgsz / max(h, w)
    nw, nh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    if square:
        tw = th = imgsz
    else:
        tw = int(np.ceil(nw / stride) * stride)
        th = int(np.ceil(nh / stride) * stride)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    if scale < 0.25:
        # a 12-MP photo: area-averaging every pixel costs ~30–90 ms; sampling a 4× grid first, then
        # averaging 4×4 blocks, looks the same to the network (< 3 grey levels apart) in ~2 ms
        grid = cv2.resize(image, (4 * nw, 4 * nh), interpolation=cv2.INTER_NEAREST)
        resized = cv2.resize(grid, (nw, nh), interpolation=cv2.INTER_AREA)
    else:
        resized = cv2.resize(image, (nw, nh), interpolation=interp)
    px, py = (tw - nw) // 2, (th - nh) // 2
    out = np.full((th, tw, 3), fill, np.uint8)
    out[py:py + nh, px:px + nw] = resized
    return out, Letterbox(scale=scale, pad_x=px, pad_y=py, width=tw, height=th)


@dataclass(frozen=True)
class PartRule:
    """When a kept box is only part of a tile another kept box holds (a sideways tile boxed whole
    and again by half: NMS lets the half through because its IoU with the whole is low), drop the
    part. A part: at least `cover` of it lies inside the other box, its area at most `max_area` of
    the other's (same-size boxes — a kakan's stacked tile on its base, touching neighbours of a
    diagonal row — are never parts), and the other box scores at least `score_ratio` × the part's."""

    cover: float = 0.8
    max_area: float = 0.75
    score_ratio: float = 0.5


def drop_parts(boxes: np.ndarray, scores: np.ndarray, rule: PartRule) -> np.ndarray:
    """Indices of the boxes kept (in their order) once the parts of other boxes are dropped."""
    n = len(boxes)
    if n < 2:
        return np.arange(n)
    areas = box_areas(boxes)
    inter = intersections(boxes, boxes)
    # part[i, j]: box i is a part of box j
    part = ((inter >= rule.cover * np.maximum(areas[:, None], 1e-9))
            & (areas[:, None] <= rule.max_area * areas[None])
            & (scores[None] >= rule.score_ratio * scores[:, None]))
    np.fill_diagonal(part, False)
    alive = np.ones(n, bool)
    for j in np.argsort(-areas, kind="stable"):  # a dropped box can't cost another its place
        if alive[j]:
            alive &= ~part[:, j]
    return np.flatnonzero(alive)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices kept by greedy non-maximum suppression (boxes N×4 xyxy), highest score first."""
    if len(boxes) == 0:
        return np.zeros(0, np.int64)
    areas = box_areas(boxes)
    order = np.argsort(-scores, kind="stable")
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        inter = intersections(boxes[i:i + 1], boxes[rest])[0]
        ov = inter / np.maximum(areas[i] + areas[rest] - inter, 1e-9)
        order = rest[ov <= iou]
    return np.array(keep, np.int64)


class TileDetector:
    """Loads the ONNX detector once; `detect` is safe to call from several threads."""

    def __init__(self, path: str | Path = DEFAULT_PATH, threads: int = 2, *, conf: float | None = None,
                 iou: float | None = None, imgsz: int | None = None, parts: PartRule | None = None,
                 vote: float | None = None, flip: bool = False, flip_adds: bool = True,
                 fit: float | None | str = "model"):
        """`fit`: detect again at a smaller input when the tiles come out much larger than this (px in
        the network's input; see `fitted_imgsz`); "model" takes the model's `tsumo_fit` (absent = off),
        None turns it off."""
        path = Path(path)
        self.session = cpu_session(path, threads, "detector model")
        self.input_name = self.session.get_inputs()[0].name
        meta = self.session.get_modelmeta().custom_metadata_map
        self.metadata = dict(meta)
        self.imgsz = int(imgsz or meta.get("tsumo_imgsz") or _ultralytics_imgsz(meta) or 512)
        self.conf = float(conf if conf is not None else meta.get("tsumo_conf", 0.25))
        self.iou = float(iou if iou is not None else meta.get("tsumo_iou", 0.6))
        shape = self.session.get_inputs()[0].shape
        self.dynamic = not all(isinstance(d, int) for d in shape[2:])
        self.path = path
        self.threads = threads
        self.parts = parts
        self.vote = vote
        self.flip = flip
        self.flip_adds = flip_adds
        if fit == "model":
            fit = meta.get("tsumo_fit") or None
        self.fit: float | None = None if fit is None else float(fit)

    def variant(self, **changes) -> TileDetector:
        """The same loaded model seen another way (`flip`, `vote`, `imgsz`, …): a second look at a
        photo without a second onnxruntime session."""
        unknown = sorted(set(changes) - set(vars(self)))
        if unknown:
            raise TypeError(f"TileDetector has no setting {', '.join(unknown)}")
        other = copy.copy(self)
        vars(other).update(changes)
        return other

    def detect(self, image_rgb: np.ndarray, *, imgsz: int | None = None, conf: float | None = None) -> list[Box]:
        """Tiles in an RGB uint8 photo (any size), best first. `imgsz` overrides the input size; with `fit`,
        a detection whose tiles come out over FIT_ABOVE × `fit` px is made again at `fitted_imgsz`."""
        if not isinstance(image_rgb, np.ndarray) or image_rgb.ndim != 3 or image_rgb.shape[2] != 3:
            raise ValueError("detect() needs an H×W×3 RGB uint8 image")
        if image_rgb.dtype != np.uint8:
            raise ValueError(f"detect() needs uint8 pixels, got {image_rgb.dtype}")
        h, w = image_rgb.shape[:2]
        if h < 2 or w < 2:
            return []
        size = int(imgsz or self.imgsz)
        x, lb = self.network_input(image_rgb, size)
        threshold = self.conf if conf is None else conf
        boxes, s = self._candidates(x, threshold)
        if not len(s) and not (self.flip and self.flip_adds):
            return []
        kept = nms(boxes, s, self.iou)
        if self.flip:  # the mirrored input too, its boxes mirrored back
            fb, fs = self._candidates(np.ascontiguousarray(x[..., ::-1]), threshold)
            fb[:, [0, 2]] = x.shape[3] - fb[:, [2, 0]]
            boxes, s = np.concatenate([boxes, fb]), np.concatenate([s, fs])
            # pooled: the boxes of either view kept; else the mirror's candidates only vote on the
            # photo's own kept boxes (steadier edges, no box added)
            if self.flip_adds:
                kept = nms(boxes, s, self.iou)
        if not len(s):
            return []
        if self.vote is not None:  # each kept box: the score-weighted mean of the candidates over it
            boxes = vote_boxes(boxes, s, kept, self.vote)
        else:
            boxes = boxes[kept]
        s = s[kept]
        if self.parts is not None:
            kept = drop_parts(boxes, s, self.parts)
            boxes, s = boxes[kept], s[kept]
        if self.fit is not None:
            smaller = fitted_imgsz(boxes, size, self.fit)
            if smaller is not None:
                return self.variant(fit=None).detect(image_rgb, imgsz=smaller, conf=conf)
        boxes = lb.to_photo(boxes, w, h)
        return [Box(float(a), float(b), float(c), float(d), float(e)) for (a, b, c, d), e in zip(boxes, s)
                if c - a >= 1 and d - b >= 1]

    def network_input(self, image_rgb: np.ndarray, size: int) -> tuple[np.ndarray, Letterbox]:
        """The photo as this model's input (1×3×H×W float in [0, 1], letterboxed to `size`) and how it was fitted."""
        inp, lb = letterbox(image_rgb, size, square=not self.dynamic)
        return np.ascontiguousarray(inp.transpose(2, 0, 1)[None], dtype=np.float32) / 255.0, lb

    def head(self, x: np.ndarray) -> np.ndarray:
        """The raw head output for one input: (4 + classes) × anchors (cx, cy, w, h in input pixels, class scores)."""
        return self.session.run(None, {self.input_name: x})[0][0]

    def _candidates(self, x: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
        """Raw boxes (xyxy, network-input pixels) and scores at or above `threshold`."""
        boxes, scores, _ = decode_head(self.head(x), threshold)
        return boxes, scores


def decode_head(out: np.ndarray, threshold: float, *, classes: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A YOLOv8 head's (4 + classes) × anchors output → xyxy boxes (input pixels), best class scores at or above
    `threshold` and, when asked (`classes`), the index of that best class (a one-stage model's face)."""
    scores = out[4:].max(axis=0)
    keep = scores >= threshold
    cx, cy, bw, bh = out[:4, keep]
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)
    return boxes, scores[keep], out[4:, keep].argmax(axis=0) if classes else None


# A close-up (the phone a hand's width from the tiles, or part of the row filling the photo) shows
# tiles at 80-200 px in the detector's 512-px input, where the detector, trained on tiles of about
# 15-65 px there, scores them low and boxes them in parts. `TileDetector(fit=...)` (metadata
# `tsumo_fit`) then detects again at the input size that brings them to `fit` px. Session 32,
# tune sets, first pass and its looks (close / 10x3 / 9x3 / 9), by (fit, FIT_ABOVE): (40, 1.4)
# +2 -3 / 0 / +1 -1; (48, 1.5) +1 / 0 / 0; (48, 1.75) -1 / 0 / 0; (56, 1.5) -1 / 0; (40, 2.0)
# +2 / 0 / 0 / 0. Real-dev hand tiles cut five to a photo: boxed 37 of 50 plain, 42 fitted.
FIT_ABOVE = 2.0  # (times `fit`) how large the tiles must be for a second, smaller detection
FIT_MIN_IMGSZ = 160


def fitted_imgsz(boxes: np.ndarray, imgsz: int, fit: float) -> int | None:
    """A smaller input size at which the larger quarter of these boxes (network-input px at `imgsz`)
    would be about `fit` px long, when they are over FIT_ABOVE times that now; else None."""
    if len(boxes) < 2:
        return None
    big = float(np.percentile(long_sides(boxes), 75))
    if big <= FIT_ABOVE * fit:
        return None
    size = max(FIT_MIN_IMGSZ, int(round(imgsz * fit / big / STRIDE)) * STRIDE)
    return size if size < imgsz else None


def vote_boxes(boxes: np.ndarray, scores: np.ndarray, kept: np.ndarray, iou: float) -> np.ndarray:
    """Box voting: each kept box becomes the score-weighted mean of every candidate overlapping it
    with IoU ≥ `iou` (itself included) — steadier edges than the single best candidate."""
    k = boxes[kept]
    ov = ious(k, boxes)
    w = np.where(ov >= iou, scores[None], 0.0)
    w[np.arange(len(kept)), kept] = scores[kept]
    return (w @ boxes) / w.sum(axis=1, keepdims=True)


def _ultralytics_imgsz(meta: dict) -> int | None:
    raw = meta.get("imgsz")
    if not raw:
        return None
    try:
        v = json.loads(raw)
    except ValueError:
        return None
    return int(max(v)) if isinstance(v, list) else int(v)
