"""What scoring a hand gives back: the counted yaku and the result (CONTRACTS §2 plus the working)."""
from __future__ import annotations

from typing import NamedTuple


class YakuHit(NamedTuple):
    """One counted yaku (or dora entry) with the han it is worth in this hand."""

    key: str
    name: str
    name_ja: str
    han: int
    yakuman: int = 0

    def to_json(self) -> dict:
        template = _HIT_JSON.get(self)
        if template is None:
            template = {"key": self.key, "name": self.name, "name_ja": self.name_ja, "han": self.han}
            if self.yakuman:
                template["yakuman"] = self.yakuman
            if len(_HIT_JSON) > 4096:  # bounded: hits are few (table entries, dora counts) but any can be made
                _HIT_JSON.clear()
            _HIT_JSON[self] = template
        return template.copy()


_HIT_JSON: dict[YakuHit, dict] = {}  # a hit's JSON, copied for every result (YakuHits repeat: they come from tables)


class Result:
    """The score of one hand (CONTRACTS §2 plus the working). `fu_details` and `groups` (the
    chosen decomposition) are worked out when first read: most callers only want the points."""

    __slots__ = ("han", "fu", "yakuman", "limit", "points", "payments", "total", "yaku", "kazoe", "dealer",
                 "is_open", "win", "form", "wait", "base_points", "honba_points", "sticks_points", "liability",
                 "rules", "players", "notes", "_detail", "_fu_details", "_groups")

    def __init__(self, han: int, fu: int, yakuman: int, limit: str | None, points: int, payments: dict[str, int],
                 total: int, yaku: list[YakuHit], *, kazoe: bool = False, dealer: bool = False, is_open: bool = False,
                 win: str = "ron", form: str = "standard", wait: str | None = None, base_points: int = 0,
                 honba_points: int = 0, sticks_points: int = 0, liability: dict | None = None, rules: str = "",
                 players: int = 4, notes: list[str] | None = None, fu_details: list[dict] | None = None,
                 groups: list[str] | None = None, detail: tuple | None = None) -> None:
        """`detail` = (fu breakdown function, groups function, the argument both take), for the lazy fields."""
        self.han, self.fu, self.yakuman, self.limit = han, fu, yakuman, limit
        self.points, self.payments, self.total, self.yaku = points, payments, total, yaku
        self.kazoe, self.dealer, self.is_open, self.win, self.form, self.wait = kazoe, dealer, is_open, win, form, wait
        self.base_points, self.honba_points, self.sticks_points = base_points, honba_points, sticks_points
        self.liability, self.rules, self.players = liability, rules, players
        self.notes = notes if notes is not None else []
        self._fu_details, self._groups, self._detail = fu_details, groups, detail

    @property
    def fu_details(self) -> list[dict]:
        """The fu breakdown of the chosen reading ({"fu", "reason"} items, before rounding)."""
        if self._fu_details is None:
            self._fu_details = self._detail[0](self._detail[2]) if self._detail else []
        return self._fu_details

    @property
    def groups(self) -> list[str]:
        """The chosen decomposition in MPSZ text: closed sets, the pair, then the melds."""
        if self._groups is None:
            self._groups = self._detail[1](self._detail[2]) if self._detail else []
        return self._groups

    def __repr__(self) -> str:
        return f"Result(han={self.han}, fu={self.fu}, limit={self.limit!r}, points={self.points}, yaku={[y.key for y in self.yaku]})"

    def to_json(self) -> dict:
        fu_details, groups = self._fu_details, self._groups
        detail = self._detail
        if fu_details is None:
            fu_details = self._fu_details = detail[0](detail[2]) if detail else []
        if groups is None:
            groups = self._groups = detail[1](detail[2]) if detail else []
        yaku = []
        hit_json = _HIT_JSON
        for y in self.yaku:
            template = hit_json.get(y)
            yaku.append(template.copy() if template is not None else y.to_json())
        # a copy of the key order with its usual values, then what differs (cheaper than a display)
        out = _JSON_TEMPLATE.copy()
        out["han"] = self.han
        out["fu"] = self.fu
        out["yakuman"] = self.yakuman
        if self.limit is not None:
            out["limit"] = self.limit
        out["points"] = self.points
        out["payments"] = dict(self.payments)
        out["total"] = self.total
        out["yaku"] = yaku
        out["fu_details"] = fu_details
        if self.kazoe is not False:
            out["kazoe"] = self.kazoe
        if self.dealer is not False:
            out["dealer"] = self.dealer
        if self.is_open is not False:
            out["is_open"] = self.is_open
        out["win"] = self.win
        out["form"] = self.form
        out["groups"] = groups
        out["wait"] = self.wait
        out["base_points"] = self.base_points
        out["honba_points"] = self.honba_points
        out["sticks_points"] = self.sticks_points
        if self.liability is not None:
            out["liability"] = self.liability
        out["rules"] = self.rules
        out["players"] = self.players
        out["notes"] = self.notes
        return out


# the §2 keys in contract order (extras after `error`); to_json copies it and fills it in
_JSON_TEMPLATE = {"han": 0, "fu": 0, "yakuman": 0, "limit": None, "points": 0, "payments": None, "total": 0,
                  "yaku": None, "error": None, "fu_details": None, "kazoe": False, "dealer": False, "is_open": False,
                  "win": None, "form": None, "groups": None, "wait": None, "base_points": 0, "honba_points": 0,
                  "sticks_points": 0, "liability": None, "rules": None, "players": None, "notes": None}
