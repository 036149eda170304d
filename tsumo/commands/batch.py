"""`tsumo batch IN.jsonl [-o OUT.jsonl]` — score a file of hands, one JSON object a line.

Output line N answers input line N (CONTRACTS §2, `id` echoed), so the two files can be zipped
back together: a blank or malformed line gets an `error` line of its own and the rest is still
scored. Progress (lines, rate, ETA) goes to stderr when it is a terminal or with `--progress`;
the run ends with a one-line summary there and exits 0 whenever it ran (errors are counted,
not fatal). `-` means stdin / stdout.
"""
from __future__ import annotations

import argparse
import codecs
import json
import os
import sys
import time
from typing import IO, Any, Callable, Iterable, Iterator

from scoring import strict_json
from tsumo.cli import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "batch", help="score a JSONL file of hands (CONTRACTS §1 in, §2 out)",
        description="Score one hand per input line; one result line per input line, in order.")
    p.add_argument("input", metavar="IN.jsonl", help="input file, or - for stdin")
    p.add_argument("-o", "--output", default="-", metavar="OUT.jsonl", help="output file (default: stdout)")
    p.add_argument("--rules", metavar="PRESET", help="rule set for lines that name none (default: the engine's)")
    p.add_argument("--progress", action="store_true", help="show progress on stderr even when it is not a terminal")
    p.set_defaults(run=run)


# The §2 fields of a line that could not be scored, so every output line has the same shape.
_EMPTY = {"han": 0, "fu": 0, "yakuman": 0, "limit": None, "points": 0, "payments": {}, "total": 0, "yaku": []}


def _line_error(number: int, message: str) -> dict:
    return {"line": number, **_EMPTY, "payments": {}, "yaku": [], "error": f"line {number}: {message}",
            "error_field": None}


def score_line(line: str, number: int, score: Callable[[Any], dict], default_rules: Any = None) -> dict:
    """One input line -> one result object; never raises."""
    text = line.strip()
    if not text:
        return _line_error(number, "empty line (expected one JSON object)")
    try:  # strict: a key given twice is an error (json.loads keeps the last), as over HTTP
        obj = strict_json.loads(text)
    except strict_json.JsonProblem as exc:
        return _line_error(number, f"{_where(exc.loc)}{exc}")
    except ValueError as exc:
        return _line_error(number, f"not valid JSON: {exc}")
    if not isinstance(obj, dict):
        return _line_error(number, f"expected a JSON object, got {type(obj).__name__}")
    if default_rules is not None and "rules" not in obj:
        obj["rules"] = default_rules
    try:
        result = score(obj)
    except Exception as exc:  # the engine promises not to raise; a batch must survive if it does
        result = {**_line_error(number, f"internal error: {type(exc).__name__}: {exc}")}
    if "id" in obj and "id" not in result:
        result = {"id": obj["id"], **result}
    return result


def _where(loc: tuple) -> str:
    """`("melds", 0, "tiles")` → "melds[0].tiles: " (the engine's field notation); "" at the top."""
    path = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in loc[:-1]).lstrip(".")
    return f"{path}: " if path else ""


class Progress:
    """Rate and ETA on one self-rewriting stderr line, at most a few times a second."""

    def __init__(self, stream: IO[str], total: int | None, enabled: bool) -> None:
        self.stream, self.total, self.enabled = stream, total, enabled
        self.start = self.last = time.monotonic()

    def update(self, done: int, errors: int, final: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not final and now - self.last < 0.25:
            return
        self.last = now
        rate = done / max(now - self.start, 1e-9)
        text = f"{done:,}"
        if self.total:
            left = (self.total - done) / rate if rate else 0
            text += f"/{self.total:,} lines ({100 * done / self.total:.0f}%), ETA {_clock(left)}"
        else:
            text += " lines"
        text += f", {rate:,.0f} hands/s, {errors:,} errors"
        self.stream.write("\r" + text.ljust(78) + ("\n" if final else ""))
        self.stream.flush()


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


# Characters `str.splitlines()` (and some editors) treat as line breaks that json.dumps leaves raw
# with ensure_ascii=False: escape them so one result stays one line for every reader.
_LINE_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


def _json_line(result: dict) -> str:
    text = json.dumps(result, ensure_ascii=False)
    for raw, escaped in _LINE_BREAKS.items():
        text = text.replace(raw, escaped)
    return text + "\n"


def process(lines: Iterable[str | UnicodeDecodeError], out: IO[str], score: Callable[[Any], dict],
            default_rules: Any = None, progress: Progress | None = None) -> tuple[int, int]:
    """Score every line, writing results in order; returns (lines, errors). A line that could not
    be decoded (a `UnicodeDecodeError` from `_lines`) is an error line of its own."""
    done = errors = 0
    for number, line in enumerate(lines, start=1):
        result = (score_line(line, number, score, default_rules) if isinstance(line, str)
                  else _line_error(number, f"{strict_json.not_utf8(line)}; save the file as UTF-8"))
        if result.get("error"):
            errors += 1
        out.write(_json_line(result))
        done = number
        if progress:
            progress.update(done, errors)
    if progress:
        progress.update(done, errors, final=True)
    return done, errors


def _lines(stream: IO[bytes]) -> Iterator[str | UnicodeDecodeError]:
    """Each line as text, without its line break and, on the first, a UTF-8 byte-order mark (Windows
    editors write one); a line that is not UTF-8 is its error (replacing the bytes would change an id)."""
    for number, raw in enumerate(stream):
        raw = raw.rstrip(b"\n").rstrip(b"\r")
        if number == 0 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8):]
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield exc


def _count_lines(path: str) -> int | None:
    try:
        with open(path, "rb") as fh:
            return sum(1 for _ in fh)
    except OSError:
        return None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # the output does not exist yet
        return False


def run(args: argparse.Namespace) -> int:
    from scoring import score_json
    from tsumo.context import checked_rules

    if args.rules is not None:  # a bad default would turn every line into the same error
        checked_rules(args.rules)
    if args.input != "-" and args.output != "-" and _same_file(args.input, args.output):
        # opening the output would empty the input before a line of it is read
        raise UsageError(f"-o {args.output} is the input file: write the results to another file")
    total = None
    if args.input == "-":
        source = sys.stdin.buffer
    else:
        try:
            source = open(args.input, "rb")
        except OSError as exc:
            raise UsageError(f"cannot read {args.input}: {exc.strerror}") from None
        total = _count_lines(args.input)
    try:
        if args.output == "-":
            sink = sys.stdout
        else:
            try:
                sink = open(args.output, "w", encoding="utf-8", newline="\n")
            except OSError as exc:
                raise UsageError(f"cannot write {args.output}: {exc.strerror}") from None
        show = args.progress or sys.stderr.isatty()
        progress = Progress(sys.stderr, total, show)
        start = time.monotonic()
        try:
            done, errors = process(_lines(source), sink, score_json, args.rules, progress)
        finally:
            if sink is not sys.stdout:
                sink.close()
            else:
                sink.flush()
    finally:
        if source is not sys.stdin.buffer:
            source.close()
    seconds = time.monotonic() - start
    print(f"tsumo batch: {done} lines, {errors} error{'s' if errors != 1 else ''}, "
          f"{seconds:.1f} s", file=sys.stderr)
    return 0
