"""The audit job end to end with a barcode reader: chunking, pool, gate, checkpoint/resume,
declared verdicts, errors that keep partial results, report files."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from audit.declared import load_declared
from audit.checkpoint import Checkpoint
from audit.runner import AuditOptions, CheckpointConflict, run_audit
from tests.audit.fakes import HANDS, BarcodeReader, BarcodeReaderFactory, fake_score, write_video

REPO = Path(__file__).resolve().parents[2]
TIMELINE = [(0, 0), (5, 1), (12, 0), (15, -1), (15.3, 0), (20, 2), (22, -1), (22.4, 2), (26, 0),
            (33, 4), (33.6, 0), (40, 4), (45, 0)]
TRUTH = [(5, 12, 1), (20, 26, 2), (40, 45, 4)]  # (start, end, hand); the 0.6 s flash at 33 s is no event


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    return write_video(tmp_path_factory.mktemp("v") / "table.mp4", TIMELINE, fps=10, duration=60, shake=0.7)


def options(**kw):
    return AuditOptions(**{"chunk_s": 10.0, "workers": 1, **kw})


def audit(video, out, reader=None, **kw):
    return run_audit([str(video)], out, BarcodeReaderFactory(), options(**kw), progress=False,
                     reader=reader, scorer=fake_score)


def report(out) -> dict:
    return json.loads((Path(out) / "report.json").read_text())


def test_events_found_with_right_hands_and_spans(video, tmp_path):
    reader = BarcodeReader()
    audit(video, tmp_path, reader=reader)
    (v,) = report(tmp_path)["videos"]
    assert v["duration_s"] == 60.0 and "error" not in v
    got = [(e["start_s"], e["end_s"], e["hand"]["concealed"]) for e in v["events"]]
    assert len(got) == 3
    for (s, e, hand), (gs, ge, gh) in zip(TRUTH, got):
        assert abs(gs - s) <= 0.5 and abs(ge - (e - 0.5)) <= 0.5 and gh == HANDS[hand]["concealed"]
    assert all(e["verdict"] is None and e["declared"] is None for e in v["events"])
    assert v["events"][0]["result"]["points"] == 1000
    # the still-frame gate: a static picture is read far less often than it is sampled
    assert reader.reads < 0.6 * 120


def test_gate_off_reads_every_sampled_frame_and_finds_the_same(video, tmp_path):
    from audit.scan import GateParams

    reader = BarcodeReader()
    audit(video, tmp_path / "a", reader=reader, gate=GateParams(enabled=False))
    assert reader.reads == 120
    audit(video, tmp_path / "b")
    a, b = report(tmp_path / "a"), report(tmp_path / "b")
    assert [e["hand"] for e in a["videos"][0]["events"]] == [e["hand"] for e in b["videos"][0]["events"]]


def test_while_no_hand_is_shown_every_other_frame_is_read(video, tmp_path):
    """The idle gate: frames without a hand are read at half the sampled rate (a reveal is still
    caught within a sample), frames showing one at every sample; the events are the same."""
    from audit.scan import GateParams

    every = BarcodeReader()
    audit(video, tmp_path / "every", reader=every, gate=GateParams(idle_every=1))
    half = BarcodeReader()
    audit(video, tmp_path / "half", reader=half, gate=GateParams(idle_every=2))
    assert half.reads < every.reads
    a, b = report(tmp_path / "every"), report(tmp_path / "half")
    assert [(e["hand"], round(e["start_s"]), round(e["end_s"])) for e in a["videos"][0]["events"]] == \
        [(e["hand"], round(e["start_s"]), round(e["end_s"])) for e in b["videos"][0]["events"]]
    gates = [r["gate"] for c in json.loads((tmp_path / "half" / "checkpoint.json").read_text())["chunks"]
             for r in c["readings"]]
    assert "idle" in gates and "idle" not in [r["gate"] for c in json.loads(
        (tmp_path / "every" / "checkpoint.json").read_text())["chunks"] for r in c["readings"]]


def test_the_same_faces_read_twice_without_a_hand_are_not_read_at_every_frame(video, tmp_path):
    """Discards or a misread face-down hand: many faces, no hand, the same reading twice in a
    row — read at the idle rate; a reading that changes is read at every sample."""
    from audit.reader import FrameReading
    from audit.scan import scan_chunk
    from audit.runner import plan_chunks
    from audit.video import probe_video

    class Faces:
        identity = "faces"

        def __init__(self, changing: bool):
            self.changing, self.reads = changing, 0

        def read(self, frame):
            self.reads += 1
            faces = "1m 2m 3m 4m 5m 6m 7m 8m 9m " + (f"{1 + frame.index % 9}p" if self.changing else "1p")
            return FrameReading(frame.index, frame.t, None, faces, 0.0, 14, "read")

    (chunk,) = plan_chunks(0, probe_video(video), 2.0, 60.0)
    same, changing = Faces(False), Faces(True)
    scan_chunk(chunk, same)
    scan_chunk(chunk, changing)
    assert changing.reads == 120 and same.reads < 70


def test_pool_of_workers_gives_the_same_report(video, tmp_path):
    audit(video, tmp_path / "inline")
    audit(video, tmp_path / "pool", workers=2)
    assert report(tmp_path / "inline") == report(tmp_path / "pool")


def test_resume_skips_done_chunks_and_gives_the_same_report(video, tmp_path):
    audit(video, tmp_path / "full")
    out = tmp_path / "resumed"
    audit(video, out)
    # Cut the checkpoint back to its first two chunks, as if killed there.
    data = json.loads((out / "checkpoint.json").read_text())
    data["chunks"] = data["chunks"][:2]
    (out / "checkpoint.json").write_text(json.dumps(data))
    (out / "report.json").unlink()
    reader = BarcodeReader()
    audit(video, out, reader=reader)
    assert report(out) == report(tmp_path / "full")
    assert 0 < reader.reads < 60  # only the 4 remaining chunks were read


def test_another_runs_checkpoint_is_refused_and_kept_unless_restart_is_asked(video, tmp_path):
    """The library is as safe as the CLI: another run's finished chunks are never overwritten
    unasked (they were, with a note, unless an option was set)."""
    import io

    audit(video, tmp_path)
    saved = (tmp_path / "checkpoint.json").read_bytes()
    with pytest.raises(CheckpointConflict, match="other --fps"):
        audit(video, tmp_path, sample_fps=3.0)
    assert (tmp_path / "checkpoint.json").read_bytes() == saved
    err = io.StringIO()
    run_audit([str(video)], tmp_path, BarcodeReaderFactory(), options(sample_fps=3.0, restart=True), stream=err,
              progress=False, scorer=fake_score)
    assert "(restart); starting over" in err.getvalue()
    assert json.loads((tmp_path / "checkpoint.json").read_text())["fingerprint"]["sample_fps"] == 3.0


def test_restart_replaces_the_old_checkpoint_only_when_it_saves(tmp_path):
    """A restarted run that fails before its first chunk is saved leaves the old file as it was."""
    old = Checkpoint(tmp_path, {"videos": ["a"]})
    old.save()
    saved = old.path.read_bytes()
    cp, note = Checkpoint.open(tmp_path, {"videos": ["b"]}, restart=True)
    assert cp.chunks == {} and "discarding" in note
    assert old.path.read_bytes() == saved
    cp.save()
    assert json.loads(old.path.read_text())["fingerprint"] == {"videos": ["b"]}


def test_declared_points_give_verdicts(video, tmp_path):
    d = tmp_path / "declared.csv"
    d.write_text("time,win,honba,points\n0:21,ron,0,2000\n7,tsumo,1,9999\n42,ron,0,4000\n59,ron,0,1000\n")
    opts = options(declared=load_declared(d), context={"rules": "tenhou"})
    run_audit([str(video)], tmp_path, BarcodeReaderFactory(), opts, progress=False, scorer=fake_score)
    (v,) = report(tmp_path)["videos"]
    verdicts = [(e["verdict"], e["declared"]["line"], e["result"]["points"]) for e in v["events"]]
    assert verdicts == [("mismatch", 3, 1500), ("match", 2, 2000), ("match", 4, 4000)]
    assert v["events"][0]["mismatch"] == "declared 9999 points, computed 1500"
    assert v["events"][0]["hand"]["win"] == "tsumo" and v["events"][0]["hand"]["rules"] == "tenhou"
    assert v["unmatched_declared"][0]["line"] == 5
    html = (tmp_path / "report.html").read_text()
    assert html.index("declared 9999 points, computed 1500") < html.index("declared win on line 5")
    assert html.count("data:image/jpeg;base64,") == 6  # a thumbnail and a frame per event
    assert "<svg class=\"tile\"" in html
    import csv

    rows = list(csv.DictReader((tmp_path / "report.csv").open()))
    assert [(r["verdict"], r["declared_points"], r["points"]) for r in rows] == [
        ("mismatch", "9999", "1500"), ("match", "2000", "2000"), ("match", "4000", "4000")]
    assert rows[1]["hand"] == "234567m345s22p | pon 777z (across)" and rows[0]["frame"] == "frames/v01_e01.jpg"


def test_corrupt_video_keeps_events_before_the_fault(video, tmp_path):
    data = bytearray(video.read_bytes())
    n = len(data)
    data[int(n * 0.55): int(n * 0.75)] = bytes(int(n * 0.75) - int(n * 0.55))
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    missing = tmp_path / "missing.mp4"
    run_audit([str(bad), str(video), str(missing)], tmp_path / "out", BarcodeReaderFactory(), options(),
              progress=False, scorer=fake_score)
    vb, vg, vm = report(tmp_path / "out")["videos"]
    assert "truncated or corrupt" in vb["error"] and vb["processed_s"] < 40
    assert [e["hand"]["concealed"] for e in vb["events"]] == [HANDS[1]["concealed"], HANDS[2]["concealed"]]
    assert "error" not in vg and len(vg["events"]) == 3
    assert vm["error"].endswith("no such file") and vm["duration_s"] is None and vm["events"] == []


SLOW_RUN = """
import sys
from audit.checkpoint import Checkpoint
from audit.runner import AuditOptions, CheckpointConflict, run_audit
from tests.audit.fakes import BarcodeReaderFactory, fake_score
run_audit([sys.argv[1]], sys.argv[2], BarcodeReaderFactory(delay=0.03), AuditOptions(chunk_s=10.0, workers=2),
          progress=False, scorer=fake_score)
"""


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_kill_9_then_rerun_gives_the_same_report(video, tmp_path):
    audit(video, tmp_path / "full")
    out = tmp_path / "killed"
    cmd = [sys.executable, "-c", SLOW_RUN, str(video), str(out)]
    proc = subprocess.Popen(cmd, cwd=REPO)
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    try:
        while time.monotonic() < deadline:
            cp = out / "checkpoint.json"
            workers |= set(children(proc.pid))
            if cp.exists() and json.loads(cp.read_text())["events"].get("0"):
                break
            time.sleep(0.05)
        else:
            pytest.fail("no event checkpointed")
    finally:
        proc.kill()
        proc.wait()
    # the pool's workers leave with their parent (no orphans holding models)
    assert workers
    gone_by = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < gone_by:
        time.sleep(0.1)
    assert not any(alive(w) for w in workers)
    assert not (out / "report.json").exists()
    done = len(json.loads((out / "checkpoint.json").read_text())["chunks"])
    assert done < 6
    assert subprocess.run(cmd, cwd=REPO).returncode == 0
    assert report(out) == report(tmp_path / "full")


@pytest.mark.slow  # starting Ray takes 10-20 s
def test_ray_gives_the_same_report(video, tmp_path, monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    audit(video, tmp_path / "inline")
    audit(video, tmp_path / "ray", workers=2, ray=True)
    assert report(tmp_path / "inline") == report(tmp_path / "ray")
    assert len(report(tmp_path / "ray")["videos"][0]["events"]) == 3


def test_progress_line_has_eta_and_counts(video, tmp_path):
    import io

    err = io.StringIO()
    run_audit([str(video)], tmp_path, BarcodeReaderFactory(), options(), stream=err, scorer=fake_score)
    last = err.getvalue().strip().splitlines()[-1]
    assert "100.0%" in last and "1:00/1:00 of video" in last and "ETA 0:00" in last and "3 events" in last


def test_hand_like_readings_are_not_reused():
    from audit.reader import FrameReading
    from audit.scan import looks_like_a_hand

    assert looks_like_a_hand(FrameReading(0, 0, {"concealed": "x"}))
    assert looks_like_a_hand(FrameReading(0, 0, None, "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p | 4p", tiles=14))
    assert not looks_like_a_hand(FrameReading(0, 0, None, "x x x x x x x x x x x x x | x", tiles=14))
    assert looks_like_a_hand(FrameReading(0, 0, None, "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p | x", tiles=14))
    # half a hand of faces: the row may be cut in two in this frame, read the next one
    assert looks_like_a_hand(FrameReading(0, 0, None, "1m 2m 3m 4m 5m 6m | 7m", tiles=20))
    assert not looks_like_a_hand(FrameReading(0, 0, None, "1m 2m 3m 4m 5m x x x x x | 6m", tiles=20))
    assert looks_like_a_hand(FrameReading(0, 0, None, "x", tiles=14, row={"tiles": []}))
    # a row of one class over and over (backs or a wall misread as white dragons) is no hand
    assert not looks_like_a_hand(FrameReading(0, 0, None, "5z 5z 5z 5z 5z 5z 5z 5z 5z 5z 5z 5z 5z | 2s", tiles=16))
    assert looks_like_a_hand(FrameReading(0, 0, None, "5z 7p 5z 7p 7p 7z- 7z 7z | 8p", tiles=16))
    assert looks_like_a_hand(FrameReading(0, 0, None, None, tiles=12, gate="few-tiles"))
    assert not looks_like_a_hand(FrameReading(0, 0, None, None, tiles=3, gate="few-tiles"))
