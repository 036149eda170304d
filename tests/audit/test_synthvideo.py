"""The footage generator: reproducible from its seed, and its truth says what the frames show."""
from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from audit.synthvideo import SynthSpec, cached_video, make_video
from audit.video import probe_video, read_frames

TINY = SynthSpec(seed=11, events=1, decoys=1, duration_s=76.0, size=(480, 270), fps=5.0)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, shared_dir):
    return make_video(TINY, tmp_path_factory.mktemp("synth"), shared_dir=shared_dir)


@pytest.mark.slow
def test_reproducible_from_the_seed(tiny, tmp_path, shared_dir):
    again = cached_video(TINY, tmp_path, shared_dir=shared_dir)
    assert again.folder.parent == tmp_path and again.folder.name == f"synth-{TINY.digest()}"
    assert hashlib.sha256(again.video.read_bytes()).digest() == hashlib.sha256(tiny.video.read_bytes()).digest()
    assert again.truth.read_text() == tiny.truth.read_text()
    assert cached_video(TINY, tmp_path, shared_dir=shared_dir).video == again.video  # reused, not remade


def test_truth_matches_the_pictures(tiny):
    truth = tiny.load_truth()
    info = probe_video(tiny.video)
    assert (info.width, info.height, info.fps) == (480, 270, 5.0) and abs(info.duration_s - 76.0) < 0.3
    (win,) = truth["events"]
    (decoy,) = truth["decoys"]
    assert win["result"]["error"] is None and win["result"]["points"] > 0
    assert len(decoy["sequence"].replace("|", " ").split()) == 13  # a tenpai hand: not a win
    # the declared file gives the right points for the win
    lines = tiny.declared.read_text().splitlines()
    assert lines[0].startswith("time,win") and lines[1].endswith(f",{win['result']['points']}")

    def frame_at(t):
        return next(iter(read_frames(info, [int(round(t * info.fps))]))).image.astype(np.int16)

    empty = frame_at(win["appear_s"] - 1.0)
    down = frame_at(win["reveal_s"] - 0.6)
    up = frame_at((win["start_s"] + win["end_s"]) / 2)
    cleared = frame_at(win["end_s"] + 5.0)
    # the hand changes the picture when it is put down and when it is turned; gone afterwards
    assert np.abs(down - empty).mean() > 2 and np.abs(up - down).mean() > 2
    assert np.abs(cleared - empty).mean() < np.abs(up - empty).mean()
    json.dumps(truth)  # plain JSON


def test_footage_too_short_for_its_scenes_is_refused_up_front(capsys):
    """Each scene's plan needs up to MIN_SCENE_S seconds; a shorter video hit an assert deep in the plan."""
    from audit.synthvideo import MIN_SCENE_S, main

    with pytest.raises(ValueError, match="too short for 4 scenes"):
        SynthSpec(events=2, decoys=2, duration_s=4 * MIN_SCENE_S - 1)
    SynthSpec(events=2, decoys=2, duration_s=4 * MIN_SCENE_S)  # just enough
    with pytest.raises(SystemExit) as exc:
        main(["--minutes", "1.0", "--events", "2"])
    assert exc.value.code == 2 and "give at least 2.4 minutes" in capsys.readouterr().err
