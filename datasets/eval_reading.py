"""End to end on rendered photo sets: how many hands the whole reader reads exactly.

    python datasets/eval_reading.py cache/synth/det_test_h
    python datasets/eval_reading.py cache/synth/det_test_h \
        --pair models/tile_detector.onnx models/tile_classifier.onnx \
        --pair models/tile_detector.onnx cache/cls9/candidate.onnx --json cache/e2e.json

A photo counts when `PhotoReader.read(photo).sequence` equals the renderer's sequence (CONTRACTS
§3 notation), as in `tests/vision/test_pipeline_oracle.py` but with real models. Several model
pairs are read in one run, photo by photo in turn, so they are compared with the same reading
code on the same machine load: reading-code changes move every pair's figure, so figures of
different runs (or checkouts) are not comparable, and an A/B is only fair inside one run. The
last line printed is one JSON object with every figure; `--json` also keeps each photo's reading.
`--workers 2 --threads 1` reads the photos in two processes with the same figures (session 39: `det_test_x3g`
in 3.7 min instead of 6.4 on 2 cores; the models are too small for onnxruntime's threads to fill the second).

`--sweep vision.reading.PEN_THIRTEEN=2,3,4` instead reads every photo once per value of one
numeric constant of the reading code (first pair only), with each photo's model outputs cached
across the values: the layout and search are cheap, the models are not, so a sweep costs about
one read per photo. Tune a constant on a tune set (never on the held-out ones), then confirm once.

`--only-unsure FROM.json` instead reads again only the photos an earlier `--json` run (FROM, shipped models,
same checkout and machine) read unsurely, and counts each set's gains and losses against FROM: the second and third
detectors' looks run only at unsure photos, so a candidate for them changes only those (279 of the 1 300 tune
photos in session 40, whose screen this was).

Every missed photo also gets its first cause (`miss_causes.first_cause`: not detected, boxed
twice, left out by the layout, a wrong class…), tallied per pair, so a session can see which stage
loses the most hands before choosing what to work on (and the hand tiles left with no box, by that cause: a hand
missed whole weighs on tile recall as much as a dozen tiles missed one by one; and how many of those the first
detector's first pass boxed, `miss_causes.mark_first_pass`: lost by the reading step, not the detector's to mend). Each pair also gets its hand tiles counted through
the reader (`miss_causes.hand_tile_states`: boxed, taken into the hand once, read right; again for the legible tiles
when the set has `ink.jsonl`, see `tsumo_synth.legibility`, and for those not blurred past its candidate
`BLUR_RULE` when the labels record the photo's blur, session 51; per class too, `--report` writes those as markdown
tables: the model cards' per-class figures; `--json` keeps each hand tile not read right, `tile_misses`:
what became of it, its box, its candidates) and its exact photos by table kind (`table_kind`: a cloth with its
pattern). And the photos whose reading scores as the labelled hand would (`miss_causes.scores_alike`), of the
whole hands and of the sure readings: what the product's user gets right, whatever the notation.

Why a script in the repo: these figures decide which models ship, and sessions lose `cache/`.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from miss_causes import (CAUSES, TILE_COUNTS, first_cause, hand_tile_misses, hand_tile_states,  # noqa: E402
                         hand_tile_takes, mark_first_pass, scores_alike, tile_counts, whole_hand)
from reader_pool import job_map  # noqa: E402
from vision.io import load_image  # noqa: E402
from vision.pipeline import ALT_FILE, CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR, THIRD_FILE, PhotoReader  # noqa: E402
from vision.runtime import libraries_line, library_versions  # noqa: E402


def load_set(folder: Path, limit: int | None = None) -> list[dict]:
    """The photos of a rendered set (`python -m tsumo_synth.photos`), in order."""
    labels = folder / "labels.jsonl"
    if not labels.is_file():
        raise SystemExit(f"eval_reading: {folder} has no labels.jsonl (render it with python -m tsumo_synth.photos)")
    rows = [json.loads(line) for line in labels.read_text().splitlines() if line.strip()]
    return rows[:limit] if limit else rows


def evaluate(sets: list[Path], pairs: list[tuple[Path, Path]], *, threads: int = 2,
             limit: int | None = None, workers: int = 1) -> dict:
    """Read every photo of `sets` with each (detector, classifier) pair; exact counts and misses.
    `workers` > 1 reads the photos in that many processes (each with its own models, `threads` each) and
    tallies them in photo order, so every figure but the time per photo is the one-process one."""
    out = {"pairs": [{"detector": str(d), "classifier": str(c)} for d, c in pairs], "sets": {}}
    with _photo_reads(pairs, threads, workers) as read:
        for folder in sets:
            rows = load_set(folder, limit)
            per_pair = [{"exact": 0, "misses": [], "ms": 0.0, "reads": [], "sure": [], "alike": [], "causes": {},
                         "tiles": dict.fromkeys(TILE_COUNTS, 0), "by_class": {}, "unboxed_by_cause": {},
                         "by_table": {}, "tile_misses": [], "unboxed_first_pass": 0}
                        for _ in pairs]
            legible, sharp = _legible_hand_tiles(folder, rows)
            for key, flags in (("legible_tiles", legible), ("legible_blur_tiles", sharp)):
                if flags is not None:
                    for res in per_pair:
                        res[key] = dict.fromkeys(TILE_COUNTS, 0)
            jobs = [(folder, i, row, None if legible is None else legible[i], None if sharp is None else sharp[i])
                    for i, row in enumerate(rows)]
            for (_, i, row, *_), records in zip(jobs, read(jobs)):
                for res, rec in zip(per_pair, records):
                    _tally(res, i, row, rec)
            for res in per_pair:
                res["surely"] = sure_counts(res["sure"], res["misses"])
                res["scoring"] = scoring_counts(res["alike"], res["sure"], [whole_hand(r.get("hand")) for r in rows])
                res["n"] = len(rows)
                res["mean_ms"] = round(res.pop("ms") / max(1, len(rows)), 1)
            out["sets"][str(folder)] = {"truth": [r["sequence"] for r in rows], "results": per_pair}
    return out


def unsure_photos(base: dict, folder: Path, rows: list[dict]) -> tuple[dict, list[int]]:
    """`folder`'s figures in `base` (an earlier `--json` of it) and the photos its first pair read unsurely.
    Raises ValueError when `base` did not read this folder or read other labels (a set rendered again)."""
    by_path = {Path(name).resolve(): s for name, s in base.get("sets", {}).items()}
    s = by_path.get(folder.resolve())
    if s is None:
        raise ValueError(f"{folder} was not read in it")
    if s["truth"] != [r["sequence"] for r in rows]:
        raise ValueError(f"{folder}: its labels are not the ones it read (rendered again, or read with --limit)")
    first = s["results"][0]
    return first, [i for i, sure in enumerate(first["sure"]) if not sure]


def screen_targets(base: dict, sets: list[Path]) -> list[tuple[Path, list[dict], dict, list[int]]]:
    """Each set's photos, its figures in `base` and the photos read unsurely there (`unsure_photos`): all checked
    before any photo is read."""
    return [(folder, rows, *unsure_photos(base, folder, rows)) for folder in sets for rows in [load_set(folder)]]


def screen(targets: list[tuple[Path, list[dict], dict, list[int]]], pairs: list[tuple[Path, Path]], *,
           threads: int = 2, workers: int = 1) -> dict:
    """Each pair's exact count per set when only the photos `base`'s first pair read unsurely are read again
    (`targets`: `screen_targets(base, sets)`).
    Why: the second and third detectors' looks run only at unsure photos, so a candidate for them can change
    only those (a fifth of the tune photos): the same gains and losses as a full read, in a fifth of the time.
    Valid only when the pairs read sure photos as `base`'s first pair did (same first detector, classifier
    and first looks): `base` must be a run of the same checkout on the same machine."""
    out = {"pairs": [{"detector": str(d), "classifier": str(c)} for d, c in pairs], "sets": {}}
    with _photo_reads(pairs, threads, workers) as read:
        for folder, rows, before, unsure in targets:
            per_pair = [{"was": before["exact"], "read": len(unsure), "gained": [], "lost": [], "reads": {}}
                        for _ in pairs]
            jobs = [(folder, i, rows[i], None) for i in unsure]
            for (_, i, row, _), records in zip(jobs, read(jobs)):
                was = before["reads"][i] == row["sequence"]
                for res, rec in zip(per_pair, records):
                    res["reads"][i] = rec["sequence"]
                    if rec["exact"] != was:
                        res["gained" if rec["exact"] else "lost"].append(i)
            for res in per_pair:
                res["exact"] = res["was"] + len(res["gained"]) - len(res["lost"])
            out["sets"][str(folder)] = {"n": len(rows), "results": per_pair}
    return out


def _photo_reads(pairs: list[tuple[Path, Path]], threads: int, workers: int):
    """A function from photo jobs (`read_photo`'s arguments after the readers) to their records, in job order:
    in this process, or in `workers` processes with their own models."""
    return job_map(_readers, (pairs, threads), _read_job, workers)


def _readers(pairs: list[tuple[Path, Path]], threads: int) -> list[PhotoReader]:
    from vision.classify import TileClassifier

    return [PhotoReader(**_detectors(d, threads), classifier=TileClassifier(c, threads)) for d, c in pairs]


def _read_job(readers: list[PhotoReader], job: tuple) -> list[dict]:
    return read_photo(readers, *job)


def read_photo(readers: list[PhotoReader], folder: Path, i: int, row: dict, legible: list[bool] | None,
               legible_blur: list[bool] | None = None) -> list[dict]:
    """Photo `i` of a set read by each reader: what `_tally` adds up, one record per reader. `legible`,
    `legible_blur`: each hand tile's flag under the legibility rule, and under it with the blur candidate."""
    image = load_image(folder / row["image"])
    records: list[dict] = [{} for _ in readers]
    order = range(len(readers)) if i % 2 == 0 else reversed(range(len(readers)))
    for k in order:  # alternate the order so neither pair always runs on a warm cache
        t0 = time.perf_counter()
        reading = readers[k].read(image, players=row.get("players", 4))
        ms = (time.perf_counter() - t0) * 1000
        exact = reading.sequence == row["sequence"]
        takes = hand_tile_takes(row["tiles"], reading)
        states = hand_tile_states(row["tiles"], reading, takes)
        counts = tile_counts(states)
        records[k] = {
            "ms": ms, "sequence": reading.sequence, "sure": bool(reading.sure), "exact": exact,
            "alike": scores_alike(row, reading.hand), "counts": counts,
            "by_class": [(t["cls"], tile_counts([state]))
                         for t, state in zip((t for t in row["tiles"] if t["in_hand"]), states, strict=True)],
            "legible": None if legible is None else tile_counts(states, legible),
            "legible_blur": None if legible_blur is None else tile_counts(states, legible_blur),
            "tile_misses": hand_tile_misses(row["tiles"], reading, legible, takes),
            "cause": None if exact else first_cause(row["tiles"], reading)}
        # (only photos with unboxed hand tiles pay for the first pass's boxes: one more detection)
        if any(m["kind"] == "unboxed" for m in records[k]["tile_misses"]):
            first = [b.xyxy for b in readers[k].detector.detect(image)]
            records[k]["unboxed_first_pass"] = mark_first_pass(row["tiles"], records[k]["tile_misses"], np.array(first))
    return records


def _tally(res: dict, i: int, row: dict, rec: dict) -> None:
    """Add photo `i`'s record (`read_photo`) to one pair's figures."""
    res["ms"] += rec["ms"]
    res["reads"].append(rec["sequence"])
    res["sure"].append(rec["sure"])
    res["alike"].append(rec["alike"])
    _add(res["tiles"], rec["counts"])
    for cls, counts in rec["by_class"]:
        _add(res["by_class"].setdefault(cls, dict.fromkeys(TILE_COUNTS, 0)), counts)
    if rec["legible"] is not None:
        _add(res["legible_tiles"], rec["legible"])
    if rec.get("legible_blur") is not None:
        _add(res["legible_blur_tiles"], rec["legible_blur"])
    res["tile_misses"] += [{"photo": i, **m} for m in rec["tile_misses"]]
    res["unboxed_first_pass"] += rec.get("unboxed_first_pass", 0)
    table = res["by_table"].setdefault(table_kind(row), [0, 0])
    table[0] += 1
    table[1] += rec["exact"]
    if rec["exact"]:
        res["exact"] += 1
        return
    res["misses"].append(i)
    res["causes"][rec["cause"]] = res["causes"].get(rec["cause"], 0) + 1
    res["unboxed_by_cause"][rec["cause"]] = (res["unboxed_by_cause"].get(rec["cause"], 0)
                                             + rec["counts"]["n"] - rec["counts"]["boxed"])


def sure_counts(sure: list[bool], misses: list[int]) -> dict:
    """How far the reader's own "sure" can be trusted (the phone page asks the user to check a reading
    that is not): photos read surely, how many of those exactly, and how many misses were flagged unsure."""
    missed = set(misses)
    return {"sure": sum(sure), "sure_exact": sum(s and i not in missed for i, s in enumerate(sure)),
            "misses": len(missed), "misses_unsure": sum(not sure[i] for i in missed)}


def scoring_counts(alike: list[bool], sure: list[bool], whole: list[bool]) -> dict:
    """Photos whose reading scores as the labelled hand would (`miss_causes.scores_alike`): of the photos
    that show a whole hand, and of those read surely. What the product's user gets right: a miss that only
    notates the hand another way (a drawn tile's gap) is not a wrong score."""
    return {"whole": sum(whole), "alike": sum(alike), "sure": sum(s and w for s, w in zip(sure, whole)),
            "sure_alike": sum(s and a for s, a in zip(sure, alike))}


def scoring_rates(c: dict) -> str:
    """`scoring_counts` for printing."""
    return (f"scored as labelled: {c['alike']} of {c['whole']} whole hands; read surely {c['sure']}, "
            f"{c['sure_alike']} of them scored as labelled ({100 * c['sure_alike'] / max(c['sure'], 1):.1f} %)")


def sure_rates(c: dict) -> str:
    """`sure_counts` for printing."""
    return (f"read surely {c['sure']} photos, {c['sure_exact']} of them exactly "
            f"({100 * c['sure_exact'] / max(c['sure'], 1):.1f} %); misses flagged unsure {c['misses_unsure']}/{c['misses']}")


def _add(total: dict, part: dict) -> None:
    for key, v in part.items():
        total[key] += v


def table_kind(row: dict) -> str:
    """The table a rendered photo was shot on: its kind, a cloth's with its pattern ("cloth/plaid"; sets rendered
    before session 33 do not record the pattern: "cloth"), "?" when not recorded."""
    scene = row.get("scene", {})
    kind = scene.get("table", "?")
    return f"{kind}/{scene['cloth']}" if scene.get("cloth") else kind


def _legible_hand_tiles(folder: Path, rows: list[dict]) -> tuple[list[list[bool]] | None, list[list[bool]] | None]:
    """Per photo, each hand tile's `tsumo_synth.legibility` flag (hand tiles in labels order), and the same with
    the candidate blur rule (`legibility.BLUR_RULE`). The first is None when the set's ink was never measured
    (`python -m tsumo_synth.legibility SET`), the second also when a photo's blur was never recorded (a set
    rendered before session 51)."""
    from tsumo_synth.legibility import hand_tile_flags, load_ink

    inks = load_ink(folder)
    if inks is None:
        return None, None

    def flags(blur: bool) -> list[list[bool]]:
        return [[bool(f) for f in hand_tile_flags(row["tiles"], inks[row["image"]],
                                                  lens=row.get("scene", {}).get("lens"), blur=blur)]
                for row in rows]

    blur_known = all("lens" in row.get("scene", {}) for row in rows)
    return flags(False), flags(True) if blur_known else None


def tile_rates(counts: dict) -> str:
    """`tile_counts` totals as the reader's tile recall and class accuracy, for printing."""
    n = max(counts["n"], 1)
    return (f"{counts['n']} hand tiles: boxed {100 * counts['boxed'] / n:.2f} %, taken once {100 * counts['taken'] / n:.2f} %, "
            f"taken and read right {100 * counts['right'] / n:.2f} % "
            f"({100 * counts['right'] / max(counts['taken'], 1):.2f} % of those taken)")


def class_table(by_class: dict[str, dict]) -> str:
    """Per-class hand-tile counts (`evaluate`'s "by_class") as a markdown table, the reader's tile recall
    (boxed) and class accuracy (read right, of the tiles taken once into the hand) for each class in
    `TILE_CLASSES` order, red fives and face-down tiles included, and a total row."""
    from vision.classes import TILE_CLASSES

    def pct(a: int, b: int) -> str:
        return f"{100 * a / b:.1f} %" if b else "–"

    def row(name: str, c: dict) -> str:
        return (f"| {name} | {c['n']} | {pct(c['boxed'], c['n'])} | {pct(c['taken'], c['n'])} | "
                f"{pct(c['right'], c['taken'])} | {pct(c['right'], c['n'])} |")

    lines = ["| class | hand tiles | boxed (recall) | taken once | read right, of taken | read right, of all |",
             "|---|---:|---:|---:|---:|---:|"]
    total = dict.fromkeys(TILE_COUNTS, 0)
    for cls in [c for c in TILE_CLASSES if c in by_class] + sorted(set(by_class) - set(TILE_CLASSES)):
        _add(total, by_class[cls])
        lines.append(row(cls, by_class[cls]))
    lines.append(row("**all**", total))
    return "\n".join(lines) + "\n"


def _existing_parent(path: Path) -> Path:
    """The nearest folder above `path` that exists (where its missing folders would be made)."""
    path = path.resolve().parent
    while not path.exists():
        path = path.parent
    return path


def _split_spec(spec: Path) -> tuple[list[Path], list[Path]]:
    """`--pair`'s DETECTOR as ([FIRST] or [FIRST, CLOSER], [] or [ALT] or [ALT, THIRD])."""
    main, *extra = str(spec).split(",")
    if len(extra) > 2:
        raise ValueError(f"--pair DETECTOR takes at most FIRST+CLOSER,ALT,THIRD, not {spec}")
    return [Path(p) for p in main.split("+")], [Path(p) for p in extra]


def _detector_names(spec: Path) -> str:
    """A DETECTOR spec's files by name, for the printed figures ("tile_detector.onnx + tile_detector_alt.onnx")."""
    return " + ".join(p.name for p in detector_files(spec))


def detector_files(spec: Path) -> list[Path]:
    """`--pair`'s DETECTOR: one ONNX file, or FIRST+CLOSER (the second a detector for the reader's
    closer look around the hand only; see `vision.pipeline.CLOSER_FILE`); either followed by ,ALT
    (a second detector for the extra looks at unsure photos; see `vision.pipeline.ALT_FILE`) and then
    by ,THIRD (a third, for the last looks; see `vision.pipeline.THIRD_FILE`)."""
    main, extra = _split_spec(spec)
    return main + extra


def _detectors(spec: Path, threads: int) -> dict:
    """PhotoReader's `detector`, `closer`, `alt` and `third` (None unless given) for `--pair`'s DETECTOR."""
    from vision.detect import TileDetector

    main, extra = _split_spec(spec)
    first, *closer = (TileDetector(p, threads) for p in main)
    alt, third = ([TileDetector(p, threads) for p in extra] + [None, None])[:2]
    return {"detector": first, "closer": closer[0] if closer else None, "alt": alt, "third": third}


def shipped_detector() -> Path:
    """The DETECTOR the product reads with: the shipped detector, with its second (and third) one when shipped."""
    spec = str(MODELS_DIR / DETECTOR_FILE)
    for name in (ALT_FILE, THIRD_FILE):
        if not (MODELS_DIR / name).is_file():
            break
        spec += f",{MODELS_DIR / name}"
    return Path(spec)


def _digest(arrays) -> str:
    """A key for one array or a list of them (shapes and bytes)."""
    h = hashlib.blake2b(digest_size=16)
    for a in [arrays] if isinstance(arrays, np.ndarray) else arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.shape}{a.dtype}".encode())
        h.update(a.data)
    return h.hexdigest()


def _memoise(model, method: str) -> dict:
    """Keep `model.method`'s outputs per input (set on the instance, so the model's own calls of
    it are kept too: the classifier's crops all pass through `predict_raw`); returns the memo."""
    fn, memo = getattr(model, method), {}

    def call(arrays, **kw):
        key = (_digest(arrays), tuple(sorted(kw.items())))
        if key not in memo:
            memo[key] = fn(arrays, **kw)
        out = memo[key]
        return out.copy() if isinstance(out, np.ndarray) else list(out)

    setattr(model, method, call)
    return memo


def parse_sweep(text: str) -> tuple[object, str, list[float]]:
    """`vision.module.NAME=v1,v2,…` → (module, name, values); a clear error for anything else."""
    target, _, values = text.partition("=")
    modname, _, name = target.rpartition(".")
    if not modname.startswith("vision.") or not name or not values:
        raise ValueError(f"--sweep wants vision.module.NAME=v1,v2,... (got {text!r})")
    try:
        module = importlib.import_module(modname)
    except ImportError as err:
        raise ValueError(f"--sweep: no module {modname}") from err
    if not isinstance(getattr(module, name, None), (int, float)) or isinstance(getattr(module, name), bool):
        raise ValueError(f"--sweep: {modname}.{name} is not a numeric constant")
    try:
        return module, name, [float(v) for v in values.split(",")]
    except ValueError as err:
        raise ValueError(f"--sweep: values must be numbers (got {values!r})") from err


def sweep(sets: list[Path], pair: tuple[Path, Path], module, name: str, values: list[float], *,
          threads: int = 2, limit: int | None = None) -> dict:
    """Exact counts of the reader with `module.name` set to each value in turn (restored after)."""
    from vision.classify import TileClassifier

    classifier = TileClassifier(pair[1], threads)
    reader = PhotoReader(**_detectors(pair[0], threads), classifier=classifier)
    # every detector the reader may ask, its second looks' variants included (each sees its own way)
    seen = [reader.detector, reader.closer] + [d for look in reader.looks for d in (look.detector, look.closer)]
    detectors = list({id(d): d for d in seen if d is not None}.values())
    memos = [_memoise(d, "detect") for d in detectors] + [_memoise(classifier, "predict_raw")]
    original = getattr(module, name)
    out = {"pair": {"detector": str(pair[0]), "classifier": str(pair[1])}, "constant": f"{module.__name__}.{name}",
           "values": values, "sets": {}}
    try:
        for folder in sets:
            rows = load_set(folder, limit)
            exact: dict[float, list[int]] = {v: [] for v in values}
            for i, row in enumerate(rows):
                image = load_image(folder / row["image"])
                for memo in memos:
                    memo.clear()
                for v in values:
                    setattr(module, name, type(original)(v) if isinstance(original, int) else v)
                    if reader.read(image, players=row.get("players", 4)).sequence == row["sequence"]:
                        exact[v].append(i)
            first = set(exact[values[0]])
            out["sets"][str(folder)] = [{"value": v, "exact": len(exact[v]), "n": len(rows),
                                         "gained": sorted(set(exact[v]) - first), "lost": sorted(first - set(exact[v]))}
                                        for v in values]
    finally:
        setattr(module, name, original)
    return out


def summary(result: dict) -> dict:
    """The figures without the per-photo readings: exact counts, misses, and for two or more pairs
    the photos only the first pair reads and only each other pair reads."""
    short = {"pairs": result["pairs"], "sets": {}}
    for name, s in result["sets"].items():
        res = s["results"]
        rows = []
        for k, r in enumerate(res):
            row = {"exact": r["exact"], "n": r["n"], "mean_ms": r["mean_ms"], "misses": r["misses"],
                   "causes": r["causes"], "tiles": r["tiles"], "by_class": r["by_class"],
                   "unboxed_by_cause": r["unboxed_by_cause"], "unboxed_first_pass": r["unboxed_first_pass"],
                   "by_table": r["by_table"], "surely": r["surely"],
                   "scoring": r["scoring"], **{k: r[k] for k in ("legible_tiles", "legible_blur_tiles") if k in r}}
            if k:
                first, this = set(res[0]["misses"]), set(r["misses"])
                row["only_first_reads"] = sorted(this - first)
                row["only_this_reads"] = sorted(first - this)
            rows.append(row)
        short["sets"][name] = rows
    return short


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="eval_reading", description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", type=Path, nargs="+", help="rendered set folders (labels.jsonl)")
    ap.add_argument("--pair", type=Path, nargs=2, action="append", metavar=("DETECTOR", "CLASSIFIER"),
                    help="ONNX files to read with (repeat to compare; default: the shipped models); DETECTOR may be "
                         "FIRST+CLOSER: a second detector for the closer look around the hand; and end in ,ALT: "
                         "a second detector for the extra looks at unsure photos, then ,THIRD: a third for the last "
                         "looks")
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime threads per model")
    ap.add_argument("--workers", type=int, default=1,
                    help="read the photos in this many processes (same figures; 1.7× faster with 2 on 2 cores, session 39)")
    ap.add_argument("--limit", type=int, default=None, help="first N photos of each set")
    ap.add_argument("--json", type=Path, default=None, help="write every figure and each photo's reading here")
    ap.add_argument("--show-misses", action="store_true", help="print each missed photo: truth and readings")
    ap.add_argument("--report", type=Path, default=None,
                    help="write per-class tables (markdown) of hand tiles boxed and read right, per set and pair")
    ap.add_argument("--sweep", default=None, metavar="vision.MODULE.NAME=V1,V2,...",
                    help="read with each value of one reading-code constant instead (first pair; model outputs cached)")
    ap.add_argument("--only-unsure", type=Path, default=None, metavar="FROM.json",
                    help="read again only the photos FROM.json (an earlier --json of these sets, shipped models) "
                         "read unsurely: a screen for candidates that change only the unsure photos' looks "
                         "(a second or third detector); prints each set's exact count with the gains and losses")
    args = ap.parse_args(argv)
    pairs = [tuple(p) for p in (args.pair or [(shipped_detector(), MODELS_DIR / CLASSIFIER_FILE)])]
    try:
        files = [p for det, cls in pairs for p in [*detector_files(det), cls]]
    except ValueError as e:
        ap.error(str(e))
    for path in files:
        if not path.is_file():
            ap.error(f"model file not found: {path}")
    if args.sweep and args.report:
        ap.error("--report tables the figures of a plain run: it cannot go with --sweep")
    if args.workers < 1 or args.threads < 1:
        ap.error("--workers and --threads must be at least 1")
    if args.only_unsure and (args.sweep or args.report or args.limit):
        ap.error("--only-unsure screens whole sets against FROM.json: it cannot go with --sweep, --report or --limit")
    targets = None
    if args.only_unsure:
        try:
            targets = screen_targets(json.loads(args.only_unsure.read_text()), args.sets)
        except (OSError, json.JSONDecodeError, KeyError, TypeError, AttributeError) as err:
            ap.error(f"--only-unsure: cannot read {args.only_unsure} as an eval_reading --json: {err}")
        except ValueError as err:
            ap.error(f"--only-unsure {args.only_unsure}: {err}")
    if args.sweep and args.workers > 1:
        ap.error("--workers reads a plain run in processes: a --sweep reads in one (its model outputs are cached there)")
    for out in (args.report, args.json):  # (refused now, not after the whole set is read)
        if out is not None and (out.is_dir() or not os.access(_existing_parent(out), os.W_OK)):
            ap.error(f"cannot write {out}: a folder, or not writable")
    if args.sweep:
        try:
            module, name, values = parse_sweep(args.sweep)
        except ValueError as err:
            ap.error(str(err))
        result = sweep(args.sets, pairs[0], module, name, values, threads=args.threads, limit=args.limit)
        for set_name, rows in result["sets"].items():
            for r in rows:
                print(f"{set_name}: {name}={r['value']:g}: {r['exact']}/{r['n']} exact"
                      f"  gained {r['gained']} lost {r['lost']}")
        last = result
    elif targets is not None:
        result = screen(targets, pairs, threads=args.threads, workers=args.workers)
        totals = [0] * len(pairs)
        for name, s in result["sets"].items():
            for k, ((det, _), r) in enumerate(zip(pairs, s["results"])):
                totals[k] += r["exact"]
                print(f"{name}: {r['was']} -> {r['exact']}/{s['n']} exact  "
                      f"({_detector_names(det)}; read {r['read']} unsure photos, "
                      f"gained {r['gained']}, lost {r['lost']})")
        print("sum over the sets: " + ", ".join(f"pair {k}: {t}" for k, t in enumerate(totals)))
        last = {"pairs": result["pairs"], "sums": totals,
                "sets": {n: [{k: r[k] for k in ("was", "exact", "read", "gained", "lost")} for r in s["results"]]
                         for n, s in result["sets"].items()}}
    else:
        result = evaluate(args.sets, pairs, threads=args.threads, limit=args.limit, workers=args.workers)
        for name, s in result["sets"].items():
            for (det, cls), r in zip(pairs, s["results"]):
                print(f"{name}: {r['exact']}/{r['n']} exact  ({_detector_names(det)} + {cls.name}, {r['mean_ms']} ms/photo)")
                print("    first cause of each miss: " + ", ".join(
                    f"{c} {r['causes'][c]}" for c in CAUSES if r["causes"].get(c)))
                print("    " + tile_rates(r["tiles"]))
                print("    hand tiles with no box, by their photo's first cause: " + ", ".join(
                    f"{c} {r['unboxed_by_cause'][c]}" for c in CAUSES if r["unboxed_by_cause"].get(c))
                    + f"; the first detector's first pass boxed {r['unboxed_first_pass']} of the "
                      f"{r['tiles']['n'] - r['tiles']['boxed']} (lost by the reading)")
                print("    " + sure_rates(r["surely"]))
                print("    " + scoring_rates(r["scoring"]))
                print("    exact by table: " + ", ".join(f"{kind} {e}/{n}" for kind, (n, e) in sorted(r["by_table"].items())))
                if "legible_tiles" in r:
                    print("    legible: " + tile_rates(r["legible_tiles"]))
                if "legible_blur_tiles" in r:  # issue #3's question 2: a candidate for the owner, not the rule
                    print("    legible, counting blur (candidate): " + tile_rates(r["legible_blur_tiles"]))
            if args.show_misses:
                misses = sorted({i for r in s["results"] for i in r["misses"]})
                for i in misses:
                    print(f"  #{i} truth {s['truth'][i]}")
                    for k, r in enumerate(s["results"]):
                        print(f"      pair {k}: {r['reads'][i]}")
        last = summary(result)
        if args.report:
            args.report.parent.mkdir(parents=True, exist_ok=True)
            args.report.write_text("".join(
                f"## {name}: {_detector_names(det)} + {cls.name} "
                f"({r['exact']}/{r['n']} photos exact)\n\n" + class_table(r["by_class"]) + "\n"
                for name, s in result["sets"].items() for (det, cls), r in zip(pairs, s["results"])))
    result["libraries"] = library_versions()  # (readings move a little with these: see vision.runtime)
    print(libraries_line(result["libraries"]))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
    print(json.dumps(last))  # the figures as one JSON object (a sweep's are short already)
    return 0


if __name__ == "__main__":
    sys.exit(main())
