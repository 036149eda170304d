"""Stand-in models for reader tests: a classifier that reads each box as a given label."""
from __future__ import annotations

import numpy as np

from vision.classes import CLASS_INDEX, TILE_CLASSES


class LabelledFaces:
    """Reads each box as its label (the label of the given box whose centre lies nearest), sure of
    it. Faces are upright in their crops, or with `up_in_photo` upright in the photo, so a crop of
    the photo turned half round shows them upside down."""

    def __init__(self, boxes, labels, *, up_in_photo: bool = False):
        self.centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes])
        self.labels = labels
        self.up_in_photo = up_in_photo

    def nearest(self, frame, fb) -> int:
        c = frame.to_photo(np.array([[(fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2]]))[0]
        return int(np.argmin(np.hypot(*(self.centres - c).T)))

    def classify_tiles(self, image, frame, frame_boxes, sideways):
        probs = np.full((len(frame_boxes), len(TILE_CLASSES)), 0.01 / (len(TILE_CLASSES) - 1), np.float32)
        flips = np.tile(np.array([[0.95, 0.05]], np.float32), (len(frame_boxes), 1))
        turned = 90 < frame.angle % 360 < 270
        for n, fb in enumerate(frame_boxes):
            probs[n, CLASS_INDEX[self.labels[self.nearest(frame, fb)]]] = 0.99
            if self.up_in_photo and turned:
                flips[n] = (0.05, 0.95)
        return probs, flips
