"""report.html pieces: the hand drawn as tiles (called tile sideways where it came from, kakan
stacked, ankan ends face down, the winning tile apart) and a page with no external resources."""
from __future__ import annotations

import re

from audit.html import hand_html, tiles_of, to_html


def svgs(html: str) -> list[str]:
    return re.findall(r'<svg class="tile" width="(\d+)" height="(\d+)"[^>]*aria-label="([^"]+)"', html)


def test_tiles_of():
    assert tiles_of("123m0p11z") == ["1m", "2m", "3m", "0p", "1z", "1z"]


def test_melds_drawn_like_on_the_table():
    hand = {"concealed": "234m11z", "win_tile": "1z", "melds": [
        {"kind": "chi", "tiles": "456s", "called": "5s", "from": "left"},
        {"kind": "pon", "tiles": "777z", "called": "7z", "from": "right"},
        {"kind": "kakan", "tiles": "9999p", "called": "9p", "from": "across"},
        {"kind": "ankan", "tiles": "1111m"}]}
    groups = re.findall(r'<span class="grp"[^>]*>(.*?)</span>', hand_html(hand))
    closed, win, chi, pon, kakan, ankan = (svgs(g) for g in groups)
    assert [t[2] for t in closed] == ["2m", "3m", "4m", "1z"]
    assert win == [("30", "40", "1z — winning tile")]
    assert [(w, label) for w, _, label in chi] == [("40", "5s"), ("30", "4s"), ("30", "6s")]   # from left: first
    assert [(w, label) for w, _, label in pon] == [("30", "7z"), ("30", "7z"), ("40", "7z")]   # from right: last
    assert [(w, h) for w, h, _ in kakan] == [("30", "40"), ("40", "58"), ("30", "40")]          # across: middle, stacked
    assert [label for _, _, label in ankan] == ["1m (face down)", "1m", "1m", "1m (face down)"]


def test_page_is_self_contained(tmp_path):
    data = {"videos": [{"path": "a.mp4", "duration_s": 60.0, "events": [], "error": "a.mp4: cannot open"}],
            "settings": {"sample_fps": 2.0}}
    page = to_html(data, tmp_path)
    assert "cannot open" in page and "No reveal event found" in page
    assert not re.search(r'(src|href)="(https?:|//)', page) and "<link" not in page and "<script" not in page
