"""The engine's shortcuts must not change any answer: gates that skip yaku checks, the fast fu
count next to the detailed breakdown, cached suit splits. Checked on random winning hands of
every preset (tests/scoring/handgen.py)."""
import pytest

import scoring.engine as engine
import scoring.fu as fu_mod
from scoring import PRESETS, score_json
from scoring.decompose import suit_shapes
from tests.scoring.handgen import HandGenerator

N = 600


def hands(preset, seed):
    rules = PRESETS[preset]
    reds = "".join("mps"[i] for i, n in enumerate(rules.red_fives) if n)
    gen = HandGenerator(seed=seed, players=rules.players, red_suits=reds, kan_dora=rules.kan_dora,
                        ura_dora=rules.ura_dora)
    return [h.to_json(preset) for h in gen.hands(N)]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_gates_only_skip_checks_that_would_fail(preset, monkeypatch):
    sample = hands(preset, seed=101)
    fast = [score_json(h) for h in sample]
    # every gate open: every predicate of the rule set is run on every reading
    monkeypatch.setattr(engine, "compile_gates", lambda names: (lambda c: (1 << len(names)) - 1))
    engine._TABLES.clear()
    try:
        slow = [score_json(h) for h in sample]
    finally:
        engine._TABLES.clear()
    assert sum(1 for r in fast if r["error"] is None) > N // 2
    for h, a, b in zip(sample, fast, slow):
        assert a == b, h


@pytest.mark.parametrize("preset", ["tenhou", "sanma", "saikyosen-2022", "renmei"])
def test_fast_fu_equals_the_breakdown(preset):
    for h in hands(preset, seed=202):
        out = score_json(h)
        if out["error"] or out["form"] == "thirteen orphans":
            continue
        raw = sum(d["fu"] for d in out["fu_details"])
        if out["form"] == "seven pairs":
            assert out["fu"] == 25
        elif any("counted as 30" in d["reason"] for d in out["fu_details"]):
            assert out["fu"] == 30 and raw == 30
        else:
            assert out["fu"] == -(-raw // 10) * 10, (h, out["fu_details"])


def test_suit_split_cache_returns_the_same_splits():
    counts = (1, 1, 2, 1, 1, 0, 0, 0, 2)
    first = suit_shapes(counts)
    suit_shapes.cache_clear()
    assert suit_shapes(counts) == first


def test_fu_value_matches_fu_details_directly():
    # every combination the engine feeds both functions with, on a small grid
    rules = PRESETS["tenhou"]
    for closed in (True, False):
        for tsumo in (True, False):
            for wait in range(5):
                for trips in ((), (0,), (4, 27)):
                    for ron_trip in (-1,) + trips[:1]:
                        if ron_trip >= 0 and tsumo:
                            continue
                        melds = [] if closed else [(8, False, False)]  # an open 999m pon
                        meld_fu = sum(fu_mod.set_fu(*m) for m in melds)
                        fast = fu_mod.fu_value(0, closed, tsumo, False, False, 2, wait, trips, ron_trip, meld_fu, rules)
                        slow = fu_mod.fu_details(0, closed, tsumo, False, False, 31, 2, wait, trips, ron_trip,
                                                 melds, rules)[0]
                        assert fast == slow


@pytest.mark.parametrize("preset", ["tenhou", "sanma", "renmei"])
def test_compiled_gate_signature_equals_each_gate(preset, monkeypatch):
    # the compiled function groups gates behind cheaper family conditions; it must agree with
    # evaluating every gate on its own, on every context the engine builds
    from scoring.yaku import GATES
    seen = set()
    real = engine.compile_gates

    def checked_compile(names):
        fast = real(names)

        def gates(c):
            got = fast(c)
            assert got == sum(1 << i for i, n in enumerate(names) if GATES[n](c)), names
            seen.add((tuple(names), got))
            return got
        return gates

    monkeypatch.setattr(engine, "compile_gates", checked_compile)
    engine._TABLES.clear()
    try:
        for h in hands(preset, seed=303):
            score_json(h)
    finally:
        engine._TABLES.clear()
    assert len(seen) > 20
