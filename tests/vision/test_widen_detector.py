"""datasets/widen_detector.py: a detector checkpoint of train_detector's yaml widened from width 0.125 to
0.1875 computes the same raw head (boxes and scores, Net2WiderNet through Conv, C2f, SPPF, Upsample,
Concat and Detect), reloads through ultralytics' state-dict intersection without dropping a key, and is
saved so that the trainer's `--init` rebuilds it. Runs only in the training venv (torch, ultralytics):

    .venv-train/bin/python -m pytest tests/vision/test_widen_detector.py
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

import widen_detector as wd  # noqa: E402

NARROW = (0.33, 0.125, 512)  # the shipped detector's scale
WIDE = (0.33, 0.1875, 512)


@pytest.fixture(scope="module", autouse=True)
def _env():
    from train_detector import _ensure_fonts

    _ensure_fonts()
    torch.set_num_threads(1)


def _net(tmp_path: Path, scale=NARROW, seed: int = 0):
    """A detector with random weights, random BatchNorm statistics/affines and random head biases (so
    that copying a duplicated channel's BatchNorm and keeping the output convs' biases matter)."""
    import yaml
    from ultralytics.nn.tasks import DetectionModel

    torch.manual_seed(seed)
    y = wd.target_yaml(scale, tmp_path / f"w{scale[1]}")
    net = DetectionModel(yaml.safe_load(y.read_text()), ch=3, nc=1, verbose=False).float().eval()
    bns = [m for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        for m in bns:
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-0.3, 0.3)
        for seq in (*net.model[-1].cv2, *net.model[-1].cv3):
            seq[-1].bias.uniform_(-1.0, 1.0)
        # statistics of a real batch (as training leaves them), so that every layer passes on its input
        for m in bns:
            m.momentum = 1.0
        net.train()
        net(torch.rand(4, 3, 256, 256))
        net.eval()
    return net


def test_random_detector_depends_on_its_input(tmp_path):
    """(what the function checks below rest on: the random net's scores are not a constant)"""
    from onnx_checkpoint import torch_outputs

    a = torch_outputs(_net(tmp_path), np.random.default_rng(5).random((2, 3, 256, 256), dtype=np.float32))
    assert np.abs(a[0, 4] - a[1, 4]).max() > 1e-2


def test_random_detector_widens_exactly_and_reloads_every_key(tmp_path):
    old = _net(tmp_path)
    y = wd.target_yaml(WIDE, tmp_path / "wide")
    new = wd.widen_net(old, y, seed=1)
    assert wd.params(old) == 608539 and wd.params(new) == 1143219
    # the widths the task names: 16-24-48-96-96, SPPF hidden 48, Detect's class branch 32 -> 48, box branch 64
    assert [new.model[i].conv.weight.shape[0] for i in (0, 1, 3, 5, 7)] == [16, 24, 48, 96, 96]
    assert new.model[9].cv1.conv.weight.shape[0] == 48
    det_old, det_new = old.model[-1], new.model[-1]
    assert det_new.cv3[0][0].conv.weight.shape[0] == 48 and det_old.cv3[0][0].conv.weight.shape[0] == 32
    assert det_new.cv2[0][0].conv.weight.shape[0] == 64
    for so, sn in zip((*det_old.cv2, *det_old.cv3), (*det_new.cv2, *det_new.cv3)):
        assert torch.equal(so[-1].bias, sn[-1].bias)  # outputs of the head stay, biases copied
    x = np.random.default_rng(0).random((4, 3, 256, 320), dtype=np.float32)
    r = wd.compare(old, new, x)
    # boxes are in input pixels (up to ~300 here): float32 rounding of a longer sum...
    assert r["max_abs_dbox"] < 2e-2 and r["max_abs_dscore"] < 1e-4
    # ... as float64 arithmetic shows (what is left: the split weights rounded to float32)
    with torch.no_grad():
        a, b = (n.double()(torch.as_tensor(x, dtype=torch.float64))[0] for n in (old, new))
    assert (a - b).abs().max().item() < 1e-3
    old.float(), new.float()
    rl = wd.reload_check(new)  # rebuilt from its yaml, which is the target yaml above
    assert rl["dropped"] == [] and rl["transferred"] == rl["keys"] == len(new.state_dict()) == 355


def test_compare_sees_a_broken_widening(tmp_path):
    """The check has teeth: doubling one widened layer's filters (as if a consumer had not split the
    input weights among the copies) shows in the head."""
    old = _net(tmp_path)
    new = wd.widen_net(old, wd.target_yaml(WIDE, tmp_path / "wide"), seed=1)
    with torch.no_grad():
        new.model[1].conv.weight.mul_(2.0)
    x = np.random.default_rng(0).random((2, 3, 256, 256), dtype=np.float32)
    r = wd.compare(old, new, x)
    assert r["max_abs_dscore"] > 1e-3 and r["max_abs_dbox"] > 0.1


def test_main_saves_an_init_the_trainer_loads(tmp_path):
    """--init a saved narrow checkpoint -> --out: ultralytics' YOLO loads it (as train_detector's --init
    does) with the target scale, and it computes what the narrow one does."""
    from onnx_checkpoint import save_checkpoint
    from ultralytics import YOLO

    old = _net(tmp_path, seed=3)
    save_checkpoint(old, tmp_path / "narrow.pt", info={}, train_args={"task": "detect", "imgsz": 256})
    assert wd.main(["--init", str(tmp_path / "narrow.pt"), "--out", str(tmp_path / "wide.pt")]) == 0
    wide = YOLO(str(tmp_path / "wide.pt")).model.float().eval()
    assert wide.yaml["scales"]["n"][1] == 0.1875 and wd.params(wide) == 1143219
    x = np.random.default_rng(2).random((2, 3, 256, 256), dtype=np.float32)
    r = wd.compare(old, wide, x)
    assert r["max_abs_dbox"] < 2e-2 and r["max_abs_dscore"] < 1e-4


def test_narrowing_is_refused(tmp_path):
    old = _net(tmp_path, scale=WIDE)
    with pytest.raises(ValueError):
        wd.widen_net(old, wd.target_yaml(NARROW, tmp_path / "narrow"))
