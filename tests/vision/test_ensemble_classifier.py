"""datasets/ensemble_classifier.py: one ONNX file that computes the mean of its members' outputs and
loads in `TileClassifier` like any classifier. Needs `onnx` (test extra; never the runtime)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "datasets")]

import ensemble_classifier as ec  # noqa: E402
from vision.classify import TileClassifier  # noqa: E402
from vision.classes import TILE_CLASSES  # noqa: E402

SHIPPED = REPO / "models" / "tile_classifier.onnx"


def _variant(tmp_path: Path, name: str, scale: float, meta: dict[str, str] | None = None) -> Path:
    """The shipped classifier with its last layer's weights scaled (a member that reads differently)."""
    m = onnx.load(str(SHIPPED))
    gemm = [n for n in m.graph.node if n.op_type in ("Gemm", "MatMul")][-1]
    weight = next(i for i in m.graph.initializer if i.name in gemm.input)
    arr = onnx.numpy_helper.to_array(weight) * scale
    weight.CopyFrom(onnx.numpy_helper.from_array(arr.astype(np.float32), weight.name))
    for key, value in (meta or {}).items():
        prop = next((p for p in m.metadata_props if p.key == key), None) or m.metadata_props.add(key=key)
        prop.value = value
    out = tmp_path / f"{name}.onnx"
    onnx.save(m, str(out))
    return out


def _run(path: Path, x: np.ndarray) -> np.ndarray:
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return s.run(None, {s.get_inputs()[0].name: x})[0]


def test_ensemble_output_is_the_members_mean(tmp_path):
    a, b = SHIPPED, _variant(tmp_path, "b", 0.3)
    out = tmp_path / "ens.onnx"
    meta = ec.build([a, b], out)
    x = np.random.default_rng(1).random((8, 3, 64, 64), dtype=np.float32)
    pa, pb, pe = _run(a, x), _run(b, x), _run(out, x)
    assert np.abs(pa - pb).max() > 1e-3  # the members really differ …
    np.testing.assert_allclose(pe, (pa + pb) / 2, atol=1e-6)  # … and the file gives their mean
    assert [m["file"] for m in json.loads(meta["tsumo_ensemble"])] == ["tile_classifier.onnx", "b.onnx"]
    assert ec.check([a, b], out) < 1e-6


def test_ensemble_loads_as_a_classifier(tmp_path):
    out = tmp_path / "ens.onnx"
    ec.build([SHIPPED, _variant(tmp_path, "b", 0.5), _variant(tmp_path, "c", 2.0)], out)
    clf, ens = TileClassifier(SHIPPED, threads=1), TileClassifier(out, threads=1)
    assert (ens.imgsz, ens.margin, ens.names) == (clf.imgsz, clf.margin, clf.names)
    crops = np.random.default_rng(2).integers(0, 255, (5, ens.imgsz, ens.imgsz, 3), dtype=np.uint8)
    probs, flip = ens.classify(crops)
    assert probs.shape == (5, len(TILE_CLASSES)) and flip.shape == (5, 2)
    np.testing.assert_allclose(probs.sum(1), 1.0, atol=1e-5)


def test_members_must_share_the_crop_contract(tmp_path):
    other = _variant(tmp_path, "other", 1.0, {"tsumo_crop_margin": "0.2"})
    with pytest.raises(ValueError, match="tsumo_crop_margin"):
        ec.build([SHIPPED, other], tmp_path / "ens.onnx")
    with pytest.raises(ValueError, match="at least two"):
        ec.build([SHIPPED], tmp_path / "ens.onnx")
    assert not (tmp_path / "ens.onnx").exists()


def test_cli_says_what_is_wrong(tmp_path, capsys):
    assert ec.main([str(tmp_path / "ens.onnx"), str(SHIPPED), str(tmp_path / "missing.onnx")]) == 2
    assert "missing.onnx" in capsys.readouterr().err
