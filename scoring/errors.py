"""The one exception the engine raises for bad input.

Every problem with a hand, its context or a rule set is a `HandError`, and its message says
which part is wrong, so a user (or the photo reader) can fix exactly that part.
"""
from __future__ import annotations

# Messages quote the input at fault; a multi-megabyte value would be quoted whole (into a log line,
# a 422, a batch result). Past this length the middle of the message is cut: its start says what is
# wrong, its end what to do instead ("; choose from ...").
MAX_MESSAGE = 1000  # (the longest real message, the list of rule fields, is ~400)


def _cut(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    cut = len(message) - MAX_MESSAGE
    return f"{message[:600]} …({cut:,} characters cut)… {message[-300:]}"


class HandError(ValueError):
    """An input problem. `field` is the §1 key at fault (e.g. "concealed", "melds[1].tiles",
    "rules.kiriage"), or None when the problem is the hand as a whole."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(_cut(message))
        self.field = field

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    def __str__(self) -> str:  # "melds[1].tiles: a chi must be three consecutive tiles of one suit"
        msg = self.message
        return f"{self.field}: {msg}" if self.field else msg
