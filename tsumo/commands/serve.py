"""`tsumo serve`: the HTTP API and the phone page (uvicorn running `api.app:create_app`)."""
from __future__ import annotations

import argparse
import errno
import os
import socket
from pathlib import Path

from tsumo.cli import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve",
        help="run the HTTP API and the phone page",
        description="Serve the HTTP API (/v1/…, docs at /docs) and the phone page (/). "
        "Use --host 0.0.0.0 to reach it from a phone on the same network.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    p.add_argument("--workers", type=int, default=1, help="server processes, each with its own models (default 1)")
    p.add_argument("--models", type=Path, default=None, metavar="DIR", help="folder with the ONNX models (default: the shipped ones)")
    p.add_argument("--no-models", action="store_true", help="serve hands and rules only; photo endpoints answer 503")
    p.add_argument("--threads", type=int, default=2, help="inference threads per photo (default 2)")
    p.add_argument("--inference-workers", type=int, default=1, help="photos read at once per process (default 1)")
    p.add_argument("--queue", type=int, default=4, help="photos allowed to wait; more get 503 + Retry-After (default 4)")
    p.add_argument("--max-photo-mb", type=float, default=20, help="largest photo upload in MiB (default 20)")
    p.add_argument("--max-pixels", type=int, default=40_000_000, help="largest photo in pixels, checked from the header (default 40 000 000)")
    p.add_argument("--keep-dir", type=Path, default=None, metavar="DIR",
                   help="where photos sent with keep=true are saved (default $XDG_DATA_HOME/tsumo/photos)")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    p.set_defaults(run=run)


def settings_from_args(args: argparse.Namespace):  # -> ApiSettings (import kept lazy for a fast CLI)
    """Check the flags and turn them into `ApiSettings`; a bad flag is a `UsageError`."""
    from api.settings import MB, ApiSettings

    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be 1–65535, got {args.port}")
    for flag in ("workers", "threads", "inference_workers"):
        if getattr(args, flag) < 1:
            raise UsageError(f"--{flag.replace('_', '-')} must be at least 1, got {getattr(args, flag)}")
    if args.queue < 0:
        raise UsageError(f"--queue must be 0 or more, got {args.queue}")
    if args.max_photo_mb <= 0 or args.max_pixels <= 0:
        raise UsageError("--max-photo-mb and --max-pixels must be positive")
    if args.models is not None and not args.models.is_dir():
        raise UsageError(f"--models {args.models}: no such folder")
    if args.keep_dir is not None and args.keep_dir.exists() and not args.keep_dir.is_dir():
        raise UsageError(f"--keep-dir {args.keep_dir} exists and is not a folder")
    return ApiSettings(
        models_dir=args.models.resolve() if args.models else None,
        reader_threads=args.threads,
        inference_workers=args.inference_workers,
        inference_queue=args.queue,
        max_photo_bytes=int(args.max_photo_mb * MB),
        max_pixels=args.max_pixels,
        keep_dir=args.keep_dir.resolve() if args.keep_dir else None,
        load_models=not args.no_models,
    )


def check_can_listen(host: str, port: int) -> None:
    """Bind (host, port) once, as uvicorn will (SO_REUSEADDR), so a port taken by another server or a host
    this machine does not have is a one-line error; uvicorn says it only as a log line, exit 3."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise UsageError(f"--host {host}: not an address of this machine ({exc})") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            hint = " (another server is listening there; choose another --port)" if exc.errno == errno.EADDRINUSE else ""
            raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}{hint}") from None


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    check_can_listen(args.host, args.port)
    import uvicorn

    from api.request_log import logging_config

    # Worker processes import the factory afresh: the settings travel as TSUMO_* variables.
    os.environ.update(settings.to_env())
    uvicorn.run(
        "api.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_config=logging_config(args.log_level),
        access_log=False,
        proxy_headers=False,
    )
    return 0
