"""A hand row seen along its length: its far tiles shrink.

A player beside the owner, photographing the winning hand from their seat, sees its row run away
from the camera: the far tiles are half the size of the near ones, or less, and the closer look
(`vision.frame.turned_view`, a rotation and a scale) shows them too small for the detector.
The row's own boxes say how fast the tiles shrink along it; a homography that undoes that shrink
(`rectified_view`) shows the detector every tile of the row at one size, and maps its boxes back.

Frame units throughout (`vision.frame.Frame`: the photo turned so the row is level). On a
plane seen in perspective, a tile's image height is inversely proportional to its depth, which
is linear along the row: so the height is linear in the frame's x, size(x) = a + b·x, and the map
X = (x − x_ref)·h_ref / size(x), Y = y0 + (y − y0)·h_ref / size(x) is a homography that gives
every tile the height h_ref (and, widths shrinking as size², one width too).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import cv2
import numpy as np


@dataclass(frozen=True)
class Shrink:
    """How a level row's tiles shrink along it: size(x) = a + b·x (frame units), fitted to its boxes."""

    a: float
    b: float

    def size(self, x: float | np.ndarray) -> float | np.ndarray:
        return self.a + self.b * np.asarray(x, float)


def row_shrink(row_boxes: np.ndarray) -> Shrink | None:
    """The line through the row's tile heights (across the row: ∝ 1/depth, where widths along it
    shrink as its square) against their centres' x, by Theil–Sen (the median of pairwise slopes):
    one sideways or merged box does not tilt it. Tight boxes only (a closer look's: the first
    pass's, solved out of a tilted photo's axis-aligned boxes, are far too loose for this).
    None for fewer than four boxes."""
    boxes = np.asarray(row_boxes, float).reshape(-1, 4)
    if len(boxes) < 4:
        return None
    x = (boxes[:, 0] + boxes[:, 2]) / 2
    s = boxes[:, 3] - boxes[:, 1]
    i, j = np.triu_indices(len(x), 1)
    dx = x[j] - x[i]
    keep = np.abs(dx) > 1e-6
    if not keep.any():
        return None
    b = float(np.median((s[j] - s[i])[keep] / dx[keep]))
    a = float(np.median(s - b * x))
    return Shrink(a, b)


def shrink_ratio(shrink: Shrink, row_boxes: np.ndarray) -> float:
    """Near tile height over far tile height at the row's two ends (inf when the fitted line reaches
    zero within the row: no perspective does that)."""
    boxes = np.asarray(row_boxes, float).reshape(-1, 4)
    ends = shrink.size(np.array([boxes[:, 0].min(), boxes[:, 2].max()]))
    if ends.min() <= 0:
        return math.inf
    return float(ends.max() / ends.min())


def photo_under(image: np.ndarray, corners: np.ndarray, scale: float
                ) -> tuple[np.ndarray, tuple[int, int, int, int]] | None:
    """The photo's pixels under a view whose corners lie at `corners` (photo pixels, N×2), 2 px to
    spare, resized by `scale` when under 1 (INTER_AREA: a 12-MP photo costs what the part does, and
    is not aliased), with the part's (x0, y0, x1, y1) in the photo. None: nothing of it in the photo."""
    h, w = image.shape[:2]
    px0, py0 = (max(0, int(math.floor(v)) - 2) for v in corners.min(axis=0))
    px1, py1 = min(w, int(math.ceil(corners[:, 0].max())) + 2), min(h, int(math.ceil(corners[:, 1].max())) + 2)
    if px1 <= px0 or py1 <= py0:
        return None
    part = image[py0:py1, px0:px1]
    if scale < 1:
        part = cv2.resize(part, (max(1, round((px1 - px0) * scale)), max(1, round((py1 - py0) * scale))),
                          interpolation=cv2.INTER_AREA)
    return part, (px0, py0, px1, py1)


def _homography(shrink: Shrink, x_ref: float, y0: float) -> np.ndarray:
    """3×3: frame point → rectified point (see the module's docstring), the identity at x_ref."""
    h_ref = float(shrink.size(x_ref))
    a, b = shrink.a / h_ref, shrink.b / h_ref
    return np.array([[1.0, 0.0, -x_ref],
                     [y0 * b, 1.0, y0 * (a - 1.0)],
                     [b, 0.0, a]])


def _corners(boxes: np.ndarray) -> np.ndarray:
    """The four corners of each xyxy box, (4N)×2."""
    return boxes[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 2)


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, float).reshape(-1, 2)
    q = np.hstack([pts, np.ones((len(pts), 1))]) @ m.T
    return q[:, :2] / q[:, 2:3]


@dataclass(frozen=True)
class RectifiedView:
    """What the closer look sees of a row seen along its length: `image`, with `to_view` (3×3) taking
    frame points to its pixels."""

    image: np.ndarray
    to_view: np.ndarray

    def to_frame(self, boxes: np.ndarray) -> np.ndarray:
        """Boxes in this view's pixels → frame boxes around them (their corners mapped back)."""
        boxes = np.asarray(boxes, float).reshape(-1, 4)
        if not len(boxes):
            return np.zeros((0, 4))
        back = _apply(np.linalg.inv(self.to_view), _corners(boxes)).reshape(-1, 4, 2)
        return np.hstack([back.min(axis=1), back.max(axis=1)])


def rectified_view(image: np.ndarray, photo_to_frame: np.ndarray, shrink: Shrink, row_boxes: np.ndarray,
                   region_of: Callable[[np.ndarray], Sequence[float] | None], side: int,
                   floor: float = 0.3, ceiling: float = 3.0) -> RectifiedView | None:
    """The row's neighbourhood rectified so its tiles are one size, at most `side` px across.
    `photo_to_frame`: the 3×3 of the frame's rotation (`Frame.affine`); `region_of`: the neighbourhood (a box) of
    row boxes, applied to the row's rectified boxes (`vision.recognize.hand_region`). The view
    stops where tiles would be under `floor` × the row's middle height in the photo (towards the
    vanishing line the map blows up) or over `ceiling` × (the near half-plane maps into a finite
    strip: its edge is the far side's vanishing line). None when nothing of it lies in the photo."""
    boxes = np.asarray(row_boxes, float).reshape(-1, 4)
    x_ref = float(np.median((boxes[:, 0] + boxes[:, 2]) / 2))
    y0 = float(np.median((boxes[:, 1] + boxes[:, 3]) / 2))
    h_ref = float(shrink.size(x_ref))
    if h_ref <= 0:
        return None
    m = _homography(shrink, x_ref, y0)
    rect = _apply(m, _corners(boxes)).reshape(-1, 4, 2)
    region = region_of(np.hstack([rect.min(axis=1), rect.max(axis=1)]))
    if region is None:
        return None
    rx1, ry1, rx2, ry2 = (float(v) for v in region)
    if abs(shrink.b) > 1e-9:  # between the X where the photo's tiles are floor and ceiling × h_ref high
        far, near = (((f * h_ref - shrink.a) / shrink.b - x_ref) / f for f in (floor, ceiling))
        rx1, rx2 = max(rx1, min(far, near)), min(rx2, max(far, near))
    if rx2 <= rx1 or ry2 <= ry1:
        return None
    scale = min(1.0, side / max(rx2 - rx1, ry2 - ry1))
    w, h = max(1, int(math.ceil((rx2 - rx1) * scale))), max(1, int(math.ceil((ry2 - ry1) * scale)))
    to_view = np.array([[scale, 0, -rx1 * scale], [0, scale, -ry1 * scale], [0, 0, 1.0]]) @ m
    photo_to_view = to_view @ photo_to_frame
    # only the photo's pixels under the view are taken, shrunk first by the view's nominal scale
    view_corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    src = _apply(np.linalg.inv(photo_to_view), view_corners)  # (convex: the view is clear of the vanishing line)
    cut = photo_under(image, src, scale)
    if cut is None:
        return None
    part, (px0, py0, px1, py1) = cut
    part_to_photo = np.array([[(px1 - px0) / part.shape[1], 0, px0], [0, (py1 - py0) / part.shape[0], py0], [0, 0, 1.0]])
    warped = cv2.warpPerspective(part, photo_to_view @ part_to_photo, (w, h), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT)
    return RectifiedView(warped, to_view)
