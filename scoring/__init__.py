"""The scoring engine: a winning riichi-mahjong hand + context + rule set -> yaku, fu, points.

Pure Python, no heavy dependencies. The public API below is kept stable for the CLI, the HTTP
API, the photo and audit pipelines and the tests; see docs/scoring.md.

    score_json(obj) -> dict          CONTRACTS §1 in, §2 out, never raises
    Hand.from_json(obj) -> Hand      read and check a §1 hand (HandError naming the field)
    resolve_rules(spec) -> Rules     preset name, {"preset": ..., **overrides}, Rules or None
    score(hand, rules) -> Result     Result.to_json() is the §2 object
"""
from .contract import score_json
from .engine import Result, YakuHit, score
from .errors import HandError
from .hand import Hand, Meld
from .rules import PRESETS, Rules, resolve_rules
from .tiles import Tile, format_tiles, parse_tiles

__all__ = ["HandError", "Rules", "PRESETS", "resolve_rules", "Hand", "Meld", "score", "score_json", "parse_tiles",
           "format_tiles", "Tile", "Result", "YakuHit"]
