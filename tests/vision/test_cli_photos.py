"""`tsumo read`, `tsumo score`, `tsumo eval-photos`: bad input, exit codes, output.

The reader is swapped for the oracle one of test_pipeline_oracle (the renderer's labels play the
models), so these tests check the commands, not the models.
"""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tests.vision.test_pipeline_oracle import OracleClassifier, OracleDetector, faces, scene
from tsumo.cli import main
from vision.pipeline import MODELS_DIR as REPO_MODELS, PhotoReader


def _render(tmp_path, sequence: str, seed: int, name: str = "hand.png", **opts):
    rng = np.random.default_rng(seed)
    image, labels = scene.render_hand_photo(sequence, rng, roll_deg=0.0, azimuth_deg=0.0, standing=False,
                                            size=(960, 720), artist=faces(), **opts)
    path = tmp_path / name
    cv2.imwrite(str(path), cv2.cvtColor(image, cv2.COLOR_RGB2BGR))
    return path, labels


@pytest.fixture
def oracle(monkeypatch):
    """Make the photo commands read with the oracle for whichever photo was rendered last."""
    state = {}

    def make_reader(args):
        labels = state["labels"]
        return PhotoReader(detector=OracleDetector(labels), classifier=OracleClassifier(labels))

    for mod in ("tsumo.commands.read", "tsumo.commands.score", "tsumo.commands.eval_photos"):
        monkeypatch.setattr(f"{mod}.make_reader", make_reader)
    return state


def test_not_an_image(tmp_path, capsys):
    bad = tmp_path / "notes.jpg"
    bad.write_text("this is not a photo")
    assert main(["read", str(bad)]) == 2
    assert "not a supported image" in capsys.readouterr().err
    assert main(["score", str(tmp_path / "missing.jpg")]) == 2
    assert "no such file" in capsys.readouterr().err
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    assert main(["score", str(empty)]) == 2
    assert "empty" in capsys.readouterr().err


def test_bad_flags_fail_before_reading(tmp_path, capsys):
    assert main(["score", str(tmp_path / "x.jpg"), "--round", "Q"]) == 2
    assert "--round" in capsys.readouterr().err
    assert main(["score", str(tmp_path / "x.jpg"), "--rules", "nosuchrules"]) == 2
    assert "rules" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:  # argparse's own usage errors
        main(["score", str(tmp_path / "x.jpg"), "--honba", "-1"])
    assert exc.value.code == 2


def test_missing_models_is_a_clear_error(tmp_path, capsys):
    path, _ = _render(tmp_path, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z", 1)
    assert main(["read", str(path), "--models", str(tmp_path)]) == 2
    assert "tile_detector.onnx not found" in capsys.readouterr().err


def test_score_prints_groups_and_points(tmp_path, capsys, oracle):
    seq = "2m 3m 4m 6p 7p 8p 1z 1z 5s 5s | 5s | 7z 7z- 7z"
    path, oracle["labels"] = _render(tmp_path, seq, 2)
    out_img = tmp_path / "annotated.jpg"
    assert main(["score", str(path), "--rules", "tenhou", "--round", "E", "--seat", "S", "--tsumo",
                 "--annotate", str(out_img)]) == 0
    out = capsys.readouterr().out
    assert "read: " + seq in out
    assert "pon" in out and "called from across" in out
    assert "1300" in out or "points" in out
    assert "Yakuhai" in out or "yakuhai" in out.lower()
    assert cv2.imread(str(out_img)) is not None


def test_score_json(tmp_path, capsys, oracle):
    seq = "2m 3m 4m 6p 7p 8p 1z 1z 5s 5s | 5s | 7z 7z- 7z"
    path, oracle["labels"] = _render(tmp_path, seq, 2)
    assert main(["score", str(path), "--json", "--dora", "1m", "--seat", "S"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["hand"]["melds"] == [{"kind": "pon", "tiles": "777z", "called": "7z", "from": "across"}]
    assert data["hand"]["dora_indicators"] == ["1m"] and data["hand"]["seat_wind"] == "S"
    assert data["result"]["error"] is None and data["result"]["han"] >= 2 and data["error"] is None
    assert data["reading"]["sequence"] == seq


def test_thirteen_tiles_needs_the_winning_tile(tmp_path, capsys, oracle):
    seq = "0m 6m 7m 8m 8m 2s 3s 4s 0s 6s 5p 6p 7p"
    path, oracle["labels"] = _render(tmp_path, seq, 3)
    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert "winning tile is not in the photo" in err and "4s" in err and "7s" in err
    assert main(["score", str(path), "--win", "7s", "--riichi"]) == 0
    assert "Riichi" in capsys.readouterr().out
    assert main(["score", str(path), "--win", "9p"]) == 2
    assert "--win 9p" in capsys.readouterr().err


def test_read_json_and_partial_view(tmp_path, capsys, oracle):
    seq = "3s 0p 3z 1p 1s 6z 8p 0s"
    path, oracle["labels"] = _render(tmp_path, seq, 4)
    assert main(["read", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sequence"] == seq and data["hand"] is None and data["error_code"] == "partial"
    assert main(["score", str(path)]) == 2
    assert "not a whole hand" in capsys.readouterr().err


def test_eval_photos(tmp_path, capsys, oracle):
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z"
    path, oracle["labels"] = _render(tmp_path, seq, 5)
    (tmp_path / "labels.jsonl").write_text(
        json.dumps({"image": path.name, "hand_visible": True, "sequence": seq}) + "\n"
        + json.dumps({"image": path.name, "hand_visible": True, "sequence": seq.replace("| 5z", "5z")}) + "\n")
    assert main(["eval-photos", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary["photos"] == 2 and summary["exact_photos"] == 1 and summary["exact"] == 0.5
    assert summary["tile_accuracy"] == 1.0  # same tiles, only the grouping differs
    assert lines[0].startswith(path.name + ": exact")


@pytest.mark.parametrize("content,message", [
    (None, "labels.jsonl: missing"),
    ("not json\n", "not JSON"),
    ('{"image": "nope.jpg", "sequence": "1m"}\n', "not found"),
    ('{"image": "x.png", "sequence": "1q 2m"}\n', "bad sequence"),
    ("\n", "no photos"),
    ('{"image": "x.png", "image": "y.png", "sequence": "1m"}\n', "labels.jsonl:1: the key 'image' is given twice"),
    ('{"image": "x.png", "sequence": "1m", "hand_visible": "yes"}\n', '"hand_visible" must be true or false'),
    (b'{"image": "x.png", "sequence": "1m", "note": "caf\xe9"}\n', "not UTF-8 text (byte 0xe9"),
])
def test_eval_photos_bad_folder(tmp_path, capsys, content, message):
    (tmp_path / "x.png").write_bytes(b"")
    if isinstance(content, bytes):
        (tmp_path / "labels.jsonl").write_bytes(content)
    elif content is not None:
        (tmp_path / "labels.jsonl").write_text(content)
    assert main(["eval-photos", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert main(["eval-photos", str(tmp_path / "nofolder")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["eval-photos", str(tmp_path / "x.png")]) == 2
    assert "a file, not a folder" in capsys.readouterr().err


@pytest.mark.skipif(not (REPO_MODELS / "tile_detector.onnx").is_file() or not (REPO_MODELS / "tile_classifier.onnx").is_file(),
                    reason="models not trained in this checkout")
def test_make_demo_scores_the_example(repo_dir, tmp_path, capsys):
    """What `make demo` runs, with the shipped models."""
    out = tmp_path / "hand.annotated.jpg"
    assert main(["score", str(repo_dir / "examples" / "hand.jpg"), "--rules", "tenhou", "--round", "E",
                 "--seat", "S", "--tsumo", "--annotate", str(out)]) == 0
    text = capsys.readouterr().out
    assert "read: 2m 3m 4m 0p 6p 7p 1z 1z 5s 5s | 5s | 7z 7z- 7z" in text
    assert "2700" in text
    assert cv2.imread(str(out)) is not None


def test_unreadable_photo_paths(tmp_path, capsys):
    """Every way `open` can fail is a message naming the path, never a traceback."""
    (tmp_path / "notes.txt").write_text("notes")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for path, message in [(tmp_path / "notes.txt" / "x.jpg", "cannot read it (Not a directory)"),
                          (tmp_path / "loop", "cannot read it (Too many levels of symbolic links)"),
                          (tmp_path / ("a" * 300 + ".jpg"), "cannot read it (File name too long)")]:
        assert main(["score", str(path)]) == 2
        assert f"{path}: {message}" in capsys.readouterr().err


def test_a_huge_file_is_refused_without_reading_it_all(tmp_path, capsys, monkeypatch):
    """`tsumo score game.mp4`: a video read whole into memory only to be called 'not an image'."""
    monkeypatch.setattr("tsumo.commands.read.MAX_PHOTO_BYTES", 1000)
    big = tmp_path / "game.mp4"
    big.write_bytes(b"\0" * 5000)
    assert main(["score", str(big)]) == 2
    assert "too large for a photo" in capsys.readouterr().err


def _no_reading(args):
    raise AssertionError("the photo must not be read")


@pytest.mark.parametrize("command", ["score", "read"])
@pytest.mark.parametrize("target, message", [
    ("out.txt", "cannot write .txt images"),
    ("out", "needs an image extension"),
    ("folder", "is a folder"),
    ("nowhere/out.jpg", "does not exist"),
    ("hand.png", "is the photo itself"),
])
def test_annotate_target_is_checked_before_reading(tmp_path, capsys, monkeypatch, command, target, message):
    """A bad --annotate was an OpenCV traceback after the slow reading, or overwrote the photo."""
    monkeypatch.setattr(f"tsumo.commands.{command}.make_reader", _no_reading)
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), np.zeros((40, 60, 3), np.uint8))
    before = photo.read_bytes()
    (tmp_path / "folder").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main([command, "hand.png", "--annotate", target]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tsumo: error: --annotate {target}: ") and message in err
    assert photo.read_bytes() == before


def test_failed_annotation_keeps_the_score(tmp_path, capsys, oracle, monkeypatch):
    """The annotated copy cannot be written (disk full…): the score is still printed, exit 2."""
    seq = "2m 3m 4m 6p 7p 8p 1z 1z 5s 5s | 5s | 7z 7z- 7z"
    path, oracle["labels"] = _render(tmp_path, seq, 2)
    monkeypatch.setattr(cv2, "imwrite", lambda *a, **k: False)
    assert main(["score", str(path), "--tsumo", "--annotate", str(tmp_path / "a.jpg")]) == 2
    out, err = capsys.readouterr()
    assert "winner collects" in out and "cannot write the annotated photo" in err


def test_broken_model_files_are_a_clear_error(tmp_path, capsys):
    for name in ("tile_detector.onnx", "tile_classifier.onnx"):
        (tmp_path / name).write_text("not a model")
    path, _ = _render(tmp_path, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z", 1)
    assert main(["read", str(path), "--models", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tsumo: error: cannot load the models in {tmp_path}: ")


def test_bad_rules_fail_before_reading_even_with_players(tmp_path, capsys, monkeypatch):
    """With --players the rules were not resolved until after the (slow) reading."""
    monkeypatch.setattr("tsumo.commands.score.make_reader", _no_reading)
    missing = str(tmp_path / "x.jpg")
    assert main(["score", missing, "--players", "4", "--rule", "kiriage=maybe"]) == 2
    assert "--rule: rules.kiriage: expected true or false" in capsys.readouterr().err
    assert main(["score", missing, "--players", "4", "--rules", "sanma"]) == 2
    assert "--players 4: the rule set 'sanma' is for 3 players" in capsys.readouterr().err


def test_score_json_names_the_reading_when_win_is_wrong(tmp_path, capsys, oracle):
    """--json promised one JSON object; a wrong --win printed nothing on stdout."""
    seq = "0m 6m 7m 8m 8m 2s 3s 4s 0s 6s 5p 6p 7p"
    path, oracle["labels"] = _render(tmp_path, seq, 3)
    assert main(["score", str(path), "--win", "9p", "--json"]) == 2
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["reading"]["sequence"] == seq and data["hand"] is None and data["result"] is None
    assert "--win 9p" in err and data["error"].startswith("--win 9p")  # the reason in the JSON too, not stderr only
    assert main(["score", str(path), "--json"]) == 2  # no winning tile shown, none given
    data = json.loads(capsys.readouterr().out)
    assert data["result"] is None and "winning tile is not in the photo" in data["error"]


def test_eval_photos_survives_a_damaged_photo(tmp_path, capsys, oracle):
    """One damaged photo stopped the run: the figures for every photo read before it were lost."""
    seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z"
    path, oracle["labels"] = _render(tmp_path, seq, 5)
    (tmp_path / "bad.jpg").write_bytes(path.read_bytes()[:2000])
    (tmp_path / "labels.jsonl").write_text(
        "".join(json.dumps({"image": name, "sequence": seq}) + "\n" for name in ("bad.jpg", path.name)))
    assert main(["eval-photos", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["photos"] == 1 and summary["exact_photos"] == 1 and summary["unreadable"] == ["bad.jpg"]
    assert "bad.jpg" in err
