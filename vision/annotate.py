"""Draw a `Reading` on its photo: every tile's box and class, how it lies, and the groups.

So a user can see at a glance what was read (and which tile to correct): hand tiles are boxed
in their group's colour, uncertain ones are marked with "?", changed ones show the original
read, tiles that are not part of the hand get a thin grey box. Uses only OpenCV's built-in
fonts (nothing to download).
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.reading import Reading

# RGB colours per group kind
COLOURS = {
    "closed": (40, 200, 90), "drawn": (255, 200, 0), "chi": (60, 160, 255), "pon": (230, 90, 230),
    "minkan": (255, 120, 40), "kakan": (255, 70, 70), "ankan": (150, 110, 255), "nuki": (0, 220, 220),
    "called": (200, 200, 200),
}
GREY = (150, 150, 150)
UNCERTAIN = (255, 40, 40)
ARROWS = {0: "", 90: " >", 180: " v", 270: " <"}  # where the face's top points


def annotate(image: np.ndarray, reading: Reading) -> np.ndarray:
    """A copy of `image` (RGB) with the reading drawn on it."""
    out = np.ascontiguousarray(image.copy())
    h, w = out.shape[:2]
    thick = max(1, round(min(h, w) / 450))
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = max(0.4, min(h, w) / 1400)

    in_group = {i: g for g in reading.groups for i in g.tiles}
    changed = {c.tile: c for c in reading.changes}
    uncertain = set(reading.uncertain)
    for i, t in enumerate(reading.tiles):
        x1, y1, x2, y2 = (int(round(v)) for v in t.box)
        g = in_group.get(i)
        if g is None:
            cv2.rectangle(out, (x1, y1), (x2, y2), GREY, max(1, thick // 2))
            continue
        colour = COLOURS.get(g.kind, GREY)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thick + 1)
        text = ("x" if t.label == "back" else t.label or "?") + ARROWS.get(t.rotation, "")
        if i in changed:
            text += f" ({changed[i].read})"
        if i in uncertain:
            text += "?"
        _label(out, text, (x1, y2 + int(22 * scale) + thick), font, scale, UNCERTAIN if i in uncertain else colour, thick)

    for g in reading.groups:
        boxes = np.array([reading.tiles[i].box for i in g.tiles], float)
        gx1, gy1 = int(boxes[:, 0].min()), int(boxes[:, 1].min())
        caption = g.kind + (f" from {g.direction}" if g.direction else "")
        _label(out, caption, (gx1, max(gy1 - 8 * thick, int(20 * scale))), font, scale * 1.1,
               COLOURS.get(g.kind, GREY), thick)

    if reading.hand is not None:
        summary = f"{reading.hand['concealed']}  win {reading.hand['win_tile']}"
        for m in reading.hand["melds"]:
            summary += f"  {m['kind']} {m['tiles']}" + (f" <{m['from']}" if m.get("from") else "")
    else:
        summary = reading.error or "no hand"
    _label(out, summary[:160], (int(10 * scale), h - int(14 * scale)), font, scale * 1.2, (255, 255, 255), thick)
    return out


def _label(img, text, org, font, scale, colour, thick) -> None:
    """Text with a dark outline, readable on any table colour."""
    x, y = org
    cv2.putText(img, text, (x, y), font, scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(img, text, (x, y), font, scale, colour, thick, cv2.LINE_AA)
