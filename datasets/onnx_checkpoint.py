"""Rebuild a trainable ultralytics checkpoint (.pt) from a shipped ONNX export.

Why: the .pt checkpoints live under git-ignored `cache/` and are lost with the machine; only the
ONNX exports in `models/` survive in git. The export folds every BatchNorm into its convolution
(W' = W·γ/√(var+eps), B' = β − mean·γ/√(var+eps)), so the original BN statistics are gone, but the
function the network computes is all there. This tool turns it back into a checkpoint the trainers'
`--init` (and `--soup`) accept, for any ultralytics model built from a yaml:

1. build the torch model from its yaml (the classifier's `ARCHS[arch]` of train_classifier.py, the
   detector's `train_detector.model_yaml(scale)`, or any `--yaml`);
2. copy each ONNX Conv node's weight (and bias) into the matching torch Conv2d. Matching: by the
   initializer's name when the export kept parameter names (`model.22.cv2.0.0.conv.weight`), else
   by the node's scope name (`/model.2/m.0/cv1/conv/Conv` -> module `model.2.m.0.cv1.conv`), shapes
   checked; the Classify head's Linear comes from the Gemm (transB honoured);
3. give each BatchNorm statistics that make the eval-mode network compute exactly W'·x + B':
   on a calibration batch of realistic inputs, the BN's input z = conv(x) has per-channel mean μ and
   variance σ²; set running_mean = μ, running_var = σ², weight = √(σ² + eps), bias = B' + μ. Eval:
   weight·(z − μ)/√(σ² + eps) + bias = z + B' (exact, whatever the calibration). Train mode normalises
   with the batch's own statistics μ_b, σ_b ≈ μ, σ, so it computes ≈ the same function and
   fine-tuning starts where the shipped model is, not from a jolt. (Setting running_var = σ² and
   weight = √(σ²+eps), rather than running_var = σ² − eps and weight = σ, keeps the train-mode gain at
   ≈ 1 exactly and never needs a negative variance for a near-constant channel.) The calibration
   pass is itself exact: the BNs are first set to identity (mean 0, var 1, weight √(1+eps), bias B').
4. save an ultralytics-style checkpoint (float32, `ema` = the model, `model` None, like the trainer's
   own) with `tsumo_onnx_source` and the figures of step 5.
5. verify: torch eval output vs onnxruntime on the calibration inputs (max abs diff).

Measured (session 9): classifier max |Δprob| 3.2e-6 (512 crops), its re-export by
`train_classifier.export_onnx` within 1.9e-6 of the shipped file with the same top-1 on all 2 169
det_test_h hand crops; detector scores 1.2e-6 and boxes 0.0012 px, its re-export by
`train_detector.export` within 1.2e-6 / 0.0011 px, the same 4 606 anchors above conf 0.25 on 28 photos.
**Train mode is not the eval function** even so: batch statistics of small batches differ from the
calibration's (the classifier's loss on batches of 128 training crops: 1.1–2.4 in train mode vs 0.79
in eval; at batch 256: 0.79; the detector's scores on a batch of 16 real photos move by 0.11 on
average where eval > 0.25). So continue such a checkpoint with BatchNorm frozen in eval mode
(`train_classifier.py --freeze-bn`; the detector trainer has no such switch yet: an
`on_train_batch_start` callback that puts every BatchNorm2d in eval, as train_classifier does).

Library use: `rebuild(onnx_path, yaml_path, task, calib, out)`. CLI (training venv):

    .venv-train/bin/python datasets/onnx_checkpoint.py classifier models/tile_classifier.onnx \\
        cache/cls9/shipped.pt --calib cache/classifier/photos_s9002_64px_v4
    .venv-train/bin/python datasets/onnx_checkpoint.py detector models/tile_detector.onnx \\
        cache/det9/shipped.pt --calib cache/synth/some_train_set/images/train

Torch/ultralytics/onnxruntime are imported inside the functions: the runtime never needs them.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
for _p in (REPO, REPO / "datasets"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".bmp", ".webp")


# ---- matching ONNX parameters to torch modules --------------------------------------------------

def _scope_to_module(node_name: str, modules: dict) -> str | None:
    """'/model.22/cv2.0/cv2.0.0/conv/Conv' -> 'model.22.cv2.0.0.conv' (the deepest module name that
    the scope segments spell, each segment relative to the current module or one of its parents)."""
    segs = [s for s in node_name.strip("/").split("/")[:-1] if s]
    q = ""
    for s in segs:
        parts = q.split(".") if q else []
        for cut in range(len(parts), -1, -1):
            cand = ".".join(parts[:cut] + [s])
            if cand in modules:
                q = cand
                break
        else:
            return None
    return q or None


def onnx_layers(onnx_path: Path) -> list[dict]:
    """Conv and Gemm/MatMul layers of an ONNX graph: op, node name, weight/bias arrays and names."""
    import onnx
    from onnx import numpy_helper

    m = onnx.load(str(onnx_path))
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    # weights may also come from Constant nodes
    for n in m.graph.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    inits[n.output[0]] = numpy_helper.to_array(a.t)
    layers = []
    for n in m.graph.node:
        if n.op_type == "Conv":
            if n.input[1] not in inits:
                raise ValueError(f"{n.name}: weight is not a constant")
            w = inits[n.input[1]]
            b = inits[n.input[2]] if len(n.input) > 2 and n.input[2] else None
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
            layers.append({"op": "Conv", "name": n.name, "w": w, "b": b, "w_name": n.input[1],
                           "group": int(attrs.get("group", 1))})
        elif n.op_type == "Gemm":
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
            w = inits[n.input[1]]
            if not attrs.get("transB", 0):
                w = w.T
            w = w * float(attrs.get("alpha", 1.0))
            b = inits[n.input[2]] * float(attrs.get("beta", 1.0)) if len(n.input) > 2 and n.input[2] else None
            layers.append({"op": "Linear", "name": n.name, "w": np.ascontiguousarray(w), "b": b, "w_name": n.input[1]})
    return layers


def load_onnx_weights(net, onnx_path: Path) -> dict:
    """Copy the ONNX Conv/Gemm weights into `net` (an ultralytics nn.Module built from the same yaml).
    Returns {"convs_bn": {module name of the Conv2d: folded bias}, "matched": {...}} and raises if any
    torch Conv2d/Linear is left without weights or shapes disagree."""
    import torch
    from torch import nn

    modules = dict(net.named_modules())
    convs = {k: v for k, v in modules.items() if isinstance(v, (nn.Conv2d, nn.Linear))}
    # the BatchNorm that follows each Conv2d: ultralytics' Conv(conv, bn, act) pattern
    bn_of = {}
    for name, mod in modules.items():
        c, b = getattr(mod, "conv", None), getattr(mod, "bn", None)
        if isinstance(c, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
            bn_of[f"{name}.conv" if name else "conv"] = b
    assigned: dict[str, dict] = {}
    unmatched = []
    for layer in onnx_layers(onnx_path):
        target = None
        wn = layer["w_name"]
        if wn.endswith(".weight") and wn[: -len(".weight")] in convs:  # the export kept parameter names
            target = wn[: -len(".weight")]
        else:
            target = _scope_to_module(layer["name"], modules)
            if target is not None and target not in convs:
                # the scope may end at the wrapper (e.g. '/model.7/linear/Gemm' -> 'model.7.linear')
                target = None
        if target is None or target in assigned:
            unmatched.append(layer)
            continue
        assigned[target] = layer
    # fall back to order with shape checks for anything the names did not place
    free = [k for k in convs if k not in assigned]
    for layer in unmatched:
        for k in free:
            if tuple(convs[k].weight.shape) == layer["w"].shape:
                assigned[k] = layer
                free.remove(k)
                print(f"[onnx_checkpoint] matched {layer['name']} to {k} by order and shape", flush=True)
                break
        else:
            raise ValueError(f"no torch layer for ONNX node {layer['name']} {layer['w'].shape}")
    if free:
        raise ValueError(f"torch layers without ONNX weights: {free}")
    folded_bias = {}
    with torch.no_grad():
        for k, layer in assigned.items():
            mod = convs[k]
            w = torch.from_numpy(np.array(layer["w"], dtype=np.float32))
            if tuple(mod.weight.shape) != tuple(w.shape):
                raise ValueError(f"{k}: torch {tuple(mod.weight.shape)} vs ONNX {tuple(w.shape)} ({layer['name']})")
            mod.weight.copy_(w)
            b = None if layer["b"] is None else torch.from_numpy(np.array(layer["b"], dtype=np.float32))
            if k in bn_of:
                if mod.bias is not None:
                    raise ValueError(f"{k}: a conv followed by BatchNorm should have no bias")
                folded_bias[k] = b if b is not None else torch.zeros(mod.out_channels)
            elif mod.bias is not None:
                mod.bias.copy_(b if b is not None else torch.zeros_like(mod.bias))
            elif b is not None and float(b.abs().max()) > 0:
                raise ValueError(f"{k}: ONNX has a bias but the torch layer has none and no BatchNorm")
    return {"bn_of": bn_of, "folded_bias": folded_bias, "n_layers": len(assigned)}


def restore_batchnorms(net, loaded: dict, calib, *, batch: int = 64) -> dict:
    """Set every BatchNorm so eval-mode `net` computes the ONNX function exactly and its statistics
    are those of `calib` (float32 N×3×H×W); see the module doc. Returns summary figures."""
    import torch

    bn_of, folded = loaded["bn_of"], loaded["folded_bias"]
    with torch.no_grad():
        for k, bn in bn_of.items():  # identity BN first: the calibration pass is then exact
            b = folded[k]
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0)
            bn.weight.fill_(float(np.sqrt(1.0 + bn.eps)))
            bn.bias.copy_(b)
    sums = {k: [0.0, 0.0, 0] for k in bn_of}
    hooks = []
    for k, bn in bn_of.items():
        def hook(mod, inp, _k=k):
            z = inp[0].double()
            s = sums[_k]
            s[0] = s[0] + z.sum(dim=(0, 2, 3))
            s[1] = s[1] + (z * z).sum(dim=(0, 2, 3))
            s[2] += z.shape[0] * z.shape[2] * z.shape[3]
        hooks.append(bn.register_forward_pre_hook(hook))
    net.eval()
    x = torch.as_tensor(np.asarray(calib, dtype=np.float32))
    with torch.no_grad():
        for i in range(0, len(x), batch):
            net(x[i:i + batch])
    for h in hooks:
        h.remove()
    small = 0
    with torch.no_grad():
        for k, bn in bn_of.items():
            s0, s1, n = sums[k]
            mu = s0 / n
            var = (s1 / n - mu * mu).clamp_min(0.0)
            small += int((var < bn.eps).sum())
            bn.running_mean.copy_(mu.float())
            bn.running_var.copy_(var.float())
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.copy_((folded[k].double() + mu).float())
    return {"batchnorms": len(bn_of), "channels_var_below_eps": small, "calib_inputs": int(len(x))}


# ---- calibration inputs ------------------------------------------------------------------------

def load_images(sources: list[Path], n: int, *, seed: int = 0) -> list[Path]:
    """Up to `n` image files drawn at random (seeded) from files/folders (recursive)."""
    files: list[Path] = []
    for s in sources:
        s = Path(s)
        if s.is_dir():
            files += sorted(p for p in s.rglob("*") if p.suffix.lower() in IMAGE_EXTS and not p.name.endswith(".tmp.png"))
        elif s.is_file():
            files.append(s)
    if not files:
        raise SystemExit(f"no calibration images in {[str(s) for s in sources]}")
    rng = np.random.default_rng(seed)
    if len(files) > n:
        files = [files[i] for i in sorted(rng.choice(len(files), n, replace=False))]
    return files


def classifier_inputs(files: list[Path], imgsz: int) -> np.ndarray:
    """Crops as the classifier sees them: RGB float32 N×3×S×S in [0, 1], resized to S (crops on disk
    are already cut by crop_tile)."""
    import cv2

    out = []
    for f in files:
        im = cv2.imread(str(f), cv2.IMREAD_COLOR)[..., ::-1]
        if im.shape[:2] != (imgsz, imgsz):
            im = cv2.resize(im, (imgsz, imgsz), interpolation=cv2.INTER_AREA)
        out.append(np.ascontiguousarray(im.transpose(2, 0, 1)))
    return np.stack(out).astype(np.float32) / 255.0


def detector_inputs(files: list[Path], imgsz: int) -> np.ndarray:
    """Photos as the detector sees them: letterboxed to an imgsz square by `vision.detect.letterbox`
    (scale to fit, pad centred with grey 114), RGB float32 N×3×S×S in [0, 1]."""
    import cv2

    from vision.detect import letterbox

    out = []
    for f in files:
        im = np.ascontiguousarray(cv2.imread(str(f), cv2.IMREAD_COLOR)[..., ::-1])
        out.append(letterbox(im, imgsz, square=True)[0].transpose(2, 0, 1))
    return np.stack(out).astype(np.float32) / 255.0


# ---- building, comparing, saving ---------------------------------------------------------------

def build_model(yaml_path: Path, task: str):
    """The torch model of a yaml, as the trainers build it (ultralytics' YOLO(yaml, task))."""
    from ultralytics import YOLO

    return YOLO(str(yaml_path), task=task).model.float()


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def torch_outputs(net, x: np.ndarray, batch: int = 32) -> np.ndarray:
    import torch

    net.eval()
    ys = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            ys.append(_first(net(torch.as_tensor(x[i:i + batch]))).numpy())
    return np.concatenate(ys)


def onnx_outputs(onnx_path: Path, x: np.ndarray, batch: int = 32) -> np.ndarray:
    import onnxruntime as ort

    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    return np.concatenate([sess.run(None, {name: x[i:i + batch]})[0] for i in range(0, len(x), batch)])


def onnx_metadata(onnx_path: Path) -> dict[str, str]:
    """The export's `metadata_props` as a dict (one place that reads them)."""
    import onnx

    return {p.key: p.value for p in onnx.load(str(onnx_path)).metadata_props}


def onnx_names(onnx_path: Path) -> dict[int, str] | None:
    """Class names from the export's metadata (tsumo_classes, else ultralytics' names)."""
    import ast

    meta = onnx_metadata(onnx_path)
    if "tsumo_classes" in meta:
        return dict(enumerate(json.loads(meta["tsumo_classes"])))
    if "names" in meta:
        return {int(k): v for k, v in ast.literal_eval(meta["names"]).items()}
    return None


def freeze_batchnorm(trainer) -> int:
    """ultralytics callback (on_train_batch_start) for continuing a rebuilt checkpoint: put every
    BatchNorm back in eval mode (the trainer sets model.train() each epoch), so its statistics stay
    the shipped ones while its affine weights train. Returns how many it switched. Both trainers'
    `--freeze-bn`."""
    import torch

    n = 0
    for m in trainer.model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.training:
            m.eval()
            n += 1
    return n


def save_checkpoint(net, out: Path, *, info: dict, train_args: dict | None = None) -> Path:
    """An ultralytics-style checkpoint (float32 weights in `ema`, like the trainer's own files)."""
    import copy
    import datetime

    import torch
    import ultralytics

    ck = {
        "epoch": -1, "best_fitness": None, "model": None, "ema": copy.deepcopy(net).float().eval(), "updates": 0,
        "optimizer": None, "train_args": train_args or {}, "train_metrics": {}, "train_results": {},
        "date": datetime.datetime.now().isoformat(), "version": ultralytics.__version__,
        "tsumo_onnx_source": info,
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(ck, out)
    return out


def rebuild(onnx_path: Path, yaml_path: Path, task: str, calib: np.ndarray, out: Path, *,
            check: np.ndarray | None = None) -> dict:
    """ONNX export + the yaml it was trained from -> trainable checkpoint `out`. Returns figures:
    max |torch eval − onnxruntime| on `check` (default: the calibration inputs)."""
    import torch

    torch.manual_seed(0)
    net = build_model(yaml_path, task)
    loaded = load_onnx_weights(net, onnx_path)
    bn = restore_batchnorms(net, loaded, calib)
    names = onnx_names(onnx_path)
    if names:
        net.names = names
    x = calib if check is None else check
    ref, got = onnx_outputs(onnx_path, x), torch_outputs(net, x)
    if ref.shape != got.shape:
        raise ValueError(f"output shapes differ: onnx {ref.shape} vs torch {got.shape}")
    info = {"onnx": str(onnx_path), "yaml": Path(yaml_path).name, "task": task, "layers": loaded["n_layers"], **bn,
            "max_abs_diff_vs_onnxruntime": float(np.abs(ref - got).max()), "checked_inputs": int(len(x))}
    if task == "classify":
        info["top1_agree"] = float((ref.argmax(1) == got.argmax(1)).mean())
    save_checkpoint(net, out, info=info, train_args={"task": task, "imgsz": int(x.shape[-1])})
    return info


def classifier_yaml(out_dir: Path, arch: str = "small") -> Path:
    from train_classifier import ARCHS

    p = Path(out_dir) / f"tile_classifier_{arch}.yaml"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(ARCHS[arch])
    return p


def onnx_recipe_scale(onnx_path: Path) -> tuple | None:
    """The detector's depth/width/max-channels scale as its export recorded it (`tsumo_recipe`)."""
    meta = onnx_metadata(onnx_path)
    try:
        d, w, c = json.loads(meta["tsumo_recipe"])["scale"]
        return float(d), float(w), int(c)
    except (KeyError, ValueError, TypeError):
        return None


def detector_yaml(out_dir: Path, scale: tuple | None = None, onnx_path: Path | None = None) -> Path:
    """train_detector's yaml at `scale`, else the scale recorded in `onnx_path`'s metadata, else
    train_detector.DEFAULT_SCALE (the shipped detector is 0.33/0.125/512, not the default)."""
    from train_detector import DEFAULT_SCALE, model_yaml

    scale = scale or (onnx_recipe_scale(onnx_path) if onnx_path else None) or DEFAULT_SCALE
    return model_yaml(tuple(scale), Path(out_dir) / "tile_detector.yaml")


def onnx_imgsz(onnx_path: Path, default: int) -> int:
    return int(onnx_metadata(onnx_path).get("tsumo_imgsz", default))


def convert_classifier(onnx_path: Path, out: Path, calib_sources: list[Path], *, n: int = 512,
                       arch: str = "small") -> dict:
    """The classifier (train_classifier.ARCHS[arch], task classify) from its ONNX; calibration crops
    from `calib_sources` (image folders of crops, e.g. a photo-crop set's train/)."""
    imgsz = onnx_imgsz(onnx_path, 64)
    x = classifier_inputs(load_images(calib_sources, n), imgsz)
    return rebuild(onnx_path, classifier_yaml(Path(out).parent, arch), "classify", x, out)


def convert_detector(onnx_path: Path, out: Path, calib_sources: list[Path], *, n: int = 32,
                     scale: tuple | None = None) -> dict:
    """The detector (train_detector.model_yaml(scale), task detect) from its ONNX; calibration photos
    (letterboxed to the export's imgsz) from `calib_sources`."""
    imgsz = onnx_imgsz(onnx_path, 512)
    x = detector_inputs(load_images(calib_sources, n), imgsz)
    return rebuild(onnx_path, detector_yaml(Path(out).parent, scale, onnx_path), "detect", x, out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="onnx_checkpoint", description=__doc__.split("\n\n")[0])
    ap.add_argument("kind", choices=["classifier", "detector", "yaml"],
                    help="which trainer's network (yaml: give --yaml and --task)")
    ap.add_argument("onnx", type=Path)
    ap.add_argument("out", type=Path, help="checkpoint to write (.pt)")
    ap.add_argument("--calib", type=Path, nargs="+", required=True,
                    help="calibration images (files or folders, recursive): crops for the classifier, "
                         "training photos for the detector; never a held-out set")
    ap.add_argument("--n", type=int, default=None, help="calibration inputs (default 512 crops / 32 photos)")
    ap.add_argument("--arch", default="small", help="classifier: train_classifier.ARCHS key")
    ap.add_argument("--scale", default=None, help="detector: depth,width,max_channels (default: the ONNX's tsumo_recipe, else train_detector.DEFAULT_SCALE)")
    ap.add_argument("--yaml", type=Path, default=None)
    ap.add_argument("--task", default=None, help="with kind yaml: classify/detect/…")
    ap.add_argument("--imgsz", type=int, default=None, help="with kind yaml: input size")
    args = ap.parse_args(argv)
    from train_classifier import _ultralytics_env

    _ultralytics_env()
    import torch

    torch.set_num_threads(1)
    if args.kind == "classifier":
        info = convert_classifier(args.onnx, args.out, args.calib, n=args.n or 512, arch=args.arch)
    elif args.kind == "detector":
        scale = None
        if args.scale:
            d, w, c = args.scale.split(",")
            scale = (float(d), float(w), int(c))
        info = convert_detector(args.onnx, args.out, args.calib, n=args.n or 32, scale=scale)
    else:
        if not (args.yaml and args.task and args.imgsz):
            ap.error("kind yaml needs --yaml, --task and --imgsz")
        files = load_images(args.calib, args.n or 64)
        x = (classifier_inputs if args.task == "classify" else detector_inputs)(files, args.imgsz)
        info = rebuild(args.onnx, args.yaml, args.task, x, args.out)
    print(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
