"""The tile classes every model and label in Tsumo uses, in the classifier's output order."""
from __future__ import annotations

SUITS = "mps"
TILE_CLASSES: tuple[str, ...] = (
    tuple(f"{n}{s}" for s in SUITS for n in range(1, 10))
    + tuple(f"{n}z" for n in range(1, 8))
    + ("0m", "0p", "0s", "back")
)
CLASS_INDEX: dict[str, int] = {name: i for i, name in enumerate(TILE_CLASSES)}
BACK = "back"
RED_FIVES = ("0m", "0p", "0s")


def plain(label: str) -> str:
    """Red five → five (for comparing tiles)."""
    return "5" + label[1] if label[0] == "0" else label


# Faces that look the same turned half a turn: they cannot say which way up a row is. The red
# fives are in: their five circles/sticks are symmetric and the dot, where printed, is small.
HALF_TURN_SYMMETRIC: frozenset[str] = frozenset(
    {"1p", "2p", "3p", "4p", "5p", "8p", "9p", "2s", "4s", "5s", "6s", "8s", "9s", "5z", "0p", "0s"})
