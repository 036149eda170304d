"""`report.html`: one self-contained page (inline CSS, images as data URIs, tiles as inline SVG).

Order: a summary, then what needs a human (video errors, mismatches, declared wins with no
event, unsure reads), then every event with its annotated best frame, the hand drawn as tiles
and the score breakdown — mismatches first.
"""
from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import cv2
import numpy as np

UNSURE = 0.6  # events below this confidence are listed for a human to check

_HONOR = {"1": ("東", "#222"), "2": ("南", "#222"), "3": ("西", "#222"), "4": ("北", "#222"),
          "5": ("", "#222"), "6": ("發", "#1b7f3a"), "7": ("中", "#c8102e")}
_SUIT = {"m": ("萬", "#c8102e"), "p": ("筒", "#1f4fa3"), "s": ("索", "#1b7f3a")}


def tiles_of(mpsz: str) -> list[str]:
    out = []
    for digits, suit in re.findall(r"(\d+)([mpsz])", mpsz or ""):
        out += [d + suit for d in digits]
    return out


def tile_svg(tile: str, *, sideways: bool = False, back: bool = False, win: bool = False,
             stacked: str | None = None) -> str:
    """One tile as inline SVG (30×40 upright, 40×30 lying sideways; stacked = a kakan pair)."""
    w, h = (40, 30) if sideways else (30, 40)
    if stacked is not None:
        h = 58
    body = []

    def face(t: str, y0: int) -> None:
        if back:
            body.append(f'<rect x="1" y="{y0 + 1}" width="{w - 2}" height="{(30 if sideways else 40) - 2}" rx="4" '
                        'fill="#2f6f4f" stroke="#173" />')
            return
        fh = 30 if sideways else 40
        stroke = "#d9a400" if win else "#8a8070"
        sw = 2.5 if win else 1
        body.append(f'<rect x="1" y="{y0 + 1}" width="{w - 2}" height="{fh - 2}" rx="4" fill="#fbf7ea" '
                    f'stroke="{stroke}" stroke-width="{sw}"/>')
        n, s = t[0], t[1]
        cx = w / 2
        if s == "z":
            glyph, color = _HONOR.get(n, ("?", "#222"))
            if n == "5":
                body.append(f'<rect x="{cx - 8}" y="{y0 + fh / 2 - 10}" width="16" height="20" fill="none" '
                            'stroke="#1f4fa3" stroke-width="1.5" rx="2"/>')
            else:
                body.append(f'<text x="{cx}" y="{y0 + fh / 2 + 7}" font-size="19" text-anchor="middle" '
                            f'fill="{color}" font-weight="bold">{glyph}</text>')
            return
        glyph, color = _SUIT.get(s, ("?", "#222"))
        red = n == "0"
        num = "5" if red else n
        ncol = "#c8102e" if red else "#222"
        if sideways:
            body.append(f'<text x="{cx - 7}" y="{y0 + 20}" font-size="17" text-anchor="middle" fill="{ncol}" '
                        f'font-weight="bold">{num}</text>')
            body.append(f'<text x="{cx + 9}" y="{y0 + 20}" font-size="12" text-anchor="middle" '
                        f'fill="{color}">{glyph}</text>')
        else:
            body.append(f'<text x="{cx}" y="{y0 + 19}" font-size="17" text-anchor="middle" fill="{ncol}" '
                        f'font-weight="bold">{num}</text>')
            body.append(f'<text x="{cx}" y="{y0 + 34}" font-size="12" text-anchor="middle" '
                        f'fill="{color}">{glyph}</text>')
        if red:
            body.append(f'<circle cx="{w - 6}" cy="{y0 + 6}" r="2.5" fill="#c8102e"/>')

    if stacked is not None:
        face(stacked, 0)
        face(tile, 28)
    else:
        face(tile, 0)
    title = tile + (" (face down)" if back else "") + (" — winning tile" if win else "")
    return (f'<svg class="tile" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" '
            f'aria-label="{html.escape(title)}"><title>{html.escape(title)}</title>{"".join(body)}</svg>')


def _meld_svg(m: dict) -> str:
    tiles = tiles_of(m.get("tiles", ""))
    kind = m.get("kind")
    src = m.get("from")
    called = m.get("called") or (tiles[0] if tiles else "")
    if kind == "ankan":
        return "".join(tile_svg(t, back=i in (0, len(tiles) - 1)) for i, t in enumerate(tiles))
    rest = list(tiles)
    if called in rest:
        rest.remove(called)
    if kind == "kakan":
        if called in rest:
            rest.remove(called)
        pos = {"left": 0, "across": 1, "right": 2}.get(src, 0)
        cells = [tile_svg(t) for t in rest[:2]]
        cells.insert(pos, tile_svg(called, sideways=True, stacked=called))
        return "".join(cells)
    pos = {"left": 0, "across": 1, "right": len(rest)}.get(src, 0)
    cells = [tile_svg(t) for t in rest]
    cells.insert(pos, tile_svg(called, sideways=True))
    return "".join(cells)


def hand_html(hand: dict) -> str:
    """Concealed tiles (sorted), the winning tile apart, then each meld with its called tile sideways."""
    order = {"m": 0, "p": 1, "s": 2, "z": 3}
    concealed = tiles_of(hand.get("concealed", ""))
    win = hand.get("win_tile")
    if win in concealed:
        concealed.remove(win)
    concealed.sort(key=lambda t: (order.get(t[1], 9), 5.5 if t[0] == "0" else int(t[0])))
    parts = ['<span class="grp">' + "".join(tile_svg(t) for t in concealed) + "</span>"]
    if win:
        parts.append('<span class="grp">' + tile_svg(win, win=True) + "</span>")
    for m in hand.get("melds") or []:
        parts.append(f'<span class="grp" title="{html.escape(str(m.get("kind")))}">{_meld_svg(m)}</span>')
    if hand.get("nukidora"):
        parts.append('<span class="grp" title="nuki-dora">' + "".join(tile_svg("4z") for _ in range(int(hand["nukidora"]))) + "</span>")
    return '<div class="hand">' + "".join(parts) + "</div>"


def _data_uri(path: Path, width: int) -> str | None:
    try:
        data = np.frombuffer(path.read_bytes(), np.uint8)
    except OSError:
        return None
    img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if img is None:
        return None
    h, w = img.shape[:2]
    if w > width:
        img = cv2.resize(img, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii") if ok else None


def _clock(s: float | None) -> str:
    if s is None:
        return "?"
    m, sec = divmod(float(s), 60)
    return f"{int(m)}:{sec:04.1f}"


def _e(x) -> str:
    return html.escape("" if x is None else str(x))


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.5em} h2{margin-top:1.6em;border-bottom:1px solid #ccc} h3{margin:.2em 0}
table{border-collapse:collapse;margin:.5em 0} td,th{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:middle}
.match{color:#1b7f3a;font-weight:bold}.mismatch{color:#c8102e;font-weight:bold}.err{color:#c8102e}
.card{border:1px solid #ccc;border-radius:8px;padding:.8em;margin:1em 0}.card.bad{border:2px solid #c8102e}
.hand{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-end;margin:.4em 0}.grp{display:inline-flex;gap:1px;align-items:flex-end}
.tile{display:block}.thumb{max-width:220px}.frame{max-width:100%;border-radius:4px}
.kv td:first-child{color:#666}.small{color:#666;font-size:.9em}.summary td{text-align:right}
"""


def to_html(data: dict, out_dir: Path) -> str:
    out_dir = Path(out_dir)
    videos = data["videos"]
    events = [(v, n, e) for v in videos for n, e in enumerate(v["events"], start=1)]
    n_match = sum(e["verdict"] == "match" for _, _, e in events)
    n_mis = sum(e["verdict"] == "mismatch" for _, _, e in events)
    unmatched = [(v["path"], u) for v in videos for u in v.get("unmatched_declared", [])]
    unmatched += [(None, u) for u in data.get("unmatched_declared", [])]
    unsure = [(v, n, e) for v, n, e in events if e["confidence"] < UNSURE]
    h: list[str] = ['<!doctype html><html lang="en"><head><meta charset="utf-8">',
                    '<meta name="viewport" content="width=device-width,initial-scale=1">',
                    "<title>Tsumo audit report</title>", f"<style>{CSS}</style></head><body>",
                    "<h1>Tsumo audit report</h1>"]
    s = data.get("settings", {})
    h.append(f'<p class="small">{len(videos)} video(s), sampled at {_e(s.get("sample_fps"))} frames/s'
             + (f'; declared wins from <code>{_e(s.get("declared"))}</code>' if s.get("declared") else "")
             + (f'; default context <code>{_e(s.get("context"))}</code>' if s.get("context") else "") + ".</p>")
    h.append('<table class="summary"><tr><th>video</th><th>duration</th><th>events</th><th>match</th>'
             '<th>mismatch</th><th>status</th></tr>')
    for v in videos:
        st = f'<span class="err">{_e(v["error"])}</span>' if v.get("error") else "ok"
        h.append(f'<tr><td style="text-align:left">{_e(v["path"])}</td><td>{_clock(v["duration_s"])}</td>'
                 f'<td>{len(v["events"])}</td><td>{sum(e["verdict"] == "match" for e in v["events"])}</td>'
                 f'<td>{sum(e["verdict"] == "mismatch" for e in v["events"])}</td><td style="text-align:left">{st}</td></tr>')
    h.append(f"<tr><th>total</th><td></td><td>{len(events)}</td><td>{n_match}</td><td>{n_mis}</td><td></td></tr></table>")

    attention = []
    for v in videos:
        if v.get("error"):
            attention.append(f'<li class="err">{_e(v["path"])}: {_e(v["error"])} — events found before '
                             f'{_clock(v.get("processed_s"))} are kept.</li>')
    for v, n, e in events:
        if e["verdict"] == "mismatch":
            attention.append(f'<li><a href="#{_anchor(v, n)}">{_e(v["path"])} event {n} at {_clock(e["start_s"])}</a>: '
                             f'<span class="mismatch">mismatch</span> — {_e(e.get("mismatch"))}</li>')
    for path, u in unmatched:
        where = f"{_e(path)}: " if path else ""
        attention.append(f'<li>{where}declared win on line {_e(u.get("line"))} ({_e(u.get("points"))} points): '
                         f'{_e(u.get("reason"))}</li>')
    for v, n, e in unsure:
        attention.append(f'<li><a href="#{_anchor(v, n)}">{_e(v["path"])} event {n}</a>: low confidence '
                         f'{e["confidence"]:.2f} — check the hand read</li>')
    h.append("<h2>Needs attention</h2>")
    h.append("<ul>" + "".join(attention) + "</ul>" if attention else "<p>Nothing: every event matches.</p>")

    for v in videos:
        h.append(f'<h2>{_e(v["path"])}</h2>')
        if v.get("error"):
            h.append(f'<p class="err">{_e(v["error"])}</p>')
        if not v["events"]:
            h.append("<p>No reveal event found.</p>")
            continue
        h.append('<table><tr><th>#</th><th>time</th><th>frame</th><th>hand</th><th>score</th>'
                 '<th>declared</th><th>verdict</th></tr>')
        for n, e in enumerate(v["events"], start=1):
            r = e["result"] or {}
            uri = _frame_uri(out_dir, e, 220)
            img = f'<img class="thumb" src="{uri}" alt="best frame">' if uri else ""
            h.append(f'<tr><td><a href="#{_anchor(v, n)}">{n}</a></td><td>{_clock(e["start_s"])}–{_clock(e["end_s"])}</td>'
                     f'<td>{img}</td><td>{hand_html(e["hand"])}</td><td>{_score_short(r)}</td>'
                     f'<td>{_e((e["declared"] or {}).get("points", "—"))}</td><td>{_verdict(e["verdict"])}</td></tr>')
        h.append("</table>")
        rank = {"mismatch": 0, None: 1, "match": 2}
        for n, e in sorted(enumerate(v["events"], start=1), key=lambda ne: (rank.get(ne[1]["verdict"], 1), ne[0])):
            h.append(_card(out_dir, v, n, e))
    h.append("</body></html>")
    return "\n".join(h)


def _anchor(v: dict, n: int) -> str:
    return "ev-" + re.sub(r"[^A-Za-z0-9]+", "-", Path(v["path"]).name) + f"-{n}"


def _frame_uri(out_dir: Path, e: dict, width: int) -> str | None:
    image = (e.get("best_frame") or {}).get("image")
    return _data_uri(out_dir / image, width) if image else None


def _verdict(v: str | None) -> str:
    return f'<span class="{v}">{v}</span>' if v else '<span class="small">—</span>'


def _score_short(r: dict) -> str:
    if r.get("error"):
        return f'<span class="err">{_e(r["error"])}</span>'
    lim = f' {r["limit"]}' if r.get("limit") else ""
    yk = f'{r["yakuman"]}× yakuman' if r.get("yakuman") else f'{_e(r.get("han"))} han {_e(r.get("fu"))} fu'
    return f'{yk}{_e(lim)}<br><b>{_e(r.get("points"))}</b>'


def _card(out_dir: Path, v: dict, n: int, e: dict) -> str:
    r = e["result"] or {}
    bad = e["verdict"] == "mismatch"
    uri = _frame_uri(out_dir, e, 960)
    parts = [f'<div class="card{" bad" if bad else ""}" id="{_anchor(v, n)}">',
             f'<h3>Event {n} — {_clock(e["start_s"])} to {_clock(e["end_s"])} {_verdict(e["verdict"])}</h3>']
    if bad:
        parts.append(f'<p class="mismatch">{_e(e.get("mismatch"))}</p>')
    parts.append(hand_html(e["hand"]))
    bf = e.get("best_frame") or {}
    how = (f'read from {e["fused"]} frames together' if e.get("fused")
           else f'{e.get("agreement", 0) * 100:.0f}% of them read it alone')
    parts.append(f'<p class="small">read {_e(e.get("sequence"))} · confidence {e["confidence"]:.2f} · '
                 f'{_e(e.get("frames"))} frames show the hand, {how} · best frame at {_clock(bf.get("t"))}'
                 f' (annotated with that frame\'s own reading)</p>')
    if r.get("error"):
        parts.append(f'<p class="err">Cannot score: {_e(r["error"])}</p>')
    else:
        rows = "".join(f'<tr><td>{_e(y.get("name"))}</td><td>{_e(y.get("han"))}</td></tr>' for y in r.get("yaku") or [])
        pay = ", ".join(f"{_e(k)} {_e(val)}" for k, val in (r.get("payments") or {}).items())
        parts.append('<table class="kv">'
                     f'<tr><td>yaku</td><td><table>{rows}</table></td></tr>'
                     f'<tr><td>han / fu</td><td>{_e(r.get("han"))} / {_e(r.get("fu"))}</td></tr>'
                     + (f'<tr><td>limit</td><td>{_e(r.get("limit"))}</td></tr>' if r.get("limit") else "")
                     + (f'<tr><td>yakuman</td><td>{_e(r.get("yakuman"))}</td></tr>' if r.get("yakuman") else "")
                     + f'<tr><td>points</td><td><b>{_e(r.get("points"))}</b></td></tr>'
                     f'<tr><td>payments</td><td>{pay}</td></tr><tr><td>total</td><td>{_e(r.get("total"))}</td></tr>'
                     + (f'<tr><td>declared</td><td>{_e(e["declared"].get("points"))} (line {_e(e["declared"].get("line"))})</td></tr>'
                        if e.get("declared") else "")
                     + "</table>")
    ctx = {k: val for k, val in e["hand"].items() if k not in ("concealed", "win_tile", "melds")}
    parts.append(f'<p class="small">context: <code>{_e(ctx)}</code></p>')
    if uri:
        parts.append(f'<img class="frame" src="{uri}" alt="annotated best frame">')
    parts.append("</div>")
    return "".join(parts)
