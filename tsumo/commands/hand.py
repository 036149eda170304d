"""`tsumo hand` — score one hand typed on the command line.

The flags build a CONTRACTS §1 object, `scoring.score_json` scores it, and the result is printed
readably (or as the §2 JSON with `--json`). Everything the engine needs to know about the win is
a flag; nothing is guessed except documented defaults: the winning tile is the last tile of the
concealed string when `--win` is left out (and is added to the string when it holds only the 13
waiting tiles), and a pon/kan's called tile is its plain tile.

Meld syntax: `TILES[:FROM[:CALLED]]`, e.g. `--pon 777z:across`, `--chi 345s:left:4s`,
`--kakan 9999p:right`, `--minkan 2222s:left`, `--ankan 1111m`; tiles may also be written one by
one (`7z7z7z`). FROM is `left` (kamicha), `across` (toimen) or `right` (shimocha); chi is always
from the left, and a pon/kan without FROM scores the same but cannot make anyone liable (pao).
CALLED defaults to the meld's tile for pon/kan (a plain one when the meld holds a red five) and
the lowest tile for chi; name it when it matters (`--pon 505p:left:0p`).
"""
from __future__ import annotations

import argparse
import json
import unicodedata
from typing import Any

from tsumo.cli import UsageError
from tsumo.context import SEATS, add_context_flags, context_from_args, count, split_tiles

MELD_KINDS = ("chi", "pon", "minkan", "kakan", "ankan")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "hand", help="score a hand written in MPSZ notation",
        description="Score one riichi-mahjong hand. Tiles in MPSZ notation (0 = red five, "
                    "1z-7z = E S W N haku hatsu chun).",
        epilog="example: tsumo hand 234m067p22z --win 2z --pon 777z:across --chi 345s:left --tsumo "
               "--round E --seat S --dora 3m",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("concealed", help="every tile not in a meld, winning tile included")
    p.add_argument("--win", metavar="TILE", help="the winning tile (default: the last tile written)")
    for kind in MELD_KINDS:
        hint = "TILES" if kind == "ankan" else "TILES[:FROM[:CALLED]]"
        p.add_argument(f"--{kind}", action=_MeldAction, dest="melds", default=[], metavar=hint,
                       help=f"{'an' if kind[0] in 'ae' else 'a'} {kind} (repeat for several)")
    p.add_argument("--nukidora", type=count, default=0, metavar="N", help="norths set aside (three-player)")
    p.add_argument("--liable", choices=SEATS, help="the seat liable for a yakuman (pao), when the melds' order "
                                                 "does not show it")
    p.add_argument("--robbed-kan", choices=("kakan", "ankan"), help="with --chankan: the robbed kan was added "
                                                                     "(default) or closed (kokushi only, some rules)")
    add_context_flags(p)
    p.add_argument("--json", action="store_true", help="print the result as CONTRACTS §2 JSON")
    p.set_defaults(run=run)


class _MeldAction(argparse.Action):
    """Collect every meld flag into one list, in command-line order: the order of calls matters
    (the last call completing a yakuman decides who is liable)."""

    def __call__(self, parser, namespace, values, option_string=None):
        melds = list(getattr(namespace, self.dest, None) or [])
        melds.append((option_string.lstrip("-"), values))
        setattr(namespace, self.dest, melds)


# ---- building the §1 object -----------------------------------------------------------------

def compact(tiles: list[str]) -> str:
    """['5z', '5z', '5z'] -> '555z' (same order, one suit letter per run)."""
    out, run_suit = "", ""
    for t in tiles:
        if t[-1] != run_suit and run_suit:
            out += run_suit
        out += t[:-1]
        run_suit = t[-1]
    return out + run_suit


def parse_meld(kind: str, spec: str) -> dict[str, Any]:
    """One `--pon 777z:across[:7z]`-style argument as a §1 meld object."""
    parts = spec.split(":")
    if kind == "ankan":
        if len(parts) != 1:
            raise UsageError(f"--ankan {spec}: a closed kan takes no direction, write just the tiles (e.g. 1111m)")
    elif len(parts) > 3:
        raise UsageError(f"--{kind} {spec}: expected TILES:FROM[:CALLED]")
    tiles = split_tiles(parts[0], f"--{kind}")
    meld: dict[str, Any] = {"kind": kind, "tiles": compact(tiles)}
    if kind == "ankan":
        return meld
    source = parts[1].strip().lower() if len(parts) > 1 and parts[1].strip() else None
    if source is None and kind == "chi":
        source = "left"
    if source is not None and source not in SEATS:
        raise UsageError(f"--{kind} {spec}: {source!r} is not left, across or right")
    if len(parts) == 3:
        called = split_tiles(parts[2], f"--{kind} CALLED")
        if len(called) != 1:
            raise UsageError(f"--{kind} {spec}: CALLED must be one tile")
        called_tile = called[0]
    elif kind == "chi":
        called_tile = min(tiles, key=lambda t: (t[-1], int(t[0]) or 5))
    else:
        plain = [t for t in tiles if not t.startswith("0")]
        called_tile = (plain or tiles)[0]
    meld["called"] = called_tile
    if source is not None:  # unknown direction: scored the same, only liability (pao) needs it
        meld["from"] = source
    return meld


def build_hand(args: argparse.Namespace) -> dict[str, Any]:
    """The CONTRACTS §1 object the flags describe."""
    concealed = split_tiles(args.concealed, "concealed tiles")
    win = split_tiles(args.win, "--win") if args.win else [concealed[-1]]
    if len(win) != 1:
        raise UsageError(f"--win: expected one tile, got {args.win!r}")
    melds = [parse_meld(kind, spec) for kind, spec in args.melds]
    written = args.concealed.replace(" ", "").replace(",", "")
    if args.win and len(concealed) == 13 - 3 * len(melds):
        # the 13 tiles of a waiting hand plus --win: the winning tile was not written, add it
        written = compact(concealed + win)
    obj: dict[str, Any] = {"concealed": written, "win_tile": win[0], "melds": melds,
                           **context_from_args(args), "nukidora": args.nukidora}
    if args.liable:
        obj["liable"] = args.liable
    if args.robbed_kan:
        obj["robbed_kan"] = args.robbed_kan
    return obj


# ---- printing -------------------------------------------------------------------------------

def describe_hand(obj: dict[str, Any]) -> str:
    parts = [obj["concealed"]]
    for m in obj["melds"]:
        where = f" from {m['from']}" if m.get("from") else ""
        parts.append(f"{m['kind']} {m['tiles']}{where}")
    return "  ".join(parts) + f"   win {obj['win_tile']} by {obj['win']}"


def format_result(obj: dict[str, Any], result: dict[str, Any]) -> str:
    """The §2 result as the few lines a player reads at the table."""
    lines = [describe_hand(obj)]
    seat = obj["seat_wind"]
    lines.append(f"round {obj['round_wind']}, seat {seat}{' (dealer)' if seat == 'E' else ''}, "
                 f"rules {result.get('rules') or _rules_name(obj['rules'])}")
    lines.append("")
    yaku = result.get("yaku") or []
    w_en = max([_width(str(y.get("name", ""))) for y in yaku] + [8])
    w_ja = max([_width(str(y.get("name_ja", ""))) for y in yaku] + [4])
    for y in yaku:
        if y.get("yakuman"):
            value = "yakuman" if y["yakuman"] == 1 else f"{y['yakuman']}x yakuman"
        else:
            value = f"{y.get('han', 0)} han"
        lines.append(f"  {_pad(str(y.get('name', '?')), w_en)}  {_pad(str(y.get('name_ja', '')), w_ja)}  {value}")
    lines.append("")
    limit = result.get("limit")
    if result.get("yakuman") and not result.get("kazoe"):
        head = limit or "yakuman"
    else:
        head = f"{result.get('han')} han {result.get('fu')} fu"
        if limit:
            head += f", {'kazoe ' if result.get('kazoe') else ''}{limit}"
    lines.append(head)
    details = result.get("fu_details") or []
    if details and not result.get("yakuman"):
        lines.append("  fu: " + " + ".join(f"{d['fu']} {d['reason']}" for d in details))
    payments = result.get("payments") or {}
    pays = ", ".join(f"{SEAT_LABEL.get(k, k)} pays {v}" for k, v in payments.items())
    lines.append(f"{result.get('points')} points; {pays or 'nobody pays'}")
    extra = []
    if result.get("honba_points"):
        extra.append(f"{result['honba_points']} for {obj.get('honba')} honba")
    if result.get("sticks_points"):
        extra.append(f"{result['sticks_points']} in riichi sticks")
    lines.append(f"winner collects {result.get('total')}" + (f" (with {' and '.join(extra)})" if extra else ""))
    if result.get("liability"):
        li = result["liability"]
        lines.append(f"liability (pao): {SEAT_LABEL.get(li.get('seat'), li.get('seat'))} for "
                     f"{', '.join(li.get('yakuman', []))}")
    for note in result.get("notes") or []:
        lines.append(f"note: {note}")
    return "\n".join(lines)


SEAT_LABEL = {"left": "left (kamicha)", "across": "across (toimen)", "right": "right (shimocha)"}


def _width(text: str) -> int:
    """Terminal columns: East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def _rules_name(rules: Any) -> str:
    if isinstance(rules, dict):
        changed = ", ".join(f"{k}={v}" for k, v in rules.items() if k != "preset")
        return f"{rules.get('preset')} ({changed})"
    return str(rules)


def run(args: argparse.Namespace) -> int:
    from scoring import score_json

    obj = build_hand(args)
    result = score_json(obj)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    if result.get("error"):
        raise UsageError(result["error"])
    if not args.json:
        print(format_result(obj, result))
    return 0
