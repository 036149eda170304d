"""datasets/onnx_checkpoint.py: a shipped ONNX export turned back into a trainable ultralytics
checkpoint computes what the ONNX computes. Runs only in the training venv (torch, ultralytics):

    .venv-train/bin/python -m pytest tests/vision/test_onnx_checkpoint.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.train
torch = pytest.importorskip("torch")
pytest.importorskip("ultralytics")
pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "datasets")]

import onnx_checkpoint as oc  # noqa: E402

SHIPPED_CLASSIFIER = REPO / "models" / "tile_classifier.onnx"
SHIPPED_DETECTOR = REPO / "models" / "tile_detector.onnx"
REAL_DEV = REPO.parent / "shared" / "data" / "real-dev"


@pytest.fixture(scope="module", autouse=True)
def _env():
    from train_classifier import _ultralytics_env

    _ultralytics_env()
    torch.set_num_threads(1)


def _real_dev_crops() -> np.ndarray:
    if not REAL_DEV.is_dir():
        pytest.skip("real-dev photos not here")
    from eval_classifier import real_dev_crops
    from vision.classify import CROP_MARGIN

    crops, _ = real_dev_crops(oc.onnx_imgsz(SHIPPED_CLASSIFIER, 64), CROP_MARGIN)
    return np.stack(crops).transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def test_scope_names_map_to_modules():
    modules = {k: None for k in ["model", "model.22", "model.22.cv2", "model.22.cv2.0", "model.22.cv2.0.0",
                                 "model.22.cv2.0.0.conv", "model.2", "model.2.m", "model.2.m.0", "model.2.m.0.cv1",
                                 "model.2.m.0.cv1.conv"]}
    assert oc._scope_to_module("/model.22/cv2.0/cv2.0.0/conv/Conv", modules) == "model.22.cv2.0.0.conv"
    assert oc._scope_to_module("/model.2/m.0/cv1/conv/Conv", modules) == "model.2.m.0.cv1.conv"
    assert oc._scope_to_module("/model.9/cv1/conv/Conv", modules) is None


def test_shipped_classifier_rebuilds_exactly(tmp_path):
    """(a) torch eval of the rebuilt checkpoint = onnxruntime of the shipped classifier on the real-dev
    crops (probabilities within 1e-4, same top-1), and the checkpoint loads as an ultralytics model."""
    x = _real_dev_crops()
    # calibrate on half the crops, check on all of them (the eval function must not depend on it)
    info = oc.rebuild(SHIPPED_CLASSIFIER, oc.classifier_yaml(tmp_path), "classify", x[::2], tmp_path / "c.pt",
                      check=x)
    assert info["layers"] == 18 and info["batchnorms"] == 17
    assert info["max_abs_diff_vs_onnxruntime"] <= 1e-4
    assert info["top1_agree"] == 1.0
    from ultralytics import YOLO

    net = YOLO(str(tmp_path / "c.pt")).model.float()
    ref = oc.onnx_outputs(SHIPPED_CLASSIFIER, x)
    got = oc.torch_outputs(net, x)
    assert np.abs(ref - got).max() <= 1e-4
    assert len(net.names) == 75
    # BatchNorm statistics are the calibration batch's: a train-mode pass on that same batch computes
    # (nearly) the eval function, i.e. fine-tuning starts where the shipped model is
    net.train()
    with torch.no_grad():
        logits = net(torch.as_tensor(x[::2]))
    train_p = torch.softmax(logits, 1).numpy()
    assert (train_p.argmax(1) == ref[::2].argmax(1)).mean() >= 0.95


def test_shipped_detector_rebuilds_exactly(tmp_path):
    """The detector (train_detector's yaml, nc 1): raw decoded output (N×5×anchors) equals onnxruntime."""
    if not REAL_DEV.is_dir():
        pytest.skip("real-dev photos not here")
    pytest.importorskip("yaml")
    files = sorted(p for p in REAL_DEV.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))[:2]
    x = oc.detector_inputs(files, oc.onnx_imgsz(SHIPPED_DETECTOR, 512))
    info = oc.rebuild(SHIPPED_DETECTOR, oc.detector_yaml(tmp_path, onnx_path=SHIPPED_DETECTOR), "detect", x, tmp_path / "d.pt")
    out = oc.onnx_outputs(SHIPPED_DETECTOR, x)
    assert info["max_abs_diff_vs_onnxruntime"] <= 1e-3 * max(1.0, float(np.abs(out).max()))
    # the tile scores (row 4, after a sigmoid) to 1e-4
    net = oc.build_model(oc.detector_yaml(tmp_path, onnx_path=SHIPPED_DETECTOR), "detect")
    from ultralytics import YOLO

    got = oc.torch_outputs(YOLO(str(tmp_path / "d.pt")).model.float(), x)
    assert np.abs(got[:, 4] - out[:, 4]).max() <= 1e-4
    del net


def test_train_detector_tells_an_init_of_another_width(tmp_path):
    """The shipped detector rebuilt from its ONNX fits a model of its own scale (0.125 wide) in every
    tensor and not train_detector's DEFAULT_SCALE (0.1875), which `--init` then refuses instead of
    letting ultralytics transfer the few tensors that fit and train the rest from scratch."""
    if not REAL_DEV.is_dir():
        pytest.skip("real-dev photos not here")
    pytest.importorskip("yaml")
    from ultralytics import YOLO

    from train_detector import DEFAULT_SCALE, init_mismatch, is_class_head, model_yaml

    files = sorted(p for p in REAL_DEV.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))[:1]
    x = oc.detector_inputs(files, oc.onnx_imgsz(SHIPPED_DETECTOR, 512))
    oc.rebuild(SHIPPED_DETECTOR, oc.detector_yaml(tmp_path, onnx_path=SHIPPED_DETECTOR), "detect", x, tmp_path / "d.pt")
    own = tuple(oc.onnx_recipe_scale(SHIPPED_DETECTOR))
    assert own != tuple(DEFAULT_SCALE)
    missing, total = init_mismatch(YOLO(str(model_yaml(own, tmp_path / "own.yaml"))), tmp_path / "d.pt")
    assert missing == [] and total > 300
    missing, _ = init_mismatch(YOLO(str(model_yaml(tuple(DEFAULT_SCALE), tmp_path / "wide.yaml"))), tmp_path / "d.pt")
    assert len(missing) > total // 2
    # a one-stage model of the 38 faces (--faces) shares every tensor but the class branch of the head
    missing, _ = init_mismatch(YOLO(str(model_yaml(own, tmp_path / "faces.yaml", nc=38))), tmp_path / "d.pt")
    assert missing and all(is_class_head(k) for k in missing), missing
