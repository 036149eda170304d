"""The upright look: a photo read unsurely with its hand turned a quarter or half way is read again
turned upright (`vision.pipeline.UPRIGHT_LOOK`), and that reading's boxes are carried back to the photo."""
from __future__ import annotations

import numpy as np
import pytest

from vision.pipeline import MODELS_DIR, _quarter, _unturned
from vision.reading import Reading
from vision.recognize import TileDetection


@pytest.mark.parametrize("row_angle, quarter", [(None, 0), (3.0, 0), (-44.0, 0), (88.0, 1), (46.0, 1),
                                                (179.0, 2), (-178.0, 2), (-91.0, 3), (-46.0, 3)])
def test_the_quarter_turn_that_brings_the_owner_to_the_bottom(row_angle, quarter):
    """np.rot90 turns counter-clockwise: a row running down the photo (+90°, the phone turned clockwise)
    is levelled by one quarter, an upside-down row (±180°) by two, one running up (−90°) by three."""
    assert _quarter(Reading(tiles=[], row_angle=row_angle)) == quarter


def _bounds(mask: np.ndarray) -> tuple[float, float, float, float]:
    ys, xs = np.nonzero(mask)
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)


@pytest.mark.parametrize("quarter", [1, 2, 3])
def test_boxes_read_on_the_turned_photo_land_on_the_same_pixels_of_the_photo(quarter):
    """A box read on np.rot90(photo, q) is carried back onto the pixels it covered in the photo (checked by
    turning a painted mask, not by the formula under test); the row angle turns back with it; frame
    boxes stay (both frames turn about the photo's centre)."""
    h, w = 600, 1000
    painted = np.zeros((h, w), bool)
    painted[120:190, 610:660] = True  # a tile's box in the photo: x 610-660, y 120-190
    turned_box = _bounds(np.rot90(painted, quarter))
    tile = TileDetection(box=turned_box, frame_box=(1.0, 2.0, 3.0, 4.0), label="5p")
    read_turned = Reading(tiles=[tile], row_angle=2.0, image_size=(h, w) if quarter % 2 else (w, h))
    back = _unturned(read_turned, quarter, (h, w, 3))
    assert back.tiles[0].box == pytest.approx((610.0, 120.0, 660.0, 190.0))
    assert back.tiles[0].frame_box == tile.frame_box and back.tiles[0].label == "5p"
    assert back.image_size == (w, h)
    assert back.row_angle == pytest.approx(((2.0 + 90.0 * quarter + 180.0) % 360.0) - 180.0)
    assert _quarter(back) == quarter  # read again from the photo as sent, it is that turn from level


@pytest.mark.skipif(not (MODELS_DIR / "tile_detector.onnx").is_file(), reason="models not trained in this checkout")
def test_a_turned_unsure_photo_is_read_upright_and_the_footage_audit_never_pays_for_it(monkeypatch, shared_dir):
    """Real-dev's added-kan photo turned half way reads unsurely as it comes: the photo reader reads it once more
    upright (and reads it exactly). The footage audit takes no looks at a frame: with the upright look its long
    acceptance video read 2.5 times slower (players' hands lie every way round in an overhead shot)."""
    import vision.pipeline as pipeline
    from audit.reader import PipelineFrameReader
    from audit.video import Frame
    from vision.io import load_image

    folder = shared_dir / "data" / "real-dev"
    photo = np.ascontiguousarray(np.rot90(load_image(folder / "lietxia_70008812.jpg"), 2))
    turned_back = []
    real = pipeline._unturned
    monkeypatch.setattr(pipeline, "_unturned", lambda *a: turned_back.append(a[1]) or real(*a))
    reading = pipeline.PhotoReader().read(photo)
    assert turned_back == [2] and "turned upright" in " ".join(reading.notes)
    assert "upright_ms" in reading.timings
    turned_back.clear()
    PipelineFrameReader(None, threads=1, players=4).read(Frame(0, 0.0, photo))
    assert turned_back == []
