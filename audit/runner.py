"""Run an audit: plan fixed chunks, read them (in-process, a process pool, or Ray), checkpoint
each one as it finishes, then merge in order into events, scores and the report.

Chunks are fixed slices of each video's sampled frames (`chunk_s` seconds), the same in every
mode, so local, Ray and resumed runs read the same frames with the same gate state and produce
the same readings — hence the same report. Ray is the same job with chunks as tasks on a pool
of actors (each actor loads the models once); there is no home-made distribution layer.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, TextIO

import cv2

from audit.checkpoint import Checkpoint, OtherRunCheckpoint, atomic_write
from audit.declared import DeclaredSet, match_declared, verdict
from audit.events import Event, EventParams, detect_events
from audit.progress import Progress
from audit.reader import FrameReader
from audit.report import EventOutcome, Report, VideoOutcome
from audit.scan import SCAN_VERSION, Chunk, ChunkResult, GateParams, scan_chunk
from audit.video import VideoError, VideoInfo, probe_video, read_frames, sample_indices

ReaderFactory = Callable[[], FrameReader]  # picklable; called once per worker process / actor


class AuditError(RuntimeError):
    """The job cannot run as asked (e.g. Ray unavailable or unreachable): a message for people."""


class CheckpointConflict(AuditError):
    """REPORT_DIR holds another run's checkpoint and `AuditOptions.restart` was not asked for."""


@dataclass(frozen=True)
class PipelineReaderFactory:
    """Builds the real reader (`vision.pipeline.PhotoReader`) inside each worker."""

    models_dir: str | None = None
    threads: int = 1
    players: int = 4

    def __call__(self) -> FrameReader:
        from audit.reader import PipelineFrameReader

        return PipelineFrameReader(Path(self.models_dir) if self.models_dir else None,
                                   threads=self.threads, players=self.players)


@dataclass(frozen=True)
class AuditOptions:
    sample_fps: float = 2.0
    chunk_s: float = 30.0
    workers: int = 2
    ray: bool = False
    ray_address: str | None = None
    gate: GateParams = field(default_factory=GateParams)
    events: EventParams = field(default_factory=EventParams)
    context: dict = field(default_factory=dict)       # scoring defaults (CONTRACTS §1 keys, no tiles)
    declared: DeclaredSet | None = None
    frame_width: int = 1280                          # saved annotated frames are at most this wide
    restart: bool = False                            # discard REPORT_DIR's checkpoint; without it another
                                                     # run's checkpoint is kept and the run refused (CheckpointConflict)


def plan_chunks(video: int, info: VideoInfo, sample_fps: float, chunk_s: float) -> list[Chunk]:
    indices = sample_indices(info, sample_fps)
    per = max(1, int(round(chunk_s * sample_fps)))
    starts = list(range(0, len(indices), per))
    return [Chunk(video, n, info, tuple(indices[i:i + per]),
                  indices[i + per] / info.fps if i + per < len(indices) else info.duration_s)
            for n, i in enumerate(starts)]


def _video_fingerprint(path: str) -> dict:
    p = Path(path)
    try:
        st = p.stat()
        return {"path": str(p.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    except OSError:
        return {"path": str(p.resolve()), "missing": True}


# --- backends: each yields ChunkResults as they finish --------------------------------------

def _run_inline(chunks: list[Chunk], factory: ReaderFactory, gate: GateParams,
                reader: FrameReader | None) -> Iterator[ChunkResult]:
    reader = reader or factory()
    for c in chunks:
        yield scan_chunk(c, reader, gate)


_WORKER: dict = {}  # the one reader of a pool worker process (set by the pool initializer)


def _pool_init(factory: ReaderFactory, gate: GateParams) -> None:
    _exit_with_parent()
    _WORKER["reader"] = factory()
    _WORKER["gate"] = gate


def _exit_with_parent() -> None:
    """A pool worker outliving a `kill -9`-ed parent would hold its models forever: leave too."""
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()


def _pool_scan(chunk: Chunk) -> ChunkResult:
    return scan_chunk(chunk, _WORKER["reader"], _WORKER["gate"])


def _run_pool(chunks: list[Chunk], factory: ReaderFactory, gate: GateParams, workers: int,
              skip: Callable[[Chunk], bool]) -> Iterator[ChunkResult]:
    ctx = multiprocessing.get_context("spawn")  # never fork a process holding onnxruntime threads
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_pool_init,
                                  initargs=(factory, gate))
    finished = False
    try:
        futures = {pool.submit(_pool_scan, c): c for c in chunks}
        for fut in cf.as_completed(futures):
            if fut.cancelled():
                continue
            yield fut.result()
            for f, c in futures.items():
                if not f.done() and skip(c):
                    f.cancel()  # the video broke in an earlier chunk: nothing after it counts
        finished = True
    finally:
        # Interrupted: don't wait for chunks in flight (the checkpoint has everything finished).
        pool.shutdown(wait=finished, cancel_futures=True)


def _run_ray(chunks: list[Chunk], factory: ReaderFactory, gate: GateParams, workers: int,
             address: str | None) -> Iterator[ChunkResult]:
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    try:
        import ray
        from ray.util import ActorPool
    except ImportError as exc:
        raise AuditError("--ray needs Ray: pip install ray") from exc
    started = False
    if not ray.is_initialized():
        if address:
            _check_reachable(address)  # Ray itself keeps retrying for minutes
        try:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, _node_ip_address="127.0.0.1",
                         log_to_driver=False)
        except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; say which address failed
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise AuditError(f"cannot start or reach {where}: {exc}") from exc
        started = True
    try:
        @ray.remote(num_cpus=1)
        class ChunkReader:
            def __init__(self, factory, gate):
                self.reader = factory()
                self.gate = gate

            def scan(self, chunk):
                return scan_chunk(chunk, self.reader, self.gate)

        n = max(1, min(workers, len(chunks)))
        pool = ActorPool([ChunkReader.remote(factory, gate) for _ in range(n)])
        yield from pool.map_unordered(lambda actor, c: actor.scan.remote(c), chunks)
    finally:
        if started:
            ray.shutdown()


def _check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Fail fast with a clear message when `host:port` (or `ray://host:port`) does not answer."""
    import socket

    hostport = address.split("://", 1)[-1].rstrip("/")
    if ":" not in hostport:
        return  # "auto", "local": let Ray resolve it
    host, _, port = hostport.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            pass
    except (OSError, ValueError) as exc:
        raise AuditError(f"cannot start or reach the Ray cluster at {address}: {exc}") from exc


# --- the job ----------------------------------------------------------------------------------

def _prefix(results: dict[tuple[int, int], ChunkResult], video: int, n_chunks: int):
    """The video's finished chunks from its start, up to the first missing or broken chunk.
    Returns (readings, chunks in the prefix, error of the broken chunk or None)."""
    readings = []
    for n in range(n_chunks):
        r = results.get((video, n))
        if r is None:
            return readings, n, None
        readings.extend(r.readings)
        if r.error:
            return readings, n + 1, r.error
    return readings, n_chunks, None


def run_audit(videos: list[str], out_dir: Path, factory: ReaderFactory,
              options: AuditOptions = AuditOptions(), *, stream: TextIO | None = None,
              progress: bool = True, reader: FrameReader | None = None,
              scorer: Callable[[dict], dict] | None = None) -> Report:
    """Audit `videos` into `out_dir` (report.json/.csv/.html, frames/, checkpoint.json)."""
    stream = stream if stream is not None else sys.stderr
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    infos: list[VideoInfo | None] = []
    probe_errors: dict[int, VideoError] = {}
    for i, path in enumerate(videos):
        try:
            infos.append(probe_video(path))
        except VideoError as exc:
            infos.append(None)
            probe_errors[i] = exc
    plans = {i: plan_chunks(i, info, options.sample_fps, options.chunk_s)
             for i, info in enumerate(infos) if info is not None}

    identity_reader = reader
    identity = getattr(reader, "identity", None) or getattr(factory, "identity", None)
    if identity is None:
        identity_reader = reader or factory()
        identity = identity_reader.identity
    fingerprint = {
        "videos": [_video_fingerprint(p) for p in videos],
        "sample_fps": options.sample_fps, "chunk_s": options.chunk_s,
        "gate": options.gate.to_json(), "scan": SCAN_VERSION, "reader": identity,
    }
    # Several frames of a reveal read as one (readers that can); deterministic, so resumable.
    fuse_frames = getattr(reader or identity_reader, "fuse", None)
    fuse_memo: dict[int, dict] = {}

    def fuse_for(v: int):
        """`fuse`, remembered per video and frame set: events are re-derived after every chunk."""
        if fuse_frames is None:
            return None
        memo = fuse_memo.setdefault(v, {})

        def fuse(part):
            key = tuple((r.index, r.gate) for r in part)
            if key not in memo:
                memo[key] = fuse_frames(part)
            return memo[key]
        return fuse

    try:
        cp, note = Checkpoint.open(out_dir, fingerprint, restart=options.restart)
    except OtherRunCheckpoint as exc:
        raise CheckpointConflict(str(exc)) from None
    if note:
        print(f"tsumo audit: {note}", file=stream)

    total_s = sum(c.end_s - c.start_s for chunks in plans.values() for c in chunks)
    bar = Progress(total_s, stream, enabled=progress)
    for (v, n), r in cp.chunks.items():
        if v in plans and n < len(plans[v]):
            c = plans[v][n]
            bar.advance(c.end_s - c.start_s, resumed=True)

    def video_done(v: int) -> bool:
        _, n, error = _prefix(cp.chunks, v, len(plans[v]))
        return error is not None or n == len(plans[v])

    pending = [c for v in sorted(plans) for c in plans[v]
               if (v, c.number) not in cp.chunks and not video_done(v)]

    def found_events(v: int) -> list[Event]:
        """Events that no chunk still to come can change."""
        readings, n, error = _prefix(cp.chunks, v, len(plans[v]))
        if error is not None or n == len(plans[v]):
            return detect_events(readings, options.events, fuse=fuse_for(v))
        return detect_events(readings, options.events, until_s=plans[v][n - 1].end_s, fuse=fuse_for(v)) if n else []

    if pending:
        if options.ray:
            results = _run_ray(pending, factory, options.gate, options.workers, options.ray_address)
        elif options.workers > 1 and len(pending) > 1:
            results = _run_pool(pending, factory, options.gate, options.workers,
                                skip=lambda c: video_done(c.video))
        else:
            results = _run_inline(pending, factory, options.gate, reader or identity_reader)
        for r in results:
            cp.add(r)
            ev = found_events(r.video)
            cp.events[r.video] = [e.to_json() for e in ev]
            cp.save()
            c = plans[r.video][r.number]
            bar.advance(c.end_s - c.start_s, events=sum(len(e) for e in cp.events.values()))
    else:
        cp.save()
    bar.close()

    # Merge in order: events, best frames, scores, declared verdicts.
    annotator = reader or identity_reader
    outcomes: list[VideoOutcome] = []
    for i, path in enumerate(videos):
        if i in probe_errors:
            exc = probe_errors[i]
            outcomes.append(VideoOutcome(path, None, 0.0, [], error=str(exc), error_kind=exc.kind))
            continue
        info = infos[i]
        readings, _, error = _prefix(cp.chunks, i, len(plans[i]))
        events = detect_events(readings, options.events, fuse=fuse_for(i))
        processed = error["at_s"] if error and error.get("at_s") is not None else (
            info.duration_s if not error else 0.0)
        wins = options.declared.for_video(path, len(videos)) if options.declared else []
        assignment = match_declared(events, wins) if options.declared else None
        event_outcomes = []
        for j, ev in enumerate(events):
            if annotator is None:
                annotator = factory()
            frame_name = f"frames/v{i + 1:02d}_e{j + 1:02d}.jpg"
            if not _save_best_frame(info, ev, annotator, out_dir / frame_name, options.frame_width):
                frame_name = None
            win = assignment.by_event.get(j) if assignment else None
            context = {**options.context, **(win.context if win else {})}
            result = (scorer or score_json)({**context, **ev.hand})
            v, why = verdict(result, win) if win else (None, None)
            event_outcomes.append(EventOutcome(ev, context, result, win, v, why, frame_name))
        unmatched = assignment.unmatched if assignment else []
        outcomes.append(VideoOutcome(path, info.duration_s, processed, event_outcomes,
                                     error=error["message"] if error else None,
                                     error_kind=error["kind"] if error else None,
                                     unmatched=unmatched))
    extra = []
    if options.declared:
        extra = [(w, f"names no audited video ({w.video!r})")
                 for w in options.declared.unknown_videos(list(videos))]
    report = Report(outcomes, settings={
        "sample_fps": options.sample_fps, "context": options.context,
        "declared": options.declared.path if options.declared else None,
        "events": options.events.to_json()}, unknown_declared=extra)
    report.write(out_dir)
    return report


def _save_best_frame(info: VideoInfo, ev: Event, reader: FrameReader, path: Path, max_width: int) -> bool:
    """Decode the event's best frame again, draw the reading on it, save it. False if unreadable."""
    try:
        frame = next(iter(read_frames(info, [ev.best_index])), None)
    except VideoError:
        frame = None
    if frame is None:
        return False
    image = reader.annotate(frame)
    h, w = image.shape[:2]
    if w > max_width:
        image = cv2.resize(image, (max_width, round(h * max_width / w)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise RuntimeError(f"cannot encode {path}")
    atomic_write(path, buf.tobytes())
    return True


def score_json(hand: dict) -> dict:
    """CONTRACTS §1 → §2 with the scoring engine (which never raises)."""
    from scoring import score_json as engine

    return engine(hand)
