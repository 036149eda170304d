"""The scoring engine: a winning riichi-mahjong hand + context + rule set -> yaku, fu, points.

Pure Python, no heavy dependencies. Public API (kept stable for the CLI, the API and the tests):
"""
from .contract import score_json
from .engine import Result, YakuHit, score
from .errors import HandError
from .hand import Hand, Meld
from .rules import PRESETS, Rules, resolve_rules
from .tiles import Tile, format_tiles, parse_tiles

__all__ = ["HandError", "Rules", "PRESETS", "resolve_rules", "Hand", "Meld", "score", "score_json", "parse_tiles",
           "format_tiles", "Tile", "Result", "YakuHit"]
