"""Write a rendered-photo dataset: YOLO images/labels for the detector + full labels as JSON lines.

    python -m tsumo_synth.photos --n 2000 --seed 1 --out cache/synth/det_v1

Layout of OUT: `images/{train,val}/*.jpg`, `labels/{train,val}/*.txt` (YOLO: `0 cx cy w h`, one
class "tile"), `data.yaml`, `labels.jsonl` (one line per photo: image path, split, sequence, §1
hand, every tile's class/box/quad/rotation/in_hand/group flags — see `scene.PhotoLabels`) and
`manifest.json`. Photo i is drawn from the seed (seed, i) only, so a set is reproducible and can
be written by several processes; an existing complete set with the same recipe is reused, and an
interrupted (or smaller) one is resumed photo by photo (`meta/` keeps each finished photo's labels).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

from . import layouts as L
from .scene import SHARED_DIR, FacePool, SceneOptions, default_face_source, render_hand_photo

RECIPE_VERSION = 4  # bump when the renderer changes what a seed produces
SIZES = [(640, 480), (640, 480), (480, 640), (640, 360), (640, 640), (576, 432)]
JPEG_QUALITY = 92  # of the stored photos (what the renderer's own JPEG step left, saved once more)

# Named recipes for a set's photos. "default" is what every existing set (and the oracle test set,
# audit footage, tests) was rendered with; never change it. "close": the camera nearer the hand
# (real photos show hand tiles at 9-13 % of the long side, default renders mostly at 3-8 %), a
# quarter of the photos showing only part of the closed row (larger still), and more called
# melds, added kans and closed kans (the sideways / stacked / face-down tiles the detector misses
# most).
PRESETS: dict[str, dict] = {
    "default": {},
    "close": {
        "hand": {"meld_counts": (0.2, 0.25, 0.25, 0.18, 0.12), "meld_kinds": (0.2, 0.22, 0.1, 0.28, 0.2),
                 "win_styles": (0.55, 0.15, 0.3)},
        "scene": {"hand_fraction_range": (0.62, 0.98)},
        "partial": 0.25,
    },
    # "hard" (session 4): what the shipped detector misses on real photos and renders, each photo
    # drawing its own mix (see `_hard_options`): runs of touching featureless tiles (blank white
    # dragons, face-down tiles), pale back colours (lavender, pastels), added kans whose 2nd tile
    # lies on the 1st, low cameras, standing rows; walls, discards, tables, effects as by default.
    "hard": {
        "hand": {"meld_counts": (0.3, 0.25, 0.2, 0.15, 0.1), "meld_kinds": (0.2, 0.25, 0.1, 0.3, 0.15)},
        "scene": {"hand_fraction_range": (0.45, 0.95), "kakan_on_top": 0.5},
        "partial": 0.15,
        "hard": True,
    },
    # "calls" (session 7): the shipped detector's end-to-end misses — sideways tiles split into two
    # half boxes, added kans, small/far hands (10-20 px tiles), low cameras — each photo drawing its
    # own mix (see `_calls_options`): many called melds (kakan a third of them), a wider range of
    # hand sizes reaching down to far hands, a low camera in 40 % of photos, and the hard preset's
    # looks (whites, face-down runs, pale backs, kakan on top) in a third.
    "calls": {
        "hand": {"meld_counts": (0.1, 0.2, 0.3, 0.25, 0.15), "meld_kinds": (0.22, 0.25, 0.1, 0.3, 0.13),
                 "win_styles": (0.5, 0.15, 0.35)},
        "scene": {"kakan_on_top": 0.3},
        "partial": 0.08,
        "calls": True,
    },
    # "drawn" (session 12): the default recipe, but the drawn tile is mostly set apart (win style
    # "apart" 90 %) and then, 85 % of the time, lies loose: face-up, turned 10-40° either way and/or
    # lifted off the row (`layouts.layout_hand(drawn_loose=...)`), as real-dev lietxia_70008812's
    # drawn 0p, on which every detector so far put two overlapping boxes.
    "drawn": {
        "hand": {"win_styles": (0.9, 0.05, 0.05)},
        "scene": {"drawn_loose": 0.85},
    },
    # "tables" (session 15): the default recipe on the tables the shipped detector reads worst (hand recall
    # by kind in `tables.TABLE_WEIGHTS`' note): cloth weaves 45 % of photos (default 15 %), laminate 20 % (10 %).
    "tables": {
        "scene": {"table_weights": (0.1, 0.1, 0.15, 0.45, 0.2)},
    },
    # "plaid" (session 33): the default recipe, half the photos on cloth and most cloths plaid (`tables.CLOTH_PATTERNS`'
    # note: the held-out photos' worst table): plaid 40 % of photos (default 5 %).
    "plaid": {
        "scene": {"table_weights": (0.2, 0.2, 0.05, 0.5, 0.05), "cloth_patterns": (0.1, 0.8, 0.1)},
    },
    # "endon" (session 40): the default recipe, but a lying hand is shot from a side half the time
    # (`scene.CAMERA_VIEWS`; default 10 %), the camera lower (20-55°): rows seen end-on, each tile half hidden by the
    # next (tune_plaid_x3 #3 and det_test_x3g #233, which no look reads: models/tile_detector.md, session 40).
    "endon": {
        "scene": {"camera_views": (0.25, 0.15, 0.1, 0.5), "elevation_range_deg": (20.0, 55.0)},
    },
}

# pale backs like real-dev's lavender (and the light colours that make ivory faces hard to part)
PASTEL_BACKS = ((175, 160, 215), (200, 188, 232), (168, 200, 232), (236, 190, 204), (182, 222, 196),
                (236, 222, 160), (240, 236, 226), (214, 214, 220))


# Face pools (session 11). Every set so far, held-out ones included, paints its faces from pool 0:
# the default artist ("v3"), 8 variants per label. The classifier's photo crops use pools of their
# own (generator v4, 32 variants per label, pool seed = photo seed). `--face-pool-seed` /
# `--face-pool-size` / `--face-gen` choose another pool for a set; the defaults are pool 0, so
# existing seeds render byte-identical.
FACE_GENERATORS: dict[str, dict] = {"v3": {}, "v4": {"light_backs": True, "red_designs": True}}
DEFAULT_FACES = {"pool_seed": 0, "pool_size": 8, "gen": "v3"}
# Photo seeds of the measuring sets (det_test_h 99, det_test_hard 98, the 400-photo gates 79-97, tune9
# 9601, tune10_x3 9602, det_test_x3g 77; session 28's close-framed det_test_close_x3g 71 and
# tune_close_x3 9603; session 33's plaid-heavy tune_plaid_x3 9604): no training set may be rendered from them, nor
# from face pool 0.
SCALES = (0.25, 8.0)  # the `scale` a render may take (pixels across, × the recipe's size)
HELD_OUT_PHOTO_SEEDS = frozenset({71, 77, 79, 85, 87, 89, 91, 93, 95, 97, 98, 99, 9601, 9602, 9603, 9604})


def check_training_seed(seed: int) -> None:
    """Refuse a training photo seed that a measuring set uses (or 0, the held-out face pool)."""
    if seed == 0 or seed in HELD_OUT_PHOTO_SEEDS:
        raise ValueError(f"photo seed {seed} is held out (a measuring set's, or the held-out face pool 0)")


def face_source(shared: Path = SHARED_DIR, *, pool_seed: int = 0, pool_size: int = 8, gen: str = "v3"):
    """The face pool a set paints from: pool 0 (`scene.default_face_source`) unless told otherwise;
    else `pool_size` variants per label drawn from `pool_seed` by the artist with generator `gen`."""
    if gen not in FACE_GENERATORS:
        raise ValueError(f"unknown face generator {gen!r} (known: {', '.join(FACE_GENERATORS)})")
    if pool_size < 1:
        raise ValueError("pool_size must be ≥ 1")
    if {"pool_seed": pool_seed, "pool_size": pool_size, "gen": gen} == DEFAULT_FACES:
        return default_face_source(Path(shared), seed=0)
    from .tiles import TileArtist

    return FacePool(TileArtist(Path(shared), seed=pool_seed, **FACE_GENERATORS[gen]), per_label=pool_size,
                    seed=pool_seed)


def stored_jpeg(image_rgb: np.ndarray) -> bytes:
    """A rendered photo's bytes as a set stores them (JPEG at JPEG_QUALITY): what a re-render must match and
    what the readers measured on the set were given."""
    ok, enc = cv2.imencode(".jpg", cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise RuntimeError("the photo could not be JPEG-coded")
    return enc.tobytes()


def photo_name(i: int) -> str:
    return f"p{i:06d}"


def render_one(i: int, seed: int, *, artist, size: tuple[int, int] | None = None, scoreable: bool = False,
               options: dict | None = None, preset: str = "default", scale: float = 1.0, ink: bool = False):
    """Photo i of the set `seed`: (image, PhotoLabels). The recipe every dataset photo follows.
    `scale` shoots the same hand, layout and camera view with `scale`² the pixels, so what a set's
    figures owe to its small photos (640×480-class, hand tiles 20–60 px) shows against it. Textures,
    faces and light are drawn anew (their draws depend on the pixel count): a sister set, not a copy.
    `ink`: also measure each tile's face-ink contrast (`render_hand_photo`; the photo is the same)."""
    recipe = PRESETS[preset]
    rng = np.random.default_rng([seed, i])
    players = 3 if rng.random() < 0.15 else 4
    spec = L.random_winning_hand(rng, players=players, require_score=scoreable, **recipe.get("hand", {}))
    if size is None:
        size = SIZES[int(rng.integers(len(SIZES)))]
    if scale != 1.0:
        size = (round(size[0] * scale), round(size[1] * scale))
    extra = _hard_options(rng) if recipe.get("hard") else {}
    calls_hard = False
    if recipe.get("calls"):
        extra, calls_hard = _calls_options(rng)
    opts = SceneOptions(size=size, players=players, **{**recipe.get("scene", {}), **extra, **(options or {})})
    hand: dict | None = {k: v for k, v in spec.hand.items()}
    sequence = spec.sequence
    if recipe.get("hard") or calls_hard:
        edited = _featureless_run(sequence, rng)
        if edited != sequence:
            sequence, hand = edited, None
    if recipe.get("partial") and rng.random() < recipe["partial"] and len(L.parse_sequence(sequence)[0]) >= 8:
        sequence, hand = _part_of_row(sequence, rng), None
    return render_hand_photo(sequence, rng, artist=artist, options=opts, hand=hand, ink=ink)


def _hard_options(rng: np.random.Generator) -> dict:
    """Per-photo scene knobs of the "hard" preset (a mix, so no single look takes over the set)."""
    out: dict = {"plain_haku": bool(rng.random() < 0.8)}
    if rng.random() < 0.6:
        out["back_colours"] = PASTEL_BACKS
    if rng.random() < 0.5:
        out["elevation_range_deg"] = (15.0, 40.0)  # low camera: touching tiles seen nearly end-on
    if rng.random() < 0.5:
        out["standing"] = True
    return out


def _calls_options(rng: np.random.Generator) -> tuple[dict, bool]:
    """Per-photo scene knobs of the "calls" preset; also whether the hard looks apply."""
    out: dict = {}
    u = rng.random()
    if u < 0.3:
        out["hand_fraction_range"] = (0.25, 0.45)  # far hand: 10-20 px tiles in the detector's input
    elif u < 0.8:
        out["hand_fraction_range"] = (0.4, 0.8)
    else:
        out["hand_fraction_range"] = (0.7, 0.98)
    if rng.random() < 0.4:
        out["elevation_range_deg"] = (15.0, 40.0)
    hard = bool(rng.random() < 0.33)
    if hard:
        out.update(_hard_options(rng))
    return out, hard


def _featureless_run(sequence: str, rng: np.random.Generator) -> str:
    """Half the time, 2-4 neighbouring tiles of the closed row become blank white dragons (5z);
    else, 15 % of the time, 3-6 become face-down (x): rows of touching tiles with nothing printed
    to tell where one ends (the detector's real-dev miss). Not a legal hand any more (labels' §1
    hand is dropped); the boxes are what matters here."""
    groups = L.parse_sequence(sequence)
    row = groups[0]
    u = rng.random()
    if u < 0.5:
        k, label = int(rng.choice([2, 3, 3, 4])), "5z"
    elif u < 0.65:
        k, label = int(rng.integers(3, 7)), "x"
    else:
        return sequence
    k = min(k, len(row) - 1)
    if k < 2:
        return sequence
    start = int(rng.integers(0, len(row) - k + 1))
    tokens = L.format_sequence([row]).split()
    tokens[start:start + k] = [label + (t[-1] if t[-1] in "-=" else "") for t in tokens[start:start + k]]
    return " | ".join([" ".join(tokens)] + [L.format_sequence([g]) for g in groups[1:]])


def _part_of_row(sequence: str, rng: np.random.Generator) -> str:
    """A run of 5-11 neighbouring tiles of a closed row of ≥ 8 alone (a close-up of part of a hand)."""
    row = L.parse_sequence(sequence)[0]
    n = int(rng.integers(5, min(11, len(row) - 1) + 1))
    start = int(rng.integers(0, len(row) - n + 1))
    return L.format_sequence([row[start:start + n]])


def yolo_lines(labels, *, min_side: float = 3.0) -> list[str]:
    w, h = labels.width, labels.height
    out = []
    for t in labels.tiles:
        x1, y1, x2, y2 = t.box
        if x2 - x1 < min_side or y2 - y1 < min_side:
            continue
        out.append(f"0 {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return out


def _work(args) -> list[dict]:
    indices, seed, out, val_every, scoreable, shared, preset, faces, scale = args
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    cv2.setNumThreads(1)
    artist = face_source(Path(shared), **faces)
    rows = []
    for i in indices:
        split = "val" if val_every and i % val_every == val_every - 1 else "train"
        name = photo_name(i)
        img_path = out / "images" / split / f"{name}.jpg"
        lab_path = out / "labels" / split / f"{name}.txt"
        meta_path = out / "meta" / f"{name}.json"
        if meta_path.exists() and img_path.exists() and lab_path.exists():  # rendered by an earlier run
            rows.append(json.loads(meta_path.read_text()))
            continue
        image, labels = render_one(i, seed, artist=artist, scoreable=scoreable, preset=preset, scale=scale)
        # label first, image last (atomically): a trainer reading a half-written set never sees
        # an image without its boxes (that would teach it the tiles are background)
        lab_path.write_text("\n".join(yolo_lines(labels)) + "\n")
        tmp = img_path.with_name(img_path.stem + ".tmp.jpg")
        tmp.write_bytes(stored_jpeg(image))
        os.replace(tmp, img_path)
        row = {"image": f"images/{split}/{name}.jpg", "split": split, **labels.to_json()}
        meta_path.write_text(json.dumps(row))  # last: marks photo i as done
        rows.append(row)
    return rows


def write_dataset(out: Path, n: int, seed: int, *, workers: int = 1, val_frac: float = 0.1, scoreable: bool = False,
                  shared: Path = SHARED_DIR, quiet: bool = False, preset: str = "default",
                  faces: dict | None = None, scale: float = 1.0) -> Path:
    """`faces`: the face pool (keys of `DEFAULT_FACES`; None or missing keys: pool 0's); `scale`: the
    same photos shot with `scale`² the pixels (see `render_one`)."""
    out = Path(out)
    if not SCALES[0] <= scale <= SCALES[1]:
        raise ValueError(f"scale must be in [{SCALES[0]:g}, {SCALES[1]:g}], not {scale}")
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})")
    unknown = set(faces or {}) - set(DEFAULT_FACES)
    if unknown:
        raise ValueError(f"unknown face-pool keys {sorted(unknown)}")
    faces = {**DEFAULT_FACES, **(faces or {})}
    if faces != DEFAULT_FACES:
        face_source(shared, **faces)  # a bad pool fails here, not in a worker
    recipe = {"n": n, "seed": seed, "val_frac": val_frac, "scoreable": scoreable, "version": RECIPE_VERSION}
    if preset != "default":  # sets written before presets existed keep their recipe (and cache)
        recipe["preset"] = preset
    if faces != DEFAULT_FACES:  # likewise sets painted from pool 0
        recipe["faces"] = faces
    if scale != 1.0:  # and sets at the renderer's own size
        recipe["scale"] = scale
    manifest = out / "manifest.json"
    if manifest.exists():
        old = json.loads(manifest.read_text()).get("recipe", {})
        if old == recipe:
            if not quiet:
                print(f"{out}: cached ({n} photos)", file=sys.stderr)
            return out
        if {k: v for k, v in old.items() if k != "n"} != {k: v for k, v in recipe.items() if k != "n"}:
            raise SystemExit(f"{out} holds photos of another recipe {old}; choose another --out")
        manifest.unlink()  # only the count differs: reuse the photos already there
    (out / "meta").mkdir(parents=True, exist_ok=True)
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    val_every = int(round(1 / val_frac)) if val_frac > 0 else 0
    chunks = [list(range(k, min(k + 25, n))) for k in range(0, n, 25)]
    jobs = [(c, seed, out, val_every, scoreable, str(shared), preset, faces, scale) for c in chunks]
    rows: list[dict] = []
    t0 = time.time()
    if workers > 1:
        with get_context("spawn").Pool(workers) as pool:
            for part in pool.imap(_work, jobs):
                rows += part
                _progress(len(rows), n, t0, quiet)
    else:
        for job in jobs:
            rows += _work(job)
            _progress(len(rows), n, t0, quiet)
    with open(out / "labels.jsonl", "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    (out / "data.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: tile\n")
    manifest.write_text(json.dumps({"recipe": recipe, "photos": len(rows),
                                    "tiles": sum(len(r["tiles"]) for r in rows)}, indent=1))
    return out


def _progress(done: int, n: int, t0: float, quiet: bool) -> None:
    if quiet:
        return
    el = time.time() - t0
    eta = el / max(done, 1) * (n - done)
    print(f"\r{done}/{n} photos, {el:.0f}s, eta {eta:.0f}s", end="" if done < n else "\n", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tsumo_synth.photos", description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="number of photos")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--val-frac", type=float, default=0.1, help="share of photos in images/val")
    ap.add_argument("--scoreable", action="store_true", help="only hands the scoring engine scores without error")
    ap.add_argument("--shared", type=Path, default=SHARED_DIR, help="the reference folder (tile art)")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="default",
                    help="photo recipe: default; close (nearer camera, part rows, more melds); hard (blank-white and "
                         "face-down runs, pale backs, kakan on top, low cameras)")
    ap.add_argument("--face-pool-seed", type=int, default=0,
                    help="seed of the face pool (default 0: the pool every held-out set uses)")
    ap.add_argument("--face-pool-size", type=int, default=8, help="face variants per label in the pool")
    ap.add_argument("--face-gen", choices=sorted(FACE_GENERATORS), default="v3",
                    help="face generator: v3 (the default artist) or v4 (+ pale backs, red-five designs)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="the same photos with this many times the pixels across (e.g. 2: 1280×960-class); "
                         "to see what a set's figures owe to its small photos")
    args = ap.parse_args(argv)
    if not SCALES[0] <= args.scale <= SCALES[1]:
        ap.error(f"--scale must be in [{SCALES[0]:g}, {SCALES[1]:g}]")
    if args.face_pool_size < 1:
        ap.error("--face-pool-size must be ≥ 1")
    if args.n <= 0:
        ap.error("--n must be positive")
    if not 0 <= args.val_frac < 1:
        ap.error("--val-frac must be in [0, 1)")
    write_dataset(args.out, args.n, args.seed, workers=args.workers, val_frac=args.val_frac,
                  scoreable=args.scoreable, shared=args.shared, preset=args.preset,
                  faces={"pool_seed": args.face_pool_seed, "pool_size": args.face_pool_size, "gen": args.face_gen},
                  scale=args.scale)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
