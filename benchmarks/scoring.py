"""Scoring speed: this engine against the `mahjong` package on one seeded set of winning hands.

    python benchmarks/scoring.py [--hands 20000] [--seed 1] [--preset tenhou] [--repeat 3]

Both engines see the same hands (tests/scoring/handgen.py). Input preparation is outside the
timings on both sides: the package gets its 136-tile arrays, melds and HandConfig ready-made,
and our engine is timed twice, once from the CONTRACTS §1 dict to the §2 dict (`score_json`:
parsing, validation, scoring, JSON) and once from an already-parsed `Hand` (`score`), which is
the like-for-like comparison. Before timing, each engine warms up on a different set of hands of
the same size (both keep small per-pattern caches). Each timing is the best of `--repeat` passes,
the passes of the two engines interleaved so a busy machine slows both alike.
Then every hand is compared field by field (han, fu, yaku, points, payments) with the same rules
and exclusions as tests/scoring/test_differential.py, and the count of identical results printed.
Not a test: numbers depend on the machine; benchmarks/README.md records measured runs.
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _time(fn, items, repeat: int) -> float:
    """Best wall time of `repeat` passes of fn over items."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="tenhou")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    from importlib.metadata import version

    from mahjong.hand_calculating.hand import HandCalculator

    from scoring import PRESETS, Hand, score, score_json
    from tests.scoring.handgen import to_mahjong
    from tests.scoring.test_differential import Tally, compare_one, generator_for, lib_options

    rules = PRESETS[args.preset]
    options = lib_options(rules)

    def prepare(seed: int):
        gen = generator_for(args.preset, seed)
        hands = [gen.hand() for _ in range(args.hands)]
        objs = [h.to_json(args.preset) for h in hands]
        lib_args = []
        for h in hands:
            tiles, win, melds, dora, config, ura = to_mahjong(h, options)
            config.tsumi_number = h.honba * rules.honba_points // (200 if rules.players == 3 else 300)
            lib_args.append((tiles, win, melds, dora, config, ura))
        parsed = []
        for obj in objs:
            try:
                parsed.append(Hand.from_json(obj))
            except Exception:  # noqa: BLE001 - a generated hand the engine refuses is still timed via score_json
                pass
        return hands, objs, lib_args, parsed

    def ours_json(obj):
        return score_json(obj)

    def ours_hand(hand):
        try:
            return score(hand, rules)
        except Exception:  # noqa: BLE001 - "no yaku" is an answer, like the package's error
            return None

    def theirs(a):
        tiles, win, melds, dora, config, ura = a
        return HandCalculator.estimate_hand_value(tiles, win, melds=melds, dora_indicators=dora, config=config,
                                                  ura_dora_indicators=ura)

    def theirs_from_scratch(h):
        """The package end to end: build its tile arrays, melds and HandConfig, then score."""
        tiles, win, melds, dora, config, ura = to_mahjong(h, options)
        config.tsumi_number = h.honba * rules.honba_points // (200 if rules.players == 3 else 300)
        return HandCalculator.estimate_hand_value(tiles, win, melds=melds, dora_indicators=dora, config=config,
                                                  ura_dora_indicators=ura)

    t0 = time.perf_counter()
    _, warm_objs, warm_lib, warm_parsed = prepare(args.seed + 1_000_003)
    hands, objs, lib_args, parsed = prepare(args.seed)
    prep = time.perf_counter() - t0
    for fn, items in ((ours_json, warm_objs), (ours_hand, warm_parsed), (theirs, warm_lib)):
        _time(fn, items, 1)

    # interleaved passes (ours, theirs, ours, ...) so a busy machine slows both alike; best of each
    runs = {"json": (ours_json, objs), "hand": (ours_hand, parsed), "lib": (theirs, lib_args),
            "lib_full": (theirs_from_scratch, hands)}
    best = {k: float("inf") for k in runs}
    for _ in range(args.repeat):
        for key, (fn, items) in runs.items():
            best[key] = min(best[key], _time(fn, items, 1))
    t_json, t_hand, t_lib, t_lib_full = best["json"], best["hand"], best["lib"], best["lib_full"]

    tally = Tally()
    for h in hands:
        compare_one(h, args.preset, tally)

    n = len(objs)
    try:
        import subprocess
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip() or "?"
    except OSError:
        commit = "?"
    rate = lambda t, k=n: k / t  # noqa: E731
    print(f"{n:,} generated winning hands, preset {args.preset}, seed {args.seed} "
          f"(prepared in {prep:.1f} s); Python {platform.python_version()}, {platform.machine()}, "
          f"mahjong {version('mahjong')}, repo at {commit}")
    print("  scoring a prepared hand:")
    print(f"    this engine, score(Hand, rules)                  : {rate(t_hand, len(parsed)):>8,.0f} hands/s")
    print(f"    mahjong, estimate_hand_value(prepared arrays)    : {rate(t_lib):>8,.0f} hands/s")
    print(f"    ratio: {rate(t_hand, len(parsed)) / rate(t_lib):.2f}x")
    print("  end to end (input built per hand):")
    print(f"    this engine, score_json(§1 dict) -> §2 dict      : {rate(t_json):>8,.0f} hands/s")
    print(f"    mahjong, arrays + HandConfig + estimate_hand_value: {rate(t_lib_full):>8,.0f} hands/s")
    print(f"    ratio: {rate(t_json) / rate(t_lib_full):.2f}x")
    same = tally.compared - len(tally.mismatches)
    print(f"  identical results: {same:,} of {tally.compared:,} comparable hands "
          f"({tally.scored:,} scored, {tally.both_no_yaku:,} refused for no yaku by both); "
          f"excluded {sum(tally.excluded.values()):,}: {dict(tally.excluded) or 'none'}")
    for line in tally.mismatches[:5]:
        print("  MISMATCH " + line)
    return 0 if not tally.mismatches else 1


if __name__ == "__main__":
    raise SystemExit(main())
