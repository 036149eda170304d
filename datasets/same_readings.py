"""Does a change leave every reading alone? Dump each photo's reading, change the code, dump again, compare.

    python datasets/same_readings.py dump BEFORE.jsonl cache/synth/det_test_x3g cache/synth/tune9 --workers 2
    python datasets/same_readings.py dump AFTER.jsonl  cache/synth/det_test_x3g cache/synth/tune9 --workers 2
    python datasets/same_readings.py compare BEFORE.jsonl AFTER.jsonl

A line per photo: its key (set folder name / image), `Reading.to_json()` with the shipped models (less its
timings), and the search's cost unrounded (`repr`), which moves with any change to a penalty even where the
reading's JSON, rounded, does not. `compare` prints what differs and exits 1 when anything does (a photo read
otherwise, or missing from one side), so a speed or tidying change is shown to read as before, to the bit.

Why a script in the repo: session 45 proved its faster reading step this way on 1 600 photos with a
script kept in `cache/`, and the next machine lost it.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from eval_reading import load_set  # noqa: E402
from reader_pool import job_map  # noqa: E402
from vision.io import load_image  # noqa: E402
from vision.pipeline import PhotoReader  # noqa: E402


def _reader(threads: int) -> PhotoReader:
    return PhotoReader(threads=threads)


def _read(reader: PhotoReader, job: tuple[str, str, int]) -> dict:
    folder, image, players = job
    reading = reader.read(load_image(Path(folder) / image), players=players)
    shown = reading.to_json()
    shown.pop("timings_ms")  # the clock, not the reading
    return {"key": f"{Path(folder).name}/{image}", "reading": shown,
            "cost": None if reading.cost is None else repr(float(reading.cost))}


def photo_jobs(folders: list[Path]) -> list[tuple[str, str, int]]:
    """(folder, image, players) of every photo of the rendered sets, in order."""
    return [(str(folder), row["image"], row.get("players", 4)) for folder in folders for row in load_set(folder)]


def dump(out: Path, folders: list[Path], *, workers: int = 1, threads: int = 1) -> int:
    """Read every photo of `folders` and write one JSON line each to `out`; returns the photo count."""
    jobs = photo_jobs(folders)
    with out.open("w") as f, job_map(_reader, (threads,), _read, workers) as read:
        for rec in read(jobs):
            f.write(json.dumps(rec, sort_keys=True) + "\n")
    return len(jobs)


def load(path: Path) -> dict[str, dict]:
    records = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            rec = json.loads(line)
            if rec["key"] in records:
                raise SystemExit(f"same_readings: {path}:{n}: {rec['key']} twice")
            records[rec["key"]] = rec
    return records


def _diff_keys(a: object, b: object, where: str = "") -> list[str]:
    """Where two JSON values differ (paths like `tiles[3].label`), the first few."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += _diff_keys(a.get(k), b.get(k), f"{where}.{k}" if where else k)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _diff_keys(x, y, f"{where}[{i}]")]
    return [] if a == b else [where or "(whole)"]


def compare(before: dict[str, dict], after: dict[str, dict]) -> dict:
    """Photos only on one side, and each photo read on both sides whose reading or cost differs (with where)."""
    common = [k for k in before if k in after]
    differ = {}
    for k in common:
        where = _diff_keys(before[k], after[k])
        if where:
            differ[k] = where
    return {"compared": len(common), "only_before": sorted(set(before) - set(after)),
            "only_after": sorted(set(after) - set(before)), "differ": differ}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="read every photo of rendered sets with the shipped models")
    d.add_argument("out", type=Path)
    d.add_argument("sets", type=Path, nargs="+")
    d.add_argument("--workers", type=int, default=1)
    d.add_argument("--threads", type=int, default=1, help="onnxruntime threads per model")
    c = sub.add_parser("compare", help="exit 1 unless both dumps hold the same photos, read alike")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        if args.workers < 1 or args.threads < 1:
            ap.error("--workers and --threads must be ≥ 1")
        n = dump(args.out, args.sets, workers=args.workers, threads=args.threads)
        print(f"{n} photos read into {args.out}")
        return 0
    for p in (args.before, args.after):
        if not p.is_file():
            ap.error(f"{p}: no such dump")
    result = compare(load(args.before), load(args.after))
    for k, where in list(result["differ"].items())[:20]:
        print(f"differs: {k}: {', '.join(where[:6])}{' …' if len(where) > 6 else ''}")
    for side in ("only_before", "only_after"):
        if result[side]:
            print(f"{side.replace('_', ' ')}: {len(result[side])} photos, e.g. {result[side][0]}")
    same = not (result["differ"] or result["only_before"] or result["only_after"])
    verdict = "" if same else " — NOT the same"
    print(f"{result['compared']} photos compared, {len(result['differ'])} differ{verdict}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
