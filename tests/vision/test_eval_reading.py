"""`datasets/eval_reading.py`: end-to-end counts on a rendered set, several model pairs in one run."""
from __future__ import annotations

import json

import pytest

from vision.pipeline import CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR

photos = pytest.importorskip("tsumo_synth.photos")
eval_reading = pytest.importorskip("eval_reading")

SHIPPED = (MODELS_DIR / DETECTOR_FILE, MODELS_DIR / CLASSIFIER_FILE)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("set")
    photos.write_dataset(out, 3, 99, val_frac=0.0, quiet=True)  # det_test_h's first three photos
    return out


def test_same_pair_twice_agrees_and_counts_against_the_truth(rendered, tmp_path):
    result = eval_reading.evaluate([rendered], [SHIPPED, SHIPPED])
    first, second = result["sets"][str(rendered)]["results"]
    truth = result["sets"][str(rendered)]["truth"]
    assert first["n"] == second["n"] == 3
    assert first["reads"] == second["reads"]
    assert first["exact"] == sum(r == t for r, t in zip(first["reads"], truth))
    assert first["misses"] == [i for i, (r, t) in enumerate(zip(first["reads"], truth)) if r != t]
    short = eval_reading.summary(result)["sets"][str(rendered)]
    assert short[1]["only_first_reads"] == short[1]["only_this_reads"] == []


def test_a_wrong_truth_is_a_miss(rendered, tmp_path):
    """Copy the set with photo 0's sequence replaced: that photo can no longer count."""
    rows = [json.loads(line) for line in (rendered / "labels.jsonl").read_text().splitlines()]
    rows[0]["sequence"] = "1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m"
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    (tmp_path / "images").symlink_to(rendered / "images")
    result = eval_reading.evaluate([tmp_path], [SHIPPED], limit=2)
    res = result["sets"][str(tmp_path)]["results"][0]
    assert res["n"] == 2 and 0 in res["misses"]


def test_cli_refuses_a_missing_model(rendered, tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        eval_reading.main([str(rendered), "--pair", str(tmp_path / "no.onnx"), str(SHIPPED[1])])
    assert err.value.code == 2
    assert "model file not found" in capsys.readouterr().err


def test_cli_refuses_a_folder_without_labels(tmp_path):
    with pytest.raises(SystemExit, match="no labels.jsonl"):
        eval_reading.main([str(tmp_path)])
