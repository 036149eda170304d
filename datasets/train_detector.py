"""Train the one-class tile detector (ultralytics YOLOv8, CPU) and export it to ONNX with metadata.

Run with the training virtualenv (torch + ultralytics live there, not in the runtime):

    .venv-train/bin/python datasets/train_detector.py \
        --synth cache/synth/det_v1 --real ../shared/data/real/chinese-mahjong-detection-v4 \
        --hours 0.4 --out models/tile_detector.onnx

Data: the rendered photos of `python -m tsumo_synth.photos` (their `images/train`, validated on
`images/val`) plus the real photos of the Chinese set's `valid/` split with every box mapped to
class 0 (its `test/` split is held out for evaluation; real-dev is never used). The model is
YOLOv8 built from a yaml (no pretrained weights: nothing is downloaded) scaled down (see
`--scale`), so it runs well under the detector's latency budget on two CPU threads.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for _p in (REPO / "datasets", REPO):  # the synth package and `vision` (classes), as from the repo root
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from checkpoint_soup import average_checkpoints  # noqa: E402
from onnx_checkpoint import freeze_batchnorm  # noqa: E402  (the --freeze-bn callback, shared with train_classifier)
from tsumo_synth.paths import work_cache  # noqa: E402
from vision.classes import CLASS_INDEX, TILE_CLASSES  # noqa: E402

CACHE = work_cache(REPO)  # runs, data lists, mapped real photos (TSUMO_TRAIN_CACHE moves them)

# ultralytics must run offline and keep its settings/fonts inside the repo's cache
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_CONFIG_DIR", str(REPO / ".cache" / "yolo"))
os.environ.setdefault("MPLCONFIGDIR", str(REPO / ".cache" / "mpl"))
os.environ.setdefault("OMP_NUM_THREADS", "1")

DEFAULT_SCALE = (0.33, 0.1875, 512)  # depth, width, max channels (YOLOv8n is 0.33, 0.25, 1024)
CONF_DEFAULT = 0.25
IOU_DEFAULT = 0.6


def _ensure_fonts() -> None:
    """ultralytics wants Arial.ttf for its plots; give it matplotlib's DejaVuSans (no download)."""
    cfg = Path(os.environ["YOLO_CONFIG_DIR"])
    cfg.mkdir(parents=True, exist_ok=True)
    Path(os.environ["MPLCONFIGDIR"]).mkdir(parents=True, exist_ok=True)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (cfg / name).exists():
            import matplotlib

            src = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
            shutil.copy(src, cfg / name)


def prepare_real(real_dir: Path, out: Path, split: str = "valid") -> Path:
    """Copy a split of the Chinese set with every box relabelled class 0 ("tile"). Returns images dir."""
    src_img = real_dir / split / "images"
    src_lab = real_dir / split / "labels"
    if not src_img.is_dir():
        raise SystemExit(f"no images at {src_img}")
    dst_img = out / "images" / split
    dst_lab = out / "labels" / split
    dst_img.mkdir(parents=True, exist_ok=True)
    dst_lab.mkdir(parents=True, exist_ok=True)
    n = 0
    for img in sorted(src_img.iterdir()):
        if img.suffix.lower() not in (".jpg", ".jpeg", ".png"):
            continue
        target = dst_img / img.name
        if not target.exists():
            shutil.copy(img, target)
        lab = src_lab / (img.stem + ".txt")
        lines = []
        if lab.exists():
            for line in lab.read_text().splitlines():
                parts = line.split()
                if len(parts) == 5:
                    lines.append("0 " + " ".join(parts[1:]))
        (dst_lab / (img.stem + ".txt")).write_text("\n".join(lines) + ("\n" if lines else ""))
        n += 1
    print(f"real {split}: {n} photos → {dst_img}", file=sys.stderr)
    return dst_img


def face_labels(synth: Path, out: Path, *, min_side: float = 3.0) -> Path:
    """A view of the rendered set `synth` for a one-stage detector (`--faces`): its images linked, every
    tile's box labelled with its face's class (`vision.classes.TILE_CLASSES`: 34 + red fives + face-down)
    instead of class 0, from the set's labels (`labels.jsonl`; the same boxes and `min_side` as
    `tsumo_synth.photos.yolo_lines`). Returns the view's folder (its `images/train`, `images/val`)."""
    for line in (synth / "labels.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        img = Path(row["image"])  # images/<split>/<name>.jpg
        split = img.parent.name
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        link = out / "images" / split / img.name
        if not link.exists():
            link.symlink_to((synth / img).resolve())
        w, h = row["width"], row["height"]
        lines = [f"{CLASS_INDEX[t['cls']]} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} "
                 f"{(y2 - y1) / h:.6f}" for t in row["tiles"] for x1, y1, x2, y2 in [t["box"]]
                 if x2 - x1 >= min_side and y2 - y1 >= min_side]
        (out / "labels" / split / (img.stem + ".txt")).write_text("\n".join(lines) + ("\n" if lines else ""))
    return out


def model_yaml(scale: tuple[float, float, int], out: Path, nc: int = 1) -> Path:
    import yaml
    import ultralytics

    base = Path(ultralytics.__file__).parent / "cfg" / "models" / "v8" / "yolov8.yaml"
    cfg = yaml.safe_load(base.read_text())
    cfg["nc"] = nc
    cfg["scales"] = {"n": list(scale)}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return out


def add_metadata(onnx_path: Path, meta: dict) -> None:
    """Record what `vision.detect` needs (input size, thresholds) in the ONNX file itself."""
    import onnx

    model = onnx.load(str(onnx_path))
    existing = {p.key: p for p in model.metadata_props}
    for k, v in meta.items():
        if k in existing:
            existing[k].value = str(v)
        else:
            p = model.metadata_props.add()
            p.key, p.value = k, str(v)
    onnx.save(model, str(onnx_path))


def export(weights: Path, out: Path, *, imgsz: int, conf: float, iou: float, recipe: dict,
           classes: list[str] | None = None) -> None:
    """Weights -> dynamic-shape ONNX at `out`, with what `vision.detect` reads back in its metadata."""
    from ultralytics import YOLO

    exported = Path(YOLO(str(weights)).export(format="onnx", imgsz=imgsz, dynamic=True, simplify=True, opset=17))
    out.parent.mkdir(parents=True, exist_ok=True)
    if exported.resolve() != out.resolve():  # ultralytics writes next to the weights
        shutil.copy(exported, out)
    add_metadata(out, {
        "tsumo_model": "tile_detector" if classes is None else "tile_detector_faces", "tsumo_imgsz": imgsz,
        "tsumo_conf": conf, "tsumo_iou": iou, "tsumo_classes": json.dumps(classes or ["tile"]),
        "tsumo_recipe": json.dumps(recipe),
    })
    print(json.dumps({"onnx": str(out), "bytes": out.stat().st_size, **recipe}))


def init_mismatch(model, init: Path) -> tuple[list[str], int]:
    """(names of the tensors of `model` the checkpoint `init` has no same-shaped tensor for, count of all).
    Why: ultralytics transfers only the tensors whose shapes match and carries on, so an --init
    of another width (the shipped detector is 0.125 wide, DEFAULT_SCALE 0.1875) silently trains
    mostly from scratch (session 19: 95 of 355 tensors, validation mAP50 0.015 after an epoch)."""
    import torch

    ckpt = torch.load(str(init), map_location="cpu", weights_only=False)
    src = (ckpt.get("ema") or ckpt.get("model")) if isinstance(ckpt, dict) else ckpt
    theirs = src.float().state_dict() if hasattr(src, "state_dict") else dict(src)
    ours = model.model.state_dict()
    missing = [k for k, v in ours.items() if k not in theirs or tuple(theirs[k].shape) != tuple(v.shape)]
    return missing, len(ours)


def is_class_head(name: str) -> bool:
    """A tensor of the Detect head's class branch (`model.22.cv3.*`): the only ones a one-stage (`--faces`)
    model started from the one-class detector does not share with it (the branch is max(channels, classes)
    wide, so with 38 classes every layer of it changes shape, not only the last)."""
    parts = name.split(".")
    return len(parts) >= 3 and parts[2] == "cv3"


def epoch_checkpoints(weights_dir: Path) -> list[Path]:
    """ultralytics' `epoch{N}.pt` of a run (N counted from 0), in epoch order."""
    found = [f for f in weights_dir.glob("epoch*.pt") if f.stem[5:].isdigit()]
    return sorted(found, key=lambda f: int(f.stem[5:]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--synth", type=Path, action="append", default=[],
                    help="rendered dataset folder(s) from tsumo_synth.photos or tsumo_synth.turn (repeatable; "
                         "a folder given twice is listed twice per epoch)")
    ap.add_argument("--real", type=Path, default=REPO.parent / "shared" / "data" / "real" / "chinese-mahjong-detection-v4",
                    help="Chinese set root (its valid/ split is trained on); 'none' to skip")
    ap.add_argument("--real-repeat", type=int, default=2, help="list the real photos this many times (they are few)")
    ap.add_argument("--imgsz", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--hours", type=float, default=None, help="wall-clock budget (overrides --epochs)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--workers", type=int, default=1, help="data-loader processes (the machine is shared)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (the machine is shared)")
    ap.add_argument("--scale", type=str, default=",".join(map(str, DEFAULT_SCALE)), help="depth,width,max_channels")
    ap.add_argument("--init", type=Path, default=None, help="start from these weights (.pt) instead of scratch")
    ap.add_argument("--warmup", type=float, default=1.0, help="warm-up epochs (ultralytics' 3 waste short CPU runs)")
    ap.add_argument("--mosaic", type=float, default=0.5,
                    help="share of mosaic samples (mosaic halves tile sizes; photos show them larger)")
    ap.add_argument("--close-mosaic", type=int, default=2, help="last epochs without mosaic")
    ap.add_argument("--flipud", type=float, default=0.5,
                    help="share of samples flipped upside down (0: none — e.g. for the reader's closer views, "
                         "which are turned so the row is level: tsumo_synth.closer)")
    ap.add_argument("--lr0", type=float, default=None, help="initial learning rate (default: ultralytics' choice)")
    ap.add_argument("--optimizer", type=str, default="AdamW", help="optimizer when --lr0 is given (SGD, AdamW)")
    ap.add_argument("--save-period", type=int, default=-1,
                    help="also keep the weights every N epochs (cache/train/<name>/eN.pt, N counted from 1; "
                         "a timed stop's last, partial epoch included)")
    ap.add_argument("--freeze-bn", action="store_true",
                    help="keep every BatchNorm in eval mode while training (statistics fixed, affine weights "
                         "trained): for an --init rebuilt from an ONNX export by onnx_checkpoint.py, whose "
                         "train-mode batch statistics are not the shipped function")
    ap.add_argument("--faces", action="store_true",
                    help="one-stage: a detector of the 38 tile classes (boxes labelled with their face; needs "
                         "--real none), to measure against the two-stage design (models/tile_detector.md)")
    ap.add_argument("--name", type=str, default="detector")
    ap.add_argument("--conf", type=float, default=CONF_DEFAULT, help="score threshold stored in the ONNX")
    ap.add_argument("--iou", type=float, default=IOU_DEFAULT, help="NMS IoU threshold stored in the ONNX")
    ap.add_argument("--out", type=Path, default=REPO / "models" / "tile_detector.onnx")
    ap.add_argument("--serve-imgsz", type=int, default=None,
                    help="input size stored in the ONNX for inference (default: the training --imgsz)")
    ap.add_argument("--export-only", type=Path, default=None, metavar="WEIGHTS",
                    help="no training: export these weights (.pt) to --out with the metadata")
    ap.add_argument("--average", type=Path, nargs="+", default=None, metavar="CKPT",
                    help="no training: write the weight average of these checkpoints to --average-out "
                         "(then export it with --export-only)")
    ap.add_argument("--average-weights", type=float, nargs="+", default=None, metavar="W",
                    help="one weight per --average checkpoint (default: uniform; normalised to sum 1)")
    ap.add_argument("--average-out", type=Path, default=None, metavar="OUT.pt")
    args = ap.parse_args(argv)

    _ensure_fonts()
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(max(1, args.threads))
    if args.average:
        if not args.average_out:
            raise SystemExit("--average needs --average-out OUT.pt")
        average_checkpoints(args.average, args.average_out, args.average_weights)
        print(json.dumps({"average": [str(p) for p in args.average], "weights": args.average_weights,
                          "out": str(args.average_out)}))
        if not args.export_only:
            return 0
    if args.export_only:
        w = args.export_only.resolve()  # cache/runs/<name>/weights/x.pt or cache/train/<name>/x.pt
        found = [f for f in (w.parent / "recipe.json", CACHE / "train" / w.parents[1].name / "recipe.json") if f.exists()]
        recipe = json.loads(found[0].read_text()) if found else {}
        recipe["weights"] = str(args.export_only)
        export(args.export_only, args.out, imgsz=args.serve_imgsz or args.imgsz, conf=args.conf, iou=args.iou,
               recipe=recipe, classes=list(TILE_CLASSES) if recipe.get("faces") else None)
        return 0

    if not args.synth:
        raise SystemExit("give at least one --synth dataset (or --export-only WEIGHTS)")
    if args.faces and str(args.real).lower() != "none":
        raise SystemExit("--faces needs --real none (the real photos' classes are not all riichi faces)")
    names = list(TILE_CLASSES) if args.faces else ["tile"]
    work = CACHE / "train" / args.name
    work.mkdir(parents=True, exist_ok=True)
    train_dirs = []
    val_dirs = []
    for s in args.synth:
        if not (s / "images" / "train").is_dir():
            raise SystemExit(f"{s}: not a tsumo_synth.photos dataset (run python -m tsumo_synth.photos first)")
        if args.faces:
            s = face_labels(s, work / "faces" / s.resolve().name)
        train_dirs.append(str((s / "images" / "train").resolve()))
        if (s / "images" / "val").is_dir() and any((s / "images" / "val").iterdir()) and \
                str((s / "images" / "val").resolve()) not in val_dirs:
            val_dirs.append(str((s / "images" / "val").resolve()))
    if str(args.real).lower() != "none":
        real_imgs = prepare_real(args.real, CACHE / "real" / "chinese_v4_tile", "valid")
        train_dirs += [str(real_imgs.resolve())] * max(1, args.real_repeat)
    data = work / "data.yaml"
    import yaml

    data.write_text(yaml.safe_dump({"path": str(work), "train": train_dirs, "val": val_dirs or train_dirs[:1],
                                    "names": dict(enumerate(names))}, sort_keys=False))
    scale = tuple(float(x) for x in args.scale.split(","))
    scale = (scale[0], scale[1], int(scale[2]))
    cfg = model_yaml(scale, work / "tile_detector.yaml", nc=len(names))
    model = YOLO(str(cfg))
    if args.init:
        missing, total = init_mismatch(model, args.init)
        if args.faces:  # the one-class detector's weights: all but the new class head must fit
            missing = [k for k in missing if not is_class_head(k)]
        if missing:
            raise SystemExit(f"--init {args.init}: {len(missing)} of {total} tensors do not fit a model of --scale "
                             f"{args.scale} (give the --scale the checkpoint was trained at; the shipped "
                             f"detector's is in models/tile_detector.onnx's tsumo_recipe)")
    if args.freeze_bn:
        model.add_callback("on_train_batch_start", freeze_batchnorm)
    # (a one-stage model reads faces, and a mirrored face is no tile: no flips for --faces)
    flipud, fliplr = (0.0, 0.0) if args.faces else (args.flipud, 0.5)
    t0 = time.time()
    train_kw = dict(
        data=str(data), imgsz=args.imgsz, epochs=args.epochs, batch=args.batch, workers=args.workers,
        device="cpu", pretrained=str(args.init) if args.init else False, project=str(CACHE / "runs"), name=args.name, exist_ok=True,
        cache="ram", amp=False, plots=False, seed=0, deterministic=False,
        # geometry: our renders already vary rotation/perspective with exact boxes; flips are free
        degrees=0.0, flipud=flipud, fliplr=fliplr, perspective=0.0, scale=0.5, translate=0.1,
        mosaic=args.mosaic, close_mosaic=args.close_mosaic, mixup=0.0, hsv_h=0.02, hsv_s=0.6, hsv_v=0.4,
        patience=100, val=True, verbose=False, warmup_epochs=args.warmup, save_period=args.save_period,
    )
    if args.lr0 is not None:
        train_kw.update(lr0=args.lr0, optimizer=args.optimizer)
    if args.hours:
        train_kw["time"] = args.hours
    recipe = {"synth": [str(s) for s in args.synth], "real": str(args.real), "real_repeat": args.real_repeat,
              "freeze_bn": args.freeze_bn, "flipud": flipud,
              "imgsz": args.imgsz, "scale": list(scale), "epochs": args.epochs, "hours": args.hours, "batch": args.batch,
              "init": str(args.init) if args.init else None, "mosaic": args.mosaic, "close_mosaic": args.close_mosaic,
              "lr0": args.lr0, "optimizer": args.optimizer if args.lr0 is not None else "auto", "name": args.name,
              "faces": args.faces}
    (work / "recipe.json").write_text(json.dumps(recipe))
    model.train(**train_kw)
    minutes = (time.time() - t0) / 60
    best = CACHE / "runs" / args.name / "weights" / "best.pt"
    if not best.exists():
        best = CACHE / "runs" / args.name / "weights" / "last.pt"
    recipe["train_minutes"] = round(minutes, 1)
    for f in epoch_checkpoints(CACHE / "runs" / args.name / "weights"):
        shutil.copy(f, work / f"e{int(f.stem[5:]) + 1}.pt")
    (work / "recipe.json").write_text(json.dumps(recipe))
    export(best, args.out, imgsz=args.serve_imgsz or args.imgsz, conf=args.conf, iou=args.iou, recipe=recipe,
           classes=names if args.faces else None)
    shutil.copy(best, work / "best.pt")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
