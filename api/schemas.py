"""Pydantic models of the JSON the API takes and gives (CONTRACTS §1, §2, §4).

They validate the *shape* (types, allowed words, tile notation) so a malformed request gets a 422
naming the field before any work is done; whether a hand is legal and scores is the engine's
call (`scoring.score_json`). Output models allow extra keys: the engine and the reader may add
fields (CONTRACTS: "extend freely"), and the API passes them on.
"""
from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_serializer
from pydantic_core import PydanticCustomError

Seat = Literal["left", "across", "right"]
Wind = Literal["E", "S", "W", "N"]
TILES_PATTERN = r"^([0-9]+[mpsz])+$"
TILE_PATTERN = r"^[0-9][mpsz]$"

Tile = Annotated[str, Field(pattern=TILE_PATTERN, description="one tile in MPSZ notation, e.g. `3m`, `0p`, `7z`")]


def _true_or_false(value: Any) -> Any:
    """Flags and counters are taken as the engine (`scoring.score_json`) takes them: pydantic's lax mode took
    "yes", 1 and "true" for riichi (and "off" for false), true (1 honba) and "3" for a count."""
    if not isinstance(value, bool):
        raise PydanticCustomError("bool_type", "Input should be true or false, not {got}", {"got": repr(value)})
    return value


def _a_number(value: Any) -> Any:
    """A JSON number; a whole float (3.0) passes on to the int check, as the engine takes it too."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PydanticCustomError("int_type", "Input should be a whole number, not {got}", {"got": repr(value)})
    return value


Flag = Annotated[bool, BeforeValidator(_true_or_false)]
# After the bounds, as in `Annotated[int, Field(ge=…), A_NUMBER]`: the schema then keeps minimum/maximum.
A_NUMBER = BeforeValidator(_a_number)


def _json_echoable(value: Any) -> Any:
    """`id` comes back as it was sent, so it must be JSON a response can hold (no NaN or Infinity in it)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise PydanticCustomError("finite_number", "id cannot hold NaN or Infinity: it is echoed back as JSON")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


# CONTRACTS §1: `id` is echoed back whatever JSON it is, as `tsumo batch` does (`str | int` made true 1 and
# refused 1.5 or an object).
Id = Annotated[Any, AfterValidator(_json_echoable), Field(
    description="any JSON value (string, number, object…), echoed back unchanged in the result")]


class Meld(BaseModel):
    """A called or declared set, as in CONTRACTS §1."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    kind: Literal["chi", "pon", "minkan", "kakan", "ankan"]
    tiles: str = Field(pattern=TILES_PATTERN, max_length=16, description="the meld's tiles, e.g. `777z`")
    called: str | None = Field(None, pattern=TILE_PATTERN, description="the tile taken from another seat")
    from_: Seat | None = Field(None, alias="from", description="the seat it came from, relative to the winner")


class HandContext(BaseModel):
    """Everything about a win except the tiles: rules, how it was won, winds, dora, flags, counters."""

    model_config = ConfigDict(extra="forbid")

    rules: str | dict[str, Any] | None = Field(
        None, description='a preset name (GET /v1/rules) or `{"preset": "tenhou", ...overrides}`'
    )
    win: Literal["ron", "tsumo"] | None = None
    round_wind: Wind | None = None
    seat_wind: Wind | None = None
    dora_indicators: list[Tile] | None = Field(None, max_length=10)
    ura_indicators: list[Tile] | None = Field(None, max_length=10)
    riichi: Flag | None = None
    double_riichi: Flag | None = None
    ippatsu: Flag | None = None
    rinshan: Flag | None = None
    chankan: Flag | None = None
    haitei: Flag | None = None
    houtei: Flag | None = None
    tenhou: Flag | None = None
    chiihou: Flag | None = None
    renhou: Flag | None = None
    honba: Annotated[int, Field(ge=0, le=1000), A_NUMBER] | None = None
    kyotaku: Annotated[int, Field(ge=0, le=1000), A_NUMBER] | None = Field(
        None, description="riichi sticks on the table")
    nukidora: Annotated[int, Field(ge=0, le=4), A_NUMBER] | None = Field(
        None, description="norths set aside (3-player)")
    discarder: Seat | None = Field(None, description="ron only: the seat that dealt in, relative to the winner")
    players: Literal[3, 4] | None = None


class HandIn(HandContext):
    """CONTRACTS §1: a hand to score. `id` is echoed back; `expected` (as in batch files) is ignored."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{
        "rules": "tenhou", "concealed": "234m055p789s55z", "win_tile": "5z",
        "melds": [{"kind": "pon", "tiles": "777z", "called": "7z", "from": "across"}],
        "win": "ron", "discarder": "left", "round_wind": "E", "seat_wind": "S",
        "dora_indicators": ["4p"], "riichi": False, "honba": 1, "kyotaku": 0,
    }]})

    concealed: str = Field(
        pattern=TILES_PATTERN, max_length=64,
        description="every tile not in a meld, including the winning tile (MPSZ)",
    )
    win_tile: str = Field(pattern=TILE_PATTERN, description="the winning tile; one of `concealed`")
    melds: list[Meld] = Field(default_factory=list, max_length=4)
    id: Id = None
    expected: Any = None

    def to_contract(self) -> dict[str, Any]:
        """The §1 dict for `score_json`: only keys the caller gave (null = not given), so the
        engine's defaults apply."""
        data = self.model_dump(by_alias=True, exclude_unset=True, exclude_none=True, exclude={"expected"})
        if "melds" in data:
            data["melds"] = [m.model_dump(by_alias=True, exclude_none=True) for m in self.melds]
        return data


class PhotoContext(HandContext):
    """CONTRACTS §4 `context`: any §1 key except the tiles (`concealed`, `melds`), which come
    from the photo (`api.context.parse_context` says so by name if they are sent)."""

    win_tile: str | None = Field(
        None, pattern=TILE_PATTERN, description="override the winning tile the reading chose"
    )


# ---- results (CONTRACTS §2) --------------------------------------------------------------------


class YakuEntry(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    han: int
    name_ja: str | None = None


class ScoreResult(BaseModel):
    """CONTRACTS §2. On an unscorable hand `error` says why and the figures may be null."""

    model_config = ConfigDict(extra="allow")

    id: Id = None
    han: int | None = None
    fu: int | None = None
    yakuman: int | None = None
    limit: str | None = None
    points: int | None = None
    payments: dict[str, int] | None = None
    total: int | None = None
    yaku: list[YakuEntry] | None = None
    error: str | None = None

    @model_serializer(mode="wrap")
    def _id_only_if_given(self, handler: Any) -> dict[str, Any]:
        """§2: `id` is echoed if the hand had one, and absent otherwise (not null)."""
        data = handler(self)
        if data.get("id") is None:
            data.pop("id", None)
        return data


class HandOut(BaseModel):
    """The §1 hand that was scored (the reading's tiles with the request's context merged in)."""

    model_config = ConfigDict(extra="allow")

    concealed: str
    win_tile: str | None = None
    melds: list[dict[str, Any]] = Field(default_factory=list)


# ---- photos (CONTRACTS §4) ---------------------------------------------------------------------


class ImageInfo(BaseModel):
    """The photo as read: EXIF-turned, and a JPEG over the pixel limit read at 1/2, 1/4 or 1/8.
    Tile boxes are in these pixels."""

    format: str
    width: int
    height: int


class PhotoWarning(BaseModel):
    """Something wrong with the photo itself (`vision.quality`): the reading is as read, but only as good
    as the photo. Show it to the user before the tiles."""

    model_config = ConfigDict(extra="allow")

    code: str = Field(
        description="greyscale (red fives and colour-told tiles unreliable), blurred (the hand's tiles are blurred: "
                    "numerals may be misread), dark (the tiles' white under 0.41 of a well-lit photo's: read less "
                    "surely, brightened or not), small_tiles (median hand tile under 20 px: unreliable), small_photo "
                    "(no tile found in a photo too small to show a hand)")
    message: str
    tile_px: int | None = Field(None, description="for small_tiles: the median long side of the hand's tiles, px")
    sharpness: float | None = Field(None, description="for blurred: the hand tiles' median sharpness "
                                                      "(vision.quality; blurred under 0.374)")
    brightness: float | None = Field(None, description="for dark: the tiles' white against a well-lit photo's "
                                                       "(vision.colour; dark under 0.41)")


class PhotoReading(BaseModel):
    """The reader's output (`vision.reading.Reading.to_json()`, documented in docs/vision.md):
    every tile with its box, class, confidence and candidates, the groups, and the hand (§1 tile
    keys) or null when no complete hand could be read."""

    model_config = ConfigDict(extra="allow")

    tiles: list[dict[str, Any]] = Field(default_factory=list)
    groups: list[dict[str, Any]] = Field(default_factory=list)
    hand: dict[str, Any] | None = None
    warnings: list[PhotoWarning] = Field(default_factory=list)


class PhotoReadResponse(BaseModel):
    image: ImageInfo
    reading: PhotoReading
    hand: HandOut | None = Field(None, description="the §1 hand the request makes of the reading: its tile keys, "
                                 "with the context's `win_tile` (which may complete a 13-tile reading), `nukidora`, "
                                 "`rules`, `players`; null when no complete hand was read (`reading.error` says why)")
    kept: str | None = Field(None, description="file name under the server's keep folder, if `keep=true`")
    keep_error: str | None = Field(None, description="why a photo asked to be kept was not (the reading is still here)")
    timings_ms: dict[str, float] = Field(default_factory=dict)
    unused_context: list[str] = Field(
        default_factory=list, description="/read only: context keys sent that only matter to a score (winds, "
        "dora, flags, counters…); accepted as CONTRACTS §4 says, not used here: send them to /v1/photos/score")


class PhotoScoreResponse(PhotoReadResponse):
    hand: HandOut | None = Field(None, description="the §1 hand scored: the reading plus the context")
    result: ScoreResult | None = Field(None, description="CONTRACTS §2; null when no hand could be read")
    error: str | None = Field(None, description="why there is no score (no hand read, or the engine's error)")
    unused_context: list[str] = Field(default_factory=list, exclude=True)  # /score uses every key


# ---- rules, health, errors -----------------------------------------------------------------------


class RuleSetSummary(BaseModel):
    name: str
    players: int
    description: str | None = None


class RuleField(BaseModel):
    name: str
    value: Any = Field(description="this preset's value")
    default: Any = Field(None, description="the base (Tenhou) value, to see what the preset changes")
    choices: list[Any] | None = Field(None, description="the allowed values, when the field has a fixed set")
    doc: str | None = None


class RuleSetDetail(RuleSetSummary):
    fields: list[RuleField]


class Health(BaseModel):
    status: Literal["ready", "loading", "failed", "disabled"]
    models_loaded: bool
    error: str | None = None
    load_seconds: float | None = None
    in_flight: int = 0


class ErrorBody(BaseModel):
    detail: str


class PhotoErrorBody(ErrorBody):
    """An error answering a photo request: with `keep=true`, also what became of the photo (`api.keep`)."""

    kept: str | None = Field(None, description="with `keep=true`: the file name under the server's keep folder "
                                               "when the photo was saved before the request failed, else null")
    keep_error: str | None = Field(None, description="with `keep=true`: why the photo was not kept")
