"""Measure the two-stage design against one stage, as issue #3 asks ("decide by measurement").

    python datasets/eval_one_stage.py cache/synth/det_test_h cache/synth/det_test_x3g \
        --one-stage cache/train/faces/faces.onnx [--imgsz 512 1024] [--json out.json]

Two stages (what ships): the one-class detector boxes every tile, the crop classifier reads each box.
One stage: a detector of the 38 tile classes (`train_detector.py --faces`) boxes and reads at once.
Both are measured on the hand tiles of held-out rendered photos, the first pass alone (no closer look,
no reading step, no fitted re-detection), at the same detector input size:

- *boxed*: a detection overlaps the tile's true box with IoU >= 0.5 (one to one, greedy by IoU:
  `eval_detector.match`);
- *read right* (one stage): the matched detection's class is the tile's;
- *read right* (two stages): the classifier, as the reader runs it (second looks included), reads the
  tile's crop cut as the reader cuts it (`eval_classifier.photo_crops`, from the true box) as its class.
  Counted for the boxed tiles, so both designs answer the same question: of the tiles found, how many
  are read right, and of all hand tiles, how many are found and read right.

Runtime environment only (onnxruntime). The last line printed is one JSON object with every figure.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "datasets")]

from eval_classifier import _classify_photo_tiles  # noqa: E402
from eval_detector import match_pairs  # noqa: E402
from vision.classes import TILE_CLASSES  # noqa: E402
from vision.classify import TileClassifier  # noqa: E402
from vision.detect import TileDetector, decode_head, nms  # noqa: E402

IOU_MATCH = 0.5


class FaceDetector:
    """A one-stage detector's boxes with their classes (the shipped `TileDetector` keeps only the score)."""

    def __init__(self, path: Path, threads: int, conf: float | None = None):
        self.det = TileDetector(path, threads, fit=None, conf=conf)
        names = json.loads(self.det.metadata.get("tsumo_classes", "[]"))
        if list(names) != list(TILE_CLASSES):
            raise SystemExit(f"{path}: not a one-stage detector of the {len(TILE_CLASSES)} tile classes "
                             f"(tsumo_classes {names[:3]}…)")

    def detect(self, rgb: np.ndarray, imgsz: int) -> tuple[np.ndarray, list[str]]:
        """(boxes N×4 xyxy in photo pixels, class of each), class-agnostic NMS as the shipped detector's."""
        d = self.det
        x, lb = d.network_input(rgb, imgsz)
        boxes, best, cls = decode_head(d.head(x), d.conf, classes=True)
        kept = nms(boxes, best, d.iou)
        return lb.to_photo(boxes[kept], rgb.shape[1], rgb.shape[0]), [TILE_CLASSES[int(i)] for i in cls[kept]]


def tally(truth: list[str], boxed: list[bool], read: list[str | None]) -> dict:
    n = len(truth)
    nb = sum(boxed)
    right = sum(1 for t, b, r in zip(truth, boxed, read) if b and r == t)
    confused = Counter(f"{t}→{r}" for t, b, r in zip(truth, boxed, read) if b and r != t)
    return {"hand_tiles": n, "boxed": nb, "boxed_share": round(nb / n, 5) if n else None,
            "read_right": right, "read_right_of_boxed": round(right / nb, 5) if nb else None,
            "found_and_read_right": round(right / n, 5) if n else None,
            "most_confused": confused.most_common(8)}


def eval_set(set_dir: Path, one: FaceDetector, two: TileDetector, clf: TileClassifier, imgsz: int,
             limit: int | None, split: str | None = None) -> dict:
    rows = [json.loads(s) for s in (set_dir / "labels.jsonl").read_text().splitlines() if s.strip()]
    rows = [r for r in rows if split is None or r.get("split") == split][:limit]
    probs, _, entries = _classify_photo_tiles(clf, set_dir, limit=limit, split=split)
    clf_read = iter(TILE_CLASSES[i] for i in probs.argmax(1))
    truth, one_boxed, one_read, two_boxed, two_read = [], [], [], [], []
    ms_one, ms_two = [], []
    for row in rows:
        hand = sorted((t for t in row["tiles"] if t["in_hand"]), key=lambda t: t["index"])
        if not hand:
            continue
        rgb = cv2.cvtColor(cv2.imread(str(set_dir / row["image"])), cv2.COLOR_BGR2RGB)
        gt = np.array([t["box"] for t in hand], np.float64)
        t0 = time.perf_counter()
        boxes1, cls1 = one.detect(rgb, imgsz)
        ms_one.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        boxes2 = np.array([b.xyxy for b in two.detect(rgb, imgsz=imgsz)], np.float64).reshape(-1, 4)
        ms_two.append((time.perf_counter() - t0) * 1000)
        a1, a2 = match_pairs(gt, boxes1, IOU_MATCH), match_pairs(gt, boxes2, IOU_MATCH)
        for t, i1, i2 in zip(hand, a1, a2):
            truth.append(t["cls"])
            one_boxed.append(i1 is not None)
            one_read.append(cls1[i1] if i1 is not None else None)
            two_boxed.append(i2 is not None)
            read = next(clf_read)  # every hand tile has its crop read; only a boxed one counts
            two_read.append(read if i2 is not None else None)
    assert next(clf_read, None) is None and len(entries) == len(truth), "crops and hand tiles out of step"
    assert [e["label"] for e in entries] == truth, "crops and hand tiles out of step"
    return {"set": str(set_dir), "split": split, "imgsz": imgsz, "one_stage_conf": one.det.conf, "photos": len(ms_one),
            "one_stage": {**tally(truth, one_boxed, one_read), "detect_ms_median": round(statistics.median(ms_one), 1)},
            "two_stage": {**tally(truth, two_boxed, two_read), "detect_ms_median": round(statistics.median(ms_two), 1)}}


def _pct(share: float | None) -> str:
    return "-" if share is None else f"{share:.2%}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", type=Path, nargs="+", help="tsumo_synth.photos sets (labels.jsonl)")
    ap.add_argument("--one-stage", type=Path, required=True, help="ONNX of train_detector.py --faces")
    ap.add_argument("--detector", type=Path, default=REPO / "models" / "tile_detector.onnx")
    ap.add_argument("--classifier", type=Path, default=REPO / "models" / "tile_classifier.onnx")
    ap.add_argument("--imgsz", type=int, nargs="+", default=[512], help="detector input sizes, each measured")
    ap.add_argument("--limit", type=int, default=None, help="first N photos of each set")
    ap.add_argument("--split", default=None, help="only the photos of this split (e.g. a training set's val)")
    ap.add_argument("--one-stage-conf", type=float, nargs="+", default=[None],
                    help="score floors of the one-stage detector, each measured (default: its metadata's); a "
                         "38-class model's best class score is lower than a one-class model's, so choose it on "
                         "the training set's val split, not on the held-out set")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    for p in [args.one_stage, args.detector, args.classifier, *args.sets]:
        if not p.exists():
            raise SystemExit(f"not found: {p}")
    two = TileDetector(args.detector, args.threads, fit=None)
    clf = TileClassifier(args.classifier, threads=args.threads)
    results = []
    for s in args.sets:
        for size in args.imgsz:
            for conf in args.one_stage_conf:
                one = FaceDetector(args.one_stage, args.threads, conf)
                r = eval_set(s, one, two, clf, size, args.limit, args.split)
                results.append(r)
                for design in ("two_stage", "one_stage"):
                    d = r[design]
                    print(f"{s.name} @{size} conf {one.det.conf:g} {design}: boxed {d['boxed']}/{d['hand_tiles']} "
                          f"({_pct(d['boxed_share'])}), read right {_pct(d['read_right_of_boxed'])} of boxed, found "
                          f"and read right {_pct(d['found_and_read_right'])}; detect {d['detect_ms_median']} ms",
                          file=sys.stderr)
    out = {"one_stage": str(args.one_stage), "detector": str(args.detector), "classifier": str(args.classifier),
           "results": results}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
