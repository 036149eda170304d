"""`tsumo audit` bad input: exit code 2 and a message naming what is wrong, before any work;
failures during a run keep what was already read."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tsumo.cli import main


@pytest.fixture
def video(tmp_path):
    from tests.audit.fakes import write_video

    return write_video(tmp_path / "v.mp4", [(0, 0)], fps=10, duration=1)


@pytest.mark.parametrize("extra, message", [
    (["--fps", "0"], "--fps: must be > 0"),
    (["--round", "X"], "--round: 'X' is not a wind"),
    (["--dora", "9z"], "--dora: no tile 9z in"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--fps", "inf"], "--fps: must be a finite number"),     # planning never finished
    (["--chunk", "inf"], "--chunk: must be a finite number"),  # OverflowError traceback
    # with --players the rules went unchecked: every win scored as an error, exit 0
    (["--players", "4", "--rules", "foo"], "--rules: unknown rule set 'foo'"),
    (["--players", "3"], "--players 3: the rule set 'tenhou' is for 4 players"),
])
def test_bad_flags(video, tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit) as exc:  # argparse errors exit 2 themselves
        code = main(["audit", str(video), "-o", str(tmp_path / "out"), *extra])
        raise SystemExit(code)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / "report.json").exists()


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    ("points,colour\n1,red\n", "line 1: unknown column 'colour'"),
    ("points,win\n8000,ron\n7700,rn\n", "line 3, column 'win': win must be ron or tsumo"),
])
def test_bad_declared_file(video, tmp_path, capsys, content, message):
    declared = tmp_path / "declared.csv"
    if content is not None:
        declared.write_text(content)
    assert main(["audit", str(video), "-o", str(tmp_path / "out"), "--declared", str(declared)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tsumo: error: --declared: ") and message in err
    assert not (tmp_path / "out").exists()


def test_declared_needs_video_column_for_several_videos(video, tmp_path, capsys):
    declared = tmp_path / "d.csv"
    declared.write_text("points\n1000\n")
    assert main(["audit", str(video), str(video), "-o", str(tmp_path / "o"), "--declared", str(declared)]) == 2
    assert "needs a 'video' column" in capsys.readouterr().err


def test_missing_models_folder_is_a_clear_error(video, tmp_path, capsys):
    assert main(["audit", str(video), "-o", str(tmp_path / "o"), "--models", str(tmp_path / "nowhere")]) == 2
    assert "--models: " in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["audit", str(video), "-o", str(tmp_path / "o"), "--models", str(empty)]) == 2
    assert "model tile_detector.onnx not found" in capsys.readouterr().err


@pytest.mark.slow
def test_unreachable_ray_cluster_is_a_clear_error(video, tmp_path, capsys, monkeypatch):
    pytest.importorskip("ray")
    from audit.runner import AuditError, AuditOptions, run_audit
    from tests.audit.fakes import BarcodeReaderFactory

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    with pytest.raises(AuditError, match="cannot start or reach the Ray cluster at 127.0.0.1:9"):
        run_audit([str(video)], tmp_path, BarcodeReaderFactory(), AuditOptions(ray=True, ray_address="127.0.0.1:9"),
                  progress=False)


@pytest.mark.parametrize("extra, context", [
    ([], {"rules": "tenhou"}),
    (["--tsumo", "--seat", "south", "--dora", "35m", "--riichi", "--honba", "0"],
     {"rules": "tenhou", "win": "tsumo", "seat_wind": "S", "dora_indicators": ["3m", "5m"], "riichi": True,
      "honba": 0}),
    (["--rules", "sanma", "--rule", "kiriage=true", "--sticks", "2"],
     {"rules": {"preset": "sanma", "kiriage": True}, "kyotaku": 2}),
])
def test_context_holds_only_what_was_given(video, tmp_path, extra, context):
    """Flags left out stay out: a --declared row (or the engine's default) fills them per win."""
    from tsumo.cli import build_parser
    from tsumo.context import context_from_args

    args = build_parser().parse_args(["audit", str(video), "-o", str(tmp_path / "o"), *extra])
    assert context_from_args(args, only_given=True) == context


@pytest.fixture
def barcode_models(monkeypatch):
    """The CLI's real-model reader swapped for the barcode reader: these tests check the command."""
    from tests.audit.fakes import BarcodeReaderFactory

    monkeypatch.setattr("audit.runner.PipelineReaderFactory", lambda *a, **k: BarcodeReaderFactory())


@pytest.mark.parametrize("out, message", [
    ("", "-o: empty folder name"),                   # `-o "$UNSET"`: not the current folder
    ("notes.txt/report", "cannot write there (Not a directory)"),
])
def test_unusable_report_folder_is_a_clear_error(video, tmp_path, capsys, monkeypatch, barcode_models, out, message):
    """A report folder that cannot be made fails before any frame is read, with no traceback."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("notes")
    assert main(["audit", str(video), "-o", out, "--no-progress"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "report.json").exists() and not (tmp_path / "checkpoint.json").exists()


def test_broken_model_files_are_a_clear_error(video, tmp_path, capsys):
    models = tmp_path / "models"
    models.mkdir()
    for name in ("tile_detector.onnx", "tile_classifier.onnx"):
        (models / name).write_text("not a model")
    assert main(["audit", str(video), "-o", str(tmp_path / "o"), "--models", str(models), "--no-progress"]) == 2
    assert f"cannot load the models in {models}" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_another_runs_checkpoint_is_kept_not_overwritten(video, tmp_path, capsys, barcode_models):
    """Finished chunks of a run with other settings may be hours of work: refused unless --restart."""
    out = tmp_path / "o"
    assert main(["audit", str(video), "-o", str(out), "--fps", "3", "--no-progress"]) == 0
    saved = (out / "checkpoint.json").read_bytes()
    capsys.readouterr()
    assert main(["audit", str(video), "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "other --fps" in err and "--restart" in err and "Traceback" not in err
    assert (out / "checkpoint.json").read_bytes() == saved
    assert main(["audit", str(video), "-o", str(out), "--fps", "3", "--no-progress"]) == 0  # resumes
    assert "resuming from" in capsys.readouterr().err
    assert main(["audit", str(video), "-o", str(out), "--restart", "--no-progress"]) == 0
    assert json.loads((out / "checkpoint.json").read_text())["fingerprint"]["sample_fps"] == 2.0


def test_a_photo_is_not_audited_as_an_empty_video(tmp_path, capsys, barcode_models):
    """OpenCV opens a JPEG as a one-frame video: '0 winning hands' and exit 0 would hide the mistake."""
    photo = tmp_path / "hand.jpg"
    cv2.imwrite(str(photo), np.full((240, 320, 3), 128, np.uint8))
    assert main(["audit", str(photo), "-o", str(tmp_path / "o"), "--no-progress"]) == 2
    assert "a still image, not a video" in capsys.readouterr().err
    (v,) = json.loads((tmp_path / "o" / "report.json").read_text())["videos"]
    assert v["events"] == [] and "still image" in v["error"]


@pytest.mark.parametrize("restart,hint", [([], "rerun the same command to resume"),
                                          (["--restart"], "rerun without --restart to resume")])
def test_write_failure_during_the_run_keeps_finished_chunks(tmp_path, capsys, monkeypatch, barcode_models,
                                                            restart, hint):
    """A full disk mid-run: a message naming the file, exit 1, the chunks saved before it kept (and
    a resume hint that resumes: the same command with --restart would discard them again)."""
    import errno

    from audit.checkpoint import Checkpoint
    from tests.audit.fakes import write_video

    video = write_video(tmp_path / "v.mp4", [(0, 0)], fps=10, duration=4)
    saves = []
    real_save = Checkpoint.save

    def save(self):
        if saves:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path))
        saves.append(1)
        real_save(self)

    monkeypatch.setattr(Checkpoint, "save", save)
    out = tmp_path / "o"
    code = main(["audit", str(video), "-o", str(out), "--chunk", "1", "--workers", "1", "--no-progress", *restart])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert f"cannot write {out / 'checkpoint.json'}: No space left on device" in err
    assert hint in err
    assert len(json.loads((out / "checkpoint.json").read_text())["chunks"]) == 1


def test_declared_rows_for_no_given_video_are_printed(video, tmp_path, capsys, barcode_models):
    """A misspelt video name in --declared left its row unchecked with nothing said on the console."""
    declared = tmp_path / "d.csv"
    declared.write_text("video,time,win,points\nvidoe.mp4,0:19,ron,12000\n")
    assert main(["audit", str(video), "-o", str(tmp_path / "o"), "--declared", str(declared), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "declared line 2 (12000 points): names no audited video ('vidoe.mp4'), not checked" in out


def test_a_worker_killed_mid_run_is_a_message_not_a_traceback(tmp_path, capsys, monkeypatch):
    from tests.audit.fakes import DyingReaderFactory, write_video

    monkeypatch.setattr("audit.runner.PipelineReaderFactory", lambda *a, **k: DyingReaderFactory(3.0))
    video = write_video(tmp_path / "v.mp4", [(0, 0)], fps=10, duration=4)
    code = main(["audit", str(video), "-o", str(tmp_path / "o"), "--chunk", "1", "--workers", "2",
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert "a worker process died (out of memory?)" in err


def test_the_summary_line_says_the_winning_tile_and_how_it_was_won(tmp_path, capsys):
    """The docs showed 'hand + 2m'; the line gave the concealed tiles only, never which won or how."""
    from tsumo.commands.audit import _print_summary

    event = {"start_s": 13.5, "end_s": 25.0, "confidence": 0.78, "verdict": "match",
             "hand": {"concealed": "222567m05567p456s", "win_tile": "2m", "win": "tsumo", "melds": []},
             "result": {"han": 6, "fu": 40, "points": 12000, "error": None}}
    _print_summary({"videos": [{"path": "t.mp4", "events": [event]}]}, tmp_path)
    assert "13.5–25.0 s  222567m05567p456s  win 2m by tsumo  → 6 han 40 fu 12000  (confidence 0.78)  [match]" \
        in capsys.readouterr().out
