"""Rendered photos turned so the hand row is level, as the reader turns a photo before its second
detection pass (`vision.recognize`), with every tile's tight box in the turned copy.

Why: the reader finds the hand row on the photo, turns the photo so the row is level (on a square
canvas of the photo's diagonal) and detects again; the boxes of that pass are the ones it reads.
So the detector is measured — and trained — on such turned copies too. A turned axis-aligned box
is loose; the box of the turned hull of the tile's visible pixels (`TileLabel.hull`) is tight.

    python -m tsumo_synth.turn --src cache/synth/det_v2 --out cache/synth/det_v2_level

writes a YOLO dataset (images/, labels/, labels.jsonl) of the turned copies of the photos of
`--src` whose hand row is tilted more than `--min-angle` degrees (a level row's copy would add
little but the black corners).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

MAX_SIDE = 1600  # vision.recognize shrinks the photo to this long side before turning it


def closed_row(tiles: list[dict]) -> list[dict]:
    """The labelled closed hand row, first tile to last (stacked tiles left out)."""
    return sorted((t for t in tiles if t["in_hand"] and t["group"] == 0 and not t["stacked"]), key=lambda t: t["index"])


def line_direction(row: list[dict]) -> float | None:
    """Direction of the line through these tiles' box centres (radians, image axes with y down),
    pointing from the first tile to the last; None under 3 tiles."""
    if len(row) < 3:
        return None
    c = np.array([[(t["box"][0] + t["box"][2]) / 2, (t["box"][1] + t["box"][3]) / 2] for t in row])
    _, _, vt = np.linalg.svd(c - c.mean(0))
    d = vt[0]
    if np.dot(c[-1] - c[0], d) < 0:
        d = -d
    return float(np.arctan2(d[1], d[0]))


def row_angle(tiles: list[dict]) -> float | None:
    """Direction of the closed hand row in the photo (radians, image axes with y down), pointing
    from the hand's first tile to its last; None when the closed part has fewer than 3 tiles."""
    return line_direction(closed_row(tiles))


def tile_boxes(tiles: list[dict], to_pixels, pad: float) -> np.ndarray:
    """Each tile's box after mapping its photo points with `to_pixels` (N×2 → N×2): the box of its
    mapped visible hull widened by `pad` (the hull runs through pixel centres: half a pixel's
    mapped extent), or of its mapped box corners when it has no hull."""
    boxes = []
    for t in tiles:
        pts = np.array(t.get("hull") or [], float).reshape(-1, 2)
        p = pad
        if len(pts) == 0:
            x1, y1, x2, y2 = t["box"]
            pts, p = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], float), 0.0
        q = to_pixels(pts)
        boxes.append([q[:, 0].min() - p, q[:, 1].min() - p, q[:, 0].max() + p, q[:, 1].max() + p])
    return np.array(boxes, float).reshape(-1, 4)


def turn_level(img: np.ndarray, tiles: list[dict], angle: float, max_side: int = MAX_SIDE
               ) -> tuple[np.ndarray, np.ndarray]:
    """(turned image, N×4 boxes): the photo shrunk to `max_side`, turned by −`angle` about its
    centre onto a square canvas of its diagonal (as `vision.recognize` does), and each tile's box
    there — the box of its turned visible hull, or of its turned box corners when it has no hull."""
    h, w = img.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    if scale < 1:
        img = cv2.resize(img, (max(1, int(w * scale)), max(1, int(h * scale))), interpolation=cv2.INTER_AREA)
    side = int(np.ceil(np.hypot(img.shape[0], img.shape[1])))
    c, s = np.cos(-angle), np.sin(-angle)
    rot = np.array([[c, -s], [s, c]])
    centre = np.array([w / 2, h / 2])
    half = np.array([side / 2, side / 2])
    m = np.hstack([scale * rot, (half - scale * (rot @ centre))[:, None]])  # photo pixels -> canvas
    m_small = np.hstack([rot, (half - rot @ (centre * scale))[:, None]])  # shrunk photo -> canvas
    turned = cv2.warpAffine(img, m_small, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    boxes = tile_boxes(tiles, lambda pts: pts @ m[:, :2].T + m[:, 2], 0.5 * (abs(c) + abs(s)) * scale)
    return turned, np.clip(boxes, 0, side)


def read_rows(src: Path) -> list[dict]:
    """A `tsumo_synth.photos` set's label rows; of a set still being rendered, the photos done so far
    (each meta file is written last)."""
    if (src / "labels.jsonl").is_file():
        return [json.loads(line) for line in (src / "labels.jsonl").read_text().splitlines() if line.strip()]
    return [json.loads(p.read_text()) for p in sorted((src / "meta").glob("*.json"))]


def write_example(out: Path, row: dict, name: str, image: np.ndarray, boxes: np.ndarray, labelled: Sequence[bool],
                  listed: Sequence[bool] | None = None, **extra) -> dict:
    """Write an image made from a rendered photo (JPEG) with its YOLO labels (the `boxes` where
    `labelled`), and return its labels.jsonl row: the photo's, its tiles (those `listed`; all by
    default) boxed anew, their hulls and quads dropped (they were the photo's), plus `extra`."""
    split = row.get("split", "train")
    (out / "images" / split).mkdir(parents=True, exist_ok=True)
    (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    h, w = image.shape[:2]
    lines = [f"0 {(b[0] + b[2]) / 2 / w:.6f} {(b[1] + b[3]) / 2 / h:.6f} {(b[2] - b[0]) / w:.6f} {(b[3] - b[1]) / h:.6f}"
             for b, keep in zip(boxes, labelled) if keep]
    (out / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    listed = [True] * len(boxes) if listed is None else listed
    tiles = [{**t, "box": [round(float(v), 2) for v in b], "hull": [], "quad": []}
             for t, b, keep in zip(row["tiles"], boxes, listed) if keep]
    return {**row, "image": f"images/{split}/{name}.jpg", "tiles": tiles, "width": w, "height": h, **extra}


def write_rows(out: Path, rows: list[dict]) -> int:
    """labels.jsonl of a derived set; returns how many rows."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "labels.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return len(rows)


def write_level_copies(src: Path, out: Path, *, min_angle: float = 3.0, min_side: float = 3.0) -> int:
    """Turned copies of a `tsumo_synth.photos` dataset (labels with hulls). Returns photos written."""
    out_rows = []
    for row in read_rows(src):
        if not all(t.get("hull") for t in row["tiles"]):
            raise SystemExit(f"{src}: labels without hulls (rendered before hulls were recorded); render again")
        angle = row_angle(row["tiles"])
        if angle is None or abs(np.degrees(angle)) < min_angle:
            continue
        img = cv2.imread(str(src / row["image"]))
        turned, boxes = turn_level(img, row["tiles"], angle)
        big = [min(b[2] - b[0], b[3] - b[1]) >= min_side for b in boxes]
        out_rows.append(write_example(out, row, Path(row["image"]).stem + "_level", turned, boxes, big,
                                      turned_deg=round(float(np.degrees(-angle)), 2)))
    return write_rows(out, out_rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tsumo_synth.turn", description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, required=True, help="a tsumo_synth.photos dataset")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--min-angle", type=float, default=3.0, help="skip photos whose row is within this of level (deg)")
    args = ap.parse_args(argv)
    if not (args.src / "labels.jsonl").is_file() and not (args.src / "meta").is_dir():
        ap.error(f"{args.src} has no labels.jsonl (nor meta/)")
    n = write_level_copies(args.src, args.out, min_angle=args.min_angle)
    print(f"{args.out}: {n} turned photos", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
