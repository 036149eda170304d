"""Show or change the metadata of a shipped ONNX model, weights untouched.

    python datasets/model_meta.py models/tile_detector.onnx                  # list every key
    python datasets/model_meta.py models/tile_detector.onnx tsumo_fit=40     # set (or replace) a key
    python datasets/model_meta.py models/tile_detector.onnx tsumo_fit=       # remove a key

Why a script: the reading settings a model is read with live in its metadata (`tsumo_conf`,
`tsumo_fit`, `tsumo_half_turn`, …), so the code cannot disagree with the model; switching one on
must not mean re-exporting the weights.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def parse_change(text: str) -> tuple[str, str]:
    """`KEY=VALUE` → (key, value); an empty value removes the key."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"expected KEY=VALUE (KEY= removes a key), got {text!r}")
    return key.strip(), value


def read_metadata(path: Path) -> dict[str, str]:
    """The model's metadata, in its order."""
    import onnx

    return {p.key: p.value for p in onnx.load(str(path)).metadata_props}


def change_metadata(path: Path, changes: dict[str, str], out: Path | None = None) -> dict[str, str]:
    """Apply `changes` (an empty value removes the key) to the model at `path`, saved to `out` (default:
    in place); the metadata after."""
    import onnx

    model = onnx.load(str(path))
    props = {p.key: p.value for p in model.metadata_props}
    for key, value in changes.items():
        if value:
            props[key] = value
        else:
            props.pop(key, None)
    del model.metadata_props[:]
    for key, value in props.items():
        model.metadata_props.add(key=key, value=value)
    onnx.save(model, str(out or path))
    return props


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path)
    ap.add_argument("changes", nargs="*", help="KEY=VALUE to set, KEY= to remove")
    args = ap.parse_args(argv)
    if not args.model.is_file():
        print(f"model_meta: no such file: {args.model}", file=sys.stderr)
        return 2
    try:
        changes = dict(parse_change(c) for c in args.changes)
    except ValueError as exc:
        print(f"model_meta: {exc}", file=sys.stderr)
        return 2
    props = change_metadata(args.model, changes) if changes else read_metadata(args.model)
    for key, value in sorted(props.items()):
        print(f"{key}\t{value[:120]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
