"""The man-numeral specialist (session 16): data, training, export.

The main classifier sees a whole tile stretched to 64×64; on a 24–40 px man tile the numeral (the top ~45 %
of the face) is a few photo pixels tall and the main model's 1m/2m/3m/5m/7m/9m reads swing. The specialist
reads only the top of the upright tile (`vision.classify.numeral_crop`) with a small net that keeps full
resolution in its first layer, and says which man digit it is (1..9, a red five is a 5) or "other".
`vision.classify.TileClassifier` combines it with the main model's probabilities for unsure man reads.

  render: crops from scene-renderer photos (`tsumo_synth.photos.render_one`, own photo seeds and face pools,
          never a held-out seed or face pool 0), cut as the reader cuts them (`tsumo_synth.crops.photo_tile_crops`
          with the patch kept): every face-up man tile ≥ 50 % visible and ≥ 12 px, view 0 with the tile's exact
          visible-pixel box, views 1 and 2 with every box edge moved by N(0, `--jitter`) / N(0, `--jitter2`); up to `--negatives` face-up
          non-man tiles per photo (one view). Shards of `--shard` photos as .npz (resumable).
  train:  torch, CPU (run with OMP_NUM_THREADS=1), AdamW + cosine, a time budget; writes .pt checkpoints.
  export: ONNX (opset 17) with metadata (classes, cut recipe, run facts).

Training Python: .venv-train/bin/python (torch, opencv).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "datasets"))
sys.path.insert(0, str(REPO))

SHARED = REPO.parent / "shared"
MAN_DIGIT = {f"{d}m": d - 1 for d in range(1, 10)} | {"0m": 4}   # label → specialist class (0..8)
OTHER = 9


def numeral_class(label: str) -> int:
    """Specialist class of a tile label: man digits 1..9 → 0..8 (red 5m → the 5), anything else → OTHER."""
    return MAN_DIGIT.get(label, OTHER)


# ---- render -------------------------------------------------------------------------------------

def render_shards(out: Path, seeds: list[int], gens: list[str], n_photos: int, *, pool: int = 256, shard: int = 50,
                  jitter: float = 0.06, jitter2: float = 0.10, negatives: int = 3, val_every: int = 10, until: str | None = None) -> None:
    """Photos 0..n_photos-1 of every seed, interleaved shard by shard (see the module docstring)."""
    import cv2

    from tsumo_synth import TileArtist
    from tsumo_synth.crops import photo_tile_crops
    from tsumo_synth.photos import check_training_seed, render_one
    from tsumo_synth.scene import FacePool
    from train_classifier import GENERATORS
    from vision.classes import BACK
    from vision.classify import numeral_crop

    for s in seeds:
        check_training_seed(s)
    cv2.setNumThreads(1)
    out.mkdir(parents=True, exist_ok=True)
    artists = {s: FacePool(TileArtist(SHARED, seed=s, **GENERATORS[g]), per_label=pool, seed=s)
               for s, g in zip(seeds, gens)}
    t0 = time.time()
    for start in range(0, n_photos, shard):
        for s in seeds:
            path = out / f"s{s}_{start:06d}.npz"
            if path.exists():
                continue
            if until and time.strftime("%H:%M") >= until:
                print(f"[numeral render] stopped at {until}", flush=True)
                return
            rec: dict[str, list] = {k: [] for k in ("x", "y", "label", "long_px", "visible", "in_hand", "view",
                                                    "photo", "val", "main")}
            for i in range(start, min(start + shard, n_photos)):
                val = bool(val_every and i % val_every == val_every - 1)
                image, labels = render_one(i, s, artist=artists[s])
                tiles = labels.to_json()["tiles"]
                rng = np.random.default_rng([s, i, 16])
                hand = [t for t in tiles if t["in_hand"]]
                up = [t for t in tiles if not t["in_hand"] and t["cls"] != BACK and t["visible"] >= 0.5
                      and t["kind"] in ("discard", "dora", "loose") and not t["face_down"]]
                man = [t for t in up if t["cls"] in MAN_DIGIT]
                other = [t for t in up if t["cls"] not in MAN_DIGIT]
                pick = [other[j] for j in rng.permutation(len(other))[:negatives]]
                for view, jit in enumerate((0.0, jitter, jitter2)):
                    cut = photo_tile_crops(image, hand + man + (pick if view == 0 else []), hand_only=False,
                                           min_visible=0.5, min_px=12.0, keep_patch=True,
                                           rng=rng if view else None, jitter=jit)
                    for c in cut:
                        if c.label == BACK:
                            continue
                        is_man = c.label in MAN_DIGIT
                        if not is_man and view > 0:
                            continue
                        if not is_man and c.in_hand and rng.random() > 0.25:  # hand negatives: a quarter
                            continue
                        rec["x"].append(numeral_crop(c.patch, c.box, c.sideways, bool(c.flipped)))
                        rec["y"].append(numeral_class(c.label))
                        rec["label"].append(c.label)
                        rec["long_px"].append(c.long_px)
                        rec["visible"].append(c.visible)
                        rec["in_hand"].append(c.in_hand)
                        rec["view"].append(view)
                        rec["photo"].append(i)
                        rec["val"].append(val)
                        rec["main"].append(c.image if (val and view == 0) else np.zeros((1, 1, 3), np.uint8))
            main = np.zeros((len(rec["main"]), 64, 64, 3), np.uint8)
            for j, m in enumerate(rec["main"]):
                if m.shape[0] == 64:
                    main[j] = m
            tmp = path.with_name(path.stem + ".tmp.npz")
            np.savez_compressed(tmp, x=np.stack(rec["x"]), y=np.array(rec["y"], np.int64),
                                label=np.array(rec["label"]), long_px=np.array(rec["long_px"], np.float32),
                                visible=np.array(rec["visible"], np.float32), in_hand=np.array(rec["in_hand"]),
                                view=np.array(rec["view"], np.int8), photo=np.array(rec["photo"], np.int32),
                                val=np.array(rec["val"]), main=main, seed=np.int64(s))
            tmp.replace(path)
            print(f"[numeral render] seed {s} photos {start}-{start + shard - 1}: {len(rec['y'])} crops "
                  f"({sum(v != OTHER for v in rec['y'])} man), {time.time() - t0:.0f}s", flush=True)


def load_shards(paths: list[Path]) -> dict[str, np.ndarray]:
    parts = [dict(np.load(p)) for p in sorted(paths)]
    keys = ("x", "y", "label", "long_px", "visible", "in_hand", "view", "photo", "val")
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


# ---- network ------------------------------------------------------------------------------------

def build_net(width: int = 16, classes: int = len(MAN_DIGIT) - 1 + 1):
    import torch.nn as nn

    def block(cin, cout, stride):
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    w = width
    layers = (block(3, w, 1) + block(w, 2 * w, 2) + block(2 * w, 2 * w, 1) + block(2 * w, 4 * w, 2)
              + block(4 * w, 4 * w, 1) + block(4 * w, 8 * w, 2) + block(8 * w, 8 * w, 1))
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(8 * w, classes))


class MainNet:
    """The main classifier's network (an ultralytics classify checkpoint, e.g. the shipped weights
    `cache/classifier/runs/run13/init_from_onnx.pt`) with a new 10-way head: the specialist starts from
    features that already read tiles of many face pools. Fully convolutional up to a global pool, so it
    takes the numeral cut's 56×48 as it is."""

    @staticmethod
    def build(ckpt: Path, classes: int = 10):
        import torch
        import torch.nn as nn

        ck = torch.load(ckpt, weights_only=False)
        model = (ck.get("ema") or ck.get("model")).float()
        model.model[-1].linear = nn.Linear(model.model[-1].linear.in_features, classes)
        for q in model.parameters():
            q.requires_grad = True

        class Logits(nn.Module):
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, x):
                # ultralytics' Classify head returns logits in training and softmax (maybe in a tuple) in eval
                y = self.m(x)
                return y[0] if isinstance(y, (tuple, list)) else y

        return Logits(model)


class Softmaxed:
    """build_net + softmax, for export (the ONNX outputs probabilities)."""

    @staticmethod
    def wrap(net):
        import torch.nn as nn

        return nn.Sequential(net, nn.Softmax(dim=1))


def _augment(xb, rng: np.random.Generator):
    """Photometric jitter per crop on a float batch N×3×H×W in [0, 1] (torch): brightness, contrast, a grey
    mix (colour casts), noise; a random 180°-free small translation by rolling ≤ 2 px."""
    import torch

    n = xb.shape[0]
    b = torch.from_numpy(rng.uniform(-0.12, 0.12, (n, 1, 1, 1)).astype(np.float32))
    c = torch.from_numpy(rng.uniform(0.7, 1.3, (n, 1, 1, 1)).astype(np.float32))
    mean = xb.mean(dim=(1, 2, 3), keepdim=True)
    xb = (xb - mean) * c + mean + b
    g = torch.from_numpy(rng.uniform(0, 0.5, (n, 1, 1, 1)).astype(np.float32)) * (torch.from_numpy(
        (rng.random((n, 1, 1, 1)) < 0.3).astype(np.float32)))
    xb = xb * (1 - g) + xb.mean(dim=1, keepdim=True) * g
    xb = xb + torch.randn_like(xb) * torch.from_numpy(rng.uniform(0, 0.04, (n, 1, 1, 1)).astype(np.float32))
    dx, dy = int(rng.integers(-2, 3)), int(rng.integers(-2, 3))
    xb = torch.roll(xb, shifts=(dy, dx), dims=(2, 3))
    return xb.clamp(0, 1)


def train(data_dir: Path, out: Path, *, minutes: float, batch: int = 128, lr: float = 2e-3, width: int = 16,
          threads: int = 1, seed: int = 0, init: Path | None = None, main_init: Path | None = None) -> None:
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    d = load_shards(list(data_dir.glob("s*.npz")))
    tr, va = np.flatnonzero(~d["val"]), np.flatnonzero(d["val"] & (d["view"] == 0))
    print(f"[numeral train] {len(tr)} train crops ({(d['y'][tr] != OTHER).sum()} man), {len(va)} val", flush=True)
    x = d["x"]
    y = torch.from_numpy(d["y"])
    if main_init:
        net = MainNet.build(main_init)
        head = list(net.m.model[-1].linear.parameters())
        ids = {id(q) for q in head}
        body = [q for q in net.parameters() if id(q) not in ids]
        opt = torch.optim.AdamW([{"params": body, "scale": 1.0}, {"params": head, "scale": 10.0}], lr=lr,
                                weight_decay=5e-4)
    else:
        net = build_net(width)
        if init:
            net.load_state_dict(torch.load(init)["state"])
        opt = torch.optim.AdamW([{"params": list(net.parameters()), "scale": 1.0}], lr=lr, weight_decay=5e-4)
    net.train()
    # time budget → steps: measure the first 20 steps, then fix a cosine schedule over the budget
    t0 = time.time()
    step = 0
    out.mkdir(parents=True, exist_ok=True)
    epoch = 0
    log = []

    def batch_x(idx, aug):
        xb = torch.from_numpy(x[idx]).permute(0, 3, 1, 2).float().div_(255.0)
        return _augment(xb, rng) if aug else xb

    def evaluate():
        net.eval()
        correct, man_c, man_n = 0, 0, 0
        with torch.no_grad():
            for i in range(0, len(va), 512):
                idx = va[i:i + 512]
                p = net(batch_x(idx, False)).argmax(1)
                correct += int((p == y[idx]).sum())
                m = y[idx] != OTHER
                man_c += int((p[m] == y[idx][m]).sum())
                man_n += int(m.sum())
        net.train()
        return correct / max(len(va), 1), man_c / max(man_n, 1)

    done = False
    while not done:
        epoch += 1
        perm = rng.permutation(tr)
        losses = []
        for i in range(0, len(perm) - batch + 1, batch):
            idx = np.sort(perm[i:i + batch])
            # cosine over the wall-clock budget (the machine is shared: steps/min vary)
            progress = (time.time() - t0) / (minutes * 60)
            if step == 20:
                print(f"[numeral train] {(time.time() - t0) / 20 * 1000:.0f} ms/step at the start", flush=True)
            f = min(1.0, step / 100) * 0.5 * (1 + np.cos(np.pi * min(progress, 1.0)))
            for gparam in opt.param_groups:
                gparam["lr"] = lr * gparam["scale"] * max(f, 0.01)
            loss = F.cross_entropy(net(batch_x(idx, True)), y[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
            step += 1
            if progress >= 1.0:
                done = True
                break
        acc, man_acc = evaluate()
        row = {"epoch": epoch, "step": step, "loss": float(np.mean(losses)), "val": acc, "val_man": man_acc,
               "minutes": (time.time() - t0) / 60}
        log.append(row)
        print(f"[numeral train] {json.dumps(row)}", flush=True)
        torch.save({"state": net.state_dict(), "width": width, "main_init": str(main_init or ""), "row": row},
                   out / f"epoch{epoch}.pt")
    torch.save({"state": net.state_dict(), "width": width, "main_init": str(main_init or ""), "row": log[-1],
                "log": log, "train_crops": int(len(tr)), "steps": step, "batch": batch, "lr": lr}, out / "last.pt")


def export(ckpt: Path, out: Path, facts: dict) -> None:
    import onnx
    import torch

    from vision.classify import NUMERAL_CLASSES, NUMERAL_HW, NUMERAL_KEEP, NUMERAL_MARGIN

    ck = torch.load(ckpt, weights_only=False)
    dummy = torch.zeros(1, 3, *NUMERAL_HW)
    if ck.get("main_init"):
        net = MainNet.build(Path(ck["main_init"]))
        net.load_state_dict(ck["state"])
        net.eval()
        with torch.no_grad():
            y = net(torch.rand(2, 3, *NUMERAL_HW))
        # eval mode of the ultralytics head already gives probabilities
        model = net if torch.allclose(y.sum(1), torch.ones(2), atol=1e-4) else Softmaxed.wrap(net).eval()
    else:
        net = build_net(ck["width"])
        net.load_state_dict(ck["state"])
        model = Softmaxed.wrap(net).eval()
    torch.onnx.export(model, dummy, str(out), input_names=["images"], output_names=["probs"],
                      dynamic_axes={"images": {0: "n"}, "probs": {0: "n"}}, opset_version=17, dynamo=False)
    m = onnx.load(str(out))
    meta = {"tsumo_numeral_classes": json.dumps(list(NUMERAL_CLASSES)), "tsumo_numeral_hw": json.dumps(list(NUMERAL_HW)),
            "tsumo_numeral_margin": str(NUMERAL_MARGIN), "tsumo_numeral_keep": str(NUMERAL_KEEP),
            "tsumo_run": json.dumps({**facts, "checkpoint_row": ck.get("row")})}
    for k, v in meta.items():
        e = m.metadata_props.add()
        e.key, e.value = k, v
    onnx.save(m, str(out))
    print(f"[numeral export] {out} {out.stat().st_size / 1e6:.2f} MB", flush=True)


def attach(main_model: Path, numeral: Path, out_dir: Path, *, below: float, alpha: float, mode: str,
           shift: float = 0.0) -> Path:
    """out_dir/tile_classifier.onnx = `main_model` (weights unchanged) whose metadata names the specialist
    (`tsumo_numeral_model`, copied beside it) and the gate/combination (`tsumo_numeral_below/_alpha/_mode`)."""
    import shutil

    from model_meta import change_metadata
    from vision.classify import NUMERAL_MODES

    if mode not in NUMERAL_MODES:
        raise ValueError(f"mode must be one of {NUMERAL_MODES}")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / "tile_classifier.onnx"
    change_metadata(main_model, {"tsumo_numeral_model": numeral.name, "tsumo_numeral_below": str(below),
                                 "tsumo_numeral_alpha": str(alpha), "tsumo_numeral_mode": mode,
                                 "tsumo_numeral_shift": str(shift)}, out)
    if numeral.resolve() != (out_dir / numeral.name).resolve():
        shutil.copyfile(numeral, out_dir / numeral.name)
    return out


# ---- tune (per tile, on a tune set only) --------------------------------------------------------

TUNE_BELOW = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.01)
TUNE_ALPHA = (0.5, 1.0, 2.0, 3.0)


def tune(main_model: Path, numeral: Path, set_dir: Path, *, shifts=(0.0, 0.05), below=TUNE_BELOW, alpha=TUNE_ALPHA,
         modes=None, threads: int = 2) -> list[dict]:
    """Hand-tile errors of a tune set for every gate/combination, from one read of the main model and of the
    specialist per shift (the combinations are recomputed from the cached reads, as `TileClassifier.second_look`
    would compute them). Rows sorted by errors; a row per (mode, below, alpha, shift) plus the main model alone."""
    from eval_classifier import classify_as_reader, photo_crops
    from vision.classes import CLASS_INDEX
    from vision.classify import MAN_INDEX, NUMERAL_MODES, TileClassifier, combine_numeral, numeral_gate

    if set_dir.name.startswith("det_test") or "held" in set_dir.name:
        raise ValueError(f"{set_dir} looks like a held-out set: tune on a tune set")
    clf = TileClassifier(main_model, threads=threads, numeral=numeral)
    spec = clf.numeral
    clf.numeral = None  # the main read alone, then the specialist's reads kept per shift
    crops, entries = photo_crops(set_dir, clf.imgsz, clf.margin, keep_patch=True)
    probs, flips = classify_as_reader(clf, crops, entries, keep_patch=True)
    clf.numeral = spec
    truth = np.array([CLASS_INDEX[e["label"]] for e in entries])
    legible = np.array([bool(e["legible"]) for e in entries]) if all(e["legible"] is not None for e in entries) else None
    images, boxes, sideways = [e["patch"] for e in entries], [e["box"] for e in entries], [e["sideways"] for e in entries]
    every = numeral_gate(probs, 2.0)  # all tiles any gate can take (top-1 or top-2 a man tile)
    q_by_shift = {}
    for sh in shifts:
        clf.numeral_shift = sh
        q_by_shift[sh] = clf.numeral_probs(images, boxes, sideways, flips, every)
    pos = {int(i): k for k, i in enumerate(every)}

    def row(pred, **kw):
        wrong = pred != truth
        return {**kw, "errors": int(wrong.sum()),
                "legible_errors": None if legible is None else int((wrong & legible).sum()),
                "man_errors": int((wrong & np.isin(truth, MAN_INDEX)).sum())}

    rows = [row(probs.argmax(1), mode="off", below=None, alpha=None, shift=None, gated=0)]
    for mode in modes or NUMERAL_MODES:
        for b in below:
            idx = numeral_gate(probs, b)
            for a in alpha:
                for sh, q in q_by_shift.items():
                    p = probs.copy()
                    if len(idx):
                        p[idx] = combine_numeral(probs[idx], q[[pos[int(i)] for i in idx]], alpha=a, mode=mode)
                    rows.append(row(p.argmax(1), mode=mode, below=b, alpha=a, shift=sh, gated=int(len(idx))))
    # fewer errors, then fewer gated tiles (less work, less reach), then the gentler modes first
    order = {m: i for i, m in enumerate(("off", "rank", "man", "product"))}
    rows.sort(key=lambda r: (r["errors"], r["gated"], order.get(r["mode"], 9)))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--seeds", type=int, nargs="+", required=True)
    r.add_argument("--gens", nargs="+", required=True)
    r.add_argument("--photos", type=int, required=True, help="per seed")
    r.add_argument("--pool", type=int, default=256)
    r.add_argument("--shard", type=int, default=50)
    r.add_argument("--jitter", type=float, default=0.06)
    r.add_argument("--jitter2", type=float, default=0.10)
    r.add_argument("--negatives", type=int, default=3)
    r.add_argument("--until", default=None, help="HH:MM: stop before starting a shard at/after this time")
    t = sub.add_parser("train")
    t.add_argument("--data", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--minutes", type=float, required=True)
    t.add_argument("--batch", type=int, default=128)
    t.add_argument("--lr", type=float, default=2e-3)
    t.add_argument("--width", type=int, default=16)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--seed", type=int, default=0, help="head initialisation and batch order")
    t.add_argument("--init", type=Path, default=None)
    t.add_argument("--main-init", type=Path, default=None,
                   help="start from the main classifier's network (ultralytics checkpoint) with a new 10-way head")
    e = sub.add_parser("export")
    e.add_argument("ckpt", type=Path)
    e.add_argument("out", type=Path)
    e.add_argument("--facts", default="{}", help="JSON run facts for the metadata")
    t = sub.add_parser("attach", help="name the specialist (and its gate/combination) in a copy of the main model")
    t.add_argument("main_model", type=Path)
    t.add_argument("numeral", type=Path)
    t.add_argument("out_dir", type=Path)
    t.add_argument("--below", type=float, required=True)
    t.add_argument("--alpha", type=float, required=True)
    t.add_argument("--mode", required=True)
    t.add_argument("--shift", type=float, default=0.0, help="specialist views: the box and 4 moved by this share")
    u = sub.add_parser("tune", help="hand-tile errors of a tune set for every gate/combination (cached reads)")
    u.add_argument("main_model", type=Path)
    u.add_argument("numeral", type=Path)
    u.add_argument("set_dir", type=Path)
    u.add_argument("--shifts", type=float, nargs="+", default=[0.0, 0.05])
    u.add_argument("--json", type=Path, default=None, help="write every row here")
    u.add_argument("--top", type=int, default=5, help="rows printed per mode")
    a = ap.parse_args(argv)
    if a.cmd == "render":
        if len(a.gens) != len(a.seeds):
            ap.error("one --gens per seed")
        from tsumo_synth.photos import check_training_seed
        for seed in a.seeds:
            try:
                check_training_seed(seed)
            except ValueError as e:
                ap.error(str(e))
        render_shards(a.out, a.seeds, a.gens, a.photos, pool=a.pool, shard=a.shard, jitter=a.jitter, jitter2=a.jitter2,
                      negatives=a.negatives, until=a.until)
    elif a.cmd == "train":
        train(a.data, a.out, minutes=a.minutes, batch=a.batch, lr=a.lr, width=a.width, threads=a.threads, init=a.init,
              main_init=a.main_init, seed=a.seed)
    elif a.cmd == "attach":
        print(attach(a.main_model, a.numeral, a.out_dir, below=a.below, alpha=a.alpha, mode=a.mode,
                     shift=a.shift))
    elif a.cmd == "tune":
        try:
            rows = tune(a.main_model, a.numeral, a.set_dir, shifts=tuple(a.shifts))
        except (ValueError, FileNotFoundError) as e:
            ap.error(str(e))
        if a.json:
            a.json.write_text(json.dumps(rows, indent=1))
        for mode in dict.fromkeys(r["mode"] for r in rows):   # the modes in their first row's order
            for r in [r for r in rows if r["mode"] == mode][:a.top]:
                print(json.dumps(r))
    else:
        export(a.ckpt, a.out, json.loads(a.facts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
