"""CONTRACTS §1 in, §2 out, never raising: the one call every front end uses."""
from __future__ import annotations

from typing import Any

from .engine import score
from .errors import HandError
from .hand import Hand
from .rules import PRESETS, resolve_rules

_EMPTY = {"han": 0, "fu": 0, "yakuman": 0, "limit": None, "points": 0, "payments": {}, "total": 0, "yaku": []}


def score_json(obj: Any) -> dict:
    """Score a §1 hand object. Bad input gives `{"error": "...", "error_field": ...}` (with `id`
    echoed), never an exception; an unexpected engine failure is reported the same way."""
    is_dict = isinstance(obj, dict)
    ident = obj.get("id") if is_dict else None
    try:
        spec = obj.get("rules") if is_dict else None
        rules = PRESETS.get(spec) if type(spec) is str else None  # a preset name: resolve_rules, inlined
        if rules is None:
            rules = resolve_rules(spec)
        hand = Hand.from_json(obj)
        out = score(hand, rules).to_json()
    except HandError as exc:
        out = dict(_EMPTY, yaku=[], payments={}, error=str(exc), error_field=exc.field)
    except RecursionError:  # pragma: no cover - deeply nested junk
        out = dict(_EMPTY, yaku=[], payments={}, error="input too deeply nested", error_field=None)
    except Exception as exc:  # noqa: BLE001 - the contract is "never raises"; say it was our fault
        out = dict(_EMPTY, yaku=[], payments={}, error=f"internal error ({type(exc).__name__}: {exc}); "
                                                       "please report this hand", error_field=None)
    if ident is not None:
        out = {"id": ident, **out}
    return out
