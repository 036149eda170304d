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
