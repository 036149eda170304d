"""Function-preserving widening (Net2WiderNet) of a tile-classifier checkpoint.

Turns an ultralytics checkpoint of one `train_classifier.ARCHS` net (e.g. `small`: 16-32-32-64-64-128-128)
into one of a wider `ARCHS` net with the same layers and depth (e.g. `wide`: 16-32-32-96-96-192-192) whose
outputs are the same, so training can continue from the shipped weights with more capacity (session 13:
is the small net out of capacity?).

How (Chen et al., Net2Net, 2016):
- a widened layer keeps its old output channels and adds copies of randomly chosen old ones (each old
  channel copied at most once while the width at most doubles): a copy has the same filter and the same
  BatchNorm (weight, bias, running statistics), so it computes the same activation;
- every consumer of a widened layer splits the input weights of an old channel among its copies with
  random proportions that sum to one (per weight element, `split_jitter`), so the sum it computes is
  unchanged, and the copies receive different gradients and can drift apart (no noise is needed to
  break the symmetry; `noise` adds some to the copies' filters anyway, which perturbs the function);
- C2f: `cv1`'s output is `chunk(2)`-ed, so each half is widened on its own (new chunk k channel j maps to
  old chunk k channel h_k(j)); the Bottlenecks' residuals need the same mapping on both sides, so a
  Bottleneck's output uses its input's mapping (the second chunk's) and only its hidden layer gets a
  mapping of its own; `cv2` consumes the concatenation [chunk 0, chunk 1, bottleneck outputs...] with
  those mappings;
- the Classify head's 1×1 conv consumes the last stage (split), its 1 280 outputs and the linear layer
  stay as they are.

The result is saved like `onnx_checkpoint.save_checkpoint` (float32 in `ema`), built from the target
`ARCHS` yaml, so the trainer (`--init`) rebuilds it from that yaml and loads every key (checked here:
ultralytics intersects state dicts silently). Run in the training venv:

    .venv-train/bin/python datasets/widen_classifier.py --init cache/classifier/runs/run13/init_from_onnx.pt \\
        --arch wide --out cache/cls13/wide_init.pt --check-crops cache/classifier/photos_s9002_64px_v4/val
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for p in (REPO, REPO / "datasets"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import numpy as np  # noqa: E402


def channel_map(old: int, new: int, rng: np.random.Generator) -> np.ndarray:
    """New channel -> old channel: the old ones in place, then copies of distinct random old channels
    (with repeats only beyond twice the width)."""
    if new < old:
        raise ValueError(f"cannot narrow {old} -> {new}")
    extra, picks = new - old, []
    while extra > 0:
        k = min(extra, old)
        picks.append(np.sort(rng.choice(old, k, replace=False)))
        extra -= k
    return np.concatenate([np.arange(old)] + picks).astype(np.int64)


def split_weights(shape_out_in: tuple, in_map: np.ndarray, rng: np.random.Generator, jitter: float) -> np.ndarray:
    """Per-element proportions P (same shape as the new weight, dims 0/1 = out/in) with, for every old
    input channel, the proportions over its copies summing to one."""
    n_out, n_in, *k = shape_out_in
    P = np.ones((n_out, n_in, *k), dtype=np.float64)
    for c in np.unique(in_map):
        idx = np.flatnonzero(in_map == c)
        if len(idx) == 1:
            continue
        w = 1.0 + jitter * rng.uniform(-1.0, 1.0, size=(n_out, len(idx), *k))
        P[:, idx] = w / w.sum(axis=1, keepdims=True)
    return P


class Widener:
    """Copies old weights into a wider state dict layer by layer (one rng for every channel pick and split);
    `datasets/widen_detector.py` extends it with the detector's SPPF, Concat and Detect."""

    def __init__(self, seed: int, split_jitter: float, noise: float):
        self.rng = np.random.default_rng(seed)
        self.jitter, self.noise = split_jitter, noise
        self.set_keys: set[str] = set()

    def conv(self, old, new, prefix: str, in_map: np.ndarray, out_map: np.ndarray) -> None:
        """ultralytics Conv (conv without bias + BatchNorm + act): new[o, i] = old[out_map[o], in_map[i]] · P."""
        import torch

        w_old = old.conv.weight.detach().double().cpu().numpy()
        w = w_old[out_map][:, in_map]
        w = w * split_weights(w.shape, in_map, self.rng, self.jitter)
        if self.noise > 0:
            copies = np.flatnonzero(np.arange(len(out_map)) >= w_old.shape[0])
            if len(copies):
                w[copies] += self.noise * w_old.std() * self.rng.standard_normal(w[copies].shape)
        assert tuple(new.conv.weight.shape) == w.shape, (prefix, tuple(new.conv.weight.shape), w.shape)
        with torch.no_grad():
            new.conv.weight.copy_(torch.from_numpy(w).to(new.conv.weight.dtype))
            for name in ("weight", "bias", "running_mean", "running_var"):
                getattr(new.bn, name).copy_(getattr(old.bn, name).detach()[torch.from_numpy(out_map)])
            new.bn.num_batches_tracked.copy_(old.bn.num_batches_tracked)
            new.bn.eps, new.bn.momentum = old.bn.eps, old.bn.momentum
        self.set_keys |= {f"{prefix}.conv.weight"} | {f"{prefix}.bn.{n}" for n in
                                                    ("weight", "bias", "running_mean", "running_var", "num_batches_tracked")}

    def c2f(self, old, new, prefix: str, in_map: np.ndarray, out_map: np.ndarray) -> None:
        c_old, c_new = old.c, new.c
        if len(old.m) != len(new.m):
            raise ValueError(f"{prefix}: {len(old.m)} vs {len(new.m)} bottlenecks (widening keeps the depth)")
        h0, h1 = channel_map(c_old, c_new, self.rng), channel_map(c_old, c_new, self.rng)
        self.conv(old.cv1, new.cv1, f"{prefix}.cv1", in_map, np.concatenate([h0, c_old + h1]))
        cat_map = [h0, c_old + h1]
        for i, (mo, mn) in enumerate(zip(old.m, new.m)):
            if mo.add != mn.add:
                raise ValueError(f"{prefix}.m.{i}: residual differs")
            hidden_old = mo.cv1.conv.weight.shape[0]
            k = channel_map(hidden_old, mn.cv1.conv.weight.shape[0], self.rng)
            self.conv(mo.cv1, mn.cv1, f"{prefix}.m.{i}.cv1", h1, k)
            self.conv(mo.cv2, mn.cv2, f"{prefix}.m.{i}.cv2", k, h1)  # the residual: output mapped like its input
            cat_map.append((2 + i) * c_old + h1)
        self.conv(old.cv2, new.cv2, f"{prefix}.cv2", np.concatenate(cat_map), out_map)

    def classify(self, old, new, prefix: str, in_map: np.ndarray) -> None:
        import torch

        out = np.arange(old.conv.conv.weight.shape[0])
        self.conv(old.conv, new.conv, f"{prefix}.conv", in_map, out)
        with torch.no_grad():
            new.linear.weight.copy_(old.linear.weight.detach())
            new.linear.bias.copy_(old.linear.bias.detach())
        self.set_keys |= {f"{prefix}.linear.weight", f"{prefix}.linear.bias"}


def widen_net(old_net, arch_yaml: str, *, seed: int = 0, split_jitter: float = 0.2, noise: float = 0.0):
    """A ClassificationModel built from `arch_yaml` computing what `old_net` computes (eval mode)."""
    import yaml
    from ultralytics.nn.modules import C2f, Classify, Conv
    from ultralytics.nn.tasks import ClassificationModel

    old_net = old_net.float().eval()
    cfg = yaml.safe_load(arch_yaml)
    new_net = ClassificationModel(cfg, ch=3, nc=cfg.get("nc", 75), verbose=False).float().eval()
    layers_old, layers_new = list(old_net.model), list(new_net.model)
    if len(layers_old) != len(layers_new):
        raise ValueError(f"{len(layers_old)} vs {len(layers_new)} layers: widening keeps the layers")
    wd = Widener(seed, split_jitter, noise)
    in_map = np.arange(3)
    for i, (lo, ln) in enumerate(zip(layers_old, layers_new)):
        if type(lo) is not type(ln) or getattr(lo, "f", -1) != -1:
            raise ValueError(f"layer {i}: {type(lo).__name__} vs {type(ln).__name__} (or not sequential)")
        prefix = f"model.{i}"
        if isinstance(lo, Classify):
            wd.classify(lo, ln, prefix, in_map)
            continue
        width_old = lo.cv2.conv.weight.shape[0] if isinstance(lo, C2f) else lo.conv.weight.shape[0]
        width_new = ln.cv2.conv.weight.shape[0] if isinstance(ln, C2f) else ln.conv.weight.shape[0]
        out_map = channel_map(width_old, width_new, wd.rng)
        if isinstance(lo, C2f):
            wd.c2f(lo, ln, prefix, in_map, out_map)
        elif isinstance(lo, Conv):
            wd.conv(lo, ln, prefix, in_map, out_map)
        else:
            raise ValueError(f"layer {i}: {type(lo).__name__} not handled")
        in_map = out_map
    missing = set(new_net.state_dict()) - wd.set_keys
    if missing:
        raise RuntimeError(f"not set by the widening: {sorted(missing)}")
    for attr in ("names", "args", "transforms"):
        if hasattr(old_net, attr):
            setattr(new_net, attr, getattr(old_net, attr))
    return new_net


def reload_check(net) -> dict:
    """What the trainer does with an --init checkpoint: rebuild the net from its yaml (the same ultralytics
    model class: a classifier here, a detector in `widen_detector`) and load the weights through
    ultralytics' (silent) state-dict intersection. Every key must transfer."""
    from ultralytics.utils.torch_utils import intersect_dicts

    rebuilt = type(net)(net.yaml, ch=3, nc=net.yaml["nc"], verbose=False)
    target = rebuilt.state_dict()
    csd = intersect_dicts(net.float().state_dict(), target)
    return {"keys": len(target), "transferred": len(csd), "dropped": sorted(set(target) - set(csd))}


def compare(old_net, new_net, x: np.ndarray) -> dict:
    from onnx_checkpoint import torch_outputs

    a, b = torch_outputs(old_net, x), torch_outputs(new_net, x)
    return {"inputs": int(len(x)), "max_abs_dprob": float(np.abs(a - b).max()),
            "top1_agree": float((a.argmax(1) == b.argmax(1)).mean())}


def params(net) -> int:
    return int(sum(p.numel() for p in net.parameters()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="widen_classifier", description=__doc__.split("\n\n")[0])
    ap.add_argument("--init", type=Path, required=True, help="ultralytics checkpoint of the narrow net")
    ap.add_argument("--arch", default="wide", help="target train_classifier.ARCHS entry (same layers and depth)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split-jitter", type=float, default=0.2,
                    help="random share of a copied channel's input weights (proportions 1±j, normalised)")
    ap.add_argument("--noise", type=float, default=0.0,
                    help="Gaussian noise on the copies' filters, × the layer's weight std (changes the function)")
    ap.add_argument("--check-crops", type=Path, nargs="*", default=[],
                    help="image folders (png crops, searched recursively) to compare the two nets on")
    ap.add_argument("--n-check", type=int, default=512)
    args = ap.parse_args(argv)

    import torch

    from onnx_checkpoint import classifier_inputs, load_images, save_checkpoint
    from train_classifier import ARCHS, _ultralytics_env

    _ultralytics_env()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    ck = torch.load(args.init, map_location="cpu", weights_only=False)
    old = (ck["ema"] if ck.get("ema") is not None else ck["model"]).float().eval()
    new = widen_net(old, ARCHS[args.arch], seed=args.seed, split_jitter=args.split_jitter, noise=args.noise)
    imgsz = int(ck.get("train_args", {}).get("imgsz", 64) or 64)
    info = {"init": str(args.init), "arch": args.arch, "params_old": params(old), "params_new": params(new),
            "seed": args.seed, "split_jitter": args.split_jitter, "noise": args.noise, "reload": reload_check(new)}
    if info["reload"]["dropped"]:
        raise SystemExit(f"keys the trainer would drop: {info['reload']['dropped']}")
    if args.check_crops:
        files = load_images(args.check_crops, args.n_check)
        info["check"] = compare(old, new, classifier_inputs(files, imgsz))
    save_checkpoint(new, args.out, info={"widened": info},
                    train_args={"task": "classify", "imgsz": imgsz})
    print(json.dumps(info), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
