"""The whole reading path on rendered photos, with oracle models.

`OracleDetector` returns the renderer's boxes and `OracleClassifier` the renderer's classes, so
what is tested here is everything of ours between the models: row finding at any photo
rotation, deskewing (incl. the second detection on a turned photo), sideways decisions, the
owner's side from upright faces, layout, reading. Errors here are ours, not the models'.
"""
from __future__ import annotations

import functools
import math
import os
import pickle
import random
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from vision.classes import BACK, CLASS_INDEX, TILE_CLASSES
from vision.pipeline import PhotoReader
from vision.sequence import compare

scene = pytest.importorskip("tsumo_synth.scene")


class OracleDetector:
    def __init__(self, labels, jitter: float = 0.0, seed: int = 0):
        self.labels = labels
        self.rng = np.random.default_rng(seed)
        self.jitter = jitter

    def _box(self, b):
        if not self.jitter:
            return b
        w, h = b[2] - b[0], b[3] - b[1]
        d = self.rng.normal(0, self.jitter, 4) * np.array([w, h, w, h])
        return tuple(np.array(b) + d)

    def detect(self, image):
        return [SimpleNamespace(x1=b[0], y1=b[1], x2=b[2], y2=b[3], score=0.9)
                for b in (self._box(t.box) for t in self.labels.tiles)]

    def detect_turned(self, image, frame):
        """Boxes a detector would find on the photo turned into `frame`: a detector boxes a
        tile's visible part, axis-aligned in the image it is given, so the box is that of the
        tile's visible pixels (their convex hull, from the renderer) turned into the frame.
        Labels without hulls (older renders): a flat tile's visible part is about its face
        quad; a standing tile also shows its top, so its photo box is taken back into the frame
        (`Frame.boxes_to_frame`), widened to hold the face quad."""
        boxes = []
        for t in self.labels.tiles:
            hull = getattr(t, "hull", None)
            if hull:
                q = frame.to_frame(np.array(hull, float))
                boxes.append(self._box((*q.min(0), *q.max(0))))
                continue
            q = frame.to_frame(np.array(t.quad))
            lo, hi = q.min(0), q.max(0)
            if t.standing:
                fb = frame.boxes_to_frame(np.array([t.box]))[0]
                lo, hi = np.minimum(lo, fb[:2]), np.maximum(hi, fb[2:])
            boxes.append(self._box((lo[0], lo[1], hi[0], hi[1])))
        return np.array(boxes, float).reshape(-1, 4), np.full(len(boxes), 0.9)


class OracleClassifier:
    def __init__(self, labels, p_true: float = 0.97):
        self.labels = labels
        self.p_true = p_true

    def classify_tiles(self, image, frame, frame_boxes, sideways):
        probs = np.zeros((len(frame_boxes), len(TILE_CLASSES)), np.float32)
        flips = np.zeros((len(frame_boxes), 2), np.float32)
        box_c = np.array([((t.box[0] + t.box[2]) / 2, (t.box[1] + t.box[3]) / 2) for t in self.labels.tiles])
        quad_c = np.array([np.mean(t.quad, axis=0) for t in self.labels.tiles])
        for n, fb in enumerate(frame_boxes):
            c = frame.to_photo(np.array([[(fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2]]))[0]
            d = np.minimum(np.hypot(*(box_c - c).T), np.hypot(*(quad_c - c).T))
            t = self.labels.tiles[int(np.argmin(d))]
            # a crop turned the wrong way (sideways vs upright) reads poorly
            p_true = self.p_true if bool(sideways[n]) == t.sideways or t.cls == BACK else 0.3
            probs[n, :] = (1 - p_true) / (len(TILE_CLASSES) - 1)
            probs[n, CLASS_INDEX[t.cls]] = p_true
            # the face's up in the frame, from its quad (top-left, top-right, bottom-right, bottom-left)
            q = frame.to_frame(np.array(t.quad))
            up = (q[0] + q[1]) / 2 - (q[3] + q[2]) / 2
            ang = math.atan2(up[0], -up[1])  # clockwise from the frame's up
            flipped = math.sin(ang) > 0 if sideways[n] else math.cos(ang) < 0
            flips[n] = (0.05, 0.95) if flipped and t.cls != BACK else (0.95, 0.05)
        return probs, flips


@functools.cache
def faces():
    """The renderer's default faces, painted once per process. A face variant is the same picture
    whichever pool paints it (`FacePool`), so photos are byte-identical to a fresh pool's, but a
    fresh pool per photo repaints its faces: 1.3 s a photo instead of 0.3 s."""
    return scene.default_face_source()


def render(seed: int, **options):
    rng = np.random.default_rng(seed)
    players = options.pop("players", 4)
    spec = scene.random_scene_hand(rng, players=players)
    image, labels = scene.render_hand_photo(spec.sequence, rng, players=players, artist=faces(), **options)
    return image, labels


def readable(labels) -> bool:
    """Every hand tile shows what the sequence says (standing tiles seen from across show
    their backs: no reader can tell those faces) and is mostly visible."""
    faces = [t for g in labels.sequence.split("|") for t in g.split()]
    hand = labels.hand_tiles
    return len(hand) == len(faces) and all(
        (t.cls == "back") == tok.startswith("x") and t.visible >= 0.5 for t, tok in zip(hand, faces))


def read_rendered(seed: int, jitter: float = 0.0, **options):
    image, labels = render(seed, **options)
    reader = PhotoReader(detector=OracleDetector(labels, jitter, seed), classifier=OracleClassifier(labels))
    return reader.read(image, players=labels.players), labels


SMALL = (960, 720)  # rendered photo size for these tests (rendering dominates their time)
MEASURED_FLOOR = 0.97  # exact share the 500-photo set must keep (target 0.98, see test_rendered_set_500)


@pytest.mark.parametrize("seed", range(4))
def test_rendered_photo_reads_exactly(seed):
    reading, labels = read_rendered(1000 + seed, size=SMALL)
    assert reading.sequence == labels.sequence, labels.camera


@pytest.mark.parametrize("roll", [0, 90, 180, 270, 35, -60])
def test_photo_rotation_does_not_matter(roll):
    """Flat tiles, so that only the photo's rotation varies (standing tiles seen from a low
    angle can hide the drawn tile's gap: that is measured in the rendered sets)."""
    reading, labels = read_rendered(2000 + roll % 360, roll_deg=float(roll), standing=False, size=SMALL)
    assert reading.sequence == labels.sequence


def test_seen_from_across():
    reading, labels = read_rendered(3001, azimuth_deg=180.0, standing=False, size=SMALL)
    assert reading.sequence == labels.sequence


def test_three_player_with_nuki():
    seq = "1p 2p 3p 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z | 4z 4z"
    image, labels = scene.render_hand_photo(seq, np.random.default_rng(4000), players=3, size=SMALL, artist=faces(),
                                            standing=False)
    reader = PhotoReader(detector=OracleDetector(labels), classifier=OracleClassifier(labels))
    reading = reader.read(image, players=3)
    assert reading.sequence == seq
    assert reading.hand["nukidora"] == 2


def cached_render(seed: int, **kw):
    """`render(seed, **kw)`, or None when it is not readable; read from
    `$TSUMO_ORACLE_CACHE/<seed>.pkl` when that file exists, written there when the variable is
    set (rendering dominates these tests' time: a cache makes trying a change on 500 photos take
    seconds). The cache is keyed by seed only: clear it when the renderer or `kw` change."""
    folder = os.environ.get("TSUMO_ORACLE_CACHE")
    path = Path(folder) / f"{seed}.pkl" if folder else None
    if path is not None and path.is_file():
        return pickle.loads(path.read_bytes())
    try:
        image, labels = render(seed, **kw)
        out = (image, labels) if readable(labels) else None
    except ValueError:  # the generator could not draw this seed's hand
        out = None
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(out, protocol=4))
    return out


def judge(seed: int, kw: dict) -> tuple[str, tuple | None]:
    """("skipped" | "exact" | "miss", the miss) for one seed's render read with a jittered oracle."""
    rendered = cached_render(seed, **kw)
    if rendered is None:
        return "skipped", None
    image, labels = rendered
    reader = PhotoReader(detector=OracleDetector(labels, 0.03, seed), classifier=OracleClassifier(labels))
    reading = reader.read(image, players=labels.players)
    if reading.sequence == labels.sequence:
        return "exact", None
    return "miss", (seed, reading.sequence, labels.sequence, labels.camera)


def exact_share(seeds, n: int, processes: int = 1, **kw) -> tuple[float, list, int]:
    """Share of the first `n` readable rendered photos of `seeds` read exactly, the misses, and
    photos skipped. With `processes` > 1 the seeds are judged in that many fresh processes and
    taken in seed order, so the result is the serial one (rendering dominates: 0.3 s a photo)."""
    misses, done, skipped = [], 0, 0
    judge_seed = functools.partial(judge, kw=kw)
    pool = ProcessPoolExecutor(processes, mp_context=get_context("spawn")) if processes > 1 else None
    try:
        results = pool.map(judge_seed, seeds, chunksize=4) if pool else map(judge_seed, seeds)
        for status, miss in results:
            if done == n:
                break
            if status == "skipped":
                skipped += 1
                continue
            done += 1
            if miss is not None:
                misses.append(miss)
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    assert done == n, f"only {done} readable photos rendered"
    return 1 - len(misses) / n, misses, skipped


def test_rendered_set_small():
    share, misses, _ = exact_share(range(5000, 5100), 5, size=SMALL)
    assert share >= 4 / 5, misses[:5]


def test_rendered_set_in_processes_is_the_serial_one():
    """The large sets are judged in several processes; they must count what one process counts.
    These seeds of the 500-photo set start with a render no reader could read (skipped) and, with
    this session's reader, hold two misses (900033, 900035)."""
    serial = exact_share(range(900_028, 900_100), 7, 1, size=SMALL)
    parallel = exact_share(range(900_028, 900_100), 7, 2, size=SMALL)
    assert serial[2] == 1
    assert parallel[0] == serial[0] and parallel[2] == serial[2]
    assert [m[:3] for m in parallel[1]] == [m[:3] for m in serial[1]]


@pytest.mark.slow
def test_rendered_set_500(processes):
    """500 readable rendered photos (960×720) from held-out seeds, boxes jittered like a
    detector's (3 % of their size)."""
    share, misses, skipped = exact_share(range(900_000, 901_000), 500, processes, size=SMALL)
    print(f"exact {share:.3f}, skipped {skipped}")
    # The issue's target is 98 %; measured 97.4 % on these 500 at the end of session 5 (97.6 % at
    # its second checkpoint, 96.6 % at its start and at the end of session 4, 94.4 % at the end of
    # session 3; docs/vision.md). This floor guards against regressions; raise it as reading improves.
    assert share >= MEASURED_FLOOR, (share, misses[:10])


@pytest.mark.slow
def test_issue_target_on_the_pre_registered_held_out_set(processes):
    """Issue #4's target, 98 % exact, on the held-out set pre-registered for it in session 6
    before any change of that session: the first 1 000 readable renders of seeds 970000+ (same
    options as above), read once with the session's final code: 98.2 % (982/1000). With the
    same code the other two held-out sets read 97.4 % (the 500 above) and 98.3 % (1 000 of seeds
    950000+): 98.1 % of the 2 500 together (docs/vision.md)."""
    share, misses, skipped = exact_share(range(970_000, 972_000), 1000, processes, size=SMALL)
    print(f"exact {share:.3f}, skipped {skipped}")
    assert share >= 0.98, (share, misses[:10])


class _Nothing:
    def detect(self, image):
        return []

    def classify(self, crops):
        raise AssertionError("nothing to classify")


def test_reader_refuses_bad_arrays_and_reads_empty_photos():
    reader = PhotoReader(detector=_Nothing(), classifier=_Nothing())
    for bad in (np.zeros((10, 10), np.uint8), np.zeros((10, 10, 4), np.uint8), np.zeros((10, 10, 3), np.float32), "x.jpg"):
        with pytest.raises(ValueError):
            reader.read(bad)
    with pytest.raises(ValueError):
        reader.read(np.zeros((10, 10, 3), np.uint8), players=5)
    reading = reader.read(np.zeros((480, 640, 3), np.uint8))
    assert reading.hand is None and reading.error_code == "no_tiles" and reading.tiles == []
    assert reading.to_json()["image"] == {"width": 640, "height": 480}


@pytest.mark.parametrize("seq", [
    "1z | 1z | 2m- 3m 4m | 7z 7z- 7z | x 3p 3p x | 9m 9m 9m- 9m=",  # chi, pon, ankan (ends), kakan from right
    "5p | 5p | 2z 2z- 2z 2z | 3s x x 3s | 9m- 9m= 9m 9m | 7s- 8s 9s",  # minkan across, ankan (middle), kakan left
    "2m 3m 4m 6p 7p 8p 1z 1z 5s 5s | 5s | 2z 2z 2z 2z-",  # minkan from the right
])
def test_rendered_meld_kinds(seq):
    """Every meld kind and call direction, rendered by the scene generator (flat, level photo).
    (The seed is fixed; the drawn tile's gap is drawn at random and can be too narrow to see,
    which the random sets measure.)"""
    image, labels = scene.render_hand_photo(seq, np.random.default_rng(7), size=SMALL, artist=faces(), standing=False,
                                            roll_deg=0.0, azimuth_deg=0.0, elevation_deg=70.0)
    reader = PhotoReader(detector=OracleDetector(labels, 0.03, 1), classifier=OracleClassifier(labels))
    reading = reader.read(image)
    assert reading.sequence == seq
    assert reading.hand is not None


def test_reader_detects_again_on_the_turned_photo():
    """A row tilted by more than 10°: the detector is asked again, about the turned copy (the
    reader remembers its answer for the photo only, not for any image)."""
    image, labels = render(2035, roll_deg=35.0, standing=False, size=SMALL)
    oracle = OracleDetector(labels)
    seen = []

    class PhotoOnly:  # a detector without the oracle's `detect_turned` seam
        def detect(self, img):
            seen.append(img.shape)
            return oracle.detect(img) if len(seen) == 1 else []

    PhotoReader(detector=PhotoOnly(), classifier=OracleClassifier(labels)).read(image)
    assert len(seen) == 2 and seen[0] == image.shape and seen[1] != image.shape


class BacksReadAs5z(OracleClassifier):
    """Face-down tiles read as white dragons (a light-backed set: what the audit saw)."""

    def classify_tiles(self, *args):
        probs, flips = super().classify_tiles(*args)
        b, w = CLASS_INDEX[BACK], CLASS_INDEX["5z"]
        hit = probs[:, b] > 0.5
        probs[hit, w], probs[hit, b] = probs[hit, b], probs[hit, w]
        return probs, flips


def test_a_wall_read_as_white_dragons_is_not_the_hand():
    """More tiles of one face than a set holds (four) are no hand's: the wall beside this hand,
    its backs read as 5z, does not win the row."""
    image, labels = render(800026, size=SMALL)
    reading = PhotoReader(detector=OracleDetector(labels, 0.03, 1), classifier=BacksReadAs5z(labels)).read(image)
    assert reading.sequence == labels.sequence
