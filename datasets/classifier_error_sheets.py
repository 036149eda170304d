"""Contact sheets of a classifier's errors on the hand tiles of held-out rendered photos, for reading by eye.

Each error cell shows the crop exactly as the model sees it (`eval_classifier.photo_crops`: the reader's cut,
64 px, upscaled ×3 with nearest-neighbour so no detail is invented), beside a context cut from the same hand
frame (the tile box grown to 2× its width and height, scaled to the cell's height), and the facts: error
number, truth → top-3 with probabilities (after the model's test-time augmentation, as the reader reads),
tile long side in photo px, visible share, sideways, the readable/degraded flag (`PHOTO_DEGRADED_RULE`).

    python datasets/classifier_error_sheets.py cache/synth/det_test_h --out cache/cls14/sheets_h \
        [--model models/tile_classifier.onnx] [--per-sheet 16] [--cols 4]

Writes OUT/sheet_NN.png and OUT/errors.tsv (one row per error, same numbering, with an empty `verdict`
column for the audit: U unreadable from this crop, R readable but misread, L label/crop problem).
Runs with onnxruntime only (the runtime Python).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for p in (REPO, REPO / "datasets"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from eval_classifier import classify_as_reader, photo_crops  # noqa: E402
from vision.classes import TILE_CLASSES  # noqa: E402
from vision.classify import TileClassifier  # noqa: E402

CROP_VIEW = 192  # the 64-px crop shown ×3
TEXT_H = 58


def context_cut(patch: np.ndarray, box, scale: float = 2.0) -> np.ndarray:
    """The box grown to `scale`× its width and height about its centre, cut from `patch` (edge-replicated)."""
    x0, y0, x1, y1 = (float(v) for v in box)
    cx, cy, w, h = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) * scale, (y1 - y0) * scale
    a0, b0 = int(np.floor(cx - w / 2)), int(np.floor(cy - h / 2))
    a1, b1 = max(a0 + 1, int(np.ceil(cx + w / 2))), max(b0 + 1, int(np.ceil(cy + h / 2)))
    ph, pw = patch.shape[:2]
    pad = max(0, -a0, -b0, a1 - pw, b1 - ph)
    padded = cv2.copyMakeBorder(patch, pad, pad, pad, pad, cv2.BORDER_REPLICATE) if pad else patch
    return padded[b0 + pad:b1 + pad, a0 + pad:a1 + pad]


def cell(crop: np.ndarray, context: np.ndarray, lines: list[str]) -> np.ndarray:
    """One error: crop ×3 | context scaled to the same height (≤ 2 crop widths), text below. RGB."""
    left = cv2.resize(crop, (CROP_VIEW, CROP_VIEW), interpolation=cv2.INTER_NEAREST)
    ch, cw = context.shape[:2]
    s = CROP_VIEW / ch
    right = cv2.resize(context, (max(1, min(2 * CROP_VIEW, round(cw * s))), CROP_VIEW), interpolation=cv2.INTER_CUBIC)
    canvas = np.full((CROP_VIEW + TEXT_H, 3 * CROP_VIEW + 8, 3), 255, np.uint8)
    canvas[:CROP_VIEW, :CROP_VIEW] = left
    canvas[:CROP_VIEW, CROP_VIEW + 8:CROP_VIEW + 8 + right.shape[1]] = right
    for k, text in enumerate(lines):
        cv2.putText(canvas, text, (4, CROP_VIEW + 17 + 19 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 1,
                    cv2.LINE_AA)
    return canvas


def sheet(cells: list[np.ndarray], cols: int) -> np.ndarray:
    h, w = cells[0].shape[:2]
    rows = -(-len(cells) // cols)
    out = np.full((rows * (h + 6), cols * (w + 6), 3), 128, np.uint8)
    for i, c in enumerate(cells):
        r, q = divmod(i, cols)
        out[r * (h + 6):r * (h + 6) + h, q * (w + 6):q * (w + 6) + w] = c
    return out


def error_sheets(set_dir: Path, out: Path, model: Path, *, per_sheet: int = 16, cols: int = 4,
                 threads: int = 1) -> list[dict]:
    clf = TileClassifier(model, threads=threads)
    crops, entries = photo_crops(set_dir, clf.imgsz, clf.margin, keep_patch=True)
    probs = classify_as_reader(clf, crops, entries, keep_patch=True)[0]
    out.mkdir(parents=True, exist_ok=True)
    errors = []
    for crop, e, p in zip(crops, entries, probs):
        pred = TILE_CLASSES[int(p.argmax())]
        if pred == e["label"]:
            continue
        top = np.argsort(-p)[:3]
        errors.append({"n": len(errors) + 1, "image": e["image"], "truth": e["label"], "pred": pred,
                       "top3": " ".join(f"{TILE_CLASSES[k]}:{p[k]:.2f}" for k in top),
                       "p_truth": float(p[TILE_CLASSES.index(e["label"])]), "long_px": e["long_px"],
                       "visible": e["visible"], "sideways": e["sideways"], "degraded": e["degraded"],
                       "_crop": crop, "_context": context_cut(e["patch"], e["box"])})
    cells = [cell(x["_crop"], x["_context"],
                  [f"#{x['n']} {x['truth']} -> {x['top3']}",
                   f"{x['long_px']:.0f}px vis {x['visible']:.2f}{' SW' if x['sideways'] else ''}"
                   f"{' DEG' if x['degraded'] else ''} p(truth) {x['p_truth']:.2f} {Path(x['image']).stem}"])
             for x in errors]
    for k in range(0, len(cells), per_sheet):
        cv2.imwrite(str(out / f"sheet_{k // per_sheet + 1:02d}.png"), sheet(cells[k:k + per_sheet], cols)[..., ::-1])
    cols_tsv = ["n", "image", "truth", "pred", "top3", "p_truth", "long_px", "visible", "sideways", "degraded"]
    with open(out / "errors.tsv", "w") as fh:
        fh.write("\t".join(cols_tsv + ["verdict", "note"]) + "\n")
        for x in errors:
            fh.write("\t".join(f"{x[c]:.3f}" if isinstance(x[c], float) else str(x[c]) for c in cols_tsv) + "\t\t\n")
    print(f"{set_dir}: {len(entries)} hand tiles, {len(errors)} errors -> {out} "
          f"({-(-len(errors) // per_sheet)} sheets)", flush=True)
    return [{k: v for k, v in x.items() if not k.startswith("_")} for x in errors]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="classifier_error_sheets", description=__doc__.split("\n\n")[0])
    ap.add_argument("photos", type=Path, help="a held-out rendered photo set (tsumo_synth.photos output)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--model", type=Path, default=REPO / "models" / "tile_classifier.onnx")
    ap.add_argument("--per-sheet", type=int, default=16)
    ap.add_argument("--cols", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    if not (args.photos / "labels.jsonl").is_file():
        print(f"classifier_error_sheets: error: {args.photos} has no labels.jsonl", file=sys.stderr)
        return 2
    if not args.model.is_file():
        print(f"classifier_error_sheets: error: model not found: {args.model}", file=sys.stderr)
        return 2
    error_sheets(args.photos, args.out, args.model, per_sheet=args.per_sheet, cols=args.cols, threads=args.threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
