"""Weight averages ("model soups") of ultralytics checkpoints of one network, for both trainers.

Why: averaging the shipped weights with later epochs was the cheapest candidate of sessions 7-8
(no training, measured like any epoch); session 7 shipped such a classifier. Torch is imported
only here, inside the function: the runtime never needs it."""
from __future__ import annotations

from pathlib import Path


def average_checkpoints(paths: list[Path], out: Path, weights: list[float] | None = None) -> Path:
    """Average the checkpoints' weights (their EMA weights when they have them) and save the result
    like an ultralytics checkpoint (fp16, the last input's other fields) so the trainers' exports
    take it as it is. Float tensors (BatchNorm statistics too) are the mean, or the mean weighted
    by `weights` (normalised); integer tensors (counters) come from the first checkpoint. The plain
    mean is computed as sum / n, which rebuilds the shipped session-7 classifier bit-exactly."""
    import copy

    import torch

    if not paths:
        raise SystemExit("no checkpoints to average")
    if weights is not None and (len(weights) != len(paths) or sum(weights) <= 0 or min(weights) < 0):
        raise SystemExit("one non-negative weight per checkpoint is needed, with a positive sum")
    cks = [torch.load(p, map_location="cpu", weights_only=False) for p in paths]
    nets = [c["ema"] if c.get("ema") is not None else c["model"] for c in cks]
    key = "ema" if cks[-1].get("ema") is not None else "model"
    states = [n.float().state_dict() for n in nets]

    def mean(k: str):
        if weights is None:
            return sum(sd[k].float() for sd in states) / len(states)
        return sum(w / sum(weights) * sd[k].float() for w, sd in zip(weights, states))

    avg = {k: mean(k) if v.is_floating_point() else v for k, v in states[0].items()}
    net = copy.deepcopy(nets[-1]).float()
    net.load_state_dict(avg)
    ck = dict(cks[-1])
    ck[key] = net.half()
    ck["model"] = None if key == "ema" else net.half()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(ck, out)
    return out
