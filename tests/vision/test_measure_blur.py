"""datasets/measure_blur.py: how the blur warning's threshold was chosen and how it is reported (session 52)."""
from __future__ import annotations

import measure_blur as mb


def _row(motion: float = 0.0, defocus: float = 0.0, sharpness: float | None = 1.0, exact: bool | None = True) -> dict:
    return {"motion": motion, "defocus": defocus, "blurred": motion >= 0.18 or defocus >= 0.04,
            "sharpness": sharpness, "exact": exact}


def test_photos_are_grouped_by_blur_relative_to_the_rule_and_counted_when_warned():
    rows = [_row(motion=0.20, sharpness=0.2, exact=False), _row(defocus=0.05, sharpness=0.5),  # past the rule
            _row(defocus=0.03, sharpness=0.3),  # in between: 0.03 / 0.04 = 0.75
            _row(motion=0.05, sharpness=0.9), _row(sharpness=0.36, exact=False),  # sharp (b < 0.5)
            {**_row(), "blurred": None}]  # no hand: left out
    counts = mb.summarise(rows, 0.374)["counts"]
    assert counts["past the rule (b >= 1)"] == (1, 2)
    assert counts["in between (0.5 <= b < 1)"] == (1, 1)
    assert counts["sharp (b < 0.5)"] == (1, 2)
    assert counts["misread"] == (2, 2) and counts["read exactly"] == (1, 3)
    # measured on labelled boxes (nothing read): no misread line
    assert "misread" not in mb.summarise([_row(exact=None)], 0.374)["counts"]


def test_the_threshold_is_the_sharpness_two_percent_of_the_plainly_sharp_photos_fall_under():
    sharp = [_row(sharpness=0.30 + 0.01 * i) for i in range(101)]  # 0.30 … 1.30
    blurred = [_row(motion=0.3, sharpness=0.1)] * 10  # never counted as sharp
    assert abs(mb.choose(sharp + blurred) - 0.32) < 1e-9
