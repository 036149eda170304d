"""Loaders for the real photos in `../shared/data/real`: ground-truth tile boxes for evaluation.

- The Chinese set (`chinese-mahjong-detection-v4/{valid,test}`): YOLO txt boxes (any class = a
  tile). Its photos were stretched to 640×640 by the exporter; boxes are in those pixels.
- real-dev (`real-dev/`): riichi photos with §3 sequences; tile boxes come from a hand-drawn box
  file (`tests/vision/data/real_dev_boxes.json`, written by the classifier engineer).
  Measure on real-dev only, never train on it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CHINESE = SHARED / "data" / "real" / "chinese-mahjong-detection-v4"
REAL_DEV = SHARED / "data" / "real-dev"
REAL_DEV_BOXES = REPO / "tests" / "vision" / "data" / "real_dev_boxes.json"


@dataclass
class BoxedPhoto:
    """A photo file and its ground-truth tile boxes (x1, y1, x2, y2 in the photo's pixels)."""

    path: Path
    boxes: np.ndarray                        # N×4 float
    labels: list[str] = field(default_factory=list)  # class per box when known
    complete: bool = True                    # every tile in the photo is boxed (precision is meaningful)
    exif: bool = False                       # boxes are in EXIF-oriented pixels: load like the app does

    def load_rgb(self) -> np.ndarray:
        if self.exif:
            from vision.io import load_image

            return load_image(self.path)
        img = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"cannot read {self.path}")
        return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


def yolo_boxes(label_file: Path, width: int, height: int) -> np.ndarray:
    rows = []
    if label_file.exists():
        for line in label_file.read_text().split("\n"):
            parts = line.split()
            if len(parts) != 5:
                continue
            _, cx, cy, w, h = map(float, parts)
            rows.append([(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height])
    return np.array(rows, np.float64).reshape(-1, 4)


def chinese_split(split: str = "test", root: Path = CHINESE) -> list[BoxedPhoto]:
    """The Chinese set's photos of one split with every box as a tile.

    Not every tile of a photo is boxed in this set (loose tiles in the background often are
    not), so `complete` is False: precision there is a lower bound.
    """
    img_dir = root / split / "images"
    if not img_dir.is_dir():
        raise FileNotFoundError(f"no Chinese {split} split at {img_dir}")
    out = []
    for p in sorted(img_dir.iterdir()):
        if p.suffix.lower() not in (".jpg", ".jpeg", ".png"):
            continue
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            continue
        h, w = img.shape[:2]
        out.append(BoxedPhoto(p, yolo_boxes(root / split / "labels" / (p.stem + ".txt"), w, h), complete=False))
    return out


def real_dev(root: Path = REAL_DEV, boxes_file: Path = REAL_DEV_BOXES) -> list[BoxedPhoto]:
    """real-dev photos with the hand-drawn boxes of their labelled tiles (only the hand is boxed).

    Box file: `{"tiles": [{"image": "x.jpg", "box": [x1, y1, x2, y2], "label": "5m", …}, …]}` in
    EXIF-oriented pixels (as `vision.io.load_image` gives them).
    """
    if not boxes_file.exists():
        raise FileNotFoundError(f"no real-dev boxes at {boxes_file}")
    data = json.loads(boxes_file.read_text())
    by_image: dict[str, list[dict]] = {}
    for t in data["tiles"]:
        by_image.setdefault(t["image"], []).append(t)
    out = []
    for image, tiles in sorted(by_image.items()):
        boxes = np.array([t["box"] for t in tiles], np.float64).reshape(-1, 4)
        out.append(BoxedPhoto(root / image, boxes, [t.get("label", "") for t in tiles], complete=False, exif=True))
    return out
