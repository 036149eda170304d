"""The --declared CSV: parsing, clear errors naming line and column, matching to events."""
from __future__ import annotations

import pytest

from audit.declared import DeclaredError, DeclaredWin, load_declared, match_declared, parse_tiles, parse_time, verdict
from audit.events import Event


def write(tmp_path, text: str, name="declared.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_full_row_parses(tmp_path):
    p = write(tmp_path, "# table 3, evening\nTime,Win,Round,Seat,Dora,Ura,Riichi,Ippatsu,Honba,Sticks,Discarder,Rules,Points,Total\n"
                        "1:05.5,ron,E,s,3m 5z,,yes,no,1,2,left,tenhou,\"7,700\",10700\n")
    d = load_declared(p)
    (w,) = d.wins
    assert w.line == 3 and w.time_s == 65.5 and w.points == 7700 and w.total == 10700
    assert w.context == {"win": "ron", "round_wind": "E", "seat_wind": "S", "dora_indicators": ["3m", "5z"],
                         "riichi": True, "ippatsu": False, "honba": 1, "kyotaku": 2,
                         "discarder": "left", "rules": "tenhou"}


def test_winds_in_any_spelling(tmp_path):
    d = load_declared(write(tmp_path, "points,round,seat\n1000,東,north\n2000,2z,w\n"))
    assert [(w.context["round_wind"], w.context["seat_wind"]) for w in d.wins] == [("E", "N"), ("S", "W")]


@pytest.mark.parametrize("text, where", [
    ("points,Round\n1000,X\n", "line 2, column 'Round': a wind is E, S, W or N, got 'X'"),  # as the file says it
    ("points,colour\n1000,red\n", "unknown column 'colour' (known: chankan, chiihou, discarder, dora, "),
    ("win,round\nron,E\n", "no 'points' column"),
    ("points,win\n1000,rin\n", "line 2, column 'win': win must be ron or tsumo"),
    ("points,dora\n1000,3q\n", "line 2, column 'dora'"),
    ("points,riichi\n1000,maybe\n", "line 2, column 'riichi': expected yes/no"),
    ("points,time\n1000,1:xx\n", "line 2, column 'time'"),
    ("points\n\n8000\nlots\n", "line 4, column 'points': points must be a whole number"),
    ("points,win\n1000\n", "line 2: 1 values for 2 columns"),
    ("points,points\n1,2\n", "appears twice"),
    ("", "empty file"),
])
def test_errors_name_line_and_column(tmp_path, text, where):
    with pytest.raises(DeclaredError) as exc:
        load_declared(write(tmp_path, text))
    assert where in str(exc.value)


def test_unreadable_files(tmp_path):
    with pytest.raises(DeclaredError, match="no such file"):
        load_declared(tmp_path / "nope.csv")
    with pytest.raises(DeclaredError, match="binary"):
        load_declared(write(tmp_path, "a\x00b"))
    (tmp_path / "bad.csv").write_bytes(b"points\n\xff\xfe1000\n")
    with pytest.raises(DeclaredError, match="not UTF-8"):
        load_declared(tmp_path / "bad.csv")
    with pytest.raises(DeclaredError, match="directory"):
        load_declared(tmp_path)


def test_several_videos_need_a_video_column(tmp_path):
    with pytest.raises(DeclaredError, match="'video' column"):
        load_declared(write(tmp_path, "points\n1000\n"), n_videos=2)
    d = load_declared(write(tmp_path, "video,points\na.mp4,1000\nb,2000\nc.mp4,3\n"), n_videos=2)
    assert [w.points for w in d.for_video("/x/a.mp4", 2)] == [1000]
    assert [w.points for w in d.for_video("/y/b.mp4", 2)] == [2000]
    assert [w.points for w in d.unknown_videos(["/x/a.mp4", "/y/b.mp4"])] == [3]


def test_tiles_and_times():
    assert parse_tiles("35m1z") == ["3m", "5m", "1z"]
    assert parse_tiles("3m, 0p") == ["3m", "0p"]
    with pytest.raises(ValueError):
        parse_tiles("8z")
    assert parse_time("0:01:33") == 93.0
    assert parse_time("12.5") == 12.5


@pytest.mark.parametrize("text", ["nan", "inf", "1:nan", "1:75", "0:60:00", "99:99:99"])
def test_impossible_times_are_refused(text):
    """'nan' put NaN (invalid JSON) into report.json; '1:75' is a typo, not 2:15."""
    with pytest.raises(ValueError, match="not a time"):
        parse_time(text)


def ev(a, b):
    return Event(a, b, {"concealed": "x"}, None, 0.9, 1.0, 3, 0, a)


def win(line, time_s=None, order=None, points=1000):
    return DeclaredWin(line, None, time_s, order, {}, points)


def test_matching_by_time_order_and_rank():
    events = [ev(10, 20), ev(60, 70), ev(120, 130)]
    a = match_declared(events, [win(2, time_s=65), win(3, time_s=300), win(4, order=3), win(5)])
    assert {i: w.line for i, w in a.by_event.items()} == {1: 2, 2: 4, 0: 5}
    assert [(w.line, why) for w, why in a.unmatched] == [(3, "no reveal event found near 300.0 s")]
    b = match_declared(events[:1], [win(2), win(3), win(4, order=5)])
    assert {i: w.line for i, w in b.by_event.items()} == {0: 2}
    assert [why for _, why in b.unmatched] == ["more declared wins than the 1 reveal events found",
                                               "win #5 declared, only 1 reveal events found"]
    c = match_declared(events, [win(2, time_s=15), win(3, time_s=16)])  # one event, two claims
    assert {i: w.line for i, w in c.by_event.items()} == {0: 2}
    assert c.unmatched[0][0].line == 3


def test_verdict():
    w = DeclaredWin(2, None, None, None, {}, 7700, total=8000)
    assert verdict({"points": 7700, "total": 8000, "error": None}, w) == ("match", None)
    assert verdict({"points": 8000, "total": 8300, "error": None}, w)[0] == "mismatch"
    v, why = verdict({"error": "no yaku"}, w)
    assert v == "mismatch" and "no yaku" in why
