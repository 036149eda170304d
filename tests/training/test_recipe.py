"""The model cards' training recipe, run end to end on a tiny budget: `tsumo train detector` (rendered
photos → `datasets/train_detector.py`) and `tsumo train classifier` → ONNX files that the runtime loads and
reads a photo with (`tsumo read --models`). And what ultralytics trains on is what the runtime feeds:
the shipped classifier, rebuilt into a checkpoint, gives through ultralytics' own loading of crop files
the probabilities that `vision.classify` gives for the same crops.

Runs only in the training virtualenv (`make train-env`; `make test` builds it and runs these):

    .venv-train/bin/python -m pytest -m train tests/training
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.train
torch = pytest.importorskip("torch")
pytest.importorskip("ultralytics")

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
REAL_DEV = SHARED / "data" / "real-dev"
RUN = "recipe-test"  # the run name: a run of this name must not appear under the repo's own cache/
SEED = 424242


def _run(cmd: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def recipe(tmp_path_factory) -> Path:
    """`tsumo train detector` and `tsumo train classifier`, as the model cards run them, on eight rendered
    photos and two crops a class, one epoch each, exported to `<work>/models`; every work folder under
    `<work>/cache` (TSUMO_TRAIN_CACHE)."""
    work = tmp_path_factory.mktemp("recipe")
    models = work / "models"
    env = {**os.environ, "TSUMO_TRAIN_CACHE": str(work / "cache"), "OMP_NUM_THREADS": "2"}
    train = [sys.executable, "-m", "tsumo", "train", "--venv", sys.prefix, "--epochs", "1"]
    _run([*train, "detector", "--photos", "8", "--seed", str(SEED), "--render-workers", "1",
          "--out", str(models / "tile_detector.onnx"),
          "--args", f"--real none --imgsz 256 --batch 4 --workers 0 --threads 2 --scale 0.33,0.125,128 --name {RUN}"], env)
    _run([*train, "classifier", "--out", str(models / "tile_classifier.onnx"),
          "--args", f"--seeds {SEED} --per-class 2 --val-per-class 1 --workers 1 --threads 2 --arch small "
                    f"--real none --name {RUN}"], env)
    return work


def test_the_recipe_trains_in_its_work_folder_and_writes_models_the_reader_loads(recipe):
    from vision.classify import TileClassifier, class_names_75
    from vision.detect import TileDetector
    from vision.io import load_image

    models = recipe / "models"
    assert (recipe / "cache" / "runs" / RUN / "weights").is_dir()
    assert (recipe / "cache" / "classifier" / "runs" / RUN / "weights").is_dir()
    assert not (REPO / "cache" / "runs" / RUN).exists() and not (REPO / "cache" / "classifier" / "runs" / RUN).exists()

    det = TileDetector(models / "tile_detector.onnx", threads=2)
    assert det.imgsz == 256 and det.metadata["tsumo_model"] == "tile_detector"
    assert json.loads(det.metadata["tsumo_classes"]) == ["tile"]
    photo = load_image(min((recipe / "cache" / "synth" / f"det_s{SEED}_n8" / "images").glob("*/*.jpg")))
    boxes = det.detect(photo, conf=0.0)  # one epoch finds no tile surely; every anchor still gives a box
    assert boxes and all(0 <= b.x1 < b.x2 <= photo.shape[1] and 0 <= b.y1 < b.y2 <= photo.shape[0] for b in boxes)

    clf = TileClassifier(models / "tile_classifier.onnx", threads=2)
    assert clf.names == class_names_75() and clf.imgsz == 64
    crops = [load_image(p) for p in sorted((recipe / "cache" / "classifier").glob("mix_*/val/*/*.png"))[:20]]
    assert len(crops) == 20
    p = clf.predict_raw(crops)
    assert p.shape == (20, 75) and np.allclose(p.sum(1), 1.0, atol=1e-4)

    # the command line with the new folder: a reading, or "no tiles" said plainly (one epoch), never a crash
    done = subprocess.run([sys.executable, "-m", "tsumo", "read", str(REPO / "examples" / "hand.jpg"),
                           "--models", str(models)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 2), done.stderr
    assert "Traceback" not in done.stderr
    assert done.returncode == 0 or "no tiles" in done.stderr


def test_ultralytics_reads_crop_files_as_the_runtime_reads_the_crops(tmp_path):
    """The classifier trains on PNG crops that ultralytics loads itself (BGR file → RGB, resize, [0, 1]);
    the runtime feeds `crop_tile`'s RGB crops. Were the two to differ (channel order, scaling, resizing),
    every trained model would lose accuracy in the product and no training figure would show it."""
    if not REAL_DEV.is_dir():
        pytest.fail(f"real-dev photos not found at {REAL_DEV}")
    import cv2

    import onnx_checkpoint as oc  # datasets/ is on pytest's pythonpath (pyproject.toml)
    from eval_classifier import real_dev_crops
    from train_classifier import _ultralytics_env
    from ultralytics import YOLO

    from vision.classify import CROP_MARGIN, TileClassifier

    _ultralytics_env()
    shipped = REPO / "models" / "tile_classifier.onnx"
    size = oc.onnx_imgsz(shipped, 64)
    crops, _ = real_dev_crops(size, CROP_MARGIN)
    crops = crops[::3]
    x = np.stack(crops).transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    oc.rebuild(shipped, oc.classifier_yaml(tmp_path), "classify", x, tmp_path / "c.pt")
    files = []
    for i, c in enumerate(crops):
        files.append(tmp_path / f"crop_{i:03d}.png")
        cv2.imwrite(str(files[-1]), np.ascontiguousarray(c[..., ::-1]))
    results = YOLO(str(tmp_path / "c.pt")).predict([str(f) for f in files], imgsz=size, verbose=False)
    trained_view = np.stack([r.probs.data.cpu().numpy() for r in results])

    runtime = TileClassifier(shipped, threads=2, tta_below=None, numeral=None, half_turn=None)
    served = runtime.predict_raw(crops)
    # the check sees a channel mix-up: the same crops fed blue-first read visibly otherwise
    swapped = runtime.predict_raw([np.ascontiguousarray(c[..., ::-1]) for c in crops])
    same, mixed = float(np.abs(served - trained_view).max()), float(np.abs(swapped - trained_view).max())
    print(f"{len(crops)} real-dev crops: runtime vs ultralytics max |dp| {same:.2e}; blue-first {mixed:.3f}")
    assert same <= 1e-3 and (served.argmax(1) == trained_view.argmax(1)).all()
    assert mixed > 0.05
