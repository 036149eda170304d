"""`tsumo hand`, `tsumo batch` and `tsumo rules`: what a user types and sees."""
from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys

import pytest

from scoring import PRESETS, score_json
from tests.scoring.handgen import HandGenerator
from tsumo.cli import main

HAND = "123m456p789s11122z"  # East triplet, tanki on South


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- tsumo hand

def test_hand_prints_yaku_in_english_and_japanese_with_fu_and_payments(capsys):
    code, out, err = run_cli(capsys, "hand", HAND, "--riichi", "--tsumo", "--dora", "9m", "--honba", "1",
                             "--sticks", "2")
    assert code == 0, err
    assert "Riichi" in out and "立直" in out
    assert "Menzen tsumo" in out and "門前清自摸和" in out
    assert "Seat wind" in out and "Round wind" in out
    # dealer, riichi + tsumo + double east (2) + dora 1 = 5 han: mangan, 4000 all + 100 honba each
    assert "5 han 40 fu, mangan" in out
    assert "12000 points" in out
    assert out.count("pays 4100") == 3
    assert "winner collects 14300" in out


def test_hand_json_is_the_engine_result_for_the_same_hand(capsys):
    code, out, _ = run_cli(capsys, "hand", HAND, "--win", "2z", "--riichi", "--round", "S", "--seat", "W",
                           "--discarder", "across", "--dora", "1z", "--json")
    assert code == 0
    expected = score_json({"rules": "tenhou", "concealed": HAND, "win_tile": "2z", "win": "ron", "riichi": True,
                           "round_wind": "S", "seat_wind": "W", "discarder": "across", "dora_indicators": ["1z"]})
    assert json.loads(out) == expected
    assert expected["payments"] == {"across": expected["points"]}


def test_winning_tile_defaults_to_the_last_tile_written(capsys):
    _, with_default, _ = run_cli(capsys, "hand", "22z123m456p789s111z", "--riichi", "--json")
    _, explicit, _ = run_cli(capsys, "hand", "22z123m456p789s111z", "--riichi", "--win", "1z", "--json")
    assert json.loads(with_default) == json.loads(explicit)
    assert json.loads(with_default)["wait"] == "shanpon"


def test_the_13_waiting_tiles_plus_win_are_enough(capsys):
    _, waiting, _ = run_cli(capsys, "hand", "123m456p789s1122z", "--win", "2z", "--riichi", "--json")
    _, full, _ = run_cli(capsys, "hand", "123m456p789s11222z", "--win", "2z", "--riichi", "--json")
    assert json.loads(waiting) == json.loads(full) and json.loads(full)["error"] is None
    code, _, err = run_cli(capsys, "hand", "123m456p789s1122z", "--riichi")  # no --win: nothing to add
    assert code == 2 and "expected 14 tiles" in err


def test_meld_flags_build_the_contract_melds_in_command_line_order(capsys):
    from tsumo.commands.hand import build_hand, register
    import argparse

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["hand", "22z", "--pon", "777z:right", "--chi", "3s4s5s:left:4s",
                              "--kakan", "0555p:across:0p", "--ankan", "1111m"])
    obj = build_hand(args)
    assert obj["melds"] == [
        {"kind": "pon", "tiles": "777z", "called": "7z", "from": "right"},
        {"kind": "chi", "tiles": "345s", "called": "4s", "from": "left"},
        {"kind": "kakan", "tiles": "0555p", "called": "0p", "from": "across"},
        {"kind": "ankan", "tiles": "1111m"},
    ]
    assert obj["win_tile"] == "2z"
    # a pon's called tile is implied, and a plain five rather than the red one
    args = parser.parse_args(["hand", "22z", "--pon", "055s:left", "--chi", "678p"])
    melds = build_hand(args)["melds"]
    assert melds[0]["called"] == "5s" and melds[1] == {"kind": "chi", "tiles": "678p", "called": "6p", "from": "left"}


def test_daisangen_liability_follows_the_last_dragon_call(capsys):
    code, out, _ = run_cli(capsys, "hand", "11122z", "--pon", "555z:left", "--pon", "666z:across",
                           "--pon", "777z:right", "--ron", "--seat", "S", "--discarder", "left", "--json")
    res = json.loads(out)
    assert code == 0 and res["yakuman"] == 2  # daisangen + tsuuiisou
    # daisangen: right (fed the third dragon) and the discarder split 32000; tsuuiisou 32000 from the discarder
    assert res["payments"] == {"right": 16000, "left": 48000}


def test_rule_overrides_change_the_score(capsys):
    # 4 han 30 fu non-dealer ron: 7700, or 8000 with kiriage mangan
    argv = ["hand", "123m567p23467855s", "--win", "2s", "--riichi", "--seat", "S", "--dora", "4s", "--json"]
    _, plain, _ = run_cli(capsys, *argv)
    _, kiriage, _ = run_cli(capsys, *argv, "--rule", "kiriage=true")
    plain, kiriage = json.loads(plain), json.loads(kiriage)
    assert (plain["han"], plain["fu"], plain["points"]) == (4, 30, 7700)
    assert (kiriage["points"], kiriage["limit"]) == (8000, "mangan")


@pytest.mark.parametrize("argv, message", [
    (["hand", "123m456p789s1122x"], "concealed tiles: unexpected character 'x'"),
    (["hand", "123m456p789s11228z"], "no tile 8z"),
    (["hand", HAND, "--dora", "9z"], "--dora: no tile 9z"),
    (["hand", HAND, "--seat", "Q"], "--seat"),
    (["hand", HAND, "--round", "middle"], "--round"),
    (["hand", HAND, "--win", "2z3z"], "--win"),
    (["hand", HAND, "--pon", "555z:behind"], "'behind' is not left, across or right"),
    (["hand", HAND, "--ankan", "1111m:left"], "closed kan takes no direction"),
    (["hand", HAND, "--pon", "555z:left:5z:x"], "expected TILES:FROM[:CALLED]"),
    (["hand", HAND, "--rules", "nosuch"], "unknown rule set"),
    (["hand", HAND, "--rule", "kiriage"], "expected FIELD=VALUE"),
    (["hand", HAND, "--rule", "kiriage=maybe"], "rules.kiriage"),
    (["hand", HAND, "--rule", "no_such_field=1"], "unknown rule field"),
    (["hand", "123m456p789s1122z"], "expected 14 tiles"),
    (["hand", "123m456p789s11223z", "--win", "3z"], "not a winning hand"),
    (["hand", "234m567p99p", "--chi", "678s", "--chi", "234s", "--win", "4m", "--dora", "1m"], "no yaku"),
    (["hand", HAND, "--tsumo", "--discarder", "left"], "--discarder only makes sense with --ron"),
    (["hand", HAND, "--ippatsu"], "ippatsu needs riichi"),
    (["hand", HAND, "--riichi", "--rules", "renmei", "--dora", "1m", "--ura", "2m"], "no ura dora"),
])
def test_bad_hand_input_exits_2_with_a_message(capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert message in err and err.startswith("tsumo: error:")


def test_bad_numbers_are_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["hand", HAND, "--honba", "-1"])
    assert exc.value.code == 2
    assert "must not be negative" in capsys.readouterr().err


def test_json_output_still_prints_the_error_object(capsys):
    code, out, err = run_cli(capsys, "hand", "123m456p789s1122z", "--json")
    assert code == 2
    assert json.loads(out)["error"].startswith("concealed:")
    assert "expected 14 tiles" in err


def test_engine_notes_are_shown(capsys):
    code, out, _ = run_cli(capsys, "hand", HAND, "--riichi", "--ippatsu", "--rules", "renmei")
    assert code == 0
    assert "note: ippatsu is not a yaku in renmei" in out
    assert "Ippatsu" not in out.split("note:")[0]


# ---------------------------------------------------------------- tsumo batch

def _write_lines(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_batch_keeps_order_echoes_ids_and_survives_bad_lines(tmp_path, capsys):
    good = {"id": "a", "concealed": HAND, "win_tile": "2z", "riichi": True}
    lines = [json.dumps(good), "{not json", "", "[1, 2]", json.dumps({"id": 7, "concealed": "123m", "win_tile": "1m"}),
             json.dumps({**good, "id": "b", "rules": "renmei"})]
    src = tmp_path / "in.jsonl"
    _write_lines(src, lines)
    code, out, err = run_cli(capsys, "batch", str(src))
    assert code == 0
    results = [json.loads(x) for x in out.splitlines()]
    assert len(results) == len(lines)
    assert results[0] == score_json(good)
    assert results[0]["id"] == "a" and results[0]["error"] is None
    for i in (1, 2, 3):
        assert results[i]["error"].startswith(f"line {i + 1}:")
        assert results[i]["points"] == 0 and results[i]["line"] == i + 1
    assert "not valid JSON" in results[1]["error"] and "empty line" in results[2]["error"]
    assert "expected a JSON object" in results[3]["error"]
    assert results[4]["id"] == 7 and "expected 14 tiles" in results[4]["error"]
    assert results[5]["id"] == "b" and results[5]["rules"] == "renmei"
    assert "6 lines, 4 errors" in err


def test_batch_writes_a_file_and_applies_default_rules(tmp_path, capsys):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write_lines(src, [json.dumps({"concealed": HAND, "win_tile": "2z", "riichi": True}),
                       json.dumps({"concealed": HAND, "win_tile": "2z", "riichi": True, "rules": "tenhou"})])
    code, out, err = run_cli(capsys, "batch", str(src), "-o", str(dst), "--rules", "shinhouchi")
    assert code == 0 and out == ""
    first, second = [json.loads(x) for x in dst.read_text().splitlines()]
    assert first["rules"] == "shinhouchi" and second["rules"] == "tenhou"
    assert "2 lines, 0 errors" in err


def test_batch_reads_stdin_and_shows_progress_on_request(monkeypatch, capsys):
    lines = [json.dumps({"id": i, "concealed": HAND, "win_tile": "2z", "riichi": True}) for i in range(50)]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(("\n".join(lines) + "\n").encode())))
    code, out, err = run_cli(capsys, "batch", "-", "--progress")
    assert code == 0
    assert [json.loads(x)["id"] for x in out.splitlines()] == list(range(50))
    assert "50 lines" in err and "hands/s" in err


def test_batch_progress_has_rate_and_eta_for_files():
    from tsumo.commands.batch import Progress, process

    lines = [json.dumps({"concealed": HAND, "win_tile": "2z", "riichi": True})] * 20
    sink, log = io.StringIO(), io.StringIO()
    done, errors = process(lines, sink, score_json, progress=Progress(log, total=20, enabled=True))
    assert (done, errors) == (20, 0)
    assert "20/20 lines (100%)" in log.getvalue() and "ETA" in log.getvalue() and "hands/s" in log.getvalue()
    quiet = io.StringIO()
    process(lines, io.StringIO(), score_json, progress=Progress(quiet, total=20, enabled=False))
    assert quiet.getvalue() == ""


def test_batch_matches_the_engine_line_by_line_on_generated_hands(tmp_path, capsys):
    gen = HandGenerator(seed=11)
    objs = [dict(gen.hand().to_json("tenhou"), id=i) for i in range(300)]
    src = tmp_path / "in.jsonl"
    _write_lines(src, [json.dumps(o) for o in objs])
    code, out, _ = run_cli(capsys, "batch", str(src))
    assert code == 0
    assert [json.loads(x) for x in out.splitlines()] == [score_json(o) for o in objs]


def test_batch_survives_an_engine_that_raises(capsys):
    from tsumo.commands.batch import score_line

    def broken(obj):
        raise RuntimeError("boom")

    res = score_line(json.dumps({"id": 5, "concealed": HAND, "win_tile": "2z"}), 3, broken)
    assert res["id"] == 5 and "internal error: RuntimeError: boom" in res["error"]


def test_batch_refuses_what_json_loads_lets_through_and_goes_on(tmp_path, capsys):
    """A key given twice (last one won: riichi dropped silently), nesting that blew the parser's stack
    (a traceback, and every later line lost), bytes that are not UTF-8 (replaced by U+FFFD, so an id
    came back changed): each is its line's error, and the lines after it are scored."""
    good = json.dumps({"id": "ok", "concealed": HAND, "win_tile": "2z", "riichi": True}).encode()
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join([
        b'{"concealed": "%s", "win_tile": "2z", "riichi": true, "riichi": false}' % HAND.encode(),
        b'{"concealed": "%s", "win_tile": "2z", "melds": [{"kind": "pon", "tiles": "777z", "tiles": "666z"}]}'
        % HAND.encode(),
        b"[" * 100_000 + b"]" * 100_000,
        b'{"id": "caf\xe9", "concealed": "%s", "win_tile": "2z"}' % HAND.encode(),
        good]) + b"\n")
    code, out, err = run_cli(capsys, "batch", str(src))
    assert code == 0 and "Traceback" not in err
    dup, meld, deep, latin, ok = [json.loads(x) for x in out.splitlines()]
    assert dup["error"] == "line 1: the key 'riichi' is given twice; give it once"
    assert meld["error"] == "line 2: melds[0]: the key 'tiles' is given twice; give it once"
    assert deep["error"] == "line 3: the JSON is nested too deeply (the limit is 32 levels)"
    assert latin["error"].startswith("line 4: not UTF-8 text (byte 0xe9")
    assert ok["id"] == "ok" and ok["error"] is None
    assert "5 lines, 4 errors" in err


def test_batch_reads_a_file_that_starts_with_a_byte_order_mark(tmp_path, capsys):
    """Notepad saves UTF-8 with a BOM; line 1 was 'Unexpected UTF-8 BOM'."""
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\xef\xbb\xbf" + json.dumps({"id": 1, "concealed": HAND, "win_tile": "2z", "riichi": True}).encode())
    code, out, _ = run_cli(capsys, "batch", str(src))
    assert code == 0 and json.loads(out)["error"] is None and json.loads(out)["id"] == 1


def test_batch_missing_input_is_a_usage_error(tmp_path, capsys):
    code, _, err = run_cli(capsys, "batch", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "cannot read" in err


def test_batch_refuses_to_overwrite_its_input(tmp_path, capsys):
    """`-o` onto the input emptied it before a line was read, then reported 0 lines and exit 0."""
    src = tmp_path / "hands.jsonl"
    text = '{"concealed": "%s", "win_tile": "2z", "riichi": true}\n' % HAND
    src.write_text(text)
    code, out, err = run_cli(capsys, "batch", str(src), "-o", str(tmp_path / "." / "hands.jsonl"))
    assert code == 2 and "is the input file" in err
    assert src.read_text() == text


def test_batch_unknown_default_rules_fail_before_scoring(tmp_path, capsys):
    """A typo in --rules made every line the same error, with exit 0."""
    src = tmp_path / "hands.jsonl"
    src.write_text('{"concealed": "%s", "win_tile": "2z", "riichi": true}\n' % HAND)
    code, out, err = run_cli(capsys, "batch", str(src), "--rules", "tenhuo")
    assert code == 2 and out == ""
    assert err.startswith("tsumo: error: --rules: unknown rule set 'tenhuo'")


# ---------------------------------------------------------------- tsumo rules

def test_rules_lists_every_preset_with_players_and_summary(capsys):
    code, out, _ = run_cli(capsys, "rules")
    assert code == 0
    for name, rules in PRESETS.items():
        line = next(x for x in out.splitlines() if x.startswith(name + " "))
        assert f"{rules.players}p" in line
    code, out, _ = run_cli(capsys, "rules", "--json")
    rows = json.loads(out)
    assert [r["name"] for r in rows] == list(PRESETS)
    assert all(r["summary"] for r in rows)
    assert {r["name"]: r["players"] for r in rows}["sanma"] == 3


def test_rules_name_shows_every_field_value_and_doc(capsys):
    code, out, _ = run_cli(capsys, "rules", "shinhouchi")
    assert code == 0
    for f in dataclasses.fields(PRESETS["shinhouchi"]):
        assert f"  {f.name} " in out
        first_doc_words = " ".join(f.metadata["doc"].split()[:3])
        assert first_doc_words in " ".join(out.split())
    code, out, _ = run_cli(capsys, "rules", "shinhouchi", "--json")
    data = json.loads(out)
    assert data["rules"]["sanbaiman_han"] == 11 and data["rules"]["kazoe_han"] is None
    assert data["rules"]["red_fives"] == [0, 0, 0]
    assert set(data["docs"]) == {f.name for f in dataclasses.fields(PRESETS["shinhouchi"])}


def test_rules_with_override_and_errors(capsys):
    code, out, _ = run_cli(capsys, "rules", "tenhou", "--rule", "kiriage=true", "--json")
    assert code == 0 and json.loads(out)["rules"]["kiriage"] is True
    code, _, err = run_cli(capsys, "rules", "nosuch")
    assert code == 2 and "unknown rule set" in err
    code, _, err = run_cli(capsys, "rules", "tenhou", "--rule", "honba_points=lots")
    assert code == 2 and "rules.honba_points" in err
    code, _, err = run_cli(capsys, "rules", "--rule", "kiriage=true")
    assert code == 2 and "needs a preset" in err


def test_installed_entry_point_end_to_end(tmp_path):
    """The real `python -m tsumo` process: exit codes and streams as a shell sees them."""
    ok = subprocess.run([sys.executable, "-m", "tsumo", "hand", HAND, "--riichi", "--json"],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and json.loads(ok.stdout)["points"] == 7700
    bad = subprocess.run([sys.executable, "-m", "tsumo", "hand", "xyz"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "tsumo: error:" in bad.stderr and bad.stdout == ""
    src = tmp_path / "in.jsonl"
    src.write_text('{"concealed": "%s", "win_tile": "2z", "riichi": true}\nnope\n' % HAND)
    batch = subprocess.run([sys.executable, "-m", "tsumo", "batch", str(src)], capture_output=True, text=True,
                           timeout=60)
    assert batch.returncode == 0 and len(batch.stdout.splitlines()) == 2 and "1 error" in batch.stderr


@pytest.mark.parametrize("argv", [["rules"], ["hand", HAND, "--riichi"], ["hand", HAND, "--riichi", "--json"]])
def test_output_closed_early_is_no_traceback(argv):
    """`tsumo … | head -1`: the reader goes away; exit 141 quietly (as `cat` does), not a traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "tsumo", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # before the command writes anything
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141
    assert err == ""


def test_an_option_is_never_taken_for_a_longer_one(tmp_path, capsys):
    """`batch` has `--rules` but no `--rule`: `--rule kiriage=true` was read as `--rules kiriage=true`
    and every line failed as an unknown rule set; now argparse names the unknown option."""
    src = tmp_path / "in.jsonl"
    _write_lines(src, [json.dumps({"concealed": HAND, "win_tile": "2z", "riichi": True})])
    with pytest.raises(SystemExit) as exit_:
        main(["batch", str(src), "--rule", "kiriage=true"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --rule kiriage=true" in capsys.readouterr().err
