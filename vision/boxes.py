"""Box arithmetic shared by the detector's post-processing and the reading step (xyxy boxes,
numpy arrays, any units), so there is one definition of what "overlap" means."""
from __future__ import annotations

import numpy as np


def box_areas(boxes: np.ndarray) -> np.ndarray:
    """Areas of xyxy boxes (…×4), 0 for an inverted box."""
    boxes = np.asarray(boxes, float)
    return np.maximum(boxes[..., 2] - boxes[..., 0], 0) * np.maximum(boxes[..., 3] - boxes[..., 1], 0)


def long_sides(boxes: np.ndarray) -> np.ndarray:
    """The longer side of each xyxy box (N×4, in its own dtype): a tile's size whichever way it lies."""
    boxes = np.asarray(boxes).reshape(-1, 4)
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])


def intersections(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise intersection areas of xyxy boxes a (N×4) and b (M×4): N×M."""
    a, b = np.asarray(a, float).reshape(-1, 4), np.asarray(b, float).reshape(-1, 4)
    iw = np.maximum(np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0]), 0)
    ih = np.maximum(np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]), 0)
    return iw * ih


def ious(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise intersection-over-union of xyxy boxes a (N×4) and b (M×4): N×M (0 where both are empty)."""
    a, b = np.asarray(a, float).reshape(-1, 4), np.asarray(b, float).reshape(-1, 4)
    inter = intersections(a, b)
    return inter / np.maximum(box_areas(a)[:, None] + box_areas(b)[None] - inter, 1e-9)
