"""`tsumo rules [NAME]` — the rule-set presets and what each of their fields means.

Without a name: one line per preset (name, players, what sets it apart). With a name: every
field of the resolved `scoring.Rules`, its value and its documentation (the field's
`metadata["doc"]`), so a user can see exactly what a preset does and which `--rule FIELD=VALUE`
overrides exist. `--rule` here shows the result of overrides without scoring anything.
"""
from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import textwrap
from typing import Any

from tsumo.cli import UsageError

# Fields that say *what* a preset is rather than how it scores: never shown as differences.
_DESCRIPTIVE = {"name", "title", "summary", "description", "source", "doc", "notes"}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "rules", help="list rule-set presets, or show every field of one",
        description="Without NAME: the presets. With NAME: each rule field, its value and what it means.")
    p.add_argument("name", nargs="?", metavar="NAME", help="a preset name (see the list)")
    p.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE",
                   help="apply an override before showing (repeatable)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(run=run)


def jsonable(value: Any) -> Any:
    """Rule values as plain JSON (tuples, sets, enums and nested dataclasses included)."""
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (frozenset, set)):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def field_rows(rules: Any) -> list[dict[str, Any]]:
    return [{"field": f.name, "value": jsonable(getattr(rules, f.name)),
             "doc": str(f.metadata.get("doc", "")).strip()}
            for f in dataclasses.fields(rules)]


def players_of(rules: Any) -> Any:
    for name in ("players", "num_players", "player_count"):
        if hasattr(rules, name):
            return getattr(rules, name)
    return None


def summary_of(name: str, rules: Any, base: Any) -> str:
    """The preset's one-line description (`scoring.rules.SUMMARIES`), else how it differs from `base`."""
    from scoring import rules as rules_mod

    text = getattr(rules_mod, "SUMMARIES", {}).get(name)
    if isinstance(text, str) and text.strip():
        return " ".join(text.split())
    if base is None or rules == base:
        return "reference rule set" if rules == base else ""
    diffs = []
    for f in dataclasses.fields(rules):
        if f.name in _DESCRIPTIVE:
            continue
        value, ref = getattr(rules, f.name), getattr(base, f.name, None)
        if value != ref:
            diffs.append(f"{f.name}={_short(jsonable(value))}")
    return "differs from tenhou: " + ", ".join(diffs) if diffs else "same scoring as tenhou"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 24 else text[:21] + "..."


def _resolve(name: str, overrides: list[str]) -> Any:
    from scoring import HandError, resolve_rules
    from tsumo.context import build_rules

    spec = build_rules(name, overrides)
    try:
        return resolve_rules(spec)
    except HandError as exc:
        raise UsageError(str(exc)) from None
    except (TypeError, ValueError) as exc:  # a bad override value the engine did not wrap
        raise UsageError(f"rules {name}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from scoring import PRESETS

    if args.name is None:
        if args.rule:
            raise UsageError("--rule needs a preset NAME to apply to")
        base = PRESETS.get("tenhou")
        rows = [{"name": name, "players": jsonable(players_of(rules)),
                 "summary": summary_of(name, rules, base)} for name, rules in PRESETS.items()]
        if args.json:
            print(json.dumps(rows, ensure_ascii=False, indent=2))
            return 0
        width = max(len(r["name"]) for r in rows)
        for r in rows:
            lead = f"{r['name']:<{width}}  {r['players'] or '?'}p  "
            body = textwrap.wrap(r["summary"], width=100 - len(lead)) or [""]
            print(lead + body[0])
            for more in body[1:]:
                print(" " * len(lead) + more)
        print("\n`tsumo rules NAME` shows every field; `--rule FIELD=VALUE` overrides one.")
        return 0

    if args.name not in PRESETS:
        raise UsageError(f"unknown rule set {args.name!r}; presets: {', '.join(PRESETS)}")
    rules = _resolve(args.name, args.rule)
    rows = field_rows(rules)
    if args.json:
        print(json.dumps({"name": args.name, "overrides": [r for r in args.rule],
                          "rules": {r["field"]: r["value"] for r in rows},
                          "docs": {r["field"]: r["doc"] for r in rows}}, ensure_ascii=False, indent=2))
        return 0
    print(f"{args.name}" + (f" with {', '.join(args.rule)}" if args.rule else ""))
    width = max(len(r["field"]) for r in rows)
    for r in rows:
        value = r["value"] if isinstance(r["value"], str) else json.dumps(r["value"], ensure_ascii=False)
        print(f"  {r['field']:<{width}}  {value}")
        for line in textwrap.wrap(r["doc"], width=96 - width):
            print(" " * (width + 6) + line)
    return 0
