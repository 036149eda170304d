"""Measure the blur warning (`vision.quality`, code `blurred`) on a rendered set whose labels record each photo's
lens blur (`scene.lens`, since session 51): each photo is read with the shipped reader, its hand tiles' sharpness
is measured as the warning measures it, and the photo's true blur, relative to its hand tiles' long side, is
set against `tsumo_synth.legibility.BLUR_RULE` (motion ≥ 0.18 of the tile's long side; defocus ≥ 0.04, which
leaves man numerals unreadable).

    python datasets/measure_blur.py cache/synth/det_test_x3g --json cache/blur_gate.json
    python datasets/measure_blur.py cache/synth/tune10_x3 cache/synth/tune9_x3 \
        cache/synth/tune_close_x3 cache/synth/tune_plaid_x3 --choose      # how BLUR_SHARPNESS was chosen

Prints, for the threshold in `vision.quality` (or `--threshold`; with `--choose`, the one chosen), how many photos
were warned among those past the rule (b ≥ 1), in between (0.5 ≤ b < 1) and plainly sharp (b < 0.5), b being the
larger of motion / 0.18 and defocus / 0.04; and, when read, among the misread and the exactly read photos.
"""
from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for p in (REPO, REPO / "datasets"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import numpy as np  # noqa: E402

_READER = None


def _truth(row: dict) -> dict:
    """The photo's lens blur as shares of its hand tiles' median long side (in the hand's frame)."""
    from tsumo_synth.crops import frame_box, hand_frame
    from tsumo_synth.legibility import MAN_DEFOCUS_SHARE, MOTION_SHARE

    hand = sorted((t for t in row["tiles"] if t["in_hand"]), key=lambda t: t["index"])
    if not hand:
        return {"motion": None, "defocus": None, "long_px": None, "blurred": None}
    frame = hand_frame(hand)
    sides = [max(b[2] - b[0], b[3] - b[1]) for b in (frame_box(frame, t) for t in hand)]
    long_px = float(np.median(sides))
    lens = (row.get("scene") or {}).get("lens") or {}
    motion = lens.get("length_px", 0.0) / long_px if lens.get("kind") == "motion" else 0.0
    defocus = lens.get("sigma_px", 0.0) / long_px if lens.get("kind") == "defocus" else 0.0
    return {"motion": motion, "defocus": defocus, "long_px": long_px,
            "blurred": motion >= MOTION_SHARE or defocus >= MAN_DEFOCUS_SHARE}


def _read(job: tuple[str, str, int]) -> dict:
    global _READER
    from vision.io import load_image
    from vision.pipeline import PhotoReader
    from vision.quality import tile_sharpness

    if _READER is None:
        _READER = PhotoReader(threads=1)
    path, sequence, players = job
    image = load_image(path)
    reading = _READER.read(image, players=players)
    return {"sharpness": tile_sharpness(image, reading), "exact": reading.sequence == sequence,
            "warned": [w["code"] for w in reading.warnings]}


def _labelled(path: str, row: dict) -> float | None:
    """The photo's sharpness as the warning measures it, from its labelled hand-tile boxes (no reader)."""
    from vision.io import load_image
    from vision.quality import median_sharpness

    return median_sharpness(load_image(path), [t["box"] for t in row["tiles"] if t["in_hand"]])


def blur_share(row: dict) -> float:
    """b: the larger of motion / MOTION_SHARE and defocus / MAN_DEFOCUS_SHARE (1 = at the rule) of a photo with a hand."""
    from tsumo_synth.legibility import MAN_DEFOCUS_SHARE, MOTION_SHARE

    return max(row["motion"] / MOTION_SHARE, row["defocus"] / MAN_DEFOCUS_SHARE)


def choose(rows: list[dict], false_share: float = 0.02) -> float:
    """The threshold: the sharpness `false_share` of the plainly sharp photos (b < 0.5) fall under."""
    sharp = [r["sharpness"] for r in rows
             if r["blurred"] is not None and r["sharpness"] is not None and blur_share(r) < 0.5]
    return float(np.quantile(sharp, false_share))


def summarise(rows: list[dict], threshold: float) -> dict:
    """Warned photos among those past the rule (blur b ≥ 1: the larger of motion / MOTION_SHARE and defocus /
    MAN_DEFOCUS_SHARE of the hand tiles' long side), plainly sharp (b < 0.5) and in between; and among misread."""
    rows = [{**r, "b": blur_share(r)} for r in rows if r["blurred"] is not None]
    warned = lambda rs: sum(r["sharpness"] is not None and r["sharpness"] < threshold for r in rs)  # noqa: E731
    groups = {"past the rule (b >= 1)": [r for r in rows if r["b"] >= 1],
              "in between (0.5 <= b < 1)": [r for r in rows if 0.5 <= r["b"] < 1],
              "sharp (b < 0.5)": [r for r in rows if r["b"] < 0.5],
              **({} if any(r["exact"] is None for r in rows) else {
                  "misread": [r for r in rows if not r["exact"]],
                  "read exactly": [r for r in rows if r["exact"]]})}
    counts = {k: (warned(v), len(v)) for k, v in groups.items()}
    lines = [f"{len(rows)} photos with a hand; warned under sharpness {threshold}:"]
    lines += [f"  {k:27s} {w:4d} / {n}" for k, (w, n) in counts.items()]
    return {"counts": counts, "lines": lines}


def main(argv: list[str] | None = None) -> int:
    from vision.quality import BLUR_SHARPNESS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", type=Path, nargs="+", help="rendered set folders (labels.jsonl with scene.lens)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threshold", type=float, default=BLUR_SHARPNESS, help="warn under this sharpness")
    ap.add_argument("--json", type=Path, help="write every photo's figures here")
    ap.add_argument("--choose", action="store_true",
                    help="tune sets: measure on the labelled boxes (no reader) and print the threshold 2 %% of the "
                         "plainly sharp photos fall under (how BLUR_SHARPNESS was chosen)")
    args = ap.parse_args(argv)
    rows = []
    for d in args.sets:
        if not (d / "labels.jsonl").is_file():
            ap.error(f"{d}: no labels.jsonl (render the set first: python -m tsumo_synth.sets NAME)")
        labels = [json.loads(line) for line in (d / "labels.jsonl").read_text().splitlines() if line.strip()]
        if not labels or "lens" not in (labels[0].get("scene") or {}):
            ap.error(f"{d}: its labels record no lens blur (rendered before session 51?)")
        if args.choose:
            with ProcessPoolExecutor(args.workers) as pool:
                sharp = list(pool.map(_labelled, [str(d / r["image"]) for r in labels], labels, chunksize=4))
            read = [{"sharpness": s, "exact": None, "warned": []} for s in sharp]  # (not read)
        else:
            jobs = [(str(d / r["image"]), r["sequence"], int(r.get("players", 4))) for r in labels]
            with ProcessPoolExecutor(args.workers) as pool:
                read = list(pool.map(_read, jobs, chunksize=4))
        for r, got in zip(labels, read):
            rows.append({"set": d.name, "image": r["image"], **_truth(r), **got})
    if args.json:
        args.json.write_text(json.dumps(rows, indent=0))
    if args.choose:
        args.threshold = round(choose(rows), 3)
        print(f"threshold (2 % of the plainly sharp photos under it): {args.threshold}")
    summary = summarise(rows, args.threshold)
    for line in summary["lines"]:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
