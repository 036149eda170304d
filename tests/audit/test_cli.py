"""`tsumo audit` bad input: exit code 2 and a message naming what is wrong, before any work."""
from __future__ import annotations

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
