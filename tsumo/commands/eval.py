"""`tsumo eval detector|classifier …`: measure a shipped (or given) model on onnxruntime.

Thin wrapper: runs `datasets/eval_detector.py` or `datasets/eval_classifier.py` with this
Python (no torch needed) and passes the options on. The last line printed is one JSON object.
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

from tsumo.cli import UsageError

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = {"detector": REPO / "datasets" / "eval_detector.py", "classifier": REPO / "datasets" / "eval_classifier.py"}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "eval",
        help="measure the tile detector or classifier",
        description="Measure a model with onnxruntime. Detector: recall/precision on rendered photos "
        "(--synth DIR), the Chinese test split (--chinese test), real-dev (--real-dev), and 12-MP latency "
        "(--latency). Other options of the script go in --args.",
    )
    p.add_argument("model", choices=sorted(SCRIPTS), help="which model to measure")
    p.add_argument("--onnx", type=Path, default=None, help="model file (default: the shipped one)")
    p.add_argument("--synth", type=Path, action="append", default=[], metavar="DIR",
                   help="detector: rendered set folder (python -m tsumo_synth.photos … --out DIR)")
    p.add_argument("--chinese", default=None, metavar="SPLIT", help="detector: Chinese set split, e.g. test")
    p.add_argument("--real-dev", action="store_true", help="detector: real-dev photos (hand-drawn boxes)")
    p.add_argument("--latency", action="store_true", help="detector: time a 12-MP photo")
    p.add_argument("--args", default="", metavar="\"ARGS\"", help="more options for the script, quoted")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    script = SCRIPTS[args.model]
    if not script.exists():
        raise UsageError(f"{script.relative_to(REPO)} is missing from this checkout")
    try:
        extra = shlex.split(args.args)
    except ValueError as exc:
        raise UsageError(f"--args: {exc}") from None
    cmd = [sys.executable, str(script)]
    if args.onnx is not None:
        if not args.onnx.is_file():
            raise UsageError(f"--onnx {args.onnx}: no such file")
        cmd += ["--model", str(args.onnx)]
    if args.model == "detector":
        for d in args.synth:
            if not (d / "labels.jsonl").is_file():
                raise UsageError(f"--synth {d}: no labels.jsonl (write one with python -m tsumo_synth.photos)")
            cmd += ["--synth", str(d)]
        if args.chinese:
            cmd += ["--chinese", args.chinese]
        if args.real_dev:
            cmd.append("--real-dev")
        if args.latency:
            cmd.append("--latency")
    elif args.synth or args.chinese or args.real_dev or args.latency:
        raise UsageError("--synth/--chinese/--real-dev/--latency are detector options; use --args for the classifier")
    code = subprocess.call(cmd + extra, cwd=REPO)
    return 0 if code == 0 else (2 if code == 2 else 1)
