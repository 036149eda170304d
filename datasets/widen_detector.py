"""Function-preserving widening (Net2WiderNet) of a tile-detector checkpoint.

Turns an ultralytics checkpoint of `train_detector`'s YOLOv8 yaml at one width (the shipped ft9 e5: scale
0.33/0.125/512, channels 8-16-32-64-64) into one of the same yaml at a larger width (default 0.1875:
16-24-48-96-96, Detect's class branch 32 -> 48) whose outputs are the same, so training can continue from
the shipped weights with more capacity (session 14: is the detector out of capacity?).

The Conv and C2f rules are the classifier's (`widen_classifier`: copies of random old channels with the
same filter and BatchNorm, consumers split an old channel's input weights among its copies). Beyond them:
- SPPF: `cv1` widens; its three max-pools keep `cv1`'s mapping, so `cv2` consumes
  [y, m(y), m(m(y)), m(m(m(y)))] with that mapping at offsets 0, c, 2c, 3c (c = cv1's old width);
- nn.Upsample keeps its input's mapping; Concat concatenates its inputs' mappings, each offset by the
  old widths of the inputs before it;
- Detect: per level, the box branch (`cv2`, hidden 64 at both widths: max(16, c/4, 4·16)) and the class
  branch (`cv3`, hidden max(c_P3, nc): 32 -> 48) widen like Convs; their last layer is an `nn.Conv2d` WITH
  bias whose outputs (64 box bins, 1 class) stay: only its input weights are split, its bias copied;
  DFL (a fixed 1×1 conv) is copied.

The result is built from `train_detector.model_yaml(target scale)` (the very yaml the trainer builds with
`--scale`) and saved like `onnx_checkpoint.save_checkpoint` (float32 in `ema`), so `train_detector.py
--init OUT --scale 0.33,0.1875,512` loads every key (checked here: ultralytics intersects state dicts
silently). Run in the training venv:

    .venv-train/bin/python datasets/widen_detector.py --init cache/train/ft9/e5.pt --width 0.1875 \\
        --out cache/det14/w1875_init.pt --check /work/shared/data/real-dev cache/synth/tune9/images

`--onnx-check OLD.onnx NEW.onnx` (runtime or training Python; onnxruntime only) compares two exports on
photos: the raw head (scores, boxes) on the letterboxed input and the boxes `vision.detect.TileDetector`
returns after NMS at the photo's own size; `--latency` times them on 1 and 2 threads
(`eval_detector.latency_12mp`: the network at 512×384, and detect() on a 12-MP photo).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for p in (REPO, REPO / "datasets"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import numpy as np  # noqa: E402

from onnx_checkpoint import load_images  # noqa: E402
from widen_classifier import Widener, channel_map, params, reload_check, split_weights  # noqa: E402


class _DetectorWidener(Widener):
    """The classifier's widener plus the detector's own layers (SPPF, Detect's biased output convs)."""

    def conv2d_out(self, old, new, prefix: str, in_map: np.ndarray) -> None:
        """A plain nn.Conv2d (with bias) whose outputs stay: split its input weights, copy its bias."""
        import torch

        w = old.weight.detach().double().cpu().numpy()[:, in_map]
        w = w * split_weights(w.shape, in_map, self.rng, self.jitter)
        assert tuple(new.weight.shape) == w.shape, (prefix, tuple(new.weight.shape), w.shape)
        with torch.no_grad():
            new.weight.copy_(torch.from_numpy(w).to(new.weight.dtype))
            new.bias.copy_(old.bias.detach())
        self.set_keys |= {f"{prefix}.weight", f"{prefix}.bias"}

    def sppf(self, old, new, prefix: str, in_map: np.ndarray, out_map: np.ndarray) -> None:
        c_old = old.cv1.conv.weight.shape[0]
        hidden = channel_map(c_old, new.cv1.conv.weight.shape[0], self.rng)
        self.conv(old.cv1, new.cv1, f"{prefix}.cv1", in_map, hidden)
        n_cat = old.cv2.conv.weight.shape[1] // c_old  # y and its max-pooled copies
        self.conv(old.cv2, new.cv2, f"{prefix}.cv2", np.concatenate([k * c_old + hidden for k in range(n_cat)]), out_map)

    def detect(self, old, new, prefix: str, in_maps: list[np.ndarray]) -> None:
        import torch

        for branch in ("cv2", "cv3"):
            for lvl, in_map in enumerate(in_maps):
                so, sn = getattr(old, branch)[lvl], getattr(new, branch)[lvl]
                m = in_map
                for j in range(len(so) - 1):  # the hidden Convs
                    out = channel_map(so[j].conv.weight.shape[0], sn[j].conv.weight.shape[0], self.rng)
                    self.conv(so[j], sn[j], f"{prefix}.{branch}.{lvl}.{j}", m, out)
                    m = out
                self.conv2d_out(so[-1], sn[-1], f"{prefix}.{branch}.{lvl}.{len(so) - 1}", m)
        with torch.no_grad():
            new.dfl.conv.weight.copy_(old.dfl.conv.weight.detach())
        self.set_keys |= {f"{prefix}.dfl.conv.weight"}


def _width(layer) -> int:
    """Output channels of a Conv / C2f / SPPF."""
    return layer.cv2.conv.weight.shape[0] if hasattr(layer, "cv2") else layer.conv.weight.shape[0]


def target_yaml(scale: tuple[float, float, int], out_dir: Path) -> Path:
    """train_detector's yaml at `scale` (what `train_detector.py --scale` builds)."""
    from train_detector import model_yaml

    return model_yaml(scale, Path(out_dir) / "tile_detector.yaml")


def widen_net(old_net, yaml_path: Path, *, seed: int = 0, split_jitter: float = 0.2, noise: float = 0.0):
    """A DetectionModel built from `yaml_path` computing what `old_net` computes (eval mode)."""
    import yaml
    from torch import nn
    from ultralytics.nn.modules import C2f, Concat, Conv, Detect, SPPF
    from ultralytics.nn.tasks import DetectionModel

    old_net = old_net.float().eval()
    cfg = yaml.safe_load(Path(yaml_path).read_text())
    new_net = DetectionModel(cfg, ch=3, nc=cfg.get("nc", 1), verbose=False).float().eval()
    layers_old, layers_new = list(old_net.model), list(new_net.model)
    if len(layers_old) != len(layers_new):
        raise ValueError(f"{len(layers_old)} vs {len(layers_new)} layers: widening keeps the layers")
    wd = _DetectorWidener(seed, split_jitter, noise)
    maps: list[np.ndarray] = []  # per layer: new output channel -> old output channel
    for i, (lo, ln) in enumerate(zip(layers_old, layers_new)):
        if type(lo) is not type(ln) or lo.f != ln.f:
            raise ValueError(f"layer {i}: {type(lo).__name__} vs {type(ln).__name__} (or other inputs)")
        src = [lo.f] if isinstance(lo.f, int) else list(lo.f)
        ins = [maps[i - 1] if j == -1 else maps[j] for j in src] if i else [np.arange(3)]
        prefix = f"model.{i}"
        if isinstance(lo, Detect):
            wd.detect(lo, ln, prefix, ins)
            maps.append(np.arange(0))
            continue
        if isinstance(lo, Concat):
            offset, parts = 0, []
            for m in ins:
                parts.append(offset + m)
                offset += int(m.max()) + 1  # the input's old width (every old channel is in its map)
            maps.append(np.concatenate(parts))
            continue
        if isinstance(lo, nn.Upsample):
            maps.append(ins[0])
            continue
        out_map = channel_map(_width(lo), _width(ln), wd.rng)
        if isinstance(lo, C2f):
            wd.c2f(lo, ln, prefix, ins[0], out_map)
        elif isinstance(lo, SPPF):
            wd.sppf(lo, ln, prefix, ins[0], out_map)
        elif isinstance(lo, Conv):
            wd.conv(lo, ln, prefix, ins[0], out_map)
        else:
            raise ValueError(f"layer {i}: {type(lo).__name__} not handled")
        maps.append(out_map)
    missing = set(new_net.state_dict()) - wd.set_keys
    if missing:
        raise RuntimeError(f"not set by the widening: {sorted(missing)}")
    for attr in ("names", "args"):
        if hasattr(old_net, attr):
            setattr(new_net, attr, getattr(old_net, attr))
    return new_net


def compare(old_net, new_net, x: np.ndarray) -> dict:
    """Max |Δ| of the raw head (1×5×N: cx, cy, w, h in input pixels; score) of the two nets, eval mode."""
    from onnx_checkpoint import torch_outputs

    a, b = torch_outputs(old_net, x, batch=4), torch_outputs(new_net, x, batch=4)
    return {"inputs": int(len(x)), "max_abs_dbox": float(np.abs(a[:, :4] - b[:, :4]).max()),
            "max_abs_dscore": float(np.abs(a[:, 4:] - b[:, 4:]).max())}


def onnx_check(old_onnx: Path, new_onnx: Path, photos: list[Path], *, imgsz: int = 512) -> dict:
    """Two exports on photos: max |Δ| of the raw head on the letterboxed photo (rectangular, as served)
    and whether `TileDetector.detect` (decode + NMS at the photo's own size) returns the same boxes."""
    import cv2
    import onnxruntime as ort

    from vision.detect import TileDetector, letterbox

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = [ort.InferenceSession(str(p), so, providers=["CPUExecutionProvider"]) for p in (old_onnx, new_onnx)]
    det = [TileDetector(p, threads=1) for p in (old_onnx, new_onnx)]
    dbox = dscore = 0.0
    same = n_boxes = 0
    worst_box = 0.0
    for f in photos:
        im = np.ascontiguousarray(cv2.imread(str(f), cv2.IMREAD_COLOR)[..., ::-1])
        x = letterbox(im, imgsz)[0].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        a, b = (s.run(None, {s.get_inputs()[0].name: x})[0] for s in sess)
        dbox = max(dbox, float(np.abs(a[:, :4] - b[:, :4]).max()))
        dscore = max(dscore, float(np.abs(a[:, 4:] - b[:, 4:]).max()))
        ba, bb = (d.detect(im) for d in det)
        n_boxes += len(ba)
        if len(ba) == len(bb):
            diff = max((max(abs(u - v) for u, v in zip(p.xyxy, q.xyxy)) for p, q in zip(ba, bb)), default=0.0)
            worst_box = max(worst_box, diff)
            same += int(diff < 0.5)
    return {"photos": len(photos), "max_abs_dbox": dbox, "max_abs_dscore": dscore, "boxes_old": n_boxes,
            "same_boxes_after_nms": same, "max_box_shift_px": worst_box}


def latency(onnx_path: Path, threads: int, sample: np.ndarray) -> dict:
    """`eval_detector.latency_12mp` of a detector on `threads` threads: the network alone at 512×384 (a 4:3
    photo as served) and detect() on a 12-MP photo, median ms."""
    from eval_detector import latency_12mp

    from vision.detect import TileDetector

    return latency_12mp(TileDetector(onnx_path, threads=threads), sample)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="widen_detector", description=__doc__.split("\n\n")[0])
    ap.add_argument("--init", type=Path, help="ultralytics checkpoint of the narrow detector")
    ap.add_argument("--width", type=float, default=0.1875, help="target width multiple (depth, max channels kept)")
    ap.add_argument("--out", type=Path, help="widened checkpoint (.pt)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split-jitter", type=float, default=0.2,
                    help="random share of a copied channel's input weights (proportions 1±j, normalised)")
    ap.add_argument("--noise", type=float, default=0.0,
                    help="Gaussian noise on the copies' filters, × the layer's weight std (changes the function)")
    ap.add_argument("--check", type=Path, nargs="*", default=[], help="photos / folders to compare the nets on")
    ap.add_argument("--n-check", type=int, default=16)
    ap.add_argument("--onnx-check", type=Path, nargs=2, metavar=("OLD", "NEW"),
                    help="no widening: compare two ONNX exports on --check photos (onnxruntime only)")
    ap.add_argument("--latency", action="store_true", help="with --onnx-check: median ms on 1 and 2 threads (network at 512×384; detect() on 12 MP)")
    args = ap.parse_args(argv)

    if args.onnx_check:
        old, new = args.onnx_check
        info = {"old": str(old), "new": str(new), "bytes_old": old.stat().st_size, "bytes_new": new.stat().st_size}
        if args.check:
            info["check"] = onnx_check(old, new, load_images(args.check, args.n_check))
        if args.latency:
            import cv2

            photo = load_images(args.check, 1)[0] if args.check else REPO.parent / "shared" / "data" / "real-dev" / "toby_test.jpeg"
            sample = np.ascontiguousarray(cv2.imread(str(photo), cv2.IMREAD_COLOR)[..., ::-1])
            for t in (1, 2):
                a, b = latency(old, t, sample), latency(new, t, sample)
                info[f"ms_{t}thr"] = {"old": a, "new": b, "ratio_network": b["network_only_median_ms"] / a["network_only_median_ms"]}
        print(json.dumps(info), flush=True)
        return 0
    if not (args.init and args.out):
        ap.error("--init and --out are required (or --onnx-check OLD NEW)")

    import torch

    from onnx_checkpoint import detector_inputs, save_checkpoint
    from train_detector import _ensure_fonts

    _ensure_fonts()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    ck = torch.load(args.init, map_location="cpu", weights_only=False)
    old = (ck["ema"] if ck.get("ema") is not None else ck["model"]).float().eval()
    depth, _, max_ch = old.yaml["scales"][next(iter(old.yaml["scales"]))]
    scale = (float(depth), float(args.width), int(max_ch))
    with tempfile.TemporaryDirectory() as tmp:
        yaml_path = target_yaml(scale, Path(tmp))
        new = widen_net(old, yaml_path, seed=args.seed, split_jitter=args.split_jitter, noise=args.noise)
        reload = reload_check(new)
    imgsz = int(ck.get("train_args", {}).get("imgsz", 512) or 512)
    info = {"init": str(args.init), "scale": list(scale), "params_old": params(old), "params_new": params(new),
            "seed": args.seed, "split_jitter": args.split_jitter, "noise": args.noise, "reload": reload}
    if reload["dropped"]:
        raise SystemExit(f"keys the trainer would drop: {reload['dropped']}")
    if args.check:
        info["check"] = compare(old, new, detector_inputs(load_images(args.check, args.n_check), imgsz))
    save_checkpoint(new, args.out, info={"widened": info}, train_args={"task": "detect", "imgsz": imgsz})
    print(json.dumps(info), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
