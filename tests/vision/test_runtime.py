"""The one way the shipped models' onnxruntime sessions are made (`vision.runtime.cpu_session`)."""
from __future__ import annotations

from pathlib import Path

import pytest

from vision.classify import TileClassifier
from vision.detect import TileDetector
from vision.runtime import NO_SPINNING, cpu_session

MODELS = Path(__file__).resolve().parents[2] / "models"


def _config(session, key):
    return session.get_session_options().get_session_config_entry(key)


def test_sessions_take_their_threads_and_do_not_spin():
    s = cpu_session(MODELS / "man_numeral.onnx", 2, "man-numeral model")
    assert s.get_session_options().intra_op_num_threads == 2
    assert s.get_session_options().inter_op_num_threads == 1
    for key in NO_SPINNING:
        assert _config(s, key) == "0"


def test_every_model_of_the_reader_is_made_without_spinning():
    """Detector, classifier and the classifier's numeral specialist: three pools on two cores."""
    clf = TileClassifier(MODELS / "tile_classifier.onnx", threads=2)
    det = TileDetector(MODELS / "tile_detector.onnx", threads=2)
    assert clf.numeral is not None
    for session in (clf.session, clf.numeral.session, det.session):
        assert _config(session, "session.intra_op.allow_spinning") == "0"


@pytest.mark.parametrize("what", ["detector model", "tile classifier model"])
def test_a_missing_model_file_is_named(tmp_path, what):
    with pytest.raises(FileNotFoundError, match=f"{what} not found: .*nothing.onnx"):
        cpu_session(tmp_path / "nothing.onnx", 1, what)
    with pytest.raises(FileNotFoundError, match="not found"):
        (TileDetector if what.startswith("detector") else TileClassifier)(tmp_path / "nothing.onnx")


def test_library_versions_name_the_installed_reading_libraries(monkeypatch):
    """What a measurement records of its machine: Python and the installed numerics libraries, as installed; a
    library that is not installed is left out, not an error."""
    import platform
    from importlib.metadata import version

    import cv2
    import onnxruntime

    from vision.runtime import library_versions

    v = library_versions()
    assert v["python"] == platform.python_version()
    assert v["onnxruntime"] == onnxruntime.__version__
    assert v["numpy"] == version("numpy")
    opencv = v.get("opencv-python-headless") or v.get("opencv-python")
    assert opencv is not None and opencv.startswith(cv2.__version__.split("-")[0])
    import vision.runtime

    monkeypatch.setattr(vision.runtime, "READING_LIBRARIES", ("numpy", "no-such-package-tsumo"))
    assert library_versions() == {"python": v["python"], "numpy": v["numpy"]}
