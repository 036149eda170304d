"""How the shipped reader reads photos under coloured or dim light, with and without balancing them (`vision/colour.py`).

    python datasets/measure_casts.py --real-dev ../shared/data/real-dev          # 4 photos x 5 lights x 4 strengths
    python datasets/measure_casts.py cache/synth/tune10_x3 --workers 2 --threads 1   # each photo under a random light
    python datasets/measure_casts.py cache/synth/tune10_x3 --kinds dim             # ... drawn among these kinds only
    python datasets/measure_casts.py --real-dev ../shared/data/real-dev --kinds warm --also dim   # both, 4 x 4 strengths

A light is a gain per channel applied to the photo's RGB values and saved again as JPEG 95: `CASTS` gives each
kind at full strength (warm is a tungsten bulb's cast as a phone without white balance would keep it; dim, a quarter
of the light a phone exposes for); strength s scales each gain's distance from 1. A rendered set's photos each get
one light, its kind (among `--kinds`) and strength (0.25-1) drawn from the photo's file name, so every run and
checkout tints a photo alike (session 56's draws, before dim: `--kinds cold green magenta warm`). Each photo is
read twice, by the same models: `PhotoReader(balance=False)` and as shipped; the figures are the photos read
exactly each way, the gains and losses, and how many the shipped reader balanced. Choose on tune sets; read a gate
once.
"""
from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from eval_reading import load_set
from reader_pool import job_map

from vision.io import load_image
from vision.pipeline import BALANCED_NOTE, PhotoReader

# Full-strength RGB gains of each kind of light.
CASTS: dict[str, tuple[float, float, float]] = {
    "warm": (1.15, 0.9, 0.6),
    "cold": (0.8, 1.0, 1.2),
    "green": (0.9, 1.1, 0.9),
    "magenta": (1.1, 0.88, 1.1),
    "dim": (0.25, 0.25, 0.25),
}
STRENGTHS = (0.25, 0.5, 0.75, 1.0)
RANDOM_STRENGTH = (0.25, 1.0)
JPEG_QUALITY = 95


def tinted(image: np.ndarray, kind: str, strength: float) -> np.ndarray:
    """`image` (RGB uint8) under `kind` of light at `strength`, clipped, and saved again as JPEG (as a phone would)."""
    gains = np.array([1 + (g - 1) * strength for g in CASTS[kind]], np.float32)
    out = np.clip(image.astype(np.float32) * gains, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(out, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return load_image(data.tobytes())


def drawn_cast(name: str, kinds: tuple[str, ...] = tuple(CASTS)) -> tuple[str, float]:
    """The light a rendered photo gets: its kind (one of `kinds`) and strength, drawn from a stable hash of its file
    name."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    kind = sorted(kinds)[int(rng.integers(len(kinds)))]
    return kind, round(float(rng.uniform(*RANDOM_STRENGTH)), 3)


def unbalanced(reader: PhotoReader) -> PhotoReader:
    """A reader with `reader`'s models (loaded once) that reads with `balance=False`."""
    return PhotoReader(detector=reader.detector, classifier=reader.classifier, closer=reader.closer, alt=reader.alt,
                       third=reader.third, balance=False)


def _readers(threads: int):
    shipped = PhotoReader(threads=threads)
    return unbalanced(shipped), shipped


def _read(readers, job: tuple[str, str, tuple[tuple[str, float], ...], int]) -> dict:
    """One photo under its `lights` (none, one, or one after another), read unbalanced and as shipped."""
    path, truth, lights, players = job
    image = load_image(path)
    for kind, strength in lights:
        image = tinted(image, kind, strength)
    plain, shipped = (r.read(image, players=players) for r in readers)
    return {"photo": Path(path).name, "kind": "+".join(k for k, _ in lights) or "none",
            "strength": [s for _, s in lights], "plain": plain.sequence == truth, "shipped": shipped.sequence == truth,
            "balanced": any(BALANCED_NOTE in note for note in shipped.notes)}


def tally(rows: list[dict]) -> dict:
    """Exact each way, gains and losses, balanced; overall and per kind of light."""
    def count(rs: list[dict]) -> dict:
        return {"photos": len(rs), "plain": sum(r["plain"] for r in rs), "shipped": sum(r["shipped"] for r in rs),
                "gained": sum(r["shipped"] and not r["plain"] for r in rs),
                "lost": sum(r["plain"] and not r["shipped"] for r in rs), "balanced": sum(r["balanced"] for r in rs)}
    return {"all": count(rows), **{k: count([r for r in rows if r["kind"] == k]) for k in sorted({r["kind"] for r in rows})}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", type=Path, nargs="*", help="rendered set folders (labels.jsonl): one random light a photo")
    ap.add_argument("--real-dev", type=Path, help="a real photo folder (labels.jsonl): every light at every strength")
    ap.add_argument("--kinds", nargs="+", choices=sorted(CASTS), default=sorted(CASTS),
                    help="the kinds of light drawn or tried (default: all)")
    ap.add_argument("--also", choices=sorted(CASTS), help="--real-dev: each photo under every kind of --kinds at "
                    "every strength, then under this light too at every strength (a warm lamp in a dim room: "
                    "--kinds warm --also dim)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", type=Path, help="keep every photo's row here")
    args = ap.parse_args(argv)
    if not args.sets and not args.real_dev:
        ap.error("give rendered set folders, --real-dev FOLDER, or both")
    groups: dict[str, list[tuple]] = {}
    for folder in args.sets:
        rows = load_set(folder)
        groups[str(folder)] = [(str(folder / r["image"]), r["sequence"], (drawn_cast(r["image"], tuple(args.kinds)),),
                                r.get("players", 4)) for r in rows]
    if args.real_dev:
        rows = load_set(args.real_dev)
        lights = [((kind, s),) for kind in args.kinds for s in STRENGTHS]
        if args.also:
            lights = [light + ((args.also, s),) for light in lights for s in STRENGTHS]
        groups[str(args.real_dev)] = [(str(args.real_dev / r["image"]), r["sequence"], light, 4)
                                      for light in [(), *lights] for r in rows]
    out = {}
    with job_map(_readers, (args.threads,), _read, args.workers) as run:
        for name, jobs in groups.items():
            rows = list(run(jobs))
            out[name] = {"rows": rows, "figures": tally(rows)}
            for kind, f in out[name]["figures"].items():
                print(f"{name} {kind}: {f['photos']} photos, exact {f['plain']} unbalanced, {f['shipped']} as shipped "
                      f"(+{f['gained']} -{f['lost']}; {f['balanced']} balanced)", flush=True)
    if args.json:
        args.json.write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
