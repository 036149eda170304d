"""Photo-label sequences (CONTRACTS §3) ⇄ tile groups, and scoring a read against the truth.

A sequence lists a hand's tiles from its owner's left to right: ``"1m 2m 3m | 5z | 7z 7z- 7z"``.
` | ` separates groups that stand apart (closed part, drawn tile, each meld); a suffix `-` marks a
tile lying sideways, `=` a sideways tile stacked on the one before it (added kan); `x` is a
face-down tile. This module is the only place that knows the notation, so the reader, the
evaluation command and the tests agree on it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from vision.classes import BACK, TILE_CLASSES

_TOKEN = re.compile(r"^(?:(?P<tile>[0-9][mps]|[1-7]z)|(?P<back>x))(?P<mark>[-=]?)$")
FACE_DOWN = "x"


class SequenceError(ValueError):
    """A sequence string that does not follow CONTRACTS §3."""


@dataclass(frozen=True)
class SeqTile:
    """One tile of a sequence: its class name (``back`` for face-down) and how it lies."""

    label: str
    sideways: bool = False
    stacked: bool = False  # a sideways tile lying on the previous sideways tile (added kan)

    def __post_init__(self) -> None:
        if self.label not in TILE_CLASSES:
            raise SequenceError(f"unknown tile class {self.label!r}")
        if self.stacked and not self.sideways:
            raise SequenceError("a stacked tile always lies sideways")

    @property
    def token(self) -> str:
        name = FACE_DOWN if self.label == BACK else self.label
        return name + ("=" if self.stacked else "-" if self.sideways else "")

    @classmethod
    def from_token(cls, token: str) -> "SeqTile":
        match = _TOKEN.match(token)
        if not match:
            raise SequenceError(f"bad tile {token!r} (expected e.g. 5m, 0p, 7z, x, with optional - or =)")
        label = BACK if match["back"] else match["tile"]
        if label.startswith("0") and label[1] == "z":
            raise SequenceError(f"bad tile {token!r}")
        mark = match["mark"]
        return cls(label, sideways=bool(mark), stacked=mark == "=")


Groups = list[list[SeqTile]]


def parse_sequence(text: str) -> Groups:
    """``"1m 2m | 3m-"`` → groups of `SeqTile`; raises `SequenceError` on bad notation."""
    if not isinstance(text, str) or not text.strip():
        raise SequenceError("empty sequence")
    groups: Groups = []
    for part in text.split("|"):
        tokens = part.split()
        if not tokens:
            raise SequenceError(f"empty group in {text!r}")
        group = [SeqTile.from_token(t) for t in tokens]
        for i, tile in enumerate(group):
            if tile.stacked and (i == 0 or not group[i - 1].sideways or group[i - 1].stacked):
                raise SequenceError(f"stacked tile {tile.token!r} must follow a sideways tile")
        groups.append(group)
    return groups


def format_sequence(groups: Groups) -> str:
    """Groups → the canonical §3 string (single spaces, `` | `` between groups)."""
    return " | ".join(" ".join(t.token for t in g) for g in groups if g)


def flatten(groups: Groups) -> list[SeqTile]:
    return [t for g in groups for t in g]


@dataclass(frozen=True)
class Alignment:
    """Edit-distance alignment of a read tile list with the true one (labels only)."""

    matches: int
    substitutions: int
    insertions: int  # tiles read that are not in the truth
    deletions: int  # true tiles that were missed

    @property
    def columns(self) -> int:
        return self.matches + self.substitutions + self.insertions + self.deletions

    @property
    def accuracy(self) -> float:
        """Matched tiles over aligned columns: misses and extra tiles both count against it."""
        return self.matches / self.columns if self.columns else 1.0


def align(read: list[str], truth: list[str]) -> Alignment:
    """Levenshtein alignment of two token lists; ties prefer matches (then fewest columns)."""
    n, m = len(read), len(truth)
    # cost[i][j] = (edits, -matches) for read[:i] vs truth[:j]
    cost = [[(0, 0)] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = (i, 0)
    for j in range(1, m + 1):
        cost[0][j] = (j, 0)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            same = read[i - 1] == truth[j - 1]
            diag = cost[i - 1][j - 1]
            options = [
                (diag[0] + (0 if same else 1), diag[1] - (1 if same else 0)),
                (cost[i - 1][j][0] + 1, cost[i - 1][j][1]),
                (cost[i][j - 1][0] + 1, cost[i][j - 1][1]),
            ]
            cost[i][j] = min(options)
    # walk back to count the operations
    i, j = n, m
    matches = subs = ins = dels = 0
    while i > 0 or j > 0:
        if i > 0 and j > 0:
            same = read[i - 1] == truth[j - 1]
            diag = cost[i - 1][j - 1]
            if cost[i][j] == (diag[0] + (0 if same else 1), diag[1] - (1 if same else 0)):
                matches += same
                subs += not same
                i, j = i - 1, j - 1
                continue
        if i > 0 and cost[i][j] == (cost[i - 1][j][0] + 1, cost[i - 1][j][1]):
            ins += 1
            i -= 1
        else:
            dels += 1
            j -= 1
    return Alignment(matches, subs, ins, dels)


def compare(read: str | Groups, truth: str | Groups) -> tuple[Alignment, bool]:
    """Per-tile alignment (tile classes only) and whether the read is exact (tiles, how each
    lies, and grouping)."""
    read_g = (parse_sequence(read) if read.strip() else []) if isinstance(read, str) else read
    truth_g = parse_sequence(truth) if isinstance(truth, str) else truth
    alignment = align([t.label for t in flatten(read_g)], [t.label for t in flatten(truth_g)])
    return alignment, format_sequence(read_g) == format_sequence(truth_g)
