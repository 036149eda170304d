"""The scene renderer: reproducible photos whose labels match the pixels and the sequence."""
from __future__ import annotations

import numpy as np
import pytest

from tsumo_synth import layouts as L
from tsumo_synth.scene import SceneOptions, default_face_source, render_hand_photo
from vision.classes import BACK, TILE_CLASSES
from vision.sequence import SequenceError, flatten, parse_sequence


@pytest.fixture(scope="module")
def faces(shared_dir):
    return default_face_source(shared_dir, per_label=2)


SMALL = (480, 360)
KAKAN_ANKAN = "1m 2m 3m 4p 5p 6p 7s | 7s | 6z- 6z= 6z 6z | x 3m 3m x"


def test_same_seed_same_photo(faces, shared_dir):
    a_img, a_lab = render_hand_photo(KAKAN_ANKAN, np.random.default_rng(7), artist=faces, size=SMALL)
    fresh = default_face_source(shared_dir, per_label=2)  # a new pool: the photo must not depend on history
    b_img, b_lab = render_hand_photo(KAKAN_ANKAN, np.random.default_rng(7), artist=fresh, size=SMALL)
    c_img, _ = render_hand_photo(KAKAN_ANKAN, np.random.default_rng(8), artist=faces, size=SMALL)
    assert np.array_equal(a_img, b_img)
    assert a_lab.to_json() == b_lab.to_json()
    assert not np.array_equal(a_img, c_img)


def _sequence_tiles(sequence: str):
    return flatten(parse_sequence(sequence))


@pytest.mark.parametrize("seed", range(12))
def test_labels_match_sequence_and_image(faces, seed):
    rng = np.random.default_rng(1000 + seed)
    spec = L.random_winning_hand(rng, players=3 if seed % 4 == 3 else 4)
    img, lab = render_hand_photo(spec.sequence, rng, artist=faces, size=SMALL)
    h, w = img.shape[:2]
    assert img.dtype == np.uint8 and img.shape == (SMALL[1], SMALL[0], 3)
    truth = _sequence_tiles(spec.sequence)
    hand = lab.hand_tiles
    assert [t.index for t in hand] == list(range(len(truth)))
    for t, s in zip(hand, truth):
        assert t.cls == s.label
        assert t.sideways == s.sideways and t.stacked == s.stacked
        assert t.visible > 0.5  # nothing covers the hand
    for t in lab.tiles:
        x1, y1, x2, y2 = t.box
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        assert t.cls in TILE_CLASSES
        assert t.rotation in (0, 90, 180, 270)
        if t.in_hand:  # the whole hand is in the frame: its face quad lies inside its box (± AA)
            q = np.array(t.quad)
            if t.visible > 0.97 and not t.face_down:
                assert (q[:, 0] >= x1 - 2).all() and (q[:, 0] <= x2 + 2).all()
                assert (q[:, 1] >= y1 - 2).all() and (q[:, 1] <= y2 + 2).all()


def _row_frame_extents(t, row_dir):
    q = np.array(t.quad)
    perp = np.array([-row_dir[1], row_dir[0]])
    return np.ptp(q @ row_dir), np.ptp(q @ perp)


@pytest.mark.parametrize("seed", range(6))
def test_sideways_tiles_are_wide_in_the_hand_frame(faces, seed):
    rng = np.random.default_rng(50 + seed)
    seq = "2m 3m 4m 5p 5p | 5p | 7z 7z- 7z | 1s- 2s 3s | 9m 9m 9m- 9m"
    _, lab = render_hand_photo(seq, rng, artist=faces, size=SMALL, standing=False)
    hand = lab.hand_tiles
    c = np.array([[(t.box[0] + t.box[2]) / 2, (t.box[1] + t.box[3]) / 2] for t in hand])
    row_dir = (c[-1] - c[0]) / np.linalg.norm(c[-1] - c[0])
    ratio = lambda t: np.divide(*_row_frame_extents(t, row_dir))  # noqa: E731
    side = [ratio(t) for t in hand if t.sideways]
    upright = [ratio(t) for t in hand if not t.sideways]
    assert len(side) == 3
    assert min(side) > max(upright)


def test_top_down_geometry_and_rotation(faces):
    seq = "1m 2m 3m 4m | 5m | 6z- 6z 6z"
    _, lab = render_hand_photo(seq, np.random.default_rng(3), artist=faces, size=(640, 480), standing=False,
                               azimuth_deg=0, elevation_deg=90, roll_deg=0, distractors=False, effects=False)
    hand = lab.hand_tiles
    for t in hand:
        q = np.array(t.quad)
        w, h = np.ptp(q[:, 0]), np.ptp(q[:, 1])
        if t.sideways:
            assert w > h * 1.15 and t.rotation == 270  # called tile turned with its top to the left
        else:
            assert h > w * 1.15 and t.rotation == 0
    xs = [(t.box[0] + t.box[2]) / 2 for t in hand]
    assert xs == sorted(xs)  # owner's left to right = image left to right
    _, flipped = render_hand_photo(seq, np.random.default_rng(3), artist=faces, size=(640, 480), standing=False,
                                   azimuth_deg=180, elevation_deg=90, roll_deg=0, distractors=False, effects=False)
    assert all(t.rotation == (90 if t.sideways else 180) for t in flipped.hand_tiles)
    xs = [(t.box[0] + t.box[2]) / 2 for t in flipped.hand_tiles]
    assert xs == sorted(xs, reverse=True)  # seen from across: right to left


def test_face_down_and_stacked_tiles(faces):
    _, lab = render_hand_photo(KAKAN_ANKAN, np.random.default_rng(11), artist=faces, size=SMALL, standing=False)
    hand = lab.hand_tiles
    assert [t.cls for t in hand if t.face_down] == [BACK, BACK]
    stacked = [t for t in hand if t.stacked]
    assert len(stacked) == 1 and stacked[0].sideways
    assert lab.hand == {"concealed": "123m456p77s", "win_tile": "7s",
                        "melds": [{"kind": "kakan", "tiles": "6666z", "called": "6z", "from": "left"},
                                  {"kind": "ankan", "tiles": "3333m"}]}


def test_standing_hand_faces_the_owner(faces):
    seq = "1p 2p 3p 4p 5p 6p 7p 8p 9p 1s 1s 2z 2z | 2z"
    _, lab = render_hand_photo(seq, np.random.default_rng(5), artist=faces, size=SMALL, standing=True,
                               azimuth_deg=0, elevation_deg=45, roll_deg=0)
    hand = lab.hand_tiles
    assert all(t.standing and t.cls != BACK and t.rotation == 0 for t in hand)


def test_distractors_are_labelled_but_not_in_hand(faces):
    kinds = set()
    for seed in range(8):
        rng = np.random.default_rng(seed)
        _, lab = render_hand_photo("1m 1m 1m 2p 3p 4p 5s 6s 7s 8s 8s 3z 3z 3z", rng, artist=faces, size=SMALL,
                                   distractors=True)
        kinds |= {t.kind for t in lab.tiles if not t.in_hand}
        assert all(t.group == -1 and t.index == -1 for t in lab.tiles if not t.in_hand)
    assert {"wall", "discard"} <= kinds


def test_random_hands_are_legal_and_derivable():
    rng = np.random.default_rng(0)
    kinds = set()
    for _ in range(200):
        spec = L.random_winning_hand(rng, require_score=False, players=4 if rng.random() < 0.8 else 3)
        groups = parse_sequence(spec.sequence)
        tiles = [t.label for t in flatten(groups) if t.label != BACK]
        counts: dict[str, int] = {}
        for t in tiles:
            key = "5" + t[1] if t[0] == "0" else t
            counts[key] = counts.get(key, 0) + 1
        assert max(counts.values()) <= 4
        assert all(tiles.count(r) <= 1 for r in ("0m", "0p", "0s"))
        for m in spec.hand["melds"]:
            kinds.add(m["kind"])
            if m["kind"] == "chi":
                assert m["from"] == "left"
        derived = L.hand_from_groups(groups)
        if derived is not None:
            assert derived["concealed"] == spec.hand["concealed"]
            assert derived["win_tile"] == spec.hand["win_tile"]
            assert derived["melds"] == spec.hand["melds"] or sorted(map(str, derived["melds"])) == sorted(map(str, spec.hand["melds"]))
    assert kinds == {"chi", "pon", "minkan", "kakan", "ankan"}


def test_bad_sequences_are_refused(faces):
    for bad in ["", "1m 2m |", "1q", "8z", "1m=", "0z"]:
        with pytest.raises(SequenceError):
            render_hand_photo(bad, np.random.default_rng(0), artist=faces, size=SMALL)


def test_face_down_variant_keeps_the_geometry(faces):
    """Video generators render a hand and its face-down twin from one seed: same boxes."""
    up_seq = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 5z"
    down_seq = " | ".join(" ".join("x" for _ in g.split()) for g in up_seq.split("|"))
    _, up = render_hand_photo(up_seq, np.random.default_rng(21), artist=faces, size=SMALL, standing=False)
    _, down = render_hand_photo(down_seq, np.random.default_rng(21), artist=faces, size=SMALL, standing=False)
    assert len(up.hand_tiles) == len(down.hand_tiles) == 14
    assert all(t.cls == BACK for t in down.hand_tiles)
    for a, b in zip(up.hand_tiles, down.hand_tiles):
        assert np.allclose(a.box, b.box, atol=1.5)
    assert up.camera == down.camera


def test_hull_of_visible_pixels_gives_the_box_and_turned_boxes(faces):
    """Each label's hull spans its box; turning the photo by 0 keeps the boxes, and turning it
    level gives boxes no looser than the turned box corners (what the reader's second pass sees)."""
    from tsumo_synth.turn import row_angle, turn_level

    rng = np.random.default_rng(31)
    img, lab = render_hand_photo("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5m 6m | 7m | 6z- 6z= 6z 6z", rng, artist=faces,
                                 size=SMALL, roll_deg=40.0, azimuth_deg=0.0)
    tiles = lab.to_json()["tiles"]
    for t in tiles:
        hull = np.array(t["hull"])
        assert len(hull) >= 1
        x1, y1, x2, y2 = t["box"]
        assert hull[:, 0].min() == pytest.approx(x1 + 0.5, abs=0.06) and hull[:, 0].max() == pytest.approx(x2 - 0.5, abs=0.06)
        assert hull[:, 1].min() == pytest.approx(y1 + 0.5, abs=0.06) and hull[:, 1].max() == pytest.approx(y2 - 0.5, abs=0.06)
    same, boxes0 = turn_level(img, tiles, 0.0)
    side = same.shape[0]
    off = np.array([(side - img.shape[1]) / 2, (side - img.shape[0]) / 2] * 2)
    assert np.allclose(boxes0, np.array([t["box"] for t in tiles]) + off, atol=0.6)
    angle = row_angle(tiles)
    assert abs(abs(np.degrees(angle)) - 40) < 12  # the row runs about as the camera was rolled
    turned, boxes = turn_level(img, tiles, angle)
    loose, loose_boxes = turn_level(img, [{**t, "hull": []} for t in tiles], angle)
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    loose_area = (loose_boxes[:, 2] - loose_boxes[:, 0]) * (loose_boxes[:, 3] - loose_boxes[:, 1])
    assert (area <= loose_area + 1e-6).all() and area.sum() < 0.8 * loose_area.sum()
    hand = [i for i, t in enumerate(tiles) if t["in_hand"] and t["group"] == 0]
    cy = (boxes[hand, 1] + boxes[hand, 3]) / 2
    assert np.ptp(cy) < 0.6 * np.median(boxes[hand, 3] - boxes[hand, 1])  # the row is level now


def test_default_recipe_keeps_every_existing_seed(faces):
    """Sets already rendered (the oracle 500, audit footage, test sets) are re-rendered from their
    seeds: the default recipe must draw the same hands, cameras and tables as when they were made."""
    from tsumo_synth.photos import render_one

    want = [
        ("1p 2p 2p 2p 3p 0p 6p 7p 8p 9p 7p- | x 6z 6z x", (-129.6, 28.96, 0.38, 435.1), "cloth"),
        ("3m 4m 5m 6m 7m 8m 0p 5p 5p 6p 7p | 9m- 9m= 9m 9m", (0.28, 58.84, -28.85, 288.2), "cloth"),
        ("6p 7p 8p 4s 0s 6s 3z | 3z | x 4m 4m x | 2z 2z 2z 2z-", (112.1, 79.28, 0.24, 459.5), "felt"),
    ]
    for i, (sequence, camera, table) in enumerate(want):
        _, lab = render_one(i, 99, artist=faces, size=(320, 240))
        assert lab.sequence == sequence
        assert tuple(lab.camera.values()) == camera
        assert lab.scene["table"] == table


def test_close_preset_shows_larger_tiles_and_more_melds(faces):
    """The "close" training recipe: hand tiles nearer real photos' size (9-13 % of the long side),
    more sideways / stacked / face-down tiles, labels as consistent as the default recipe's."""
    from tsumo_synth.photos import render_one

    sizes = {"default": [], "close": []}
    special = {"default": 0, "close": 0}
    for preset in sizes:
        for i in range(8):
            img, lab = render_one(i, 31, artist=faces, preset=preset)
            h, w = img.shape[:2]
            for t in lab.hand_tiles:
                x1, y1, x2, y2 = t.box
                assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
                sizes[preset].append(max(x2 - x1, y2 - y1) / max(w, h))
                special[preset] += t.sideways or t.face_down
    assert np.median(sizes["close"]) > 1.15 * np.median(sizes["default"])
    assert special["close"] > special["default"]


def test_plain_whites_and_kakan_lying_on_its_sideways_tile(faces):
    """Opt-in knobs of the "hard" recipe: blank white dragons (nothing printed on the ivory) and an
    added kan whose second tile lies ON the sideways tile (fully seen, the lower one partly hidden)."""
    seq = "4s 5s 6s 5z 5z 5z 7p | 9m- 9m= 9m 9m"
    img, lab = render_hand_photo(seq, np.random.default_rng(5), artist=faces, size=(960, 720), standing=False,
                                 elevation_deg=80, azimuth_deg=0, roll_deg=0, hand_fraction=0.8, effects=False,
                                 distractors=False, plain_haku=True, kakan_on_top=1.0,
                                 back_colours=((175, 160, 215),))
    hand = lab.hand_tiles
    assert [t.cls for t in hand] == ["4s", "5s", "6s", "5z", "5z", "5z", "7p", "9m", "9m", "9m", "9m"]

    def ink(t):  # spread of the face's inner pixels: print vs plain ivory
        x1, y1, x2, y2 = t.box
        dx, dy = (x2 - x1) * 0.25, (y2 - y1) * 0.25
        return float(img[int(y1 + dy):int(y2 - dy), int(x1 + dx):int(x2 - dx)].std())

    assert max(ink(t) for t in hand[3:6]) < 0.5 * min(ink(t) for t in hand[:3])
    side, top = hand[7], hand[8]
    assert side.sideways and top.stacked and top.sideways
    assert top.visible > 0.97 and side.visible < 0.9  # the added tile lies on the called one
    assert top.box[1] < side.box[1] < top.box[3]       # pushed back (up the photo), overlapping it
    w = lambda t: t.box[2] - t.box[0]
    h = lambda t: t.box[3] - t.box[1]
    assert w(top) > h(top)                             # still sideways


def test_hard_preset_rows_of_featureless_tiles(faces):
    """The "hard" training recipe: runs of blank whites / face-down tiles in the row, labels as
    consistent as the default recipe's (every hand tile boxed inside the photo)."""
    from tsumo_synth.photos import render_one

    runs = 0
    for i in range(6):
        img, lab = render_one(i, 41, artist=faces, preset="hard")
        h, w = img.shape[:2]
        tiles = _sequence_tiles(lab.sequence)
        assert len(lab.hand_tiles) == len(tiles)
        for t in lab.hand_tiles:
            x1, y1, x2, y2 = t.box
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        row = lab.sequence.split(" | ")[0].split()
        runs += any(row[k:k + 3] in (["5z"] * 3, ["x"] * 3) for k in range(len(row)))
    assert runs >= 2


def test_calls_preset_more_called_tiles_and_far_hands(faces):
    """The "calls" training recipe (session 7): more sideways and stacked hand tiles than the
    default recipe, some far hands (small tiles), labels as consistent (every hand tile boxed
    inside the photo, one per tile of the sequence)."""
    from tsumo_synth.photos import render_one

    called = {"default": 0, "calls": 0}
    sizes = {"default": [], "calls": []}
    for preset in called:
        for i in range(8):
            img, lab = render_one(i, 53, artist=faces, preset=preset)
            h, w = img.shape[:2]
            assert len(lab.hand_tiles) == len(_sequence_tiles(lab.sequence))
            for t in lab.hand_tiles:
                x1, y1, x2, y2 = t.box
                assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
                called[preset] += t.sideways or t.stacked
            sizes[preset].append(np.median([max(t.box[2] - t.box[0], t.box[3] - t.box[1]) / max(w, h)
                                            for t in lab.hand_tiles]))
    assert called["calls"] > 1.5 * called["default"]
    assert min(sizes["calls"]) < min(sizes["default"])


def test_a_scaled_photo_is_the_same_scene_with_more_pixels(faces):
    """`scale` (what a set's figures owe to its small photos): the same hand, camera and layout, the
    image `scale` times as large, every tile where it was (boxes `scale` times as far out). Textures,
    faces and light are drawn anew: their draws depend on the pixel count."""
    from tsumo_synth.photos import render_one

    img1, lab1 = render_one(2, 99, artist=faces)
    img2, lab2 = render_one(2, 99, artist=faces, scale=2.0)
    assert img2.shape[:2] == (2 * img1.shape[0], 2 * img1.shape[1])
    assert lab2.sequence == lab1.sequence and lab2.scene == lab1.scene
    cam1, cam2 = dict(lab1.camera), dict(lab2.camera)
    assert abs(cam2.pop("focal_px") - 2 * cam1.pop("focal_px")) < 0.2 and cam2 == cam1  # same view, finer pixels
    a, b = lab1.to_json()["tiles"], lab2.to_json()["tiles"]
    assert [t["cls"] for t in a] == [t["cls"] for t in b]
    boxes1, boxes2 = np.array([t["box"] for t in a]), np.array([t["box"] for t in b])
    assert np.median(np.abs(2 * boxes1 - boxes2)) <= 2.0  # pixel-rounded edges, same places


def test_a_scale_out_of_range_is_refused(tmp_path, capsys):
    from tsumo_synth import photos

    with pytest.raises(SystemExit) as err:
        photos.main(["--n", "1", "--out", str(tmp_path / "x"), "--scale", "0"])
    assert err.value.code == 2 and "--scale" in capsys.readouterr().err
    with pytest.raises(ValueError, match="scale"):
        photos.write_dataset(tmp_path / "y", 1, 1, scale=100.0)
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()  # nothing written


def _azimuths(seed: int, n: int, opts: SceneOptions) -> np.ndarray:
    from tsumo_synth.scene import _choose_camera_angles

    rng = np.random.default_rng(seed)
    return np.degrees([_choose_camera_angles(rng, opts, standing=False)[0] for _ in range(n)])


def test_camera_view_weights_change_where_a_lying_hand_is_shot_from_not_the_draws():
    """`camera_views` weighs scene.CAMERA_VIEWS; the default weights given explicitly draw exactly what no weights
    draw (default photos unchanged), and the end-on preset shoots from a side more than twice as often."""
    from tsumo_synth.photos import PRESETS
    from tsumo_synth.scene import CAMERA_VIEW_WEIGHTS, CAMERA_VIEWS

    plain = _azimuths(5, 300, SceneOptions())
    assert np.array_equal(plain, _azimuths(5, 300, SceneOptions(camera_views=CAMERA_VIEW_WEIGHTS)))
    assert len(CAMERA_VIEWS) == len(CAMERA_VIEW_WEIGHTS) and abs(sum(CAMERA_VIEW_WEIGHTS) - 1) < 1e-9
    endon = PRESETS["endon"]["scene"]
    assert abs(sum(endon["camera_views"]) - 1) < 1e-9
    side = _azimuths(5, 300, SceneOptions(**endon))

    def from_a_side(az):  # looking along the row: the azimuth within 20° of ±90°
        return float(np.mean(np.abs(np.abs((az + 180) % 360 - 180) - 90) < 20))

    assert from_a_side(side) > 2 * from_a_side(plain) and from_a_side(side) > 0.4  # (about 0.46 against 0.19)


def test_the_end_on_preset_renders_labelled_photos(shared_dir):
    from tsumo_synth.photos import render_one

    artist = default_face_source(shared_dir, per_label=2)
    img, lab = render_one(3, 4001, artist=artist, size=SMALL, preset="endon")
    assert img.shape == (SMALL[1], SMALL[0], 3)
    assert lab.camera["elevation_deg"] >= 20 - 1e-6 and lab.camera["elevation_deg"] <= 55 + 1e-6
    assert sum(t.in_hand for t in lab.tiles) == len(_sequence_tiles(lab.sequence))
