"""Small readers of §2 results shared by the seed tests."""
from __future__ import annotations

from scoring import score_json


def ok(obj: dict) -> dict:
    """Score `obj`, failing the test if the engine refuses it."""
    res = score_json(obj)
    assert res["error"] is None, f"{res['error']} for {obj}"
    return res


def keys(res: dict) -> list[str]:
    return [y["key"] for y in res["yaku"]]


def han_of(res: dict, key: str) -> int:
    return next(y["han"] for y in res["yaku"] if y["key"] == key)
