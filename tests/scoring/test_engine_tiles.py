"""Tiles and MPSZ notation."""
import pytest

from scoring import HandError, format_tiles, parse_tiles
from scoring.tiles import TILES, dora_of, parse_wind


def test_parse_suits_honors_and_red_fives():
    tiles = parse_tiles("123m0p5p7z")
    assert [t.index for t in tiles] == [0, 1, 2, 13, 13, 33]
    assert [t.red for t in tiles] == [False, False, False, True, False, False]
    assert str(tiles[3]) == "0p" and str(tiles[4]) == "5p"


def test_parse_ignores_spaces_and_upper_case_suits():
    assert parse_tiles("12 3M") == parse_tiles("123m")


def test_tiles_are_shared_objects():
    assert parse_tiles("1m")[0] is TILES[0]


@pytest.mark.parametrize("text, part", [
    ("123", "no suit letter"), ("m", "without digits"), ("8z", "no tile 8z"), ("0z", "no tile 0z"),
    ("12x", "unexpected character"),
])
def test_parse_errors_say_what_is_wrong(text, part):
    with pytest.raises(HandError) as err:
        parse_tiles(text, "concealed")
    assert part in str(err.value) and err.value.field == "concealed"


def test_format_runs_and_sorting():
    assert format_tiles(parse_tiles("123m0p5p")) == "123m05p"
    assert format_tiles(parse_tiles("5p1m0m"), sort=True) == "10m5p"
    assert format_tiles([]) == ""


@pytest.mark.parametrize("indicator, dora", [("1m", "2m"), ("9m", "1m"), ("9s", "1s"), ("4z", "1z"), ("7z", "5z"),
                                             ("5z", "6z"), ("3z", "4z")])
def test_dora_follows_indicator(indicator, dora):
    assert dora_of(parse_tiles(indicator)[0].index) == parse_tiles(dora)[0].index


def test_sanma_dora_1m_points_at_9m():
    # 002 三人麻雀 1.1.1 (9): ドラ表示牌が萬子の 1 のときは萬子の 9 がドラ
    assert dora_of(0, three_player=True) == 8
    assert dora_of(8, three_player=True) == 0


def test_winds():
    assert [parse_wind(w, "seat_wind") for w in ("E", "south", "3z", "N")] == [0, 1, 2, 3]
    assert [parse_wind(w, "seat_wind") for w in "東南西北"] == [0, 1, 2, 3]
    with pytest.raises(HandError):
        parse_wind("X", "seat_wind")


def test_counted_reading_equals_parsing_then_counting():
    # Hand.from_json counts the concealed tiles run by run while parsing; it must be exactly the
    # tile-by-tile count of the parsed tiles, for any text (repeated suits, red fives, junk)
    import random

    from scoring.tiles import count_tiles, read_counted, tiles_tuple

    rnd = random.Random(3)
    texts = ["123m456p789s11z234m", "0m55m0p5p0s", "5m5m5m", "1112345678999m", "1 2 3m", "12x", "8z", "", "m",
             "1234567z1234567z", "11111m", "111m11m", "5550m0m"]
    texts += ["".join(rnd.choice("0123456789mpsz") for _ in range(rnd.randint(0, 22))) for _ in range(3000)]
    for text in texts:
        try:
            tiles = tiles_tuple(text, "concealed")
            expected = (tiles, count_tiles(tiles))
        except HandError as exc:
            expected = str(exc)
        try:
            tiles, (counts, mask, reds, over) = read_counted(text, "concealed")
            got = (tiles, (counts, mask, reds))
            # the fourth item says whether a tile is there more than 4 times, when it is worked out
            assert over is None or over == (max(counts) > 4), text
        except HandError as exc:
            got = str(exc)
        assert got == expected, text


def test_only_short_runs_are_remembered():
    # the run table is bounded and keeps only runs a hand can have: junk text cannot fill memory
    from scoring.tiles import _RUN_CACHE, tiles_tuple

    long_run = "1234567891234567891234m"
    assert len(tiles_tuple(long_run)) == 22 and long_run not in _RUN_CACHE
    assert len(tiles_tuple("234m")) == 3 and "234m" in _RUN_CACHE
