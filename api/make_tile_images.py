"""Build the phone page's tile pictures from the CC0 FluffyStuff art (run once; output committed).

    python -m api.make_tile_images [/path/to/shared/data/tiles/fluffystuff]

Each face (600×800, transparent) is laid on the blank tile front, shrunk to 80×106 and stored as
a small palette PNG named by its MPSZ code (`1m.png` … `0p.png`, `back.png`) in api/static/tiles/.
"""
from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

SIZE = (80, 106)
FACE_SCALE = 0.86  # a margin of front around each face, like a real tile's border
OUT = Path(__file__).resolve().parent / "static" / "tiles"
DEFAULT_SRC = Path(__file__).resolve().parents[2] / "shared" / "data" / "tiles" / "fluffystuff"
HONORS = ["Ton", "Nan", "Shaa", "Pei", "Haku", "Hatsu", "Chun"]
SUITS = {"m": "Man", "p": "Pin", "s": "Sou"}


def sources() -> dict[str, str]:
    """MPSZ code → FluffyStuff file stem."""
    names = {f"{n}{s}": f"{stem}{n}" for s, stem in SUITS.items() for n in range(1, 10)}
    names |= {f"0{s}": f"{stem}5-Dora" for s, stem in SUITS.items()}
    names |= {f"{i + 1}z": stem for i, stem in enumerate(HONORS)}
    return names


def build(src: Path, out: Path = OUT) -> list[Path]:
    regular = src / "Export" / "Regular"
    front = Image.open(regular / "Front.png").convert("RGBA")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for code, stem in sources().items():
        face = Image.open(regular / f"{stem}.png").convert("RGBA")
        w, h = front.size
        small = face.resize((int(w * FACE_SCALE), int(h * FACE_SCALE)), Image.LANCZOS)
        tile = front.copy()
        tile.alpha_composite(small, ((w - small.width) // 2, (h - small.height) // 2))
        written.append(_save(tile, out / f"{code}.png"))
    written.append(_save(Image.open(regular / "Back.png").convert("RGBA"), out / "back.png"))
    return written


def _save(tile: Image.Image, path: Path) -> Path:
    tile.resize(SIZE, Image.LANCZOS).quantize(colors=96, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)
    return path


if __name__ == "__main__":
    paths = build(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SRC)
    print(f"{len(paths)} tiles, {sum(p.stat().st_size for p in paths) / 1024:.0f} KiB in {OUT}")
