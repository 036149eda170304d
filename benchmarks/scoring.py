"""Scoring speed: this engine against the `mahjong` package on seeded sets of winning hands.

    python benchmarks/scoring.py [--hands 20000] [--seed 1] [--preset tenhou] [--repeat 3]

Two figures, each engine timed in the same run on the same hands (tests/scoring/handgen.py):

- scorer only: our `score(Hand, rules)` on already-parsed hands against the package's
  `HandCalculator.estimate_hand_value` on ready-made 136-tile arrays, melds and `HandConfig`
  (neither side reads input or writes output: the like-for-like comparison of the two scorers);
- end to end: our `score_json` (CONTRACTS §1 dict in, §2 dict out: parsing, every check,
  scoring, the JSON result) against the package *including its own input construction* per hand
  (the 136-tile arrays with red fives, its `Meld` objects and `HandConfig`, built from the
  generated hand, then `estimate_hand_value`; the package is not asked to produce a dict).

Each engine first warms up on a hand set of its own (both keep small per-pattern caches). Every
timed pass then scores a fresh hand set that neither engine has seen, so no pass is helped by a
cache filled in an earlier pass over the same hands; the two engines' passes are interleaved so
a busy machine slows both alike, and each figure is the best pass. Wall-clock time is what the
ratios use; CPU time (`time.process_time`) is printed too because on a shared machine it moves
less. Afterwards every timed hand is compared field by field (han, fu, yaku, yakuman, points,
total, payments) with the rules and explicit exclusions of tests/scoring/test_differential.py;
the script exits 1 if any comparable hand differs. Not a test: the numbers depend on the
machine; benchmarks/README.md records measured runs.
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _load() -> str:
    try:
        return "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=20_000, help="hands per set (default 20000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first timed set (default 1)")
    parser.add_argument("--preset", default="tenhou")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes, each on a fresh set (default 3)")
    args = parser.parse_args(argv)

    from importlib.metadata import version

    from mahjong.hand_calculating.hand import HandCalculator

    from scoring import PRESETS, Hand, HandError, score, score_json
    from tests.scoring.handgen import to_mahjong
    from tests.scoring.test_differential import Tally, adapt, compare_one, generator_for, lib_options

    rules = PRESETS[args.preset]
    options = lib_options(rules)
    honba_unit = 200 if rules.players == 3 else 300

    def package_args(h):
        """The package's own input for one hand: 136 arrays, Meld objects, HandConfig."""
        tiles, win, melds, dora, config, ura = to_mahjong(h, options)
        config.tsumi_number = h.honba * rules.honba_points // honba_unit
        return tiles, win, melds, dora, config, ura

    def prepare(seed: int):
        gen = generator_for(args.preset, seed)
        hands = [adapt(gen.hand(), rules) for _ in range(args.hands)]
        objs = [h.to_json(args.preset) for h in hands]
        parsed = []
        for obj in objs:
            try:
                parsed.append(Hand.from_json(obj))
            except HandError:  # a generated hand the engine refuses is still timed via score_json
                pass
        return {"hands": hands, "objs": objs, "parsed": parsed, "lib": [package_args(h) for h in hands]}

    def ours_json(obj):
        return score_json(obj)

    def ours_hand(hand):
        try:
            return score(hand, rules)
        except HandError:  # "no yaku" is an answer, like the package's error
            return None

    def theirs(a):
        tiles, win, melds, dora, config, ura = a
        return HandCalculator.estimate_hand_value(tiles, win, melds=melds, dora_indicators=dora, config=config,
                                                  ura_dora_indicators=ura)

    def theirs_end_to_end(h):
        tiles, win, melds, dora, config, ura = package_args(h)
        return HandCalculator.estimate_hand_value(tiles, win, melds=melds, dora_indicators=dora, config=config,
                                                  ura_dora_indicators=ura)

    # (name, function, which list of a set it runs on); ours and theirs alternate
    runs = (("score", ours_hand, "parsed"), ("lib", theirs, "lib"),
            ("json", ours_json, "objs"), ("lib_e2e", theirs_end_to_end, "hands"))

    load_before = _load()
    t0 = time.perf_counter()
    warm = prepare(args.seed + 1_000_003)
    sets = [prepare(args.seed + k) for k in range(args.repeat)]
    prep = time.perf_counter() - t0
    for _, fn, part in runs:
        for item in warm[part]:
            fn(item)

    wall = {name: float("inf") for name, _, _ in runs}
    cpu = dict(wall)
    count = {name: 0 for name, _, _ in runs}
    for s in sets:
        for name, fn, part in runs:
            items = s[part]
            w0, c0 = time.perf_counter(), time.process_time()
            for item in items:
                fn(item)
            w, c = time.perf_counter() - w0, time.process_time() - c0
            if w / len(items) < wall[name] / max(count[name], 1):
                wall[name], count[name] = w, len(items)
            cpu[name] = min(cpu[name], c / len(items))
    rate = {name: count[name] / wall[name] for name in wall}
    cpu_rate = {name: 1 / cpu[name] for name in cpu}

    tally = Tally()
    for s in sets:
        for h in s["hands"]:
            compare_one(h, args.preset, tally)
    load_after = _load()

    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip() or "?"
    except OSError:
        commit = "?"
    n = args.hands * args.repeat
    print(f"{args.repeat} fresh sets of {args.hands:,} generated winning hands, preset {args.preset}, seeds "
          f"{args.seed}..{args.seed + args.repeat - 1} (warm-up on another set; prepared in {prep:.0f} s)")
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, mahjong "
          f"{version('mahjong')}, repo at {commit}; load average {load_before} before, {load_after} after")
    print("  hands/s, best pass (wall clock; CPU time in brackets)")
    print("  scorer only (parsed input, no output):")
    print(f"    this engine, score(Hand, rules)                    : {rate['score']:>8,.0f}  "
          f"({cpu_rate['score']:,.0f})")
    print(f"    mahjong, estimate_hand_value(prepared arrays)      : {rate['lib']:>8,.0f}  ({cpu_rate['lib']:,.0f})")
    print(f"    ratio: {rate['score'] / rate['lib']:.2f}x  (CPU time: {cpu_rate['score'] / cpu_rate['lib']:.2f}x)")
    print("  end to end (input built per hand):")
    print(f"    this engine, score_json(§1 dict) -> §2 dict        : {rate['json']:>8,.0f}  "
          f"({cpu_rate['json']:,.0f})")
    print(f"    mahjong, its arrays + Meld + HandConfig + estimate : {rate['lib_e2e']:>8,.0f}  "
          f"({cpu_rate['lib_e2e']:,.0f})")
    print(f"    ratio: {rate['json'] / rate['lib_e2e']:.2f}x  (CPU time: {cpu_rate['json'] / cpu_rate['lib_e2e']:.2f}x)")
    same = tally.compared - len(tally.mismatches)
    print(f"  identical results: {same:,} of {tally.compared:,} comparable hands of {n:,} "
          f"({tally.scored:,} scored, {tally.both_no_yaku:,} refused for no yaku by both); "
          f"excluded {sum(tally.excluded.values()):,}: {dict(tally.excluded) or 'none'}")
    for line in tally.mismatches[:5]:
        print("  MISMATCH " + line)
    return 0 if not tally.mismatches else 1


if __name__ == "__main__":
    raise SystemExit(main())
