"""The tile detector: letterbox/NMS geometry, the shipped ONNX on held-out renders, the CLI wrappers."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.detect import DEFAULT_PATH, Box, PartRule, TileDetector, drop_parts, letterbox, nms, vote_boxes

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "datasets"))
from eval_detector import ReaderBoxes, eval_synth, hand_buckets, match, merged_pairs, tile_scores  # noqa: E402


def test_letterbox_keeps_aspect_and_pads_to_stride():
    img = np.zeros((3024, 4032, 3), np.uint8)
    out, lb = letterbox(img, 512)
    assert out.shape == (384, 512, 3) and lb.scale == pytest.approx(512 / 4032)
    out, lb = letterbox(np.zeros((1000, 700, 3), np.uint8), 512)
    assert out.shape[0] == 512 and out.shape[1] % 32 == 0 and out.shape[1] >= 700 * 512 / 1000
    assert lb.pad_x == (out.shape[1] - round(700 * 512 / 1000)) // 2
    out, lb = letterbox(np.zeros((480, 640, 3), np.uint8), 512, square=True)
    assert out.shape == (512, 512, 3) and lb.pad_y == (512 - 384) // 2


def test_nms_keeps_best_of_overlapping_boxes():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 10, 10], [20, 20, 30, 30], [0, 0, 10, 10.5]], float)
    scores = np.array([0.5, 0.9, 0.8, 0.3])
    assert list(nms(boxes, scores, 0.6)) == [1, 2]
    assert list(nms(boxes, scores, 0.99)) == [1, 2, 0, 3]
    assert len(nms(np.zeros((0, 4)), np.zeros(0), 0.5)) == 0


def test_part_of_a_tile_boxed_whole_is_dropped():
    rule = PartRule(cover=0.8, max_area=0.75, score_ratio=0.5)
    lying = [100, 100, 140, 130]            # a sideways tile, 40 x 30
    half = [101, 100, 121, 130]             # its left half, boxed again
    boxes = np.array([lying, half, [140, 95, 170, 135]], float)  # + the upright neighbour
    assert list(drop_parts(boxes, np.array([0.7, 0.6, 0.8]), rule)) == [0, 2]
    # the half scores far above the whole: the surer box stays, nothing dropped
    assert list(drop_parts(boxes, np.array([0.3, 0.9, 0.8]), rule)) == [0, 1, 2]
    # a half mostly outside the whole box is not a part of it
    off = np.array([lying, [125, 100, 150, 130]], float)
    assert list(drop_parts(off, np.array([0.7, 0.6]), rule)) == [0, 1]


def test_same_size_overlaps_are_not_parts():
    rule = PartRule()
    # added kan: the 2nd sideways tile lies on the first, shifted by the tile's thickness
    kakan = np.array([[100, 100, 140, 130], [100, 92, 140, 122]], float)
    assert list(drop_parts(kakan, np.array([0.6, 0.5]), rule)) == [0, 1]
    # touching upright tiles of a diagonal row: axis-aligned boxes overlap a lot, sizes alike
    diagonal = np.array([[0, 0, 30, 40], [18, 10, 48, 50], [36, 20, 66, 60]], float)
    assert list(drop_parts(diagonal, np.array([0.5, 0.9, 0.4]), rule)) == [0, 1, 2]
    # a run of face-down tiles: same sizes side by side
    backs = np.array([[i * 30, 0, i * 30 + 30, 40] for i in range(4)], float)
    assert list(drop_parts(backs, np.full(4, 0.6), rule)) == [0, 1, 2, 3]
    assert len(drop_parts(np.zeros((0, 4)), np.zeros(0), rule)) == 0


def test_box_voting_averages_the_candidates_over_a_kept_box():
    boxes = np.array([[0, 0, 10, 10], [2, 0, 12, 10], [40, 40, 50, 50], [20, 0, 30, 10]], float)
    scores = np.array([0.9, 0.3, 0.8, 0.5])
    kept = nms(boxes, scores, 0.6)
    assert list(kept) == [0, 2, 3]
    voted = vote_boxes(boxes, scores, kept, 0.6)
    # box 1 (IoU 0.67 with box 0) pulls box 0 right by its weight's share; the others stand alone
    assert voted[0] == pytest.approx([(0 * 0.9 + 2 * 0.3) / 1.2, 0, (10 * 0.9 + 12 * 0.3) / 1.2, 10])
    assert voted[1:].tolist() == boxes[[2, 3]].tolist()
    assert vote_boxes(boxes, scores, kept, 0.7)[0].tolist() == boxes[0].tolist()


def test_match_is_one_to_one():
    gt = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], float)
    pred = np.array([[0, 0, 10, 10], [1, 0, 10, 10], [50, 50, 60, 60]], float)
    found, used = match(gt, pred, 0.5)
    assert found.tolist() == [True, False] and used.tolist() == [True, False, False]


def test_tile_scores_give_each_boxed_tile_its_best_overlapping_score():
    """The real-dev margin measure: per boxed tile the best score of a detection over it (IoU ≥ thr),
    the detector asked at the low floor; 0 for a tile nothing covers."""
    import real_data

    class Fixed:  # a detector returning fixed boxes, recording the threshold it was asked for
        asked: list = []

        def detect(self, image, *, conf=None):
            self.asked.append(conf)
            return [Box(0, 0, 10, 10, 0.9), Box(1, 0, 11, 10, 0.3), Box(20, 0, 30, 10, 0.12)]

    class Photo(real_data.BoxedPhoto):
        def load_rgb(self):
            return np.zeros((20, 40, 3), np.uint8)

    ph = Photo(Path("a.jpg"), np.array([[0, 0, 10, 10], [20, 0, 30, 10], [0, 12, 5, 18]], float), ["5z", "5z", "1m"])
    got = tile_scores(Fixed(), [ph], thr=0.5, floor=0.05)
    assert got == [("a.jpg", "5z", 0.9), ("a.jpg", "5z", 0.12), ("a.jpg", "1m", 0.0)]
    assert Fixed.asked == [0.05]


def test_a_box_over_two_stacked_tiles_is_listed_as_merged():
    """`eval_detector --real-dev` "merged": real-dev's added kan (lietxia_70008812's boxes: a sideways
    9m, the 9m lying on it, an upright 9m) boxed as one tall box is listed; tiles boxed one by one are
    not, nor a box over one tile reaching into its neighbour (the shipped model's, IoU 0.59 with it)."""
    gt = np.array([[948, 355, 1075, 448], [940, 282, 1062, 365], [1062, 338, 1138, 452]], float)
    labels = ["9m", "9m", "9m"]
    merged = np.array([[946, 288, 1073, 428]], float)  # session 9's e6: one box over both sideways 9m
    got = merged_pairs(gt, labels, merged, [0.367], thr=0.5)
    assert len(got) == 1 and got[0][0] == "9m+9m" and got[0][1] > 0.75 and got[0][2] == 0.367
    reaching = np.array([[957, 315, 1087, 452]], float)  # shipped: the lower 9m's box, taller
    assert merged_pairs(gt, labels, reaching, [0.643], thr=0.5) == []
    apart = gt + np.array([2, -1, 1, 2], float)  # each tile its own (slightly off) box
    assert merged_pairs(gt, labels, apart, [0.9, 0.6, 0.7], thr=0.5) == []
    assert merged_pairs(gt, labels, np.zeros((0, 4)), [], thr=0.5) == []
    far = np.array([[0, 0, 10, 10], [100, 0, 110, 10]], float)  # not neighbours: their union is no pair
    assert merged_pairs(far, ["1m", "2m"], np.array([[0, 0, 110, 10]], float), [0.9], thr=0.05) == []


@pytest.fixture(scope="module")
def detector():
    return TileDetector(DEFAULT_PATH, threads=2)


def test_shipped_model_runs_on_onnxruntime_alone(detector):
    code = ("import sys; from vision.detect import TileDetector; import numpy as np; "
            "d = TileDetector(); d.detect(np.zeros((300, 400, 3), np.uint8)); "
            "assert 'torch' not in sys.modules and 'ultralytics' not in sys.modules; print(d.imgsz)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) == detector.imgsz
    assert detector.metadata.get("tsumo_model") == "tile_detector"
    assert 0 < detector.conf < 1 and 0 < detector.iou < 1
    assert DEFAULT_PATH.stat().st_size < 12 * 2**20


def test_mirrored_detection_is_symmetric(shared_dir):
    """With `flip` the detector reads the photo and its mirror image and pools the boxes, so a
    mirrored photo gives the mirrored boxes (up to a pixel of letterbox rounding)."""
    from tsumo_synth.photos import render_one
    from tsumo_synth.scene import default_face_source

    img, _ = render_one(3, 424243, artist=default_face_source(shared_dir, per_label=2), size=(640, 480))
    det = TileDetector(DEFAULT_PATH, threads=1, flip=True)
    a = sorted((round(b.x1), round(b.y1)) for b in det.detect(img))
    b = sorted((round(640 - b.x2), round(b.y1)) for b in det.detect(np.ascontiguousarray(img[:, ::-1])))
    assert len(a) == len(b) > 10
    assert np.abs(np.array(a) - np.array(b)).max() <= 1.5
    plain = TileDetector(DEFAULT_PATH, threads=1)
    assert len(det.detect(img)) >= len(plain.detect(img))
    # the mirror only voting on the photo's own boxes: the same boxes, edges moved by < 2 px or so
    voter = TileDetector(DEFAULT_PATH, threads=1, flip=True, flip_adds=False, vote=0.6)
    p, v = plain.detect(img), voter.detect(img)
    assert [b.score for b in p] == [b.score for b in v]
    assert max(abs(a - b) for bp, bv in zip(p, v) for a, b in zip(bp.xyxy, bv.xyxy)) < 0.25 * max(b.width for b in p)


def test_bad_images_are_refused(detector):
    with pytest.raises(ValueError):
        detector.detect(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError):
        detector.detect(np.zeros((10, 10, 3), np.float32))
    assert detector.detect(np.zeros((1, 1, 3), np.uint8)) == []
    assert detector.detect(np.full((480, 640, 3), 128, np.uint8)) == []  # an empty grey photo: nothing


@pytest.fixture(scope="module")
def renders(shared_dir):
    """A small held-out rendered set (seeds never used for training)."""
    from tsumo_synth.photos import render_one
    from tsumo_synth.scene import default_face_source

    faces = default_face_source(shared_dir, per_label=2)
    return [render_one(i, 424242, artist=faces) for i in range(10)]


def _recall(detector, renders, *, min_side: float = 8.0, turned: bool = False):
    """(hand-tile recall, all-tile recall, precision) at IoU 0.5 over rendered (image, labels).

    `turned`: on each photo turned so its hand row is level, as the reader's second pass sees it."""
    from tsumo_synth.turn import row_angle, turn_level

    hand_gt = hand_found = all_gt = all_found = preds = used_n = 0
    for img, lab in renders:
        tiles = lab.to_json()["tiles"]
        boxes = np.array([t["box"] for t in tiles], float).reshape(-1, 4)
        if turned:
            angle = row_angle(tiles)
            if angle is None:
                continue
            img, boxes = turn_level(img, tiles, angle)
        keep = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) >= min_side
        gt = boxes[keep]
        pred = np.array([b.xyxy for b in detector.detect(img)]).reshape(-1, 4)
        found, used = match(gt, pred, 0.5)
        in_hand = np.array([t["in_hand"] for t, k in zip(tiles, keep) if k], bool)
        hand_gt += int(in_hand.sum())
        hand_found += int((found & in_hand).sum())
        all_gt += len(gt)
        all_found += int(found.sum())
        preds += len(pred)
        used_n += int(used.sum())
    return hand_found / hand_gt, all_found / all_gt, used_n / max(preds, 1)


# Floors: the shipped model's measured figures on these 10 renders minus a margin (measured
# 2026-11-21 with the ft2 model served at 512: hand 0.986, every tile 0.743, precision 0.741;
# level-turned hand 0.961; see models/tile_detector.md). Targets (issue #3, not met yet): hand tiles >= 99.5 %
# found, on the photo and on its level-turned copy; all tiles >= 97 %; precision >= 95 %.
FAST_FLOORS = {"hand": 0.96, "every": 0.70, "precision": 0.70}
FAST_LEVEL_HAND_FLOOR = 0.93


def test_finds_the_tiles_of_held_out_renders(detector, renders):
    """Target: hand >= 0.995, every tile >= 0.97, precision >= 0.95 (asserted: the measured floors)."""
    hand, every, precision = _recall(detector, renders)
    assert hand >= FAST_FLOORS["hand"]
    assert every >= FAST_FLOORS["every"]
    assert precision >= FAST_FLOORS["precision"]


def test_finds_the_hand_on_level_turned_renders(detector, renders):
    """The reader detects again on the photo turned so the hand row is level and reads those
    boxes. Target: hand tiles >= 0.995 there (asserted: the measured floor)."""
    hand, _, _ = _recall(detector, renders, turned=True)
    assert hand >= FAST_LEVEL_HAND_FLOOR


def test_the_readers_boxes_find_the_hand(detector, renders):
    """`eval_detector --reader`: the boxes the photo reader keeps (the first detection, replaced
    around the hand row by the second, level and closer one). Measured 0.993 of hand tiles on these
    renders, as the detector alone; target 0.995 (asserted: the fast floor)."""
    reader = ReaderBoxes(detector, REPO / "models" / "tile_classifier.onnx", 1)
    hand, _, precision = _recall(reader, renders)
    assert hand >= FAST_FLOORS["hand"] and precision >= FAST_FLOORS["precision"]


def test_boxes_are_in_photo_pixels(detector, renders):
    import cv2

    img, lab = renders[0]
    small = [b.xyxy for b in detector.detect(img)]
    big = cv2.resize(img, (img.shape[1] * 3, img.shape[0] * 3), interpolation=cv2.INTER_LINEAR)
    large = np.array([b.xyxy for b in detector.detect(big)]) / 3
    found, _ = match(np.array(small), large, 0.7)
    assert found.mean() > 0.9
    assert all(isinstance(b, Box) and b.x2 <= img.shape[1] and b.y2 <= img.shape[0] for b in detector.detect(img))


def test_real_dev_tiles_found(detector):
    """The 50 hand-boxed tiles of real-dev (never trained on). Target 50/50; measured 49/50 with
    the shipped model (a blank white dragon beside two others is missed)."""
    import real_data

    gt = found_n = 0
    for ph in real_data.real_dev():
        pred = np.array([b.xyxy for b in detector.detect(ph.load_rgb())]).reshape(-1, 4)
        found, _ = match(ph.boxes, pred, 0.5)
        gt += len(found)
        found_n += int(found.sum())
    assert gt == 50
    assert found_n >= REAL_DEV_FOUND_FLOOR


REAL_DEV_FOUND_FLOOR = 48  # measured 50/50 (shipped ft4 epoch 1 at 512; ft2: 49, 44–49 across input sizes); target 50


@pytest.mark.slow
def test_recall_on_a_larger_held_out_render_set(detector, shared_dir):
    """120 held-out renders, on the photo and level-turned. Targets: hand >= 0.995 (both), every
    tile >= 0.97, precision >= 0.97. Measured 2026-11-21 at 512: shipped ft4 epoch 1: hand 0.985,
    every tile 0.779, precision 0.683, level-turned hand 0.979 (ft2 before it: 0.991, 0.773, 0.721,
    0.972). Asserted: the lower of each minus a margin."""
    from tsumo_synth.photos import render_one
    from tsumo_synth.scene import default_face_source

    faces = default_face_source(shared_dir, per_label=4)
    renders = [render_one(i, 515151, artist=faces) for i in range(120)]
    hand, every, precision = _recall(detector, renders)
    assert hand >= 0.975
    assert every >= 0.74
    assert precision >= 0.66
    level_hand, _, _ = _recall(detector, renders, turned=True)
    assert level_hand >= 0.95


@pytest.mark.slow
def test_chinese_test_split(detector, shared_dir):
    import real_data

    photos = real_data.chinese_split("test", shared_dir / "data" / "real" / "chinese-mahjong-detection-v4")
    gt = found_n = 0
    for ph in photos:
        pred = np.array([b.xyxy for b in detector.detect(ph.load_rgb())]).reshape(-1, 4)
        found, _ = match(ph.boxes, pred, 0.5)
        gt += len(found)
        found_n += int(found.sum())
    assert found_n / gt >= CHINESE_TEST_RECALL_FLOOR


CHINESE_TEST_RECALL_FLOOR = 0.98  # measured 0.9895 (2026-11-21, ft2 model at 512) minus a margin; target 0.995


def _tsumo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from tsumo.cli import main; raise SystemExit(main())", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


def test_train_and_eval_commands_check_their_input(tmp_path):
    out = _tsumo("train", "detector", "--dry-run", "--photos", "50", "--hours", "0.1")
    assert out.returncode == 0, out.stderr
    assert "tsumo_synth.photos" in out.stderr and "train_detector.py" in out.stderr and "--hours 0.1" in out.stderr
    out = _tsumo("train", "detector", "--dry-run", "--photos", "50", "--preset", "close")
    assert out.returncode == 0 and "--preset close" in out.stderr and "det_s1_n50_close" in out.stderr
    out = _tsumo("train", "detector", "--dry-run", "--preset", "far")
    assert out.returncode == 2 and "--preset" in out.stderr
    out = _tsumo("train", "detector", "--venv", str(tmp_path / "none"))
    assert out.returncode == 2 and "make train-env" in out.stderr
    out = _tsumo("train", "detector", "--dry-run", "--args", "'unclosed")
    assert out.returncode == 2 and "--args" in out.stderr
    out = _tsumo("eval", "detector", "--synth", str(tmp_path))
    assert out.returncode == 2 and "labels.jsonl" in out.stderr
    out = _tsumo("eval", "detector", "--onnx", str(tmp_path / "missing.onnx"))
    assert out.returncode == 2 and "no such file" in out.stderr


def test_eval_detector_refuses_a_missing_second_detector(tmp_path, capsys):
    import eval_detector

    code = eval_detector.main(["--model", str(REPO / "models" / "tile_detector.onnx"), "--alt", str(tmp_path / "no.onnx"),
                               "--real-dev-read", str(REPO / "models" / "tile_classifier.onnx")])
    err = capsys.readouterr().err
    assert code == 2 and "second detector not found" in err and "no.onnx" in err


def test_epoch_checkpoints_are_listed_in_epoch_order(tmp_path):
    """train_detector --save-period keeps ultralytics' epoch{N}.pt (N from 0) as eN+1.pt: numeric order,
    not the names' (epoch10 after epoch2), and nothing but epoch files."""
    from train_detector import epoch_checkpoints

    for name in ("epoch10.pt", "epoch0.pt", "epoch2.pt", "best.pt", "last.pt", "epochs.pt"):
        (tmp_path / name).write_bytes(b"")
    assert [f.name for f in epoch_checkpoints(tmp_path)] == ["epoch0.pt", "epoch2.pt", "epoch10.pt"]


@pytest.mark.train
def test_freeze_batchnorm_keeps_the_statistics_of_a_training_step():
    """--freeze-bn: after the callback, a training-mode forward pass leaves BatchNorm's running
    statistics as they were (eval mode), while the convolutions stay in training mode."""
    torch = pytest.importorskip("torch")
    from types import SimpleNamespace

    from train_detector import freeze_batchnorm

    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU())
    net.train()
    before = net[1].running_mean.clone()
    assert freeze_batchnorm(SimpleNamespace(model=net)) == 1
    net(torch.randn(2, 3, 8, 8) + 5.0)
    assert torch.equal(net[1].running_mean, before) and not net[1].training and net[0].training
    assert freeze_batchnorm(SimpleNamespace(model=net)) == 0


def test_box_arithmetic():
    """Areas and pairwise intersections of xyxy boxes: an inverted box has none, disjoint boxes
    meet in nothing, a box inside another meets it in its own area."""
    from vision.boxes import box_areas, intersections

    a = np.array([[0, 0, 10, 10], [5, 5, 15, 25], [3, 3, 1, 1]], float)
    assert box_areas(a).tolist() == [100, 200, 0]
    inter = intersections(a, np.array([[2, 2, 4, 4], [20, 20, 30, 30]]))
    assert inter.shape == (3, 2)
    assert inter.tolist() == [[4, 0], [0, 0], [0, 0]]
    assert intersections(a, a)[0, 1] == 25  # [5,10]×[5,10]
    assert intersections(a[0], a[1]).shape == (1, 1)  # a single box counts as one row
    from vision.boxes import ious

    iou = ious(a, a)
    assert iou[0, 0] == 1.0 and iou[2, 2] == 0.0 and abs(iou[0, 1] - 25 / 275) < 1e-12
    assert ious(np.zeros((0, 4)), a).shape == (0, 3)


def test_real_dev_read_counts_exact_photos_per_width():
    """`eval_detector --real-dev-read`: each photo read at each width; a photo read exactly at its
    own size but not at 4 000 px (session 11: ft8b e3 loses lietxia_70008812's drawn 0p there) is
    counted per width and listed."""
    from eval_detector import read_at_widths, resized_to_width

    class Reader:
        def read(self, image):
            seq = "1m 2m 3m" if image.shape[1] < 1000 else "1m 2m"  # loses a tile when sent large
            return type("R", (), {"sequence": seq})()

    photos = [("a.jpg", np.zeros((60, 80, 3), np.uint8), "1m 2m 3m"), ("b.jpg", np.zeros((60, 80, 3), np.uint8), "1m")]
    got = read_at_widths(Reader(), photos, [None, 400, 4000])
    assert got["exact"] == {"own": 1, "400": 1, "4000": 0}
    assert got["fails"] == ["b.jpg@own: 1m 2m 3m", "b.jpg@400: 1m 2m 3m", "a.jpg@4000: 1m 2m", "b.jpg@4000: 1m 2m"]
    assert not got["all_exact"] and got["photos"] == 2
    assert resized_to_width(photos[0][1], 4000).shape == (3000, 4000, 3)
    assert resized_to_width(photos[0][1], None) is photos[0][1]


def test_hand_buckets_by_visibility_and_size():
    assert hand_buckets({"visible": 0.95}, np.array([0, 0, 20, 30.0])) == ["visible>=0.7", "24-32px"]
    assert hand_buckets({"visible": 0.5}, np.array([0, 0, 23.9, 10.0])) == ["<24px"]
    assert hand_buckets({"visible": 0.7}, np.array([5, 5, 53, 40.0])) == ["visible>=0.7", ">=48px"]


def test_eval_synth_tallies_hand_recall_by_bucket(tmp_path):
    """Three hand tiles (a small hidden one missed, two large found) and a wall tile: the buckets count
    hand tiles only, each tile in its size bucket and, when ≥ 70 % visible, in "visible>=0.7"."""
    import cv2
    import json

    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "p0.png"), np.zeros((200, 300, 3), np.uint8))
    tile = {"in_hand": True, "index": 0, "sideways": False, "stacked": False, "face_down": False, "standing": False}
    tiles = [dict(tile, box=[10, 10, 30, 30], visible=0.4), dict(tile, index=1, box=[50, 10, 110, 60], visible=0.9),
             dict(tile, index=2, box=[120, 10, 180, 60], visible=0.95), dict(tile, index=3, in_hand=False, box=[200, 100, 260, 150], visible=1.0)]
    (tmp_path / "labels.jsonl").write_text(json.dumps({"image": "images/p0.png", "tiles": tiles}) + "\n")

    class Found:  # boxes the two large hand tiles and the wall tile, not the small one
        def detect(self, image):
            return [Box(*t["box"], 0.9) for t in tiles[1:]]

    summary = eval_synth(Found(), tmp_path, thr=0.5, min_side=0, limit=None).summary()
    assert summary["hand_recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert summary["hand_recall_by_bucket"] == {"<24px": [0, 1, 0.0], ">=48px": [2, 2, 1.0], "visible>=0.7": [2, 2, 1.0]}


def test_face_labels_give_each_box_its_face_class(tmp_path):
    """train_detector --faces: a rendered set seen by a one-stage detector keeps every box of the set's own
    YOLO labels (same lines, same order) with the tile's class index (`TILE_CLASSES`) instead of 0, and
    links the images rather than copying them."""
    import json

    from train_detector import face_labels
    from tsumo_synth.photos import write_dataset
    from vision.classes import CLASS_INDEX

    synth = write_dataset(tmp_path / "set", 2, 4242, val_frac=0.5, quiet=True)
    view = face_labels(synth, tmp_path / "view")
    for line in (synth / "labels.jsonl").read_text().splitlines():
        row = json.loads(line)
        img = Path(row["image"])
        own = (synth / "labels" / img.parent.name / f"{img.stem}.txt").read_text().split("\n")
        faces = (view / "labels" / img.parent.name / f"{img.stem}.txt").read_text().split("\n")
        assert [s.split(" ", 1)[1] for s in faces if s] == [s.split(" ", 1)[1] for s in own if s]
        kept = [t["cls"] for t in row["tiles"] if min(t["box"][2] - t["box"][0], t["box"][3] - t["box"][1]) >= 3]
        assert [int(s.split()[0]) for s in faces if s] == [CLASS_INDEX[c] for c in kept]
        assert (view / img).is_symlink() and (view / img).resolve() == (synth / img).resolve()
