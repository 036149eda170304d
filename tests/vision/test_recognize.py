"""`vision.recognize`: the second detection on the turned photo, searched only around the hand."""
from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from vision.frame import Frame
from vision.recognize import hand_region, _redetect_turned


class BrightBlobs:
    """A stand-in detector: one box per bright blob, in the pixels of the image it is given."""

    def __init__(self):
        self.shapes = []

    def detect(self, image):
        self.shapes.append(image.shape[:2])
        grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
        n, _, stats, _ = cv2.connectedComponentsWithStats((grey > 128).astype(np.uint8))
        return [SimpleNamespace(x1=float(x), y1=float(y), x2=float(x + w), y2=float(y + h), score=0.9)
                for x, y, w, h, _ in stats[1:n]]


def test_searching_around_the_hand_gives_the_same_frame_boxes_on_a_smaller_canvas():
    image = np.zeros((900, 1200, 3), np.uint8)
    for x in range(300, 900, 60):  # a row of 10 "tiles", and one far from it
        cv2.rectangle(image, (x, 400), (x + 40, 460), (255, 255, 255), -1)
    cv2.rectangle(image, (100, 800), (140, 860), (255, 255, 255), -1)
    frame = Frame(-20.0, (600.0, 450.0))
    whole_det, part_det = BrightBlobs(), BrightBlobs()
    whole, _ = _redetect_turned(image, whole_det, frame)
    row = frame.boxes_to_frame(np.array([[x, 400, x + 40, 460] for x in range(300, 900, 60)], float))
    region = hand_region(row)
    part, _ = _redetect_turned(image, part_det, frame, region=region)
    assert len(whole) == 11 and len(part) == 10  # the far blob lies outside the hand's region
    near = [b for b in whole if region[0] <= b[0] and b[2] <= region[2] and region[1] <= b[1] and b[3] <= region[3]]
    assert np.allclose(sorted(map(tuple, near)), sorted(map(tuple, part)), atol=1.0)
    (wh, ww), (ph, pw) = whole_det.shapes[0], part_det.shapes[0]
    assert ph * pw < 0.5 * wh * ww  # the detector sees the hand larger on its input


def test_no_region_for_too_few_tiles():
    assert hand_region(np.array([[0, 0, 10, 14], [12, 0, 22, 14]], float)) is None


SYMMETRY_ROW = ["3z", "1p", "6z", "8p", "7s", "0p", "9p", "0s"]  # 3z, 6z, 7s show an up; the rest don't


def _row_photo(labels):
    """Tiles as bright rectangles, one grey level per label, each with a darker band at its top."""
    image = np.zeros((600, 900, 3), np.uint8)
    for i, _ in enumerate(labels):
        x, g = 200 + 52 * i, 200 + 6 * i
        cv2.rectangle(image, (x, 250), (x + 48, 320), (g, g, g), -1)
        cv2.rectangle(image, (x, 250), (x + 48, 262), (g - 60,) * 3, -1)
    return image


class BodyFooledClassifier:
    """Reads the label from the grey level and which way up from the band, but for faces that look
    the same turned half a turn it claims, surely, the other way (as the real flip head may, from
    the tile's body)."""

    def __init__(self, labels, sure: float = 2.0):
        self.labels, self.sure = labels, sure

    def classify(self, crops):
        from vision.classes import TILE_CLASSES

        probs = np.full((len(crops), len(TILE_CLASSES)), 0.03 / (len(TILE_CLASSES) - 1), np.float32)
        flips = np.zeros((len(crops), 2), np.float32)
        for n, crop in enumerate(crops):
            grey = crop.astype(float).mean(axis=2)
            i = int(np.clip(round((np.median(grey[24:40, 20:44]) - 200) / 6), 0, len(self.labels) - 1))
            label = self.labels[i]
            probs[n, TILE_CLASSES.index(label)] = 0.97
            mid = grey[:, 24:40]
            upright = mid[8:20].mean() < mid[44:56].mean()
            odds = self.sure if upright else -self.sure
            if label in ("1p", "8p", "0p", "9p", "0s"):
                odds = -1.5 * odds
            p_up = 1 / (1 + np.exp(-odds))
            flips[n] = (p_up, 1 - p_up)
        return probs, flips


def test_faces_without_an_up_do_not_turn_the_row():
    from vision.pipeline import PhotoReader

    reader = PhotoReader(detector=BrightBlobs(), classifier=BodyFooledClassifier(SYMMETRY_ROW))
    reading = reader.read(_row_photo(SYMMETRY_ROW))
    assert reading.sequence == " ".join(SYMMETRY_ROW)  # not read back to front from across the table
    assert {t.rotation for t in reading.tiles if t.label in ('3z', '6z', '7s')} == {0}


def test_unsure_faces_leave_the_owner_at_the_photos_bottom_and_sure_ones_turn_the_row():
    from vision.pipeline import PhotoReader

    labels = ["3z", "6z", "7s", "1m", "2m"]
    photo = _row_photo(labels)
    upside_down = np.ascontiguousarray(photo[::-1, ::-1])  # the same row seen from across the table
    for sure, image, want in ((0.3, upside_down, labels[::-1]), (3.0, upside_down, labels), (0.3, photo, labels)):
        reading = PhotoReader(detector=BrightBlobs(), classifier=BodyFooledClassifier(labels, sure)).read(image)
        assert reading.sequence == " ".join(want), (sure, reading.sequence)


class Sized(BrightBlobs):
    """BrightBlobs with an input size of its own (as `TileDetector`), recording the size it is asked for."""

    imgsz = 512

    def __init__(self):
        super().__init__()
        self.asked = []

    def detect(self, image, *, imgsz=None):
        self.asked.append(imgsz)
        return super().detect(image)


def _scaled_row(scale: float) -> tuple[np.ndarray, Frame, tuple]:
    """A level row of 10 bright "tiles" drawn `scale` times as large (a phone photo: 3)."""
    s = scale
    image = np.zeros((int(480 * s), int(640 * s), 3), np.uint8)
    xs = [int(150 * s + k * 34 * s) for k in range(10)]
    for x in xs:
        cv2.rectangle(image, (x, int(250 * s)), (x + int(30 * s), int(290 * s)), (255, 255, 255), -1)
    frame = Frame(0.0, (image.shape[1] / 2, image.shape[0] / 2))
    row = frame.boxes_to_frame(np.array([[x, 250 * s, x + 30 * s, 290 * s] for x in xs], float))
    return image, frame, hand_region(row)


def test_the_second_look_grows_its_input_with_the_pixels_of_the_cut(monkeypatch):
    """At phone pixel density the hand's cut is larger than the detector's 512 input: it is detected at
    up to SECOND_MAX_IMGSZ (rounded up to 32) instead of shrunk; a cut under 512 px is detected as before."""
    import vision.recognize as recognize

    det = Sized()
    image, frame, region = _scaled_row(3.0)
    boxes, _ = _redetect_turned(image, det, frame, region=region)
    assert len(boxes) == 10 and det.asked[-1] == recognize.SECOND_MAX_IMGSZ == 640
    image, frame, region = _scaled_row(0.5)  # a cut of ~300 px: seen at the detector's own size
    boxes, _ = _redetect_turned(image, det, frame, region=region)
    assert len(boxes) == 10 and max(det.shapes[-1]) <= 512 and det.asked[-1] is None
    monkeypatch.setattr(recognize, "SECOND_MAX_IMGSZ", 0)  # off: never asked for another size
    image, frame, region = _scaled_row(3.0)
    _redetect_turned(image, det, frame, region=region)
    assert det.asked[-1] is None
