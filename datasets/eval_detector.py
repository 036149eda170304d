"""Measure the tile detector: recall / precision on rendered, Chinese and real-dev photos + latency.

    python datasets/eval_detector.py --model models/tile_detector.onnx \
        --synth cache/synth/det_test --chinese test --real-dev

Runs on onnxruntime only (the runtime environment). A ground-truth box counts as found when a
detection overlaps it with IoU ≥ `--iou` (one detection per box, greedy by IoU). On rendered
photos every tile is labelled, so precision is exact; the Chinese set leaves some background
tiles unboxed and real-dev boxes only the hand, so precision there is a lower bound (reported
for the Chinese set; for real-dev the count of extra detections outside the hand is given).
`--real-dev-read CLASSIFIER.onnx` also reads real-dev end to end (`PhotoReader`) sent at its own
size, 1 024 px and 4 000 px (12 MP), the ship gate's first check.
The last line printed is one JSON object with every figure.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "datasets")]

from eval_classifier import SIZE_BINS  # noqa: E402
from vision.boxes import ious  # noqa: E402
from vision.detect import DEFAULT_PATH, PartRule, TileDetector  # noqa: E402
from tsumo_synth.turn import row_angle, turn_level  # noqa: E402


def match(gt: np.ndarray, pred: np.ndarray, thr: float) -> tuple[np.ndarray, np.ndarray]:
    """Greedy one-to-one matching by IoU. Returns (gt_found bool[N], pred_used bool[M])."""
    paired = match_pairs(gt, pred, thr)
    found = np.array([p is not None for p in paired], bool)
    used = np.zeros(len(pred), bool)
    used[[p for p in paired if p is not None]] = True
    return found, used


def match_pairs(gt: np.ndarray, pred: np.ndarray, thr: float) -> list[int | None]:
    """`match`'s pairing: for each true box, the index of its detection (None: not found)."""
    paired: list[int | None] = [None] * len(gt)
    used: set[int] = set()
    m = ious(gt, pred)
    if m.size:
        pairs = np.argwhere(m >= thr)
        order = np.argsort(-m[pairs[:, 0], pairs[:, 1]])
        for gi, pi in pairs[order]:
            if paired[gi] is None and int(pi) not in used:
                paired[gi] = int(pi)
                used.add(int(pi))
    return paired


@dataclass
class Tally:
    name: str
    photos: int = 0
    gt: int = 0
    found: int = 0
    preds: int = 0
    used: int = 0
    hand_gt: int = 0
    hand_found: int = 0
    photos_all_hand: int = 0
    times_ms: list[float] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    kinds: dict[str, list[int]] = field(default_factory=dict)  # hand-tile kind -> [tiles, found]
    buckets: dict[str, list[int]] = field(default_factory=dict)  # `hand_buckets` name -> [tiles, found]

    def summary(self) -> dict:
        d = {"photos": self.photos, "tiles": self.gt, "found": self.found, "detections": self.preds,
             "recall": round(self.found / self.gt, 5) if self.gt else None,
             "precision": round(self.used / self.preds, 5) if self.preds else None,
             "median_ms": round(statistics.median(self.times_ms), 1) if self.times_ms else None}
        if self.hand_gt:
            d.update(hand_tiles=self.hand_gt, hand_recall=round(self.hand_found / self.hand_gt, 5),
                     photos_whole_hand_found=round(self.photos_all_hand / self.photos, 4))
            d["hand_recall_by_kind"] = {k: [f, n] for k, (n, f) in self.kinds.items()}
            if self.buckets:
                d["hand_recall_by_bucket"] = {k: [f, n, round(f / n, 5)] for k, (n, f) in sorted(self.buckets.items())}
        return d


def _timed(detector: TileDetector | ReaderBoxes, img: np.ndarray):
    t = time.perf_counter()
    boxes = detector.detect(img)
    return np.array([b.xyxy for b in boxes]).reshape(-1, 4), (time.perf_counter() - t) * 1000


class ReaderBoxes:
    """The boxes the photo reader keeps, as a detector: the first detection, replaced around the
    hand row by the second one (on the photo turned level, and closer when the tiles are small;
    see `vision.recognize`). What the reading step gets, so the recall that counts for a hand."""

    def __init__(self, detector: TileDetector, classifier_path: Path, threads: int, closer: TileDetector | None = None):
        from vision.classify import TileClassifier

        self.detector = detector
        self.closer = closer
        self.classifier = TileClassifier(classifier_path, threads)

    def detect(self, image: np.ndarray) -> list:
        from vision.detect import Box
        from vision.recognize import recognize

        return [Box(*t.box, t.det_score) for t in recognize(image, self.detector, self.classifier, closer=self.closer).tiles]


HAND_KINDS = ("sideways", "stacked", "face_down", "standing")
# Hand recall by how much of the tile shows and by its box's long side (px): are the misses hidden or
# tiny tiles (a renderer's limit) or tiles any photo would show (the model's)?
# The size bins are the classifier report's (`eval_classifier.SIZE_BINS`), so the two read side by side.


def hand_buckets(tile: dict, box: np.ndarray) -> list[str]:
    """The buckets a labelled hand tile counts in: "visible>=0.7" (when it is) and its size bin."""
    long_side = float(max(box[2] - box[0], box[3] - box[1]))
    size = next(f"{name}px" for name, lo, hi in SIZE_BINS if lo <= long_side < hi)
    return (["visible>=0.7"] if tile.get("visible", 1.0) >= 0.7 else []) + [size]


def draw_misses(out: Path, name: str, img: np.ndarray, gt: np.ndarray, pred: np.ndarray, found: np.ndarray,
                in_hand: np.ndarray) -> None:
    """A PNG of one photo: hand tiles found (green), missed (red, thick), every detection (orange)."""
    out.mkdir(parents=True, exist_ok=True)
    vis = cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
    for p in pred:
        cv2.rectangle(vis, (int(p[0]), int(p[1])), (int(p[2]), int(p[3])), (0, 140, 255), 1)
    for g, f, h in zip(gt, found, in_hand):
        if h:
            cv2.rectangle(vis, (int(g[0]), int(g[1])), (int(g[2]), int(g[3])), (0, 200, 0) if f else (0, 0, 255), 1 if f else 2)
    cv2.imwrite(str(out / f"{name}.png"), vis)


def eval_synth(detector: TileDetector, root: Path, *, thr: float, min_side: float, limit: int | None,
               turned: bool = False, misses_dir: Path | None = None) -> Tally:
    """Rendered set (tsumo_synth.photos output): every labelled tile at least `min_side` px.

    `turned`: measure on each photo turned so its hand row is level (the reader's second pass);
    photos whose row can't be told (fewer than 3 tiles in the closed part) are skipped."""
    tally = Tally(f"synthetic:{root.name}" + (":level" if turned else ""))
    rows = [json.loads(line) for line in (root / "labels.jsonl").read_text().splitlines() if line.strip()]
    for row in rows[:limit]:
        img = cv2.cvtColor(cv2.imread(str(root / row["image"])), cv2.COLOR_BGR2RGB)
        tiles = row["tiles"]
        if turned:
            angle = row_angle(tiles)
            if angle is None:
                continue
            img, gt_all = turn_level(img, tiles, angle)
        else:
            gt_all = np.array([t["box"] for t in tiles], np.float64).reshape(-1, 4)
        keep = np.minimum(gt_all[:, 2] - gt_all[:, 0], gt_all[:, 3] - gt_all[:, 1]) >= min_side
        tiles = [t for t, k in zip(tiles, keep) if k]
        gt = gt_all[keep]
        pred, ms = _timed(detector, img)
        found, used = match(gt, pred, thr)
        in_hand = np.array([t["in_hand"] for t in tiles], bool)
        tally.photos += 1
        tally.gt += len(gt)
        tally.found += int(found.sum())
        tally.preds += len(pred)
        tally.used += int(used.sum())
        tally.hand_gt += int(in_hand.sum())
        tally.hand_found += int((found & in_hand).sum())
        tally.photos_all_hand += int((found | ~in_hand).all())
        for kind in HAND_KINDS:
            sel = in_hand & np.array([bool(t[kind]) for t in tiles], bool)
            tally.kinds.setdefault(kind, [0, 0])
            tally.kinds[kind][0] += int(sel.sum())
            tally.kinds[kind][1] += int((found & sel).sum())
        for t, box, f in zip(tiles, gt, found):
            if t["in_hand"]:
                for name in hand_buckets(t, box):
                    counts = tally.buckets.setdefault(name, [0, 0])
                    counts[0] += 1
                    counts[1] += int(f)
        tally.times_ms.append(ms)
        if not (found | ~in_hand).all():
            miss = [f"{t['index']}{'-' if t['sideways'] else ''}{'=' if t['stacked'] else ''}{'x' if t['face_down'] else ''}"
                    for t, f in zip(tiles, found) if t["in_hand"] and not f]
            tally.missed.append(f"{row['image']}: hand tiles {' '.join(miss)}")
            if misses_dir is not None:
                draw_misses(misses_dir, Path(row["image"]).stem + ("_level" if turned else ""), img, gt, pred, found, in_hand)
    return tally


def eval_boxed(detector: TileDetector, name: str, photos, *, thr: float) -> Tally:
    tally = Tally(name)
    for ph in photos:
        img = ph.load_rgb()
        pred, ms = _timed(detector, img)
        found, used = match(ph.boxes, pred, thr)
        tally.photos += 1
        tally.gt += len(ph.boxes)
        tally.found += int(found.sum())
        tally.preds += len(pred)
        tally.used += int(used.sum())
        tally.times_ms.append(ms)
        if not found.all():
            tally.missed.append(f"{ph.path.name}: {int((~found).sum())} missed")
    return tally


def tile_scores(detector: TileDetector, photos, *, thr: float, floor: float = 0.05) -> list[tuple[str, str, float]]:
    """Each boxed tile's best detection score, the detector run with its threshold lowered to `floor`
    (a detection counts at IoU ≥ `thr`; 0.0 when none does): (photo name, label, score).

    Why: four real photos can't rank detectors by recall — a candidate keeps or loses a tile by
    whether one box's score clears the threshold. The weakest tile's score says how close each model
    is to that edge (session 8: real-dev's middle blank white of three scored 0.26 in the shipped
    model against its 0.25 threshold, 0.16-0.23 in every later candidate). Lowering the threshold
    adds boxes but removes none above it (NMS is greedy by score), so a score ≥ the model's threshold
    means a box there at the model's own setting."""
    out = []
    for ph in photos:
        boxes = detector.detect(ph.load_rgb(), conf=floor)
        pred = np.array([b.xyxy for b in boxes]).reshape(-1, 4)
        scores = np.array([b.score for b in boxes])
        overlap = ious(ph.boxes, pred)
        for i in range(len(ph.boxes)):
            hit = overlap[i] >= thr if overlap.shape[1] else np.zeros(0, bool)
            label = ph.labels[i] if i < len(ph.labels) else ""
            out.append((ph.path.name, label, round(float(scores[hit].max()), 4) if hit.any() else 0.0))
    return out


def merged_boxes(detector: TileDetector, photos, *, thr: float) -> list[list]:
    """Detections (at the model's own threshold) that box two neighbouring labelled tiles as one:
    IoU ≥ `thr` with the union of the two tiles' boxes and < `thr` with every tile alone.
    Each as [photo name, "label+label", IoU with the union, score].

    Why: session 9's fine-tune boxed real-dev's added kan (`lietxia_70008812`: a sideways 9m with a
    second one lying on it) as one tall box, so the reader found a pon and lost the kan; recall
    counts the lower tile as found by that box and hides it. A candidate should list none."""
    out = []
    for ph in photos:
        boxes = detector.detect(ph.load_rgb())
        pred = np.array([b.xyxy for b in boxes]).reshape(-1, 4)
        out += [[ph.path.name, *m] for m in merged_pairs(ph.boxes, ph.labels, pred, [b.score for b in boxes], thr=thr)]
    return out


def merged_pairs(gt: np.ndarray, labels, pred: np.ndarray, scores, *, thr: float) -> list[list]:
    """The pure part of `merged_boxes`: ["label+label", IoU with the union, score] for every
    prediction matching the union of two touching or overlapping ground-truth boxes at IoU ≥ `thr`
    and no ground-truth box alone, the best such pair per prediction. (Session 9's e6 boxes the kakan's two
    sideways 9m as one at IoU 0.78 with their union, 0.44 / 0.47 with each; the shipped model's box
    over the lower 9m reaching up into the upper one, 0.59 with the lower, is not a merge.)"""
    gt = np.asarray(gt, np.float64).reshape(-1, 4)
    pred = np.asarray(pred, np.float64).reshape(-1, 4)
    if not len(gt) or not len(pred):
        return []
    single = ious(gt, pred)  # gt × pred
    alone = single.max(axis=0) < thr  # predictions matching no single tile
    best: dict[int, list] = {}  # prediction -> its best-matching pair (a pair's union may hold a third tile's box)
    for i in range(len(gt)):
        for j in range(i + 1, len(gt)):
            a, b = gt[i], gt[j]
            gap_x = max(a[0], b[0]) - min(a[2], b[2])
            gap_y = max(a[1], b[1]) - min(a[3], b[3])
            side = min(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1])
            if gap_x > 0.1 * side or gap_y > 0.1 * side:  # not neighbours
                continue
            union = np.array([[min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]])
            both = ious(union, pred)[0]
            for k in np.flatnonzero((both >= thr) & alone):
                li = labels[i] if i < len(labels) else ""
                lj = labels[j] if j < len(labels) else ""
                if k not in best or both[k] > best[k][1]:
                    best[k] = [f"{li}+{lj}", round(float(both[k]), 3), round(float(scores[k]), 4)]
    return [best[k] for k in sorted(best)]


def resized_to_width(image: np.ndarray, width: int | None) -> np.ndarray:
    """The photo as a phone might send it `width` px wide (None: as it is): INTER_AREA down,
    INTER_CUBIC up, as `tests/vision/test_pipeline_realdev.py` does."""
    if width is None:
        return image
    h, w = image.shape[:2]
    return cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA if width < w else cv2.INTER_CUBIC)


def read_at_widths(reader, photos: list[tuple[str, np.ndarray, str]], widths: list[int | None]) -> dict:
    """Read each (name, RGB photo, true sequence) with `reader` (`.read(image).sequence`) sent at
    every width: exact photos per width, and each miss as "name@width: what was read". The
    ship gate's real-dev check at the photos' own size, 1 024 px and 12 MP (session 11: a
    candidate can read a photo exactly at its own size and lose a tile at 4 000 px)."""
    out: dict = {"photos": len(photos), "exact": {}, "fails": []}
    for width in widths:
        key = "own" if width is None else str(width)
        ok = 0
        for name, image, truth in photos:
            seq = reader.read(resized_to_width(image, width)).sequence
            ok += seq == truth
            if seq != truth:
                out["fails"].append(f"{name}@{key}: {seq}")
        out["exact"][key] = ok
    out["all_exact"] = all(v == len(photos) for v in out["exact"].values())
    return out


def real_dev_sequences(root: Path) -> list[tuple[str, np.ndarray, str]]:
    """real-dev's photos (EXIF-oriented RGB) with their labelled sequences (`labels.jsonl`)."""
    from vision.io import load_image

    rows = [json.loads(line) for line in (root / "labels.jsonl").read_text().splitlines() if line.strip()]
    return [(r["image"], load_image(root / r["image"]), r["sequence"]) for r in rows if r.get("sequence")]


def latency_12mp(detector: TileDetector, sample: np.ndarray, runs: int = 15) -> dict:
    """Median detect() time on a 4032×3024 photo (letterbox resize included), after a warm-up."""
    big = cv2.resize(sample, (4032, 3024), interpolation=cv2.INTER_LINEAR)
    for _ in range(3):
        detector.detect(big)
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        detector.detect(big)
        ts.append((time.perf_counter() - t) * 1000)
    t_inf = []
    x, _ = detector.network_input(big, detector.imgsz)
    for _ in range(runs):
        t = time.perf_counter()
        detector.session.run(None, {detector.input_name: x})
        t_inf.append((time.perf_counter() - t) * 1000)
    return {"photo_12mp_median_ms": round(statistics.median(ts), 1),
            "network_only_median_ms": round(statistics.median(t_inf), 1),
            "input": f"{x.shape[3]}x{x.shape[2]}", "threads": detector.threads}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_PATH)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--synth", type=Path, action="append", default=[], help="rendered set folder (labels.jsonl)")
    ap.add_argument("--synth-limit", type=int, default=None)
    ap.add_argument("--level", action="store_true",
                    help="also measure each rendered photo turned so its hand row is level (the reader's second pass)")
    ap.add_argument("--min-side", type=float, default=6.0, help="ignore rendered tiles smaller than this (px)")
    ap.add_argument("--chinese", type=str, default=None, help="Chinese set split to measure on (test)")
    ap.add_argument("--real-dev", action="store_true", help="measure on real-dev (needs its box file)")
    ap.add_argument("--iou", type=float, default=0.5, help="IoU for a detection to count as the tile")
    ap.add_argument("--conf", type=float, default=None, help="score threshold (default: the model's)")
    ap.add_argument("--imgsz", type=int, default=None, help="input size (default: the model's)")
    ap.add_argument("--nms-iou", type=float, default=None, help="NMS IoU threshold (default: the model's)")
    ap.add_argument("--reader", type=Path, default=None, metavar="CLASSIFIER.onnx",
                    help="measure the boxes the photo reader keeps (with its second detection around the hand row), "
                         "using this classifier to find the row")
    ap.add_argument("--parts", type=str, default=None, metavar="COVER,MAX_AREA,SCORE_RATIO|none",
                    help="vision.detect.PartRule for dropping boxes that are part of another (default: the detector's)")
    ap.add_argument("--vote", type=float, default=None, metavar="IOU",
                    help="box voting: each kept box the score-weighted mean of the candidates over it at this IoU")
    ap.add_argument("--flip", action="store_true", help="also detect on the mirrored input (test-time augmentation)")
    ap.add_argument("--flip-vote-only", action="store_true",
                    help="with --flip and --vote: the mirror's boxes only vote on the photo's own (none added)")
    ap.add_argument("--latency", action="store_true", help="time a 12-MP photo")
    ap.add_argument("--real-dev-read", type=Path, default=None, metavar="CLASSIFIER.onnx",
                    help="read real-dev end to end (PhotoReader with this classifier) at each --read-widths: exact photos")
    ap.add_argument("--read-widths", type=str, default="own,1024,4000",
                    help="photo widths for --real-dev-read, comma-separated; own = as stored (default own,1024,4000)")
    ap.add_argument("--closer", type=Path, default=None, metavar="DETECTOR.onnx",
                    help="with --reader / --real-dev-read: this detector takes the reader's second, closer look "
                         "(vision.pipeline.CLOSER_FILE) and --model the photo's first detection")
    ap.add_argument("--alt", type=Path, default=None, metavar="DETECTOR.onnx",
                    help="with --real-dev-read: this second detector reads the photos still unsure after the "
                         "first's looks (vision.pipeline.ALT_FILE), as the product does when it is shipped")
    ap.add_argument("--draw-misses", type=Path, default=None, metavar="DIR",
                    help="write a PNG of every rendered photo with a missed hand tile (look before choosing data)")
    args = ap.parse_args(argv)
    if not args.model.is_file():
        print(f"eval_detector: model not found: {args.model}", file=sys.stderr)
        return 2
    parts = None
    if args.parts and args.parts != "none":
        try:
            parts = PartRule(*map(float, args.parts.split(",")))
        except (TypeError, ValueError):
            print(f"eval_detector: --parts wants COVER,MAX_AREA,SCORE_RATIO or none, got {args.parts!r}", file=sys.stderr)
            return 2
    detector = net = TileDetector(args.model, threads=args.threads, conf=args.conf, imgsz=args.imgsz, iou=args.nms_iou,
                                  parts=parts, vote=args.vote, flip=args.flip, flip_adds=not (args.flip and args.flip_vote_only))
    report: dict = {"model": str(args.model), "imgsz": detector.imgsz, "conf": detector.conf, "nms_iou": detector.iou,
                    "iou_match": args.iou, "parts": str(detector.parts),
                    "vote": detector.vote, "flip": detector.flip,
                    "flip_adds": detector.flip_adds}
    for path, what in ((args.closer, "closer model"), (args.alt, "second detector")):  # the reader's optional detectors
        if path and not path.is_file():
            print(f"eval_detector: {what} not found: {path}", file=sys.stderr)
            return 2
    closer = TileDetector(args.closer, threads=args.threads) if args.closer else None
    alt = TileDetector(args.alt, threads=args.threads) if args.alt else None
    report.update({key: str(path) for key, path in (("closer", args.closer), ("alt", args.alt)) if path})
    if args.reader:
        if not args.reader.is_file():
            print(f"eval_detector: classifier not found: {args.reader}", file=sys.stderr)
            return 2
        net, detector = detector, ReaderBoxes(detector, args.reader, args.threads, closer)
        report["reader_boxes"] = str(args.reader)
    sample = None
    for root in args.synth:
        if not (root / "labels.jsonl").exists():
            print(f"eval_detector: {root} has no labels.jsonl", file=sys.stderr)
            return 2
        t = eval_synth(detector, root, thr=args.iou, min_side=args.min_side, limit=args.synth_limit,
                       misses_dir=args.draw_misses)
        report[t.name] = t.summary()
        _print(t)
        if args.level:
            t = eval_synth(detector, root, thr=args.iou, min_side=args.min_side, limit=args.synth_limit, turned=True,
                           misses_dir=args.draw_misses)
            report[t.name] = t.summary()
            _print(t)
        if sample is None:
            first = json.loads((root / "labels.jsonl").read_text().splitlines()[0])
            sample = cv2.cvtColor(cv2.imread(str(root / first["image"])), cv2.COLOR_BGR2RGB)
    import real_data

    if args.chinese:
        t = eval_boxed(detector, f"chinese:{args.chinese}", real_data.chinese_split(args.chinese), thr=args.iou)
        report[t.name] = t.summary()
        _print(t)
    if args.real_dev:
        photos = real_data.real_dev()
        t = eval_boxed(detector, "real-dev", photos, thr=args.iou)
        s = t.summary()
        s["extra_detections"] = t.preds - t.used
        s.pop("precision", None)
        weakest = sorted(tile_scores(net, photos, thr=args.iou), key=lambda x: x[2])
        s["weakest_tiles"] = [list(w) for w in weakest[:3]]  # how near the model's threshold the hand's weakest tile is
        s["weakest_margin"] = round(weakest[0][2] - net.conf, 4) if weakest else None
        s["merged"] = merged_boxes(net, photos, thr=args.iou)  # two tiles in one box (session 9's kakan)
        report[t.name] = s
        _print(t)
        if sample is None:
            sample = photos[0].load_rgb()
    if args.real_dev_read:
        if not args.real_dev_read.is_file():
            print(f"eval_detector: classifier not found: {args.real_dev_read}", file=sys.stderr)
            return 2
        from vision.classify import TileClassifier
        from vision.pipeline import PhotoReader

        widths = [None if w.strip() == "own" else int(w) for w in args.read_widths.split(",") if w.strip()]
        reader = PhotoReader(detector=net, classifier=TileClassifier(args.real_dev_read, args.threads), closer=closer, alt=alt)
        report["real_dev_read"] = read_at_widths(reader, real_dev_sequences(real_data.REAL_DEV), widths)
        print(f"real-dev read exactly: {report['real_dev_read']['exact']} of {report['real_dev_read']['photos']}",
              file=sys.stderr)
        for f in report["real_dev_read"]["fails"]:
            print(f"  {f}", file=sys.stderr)
    if args.latency:
        if sample is None:
            sample = np.full((960, 1280, 3), 90, np.uint8)
        report["latency"] = latency_12mp(net, sample)  # the network's own time, also with --reader
        print(f"latency: {report['latency']}", file=sys.stderr)
    print(json.dumps(report))
    return 0


def _print(t: Tally) -> None:
    s = t.summary()
    line = f"{t.name}: {s['photos']} photos, recall {s['recall']}, precision {s['precision']}, median {s['median_ms']} ms"
    if "hand_recall" in s:
        line += f", hand recall {s['hand_recall']}, whole hand found in {s['photos_whole_hand_found']:.2%} of photos"
        line += ", by kind " + ", ".join(f"{k} {f}/{n}" for k, (f, n) in s["hand_recall_by_kind"].items())
    print(line, file=sys.stderr)
    for m in t.missed[:10]:
        print(f"  missed: {m}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
