"""The real-dev photos, read with models and with hand-drawn boxes.

- With the shipped models (when present): `tsumo eval-photos ../shared/data/real-dev` must read
  every photo exactly (the issue's acceptance check).
- With an oracle that returns the hand-drawn boxes and classes of `data/real_dev_boxes.json`:
  the real geometry (a kan touching the closed tiles, a drawn tile lying askew off the row, a
  sideways winning tile touching the row, an upside-down tile) must give the labelled sequence.
  This isolates our layout and reading from the models' accuracy.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from vision.classes import CLASS_INDEX, TILE_CLASSES
from vision.io import load_image
from vision.pipeline import MODELS_DIR, PhotoReader
from vision.sequence import compare

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "datasets"))
from eval_detector import resized_to_width  # noqa: E402  (a photo as a phone may send it)

BOXES = Path(__file__).parent / "data" / "real_dev_boxes.json"


def _labels(shared_dir):
    folder = shared_dir / "data" / "real-dev"
    return folder, [json.loads(x) for x in (folder / "labels.jsonl").read_text().splitlines() if x.strip()]


class BoxOracle:
    """Detector + classifier from hand-drawn boxes (photo frame, upright photos only)."""

    def __init__(self, tiles):
        self.tiles = tiles

    def detect(self, image):
        return [SimpleNamespace(x1=t["box"][0], y1=t["box"][1], x2=t["box"][2], y2=t["box"][3], score=0.9)
                for t in self.tiles]

    def classify_tiles(self, image, frame, frame_boxes, sideways):
        centres = np.array([((t["box"][0] + t["box"][2]) / 2, (t["box"][1] + t["box"][3]) / 2) for t in self.tiles])
        probs = np.full((len(frame_boxes), len(TILE_CLASSES)), 0.03 / (len(TILE_CLASSES) - 1), np.float32)
        flips = np.zeros((len(frame_boxes), 2), np.float32)
        for n, fb in enumerate(frame_boxes):
            c = frame.to_photo(np.array([[(fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2]]))[0]
            t = self.tiles[int(np.argmin(np.hypot(*(centres - c).T)))]
            right_way = bool(sideways[n]) == t["sideways"]
            probs[n, CLASS_INDEX[t["label"]]] = 0.97 if right_way else 0.3
            flipped = bool(t.get("flipped"))
            if abs(((frame.angle + 90) % 360) - 90) > 90:  # the frame is the photo turned round
                flipped = not flipped
            flips[n] = (0.05, 0.95) if flipped else (0.95, 0.05)
        return probs, flips


def test_real_dev_geometry_with_hand_drawn_boxes(shared_dir):
    folder, labels = _labels(shared_dir)
    boxes = json.loads(BOXES.read_text())["tiles"]
    for obj in labels:
        tiles = [t for t in boxes if t["image"] == obj["image"]]
        oracle = BoxOracle(tiles)
        reading = PhotoReader(detector=oracle, classifier=oracle).read(load_image(folder / obj["image"]))
        assert reading.sequence == obj["sequence"], obj["image"]
        if obj["hand_visible"] and len(tiles) >= 13:
            assert reading.hand is not None or reading.error_code == "no_winning_tile", reading.error
        else:
            assert reading.hand is None and reading.error_code == "partial"


def test_real_dev_hands(shared_dir):
    folder, labels = _labels(shared_dir)
    boxes = json.loads(BOXES.read_text())["tiles"]
    got = {}
    for obj in labels:
        oracle = BoxOracle([t for t in boxes if t["image"] == obj["image"]])
        got[obj["image"]] = PhotoReader(detector=oracle, classifier=oracle).read(load_image(folder / obj["image"]))
    kan = got["lietxia_70008812.jpg"]
    assert kan.hand == {"concealed": "055p456s44555z", "win_tile": "0p",
                        "melds": [{"kind": "kakan", "tiles": "9999m", "called": "9m", "from": "left"}]}
    # the 0p lies askew in front of the row: taken because it completes the hand, and said so
    assert "winning tile taken from a loose tile beside the hand; could be a discard" in kan.notes
    pairs = got["lietxia_92345FF1.jpg"]
    assert pairs.hand == {"concealed": "446688s22336677z", "win_tile": "4s", "melds": []}
    assert pairs.win_tile_source == "sideways"
    tenpai = got["lietxia_test.jpg"]
    assert tenpai.hand is None and tenpai.win_tile_candidates == ["1s", "4s", "7s"]


@pytest.mark.skipif(not (MODELS_DIR / "tile_detector.onnx").is_file() or not (MODELS_DIR / "tile_classifier.onnx").is_file(),
                    reason="models not trained in this checkout")
def test_real_dev_with_models(shared_dir):
    """Issue 4's acceptance check: the shipped models read every real-dev photo exactly (the
    seven pairs with the winning tile sideways, the 13-tile hand, the three touching whites with
    the added kan and the loose 0p, the 8-tile row with red fives and an upside-down tile)."""
    assert not _real_dev_misses(shared_dir)


def _real_dev_misses(shared_dir) -> list[tuple[str, str, str]]:
    folder, labels = _labels(shared_dir)
    reader = PhotoReader()
    misses = []
    for obj in labels:
        reading = reader.read(load_image(folder / obj["image"]))
        _, exact = compare(reading.sequence, obj["sequence"])
        if not exact:
            misses.append((obj["image"], reading.sequence, obj["sequence"]))
    return misses


@pytest.mark.skipif(not (MODELS_DIR / "tile_detector.onnx").is_file() or not (MODELS_DIR / "tile_classifier.onnx").is_file(),
                    reason="models not trained in this checkout")
def test_real_dev_at_other_photo_sizes(shared_dir):
    """A phone may send a smaller photo, or a 12-MP one: every real-dev photo reads exactly sent
    1 024 px wide and at 4 000 px (12 MP). `lietxia_70008812.jpg` (1 280 px) upscaled 3× is the
    hard one: its middle touching white scores under the detector's floor there (0.245, read by
    the gap rule); its sideways called 9m, blurred, looks upright (read by its sideways crop,
    9m, as the base of the added kan); the 9m lying on it is boxed twice (no neighbour of its own)."""
    folder, labels = _labels(shared_dir)
    reader = PhotoReader()
    for obj in labels:
        image = load_image(folder / obj["image"])
        assert reader.read(resized_to_width(image, 1024)).sequence == obj["sequence"], (obj["image"], 1024)
        assert reader.read(resized_to_width(image, 4000)).sequence == obj["sequence"], (obj["image"], 4000)


def _as_sent(image: np.ndarray, width: int, quality: int = 80) -> np.ndarray:
    """The photo as a messaging app sends it: scaled to `width` and saved again as JPEG `quality`."""
    import cv2

    small = resized_to_width(image, width)
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(small, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return load_image(data.tobytes())


@pytest.mark.skipif(not (MODELS_DIR / "tile_detector.onnx").is_file() or not (MODELS_DIR / "tile_classifier.onnx").is_file(),
                    reason="models not trained in this checkout")
def test_real_dev_sent_small_and_recompressed(shared_dir):
    """Session 55: photos passed through a messaging app come back smaller and JPEG'd again. Every real-dev
    photo reads exactly at 800 px wide, JPEG 80; the three without an added kan down to 512 px. (The added-kan
    photo, 1 280 px as shipped, reads its kan as a pon from 640 px down: the stacked 9m is then not boxed.)"""
    folder, labels = _labels(shared_dir)
    reader = PhotoReader()
    for obj in labels:
        image = load_image(folder / obj["image"])
        widths = (800,) if "=" in obj["sequence"] else (800, 512)
        for width in widths:
            assert reader.read(_as_sent(image, width)).sequence == obj["sequence"], (obj["image"], width)


@pytest.mark.skipif(not (MODELS_DIR / "tile_detector.onnx").is_file() or not (MODELS_DIR / "tile_classifier.onnx").is_file(),
                    reason="models not trained in this checkout")
@pytest.mark.parametrize("turn", [90, 180, 270])
@pytest.mark.parametrize("name", ["lietxia_test.jpg", "lietxia_92345FF1.jpg", "lietxia_70008812.jpg", "toby_test.jpeg"])
def test_real_dev_turned(shared_dir, turned_reader, name, turn):
    """A photo taken in portrait with its EXIF tag lost, or from across the table, reaches the
    reader turned: the hand must read the same (the reader finds the row's direction itself). Session 53
    measured 10 of 12: the added-kan photo at 180° lost its loose drawn 0p, at 270° its sou run was boxed
    twice; both read unsurely, so the upright look (`vision.pipeline.UPRIGHT_LOOK`) reads them turned upright."""
    folder, labels = _labels(shared_dir)
    (obj,) = [o for o in labels if o["image"] == name]
    image = np.ascontiguousarray(np.rot90(load_image(folder / name), k=-turn // 90))  # clockwise by `turn`
    assert turned_reader.read(image).sequence == obj["sequence"]


@pytest.fixture(scope="module")
def turned_reader() -> PhotoReader:
    """One reader for the twelve turned photos (loading the models each time would dominate)."""
    return PhotoReader()


@pytest.mark.skipif(not (MODELS_DIR / "tile_detector.onnx").is_file() or not (MODELS_DIR / "tile_classifier.onnx").is_file(),
                    reason="models not trained in this checkout")
@pytest.mark.parametrize("name", ["lietxia_test.jpg", "lietxia_92345FF1.jpg", "lietxia_70008812.jpg", "toby_test.jpeg"])
def test_real_dev_under_a_warm_lamp(shared_dir, turned_reader, name):
    """Session 56: a photo taken under a warm lamp (red ×1.11, green ×0.93, blue ×0.7, as left after a phone's white
    balance, saved as JPEG 95: `datasets/measure_casts.py`'s warm cast at 0.75) reads as the photo does: the light's colour is measured on the tiles and balanced
    away (`vision.colour`). Without it none of the four read exactly (`PhotoReader(balance=False)`)."""
    from measure_casts import tinted, unbalanced

    folder, labels = _labels(shared_dir)
    (obj,) = [o for o in labels if o["image"] == name]
    photo = tinted(load_image(folder / name), "warm", 0.75)
    reading = turned_reader.read(photo)
    assert reading.sequence == obj["sequence"]
    assert any("warm" in note and "balanced" in note for note in reading.notes), reading.notes
    assert unbalanced(turned_reader).read(photo).sequence != obj["sequence"]


@pytest.mark.skipif(not (MODELS_DIR / "tile_detector.onnx").is_file() or not (MODELS_DIR / "tile_classifier.onnx").is_file(),
                    reason="models not trained in this checkout")
@pytest.mark.parametrize("name, unbalanced_reads", [("lietxia_test.jpg", False), ("lietxia_92345FF1.jpg", True),
                                                    ("lietxia_70008812.jpg", False), ("toby_test.jpeg", False)])
def test_real_dev_in_dim_light(shared_dir, turned_reader, name, unbalanced_reads):
    """Session 57: a photo with a quarter of the light its phone exposed for (`datasets/measure_casts.py`'s dim light
    at full strength, JPEG 95) reads as the photo does: the tiles' white is measured and the photo brightened until it
    is the renders' (`vision.colour.DIM_LIMIT`). Without it, three of the four are misread."""
    from measure_casts import tinted, unbalanced

    folder, labels = _labels(shared_dir)
    (obj,) = [o for o in labels if o["image"] == name]
    photo = tinted(load_image(folder / name), "dim", 1.0)
    reading = turned_reader.read(photo)
    assert reading.sequence == obj["sequence"]
    assert any("dim (the tiles' white 0.2" in note for note in reading.notes), reading.notes
    assert [w["code"] for w in reading.warnings] == ["dark"]  # (a quarter of the light: past quality.DARK_LEVEL)
    assert (unbalanced(turned_reader).read(photo).sequence == obj["sequence"]) is unbalanced_reads
