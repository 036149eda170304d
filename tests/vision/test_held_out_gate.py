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
"""
from __future__ import annotations

import pytest

sets = pytest.importorskip("tsumo_synth.sets")
eval_reading = pytest.importorskip("eval_reading")

from vision.pipeline import CLASSIFIER_FILE, MODELS_DIR  # noqa: E402
from vision.runtime import libraries_line, library_versions  # noqa: E402

GATE = "det_test_x3g"
FLOORS = {
    "exact": 250,  # of 300 photos (measured 257)
    "boxed": 0.990,  # hand tiles with a box (measured 0.9913)
    "right_of_taken": 0.987,  # hand tiles read right, of those taken once into the hand (measured 0.9887)
    "sure_exact": 0.94,  # photos read exactly, of those the reader calls sure (measured 237 / 248 = 0.956)
}


@pytest.mark.slow
def test_the_shipped_reader_on_the_held_out_gate(repo_dir, shared_dir, processes):
    folder = sets.render(GATE, repo_dir / "cache" / "synth", workers=processes, quiet=True, shared=shared_dir)
    pair = (eval_reading.shipped_detector(), MODELS_DIR / CLASSIFIER_FILE)
    result = eval_reading.evaluate([folder], [pair], threads=1, workers=processes)  # (the figures of one process)
    r = result["sets"][str(folder)]["results"][0]
    tiles, sure = r["tiles"], r["surely"]
    figures = {"exact": r["exact"], "boxed": tiles["boxed"] / tiles["n"],
               "right_of_taken": tiles["right"] / tiles["taken"], "sure_exact": sure["sure_exact"] / sure["sure"]}
    print(f"{GATE}: {r['exact']}/{r['n']} exact; " + eval_reading.tile_rates(tiles) + "; "
          + eval_reading.sure_rates(sure) + "; " + libraries_line(library_versions()))
    assert r["n"] == sets.SETS[GATE].n and tiles["n"] > 4000
    low = {k: v for k, v in figures.items() if v < FLOORS[k]}
    assert not low, f"under the floors {FLOORS}: {low}"
