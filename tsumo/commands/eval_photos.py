"""`tsumo eval-photos DIR` — how well the reader reads a labelled set of photos (CONTRACTS §3).

For each line of `DIR/labels.jsonl` the photo is read and its sequence compared with the label:
per-tile accuracy after aligning the two tile lists (edit distance; misses and extra tiles both
count against it), and whether the read is exact (every tile, how it lies, and the grouping).
The last line printed is one JSON object with the figures, for scripts.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from scoring import strict_json
from tsumo.cli import UsageError
from tsumo.commands.read import add_reader_flags, load_photo, make_reader, write_annotated


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "eval-photos", help="measure photo reading on a labelled folder (labels.jsonl)",
        description="Read every photo listed in DIR/labels.jsonl and compare with its label "
                    "(CONTRACTS §3). Prints one line per photo, then the totals; the last line "
                    "is one JSON object.")
    p.add_argument("dir", type=Path, help="folder with labels.jsonl and the photos")
    p.add_argument("--players", type=int, choices=(3, 4), default=4, help="players at the table")
    p.add_argument("--annotate", type=Path, metavar="OUTDIR", help="write each annotated photo into OUTDIR")
    add_reader_flags(p)
    p.set_defaults(run=run)


def load_labels(folder: Path) -> list[dict]:
    """The label lines, checked: each names an existing photo and a valid sequence."""
    from vision.sequence import SequenceError, parse_sequence

    if folder.is_file():
        raise UsageError(f"{folder}: a file, not a folder (give the folder that holds labels.jsonl and the photos)")
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such folder")
    path = folder / "labels.jsonl"
    if not path.is_file():
        raise UsageError(f"{path}: missing (one JSON object per photo, see CONTRACTS §3)")
    try:
        text = path.read_text(encoding="utf-8-sig")  # (-sig: a byte-order mark from a Windows editor is fine)
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: {strict_json.not_utf8(exc)}") from None
    labels = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:  # strict: an "image" given twice would silently measure the second photo only
            obj = strict_json.loads(line)
        except strict_json.JsonProblem as exc:
            raise UsageError(f"{path}:{n}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("image"), str) or not isinstance(obj.get("sequence"), str):
            raise UsageError(f"{path}:{n}: needs \"image\" and \"sequence\" strings")
        if not isinstance(obj.get("hand_visible", True), bool):  # CONTRACTS §3: true or false, or left out
            raise UsageError(f"{path}:{n}: \"hand_visible\" must be true or false, got {obj['hand_visible']!r}")
        try:
            parse_sequence(obj["sequence"])
        except SequenceError as exc:
            raise UsageError(f"{path}:{n}: bad sequence: {exc}") from None
        if not (folder / obj["image"]).is_file():
            raise UsageError(f"{path}:{n}: photo {obj['image']!r} not found in {folder}")
        labels.append(obj)
    if not labels:
        raise UsageError(f"{path}: no photos listed")
    return labels


def run(args: argparse.Namespace) -> int:
    from vision.sequence import compare

    labels = load_labels(args.dir)
    if args.annotate:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file of that name, or a path through one
            raise UsageError(f"--annotate {args.annotate}: cannot make that folder ({exc.strerror or exc})") from None
    reader = make_reader(args)
    matched = columns = exact = 0
    per_photo = []
    times = []
    unreadable = []
    for obj in labels:
        try:
            image = load_photo(args.dir / obj["image"])
        except UsageError as exc:  # one damaged photo must not cost the measurement of the others
            print(f"tsumo: error: {exc}", file=sys.stderr)
            unreadable.append(obj["image"])
            continue
        t0 = time.perf_counter()
        reading = reader.read(image, players=args.players)
        times.append((time.perf_counter() - t0) * 1000)
        alignment, is_exact = compare(reading.sequence, obj["sequence"])
        matched += alignment.matches
        columns += alignment.columns
        exact += is_exact
        per_photo.append({"image": obj["image"], "exact": is_exact, "tile_accuracy": round(alignment.accuracy, 4),
                          "read": reading.sequence, "truth": obj["sequence"], "hand": reading.hand,
                          "ms": round(times[-1], 1)})
        mark = "exact" if is_exact else f"{alignment.matches}/{alignment.columns} tiles"
        print(f"{obj['image']}: {mark}  ({times[-1]:.0f} ms)")
        if not is_exact:
            print(f"  read:  {reading.sequence or '(nothing)'}")
            print(f"  truth: {obj['sequence']}")
        if args.annotate:
            write_annotated(args.annotate / (Path(obj["image"]).stem + ".annotated.jpg"), image, reading)
    n = len(per_photo)
    if not n:
        raise UsageError(f"{args.dir}: none of the {len(labels)} photos could be read")
    summary = {
        "photos": n,
        "tile_accuracy": round(matched / columns, 4) if columns else 1.0,
        "exact": round(exact / n, 4),
        "exact_photos": exact,
        "tiles_matched": matched,
        "tiles_aligned": columns,
        "median_ms": round(sorted(times)[n // 2], 1),
        "per_photo": per_photo,
        "unreadable": unreadable,  # not counted in the figures above
    }
    print(f"tile accuracy {summary['tile_accuracy']:.1%} ({matched}/{columns} aligned tiles), "
          f"exact {exact}/{n} photos ({summary['exact']:.0%})")
    if unreadable:
        print(f"{len(unreadable)} photo{'s' * (len(unreadable) != 1)} could not be read and "
              f"{'are' if len(unreadable) != 1 else 'is'} not counted: {', '.join(unreadable)}")
    print(json.dumps(summary, ensure_ascii=False))
    return 2 if unreadable else 0
