"""onnxruntime CPU sessions for the shipped models, made one way (detector, classifier, numeral specialist)."""
from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

# Intra-op threads sleep between calls instead of spinning. The reader alternates between two or three
# sessions per photo (detector passes, classifier, man-numeral specialist), each with its own thread pool,
# and a pool spinning after its call takes the two cores from the next session's call. Measured on
# real-dev (`benchmarks/vision.py --repeat 5`, 2 threads, same machine and hour, session 17): the
# detector + classifier alone read in a median 104-113 ms spinning and 81-86 ms without (12-MP photo
# 142-189 -> 118-121 ms); with the specialist as a third pool, 128-132 ms spinning and 83-84 ms without.
NO_SPINNING = {"session.intra_op.allow_spinning": "0", "session.inter_op.allow_spinning": "0"}


def cpu_session(path: str | Path, threads: int, what: str):
    """An onnxruntime CPU session of the model at `path` with `threads` intra-op threads.
    Raises FileNotFoundError naming `what` (e.g. "detector model") when the file is missing."""
    import onnxruntime as ort

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{what} not found: {path}")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, int(threads))
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    for key, value in NO_SPINNING.items():
        opts.add_session_config_entry(key, value)
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


# The libraries whose numerics a reading depends on. Session 38 read the tune sets with the same code and weights
# on a machine with newer onnxruntime / OpenCV than session 35's: 1 071 hands exact against 1 064. Figures from
# two machines compare only when these agree, so every measurement records them.
READING_LIBRARIES = ("numpy", "onnxruntime", "opencv-python-headless", "opencv-python", "pillow")


def library_versions() -> dict[str, str]:
    """Python and the installed versions of `READING_LIBRARIES` (those not installed are left out)."""
    out = {"python": platform.python_version()}
    for name in READING_LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


def libraries_line(versions: dict[str, str]) -> str:
    """`library_versions()` as the one line a measurement prints: "read with python 3.11.7, numpy …"."""
    return "read with " + ", ".join(f"{k} {v}" for k, v in versions.items())
