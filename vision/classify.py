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
from vision.frame import extract_patch  # the reader's patch cut (`classify_tiles`)
from vision.runtime import cpu_session

# Default crop size for callers without a model; `TileClassifier.crop` uses the size recorded in the
# model. 64 px (was 48): the man numeral is a small part of the tile and needs the pixels.
INPUT_SIZE = 64
CROP_MARGIN = 0.10
DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "tile_classifier.onnx"
FLIP_SUFFIX = "@180"


def crop_tile(image_rgb: np.ndarray, box_xyxy: Sequence[float], sideways: bool, flip: bool = False, *,
              size: int = INPUT_SIZE, margin: float = CROP_MARGIN, out_hw: tuple[int, int] | None = None) -> np.ndarray:
    """The model's input for one tile: size×size×3 uint8 RGB (see the module docstring); `out_hw`
    (rows, cols) resamples to that shape instead of the square."""
    if image_rgb.ndim != 3 or image_rgb.shape[2] != 3:
        raise ValueError(f"crop_tile expects an H×W×3 RGB image, got shape {image_rgb.shape}")
    x1, y1, x2, y2 = (float(v) for v in box_xyxy)
    if not (x2 > x1 and y2 > y1):
        raise ValueError(f"crop_tile: empty box {tuple(box_xyxy)}")
    bw, bh = x2 - x1, y2 - y1
    x1, x2 = x1 - margin * bw, x2 + margin * bw
    y1, y2 = y1 - margin * bh, y2 + margin * bh
    out_h, out_w = (size, size) if out_hw is None else (int(out_hw[0]), int(out_hw[1]))
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


# Man-numeral second look (session 16): the numeral is the top ~45 % of a man tile's face, but where the face
# sits in the box varies: a lying tile's face starts at the box top (its side strip below), a standing hand
# tile's face starts 22-56 % down the box (its top surface above; tune9 hand tiles, 5-95 %). The cut keeps,
# along the upright tile's long axis, from NUMERAL_MARGIN above the box to NUMERAL_KEEP of the box below its
# top (the bottom of the 萬 is left out), and across the tile NUMERAL_MARGIN beyond each side; resampled to
# NUMERAL_HW (rows, cols): more rows per tile than the main model's 64×64 square of the whole tile + 10 %.
NUMERAL_MARGIN = 0.06
NUMERAL_KEEP = 0.85
NUMERAL_HW = (56, 48)
# The specialist's classes: the man digits 1..9 (a red 5m is a 5; the colour stays the main model's call)
# and "other" (not a man tile).
NUMERAL_CLASSES = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "other")


def numeral_box(box_xyxy: Sequence[float], sideways: bool, flip: bool, *, margin: float = NUMERAL_MARGIN,
                keep: float = NUMERAL_KEEP) -> tuple[float, float, float, float]:
    """The part of a tile's box (before `crop_tile`'s turns) that ends up as the top `keep` of the upright
    tile, with `margin` around it (not beyond the bottom). `crop_tile` turns a sideways cut clockwise (its
    left side becomes the top) and `flip` turns it 180° more."""
    x1, y1, x2, y2 = (float(v) for v in box_xyxy)
    w, h = x2 - x1, y2 - y1
    if sideways:  # long axis horizontal; the top is the left side (right side when flipped)
        y1, y2 = y1 - margin * h, y2 + margin * h
        return (x2 - keep * w, y1, x2 + margin * w, y2) if flip else (x1 - margin * w, y1, x1 + keep * w, y2)
    x1, x2 = x1 - margin * w, x2 + margin * w
    return (x1, y2 - keep * h, x2, y2 + margin * h) if flip else (x1, y1 - margin * h, x2, y1 + keep * h)


def numeral_crop(image_rgb: np.ndarray, box_xyxy: Sequence[float], sideways: bool, flip: bool = False, *,
                 hw: tuple[int, int] = NUMERAL_HW, margin: float = NUMERAL_MARGIN,
                 keep: float = NUMERAL_KEEP) -> np.ndarray:
    """The man-numeral specialist's input: the top of the upright tile (`numeral_box`), hw[0]×hw[1]×3 RGB."""
    return crop_tile(image_rgb, numeral_box(box_xyxy, sideways, flip, margin=margin, keep=keep), sideways, flip,
                     margin=0.0, out_hw=hw)


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


# Half-turn read (`TileClassifier(half_turn=...)`, model metadata `tsumo_half_turn`): a crop is read a second
# time turned 180°, and the two reads are combined. The model's outputs name each face upright and turned, so
# "L upright in the crop" and "L turned in the turned crop" are one fact read twice from the same pixels: an
# ensemble over an exact symmetry of the task (box-shift TTA reads other pixels). The shipped classifier does it
# for tiles cut upright whose plain top-1 is under 0.9 only (models/history/tile_classifier.md, session 30): applied to
# every crop it moved the reader's rules that compare two reads of one tile (sideways or upright, stacked).
HALF_TURN_MODES = ("mean", "geo", "face")
HALF_TURN_SCOPES = ("all", "upright")   # every crop, or only crops of tiles cut upright (not sideways)


def half_turn_permutation(names: Sequence[str]) -> np.ndarray:
    """Column j of a turned crop's read → the column of the same fact for the crop itself: "L" ↔ "L turned";
    a label with no turned twin (face down) maps to itself."""
    index = {n: j for j, n in enumerate(names)}
    return np.array([index[n[: -len(FLIP_SUFFIX)]] if n.endswith(FLIP_SUFFIX) else index.get(n + FLIP_SUFFIX, j)
                     for j, n in enumerate(names)])


def combine_half_turn(a: np.ndarray, b: np.ndarray, mode: str, twin: np.ndarray | None = None) -> np.ndarray:
    """Two reads (N×K, the second already permuted by `twin` = `half_turn_permutation` of the model's names) →
    one: "mean" of the probabilities, or "geo", their normalised geometric mean (a class both reads doubt stays
    low); "face" (needs `twin`): which face it is from the geometric mean of the two reads' face labels, but how
    likely it is face down and which way up each face lies from the first read alone."""
    if mode == "mean":
        return (a + b) / 2
    if mode == "face":
        assert twin is not None
        back = twin == np.arange(len(twin))             # a label with no turned twin: face down
        la, lb = a + a[:, twin], b + b[:, twin]          # each column: its label's mass, both ways up
        g = np.sqrt(np.maximum(la, 1e-12) * np.maximum(lb, 1e-12))
        g[:, back] = 0.0
        g /= g.sum(1, keepdims=True) / 2                 # each label sits in two columns (up and turned)
        share = a / np.maximum(la, 1e-12)                 # the first read's split of a label between up and turned
        out = g * share * (1 - a[:, back].sum(1, keepdims=True))
        out[:, back] = a[:, back]
        return out.astype(np.float32)
    if mode == "geo":
        g = np.sqrt(np.maximum(a, 1e-12) * np.maximum(b, 1e-12))
        return (g / g.sum(1, keepdims=True)).astype(np.float32)
    raise ValueError(f"half-turn mode must be one of {HALF_TURN_MODES}, got {mode!r}")


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


MAN_LABELS = tuple(f"{d}m" for d in range(1, 10)) + ("0m",)
MAN_INDEX = np.array([CLASS_INDEX[c] for c in MAN_LABELS])
MAN_DIGIT_COLUMN = np.array(list(range(9)) + [4])   # specialist column of each MAN_LABELS entry (0m reads as 5)
NUMERAL_MODES = ("man", "product", "rank")


def _is_man(idx: np.ndarray) -> np.ndarray:
    return np.isin(idx, MAN_INDEX)


def numeral_gate(probs: np.ndarray, below: float) -> np.ndarray:
    """Tiles that get the man-numeral second look: the main read's top-1 or top-2 is a man tile and its
    top-1 probability is under `below`."""
    if len(probs) == 0:
        return np.zeros(0, int)
    order = np.argsort(-probs, axis=1)[:, :2]
    manish = _is_man(order[:, 0]) | _is_man(order[:, 1])
    return np.flatnonzero(manish & (probs.max(1) < below))


def combine_numeral(probs: np.ndarray, q: np.ndarray, *, alpha: float = 1.0, mode: str = "man") -> np.ndarray:
    """Main probs N×38 and the specialist's N×10 (`NUMERAL_CLASSES`) → combined probs N×38.
    "man": the man tiles' share of the main read is kept and split again ∝ p_main(km) · q(k)^alpha (red 5m
    with q(5)); other tiles untouched. "product": every class ∝ p_main · q^alpha (non-man tiles with
    q("other")), renormalised. "rank": the man tiles are ordered by p_main(km) · q(k)^alpha and given the main
    read's own man probabilities in that order, largest first: the specialist decides which man tile comes
    first, the main read keeps how sure it is (the reader's legal-hand search prices a runner-up at
    log(p_first / p_runner_up) and never tries one under `reading.MIN_CANDIDATE_P`: session 17 found that sharp
    "man" reads push a true man class out of its reach, so a 13-tile reading leaves a right tile out)."""
    probs = probs.astype(np.float64, copy=True)
    qa = np.power(np.maximum(q.astype(np.float64), 1e-9), alpha)
    man = probs[:, MAN_INDEX] * qa[:, MAN_DIGIT_COLUMN]
    if mode == "man":
        mass = probs[:, MAN_INDEX].sum(1, keepdims=True)
        probs[:, MAN_INDEX] = mass * man / np.maximum(man.sum(1, keepdims=True), 1e-30)
    elif mode == "rank":
        order = np.argsort(-man, axis=1, kind="stable")
        ranked = np.zeros_like(man)
        np.put_along_axis(ranked, order, -np.sort(-probs[:, MAN_INDEX], axis=1), axis=1)
        probs[:, MAN_INDEX] = ranked
    elif mode == "product":
        non = np.ones(probs.shape[1], bool)
        non[MAN_INDEX] = False
        probs[:, non] *= qa[:, [len(NUMERAL_CLASSES) - 1]]
        probs[:, MAN_INDEX] = man
        probs /= np.maximum(probs.sum(1, keepdims=True), 1e-30)
    else:
        raise ValueError(f"numeral mode must be one of {NUMERAL_MODES}, got {mode!r}")
    return probs.astype(np.float32)


class NumeralReader:
    """The man-numeral specialist (ONNX, `datasets/train_numeral.py`): `numeral_crop`s → N×10 probabilities."""

    def __init__(self, path: str | Path, threads: int = 2):
        path = Path(path)
        self.session = cpu_session(path, threads, "man-numeral model")
        meta = self.session.get_modelmeta().custom_metadata_map
        self.input_name = self.session.get_inputs()[0].name
        self.hw = tuple(json.loads(meta["tsumo_numeral_hw"])) if meta.get("tsumo_numeral_hw") else NUMERAL_HW
        self.margin = float(meta.get("tsumo_numeral_margin", NUMERAL_MARGIN))
        self.keep = float(meta.get("tsumo_numeral_keep", NUMERAL_KEEP))
        classes = json.loads(meta["tsumo_numeral_classes"]) if meta.get("tsumo_numeral_classes") else NUMERAL_CLASSES
        if tuple(classes) != NUMERAL_CLASSES:
            raise ValueError(f"{path}: numeral classes {classes} are not {NUMERAL_CLASSES}")
        self.path = path

    def crop(self, image_rgb: np.ndarray, box_xyxy: Sequence[float], sideways: bool, flip: bool) -> np.ndarray:
        return numeral_crop(image_rgb, box_xyxy, sideways, flip, hw=self.hw, margin=self.margin, keep=self.keep)

    def predict(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        if len(crops) == 0:
            return np.zeros((0, len(NUMERAL_CLASSES)), np.float32)
        batch = np.stack([np.asarray(c) for c in crops]).astype(np.float32).transpose(0, 3, 1, 2) / 255.0
        (p,) = self.session.run(None, {self.input_name: np.ascontiguousarray(batch)})[:1]
        return np.asarray(p, np.float32)


class TileClassifier:
    """The ONNX crop classifier on onnxruntime (no torch). Load once, pass the object around."""

    def __init__(self, path: str | Path = DEFAULT_MODEL, threads: int = 2, *,
                 tta_below: float | None | str = "model", tta_shift: float = TTA_SHIFT,
                 numeral: str | Path | None = "model", numeral_below: float | None = None,
                 numeral_alpha: float | None = None, numeral_mode: str | None = None,
                 numeral_shift: float | None = None, half_turn: str | None = "model",
                 half_turn_scope: str = "model", half_turn_below: float | None | str = "model"):
        """`tta_below`: tiles whose top probability is under this are read again from box-shifted
        crops and the reads averaged (`classify_boxes`); "model" takes the value recorded in the
        model (`tsumo_tta_below`, absent = off), None turns it off.
        `numeral`: the man-numeral specialist for a second look at unsure man reads (`classify_boxes`);
        "model" loads the file the model's metadata names (`tsumo_numeral_model`, a file beside the model;
        absent = off), None turns it off, a path loads that file. Its gate and combination come from the
        metadata (`tsumo_numeral_below`, `_alpha`, `_mode`, `_shift`) unless given here.
        `half_turn`: read crops turned 180° too and combine the two reads (`HALF_TURN_MODES`); "model"
        takes the model's `tsumo_half_turn` (absent = off), None turns it off. `half_turn_scope`: which crops
        (`HALF_TURN_SCOPES`; "model": `tsumo_half_turn_scope`, absent = all); `half_turn_below`: only those whose
        plain top-1 probability is under this ("model": `tsumo_half_turn_below`, absent = every one; None: every one)."""
        path = Path(path)
        self.session = cpu_session(path, threads, "tile classifier model")
        meta = self.session.get_modelmeta().custom_metadata_map
        if numeral == "model":
            numeral = path.parent / meta["tsumo_numeral_model"] if meta.get("tsumo_numeral_model") else None
            if numeral is not None and not numeral.is_file():
                numeral = None  # the companion file is optional: without it the model reads alone
        self.numeral: NumeralReader | None = None if numeral is None else NumeralReader(numeral, threads)
        self.numeral_below = float(numeral_below if numeral_below is not None
                                   else meta.get("tsumo_numeral_below", 1.0))
        self.numeral_alpha = float(numeral_alpha if numeral_alpha is not None
                                   else meta.get("tsumo_numeral_alpha", 1.0))
        self.numeral_mode = str(numeral_mode or meta.get("tsumo_numeral_mode", "man"))
        self.numeral_shift = float(numeral_shift if numeral_shift is not None
                                   else meta.get("tsumo_numeral_shift", 0.0))
        if self.numeral_mode not in NUMERAL_MODES:
            raise ValueError(f"numeral mode must be one of {NUMERAL_MODES}, got {self.numeral_mode!r}")
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
        if half_turn == "model":
            half_turn = meta.get("tsumo_half_turn") or None
        if half_turn is not None and half_turn not in HALF_TURN_MODES:
            raise ValueError(f"half-turn mode must be one of {HALF_TURN_MODES}, got {half_turn!r}")
        self.half_turn: str | None = half_turn
        self.half_turn_scope = str((meta.get("tsumo_half_turn_scope") or "all") if half_turn_scope == "model"
                                   else half_turn_scope)
        if self.half_turn_scope not in HALF_TURN_SCOPES:
            raise ValueError(f"half-turn scope must be one of {HALF_TURN_SCOPES}, got {self.half_turn_scope!r}")
        below = (meta.get("tsumo_half_turn_below") or None) if half_turn_below == "model" else half_turn_below
        self.half_turn_below: float | None = None if below is None else float(below)
        self._half_turn_perm = half_turn_permutation(self.names)

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
        turned = None if self.half_turn_scope == "all" else tuple(not bool(s) for s in sideways)
        raw = self.predict_raw([self.crop(im, b, bool(s)) for im, b, s in zip(images, boxes, sideways)], turned=turned)
        if self.tta_below is not None:
            probs, _ = fold_outputs(raw, self.names)
            unsure = np.flatnonzero(probs.max(1) < self.tta_below)
            if len(unsure):
                shifts = tta_boxes(self.tta_shift)
                extra = self.predict_raw([self.crop(images[i], shift_box(boxes[i], o), bool(sideways[i]))
                                          for i in unsure for o in shifts],
                                         turned=None if turned is None else tuple(turned[i] for i in unsure
                                                                                  for _ in shifts))
                extra = extra.reshape(len(unsure), len(shifts), -1)
                raw[unsure] = (raw[unsure] + extra.sum(1)) / (1 + len(shifts))
        probs, flip = fold_outputs(raw, self.names)
        if self.numeral is not None:
            probs = self.second_look(images, boxes, sideways, probs, flip)
        return probs, flip

    def numeral_probs(self, images: Sequence[np.ndarray], boxes: Sequence[Sequence[float]],
                      sideways: Sequence[bool], flip: np.ndarray, idx: Sequence[int]) -> np.ndarray:
        """The specialist's N×10 read of tiles `idx`, each cut upright by the main read's flip; with
        `numeral_shift` > 0 the mean of its reads of the box and the box moved by that share left, right,
        up and down (the first four `tta_boxes`). One ONNX call."""
        assert self.numeral is not None
        offsets = [(0.0, 0.0, 0.0, 0.0)] + (tta_boxes(self.numeral_shift)[:4] if self.numeral_shift > 0 else [])
        q = self.numeral.predict([self.numeral.crop(images[i], shift_box(boxes[i], o), bool(sideways[i]),
                                                    bool(flip[i, 1] > flip[i, 0])) for i in idx for o in offsets])
        return q.reshape(len(idx), len(offsets), -1).mean(1)

    def second_look(self, images: Sequence[np.ndarray], boxes: Sequence[Sequence[float]], sideways: Sequence[bool],
                    probs: np.ndarray, flip: np.ndarray) -> np.ndarray:
        """Man-numeral second look: the gated tiles (`numeral_gate`) read again by the specialist from the
        top of the upright tile and combined with the main read (`combine_numeral`). One ONNX call."""
        idx = numeral_gate(probs, self.numeral_below)
        if len(idx) == 0:
            return probs
        probs = probs.copy()
        q = self.numeral_probs(images, boxes, sideways, flip, idx)
        probs[idx] = combine_numeral(probs[idx], q, alpha=self.numeral_alpha, mode=self.numeral_mode)
        return probs

    def classify_tiles(self, image: np.ndarray, frame, frame_boxes: np.ndarray,
                       sideways: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`vision.recognize`'s hook: each frame box cut out of the photo turned into the row's frame
        (`extract_patch`, once per box), then `classify_boxes`."""
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

    def predict_raw(self, crops: np.ndarray | list[np.ndarray], turned: Sequence[bool] | np.ndarray | None = None
                    ) -> np.ndarray:
        """The model's own probabilities over `self.names` (N×75), one ONNX call. With `half_turn`, the crops
        `turned` marks (default: all) whose top-1 is under `half_turn_below` are read a second time turned 180°
        (a second call on those only), and the two reads combined (`combine_half_turn`)."""
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
        p = np.asarray(p, np.float32)
        if self.half_turn is None:
            return p
        again = np.ones(len(crops), bool) if turned is None else np.asarray(turned, bool).copy()
        if self.half_turn_below is not None:
            again &= fold_outputs(p, self.names)[0].max(1) < self.half_turn_below
        again = np.flatnonzero(again)
        if len(again):
            (q,) = self.session.run(None, {self.input_name: np.ascontiguousarray(batch[again][:, :, ::-1, ::-1])})[:1]
            p[again] = combine_half_turn(p[again], np.asarray(q, np.float32)[:, self._half_turn_perm],
                                         self.half_turn, self._half_turn_perm)
        return p
