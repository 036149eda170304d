"""`tsumo score PHOTO` — read a photo of a winning hand and score it.

The photo gives the tiles, the melds and who each was called from; the flags give what a photo
cannot show (round and seat wind, dora indicators, riichi, tsumo or ron, counters). The context
flags are `tsumo.context`'s, so `hand`, `score` and `audit` take the same words.
"""
from __future__ import annotations

import argparse
import json
import sys

from tsumo.cli import UsageError
from tsumo.commands.hand import format_result
from tsumo.commands.read import (add_reader_flags, check_annotate_path, describe_reading, load_photo,
                                 make_reader, write_annotated)
from tsumo.context import add_context_flags, checked_rules, context_from_args, split_tiles


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "score", help="score the hand in a photo",
        description="Read a photo of a winning riichi-mahjong hand and score it. The photo gives "
                    "the tiles and melds; the flags give the rest of the situation.",
        epilog="example: tsumo score hand.jpg --rules tenhou --round E --seat S --tsumo --dora 3m "
               "--annotate hand.annotated.jpg",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("photo", help="JPEG, PNG, WebP or HEIC photo")
    p.add_argument("--win", metavar="TILE", help="the winning tile, when the photo does not show it apart "
                                                 "(one of the closed tiles, or the tile a 13-tile hand waits on)")
    add_context_flags(p, discarder_help="who dealt in (ron)")
    p.add_argument("--annotate", metavar="OUT", help="also write the photo with the reading drawn on it")
    p.add_argument("--json", action="store_true",
                   help='print {"reading": …, "hand": §1, "result": §2, "error": why not scored or null} as one JSON object')
    add_reader_flags(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from scoring import score_json

    ctx = context_from_args(args)  # bad flags fail before the (slow) photo reading
    players = checked_rules(ctx["rules"], players=args.players)  # before the photo is read
    win = None
    if args.win:
        tiles = split_tiles(args.win, "--win")
        if len(tiles) != 1:
            raise UsageError(f"--win: expected one tile, got {args.win!r}")
        win = tiles[0]
    if args.annotate:
        check_annotate_path(Path(args.annotate), Path(args.photo))
    image = load_photo(Path(args.photo))
    reader = make_reader(args)
    reading = reader.read(image, players=players)
    annotate_failed = False
    if args.annotate:
        try:
            write_annotated(Path(args.annotate), image, reading)
        except UsageError as exc:  # the reading and the score are still worth printing
            print(f"tsumo: error: {exc}", file=sys.stderr)
            annotate_failed = True
    if not args.json:
        print(describe_reading(reading))
        print()

    def no_score(message: str) -> UsageError:
        if args.json:  # scripts get the reading whatever went wrong after it
            print(json.dumps({"reading": reading.to_json(), "hand": None, "result": None, "error": message},
                             ensure_ascii=False))
        return UsageError(message)

    if win is not None:
        try:
            hand = reading.hand_with_win(win)
        except ValueError as exc:
            raise no_score(f"--win {win}: {exc}") from None
    elif reading.hand is not None:
        hand = dict(reading.hand)
    else:
        raise no_score(reading.error or "no hand could be read in the photo")
    obj = {**hand, **ctx}
    result = score_json(obj)
    if args.json:
        print(json.dumps({"reading": reading.to_json(), "hand": obj, "result": result, "error": result.get("error")},
                         ensure_ascii=False))
    if result.get("error"):
        raise UsageError(result["error"])
    if not args.json:
        print(format_result(obj, result))
    return 2 if annotate_failed else 0
