"""Read one tile from its crop: the crop contract and the ONNX tile classifier.

This is the ONE place the crop is defined; training (`datasets/tsumo_synth/crops.py`) and
recognition (`vision/recognize.py`) both call `crop_tile`, so what the model saw in training is
what it sees in use.

Crop contract: the detector's box, expanded by `CROP_MARGIN` of its width/height on each side
(detector boxes are loose or tight by ±15 %; the margin keeps the whole face in), cut with edge
replication where it leaves the image; a sideways tile is turned 90° clockwise to portrait (a
called tile usually lies with its top to the left, which then reads upright; one lying the other
way reads upside down, which the flip head reports); `flip` turns it 180° more; finally the crop
is resized (stretched) to a square `INPUT_SIZE`×`INPUT_SIZE`, RGB uint8.

Model: 75 classes = the 38 `TILE_CLASSES` upright + the 37 face-up ones turned 180° (a face-down
tile has no up). `classify` folds them into probs N×38 and flip N×2 = (P upright, P upside down).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from vision.classes import BACK, CLASS_INDEX, TILE_CLASSES

# Default crop size for callers without a model; `TileClassifier.crop` uses the size recorded in the
# model. 64 px (was 48): the man numeral is a small part of the tile and needs the pixels.
INPUT_SIZE = 64
CROP_MARGIN = 0.10
DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "tile_classifier.onnx"
FLIP_SUFFIX = "@180"


def crop_tile(image_rgb: np.ndarray, box_xyxy: Sequence[float], sideways: bool, flip: bool = False, *,
              size: int = INPUT_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """The model's input for one tile: size×size×3 uint8 RGB (see the module docstring)."""
    if image_rgb.ndim != 3 or image_rgb.shape[2] != 3:
        raise ValueError(f"crop_tile expects an H×W×3 RGB image, got shape {image_rgb.shape}")
    x1, y1, x2, y2 = (float(v) for v in box_xyxy)
    if not (x2 > x1 and y2 > y1):
        raise ValueError(f"crop_tile: empty box {tuple(box_xyxy)}")
    bw, bh = x2 - x1, y2 - y1
    x1, x2 = x1 - margin * bw, x2 + margin * bw
    y1, y2 = y1 - margin * bh, y2 + margin * bh
    out_w, out_h = (size, size)
    # Map the (sub-pixel) box straight onto the output: one resampling, replicate outside the photo.
    # Going through an intermediate patch of the box's own size keeps area-averaging when shrinking.
    pw, ph = max(int(round(x2 - x1)), 1), max(int(round(y2 - y1)), 1)
    m = np.array([[1.0, 0.0, x1], [0.0, 1.0, y1]])
    patch = cv2.warpAffine(image_rgb, m, (pw, ph), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REPLICATE)
    if sideways:
        patch = cv2.rotate(patch, cv2.ROTATE_90_CLOCKWISE)
    if flip:
        patch = cv2.rotate(patch, cv2.ROTATE_180)
    shrink = patch.shape[0] > out_h or patch.shape[1] > out_w
    return cv2.resize(patch, (out_w, out_h), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)


# Test-time augmentation (`TileClassifier.classify_boxes`): the box moved by this share of its
# width left and right and of its height up and down, and grown and shrunk by it on every edge.
# Chosen (session 6) on a tune set of 100 rendered photos (photo seed 97) among 3 / 5 % and
# subsets of these six boxes: the six at 5 % steadied the read most and read as well as any.
TTA_SHIFT = 0.05


def tta_boxes(s: float) -> list[tuple[float, float, float, float]]:
    """Edge offsets (x0, y0, x1, y1, shares of the box's width/height) of the re-read boxes."""
    return [(s, 0, s, 0), (-s, 0, -s, 0), (0, s, 0, s), (0, -s, 0, -s), (-s, -s, s, s), (s, s, -s, -s)]


def shift_box(box: Sequence[float], offset: Sequence[float]) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    return (x1 + offset[0] * w, y1 + offset[1] * h, x2 + offset[2] * w, y2 + offset[3] * h)


def class_names_75() -> list[str]:
    """The model's own output order: 38 upright labels, then the 37 face-up labels turned 180°."""
    return list(TILE_CLASSES) + [f"{c}{FLIP_SUFFIX}" for c in TILE_CLASSES if c != BACK]


def fold_outputs(p: np.ndarray, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Model probabilities over `names` → (probs N×38 in TILE_CLASSES order, flip N×2)."""
    n = p.shape[0]
    probs = np.zeros((n, len(TILE_CLASSES)), np.float32)
    flip = np.zeros((n, 2), np.float32)
    for j, name in enumerate(names):
        turned = name.endswith(FLIP_SUFFIX)
        label = name[: -len(FLIP_SUFFIX)] if turned else name
        probs[:, CLASS_INDEX[label]] += p[:, j]
        flip[:, int(turned)] += p[:, j]
    s = probs.sum(1, keepdims=True)
    probs /= np.maximum(s, 1e-12)
    flip /= np.maximum(flip.sum(1, keepdims=True), 1e-12)
    return probs, flip


class TileClassifier:
    """The ONNX crop classifier on onnxruntime (no torch). Load once, pass the object around."""

    def __init__(self, path: str | Path = DEFAULT_MODEL, threads: int = 2, *,
                 tta_below: float | None | str = "model", tta_shift: float = TTA_SHIFT):
        """`tta_below`: tiles whose top probability is under this are read again from box-shifted
        crops and the reads averaged (`classify_boxes`); "model" takes the value recorded in the
        model (`tsumo_tta_below`, absent = off), None turns it off."""
        import onnxruntime as ort

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"tile classifier model not found: {path}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, int(threads))
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        meta = self.session.get_modelmeta().custom_metadata_map
        self.input_name = self.session.get_inputs()[0].name
        shape = self.session.get_inputs()[0].shape
        self.imgsz = int(meta.get("tsumo_imgsz", shape[-1] if isinstance(shape[-1], int) else INPUT_SIZE))
        self.margin = float(meta.get("tsumo_crop_margin", CROP_MARGIN))
        names = meta.get("tsumo_classes")
        self.names: list[str] = json.loads(names) if names else class_names_75()
        self.path = path
        if tta_below == "model":
            tta_below = float(meta["tsumo_tta_below"]) if meta.get("tsumo_tta_below") else None
        self.tta_below: float | None = None if tta_below is None else float(tta_below)
        self.tta_shift = float(tta_shift)

    def crop(self, image_rgb: np.ndarray, box_xyxy: Sequence[float], sideways: bool, flip: bool = False) -> np.ndarray:
        """`crop_tile` with this model's recorded input size and margin."""
        return crop_tile(image_rgb, box_xyxy, sideways, flip, size=self.imgsz, margin=self.margin)

    def classify_boxes(self, images: Sequence[np.ndarray], boxes: Sequence[Sequence[float]],
                       sideways: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
        """Cut box i out of images[i] (`crop`) and classify, with test-time augmentation when
        `tta_below` is set: a tile read with top probability under it is cut again from the
        `tta_boxes` of its box and the model's probabilities of all its crops are averaged. The
        detector's box of one tile moves by a few pixels between photos, and an unsure read swings
        with it; averaging over nearby boxes steadies it, and only unsure tiles pay for the extra
        crops (one more ONNX call per photo at most)."""
        if len(boxes) == 0:
            return self.classify([])
        raw = self.predict_raw([self.crop(im, b, bool(s)) for im, b, s in zip(images, boxes, sideways)])
        if self.tta_below is not None:
            probs, _ = fold_outputs(raw, self.names)
            unsure = np.flatnonzero(probs.max(1) < self.tta_below)
            if len(unsure):
                shifts = tta_boxes(self.tta_shift)
                extra = self.predict_raw([self.crop(images[i], shift_box(boxes[i], o), bool(sideways[i]))
                                          for i in unsure for o in shifts])
                extra = extra.reshape(len(unsure), len(shifts), -1)
                raw[unsure] = (raw[unsure] + extra.sum(1)) / (1 + len(shifts))
        return fold_outputs(raw, self.names)

    def classify_tiles(self, image: np.ndarray, frame, frame_boxes: np.ndarray,
                       sideways: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`vision.recognize`'s hook: each frame box cut out of the photo turned into the row's frame
        (`extract_patch`, once per box), then `classify_boxes`."""
        from vision.recognize import extract_patch  # the reader's patch cut; recognize imports us lazily

        patches: dict[tuple[float, ...], tuple[np.ndarray, Sequence[float]]] = {}
        for fb in frame_boxes:
            key = tuple(float(v) for v in fb)
            if key not in patches:
                patches[key] = extract_patch(image, frame, fb)
        cut = [patches[tuple(float(v) for v in fb)] for fb in frame_boxes]
        return self.classify_boxes([c[0] for c in cut], [c[1] for c in cut], [bool(s) for s in sideways])

    def classify(self, crops: np.ndarray | list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Crops (N×S×S×3 uint8 RGB, or a list of such crops) → (probs N×38, flip N×2), one ONNX call."""
        if len(crops) == 0:
            return np.zeros((0, len(TILE_CLASSES)), np.float32), np.zeros((0, 2), np.float32)
        return fold_outputs(self.predict_raw(crops), self.names)

    def predict_raw(self, crops: np.ndarray | list[np.ndarray]) -> np.ndarray:
        """The model's own probabilities over `self.names` (N×75), one ONNX call."""
        if isinstance(crops, np.ndarray) and crops.ndim == 3:
            crops = crops[None]
        if len(crops) == 0:
            return np.zeros((0, len(self.names)), np.float32)
        batch = np.empty((len(crops), 3, self.imgsz, self.imgsz), np.float32)
        for i, c in enumerate(crops):
            c = np.asarray(c)
            if c.ndim != 3 or c.shape[2] != 3:
                raise ValueError(f"crop {i} must be H×W×3 RGB, got shape {c.shape}")
            if c.shape[:2] != (self.imgsz, self.imgsz):
                c = cv2.resize(c, (self.imgsz, self.imgsz), interpolation=cv2.INTER_AREA)
            batch[i] = c.transpose(2, 0, 1)
        batch *= 1.0 / 255.0
        (p,) = self.session.run(None, {self.input_name: batch})[:1]
        return np.asarray(p, np.float32)
