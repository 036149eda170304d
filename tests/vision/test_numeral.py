"""The man-numeral second look (session 16): the cut, the gate, the combination, the companion file."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.classes import CLASS_INDEX, TILE_CLASSES
from vision.classify import (MAN_INDEX, NUMERAL_CLASSES, TileClassifier, combine_numeral, crop_tile, numeral_box,
                             numeral_crop, numeral_gate)

MODEL = Path(__file__).resolve().parents[2] / "models" / "tile_classifier.onnx"


def _smooth_image(seed=0):
    rng = np.random.default_rng(seed)
    return cv2.resize(rng.integers(0, 255, (20, 20, 3)).astype(np.uint8), (200, 200), interpolation=cv2.INTER_LINEAR)


@pytest.mark.parametrize("sideways", [False, True])
@pytest.mark.parametrize("flip", [False, True])
def test_numeral_crop_is_the_top_of_the_upright_tile(sideways, flip):
    img = _smooth_image()
    box = (50, 40, 90, 100)
    whole = crop_tile(img, box, sideways, flip, size=100, margin=0.0)
    top = numeral_crop(img, box, sideways, flip, hw=(50, 100), margin=0.0, keep=0.5)
    assert top.shape == (50, 100, 3)
    assert np.abs(whole[:50].astype(int) - top).mean() < 1.0      # the upper half of the upright tile ...
    assert np.abs(whole[50:].astype(int) - top).mean() > 20.0     # ... not the lower one


def test_numeral_box_keeps_a_margin_above_and_beside_but_not_below():
    x1, y1, x2, y2 = numeral_box((0, 0, 100, 200), False, False, margin=0.1, keep=0.8)
    assert (x1, y1, x2, y2) == pytest.approx((-10, -20, 110, 160))
    # turned 180°: the top of the upright tile is the bottom of the box
    assert numeral_box((0, 0, 100, 200), False, True, margin=0.1, keep=0.8) == pytest.approx((-10, 40, 110, 220))
    # sideways (turned clockwise): the top is the box's left side
    assert numeral_box((0, 0, 200, 100), True, False, margin=0.1, keep=0.8) == pytest.approx((-20, -10, 160, 110))


def _probs(**mass):
    p = np.full((1, len(TILE_CLASSES)), 1e-4, np.float32)
    for k, v in mass.items():
        p[0, CLASS_INDEX[k]] = v
    return p / p.sum()


def test_gate_takes_unsure_reads_with_a_man_tile_in_the_top_two():
    # man top-1 unsure / man only second / sure / no man in the top two
    p = np.concatenate([_probs(**{"3m": 0.6, "5m": 0.3}), _probs(**{"5p": 0.5, "5m": 0.4}),
                        _probs(**{"3m": 0.97}), _probs(**{"5p": 0.6, "5s": 0.3})])
    assert list(numeral_gate(p, 0.9)) == [0, 1]
    assert list(numeral_gate(p, 1.01)) == [0, 1, 2]
    assert list(numeral_gate(p[:0], 0.9)) == []


def test_man_mode_moves_mass_between_man_tiles_only():
    p = _probs(**{"3m": 0.5, "5m": 0.3, "5p": 0.15})
    q = np.zeros((1, 10), np.float32)
    q[0, 4] = 0.9   # the specialist reads a 5
    q[0, 2] = 0.05
    q[0, 9] = 0.05
    out = combine_numeral(p, q, alpha=1.0, mode="man")
    assert TILE_CLASSES[out.argmax()] == "5m"
    assert out[0, MAN_INDEX].sum() == pytest.approx(p[0, MAN_INDEX].sum(), rel=1e-5)
    non = np.setdiff1d(np.arange(len(TILE_CLASSES)), MAN_INDEX)
    np.testing.assert_allclose(out[0, non], p[0, non], rtol=1e-5)
    # the red five takes the specialist's 5 as the plain five does; its share against 5m stays the main model's
    p2 = _probs(**{"3m": 0.5, "5m": 0.1, "0m": 0.3})
    out2 = combine_numeral(p2, q, mode="man")
    assert TILE_CLASSES[out2.argmax()] == "0m"
    assert out2[0, CLASS_INDEX["0m"]] / out2[0, CLASS_INDEX["5m"]] == pytest.approx(3.0, rel=1e-4)


def test_product_mode_lets_the_specialist_say_not_man():
    p = _probs(**{"3m": 0.45, "5p": 0.4})
    q = np.full((1, 10), 0.01, np.float32)
    q[0, 9] = 0.91
    out = combine_numeral(p, q, alpha=1.0, mode="product")
    assert out.sum() == pytest.approx(1.0, abs=1e-5)
    assert TILE_CLASSES[out.argmax()] == "5p"
    assert TILE_CLASSES[combine_numeral(p, q, mode="man").argmax()] == "3m"   # man mode cannot do that
    with pytest.raises(ValueError):
        combine_numeral(p, q, mode="nope")


def test_rank_mode_reorders_man_tiles_but_keeps_the_main_reads_confidence():
    p = _probs(**{"3m": 0.5, "5m": 0.3, "2m": 0.1, "5p": 0.05})
    q = np.full((1, 10), 0.01, np.float32)
    q[0, 4] = 0.91   # the specialist reads a 5
    out = combine_numeral(p, q, alpha=1.0, mode="rank")
    assert TILE_CLASSES[out.argmax()] == "5m"
    p3, p5, p2 = (float(p[0, CLASS_INDEX[c]]) for c in ("3m", "5m", "2m"))
    assert out[0, CLASS_INDEX["5m"]] == pytest.approx(p3)      # the main read's top probability, now on 5m
    assert out[0, CLASS_INDEX["3m"]] == pytest.approx(p5)
    assert out[0, CLASS_INDEX["2m"]] == pytest.approx(p2)
    np.testing.assert_allclose(np.sort(out[0, MAN_INDEX]), np.sort(p[0, MAN_INDEX]), rtol=1e-6)
    non = np.setdiff1d(np.arange(len(TILE_CLASSES)), MAN_INDEX)
    np.testing.assert_allclose(out[0, non], p[0, non], rtol=1e-6)
    # a specialist that agrees with the main read changes nothing
    q2 = np.full((1, 10), 0.01, np.float32)
    q2[0, 2] = 0.91
    np.testing.assert_allclose(combine_numeral(p, q2, mode="rank"), p, rtol=1e-6)


class _FixedReader:
    """Stands in for the specialist: reads every crop as `digit`, records the crops it was given."""

    def __init__(self, digit):
        self.q = np.zeros(len(NUMERAL_CLASSES), np.float32)
        self.q[digit - 1] = 1.0
        self.seen = []

    def crop(self, image, box, sideways, flip):
        return numeral_crop(image, box, sideways, flip)

    def predict(self, crops):
        self.seen.append(len(crops))
        return np.tile(self.q, (len(crops), 1))


def test_classify_boxes_second_look_changes_only_gated_tiles(monkeypatch):
    import vision.classify as vc

    clf = TileClassifier(MODEL, threads=1, numeral=None)
    rng = np.random.default_rng(1)
    images = [rng.integers(0, 255, (90, 80, 3), dtype=np.uint8) for _ in range(6)]
    boxes = [(20, 15, 60, 75)] * 6
    side = [False] * 6
    plain, flip = clf.classify_boxes(images, boxes, side)
    clf.numeral, clf.numeral_below, clf.numeral_alpha, clf.numeral_mode = _FixedReader(7), 0.8, 1.0, "man"
    asked = []
    # noise crops are rarely read as man tiles: the gate (tested above) is replaced by a fixed choice
    monkeypatch.setattr(vc, "numeral_gate", lambda p, below: asked.append(below) or np.array([0, 2, 5]))
    probs, flip2 = clf.classify_boxes(images, boxes, side)
    np.testing.assert_array_equal(flip, flip2)
    gated = {0, 2, 5}
    assert asked == [0.8] and clf.numeral.seen == [3]
    for i in range(6):
        if i in gated:
            assert probs[i, CLASS_INDEX["7m"]] > plain[i, CLASS_INDEX["7m"]]
            assert MAN_INDEX[probs[i, MAN_INDEX].argmax()] == CLASS_INDEX["7m"]   # the man share went to 7m
            assert probs[i, MAN_INDEX].sum() == pytest.approx(plain[i, MAN_INDEX].sum(), rel=1e-4, abs=1e-6)
        else:
            np.testing.assert_array_equal(probs[i], plain[i])


def test_second_look_with_shifted_views_reads_five_boxes_per_gated_tile_in_one_call(monkeypatch):
    import vision.classify as vc

    clf = TileClassifier(MODEL, threads=1, numeral=None)
    rng = np.random.default_rng(2)
    images = [rng.integers(0, 255, (90, 80, 3), dtype=np.uint8) for _ in range(4)]
    clf.numeral, clf.numeral_below, clf.numeral_shift = _FixedReader(3), 0.9, 0.05
    monkeypatch.setattr(vc, "numeral_gate", lambda p, below: np.array([1, 3]))
    probs, _ = clf.classify_boxes(images, [(20, 15, 60, 75)] * 4, [False, True, False, True])
    assert clf.numeral.seen == [2 * 5]
    assert MAN_INDEX[probs[1, MAN_INDEX].argmax()] == CLASS_INDEX["3m"]


def _fake_specialist(path, digit: int = 7):
    """A stand-in specialist ONNX: global average of the input → a fixed 10-way softmax that reads `digit`."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    path.parent.mkdir(parents=True, exist_ok=True)
    inp = helper.make_tensor_value_info("images", TensorProto.FLOAT, ["n", 3, 56, 48])
    out = helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["n", 10])
    w = helper.make_tensor("w", TensorProto.FLOAT, [3, 10], np.zeros((3, 10), np.float32).ravel().tolist())
    bias = [0.0] * 10
    bias[digit - 1] = 5.0
    b = helper.make_tensor("b", TensorProto.FLOAT, [10], bias)
    graph = helper.make_graph([helper.make_node("GlobalAveragePool", ["images"], ["g"]),
                               helper.make_node("Flatten", ["g"], ["f"]),
                               helper.make_node("Gemm", ["f", "w", "b"], ["z"]),
                               helper.make_node("Softmax", ["z"], ["probs"], axis=1)],
                              "fake_numeral", [inp], [out], [w, b])
    spec = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    spec.ir_version = 8
    for k, v in {"tsumo_numeral_classes": json.dumps(list(NUMERAL_CLASSES)), "tsumo_numeral_hw": "[56, 48]"}.items():
        e = spec.metadata_props.add()
        e.key, e.value = k, v
    onnx.save(spec, str(path))
    return path


def test_companion_file_named_in_the_metadata_is_loaded_when_present(tmp_path):
    """`train_numeral.attach` names a specialist (and its gate) in a copy of the main model, replacing any the model
    named before (the shipped one names its own)."""
    pytest.importorskip("onnx")
    from train_numeral import attach

    spec = _fake_specialist(tmp_path / "spec" / "man_numeral.onnx", 7)
    attach(MODEL, spec, tmp_path, below=0.9, alpha=2.0, mode="product", shift=0.05)
    clf = TileClassifier(tmp_path / "tile_classifier.onnx", threads=1)
    assert clf.numeral is not None and clf.numeral.hw == (56, 48)
    assert (clf.numeral_below, clf.numeral_alpha, clf.numeral_mode, clf.numeral_shift) == (0.9, 2.0, "product", 0.05)
    q = clf.numeral.predict([np.zeros((56, 48, 3), np.uint8)])
    assert q.shape == (1, 10) and q[0].argmax() == 6
    # without the companion file the model reads alone
    (tmp_path / "man_numeral.onnx").unlink()
    assert TileClassifier(tmp_path / "tile_classifier.onnx", threads=1).numeral is None
    shutil.rmtree(tmp_path)


def test_the_shipped_classifier_reads_with_its_shipped_specialist():
    """Session 17 ships the second look: the model's metadata names `man_numeral.onnx` beside it, with the gate and
    combination chosen on tune9 (man, below 0.9, alpha 0.5, one view); `numeral=None` still reads alone."""
    clf = TileClassifier(MODEL, threads=1)
    assert clf.numeral is not None and clf.numeral.path == MODEL.parent / "man_numeral.onnx"
    assert (clf.numeral_below, clf.numeral_alpha, clf.numeral_mode, clf.numeral_shift) == (0.9, 0.5, "man", 0.0)
    assert TileClassifier(MODEL, threads=1, numeral=None).numeral is None


def test_tune_recomputes_what_the_second_look_reads(tmp_path):
    """`train_numeral.tune`'s cached combinations give the hand-tile errors `eval_photos` measures with the
    specialist really attached, for each mode; and it refuses a held-out set."""
    pytest.importorskip("onnx")
    photos = pytest.importorskip("tsumo_synth.photos")
    from eval_classifier import eval_photos
    from train_numeral import tune

    spec = _fake_specialist(tmp_path / "man_numeral.onnx", 3)
    set_dir = tmp_path / "tune_small"
    photos.write_dataset(set_dir, 3, 9601, val_frac=0.0, quiet=True)   # tune9's first three photos
    rows = tune(MODEL, spec, set_dir, shifts=(0.0,), below=(1.01,), alpha=(8.0,), modes=("man", "rank"), threads=1)
    by_mode = {r["mode"]: r for r in rows}
    plain = eval_photos(TileClassifier(MODEL, threads=1, numeral=None), set_dir)
    assert by_mode["off"]["errors"] == plain["errors"]
    for mode in ("man", "rank"):
        clf = TileClassifier(MODEL, threads=1, numeral=spec, numeral_below=1.01, numeral_alpha=8.0,
                             numeral_mode=mode, numeral_shift=0.0)
        res = eval_photos(clf, set_dir)
        assert by_mode[mode]["errors"] == res["errors"]
        assert by_mode[mode]["gated"] > 0
    # a specialist that reads every man tile as a 3 must cost errors somewhere on real hands
    assert by_mode["man"]["errors"] > by_mode["off"]["errors"]
    held = tmp_path / "det_test_x"
    held.mkdir()
    with pytest.raises(ValueError, match="held-out"):
        tune(MODEL, spec, held)
    from train_numeral import main

    with pytest.raises(SystemExit) as exit_:   # the command line says so and exits 2
        main(["tune", str(MODEL), str(spec), str(held)])
    assert exit_.value.code == 2


@pytest.mark.parametrize("seed", [0, 71, 77, 9601, 9602, 9603, 9604])
def test_trainers_refuse_a_measuring_sets_photo_seed_on_the_command_line(tmp_path, capsys, monkeypatch, seed):
    """Both trainers render training photos only from seeds no measuring set uses (`tsumo_synth.photos.
    HELD_OUT_PHOTO_SEEDS`, face pool 0): asked for one, the command line says which and exits 2, and
    writes nothing."""
    import train_classifier
    from train_numeral import main as numeral_main

    monkeypatch.setattr(train_classifier, "CACHE", tmp_path / "cache")

    with pytest.raises(SystemExit) as exit_:
        numeral_main(["render", "--out", str(tmp_path / "n"), "--seeds", str(seed), "--gens", "v4", "--photos", "1"])
    assert exit_.value.code == 2 and f"photo seed {seed} is held out" in capsys.readouterr().err
    assert train_classifier.main(["--seeds", "1", "--per-class", "0", "--no-render", "--photo-seed", "9811", str(seed),
                                 "--photos", "1"]) == 2
    assert f"photo seed {seed} is held out" in capsys.readouterr().err
    assert not (tmp_path / "n").exists() and not (tmp_path / "cache").exists()   # 9811, listed first, is not rendered
