"""Where tiles lie on the table: hand sequences, random winning hands, and 3-D tile poses.

Everything here is geometry and bookkeeping (no pixels): `scene.py` turns the poses into a photo.
World frame: the table is the plane z = 0, x runs to the hand owner's right, y away from the
owner (towards the table centre), z up; one unit = one tile width (≈ 26 mm).

Sequences are CONTRACTS §3 strings, parsed by `vision.sequence` (the one place that knows the
notation). A stacked (`=`) tile is laid beside its sideways tile, further from the owner, as on
real tables (see lietxia_70008812 in real-dev).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.classes import BACK, TILE_CLASSES

from vision.sequence import SeqTile, SequenceError, format_sequence, parse_sequence  # noqa: E402,F401


def _face(t: SeqTile) -> str | None:
    """The tile's face, None when it lies face-down (`x`)."""
    return None if t.label == BACK else t.label


# --------------------------------------------------------------------------------------------
# Random legal winning hands
# --------------------------------------------------------------------------------------------

_SUITS = "mpsz"
ALL34 = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)]
_SANMA_MISSING = {f"{n}m" for n in range(2, 9)}
_TERMINALS_HONORS = ["1m", "9m", "1p", "9p", "1s", "9s"] + [f"{n}z" for n in range(1, 8)]
_DIRECTIONS = ("left", "across", "right")


@dataclass
class HandSpec:
    """A random winning hand: what to lay out, and its CONTRACTS §1 dict."""

    sequence: str
    hand: dict  # §1 keys: concealed, win_tile, melds, nukidora, players, win (+ a context that scores)
    result: dict | None = None  # score_json's answer when `scoring` is available


def _sort_key(tile: str) -> tuple[int, int]:
    n = 5 if tile[0] == "0" else int(tile[0])
    return (_SUITS.index(tile[1]), n, 0 if tile[0] == "0" else 1)  # red five first, as in "0556p"


def _compact(tiles: list[str]) -> str:
    """['2m','3m','0p','5p'] -> '23m05p' (MPSZ, suit order kept)."""
    out, run_suit, digits = [], None, ""
    for t in sorted(tiles, key=_sort_key):
        if t[1] != run_suit and run_suit is not None:
            out.append(digits + run_suit)
            digits = ""
        run_suit = t[1]
        digits += t[0]
    if run_suit is not None:
        out.append(digits + run_suit)
    return "".join(out)


class _Pool:
    """Tile counts left (≤ 4 of each), so hands never show a fifth copy."""

    def __init__(self, players: int):
        self.left = {t: (0 if players == 3 and t in _SANMA_MISSING else 4) for t in ALL34}

    def take(self, tiles: list[str]) -> bool:
        need: dict[str, int] = {}
        for t in tiles:
            need[t] = need.get(t, 0) + 1
        if any(self.left.get(t, 0) < k for t, k in need.items()):
            return False
        for t, k in need.items():
            self.left[t] -= k
        return True


def _random_set(rng: np.random.Generator, pool: _Pool, *, kind: str) -> list[str] | None:
    for _ in range(30):
        if kind == "chi":
            suit = rng.choice(list("mps"))
            start = int(rng.integers(1, 8))
            tiles = [f"{start + i}{suit}" for i in range(3)]
        else:
            t = ALL34[int(rng.integers(0, 34))]
            tiles = [t] * (4 if kind in ("minkan", "kakan", "ankan") else 3)
        if pool.take(tiles):
            return tiles
    return None


def _redden(tiles: list[str], red_left: dict[str, bool], rng: np.random.Generator, p_red: float) -> list[str]:
    out = list(tiles)
    for i, t in enumerate(out):
        if t[0] == "5" and t[1] != "z" and red_left.get(t[1]) and rng.random() < p_red:
            out[i] = "0" + t[1]
            red_left[t[1]] = False
    return out


def random_winning_hand(
    rng: np.random.Generator,
    *,
    players: int = 4,
    max_melds: int = 4,
    p_red: float = 0.5,
    require_score: bool = True,
    tries: int = 60,
    meld_counts: tuple[float, ...] = (0.42, 0.24, 0.17, 0.1, 0.07),
    meld_kinds: tuple[float, ...] = (0.34, 0.34, 0.1, 0.1, 0.12),
    win_styles: tuple[float, ...] = (0.7, 0.15, 0.15),
) -> HandSpec:
    """Draw a legal winning hand (≤ 4 copies, red fives ≤ 1 per suit, chi only from the left).

    When the scoring engine is importable and `require_score` is set, only hands it scores
    without error (i.e. with a yaku under the returned context) are returned.
    `meld_counts` (weights of 0…4 called melds), `meld_kinds` (chi, pon, minkan, kakan, ankan) and
    `win_styles` (drawn tile apart, in the row, sideways at the row's end) shift the mix, e.g. for a
    training set richer in sideways / stacked / face-down tiles; the defaults are the usual mix
    (and keep every existing seed's hand); `meld_kinds` and `win_styles` must each sum to 1.
    """
    score_json = None
    if require_score:
        try:
            from scoring import score_json  # type: ignore[attr-defined]
        except ImportError:
            score_json = None
    last: HandSpec | None = None
    for _ in range(tries):
        spec = _draw_hand(rng, players=players, max_melds=max_melds, p_red=p_red, meld_counts=meld_counts,
                          meld_kinds=meld_kinds, win_styles=win_styles)
        if spec is None:
            continue
        last = spec
        if score_json is None:
            return spec
        try:
            result = score_json(dict(spec.hand))
        except Exception:  # noqa: BLE001 - the engine is someone else's; a crash means "not usable"
            continue
        if not result.get("error"):
            spec.result = result
            return spec
    if last is None:
        raise RuntimeError("could not draw a winning hand")
    return last


def _draw_hand(rng: np.random.Generator, *, players: int, max_melds: int, p_red: float,
               meld_counts: tuple[float, ...], meld_kinds: tuple[float, ...],
               win_styles: tuple[float, ...]) -> HandSpec | None:
    pool = _Pool(players)
    red_left = {s: not (players == 3 and s == "m") for s in "mps"}
    shape = rng.choice(["regular", "chiitoi", "kokushi"], p=[0.9, 0.07, 0.03])
    melds: list[dict] = []
    meld_groups: list[list[SeqTile]] = []
    closed: list[str] = []
    if shape == "kokushi":
        base = list(_TERMINALS_HONORS)
        pair = base[int(rng.integers(0, len(base)))]
        closed = base + [pair]
        if not pool.take(closed):
            return None
    elif shape == "chiitoi":
        choices = [t for t in ALL34 if pool.left[t] >= 2]
        pairs = rng.choice(choices, size=7, replace=False)
        for t in pairs:
            pool.take([t, t])
            closed += [t, t]
        closed = _redden(closed, red_left, rng, p_red)
    else:
        weights = np.array(meld_counts, dtype=float)[: max_melds + 1]
        n_melds = int(rng.choice(len(weights), p=weights / weights.sum()))
        for _ in range(n_melds):
            kind = str(rng.choice(["chi", "pon", "minkan", "kakan", "ankan"], p=list(meld_kinds)))
            if players == 3 and kind == "chi":
                kind = "pon"
            tiles = _random_set(rng, pool, kind=kind)
            if tiles is None:
                return None
            tiles = _redden(tiles, red_left, rng, p_red)
            meld, group = _meld_layout(rng, kind, tiles)
            melds.append(meld)
            meld_groups.append(group)
        for _ in range(4 - n_melds):
            kind = "chi" if rng.random() < 0.6 and players == 4 or rng.random() < 0.3 else "pon"
            tiles = _random_set(rng, pool, kind=kind)
            if tiles is None:
                return None
            closed += tiles
        pair = None
        for _ in range(30):
            t = ALL34[int(rng.integers(0, 34))]
            if pool.take([t, t]):
                pair = t
                break
        if pair is None:
            return None
        closed += [pair, pair]
        closed = _redden(closed, red_left, rng, p_red)

    closed.sort(key=_sort_key)
    win_tile = closed[int(rng.integers(0, len(closed)))]
    rest = list(closed)
    rest.remove(win_tile)
    if len(rest) >= 2 and rng.random() < 0.08:  # some players don't sort: swap two neighbours
        i = int(rng.integers(0, len(rest) - 1))
        rest[i], rest[i + 1] = rest[i + 1], rest[i]
    style = str(rng.choice(["apart", "in_row", "sideways_end"], p=list(win_styles)))
    closed_group = [SeqTile(t) for t in rest]
    groups: list[list[SeqTile]] = []
    if style == "apart":
        groups += [closed_group, [SeqTile(win_tile)]]
    elif style == "sideways_end":
        groups.append(closed_group + [SeqTile(win_tile, sideways=True)])
    else:
        row = sorted(rest + [win_tile], key=_sort_key)
        groups.append([SeqTile(t) for t in row])
    groups += meld_groups
    nuki = 0
    if players == 3 and pool.left["4z"] > 0 and rng.random() < 0.35:
        nuki = int(rng.integers(1, pool.left["4z"] + 1))
        pool.take(["4z"] * nuki)
        groups.append([SeqTile("4z") for _ in range(nuki)])
    win = "tsumo" if style == "apart" and rng.random() < 0.6 else "ron"
    hand = {
        "concealed": _compact(closed),
        "win_tile": win_tile,
        "melds": melds,
        "win": win,
        "players": players,
        "rules": "tenhou" if players == 4 else "sanma",
        "round_wind": str(rng.choice(["E", "S"])),
        "seat_wind": str(rng.choice(["E", "S", "W", "N"][:players])),
    }
    if win == "ron":
        hand["discarder"] = str(rng.choice(_DIRECTIONS[: 3 if players == 4 else 3]))
    if nuki:
        hand["nukidora"] = nuki
    if not melds and rng.random() < 0.4:
        hand["riichi"] = True
    return HandSpec(sequence=format_sequence(groups), hand=hand)


def _meld_layout(rng: np.random.Generator, kind: str, tiles: list[str]) -> tuple[dict, list[SeqTile]]:
    """A called meld as the §1 dict and as laid on the table (sideways tile shows who called)."""
    if kind == "ankan":
        # Closed kan: two face-down tiles at the ends (most tables) or in the middle. A red five
        # is shown face-up (so the photo tells it).
        tiles = sorted(tiles, key=lambda t: t[0] != "0")
        if rng.random() < 0.7:
            group = [SeqTile(BACK), SeqTile(tiles[0]), SeqTile(tiles[1]), SeqTile(BACK)]
        else:
            group = [SeqTile(tiles[0]), SeqTile(BACK), SeqTile(BACK), SeqTile(tiles[1])]
        return {"kind": "ankan", "tiles": _compact(tiles)}, group
    direction = "left" if kind == "chi" else str(rng.choice(_DIRECTIONS))
    called_i = int(rng.integers(0, len(tiles)))
    called = tiles[called_i]
    others = tiles[:called_i] + tiles[called_i + 1:]
    if kind == "kakan":
        others, added = others[:2], others[2]
    n_row = 3 if kind in ("chi", "pon", "kakan") else 4
    pos = {"left": 0, "across": 1 if n_row == 3 or rng.random() < 0.5 else 2, "right": n_row - 1}[direction]
    row: list[SeqTile] = [SeqTile(t) for t in others]
    row.insert(pos, SeqTile(called, sideways=True))
    if kind == "kakan":
        row.insert(pos + 1, SeqTile(added, sideways=True, stacked=True))
    meld = {"kind": kind, "tiles": _compact(tiles), "called": called, "from": direction}
    return meld, row


def hand_from_groups(groups: list[list[SeqTile]]) -> dict | None:
    """The §1 tile keys (concealed, win_tile, melds, nukidora) a laid-out sequence shows, or None.

    Derivable when: the first group is the closed part, a lone tile after it is the winning tile
    when the row lacks one (else the row's last tile if it lies sideways, else unknown → None),
    the other groups are
    melds recognisable by their sideways / face-down tiles, and a group of only norths is nuki-dora.
    """
    if not groups:
        return None
    closed = [t for t in groups[0]]
    rest = groups[1:]
    win_tile: str | None = None
    complete = len(closed) % 3 == 2  # the row already holds the winning tile
    if not complete and rest and len(rest[0]) == 1 and not rest[0][0].sideways and _face(rest[0][0]):
        win_tile = rest[0][0].label
        closed = closed + rest[0]
        rest = rest[1:]
    elif closed and closed[-1].sideways:
        win_tile = closed[-1].label
    if win_tile is None or any(_face(t) is None for t in closed):
        return None
    melds, nuki = [], 0
    for g in rest:
        faces = [t.label for t in g if _face(t)]
        if all(t.label == "4z" and not t.sideways for t in g):
            nuki += len(g)
            continue
        n_down = sum(_face(t) is None for t in g)
        if n_down == 2 and len(g) == 4 and len(set(_norm(f) for f in faces)) == 1:
            f = faces[0]
            four = faces + [_norm(f)] * 2
            melds.append({"kind": "ankan", "tiles": _compact(four)})
            continue
        side = [i for i, t in enumerate(g) if t.sideways and not t.stacked]
        if len(side) != 1 or n_down:
            return None
        pos, called = side[0], g[side[0]].label
        stacked = any(t.stacked for t in g)
        n_row = len(g) - (1 if stacked else 0)
        direction = "left" if pos == 0 else "right" if pos == n_row - 1 else "across"
        tiles = [t.label for t in g]
        if stacked and len(g) == 4:
            kind = "kakan"
        elif len(g) == 4:
            kind = "minkan"
        elif len(g) == 3 and len({_norm(t) for t in tiles}) == 1:
            kind = "pon"
        elif len(g) == 3:
            kind = "chi"
        else:
            return None
        melds.append({"kind": kind, "tiles": _compact(tiles), "called": called, "from": direction})
    hand = {"concealed": _compact([t.label for t in closed]), "win_tile": win_tile, "melds": melds}
    if nuki:
        hand["nukidora"] = nuki
    return hand


def _norm(tile: str) -> str:
    return "5" + tile[1] if tile[0] == "0" else tile


# --------------------------------------------------------------------------------------------
# 3-D poses
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TileDims:
    """Physical size in tile widths: height of the face and thickness; `back` = coloured layer share."""

    width: float = 1.0
    height: float = 1.32
    depth: float = 0.75
    back: float = 0.38


@dataclass
class TilePose:
    """One tile in the world: centre and axes (r = face right, u = face up, n = face normal)."""

    label: str                      # class shown (TILE_CLASSES name; `back` when face-down)
    face: str | None                # the tile's face even if face-down (None if unknown)
    center: np.ndarray
    r: np.ndarray
    u: np.ndarray
    n: np.ndarray
    in_hand: bool = False
    group: int = -1
    index: int = -1                 # position in the sequence (hand tiles), else -1
    sideways: bool = False
    stacked: bool = False
    face_down: bool = False
    standing: bool = False
    kind: str = "hand"              # hand | wall | discard | other_hand | loose | dora

    def corners(self, dims: TileDims) -> np.ndarray:
        """8 corners, index bits: (r sign, u sign, n sign) → i = 4*(r>0) + 2*(u>0) + (n>0)."""
        half = np.stack([self.r * dims.width / 2, self.u * dims.height / 2, self.n * dims.depth / 2])
        return self.center + _SIGNS @ half

    def footprint(self, dims: TileDims) -> tuple[float, float, float, float]:
        c = self.corners(dims)
        return float(c[:, 0].min()), float(c[:, 1].min()), float(c[:, 0].max()), float(c[:, 1].max())


_Z = np.array([0.0, 0.0, 1.0])
_SIGNS = np.array([[sr, su, sn] for sr in (-1, 1) for su in (-1, 1) for sn in (-1, 1)], dtype=np.float64)


def _rot_z(v: np.ndarray, ang: float) -> np.ndarray:
    c, s = np.cos(ang), np.sin(ang)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]])


def make_pose(
    label: str,
    face: str | None,
    *,
    x: float,
    y: float,
    dims: TileDims,
    posture: str,
    yaw: float = 0.0,
    z0: float = 0.0,
    **flags,
) -> TilePose:
    """A tile resting on a surface at height z0, its footprint's near-left corner at (x, y) before yaw.

    posture: `up` (lying face-up, face top away from the owner), `side` (lying face-up, top to
    the owner's left — how a called tile is turned), `side_r` (top to the right), `down` (lying
    face-down), `stand` (standing, face towards the owner), `stand_back` (standing, back towards
    the owner — someone else's hand seen from behind).
    """
    W, H, D = dims.width, dims.height, dims.depth
    if posture == "up":
        n, u, ext = _Z, np.array([0.0, 1.0, 0.0]), (W, H, D)
    elif posture == "side":
        n, u, ext = _Z, np.array([-1.0, 0.0, 0.0]), (H, W, D)
    elif posture == "side_r":
        n, u, ext = _Z, np.array([1.0, 0.0, 0.0]), (H, W, D)
    elif posture == "down":
        n, u, ext = -_Z, np.array([0.0, 1.0, 0.0]), (W, H, D)
    elif posture == "stand":
        n, u, ext = np.array([0.0, -1.0, 0.0]), _Z, (W, D, H)
    elif posture == "stand_back":
        n, u, ext = np.array([0.0, 1.0, 0.0]), _Z, (W, D, H)
    else:
        raise ValueError(posture)
    local_c = np.array([ext[0] / 2, ext[1] / 2, 0.0])
    center = np.array([x, y, z0 + ext[2] / 2]) + _rot_z(local_c, yaw)
    n, u = _rot_z(n, yaw), _rot_z(u, yaw)
    r = np.cross(u, n)
    return TilePose(label=label, face=face, center=center, r=r, u=u, n=n,
                    face_down=posture in ("down", "stand_back"), standing=posture.startswith("stand"), **flags)


def posture_extent(posture: str, dims: TileDims) -> tuple[float, float]:
    """Footprint (along x, along y) of a tile in this posture, before yaw."""
    W, H, D = dims.width, dims.height, dims.depth
    return {"up": (W, H), "down": (W, H), "side": (H, W), "side_r": (H, W),
            "stand": (W, D), "stand_back": (W, D)}[posture]


def transform_poses(poses: list[TilePose], *, yaw: float, dx: float, dy: float) -> list[TilePose]:
    """Rotate a block of poses about the origin then move it (to put a group elsewhere on the table)."""
    out = []
    for p in poses:
        c = _rot_z(p.center, yaw) + np.array([dx, dy, 0.0])
        out.append(TilePose(**{**p.__dict__, "center": c, "r": _rot_z(p.r, yaw), "u": _rot_z(p.u, yaw),
                                "n": _rot_z(p.n, yaw)}))
    return out


@dataclass
class HandLayout:
    poses: list[TilePose]
    groups: list[list[SeqTile]]
    extent: tuple[float, float, float, float]  # x0, y0, x1, y1 of the hand on the table
    standing: bool = False
    extras: dict = field(default_factory=dict)


def layout_hand(
    groups: list[list[SeqTile]],
    rng: np.random.Generator,
    dims: TileDims,
    *,
    standing: bool,
    side_posture: str = "side",
    stack_on_top: float = 0.0,
    drawn_loose: float = 0.0,
) -> HandLayout:
    """Lay a hand out as players do: a row from the owner's left, groups apart, melds lying.

    The closed part (group 0) and a lone drawn tile stand when `standing`; called melds,
    closed kans and nuki-dora always lie face-up (face-down for `x`). Sideways tiles sit on the
    near edge; a stacked (`=`) tile lies beside its sideways tile, further from the owner, or
    (share `stack_on_top`, opt-in: 0 draws nothing from `rng`) on top of it, pushed back by part
    of a tile's width so the lower tile's near edge still shows.

    `drawn_loose` (share of hands with a drawn tile set apart; opt-in: 0 draws nothing from `rng`,
    session 12): that tile lies face-up loose beside the row as a player drops it, turned 10-40°
    and/or lifted off the row (pushed away from the owner, sometimes towards), as real-dev
    lietxia_70008812's drawn 0p (see `_loose_drawn_pose`).
    """
    poses: list[TilePose] = []
    x = 0.0
    index = 0
    tight = rng.uniform(0.0, 0.04)
    for gi, group in enumerate(groups):
        if gi > 0:
            lone = len(group) == 1
            x += rng.uniform(0.25, 0.9) if lone and gi == 1 else rng.uniform(0.35, 2.2)
        is_meld = gi > 0 and not (gi == 1 and len(group) == 1)
        stand_group = standing and not is_meld
        last_side: tuple[float, float] | None = None  # near-left corner of the last sideways tile
        for t in group:
            if t.stacked:
                if last_side is None:
                    raise SequenceError("'=' without a sideways tile")
                # beside the sideways tile, further from the owner
                sx, sy = last_side
                if stack_on_top > 0 and rng.random() < stack_on_top:
                    pose = make_pose(t.label, _face(t), x=sx + rng.uniform(-0.08, 0.08),
                                     y=sy + dims.width * rng.uniform(0.15, 0.6), z0=dims.depth, dims=dims,
                                     posture=side_posture, yaw=rng.normal(0, 0.04), in_hand=True, group=gi,
                                     index=index, sideways=True, stacked=True, kind="hand")
                    poses.append(pose)
                    index += 1
                    continue
                pose = make_pose(t.label, _face(t), x=sx + rng.uniform(-0.04, 0.04), y=sy + dims.width + rng.uniform(0.0, 0.06),
                                 dims=dims, posture=side_posture, yaw=rng.normal(0, 0.02),
                                 in_hand=True, group=gi, index=index, sideways=True, stacked=True, kind="hand")
                poses.append(pose)
                index += 1
                continue
            if (drawn_loose > 0 and gi == 1 and not is_meld and not t.sideways and _face(t) is not None
                    and rng.random() < drawn_loose):
                pose, x_end = _loose_drawn_pose(t, rng, dims, x=x, gi=gi, index=index)
                poses.append(pose)
                index += 1
                x = x_end + tight + abs(rng.normal(0, 0.015))
                continue
            if t.sideways:
                posture = side_posture
            elif _face(t) is None:
                posture = "down"
            else:
                posture = "stand" if stand_group else "up"
            ex, _ = posture_extent(posture, dims)
            y = rng.uniform(-0.03, 0.03)
            pose = make_pose(t.label, _face(t), x=x, y=y, dims=dims, posture=posture, yaw=rng.normal(0, 0.015),
                             in_hand=True, group=gi, index=index, sideways=t.sideways, kind="hand")
            if t.sideways:
                last_side = (x, y)
            poses.append(pose)
            index += 1
            x += ex + tight + abs(rng.normal(0, 0.015))
    x0 = min(p.footprint(dims)[0] for p in poses)
    y0 = min(p.footprint(dims)[1] for p in poses)
    x1 = max(p.footprint(dims)[2] for p in poses)
    y1 = max(p.footprint(dims)[3] for p in poses)
    return HandLayout(poses=poses, groups=groups, extent=(x0, y0, x1, y1), standing=standing)


# how a loose drawn tile lies (session 12, `layout_hand(drawn_loose=...)`): P(turned only), P(turned and
# lifted); the rest lifted only. Turn magnitude in degrees, lift in tile heights.
DRAWN_LOOSE_MODES = (0.35, 0.45)
DRAWN_TURN_DEG = (10.0, 40.0)
DRAWN_LIFT = (0.15, 0.9)


def _loose_drawn_pose(t: SeqTile, rng: np.random.Generator, dims: TileDims, *, x: float, gi: int,
                      index: int) -> tuple[TilePose, float]:
    """The drawn tile lying face-up apart from the row, turned by 10-40° either way and/or lifted off
    the row's line (away from the owner 80 % of the time, else towards); its footprint starts at
    `x` (so it never runs into the row). Returns the pose and where its footprint ends along x."""
    u = rng.random()
    turned = u < DRAWN_LOOSE_MODES[0] + DRAWN_LOOSE_MODES[1]
    lifted = u >= DRAWN_LOOSE_MODES[0]
    yaw = rng.normal(0, 0.015)
    if turned:
        yaw = float(np.radians(rng.uniform(*DRAWN_TURN_DEG))) * (1.0 if rng.random() < 0.5 else -1.0)
    y = rng.uniform(-0.03, 0.03)
    if lifted:
        y += dims.height * rng.uniform(*DRAWN_LIFT) * (1.0 if rng.random() < 0.8 else -1.0)
    pose = make_pose(t.label, _face(t), x=x, y=y, dims=dims, posture="up", yaw=yaw, in_hand=True, group=gi,
                     index=index, sideways=False, kind="hand")
    fx0, _, fx1, _ = pose.footprint(dims)
    pose.center = pose.center + np.array([x - fx0, 0.0, 0.0])
    return pose, x + (fx1 - fx0)


# --------------------------------------------------------------------------------------------
# Distractors: walls, discards, other hands, loose tiles (all labelled `in_hand=False`)
# --------------------------------------------------------------------------------------------

def _random_face(rng: np.random.Generator) -> str:
    return TILE_CLASSES[int(rng.integers(0, 37))]


def wall_block(rng: np.random.Generator, dims: TileDims, *, stacks: int, dora: bool) -> list[TilePose]:
    """A wall of `stacks` two-high face-down stacks along +x (a dora indicator face-up on top)."""
    poses = []
    gap = rng.uniform(0.0, 0.03)
    dora_at = int(rng.integers(0, stacks)) if dora else -1
    for i in range(stacks):
        x = i * (dims.width + gap)
        for level in (0, 1):
            if level == 1 and rng.random() < 0.06:
                continue  # a stack already drawn from
            up = level == 1 and i == dora_at
            f = _random_face(rng)
            poses.append(make_pose(f if up else BACK, f, x=x, y=0.0, dims=dims, posture="up" if up else "down",
                                   z0=level * dims.depth, yaw=rng.normal(0, 0.01), kind="dora" if up else "wall"))
    return poses


def discard_block(rng: np.random.Generator, dims: TileDims, *, count: int) -> list[TilePose]:
    """Discards in rows of six, face-up, one maybe sideways (a riichi declaration)."""
    poses = []
    riichi = int(rng.integers(0, count)) if rng.random() < 0.3 else -1
    x = y = 0.0
    for i in range(count):
        if i and i % 6 == 0:
            x, y = 0.0, y + dims.height + rng.uniform(0.02, 0.1)
        f = _random_face(rng)
        side = i == riichi
        posture = "side" if side else "up"
        poses.append(make_pose(f, f, x=x + rng.normal(0, 0.03), y=y + rng.normal(0, 0.03), dims=dims,
                               posture=posture, yaw=rng.normal(0, 0.03), sideways=side, kind="discard"))
        x += posture_extent(posture, dims)[0] + rng.uniform(0.0, 0.08)
    return poses


def other_hand_block(rng: np.random.Generator, dims: TileDims, *, count: int) -> list[TilePose]:
    """Another player's concealed hand as this side of the table sees it: standing, backs to us."""
    poses = []
    x = 0.0
    for _ in range(count):
        f = _random_face(rng)
        poses.append(make_pose(BACK, f, x=x, y=0.0, dims=dims, posture="stand_back", yaw=rng.normal(0, 0.01),
                               kind="other_hand"))
        x += dims.width + rng.uniform(0.0, 0.04)
    return poses


def loose_tile(rng: np.random.Generator, dims: TileDims) -> list[TilePose]:
    f = _random_face(rng)
    up = rng.random() < 0.6
    return [make_pose(f if up else BACK, f, x=0.0, y=0.0, dims=dims, posture="up" if up else "down",
                      yaw=rng.uniform(-np.pi, np.pi), kind="loose")]
