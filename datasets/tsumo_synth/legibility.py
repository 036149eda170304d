"""Which hand tiles of a rendered photo a person could read: the measuring set of the classifier's figures.

    python -m tsumo_synth.legibility cache/synth/det_test_h [more sets]

The renderer draws some tiles nobody can read: under 24 px, mostly hidden, or with a face whose print the
light, glare or blur washed out (thin pool-0 sticks under a bright lamp come out blank). Counting those as
classifier errors measures the renderer, not the model (the session-14 audit found 111 of the shipped model's
133 held-out errors unreadable by eye). This module writes, for a set, each tile's face-ink contrast
(`scene.render_hand_photo(ink=True)`: the photo rendered again with blank faces, same streams) into a sidecar
`ink.jsonl` (one line per photo, the set's `labels.jsonl` untouched), after checking that the re-render is the
stored photo byte for byte, and says which tiles are legible (`LEGIBLE_RULE`, fixed in session 15 before any
model was measured with it).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from vision.classes import BACK

# Fixed in session 15, before any classifier was measured with it: size and visibility are the eval's
# "degraded" rule of session 3; the ink floor from contact sheets of det_test_h's hand tiles by ink contrast
# (≥ 24 px, ≥ 0.7 visible): under 20 blank or a blur, 20–30 mostly unreadable, 30–40 mostly readable.
MIN_VISIBLE = 0.7
MIN_LONG_PX = 24.0
MIN_INK = 30.0
LEGIBLE_RULE = (f"visible share ≥ {MIN_VISIBLE}, box ≥ {MIN_LONG_PX:.0f} px on its long side and, for a face-up "
                f"tile that is not a white dragon, face-ink contrast ≥ {MIN_INK:.0f} grey levels")
INK_FILE = "ink.jsonl"

# Blur, a candidate for the owner (issue #3's question 2), fixed by eye in session 51 from contact sheets of
# tune10_x3's legible hand tiles bucketed by blur / long side, before the gate was read with it: motion blur
# 0.11-0.14 of the tile's long side leaves pins and sous readable and man numerals mostly, 0.14-0.18 man mostly
# not, 0.18-0.25 mostly nothing, more nothing; defocus up to 0.035 leaves everything readable, from 0.04 man
# numerals mostly not (pins, sous, honours still). The renderer records each photo's blur (`scene.lens`) since
# session 51; a set rendered before has none, and this rule then says nothing (None).
MOTION_SHARE = 0.18
MAN_DEFOCUS_SHARE = 0.04
BLUR_RULE = (f"motion blur under {MOTION_SHARE} of the tile's long side and, for a man tile, defocus sigma under "
             f"{MAN_DEFOCUS_SHARE} of it")
MAN_TILES = frozenset(f"{d}m" for d in range(10))


def legible(label: str, visible: float, long_px: float, ink: float | None) -> bool | None:
    """`LEGIBLE_RULE` for one hand tile; None when its ink was never measured. A face-down tile (`back`) or a
    white dragon (often printed blank) has no print to lose, so only its size and visibility count."""
    if visible < MIN_VISIBLE or long_px < MIN_LONG_PX:
        return False
    if label in (BACK, "5z"):
        return True
    return None if ink is None else ink >= MIN_INK


def blurred(label: str, long_px: float, lens: dict | None) -> bool | None:
    """Is the tile blurred past `BLUR_RULE` (the photo's `scene.lens`: kind none / motion length_px / defocus
    sigma_px)? None when the photo's blur was never recorded."""
    if lens is None:
        return None
    if lens.get("kind") == "motion":
        return lens["length_px"] >= MOTION_SHARE * long_px
    if lens.get("kind") == "defocus":
        return label in MAN_TILES and lens["sigma_px"] >= MAN_DEFOCUS_SHARE * long_px
    return False


def hand_tile_flags(tiles: list[dict], ink: list[float] | None, *, lens: dict | None = None,
                    blur: bool = False) -> list[bool | None]:
    """`legible` for each hand tile of a photo's labels (`tiles` and its `ink`, both in labels order; hand
    tiles in labels order), the size measured as `crops.photo_tile_crops` measures it: the long side of the
    tile's visible pixels in the hand's frame (the reader levels the row before it cuts the tiles).
    `blur`: also `BLUR_RULE` (the candidate), from the photo's `lens` (None for every tile without it)."""
    from .crops import frame_box, hand_frame

    order = sorted((t for t in tiles if t["in_hand"]), key=lambda t: t["index"])
    frame = hand_frame(order) if order else None
    ink = ink if ink is not None else [None] * len(tiles)
    out = []
    for t, k in zip(tiles, ink, strict=True):
        if t["in_hand"]:
            fb = frame_box(frame, t)
            long_px = float(max(fb[2] - fb[0], fb[3] - fb[1]))
            flag = legible(t["cls"], t["visible"], long_px, k)
            if blur and flag:
                b = blurred(t["cls"], long_px, lens)
                flag = None if b is None else not b
            out.append(flag)
    return out


def load_ink(set_dir: Path) -> dict[str, list[float]] | None:
    """image path → each labelled tile's ink (labels.jsonl order), or None when the set was never measured."""
    path = Path(set_dir) / INK_FILE
    if not path.is_file():
        return None
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {r["image"]: r["ink"] for r in rows}


def measure_set(set_dir: Path, *, shared: Path | None = None, quiet: bool = False) -> Path:
    """Write `ink.jsonl` for a `tsumo_synth.photos` set. Raises if a re-rendered photo is not the stored one
    (the set was written by another renderer version: its ink would describe other pixels)."""
    from .photos import PRESETS, face_source, render_one, stored_jpeg
    from .scene import SHARED_DIR

    set_dir = Path(set_dir)
    recipe = json.loads((set_dir / "manifest.json").read_text())["recipe"]
    artist = face_source(shared or SHARED_DIR, **recipe.get("faces", {}))
    preset = recipe.get("preset", "default")
    if preset not in PRESETS:
        raise ValueError(f"{set_dir}: unknown preset {preset!r}")
    rows = [json.loads(line) for line in (set_dir / "labels.jsonl").read_text().splitlines() if line.strip()]
    out, t0 = [], time.time()
    for n, row in enumerate(rows):
        i = int(Path(row["image"]).stem[1:])
        image, labels = render_one(i, recipe["seed"], artist=artist, preset=preset, scale=recipe.get("scale", 1.0),
                                   ink=True)
        if stored_jpeg(image) != (set_dir / row["image"]).read_bytes():
            raise RuntimeError(f"{set_dir / row['image']}: the re-render differs from the stored photo")
        if [t.cls for t in labels.tiles] != [t["cls"] for t in row["tiles"]]:
            raise RuntimeError(f"{set_dir / row['image']}: the re-render labels other tiles")
        out.append({"image": row["image"], "ink": [round(t.ink, 1) for t in labels.tiles]})
        if not quiet and (n + 1) % 50 == 0:
            print(f"{set_dir.name}: {n + 1}/{len(rows)} photos, {time.time() - t0:.0f}s", file=sys.stderr)
    path = set_dir / INK_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r) + "\n" for r in out))
    tmp.replace(path)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tsumo_synth.legibility", description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="+", type=Path, help="rendered set folders (manifest.json, labels.jsonl)")
    args = ap.parse_args(argv)
    for s in args.sets:
        if not (s / "manifest.json").is_file():
            ap.error(f"{s}: not a rendered set (no manifest.json)")
        try:
            print(measure_set(s))
        except RuntimeError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
