"""Bad photos never pass silently: a greyscale photo, or one whose tiles are a few pixels tall, reads
with a warning saying so (`Reading.warnings`, docs/vision.md "Photo warnings"); a good photo with none.

The reads with the shipped models are the audit's cases: before the warnings, a greyscale real-dev
photo read "surely" with its red dragons taken for east winds, and a 128-px-wide one read a plausible
hand, with nothing said about the photo.
"""
from __future__ import annotations

import io
import json

import cv2
import numpy as np
import pytest
from PIL import Image

from tsumo.cli import main
from vision.io import load_image
from vision.pipeline import MODELS_DIR, PhotoReader
from vision.quality import BLUR_SHARPNESS, SMALL_TILE_PX, is_greyscale, photo_warnings, tile_px
from vision.reading import Reading
from vision.recognize import TileDetection

MODELS = pytest.mark.skipif(not (MODELS_DIR / "tile_detector.onnx").is_file()
                            or not (MODELS_DIR / "tile_classifier.onnx").is_file(),
                            reason="models not trained in this checkout")
PAIRS = "lietxia_92345FF1.jpg"  # seven pairs with red and green dragons: colour matters


def _jpeg(img: Image.Image, quality: int = 90) -> np.ndarray:
    """The image as a phone would send it: a (colour) JPEG, decoded as the reader decodes photos."""
    buf = io.BytesIO()
    img.convert("RGB").save(buf, "JPEG", quality=quality)
    return load_image(buf.getvalue())


def _grey(img: Image.Image) -> Image.Image:
    return img.convert("L").convert("RGB")  # greyscale, back to three channels


def _codes(reading) -> list[str]:
    return [w["code"] for w in reading.warnings]


@pytest.fixture(scope="module")
def reader():
    return PhotoReader()


@pytest.fixture(scope="module")
def real_dev(shared_dir):
    folder = shared_dir / "data" / "real-dev"
    labels = [json.loads(x) for x in (folder / "labels.jsonl").read_text().splitlines() if x.strip()]
    return folder, labels


@MODELS
def test_real_dev_photos_read_without_warnings(reader, real_dev):
    """The four real-dev photos are colour photos with tiles 120-220 px tall: nothing to warn of,
    and they still read exactly as labelled."""
    folder, labels = real_dev
    for obj in labels:
        reading = reader.read(load_image(folder / obj["image"]))
        assert reading.warnings == [], obj["image"]
        assert reading.to_json()["warnings"] == []
        assert reading.sequence == obj["sequence"], obj["image"]


@MODELS
def test_greyscale_photo_is_flagged(reader, real_dev):
    folder, _ = real_dev
    photo = Image.open(folder / PAIRS)
    reading = reader.read(_jpeg(_grey(photo)))
    assert _codes(reading) == ["greyscale"]
    assert "red fives cannot be told from plain fives" in reading.warnings[0]["message"]
    assert reading.to_json()["warnings"] == reading.warnings  # what the API serves
    # a caller that shows no one the warnings (the footage audit) skips their cost; the reading is the same
    quiet = PhotoReader(warnings=False).read(_jpeg(_grey(photo)))
    assert quiet.warnings == [] and quiet.sequence == reading.sequence


@MODELS
def test_the_footage_audit_reads_frames_without_photo_warnings(monkeypatch, real_dev):
    """Frame after frame, a few ms each, for warnings no report shows: the audit's reader never asks."""
    import vision.pipeline as pipeline
    from audit.reader import PipelineFrameReader
    from audit.video import Frame

    calls = []
    monkeypatch.setattr(pipeline, "photo_warnings", lambda image, reading, light=None: calls.append(1) or [])
    folder, labels = real_dev
    frame = Frame(0, 0.0, load_image(folder / labels[0]["image"]))
    assert PipelineFrameReader(None, threads=1, players=4).read(frame).sequence
    assert calls == []
    PhotoReader().read(frame.image)
    assert calls == [1]  # (the patched function is the one the photo reader calls)


def _motion(image: np.ndarray, length: int) -> np.ndarray:
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2] = 1.0 / length  # along the row
    return cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_REFLECT)


@MODELS
def test_blurred_photo_is_flagged_and_a_sharp_one_at_any_size_is_not(reader, real_dev):
    """A photo taken while moving, or out of focus, read with a `blurred` warning (session 52: the tune sets'
    photos past tsumo_synth.legibility.BLUR_RULE); the same photo sharp, also at a third of its width, with
    none. Blur counts relative to the tiles, so a blur past the rule for these ~165-px tiles is ~30 px."""
    folder, labels = real_dev
    photo = load_image(folder / PAIRS)
    side = tile_px(reader.read(photo))
    assert 140 <= side <= 190
    for name, blurred in [("motion 0.3", _motion(photo, round(0.3 * side))),
                          ("defocus 0.06", cv2.GaussianBlur(photo, (0, 0), 0.06 * side))]:
        reading = reader.read(_jpeg(Image.fromarray(blurred)))
        assert _codes(reading) == ["blurred"], name
        w = reading.warnings[0]
        assert w["sharpness"] < BLUR_SHARPNESS and "blurred" in w["message"] and "retake" in w["message"]
    for name, fine in [("defocus 0.01", cv2.GaussianBlur(photo, (0, 0), 0.01 * side)),
                       ("motion 0.05", _motion(photo, round(0.05 * side)))]:
        assert _codes(reader.read(_jpeg(Image.fromarray(fine)))) == [], name
    third = Image.fromarray(photo).resize((photo.shape[1] // 3, photo.shape[0] // 3), Image.LANCZOS)
    reading = reader.read(_jpeg(third))  # tiles ~55 px: scaled up to be measured, still sharp
    assert _codes(reading) == [] and reading.sequence == labels[[o["image"] for o in labels].index(PAIRS)]["sequence"]


@MODELS
def test_heavily_downscaled_photo_is_flagged(reader, real_dev):
    folder, _ = real_dev
    photo = Image.open(folder / PAIRS)
    small = photo.resize((128, 96), Image.LANCZOS)  # the tiles about 12 px tall
    reading = reader.read(_jpeg(small))
    assert _codes(reading) == ["small_tiles"]
    assert 5 <= reading.warnings[0]["tile_px"] < SMALL_TILE_PX
    assert f"only {reading.warnings[0]['tile_px']} px tall" in reading.warnings[0]["message"]


@MODELS
def test_tiny_greyscale_example_photo_gets_both_warnings(reader, repo_dir):
    photo = Image.open(repo_dir / "examples" / "hand.jpg").resize((64, 48), Image.LANCZOS)
    reading = reader.read(_jpeg(_grey(photo)))
    assert _codes(reading) == ["greyscale", "small_tiles"]


@MODELS
def test_cli_prints_the_warnings(tmp_path, capsys, real_dev):
    folder, _ = real_dev
    path = tmp_path / "small.jpg"
    Image.open(folder / PAIRS).resize((128, 96), Image.LANCZOS).save(path, quality=90)
    main(["read", str(path)])
    out = capsys.readouterr().out
    assert out.startswith("warning: the tiles are only ")
    main(["read", str(path), "--json"])
    assert [w["code"] for w in json.loads(capsys.readouterr().out)["warnings"]] == ["small_tiles"]
    main(["score", str(path)])  # scored or not, the warning is printed above the reading
    assert "warning: the tiles are only " in capsys.readouterr().out
    main(["read", str(folder / PAIRS)])
    assert "warning" not in capsys.readouterr().out


def test_greyscale_test_survives_jpeg_noise_and_a_tint(real_dev):
    """A grey photo off a phone is not exactly grey: JPEG chroma noise, a white-balance cast. A colour
    photo stays colour at any size, and a photo mostly of one colour is no grey photo."""
    folder, labels = real_dev
    rng = np.random.default_rng(1)
    for obj in labels:
        photo = Image.open(folder / obj["image"]).convert("RGB")
        grey = np.asarray(_grey(photo)).astype(np.int16)
        cast = np.clip(grey + np.array([8, 0, -6]) + rng.integers(-4, 5, grey.shape), 0, 255).astype(np.uint8)
        assert is_greyscale(_jpeg(Image.fromarray(cast), quality=40)), obj["image"]
        assert not is_greyscale(_jpeg(photo)), obj["image"]
        assert not is_greyscale(_jpeg(photo.resize((64, 48), Image.LANCZOS))), obj["image"]
    assert not is_greyscale(np.full((300, 400, 3), (40, 120, 60), np.uint8))  # green felt, nothing else


class _NoTiles:
    def detect(self, image):
        return []


def test_a_tiny_photo_with_no_tile_says_it_is_tiny():
    image = np.zeros((48, 64, 3), np.uint8)
    image[..., 0] = 150  # (a colour photo: only the size is wrong)
    reading = PhotoReader(detector=_NoTiles(), classifier=object()).read(image)
    assert reading.error_code == "no_tiles"
    assert _codes(reading) == ["small_photo"] and "64×48" in reading.warnings[0]["message"]


def test_red_fives_read_from_a_greyscale_photo_are_named():
    """Left as the classifier read them (a red five's shape may mark it), but the player is told."""
    tiles = [TileDetection(box=(10 + 40 * i, 10, 40 + 40 * i, 50), frame_box=(10 + 40 * i, 10, 40 + 40 * i, 50),
                           label=label) for i, label in enumerate(["0p", "5s", "1m"])]
    grey = np.repeat(np.random.default_rng(0).integers(0, 256, (100, 200, 1), np.uint8), 3, axis=2)  # sharp grey
    (warning,) = photo_warnings(grey, Reading(tiles))
    assert warning["code"] == "greyscale" and warning["message"].endswith("from their shape alone: 0p)")
    # a flat grey photo has no detail at all in its tiles: blurred as well
    assert [w["code"] for w in photo_warnings(np.full((100, 200, 3), 128, np.uint8), Reading(tiles))] == \
        ["greyscale", "blurred"]
