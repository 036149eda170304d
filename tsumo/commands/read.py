"""`tsumo read PHOTO` — what the photo shows: tiles, groups (melds and who they came from), hand.

Also the shared pieces of the photo commands (`score`, `eval-photos`): loading a photo with a
clear error, building the reader, printing a reading.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, TypeVar

from tsumo.cli import UsageError

T = TypeVar("T")


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


# Far above any phone photo (the HTTP API takes 20 MiB): a bigger file is a video or a mistake,
# and reading it whole just to say "not an image" could exhaust the memory.
MAX_PHOTO_BYTES = 256 * 1024 * 1024


def load_photo(path: Path):
    """The photo as an RGB array, or a `UsageError` that says what is wrong with the file."""
    from vision.io import ImageError, load_image

    try:
        with open(path, "rb") as f:
            data = f.read(MAX_PHOTO_BYTES + 1)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a photo") from None
    except PermissionError:
        raise UsageError(f"{path}: not allowed to read it") from None
    except OSError as exc:  # a path through a file, a symlink loop, a name too long, an I/O error
        raise UsageError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_PHOTO_BYTES:
        raise UsageError(f"{path}: more than {MAX_PHOTO_BYTES // 2**20} MB, too large for a photo "
                         "(for game footage, use `tsumo audit`)")
    try:
        return load_image(data)
    except ImageError as exc:
        raise UsageError(f"{path}: {exc}") from None


def load_models(build: Callable[[], T], models: Path | str | None) -> T:
    """`build()` (a reader from the ONNX files in `models`), with a missing or broken model file a
    `UsageError` naming the folder instead of onnxruntime's traceback."""
    try:
        return build()
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own types for a broken model file
        where = models or "the shipped models/ folder"
        raise UsageError(f"cannot load the models in {where}: {str(exc).strip() or type(exc).__name__}") from None


def make_reader(args: argparse.Namespace):
    from vision.pipeline import PhotoReader

    if args.threads < 1:
        raise UsageError("--threads must be at least 1")
    return load_models(lambda: PhotoReader(models_dir=args.models, threads=args.threads), args.models)


def check_annotate_path(path: Path, photo: Path | None = None) -> None:
    """Refuse an --annotate path that cannot be written, before the (slow) reading: a missing
    folder, an extension OpenCV has no writer for, a folder, or the photo itself."""
    import cv2

    if path.is_dir():
        raise UsageError(f"--annotate {path}: is a folder; give a file name such as hand.annotated.jpg")
    if not path.parent.is_dir():
        raise UsageError(f"--annotate {path}: the folder {path.parent} does not exist")
    if not path.suffix:
        raise UsageError(f"--annotate {path}: needs an image extension (.jpg, .png or .webp)")
    if not cv2.haveImageWriter(str(path)):
        raise UsageError(f"--annotate {path}: cannot write {path.suffix} images; use .jpg, .png or .webp")
    if photo is not None and path.exists() and path.resolve() == Path(photo).resolve():
        raise UsageError(f"--annotate {path}: is the photo itself; write the annotated copy to another file")


def write_annotated(path: Path, image, reading) -> None:
    import cv2

    from vision.annotate import annotate

    out = annotate(image, reading)
    try:
        ok = cv2.imwrite(str(path), cv2.cvtColor(out, cv2.COLOR_RGB2BGR))
    except cv2.error:
        ok = False
    if not ok:
        raise UsageError(f"{path}: cannot write the annotated photo there")


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
    # (what is wrong with the photo itself comes first: every line below it is only as good as the photo)
    head = [f"warning: {w['message']}" for w in getattr(reading, "warnings", None) or []]
    return "\n".join(head + ["read: " + (reading.sequence or "(nothing)")] + lines)


def run(args: argparse.Namespace) -> int:
    if args.annotate:
        check_annotate_path(args.annotate, args.photo)
    image = load_photo(args.photo)
    reader = make_reader(args)
    reading = reader.read(image, players=args.players)
    if args.json:
        print(json.dumps(reading.to_json(), ensure_ascii=False))
    else:
        print(describe_reading(reading))
    if args.annotate:  # after the reading is out: a failed write must not lose it
        write_annotated(args.annotate, image, reading)
    if reading.error_code in ("no_tiles", "no_hand"):
        print(f"tsumo: error: {reading.error}", file=sys.stderr)
        return 2
    if reading.error and not args.json:
        print(f"note: {reading.error}")
    return 0
