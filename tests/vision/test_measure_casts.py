"""datasets/measure_casts.py: how the colour-cast and dim-light figures are read (docs/vision.md, "Colour casts and dim
light")."""
from __future__ import annotations

import measure_casts as mc
import numpy as np

from vision.colour import tile_white


def test_a_cast_scales_each_channel_by_its_strength_and_is_saved_as_a_jpeg():
    grey = np.full((64, 64, 3), 160, np.uint8)
    full = mc.tinted(grey, "warm", 1.0)
    assert abs(full[..., 0].mean() - 160 * 1.15) < 2 and abs(full[..., 2].mean() - 160 * 0.6) < 2
    half = mc.tinted(grey, "cold", 0.5)
    assert abs(half[..., 0].mean() - 160 * 0.9) < 2 and abs(half[..., 2].mean() - 160 * 1.1) < 2
    assert np.array_equal(mc.tinted(grey, "green", 0.0), grey)  # strength 0: only the JPEG round trip (flat: exact)
    red, blue, _, _ = tile_white(full, [(0, 0, 64, 64)] * 3)
    assert abs(red - np.log(1.15 / 0.9)) < 0.02 and abs(blue - np.log(0.6 / 0.9)) < 0.02


def test_a_rendered_photo_draws_the_same_cast_in_every_run():
    draws = [mc.drawn_cast(f"images/train/p{i:06d}.jpg") for i in range(400)]
    assert draws == [mc.drawn_cast(f"images/train/p{i:06d}.jpg") for i in range(400)]
    assert {kind for kind, _ in draws} == set(mc.CASTS)
    assert {mc.drawn_cast(f"p{i}.jpg", ("dim",))[0] for i in range(20)} == {"dim"}
    assert {mc.drawn_cast(f"p{i}.jpg", ("warm", "cold"))[0] for i in range(20)} == {"warm", "cold"}
    dim = mc.tinted(np.full((64, 64, 3), 160, np.uint8), "dim", 1.0)
    assert abs(dim.mean() - 40) < 2
    strengths = [s for _, s in draws]
    assert min(strengths) >= 0.25 and max(strengths) <= 1.0 and np.std(strengths) > 0.15


def test_figures_count_each_way_and_per_kind():
    rows = [{"kind": "warm", "plain": False, "shipped": True, "balanced": True},
            {"kind": "warm", "plain": True, "shipped": True, "balanced": True},
            {"kind": "cold", "plain": True, "shipped": False, "balanced": True},
            {"kind": "cold", "plain": False, "shipped": False, "balanced": False}]
    f = mc.tally(rows)
    assert f["all"] == {"photos": 4, "plain": 2, "shipped": 2, "gained": 1, "lost": 1, "balanced": 3}
    assert f["warm"]["gained"] == 1 and f["warm"]["lost"] == 0 and f["cold"]["lost"] == 1


def test_a_photo_is_read_under_each_of_its_lights_in_turn(tmp_path):
    """`--also`: a warm lamp in a dim room is the warm light, then the dim one, each saved as a JPEG (as two phones'
    worth of processing would); the row names both and says which reading was balanced."""
    from types import SimpleNamespace

    import cv2

    from vision.pipeline import BALANCED_NOTE

    path = tmp_path / "grey.png"
    cv2.imwrite(str(path), np.full((64, 64, 3), 160, np.uint8))
    seen = []

    class Reader:
        def __init__(self, notes):
            self.notes = notes

        def read(self, image, players):
            seen.append(image.reshape(-1, 3).mean(axis=0))
            return SimpleNamespace(sequence="1m" if self.notes else "2m", notes=self.notes)

    readers = (Reader([]), Reader([f"the light on the tiles was dim: {BALANCED_NOTE}"]))
    row = mc._read(readers, (str(path), "1m", (("warm", 1.0), ("dim", 1.0)), 4))
    assert row == {"photo": "grey.png", "kind": "warm+dim", "strength": [1.0, 1.0], "plain": False, "shipped": True,
                   "balanced": True}
    r, g, b = seen[0]
    assert abs(r - 160 * 1.15 * 0.25) < 2 and abs(g - 160 * 0.9 * 0.25) < 2 and abs(b - 160 * 0.6 * 0.25) < 2
    assert mc._read(readers, (str(path), "2m", (), 4))["kind"] == "none"
