"""Train the tile crop classifier and export it to `models/tile_classifier.onnx`.

Run in the training virtualenv (ultralytics + torch), from the repo root:

    nice -n 10 .venv-train/bin/python datasets/train_classifier.py --out models/tile_classifier.onnx

Steps (each skipped when its output exists, so an interrupted run resumes):
1. render synthetic crops (`tsumo_synth.crops`) into an image-folder dataset under
   `cache/classifier/synth_s<seed>_n<per-class>/{train,val}/<NN_class>/*.png`, reproducible per seed;
2. optionally add real crops from the Chinese-set photos (`--real chinese`), oriented by a
   previous model (`--orient-model`) because their boxes don't say which way up a tile is;
3. train an ultralytics classify model from a small yaml (75 classes = 38 labels upright + 37
   turned 180°) on the CPU;
4. export ONNX (opset 17, fixed H×W, dynamic batch) and record imgsz, crop margin and class order
   in its metadata, which `vision.classify.TileClassifier` reads.

`main(argv)` is what `tsumo train classifier …` calls.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for p in (REPO, REPO / "datasets"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import numpy as np  # noqa: E402

from checkpoint_soup import average_checkpoints  # noqa: E402
from tsumo_synth.paths import work_cache  # noqa: E402
from vision.classes import HALF_TURN_SYMMETRIC  # noqa: E402
from vision.classify import CROP_MARGIN, FLIP_SUFFIX, INPUT_SIZE, class_names_75  # noqa: E402

SHARED = REPO.parent / "shared"
CACHE = work_cache(REPO) / "classifier"  # rendered crops, mixes, runs (TSUMO_TRAIN_CACHE moves them)

# Narrow YOLOv8-cls-style networks for small square tile crops (75 classes). The stem stays thin
# (it runs at the highest resolution); width goes where the maps are small and cheap.
def _arch(mid: int, top: int, mid_repeats: int = 1) -> str:
    """An ultralytics classify yaml: Conv16-Conv32-C2f32, then `mid` and `top` channels."""
    return f"""\
nc: 75
backbone:
  - [-1, 1, Conv, [16, 3, 2]]
  - [-1, 1, Conv, [32, 3, 2]]
  - [-1, 1, C2f, [32, True]]
  - [-1, 1, Conv, [{mid}, 3, 2]]
  - [-1, {mid_repeats}, C2f, [{mid}, True]]
  - [-1, 1, Conv, [{top}, 3, 2]]
  - [-1, 1, C2f, [{top}, True]]
head:
  - [-1, 1, Classify, [nc]]
"""


ARCHS = {
    "small": _arch(64, 128),
    "medium": _arch(96, 192, mid_repeats=2),
    # `small` with its last two stages 1.5x as wide and the same depth (875 k parameters; 1.47x small's
    # latency, 14 crops on 1 thread): what `widen_classifier.py` grows a `small` checkpoint into (session 13)
    "wide": _arch(96, 192),
}


def folder_name(index: int, class_name: str) -> str:
    """Image-folder name that sorts in the model's class order (ultralytics sorts folders)."""
    return f"{index:02d}_{class_name.replace(FLIP_SUFFIX, '_r180')}"


# ---- 1. synthetic crops ------------------------------------------------------------------------

_WORKER: dict = {}


# Generator versions still reproducible from a seed: v3 (runs 5, the v3 held-out set) and v4 = v3 +
# pale back colours + crystal-centre / solid-disc red fives (`TileArtist` options; scenes don't use them).
# v5 = v4 + brush/pen hands for man numerals and winds, a minimum stroke weight, no blank faces (session 15).
GENERATORS = {"v3": {}, "v4": {"light_backs": True, "red_designs": True},
              "v5": {"light_backs": True, "red_designs": True, "v5": True}}


def synth_dir_name(seed: int, per_class: int, views: int, imgsz: int, gen: str = "v3") -> str:
    return f"synth_s{seed}_n{per_class}v{views}_{imgsz}px" + ("" if gen == "v3" else f"_{gen}")


def make_crop_maker(shared: Path, size: int, pool_seed: int = 0, gen: str = "v3"):
    from tsumo_synth import TileArtist
    from tsumo_synth.crops import CropMaker

    artist = TileArtist(Path(shared), seed=0, **GENERATORS[gen])
    return CropMaker(artist, size=size, pool_seed=pool_seed)


def _init_worker(shared: str, size: int, pool_seed: int, gen: str = "v3") -> None:
    _WORKER["maker"] = make_crop_maker(Path(shared), size, pool_seed, gen)


def scene_crops(maker, seed: int, split_id: int, cls: int, k: int, views: int) -> list:
    """The crops of scene k of class `cls` (model class index) in split `split_id` of set `seed`."""
    name = class_names_75()[cls]
    label = name[: -len(FLIP_SUFFIX)] if name.endswith(FLIP_SUFFIX) else name
    rng = np.random.default_rng([seed, split_id, cls, k])
    if label == "back":
        turn = int(rng.choice([0, 180, 90, 270], p=[0.36, 0.36, 0.14, 0.14]))
    elif name.endswith(FLIP_SUFFIX):
        turn = int(rng.choice([180, 90], p=[0.72, 0.28]))
    else:
        turn = int(rng.choice([0, 270], p=[0.72, 0.28]))
    return maker.make_views(label, rng, turn=turn, views=views)


def _render_job(job: tuple[int, int, int, int, int, str, int]) -> int:
    """Render scenes k0..k1 of one class (`views` crops each); each scene's rng is seeded by
    (seed, split, class, k), so a crop does not depend on which worker drew it."""
    import cv2

    seed, split_id, cls, k0, k1, out_dir, views = job
    name = class_names_75()[cls]
    maker = _WORKER["maker"]
    n = 0
    for k in range(k0, k1):
        paths = [Path(out_dir) / f"{split_id}_{cls:02d}_{k:05d}_{v}.png" for v in range(views)]
        if all(p.exists() for p in paths):
            continue
        for path, crop in zip(paths, scene_crops(maker, seed, split_id, cls, k, views)):
            assert crop.class_name == name, (crop.class_name, name)
            cv2.imwrite(str(path), crop.image[..., ::-1])
            n += 1
    return n


def render_split(out: Path, split: str, split_id: int, per_class: int, seed: int, *, size: int,
                 workers: int, views: int = 1, shared: Path = SHARED, pool_seed: int = 0, gen: str = "v3") -> Path:
    """Render `per_class` crops (per_class // views scenes) for each of the 75 classes into
    out/split/<folder>/ (resumable)."""
    from multiprocessing import get_context

    names = class_names_75()
    jobs = []
    chunk = 25
    scenes = -(-per_class // views)
    for cls, name in enumerate(names):
        d = out / split / folder_name(cls, name)
        d.mkdir(parents=True, exist_ok=True)
        for k0 in range(0, scenes, chunk):
            jobs.append((seed, split_id, cls, k0, min(scenes, k0 + chunk), str(d), views))
    t0 = time.time()
    done = 0
    if workers <= 1:
        _init_worker(str(shared), size, pool_seed, gen)
        for j in jobs:
            done += _render_job(j)
    else:
        with get_context("fork").Pool(workers, initializer=_init_worker, initargs=(str(shared), size, pool_seed, gen)) as pool:
            for i, n in enumerate(pool.imap_unordered(_render_job, jobs)):
                done += n
                if i % 20 == 0:
                    print(f"[render {split}] {i + 1}/{len(jobs)} chunks, {done} new crops, {time.time() - t0:.0f}s", flush=True)
    print(f"[render {split}] {done} new crops in {time.time() - t0:.0f}s", flush=True)
    return out / split


CROP_META = "crops.tsv"


def read_crop_meta(photo_dir: Path) -> dict[str, tuple[bool, float, bool]]:
    """crops.tsv of a photo-crop set: relative path -> (sideways, long side px, in hand); {} if absent."""
    f = Path(photo_dir) / CROP_META
    if not f.is_file():
        return {}
    out = {}
    for line in f.read_text().splitlines():
        rel, sw, px, hand = line.split("\t")
        out[rel] = (sw == "1", float(px), hand == "1")
    return out


def render_photo_crops(out: Path, seed: int, n_photos: int, *, size: int, shared: Path = SHARED, gen: str = "v4",
                       views: int = 2, val_every: int = 10, pool_per_label: int = 32, preset: str = "default",
                       shift_jitter: float = 0.08, scale: float = 1.0) -> Path:
    """Crops of every labelled tile (visible ≥ 50 %) of `n_photos` photos rendered by the scene
    renderer (`tsumo_synth.photos.render_one`, photo i drawn from (seed, i)), cut as the reader cuts
    them (`tsumo_synth.crops.photo_tile_crops`): the low camera angles, table light and tile sizes
    of whole-photo renders, which the crop generator only approximates. View 0 uses the tile's
    exact visible box, further views a box moved by N(0, 5 %) per edge and hand tiles turned 180°
    half of the time (tiles outside the hand are cut upright or turned, at random, in every view). Faces come from a face pool
    of their own (`seed`, `pool_per_label` variants per label, generator `gen`), so held-out photo
    sets (pool seed 0) show faces never trained on. Every `val_every`-th photo goes to val/.
    `preset`: the scene renderer's photo recipe (`tsumo_synth.photos.PRESETS`; the held-out sets
    use "default"). `views` 3 adds a view of the hand tiles only with each box edge moved by
    N(0, `shift_jitter`) (the detector's boxes of one tile move by up to ~10 % of its side between
    photos or epochs, and the read must not swing with them); views 0 and 1 stay byte-identical
    to a 2-view render of the same seed (the third view draws from the rng after them).
    `scale` shoots each photo with `scale`² the pixels (`render_one`): a phone photo's tiles are two
    to three times the renders' 20-60 px, and a crop shrunk from 120 px looks sharper than one
    stretched from 30 (scale 1 renders exactly as before).
    Resumable photo by photo (out/done/). Each crop's facts go to out/crops.tsv (`CROP_META`: path,
    sideways flag, the tile's long side in photo px, in hand), for sideways weighting and size splits;
    older sets have no such file and are read as before."""
    import cv2

    from tsumo_synth import TileArtist
    from tsumo_synth.crops import photo_tile_crops
    from tsumo_synth.photos import check_training_seed, render_one
    from tsumo_synth.scene import FacePool

    check_training_seed(seed)
    cv2.setNumThreads(1)
    names = class_names_75()
    for split in ("train", "val"):
        for cls, name in enumerate(names):
            (out / split / folder_name(cls, name)).mkdir(parents=True, exist_ok=True)
    (out / "done").mkdir(parents=True, exist_ok=True)
    artist = FacePool(TileArtist(Path(shared), seed=seed, **GENERATORS[gen]), per_label=pool_per_label, seed=seed)
    t0, written = time.time(), 0
    for i in range(n_photos):
        marker = out / "done" / f"{i:06d}"
        if marker.exists():
            continue
        split = "val" if val_every and i % val_every == val_every - 1 else "train"
        image, labels = render_one(i, seed, artist=artist, preset=preset, scale=scale)
        meta: list[str] = []
        tiles = labels.to_json()["tiles"]
        rng = np.random.default_rng([seed, i, 1])
        for v in range(views if split == "train" else 1):
            crops = photo_tile_crops(image, tiles, size=size, hand_only=v >= 2, min_visible=0.5, min_px=12.0,
                                     rng=rng, jitter=(0.0, 0.05)[v] if v < 2 else shift_jitter,
                                     turn_hand=0.0 if v == 0 else 0.5)
            for j, c in enumerate(crops):
                cls = names.index(c.class_name)
                path = out / split / folder_name(cls, c.class_name) / f"ph{seed}_{i:06d}_{j:03d}_{v}.png"
                tmp = path.with_name(path.stem + ".tmp.png")
                cv2.imwrite(str(tmp), np.ascontiguousarray(c.image[..., ::-1]))
                os.replace(tmp, path)
                meta.append(f"{path.relative_to(out)}\t{int(c.sideways)}\t{c.long_px:.1f}\t{int(c.in_hand)}\n")
                written += 1
        with open(out / CROP_META, "a") as fh:  # one append per photo: a resumed render never splits a photo
            fh.writelines(meta)
        marker.touch()
        if i % 25 == 0:
            print(f"[photos s{seed} {preset}] {i + 1}/{n_photos} photos, {written} new crops, {time.time() - t0:.0f}s", flush=True)
    return out


# ---- 2. real crops from the Chinese-set photos -----------------------------------------------

# Faces that look (nearly) the same after a half turn (`vision.classes.HALF_TURN_SYMMETRIC`): their
# orientation can't be told, nor needs to be; the Chinese set has no red fives.

def add_chinese_crops(out: Path, split_dir: Path, orient_model: Path, *, size: int, min_conf: float = 0.8,
                      copies: int = 2) -> dict:
    """Crop every shared-class box of a Chinese split, orient it with `orient_model`'s flip head,
    write it (and its 180° copy) into the matching class folders. Returns counts."""
    import cv2

    from tsumo_synth.crops import chinese_boxes
    from vision.classify import TileClassifier, crop_tile

    clf = TileClassifier(orient_model)
    names = class_names_75()
    boxes = chinese_boxes(split_dir)
    stats = {"boxes": len(boxes), "kept": 0, "unsure_orientation": 0}
    cache: dict[Path, np.ndarray] = {}
    for i, rb in enumerate(boxes):
        if rb.image not in cache:
            cache.clear()
            cache[rb.image] = cv2.imread(str(rb.image))[..., ::-1].copy()
        img = cache[rb.image]
        crop = crop_tile(img, rb.box, rb.sideways, size=size)
        # the label is known: which way up is decided by P(label) vs P(label turned), so only the
        # model's orientation sense for this one label matters
        p = clf.predict_raw(crop[None])[0]
        up, down = p[names.index(rb.label)], p[names.index(rb.label + FLIP_SUFFIX)]
        if rb.label not in HALF_TURN_SYMMETRIC and max(up, down) / max(up + down, 1e-9) < min_conf:
            stats["unsure_orientation"] += 1
            continue
        upright = crop if up >= down else crop[::-1, ::-1]
        for turned in range(copies):
            im = upright if turned == 0 else upright[::-1, ::-1]
            name = rb.label if turned == 0 else rb.label + FLIP_SUFFIX
            cls = names.index(name)
            d = out / "train" / folder_name(cls, name)
            d.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(d / f"cn_{i:05d}_{turned}.png"), np.ascontiguousarray(im[..., ::-1]))
        stats["kept"] += 1
    return stats


# ---- 3./4. train and export -------------------------------------------------------------------

def _ultralytics_env() -> None:
    cfg = REPO / ".cache" / "yolo"
    cfg.mkdir(parents=True, exist_ok=True)
    (REPO / ".cache" / "mpl").mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cfg))
    os.environ.setdefault("MPLCONFIGDIR", str(REPO / ".cache" / "mpl"))
    font = cfg / "Arial.ttf"
    if not font.exists():  # ultralytics wants Arial.ttf; never download it
        import matplotlib

        src = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
        shutil.copy(src, font)


def _allow_small_imgsz(imgsz: int) -> None:
    """ultralytics rounds every image size up to a multiple of 32 (its detection grid); this
    classifier's net downsamples 16×, so a size like 48 px may stay as it is."""
    import ultralytics.engine.trainer as trainer_mod
    from ultralytics.utils.checks import check_imgsz

    def keep(size, stride=32, min_dim=1, max_dim=2, floor=0):
        return check_imgsz(size, stride=16, min_dim=min_dim, max_dim=max_dim, floor=16)

    if imgsz % 32:
        trainer_mod.check_imgsz = keep


# The trainer's own augmentation (ultralytics classify): light, because the real variety is rendered into the
# crops. scale: RandomResizedCrop keeps (1 - scale, 1) of the area; erasing: RandomErasing probability;
# hsv_*: colour jitter (hue kept small: colour tells red fives and suits apart).
AUGMENT = {"scale": 0.08, "erasing": 0.05, "hsv_h": 0.01, "hsv_s": 0.25, "hsv_v": 0.25}


class FreshChunks:
    """Sampler of a training set of `n` crops that never shows a crop twice: one fixed random order of
    all `n` (seed `seed`), and pass k over the sampler (one epoch) yields positions k*chunk .. (k+1)*chunk
    of it. Past n // chunk passes the order starts again (a warning is printed): size the set to the run.
    Plain Python (no torch): a DataLoader takes any sized iterable of indices as its sampler."""

    def __init__(self, n: int, chunk: int, seed: int = 0):
        if not 0 < chunk <= n:
            raise ValueError(f"chunk must be in 1..{n}, got {chunk}")
        self.n, self.chunk, self.passes = n, chunk, 0
        self.order = np.random.default_rng([seed, n]).permutation(n)

    @property
    def fresh_passes(self) -> int:
        """Passes (epochs) before a crop is shown again."""
        return self.n // self.chunk

    def __len__(self) -> int:
        return self.chunk

    def __iter__(self):
        start = self.passes * self.chunk
        self.passes += 1
        if start + self.chunk > self.n:
            print(f"[fresh] WARNING: pass {self.passes} goes past the {self.n} crops: crops repeat from here",
                  flush=True)
        print(f"[fresh] pass {self.passes}: order positions {start}..{start + self.chunk} of {self.n}", flush=True)
        return iter(self.order[np.arange(start, start + self.chunk) % self.n].tolist())


def _fresh_loader(trainer, chunk: int, seed: int) -> None:
    """on_pretrain_routine_end: the train loader rebuilt around `FreshChunks` (same dataset, batch, workers)."""
    from ultralytics.data.build import InfiniteDataLoader, seed_worker

    old = trainer.train_loader
    ds = old.dataset
    sampler = FreshChunks(len(ds), min(chunk, len(ds)), seed)
    print(f"[fresh] {len(ds)} training crops, {sampler.chunk} per epoch: {sampler.fresh_passes} epochs before any "
          "crop repeats", flush=True)
    new = InfiniteDataLoader(dataset=ds, batch_size=old.batch_size, shuffle=False, sampler=sampler,
                             num_workers=old.num_workers, prefetch_factor=4 if old.num_workers else None,
                             collate_fn=getattr(ds, "collate_fn", None), worker_init_fn=seed_worker,
                             generator=old.generator, drop_last=False)
    if hasattr(old, "close"):
        old.close()
    trainer.train_loader = new
    trainer.fresh_sampler = sampler


def _fresh_cap(trainer) -> None:
    """on_fit_epoch_end: at most `fresh_passes` epochs, so that no crop is shown twice. Time mode (`--until`)
    re-fits the epochs to the deadline after every epoch; when that would go past the fresh passes, the run
    ends with the data instead, its cosine lr re-fitted to end there."""
    cap = trainer.fresh_sampler.fresh_passes
    if trainer.epochs > cap:
        trainer.epochs = trainer.args.epochs = cap
        trainer._setup_scheduler()
        trainer.scheduler.last_epoch = trainer.epoch
        print(f"[fresh] epochs capped at {cap} (the mix holds {cap} fresh epochs)", flush=True)
    if trainer.epoch + 1 >= cap:
        trainer.stop = True


def train(data: Path, run_dir: Path, *, imgsz: int, epochs: int, batch: int, workers: int, seed: int,
          lr0: float, patience: int, hours: float | None = None, init: Path | None = None,
          arch: str = "medium", threads: int = 1, save_period: int = -1, warmup_epochs: float = 1.0,
          warmup_bias_lr: float = 0.1, until: float | None = None, freeze_bn: bool = False,
          fresh_chunk: int | None = None, aug: dict | None = None) -> Path:
    """`until` (a Unix time): the training loop stops then; the budget is fixed when the loop starts, after
    ultralytics has cached the images (minutes on a busy machine), so the last epoch ends on time.
    `freeze_bn`: every BatchNorm stays in eval mode while training (its running statistics fixed, its
    affine weights still trained), so the trained function is the evaluated one from step 0; for
    continuing a checkpoint rebuilt from an ONNX export (`onnx_checkpoint.py`), whose train-mode batch
    statistics at batch 128 move the loss from 0.79 (eval) to 1.1-2.4 (measured, session 9).
    `fresh_chunk`: every epoch shows the next `fresh_chunk` crops of one fixed random order of the whole
    training folder (`FreshChunks`), so no crop is shown twice until the folder is used up (images read
    from disk, not cached in RAM). `aug`: the trainer's own augmentation (`AUGMENT` keys) in place of
    the defaults."""
    _ultralytics_env()
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(max(1, threads))  # the machine is shared: one thread by default
    _allow_small_imgsz(imgsz)
    yaml_path = run_dir.parent / f"tile_classifier_{arch}.yaml"
    yaml_path.parent.mkdir(parents=True, exist_ok=True)
    yaml_path.write_text(ARCHS[arch])
    model = YOLO(str(yaml_path), task="classify")
    if init is not None:  # fine-tune: same architecture, weights of an earlier run
        model = YOLO(str(init), task="classify")
    if until is not None:
        def _budget(trainer):  # ultralytics' time mode: epochs re-fitted, cosine lr ends at the deadline
            trainer.args.time = max(0.05, (until - time.time()) / 3600)
            print(f"[train] loop starts; budget {trainer.args.time:.3f} h", flush=True)

        model.add_callback("on_train_start", _budget)
        hours = hours or 1.0  # placeholder: time mode must be on from the start (replaced by _budget)
    if freeze_bn:  # the trainer sets model.train() every epoch; this undoes it for BatchNorm
        from onnx_checkpoint import freeze_batchnorm

        model.add_callback("on_train_batch_start", freeze_batchnorm)
    if fresh_chunk:
        model.add_callback("on_pretrain_routine_end", lambda trainer: _fresh_loader(trainer, fresh_chunk, seed))
        model.add_callback("on_fit_epoch_end", _fresh_cap)
    model.train(
        data=str(data), imgsz=imgsz, epochs=epochs, batch=batch, workers=workers, device="cpu",
        pretrained=init is not None,  # False would re-initialise the loaded weights
        seed=seed, deterministic=False, optimizer="AdamW", lr0=lr0, cos_lr=True,
        warmup_epochs=warmup_epochs, warmup_bias_lr=warmup_bias_lr, patience=patience,
        cache=False if fresh_chunk else "ram", amp=False, plots=False, val=True, save_period=save_period,
        project=str(run_dir.parent), name=run_dir.name, exist_ok=True,
        fliplr=0.0, flipud=0.0, **{**AUGMENT, **(aug or {})},
        auto_augment=None, dropout=0.0, verbose=True, **({"time": hours} if hours else {}),
        **({"close_mosaic": 0} if fresh_chunk else {}),  # no loader reset: it would start a new chunk mid-epoch
    )
    best = run_dir / "weights" / "best.pt"
    return best if best.exists() else run_dir / "weights" / "last.pt"


def export_onnx(weights: Path, out: Path, *, imgsz: int, margin: float, extra_meta: dict | None = None) -> Path:
    """ONNX (opset 17): fixed H×W, dynamic batch, softmax over the 75 classes, tsumo metadata.

    Exported with torch.onnx directly (the ultralytics exporter insists on multiples of 32)."""
    _ultralytics_env()
    import onnx
    import torch
    from ultralytics import YOLO

    net = YOLO(str(weights)).model.float().eval()
    for m in net.modules():
        if hasattr(m, "export"):
            m.export = True  # Classify head: return softmax probabilities only
    dummy = torch.zeros(1, 3, imgsz, imgsz)
    tmp = out.with_suffix(".tmp.onnx")
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, dummy, str(tmp), opset_version=17, input_names=["images"], output_names=["probs"],
                      dynamic_axes={"images": {0: "batch"}, "probs": {0: "batch"}}, dynamo=False)
    m = onnx.load(str(tmp))
    try:
        import onnxslim

        m = onnxslim.slim(m)
    except Exception as exc:  # slimming is an optimisation only
        print(f"[export] onnxslim skipped: {exc}", flush=True)
    names = class_names_75()
    meta = {
        "tsumo_imgsz": str(imgsz),
        "tsumo_crop_margin": str(margin),
        "tsumo_classes": json.dumps(names),
        "tsumo_input": "RGB, N×3×H×W float32 in [0, 1], crops from vision.classify.crop_tile",
        **{k: str(v) for k, v in (extra_meta or {}).items()},
    }
    del m.metadata_props[:]
    for k, v in meta.items():
        m.metadata_props.add(key=k, value=v)
    onnx.checker.check_model(m)
    onnx.save(m, str(out))
    tmp.unlink(missing_ok=True)
    # the exported graph must agree with torch
    import onnxruntime as ort

    x = torch.rand(3, 3, imgsz, imgsz)
    with torch.no_grad():
        ref = net(x).numpy()
    got = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, {"images": x.numpy()})[0]
    assert np.allclose(ref, got, atol=1e-4), float(np.abs(ref - got).max())
    return out


def build_mix(out: Path, synth_dirs: list[Path], real_dir: Path | None, *, caps: dict[Path, int] | None = None,
              boost: dict[str, float] | None = None, sideways_weight: int = 1) -> Path:
    """A training folder of symlinks: every synthetic set's train split (+ real crops); val from the last.

    `caps`: at most this many training crops per class from that source (a random subset, seed 0):
    photo crops hold many more face-down wall tiles than anything else. `boost`: tile label -> factor
    on those caps for that label (upright and turned): weak classes get more *distinct* crops rather
    than repeated ones or a loss weight the ultralytics classify trainer has no cheap knob for.
    `sideways_weight`: each training crop of a sideways hand tile (known from a set's crops.tsv, see
    `render_photo_crops`; sets without one have none) is linked this many times, after the caps.
    The training links per source (crops kept, extra sideways links, share of all links) are printed
    and written to out/links.json, so a mix's make-up (e.g. its default-preset share) is on record."""
    names = class_names_75()
    if out.exists():
        shutil.rmtree(out)
    caps = caps or {}
    boost = boost or {}
    with_val = [d for d in synth_dirs if any((d / "val").rglob("*.png"))]
    sideways = {src: {rel for rel, (sw, _, _) in read_crop_meta(src).items() if sw} if sideways_weight > 1 else set()
                for src in synth_dirs}
    counts = {str(src): {"crops": 0, "sideways_links": 0} for src in synth_dirs + ([real_dir] if real_dir else [])}
    for split, sources in (("train", synth_dirs + ([real_dir] if real_dir else [])), ("val", with_val[-1:])):
        for cls, name in enumerate(names):
            d = out / split / folder_name(cls, name)
            d.mkdir(parents=True, exist_ok=True)
            for src in sources:
                sd = src / split / folder_name(cls, name)
                files = [f for f in sorted(sd.glob("*.png")) if not f.name.endswith(".tmp.png")] if sd.is_dir() else []
                cap = caps.get(src)
                if cap is not None:
                    cap = int(round(cap * boost.get(name.replace(FLIP_SUFFIX, ""), 1.0)))
                if split == "train" and cap is not None and len(files) > cap:
                    keep = np.random.default_rng([0, cls]).choice(len(files), cap, replace=False)
                    files = [files[k] for k in sorted(keep)]
                for f in files:
                    link = d / f"{src.name}__{f.name}"
                    link.symlink_to(f.resolve())
                    if split == "train":
                        counts[str(src)]["crops"] += 1
                    if split == "train" and f"{split}/{sd.name}/{f.name}" in sideways.get(src, ()):
                        for k in range(1, sideways_weight):
                            (d / f"{src.name}__sw{k}__{f.name}").symlink_to(f.resolve())
                        counts[str(src)]["sideways_links"] += sideways_weight - 1
    total = sum(c["crops"] + c["sideways_links"] for c in counts.values())
    for src, c in counts.items():
        c["links"] = c["crops"] + c["sideways_links"]
        c["share"] = round(c["links"] / total, 4) if total else 0.0
        print(f"[mix] {Path(src).name}: {c['crops']} crops + {c['sideways_links']} sideways links = {c['links']} "
              f"({100 * c['share']:.1f} %)", flush=True)
    print(f"[mix] {total} training links, val from {with_val[-1].name if with_val else 'nowhere'}", flush=True)
    (out / "links.json").write_text(json.dumps({"train_links": total, "sources": counts}, indent=1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="train_classifier", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "models" / "tile_classifier.onnx")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3],
                    help="rendering seeds; one synthetic set per seed, all used for training (default 1 2 3)")
    ap.add_argument("--per-class", type=int, nargs="+", default=[200, 300, 300],
                    help="training crops per class (75 classes), one number per seed (default 200 300 300)")
    ap.add_argument("--val-per-class", type=int, default=20)
    ap.add_argument("--views", type=int, default=2, help="crops per rendered scene (different camera/light/box)")
    ap.add_argument("--imgsz", type=int, default=INPUT_SIZE)
    ap.add_argument("--gen", choices=sorted(GENERATORS), default="v3",
                    help="crop generator version for the --seeds sets (v4: + pale backs, crystal/solid red fives)")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--hours", type=float, default=None, help="wall-clock training budget (overrides --epochs)")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr0", type=float, default=0.003)
    ap.add_argument("--patience", type=int, default=50)
    ap.add_argument("--init", type=Path, default=None,
                    help="start from these weights (.pt of an earlier run, or a shipped .onnx: rebuilt into a "
                         "checkpoint in the run folder by onnx_checkpoint.py, calibrated on the training crops)")
    ap.add_argument("--freeze-bn", action="store_true",
                    help="keep BatchNorm statistics fixed while training (suggested with an --init from .onnx)")
    ap.add_argument("--arch", choices=sorted(ARCHS), default="medium", help="network size (ignored with --init)")
    ap.add_argument("--workers", type=int, default=1, help="processes for rendering and data loading")
    ap.add_argument("--threads", type=int, default=1, help="torch threads for training (the machine is shared)")
    ap.add_argument("--real", choices=["none", "chinese"], default="none",
                    help="add real crops from chinese-mahjong-detection-v4/valid (never real-dev)")
    ap.add_argument("--orient-model", type=Path, default=None,
                    help="model that orients the real crops (their boxes don't say which way up); default --out")
    ap.add_argument("--also", type=Path, nargs="*", default=[],
                    help="more rendered sets to train on as they are (e.g. an earlier generator's or size's; "
                         "the trainer resizes every crop to --imgsz)")
    ap.add_argument("--photo-seed", type=int, nargs="+", default=None,
                    help="photo-crop sets (one per seed, never 0: the held-out face pool); val from the last")
    ap.add_argument("--photos", type=int, nargs="+", default=[0],
                    help="photos to render per --photo-seed (one number for all, or one per seed; 0 = use what is there)")
    ap.add_argument("--photo-cap", type=int, nargs="+", default=None,
                    help="at most this many photo crops per class (one for all, or one per seed)")
    ap.add_argument("--photo-preset", nargs="+", default=["default"],
                    help="scene-renderer preset per --photo-seed (one for all, or one per seed)")
    ap.add_argument("--photo-scale", type=float, nargs="+", default=[1.0],
                    help="photo-crop sets shot with this many times the pixels across (one for all, or one per "
                         "seed; a set not at 1 gets a folder of its own: …_x{S})")
    ap.add_argument("--photo-views", type=int, default=2, choices=(2, 3),
                    help="views per photo when rendering photo crops (3: + hand tiles with boxes moved by N(0, 8 %%))")
    ap.add_argument("--photo-gen", choices=sorted(GENERATORS), nargs="+", default=["v4"],
                    help="face generator of the photo crops (one for all, or one per seed)")
    ap.add_argument("--photo-pool-size", type=int, nargs="+", default=[32],
                    help="face variants per label in each photo-crop set's own face pool (one for all seeds or one "
                         "per seed; a set of another size than 32 gets a folder of its own: …_pool{N})")
    ap.add_argument("--boost", nargs="+", default=[], metavar="LABEL=FACTOR",
                    help="multiply the photo caps of these tile labels (both ways up), e.g. 1m=1.5 1z=1.5")
    ap.add_argument("--sideways-weight", type=int, default=1,
                    help="link each sideways hand-tile training crop this many times (sets with a crops.tsv)")
    ap.add_argument("--warmup-epochs", type=float, default=1.0,
                    help="lr warm-up length; short when continuing trained weights")
    ap.add_argument("--warmup-bias-lr", type=float, default=0.1,
                    help="ultralytics starts the biases' lr here during warm-up (0: ramp from 0 like the weights)")
    ap.add_argument("--until", default=None, metavar="HH:MM",
                    help="stop the training loop at this local time today (budget set after image caching)")
    ap.add_argument("--soup", type=Path, nargs="+", default=None, metavar="CKPT",
                    help="only average these checkpoints' weights and export the average to --out")
    ap.add_argument("--save-period", type=int, default=-1, help="also keep the weights of every N-th epoch")
    ap.add_argument("--fresh-chunk", type=int, default=None, metavar="N",
                    help="each epoch shows the next N crops of one fixed random order of the whole mix: no crop "
                         "is shown twice while epochs x N <= the mix (images read from disk, not cached)")
    ap.add_argument("--aug", nargs="+", default=[], metavar="KEY=VALUE",
                    help=f"the trainer's own augmentation instead of the defaults {AUGMENT} (e.g. scale=0.2 erasing=0.15)")
    ap.add_argument("--name", default=None, help="run name under cache/classifier/runs")
    ap.add_argument("--render-only", action="store_true")
    ap.add_argument("--no-render", action="store_true", help="train on the crops already rendered (partial sets)")
    args = ap.parse_args(argv)
    if args.soup:
        missing = [p for p in args.soup if not p.is_file()]
        if missing:
            print(f"error: --soup: no such checkpoint {missing[0]}", file=sys.stderr)
            return 2
        _ultralytics_env()
        pt = average_checkpoints(args.soup, args.out.with_suffix(".pt"))
        out = export_onnx(pt, args.out, imgsz=args.imgsz, margin=CROP_MARGIN,
                          extra_meta={"tsumo_train_soup": " + ".join(p.stem for p in args.soup)})
        print(f"[done] soup of {len(args.soup)} -> {out}", flush=True)
        return 0
    if len(args.per_class) != len(args.seeds):
        print("error: give one --per-class number per --seeds value", file=sys.stderr)
        return 2
    if args.imgsz != INPUT_SIZE:
        print(f"note: imgsz {args.imgsz} differs from vision.classify.INPUT_SIZE {INPUT_SIZE}; "
              "TileClassifier resizes to the model's recorded size", file=sys.stderr)

    synth_dirs = []
    for seed, n in zip(args.seeds, args.per_class):
        synth = CACHE / synth_dir_name(seed, n, args.views, args.imgsz, args.gen)
        if not args.no_render:
            render_split(synth, "train", 0, n, seed, size=args.imgsz, workers=args.workers, views=args.views,
                         gen=args.gen)
            render_split(synth, "val", 1, args.val_per_class, seed, size=args.imgsz, workers=args.workers, views=1,
                         gen=args.gen)
        synth_dirs.append(synth)
    photo_dirs: list[Path] = []
    photo_caps: dict[Path, int] = {}
    if args.photo_seed is not None:
        from tsumo_synth.photos import SCALES, check_training_seed

        for seed in args.photo_seed:   # all of them before anything is rendered
            try:
                check_training_seed(seed)
            except ValueError as e:
                print(f"error: --photo-seed: {e}", file=sys.stderr)
                return 2
        k = len(args.photo_seed)

        def per_seed(values, what):
            if values is None:
                return [None] * k
            if len(values) not in (1, k):
                raise SystemExit(f"error: give one {what} for all photo seeds or one per seed")
            return list(values) * k if len(values) == 1 else list(values)

        for seed, n, cap, preset, pool, gen, scale in zip(args.photo_seed, per_seed(args.photos, "--photos"),
                                                          per_seed(args.photo_cap, "--photo-cap"),
                                                          per_seed(args.photo_preset, "--photo-preset"),
                                                          per_seed(args.photo_pool_size, "--photo-pool-size"),
                                                          per_seed(args.photo_gen, "--photo-gen"),
                                                          per_seed(args.photo_scale, "--photo-scale")):
            if pool < 1:
                print("error: --photo-pool-size must be ≥ 1", file=sys.stderr)
                return 2
            if not SCALES[0] <= scale <= SCALES[1]:
                print(f"error: --photo-scale must be in [{SCALES[0]:g}, {SCALES[1]:g}], not {scale:g}", file=sys.stderr)
                return 2
            photo_dir = CACHE / (f"photos_s{seed}_{args.imgsz}px_{gen}"
                                 + ("" if preset == "default" else f"_{preset}")
                                 + ("" if pool == 32 else f"_pool{pool}")
                                 + ("" if scale == 1.0 else f"_x{scale:g}"))
            if n > 0:  # asked for explicitly (also with --no-render, which concerns the crop sets)
                render_photo_crops(photo_dir, seed, n, size=args.imgsz, gen=gen, preset=preset,
                                   pool_per_label=pool, views=args.photo_views, scale=scale)
            if not (photo_dir / "train").is_dir():
                print(f"error: no photo crops in {photo_dir} (give --photos N to render them)", file=sys.stderr)
                return 2
            photo_dirs.append(photo_dir)
            if cap:
                photo_caps[photo_dir] = cap
    real_dir, real_stats = None, None
    if args.real == "chinese":
        orient = args.orient_model or args.out
        if not Path(orient).is_file():
            print(f"error: --real chinese needs a model to orient real crops; {orient} not found", file=sys.stderr)
            return 2
        real_dir = CACHE / f"chinese_valid_{args.imgsz}px"
        if real_dir.exists():
            shutil.rmtree(real_dir)
        real_stats = add_chinese_crops(real_dir, SHARED / "data" / "real" / "chinese-mahjong-detection-v4" / "valid",
                                       Path(orient), size=args.imgsz)
        print(f"[real] {real_stats}", flush=True)
    if args.render_only:
        return 0
    for d in args.also:
        if not (d / "train").is_dir():
            print(f"error: --also {d}: no train/ folder", file=sys.stderr)
            return 2
    synth_dirs = list(args.also) + synth_dirs  # val comes from the last set: the photo crops, else the --seeds ones
    synth_dirs += photo_dirs
    tag = "+".join(d.name.replace("synth_", "") for d in synth_dirs) + ("+cn" if real_dir else "")
    caps = photo_caps or None
    try:
        boost = {k: float(v) for k, v in (b.split("=") for b in args.boost)}
    except ValueError:
        print(f"error: --boost takes LABEL=FACTOR, got {args.boost}", file=sys.stderr)
        return 2
    try:
        aug = {k: float(v) for k, v in (a.split("=") for a in args.aug)}
    except ValueError:
        print(f"error: --aug takes KEY=VALUE, got {args.aug}", file=sys.stderr)
        return 2
    if set(aug) - set(AUGMENT):
        print(f"error: --aug: unknown keys {sorted(set(aug) - set(AUGMENT))} (known: {sorted(AUGMENT)})", file=sys.stderr)
        return 2
    unknown = sorted(set(boost) - set(class_names_75()))
    if unknown:
        print(f"error: --boost: unknown labels {unknown}", file=sys.stderr)
        return 2
    until = None
    if args.until:
        try:
            hh, mm = (int(x) for x in args.until.split(":"))
            until = datetime.datetime.combine(datetime.date.today(), datetime.time(hh, mm)).timestamp()
        except ValueError:
            print(f"error: --until takes HH:MM, got {args.until}", file=sys.stderr)
            return 2
        if until <= time.time():
            print(f"error: --until {args.until} is already past", file=sys.stderr)
            return 2
    data = build_mix(CACHE / f"mix_{tag}", synth_dirs, real_dir, caps=caps, boost=boost,
                     sideways_weight=args.sideways_weight)
    name = args.name or f"{data.name}_e{args.epochs}"
    run_dir = CACHE / "runs" / name
    init_src = args.init
    if args.init is not None and args.init.suffix == ".onnx":
        from onnx_checkpoint import convert_classifier

        _ultralytics_env()
        pt = run_dir / "init_from_onnx.pt"
        info = convert_classifier(args.init, pt, [data / "train"], arch=args.arch if args.arch != "medium" else "small")
        print(f"[init] {args.init} -> {pt}: {json.dumps(info)}", flush=True)
        args.init = pt
    t0 = time.time()
    weights = train(data, run_dir, imgsz=args.imgsz, epochs=args.epochs, batch=args.batch, workers=args.workers,
                    seed=args.seeds[0], lr0=args.lr0, patience=args.patience, hours=args.hours, init=args.init,
                    arch=args.arch, threads=args.threads, save_period=args.save_period,
                    warmup_epochs=args.warmup_epochs, warmup_bias_lr=args.warmup_bias_lr, until=until,
                    freeze_bn=args.freeze_bn, fresh_chunk=args.fresh_chunk, aug=aug)
    train_s = time.time() - t0
    meta = {"tsumo_arch": "init" if args.init else args.arch, "tsumo_train_data": data.name, "tsumo_train_epochs": args.epochs, "tsumo_train_seconds": int(train_s),
            "tsumo_init": (str(args.init.name) + (f" (from {init_src.name})" if init_src != args.init else ""))
            if args.init else "scratch",
            "tsumo_real": args.real if real_stats is None else json.dumps(real_stats),
            **({"tsumo_train_fresh_chunk": args.fresh_chunk} if args.fresh_chunk else {}),
            **({"tsumo_train_aug": json.dumps({**AUGMENT, **aug})} if aug else {})}
    out = export_onnx(weights, args.out, imgsz=args.imgsz, margin=CROP_MARGIN, extra_meta=meta)
    print(f"[done] {out} ({out.stat().st_size / 1e6:.2f} MB), trained {train_s / 60:.1f} min", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
