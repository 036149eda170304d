"""`datasets/same_readings.py`: a change that must leave readings alone is checked photo by photo."""
from __future__ import annotations

import json

import pytest

same_readings = pytest.importorskip("same_readings")


def test_two_dumps_of_one_code_agree_and_a_changed_cost_is_caught(det_test_h_three, tmp_path):
    rendered = det_test_h_three
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert same_readings.dump(a, [rendered]) == 3
    assert same_readings.dump(b, [rendered], workers=2) == 3  # the worker processes read alike
    before, after = same_readings.load(a), same_readings.load(b)
    assert sorted(before) == [f"{rendered.name}/{row[1]}" for row in same_readings.photo_jobs([rendered])]
    assert same_readings.compare(before, after)["differ"] == {}
    assert same_readings.main(["compare", str(a), str(b)]) == 0
    first = next(iter(before))
    rec = before[first]
    assert rec["reading"]["sequence"] and float(rec["cost"]) == pytest.approx(rec["reading"]["cost"], abs=5e-4)

    # the last bit of the unrounded cost is enough to fail, and where it differs is named
    moved = dict(after)
    moved[first] = json.loads(json.dumps(after[first]))
    moved[first]["cost"] = repr(float(moved[first]["cost"]) + 1e-12)
    moved[first]["reading"]["tiles"][0]["label"] = "9z"
    result = same_readings.compare(before, moved)
    assert result["differ"] == {first: ["cost", "reading.tiles[0].label"]}
    b.write_text("".join(json.dumps(r) + "\n" for r in moved.values()))
    assert same_readings.main(["compare", str(a), str(b)]) == 1


def test_a_photo_on_one_side_only_fails(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    rec = {"key": "s/0.jpg", "reading": {"sequence": "1m"}, "cost": "0.5"}
    a.write_text(json.dumps(rec) + "\n" + json.dumps(dict(rec, key="s/1.jpg")) + "\n")
    b.write_text(json.dumps(rec) + "\n")
    assert same_readings.main(["compare", str(a), str(b)]) == 1
    assert "only before: 1 photos, e.g. s/1.jpg" in capsys.readouterr().out


def test_bad_input_is_named(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        same_readings.main(["compare", str(tmp_path / "none.jsonl"), str(tmp_path / "none.jsonl")])
    assert e.value.code == 2 and "no such dump" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="has no labels.jsonl"):
        same_readings.dump(tmp_path / "out.jsonl", [tmp_path])
