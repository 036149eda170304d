"""The `--declared` CSV (what the table said each win was worth) and each win's scoring context.

One row per win. A header row names the columns (any order, case-insensitive, `#` lines are
comments). Only `points` is required:

| column | meaning | example |
|---|---|---|
| `video` | which video (path, file name or stem); needed when auditing several | `table3.mp4` |
| `time` | when the hand was shown: seconds, `m:ss` or `h:mm:ss` | `4:05.5` |
| `order` | the win's number in the video (1 = first); rows without `time` or `order` take the events left, in order | `2` |
| `win` | `ron` or `tsumo` | `tsumo` |
| `round_wind`, `seat_wind` (or `round`, `seat`) | `E` `S` `W` `N` | `E` |
| `dora`, `ura` | indicator tiles, MPSZ | `3m 5z` or `35m` |
| `riichi`, `double_riichi`, `ippatsu`, `rinshan`, `chankan`, `haitei`, `houtei`, `tenhou`, `chiihou`, `renhou` | yes/no, 1/0, true/false, empty = no | `yes` |
| `honba`, `kyotaku` (or `sticks`) | counters | `1` |
| `discarder` | ron: `left` `across` `right` | `left` |
| `rules`, `players` | rule set preset, player count | `tenhou` |
| `points` | the declared value of the hand (CONTRACTS §2 `points`) | `7700` |
| `total` | optional: all the winner collected (§2 `total`), checked too | `8000` |

Any other column is an error (a typo would otherwise be ignored silently); errors name the line
and the column.
"""
from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from audit.events import Event
from scoring.errors import HandError
from scoring.tiles import WIND_NAMES, parse_tiles as engine_tiles
from scoring.tiles import parse_wind as engine_wind

SEATS = ("left", "across", "right")
FLAGS = ("riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei",
         "tenhou", "chiihou", "renhou")
COUNTERS = ("honba", "kyotaku")
ALIASES = {"round": "round_wind", "seat": "seat_wind", "dora": "dora_indicators",
           "ura": "ura_indicators", "sticks": "kyotaku", "riichi_sticks": "kyotaku",
           "declared": "points", "declared_points": "points"}
COLUMNS = {"video", "time", "order", "win", "round_wind", "seat_wind", "dora_indicators",
           "ura_indicators", "discarder", "rules", "players", "points", "total", *FLAGS, *COUNTERS}
# The columns as the docs' table names them first, for messages.
_DOC_NAME = {"dora_indicators": "dora", "ura_indicators": "ura"}
_COLUMN_NAMES = sorted(_DOC_NAME.get(col, col) for col in COLUMNS)
_TRUE = {"1", "yes", "y", "true", "t", "x", "✓"}
_FALSE = {"", "0", "no", "n", "false", "f", "-"}

# How far (seconds) a declared `time` may lie outside an event's span and still name it.
TIME_TOLERANCE_S = 10.0


class DeclaredError(ValueError):
    """The declared file is unreadable or a value in it is wrong (message names line and column)."""


def parse_tiles(text: str) -> list[str]:
    """`"3m 5z"`, `"3m,5z"`, `"3m;5z"`, `"35m1z"` → `["3m", "5m", "1z"]` (the engine's MPSZ parser)."""
    try:
        return [str(t) for t in engine_tiles(text.replace(";", " "))]
    except HandError as exc:
        raise ValueError(exc.message) from None


def parse_time(text: str) -> float:
    """`"93.5"`, `"1:33.5"`, `"0:01:33"` → seconds."""
    parts = text.strip().split(":")
    if not 1 <= len(parts) <= 3 or any(p.strip() == "" for p in parts):
        raise ValueError(f"not a time: {text!r} (seconds, m:ss or h:mm:ss)")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"not a time: {text!r} (seconds, m:ss or h:mm:ss)") from None
    if not all(math.isfinite(v) for v in values):  # "nan" would put NaN in report.json
        raise ValueError(f"not a time: {text!r} (seconds, m:ss or h:mm:ss)")
    seconds = 0.0
    for v in values:
        seconds = seconds * 60 + v
    if seconds < 0 or any(v < 0 for v in values):
        raise ValueError(f"negative time: {text!r}")
    if any(v >= 60 for v in values[1:]):  # "1:75" is a typo, not 2:15
        raise ValueError(f"not a time: {text!r} (minutes and seconds after a ':' are below 60)")
    return seconds


def _int(text: str, what: str, minimum: int = 0) -> int:
    cleaned = text.strip().replace(",", "").replace("_", "").replace(" ", "")
    if not re.fullmatch(r"[+-]?\d+", cleaned):
        raise ValueError(f"{what} must be a whole number, got {text!r}")
    value = int(cleaned)
    if value < minimum:
        raise ValueError(f"{what} must be ≥ {minimum}, got {value}")
    return value


def _flag(text: str) -> bool:
    t = text.strip().lower()
    if t in _TRUE:
        return True
    if t in _FALSE:
        return False
    raise ValueError(f"expected yes/no, got {text!r}")


def context_value(key: str, text: str):
    """Parse one context value (shared by the CSV and the command-line defaults)."""
    t = text.strip()
    if key == "win":
        if t.lower() not in ("ron", "tsumo"):
            raise ValueError(f"win must be ron or tsumo, got {text!r}")
        return t.lower()
    if key in ("round_wind", "seat_wind"):
        try:
            return WIND_NAMES[engine_wind(t, key)]
        except HandError:
            raise ValueError(f"a wind is E, S, W or N, got {text!r}") from None
    if key in ("dora_indicators", "ura_indicators"):
        return parse_tiles(t) if t else []
    if key in FLAGS:
        return _flag(t)
    if key in COUNTERS:
        return _int(t, key) if t else 0
    if key == "players":
        n = _int(t, "players", 3)
        if n not in (3, 4):
            raise ValueError(f"players must be 3 or 4, got {n}")
        return n
    if key == "discarder":
        if t.lower() not in SEATS:
            raise ValueError(f"discarder must be left, across or right, got {text!r}")
        return t.lower()
    if key == "rules":
        if not t:
            raise ValueError("rules is empty")
        return t
    raise KeyError(key)


@dataclass(frozen=True)
class DeclaredWin:
    line: int                    # line number in the file (for messages)
    video: str | None
    time_s: float | None
    order: int | None
    context: dict                # CONTRACTS §1 keys (no tiles)
    points: int
    total: int | None = None

    def to_json(self) -> dict:
        d = {"line": self.line, "points": self.points, "context": self.context}
        if self.video is not None:
            d["video"] = self.video
        if self.time_s is not None:
            d["time_s"] = self.time_s
        if self.order is not None:
            d["order"] = self.order
        if self.total is not None:
            d["total"] = self.total
        return d


@dataclass(frozen=True)
class DeclaredSet:
    path: str
    wins: tuple[DeclaredWin, ...]
    has_video_column: bool

    def for_video(self, video_path: str, n_videos: int) -> list[DeclaredWin]:
        if not self.has_video_column:
            return list(self.wins)
        p = Path(video_path)
        names = {str(p), p.name, p.stem, str(p.resolve())}
        return [w for w in self.wins if w.video in names]

    def unknown_videos(self, video_paths: list[str]) -> list[DeclaredWin]:
        """Rows whose `video` names none of the audited videos."""
        if not self.has_video_column:
            return []
        known: set[str] = set()
        for v in video_paths:
            p = Path(v)
            known |= {str(p), p.name, p.stem, str(p.resolve())}
        return [w for w in self.wins if w.video not in known]


def load_declared(path: str | Path, *, n_videos: int = 1) -> DeclaredSet:
    """Read and check the whole file up front; raise `DeclaredError` on the first problem."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise DeclaredError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise DeclaredError(f"{p}: is a directory, not a CSV file") from None
    except OSError as exc:
        raise DeclaredError(f"{p}: cannot read ({exc.strerror})") from None
    if b"\x00" in raw:
        raise DeclaredError(f"{p}: not a text CSV file (binary data)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DeclaredError(f"{p}: not UTF-8 text (byte {exc.start})") from None
    # Keep line numbers: blank and comment lines become empty lines the reader skips.
    lines = ["" if ln.lstrip().startswith("#") else ln for ln in text.splitlines()]
    reader = csv.reader(io.StringIO("\n".join(lines)))
    header: list[str] | None = None
    written: dict[str, str] = {}
    header_line = 0
    wins: list[DeclaredWin] = []
    try:
        for row in reader:
            line = reader.line_num
            if not any(c.strip() for c in row):
                continue
            if header is None:
                header = [ALIASES.get(c.strip().lower(), c.strip().lower()) for c in row]
                written = {col: cell.strip() for col, cell in zip(header, row)}  # messages use the file's words
                header_line = line
                unknown = [c for c in header if c not in COLUMNS]
                if unknown:
                    raise DeclaredError(f"{p}: line {line}: unknown column {unknown[0]!r} "
                                        f"(known: {', '.join(_COLUMN_NAMES)})")
                dup = [c for c in header if header.count(c) > 1]
                if dup:
                    raise DeclaredError(f"{p}: line {line}: column {dup[0]!r} appears twice")
                if "points" not in header:
                    raise DeclaredError(f"{p}: line {line}: the header has no 'points' column "
                                        "(the declared value of each win)")
                if "video" not in header and n_videos > 1:
                    raise DeclaredError(f"{p}: line {line}: auditing {n_videos} videos needs a 'video' "
                                        "column saying which video each win is in")
                continue
            if len(row) != len(header):
                raise DeclaredError(f"{p}: line {line}: {len(row)} values for {len(header)} columns")
            wins.append(_parse_row(p, line, dict(zip(header, row)), written))
    except csv.Error as exc:
        raise DeclaredError(f"{p}: line {reader.line_num}: not valid CSV ({exc})") from None
    if header is None:
        raise DeclaredError(f"{p}: empty file (expected a header row and one row per win)")
    del header_line
    return DeclaredSet(str(p), tuple(wins), "video" in header)


def _parse_row(path: Path, line: int, cells: dict[str, str], written: dict[str, str]) -> DeclaredWin:
    """One row; `written` maps each column to its name as the header spells it (`dora` for dora_indicators)."""
    def fail(column: str, why: str):
        raise DeclaredError(f"{path}: line {line}, column {written.get(column, column)!r}: {why}")

    context: dict = {}
    video = time_s = order = total = None
    points = None
    for col, value in cells.items():
        v = value.strip()
        try:
            if col == "video":
                video = v or None
            elif col == "time":
                time_s = parse_time(v) if v else None
            elif col == "order":
                order = _int(v, "order", 1) if v else None
            elif col == "points":
                if not v:
                    fail(col, "the declared points are missing")
                points = _int(v, "points")
            elif col == "total":
                total = _int(v, "total") if v else None
            elif v or col in FLAGS:
                context[col] = context_value(col, v)
        except ValueError as exc:
            fail(col, str(exc))
    assert points is not None
    return DeclaredWin(line, video, time_s, order, context, points, total)


@dataclass
class Assignment:
    """Which declared win (if any) each event is, and the declared wins no event matched."""

    by_event: dict[int, DeclaredWin] = field(default_factory=dict)
    unmatched: list[tuple[DeclaredWin, str]] = field(default_factory=list)


def match_declared(events: list[Event], wins: list[DeclaredWin]) -> Assignment:
    """Rows with `time` name the event whose span (± TIME_TOLERANCE_S) holds it, the nearest if
    several; rows with `order` name the n-th event; the other rows take the events left over,
    in time order."""
    out = Assignment()
    for win in wins:
        if win.time_s is None:
            continue
        best, best_d = None, None
        for i, ev in enumerate(events):
            if i in out.by_event:
                continue
            d = max(ev.start_s - win.time_s, win.time_s - ev.end_s, 0.0)
            if d <= TIME_TOLERANCE_S and (best_d is None or d < best_d):
                best, best_d = i, d
        if best is None:
            out.unmatched.append((win, f"no reveal event found near {win.time_s:.1f} s"))
        else:
            out.by_event[best] = win
    for win in wins:
        if win.time_s is not None or win.order is None:
            continue
        n = win.order
        if n > len(events):
            out.unmatched.append((win, f"win #{n} declared, only {len(events)} reveal events found"))
        elif n - 1 in out.by_event:
            out.unmatched.append((win, f"event #{n} is already matched to line {out.by_event[n - 1].line}"))
        else:
            out.by_event[n - 1] = win
    free = iter(i for i in range(len(events)) if i not in out.by_event)
    for win in wins:
        if win.time_s is not None or win.order is not None:
            continue
        i = next(free, None)
        if i is None:
            out.unmatched.append((win, f"more declared wins than the {len(events)} reveal events found"))
        else:
            out.by_event[i] = win
    out.unmatched.sort(key=lambda wr: wr[0].line)
    return out


def verdict(result: dict, win: DeclaredWin) -> tuple[str, str | None]:
    """("match" | "mismatch", why) — points (and total, if declared) against the scored result."""
    if result.get("error"):
        return "mismatch", f"the hand read cannot be scored: {result['error']}"
    why = []
    if result.get("points") != win.points:
        why.append(f"declared {win.points} points, computed {result.get('points')}")
    if win.total is not None and result.get("total") != win.total:
        why.append(f"declared total {win.total}, computed {result.get('total')}")
    return ("mismatch", "; ".join(why)) if why else ("match", None)
