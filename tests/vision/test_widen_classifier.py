"""datasets/widen_classifier.py: a `small` classifier checkpoint widened to `wide` computes the same
probabilities (Net2WiderNet), reloads through ultralytics' state-dict intersection without dropping a
key, and its copies can drift apart. Runs only in the training venv (torch, ultralytics):

    .venv-train/bin/python -m pytest tests/vision/test_widen_classifier.py
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
import widen_classifier as wc  # noqa: E402

SHIPPED_CLASSIFIER = REPO / "models" / "tile_classifier.onnx"
REAL_DEV = REPO.parent / "shared" / "data" / "real-dev"


@pytest.fixture(scope="module", autouse=True)
def _env():
    from train_classifier import _ultralytics_env

    _ultralytics_env()
    torch.set_num_threads(1)


def _small_net(seed: int = 0):
    """A `small` net with random weights and random BatchNorm statistics/affines (so that copying the
    BatchNorm of a duplicated channel matters)."""
    import yaml
    from ultralytics.nn.tasks import ClassificationModel

    from train_classifier import ARCHS

    torch.manual_seed(seed)
    net = ClassificationModel(yaml.safe_load(ARCHS["small"]), ch=3, nc=75, verbose=False).float().eval()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.3, 0.3)
    return net


def test_channel_map_keeps_old_channels_and_copies_each_at_most_once():
    g = wc.channel_map(64, 96, np.random.default_rng(0))
    assert list(g[:64]) == list(range(64))
    assert len(set(g[64:].tolist())) == 32 and g.max() < 64
    with pytest.raises(ValueError):
        wc.channel_map(64, 32, np.random.default_rng(0))


def test_split_weights_sum_to_one_over_copies():
    in_map = np.array([0, 1, 2, 0, 2])
    P = wc.split_weights((4, 5, 3, 3), in_map, np.random.default_rng(0), 0.2)
    assert np.allclose(P[:, [0, 3]].sum(1), 1.0) and np.allclose(P[:, [2, 4]].sum(1), 1.0)
    assert np.all(P[:, 1] == 1.0)
    assert not np.allclose(P[:, 0], 0.5)  # the copies' shares differ: their gradients will differ


def test_random_small_net_widens_exactly_and_reloads_every_key():
    from train_classifier import ARCHS

    old = _small_net()
    new = wc.widen_net(old, ARCHS["wide"], seed=1)
    assert wc.params(old) == 512027 and wc.params(new) == 875291
    x = np.random.default_rng(0).random((16, 3, 64, 64), dtype=np.float32)
    r = wc.compare(old, new, x)
    assert r["max_abs_dprob"] < 1e-4 and r["top1_agree"] == 1.0
    rl = wc.reload_check(new)
    assert rl["dropped"] == [] and rl["transferred"] == rl["keys"] == len(new.state_dict())
    # the widened C2f halves and the bottleneck residuals really are wider
    assert new.model[4].c == 48 and new.model[6].c == 96 and new.model[6].m[0].add


def test_noise_changes_the_function_only_a_little():
    from train_classifier import ARCHS

    old = _small_net()
    new = wc.widen_net(old, ARCHS["wide"], seed=1, noise=1e-3)
    x = np.random.default_rng(1).random((8, 3, 64, 64), dtype=np.float32)
    r = wc.compare(old, new, x)
    assert 0 < r["max_abs_dprob"] < 1e-2


def test_shipped_classifier_widened_matches_on_real_dev_crops(tmp_path):
    """The shipped ONNX rebuilt into a checkpoint (onnx_checkpoint), widened, saved and loaded as the
    trainer loads an --init: same probabilities on the real-dev crops (max |dprob| < 1e-4, same top-1)."""
    if not REAL_DEV.is_dir():
        pytest.skip("real-dev photos not here")
    from eval_classifier import real_dev_crops
    from ultralytics import YOLO
    from vision.classify import CROP_MARGIN

    crops, _ = real_dev_crops(oc.onnx_imgsz(SHIPPED_CLASSIFIER, 64), CROP_MARGIN)
    x = np.stack(crops).transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    oc.rebuild(SHIPPED_CLASSIFIER, oc.classifier_yaml(tmp_path), "classify", x, tmp_path / "small.pt")
    assert wc.main(["--init", str(tmp_path / "small.pt"), "--arch", "wide", "--out", str(tmp_path / "wide.pt")]) == 0
    wide = YOLO(str(tmp_path / "wide.pt")).model.float()
    assert wc.params(wide) == 875291
    ref = oc.onnx_outputs(SHIPPED_CLASSIFIER, x)
    got = oc.torch_outputs(wide, x)
    assert np.abs(ref - got).max() < 1e-4
    assert (ref.argmax(1) == got.argmax(1)).all()
