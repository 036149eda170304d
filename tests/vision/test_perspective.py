"""`vision.perspective`: a hand row seen along its length, rectified for the closer look.

The photos here are drawn through a known plane-to-photo homography: a row of equal tiles whose
far end is 2.3× smaller than its near end, as a phone on a seat beside the hand sees it.
"""
from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

import vision.recognize as recognize
from vision.boxes import ious
from vision.perspective import Shrink, row_shrink, rectified_view, shrink_ratio
from vision.frame import Frame
from vision.recognize import hand_region

# plane (u along the row, v across it, one tile = 1 × 1.4) → photo: x = (100u + 300)/(1 + 0.1u),
# y = 600 + 100(v − 0.7)/(1 + 0.1u): the row's centre line stays at y = 600 while it recedes
PLANE_TO_PHOTO = np.array([[100.0, 0.0, 300.0], [60.0, 100.0, 600.0 - 70.0], [0.1, 0.0, 1.0]])
TILES = [1.3 * k for k in range(13)]


def _project(uv: np.ndarray) -> np.ndarray:
    q = np.hstack([uv, np.ones((len(uv), 1))]) @ PLANE_TO_PHOTO.T
    return q[:, :2] / q[:, 2:3]


def _photo(tiles=TILES, size=(1200, 2000)) -> tuple[np.ndarray, np.ndarray]:
    """A dark table with the row's white tiles (a dark mark on each) and their photo boxes."""
    image = np.full((*size, 3), 40, np.uint8)
    boxes = []
    for u in tiles:
        quad = _project(np.array([[u, 0], [u + 1, 0], [u + 1, 1.4], [u, 1.4]]))
        cv2.fillConvexPoly(image, np.round(quad).astype(np.int32), (235, 235, 235), lineType=cv2.LINE_AA)
        mark = _project(np.array([[u + 0.3, 0.5], [u + 0.7, 0.5], [u + 0.7, 0.9], [u + 0.3, 0.9]]))
        cv2.fillConvexPoly(image, np.round(mark).astype(np.int32), (30, 60, 160), lineType=cv2.LINE_AA)
        boxes.append([*quad.min(axis=0), *quad.max(axis=0)])
    return image, np.array(boxes)


def _blobs(image: np.ndarray) -> np.ndarray:
    """Boxes of the white tiles in an image (a stand-in detector's eye)."""
    mask = (image.min(axis=2) > 180).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    keep = [s for s in stats[1:] if s[4] > 30]
    return np.array([[x, y, x + w, y + h] for x, y, w, h, _ in keep], float).reshape(-1, 4)


class BlobDetector:
    """Finds the white tiles of whatever view it is shown; keeps the views."""

    imgsz = 640
    conf = 0.25

    def __init__(self):
        self.views = []

    def detect(self, image, **kw):
        self.views.append(image)
        return [SimpleNamespace(x1=b[0], y1=b[1], x2=b[2], y2=b[3], score=0.9) for b in _blobs(image)]


def test_the_row_s_shrink_is_fitted_from_tile_heights_and_one_odd_box_does_not_tilt_it():
    _, boxes = _photo()
    shrink = row_shrink(boxes)
    heights = boxes[:, 3] - boxes[:, 1]
    assert shrink_ratio(shrink, boxes) == pytest.approx(heights.max() / heights.min(), rel=0.08)
    odd = boxes.copy()
    odd[4, 1] -= 120  # a merged box twice as high
    assert row_shrink(odd).b == pytest.approx(shrink.b, rel=0.1)
    assert row_shrink(boxes[:3]) is None  # too few to say


def test_a_line_reaching_zero_inside_the_row_is_no_perspective():
    boxes = np.array([[0, 0, 10, 10], [20, 0, 30, 5], [40, 0, 50, 1], [60, 0, 70, 1]], float)
    assert shrink_ratio(Shrink(10.0, -0.2), boxes) == float("inf")
    assert shrink_ratio(Shrink(10.0, 0.0), boxes) == 1.0


def test_the_rectified_view_shows_every_tile_at_one_size_and_maps_boxes_back_onto_them():
    image, photo_boxes = _photo()
    frame = Frame(0.0, (1000.0, 600.0))
    row = frame.boxes_to_frame(photo_boxes)
    heights = row[:, 3] - row[:, 1]
    assert heights.max() / heights.min() > 2.0  # the photo's far tile is less than half the near one
    view = rectified_view(image, frame.affine, row_shrink(row), row, hand_region, 1024)
    assert view is not None and max(view.image.shape[:2]) <= 1024
    seen = _blobs(view.image)
    assert len(seen) == len(TILES)
    seen_h = seen[:, 3] - seen[:, 1]
    assert seen_h.max() / seen_h.min() < 1.2  # one size in the view
    back = view.to_frame(seen)
    best = ious(back, row).max(axis=1)
    assert best.min() > 0.75, best


def test_a_turned_frame_is_rectified_the_same():
    image, photo_boxes = _photo()
    centre = (1000.0, 600.0)
    rot = cv2.getRotationMatrix2D(centre, 30.0, 1.0)  # the photo turned 30°: the row leans
    turned = cv2.warpAffine(image, rot, (image.shape[1], image.shape[0]), borderValue=(40, 40, 40))
    frame = Frame(30.0, centre)  # (photo → frame turns it back)
    row = Frame(0.0, centre).boxes_to_frame(photo_boxes)
    view = rectified_view(turned, frame.affine, row_shrink(row), row, hand_region, 1024)
    seen = _blobs(view.image)
    assert len(seen) == len(TILES)
    assert ious(view.to_frame(seen), row).max(axis=1).min() > 0.7


def test_no_view_when_the_row_lies_outside_the_photo():
    image, photo_boxes = _photo()
    frame = Frame(0.0, (1000.0, 600.0))
    row = frame.boxes_to_frame(photo_boxes)
    away = row + [0, 5000, 0, 5000]  # (the same shrink: it depends on x alone)
    assert rectified_view(image, frame.affine, row_shrink(row), away, hand_region, 1024) is None


def test_the_closer_look_rectified_finds_every_tile_and_only_a_shrinking_row_is_steep(monkeypatch):
    image, photo_boxes = _photo()
    frame = Frame(0.0, (1000.0, 600.0))
    row = frame.boxes_to_frame(photo_boxes)
    det = BlobDetector()
    boxes, scores = recognize._redetect_rectified(image, det, frame, row)
    assert len(det.views) == 1 and len(boxes) == len(TILES) and (scores == 0.9).all()
    assert ious(boxes, row).max(axis=1).min() > 0.75
    monkeypatch.setattr(recognize, "RECTIFY_ABOVE", 0.0)  # off: no row is steep
    assert not recognize._steep(row)
    monkeypatch.setattr(recognize, "RECTIFY_ABOVE", 1.5)
    assert recognize._steep(row)
    even = np.array([[100 + 90 * k, 500, 180 + 90 * k, 610] for k in range(10)], float)  # seen from in front
    assert not recognize._steep(even)
    # the closer look's row among its boxes: the one holding the row the photo was turned for
    other = row + [0, 400, 0, 400]
    both = np.vstack([other, row])
    got = recognize._row_among(both, np.full(len(both), 0.9), 0.35, (row[:, :2] + row[:, 2:]) / 2)
    assert len(got) >= 8 and ious(got, row).max(axis=1).min() > 0.99  # (its far ten: the near tiles grow too fast to chain)


def test_an_unsure_hand_seen_along_its_row_is_read_again_rectified(shared_dir, monkeypatch):
    """tune9 #21 (a tune render, rendered here from its recipe): the hand's row recedes from the camera
    (its largest face 2.4× its smallest). Read as the closer look sees it turned, the reading is unsure
    and wrong (a 5p too many, one of the three 2s missing); rectified, the hand reads exactly."""
    pytest.importorskip("tsumo_synth.photos")
    from tsumo_synth.photos import face_source, render_one, stored_jpeg
    from tsumo_synth.sets import SETS
    from vision.io import load_image
    from vision.pipeline import PhotoReader

    recipe = SETS["tune9"]
    image, labels = render_one(21, recipe.seed, artist=face_source(shared_dir), preset=recipe.preset, scale=recipe.scale)
    photo = load_image(stored_jpeg(image))
    truth = labels.to_json()["sequence"]
    reader = PhotoReader(threads=1)
    if not recognize.RECTIFY_ABOVE:
        monkeypatch.setattr(recognize, "RECTIFY_ABOVE", 1.5)
    read = reader.read(photo)
    assert read.sequence == truth
    assert any("rectified" in n for n in read.notes)
    monkeypatch.setattr(recognize, "RECTIFY_ABOVE", 0.0)  # never steep: the turned view alone
    plain = reader.read(photo)
    assert plain.sequence != truth and not any("rectified" in n for n in plain.notes)
