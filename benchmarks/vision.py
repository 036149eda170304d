"""Photo reading benchmark: Tsumo's reader vs the `mahjong-detector` package, same photos, one run.

    python benchmarks/vision.py [--photos ../shared/data/real-dev] [--repeat 5] [--threads 2]

For every labelled photo (CONTRACTS §3 labels.jsonl): decode time (reported apart: it is the
same for any reader), each reader's recognition time, and per-tile accuracy after aligning the
tiles read with the label (edit distance; misses and extra tiles count against it).
`mahjong-detector` has no red-five classes and reports no grouping or orientation, so tiles are
also compared with red fives folded into fives ("plain"), and only Tsumo gets an exact-read
figure. Latency is also measured on a 12-MP version (4000×3000) of the first photo, the size a
phone camera sends, and whether that reading is exact is reported with it (an upscale is blurred:
it is a latency probe more than a reading test). The last line printed is one JSON object with every figure.

`mahjong-detector` is a benchmark-only dependency (`pip install mahjong-detector`, or the
`bench` extra): it needs Pillow, numpy and onnxruntime only, so it shares the runtime
environment without touching opencv-python-headless. Without it, only Tsumo is measured.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.io import load_image  # noqa: E402
from vision.pipeline import MODELS_DIR, PhotoReader  # noqa: E402
from vision.runtime import libraries_line, library_versions  # noqa: E402
from vision.sequence import align, compare, flatten, parse_sequence  # noqa: E402

HONOURS = {"tou": "1z", "nan": "2z", "sha": "3z", "pe": "4z", "haku": "5z", "hatsu": "6z", "chun": "7z"}


def plain(label: str) -> str:
    return "5" + label[1] if label[0] == "0" else label


def truth_tiles(sequence: str) -> list[str]:
    return [t.label for t in flatten(parse_sequence(sequence)) if t.label != "back"]


def timed(fn, repeat: int) -> tuple[object, float]:
    """Result of the last call and the median time in ms over `repeat` calls (after one warm-up)."""
    fn()
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return out, statistics.median(times)


def other_reader():
    try:
        from mahjong_detector import detect_tiles
    except ImportError:
        return None
    from PIL import Image

    def read(image: np.ndarray) -> list[str]:
        names = detect_tiles(Image.fromarray(image))
        return [HONOURS.get(n, n) for n in names]

    return read


def ratios(totals: dict, rows: list[dict], ours_12mp: float, theirs_12mp: float) -> dict:
    """Tsumo against the peer, same photos, same run: accuracy ours / theirs, speed theirs / ours."""
    def share(k):
        m, c = totals[k]
        return m / c if c else 0.0

    def div(a, b):
        return round(a / b, 2) if b else None

    return {"tile_accuracy": div(share("tsumo"), share("other")),
            "speed": div(statistics.median(r["other_ms"] for r in rows), statistics.median(r["tsumo_ms"] for r in rows)),
            "speed_12mp": div(theirs_12mp, ours_12mp)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--photos", type=Path, default=REPO.parent / "shared" / "data" / "real-dev")
    ap.add_argument("--models", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)

    labels = [json.loads(x) for x in (args.photos / "labels.jsonl").read_text().splitlines() if x.strip()]
    reader = PhotoReader(models_dir=args.models, threads=args.threads)
    other = other_reader()
    rows = []
    totals = {"tsumo": [0, 0], "tsumo_plain": [0, 0], "other": [0, 0], "other_plain": [0, 0]}
    exact = 0
    for obj in labels:
        path = args.photos / obj["image"]
        data = path.read_bytes()
        image, decode_ms = timed(lambda: load_image(data), args.repeat)
        truth = truth_tiles(obj["sequence"])
        reading, ours_ms = timed(lambda: reader.read(image), args.repeat)
        ours = [t.label for t in flatten(parse_sequence(reading.sequence))] if reading.sequence else []
        ours = [x for x in ours if x != "back"]
        a = align(ours, truth)
        ap_ = align([plain(x) for x in ours], [plain(x) for x in truth])
        _, is_exact = compare(reading.sequence, obj["sequence"])
        exact += is_exact
        totals["tsumo"][0] += a.matches
        totals["tsumo"][1] += a.columns
        totals["tsumo_plain"][0] += ap_.matches
        totals["tsumo_plain"][1] += ap_.columns
        row = {"image": obj["image"], "pixels": f"{image.shape[1]}x{image.shape[0]}", "decode_ms": round(decode_ms, 1),
               "tsumo_ms": round(ours_ms, 1), "tsumo_accuracy": round(a.accuracy, 3),
               "tsumo_plain_accuracy": round(ap_.accuracy, 3), "tsumo_exact": is_exact, "tsumo_read": reading.sequence}
        if other is not None:
            theirs, other_ms = timed(lambda: other(image), args.repeat)
            b = align(theirs, truth)
            bp = align([plain(x) for x in theirs], [plain(x) for x in truth])
            totals["other"][0] += b.matches
            totals["other"][1] += b.columns
            totals["other_plain"][0] += bp.matches
            totals["other_plain"][1] += bp.columns
            row.update({"other_ms": round(other_ms, 1), "other_accuracy": round(b.accuracy, 3),
                        "other_plain_accuracy": round(bp.accuracy, 3), "other_read": " ".join(theirs)})
        rows.append(row)

    # latency on a phone-sized photo: the first photo scaled to 4000×3000 (12 MP)
    first = load_image(args.photos / labels[0]["image"])
    big = cv2.resize(first, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    ok, enc = cv2.imencode(".jpg", cv2.cvtColor(big, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 92])
    big_bytes = enc.tobytes()
    big_img, big_decode_ms = timed(lambda: load_image(big_bytes), args.repeat)
    big_reading, big_ours_ms = timed(lambda: reader.read(big_img), args.repeat)
    big_exact = compare(big_reading.sequence, labels[0]["sequence"])[1]  # (the speed is of this reading)
    big_other_ms = timed(lambda: other(big_img), args.repeat)[1] if other else None

    def acc(k):
        m, c = totals[k]
        return round(m / c, 4) if c else None

    summary = {
        "photos": len(labels), "threads": args.threads, "repeat": args.repeat,
        "tsumo": {"tile_accuracy": acc("tsumo"), "tile_accuracy_plain": acc("tsumo_plain"),
                  "exact": round(exact / len(labels), 4),
                  "median_ms": round(statistics.median(r["tsumo_ms"] for r in rows), 1),
                  "median_ms_12mp": round(big_ours_ms, 1), "exact_12mp": big_exact, "read_12mp": big_reading.sequence},
        "mahjong_detector": None if other is None else {
            "tile_accuracy": acc("other"), "tile_accuracy_plain": acc("other_plain"),
            "median_ms": round(statistics.median(r["other_ms"] for r in rows), 1),
            "median_ms_12mp": round(big_other_ms, 1)},
        "ratios_vs_mahjong_detector": None if other is None else ratios(totals, rows, big_ours_ms, big_other_ms),
        "onnx_mb": round(sum(f.stat().st_size for f in Path(args.models or MODELS_DIR).glob("*.onnx")) / 1e6, 1),
        "decode_ms_median": round(statistics.median(r["decode_ms"] for r in rows), 1),
        "decode_ms_12mp_jpeg": round(big_decode_ms, 1),
        "libraries": library_versions(),
        "per_photo": rows,
    }
    print(f"{'photo':<24} {'decode':>7} {'tsumo ms':>9} {'acc':>6} {'exact':>6}" + (f" {'m-d ms':>8} {'acc':>6} {'plain':>6}" if other else ""))
    for r in rows:
        line = f"{r['image']:<24} {r['decode_ms']:>7.1f} {r['tsumo_ms']:>9.1f} {r['tsumo_accuracy']:>6.2f} {str(r['tsumo_exact']):>6}"
        if other:
            line += f" {r['other_ms']:>8.1f} {r['other_accuracy']:>6.2f} {r['other_plain_accuracy']:>6.2f}"
        print(line)
    t = summary["tsumo"]
    print(f"tsumo: tile accuracy {t['tile_accuracy']:.1%} (plain {t['tile_accuracy_plain']:.1%}), exact {t['exact']:.0%}, "
          f"median {t['median_ms']} ms, 12 MP {t['median_ms_12mp']} ms (+ decode {summary['decode_ms_12mp_jpeg']} ms; "
          f"read {'exactly' if big_exact else 'not exactly: ' + big_reading.sequence})")
    print(f"tsumo: ONNX files {summary['onnx_mb']} MB in all (target <= 20 MB)")
    print(libraries_line(summary["libraries"]))
    if other:
        o = summary["mahjong_detector"]
        print(f"mahjong-detector: tile accuracy {o['tile_accuracy']:.1%} (plain {o['tile_accuracy_plain']:.1%}), "
              f"median {o['median_ms']} ms, 12 MP {o['median_ms_12mp']} ms")
        q = summary["ratios_vs_mahjong_detector"]
        print(f"ratio vs mahjong-detector: tile accuracy {q['tile_accuracy']}x, speed {q['speed']}x, "
              f"12-MP speed {q['speed_12mp']}x (speed = their time / ours: above 1 is faster)")
    else:
        print("mahjong-detector not installed (pip install mahjong-detector): only Tsumo measured")
    print(json.dumps(summary, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
