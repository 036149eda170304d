"""The hand frame: the photo turned so the hand row runs left to right, and moving between the two.

`Frame` maps photo points and boxes into the frame (row along +x, owner towards +y, photo pixel
units) and back; `extract_patch` cuts a tile's pixels out turned into it (the classifier's crops);
`turned_view` cuts the hand's neighbourhood turned into it (the closer detection's input). Pure
geometry and pixel warps, no models: the reader, the classifier's hook and the training-data
cutters (`tsumo_synth`) all go through this one definition, so what a model is trained on is cut
exactly as the reader cuts it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from vision.perspective import photo_under

BoxT = tuple[float, float, float, float]


@dataclass(frozen=True)
class Frame:
    """Photo → hand frame: rotate by `angle` degrees about `centre` (frame = R·(p − centre))."""

    angle: float
    centre: tuple[float, float]

    @property
    def matrix(self) -> np.ndarray:
        a = math.radians(self.angle)
        return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])

    @property
    def affine(self) -> np.ndarray:
        """3×3 (homogeneous): photo point → frame point, for composing with a homography."""
        rot = self.matrix
        return np.vstack([np.hstack([rot, -(rot @ np.array(self.centre))[:, None]]), [0.0, 0.0, 1.0]])

    def to_frame(self, pts: np.ndarray) -> np.ndarray:
        return (np.asarray(pts, float) - self.centre) @ self.matrix.T

    def to_photo(self, pts: np.ndarray) -> np.ndarray:
        return np.asarray(pts, float) @ self.matrix + self.centre

    def boxes_to_frame(self, boxes: np.ndarray) -> np.ndarray:
        """Axis-aligned photo boxes → frame boxes of the tiles inside them.

        A tile w×h turned by angle a fills a photo box W = w|cos a| + h|sin a|,
        H = w|sin a| + h|cos a|; we solve for (w, h). Only well-posed away from 45°, so callers
        re-detect on a turned image when the residual angle is large (see `recognize`).
        """
        boxes = np.asarray(boxes, float).reshape(-1, 4)
        c = self.to_frame(np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], 1))
        W, H = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        a = math.radians(self.angle)
        ca, sa = abs(math.cos(a)), abs(math.sin(a))
        det = ca * ca - sa * sa
        if abs(det) < 0.35:
            w, h = W, H  # hopeless; callers avoid this case
        else:
            w = (W * ca - H * sa) / det
            h = (H * ca - W * sa) / det
            floor = 0.25 * np.minimum(W, H)
            w, h = np.maximum(w, floor), np.maximum(h, floor)
        return np.stack([c[:, 0] - w / 2, c[:, 1] - h / 2, c[:, 0] + w / 2, c[:, 1] + h / 2], 1)

    def boxes_to_photo(self, boxes: np.ndarray) -> np.ndarray:
        """Frame boxes → the axis-aligned photo boxes around them (N×4; see `frame_box_to_photo_box`)."""
        return np.array([frame_box_to_photo_box(self, b) for b in np.asarray(boxes, float).reshape(-1, 4)],
                        float).reshape(-1, 4)

    def turned(self, degrees: float) -> "Frame":
        return Frame((self.angle + degrees) % 360.0, self.centre)


def frame_box_to_photo_box(frame: Frame, fb: Sequence[float]) -> BoxT:
    """Axis-aligned photo box around a frame box (for drawing and for the JSON)."""
    x1, y1, x2, y2 = fb
    corners = frame.to_photo(np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]))
    return (float(corners[:, 0].min()), float(corners[:, 1].min()),
            float(corners[:, 0].max()), float(corners[:, 1].max()))


def extract_patch(image: np.ndarray, frame: Frame, fb: Sequence[float], *, margin: float = 0.3,
                  max_side: int = 320) -> tuple[np.ndarray, BoxT]:
    """The photo's pixels around a frame box, turned so the row is horizontal, and the tile's
    box inside that patch (for `crop_tile`, which adds its own margin, as in training).

    `warpAffine` computes only the destination patch, so cutting a tile out of a 12-MP photo
    costs about as much as the patch itself.
    """
    x1, y1, x2, y2 = fb
    bw, bh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    w, h = bw * (1 + 2 * margin), bh * (1 + 2 * margin)
    scale = min(1.0, max_side / max(w, h))
    pw, ph = max(int(round(w * scale)), 2), max(int(round(h * scale)), 2)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    r_inv = frame.matrix.T  # frame → photo rotation
    # destination (u, v) → frame (cx + (u - pw/2)/scale, cy + (v - ph/2)/scale) → photo
    lin = r_inv / scale
    off = r_inv @ np.array([cx - pw / 2 / scale, cy - ph / 2 / scale]) + np.array(frame.centre)
    m = np.hstack([lin, off[:, None]]).astype(np.float64)
    patch = cv2.warpAffine(image, m, (pw, ph), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REPLICATE)
    inner = (pw / 2 - bw * scale / 2, ph / 2 - bh * scale / 2, pw / 2 + bw * scale / 2, ph / 2 + bh * scale / 2)
    return patch, inner


def turn_frame(frame: Frame, frame_boxes: np.ndarray, degrees: float) -> tuple[Frame, np.ndarray]:
    """The frame turned by a few degrees more, and the boxes turned with it (`turned_boxes`)."""
    return Frame(frame.angle + degrees, frame.centre), turned_boxes(frame_boxes, degrees)


def turned_boxes(frame_boxes: np.ndarray, degrees: float) -> np.ndarray:
    """Frame boxes (N×4) as seen from the frame turned by a few degrees more about the same centre: their
    centres turned, their sizes kept (they barely change for so small a turn)."""
    a = math.radians(degrees)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    c = ((frame_boxes[:, :2] + frame_boxes[:, 2:]) / 2) @ rot.T
    half = (frame_boxes[:, 2:] - frame_boxes[:, :2]) / 2
    return np.hstack([c - half, c + half])


REGION_SIDE = 1024  # px: the hand's neighbourhood is cut from the photo at most this large


@dataclass(frozen=True)
class TurnedView:
    """What the second detection looks at: the photo turned into the hand frame (and cut to the hand's
    neighbourhood), with `pixel = scale · frame point + origin`. Training data for that pass is cut
    through the same function, so the detector learns exactly the view it is given."""

    image: np.ndarray
    scale: float
    origin: tuple[float, float]

    def to_frame(self, boxes: np.ndarray) -> np.ndarray:
        """Boxes in this view's pixels → frame units."""
        ox, oy = self.origin
        return (np.asarray(boxes, float).reshape(-1, 4) - [ox, oy, ox, oy]) / self.scale

    def photo_to_view(self, frame: Frame, pts: np.ndarray) -> np.ndarray:
        """Photo points (N×2) → this view's pixels."""
        return frame.to_frame(pts) * self.scale + self.origin


def turned_view(image: np.ndarray, frame: Frame, max_side: int = 1600,
                region: Sequence[float] | None = None) -> TurnedView | None:
    """The photo turned into `frame` on a square canvas of its diagonal (shrunk to `max_side`), or
    with `region` (a frame box) only that part of it, cut from the photo at up to REGION_SIDE px:
    the detector then sees the hand's tiles larger than on the whole canvas (the diagonal square)
    or, for a far hand, than on the whole photo. None when the region lies outside the photo."""
    h, w = image.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    if region is not None:  # the hand cut at up to REGION_SIDE px across (the detector's input is smaller)
        scale = min(1.0, REGION_SIDE / max(region[2] - region[0], region[3] - region[1], 1.0))
    side = int(math.ceil(math.hypot(h * scale, w * scale)))
    rot = frame.matrix  # turned = R·(scale·p) + side/2 − scale·R·centre, with p the photo's pixels
    offset = np.array([side / 2, side / 2]) - scale * (rot @ np.array(frame.centre))
    x0, y0, x1, y1 = 0, 0, side, side
    if region is not None:  # the part of the canvas kept, clipped to it
        rx1, ry1, rx2, ry2 = (int(round(v * scale + side / 2)) for v in region)
        x0, y0 = max(0, rx1), max(0, ry1)
        x1, y1 = max(x0 + 1, min(side, rx2)), max(y0 + 1, min(side, ry2))
    # only the photo's pixels under that part are resized (a 12-MP photo costs what the hand does)
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
    src = (corners - offset) @ rot / scale  # canvas → photo (R is a rotation: R⁻¹ = Rᵀ)
    cut = photo_under(image, src, scale)
    if cut is None:
        return None
    part, (px0, py0, _, _) = cut
    shift = offset + scale * (rot @ np.array([px0, py0], float))
    m = np.hstack([rot, (shift - [x0, y0])[:, None]])  # warp only that part: nothing is cut away after
    turned = cv2.warpAffine(part, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return TurnedView(turned, scale, (side / 2 - x0, side / 2 - y0))
