"""The crop contract (`crop_tile`) and the shipped tile classifier (`models/tile_classifier.onnx`)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.classes import TILE_CLASSES
from vision.classify import CROP_MARGIN, INPUT_SIZE, TileClassifier, class_names_75, crop_tile, fold_outputs

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / "tile_classifier.onnx"
BOXES = Path(__file__).parent / "data" / "real_dev_boxes.json"

# Measured on the shipped model (see models/tile_classifier.md); the tests allow a small margin.
# Target (issue #3): 99.5 % on the held-out synthetic set; not met yet, so these are measured floors.
HELD_OUT_MIN_ACC = 0.92  # shipped model (run 8): 96.9 % on the 1 500-crop 64-px held-out set (run 7: 97.0 %)
HELD_OUT_MIN_FLIP = 0.85  # shipped model: 1.00 here on the faces that look different upside down
# Faces that look different upside down (most pins/sous are symmetric under a half turn, so their
# flip is undefined; recognition's owner vote gives them ~no weight).
ASYMMETRIC = {f"{n}m" for n in range(1, 10)} | {"1z", "2z", "3z", "4z", "6z", "7z", "0m", "1s", "3s", "7s", "6p", "7p"}
REAL_DEV_MIN_CORRECT = 48  # of 50 (shipped model, run 8: 50; run 7: 50; run 6: 50; run 5: 45; target: all 50)
# Hand tiles of held-out rendered photos 0-11 (the slow test below): run 8 reads 172 of 176
# (run 7: 171, run 6: 169, run 5: 159); 93.4 % of all 2 169 hand tiles of the 150-photo set. Target (issue #3): 99.5 %.
PHOTO_TILES = 176
PHOTO_MIN_CORRECT = 166
# ... and 164 of the 176 keep their class under all six ±5 % box shifts (eval_classifier.box_shifts;
# 89.5 % of the whole set, run 7: 87.5 %). Target: a read that never swings with the box.
PHOTO_MIN_STEADY = 158


# ---- crop_tile geometry --------------------------------------------------------------------------

def _marked_tile(h=300, w=400, box=(100, 80, 220, 240), top_colour=(0, 0, 255)):
    """Grey photo with a white 'tile' in `box` whose top band is coloured (to see where up went)."""
    img = np.full((h, w, 3), 90, np.uint8)
    x1, y1, x2, y2 = box
    img[y1:y2, x1:x2] = 255
    img[y1:y1 + (y2 - y1) // 5, x1:x2] = top_colour
    return img


def test_crop_is_square_rgb_of_the_model_size():
    crop = crop_tile(_marked_tile(), (100, 80, 220, 240), sideways=False)
    assert crop.shape == (INPUT_SIZE, INPUT_SIZE, 3) and crop.dtype == np.uint8


def test_margin_keeps_context_around_the_box():
    crop = crop_tile(_marked_tile(), (100, 80, 220, 240), sideways=False).astype(int)
    s = INPUT_SIZE
    edge = round(s * CROP_MARGIN / (1 + 2 * CROP_MARGIN))  # background band width in the crop
    assert edge >= 2
    assert np.all(np.abs(crop[s // 2, : edge - 1] - 90) < 10)       # left band: background
    assert np.all(np.abs(crop[s // 2, s - edge + 1:] - 90) < 10)     # right band: background
    assert np.all(crop[s // 2, edge + 1: s - edge - 1] > 240)       # the tile fills the middle
    assert crop[edge + 2, s // 2, 2] > 200 and crop[edge + 2, s // 2, 0] < 60  # blue top band at the top


def test_sideways_tile_with_top_to_the_left_reads_upright():
    # a tile lying sideways, its top (blue) pointing left
    img = np.full((300, 400, 3), 90, np.uint8)
    img[100:200, 80:230] = 255
    img[100:200, 80:110] = (0, 0, 255)
    crop = crop_tile(img, (80, 100, 230, 200), sideways=True)
    s = INPUT_SIZE
    assert crop[s // 8 + 2, s // 2, 2] > 200 and crop[s // 8 + 2, s // 2, 0] < 60  # blue now at the top
    assert crop[s - s // 8 - 2, s // 2].min() > 240
    flipped = crop_tile(img, (80, 100, 230, 200), sideways=True, flip=True)
    assert np.array_equal(flipped, crop[::-1, ::-1])


def test_flip_turns_the_crop_half_a_turn():
    img = _marked_tile()
    a = crop_tile(img, (100, 80, 220, 240), sideways=False)
    b = crop_tile(img, (100, 80, 220, 240), sideways=False, flip=True)
    assert np.array_equal(a[::-1, ::-1], b)


def test_box_partly_outside_the_photo_is_padded_not_an_error():
    img = _marked_tile()
    crop = crop_tile(img, (-30, -20, 60, 100), sideways=False)
    assert crop.shape == (INPUT_SIZE, INPUT_SIZE, 3)
    crop = crop_tile(img, (350.5, 250.2, 420.7, 330.1), sideways=True)
    assert crop.shape == (INPUT_SIZE, INPUT_SIZE, 3)


@pytest.mark.parametrize("box", [(10, 10, 10, 50), (50, 50, 40, 60)])
def test_empty_box_is_a_clear_error(box):
    with pytest.raises(ValueError, match="empty box"):
        crop_tile(_marked_tile(), box, sideways=False)


def test_non_rgb_image_is_a_clear_error():
    with pytest.raises(ValueError, match="RGB"):
        crop_tile(np.zeros((20, 20), np.uint8), (1, 1, 10, 10), sideways=False)


def test_fold_outputs_sums_the_two_orientations():
    names = class_names_75()
    p = np.zeros((2, len(names)), np.float32)
    p[0, names.index("3p")] = 0.5
    p[0, names.index("3p@180")] = 0.3
    p[0, names.index("back")] = 0.2
    p[1, names.index("0s@180")] = 1.0
    probs, flip = fold_outputs(p, names)
    assert probs.shape == (2, 38) and flip.shape == (2, 2)
    assert probs[0, TILE_CLASSES.index("3p")] == pytest.approx(0.8)
    assert probs[0, TILE_CLASSES.index("back")] == pytest.approx(0.2)
    assert flip[0] == pytest.approx([0.7, 0.3])
    assert probs[1, TILE_CLASSES.index("0s")] == pytest.approx(1.0) and flip[1, 1] == pytest.approx(1.0)


# ---- the shipped model -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def classifier():
    assert MODEL.is_file(), f"shipped model missing: {MODEL}"
    return TileClassifier(MODEL, threads=2)


def test_model_loads_with_onnxruntime_alone_and_records_its_contract():
    code = (
        "import sys, numpy as np\n"
        "from vision.classify import TileClassifier\n"
        f"c = TileClassifier(r'{MODEL}')\n"
        "p, f = c.classify(np.zeros((3, c.imgsz, c.imgsz, 3), np.uint8))\n"
        "assert p.shape == (3, 38) and f.shape == (3, 2)\n"
        "assert 'torch' not in sys.modules and 'ultralytics' not in sys.modules\n"
        "print(c.imgsz, c.margin, len(c.names))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    imgsz, margin, n = out.stdout.split()
    assert int(imgsz) == INPUT_SIZE and float(margin) == CROP_MARGIN and int(n) == 75
    assert MODEL.stat().st_size < 5_000_000


def test_classify_accepts_a_list_an_array_and_nothing(classifier):
    crops = np.random.default_rng(0).integers(0, 255, (4, INPUT_SIZE, INPUT_SIZE, 3), dtype=np.uint8)
    p1, f1 = classifier.classify(crops)
    p2, f2 = classifier.classify(list(crops))
    assert np.allclose(p1, p2, atol=1e-5) and np.allclose(f1, f2, atol=1e-5)
    assert np.allclose(p1.sum(1), 1, atol=1e-4) and np.allclose(f1.sum(1), 1, atol=1e-4)
    p0, f0 = classifier.classify([])
    assert p0.shape == (0, 38) and f0.shape == (0, 2)
    with pytest.raises(ValueError, match="RGB"):
        classifier.classify([np.zeros((INPUT_SIZE, INPUT_SIZE), np.uint8)])


def test_held_out_rendered_crops_are_read(classifier, shared_dir):
    """Fresh renders (seed never used in training), one upright and one turned per label."""
    from tsumo_synth import TileArtist
    from tsumo_synth.crops import CropMaker

    maker = CropMaker(TileArtist(shared_dir, seed=0), size=classifier.imgsz, pool_size=20, pool_seed=777)
    crops, labels, flipped = [], [], []
    for i, label in enumerate(TILE_CLASSES):
        for turn in (0, 180):
            c = maker.make(label, np.random.default_rng([4242, i, turn]), turn=turn)
            crops.append(c.image)
            labels.append(label)
            flipped.append(c.flipped)
    probs, flip = classifier.classify(crops)
    pred = [TILE_CLASSES[k] for k in probs.argmax(1)]
    acc = np.mean([p == t for p, t in zip(pred, labels)])
    wrong = [(t, p) for p, t in zip(pred, labels) if p != t]
    assert acc >= HELD_OUT_MIN_ACC, wrong
    face_up = [k for k, t in enumerate(labels) if t != "back"]
    flip_acc = np.mean([(flip[k, 1] > 0.5) == flipped[k] for k in face_up if labels[k] in ASYMMETRIC])
    assert flip_acc >= HELD_OUT_MIN_FLIP


def test_real_dev_tiles(classifier, shared_dir):
    """Real riichi photos the model never saw (hand-drawn boxes): a regression floor."""
    from vision.io import load_image

    doc = json.loads(BOXES.read_text())
    images = {}
    crops, labels = [], []
    for e in doc["tiles"]:
        if e["image"] not in images:
            images[e["image"]] = load_image(shared_dir / "data" / "real-dev" / e["image"])
        crops.append(classifier.crop(images[e["image"]], e["box"], e["sideways"]))
        labels.append(e["label"])
    assert len(crops) == 50
    probs, _ = classifier.classify(crops)
    pred = [TILE_CLASSES[k] for k in probs.argmax(1)]
    correct = sum(p == t for p, t in zip(pred, labels))
    assert correct >= REAL_DEV_MIN_CORRECT, [(t, p) for p, t in zip(pred, labels) if p != t]


# ---- how the held-out sets are cut and split ------------------------------------------------------

def test_degraded_rule_uses_generator_parameters_only():
    from tsumo_synth.crops import degraded

    clean = {"tile_px": 60.0, "glare": 0.0, "finger": 0.0, "box_cut": 0.05, "motion_px": 0, "blur_sigma": 0.5, "jpeg": 90}
    assert not degraded(clean)
    assert degraded({**clean, "glare": 70.0})
    assert degraded({**clean, "finger": 0.3})
    assert degraded({**clean, "box_cut": 0.22})
    assert degraded({**clean, "motion_px": 7})
    assert degraded({**clean, "tile_px": 32.0, "blur_sigma": 0.45})
    assert not degraded({**clean, "tile_px": 32.0, "blur_sigma": 0.3})


def test_crops_record_their_camera_parameters(shared_dir):
    from tsumo_synth import TileArtist
    from tsumo_synth.crops import CropMaker

    maker = CropMaker(TileArtist(shared_dir, seed=0), pool_size=10)
    a = maker.make("3m", np.random.default_rng(11))
    b = maker.make("3m", np.random.default_rng(11))
    assert np.array_equal(a.image, b.image) and a.params == b.params
    assert {"tile_px", "glare", "finger", "box_cut", "motion_px", "blur_sigma", "jpeg"} <= set(a.params)
    assert 30 <= a.params["tile_px"] <= 130


def test_photo_tile_crops_cut_hand_tiles_upright_as_the_reader_does(shared_dir):
    """A photo from the owner's seat, not rolled: every face-up hand tile that is not sideways
    reads upright in its crop; one crop per hand tile, in hand order."""
    from tsumo_synth import scene
    from tsumo_synth.crops import photo_tile_crops

    rng = np.random.default_rng(5)
    spec = scene.random_scene_hand(rng)
    image, labels = scene.render_hand_photo(spec.sequence, rng, size=(640, 480), azimuth_deg=0.0, roll_deg=0.0,
                                            distractors=False)
    tiles = labels.to_json()["tiles"]
    hand = sorted((t for t in tiles if t["in_hand"]), key=lambda t: t["index"])
    crops = photo_tile_crops(image, tiles)
    assert [c.label for c in crops] == [t["cls"] for t in hand]
    assert all(c.image.shape == (INPUT_SIZE, INPUT_SIZE, 3) for c in crops)
    upright = [c for c, t in zip(crops, hand) if not t["sideways"] and t["cls"] != "back" and t["rotation"] == 0]
    assert upright and all(c.flipped is False for c in upright)
    sideways = [c for c in crops if c.sideways]
    assert all(c.flipped is not None for c in sideways if c.label != "back")


def test_photo_tile_crops_offset_moves_every_box_by_a_share_of_its_size(shared_dir):
    """The steadiness measure (`eval_classifier.eval_steadiness`) cuts each hand tile again with
    its box moved: a zero offset is the exact cut, a 5 % shift right is the exact cut of a box
    moved by 5 % of its width (checked on the crop's pixels: the shifted crop differs)."""
    from tsumo_synth import scene
    from tsumo_synth.crops import photo_tile_crops

    rng = np.random.default_rng(5)
    spec = scene.random_scene_hand(rng)
    image, labels = scene.render_hand_photo(spec.sequence, rng, size=(640, 480), azimuth_deg=0.0, roll_deg=0.0,
                                            distractors=False)
    tiles = labels.to_json()["tiles"]
    exact = photo_tile_crops(image, tiles)
    zero = photo_tile_crops(image, tiles, offset=(0, 0, 0, 0))
    moved = photo_tile_crops(image, tiles, offset=(0.05, 0, 0.05, 0))
    assert all(np.array_equal(a.image, b.image) for a, b in zip(exact, zero))
    assert len(moved) == len(exact) and [c.label for c in moved] == [c.label for c in exact]
    assert all(not np.array_equal(a.image, b.image) for a, b in zip(exact, moved))


@pytest.mark.slow
def test_hand_tiles_of_held_out_rendered_photos(classifier, shared_dir, monkeypatch):
    """The issue's held-out synthetic set is rendered photos: the hand tiles of photos 0–11 of the
    held-out photo set (photo seed 99, face pool 0; the classifier trains on photo seeds 7001-7005,
    each with its own face pool), cut as the reader cuts them, and again with the box moved by 5 %
    (steadiness). Target (issue #3): 99.5 %; measured floors."""
    from tsumo_synth.crops import photo_tile_crops
    from tsumo_synth.photos import render_one
    from tsumo_synth.scene import default_face_source

    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    from eval_classifier import box_shifts

    artist = default_face_source(shared_dir, seed=0)
    photos = [render_one(i, 99, artist=artist) for i in range(12)]

    def cut(offset=None):
        return [c for image, labels in photos for c in photo_tile_crops(
            image, labels.to_json()["tiles"], size=classifier.imgsz, margin=classifier.margin, offset=offset)]

    crops = cut()
    assert len(crops) == PHOTO_TILES
    probs, _ = classifier.classify([c.image for c in crops])
    pred = [TILE_CLASSES[k] for k in probs.argmax(1)]
    correct = sum(p == c.label for p, c in zip(pred, crops))
    assert correct >= PHOTO_MIN_CORRECT, [(c.label, p) for p, c in zip(pred, crops) if p != c.label]
    steady = np.ones(len(crops), bool)
    for offset in box_shifts(0.05):
        steady &= classifier.classify([c.image for c in cut(offset)])[0].argmax(1) == probs.argmax(1)
    assert steady.sum() >= PHOTO_MIN_STEADY


def test_photo_crop_sets_take_a_renderer_preset_and_refuse_the_held_out_face_pool(tmp_path, shared_dir, monkeypatch):
    """Training crops cut from scene-renderer photos (`train_classifier.render_photo_crops`): a
    preset other than the held-out sets' ("hard": added kans lying on their sideways tile, ...)
    is rendered photo by photo into class folders; face pool seed 0 (the held-out one) is refused."""
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    from train_classifier import folder_name, render_photo_crops

    with pytest.raises(ValueError):
        render_photo_crops(tmp_path / "s0", 0, 1, size=32, shared=shared_dir)
    out = render_photo_crops(tmp_path / "hard", 7003, 1, size=32, shared=shared_dir, pool_per_label=2, preset="hard")
    crops = sorted((out / "train").rglob("*.png"))
    assert (out / "done" / "000000").exists() and len(crops) >= 10
    folders = {p.parent.name for p in crops}
    assert folders <= {folder_name(i, n) for i, n in enumerate(class_names_75())} and len(folders) >= 5


def test_third_photo_view_adds_shifted_hand_crops_and_keeps_the_first_two(tmp_path, shared_dir, monkeypatch):
    """`views=3` (run 8) adds hand-tile crops with boxes moved by N(0, 8 %) per edge, so the model
    learns to read a tile the same under the detector's box shifts; the two views every earlier
    photo-crop set was rendered with stay byte-identical (the crop sets of seeds 7001-7003 remain
    reproducible by the same code)."""
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    from train_classifier import render_photo_crops

    two = render_photo_crops(tmp_path / "v2", 7004, 1, size=32, shared=shared_dir, pool_per_label=2)
    three = render_photo_crops(tmp_path / "v3", 7004, 1, size=32, shared=shared_dir, pool_per_label=2, views=3)
    old = {p.relative_to(two): p.read_bytes() for p in (two / "train").rglob("*.png")}
    new = {p.relative_to(three): p.read_bytes() for p in (three / "train").rglob("*.png")}
    third = {k for k in new if k.stem.endswith("_2")}
    assert old and {k: v for k, v in new.items() if k not in third} == old
    assert 0 < len(third) < len(old) / 2  # hand tiles only, in one view


def test_photo_crop_sets_at_a_larger_scale_cut_the_same_tiles_from_more_pixels(tmp_path, shared_dir, monkeypatch):
    """`scale` (session 18): the same photos shot with scale² the pixels, for the pixel density of a phone
    photo (real-dev: 1 920-2 048 px across, the renders 640): the same tiles are cut, each from a box
    `scale` times as long, and a measuring set's photo seed (det_test_x3g's 77) is refused like pool 0."""
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    from train_classifier import read_crop_meta, render_photo_crops

    with pytest.raises(ValueError, match="held out"):
        render_photo_crops(tmp_path / "gate", 77, 1, size=32, shared=shared_dir)
    one = read_crop_meta(render_photo_crops(tmp_path / "x1", 7004, 1, size=32, shared=shared_dir, pool_per_label=2))
    three = read_crop_meta(render_photo_crops(tmp_path / "x3", 7004, 1, size=32, shared=shared_dir, pool_per_label=2,
                                              scale=3.0))
    view0 = {k.split("/")[-1]: px for k, (_, px, _) in one.items() if k.endswith("_0.png")}
    view0_x3 = {k.split("/")[-1]: px for k, (_, px, _) in three.items() if k.endswith("_0.png")}
    same = set(view0) & set(view0_x3)
    assert len(same) >= 0.8 * len(view0)  # (a tile at the 12-px or 50 %-visible line may fall either side)
    ratios = sorted(view0_x3[k] / view0[k] for k in same)
    assert 2.7 < ratios[len(ratios) // 2] < 3.3


def test_build_mix_boost_raises_the_photo_cap_of_weak_labels_both_ways_up(tmp_path, monkeypatch):
    """`--boost 1m=1.5` (run 10): the man numerals read worst, so their photo cap is raised and they
    get more *distinct* crops; other labels keep the cap, uncapped sources are untouched."""
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    from train_classifier import build_mix, folder_name

    names = class_names_75()
    src, extra = tmp_path / "photos", tmp_path / "v3"
    for root, n in ((src, 10), (extra, 3)):
        for i, name in enumerate(names):
            d = root / "train" / folder_name(i, name)
            d.mkdir(parents=True)
            for k in range(n):
                (d / f"c{k:02d}.png").write_bytes(b"x")
    (src / "val" / folder_name(0, names[0])).mkdir(parents=True)
    (src / "val" / folder_name(0, names[0]) / "v.png").write_bytes(b"x")
    mix = build_mix(tmp_path / "mix", [extra, src], None, caps={src: 4}, boost={"1m": 1.5})
    count = {name: len(list((mix / "train" / folder_name(i, name)).iterdir())) for i, name in enumerate(names)}
    assert count["1m"] == count["1m@180"] == 3 + 6
    assert count["2m"] == count["back"] == count["7z@180"] == 3 + 4
    assert len(list((mix / "val").rglob("*.png"))) == 1


def test_photo_crop_sets_record_each_crops_sideways_flag_and_size(tmp_path, shared_dir, monkeypatch):
    """crops.tsv (session 8): one row per written crop (path, sideways, long side px, in hand), so
    training can weight sideways tiles and results can be split by tile size; a set without the file
    (rendered before) reads as no facts, not an error."""
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    from train_classifier import read_crop_meta, render_photo_crops

    assert read_crop_meta(tmp_path / "old") == {}
    out = render_photo_crops(tmp_path / "calls", 8001, 2, size=32, shared=shared_dir, pool_per_label=2,
                             preset="calls", views=3)
    meta = read_crop_meta(out)
    files = {str(p.relative_to(out)) for p in out.rglob("*.png")}
    assert meta and set(meta) == files
    assert any(sw for sw, _, _ in meta.values()) and not all(sw for sw, _, _ in meta.values())
    assert all(px >= 12.0 for _, px, _ in meta.values())  # the renderer's min_px
    assert all(hand for rel, (sw, _, hand) in meta.items() if sw)  # only hand tiles are cut sideways


def test_build_mix_sideways_weight_links_sideways_crops_again_after_the_cap(tmp_path, monkeypatch):
    """`--sideways-weight 2` (run 12): crops that crops.tsv marks sideways are linked twice (train
    only); others and sets without crops.tsv once."""
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    from train_classifier import CROP_META, build_mix, folder_name

    names = class_names_75()
    src, old = tmp_path / "photos", tmp_path / "old"
    rows = []
    for root in (src, old):
        for i, name in enumerate(names):
            d = root / "train" / folder_name(i, name)
            d.mkdir(parents=True)
            for k in range(3):
                (d / f"c{k}.png").write_bytes(b"x")
                rows.append(f"train/{d.name}/c{k}.png\t{int(k == 0)}\t20.0\t1\n")
    (src / "val" / folder_name(0, names[0])).mkdir(parents=True)
    (src / "val" / folder_name(0, names[0]) / "c0.png").write_bytes(b"x")
    (src / CROP_META).write_text("".join(rows[: len(rows) // 2]) + f"val/{folder_name(0, names[0])}/c0.png\t1\t20.0\t1\n")
    mix = build_mix(tmp_path / "mix", [old, src], None, sideways_weight=2)
    count = {name: len(list((mix / "train" / folder_name(i, name)).iterdir())) for i, name in enumerate(names)}
    assert set(count.values()) == {3 + 3 + 1}
    assert len(list((mix / "val").rglob("*.png"))) == 1
    plain = build_mix(tmp_path / "mix1", [old, src], None)
    assert len(list((plain / "train").rglob("*.png"))) == 75 * 6
    # the make-up of the mix is on record (links.json): crops, extra sideways links and share per source
    made = json.loads((mix / "links.json").read_text())
    assert made["train_links"] == 75 * 7
    assert made["sources"][str(src)] == {"crops": 75 * 3, "sideways_links": 75, "links": 75 * 4, "share": round(4 / 7, 4)}
    assert made["sources"][str(old)]["links"] == 75 * 3


def test_eval_splits_hand_tiles_by_size(monkeypatch):
    """`eval_classifier.by_size`: the four long-side bins of the card (< 24, 24-32, 32-48, >= 48 px),
    lower edge inclusive, an empty bin reported as such."""
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    from eval_classifier import by_size

    res = by_size([10.0, 23.9, 24.0, 31.0, 47.9], ["1m", "2m", "3m", "4m", "5m"], ["1m", "9m", "3m", "4m", "6m"])
    assert list(res) == ["<24", "24-32", "32-48", ">=48"]
    assert (res["<24"]["n"], res["<24"]["errors"], res["<24"]["acc"]) == (2, 1, 0.5)
    assert (res["24-32"]["n"], res["24-32"]["errors"]) == (2, 0)
    assert (res["32-48"]["n"], res["32-48"]["errors"], res["32-48"]["acc"]) == (1, 1, 0.0)
    assert res[">=48"] == {"n": 0, "errors": 0, "acc": None}


def test_classify_boxes_without_tta_is_crop_then_classify_and_with_it_averages_the_shifted_reads(shared_dir):
    """Test-time augmentation (`TileClassifier.classify_boxes`): off, it is exactly `crop` +
    `classify`; a tile whose top probability is under `tta_below` is read again from the
    `tta_boxes` of its box and the model's probabilities averaged; sure tiles are left alone."""
    from vision.classify import shift_box, tta_boxes
    from vision.io import load_image

    doc = json.loads(BOXES.read_text())
    tiles = [t for t in doc["tiles"] if t["image"] == "toby_test.jpeg"][:5]
    image = load_image(shared_dir / "data" / "real-dev" / "toby_test.jpeg")
    boxes, side = [t["box"] for t in tiles], [t["sideways"] for t in tiles]
    plain = TileClassifier(MODEL, threads=1, tta_below=None)
    assert plain.tta_below is None
    want = plain.classify([plain.crop(image, b, s) for b, s in zip(boxes, side)])
    got = plain.classify_boxes([image] * 5, boxes, side)
    assert np.allclose(got[0], want[0], atol=1e-6) and np.allclose(got[1], want[1], atol=1e-6)
    never = TileClassifier(MODEL, threads=1, tta_below=0.0).classify_boxes([image] * 5, boxes, side)
    assert np.allclose(never[0], want[0], atol=1e-6)
    always = TileClassifier(MODEL, threads=1, tta_below=1.01, tta_shift=0.04)
    raw = np.stack([plain.predict_raw([plain.crop(image, shift_box(b, o), s) for o in [(0, 0, 0, 0)] + tta_boxes(0.04)])
                    .mean(0) for b, s in zip(boxes, side)])
    mean = fold_outputs(raw, plain.names)
    got = always.classify_boxes([image] * 5, boxes, side)
    assert np.allclose(got[0], mean[0], atol=1e-5) and np.allclose(got[1], mean[1], atol=1e-5)
    assert not np.allclose(got[0], want[0], atol=1e-4)  # the shifted crops did change the probabilities
    assert always.classify_boxes([], [], [])[0].shape == (0, 38)


def test_classify_tiles_cuts_like_the_reader(shared_dir):
    """`classify_tiles` (recognize's hook) = `extract_patch` + `crop` + `classify`, the reader's own
    cut, when TTA is off: offering the hook changes no read."""
    from vision.io import load_image
    from vision.frame import Frame, extract_patch

    doc = json.loads(BOXES.read_text())
    tiles = [t for t in doc["tiles"] if t["image"] == "lietxia_70008812.jpg"][:6]
    image = load_image(shared_dir / "data" / "real-dev" / "lietxia_70008812.jpg")
    frame = Frame(3.0, (image.shape[1] / 2, image.shape[0] / 2))
    fboxes = frame.boxes_to_frame(np.array([t["box"] for t in tiles], float))
    side = np.array([t["sideways"] for t in tiles])
    clf = TileClassifier(MODEL, threads=1, tta_below=None)
    crops = []
    for fb, s in zip(fboxes, side):
        patch, inner = extract_patch(image, frame, fb)
        crops.append(clf.crop(patch, inner, bool(s)))
    want = clf.classify(crops)
    got = clf.classify_tiles(image, frame, fboxes, side)
    assert np.allclose(got[0], want[0], atol=1e-6) and np.allclose(got[1], want[1], atol=1e-6)
