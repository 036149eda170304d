"""`tsumo serve`: flag checking (exit 2 + message), settings handed to workers, a real start."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from api.settings import ApiSettings
from tsumo.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv,words", [
    (["--port", "0"], "--port"),
    (["--port", "70000"], "--port"),
    (["--workers", "0"], "--workers"),
    (["--queue", "-1"], "--queue"),
    (["--max-photo-mb", "0"], "--max-photo-mb"),
    (["--models", "/no/such/folder"], "no such folder"),
])
def test_bad_flags_exit_2_with_a_message(argv, words, capsys):
    assert main(["serve", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tsumo: error:") and words in err


def test_a_taken_port_or_a_foreign_host_is_a_one_line_error(capsys):
    """Uvicorn said 'address already in use' only as a JSON log line, then exit 3."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--no-models"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"tsumo: error: cannot listen on 127.0.0.1:{port}") and "another --port" in err
    assert main(["serve", "--host", "no-such-host.invalid", "--no-models"]) == 2
    assert "--host no-such-host.invalid: not an address of this machine" in capsys.readouterr().err


def test_settings_travel_to_workers_through_the_environment(tmp_path):
    s = ApiSettings(models_dir=tmp_path, reader_threads=3, inference_workers=2, inference_queue=7,
                    max_photo_bytes=123, max_json_bytes=456, max_pixels=789, keep_dir=tmp_path / "k", load_models=False)
    assert ApiSettings.from_env(s.to_env()) == s
    assert ApiSettings.from_env({}) == ApiSettings()


def test_bad_environment_value_names_the_variable():
    with pytest.raises(ValueError, match="TSUMO_MAX_PIXELS"):
        ApiSettings.from_env({"TSUMO_MAX_PIXELS": "lots"})


def test_keep_dir_defaults_to_xdg_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert ApiSettings().photos_dir == tmp_path / "tsumo" / "photos"


def test_serve_starts_a_server_on_loopback_with_json_logs(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path / "server.log"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "tsumo", "serve", "--port", str(port), "--no-models"],
                                cwd=REPO, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + 30
            body = None
            while time.monotonic() < deadline and body is None:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/rules", timeout=2) as r:
                        body = json.load(r)
                except OSError:
                    time.sleep(0.2)
            assert body and any(x["name"] == "tenhou" for x in body)
        finally:
            proc.terminate()
            proc.wait(10)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    requests = [x for x in lines if x.get("event") == "request"]
    assert requests and requests[-1]["path"] == "/v1/rules" and requests[-1]["status"] == 200


def test_serve_with_two_workers_hands_the_flags_to_each(tmp_path):
    """`--workers 2`: the worker processes (which import the app afresh) answer with the limit
    given as `--max-photo-mb 1`, handed over through the environment."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "tsumo", "serve", "--port", str(port), "--no-models",
                             "--workers", "2", "--max-photo-mb", "1"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        ready = False
        while time.monotonic() < deadline and not ready:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/rules", timeout=2).close()
                ready = True
            except OSError:
                time.sleep(0.2)
        assert ready
        details = set()
        for _ in range(6):  # each on a new connection, so the kernel spreads them over the workers
            # Only the headers are sent: the 413 comes from the declared length, before any body.
            with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
                conn.sendall(b"POST /v1/photos/read HTTP/1.1\r\nHost: x\r\n"
                             b"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1100000\r\n\r\n")
                answer = b""
                while not answer.endswith(b"}"):
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    answer += chunk
            head, _, payload = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 413"), head
            details.add(json.loads(payload)["detail"])
        assert details == {"request body is over this endpoint's limit of 1,048,576 bytes"}
    finally:
        proc.terminate()
        proc.wait(15)
