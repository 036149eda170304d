"""The named measuring sets: every held-out gate and tune set the cards quote, rendered by name.

    python -m tsumo_synth.sets gates tune --workers 2     # the sets a reader change is chosen and gated on
    python -m tsumo_synth.sets det_test_x3g --legibility  # one set, with its legibility sidecar
    python -m tsumo_synth.sets --list

`cache/` is not kept across machines, and each new machine used to rebuild these sets from commands copied
out of docs/models.md by hand (a session's own script, lost with the cache). One table here is the recipe of
record: a set's name, photo seed, size, preset and scale, as the cards measured it. Rendering is
`photos.write_dataset`, so a set already in place with the same recipe is kept, not rendered again.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from tsumo_synth.photos import SHARED_DIR, write_dataset

DEFAULT_ROOT = Path("cache/synth")


@dataclass(frozen=True)
class SetRecipe:
    """One rendered set: `n` photos of photo seed `seed` (face pool 0, no validation split)."""

    n: int
    seed: int
    preset: str = "default"
    scale: float = 1.0
    role: str = "held out"  # "held out" (a gate: read once, with final code) or "tune" (select here)


SETS: dict[str, SetRecipe] = {
    "det_test_h": SetRecipe(150, 99),
    "det_test_hard": SetRecipe(120, 98, preset="hard"),
    "det_test_h400": SetRecipe(400, 95),
    "det_test_h400b": SetRecipe(400, 93),
    "det_test_h400c": SetRecipe(400, 91),
    "det_test_h400d": SetRecipe(400, 89),
    "det_test_h400e": SetRecipe(400, 87),
    "det_test_h400g": SetRecipe(400, 79),
    "det_test_h_x2": SetRecipe(150, 99, scale=2),
    "det_test_h_x3": SetRecipe(150, 99, scale=3),
    "det_test_x1g": SetRecipe(300, 77),
    "det_test_x3g": SetRecipe(300, 77, scale=3),
    "det_test_close_x3g": SetRecipe(300, 71, preset="close", scale=3),
    "tune9": SetRecipe(400, 9601, role="tune"),
    "tune9_x3": SetRecipe(200, 9601, scale=3, role="tune"),
    "tune10_x3": SetRecipe(300, 9602, scale=3, role="tune"),
    "tune_close_x3": SetRecipe(200, 9603, preset="close", scale=3, role="tune"),
    "tune_plaid_x3": SetRecipe(200, 9604, preset="plaid", scale=3, role="tune"),
}

# The groups a reader change goes through: chosen on the tune sets, then the gates read once.
GROUPS: dict[str, tuple[str, ...]] = {
    "gates": ("det_test_x3g", "det_test_x1g", "det_test_h", "det_test_close_x3g"),
    "tune": ("tune_plaid_x3", "tune_close_x3", "tune9", "tune9_x3", "tune10_x3"),
}


def resolve(names: list[str]) -> list[str]:
    """Set and group names → set names, in order, each once; an unknown name raises ValueError."""
    out: list[str] = []
    for name in names:
        if name not in SETS and name not in GROUPS:
            raise ValueError(f"unknown set {name!r} (sets: {', '.join(SETS)}; groups: {', '.join(GROUPS)})")
        for s in GROUPS.get(name, (name,)):
            if s not in out:
                out.append(s)
    return out


def render(name: str, root: Path = DEFAULT_ROOT, *, workers: int = 1, quiet: bool = False,
           shared: Path = SHARED_DIR, n: int | None = None) -> Path:
    """Render set `name` into root/name (kept as it is when its recipe is already there); `n`: only its
    first n photos (the same photos, a smaller set)."""
    r = SETS[name]
    return write_dataset(root / name, r.n if n is None else n, r.seed, workers=workers, val_frac=0.0,
                         preset=r.preset, scale=r.scale, quiet=quiet, shared=shared)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tsumo_synth.sets", description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", help="set names or groups (gates, tune)")
    ap.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="folder the sets go in (default cache/synth)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--shared", type=Path, default=SHARED_DIR, help="the reference folder (tile art)")
    ap.add_argument("--legibility", action="store_true",
                    help="also write each set's legibility sidecar (tsumo_synth.legibility; renders it again)")
    ap.add_argument("--list", action="store_true", help="print the table and exit")
    args = ap.parse_args(argv)
    if args.list:
        for name, r in SETS.items():
            extra = "".join(f" {k}={v}" for k, v in (("preset", r.preset), ("scale", r.scale))
                            if v not in ("default", 1.0))
            print(f"{name:20s} {r.role:8s} n={r.n} seed={r.seed}{extra}")
        for g, members in GROUPS.items():
            print(f"{g}: {' '.join(members)}")
        return 0
    if not args.names:
        ap.error("name a set or a group (see --list)")
    if args.workers < 1:
        ap.error("--workers must be ≥ 1")
    try:
        names = resolve(args.names)
    except ValueError as e:
        ap.error(str(e))
    for name in names:
        out = render(name, args.root, workers=args.workers, shared=args.shared)
        if args.legibility:
            from tsumo_synth import legibility

            if legibility.main([str(out)]) != 0:  # (it says what went wrong)
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
