"""HTTP API benchmark: photo and hand requests at 1, 4 and 16 concurrent clients, on loopback.

    python benchmarks/api.py                 # starts `tsumo serve` on 127.0.0.1, measures, stops it
    python benchmarks/api.py --quick         # fewer requests
    python benchmarks/api.py --json out.json # also write the figures

The server runs in its own process (uvicorn, 1 worker, the shipped models); the load comes from
this process through a minimal keep-alive HTTP/1.1 client on asyncio streams, so the client costs
little CPU next to the server (the machine has 2 cores, shared by both). Request counts are fixed
and every client stops by itself. Reported per case: median and p95 latency, throughput, and
how many answers were not 200 (e.g. 503 when the photo queue is full).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PHOTO = REPO.parent / "shared" / "data" / "real-dev" / "lietxia_70008812.jpg"
HOST = "127.0.0.1"  # loopback only
HAND = {"concealed": "234m055p789s55z", "win_tile": "5z", "win": "tsumo", "rules": "tenhou",
        "melds": [{"kind": "pon", "tiles": "777z", "called": "7z", "from": "across"}],
        "round_wind": "E", "seat_wind": "S", "dora_indicators": ["4p"], "honba": 1}


@dataclass
class Case:
    kind: str
    clients: int
    requests: int
    median_ms: float
    p95_ms: float
    per_second: float
    not_ok: int
    statuses: dict[str, int]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def multipart(photo: bytes, context: dict) -> tuple[bytes, str]:
    boundary = "tsumo-bench-boundary"
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"context\"\r\n\r\n{json.dumps(context)}\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"hand.jpg\"\r\n"
        "Content-Type: image/jpeg\r\n\r\n"
    ).encode() + photo + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def request_bytes(path: str, body: bytes, content_type: str, port: int) -> bytes:
    head = (f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n")
    return head.encode() + body


async def one_client(port: int, raw: bytes, count: int, latencies: list[float], statuses: list[int]) -> None:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        for _ in range(count):
            start = time.perf_counter()
            writer.write(raw)
            await writer.drain()
            status_line = await reader.readline()
            status = int(status_line.split()[1])
            length = 0
            close = False
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                elif name.lower() == "connection" and "close" in value.lower():
                    close = True
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - start)
            statuses.append(status)
            if close:  # the server refused and closed: reconnect
                writer.close()
                reader, writer = await asyncio.open_connection(HOST, port)
    finally:
        writer.close()


async def run_case(kind: str, port: int, raw: bytes, clients: int, total: int) -> Case:
    latencies: list[float] = []
    statuses: list[int] = []
    per_client = max(1, total // clients)
    start = time.perf_counter()
    await asyncio.gather(*(one_client(port, raw, per_client, latencies, statuses) for _ in range(clients)))
    wall = time.perf_counter() - start
    ms = sorted(x * 1000 for x in latencies)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return Case(kind, clients, len(ms), round(statistics.median(ms), 1), round(p95, 1),
                round(len(ms) / wall, 1), sum(1 for s in statuses if s != 200),
                {str(code): statuses.count(code) for code in sorted(set(statuses))})


def wait_ready(port: int, path: str = "/healthz", timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}{path}", timeout=2) as r:
                if r.status == 200:
                    return
        except Exception:
            pass
        time.sleep(0.25)
    raise SystemExit(f"the server on port {port} was not ready after {timeout} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer requests (a smoke run)")
    ap.add_argument("--json", type=Path, help="write the figures here too")
    ap.add_argument("--photo", type=Path, default=PHOTO)
    ap.add_argument("--clients", default="1,4,16")
    ap.add_argument("--queue", type=int, default=16, help="server photo queue (16: every photo waits, none refused)")
    ap.add_argument("--hands-only", action="store_true", help="no models: hand requests only")
    args = ap.parse_args(argv)
    levels = [int(x) for x in args.clients.split(",")]
    photo_total = {1: 10, 4: 16, 16: 32} if args.quick else {1: 30, 4: 40, 16: 64}
    hand_total = {1: 300, 4: 1000, 16: 2000} if args.quick else {1: 1000, 4: 4000, 16: 8000}

    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "tsumo", "serve", "--host", HOST, "--port", str(port), "--queue", str(args.queue),
         "--log-level", "warning", *(["--no-models"] if args.hands_only else [])],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_ready(port, "/v1/rules" if args.hands_only else "/healthz")
        hand_raw = request_bytes("/v1/hands/score", json.dumps(HAND).encode(), "application/json", port)
        body, ctype = multipart(args.photo.read_bytes(), {"rules": "tenhou", "win": "tsumo", "seat_wind": "S"})
        photo_raw = request_bytes("/v1/photos/score", body, ctype, port)
        cases: list[Case] = []
        asyncio.run(run_case("warm-up", port, hand_raw, 1, 50))
        if not args.hands_only:
            asyncio.run(run_case("warm-up", port, photo_raw, 1, 3))
        for n in (levels if not args.hands_only else []):
            cases.append(asyncio.run(run_case("photo", port, photo_raw, n, photo_total.get(n, 4 * n))))
        for n in levels:
            cases.append(asyncio.run(run_case("hand", port, hand_raw, n, hand_total.get(n, 250 * n))))
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()

    print(f"{'request':8} {'clients':>7} {'n':>6} {'median ms':>10} {'p95 ms':>8} {'req/s':>8}  statuses")
    for c in cases:
        codes = " ".join(f"{k}×{v}" for k, v in c.statuses.items())
        print(f"{c.kind:8} {c.clients:7d} {c.requests:6d} {c.median_ms:10.1f} {c.p95_ms:8.1f} {c.per_second:8.1f}  {codes}")
    photo1 = next((c for c in cases if c.kind == "photo" and c.clients == 1), None)
    hand_best = max(c.per_second for c in cases if c.kind == "hand")
    summary = {
        "photo": args.photo.name, "cpu_count": os.cpu_count(), "cases": [asdict(c) for c in cases],
        "photo_median_1_client_ms": photo1.median_ms if photo1 else None,
        "hand_best_per_second": hand_best,
        "targets": {"photo_median_1_client_ms<=400": bool(photo1 and photo1.median_ms <= 400),
                    "hand_per_second>=500": hand_best >= 500},
    }
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary["targets"] | {"photo_median_1_client_ms": summary["photo_median_1_client_ms"],
                                           "hand_best_per_second": hand_best}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
