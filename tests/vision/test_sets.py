"""The named measuring sets (`tsumo_synth.sets`): the table renders the photos the cards measured."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tsumo_synth import photos, sets

REPO = Path(__file__).resolve().parents[2]


def test_every_set_uses_a_held_out_photo_seed():
    """No set of the table draws from a seed training may use (`check_training_seed` refuses these)."""
    for name, recipe in sets.SETS.items():
        assert recipe.seed in photos.HELD_OUT_PHOTO_SEEDS, name
        with pytest.raises(ValueError, match="held out"):
            photos.check_training_seed(recipe.seed)


def test_groups_name_known_sets_and_resolve_keeps_order_once():
    for members in sets.GROUPS.values():
        assert set(members) <= set(sets.SETS)
    assert sets.resolve(["det_test_x3g", "gates"]) == ["det_test_x3g", "det_test_x1g", "det_test_h",
                                                       "det_test_close_x3g"]
    assert all(sets.SETS[s].role == "tune" for s in sets.resolve(["tune"]))
    assert all(sets.SETS[s].role == "held out" for s in sets.resolve(["gates"]))
    with pytest.raises(ValueError, match="unknown set 'det_test_x9'"):
        sets.resolve(["det_test_x9"])


def test_table_matches_the_render_commands_in_the_models_doc():
    """docs/models.md's commands and the table name the same recipe for every set both hold."""
    doc = (REPO / "docs" / "models.md").read_text()
    seen = 0
    for line in doc.splitlines():
        m = re.search(r"python -m tsumo_synth\.photos (.*?)--out cache/synth/(\w+)", line)
        if not m or m.group(2) not in sets.SETS:
            continue
        args, r = m.group(1), sets.SETS[m.group(2)]
        assert f"--n {r.n} " in args and f"--seed {r.seed} " in args, line
        assert (f"--preset {r.preset}" in args) == (r.preset != "default"), line
        assert (f"--scale {r.scale:g}" in args) == (r.scale != 1.0), line
        seen += 1
    assert seen >= 10


def test_render_by_name_gives_the_sets_photos_and_is_kept(tmp_path, shared_dir):
    """A set rendered by name holds the photos of its recipe (byte for byte), and a second call keeps it."""
    out = sets.render("det_test_x3g", tmp_path, quiet=True, shared=shared_dir, n=1)
    ref = photos.write_dataset(tmp_path / "ref", 1, 77, val_frac=0.0, scale=3, quiet=True, shared=shared_dir)
    row, ref_row = (json.loads((d / "labels.jsonl").read_text().splitlines()[0]) for d in (out, ref))
    assert row["sequence"] == ref_row["sequence"]
    assert (out / row["image"]).read_bytes() == (ref / ref_row["image"]).read_bytes()
    assert json.loads((out / "manifest.json").read_text())["recipe"]["scale"] == 3
    stamp = (out / "labels.jsonl").stat().st_mtime_ns
    sets.render("det_test_x3g", tmp_path, quiet=True, shared=shared_dir, n=1)
    assert (out / "labels.jsonl").stat().st_mtime_ns == stamp


def test_cli_refuses_unknown_names_and_lists_the_table():
    run = [sys.executable, "-m", "tsumo_synth.sets"]
    env_cwd = REPO / "datasets"
    bad = subprocess.run(run + ["nope"], cwd=env_cwd, capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown set 'nope'" in bad.stderr
    empty = subprocess.run(run, cwd=env_cwd, capture_output=True, text=True)
    assert empty.returncode == 2 and "name a set or a group" in empty.stderr
    listed = subprocess.run(run + ["--list"], cwd=env_cwd, capture_output=True, text=True)
    assert listed.returncode == 0
    assert "det_test_x3g" in listed.stdout and "gates: det_test_x3g" in listed.stdout


def test_cli_renders_a_set_with_its_legibility_sidecar(tmp_path, shared_dir, monkeypatch):
    """`--legibility` writes the ink sidecar `eval_reading.py`'s legible figures read, beside the rendered set."""
    from tsumo_synth.legibility import INK_FILE

    monkeypatch.setitem(sets.SETS, "det_test_h", sets.SetRecipe(1, 99))  # (det_test_h's first photo only)
    assert sets.main(["det_test_h", "--root", str(tmp_path), "--shared", str(shared_dir), "--legibility"]) == 0
    out = tmp_path / "det_test_h"
    assert len((out / "labels.jsonl").read_text().splitlines()) == 1
    assert len((out / INK_FILE).read_text().splitlines()) == 1
