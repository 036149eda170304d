"""`tsumo` — one command line for everything.

Each sub-command lives in its own module under `tsumo/commands/` and exposes
`register(subparsers)`; that module's `run(args) -> int` does the work. Heavy imports
(onnxruntime, FastAPI, OpenCV) happen inside `run`, so `tsumo hand …` starts fast.

Exit codes: 0 success, 2 bad input (with a message on stderr), 1 unexpected failure,
130 interrupted, 141 output closed early (`tsumo … | head -1`).
"""
from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys

# Sub-command modules, in the order `tsumo --help` lists them.
COMMANDS = [
    "hand", "batch", "rules",            # scoring engine
    "score", "read", "eval_photos",      # photos
    "serve",                             # HTTP API and phone page
    "audit",                             # recorded footage
    "train", "eval",                     # models
]


class UsageError(Exception):
    """Bad input from the user: printed as `tsumo: error: …`, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tsumo", description="Score riichi-mahjong hands, from text or photos.")
    # No abbreviated options: `batch --rule kiriage=true` was taken as `--rules kiriage=true` (an
    # unknown rule set), where the user meant the `--rule` other commands have.
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND",
                                       parser_class=functools.partial(argparse.ArgumentParser, allow_abbrev=False))
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"tsumo.commands.{name}")
        except ModuleNotFoundError as exc:  # a command not built yet in this checkout
            if exc.name == f"tsumo.commands.{name}":
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except UsageError as exc:
        print(f"tsumo: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _output_closed()


def _output_closed() -> int:
    """The reader of stdout went away (`| head -1`, which wanted no more): exit quietly like a
    SIGPIPE-killed program (141, as `cat` does), with stdout pointed at /dev/null so the flush at
    exit raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout is no real file (tests capture it)
        pass
    return 141


if __name__ == "__main__":
    raise SystemExit(main())
