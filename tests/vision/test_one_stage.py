"""The one-stage measurement (`datasets/eval_one_stage.py`, issue #3's design choice): its decoding of a
38-class detector and its matching of detections to hand tiles."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "datasets"))

from eval_detector import match, match_pairs  # noqa: E402
from vision.classes import TILE_CLASSES  # noqa: E402


def _constant_detector(path: Path, anchors: list[tuple[float, float, float, float, str, float]], *,
                       classes=TILE_CLASSES, imgsz: int = 64) -> Path:
    """An ONNX 'detector' whose raw head output is fixed: each anchor (cx, cy, w, h in input px, class, score)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    out = np.zeros((1, 4 + len(classes), len(anchors)), np.float32)
    for j, (cx, cy, w, h, cls, score) in enumerate(anchors):
        out[0, :4, j] = (cx, cy, w, h)
        out[0, 4 + list(classes).index(cls), j] = score
    images = helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, "h", "w"])
    output = helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(out.shape))
    # output = constant + 0 * sum(images): the input is used, so every runtime keeps it
    nodes = [helper.make_node("ReduceSum", ["images"], ["s"], keepdims=0),
             helper.make_node("Mul", ["s", "zero"], ["z"]),
             helper.make_node("Add", ["head", "z"], ["output0"])]
    graph = helper.make_graph(nodes, "constant_head", [images], [output],
                              initializer=[numpy_helper.from_array(out, "head"),
                                           numpy_helper.from_array(np.zeros((), np.float32), "zero")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for k, v in {"tsumo_classes": json.dumps(list(classes)), "tsumo_imgsz": imgsz, "tsumo_conf": 0.25,
                 "tsumo_iou": 0.6}.items():
        p = model.metadata_props.add()
        p.key, p.value = k, str(v)
    onnx.save(model, str(path))
    return path


def test_one_stage_boxes_keep_their_class_in_photo_pixels(tmp_path):
    """Each kept box carries its argmax class; a weaker overlapping box of another class is suppressed
    (class-agnostic NMS, as the shipped detector's); a box under the score floor is dropped; boxes come
    back in photo pixels (a 128-px photo read at 64: half scale)."""
    from eval_one_stage import FaceDetector

    path = _constant_detector(tmp_path / "faces.onnx", [(16, 16, 8, 12, "3m", 0.9), (17, 16, 8, 12, "4m", 0.5),
                                                         (48, 48, 8, 12, "back", 0.1), (48, 16, 8, 12, "0p", 0.7)])
    boxes, classes = FaceDetector(path, threads=1).detect(np.zeros((128, 128, 3), np.uint8), 64)
    assert classes == ["3m", "0p"]
    np.testing.assert_allclose(boxes, [[24, 20, 40, 44], [88, 20, 104, 44]], atol=1e-4)


def test_a_one_class_detector_is_refused(tmp_path):
    from eval_one_stage import FaceDetector

    path = _constant_detector(tmp_path / "tile.onnx", [(16, 16, 8, 12, "tile", 0.9)], classes=["tile"])
    with pytest.raises(SystemExit, match="not a one-stage detector"):
        FaceDetector(path, threads=1)


def test_match_pairs_is_the_pairing_match_counts():
    rng = np.random.default_rng(3)
    for _ in range(20):
        gt = rng.uniform(0, 100, (12, 2)).repeat(2, axis=1) + np.array([0, 0, 10, 14])
        pred = gt[rng.permutation(12)[:9]] + rng.normal(0, 3, (9, 4))
        pairs = match_pairs(gt, pred, 0.5)
        found, used = match(gt, pred, 0.5)
        assert [p is not None for p in pairs] == list(found)
        assert sorted(p for p in pairs if p is not None) == list(np.flatnonzero(used))
        assert len({p for p in pairs if p is not None}) == int(found.sum())


def test_tally_counts_found_and_read_right():
    from eval_one_stage import tally

    t = tally(["1m", "2m", "3m", "back"], [True, True, False, True], ["1m", "3m", None, "back"])
    assert (t["boxed"], t["read_right"]) == (3, 2)
    assert t["read_right_of_boxed"] == round(2 / 3, 5) and t["found_and_read_right"] == 0.5
    assert t["most_confused"] == [("2m→3m", 1)]


def test_photo_crops_of_one_split(tmp_path):
    """`--split val` (choosing the one-stage floor on a training set's own val photos): only that split's hand
    tiles are cut, in the set's order."""
    from eval_classifier import photo_crops
    from tsumo_synth.photos import write_dataset

    synth = write_dataset(tmp_path / "set", 4, 4243, val_frac=0.5, quiet=True)
    rows = [json.loads(s) for s in (synth / "labels.jsonl").read_text().splitlines()]
    val = [r for r in rows if r["split"] == "val"]
    assert val and len(val) < len(rows)
    _, entries = photo_crops(synth, 64, 0.1, split="val")
    want = [t["cls"] for r in val for t in sorted((t for t in r["tiles"] if t["in_hand"]), key=lambda t: t["index"])]
    assert [e["label"] for e in entries] == want
    assert {e["image"] for e in entries} == {r["image"] for r in val}
