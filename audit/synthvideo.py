"""Generated game footage with known hands, for testing and measuring `tsumo audit`.

Each win is one *scene* rendered by tsumo_synth's scene renderer twice with the same seed —
the hand face down and face up, so the geometry is identical — plus the empty table (the hand
inpainted away). Frames are composed from these pictures tile by tile, then filmed by a
hand-held camera:

    empty table → tiles put down face down, group by group ("appear") → the camera pans
    ("move") → tiles turned face up left to right ("revealed") → held, with shake and a blur
    burst → tiles taken away group by group ("cleared") → empty table

Some scenes are *decoys*: a 13-tile tenpai hand shown face up at an exhaustive draw, which is
not a win and must not become an event. The video (mp4v, 720p by default), `truth.json` (every
win's time span, sequence, §1 hand and score) and `declared.csv` (the right declared points)
are written to a folder; `cached_video` reuses it when the spec is unchanged.

    python -m audit.synthvideo --events 12 --minutes 10.2 --seed 7 --out cache/audit/long
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
VERSION = 4  # bump when the footage changes, so caches are rebuilt
# The scene renderer's modules: footage made with other tile faces or tables is other footage
# (CI renders afresh; a cached video must not silently test yesterday's faces).
RENDERER_MODULES = ("tsumo_synth.faces", "tsumo_synth.fonts", "tsumo_synth.layouts", "tsumo_synth.scene",
                    "tsumo_synth.tables", "tsumo_synth.tiles")


def renderer_digest() -> str:
    """A hash of the renderer's source files (read, not imported)."""
    import importlib.util

    h = hashlib.sha256()
    for name in RENDERER_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            raise RuntimeError(f"the scene renderer module {name} is not importable (datasets/ on the path?)")
        h.update(name.encode() + b"\0" + Path(spec.origin).read_bytes())
    return h.hexdigest()[:12]


# The longest a scene's plan (`_plan`) can take: appear ≤ 6 s, reveal ≤ 10, revealed ≤ 1.6, held ≤ 9 + 3,
# then 6 s of empty table.
MIN_SCENE_S = 6 + 10 + 1.6 + 12 + 6


@dataclass(frozen=True)
class SynthSpec:
    seed: int = 7
    events: int = 12
    decoys: int = 2
    duration_s: float = 612.0
    size: tuple[int, int] = (1280, 720)
    fps: float = 30.0
    rules: str = "tenhou"

    def __post_init__(self) -> None:
        scenes = self.events + self.decoys
        if self.events < 0 or self.decoys < 0 or scenes == 0:
            raise ValueError("events and decoys: at least one scene, none negative")
        if self.fps <= 0:
            raise ValueError(f"fps must be > 0, got {self.fps}")
        if self.duration_s < scenes * MIN_SCENE_S:
            raise ValueError(f"{self.duration_s / 60:g} minutes is too short for {scenes} scenes: each needs "
                             f"{MIN_SCENE_S:.0f} s (give at least {scenes * MIN_SCENE_S / 60:.1f} minutes)")

    def digest(self) -> str:
        key = {**asdict(self), "v": VERSION, "renderer": renderer_digest()}
        return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]


@dataclass
class Scene:
    """One hand on one table: the three pictures and where each hand tile is."""

    kind: str                           # "win" | "decoy"
    sequence: str
    hand: dict | None                   # §1 (with context) for a win
    up: np.ndarray                      # face up (canvas size)
    down: np.ndarray                    # face down, same geometry
    empty: np.ndarray                   # the table without the hand
    tiles: list[tuple[int, int, int, int]]  # per hand tile (sequence order): box on the canvas, padded
    groups: list[int]                   # group of each tile
    hand_box: tuple[int, int, int, int]  # all hand tiles


@dataclass
class Segment:
    """When a scene is on screen and when its tiles change."""

    scene: Scene
    start: float
    appear: float      # first tile put down (face down)
    reveal: float      # first tile turned face up
    revealed: float    # last tile face up
    clear: float       # first group taken away
    end: float
    pan: list[tuple[float, float, float]] = field(default_factory=list)  # (t, x, y) keyframes of the camera window
    blur_at: float | None = None


# --- scenes -----------------------------------------------------------------------------------

def _face_down(sequence: str) -> str:
    out = []
    for tok in sequence.split():
        if tok == "|":
            out.append(tok)
        else:
            out.append("x" + "".join(c for c in tok if c in "-="))
    return " ".join(out)


def _draw_win(rng: np.random.Generator) -> tuple[str, dict]:
    """A random legal, scoreable winning hand whose winning tile lies apart (so a photo shows it)."""
    from tsumo_synth.scene import random_scene_hand

    for _ in range(200):
        spec = random_scene_hand(rng)
        groups = [g.split() for g in spec.sequence.split("|")]
        if (len(groups) >= 2 and len(groups[1]) == 1 and groups[1][0] == spec.hand["win_tile"]
                and spec.result is not None and not spec.result.get("error")):
            return spec.sequence, dict(spec.hand)
    raise RuntimeError("could not draw a winning hand with its tile apart")


def _draw_tenpai(rng: np.random.Generator) -> str:
    """A winning hand without its winning tile: 13 tiles shown at a draw — not a win."""
    seq, _ = _draw_win(rng)
    groups = [g.strip() for g in seq.split("|")]
    return " | ".join([groups[0]] + groups[2:])


def _inpaint(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Fill `mask` with table: inpaint at a quarter size (the felt is smooth at large scale), then
    put back fine texture copied from the quietest stretch of table elsewhere in the picture."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    small_mask = cv2.dilate(cv2.resize(mask, (w // 4, h // 4), interpolation=cv2.INTER_NEAREST), np.ones((3, 3), np.uint8))
    filled = cv2.resize(cv2.inpaint(small, small_mask, 5, cv2.INPAINT_TELEA), (w, h), interpolation=cv2.INTER_CUBIC)
    detail = image.astype(np.int16) - cv2.GaussianBlur(image, (0, 0), 4).astype(np.int16)
    energy = np.abs(detail).sum(axis=2).astype(np.float32)
    inside = mask > 0
    best, best_cost = None, None
    for fx in (-2 / 3, -1 / 2, -1 / 3, 0, 1 / 3, 1 / 2, 2 / 3):
        for fy in (-1 / 2, -1 / 3, 0, 1 / 3, 1 / 2):
            if fx == 0 and fy == 0:
                continue
            shift = (int(fy * h), int(fx * w))
            src_inside = np.roll(inside, shift, axis=(0, 1))  # where the copied texture comes from
            cost = float(energy[np.roll(inside, (-shift[0], -shift[1]), axis=(0, 1))].mean())
            cost += 1e6 * float((src_inside & inside).mean())
            if best_cost is None or cost < best_cost:
                best, best_cost = shift, cost
    texture = np.clip(np.roll(detail, best, axis=(0, 1)), -8, 8)
    filled = np.clip(filled.astype(np.int16) + texture, 0, 255).astype(np.uint8)
    return np.where(inside[..., None], filled, image)


def _render_scene(kind: str, sequence: str, hand: dict | None, rng: np.random.Generator,
                  canvas: tuple[int, int], window: tuple[int, int], artist) -> Scene | None:
    from tsumo_synth.scene import render_hand_photo

    seed = int(rng.integers(1 << 31))
    flip = rng.random() < 0.25  # seen from across the table: the hand upside down
    opts = dict(size=canvas, effects=False, fingers=False, distractors=True, standing=False,
                azimuth_deg=float(rng.normal(180 if flip else 0, 12)),
                elevation_deg=float(rng.uniform(50, 85)), roll_deg=float(rng.normal(0, 8)),
                hand_fraction=float(rng.uniform(0.55, 0.68)))
    up, labels = render_hand_photo(sequence, np.random.default_rng(seed), artist=artist, **opts)
    down, labels_down = render_hand_photo(_face_down(sequence), np.random.default_rng(seed), artist=artist, **opts)
    hand_tiles = labels.hand_tiles
    if len(hand_tiles) != len(labels_down.hand_tiles) or not hand_tiles:
        return None
    h, w = up.shape[:2]
    boxes, groups = [], []
    for t in hand_tiles:
        x1, y1, x2, y2 = t.box
        boxes.append((max(0, int(x1) - 5), max(0, int(y1) - 5), min(w, int(math.ceil(x2)) + 5), min(h, int(math.ceil(y2)) + 5)))
        groups.append(t.group)
    hx1 = min(b[0] for b in boxes)
    hy1 = min(b[1] for b in boxes)
    hx2 = max(b[2] for b in boxes)
    hy2 = max(b[3] for b in boxes)
    if hx2 - hx1 > window[0] - 120 or hy2 - hy1 > window[1] - 80:
        return None  # the hand would not fit the camera window with room to move
    if max(0, hx2 + 40 - window[0]) > min(w - window[0], hx1 - 40) or \
            max(0, hy2 + 30 - window[1]) > min(h - window[1], hy1 - 30):
        return None  # too close to the edge: no camera window holds it with a margin
    mask = np.zeros((h, w), np.uint8)
    for x1, y1, x2, y2 in boxes:
        mask[y1:y2, x1:x2] = 255
    mask = cv2.dilate(mask, np.ones((25, 25), np.uint8))
    empty = _inpaint(up, mask)
    # The hand's shadows reach past its boxes: take away what is darker than the table around it.
    band = cv2.dilate(mask, np.ones((121, 121), np.uint8)) > 0
    gray_up = cv2.cvtColor(up, cv2.COLOR_RGB2GRAY).astype(np.int16)
    gray_empty = cv2.cvtColor(empty, cv2.COLOR_RGB2GRAY).astype(np.int16)
    shadow = (band & (gray_up < gray_empty - 6)).astype(np.uint8) * 255
    mask = cv2.bitwise_or(mask, cv2.dilate(shadow, np.ones((7, 7), np.uint8)))
    empty = _inpaint(up, mask)
    return Scene(kind, sequence, hand, up, down, empty, boxes, groups, (hx1, hy1, hx2, hy2))


# --- the film ---------------------------------------------------------------------------------

class Film:
    """Composes the frame at time t: scene pictures by tile state, then the hand-held camera."""

    def __init__(self, segments: list[Segment], spec: SynthSpec, canvas: tuple[int, int], rng: np.random.Generator):
        self.segments = segments
        self.spec = spec
        self.canvas = canvas
        self._cache_key = None
        self._cache_img = None
        # a smooth hand-held shake: a few sinusoids per axis (pixels, degrees)
        self.shake = [(rng.uniform(0.2, 1.6), rng.uniform(0, 2 * math.pi), rng.uniform(0.6, 1.6)) for _ in range(9)]
        self.flicker = (rng.uniform(0.1, 0.4), rng.uniform(0, 6.28))

    def _segment(self, t: float) -> Segment:
        for s in self.segments:
            if s.start <= t < s.end:
                return s
        return self.segments[-1]

    @staticmethod
    def _states(s: Segment, t: float) -> tuple:
        """Per hand tile: 0 absent, 1 face down, 2 face up."""
        sc = s.scene
        n = len(sc.tiles)
        ngroups = max(sc.groups) + 1
        out = []
        for i in range(n):
            g = sc.groups[i]
            put = s.appear + 0.9 * g                       # groups are put down one after another
            gone = s.clear + 0.7 * (ngroups - 1 - g)        # and taken away from the last one
            turn = s.reveal + (s.revealed - s.reveal) * i / max(1, n - 1)
            if t < put or t >= gone:
                out.append(0)
            elif t >= turn:
                out.append(2)
            else:
                out.append(1)
        return tuple(out)

    def _picture(self, s: Segment, t: float) -> np.ndarray:
        states = self._states(s, t)
        key = (id(s), states)
        if key == self._cache_key:
            return self._cache_img
        sc = s.scene
        if all(st == 2 for st in states):
            return sc.up  # the whole render, shadows and all
        if all(st == 1 for st in states):
            return sc.down
        img = sc.empty.copy()
        for box, st in zip(sc.tiles, states):  # draw in sequence order; boxes of neighbours overlap a little
            if st:
                x1, y1, x2, y2 = box
                img[y1:y2, x1:x2] = (sc.up if st == 2 else sc.down)[y1:y2, x1:x2]
        self._cache_key, self._cache_img = key, img
        return img

    def _window(self, s: Segment, t: float) -> tuple[float, float, float]:
        """Top-left of the camera window and its speed (px/s) at t: eased moves between keyframes."""
        pts = s.pan
        if t <= pts[0][0]:
            return pts[0][1], pts[0][2], 0.0
        for (t0, x0, y0), (t1, x1, y1) in zip(pts, pts[1:]):
            if t0 <= t < t1:
                u = (t - t0) / (t1 - t0)
                e = u * u * (3 - 2 * u)
                de = 6 * u * (1 - u) / (t1 - t0)
                return x0 + (x1 - x0) * e, y0 + (y1 - y0) * e, math.hypot(x1 - x0, y1 - y0) * de
        return pts[-1][1], pts[-1][2], 0.0

    def frame(self, t: float, i: int) -> np.ndarray:
        s = self._segment(t)
        pic = self._picture(s, t)
        wx, wy, speed = self._window(s, t)
        W, H = self.spec.size
        dx = sum(a * math.sin(2 * math.pi * f * t + p) for a, p, f in self.shake[0:3]) * 1.6
        dy = sum(a * math.sin(2 * math.pi * f * t + p) for a, p, f in self.shake[3:6]) * 1.6
        rot = sum(a * math.sin(2 * math.pi * f * t + p) for a, p, f in self.shake[6:9]) * 0.12
        cx, cy = wx + W / 2 + dx, wy + H / 2 + dy
        M = cv2.getRotationMatrix2D((cx, cy), rot, 1.0)
        M[0, 2] -= cx - W / 2
        M[1, 2] -= cy - H / 2
        out = cv2.warpAffine(pic, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        blur = speed / self.spec.fps  # pixels moved during one frame
        if s.blur_at is not None and s.blur_at <= t < s.blur_at + 0.45:
            blur = max(blur, 28.0)      # a knock on the table / the camera jerked
        if blur >= 2.0:
            k = int(min(blur, 40))
            kernel = np.zeros((k, k), np.float32)
            kernel[k // 2, :] = 1.0 / k
            out = cv2.filter2D(out, -1, kernel)
        gain = 1.0 + 0.03 * math.sin(2 * math.pi * self.flicker[0] * t + self.flicker[1])
        return cv2.convertScaleAbs(out, alpha=gain)  # the light flickers (mp4v adds the noise)


def _plan(scenes: list[Scene], spec: SynthSpec, rng: np.random.Generator, canvas: tuple[int, int]) -> list[Segment]:
    W, H = spec.size
    slot = spec.duration_s / len(scenes)
    segs = []
    for k, sc in enumerate(scenes):
        start = k * slot
        end = (k + 1) * slot if k < len(scenes) - 1 else spec.duration_s
        hold = 9.0 if sc.kind == "win" else 6.0
        appear = start + rng.uniform(3, 6)
        reveal = appear + 3.0 + rng.uniform(4, 7)
        revealed = reveal + rng.uniform(0.8, 1.6)
        clear = revealed + hold + rng.uniform(0, 3)
        assert clear + 6 < end, "segment too short for its scene"
        hx1, hy1, hx2, hy2 = sc.hand_box
        cw, ch = canvas

        def spot():  # a window that holds the whole hand with a margin
            lo_x, hi_x = max(0, hx2 + 40 - W), min(cw - W, hx1 - 40)
            lo_y, hi_y = max(0, hy2 + 30 - H), min(ch - H, hy1 - 30)
            return (float(rng.uniform(lo_x, max(lo_x, hi_x))), float(rng.uniform(lo_y, max(lo_y, hi_y))))

        p0, p1, p2 = spot(), spot(), spot()
        move = appear + 3.0 + rng.uniform(0, 2)
        pan = [(start, *p0), (move, *p0), (move + rng.uniform(1.5, 3.0), *p1), (clear + 1.0, *p1),
               (clear + 2.5, *p2)]
        blur_at = float(rng.uniform(revealed + 2.0, revealed + hold - 2.0)) if sc.kind == "win" else None
        segs.append(Segment(sc, start, appear, reveal, revealed, clear, end, pan, blur_at))
    return segs


@dataclass(frozen=True)
class SynthVideo:
    folder: Path
    video: Path
    truth: Path
    declared: Path

    def load_truth(self) -> dict:
        return json.loads(self.truth.read_text())


def make_video(spec: SynthSpec, out_dir: Path, *, shared_dir: Path = SHARED, log=None) -> SynthVideo:
    """Render the scenes, film them, write video.mp4, truth.json and declared.csv into out_dir."""
    from scoring import score_json
    from tsumo_synth.scene import default_face_source

    log = log or (lambda msg: None)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(spec.seed)
    W, H = spec.size
    canvas = (W + W // 4, H + H // 4)
    artist = default_face_source(shared_dir, seed=spec.seed)
    kinds = ["win"] * spec.events
    for j in range(spec.decoys):  # decoys spread between the wins
        kinds.insert(round((j + 1) * (len(kinds) + 1) / (spec.decoys + 1)), "decoy")
    scenes: list[Scene] = []
    t0 = time.monotonic()
    for kind in kinds:
        for _ in range(20):
            if kind == "win":
                seq, hand = _draw_win(rng)
                hand = {**hand, "rules": spec.rules, "honba": int(rng.choice([0, 0, 1, 2])),
                        "dora_indicators": [str(rng.choice(["1m", "4p", "7s", "2z", "9m", "5s"]))]}
            else:
                seq, hand = _draw_tenpai(rng), None
            sc = _render_scene(kind, seq, hand, rng, canvas, spec.size, artist)
            if sc is not None:
                scenes.append(sc)
                break
        else:
            raise RuntimeError("could not render a scene that fits the frame")
        log(f"scene {len(scenes)}/{len(kinds)} rendered ({time.monotonic() - t0:.0f} s)")
    segments = _plan(scenes, spec, rng, canvas)
    film = Film(segments, spec, canvas, rng)
    video = out_dir / "video.mp4"
    tmp = out_dir / "video.tmp.mp4"
    writer = cv2.VideoWriter(str(tmp), cv2.VideoWriter_fourcc(*"mp4v"), spec.fps, spec.size)
    if not writer.isOpened():
        raise RuntimeError("OpenCV cannot write mp4v video here")
    n = int(round(spec.duration_s * spec.fps))
    for i in range(n):
        writer.write(cv2.cvtColor(film.frame(i / spec.fps, i), cv2.COLOR_RGB2BGR))
        if i % int(spec.fps * 60) == 0:
            log(f"filmed {i / spec.fps / 60:.0f} of {spec.duration_s / 60:.1f} min ({time.monotonic() - t0:.0f} s)")
    writer.release()
    tmp.replace(video)

    wins, decoys = [], []
    for s in segments:
        span = {"start_s": round(s.revealed, 3), "end_s": round(s.clear, 3),
                "appear_s": round(s.appear, 3), "reveal_s": round(s.reveal, 3), "sequence": s.scene.sequence}
        if s.scene.kind == "win":
            wins.append({**span, "hand": s.scene.hand, "result": score_json(dict(s.scene.hand)),
                         "blur_s": round(s.blur_at, 3)})
        else:
            decoys.append(span)
    truth = {"spec": asdict(spec), "digest": spec.digest(), "events": wins, "decoys": decoys}
    (out_dir / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False))
    _write_declared(out_dir / "declared.csv", wins)
    (out_dir / "spec.digest").write_text(spec.digest())
    return SynthVideo(out_dir, video, out_dir / "truth.json", out_dir / "declared.csv")


def _write_declared(path: Path, wins: list[dict]) -> None:
    cols = ["time", "win", "round", "seat", "dora", "riichi", "honba", "discarder", "rules", "points"]
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for e in wins:
            h = e["hand"]
            t = (e["start_s"] + e["end_s"]) / 2
            w.writerow([f"{int(t // 60)}:{t % 60:04.1f}", h.get("win", "ron"), h.get("round_wind", "E"),
                        h.get("seat_wind", "E"), " ".join(h.get("dora_indicators", [])),
                        "yes" if h.get("riichi") else "no", h.get("honba", 0), h.get("discarder", ""),
                        h.get("rules", "tenhou"), e["result"]["points"]])


def cached_video(spec: SynthSpec, cache_dir: Path | None = None, *, shared_dir: Path = SHARED, log=None) -> SynthVideo:
    """The video for `spec` under cache/audit/, made once (reproducible from the seed)."""
    folder = Path(cache_dir or REPO / "cache" / "audit") / f"synth-{spec.digest()}"
    done = folder / "spec.digest"
    if done.exists() and done.read_text() == spec.digest() and (folder / "video.mp4").exists():
        return SynthVideo(folder, folder / "video.mp4", folder / "truth.json", folder / "declared.csv")
    return make_video(spec, folder, shared_dir=shared_dir, log=log)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m audit.synthvideo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=12)
    ap.add_argument("--decoys", type=int, default=2)
    ap.add_argument("--minutes", type=float, default=10.2)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--out", type=Path, help="folder (default: the cache folder for this spec)")
    a = ap.parse_args(argv)
    try:
        spec = SynthSpec(seed=a.seed, events=a.events, decoys=a.decoys, duration_s=a.minutes * 60, fps=a.fps)
    except ValueError as exc:
        ap.error(str(exc))
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    sv = make_video(spec, a.out, log=log) if a.out else cached_video(spec, log=log)
    print(sv.folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
