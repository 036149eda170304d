"""JSON parsing that refuses what `json.loads` lets through quietly: a key given twice in one
object (the last one silently wins) and nesting deep enough to blow the parser's stack.

No hand object nests more than a few levels, so a low depth cap costs nothing.
Used wherever a §1 hand arrives as JSON text: `tsumo batch` lines, `--rule` values, and the API
(`api.strict_json.StrictJsonRoute` makes FastAPI parse a route's body with it).
"""
from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 32
TOO_DEEP = f"the JSON is nested too deeply (the limit is {MAX_DEPTH} levels)"


class JsonProblem(ValueError):
    """What is wrong and where (`loc`: keys and list indexes from the top, as in a 422)."""

    def __init__(self, kind: str, loc: tuple[Any, ...], message: str):
        super().__init__(message)
        self.kind = kind
        self.loc = loc


def not_utf8(exc: UnicodeDecodeError) -> str:
    """`not UTF-8 text (byte 0xe9 at position 12)`: the one way a JSON text's bad bytes are named."""
    return f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at position {exc.start})"


class _Pairs(list):
    """An object's (key, value) pairs in order, duplicates kept, so they can be found."""


def loads(text: str | bytes) -> Any:
    """`json.loads(text)` with duplicate keys and nesting over `MAX_DEPTH` raised as `JsonProblem`;
    invalid JSON still raises `json.JSONDecodeError`."""
    try:
        raw = json.loads(text, object_pairs_hook=_Pairs)
    except RecursionError:
        raise JsonProblem("json_too_deep", (), TOO_DEEP) from None
    return _plain(raw)


def _plain(raw: Any) -> Any:
    """`_Pairs` → dicts, checking keys; iterative, so depth cannot exhaust the stack here either."""
    root: list[Any] = [None]
    stack: list[tuple[Any, list[Any] | dict[Any, Any], Any, tuple[Any, ...]]] = [(raw, root, 0, ())]
    while stack:
        node, parent, slot, loc = stack.pop()
        if len(loc) > MAX_DEPTH:
            raise JsonProblem("json_too_deep", (), TOO_DEEP)
        if isinstance(node, _Pairs):
            out: dict[str, Any] = {}
            for key, value in node:
                if key in out:
                    raise JsonProblem("duplicate_key", (*loc, key), f"the key {key!r} is given twice; give it once")
                out[key] = None
                stack.append((value, out, key, (*loc, key)))
            parent[slot] = out
        elif isinstance(node, list):
            items: list[Any] = [None] * len(node)
            for i, value in enumerate(node):
                stack.append((value, items, i, (*loc, i)))
            parent[slot] = items
        else:
            parent[slot] = node
    return root[0]
