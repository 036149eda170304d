"""Issue #3's held-out gate, read end to end by the shipped reader in CI.

`det_test_x3g` (`tsumo_synth.sets`: photo seed 77, 300 hands at phone pixel density, face pool 0, never
trained or tuned on) is the set the model cards quote for tile recall and classification. Until session
39 its figures were read by hand once a session; here CI renders it from its recipe (kept in `cache/synth`
when already there) and reads it with the shipped models, so a change to the reader or the models that
costs tiles fails the build, and every CI log carries the gate's figures and the libraries they were read
with. The floors sit a little under what was measured (session 39, onnxruntime 1.32.0, OpenCV 5.1.0:
257 / 300 exact, hand tiles boxed 99.13 %, read right 98.87 % of those taken once; session 35's machine:
258, 99.15 %, 98.89 %): library versions move a reading or two. They are floors, not the issue's targets
(99.5 % and 99.5 %), which are not met.

The gate is for checking the code a session ends with, not for choosing it: changes are chosen on the
tune sets (`tsumo_synth.sets` group `tune`).

Each photo's reading as last recorded is in `data/gate_readings.json` (session 57, after photos in dim light were
brightened too: 261 / 300, #62 lost; session 56, after the colour balance of photos under coloured light,
`vision/colour.py`: 262 / 300, #112 lost; session 54, after the upright look at
unsure turned photos: 263 / 300; session 49, after the rectified second reading of steep rows: 262 / 300; session 46, on a fresh machine: 259 / 300 where session 45's read 258, with the
same code, models and library versions; its per-photo readings were lost with its machine, so nobody could say
which photo). The log names every photo read otherwise than recorded: after
an intended change, write the file again (`python -m tests.vision.test_held_out_gate --write "session N, why"`,
with the gate in `cache/synth`) and say why in the commit.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sets = pytest.importorskip("tsumo_synth.sets")
eval_reading = pytest.importorskip("eval_reading")

from vision.pipeline import CLASSIFIER_FILE, MODELS_DIR  # noqa: E402
from vision.runtime import libraries_line, library_versions  # noqa: E402

GATE = "det_test_x3g"
RECORDED = Path(__file__).parent / "data" / "gate_readings.json"
FLOORS = {
    "exact": 250,  # of 300 photos (measured 257 in session 39, 259 in session 46, 262 in session 49, 263 in session 54, 262 in session 56, 261 in session 57)
    "boxed": 0.990,  # hand tiles with a box (measured 0.9913; session 46: 0.9924; session 49: 0.9956)
    "right_of_taken": 0.987,  # hand tiles read right, of those taken once into the hand (measured 0.9887; 0.9890; 0.9895; 0.9895)
    "sure_exact": 0.94,  # photos read exactly, of those the reader calls sure (measured 237 / 248 = 0.956; 239 / 250; 240 / 251; 241 / 252)
}


@pytest.mark.slow
def test_the_shipped_reader_on_the_held_out_gate(repo_dir, shared_dir, processes):
    r, truth = read_gate(repo_dir / "cache" / "synth", processes, shared_dir)
    tiles, sure = r["tiles"], r["surely"]
    figures = {"exact": r["exact"], "boxed": tiles["boxed"] / tiles["n"],
               "right_of_taken": tiles["right"] / tiles["taken"], "sure_exact": sure["sure_exact"] / sure["sure"]}
    print(f"{GATE}: {r['exact']}/{r['n']} exact; " + eval_reading.tile_rates(tiles) + "; "
          + eval_reading.sure_rates(sure) + "; " + libraries_line(library_versions()))
    print(otherwise_than_recorded(r["reads"], r["sure"], truth))
    assert r["n"] == sets.SETS[GATE].n and tiles["n"] > 4000
    low = {k: v for k, v in figures.items() if v < FLOORS[k]}
    assert not low, f"under the floors {FLOORS}: {low}"


def read_gate(root: Path, workers: int, shared: Path = sets.SHARED_DIR) -> tuple[dict, list[str]]:
    """The gate rendered into `root` (kept when there) and read by the shipped reader in `workers` processes:
    `eval_reading`'s figures of the one pair (those of one process), and the true sequences."""
    folder = sets.render(GATE, root, workers=workers, quiet=True, shared=shared)
    pair = (eval_reading.shipped_detector(), MODELS_DIR / CLASSIFIER_FILE)
    read = eval_reading.evaluate([folder], [pair], threads=1, workers=workers)["sets"][str(folder)]
    return read["results"][0], read["truth"]


def test_the_recorded_readings_cover_the_gate_and_changes_are_named():
    rec = json.loads(RECORDED.read_text())
    assert rec["set"] == GATE and len(rec["sequence"]) == len(rec["sure"]) == sets.SETS[GATE].n
    truth = list(rec["sequence"])
    truth[3] = "1m 1m 1m"
    assert otherwise_than_recorded(rec["sequence"], rec["sure"], truth).startswith(f"{GATE}: every photo read as")
    now, sure = list(rec["sequence"]), list(rec["sure"])
    now[3], sure[3] = "1m 1m 1m", True
    line = otherwise_than_recorded(now, sure, truth)
    assert line.startswith(f"{GATE}: 1 photos read otherwise") and "#3 " in line and "now right" in line


def otherwise_than_recorded(reads: list[str], sure: list[bool], truth: list[str]) -> str:
    """The photos read otherwise than `RECORDED` says, one line: which, and whether each is now right."""
    rec = json.loads(RECORDED.read_text())
    changed = [i for i, (now, was) in enumerate(zip(reads, rec["sequence"])) if now != was]
    if not changed:
        return f"{GATE}: every photo read as recorded ({rec['recorded']})"

    def one(i: int) -> str:
        was_right = rec["sequence"][i] == truth[i]
        verdict = "now right" if reads[i] == truth[i] else ("was right" if was_right else "both wrong")
        return f"#{i} {rec['sequence'][i]!r} -> {reads[i]!r} ({verdict}, sure {rec['sure'][i]} -> {sure[i]})"
    return (f"{GATE}: {len(changed)} photos read otherwise than recorded ({rec['recorded']}): "
            + "; ".join(one(i) for i in changed))


if __name__ == "__main__" and "--write" in sys.argv:
    res, _ = read_gate(Path("cache/synth"), 2)
    note = sys.argv[sys.argv.index("--write") + 1]  # which session, which code
    RECORDED.write_text(json.dumps({"set": GATE, "recorded": note, "libraries": library_versions(),
                                    "sequence": res["reads"], "sure": res["sure"]}, ensure_ascii=False, indent=0))
    print("wrote", RECORDED)
