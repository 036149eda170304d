"""Legibility flags of rendered photos: the ink measure leaves the photo as it was, finds faces with no
print, and the eval splits its figures by them."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from tsumo_synth import photos
from tsumo_synth.legibility import INK_FILE, MIN_INK, legible, load_ink, measure_set
from tsumo_synth.scene import default_face_source, ink_contrast, render_hand_photo

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "datasets"))
import eval_classifier  # noqa: E402

SEQ = "1m 2m 3m 4p 5p 6p 7s 8s 9s 5z 5z 5z 6z | 6z"


@pytest.fixture(scope="module")
def faces(shared_dir):
    return default_face_source(shared_dir, per_label=2)


def test_ink_measure_keeps_the_photo_and_the_stream(faces):
    a_rng, b_rng = np.random.default_rng(4), np.random.default_rng(4)
    a_img, a_lab = render_hand_photo(SEQ, a_rng, artist=faces, size=(480, 360), standing=False)
    b_img, b_lab = render_hand_photo(SEQ, b_rng, artist=faces, size=(480, 360), standing=False, ink=True)
    assert np.array_equal(a_img, b_img)
    assert a_rng.random() == b_rng.random()
    assert all(t.ink is None for t in a_lab.tiles) and all(t.ink is not None for t in b_lab.tiles)
    assert "ink" not in a_lab.to_json()["tiles"][0]  # labels of unmeasured photos read as before
    assert [t.box for t in a_lab.tiles] == [t.box for t in b_lab.tiles]


def test_blank_faces_have_no_ink_and_printed_ones_do(faces):
    """plain_haku prints nothing on the white dragons: their ink is ~0, the other faces' well above the floor."""
    _, lab = render_hand_photo(SEQ, np.random.default_rng(4), artist=faces, size=(640, 480), standing=False,
                               plain_haku=True, effects=False, distractors=False, ink=True)
    hand = lab.hand_tiles
    haku = [t.ink for t in hand if t.cls == "5z"]
    printed = [t.ink for t in hand if t.cls not in ("5z", "back") and t.visible > 0.9]
    assert len(haku) == 3 and max(haku) < 3
    assert printed and min(printed) > MIN_INK


def test_ink_contrast_counts_only_the_tiles_pixels():
    blank = np.full((40, 40, 3), 240, np.uint8)
    photo = blank.copy()
    photo[5:15, 5:15] = 40          # print inside the mask
    photo[30:35, 30:35] = 0         # a neighbour's print outside it
    mask = np.zeros((40, 40), bool)
    mask[0:20, 0:20] = True
    assert ink_contrast(photo, blank, mask) == pytest.approx(200, abs=1)
    assert ink_contrast(blank, blank, mask) == 0
    assert ink_contrast(photo, blank, np.zeros((40, 40), bool)) == 0


@pytest.mark.parametrize("args,want", [
    (("3m", 0.9, 30, 80.0), True),
    (("3m", 0.9, 30, 10.0), False),        # washed-out print
    (("3m", 0.5, 30, 80.0), False),        # mostly hidden
    (("3m", 0.9, 20, 80.0), False),        # too few pixels
    (("5z", 0.9, 30, 0.0), True),          # a white dragon may be blank
    (("back", 0.9, 30, 0.0), True),        # a face-down tile has no print
    (("3m", 0.9, 30, None), None),         # never measured
    (("3m", 0.5, 30, None), False),        # hidden whatever its ink
])
def test_legible_rule(args, want):
    assert legible(*args) is want


def test_measure_set_writes_sidecar_and_eval_splits_by_it(shared_dir, tmp_path):
    out = photos.write_dataset(tmp_path / "s", 2, 99, val_frac=0.0, shared=shared_dir, quiet=True)
    labels_before = (out / "labels.jsonl").read_bytes()
    assert load_ink(out) is None
    measure_set(out, shared=shared_dir, quiet=True)
    assert (out / "labels.jsonl").read_bytes() == labels_before
    ink = load_ink(out)
    rows = [json.loads(line) for line in labels_before.decode().splitlines()]
    assert [len(ink[r["image"]]) for r in rows] == [len(r["tiles"]) for r in rows]

    crops, entries = eval_classifier.photo_crops(out, 64, 0.1)
    assert len(crops) == sum(t["in_hand"] for r in rows for t in r["tiles"])
    assert all(e["legible"] is not None for e in entries)
    # each entry carries its own tile's ink (hand tiles in index order)
    first = sorted((t for t in rows[0]["tiles"] if t["in_hand"]), key=lambda t: t["index"])
    by_tile = dict(zip((id(t) for t in rows[0]["tiles"]), ink[rows[0]["image"]]))
    assert [e["ink"] for e in entries[:len(first)]] == [by_tile[id(t)] for t in first]


def test_measure_set_refuses_a_set_of_other_pixels(shared_dir, tmp_path):
    out = photos.write_dataset(tmp_path / "s", 1, 99, val_frac=0.0, shared=shared_dir, quiet=True)
    photo = out / "images" / "train" / "p000000.jpg"
    photo.write_bytes(photo.read_bytes()[:-10] + b"\0" * 10)
    with pytest.raises(RuntimeError, match="differs"):
        measure_set(out, shared=shared_dir, quiet=True)
    assert not (out / INK_FILE).exists()


def test_report_lists_every_photo_set_with_its_legible_split():
    part = {"n": 10, "acc": 0.9, "errors": 1, "per_class": {}}
    one = {"set": "cache/synth/a", "n": 20, "acc": 0.85, "per_class": {}, "degraded_rule": "D", "readable": part,
           "degraded": part, "legible_rule": "L", "legible": part, "illegible": {**part, "errors": 2, "acc": 0.8}}
    text = eval_classifier.markdown({"photos": one, "photos_b": {**one, "set": "cache/synth/b"}})
    assert "### photos (a): 85.00 %" in text and "### photos_b (b): 85.00 %" in text
    assert text.count("legible = L") == 2 and text.count("- illegible: 80.00 % of 10 (2 errors)") == 2


def test_the_photo_records_its_lens_blur_and_the_pixels_stay_the_same(faces):
    """`scene.lens` says which blur the renderer drew (so a tile's blur can be set against its size); it is a
    record only: the photo and the stream are those of the renderer before it (hash checked in session 51)."""
    kinds = {}
    for seed in range(30):
        img, lab = render_hand_photo(SEQ, np.random.default_rng(seed), artist=faces, size=(480, 360))
        lens = lab.to_json()["scene"]["lens"]
        kinds[lens["kind"]] = lens
        assert lens["kind"] in ("none", "motion", "defocus")
    assert set(kinds) == {"none", "motion", "defocus"}  # 45 % defocus, 15 % motion, 40 % none
    assert kinds["motion"]["length_px"] >= 3 and kinds["motion"]["length_px"] % 2 == 1
    assert 0.3 * 0.48 <= kinds["defocus"]["sigma_px"] <= 1.6 * 0.48 + 0.01
    _, still = render_hand_photo(SEQ, np.random.default_rng(0), artist=faces, size=(480, 360), effects=False)
    assert still.scene["lens"] == {"kind": "none"}


@pytest.mark.parametrize("label, long_px, lens, out", [
    ("3p", 50, None, None),                                   # blur never recorded: the rule says nothing
    ("3p", 50, {"kind": "none"}, False),
    ("3p", 50, {"kind": "motion", "length_px": 9}, True),     # 0.18 of 50
    ("3p", 50, {"kind": "motion", "length_px": 7}, False),
    ("3m", 50, {"kind": "defocus", "sigma_px": 2.0}, True),   # 0.04 of 50, a man numeral
    ("3m", 50, {"kind": "defocus", "sigma_px": 1.9}, False),
    ("3p", 50, {"kind": "defocus", "sigma_px": 3.0}, False),  # pins keep their dots under defocus
    ("0m", 50, {"kind": "defocus", "sigma_px": 2.5}, True),
])
def test_blur_rule(label, long_px, lens, out):
    from tsumo_synth.legibility import blurred

    assert blurred(label, long_px, lens) is out


def test_blur_only_takes_legible_tiles_away(faces):
    from tsumo_synth.legibility import hand_tile_flags

    _, lab = render_hand_photo(SEQ, np.random.default_rng(4), artist=faces, size=(640, 480), standing=False, ink=True)
    tiles = lab.to_json()["tiles"]
    ink = [t.ink for t in lab.tiles]
    plain = hand_tile_flags(tiles, ink)
    assert hand_tile_flags(tiles, ink, lens={"kind": "none"}, blur=True) == plain
    smeared = hand_tile_flags(tiles, ink, lens={"kind": "motion", "length_px": 999}, blur=True)
    assert any(plain) and not any(smeared)
    unknown = hand_tile_flags(tiles, ink, lens=None, blur=True)
    assert all(u is None for u, p in zip(unknown, plain) if p) and all(u is False for u, p in zip(unknown, plain) if p is False)
