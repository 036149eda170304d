"""Close-ups: tiles far larger in the detector's input than it learned are detected again, smaller.

`TileDetector(fit=...)` (the shipped model's metadata `tsumo_fit`) and `vision.detect.fitted_imgsz`;
`datasets/model_meta.py`, which switched it on without touching the weights."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from vision.detect import DEFAULT_PATH, FIT_ABOVE, FIT_MIN_IMGSZ, STRIDE, TileDetector, fitted_imgsz


def _boxes(long_side: float, n: int = 8) -> np.ndarray:
    return np.array([[i * long_side, 0, (i + 1) * long_side, 0.8 * long_side] for i in range(n)], float)


def test_fitted_size_brings_large_tiles_to_the_target():
    size = fitted_imgsz(_boxes(120), 512, 40)
    assert size is not None and size % STRIDE == 0 and size < 512
    assert abs(120 * size / 512 - 40) <= 40 * STRIDE / size  # about 40 px once the input is resized
    assert fitted_imgsz(_boxes(200), 512, 40) == FIT_MIN_IMGSZ  # never below the floor


def test_tiles_of_the_learned_size_are_left_alone():
    assert fitted_imgsz(_boxes(FIT_ABOVE * 40), 512, 40) is None  # up to FIT_ABOVE times the target
    assert fitted_imgsz(_boxes(30), 512, 40) is None
    assert fitted_imgsz(_boxes(120, n=1), 512, 40) is None  # one box says nothing of the tiles' size
    assert fitted_imgsz(np.zeros((0, 4)), 512, 40) is None
    assert fitted_imgsz(_boxes(90), FIT_MIN_IMGSZ, 40) is None  # (not smaller than the input already is)


def test_the_larger_quarter_of_the_boxes_decides():
    """A close-up's hand with small discards behind it: the hand's tiles set the size."""
    boxes = np.vstack([_boxes(20, 5), _boxes(130, 6)])
    assert fitted_imgsz(boxes, 512, 40) is not None
    assert fitted_imgsz(np.vstack([_boxes(20, 12), _boxes(130, 2)]), 512, 40) is None


def test_shipped_detector_fits_by_its_metadata_and_can_be_turned_off():
    on = TileDetector(DEFAULT_PATH, threads=1)
    assert on.fit == float(on.metadata["tsumo_fit"]) == 40.0
    assert TileDetector(DEFAULT_PATH, threads=1, fit=None).fit is None
    assert TileDetector(DEFAULT_PATH, threads=1, fit=48).fit == 48.0
    assert on.variant(vote=0.75).fit == on.fit  # the second looks keep it


def _close_ups():
    """real-dev's hand-boxed tiles, five neighbours at a time cut out to fill a photo (a phone held close):
    (the cut, the five tiles' boxes in it, their labels left to right)."""
    import real_data

    for ph in real_data.real_dev():
        img, boxes = ph.load_rgb(), np.asarray(ph.boxes)
        order = np.argsort(boxes[:, 0])
        boxes, labels = boxes[order], [ph.labels[i] for i in order]
        for start in range(0, len(boxes) - 4, 4):
            five = boxes[start:start + 5]
            x1, y1, x2, y2 = five[:, 0].min(), five[:, 1].min(), five[:, 2].max(), five[:, 3].max()
            mx, my = 0.08 * (x2 - x1), 0.3 * (y2 - y1)
            cx1, cy1 = int(max(0, x1 - mx)), int(max(0, y1 - my))
            cx2, cy2 = int(min(img.shape[1], x2 + mx)), int(min(img.shape[0], y2 + my))
            yield np.ascontiguousarray(img[cy1:cy2, cx1:cx2]), five - [cx1, cy1, cx1, cy1], labels[start:start + 5]


def test_close_ups_of_real_tiles_are_boxed_when_fitted():
    """Measured (session 32): plain 37 of 50 tiles boxed (IoU >= 0.5), fitted 42 of 50."""
    from eval_detector import match

    found = {None: 0, "model": 0}
    total = 0
    for crop, truth, _ in _close_ups():
        total += len(truth)
        for fit in found:
            pred = np.array([b.xyxy for b in TileDetector(DEFAULT_PATH, threads=1, fit=fit).detect(crop)]).reshape(-1, 4)
            found[fit] += int(match(truth, pred, 0.5)[0].sum())
    assert total >= 50
    assert found["model"] >= 0.8 * total
    assert found["model"] >= found[None] + 0.08 * total


@pytest.fixture()
def model_copy(tmp_path):
    path = tmp_path / "det.onnx"
    shutil.copyfile(DEFAULT_PATH, path)
    return path


def test_model_meta_sets_and_removes_a_key_and_keeps_the_weights(model_copy, capsys):
    pytest.importorskip("onnx")
    import model_meta

    assert model_meta.main([str(model_copy), "tsumo_fit=56", "tsumo_note=x"]) == 0
    assert TileDetector(model_copy, threads=1).fit == 56.0
    assert "tsumo_note\tx" in capsys.readouterr().out
    assert model_meta.main([str(model_copy), "tsumo_fit="]) == 0
    det, shipped = TileDetector(model_copy, threads=1), TileDetector(DEFAULT_PATH, threads=1, fit=None)
    assert det.fit is None and "tsumo_fit" not in det.metadata and det.metadata["tsumo_note"] == "x"
    img = np.full((384, 512, 3), 90, np.uint8)
    img[100:200, 100:180] = 235  # a pale block: whatever it boxes, both models box it alike
    assert [b.xyxy for b in det.detect(img)] == [b.xyxy for b in shipped.detect(img)]


def test_model_meta_refuses_bad_input(model_copy, tmp_path, capsys):
    pytest.importorskip("onnx")
    import model_meta

    assert model_meta.main([str(tmp_path / "missing.onnx")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert model_meta.main([str(model_copy), "no_equals_sign"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert model_meta.main([str(model_copy), "=5"]) == 2


def _run_in(reading: str, five: list[str]) -> bool:
    """Are these five tiles read side by side, in order, somewhere in the reading's sequence?"""
    seq = reading.replace("|", " ").replace("-", "").replace("=", "").split()
    return any(seq[i:i + 5] == five for i in range(len(seq) - 4))


@pytest.mark.slow
def test_close_ups_of_real_tiles_read_end_to_end_when_fitted():
    """The whole reader on the same close-ups (each cut holds slivers of its neighbours, so the
    reading may have extra tiles at its ends): the five tiles read in order. Measured (session 32):
    7 of 10 cuts with the fit, 3 without."""
    from vision.pipeline import ALT_FILE, MODELS_DIR, THIRD_FILE, PhotoReader

    reader = PhotoReader(threads=2)
    plain = PhotoReader(threads=2, detector=TileDetector(DEFAULT_PATH, threads=2, fit=None),
                        alt=TileDetector(MODELS_DIR / ALT_FILE, threads=2),
                        third=TileDetector(MODELS_DIR / THIRD_FILE, threads=2))
    assert reader.detector.fit and plain.detector.fit is None
    assert [look.name for look in plain.looks] == [look.name for look in reader.looks]  # (the same looks)
    cuts = list(_close_ups())
    assert len(cuts) >= 10
    fitted = sum(_run_in(reader.read(crop).sequence, five) for crop, _, five in cuts)
    unfitted = sum(_run_in(plain.read(crop).sequence, five) for crop, _, five in cuts)
    assert fitted >= 0.6 * len(cuts)
    assert fitted >= unfitted + 0.3 * len(cuts)
