"""The half-turn read (`vision.classify`): a crop read a second time turned 180°, the two reads combined."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest

from vision.classes import BACK, CLASS_INDEX
from vision.classify import (FLIP_SUFFIX, TileClassifier, class_names_75, combine_half_turn, fold_outputs,
                             half_turn_permutation)

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / "tile_classifier.onnx"
BOXES = Path(__file__).parent / "data" / "real_dev_boxes.json"
NAMES = class_names_75()
TWIN = half_turn_permutation(NAMES)


def _reads(n=5, seed=0):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.full(len(NAMES), 0.3), n).astype(np.float32)


def test_permutation_swaps_each_face_with_its_turned_twin_and_keeps_face_down():
    perm = half_turn_permutation(NAMES)
    assert sorted(perm) == list(range(len(NAMES)))
    assert np.array_equal(perm[perm], np.arange(len(NAMES)))  # turning twice is no turn
    assert NAMES[perm[NAMES.index("3m")]] == "3m" + FLIP_SUFFIX
    assert NAMES[perm[NAMES.index("7z" + FLIP_SUFFIX)]] == "7z"
    assert NAMES[perm[NAMES.index(BACK)]] == BACK


@pytest.mark.parametrize("mode", ["mean", "geo", "face"])
def test_combining_a_read_with_itself_gives_it_back(mode):
    a = _reads()
    assert np.allclose(combine_half_turn(a, a, mode, TWIN), a, atol=1e-6)
    assert np.allclose(combine_half_turn(a, _reads(seed=1), mode, TWIN).sum(1), 1, atol=1e-5)


def test_face_mode_takes_the_face_from_both_reads_but_face_down_and_the_up_from_the_first():
    a, b = _reads(seed=2), _reads(seed=3)
    c = combine_half_turn(a, b, "face", TWIN)
    pa, fa = fold_outputs(a, NAMES)
    pb, _ = fold_outputs(b, NAMES)
    pc, _ = fold_outputs(c, NAMES)
    back = CLASS_INDEX[BACK]
    assert np.allclose(pc[:, back], pa[:, back], atol=1e-6)
    faces = [CLASS_INDEX[n] for n in NAMES if n != BACK and not n.endswith(FLIP_SUFFIX)]
    geo = np.sqrt(pa[:, faces] * pb[:, faces])
    want = geo / geo.sum(1, keepdims=True) * (1 - pa[:, [back]])
    assert np.allclose(pc[:, faces], want, atol=1e-5)
    j, t = NAMES.index("5m"), NAMES.index("5m" + FLIP_SUFFIX)  # each face keeps the first read's up/turned split
    assert np.allclose(c[:, j] / (c[:, j] + c[:, t]), a[:, j] / (a[:, j] + a[:, t]), atol=1e-5)


def test_a_face_both_reads_back_beats_one_only_one_read_is_sure_of():
    a = np.full((1, len(NAMES)), 1e-4, np.float32)
    b = a.copy()
    a[0, NAMES.index("3m")], a[0, NAMES.index("5m")] = 0.55, 0.44   # the plain read slightly prefers 3m
    b[0, NAMES.index("3m")], b[0, NAMES.index("5m")] = 0.05, 0.94   # the turned read is sure it is 5m
    a /= a.sum(1, keepdims=True)
    b /= b.sum(1, keepdims=True)
    probs, _ = fold_outputs(combine_half_turn(a, b, "face", TWIN), NAMES)
    assert probs[0].argmax() == CLASS_INDEX["5m"]


def test_unknown_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="half-turn mode"):
        combine_half_turn(_reads(), _reads(), "median", TWIN)
    with pytest.raises(ValueError, match="half-turn mode"):
        TileClassifier(MODEL, threads=1, half_turn="median")
    with pytest.raises(ValueError, match="half-turn scope"):
        TileClassifier(MODEL, threads=1, half_turn="face", half_turn_scope="sideways")


@pytest.fixture(scope="module")
def real_crops(shared_dir):
    from vision.io import load_image

    doc = json.loads(BOXES.read_text())
    tiles = [t for t in doc["tiles"] if t["image"] == "toby_test.jpeg"][:8]
    image = load_image(shared_dir / "data" / "real-dev" / "toby_test.jpeg")
    return image, [t["box"] for t in tiles], [bool(t["sideways"]) for t in tiles]


def test_geo_read_of_a_crop_and_of_the_crop_turned_agree_exactly(real_crops):
    """Both reads of a crop and of its half turn see the same two pictures: the combined reads are each
    other's permutation (what makes the half-turn read an exact symmetry of the task)."""
    image, boxes, side = real_crops
    clf = TileClassifier(MODEL, threads=1, half_turn="geo", half_turn_scope="all", half_turn_below=None,
                         tta_below=None)
    crops = [clf.crop(image, b, s) for b, s in zip(boxes, side)]
    one = clf.predict_raw(crops)
    other = clf.predict_raw([np.ascontiguousarray(c[::-1, ::-1]) for c in crops])
    assert np.allclose(one, other[:, half_turn_permutation(clf.names)], atol=1e-5)
    plain = TileClassifier(MODEL, threads=1, half_turn=None, tta_below=None).predict_raw(crops)
    assert not np.allclose(one, plain, atol=1e-4)  # the second read did change the probabilities


def test_upright_scope_and_gate_leave_sideways_and_sure_reads_as_the_plain_read(real_crops):
    image, boxes, side = real_crops
    side = [i % 2 == 1 for i in range(len(boxes))]  # every other tile cut sideways, whatever it is
    plain = TileClassifier(MODEL, threads=1, half_turn=None, tta_below=None, numeral=None)
    want = plain.classify_boxes([image] * len(boxes), boxes, side)[0]
    upright = TileClassifier(MODEL, threads=1, half_turn="face", half_turn_scope="upright", half_turn_below=None,
                             tta_below=None, numeral=None)
    got = upright.classify_boxes([image] * len(boxes), boxes, side)[0]
    moved = ~np.isclose(got, want, atol=1e-6).all(1)
    assert not moved[1::2].any() and moved[0::2].any()
    below = 0.995  # these real tiles read 0.95-1.0: a gate that some upright ones pass and some do not
    gated = TileClassifier(MODEL, threads=1, half_turn="face", half_turn_scope="upright", half_turn_below=below,
                           tta_below=None, numeral=None)
    got = gated.classify_boxes([image] * len(boxes), boxes, side)[0]
    moved = ~np.isclose(got, want, atol=1e-6).all(1)
    expect = (want.max(1) < below) & ~np.array(side)
    assert expect.any() and (~expect[0::2]).any()
    assert np.array_equal(moved, expect)


def test_the_shipped_model_reads_unsure_upright_tiles_twice():
    clf = TileClassifier(MODEL, threads=1)
    assert (clf.half_turn, clf.half_turn_scope, clf.half_turn_below) == ("face", "upright", 0.9)
    plain = TileClassifier(MODEL, threads=1, half_turn=None)
    assert plain.half_turn is None


def test_the_model_metadata_switches_it_on(tmp_path):
    model = onnx.load(str(MODEL))
    for key in [p.key for p in model.metadata_props if p.key.startswith("tsumo_half_turn")]:
        del model.metadata_props[[p.key for p in model.metadata_props].index(key)]
    for k, v in (("tsumo_half_turn", "face"), ("tsumo_half_turn_scope", "upright"), ("tsumo_half_turn_below", "0.8")):
        model.metadata_props.add(key=k, value=v)
    onnx.save(model, str(tmp_path / "m.onnx"))
    clf = TileClassifier(tmp_path / "m.onnx", threads=1)
    assert (clf.half_turn, clf.half_turn_scope, clf.half_turn_below) == ("face", "upright", 0.8)
    off = TileClassifier(tmp_path / "m.onnx", threads=1, half_turn=None)
    assert off.half_turn is None


def test_eval_classifier_reads_upright_only_half_turns_from_the_boxes():
    """A half-turn read limited to upright tiles needs each tile's sideways flag, which only the box path
    (`classify_boxes`) has: the evaluation must read that way, as the reader does."""
    import sys

    sys.path.insert(0, str(REPO / "datasets"))
    from eval_classifier import reads_boxes

    bare = dict(threads=1, tta_below=None, numeral=None)
    assert reads_boxes(TileClassifier(MODEL, half_turn="face", half_turn_scope="upright", **bare))
    assert not reads_boxes(TileClassifier(MODEL, half_turn="face", half_turn_scope="all", **bare))
    assert not reads_boxes(TileClassifier(MODEL, half_turn=None, **bare))
