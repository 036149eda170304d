"""Measure the tile classifier (onnxruntime only, no torch) on four sets:

- `photos`: the hand tiles of held-out rendered photos (`tsumo_synth.photos` sets, e.g.
  `cache/synth/det_test_h`, seed 99; the classifier never trains on photos), each cut as the
  reader cuts it: the photo turned into the hand's frame (`vision.frame.extract_patch`), the
  box a detector draws (the tile's visible pixels), `crop_tile` with the tile's true sideways flag.
  This is the issue's "held-out synthetic set"; per class, flip, and split readable / degraded;
- `synth`: a held-out rendered crop set (its own seed, never used in training), per class incl.
  red fives and back, plus flip (upright / upside-down) accuracy, also split readable / degraded
  by `tsumo_synth.crops.DEGRADED_RULE` (generator parameters; fixed before looking at results);
- `real-dev`: the tiles of `../shared/data/real-dev`, cut with the hand-drawn boxes of
  `tests/vision/data/real_dev_boxes.json` (measure only, never train);
- `chinese`: the boxes of a split of chinese-mahjong-detection-v4 for the classes riichi shares.

    python datasets/eval_classifier.py --model models/tile_classifier.onnx [--synth-per-class 40] \
        [--no-synth] [--no-real-dev] [--chinese test|none] [--photos cache/synth/det_test_h] [--report out.md]

The last line printed is one JSON object with every figure (what `tsumo eval classifier` shows).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for p in (REPO, REPO / "datasets"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.classes import TILE_CLASSES  # noqa: E402
from vision.classify import FLIP_SUFFIX, TileClassifier, class_names_75, crop_tile  # noqa: E402

SHARED = REPO.parent / "shared"
CACHE = REPO / "cache" / "classifier"
REAL_DEV_BOXES = REPO / "tests" / "vision" / "data" / "real_dev_boxes.json"


def _per_class(truth: list[str], pred: list[str]) -> dict[str, dict]:
    table: dict[str, dict] = {}
    confusions: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for t, p in zip(truth, pred):
        row = table.setdefault(t, {"n": 0, "correct": 0})
        row["n"] += 1
        row["correct"] += int(t == p)
        if t != p:
            confusions[t][p] += 1
    for t, row in table.items():
        row["acc"] = row["correct"] / row["n"]
        if confusions[t]:
            row["confused_with"] = dict(sorted(confusions[t].items(), key=lambda kv: -kv[1]))
    return {k: table[k] for k in TILE_CLASSES if k in table}


def _summary(truth: list[str], pred: list[str], flip_truth: list, flip_pred: list) -> dict:
    n = len(truth)
    correct = sum(t == p for t, p in zip(truth, pred))
    known = [(a, b) for a, b in zip(flip_truth, flip_pred) if a is not None]
    out = {"n": n, "acc": correct / n if n else None, "errors": n - correct, "per_class": _per_class(truth, pred)}
    if known:
        out["flip_n"] = len(known)
        out["flip_acc"] = sum(a == b for a, b in known) / len(known)
    return out


def classify_all(clf: TileClassifier, crops: list[np.ndarray], batch: int = 256) -> tuple[np.ndarray, np.ndarray]:
    probs, flips = [], []
    for i in range(0, len(crops), batch):
        p, f = clf.classify(crops[i:i + batch])
        probs.append(p)
        flips.append(f)
    return np.concatenate(probs), np.concatenate(flips)


# ---- synthetic held-out set ------------------------------------------------------------------

def synth_params(set_dir: Path, seed: int, per_class: int, size: int, gen: str = "v3") -> dict[str, dict]:
    """Camera parameters (`Crop.params`) of every crop of a held-out set, by file name.

    Re-rendered from the seed (the set's PNGs don't carry them) and cached as params.json; every
    re-rendered crop must equal its PNG, which proves the parameters belong to that crop."""
    from train_classifier import folder_name, make_crop_maker, scene_crops

    cache = set_dir / "params.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    maker = make_crop_maker(SHARED, size, 0, gen)
    out: dict[str, dict] = {}
    for cls, name in enumerate(class_names_75()):
        for f in sorted((set_dir / "test" / folder_name(cls, name)).glob("*.png"))[:per_class]:
            k = int(f.stem.split("_")[2])
            crop = scene_crops(maker, seed, 2, cls, k, 1)[0]
            if not np.array_equal(crop.image, cv2.imread(str(f))[..., ::-1]):
                raise RuntimeError(f"{f}: re-rendered crop differs (set made by another generator version?)")
            out[f.name] = crop.params
    cache.write_text(json.dumps(out))
    return out


def eval_synth(clf: TileClassifier, *, seed: int, per_class: int, workers: int, set_dir: Path | None = None,
               split_degraded: bool = True, gen: str = "v3") -> dict:
    """Render (or reuse) the held-out set at the model's input size; `set_dir` measures an
    already rendered set instead (e.g. one rendered at another size, resized by the classifier).
    With `split_degraded`, also the readable and degraded halves (`DEGRADED_RULE`)."""
    from train_classifier import folder_name, render_split
    from tsumo_synth.crops import DEGRADED_RULE, degraded

    out = set_dir or CACHE / (f"test_s{seed}_n{per_class}_{clf.imgsz}px" + ("" if gen == "v3" else f"_{gen}"))
    if set_dir is None:
        render_split(out, "test", 2, per_class, seed, size=clf.imgsz, workers=workers, views=1, gen=gen)
    crops, truth, flip_truth, files = [], [], [], []
    for cls, name in enumerate(class_names_75()):
        for f in sorted((out / "test" / folder_name(cls, name)).glob("*.png"))[:per_class]:
            crops.append(cv2.imread(str(f))[..., ::-1].copy())
            turned = name.endswith(FLIP_SUFFIX)
            truth.append(name[: -len(FLIP_SUFFIX)] if turned else name)
            flip_truth.append(None if name == "back" else turned)
            files.append(f.name)
    probs, flips = classify_all(clf, crops)
    pred = [TILE_CLASSES[i] for i in probs.argmax(1)]
    fpred = [bool(f[1] > f[0]) for f in flips]
    res = _summary(truth, pred, flip_truth, fpred)
    res["set"] = str(out.resolve().relative_to(REPO)) if out.resolve().is_relative_to(REPO) else str(out)
    if split_degraded:
        params = synth_params(out, seed, per_class, clf.imgsz if set_dir is None else _set_size(out), gen)
        bad = [degraded(params[f]) for f in files]
        res["degraded_rule"] = DEGRADED_RULE
        for part, want in (("readable", False), ("degraded", True)):
            idx = [i for i, b in enumerate(bad) if b == want]
            res[part] = _summary([truth[i] for i in idx], [pred[i] for i in idx], [flip_truth[i] for i in idx],
                                 [fpred[i] for i in idx])
    return res


def _set_size(set_dir: Path) -> int:
    return int(str(set_dir.name).split("_")[3].split("px")[0])


# ---- hand tiles of held-out rendered photos ----------------------------------------------------

# Fixed before looking at results (session 3): a photo tile is "degraded" when less than 70 % of
# it is visible (a neighbour, a hand or the photo edge covers it) or it is under 24 px long.
PHOTO_DEGRADED_RULE = "visible share < 0.7 or the tile's box < 24 px on its long side"


def photo_crops(set_dir: Path, size: int, margin: float, *, limit: int | None = None, offset=None,
                keep_patch: bool = False, split: str | None = None):
    """(crops, entries) for the hand tiles of the photos of a `tsumo_synth.photos` set (`offset`:
    every box edge moved by these shares of the box, see `photo_tile_crops`; `keep_patch`: entries
    also hold the patch and box each crop was cut from, for test-time augmentation)."""
    from tsumo_synth.crops import photo_tile_crops
    from tsumo_synth.legibility import MIN_LONG_PX, MIN_VISIBLE, legible, load_ink

    rows = [json.loads(line) for line in (set_dir / "labels.jsonl").read_text().splitlines() if line.strip()]
    rows = [r for r in rows if split is None or r.get("split") == split]
    inks = load_ink(set_dir) or {}
    crops, entries = [], []
    for row in rows[:limit]:
        if not any(t["in_hand"] for t in row["tiles"]):
            continue
        image = cv2.imread(str(set_dir / row["image"]))[..., ::-1].copy()
        ink = inks.get(row["image"], [None] * len(row["tiles"]))
        # photo_tile_crops cuts every hand tile, in hand order
        hand_ink = [k for t, k in sorted(((t, k) for t, k in zip(row["tiles"], ink) if t["in_hand"]),
                                         key=lambda tk: tk[0]["index"])]
        cut = photo_tile_crops(image, row["tiles"], size=size, margin=margin, offset=offset, keep_patch=keep_patch)
        for c, k in zip(cut, hand_ink, strict=True):
            crops.append(c.image)
            entries.append({"image": row["image"], "label": c.label, "sideways": c.sideways, "flipped": c.flipped,
                            "degraded": bool(c.visible < MIN_VISIBLE or c.long_px < MIN_LONG_PX),
                            "long_px": c.long_px, "visible": c.visible, "ink": k,
                            "legible": legible(c.label, c.visible, c.long_px, k),
                            **({"patch": c.patch, "box": c.box} if keep_patch else {})})
    return crops, entries


def reads_boxes(clf: TileClassifier) -> bool:
    """Does the classifier read differently from the box than from the crop (test-time augmentation, the
    man-numeral second look, or a half-turn read of upright tiles only, `TileClassifier.classify_boxes`)?"""
    return (clf.tta_below is not None or getattr(clf, "numeral", None) is not None
            or (getattr(clf, "half_turn", None) is not None and clf.half_turn_scope != "all"))


def classify_as_reader(clf: TileClassifier, crops: list[np.ndarray], entries: list[dict], *,
                       keep_patch: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(probs, flips) of `photo_crops` output read as the reader reads it: with the classifier's test-time
    augmentation (`TileClassifier.classify_boxes`, which needs the entries' "patch" and "box") when it has
    one. The patches are dropped from the entries unless `keep_patch` (they are large)."""
    if not reads_boxes(clf):
        return classify_all(clf, crops)
    take = (lambda e, k: e[k]) if keep_patch else (lambda e, k: e.pop(k))
    probs, flips = [], []
    for i in range(0, len(entries), 256):
        part = entries[i:i + 256]
        p, f = clf.classify_boxes([take(e, "patch") for e in part], [take(e, "box") for e in part],
                                  [e["sideways"] for e in part])
        probs.append(p)
        flips.append(f)
    return np.concatenate(probs), np.concatenate(flips)


def _classify_photo_tiles(clf: TileClassifier, set_dir: Path, *, limit: int | None = None, offset=None,
                          split: str | None = None):
    """(probs, flips, entries) of a photo set's hand tiles, read as the reader reads them (`classify_as_reader`);
    `split`: only the photos of that split (a training set's "val")."""
    crops, entries = photo_crops(set_dir, clf.imgsz, clf.margin, limit=limit, offset=offset,
                                 keep_patch=reads_boxes(clf), split=split)
    return (*classify_as_reader(clf, crops, entries), entries)


# Hand-tile size bins (the tile's box, long side, photo px): held-out renders hold mostly 20-40 px tiles
# (as recorded game footage), real phone photos of a hand at the table well over 48 px.
SIZE_BINS: tuple[tuple[str, float, float], ...] = (("<24", 0, 24), ("24-32", 24, 32), ("32-48", 32, 48),
                                                   (">=48", 48, float("inf")))


def by_size(long_px: list[float], truth: list[str], pred: list[str]) -> dict[str, dict]:
    """Accuracy per tile-size bin (`SIZE_BINS`): n, errors, acc (None when a bin is empty)."""
    out = {}
    for name, lo, hi in SIZE_BINS:
        idx = [i for i, px in enumerate(long_px) if lo <= px < hi]
        err = sum(truth[i] != pred[i] for i in idx)
        out[name] = {"n": len(idx), "errors": err, "acc": (len(idx) - err) / len(idx) if idx else None}
    return out


def eval_photos(clf: TileClassifier, set_dir: Path, *, limit: int | None = None) -> dict:
    probs, flips, entries = _classify_photo_tiles(clf, set_dir, limit=limit)
    truth = [e["label"] for e in entries]
    pred = [TILE_CLASSES[i] for i in probs.argmax(1)]
    fpred = [bool(f[1] > f[0]) for f in flips]
    ftruth = [e["flipped"] for e in entries]
    res = _summary(truth, pred, ftruth, fpred)
    res["set"] = str(set_dir)
    res["photos"] = len({e["image"] for e in entries})
    res["degraded_rule"] = PHOTO_DEGRADED_RULE
    splits = [("degraded", "readable", False), ("degraded", "degraded", True)]
    if all(e["legible"] is not None for e in entries):  # the set's ink was measured (tsumo_synth.legibility)
        from tsumo_synth.legibility import LEGIBLE_RULE

        res["legible_rule"] = LEGIBLE_RULE
        splits += [("legible", "legible", True), ("legible", "illegible", False)]
    for key, part, want in splits:
        idx = [i for i, e in enumerate(entries) if e[key] == want]
        res[part] = _summary([truth[i] for i in idx], [pred[i] for i in idx], [ftruth[i] for i in idx],
                             [fpred[i] for i in idx])
    sw = [i for i, e in enumerate(entries) if e["sideways"]]
    res["sideways"] = {"n": len(sw), "acc": sum(truth[i] == pred[i] for i in sw) / max(len(sw), 1)}
    res["by_size"] = by_size([e["long_px"] for e in entries], truth, pred)
    man = [i for i, t in enumerate(truth) if t[-1] == "m"]
    res["man_errors"] = {"all": sum(truth[i] != pred[i] for i in man),
                         "legible": sum(truth[i] != pred[i] for i in man if entries[i]["legible"]),
                         "n": len(man)}
    res["errors_list"] = [f"{e['image']}: {t}→{p} (sideways={e['sideways']}, {e['long_px']:.0f}px, vis {e['visible']:.2f})"
                          for e, t, p in zip(entries, truth, pred) if t != p]
    return res


# Box shifts of the steadiness measure: the box moved by `s` of its width left/right and of its
# height up/down, and grown/shrunk by `s` on every edge (the detector's boxes of one tile differ
# by a few pixels, up to ~10 % of a side, between photos and between its training epochs).
def box_shifts(s: float) -> list[tuple[float, float, float, float]]:
    return [(s, 0, s, 0), (-s, 0, -s, 0), (0, s, 0, s), (0, -s, 0, -s), (-s, -s, s, s), (s, s, -s, -s)]


def eval_steadiness(clf: TileClassifier, set_dir: Path, *, shift: float = 0.05, limit: int | None = None) -> dict:
    """Does the read stay the same when the box moves? Share of the hand tiles whose class under
    every one of `box_shifts(shift)` equals the class read from the exact box ("steady"), the
    share read right under all seven boxes, and the accuracy over the shifted boxes."""
    probs, _, entries = _classify_photo_tiles(clf, set_dir, limit=limit)
    base = probs.argmax(1)
    truth = np.array([TILE_CLASSES.index(e["label"]) for e in entries])
    same = np.ones(len(entries), bool)
    right = base == truth
    shifted_right = []
    for off in box_shifts(shift):
        p2, _, e2 = _classify_photo_tiles(clf, set_dir, limit=limit, offset=off)
        if len(e2) != len(entries):  # a box may degenerate only for absurd shifts
            raise ValueError(f"shift {off}: {len(e2)} crops for {len(entries)} tiles")
        pred = p2.argmax(1)
        same &= pred == base
        right &= pred == truth
        shifted_right.append(float((pred == truth).mean()))
    return {"set": str(set_dir), "shift": shift, "n": len(entries), "steady": float(same.mean()),
            "right_under_all": float(right.mean()), "acc_shifted": float(np.mean(shifted_right)),
            "acc_exact": float((base == truth).mean())}


# ---- real-dev -----------------------------------------------------------------------------------

def real_dev_crops(size: int, margin: float, boxes_path: Path = REAL_DEV_BOXES) -> tuple[list[np.ndarray], list[dict]]:
    from vision.io import load_image

    doc = json.loads(boxes_path.read_text())
    images: dict[str, np.ndarray] = {}
    crops, entries = [], []
    for e in doc["tiles"]:
        if e["image"] not in images:
            images[e["image"]] = load_image(SHARED / "data" / "real-dev" / e["image"])
        crops.append(crop_tile(images[e["image"]], e["box"], e["sideways"], size=size, margin=margin))
        entries.append(e)
    return crops, entries


def eval_real_dev(clf: TileClassifier) -> dict:
    from vision.io import load_image

    crops, entries = real_dev_crops(clf.imgsz, clf.margin)
    if reads_boxes(clf):  # as the reader reads them: from the photo and the box
        images = {e["image"]: load_image(SHARED / "data" / "real-dev" / e["image"]) for e in entries}
        probs, flips = clf.classify_boxes([images[e["image"]] for e in entries], [e["box"] for e in entries],
                                          [e["sideways"] for e in entries])
    else:
        probs, flips = classify_all(clf, crops)
    truth = [e["label"] for e in entries]
    pred = [TILE_CLASSES[i] for i in probs.argmax(1)]
    res = _summary(truth, pred, [e["flipped"] for e in entries], [bool(f[1] > f[0]) for f in flips])
    res["per_image"] = {}
    for e, p in zip(entries, pred):
        row = res["per_image"].setdefault(e["image"], {"n": 0, "correct": 0, "errors": []})
        row["n"] += 1
        row["correct"] += int(p == e["label"])
        if p != e["label"]:
            row["errors"].append(f"{e['label']}→{p}")
    return res


# ---- Chinese split ----------------------------------------------------------------------------

def eval_chinese(clf: TileClassifier, split: str) -> dict:
    from tsumo_synth.crops import chinese_boxes

    split_dir = SHARED / "data" / "real" / "chinese-mahjong-detection-v4" / split
    boxes = chinese_boxes(split_dir)
    crops, truth = [], []
    img_cache: dict[Path, np.ndarray] = {}
    for rb in boxes:
        if rb.image not in img_cache:
            img_cache.clear()
            img_cache[rb.image] = cv2.imread(str(rb.image))[..., ::-1].copy()
        crops.append(crop_tile(img_cache[rb.image], rb.box, rb.sideways, size=clf.imgsz, margin=clf.margin))
        truth.append(rb.label)
    probs, _ = classify_all(clf, crops)
    pred = [TILE_CLASSES[i] for i in probs.argmax(1)]
    res = _summary(truth, pred, [], [])
    res["split"] = split
    return res


def latency(clf: TileClassifier, batch: int = 14, repeats: int = 20) -> dict:
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 255, (batch, clf.imgsz, clf.imgsz, 3), dtype=np.uint8)
    clf.classify(crops)
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        clf.classify(crops)
        ts.append((time.perf_counter() - t) * 1000)
    return {"batch": batch, "median_ms": float(np.median(ts)), "p90_ms": float(np.percentile(ts, 90))}


def markdown(results: dict) -> str:
    lines = []
    photo_sets = [k for k in results if k.startswith("photos")]  # "photos", then "photos_<set>" for more sets
    for key in (*photo_sets, "synth", "real_dev", "chinese"):
        r = results.get(key)
        if not r:
            continue
        name = f"{key} ({Path(r['set']).name})" if key in photo_sets else key
        lines.append(f"### {name}: {r['acc'] * 100:.2f} % of {r['n']}" + (
            f", flip {r['flip_acc'] * 100:.2f} % of {r['flip_n']}" if "flip_acc" in r else ""))
        lines.append("")
        for good, bad, rule in (("readable", "degraded", "degraded_rule"), ("legible", "illegible", "legible_rule")):
            if good not in r:
                continue
            lines.append(f"{bad if good == 'readable' else good} = {r[rule]}")
            lines.append("")
            for part in (good, bad):
                pr = r[part]
                if pr["n"]:
                    lines.append(f"- {part}: {pr['acc'] * 100:.2f} % of {pr['n']} ({pr['errors']} errors)"
                                 + (f", flip {pr['flip_acc'] * 100:.2f} %" if "flip_acc" in pr else ""))
            lines.append("")
        if "by_size" in r:
            lines.append("| tile long side | n | errors | acc |")
            lines.append("|---|---:|---:|---:|")
            for name, b in r["by_size"].items():
                acc = "—" if b["acc"] is None else f"{b['acc'] * 100:.1f} %"
                lines.append(f"| {name} px | {b['n']} | {b['errors']} | {acc} |")
            lines.append("")
        lines.append("| class | n | correct | acc | most confused with |")
        lines.append("|---|---:|---:|---:|---|")
        for c, row in r["per_class"].items():
            conf = ", ".join(f"{k}×{v}" for k, v in list(row.get("confused_with", {}).items())[:3])
            lines.append(f"| {c} | {row['n']} | {row['correct']} | {row['acc'] * 100:.1f} % | {conf} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="eval_classifier", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=REPO / "models" / "tile_classifier.onnx")
    ap.add_argument("--synth-seed", type=int, default=1001, help="held-out rendering seed (training uses 1)")
    ap.add_argument("--synth-per-class", type=int, default=40, help="per model class (75), i.e. ×2 per label")
    ap.add_argument("--synth-dir", type=Path, default=None,
                    help="measure this already rendered held-out set (…/test_s1001_n20_48px) instead of rendering one")
    ap.add_argument("--synth-gen", default="v3", help="generator version of the held-out crop set (v3, v4)")
    ap.add_argument("--no-synth", action="store_true")
    ap.add_argument("--photos", type=Path, nargs="*", default=[REPO / "cache" / "synth" / "det_test_h"],
                    help="held-out rendered photo sets (tsumo_synth.photos output) whose hand tiles to measure; "
                         "none: skip")
    ap.add_argument("--steady", type=float, default=None, metavar="SHIFT",
                    help="also measure box-shift steadiness on the first photo set (boxes moved by SHIFT, e.g. 0.05)")
    ap.add_argument("--tta", default="model", metavar="BELOW",
                    help="test-time augmentation of the photo sets: re-read tiles whose top probability is under "
                         "BELOW from shifted boxes ('model': as the model records, 'off': never)")
    ap.add_argument("--half-turn", choices=("model", "off"), default="model",
                    help="the half-turn second read: as the model's metadata says ('model'), or 'off' (the plain read)")
    ap.add_argument("--numeral", default="model", metavar="PATH",
                    help="man-numeral second look: 'model' (the file the model's metadata names, if any), 'off', "
                         "or a specialist ONNX")
    ap.add_argument("--numeral-below", type=float, default=None, help="gate: top-1 probability under this")
    ap.add_argument("--numeral-alpha", type=float, default=None, help="exponent of the specialist's probabilities")
    ap.add_argument("--numeral-mode", default=None, help="combination: man | product")
    ap.add_argument("--numeral-shift", type=float, default=None, help="specialist views: box + 4 moved by this share")
    ap.add_argument("--no-real-dev", action="store_true")
    ap.add_argument("--chinese", default="test", help="Chinese split to measure, or 'none'")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--report", type=Path, default=None, help="also write per-class tables (markdown)")
    ap.add_argument("--json", type=Path, default=None, help="also write the JSON result to this file")
    args = ap.parse_args(argv)
    if not args.model.is_file():
        print(f"eval_classifier: error: model not found: {args.model}", file=sys.stderr)
        return 2
    try:
        tta = {"model": "model", "off": None}[args.tta] if args.tta in ("model", "off") else float(args.tta)
    except ValueError:
        print(f"eval_classifier: error: --tta takes a probability, 'model' or 'off', got {args.tta!r}", file=sys.stderr)
        return 2
    numeral = {"model": "model", "off": None}.get(args.numeral, args.numeral)
    clf = TileClassifier(args.model, threads=args.threads, tta_below=tta, numeral=numeral,
                         numeral_below=args.numeral_below, numeral_alpha=args.numeral_alpha,
                         numeral_mode=args.numeral_mode, numeral_shift=args.numeral_shift,
                         half_turn="model" if args.half_turn == "model" else None)
    results: dict = {"model": str(args.model), "size_mb": round(args.model.stat().st_size / 1e6, 2), "imgsz": clf.imgsz,
                     "tta_below": clf.tta_below,
                     "half_turn": None if clf.half_turn is None else {
                         "mode": clf.half_turn, "scope": clf.half_turn_scope, "below": clf.half_turn_below},
                     "numeral": None if clf.numeral is None else {
                         "model": str(clf.numeral.path), "below": clf.numeral_below, "alpha": clf.numeral_alpha,
                         "mode": clf.numeral_mode, "shift": clf.numeral_shift}}
    photo_sets = [p for p in args.photos if (p / "labels.jsonl").is_file()]
    for p in args.photos:
        if p not in photo_sets:
            print(f"eval_classifier: note: {p} has no labels.jsonl (render it with python -m tsumo_synth.photos); "
                  "skipped", file=sys.stderr)
    for i, p in enumerate(photo_sets):
        results["photos" if i == 0 else f"photos_{p.name}"] = eval_photos(clf, p)
    if args.steady and photo_sets:
        results["steadiness"] = eval_steadiness(clf, photo_sets[0], shift=args.steady)
    if not args.no_synth:
        results["synth"] = eval_synth(clf, seed=args.synth_seed, per_class=args.synth_per_class, workers=args.workers,
                                      set_dir=args.synth_dir, gen=args.synth_gen)
    if not args.no_real_dev:
        results["real_dev"] = eval_real_dev(clf)
    if args.chinese != "none":
        results["chinese"] = eval_chinese(clf, args.chinese)
    results["latency"] = latency(clf)
    if args.report:
        args.report.write_text(markdown(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))
    def short(v):
        if not isinstance(v, dict):
            return v
        return {kk: short(vv) for kk, vv in v.items() if kk not in ("per_class", "errors_list", "degraded_rule", "legible_rule")}

    brief = {k: short(v) for k, v in results.items()}
    print(json.dumps(brief, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
