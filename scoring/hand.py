"""The hand to score: tiles, melds and the context of the win (CONTRACTS §1), validated.

`Hand.from_json` reads the §1 object; the constructor checks everything that does not depend on
the rule set (tile counts, meld shapes, flags that contradict each other). Checks that need the
rule set (3-player tiles, red-five counts, kan dora…) happen in `engine.score`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import HandError
from .tiles import (NORTH, TILE_BY_TEXT, WIND_CODES, WIND_NAMES, Tile, count_tiles, format_tiles, parse_wind,
                    read_counted, tile, tiles_tuple)

MELD_KINDS = ("chi", "pon", "minkan", "kakan", "ankan")
_KIND_ALIASES = {"daiminkan": "minkan", "shouminkan": "kakan", "shominkan": "kakan", "chii": "chi"}
SEATS = ("left", "across", "right")
_SEAT_SET = frozenset(SEATS)
FLAGS = ("riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei",
         "tenhou", "chiihou", "renhou")
# keys of §1 that Hand reads; "rules", "id", "expected", "players" handled by the caller / ignored
HAND_KEYS = frozenset(("concealed", "win_tile", "melds", "win", "round_wind", "seat_wind", "dora_indicators",
                       "ura_indicators", "honba", "kyotaku", "nukidora", "discarder", "players", "liable",
                       "robbed_kan") + FLAGS)
IGNORED_KEYS = frozenset(("rules", "id", "expected"))
_KNOWN_KEYS = HAND_KEYS | IGNORED_KEYS
_UNSET_IDS = frozenset((id(None), id(False)))  # a flag given as null or false is not set
# the keys Hand.from_json reads, in the order its local variables take them (flags last)
_READ_KEYS = ("concealed", "win_tile", "melds", "win", "dora_indicators", "ura_indicators", "players", "robbed_kan",
              "round_wind", "seat_wind", "honba", "kyotaku", "nukidora", "discarder", "liable") + FLAGS
_FLAG_VALUES = tuple(tuple(bool(bits >> i & 1) for i in range(len(FLAGS))) for bits in range(1 << len(FLAGS)))


@dataclass(frozen=True)
class Meld:
    """A called or declared set. `called` is the tile taken from another player (for kakan: the
    tile the original pon took) and `from_` the seat it came from, relative to the winner."""

    kind: str
    tiles: tuple[Tile, ...]
    called: Tile | None = None
    from_: str | None = None

    def __post_init__(self) -> None:
        self.validate("meld")

    @property
    def is_open(self) -> bool:
        return self.kind != "ankan"

    @property
    def text(self) -> str:
        """"pon 777z" — the meld in one word of MPSZ."""
        text = self._text
        if text is None:
            text = f"{self.kind} {format_tiles(self.tiles)}"
            object.__setattr__(self, "_text", text)
        return text

    @property
    def is_kan(self) -> bool:
        return len(self.tiles) == 4

    # derived in validate(): lowest tile index (the set's identity: its tile, or a chi's start), the
    # tile indices, their kinds as a bit set and the red fives per suit (m, p, s): what Hand counts
    first: int = field(init=False, repr=False, compare=False, default=-1)
    _text: str | None = field(init=False, repr=False, compare=False, default=None)
    counts: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False, default=())  # (index, copies)
    mask: int = field(init=False, repr=False, compare=False, default=0)
    reds: tuple[int, int, int] | None = field(init=False, repr=False, compare=False, default=None)
    # what the scorer sees of a triplet or kan: (tile, concealed, kan); None for a chi
    set_shape: tuple[int, bool, bool] | None = field(init=False, repr=False, compare=False, default=None)

    def validate(self, where: str) -> None:
        kind, tiles = self.kind, self.tiles
        if kind not in MELD_KINDS:
            raise HandError(f"unknown meld kind {kind!r}; use one of {', '.join(MELD_KINDS)}", f"{where}.kind")
        if type(tiles) is not tuple or not all(type(t) is Tile for t in tiles):
            raise HandError("expected a tuple of tiles", f"{where}.tiles")
        idx = sorted(t.index for t in tiles)
        d = self.__dict__
        if idx:
            d["first"] = idx[0]
        d["counts"] = tuple((i, idx.count(i)) for i in sorted(set(idx)))
        mask = 0
        reds = None
        for t in tiles:
            mask |= 1 << t.index
            if t.red:
                reds = reds or [0, 0, 0]
                reds[t.index // 9] += 1
        d["mask"] = mask
        d["reds"] = tuple(reds) if reds else None
        d["set_shape"] = None if kind == "chi" else (idx[0] if idx else -1, kind == "ankan", len(tiles) == 4)
        if kind == "chi":
            if len(idx) != 3 or idx[0] >= 27 or idx[0] // 9 != idx[2] // 9 or idx != [idx[0], idx[0] + 1, idx[0] + 2]:
                raise HandError(f"a chi must be three consecutive tiles of one suit, got {format_tiles(tiles)!r}",
                                f"{where}.tiles")
        else:
            need = 3 if kind == "pon" else 4
            if len(idx) != need or idx[0] != idx[-1]:
                raise HandError(f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} must be {need} identical tiles, got {format_tiles(tiles)!r}", f"{where}.tiles")
        if kind == "ankan":
            if self.from_ is not None:
                raise HandError("an ankan (closed kan) is not called from anyone; drop 'from'", f"{where}.from")
            if self.called is not None:
                raise HandError("an ankan (closed kan) has no called tile; drop 'called'", f"{where}.called")
            return
        if self.called is not None and self.called not in tiles:
            raise HandError(f"called tile {self.called} is not one of the meld's tiles {format_tiles(tiles)}",
                            f"{where}.called")
        if self.from_ is not None and self.from_ not in SEATS:
            raise HandError(f"expected left, across or right, got {self.from_!r}", f"{where}.from")
        if kind == "chi" and self.from_ not in (None, "left"):
            raise HandError("a chi can only be called from the left (kamicha)", f"{where}.from")

    def to_json(self) -> dict:
        out: dict[str, Any] = {"kind": self.kind, "tiles": format_tiles(self.tiles)}
        if self.called is not None:
            out["called"] = str(self.called)
        if self.from_ is not None:
            out["from"] = self.from_
        return out

    @staticmethod
    def from_json(obj: Any, where: str = "melds[0]") -> "Meld":
        """A §1 meld object -> Meld. Valid melds of plain text values are shared: there are only a
        few thousand distinct ones and a Meld is immutable, so reading one is a dict lookup."""
        if type(obj) is dict:
            kind = obj.get("kind")
            text = obj.get("tiles")
            called = obj.get("called")
            src = obj.get("from")
            # cacheable: kind and tiles are text, called/from text or absent, no other key
            if type(kind) is str and type(text) is str and len(text) <= 24 and (called is None or type(called) is str) \
                    and (src is None or type(src) is str) and len(obj) == 2 + (called is not None) + (src is not None):
                key = (kind, text, called, src)
                m = _MELD_CACHE.get(key)
                if m is None:
                    m = Meld._read(obj, where)
                    if len(_MELD_CACHE) > 8192:  # bounded: any input may add melds
                        _MELD_CACHE.clear()
                    _MELD_CACHE[key] = m
                return m
        return Meld._read(obj, where)

    @staticmethod
    def _read(obj: Any, where: str) -> "Meld":
        if isinstance(obj, Meld):
            return obj
        if not isinstance(obj, dict):
            raise HandError("expected an object with kind, tiles, called, from", where)
        kind = obj.get("kind")
        if not isinstance(kind, str):
            raise HandError(f"expected one of {', '.join(MELD_KINDS)}", f"{where}.kind")
        kind = _KIND_ALIASES.get(kind.lower(), kind.lower())
        if "tiles" not in obj:
            raise HandError("missing", f"{where}.tiles")
        tiles = _tiles(obj["tiles"], f"{where}.tiles")
        called = obj.get("called")
        called_t = tile(called, f"{where}.called") if called is not None else None
        src = obj.get("from")
        if src is not None and not isinstance(src, str):
            raise HandError(f"expected left, across or right, got {src!r}", f"{where}.from")
        for key in obj:
            if key not in ("kind", "tiles", "called", "from"):
                raise HandError(f"unknown meld key {key!r} (a meld has kind, tiles, called, from)", where)
        m = Meld.__new__(Meld)
        object.__setattr__(m, "kind", kind)
        object.__setattr__(m, "tiles", tiles)
        object.__setattr__(m, "called", called_t)
        object.__setattr__(m, "from_", src.lower() if isinstance(src, str) else None)
        m.validate(where)
        return m


_MELD_CACHE: dict[tuple, Meld] = {}


def _meld(obj: Any, i: int) -> Meld:
    """melds[i] of a §1 hand: a shared Meld when seen before, else Meld.from_json."""
    if type(obj) is dict:
        try:
            m = _MELD_CACHE.get((obj.get("kind"), obj.get("tiles"), obj.get("called"), obj.get("from")))
        except TypeError:  # a list or object where text belongs: Meld.from_json explains
            m = None
        if m is not None and len(obj) == 2 + (m.called is not None) + (m.from_ is not None):
            return m
    return Meld.from_json(obj, f"melds[{i}]")


def _tiles(value: Any, where: str) -> tuple[Tile, ...]:
    """Tiles from MPSZ text or a list of MPSZ texts."""
    if type(value) is list and len(value) == 1 and type(value[0]) is str:  # one indicator: ["3m"]
        one = TILE_BY_TEXT.get(value[0])
        if one is not None:
            return (one,)
    if isinstance(value, str):
        return tiles_tuple(value, where)
    if isinstance(value, (list, tuple)):
        out: list[Tile] = []
        for i, v in enumerate(value):
            one = TILE_BY_TEXT.get(v) if type(v) is str else None
            if one is not None:
                out.append(one)
            elif isinstance(v, Tile):
                out.append(v)
            else:
                out.extend(tiles_tuple(v, f"{where}[{i}]"))
        return tuple(out)
    raise HandError(f"expected tiles in MPSZ notation, got {type(value).__name__}", where)


def _count(obj: dict, key: str, hi: int) -> int:
    v = obj.get(key, 0)
    if type(v) is int and 0 <= v <= hi:
        return v
    if v is None:
        return 0
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise HandError(f"expected a whole number, got {v!r}", key)
    if not 0 <= v <= hi:
        raise HandError(f"expected 0..{hi}, got {v}", key)
    return v


def _seat(value: Any, key: str) -> str | None:
    if value is None:
        return None
    if type(value) is str and value in _SEAT_SET:
        return value
    if not isinstance(value, str) or value.strip().lower() not in SEATS:
        raise HandError(f"expected left, across or right (relative to the winner), got {value!r}", key)
    return value.strip().lower()


@dataclass(frozen=True)
class Hand:
    """A winning hand and its context. Winds are 0..3 (E S W N); seats are relative to the winner."""

    concealed: tuple[Tile, ...]
    win_tile: Tile
    melds: tuple[Meld, ...] = ()
    tsumo: bool = False
    round_wind: int = 0
    seat_wind: int = 0
    dora_indicators: tuple[Tile, ...] = ()
    ura_indicators: tuple[Tile, ...] = ()
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    rinshan: bool = False
    chankan: bool = False
    haitei: bool = False
    houtei: bool = False
    tenhou: bool = False
    chiihou: bool = False
    renhou: bool = False
    honba: int = 0
    kyotaku: int = 0
    nukidora: int = 0
    discarder: str | None = None
    players: int | None = None
    liable: str | None = None         # pao: the liable seat when the caller states it
    robbed_kan: str = "kakan"         # chankan on an added kan, or (kokushi) on a closed kan
    notes: tuple[str, ...] = field(default=(), compare=False)
    # derived in validate(): counts of the concealed tiles per kind, red fives per suit (m, p, s)
    conc_counts: tuple[int, ...] = field(init=False, repr=False, compare=False, default=())
    red_counts: tuple[int, int, int] = field(init=False, repr=False, compare=False, default=(0, 0, 0))
    conc_mask: int = field(init=False, repr=False, compare=False, default=0)  # bit i: tile kind i is concealed
    # concealed + meld tiles (what dora count on), their kinds as a bit set, and their red fives per suit
    hand_counts: tuple[int, ...] = field(init=False, repr=False, compare=False, default=())
    hand_mask: int = field(init=False, repr=False, compare=False, default=0)
    hand_reds: tuple[int, int, int] = field(init=False, repr=False, compare=False, default=(0, 0, 0))
    flag_bits: int = field(init=False, repr=False, compare=False, default=0)  # bit i: FLAGS[i] is set
    # the melds as the scorer sees them: (closed, chi starts, triplet/kan tiles, (tile, concealed, kan) per
    # triplet-like meld, number of kans, number of closed kans)
    meld_shape: tuple = field(init=False, repr=False, compare=False, default=(True, (), (), (), 0, 0))

    def __post_init__(self) -> None:
        self.validate()

    # ---------------------------------------------------------------- reading
    @staticmethod
    def from_json(obj: Any) -> "Hand":
        """The §1 object -> Hand. Unknown keys are ignored but listed in `notes`.

        Fields are read (and refused) in a fixed order, so the first problem of a hand is the
        one reported. This is the hot path of `score_json`: every key is fetched in one call, the
        Hand is filled in directly rather than through the dataclass constructor, and `validate`
        (exactly as for `Hand(...)`) is handed the tile counts made while parsing."""
        if type(obj) is not dict and not isinstance(obj, dict):
            raise HandError(f"expected a JSON object for the hand, got {type(obj).__name__}")
        (text, win_text, melds_obj, how, dora, ura, players, robbed, round_wind, seat_wind, honba, kyotaku, nukidora,
         discarder, liable, *flags) = map(obj.get, _READ_KEYS)
        if text is None or win_text is None:  # missing, or given as null
            if "concealed" not in obj:
                raise HandError("missing (every tile not in a meld, including the winning tile)", "concealed")
            if "win_tile" not in obj:
                raise HandError("missing (the winning tile, one of the concealed tiles)", "win_tile")
        if isinstance(text, str):  # parsed and counted in one pass
            concealed, counted = read_counted(text, "concealed")
        else:
            concealed = _tiles(text, "concealed")
            counted = None
        win = TILE_BY_TEXT.get(win_text) if type(win_text) is str else None
        if win is None:
            win = tile(win_text, "win_tile") if isinstance(win_text, str) else None
            if win is None:
                raise HandError(f"expected one tile in MPSZ notation, got {win_text!r}", "win_tile")
        if melds_obj is None or melds_obj == []:  # ({}, "", 0 or false are not "no melds": refused below)
            melds = ()
        elif isinstance(melds_obj, list):
            read = []
            for i, m in enumerate(melds_obj):
                read.append(_meld(m, i))
            melds = tuple(read)
        else:
            raise HandError("expected a list of melds", "melds")
        if how == "ron":
            tsumo = False
        elif how == "tsumo":
            tsumo = True
        else:
            if how is None and "win" not in obj:
                how = "ron"
            if not isinstance(how, str) or how.lower() not in ("ron", "tsumo"):
                raise HandError(f"expected 'ron' or 'tsumo', got {how!r}", "win")
            tsumo = how.lower() == "tsumo"
        if dora:
            one = TILE_BY_TEXT.get(dora[0]) if type(dora) is list and len(dora) == 1 and type(dora[0]) is str else None
            dora = (one,) if one is not None else _tiles(dora, "dora_indicators")
        else:
            dora = ()
        ura = _tiles(ura, "ura_indicators") if ura else ()
        if players is not None and (isinstance(players, bool) or players not in (3, 4)):
            raise HandError(f"expected 3 or 4, got {players!r}", "players")
        if robbed != "kakan":
            if robbed is None and "robbed_kan" not in obj:
                robbed = "kakan"
            elif robbed != "ankan":
                raise HandError(f"expected 'kakan' or 'ankan', got {robbed!r}", "robbed_kan")
        notes = () if _KNOWN_KEYS.issuperset(obj) else \
            tuple(f"ignored unknown key {k!r}" for k in obj if k not in _KNOWN_KEYS)
        bits = 0
        if not _UNSET_IDS.issuperset(map(id, flags)):  # some flag is set (or is not a boolean)
            for i, v in enumerate(flags):
                if v is True:
                    bits |= 1 << i
                elif v is not None and v is not False:
                    raise HandError(f"expected true or false, got {v!r}", FLAGS[i])
        if round_wind is None and "round_wind" not in obj:
            round_wind = 0
        else:
            round_wind = WIND_CODES.get(round_wind) if type(round_wind) is str else None
            if round_wind is None:
                round_wind = parse_wind(obj["round_wind"], "round_wind")
        if seat_wind is None and "seat_wind" not in obj:
            seat_wind = 0
        else:
            seat_wind = WIND_CODES.get(seat_wind) if type(seat_wind) is str else None
            if seat_wind is None:
                seat_wind = parse_wind(obj["seat_wind"], "seat_wind")
        if type(honba) is not int or not 0 <= honba <= 1000:
            honba = _count(obj, "honba", 1000)
        if type(kyotaku) is not int or not 0 <= kyotaku <= 1000:
            kyotaku = _count(obj, "kyotaku", 1000)
        if type(nukidora) is not int or not 0 <= nukidora <= 4:
            nukidora = _count(obj, "nukidora", 4)
        if discarder is not None:
            discarder = _seat(discarder, "discarder")
        if liable is not None:
            liable = _seat(liable, "liable")
        flag_values = _FLAG_VALUES[bits]
        hand = Hand.__new__(Hand)
        # every field in one dict display (validate() adds the derived ones): a Hand whose fields
        # all sit in its own dict is the cheapest to read
        object.__setattr__(hand, "__dict__", {
            "concealed": concealed, "win_tile": win, "melds": melds, "tsumo": tsumo, "round_wind": round_wind,
            "seat_wind": seat_wind, "dora_indicators": dora, "ura_indicators": ura, "riichi": flag_values[0],
            "double_riichi": flag_values[1], "ippatsu": flag_values[2], "rinshan": flag_values[3],
            "chankan": flag_values[4], "haitei": flag_values[5], "houtei": flag_values[6], "tenhou": flag_values[7],
            "chiihou": flag_values[8], "renhou": flag_values[9], "honba": honba, "kyotaku": kyotaku,
            "nukidora": nukidora, "discarder": discarder, "players": players, "liable": liable, "robbed_kan": robbed,
            "notes": notes})
        hand.validate(counted, bits)
        return hand

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "concealed": format_tiles(self.concealed), "win_tile": str(self.win_tile),
            "melds": [m.to_json() for m in self.melds], "win": "tsumo" if self.tsumo else "ron",
            "round_wind": WIND_NAMES[self.round_wind], "seat_wind": WIND_NAMES[self.seat_wind],
            "dora_indicators": [str(t) for t in self.dora_indicators],
            "ura_indicators": [str(t) for t in self.ura_indicators],
        }
        for f in FLAGS:
            if getattr(self, f):
                out[f] = True
        for f in ("honba", "kyotaku", "nukidora"):
            if getattr(self, f):
                out[f] = getattr(self, f)
        for f in ("discarder", "players", "liable"):
            if getattr(self, f) is not None:
                out[f] = getattr(self, f)
        if self.robbed_kan != "kakan":
            out["robbed_kan"] = self.robbed_kan
        return out

    # ---------------------------------------------------------------- checks
    @property
    def is_dealer(self) -> bool:
        return self.seat_wind == 0

    @property
    def is_open(self) -> bool:
        return any(m.kind != "ankan" for m in self.melds)

    def validate(self, counted: tuple[list[int], int, list[int], bool | None] | None = None,
                 flag_bits: int | None = None) -> None:
        """Rule-independent checks: counts, meld shapes, contradictory flags. Also works out the
        derived fields the scorer reads (tile counts, bit sets, red fives, the melds' shape).
        `Hand.from_json` passes what it already knows: the concealed tiles' counts (`read_counted`)
        and the flags as bits."""
        d = self.__dict__
        melds = self.melds
        n_melds = len(melds)
        if n_melds > 4:
            raise HandError(f"at most 4 melds, got {n_melds}", "melds")
        for i, m in enumerate(melds):
            if type(m) is not Meld:
                raise HandError("expected a Meld", f"melds[{i}]")
        need = 14 - 3 * n_melds
        concealed = self.concealed
        if len(concealed) != need:
            extra = f" with {n_melds} meld{'s' if n_melds != 1 else ''}" if n_melds else ""
            raise HandError(f"expected {need} tiles{extra} (including the winning tile), got {len(concealed)}",
                            "concealed")
        if counted is None:
            counts, mask, reds = count_tiles(concealed)
            over = None  # whether some tile is there 5 times: worked out at the end
        else:
            counts, mask, reds, over = counted
        d["conc_counts"] = tuple(counts)
        d["conc_mask"] = mask
        win = self.win_tile
        if not counts[win.index] or (win.red and win not in concealed):
            raise HandError(f"winning tile {win} is not among the concealed tiles", "win_tile")
        if n_melds:
            closed = True
            seqs: list[int] = []
            trips: list[int] = []
            sets: list[tuple[int, bool, bool]] = []
            kans = ankans = 0
            for m in melds:
                for i, n in m.counts:
                    counts[i] += n
                    if counts[i] > 4 and over is not None:
                        over = True
                mask |= m.mask
                if m.reds:
                    for s, n in enumerate(m.reds):
                        reds[s] += n
                shape = m.set_shape
                if shape is None:  # a chi
                    seqs.append(m.first)
                    closed = False
                    continue
                t, concealed_set, kan = shape
                closed = closed and concealed_set
                kans += kan
                ankans += concealed_set
                trips.append(t)
                sets.append(shape)
            d["meld_shape"] = (closed, tuple(seqs), tuple(trips), tuple(sets), kans, ankans)
        d["hand_counts"] = tuple(counts)
        d["hand_mask"] = mask
        d["hand_reds"] = tuple(reds)
        dora, ura = self.dora_indicators, self.ura_indicators
        for group in (dora, ura) if dora or ura else ():
            for t in group:
                i = t.index
                counts[i] += 1
                if counts[i] > 4 and over is not None:
                    over = True
                if t.red:
                    reds[i // 9] += 1
        d["red_counts"] = tuple(reds)
        counts[NORTH] += self.nukidora
        if over is None or counts[NORTH] > 4:
            over = max(counts) > 4
        if over:
            for i, c in enumerate(counts):
                if c > 4:
                    self._too_many(i, c)
        if len(dora) > 5:
            raise HandError(f"at most 5 indicators (1 + 4 kan), got {len(dora)}", "dora_indicators")
        if len(ura) > 5:
            raise HandError(f"at most 5 indicators (1 + 4 kan), got {len(ura)}", "ura_indicators")
        if ura and len(ura) > len(dora):
            raise HandError("more ura indicators than dora indicators (each ura lies under a dora indicator)",
                            "ura_indicators")
        self._validate_context(flag_bits)

    def _too_many(self, i: int, total: int) -> None:
        """Refuse a fifth copy of tile `i`, naming the field whose copies passed four (a sixth 1m
        given as a dora indicator is the indicators' fault, not the hand's)."""
        parts = [("concealed", "in the hand and melds", self.hand_counts[i]),
                 ("dora_indicators", "as dora indicators", sum(t.index == i for t in self.dora_indicators)),
                 ("ura_indicators", "as ura indicators", sum(t.index == i for t in self.ura_indicators)),
                 ("nukidora", "set aside", self.nukidora if i == NORTH else 0)]
        seen, field_name = 0, "concealed"
        for name, _, n in parts:
            seen += n
            if seen > 4:
                field_name = name
                break
        where = ", ".join(f"{n} {what}" for _, what, n in parts if n)
        raise HandError(f"{total} copies of {Tile(i)} ({where}); a set has 4", field_name)

    def _validate_context(self, bits: int | None = None) -> None:
        if bits is None:
            bits = ((1 if self.riichi else 0) | (2 if self.double_riichi else 0) | (4 if self.ippatsu else 0)
                    | (8 if self.rinshan else 0) | (16 if self.chankan else 0) | (32 if self.haitei else 0)
                    | (64 if self.houtei else 0) | (128 if self.tenhou else 0) | (256 if self.chiihou else 0)
                    | (512 if self.renhou else 0))
        self.__dict__["flag_bits"] = bits
        tsumo = self.tsumo
        if bits:  # the checks below that need a flag set, in the order they are reported
            riichi = self.riichi or self.double_riichi
            if riichi and not self.meld_shape[0]:
                raise HandError("riichi needs a closed hand (only closed kans allowed)",
                                "double_riichi" if self.double_riichi else "riichi")
            if self.ippatsu and not riichi:
                raise HandError("ippatsu needs riichi", "ippatsu")
        else:
            riichi = False
        if self.ura_indicators and not riichi:
            raise HandError("ura dora only count for a riichi winner; drop ura_indicators or set riichi", "ura_indicators")
        if bits:
            if self.rinshan and not tsumo:
                raise HandError("rinshan kaihou is a win by tsumo on the replacement tile", "rinshan")
            if self.rinshan and not self.meld_shape[4] and not self.nukidora:
                raise HandError("rinshan kaihou needs a kan (or, in 3-player, a set-aside north)", "rinshan")
            if self.rinshan and self.ippatsu:  # 003: a kan (暗カンを含む) ends ippatsu; 002 (12): so does a north
                raise HandError("ippatsu and rinshan kaihou cannot combine: the kan (or north set aside) that gave the "
                                "replacement tile ended the ippatsu", "ippatsu")
            if self.chankan and tsumo:
                raise HandError("chankan (robbing a kan) is a win by ron", "chankan")
            if self.haitei and not tsumo:
                raise HandError("haitei is a win by tsumo on the last tile (by ron it is houtei)", "haitei")
            if self.houtei and tsumo:
                raise HandError("houtei is a win by ron on the last discard (by tsumo it is haitei)", "houtei")
            if self.houtei and self.chankan:
                raise HandError("houtei and chankan cannot both happen (the last discard is not a kan)", "houtei")
            if self.chankan and self.hand_counts[self.win_tile.index] > 1:
                raise HandError(f"chankan on {self.win_tile}: the other three are in the robbed kan, so the hand can "
                                "hold only the robbed one", "chankan")
        if self.robbed_kan == "ankan" and not self.chankan:
            raise HandError("robbed_kan only applies to chankan", "robbed_kan")
        if self.discarder is not None and tsumo:
            raise HandError("a tsumo win has no discarder", "discarder")
        if bits & 0b1110000000:  # tenhou, chiihou, renhou
            self._validate_first_turn(riichi)

    def _validate_first_turn(self, riichi: bool) -> None:
        tsumo = self.tsumo
        dealer = self.seat_wind == 0
        for flag, ok, why in (
            ("tenhou", dealer and tsumo, "tenhou is the dealer's win on the first draw (tsumo, dealer seat E)"),
            ("chiihou", not dealer and tsumo, "chiihou is a non-dealer's win on the first draw (tsumo, seat not E)"),
            ("renhou", not dealer and not tsumo, "renhou is a non-dealer's ron before the first draw (seat not E)"),
        ):
            if getattr(self, flag):
                if not ok:
                    raise HandError(why, flag)
                if self.melds:
                    raise HandError(f"{flag} is only possible before any call or kan", flag)
                if riichi:
                    raise HandError(f"{flag} cannot follow a riichi", flag)
                if self.rinshan or self.chankan or self.haitei or self.houtei:
                    raise HandError(f"{flag} cannot combine with rinshan, chankan, haitei or houtei", flag)
                if self.nukidora and flag != "renhou":
                    # 002 1.1.1 (12): 北を抜いた時点で天和、地和…は成立せず
                    raise HandError(f"{flag} is impossible once a north has been set aside", flag)
        if sum((self.tenhou, self.chiihou, self.renhou)) > 1:
            raise HandError("tenhou, chiihou and renhou exclude each other", "tenhou")


assert FLAGS == ("riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei", "tenhou", "chiihou",
                 "renhou"), "Hand._validate_context numbers the flags in this order"
