"""`vision.recognize`: the second, closer detection around the hand row.

It runs when the row leans (boxes of a tilted row are loose) or when the row's tiles are small in
the detector's input (a hand far from the camera): the detector then searches only the hand's
neighbourhood, cut from the photo at full resolution.
"""
from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from vision.frame import REGION_SIDE, Frame, turned_view
from vision.recognize import hand_region, _redetect_turned, _small_for


class Seen:
    """A stand-in detector that keeps the image it is given and finds nothing."""

    def __init__(self, imgsz: int | None = 512):
        if imgsz is not None:
            self.imgsz = imgsz
        self.images = []

    def detect(self, image, **kw):  # (an input size of its own: asked imgsz= for a large cut)
        self.images.append(image)
        return []


def _reference_canvas(image, frame, region):
    """The turned canvas as first written: the whole photo resized, then warped (slow on 12 MP)."""
    h, w = image.shape[:2]
    scale = min(1.0, REGION_SIDE / max(region[2] - region[0], region[3] - region[1]))
    small = cv2.resize(image, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else image
    side = int(np.ceil(np.hypot(h * scale, w * scale)))
    rot = frame.matrix
    offset = np.array([side / 2, side / 2]) - scale * (rot @ np.array(frame.centre))
    x0, y0, x1, y1 = (int(round(v * scale + side / 2)) for v in region)
    m = np.hstack([rot, (offset - [x0, y0])[:, None]])
    return cv2.warpAffine(small, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def test_only_the_hand_is_resized_and_the_canvas_is_the_same():
    rng = np.random.default_rng(3)
    image = cv2.GaussianBlur(rng.integers(0, 255, (3024, 4032, 3), dtype=np.uint8), (0, 0), 6)
    for x in range(1200, 2800, 120):  # a row of bright tiles with dark faces
        cv2.rectangle(image, (x, 1400), (x + 100, 1540), (235, 235, 235), -1)
        cv2.circle(image, (x + 50, 1470), 25, (30, 60, 160), -1)
    frame = Frame(-17.0, (2016.0, 1512.0))
    row = frame.boxes_to_frame(np.array([[x, 1400, x + 100, 1540] for x in range(1200, 2800, 120)], float))
    region = hand_region(row)
    det = Seen()
    _redetect_turned(image, det, frame, region=region)
    got, want = det.images[0], _reference_canvas(image, frame, region)
    assert got.shape == want.shape and max(got.shape[:2]) <= REGION_SIDE
    assert np.abs(got.astype(int) - want.astype(int)).mean() < 2.0  # resampled on a grid ½ px apart


def test_the_view_says_where_each_photo_point_went():
    """Training data for the second pass is cut with `turned_view`: its mapping must be exact."""
    image = np.zeros((900, 1600, 3), np.uint8)
    spots = np.array([[500.0, 400.0], [900.0, 520.0], [1210.0, 610.0]])
    for x, y in spots:
        cv2.circle(image, (int(x), int(y)), 14, (255, 255, 255), -1)
    frame = Frame(-23.0, (800.0, 450.0))
    for region in (None, (-500.0, -200.0, 500.0, 200.0), (-900.0, -300.0, 1500.0, 300.0)):
        view = turned_view(image, frame, region=region)
        want = view.photo_to_view(frame, spots)
        n, _, _, centres = cv2.connectedComponentsWithStats((view.image[..., 0] > 128).astype(np.uint8))
        assert n - 1 == len(spots)
        for x, y in want:  # each spot's centre is where the view says (within a pixel)
            assert np.linalg.norm(centres[1:] - [x, y], axis=1).min() < 1.0
        box = np.array([[*want[0] - 5, *want[0] + 5]])
        assert np.allclose(view.to_frame(box).reshape(2, 2).mean(0), frame.to_frame(spots[:1])[0], atol=1e-6)
    assert turned_view(image, frame, region=(5000.0, 5000.0, 5100.0, 5100.0)) is None


def test_a_region_off_the_photo_gives_no_boxes():
    image = np.full((480, 640, 3), 200, np.uint8)
    frame = Frame(0.0, (320.0, 240.0))
    boxes, scores = _redetect_turned(image, Seen(), frame, region=(5000.0, 5000.0, 5100.0, 5100.0))
    assert boxes.shape == (0, 4) and scores.shape == (0,)


def test_small_means_small_in_the_detectors_input():
    row = np.array([[x, 0, x + 75, 100] for x in range(0, 1000, 80)], float)  # long side 100 px
    assert _small_for(Seen(512), row, (3000, 4000, 3))  # 100 px of 4000 → 12.8 px at 512
    assert not _small_for(Seen(512), row, (900, 1200, 3))  # → 42.7 px
    assert not _small_for(Seen(None), row, (3000, 4000, 3))  # no input size (an oracle): never
    assert not _small_for(Seen(512), row[:2], (3000, 4000, 3))  # too few tiles to tell a row


def test_a_level_hand_of_small_tiles_is_looked_at_again_closer():
    from vision.classes import TILE_CLASSES
    from vision.recognize import recognize

    image = np.zeros((1500, 2000, 3), np.uint8)
    boxes = [(x, 700, x + 30, 740) for x in range(600, 1400, 34)]  # 24 tiles, 40 px long: 10 px at 512
    for b in boxes:
        cv2.rectangle(image, b[:2], b[2:], (255, 255, 255), -1)

    class Blobs(Seen):
        def detect(self, img, **kw):
            self.images.append(img)
            grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
            n, _, stats, _ = cv2.connectedComponentsWithStats((grey > 128).astype(np.uint8))
            return [SimpleNamespace(x1=float(x), y1=float(y), x2=float(x + w), y2=float(y + h), score=0.9)
                    for x, y, w, h, _ in stats[1:n]]

    class OneClass:
        def classify(self, crops):
            p = np.zeros((len(crops), len(TILE_CLASSES)), np.float32)
            p[:, TILE_CLASSES.index("5z")] = 1.0
            return p, np.tile(np.array([[0.9, 0.1]], np.float32), (len(crops), 1))

    det = Blobs(512)
    rec = recognize(image, det, OneClass())
    assert len(det.images) == 2 and "redetect_ms" in rec.timings
    assert det.images[1].size < 0.2 * det.images[0].size  # the hand's neighbourhood only
    assert len(rec.tiles) == len(boxes)
    got = sorted(t.box for t in rec.tiles)
    assert np.allclose(got, sorted(boxes), atol=2.5)  # mapped back to the photo's pixels

    # a detector trained for the closer look takes the second pass; the photo's detector only the first
    first, closer = Blobs(512), Blobs(512)
    rec = recognize(image, first, OneClass(), closer=closer)
    assert len(first.images) == 1 and len(closer.images) == 1
    assert closer.images[0].shape == det.images[1].shape  # the same view
    assert np.allclose(sorted(t.box for t in rec.tiles), sorted(boxes), atol=2.5)


def test_the_second_detection_keeps_only_surer_boxes():
    """It asks for boxes down to SECOND_GAP_CONF: `recognize` takes those under SECOND_CONF only to
    fill a gap with a face-down tile (tests/vision/test_gap_boxes.py)."""
    from vision.recognize import SECOND_CONF, SECOND_GAP_CONF

    class Thresholded(Seen):
        def __init__(self, conf):
            super().__init__()
            self.conf, self.asked = conf, []

        def detect(self, image, conf=None):
            self.asked.append(conf)
            return []

    frame = Frame(0.0, (320.0, 240.0))
    image = np.full((480, 640, 3), 200, np.uint8)
    for own in (0.25, 0.6):
        det = Thresholded(own)
        _redetect_turned(image, det, frame, region=(-100.0, -50.0, 100.0, 50.0))
        assert det.asked == [min(SECOND_GAP_CONF, max(own, SECOND_CONF))]
    plain = Seen()  # a detector without a threshold of its own is called as it is
    _redetect_turned(image, plain, frame, region=(-100.0, -50.0, 100.0, 50.0))
    assert len(plain.images) == 1
