"""Face-pool option of the photo-set writer (session 11): the default pool stays pool 0 (so every
existing seed, held-out sets included, renders byte-identical) and another pool changes the faces only."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tsumo_synth import photos
from tsumo_synth.scene import FacePool, default_face_source

REPO = Path(__file__).resolve().parents[2]


def _photo(out: Path, i: int = 0) -> bytes:
    return (out / "images" / "train" / f"{photos.photo_name(i)}.jpg").read_bytes()


def test_default_faces_are_pool_zero(shared_dir, tmp_path):
    """Not naming a pool, naming pool 0 explicitly and the writer before the option all paint from
    `default_face_source(seed=0)`: same JPEG bytes, and the manifest's recipe has no `faces` key
    (so sets written before the option stay cached)."""
    a = photos.write_dataset(tmp_path / "a", 2, 99, val_frac=0.0, shared=shared_dir, quiet=True)
    b = photos.write_dataset(tmp_path / "b", 2, 99, val_frac=0.0, shared=shared_dir, quiet=True,
                             faces={"pool_seed": 0, "pool_size": 8, "gen": "v3"})
    for i in range(2):
        assert _photo(a, i) == _photo(b, i)
    assert "faces" not in json.loads((a / "manifest.json").read_text())["recipe"]
    assert "faces" not in json.loads((b / "manifest.json").read_text())["recipe"]
    image, labels = photos.render_one(1, 99, artist=default_face_source(shared_dir, seed=0))
    rows = [json.loads(line) for line in (a / "labels.jsonl").read_text().splitlines()]
    assert rows[1]["sequence"] == labels.sequence
    assert [t["box"] for t in rows[1]["tiles"]] == [t["box"] for t in labels.to_json()["tiles"]]


def test_held_out_set_photo_rerenders_byte_identical(shared_dir, tmp_path):
    """The held-out det_test_h (seed 99, pool 0), when this machine has it: photo 0 again, byte for byte."""
    held = REPO / "cache" / "synth" / "det_test_h"
    if not (held / "images" / "train" / "p000000.jpg").is_file():
        pytest.skip("det_test_h is not rendered on this machine")
    out = photos.write_dataset(tmp_path / "h", 1, 99, val_frac=0.0, shared=shared_dir, quiet=True)
    assert _photo(out) == (held / "images" / "train" / "p000000.jpg").read_bytes()


def test_another_pool_changes_faces_not_the_scene(shared_dir, tmp_path):
    """Same photo seed, another pool: same hand, camera and boxes (the pool draws only one variant
    index per tile from the photo's rng, as pool 0 does), different pixels; the recipe records it."""
    a = photos.write_dataset(tmp_path / "a", 1, 99, val_frac=0.0, shared=shared_dir, quiet=True)
    faces = {"pool_seed": 7004, "pool_size": 32, "gen": "v4"}
    c = photos.write_dataset(tmp_path / "c", 1, 99, val_frac=0.0, shared=shared_dir, quiet=True, faces=faces)
    ra = json.loads((a / "labels.jsonl").read_text().splitlines()[0])
    rc = json.loads((c / "labels.jsonl").read_text().splitlines()[0])
    assert ra["sequence"] == rc["sequence"] and ra["camera"] == rc["camera"]
    assert [t["box"] for t in ra["tiles"]] == [t["box"] for t in rc["tiles"]]
    assert _photo(a) != _photo(c)
    assert json.loads((c / "manifest.json").read_text())["recipe"]["faces"] == faces


def test_face_source_builds_the_named_pool(shared_dir):
    pool = photos.face_source(shared_dir, pool_seed=9202, pool_size=64, gen="v4")
    assert isinstance(pool, FacePool) and pool.seed == 9202 and pool.per_label == 64
    assert pool.source.light_backs and pool.source.faces.red_designs
    rng = np.random.default_rng(0)
    face = pool.face("5p", rng)
    assert face.ndim == 3 and face.shape[2] == 4
    with pytest.raises(ValueError):
        photos.face_source(shared_dir, gen="v9")
    with pytest.raises(ValueError):
        photos.face_source(shared_dir, pool_size=0)
    with pytest.raises(ValueError):
        photos.write_dataset(Path("unused"), 1, 1, shared=shared_dir, faces={"seed": 3})
