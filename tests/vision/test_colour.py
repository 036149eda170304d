"""The light's colour measured on tile faces, and the balanced photo (`vision.colour`)."""
from __future__ import annotations

import numpy as np
import pytest

from vision.classes import BACK
from vision.colour import CAST_LIMIT, REFERENCE, balanced, colour_cast, tile_white
from vision.recognize import TileDetection

IVORY = (202, 199, 193)  # a tile body near the renders' white (log r/g 0.015, log b/g −0.031), exposed as phones do


def _table(tiles: int = 6, face=IVORY, back=(30, 110, 190), backs: int = 0) -> tuple[np.ndarray, list[TileDetection]]:
    """A green cloth with `tiles` ivory faces (each with a dark numeral stroke) and `backs` face-down tiles."""
    image = np.zeros((240, 480, 3), np.uint8)
    image[:] = (40, 120, 60)
    found = []
    for i in range(tiles + backs):
        x1, y1 = 20 + i * 50, 80
        box = (x1, y1, x1 + 40, y1 + 56)
        down = i >= tiles
        image[y1:y1 + 56, x1:x1 + 40] = back if down else face
        if not down:
            image[y1 + 14:y1 + 42, x1 + 17:x1 + 23] = (30, 30, 30)  # ink
        found.append(TileDetection(box=box, frame_box=box, label=BACK if down else "1m", det_score=0.9 - i * 0.01))
    return image, found


def _cast(image: np.ndarray, gains) -> np.ndarray:
    return np.clip(image.astype(np.float32) * np.array(gains, np.float32), 0, 255).astype(np.uint8)


def test_tile_white_reads_the_faces_not_their_ink_nor_the_table():
    image, tiles = _table()
    red, blue, n = tile_white(image, [t.box for t in tiles])
    assert n == 6
    assert red == pytest.approx(np.log(202 / 199), abs=0.005)
    assert blue == pytest.approx(np.log(193 / 199), abs=0.005)


def test_a_neutral_photo_is_left_as_it_is():
    image, tiles = _table()
    assert colour_cast(image, tiles) is None


@pytest.mark.parametrize("gains, kind", [((1.15, 0.9, 0.6), "warm"), ((0.8, 1.0, 1.2), "cold"),
                                         ((0.9, 1.1, 0.9), "green"), ((1.1, 0.88, 1.1), "magenta")])
def test_a_cast_is_measured_and_balanced_away(gains, kind):
    """A tungsten-like warm cast, a cold one, a green and a magenta tint: each measured as the log gains it applied
    (against the reference white), named, and the balanced photo's tile white is the renders' again."""
    image, tiles = _table()
    tinted = _cast(image, gains)
    cast = colour_cast(tinted, tiles)
    assert cast is not None and cast.size > CAST_LIMIT
    assert cast.describe().startswith(kind)
    assert cast.red == pytest.approx(np.log(202 / 199) - REFERENCE[0] + np.log(gains[0] / gains[1]), abs=0.02)
    assert cast.blue == pytest.approx(np.log(193 / 199) - REFERENCE[1] + np.log(gains[2] / gains[1]), abs=0.02)
    red, blue, _ = tile_white(balanced(tinted, cast), [t.box for t in tiles])
    assert (red, blue) == pytest.approx(REFERENCE, abs=0.01)
    assert colour_cast(balanced(tinted, cast), tiles) is None


def test_face_down_tiles_and_clipped_pixels_say_nothing_of_the_light():
    """Blue backs outnumbering the faces do not make the photo look warm or cold; a face blown out to white
    (every channel clipped) is left out rather than read as neutral."""
    image, tiles = _table(tiles=4, backs=5)
    assert colour_cast(image, tiles) is None
    warm = _cast(image, (1.15, 0.9, 0.6))
    blown = warm.copy()
    blown[80:136, 20:60] = 255  # the first face washed out by glare (its ink too)
    cast = colour_cast(blown, tiles)
    assert cast is not None and cast.tiles == 3 and cast.describe().startswith("warm")


def test_too_few_faces_measure_nothing():
    """Two faces are no median (`FEWEST_TILES` 3, session 56)."""
    image, tiles = _table(tiles=2, backs=2)
    assert colour_cast(_cast(image, (1.15, 0.9, 0.6)), tiles) is None
    assert tile_white(image, []) is None
    assert tile_white(image, [(500, 500, 520, 530)]) is None  # a box outside the photo


def test_a_face_clipped_by_the_cast_is_not_read_from_its_ink():
    """Bright faces under a cold light: blue clips at 255 on every face, and what is left unclipped is ink. Nothing
    is measured then (balancing by the ink's colour would tint the photo at random)."""
    image, tiles = _table(face=(236, 233, 226))
    assert colour_cast(_cast(image, (0.8, 1.0, 1.2)), tiles) is None


# --- the reader: a photo balanced when its light is coloured, and the cheaper of the two first readings kept ---

HAND = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "2z", "2z"]


def _hand_photo() -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    image = np.zeros((200, 720, 3), np.uint8)
    image[:] = (40, 120, 60)
    boxes = []
    for i in range(len(HAND)):
        x1, y1 = 20 + i * 48, 70
        image[y1:y1 + 60, x1:x1 + 44] = IVORY
        image[y1 + 18:y1 + 42, x1 + 19:x1 + 25] = (30, 30, 30)
        boxes.append((x1, y1, x1 + 44, y1 + 60))
    return image, boxes


class _Boxes:
    """Detects the hand's boxes in any photo."""

    def __init__(self, boxes):
        self.boxes = boxes

    def detect(self, image):
        from types import SimpleNamespace

        return [SimpleNamespace(x1=b[0], y1=b[1], x2=b[2], y2=b[3], score=0.9) for b in self.boxes]


class _ReadsInLight:
    """Reads each box as its label, surely, when the face under it is lit as `sure_when` says (a function of the
    face's log blue/green), and as a 9m otherwise (its label second): a classifier that knows one light. Fourteen
    9m are no hand, so the reading step must bend every tile back to its runner-up, at a cost."""

    def __init__(self, boxes, sure_when):
        from tests.vision.fakes import LabelledFaces

        self.faces = LabelledFaces(boxes, HAND)
        self.boxes = boxes
        self.sure_when = sure_when

    def classify_tiles(self, image, frame, frame_boxes, sideways):
        from vision.classes import CLASS_INDEX

        probs, flips = self.faces.classify_tiles(image, frame, frame_boxes, sideways)
        for n, fb in enumerate(frame_boxes):
            x1, y1, x2, _ = self.boxes[self.faces.nearest(frame, fb)]
            _, g, b = image[y1 + 4:y1 + 12, x1 + 4:x2 - 4].reshape(-1, 3).astype(float).mean(axis=0)
            if not self.sure_when(np.log(b / g)):
                probs[n, CLASS_INDEX[HAND[self.faces.nearest(frame, fb)]]], probs[n, CLASS_INDEX["9m"]] = 0.3, 0.6
        return probs, flips


def _reader(boxes, sure_when, **kw):
    from vision.pipeline import PhotoReader

    return PhotoReader(detector=_Boxes(boxes), classifier=_ReadsInLight(boxes, sure_when), looks=(), empty_looks=(),
                       warnings=False, **kw)


def test_a_photo_under_a_warm_lamp_is_read_balanced():
    """The classifier reads faces lit near white; the photo is warm. The reader measures the cast on the first
    reading's boxes, balances the photo, reads it again and keeps that reading, and says so."""
    image, boxes = _hand_photo()
    warm = _cast(image, (1.15, 0.9, 0.6))

    def near_white(blue: float) -> bool:
        return abs(blue - REFERENCE[1]) < 0.1

    reading = _reader(boxes, near_white).read(warm)
    assert reading.sequence == " ".join(HAND) and reading.sure
    assert any(note.startswith("the light on the tiles was warm") for note in reading.notes), reading.notes
    unbalanced = _reader(boxes, near_white, balance=False).read(warm)
    assert unbalanced.hand is None and not unbalanced.sure  # (fourteen 9m, each bent back at a cost: past MAX_FIX_COST)
    assert not any("balanced" in note for note in unbalanced.notes)


def test_the_photo_as_taken_is_kept_when_it_reads_cheaper():
    """A classifier that happens to read the warm photo surely and the balanced one not: the first reading costs
    less, so it is kept, and no note claims the photo was balanced (`pipeline.BALANCE_MARGIN`)."""
    image, boxes = _hand_photo()
    warm = _cast(image, (1.15, 0.9, 0.6))
    reading = _reader(boxes, lambda blue: blue < -0.3).read(warm)
    assert reading.sequence == " ".join(HAND) and reading.sure
    assert not any("balanced" in note for note in reading.notes), reading.notes


@pytest.mark.parametrize("red, blue, kind", [(0.245, -0.405, "warm"), (0.0, -0.32, "yellow"), (-0.2, -0.2, "green"),
                                             (-0.3, 0.0, "cyan"), (-0.22, 0.18, "cold"), (0.0, 0.3, "blue"),
                                             (0.22, 0.22, "magenta"), (0.3, 0.0, "red")])
def test_a_cast_is_named_by_its_hue(red, blue, kind):
    """Blue down alone is a yellow light, not a green one (a note once called it green by the sign of a red
    offset of −0.004)."""
    from vision.colour import Cast

    assert Cast(red, blue, 5).describe().startswith(f"{kind} (")
