"""End to end on rendered photo sets: how many hands the whole reader reads exactly.

    python datasets/eval_reading.py cache/synth/det_test_h
    python datasets/eval_reading.py cache/synth/det_test_h \
        --pair models/tile_detector.onnx models/tile_classifier.onnx \
        --pair models/tile_detector.onnx cache/cls9/candidate.onnx --json cache/e2e.json

A photo counts when `PhotoReader.read(photo).sequence` equals the renderer's sequence (CONTRACTS
§3 notation), as in `tests/vision/test_pipeline_oracle.py` but with real models. Several model
pairs are read in one run, photo by photo in turn, so they are compared with the same reading
code on the same machine load: reading-code changes move every pair's figure, so figures of
different runs (or checkouts) are not comparable, and an A/B is only fair inside one run. The
last line printed is one JSON object with every figure; `--json` also keeps each photo's reading.

Why a script in the repo: these figures decide which models ship, and sessions lose `cache/`.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from vision.io import load_image  # noqa: E402
from vision.pipeline import CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR, PhotoReader  # noqa: E402


def load_set(folder: Path, limit: int | None = None) -> list[dict]:
    """The photos of a rendered set (`python -m tsumo_synth.photos`), in order."""
    labels = folder / "labels.jsonl"
    if not labels.is_file():
        raise SystemExit(f"eval_reading: {folder} has no labels.jsonl (render it with python -m tsumo_synth.photos)")
    rows = [json.loads(line) for line in labels.read_text().splitlines() if line.strip()]
    return rows[:limit] if limit else rows


def evaluate(sets: list[Path], pairs: list[tuple[Path, Path]], *, threads: int = 2,
             limit: int | None = None) -> dict:
    """Read every photo of `sets` with each (detector, classifier) pair; exact counts and misses."""
    from vision.classify import TileClassifier
    from vision.detect import TileDetector

    readers = [PhotoReader(detector=TileDetector(d, threads), classifier=TileClassifier(c, threads))
               for d, c in pairs]
    out = {"pairs": [{"detector": str(d), "classifier": str(c)} for d, c in pairs], "sets": {}}
    for folder in sets:
        rows = load_set(folder, limit)
        per_pair = [{"exact": 0, "misses": [], "ms": 0.0, "reads": []} for _ in pairs]
        for i, row in enumerate(rows):
            image = load_image(folder / row["image"])
            order = range(len(readers)) if i % 2 == 0 else reversed(range(len(readers)))
            for k in order:  # alternate the order so neither pair always runs on a warm cache
                t0 = time.perf_counter()
                reading = readers[k].read(image, players=row.get("players", 4))
                per_pair[k]["ms"] += (time.perf_counter() - t0) * 1000
                per_pair[k]["reads"].append(reading.sequence)
                if reading.sequence == row["sequence"]:
                    per_pair[k]["exact"] += 1
                else:
                    per_pair[k]["misses"].append(i)
        for res in per_pair:
            res["n"] = len(rows)
            res["mean_ms"] = round(res.pop("ms") / max(1, len(rows)), 1)
        out["sets"][str(folder)] = {"truth": [r["sequence"] for r in rows], "results": per_pair}
    return out


def summary(result: dict) -> dict:
    """The figures without the per-photo readings: exact counts, misses, and for two or more pairs
    the photos only the first pair reads and only each other pair reads."""
    short = {"pairs": result["pairs"], "sets": {}}
    for name, s in result["sets"].items():
        res = s["results"]
        rows = []
        for k, r in enumerate(res):
            row = {"exact": r["exact"], "n": r["n"], "mean_ms": r["mean_ms"], "misses": r["misses"]}
            if k:
                first, this = set(res[0]["misses"]), set(r["misses"])
                row["only_first_reads"] = sorted(this - first)
                row["only_this_reads"] = sorted(first - this)
            rows.append(row)
        short["sets"][name] = rows
    return short


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="eval_reading", description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", type=Path, nargs="+", help="rendered set folders (labels.jsonl)")
    ap.add_argument("--pair", type=Path, nargs=2, action="append", metavar=("DETECTOR", "CLASSIFIER"),
                    help="ONNX files to read with (repeat to compare; default: the shipped pair)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None, help="first N photos of each set")
    ap.add_argument("--json", type=Path, default=None, help="write every figure and each photo's reading here")
    ap.add_argument("--show-misses", action="store_true", help="print each missed photo: truth and readings")
    args = ap.parse_args(argv)
    pairs = [tuple(p) for p in (args.pair or [(MODELS_DIR / DETECTOR_FILE, MODELS_DIR / CLASSIFIER_FILE)])]
    for path in (p for pair in pairs for p in pair):
        if not path.is_file():
            ap.error(f"model file not found: {path}")
    result = evaluate(args.sets, pairs, threads=args.threads, limit=args.limit)
    for name, s in result["sets"].items():
        for (det, cls), r in zip(pairs, s["results"]):
            print(f"{name}: {r['exact']}/{r['n']} exact  ({det.name} + {cls.name}, {r['mean_ms']} ms/photo)")
        if args.show_misses:
            misses = sorted({i for r in s["results"] for i in r["misses"]})
            for i in misses:
                print(f"  #{i} truth {s['truth'][i]}")
                for k, r in enumerate(s["results"]):
                    print(f"      pair {k}: {r['reads'][i]}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
    print(json.dumps(summary(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
