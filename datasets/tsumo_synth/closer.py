"""Rendered photos cut as the reader's second ("closer") detection sees them, with every tile's box.

Why: on 640×480-class photos the reader detects a second time on almost every photo (the hand's
tiles are < 40 px in the 512 input, `vision.recognize._small_for`, or the row is tilted > 10°), and
the boxes it then reads come from that pass. Its input is not the whole photo: it is the hand's
neighbourhood (`vision.recognize.hand_region`: the row + 2 tiles + 15 % of its length beyond each
end, 2.5 tiles above and below), turned so the row is level, cut at up to `REGION_SIDE` px
(`vision.frame.turned_view`) and then letterboxed — a wide flat strip with the tiles ~20–25 px
wide in the 512 input. This module cuts that view from the LABELS through the reader's own
`turned_view`, so the detector can be trained on exactly what it is given there:

- frame = `Frame(-angle, (w/2, h/2))`, with `angle` the labelled closed row's direction in degrees
  folded into (-90, 90] as the reader's `Row.angle` is (`turn.row_angle` is first → last tile);
- region = `hand_region` of the row tiles' photo boxes turned into the frame
  (`Frame.boxes_to_frame`, as the reader does with its detections), each edge moved by a seeded
  uniform ±`jitter` tile (the reader's row comes from detections: an end tile missed, a meld or
  the drawn tile taken into the row);
- labels = every tile's visible hull mapped with `view.photo_to_view`, boxed, clipped to the view,
  kept when ≥ `min_inside` of its box lies inside and it is ≥ `min_side` px on both sides.

    python -m tsumo_synth.closer --src cache/synth/det_def12 --out cache/synth/det_def12_near

writes a YOLO dataset (images/, labels/, labels.jsonl) of one view per photo of `--src` whose
hand row has ≥ 3 tiles (`row_tiles`), level or not (level rows get the second pass too, for being small).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.boxes import long_sides
from vision.frame import Frame, TurnedView, turned_view
from vision.recognize import hand_region

from .turn import closed_row, line_direction, read_rows, tile_boxes, write_example, write_rows

JITTER = 0.5  # tiles: each edge of the region moved by up to this much (uniform, seeded per photo)
MIN_INSIDE = 0.5  # a tile's box is kept when at least this share of it lies inside the view
MIN_SIDE = 3.0  # px, as tsumo_synth.photos.yolo_lines


def row_tiles(tiles: list[dict]) -> list[dict]:
    """The labelled closed hand row (`turn.closed_row`), first tile to last; when it has fewer
    than 3 tiles (four called melds), every hand tile not stacked, closed part first, then the
    melds in order (the line the reader then finds)."""
    row = closed_row(tiles)
    if len(row) >= 3:
        return row
    return sorted((t for t in tiles if t["in_hand"] and not t["stacked"]), key=lambda t: (t["group"], t["index"]))


def reader_angle(tiles: list[dict]) -> float | None:
    """The hand row's direction (`row_tiles`) in degrees, image axes (y down), in (-90, 90] like
    `Row.angle`; None when it has fewer than 3 tiles."""
    a = line_direction(row_tiles(tiles))
    if a is None:
        return None
    d = math.degrees(a)
    if d <= -90:
        d += 180
    elif d > 90:
        d -= 180
    return d


def view_boxes(view: TurnedView, frame: Frame, tiles: list[dict]) -> np.ndarray:
    """Each tile's box in the view's pixels (unclipped): the box of its mapped hull, widened by
    half a pixel's turned extent (the hull runs through pixel centres)."""
    a = math.radians(frame.angle)
    return tile_boxes(tiles, lambda pts: view.photo_to_view(frame, pts),
                      0.5 * (abs(math.cos(a)) + abs(math.sin(a))) * view.scale)


def keep_inside(boxes: np.ndarray, width: int, height: int, *, min_inside: float = MIN_INSIDE,
                min_side: float = MIN_SIDE) -> tuple[np.ndarray, np.ndarray]:
    """(clipped boxes, kept mask): a box is kept when ≥ `min_inside` of its area lies in the view
    and its clipped sides are ≥ `min_side` px."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    clipped = np.clip(boxes, 0, [width, height, width, height])
    area = np.maximum(boxes[:, 2] - boxes[:, 0], 1e-9) * np.maximum(boxes[:, 3] - boxes[:, 1], 1e-9)
    cw, ch = clipped[:, 2] - clipped[:, 0], clipped[:, 3] - clipped[:, 1]
    inside = np.maximum(cw, 0) * np.maximum(ch, 0) / area
    return clipped, (inside >= min_inside) & (cw >= min_side) & (ch >= min_side)


def closer_view(img: np.ndarray, row: dict, rng: np.random.Generator, *, jitter: float = JITTER
                ) -> tuple[TurnedView, Frame, np.ndarray, np.ndarray] | None:
    """The reader's second-pass view of a labelled photo: (view, frame, clipped boxes, kept mask)
    over `row["tiles"]`; None when the closed row has < 3 tiles or the region misses the photo."""
    tiles = row["tiles"]
    angle = reader_angle(tiles)
    if angle is None:
        return None
    h, w = img.shape[:2]
    frame = Frame(-angle, (w / 2.0, h / 2.0))
    rb = frame.boxes_to_frame(np.array([t["box"] for t in row_tiles(tiles)], float))
    region = hand_region(rb)
    if region is None:
        return None
    unit = float(np.median(long_sides(rb)))
    region = tuple(float(v) for v in np.asarray(region) + rng.uniform(-jitter, jitter, 4) * unit)
    if region[2] - region[0] < unit or region[3] - region[1] < unit:
        return None
    view = turned_view(img, frame, region=region)
    if view is None:
        return None
    vh, vw = view.image.shape[:2]
    clipped, kept = keep_inside(view_boxes(view, frame, tiles), vw, vh)
    return view, frame, clipped, kept


def write_closer_views(src: Path, out: Path, *, seed: int, jitter: float = JITTER) -> int:
    """One closer view per photo of a `tsumo_synth.photos` dataset (labels with hulls), each photo's
    jitter drawn from `default_rng([seed, photo number])`. Returns views written."""
    out_rows = []
    for k, row in enumerate(read_rows(src)):
        if not all(t.get("hull") for t in row["tiles"]):
            raise SystemExit(f"{src}: labels without hulls (rendered before hulls were recorded); render again")
        img = cv2.imread(str(src / row["image"]))
        got = closer_view(img, row, np.random.default_rng([seed, k]), jitter=jitter)
        if got is None:
            continue
        view, frame, boxes, kept = got
        out_rows.append(write_example(out, row, Path(row["image"]).stem + "_near", view.image, boxes, kept, kept,
                                      turned_deg=round(frame.angle, 2), view_scale=round(view.scale, 4),
                                      view_origin=[round(float(v), 2) for v in view.origin]))
    return write_rows(out, out_rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tsumo_synth.closer", description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, required=True, help="a tsumo_synth.photos dataset")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0, help="seeds each photo's region jitter (with its number)")
    ap.add_argument("--jitter", type=float, default=JITTER, help="tiles each region edge may move (uniform ±)")
    args = ap.parse_args(argv)
    if not (args.src / "labels.jsonl").is_file() and not (args.src / "meta").is_dir():
        ap.error(f"{args.src} has no labels.jsonl (nor meta/)")
    n = write_closer_views(args.src, args.out, seed=args.seed, jitter=args.jitter)
    print(f"{args.out}: {n} closer views", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
