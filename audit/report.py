"""The audit's outputs: `report.json` (CONTRACTS §5), `report.csv`, a self-contained `report.html`.

report.json holds only what the footage, the settings and the declared file decide — no
timings, no absolute times — so an interrupted-and-resumed run, a Ray run and a plain run of
the same job write the same file.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from audit.checkpoint import atomic_write
from audit.declared import DeclaredWin
from audit.events import Event


@dataclass
class EventOutcome:
    event: Event
    context: dict
    result: dict
    declared: DeclaredWin | None
    verdict: str | None
    why: str | None
    frame: str | None  # path of the annotated best frame, relative to the report dir

    def to_json(self) -> dict:
        ev = self.event
        return {
            "start_s": round(ev.start_s, 3), "end_s": round(ev.end_s, 3),
            "hand": {**self.context, **ev.hand},
            "result": self.result,
            "confidence": round(ev.confidence, 4),
            "declared": self.declared.to_json() if self.declared else None,
            "verdict": self.verdict,
            "mismatch": self.why,
            "sequence": ev.sequence,
            "agreement": round(ev.agreement, 4),
            "frames": ev.frames,
            "fused": ev.fused,
            "best_frame": {"t": round(ev.best_t, 3), "index": ev.best_index, "image": self.frame},
        }


@dataclass
class VideoOutcome:
    path: str
    duration_s: float | None
    processed_s: float
    events: list[EventOutcome]
    error: str | None = None
    error_kind: str | None = None
    unmatched: list[tuple[DeclaredWin, str]] = field(default_factory=list)

    def to_json(self) -> dict:
        d: dict = {"path": self.path,
                   "duration_s": None if self.duration_s is None else round(self.duration_s, 3),
                   "events": [e.to_json() for e in self.events]}
        if self.error:
            d["error"] = self.error
            d["error_kind"] = self.error_kind
            d["processed_s"] = round(self.processed_s, 3)
        if self.unmatched:
            d["unmatched_declared"] = [{**w.to_json(), "reason": why} for w, why in self.unmatched]
        return d


@dataclass
class Report:
    videos: list[VideoOutcome]
    settings: dict = field(default_factory=dict)
    unknown_declared: list[tuple[DeclaredWin, str]] = field(default_factory=list)

    def to_json(self) -> dict:
        d = {"videos": [v.to_json() for v in self.videos], "settings": self.settings}
        if self.unknown_declared:
            d["unmatched_declared"] = [{**w.to_json(), "reason": why} for w, why in self.unknown_declared]
        return d

    @property
    def errors(self) -> list[str]:
        return [v.error for v in self.videos if v.error]

    def write(self, out_dir: Path) -> None:
        out_dir = Path(out_dir)
        data = self.to_json()
        atomic_write(out_dir / "report.json",
                     (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
        atomic_write(out_dir / "report.csv", to_csv(data).encode("utf-8"))
        from audit.html import to_html

        atomic_write(out_dir / "report.html", to_html(data, out_dir).encode("utf-8"))


# --- CSV ------------------------------------------------------------------------------------

CSV_COLUMNS = ["video", "event", "start_s", "end_s", "hand", "win_tile", "win", "confidence",
               "han", "fu", "yakuman", "limit", "points", "total", "yaku", "score_error",
               "declared_line", "declared_points", "verdict", "mismatch", "frame", "video_error"]


def hand_text(hand: dict) -> str:
    """`123m456p789s11z | pon 777z (across) | ankan 1111m` — the hand in one cell (the winning tile, one of
    the concealed ones as in CONTRACTS §1, has its own column and is said beside it on the terminal)."""
    parts = [hand.get("concealed", "")]
    for m in hand.get("melds") or []:
        s = f"{m.get('kind')} {m.get('tiles')}"
        if m.get("from"):
            s += f" ({m['from']})"
        parts.append(s)
    if hand.get("nukidora"):
        parts.append(f"nuki {hand['nukidora']}")
    return " | ".join(parts)


def to_csv(data: dict) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, CSV_COLUMNS, lineterminator="\n")
    w.writeheader()
    for v in data["videos"]:
        if not v["events"] and v.get("error"):
            w.writerow({"video": v["path"], "video_error": v["error"]})
        for n, e in enumerate(v["events"], start=1):
            r = e["result"] or {}
            w.writerow({
                "video": v["path"], "event": n, "start_s": e["start_s"], "end_s": e["end_s"],
                "hand": hand_text(e["hand"]), "win_tile": e["hand"].get("win_tile"),
                "win": e["hand"].get("win", "ron"), "confidence": e["confidence"],
                "han": r.get("han"), "fu": r.get("fu"), "yakuman": r.get("yakuman"),
                "limit": r.get("limit"), "points": r.get("points"), "total": r.get("total"),
                "yaku": "; ".join(f"{y.get('name')} {y.get('han')}" for y in r.get("yaku") or []),
                "score_error": r.get("error"),
                "declared_line": (e["declared"] or {}).get("line"),
                "declared_points": (e["declared"] or {}).get("points"),
                "verdict": e["verdict"], "mismatch": e.get("mismatch"),
                "frame": (e.get("best_frame") or {}).get("image"),
                "video_error": v.get("error"),
            })
    return buf.getvalue()
