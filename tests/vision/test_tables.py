"""Table kinds and cloth patterns: the default draw is what every existing set used; weights change which kind
(or pattern), not the stream."""
from __future__ import annotations

import numpy as np

from tsumo_synth import photos
from tsumo_synth.tables import CLOTH_PATTERNS, TABLE_KINDS, TABLE_WEIGHTS, random_table

EXTENT = (0.0, 0.0, 14.0, 1.5)


def _kinds(seed: int, n: int, weights=None) -> tuple[list[str], float]:
    rng = np.random.default_rng(seed)
    kinds = [random_table(rng, hand_extent=EXTENT, ppu=4.0, weights=weights).kind for _ in range(n)]
    return kinds, rng.random()


def test_default_weights_are_the_old_draw():
    """random_table without weights draws exactly as with the defaults spelled out (and as before session 15)."""
    assert _kinds(5, 20) == _kinds(5, 20, TABLE_WEIGHTS)
    assert abs(sum(TABLE_WEIGHTS) - 1) < 1e-9 and len(TABLE_WEIGHTS) == len(TABLE_KINDS)


def test_weights_pick_the_kind_and_leave_the_stream_alone():
    only_cloth, _ = _kinds(5, 12, (0, 0, 0, 1, 0))
    assert set(only_cloth) == {"cloth"}
    # the kind draw takes one number from the stream whatever the weights (the texture then drawn differs)
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    a.choice(list(TABLE_KINDS), p=list(TABLE_WEIGHTS))
    b.choice(list(TABLE_KINDS), p=[0, 0, 0, 1, 0])
    assert a.random() == b.random()


def test_tables_preset_draws_cloth_more_often():
    weights = photos.PRESETS["tables"]["scene"]["table_weights"]
    assert abs(sum(weights) - 1) < 1e-9
    kinds, _ = _kinds(11, 200, weights)
    default, _ = _kinds(11, 200)
    assert kinds.count("cloth") > 2 * default.count("cloth")


def _patterns(seed: int, n: int, cloth_patterns=None, *, kind: str | None = "cloth", weights=None) -> list[str | None]:
    rng = np.random.default_rng(seed)
    return [random_table(rng, hand_extent=EXTENT, ppu=4.0, kind=kind, weights=weights,
                         cloth_patterns=cloth_patterns).pattern for _ in range(n)]


def test_a_cloth_says_its_pattern_and_other_tables_none():
    """Every cloth names one of CLOTH_PATTERNS (all three come up when drawn alike); felt has none."""
    assert set(_patterns(2, 30)) == set(CLOTH_PATTERNS)
    assert random_table(np.random.default_rng(2), hand_extent=EXTENT, ppu=4.0, kind="felt").pattern is None


def test_cloth_pattern_weights_pick_the_pattern():
    assert set(_patterns(4, 12, (0, 1, 0))) == {"plaid"}
    assert set(_patterns(4, 12, (0, 0, 1))) == {"plain"}


def test_plaid_preset_draws_plaid_far_more_often():
    scene = photos.PRESETS["plaid"]["scene"]
    assert abs(sum(scene["table_weights"]) - 1) < 1e-9 and abs(sum(scene["cloth_patterns"]) - 1) < 1e-9
    plaid = _patterns(8, 200, scene["cloth_patterns"], kind=None, weights=scene["table_weights"]).count("plaid")
    default = _patterns(8, 200, kind=None).count("plaid")
    assert plaid > 4 * default
