"""`tsumo train detector|classifier …`: train a model in the training virtualenv.

Training needs torch and ultralytics, which live in `.venv-train` (they pull opencv-python,
which clashes with the runtime's opencv-python-headless). This command only wires things up:
the detector's rendered photos are written here (runtime Python), then the training script runs
with the venv's Python. Any other option of the script is passed to the script with `--args "…"` (see `datasets/train_detector.py --help`,
`datasets/train_classifier.py --help`).
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

from tsumo.cli import UsageError

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = {"detector": REPO / "datasets" / "train_detector.py", "classifier": REPO / "datasets" / "train_classifier.py"}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train",
        help="train the tile detector or classifier (CPU, needs .venv-train)",
        description="Train a model with the training virtualenv (make train-env). Other options of the "
        "training script go in --args, e.g. `tsumo train detector --hours 1.5 --args \"--batch 32\"`.",
    )
    p.add_argument("model", choices=sorted(SCRIPTS), help="which model to train")
    p.add_argument("--venv", type=Path, default=REPO / ".venv-train", help="training virtualenv (default .venv-train)")
    p.add_argument("--photos", type=int, default=3000, help="detector: rendered training photos (default 3000)")
    p.add_argument("--seed", type=int, default=1, help="detector: rendering seed (default 1)")
    p.add_argument("--render-workers", type=int, default=2, help="detector: processes rendering photos (default 2)")
    p.add_argument("--preset", choices=("default", "close"), default="default",
                   help="detector: photo recipe (close: nearer camera, part rows, more melds; see docs/models.md)")
    p.add_argument("--out", type=Path, default=None, help="ONNX file to write (default models/tile_<model>.onnx)")
    p.add_argument("--hours", type=float, default=None, help="wall-clock training budget in hours")
    p.add_argument("--epochs", type=int, default=None, help="training epochs")
    p.add_argument("--args", default="", metavar="\"ARGS\"", help="more options for the training script, quoted")
    p.add_argument("--dry-run", action="store_true", help="print the commands instead of running them")
    p.set_defaults(run=run)


def venv_python(venv: Path, *, must_exist: bool = True) -> Path:
    """The venv's Python; a dry run only prints the commands, so it may name a venv not made yet."""
    py = venv / "bin" / "python"
    if must_exist and not py.exists():
        raise UsageError(f"training virtualenv not found at {venv} (create it with `make train-env`)")
    return py


def commands(args: argparse.Namespace, extra: list[str]) -> list[list[str]]:
    py = str(venv_python(args.venv, must_exist=not args.dry_run))
    script = SCRIPTS[args.model]
    if not script.exists():
        raise UsageError(f"{script.relative_to(REPO)} is missing from this checkout")
    out = args.out or (REPO / "models" / f"tile_{args.model}.onnx")
    if args.model == "detector":
        if args.photos < 1:
            raise UsageError(f"--photos must be at least 1, got {args.photos}")
        tag = "" if args.preset == "default" else f"_{args.preset}"
        from tsumo_synth.paths import work_cache  # (the training scripts' work folders too)

        synth = work_cache(REPO) / "synth" / f"det_s{args.seed}_n{args.photos}{tag}"
        return [
            [sys.executable, "-m", "tsumo_synth.photos", "--n", str(args.photos), "--seed", str(args.seed),
             "--out", str(synth), "--workers", str(args.render_workers), "--preset", args.preset],
            [py, str(script), "--synth", str(synth), "--out", str(out), *extra],
        ]
    return [[py, str(script), "--out", str(out), *extra]]


def run(args: argparse.Namespace) -> int:
    try:
        extra = shlex.split(args.args)
    except ValueError as exc:
        raise UsageError(f"--args: {exc}") from None
    for flag in ("hours", "epochs"):
        value = getattr(args, flag)
        if value is not None:
            if value <= 0:
                raise UsageError(f"--{flag} must be positive, got {value}")
            extra += [f"--{flag}", str(value)]
    cmds = commands(args, extra)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "datasets"), os.environ.get("PYTHONPATH", "")]))
    for cmd in cmds:
        print("+ " + " ".join(cmd), file=sys.stderr)
        if args.dry_run:
            continue
        code = subprocess.call(cmd, cwd=REPO, env=env)
        if code != 0:
            print(f"tsumo train: step failed with exit code {code}", file=sys.stderr)
            return 1
    return 0
