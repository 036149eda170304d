"""The light's colour and brightness measured on tile faces, and the balanced photo (`vision.colour`)."""
from __future__ import annotations

import numpy as np
import pytest

from vision.classes import BACK
from vision.colour import (
    CAST_LIMIT,
    DIM_LIMIT,
    MOST_GAIN,
    REFERENCE,
    REFERENCE_GREEN,
    Light,
    balanced,
    measure_light,
    tile_white,
)
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
    red, blue, green, n = tile_white(image, [t.box for t in tiles])
    assert n == 6 and green == pytest.approx(199, abs=0.5)
    assert red == pytest.approx(np.log(202 / 199), abs=0.005)
    assert blue == pytest.approx(np.log(193 / 199), abs=0.005)


def _off(image, tiles) -> Light | None:
    """The light measured, when the reader would balance the photo for it."""
    light = measure_light(image, tiles)
    return light if light is not None and light.off else None


def test_a_neutral_photo_is_left_as_it_is():
    image, tiles = _table()
    light = measure_light(image, tiles)
    assert light is not None and not light.off and light.tiles == 6
    assert light.level == pytest.approx(np.log(199 / REFERENCE_GREEN), abs=0.01)


@pytest.mark.parametrize("gains, kind", [((1.15, 0.9, 0.6), "warm"), ((0.8, 1.0, 1.2), "cold"),
                                         ((0.9, 1.1, 0.9), "green"), ((1.1, 0.88, 1.1), "magenta")])
def test_a_cast_is_measured_and_balanced_away(gains, kind):
    """A tungsten-like warm cast, a cold one, a green and a magenta tint: each measured as the log gains it applied
    (against the reference white), named, and the balanced photo's tile white is the renders' again."""
    image, tiles = _table()
    tinted = _cast(image, gains)
    cast = _off(tinted, tiles)
    assert cast is not None and cast.size > CAST_LIMIT and cast.coloured and not cast.dim
    assert cast.describe().startswith(kind) and "dim" not in cast.describe()
    assert cast.red == pytest.approx(np.log(202 / 199) - REFERENCE[0] + np.log(gains[0] / gains[1]), abs=0.02)
    assert cast.blue == pytest.approx(np.log(193 / 199) - REFERENCE[1] + np.log(gains[2] / gains[1]), abs=0.02)
    red, blue, green, _ = tile_white(balanced(tinted, cast), [t.box for t in tiles])
    assert (red, blue) == pytest.approx(REFERENCE, abs=0.01)
    assert green == pytest.approx(199 * gains[1], abs=1)  # (green kept: the light's brightness is not off)
    assert _off(balanced(tinted, cast), tiles) is None


def test_face_down_tiles_and_clipped_pixels_say_nothing_of_the_light():
    """Blue backs outnumbering the faces do not make the photo look warm or cold; a face blown out to white
    (every channel clipped) is left out rather than read as neutral."""
    image, tiles = _table(tiles=4, backs=5)
    assert _off(image, tiles) is None
    warm = _cast(image, (1.15, 0.9, 0.6))
    blown = warm.copy()
    blown[80:136, 20:60] = 255  # the first face washed out by glare (its ink too)
    cast = _off(blown, tiles)
    assert cast is not None and cast.tiles == 3 and cast.describe().startswith("warm")


def test_too_few_faces_measure_nothing():
    """Two faces are no median (`FEWEST_TILES` 3, session 56)."""
    image, tiles = _table(tiles=2, backs=2)
    assert measure_light(_cast(image, (1.15, 0.9, 0.6)), tiles) is None
    assert measure_light(_cast(image, (0.3, 0.3, 0.3)), tiles) is None
    assert tile_white(image, []) is None
    assert tile_white(image, [(500, 500, 520, 530)]) is None  # a box outside the photo


def test_a_face_clipped_by_the_cast_is_not_read_from_its_ink():
    """Bright faces under a cold light: blue clips at 255 on every face, and what is left unclipped is ink. Nothing
    is measured then (balancing by the ink's colour would tint the photo at random)."""
    image, tiles = _table(face=(236, 233, 226))
    assert measure_light(_cast(image, (0.8, 1.0, 1.2)), tiles) is None


@pytest.mark.parametrize("light", [0.5, 0.3, 0.15])
def test_a_dim_photo_is_measured_and_brightened(light):
    """A photo taken in dim light (the phone exposing for less than the tiles): measured as its brightness against
    the renders' tile white, hue left alone, and brightened until its tile white is theirs."""
    image, tiles = _table()
    dim = _cast(image, (light, light, light))
    found = _off(dim, tiles)
    assert found is not None and found.dim and not found.coloured
    assert found.level == pytest.approx(np.log(dim[90, 25, 1] / REFERENCE_GREEN), abs=0.01)  # (199 × light, floored)
    assert found.describe().startswith("dim (the tiles' white") and "red/green" not in found.describe()
    red, blue, green, _ = tile_white(balanced(dim, found), [t.box for t in tiles])
    assert green == pytest.approx(REFERENCE_GREEN, abs=2)
    assert (red, blue) == pytest.approx((np.log(202 / 199), np.log(193 / 199)), abs=0.03)
    assert _off(balanced(dim, found), tiles) is None


def test_a_dim_warm_photo_is_balanced_both_ways_and_a_bright_one_never_darkened():
    image, tiles = _table()
    both = _off(_cast(image, (0.45, 0.35, 0.25)), tiles)  # a warm lamp, and a third of the light
    assert both is not None and both.coloured and both.dim
    assert both.describe().startswith("warm (") and " and dim (" in both.describe()
    red, blue, green, _ = tile_white(balanced(_cast(image, (0.45, 0.35, 0.25)), both), [t.box for t in tiles])
    assert (red, blue) == pytest.approx(REFERENCE, abs=0.03) and green == pytest.approx(REFERENCE_GREEN, abs=3)
    bright = measure_light(_cast(image, (1.2, 1.2, 1.2)), tiles)  # faces at 239: brighter than the renders'
    assert bright is not None and bright.level > 0 and not bright.off
    barely = measure_light(_cast(image, (0.8, 0.8, 0.8)), tiles)  # as dim as the renders' dimmer photos
    assert barely is not None and barely.level > -DIM_LIMIT and not barely.off


def test_a_photo_is_brightened_at_most_most_gain_times():
    """A tile white of ~12 (a twentieth of the light): brightened MOST_GAIN times, not seventeen."""
    image, tiles = _table()
    dark = _cast(image, (0.06, 0.06, 0.06))
    found = _off(dark, tiles)
    assert found is not None and found.dim and np.exp(-found.level) > MOST_GAIN
    _, _, green, _ = tile_white(balanced(dark, found), [t.box for t in tiles])
    assert green == pytest.approx(dark[90, 25, 1] * MOST_GAIN, abs=2)


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
    face's mean red, green and blue), and as a 9m otherwise (its label second): a classifier that knows one light. Fourteen
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
            r, g, b = image[y1 + 4:y1 + 12, x1 + 4:x2 - 4].reshape(-1, 3).astype(float).mean(axis=0)
            if not self.sure_when(r, g, b):
                probs[n, CLASS_INDEX[HAND[self.faces.nearest(frame, fb)]]], probs[n, CLASS_INDEX["9m"]] = 0.3, 0.6
        return probs, flips


def _reader(boxes, sure_when, **kw):
    from vision.pipeline import PhotoReader

    kw.setdefault("warnings", False)
    return PhotoReader(detector=_Boxes(boxes), classifier=_ReadsInLight(boxes, sure_when), looks=(), empty_looks=(), **kw)


def test_a_photo_under_a_warm_lamp_is_read_balanced():
    """The classifier reads faces lit near white; the photo is warm. The reader measures the cast on the first
    reading's boxes, balances the photo, reads it again and keeps that reading, and says so."""
    image, boxes = _hand_photo()
    warm = _cast(image, (1.15, 0.9, 0.6))

    def near_white(r: float, g: float, b: float) -> bool:
        return abs(np.log(b / g) - REFERENCE[1]) < 0.1

    reading = _reader(boxes, near_white).read(warm)
    assert reading.sequence == " ".join(HAND) and reading.sure
    assert any(note.startswith("the light on the tiles was warm") for note in reading.notes), reading.notes
    unbalanced = _reader(boxes, near_white, balance=False).read(warm)
    assert unbalanced.hand is None and not unbalanced.sure  # (fourteen 9m, each bent back at a cost: past MAX_FIX_COST)
    assert not any("balanced" in note for note in unbalanced.notes)


def test_a_photo_in_dim_light_is_read_brightened():
    """The classifier reads faces lit at least half as bright as the renders'; the photo has a third of that light.
    Brightened, it reads surely, and says why; unbalanced, it reads no hand."""
    image, boxes = _hand_photo()
    dim = _cast(image, (0.3, 0.3, 0.3))

    def lit(r: float, g: float, b: float) -> bool:
        return g > REFERENCE_GREEN / 2

    reading = _reader(boxes, lit).read(dim)
    assert reading.sequence == " ".join(HAND) and reading.sure
    assert any(note.startswith("the light on the tiles was dim (") for note in reading.notes), reading.notes
    assert _reader(boxes, lit, balance=False).read(dim).hand is None
    plain = _reader(boxes, lit).read(image)  # (lit as the renders: no word of light)
    assert plain.sure and not any("light on the tiles" in note for note in plain.notes), plain.notes


@pytest.mark.parametrize("light, dark", [(0.3, True), (0.5, False), (1.0, False)])
def test_a_photo_darker_than_the_reader_mends_is_warned_of(light, dark):
    """Brightened, a photo with under 0.41 of the renders' light still reads worse (`quality.DARK_LEVEL`): its reading
    says so in `warnings`, whether or not it was balanced; half the light is brightened and read without a warning."""
    image, boxes = _hand_photo()
    photo = _cast(image, (light, light, light))
    for balance in (True, False):
        reading = _reader(boxes, lambda r, g, b: True, warnings=True, balance=balance).read(photo)
        warned = [w for w in reading.warnings if w["code"] == "dark"]
        assert bool(warned) is dark, reading.warnings
        if dark:
            assert warned[0]["brightness"] == pytest.approx(photo[75, 25, 1] / REFERENCE_GREEN, abs=0.01)
            assert "retake the photo in more light" in warned[0]["message"]
    assert not _reader(boxes, lambda r, g, b: True).read(photo).warnings  # (warnings=False: nothing measured)


def test_the_photo_as_taken_is_kept_when_it_reads_cheaper():
    """A classifier that happens to read the warm photo surely and the balanced one not: the first reading costs
    less, so it is kept, and no note claims the photo was balanced (`pipeline.BALANCE_MARGIN`)."""
    image, boxes = _hand_photo()
    warm = _cast(image, (1.15, 0.9, 0.6))
    reading = _reader(boxes, lambda r, g, b: np.log(b / g) < -0.3).read(warm)
    assert reading.sequence == " ".join(HAND) and reading.sure
    assert not any("balanced" in note for note in reading.notes), reading.notes


@pytest.mark.parametrize("red, blue, kind", [(0.245, -0.405, "warm"), (0.0, -0.32, "yellow"), (-0.2, -0.2, "green"),
                                             (-0.3, 0.0, "cyan"), (-0.22, 0.18, "cold"), (0.0, 0.3, "blue"),
                                             (0.22, 0.22, "magenta"), (0.3, 0.0, "red")])
def test_a_cast_is_named_by_its_hue(red, blue, kind):
    """Blue down alone is a yellow light, not a green one (a note once called it green by the sign of a red
    offset of −0.004)."""
    assert Light(red, blue, 0.0, 5).describe().startswith(f"{kind} (")
