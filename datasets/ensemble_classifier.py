"""Join tile classifiers into ONE ONNX file whose output is the mean of their probabilities.

Why: weight soups of fine-tunes from one start (the shipped soup, runs 12–14) land within noise of
each other, but two of those models err on different tiles — run 13 e4 (trained mostly on `hard`
renders) and the shipped soup share most errors, yet averaging their *outputs* fixes ~10 % of the
errors (tune9 hand tiles: shipped 356, run 13 e4 335, both 321 of 5 787). An output ensemble needs
no runtime change if it is one graph: `vision.classify.TileClassifier` loads it like any classifier
(same input `images` N×3×S×S, same output `probs` N×75), onnxruntime runs every member, and the
file carries the first member's metadata (crop size, margin, classes) plus `tsumo_ensemble`.

Each member's nodes, initializers and inner edges get a prefix `m<k>/`; the shared input feeds them
all; `Sum` then `Mul` by 1/k gives `probs`. The members must agree on input, output, classes, crop
size and margin (checked).

    .venv-train/bin/python datasets/ensemble_classifier.py OUT.onnx A.onnx B.onnx [C.onnx ...]

Needs the `onnx` package (training venv); onnxruntime checks the result against the members.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

# Metadata every member must share: the crop contract and the output's meaning.
SHARED_META = ("tsumo_imgsz", "tsumo_crop_margin", "tsumo_classes", "tsumo_input")


def _member_graph(model, prefix: str, keep: set[str]):
    """The member's nodes and initializers with every name except `keep` (the shared input) prefixed."""
    def name(n: str) -> str:
        return n if (n in keep or n == "") else prefix + n

    nodes = []
    for node in model.graph.node:
        node.input[:] = [name(n) for n in node.input]
        node.output[:] = [name(n) for n in node.output]
        node.name = prefix + node.name
        nodes.append(node)
    inits = []
    for init in model.graph.initializer:
        init.name = name(init.name)
        inits.append(init)
    return nodes, inits


def build(members: list[Path], out: Path) -> dict:
    """Write the ensemble of `members` to `out`; return its metadata (`tsumo_ensemble` = the members)."""
    import onnx
    from onnx import TensorProto, helper

    if len(members) < 2:
        raise ValueError("an ensemble needs at least two member models")
    models = [onnx.load(str(p)) for p in members]
    metas = [{p.key: p.value for p in m.metadata_props} for m in models]
    opsets = [max(o.version for o in m.opset_import if o.domain in ("", "ai.onnx")) for m in models]
    first, opset = models[0], opsets[0]
    in_name, out_name = first.graph.input[0].name, first.graph.output[0].name
    for p, m, meta, own_opset in zip(members, models, metas, opsets):
        if [i.name for i in m.graph.input] != [in_name] or [o.name for o in m.graph.output] != [out_name]:
            raise ValueError(f"{p}: input/output names differ from {members[0]}")
        for key in SHARED_META:
            if meta.get(key) != metas[0].get(key):
                raise ValueError(f"{p}: metadata {key!r} differs from {members[0]}")
        if own_opset != opset:
            raise ValueError(f"{p}: opset differs from {members[0]}")

    nodes, inits, outs = [], [], []
    for k, m in enumerate(models):
        n, i = _member_graph(m, f"m{k}/", {in_name})
        nodes += n
        inits += i
        outs.append(f"m{k}/{out_name}")
    inits.append(helper.make_tensor("ensemble/scale", TensorProto.FLOAT, [], [1.0 / len(models)]))
    nodes.append(helper.make_node("Sum", outs, ["ensemble/sum"], name="ensemble/Sum"))
    nodes.append(helper.make_node("Mul", ["ensemble/sum", "ensemble/scale"], [out_name], name="ensemble/Mean"))
    graph = helper.make_graph(nodes, "tile_classifier_ensemble", [first.graph.input[0]], [first.graph.output[0]],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="tsumo")
    model.ir_version = first.ir_version
    meta = dict(metas[0])
    meta["tsumo_ensemble"] = json.dumps([{"file": p.name, **{k: v for k, v in mt.items()
                                                          if k.startswith("tsumo_train") or k == "tsumo_init"}}
                                         for p, mt in zip(members, metas)])
    for key, value in meta.items():
        model.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))
    return meta


def check(members: list[Path], out: Path, n: int = 64, seed: int = 0) -> float:
    """Max |ensemble − mean of members| on random crops (onnxruntime); should be ~1e-7."""
    import onnxruntime as ort

    def run(path: Path, x: np.ndarray) -> np.ndarray:
        s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        return s.run(None, {s.get_inputs()[0].name: x})[0]

    shape = ort.InferenceSession(str(members[0]), providers=["CPUExecutionProvider"]).get_inputs()[0].shape
    x = np.random.default_rng(seed).random((n, *shape[1:]), dtype=np.float32)
    want = np.mean([run(p, x) for p in members], axis=0)
    return float(np.abs(run(out, x) - want).max())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("members", type=Path, nargs="+")
    a = ap.parse_args(argv)
    try:
        build(a.members, a.out)
    except (ValueError, FileNotFoundError) as e:
        print(f"ensemble_classifier: {e}", file=sys.stderr)
        return 2
    print(f"wrote {a.out} ({a.out.stat().st_size / 1e6:.1f} MB), max |Δprob| vs the members' mean: "
          f"{check(a.members, a.out):.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
