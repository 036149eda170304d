"""`tsumo read PHOTO` — what the photo shows: tiles, groups (melds and who they came from), hand.

Also the shared pieces of the photo commands (`score`, `eval-photos`): loading a photo with a
clear error, building the reader, printing a reading.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tsumo.cli import UsageError


def add_reader_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--models", type=Path, metavar="DIR", help="folder with tile_detector.onnx and tile_classifier.onnx (default: the shipped models/)")
    p.add_argument("--threads", type=int, default=2, metavar="N", help="CPU threads for the models (default 2)")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "read", help="read the tiles and groups in a photo of a hand (no scoring)",
        description="Read a photo of a riichi-mahjong hand: every tile, the groups (closed part, "
                    "drawn tile, melds with the player they were called from), and the hand.",
        epilog="example: tsumo read hand.jpg --annotate hand.annotated.jpg")
    p.add_argument("photo", type=Path, help="JPEG, PNG, WebP or HEIC photo")
    p.add_argument("--players", type=int, choices=(3, 4), default=4, help="players at the table (3: look for set-aside norths)")
    p.add_argument("--annotate", type=Path, metavar="OUT", help="also write the photo with the reading drawn on it")
    p.add_argument("--json", action="store_true", help="print the full reading as JSON (docs/vision.md)")
    add_reader_flags(p)
    p.set_defaults(run=run)


def load_photo(path: Path):
    """The photo as an RGB array, or a `UsageError` that says what is wrong with the file."""
    from vision.io import ImageError, load_image

    try:
        return load_image(path)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a photo") from None
    except PermissionError:
        raise UsageError(f"{path}: not allowed to read it") from None
    except ImageError as exc:
        raise UsageError(f"{path}: {exc}") from None


def make_reader(args: argparse.Namespace):
    from vision.pipeline import PhotoReader

    if args.threads < 1:
        raise UsageError("--threads must be at least 1")
    try:
        return PhotoReader(models_dir=args.models, threads=args.threads)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None


def write_annotated(path: Path, image, reading) -> None:
    import cv2

    from vision.annotate import annotate

    out = annotate(image, reading)
    if not cv2.imwrite(str(path), cv2.cvtColor(out, cv2.COLOR_RGB2BGR)):
        raise UsageError(f"{path}: cannot write the annotated photo (unknown extension or folder?)")


def describe_reading(reading: Any) -> str:
    """The reading as a few lines: groups left to right, then the hand or why there is none."""
    lines = []
    for g in reading.groups:
        labels = " ".join("x" if x == "back" else x for x in g.labels)
        what = {"closed": "closed", "drawn": "drawn tile", "nuki": "nuki-dora"}.get(g.kind, g.kind)
        where = f"  (called from {g.direction})" if g.direction else ""
        lines.append(f"  {what:<10} {labels}{where}")
    if not reading.groups:
        lines.append("  (no hand found)")
    for c in reading.changes:
        lines.append(f"  corrected: {c.read} → {c.now} (p {c.p_read:.2f} → {c.p_now:.2f}) to make a legal hand")
    if reading.uncertain:
        lines.append("  uncertain: " + ", ".join(f"{reading.tiles[i].label} ({reading.tiles[i].confidence:.2f})"
                                                  for i in reading.uncertain))
    if reading.hand is not None:
        h = reading.hand
        src = {"drawn": "set apart", "sideways": "turned sideways", "assumed": "assumed: last closed tile"}.get(
            reading.win_tile_source or "", "")
        lines.append(f"hand: {h['concealed']}  win {h['win_tile']} ({src})")
        if reading.win_tile_source == "assumed" and len(reading.win_tile_candidates) > 1:
            lines.append("  the winning tile could be any of " + " ".join(reading.win_tile_candidates) + " (use --win)")
    for note in reading.notes:
        lines.append(f"  note: {note}")
    return "\n".join(["read: " + (reading.sequence or "(nothing)")] + lines)


def run(args: argparse.Namespace) -> int:
    image = load_photo(args.photo)
    reader = make_reader(args)
    reading = reader.read(image, players=args.players)
    if args.annotate:
        write_annotated(args.annotate, image, reading)
    if args.json:
        print(json.dumps(reading.to_json(), ensure_ascii=False))
    else:
        print(describe_reading(reading))
    if reading.error_code in ("no_tiles", "no_hand"):
        print(f"tsumo: error: {reading.error}", file=sys.stderr)
        return 2
    if reading.error and not args.json:
        print(f"note: {reading.error}")
    return 0
