"""Generator v5 (session 15): brush/pen hands for man numerals and winds, a minimum stroke weight and ink
floor; v3/v4 faces and earlier photo-crop seeds unchanged."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tsumo_synth import TileArtist
from tsumo_synth.faces import V5_MIN_INK, ink_share
from tsumo_synth.fonts import V5_NEEDED, find_v5_fonts
from vision.classes import TILE_CLASSES

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def v5(shared_dir):
    return TileArtist(shared_dir, seed=0, light_backs=True, red_designs=True, v5=True)


def test_ink_share_sees_thin_and_pale_ink_vanish():
    face = np.full((160, 120, 3), 245, np.uint8)
    assert ink_share(face) == 0.0
    bold = face.copy()
    bold[40:120, 30:90] = 20  # a dark block: a quarter of the face
    assert 0.2 < ink_share(bold) < 0.3
    thin = face.copy()
    thin[20:140:10, 10:110] = 60  # one-pixel lines: they average away at tile size
    pale = face.copy()
    pale[40:120, 30:90] = 215  # ink only 30 levels darker than the face
    assert ink_share(thin) < 0.05 and ink_share(pale) == 0.0


def test_v5_faces_are_deterministic_and_differ_from_v4(shared_dir, v5):
    v4 = TileArtist(shared_dir, seed=0, light_backs=True, red_designs=True)
    again = TileArtist(shared_dir, seed=0, light_backs=True, red_designs=True, v5=True)
    differ = 0
    for k in range(6):
        for label in ("1m", "4m", "9m", "2z", "9s"):
            a = v5.face(label, np.random.default_rng([15, k]))
            assert np.array_equal(a, again.face(label, np.random.default_rng([15, k])))
            differ += not np.array_equal(a, v4.face(label, np.random.default_rng([15, k])))
    assert differ >= 20


def test_v5_faces_keep_their_ink(v5):
    """No v5 face of a label with ink (all but 5z) is under the label's floor when drawn from these seeds."""
    for label in TILE_CLASSES:
        if label in ("back", "5z"):
            continue
        shares = [ink_share(v5.face(label, np.random.default_rng([16, TILE_CLASSES.index(label), k]))) for k in range(3)]
        assert min(shares) >= V5_MIN_INK[label], (label, shares)


def test_v5_fonts_draw_numerals_and_winds():
    faces = find_v5_fonts()
    if not faces:
        pytest.skip("no v5 font family installed (Makefile's apt list)")
    for face in faces:
        assert all(face.has(ch) for ch in V5_NEEDED), face


def test_v4_photo_crops_still_render_byte_identical(shared_dir, tmp_path, monkeypatch):
    """Photo 0 of the cached v4 photo-crop set of seed 9002 (run 17/18's data) re-renders identically."""
    cached = REPO / "cache" / "classifier" / "photos_s9002_64px_v4"
    if not (cached / "done" / "000000").exists():
        pytest.skip("cached photo-crop set s9002 absent (fresh clone)")
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    import train_classifier

    train_classifier.render_photo_crops(tmp_path, 9002, 1, size=64, shared=shared_dir, gen="v4", views=3)
    new = sorted(p.relative_to(tmp_path) for p in (tmp_path / "train").rglob("ph9002_000000_*.png"))
    assert len(new) > 20
    for rel in new:
        assert (cached / rel).read_bytes() == (tmp_path / rel).read_bytes(), rel


def test_photo_gen_is_given_per_photo_seed(tmp_path, monkeypatch, capsys):
    """Run 19 mixes v5 photo crops with earlier v4 sets: `--photo-gen` takes one generator per seed."""
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    import train_classifier

    monkeypatch.setattr(train_classifier, "CACHE", tmp_path)
    (tmp_path / "photos_s5_64px_v5" / "train").mkdir(parents=True)
    (tmp_path / "photos_s6_64px_v4_pool512" / "train").mkdir(parents=True)
    base = ["--seeds", "1", "--per-class", "0", "--no-render", "--render-only", "--photo-seed", "5", "6",
            "--photo-pool-size", "32", "512"]
    assert train_classifier.main(base + ["--photo-gen", "v5", "v4"]) == 0
    assert train_classifier.main(base + ["--photo-gen", "v4", "v5"]) == 2
    assert "no photo crops in" in capsys.readouterr().err
