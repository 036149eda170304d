"""`tsumo audit VIDEO… -o REPORT_DIR`: find every revealed winning hand in recorded footage,
read and score it, and (with `--declared`) check the points the table declared.

See docs/audit.md. Exit codes: 0 done, 2 bad input (bad flag, declared file, report folder, or
REPORT_DIR holding the checkpoint of a run with other videos or settings: nothing is run; a broken
video: the report is still written, with that video's `error` and its events so far), 1 a failure
during the run (disk full, a worker killed: finished chunks stay in the checkpoint), 130
interrupted (rerun the same command to resume).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from tsumo.cli import UsageError
from tsumo.commands.read import load_models
from tsumo.context import add_context_flags, checked_rules, context_from_args


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    if not math.isfinite(v):  # --fps inf never finished planning; --chunk inf crashed
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return v


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "audit", help="find, read and score the winning hands shown in game videos",
        description="Find every winning hand revealed in recorded footage, read and score it; with "
                    "--declared, check the declared points. Writes REPORT_DIR/report.json (CONTRACTS §5), "
                    "report.csv, report.html and the annotated best frames; resumable after any interruption.")
    p.add_argument("videos", nargs="+", metavar="VIDEO", help="video files (anything OpenCV/FFmpeg reads)")
    p.add_argument("-o", "--out", required=True, metavar="REPORT_DIR", help="where the report and checkpoint go")
    p.add_argument("--declared", metavar="CSV", help="one row per win: context and declared points (docs/audit.md)")
    p.add_argument("--fps", type=_positive_float, default=2.0, metavar="N", help="frames sampled per second (default 2)")
    p.add_argument("--workers", type=int, default=2, metavar="N", help="parallel worker processes (default 2)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run the chunks as Ray tasks: on a new local Ray instance, or on the cluster at ADDRESS")
    p.add_argument("--chunk", type=_positive_float, default=30.0, metavar="SECONDS",
                   help="video seconds per work unit and checkpoint step (default 30)")
    p.add_argument("--models", metavar="DIR", help="folder with tile_detector.onnx and tile_classifier.onnx")
    p.add_argument("--restart", action="store_true",
                   help="discard an existing checkpoint and start over (needed when it is from a run "
                        "with other videos or settings)")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    g = p.add_argument_group("scoring context (defaults for every win; a --declared row overrides them)")
    add_context_flags(g, "who dealt in (ron)", unset=True)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from concurrent.futures.process import BrokenProcessPool

    from audit.checkpoint import FILENAME
    from audit.declared import DeclaredError, load_declared
    from audit.runner import AuditError, AuditOptions, CheckpointConflict, PipelineReaderFactory, run_audit

    if args.ray and Path(args.ray).is_file():  # `--ray VIDEO …`: the optional ADDRESS swallowed a video
        args.videos.insert(0, args.ray)
        args.ray = ""
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    context = context_from_args(args, only_given=True)
    # (with --declared, --players is not held against --rules: its rows may name their own rules)
    rules_players = checked_rules(context["rules"], players=None if args.declared else args.players)
    players = args.players or rules_players
    declared = None
    if args.declared:
        try:
            declared = load_declared(args.declared, n_videos=len(args.videos))
        except DeclaredError as exc:
            raise UsageError(f"--declared: {exc}") from None
        for w in declared.wins:
            if "rules" in w.context:
                checked_rules(w.context["rules"], where=f"--declared: {args.declared}: line {w.line}, column 'rules'")
    models = Path(args.models) if args.models else None
    if models is not None and not models.is_dir():
        raise UsageError(f"--models: {models} is not a folder")
    if not args.out.strip():  # `-o "$UNSET"` would scatter the report over the current folder
        raise UsageError("-o: empty folder name")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"-o: {out} exists and is not a folder")

    options = AuditOptions(sample_fps=args.fps, chunk_s=args.chunk, workers=args.workers,
                           ray=args.ray is not None, ray_address=args.ray or None,
                           context=context, declared=declared, restart=args.restart)
    factory = PipelineReaderFactory(str(models) if models else None, threads=1, players=players)
    reader = load_models(factory, models)  # the run needs one here anyway; a broken model fails before any work
    _check_writable(out)
    rerun = "rerun without --restart" if args.restart else "rerun the same command"
    try:
        report = run_audit(list(args.videos), out, factory, options, progress=not args.no_progress,
                           reader=reader)
    except CheckpointConflict as exc:
        raise UsageError(str(exc)) from None
    except AuditError as exc:
        raise UsageError(f"{exc} (finished chunks are kept in {out / FILENAME})"
                         if (out / FILENAME).exists() else str(exc)) from None
    except KeyboardInterrupt:
        print(f"tsumo audit: interrupted; {rerun} to resume from {out / FILENAME}",
              file=sys.stderr)
        return 130
    except (OSError, BrokenProcessPool) as exc:  # a full disk, a worker killed (out of memory?)…
        what = ("a worker process died (out of memory?)" if isinstance(exc, BrokenProcessPool)
                else f"cannot write {exc.filename or out}: {exc.strerror or exc}")
        kept = (f"; finished chunks are kept in {out / FILENAME}, {rerun} to resume"
                if (out / FILENAME).exists() else "")
        print(f"tsumo: error: {what}{kept}", file=sys.stderr)
        return 1
    _print_summary(report.to_json(), out)
    for v in report.videos:
        if v.error:
            n = len(v.events)
            kept = (f" ({n} event{'s' * (n != 1)} found before it {'are' if n != 1 else 'is'} in the report)"
                    if n else "")
            print(f"tsumo: error: {v.error}{kept}", file=sys.stderr)
    return 2 if report.errors else 0


def _check_writable(out: Path) -> None:
    """Make the report folder and try a file in it, so a bad -o fails before any video is read."""
    import tempfile

    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        raise UsageError(f"-o {out}: cannot write there ({exc.strerror or exc})") from None


def _print_summary(data: dict, out: Path) -> None:
    from audit.report import hand_text

    for v in data["videos"]:
        n = len(v["events"])
        print(f"{v['path']}: {n} winning hand{'s' * (n != 1)}"
              + (f" (stopped: {v['error']})" if v.get("error") else ""))
        for e in v["events"]:
            r = e["result"] or {}
            score = f"error: {r['error']}" if r.get("error") else f"{r.get('han')} han {r.get('fu')} fu {r.get('points')}"
            verdict = f"  [{e['verdict']}{': ' + e['mismatch'] if e.get('mismatch') else ''}]" if e["verdict"] else ""
            win = f"  win {e['hand'].get('win_tile')} by {e['hand'].get('win', 'ron')}" if e["hand"].get("win_tile") else ""
            print(f"  {e['start_s']:8.1f}–{e['end_s']:.1f} s  {hand_text(e['hand'])}{win}  → {score}"
                  f"  (confidence {e['confidence']:.2f}){verdict}")
        for u in v.get("unmatched_declared", []):
            print(f"  declared line {u['line']} ({u['points']} points): {u['reason']}")
    for u in data.get("unmatched_declared", []):  # rows for no video given: a typo in the name?
        print(f"declared line {u['line']} ({u['points']} points): {u['reason']}, not checked")
    print(f"report: {out / 'report.html'}  ({out / 'report.json'}, {out / 'report.csv'})")
