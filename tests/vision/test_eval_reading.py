"""`datasets/eval_reading.py`: end-to-end counts on a rendered set, several model pairs in one run."""
from __future__ import annotations

import json

import numpy as np
import pytest

from vision.pipeline import CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR

eval_reading = pytest.importorskip("eval_reading")

SHIPPED = (MODELS_DIR / DETECTOR_FILE, MODELS_DIR / CLASSIFIER_FILE)


@pytest.fixture(scope="module")
def rendered(det_test_h_three):
    return det_test_h_three


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
    # tile counts: every hand tile once; an exactly read photo has each of its hand tiles taken and right
    rows = eval_reading.load_set(rendered)
    hand = [sum(t["in_hand"] for t in r["tiles"]) for r in rows]
    t = first["tiles"]
    assert t["n"] == sum(hand) and t["n"] >= t["boxed"] >= t["taken"] >= t["right"]
    assert t["right"] >= sum(h for h, r, want in zip(hand, first["reads"], truth) if r == want)
    assert "legible_tiles" not in first  # the set's ink was never measured
    # per class: the same hand tiles, each counted under its true class
    by_class = first["by_class"]
    assert {k: sum(c[k] for c in by_class.values()) for k in t} == t
    true_classes = [x["cls"] for r in rows for x in r["tiles"] if x["in_hand"]]
    assert {c: n["n"] for c, n in by_class.items()} == {c: true_classes.count(c) for c in set(true_classes)}
    assert short[0]["by_class"] == by_class
    # exact photos by the table they were shot on
    kinds = [r["scene"]["table"] + (f"/{r['scene']['cloth']}" if "cloth" in r["scene"] else "") for r in rows]
    assert {k: n for k, (n, _) in first["by_table"].items()} == {k: kinds.count(k) for k in set(kinds)}
    assert sum(e for _, e in first["by_table"].values()) == first["exact"]
    # how far "sure" can be trusted: each photo's flag, tallied against its miss or not
    assert len(first["sure"]) == 3 and all(isinstance(s, bool) for s in first["sure"])
    surely = first["surely"]
    assert surely["sure"] == sum(first["sure"]) and surely["misses"] == len(first["misses"])
    assert surely["sure_exact"] == sum(s and r == want for s, r, want in zip(first["sure"], first["reads"], truth))
    assert surely["misses_unsure"] == sum(not first["sure"][i] for i in first["misses"])
    assert short[0]["surely"] == surely
    # scored as labelled: an exact reading always is (each of these photos shows a whole hand)
    scoring = first["scoring"]
    assert scoring["whole"] == 3 and short[0]["scoring"] == scoring
    assert all(a for a, r, want in zip(first["alike"], first["reads"], truth) if r == want)
    assert scoring["alike"] == sum(first["alike"]) >= first["exact"]


def test_scoring_counts_count_whole_hands_only():
    c = eval_reading.scoring_counts([True, False, True, False], [True, True, False, True], [True, True, True, False])
    assert c == {"whole": 3, "alike": 2, "sure": 2, "sure_alike": 1}
    assert eval_reading.scoring_rates(c) == ("scored as labelled: 2 of 3 whole hands; read surely 2, "
                                             "1 of them scored as labelled (50.0 %)")


def test_sure_counts_tally_each_photo_once():
    c = eval_reading.sure_counts([True, True, False, False, True], misses=[1, 2])
    assert c == {"sure": 3, "sure_exact": 2, "misses": 2, "misses_unsure": 1}
    assert eval_reading.sure_rates(c) == "read surely 3 photos, 2 of them exactly (66.7 %); misses flagged unsure 1/2"


def test_tile_counts_of_legible_tiles_when_the_set_has_ink(rendered, tmp_path):
    from tsumo_synth.legibility import measure_set

    for name in ("labels.jsonl", "manifest.json", "images"):
        (tmp_path / name).symlink_to(rendered / name)
    measure_set(tmp_path, quiet=True)
    res = eval_reading.evaluate([tmp_path], [SHIPPED], limit=2)["sets"][str(tmp_path)]["results"][0]
    assert 0 < res["legible_tiles"]["n"] < res["tiles"]["n"]
    assert all(res["legible_tiles"][k] <= res["tiles"][k] for k in res["tiles"])
    # the blur candidate (issue #3's question 2) only takes legible tiles away, when the labels record blur
    blur = res["legible_blur_tiles"]
    assert 0 < blur["n"] <= res["legible_tiles"]["n"] and all(blur[k] <= res["legible_tiles"][k] for k in blur)


def test_no_blur_figure_for_a_set_rendered_without_its_lens_record(rendered, tmp_path):
    from tsumo_synth.legibility import measure_set

    rows = [json.loads(line) for line in (rendered / "labels.jsonl").read_text().splitlines() if line.strip()]
    for r in rows:
        r["scene"].pop("lens", None)
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for name in ("manifest.json", "images"):
        (tmp_path / name).symlink_to(rendered / name)
    measure_set(tmp_path, quiet=True)
    res = eval_reading.evaluate([tmp_path], [SHIPPED], limit=1)["sets"][str(tmp_path)]["results"][0]
    assert "legible_tiles" in res and "legible_blur_tiles" not in res


def test_a_wrong_truth_is_a_miss(rendered, tmp_path):
    """Copy the set with photo 0's sequence replaced: that photo can no longer count."""
    rows = [json.loads(line) for line in (rendered / "labels.jsonl").read_text().splitlines()]
    rows[0]["sequence"] = "1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m"
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    (tmp_path / "images").symlink_to(rendered / "images")
    result = eval_reading.evaluate([tmp_path], [SHIPPED], limit=2)
    res = result["sets"][str(tmp_path)]["results"][0]
    assert res["n"] == 2 and 0 in res["misses"]
    # every miss is tallied under exactly one first cause
    assert sum(res["causes"].values()) == len(res["misses"])
    # the hand tiles of missed photos left with no box, each under its photo's cause (an exactly read photo may
    # have one too: a box centred off its tile's visible part)
    assert set(res["unboxed_by_cause"]) <= set(res["causes"])
    assert 0 <= sum(res["unboxed_by_cause"].values()) <= res["tiles"]["n"] - res["tiles"]["boxed"]
    assert set(res["causes"]) <= set(eval_reading.CAUSES)


def test_cli_refuses_a_missing_model(rendered, tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        eval_reading.main([str(rendered), "--pair", str(tmp_path / "no.onnx"), str(SHIPPED[1])])
    assert err.value.code == 2
    assert "model file not found" in capsys.readouterr().err


def test_a_closer_look_detector_can_be_named_after_a_plus(rendered, tmp_path, capsys):
    """FIRST+CLOSER: the same model as its own closer look reads exactly as the plain pair."""
    both = (type(SHIPPED[0])(f"{SHIPPED[0]}+{SHIPPED[0]}"), SHIPPED[1])
    result = eval_reading.evaluate([rendered], [SHIPPED, both], limit=2)
    plain, closer = result["sets"][str(rendered)]["results"]
    assert plain["reads"] == closer["reads"]
    with pytest.raises(SystemExit) as err:
        eval_reading.main([str(rendered), "--pair", f"{SHIPPED[0]}+{tmp_path / 'no.onnx'}", str(SHIPPED[1])])
    assert err.value.code == 2 and "no.onnx" in capsys.readouterr().err


def test_a_second_detector_is_named_after_a_comma_and_read_by_default(rendered, tmp_path, capsys):
    """FIRST[+CLOSER],ALT: the reader gets `alt` (its extra looks at unsure photos); with no --pair the
    product's models are read, the shipped second detector with them."""
    from vision.pipeline import ALT_FILE

    alt = MODELS_DIR / ALT_FILE
    spec = type(SHIPPED[0])(f"{SHIPPED[0]}+{SHIPPED[0]},{alt}")
    assert eval_reading.detector_files(spec) == [SHIPPED[0], SHIPPED[0], alt]
    made = eval_reading._detectors(spec, 1)
    assert made["closer"] is not None and made["alt"].session is not made["detector"].session
    assert eval_reading._detectors(SHIPPED[0], 1)["alt"] is None
    from vision.pipeline import THIRD_FILE

    assert eval_reading.shipped_detector() == type(SHIPPED[0])(f"{SHIPPED[0]},{alt},{MODELS_DIR / THIRD_FILE}")
    result = eval_reading.evaluate([rendered], [(eval_reading.shipped_detector(), SHIPPED[1])], limit=1)
    assert result["pairs"][0]["detector"] == str(eval_reading.shipped_detector())
    with pytest.raises(SystemExit) as err:
        eval_reading.main([str(rendered), "--pair", f"{SHIPPED[0]},{tmp_path / 'no.onnx'}", str(SHIPPED[1])])
    assert err.value.code == 2 and "no.onnx" in capsys.readouterr().err


def test_a_third_detector_is_named_after_a_second_comma(rendered, capsys):
    """FIRST,ALT,THIRD: the reader gets `third` too (its last looks); a fourth detector is refused (exit 2)."""
    spec = type(SHIPPED[0])(f"{SHIPPED[0]},{SHIPPED[0]},{SHIPPED[0]}")
    assert eval_reading.detector_files(spec) == [SHIPPED[0]] * 3
    made = eval_reading._detectors(spec, 1)
    assert made["third"] is not None and made["third"].session is not made["alt"].session
    assert eval_reading._detectors(type(spec)(f"{SHIPPED[0]},{SHIPPED[0]}"), 1)["third"] is None
    with pytest.raises(SystemExit) as err:
        eval_reading.main([str(rendered), "--pair", f"{spec},{SHIPPED[0]}", str(SHIPPED[1])])
    assert err.value.code == 2 and "at most FIRST+CLOSER,ALT,THIRD" in capsys.readouterr().err


def test_the_reader_takes_a_closer_look_model_when_the_models_folder_has_one(tmp_path):
    from vision.pipeline import CLOSER_FILE, PhotoReader

    for name in (DETECTOR_FILE, CLASSIFIER_FILE):
        (tmp_path / name).symlink_to(MODELS_DIR / name)
    assert PhotoReader(tmp_path, threads=1).closer is None
    (tmp_path / CLOSER_FILE).symlink_to(MODELS_DIR / DETECTOR_FILE)
    reader = PhotoReader(tmp_path, threads=1)
    assert reader.closer is not None and reader.closer is not reader.detector


def test_cli_refuses_a_folder_without_labels(tmp_path):
    with pytest.raises(SystemExit, match="no labels.jsonl"):
        eval_reading.main([str(tmp_path)])


def test_sweep_reads_as_evaluate_does_and_restores_the_constant(rendered):
    """A sweep over the constant's own value (and another) reads like a plain run for that value,
    with the models' outputs kept per photo; the constant is back as it was afterwards."""
    import vision.reading as reading

    before = reading.PEN_THIRTEEN
    plain = eval_reading.evaluate([rendered], [SHIPPED])["sets"][str(rendered)]["results"][0]
    module, name, values = eval_reading.parse_sweep(f"vision.reading.PEN_THIRTEEN={before},100")
    result = eval_reading.sweep([rendered], SHIPPED, module, name, values)
    rows = result["sets"][str(rendered)]
    assert reading.PEN_THIRTEEN == before
    assert rows[0]["value"] == before and rows[0]["exact"] == plain["exact"] and rows[0]["n"] == 3
    assert rows[0]["gained"] == rows[0]["lost"] == []
    assert rows[1]["exact"] == rows[0]["exact"] + len(rows[1]["gained"]) - len(rows[1]["lost"])


def test_memoised_model_calls_are_kept_per_input():
    calls = []

    class Model:
        def predict_raw(self, crops):
            calls.append(len(crops))
            return np.array([c.sum() for c in crops], float)

    m = Model()
    memo = eval_reading._memoise(m, "predict_raw")
    a, b = [np.zeros((2, 2, 3), np.uint8)], [np.ones((2, 2, 3), np.uint8)]
    first = m.predict_raw(a)
    first[0] = 99.0  # a caller changing its copy changes nothing kept
    assert m.predict_raw(a).tolist() == [0.0] and m.predict_raw(b).tolist() == [12.0]
    assert calls == [1, 1] and len(memo) == 2


@pytest.mark.parametrize("text, message", [
    ("PEN_THIRTEEN=2,3", "vision.module.NAME"),
    ("vision.reading.PEN_THIRTEEN", "vision.module.NAME"),
    ("vision.nosuch.X=1", "no module"),
    ("vision.reading.read_hand=1", "not a numeric constant"),
    ("vision.reading.PEN_THIRTEEN=a,b", "must be numbers"),
])
def test_sweep_refuses_what_it_cannot_set(text, message, rendered, capsys):
    with pytest.raises(ValueError, match=message):
        eval_reading.parse_sweep(text)
    with pytest.raises(SystemExit) as err:
        eval_reading.main([str(rendered), "--sweep", text])
    assert err.value.code == 2 and message in capsys.readouterr().err


def test_class_table_lists_each_class_in_model_order_with_a_total():
    by_class = {"back": {"n": 4, "boxed": 3, "taken": 3, "right": 3},
                "1m": {"n": 10, "boxed": 10, "taken": 8, "right": 6},
                "0p": {"n": 2, "boxed": 2, "taken": 2, "right": 1}}
    lines = eval_reading.class_table(by_class).splitlines()
    assert [line.split("|")[1].strip() for line in lines[2:]] == ["1m", "0p", "back", "**all**"]
    assert lines[2] == "| 1m | 10 | 100.0 % | 80.0 % | 75.0 % | 60.0 % |"
    assert lines[-1] == "| **all** | 16 | 93.8 % | 81.2 % | 76.9 % | 62.5 % |"
    # a class with no tile taken has no accuracy to show, not a division by zero
    assert "| 5z | 1 | 0.0 % | 0.0 % | – | 0.0 % |" in eval_reading.class_table({"5z": {"n": 1, "boxed": 0, "taken": 0, "right": 0}})


def test_cli_report_writes_the_per_class_tables_and_the_libraries_read_with(rendered, tmp_path, capsys):
    report = tmp_path / "classes.md"
    assert eval_reading.main([str(rendered), "--limit", "2", "--threads", "1", "--report", str(report),
                              "--json", str(tmp_path / "figures.json")]) == 0
    text = report.read_text()
    assert text.startswith(f"## {rendered}: ") and "| **all** |" in text
    out = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(out[-1])
    total = figures["sets"][str(rendered)][0]["tiles"]
    assert f"| **all** | {total['n']} |" in text
    from vision.runtime import libraries_line, library_versions

    assert out[-2] == libraries_line(library_versions()) and out[-2].startswith("read with python ")
    assert json.loads((tmp_path / "figures.json").read_text())["libraries"] == library_versions()


def test_cli_refuses_a_report_with_a_sweep(rendered, tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        eval_reading.main([str(rendered), "--report", str(tmp_path / "r.md"), "--sweep", "vision.reading.PEN_TWICE=1"])
    assert err.value.code == 2 and "--report" in capsys.readouterr().err
    assert not (tmp_path / "r.md").exists()


@pytest.mark.parametrize("args, message", [(["--workers", "0"], "at least 1"), (["--threads", "0"], "at least 1"),
                                           (["--workers", "2", "--sweep", "vision.reading.PEN_TWICE=1"], "--sweep")])
def test_cli_refuses_workers_it_cannot_use(rendered, capsys, args, message):
    with pytest.raises(SystemExit) as err:
        eval_reading.main([str(rendered), *args])
    assert err.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--report", "--json"])
def test_cli_refuses_an_output_it_cannot_write_before_reading(rendered, tmp_path, capsys, flag):
    """A folder given as the output file is refused at once (exit 2, the path named), not after every photo is read."""
    with pytest.raises(SystemExit) as err:
        eval_reading.main([str(rendered), flag, str(tmp_path)])
    assert err.value.code == 2 and str(tmp_path) in capsys.readouterr().err


def test_tile_misses_list_each_hand_tile_not_read_right(rendered, tmp_path):
    """A hand tile read right whose label is changed shows up as read wrong, with what the reader read."""
    first = eval_reading.evaluate([rendered], [SHIPPED], limit=1)["sets"][str(rendered)]["results"][0]
    assert len(first["tile_misses"]) == first["tiles"]["n"] - first["tiles"]["right"]
    rows = [json.loads(line) for line in (rendered / "labels.jsonl").read_text().splitlines()][:1]
    wrong = {(m["photo"], m["tile"]) for m in first["tile_misses"]}
    k = next(k for k, t in enumerate(rows[0]["tiles"]) if t["in_hand"] and (0, k) not in wrong)
    was = rows[0]["tiles"][k]["cls"]
    rows[0]["tiles"][k]["cls"] = "9s" if was != "9s" else "1m"
    (tmp_path / "labels.jsonl").write_text(json.dumps(rows[0]))
    (tmp_path / "images").symlink_to(rendered / "images")
    res = eval_reading.evaluate([tmp_path], [SHIPPED])["sets"][str(tmp_path)]["results"][0]
    assert len(res["tile_misses"]) == res["tiles"]["n"] - res["tiles"]["right"] == len(first["tile_misses"]) + 1
    miss = next(m for m in res["tile_misses"] if m["tile"] == k)
    assert miss["photo"] == 0 and miss["kind"] == "wrong" and miss["legible"] is None
    assert miss["cls"] == rows[0]["tiles"][k]["cls"] and miss["label"] == was
    assert miss["candidates"][0][0] == was and 0 < miss["confidence"] <= 1 and len(miss["box"]) == 4
    assert all(m["kind"] in ("unboxed", "not_once", "wrong") for m in res["tile_misses"])


def test_photos_read_in_processes_give_the_one_process_figures(rendered):
    """`workers` reads the photos in other processes and tallies them in photo order: every figure but the time."""
    def without_time(result):
        for s in result["sets"].values():
            for r in s["results"]:
                r.pop("mean_ms")
        return result

    one = eval_reading.evaluate([rendered], [SHIPPED, SHIPPED])
    two = eval_reading.evaluate([rendered], [SHIPPED, SHIPPED], workers=2)
    assert without_time(two) == without_time(one)
    assert one["sets"][str(rendered)]["results"][0]["n"] == 3


def _unsure_base(rendered):
    """A run of the set, doctored: photo 0 read wrong, 1 and 2 right; 0 and 1 unsure, 2 sure. And whether the
    shipped pair really reads each photo exactly."""
    base = eval_reading.evaluate([rendered], [SHIPPED])
    s = base["sets"][str(rendered)]
    first, truth = s["results"][0], s["truth"]
    exact_now = [r == t for r, t in zip(first["reads"], truth)]
    first.update(reads=["1m"] + truth[1:], exact=2, sure=[False, False, True])
    return base, exact_now


def test_only_unsure_reads_the_unsure_photos_again_and_counts_against_them(rendered):
    base, exact_now = _unsure_base(rendered)
    targets = eval_reading.screen_targets(base, [rendered])
    res = eval_reading.screen(targets, [SHIPPED, SHIPPED], threads=1)["sets"][str(rendered)]["results"]
    for r in res:
        assert r["read"] == 2 and sorted(r["reads"]) == [0, 1]  # the sure photo 2 is not read again
        assert r["gained"] == [0] * exact_now[0] and r["lost"] == [1] * (not exact_now[1])
        assert r["was"] == 2 and r["exact"] == 2 + len(r["gained"]) - len(r["lost"])
    assert res[0]["reads"] == res[1]["reads"]


def test_cli_only_unsure_prints_each_set_and_the_sum(rendered, tmp_path, capsys):
    base, exact_now = _unsure_base(rendered)
    (tmp_path / "from.json").write_text(json.dumps(base))
    assert eval_reading.main([str(rendered), "--pair", *map(str, SHIPPED), "--threads", "1",
                              "--only-unsure", str(tmp_path / "from.json")]) == 0
    out = capsys.readouterr().out.splitlines()
    now = 2 + exact_now[0] - (not exact_now[1])
    assert out[0].startswith(f"{rendered}: 2 -> {now}/3 exact") and "read 2 unsure photos" in out[0]
    assert out[1] == f"sum over the sets: pair 0: {now}"
    assert json.loads(out[-1])["sums"] == [now]


def test_cli_only_unsure_refuses_what_it_cannot_screen(rendered, tmp_path, capsys):
    """Exit 2 with the reason, before any photo is read: no such file, not a run's JSON, a set the run did not
    read, a set whose labels changed since, and options a screen has no use for."""
    base, _ = _unsure_base(rendered)
    (tmp_path / "from.json").write_text(json.dumps(base))
    (tmp_path / "bad.json").write_text("[1, 2")
    other = tmp_path / "other"
    other.mkdir()
    rows = [json.loads(line) for line in (rendered / "labels.jsonl").read_text().splitlines()]
    rows[0]["sequence"] = "1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m 1m"
    (other / "labels.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    cases = [([str(rendered), "--only-unsure", str(tmp_path / "no.json")], "no.json"),
             ([str(rendered), "--only-unsure", str(tmp_path / "bad.json")], "cannot read"),
             ([str(rendered), str(tmp_path / "nolabels"), "--only-unsure", str(tmp_path / "from.json")],
              "no labels.jsonl"),
             ([str(other), "--only-unsure", str(tmp_path / "from.json")], "was not read in it"),
             ([str(rendered), "--limit", "1", "--only-unsure", str(tmp_path / "from.json")], "--limit")]
    (tmp_path / "nolabels").mkdir()
    for args, message in cases:
        with pytest.raises(SystemExit) as err:
            eval_reading.main(args)
        said = f"{capsys.readouterr().err} {err.value.code}"
        assert message in said and (err.value.code == 2 or "no labels.jsonl" in str(err.value.code)), args
    (other / "images").symlink_to(rendered / "images")
    base["sets"][str(other)] = base["sets"][str(rendered)]
    (tmp_path / "from.json").write_text(json.dumps(base))
    with pytest.raises(SystemExit) as err:
        eval_reading.main([str(other), "--only-unsure", str(tmp_path / "from.json")])
    assert err.value.code == 2 and "labels are not the ones it read" in capsys.readouterr().err


def test_unboxed_tiles_are_marked_by_whether_the_first_pass_boxed_them():
    """`mark_first_pass`: an unboxed hand tile under a first-pass box was lost by the reading, one under none was
    never found; other misses are left alone."""
    from miss_causes import mark_first_pass

    tiles = [{"box": [0, 0, 10, 10], "in_hand": True}, {"box": [20, 0, 30, 10], "in_hand": True},
             {"box": [40, 0, 50, 10], "in_hand": True}]
    misses = [{"tile": 0, "kind": "unboxed"}, {"tile": 1, "kind": "unboxed"}, {"tile": 2, "kind": "wrong"}]
    assert mark_first_pass(tiles, misses, np.array([[1, 1, 9, 9], [41, 1, 49, 9]])) == 1
    assert [m.get("first_pass") for m in misses] == [True, False, None]
    assert mark_first_pass(tiles, [{"tile": 2, "kind": "wrong"}], np.zeros((0, 4))) == 0


def test_unboxed_tiles_a_moved_label_leaves_are_counted_as_never_found(rendered, tmp_path):
    """A hand tile's label moved off every tile (to an empty corner) has no reader box and no first-pass box."""
    rows = [json.loads(line) for line in (rendered / "labels.jsonl").read_text().splitlines()][:1]
    k = next(k for k, t in enumerate(rows[0]["tiles"]) if t["in_hand"])
    rows[0]["tiles"][k].update(box=[0, 0, 4, 4], hull=[[0, 0], [4, 0], [4, 4], [0, 4]])
    (tmp_path / "labels.jsonl").write_text(json.dumps(rows[0]))
    (tmp_path / "images").symlink_to(rendered / "images")
    res = eval_reading.evaluate([tmp_path], [SHIPPED])["sets"][str(tmp_path)]["results"][0]
    moved = next(m for m in res["tile_misses"] if m["tile"] == k)
    assert moved["kind"] == "unboxed" and moved["first_pass"] is False
    unboxed = [m for m in res["tile_misses"] if m["kind"] == "unboxed"]
    assert all(isinstance(m["first_pass"], bool) for m in unboxed)
    assert res["unboxed_first_pass"] == sum(m["first_pass"] for m in unboxed) <= res["tiles"]["n"] - res["tiles"]["boxed"]
    assert eval_reading.summary({"pairs": [], "sets": {"s": {"results": [res]}}})["sets"]["s"][0]["unboxed_first_pass"] \
        == res["unboxed_first_pass"]
