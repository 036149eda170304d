"""The audit's detector wrapper: the gate's detection is reused for the same photo, and the
re-detection of a tilted row runs on the turned copy whatever wraps the detector."""
from __future__ import annotations

import numpy as np

from audit.reader import _OnceDetector, hand_faces
from vision.detect import Box
from vision.frame import Frame


class Recording:
    """A detector that finds one box in the middle of whatever image it is given."""

    def __init__(self):
        self.shapes: list[tuple[int, int]] = []

    def detect(self, image):
        h, w = image.shape[:2]
        self.shapes.append((h, w))
        return [Box(w / 2 - 20, h / 2 - 30, w / 2 + 20, h / 2 + 30, 0.9)]


class RemembersFirst:
    """A wrapper like one a reader may put around the detector: it answers `detect` for the first
    image it sees only, and passes other methods through."""

    def __init__(self, detector):
        self.detector, self.boxes = detector, None

    def detect(self, image):
        if self.boxes is None:
            self.boxes = self.detector.detect(image)
        return self.boxes

    def __getattr__(self, name):
        return getattr(self.detector, name)


def test_the_gate_detection_is_reused_for_the_same_photo_only():
    inner = Recording()
    once = _OnceDetector(inner)
    photo = np.zeros((720, 1280, 3), np.uint8)
    once.prime(photo)
    assert once.detect(photo) and len(inner.shapes) == 1
    once.detect(photo.copy())
    assert len(inner.shapes) == 2
    once.release()
    once.detect(photo)
    assert len(inner.shapes) == 3


def test_the_turned_copy_is_detected_afresh_even_behind_a_remembering_wrapper():
    inner = Recording()
    photo = np.zeros((720, 1280, 3), np.uint8)
    wrapped = RemembersFirst(_OnceDetector(inner))
    wrapped.detect(photo)
    frame = Frame(-12.0, (640.0, 360.0))
    boxes, scores = wrapped.detect_turned(photo, frame)
    side = int(np.ceil(np.hypot(720, 1280)))
    assert inner.shapes == [(720, 1280), (side, side)]   # the turned copy, not the photo's boxes again
    # the box found in the middle of the turned copy is the photo's centre, in frame units
    assert np.allclose((boxes[0, :2] + boxes[0, 2:]) / 2, 0.0, atol=1.0) and scores[0] == 0.9


def test_hand_faces_count_at_most_four_of_a_kind():
    assert hand_faces(["1m", "2m", "3m", "0p", "5p", "5p", "5p", "5p", "back", None]) == 7  # 0p is a 5p
    assert hand_faces(["5z"] * 13 + ["2s"]) == 5
    assert hand_faces(["x", "x", "7z", "7z"]) == 2


def test_the_audit_reads_a_frame_once_with_no_second_looks():
    """The fusion of a hand's frames is the audit's second look: its reader neither looks again at an unsure
    frame nor, like the phone's, at a frame read empty (`vision.pipeline.EMPTY_LOOKS`)."""
    from audit.reader import PipelineFrameReader
    from vision.pipeline import PhotoReader

    reader = PipelineFrameReader(threads=1)._reader
    assert isinstance(reader, PhotoReader) and reader.looks == [] and reader.empty_looks == []
    assert PhotoReader(threads=1).empty_looks  # (the product's reader has them)
