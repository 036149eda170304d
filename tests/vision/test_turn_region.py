"""tsumo_synth.closer: training views cut as the reader's second detection sees them (the hand's
neighbourhood turned level through `vision.frame.turned_view`), with every tile's box."""
from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from tsumo_synth import photos
from tsumo_synth.closer import closer_view, keep_inside, reader_angle, row_tiles, write_closer_views
from tsumo_synth.scene import default_face_source
from vision.frame import Frame

SEED = 1313  # a training-side seed (never a held-out one); photos 0..5 at 640×480
# photo number -> labelled row angle (deg, reader's convention): level, tilted either way, steep
PHOTOS = (0, 1, 3, 4, 5)


@pytest.fixture(scope="module")
def rendered(shared_dir):
    faces = default_face_source(shared_dir, seed=0)
    out = {}
    for i in PHOTOS:
        img, labels = photos.render_one(i, SEED, artist=faces, size=(640, 480))
        out[i] = (img, labels.to_json())
    return out


def _hand_boxes(row: dict, boxes: np.ndarray, kept: np.ndarray) -> np.ndarray:
    ids = {id(t) for t in row_tiles(row["tiles"])}
    return np.array([b for t, b, k in zip(row["tiles"], boxes, kept) if k and id(t) in ids]).reshape(-1, 4)


def test_reader_angle_folds_into_row_angle_range(rendered):
    angles = [reader_angle(rendered[i][1]["tiles"]) for i in PHOTOS]
    assert all(-90 < a <= 90 for a in angles)
    assert max(abs(a) for a in angles) > 30  # the set holds steep rows, so the sign matters below


@pytest.mark.parametrize("i", PHOTOS)
def test_turned_row_is_level(rendered, i):
    """The frame's sign is the reader's: in the view the row's box centres lie on one level line
    (with the opposite sign a tilted row would lean by twice its angle)."""
    img, row = rendered[i]
    view, frame, boxes, kept = closer_view(img, row, np.random.default_rng(0))
    hb = _hand_boxes(row, boxes, kept)
    assert len(hb) >= 3
    cy = (hb[:, 1] + hb[:, 3]) / 2
    height = float(np.median(hb[:, 3] - hb[:, 1]))
    assert np.ptp(cy) < 0.35 * height
    assert frame.angle == pytest.approx(-reader_angle(row["tiles"]))
    if abs(reader_angle(row["tiles"])) > 10:  # the wrong sign would not be level
        wrong = Frame(-frame.angle, frame.centre)
        c = np.array([[(t["box"][0] + t["box"][2]) / 2, (t["box"][1] + t["box"][3]) / 2] for t in row_tiles(row["tiles"])])
        wy = wrong.to_frame(c)[:, 1]
        assert np.ptp(wy) * view.scale > 2 * np.ptp(cy)


@pytest.mark.parametrize("i", PHOTOS)
def test_hand_boxes_cover_the_tiles(rendered, i):
    """The mapped boxes lie on the tiles: their pixels (ivory faces and backs) differ from the same
    boxes moved two tile heights off the row (table), and most of them are kept."""
    img, row = rendered[i]
    view, frame, boxes, kept = closer_view(img, row, np.random.default_rng(0))
    hb = _hand_boxes(row, boxes, kept)
    assert len(hb) >= 0.7 * len(row_tiles(row["tiles"]))
    grey = cv2.cvtColor(view.image, cv2.COLOR_RGB2GRAY).astype(float)
    h, w = grey.shape

    def mean_in(bs):
        vals = [grey[int(b[1]):int(b[3]), int(b[0]):int(b[2])].mean() for b in bs
                if b[0] >= 0 and b[1] >= 0 and b[2] <= w and b[3] <= h and b[2] - b[0] >= 2 and b[3] - b[1] >= 2]
        return float(np.mean(vals)) if vals else None

    on = mean_in(hb)
    th = float(np.median(hb[:, 3] - hb[:, 1]))
    off = [m for m in (mean_in(hb + [0, 2 * th, 0, 2 * th]), mean_in(hb - [0, 2 * th, 0, 2 * th])) if m is not None]
    assert off, "the view holds table above or below the row"
    assert all(abs(on - m) > 12 for m in off), (on, off)


def test_deterministic_per_seed_and_jittered(rendered):
    img, row = rendered[1]
    a = closer_view(img, row, np.random.default_rng([7, 1]))
    b = closer_view(img, row, np.random.default_rng([7, 1]))
    c = closer_view(img, row, np.random.default_rng([8, 1]))
    assert np.array_equal(a[0].image, b[0].image) and np.array_equal(a[2], b[2]) and a[0].origin == b[0].origin
    assert a[0].image.shape != c[0].image.shape or a[0].origin != c[0].origin
    # no jitter: the reader's own region (hand_region of the labelled row) exactly
    d = closer_view(img, row, np.random.default_rng([7, 1]), jitter=0.0)
    e = closer_view(img, row, np.random.default_rng([8, 1]), jitter=0.0)
    assert np.array_equal(d[0].image, e[0].image)


def test_keep_inside():
    boxes = np.array([[10, 10, 30, 30],  # inside
                      [-8, 10, 12, 30],  # 60 % inside: kept, clipped
                      [-15, 10, 5, 30],  # 25 % inside: dropped
                      [98, 10, 99, 30]])  # 1 px wide: dropped
    clipped, kept = keep_inside(boxes, 100, 50)
    assert kept.tolist() == [True, True, False, False]
    assert clipped[1].tolist() == [0, 10, 12, 30]


def test_write_closer_views(tmp_path, shared_dir):
    src = photos.write_dataset(tmp_path / "src", 3, SEED, val_frac=0.0, shared=shared_dir, quiet=True)
    n = write_closer_views(src, tmp_path / "near", seed=5)
    rows = [json.loads(x) for x in (tmp_path / "near" / "labels.jsonl").read_text().splitlines()]
    assert n == len(rows) >= 2
    for r in rows:
        img = cv2.imread(str(tmp_path / "near" / r["image"]))
        assert img.shape[:2] == (r["height"], r["width"])
        lines = (tmp_path / "near" / r["image"].replace("images", "labels").replace(".jpg", ".txt")).read_text().split()
        assert len(lines) == 5 * len(r["tiles"]) and len(r["tiles"]) >= 3
        v = np.array(lines, float).reshape(-1, 5)
        assert (v[:, 1:] >= 0).all() and (v[:, 1:3] <= 1).all()
    # same seed → same views
    write_closer_views(src, tmp_path / "near2", seed=5)
    assert (tmp_path / "near" / "labels.jsonl").read_text() == (tmp_path / "near2" / "labels.jsonl").read_text()


def test_reader_angle_matches_turn_row_angle(rendered):
    """Same line as `turn.row_angle` (used by the `_level` sets), folded into the reader's range."""
    import math

    from tsumo_synth.turn import row_angle

    for i in PHOTOS:
        tiles = rendered[i][1]["tiles"]
        d = math.degrees(row_angle(tiles))
        assert (reader_angle(tiles) - d) % 180 == pytest.approx(0, abs=1e-6) or \
            (reader_angle(tiles) - d) % 180 == pytest.approx(180, abs=1e-6)


def test_four_melds_use_the_whole_hand_line():
    """A hand of four called melds has < 3 closed tiles: its line is every hand tile's."""
    def tile(x, group, index):
        return {"in_hand": True, "group": group, "index": index, "stacked": False, "box": [x, 100 + x / 10, x + 20, 130 + x / 10]}

    tiles = [tile(0, 0, 0)] + [tile(30 + 25 * k, 1 + k // 3, k % 3) for k in range(12)]
    assert len(row_tiles(tiles)) == 13
    assert reader_angle(tiles) == pytest.approx(math.degrees(math.atan(0.1)), abs=1e-6)


def test_eval_detector_reader_boxes_use_the_closer_model(rendered, repo_dir):
    """`eval_detector --reader ... --closer X.onnx`: X takes the second look (on the turned view), the
    photo's detector only the first; with the shipped model as its own closer the boxes are the same."""
    import sys

    sys.path.insert(0, str(repo_dir / "datasets"))
    from eval_detector import ReaderBoxes
    from vision.detect import TileDetector

    class Counting:
        def __init__(self, det):
            self.det, self.calls = det, []
            self.conf, self.imgsz = det.conf, det.imgsz

        def detect(self, image, **kw):
            self.calls.append(image.shape)
            return self.det.detect(image, **kw)

    det = TileDetector(repo_dir / "models" / "tile_detector.onnx", threads=1)
    first, closer = Counting(det), Counting(det)
    img = rendered[1][0]  # a row tilted 37°: the reader looks again
    with_closer = ReaderBoxes(first, repo_dir / "models" / "tile_classifier.onnx", 1, closer).detect(img)
    assert closer.calls and all(s != img.shape for s in closer.calls)
    assert all(s == img.shape for s in first.calls)
    alone = ReaderBoxes(det, repo_dir / "models" / "tile_classifier.onnx", 1).detect(img)
    assert [b.xyxy for b in with_closer] == [b.xyxy for b in alone]
