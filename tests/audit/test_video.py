"""Decoding and sampling; corrupt, truncated and non-video files give clear errors."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from audit.video import VideoError, probe_video, read_frames, sample_indices
from tests.audit.fakes import read_code, write_video


@pytest.fixture(scope="module")
def counting_video(tmp_path_factory):
    """Frame i shows code i % 64: lets us check which frame was decoded."""
    path = tmp_path_factory.mktemp("v") / "count.mp4"
    return write_video(path, [(i / 10, i % 64) for i in range(300)], fps=10, duration=30)


def test_probe_and_sample(counting_video):
    info = probe_video(counting_video)
    assert (info.fps, info.frame_count, info.width, info.height) == (10.0, 300, 320, 240)
    assert info.duration_s == 30.0
    idx = sample_indices(info, 2.0)
    assert idx[:4] == [0, 5, 10, 15] and len(idx) == 60
    assert sample_indices(info, 3.0)[:4] == [0, 3, 7, 10]  # nearest frame to k/3 s


def test_read_frames_decodes_the_asked_frames_even_after_a_seek(counting_video):
    info = probe_video(counting_video)
    for wanted in ([0, 5, 10], [123, 124, 200], [299]):
        frames = list(read_frames(info, wanted))
        assert [f.index for f in frames] == wanted
        assert [read_code(f.image) for f in frames] == [i % 64 for i in wanted]
        assert frames[0].t == wanted[0] / 10


def test_not_a_video(tmp_path):
    bad = tmp_path / "notes.mp4"
    bad.write_text("hello " * 100)
    with pytest.raises(VideoError, match="cannot open as a video") as exc:
        probe_video(bad)
    assert exc.value.kind == "unreadable"
    with pytest.raises(VideoError, match="no such file"):
        probe_video(tmp_path / "missing.mp4")


def test_truncated_mp4_without_index_cannot_open(counting_video, tmp_path):
    data = counting_video.read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: len(data) // 2])  # mp4v from OpenCV keeps its index at the end
    with pytest.raises(VideoError, match="corrupt, truncated or not a video"):
        probe_video(cut)


def test_truncated_avi_yields_frames_then_error(tmp_path):
    path = tmp_path / "v.avi"
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (160, 120))
    for i in range(100):
        vw.write(np.full((120, 160, 3), (i * 2) % 255, np.uint8))
    vw.release()
    data = path.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: len(data) // 2])
    info = probe_video(cut)
    assert info.frame_count == 100  # the header still promises 100
    got = []
    with pytest.raises(VideoError, match=r"stops at \d+\.\d s of 10\.0 s") as exc:
        for f in read_frames(info, list(range(0, 100, 5))):
            got.append(f.index)
    assert exc.value.kind == "truncated"
    assert 30 <= len(got) * 5 <= 60 and 3.0 <= exc.value.at_s <= 6.0


def test_corrupt_middle_of_mp4_stops_with_error(counting_video, tmp_path):
    data = bytearray(counting_video.read_bytes())
    n = len(data)
    data[n // 3: n // 3 + n // 4] = bytes((i * 7) & 255 for i in range(n // 4))
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    info = probe_video(bad)
    got = []
    with pytest.raises(VideoError, match="truncated or corrupt") as exc:
        for f in read_frames(info, sample_indices(info, 2.0)):
            got.append(f.index)
    assert got and got[-1] < 250 and exc.value.at_s < 25


def test_sampling_faster_than_the_video_takes_every_frame_at_once():
    """--fps 1e9 stepped k up to 1e9 × duration before giving every frame: a hang."""
    from audit.video import VideoInfo

    info = VideoInfo("x.mp4", 30.0, 18_000, 64, 48)  # ten minutes
    assert sample_indices(info, 1e9) == list(range(18_000))
    assert sample_indices(info, 30.0) == list(range(18_000))
    assert sample_indices(VideoInfo("x.mp4", 10.0, 50, 64, 48), 25.0) == list(range(50))
