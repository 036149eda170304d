"""The scoring context flags shared by `tsumo hand`, `tsumo score` and `tsumo audit`.

A photo (or a typed hand) gives the tiles; these flags give what no photo shows: how the hand
was won, the winds, dora indicators, riichi and the other situational yaku, counters, rules.
One definition here keeps the three commands speaking the same words. `tsumo audit` adds them
with `unset=True` and reads back only what the user gave, because a `--declared` row fills the rest.
"""
from __future__ import annotations

import argparse
from typing import Any

from scoring import strict_json
from scoring.errors import HandError
from scoring.tiles import WIND_NAMES, parse_tiles
from scoring.tiles import parse_wind as engine_wind
from tsumo.cli import UsageError

SEATS = ("left", "across", "right")
FLAG_HELP = {
    "riichi": "declared riichi", "double-riichi": "double riichi (riichi on the first turn)",
    "ippatsu": "won within one turn of riichi", "rinshan": "won on the replacement tile of a kan",
    "chankan": "won by robbing a kan", "haitei": "tsumo on the last tile of the wall",
    "houtei": "ron on the last discard", "tenhou": "dealer's win on the dealt hand",
    "chiihou": "non-dealer's win on the first draw",
    "renhou": "non-dealer's ron before the first draw",
}


def count(text: str) -> int:
    """argparse type: a whole number ≥ 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def add_context_flags(p: "argparse.ArgumentParser | argparse._ArgumentGroup",
                      discarder_help: str = "who dealt in (ron): needed for liability and 3-player payments",
                      *, unset: bool = False) -> None:
    """Add --ron/--tsumo, --round, --seat, --dora, --ura, the situational flags, --honba,
    --sticks, --discarder, --players, --rules and --rule. With `unset`, round, seat and the
    counters default to None, so `context_from_args(only_given=True)` can leave them out."""
    how = p.add_mutually_exclusive_group()
    how.add_argument("--ron", dest="win_kind", action="store_const", const="ron", help="won on a discard (default)")
    how.add_argument("--tsumo", dest="win_kind", action="store_const", const="tsumo", help="won on a self-draw")
    p.add_argument("--round", default=None if unset else "E", metavar="WIND", help="round wind E/S/W/N (default E)")
    p.add_argument("--seat", default=None if unset else "E", metavar="WIND",
                   help="seat wind E/S/W/N (default E = dealer)")
    p.add_argument("--dora", action="append", default=[], metavar="TILES", help="dora indicator(s)")
    p.add_argument("--ura", action="append", default=[], metavar="TILES", help="ura-dora indicator(s)")
    for flag, text in FLAG_HELP.items():
        p.add_argument(f"--{flag}", action="store_true", help=text)
    p.add_argument("--honba", type=count, default=None if unset else 0, metavar="N", help="honba counters on the table")
    p.add_argument("--sticks", type=count, default=None if unset else 0, metavar="N",
                   help="riichi sticks on the table (kyotaku)")
    p.add_argument("--discarder", choices=SEATS, help=discarder_help)
    p.add_argument("--players", type=int, choices=(3, 4), help="number of players (default: the rule set's)")
    p.add_argument("--rules", default="tenhou", metavar="PRESET", help="rule set (see `tsumo rules`; default tenhou)")
    p.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE",
                   help="override one rule field, e.g. --rule kiriage=true (repeatable)")


def context_from_args(args: argparse.Namespace, *, only_given: bool = False) -> dict[str, Any]:
    """The CONTRACTS §1 keys the context flags give. With `only_given` (flags added with
    `unset=True`), only `rules` and the keys the user set: the caller fills the rest."""
    obj: dict[str, Any] = {
        "rules": build_rules(args.rules, args.rule),
        "win": args.win_kind or "ron",
        "round_wind": None if args.round is None else parse_wind(args.round, "--round"),
        "seat_wind": None if args.seat is None else parse_wind(args.seat, "--seat"),
        "dora_indicators": [t for spec in args.dora for t in split_tiles(spec, "--dora")],
        "ura_indicators": [t for spec in args.ura for t in split_tiles(spec, "--ura")],
        "honba": args.honba, "kyotaku": args.sticks,
    }
    for flag in FLAG_HELP:
        obj[flag.replace("-", "_")] = bool(getattr(args, flag.replace("-", "_")))
    if args.discarder:
        if args.win_kind == "tsumo":
            raise UsageError("--discarder only makes sense with --ron")
        obj["discarder"] = args.discarder
    if args.players:
        obj["players"] = args.players
    if only_given:
        if args.win_kind is None:
            del obj["win"]
        obj = {k: v for k, v in obj.items() if v is not None and v is not False and v != []}
    return obj


def split_tiles(text: str, what: str) -> list[str]:
    """`35m7z` -> ['3m', '5m', '7z'] (the engine's MPSZ parser: `3m5m`, spaces and `,` too)."""
    try:
        tiles = parse_tiles(text)
    except HandError as exc:
        raise UsageError(f"{what}: {exc.message}") from None
    if not tiles:
        raise UsageError(f"{what}: {text!r} names no tile (MPSZ notation, e.g. 3m, 0p, 7z, 35m)")
    return [str(t) for t in tiles]


def parse_wind(text: str, what: str) -> str:
    """`E`, `east`, `1z`… → "E" (the engine's wind names)."""
    try:
        return WIND_NAMES[engine_wind(text, what)]
    except HandError:
        raise UsageError(f"{what}: {text!r} is not a wind (E, S, W or N)") from None


def parse_rule_value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:  # (strict: nesting deep enough to blow json's stack was a traceback)
        return strict_json.loads(text)
    except ValueError:  # not JSON (or absurd JSON): the text itself, which the rule's type check names
        return text


def checked_rules(rules: "str | dict", *, players: int | None = None, where: str | None = None) -> int:
    """Resolve the rule set the flags name, so a bad `--rules`/`--rule` fails before any slow work (a photo
    read, a video scanned, a file of hands scored to the same error), and refuse `--players` that contradict
    it (every hand would score as an error). Returns the rule set's player count. `where`: what to name in
    the message (default `--rule` for overrides, else `--rules`)."""
    from scoring.rules import resolve_rules

    try:
        resolved = resolve_rules(rules)
    except HandError as exc:  # an override's message keeps its field name; a preset's would repeat "rules"
        overrides = isinstance(rules, dict)
        raise UsageError(f"{where or ('--rule' if overrides else '--rules')}: "
                         f"{exc if overrides else exc.message}") from None
    if players and players != resolved.players:
        name = rules.get("preset") if isinstance(rules, dict) else rules
        raise UsageError(f"--players {players}: the rule set {name!r} is for {resolved.players} players")
    return resolved.players


def build_rules(preset: str, overrides: list[str]) -> Any:
    """`--rules P --rule k=v …` as the §1 `rules` value: the preset name, or an object."""
    if not overrides:
        return preset
    rules: dict[str, Any] = {"preset": preset}
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--rule {item}: expected FIELD=VALUE, e.g. kiriage=true")
        rules[key.strip()] = parse_rule_value(value)
    return rules
