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
        out = {"key": self.key, "name": self.name, "name_ja": self.name_ja, "han": self.han}
        if self.yakuman:
            out["yakuman"] = self.yakuman
        return out


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
        """`detail` = (fu breakdown function, groups function, their arguments), for the lazy fields."""
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
            self._fu_details = self._detail[0](*self._detail[2]) if self._detail else []
        return self._fu_details

    @property
    def groups(self) -> list[str]:
        """The chosen decomposition in MPSZ text: closed sets, the pair, then the melds."""
        if self._groups is None:
            self._groups = self._detail[1](*self._detail[2]) if self._detail else []
        return self._groups

    def __repr__(self) -> str:
        return f"Result(han={self.han}, fu={self.fu}, limit={self.limit!r}, points={self.points}, yaku={[y.key for y in self.yaku]})"

    def to_json(self) -> dict:
        fu_details, groups = self._fu_details, self._groups
        detail = self._detail
        if fu_details is None:
            fu_details = self._fu_details = detail[0](*detail[2]) if detail else []
        if groups is None:
            groups = self._groups = detail[1](*detail[2]) if detail else []
        yaku = []
        for y in self.yaku:  # YakuHit.to_json, inlined
            if y[4]:
                yaku.append({"key": y[0], "name": y[1], "name_ja": y[2], "han": y[3], "yakuman": y[4]})
            else:
                yaku.append({"key": y[0], "name": y[1], "name_ja": y[2], "han": y[3]})
        return {
            "han": self.han, "fu": self.fu, "yakuman": self.yakuman, "limit": self.limit,
            "points": self.points, "payments": dict(self.payments), "total": self.total,
            "yaku": yaku, "error": None,
            "fu_details": fu_details, "kazoe": self.kazoe, "dealer": self.dealer, "is_open": self.is_open,
            "win": self.win, "form": self.form, "groups": groups, "wait": self.wait,
            "base_points": self.base_points, "honba_points": self.honba_points, "sticks_points": self.sticks_points,
            "liability": self.liability, "rules": self.rules, "players": self.players, "notes": self.notes,
        }
