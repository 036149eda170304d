"""The one exception the engine raises for bad input.

Every problem with a hand, its context or a rule set is a `HandError`, and its message says
which part is wrong, so a user (or the photo reader) can fix exactly that part.
"""
from __future__ import annotations


class HandError(ValueError):
    """An input problem. `field` is the §1 key at fault (e.g. "concealed", "melds[1].tiles",
    "rules.kiriage"), or None when the problem is the hand as a whole."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    def __str__(self) -> str:  # "melds[1].tiles: a chi must be three consecutive tiles of one suit"
        msg = self.message
        return f"{self.field}: {msg}" if self.field else msg
