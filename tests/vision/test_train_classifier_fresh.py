"""Run 18's trainer options (session 14): `--fresh-chunk` (no crop shown twice) and `--aug`; and the
error contact sheets of `datasets/classifier_error_sheets.py`. No torch needed."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def tc(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    import train_classifier

    return train_classifier


def test_fresh_chunks_show_every_crop_once_before_any_repeats(tc, capsys):
    s = tc.FreshChunks(1000, 300, seed=3)
    assert len(s) == 300 and s.fresh_passes == 3
    passes = [list(s) for _ in range(3)]
    seen = [i for p in passes for i in p]
    assert len(seen) == len(set(seen)) == 900 and set(seen) <= set(range(1000))
    assert "WARNING" not in capsys.readouterr().out
    fourth = list(s)  # past the set: positions 900..1200 wrap, so 200 crops come back, with a warning
    assert len(fourth) == 300 and len(set(fourth) & set(seen)) == 200
    assert "crops repeat" in capsys.readouterr().out


def test_fresh_chunks_order_is_fixed_by_the_seed_and_shuffled(tc):
    a, b, c = (list(tc.FreshChunks(50, 50, seed=k)) for k in (0, 0, 1))
    assert a == b and a != c and sorted(a) == list(range(50)) and a != list(range(50))
    with pytest.raises(ValueError):
        tc.FreshChunks(10, 11)


@pytest.mark.parametrize("aug, msg", [(["scale"], "KEY=VALUE"), (["blur=0.3"], "unknown keys")])
def test_aug_refuses_bad_or_unknown_keys_before_any_work(tc, aug, msg, capsys, tmp_path):
    rc = tc.main(["--seeds", "1", "--per-class", "0", "--no-render", "--out", str(tmp_path / "x.onnx"), "--aug", *aug])
    assert rc == 2 and msg in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()


def test_context_cut_doubles_the_box_about_its_centre_and_pads_at_the_edge(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "datasets"))
    from classifier_error_sheets import cell, context_cut

    patch = np.zeros((100, 100, 3), np.uint8)
    patch[40:60, 30:50] = 255  # the tile
    ctx = context_cut(patch, (30, 40, 50, 60))
    assert ctx.shape[:2] == (40, 40) and ctx[10:30, 10:30].min() == 255 and ctx[:5].max() == 0
    edge = context_cut(patch, (0, 0, 20, 20))  # grown past the patch: edge-replicated, same size
    assert edge.shape[:2] == (40, 40)
    out = cell(np.zeros((64, 64, 3), np.uint8), ctx, ["#1 1m -> 2m:0.60"])
    assert out.shape[0] > 192 and out.shape[1] >= 3 * 192


class _Trainer:
    """The attributes of an ultralytics trainer that `_fresh_cap` reads and sets."""

    def __init__(self, tc, epochs, epoch, n=1000, chunk=250):
        self.fresh_sampler = tc.FreshChunks(n, chunk)
        self.epochs, self.epoch, self.stop, self.scheduler_fitted = epochs, epoch, False, None
        self.args = type("A", (), {"epochs": epochs})()
        self.scheduler = type("S", (), {"last_epoch": -1})()

    def _setup_scheduler(self):
        self.scheduler_fitted = self.epochs


def test_fresh_cap_ends_the_run_when_the_mix_is_used_up(tc):
    t = _Trainer(tc, epochs=11, epoch=0)  # time mode fitted 11 epochs; the mix holds 4 fresh ones
    tc._fresh_cap(t)
    assert t.epochs == t.args.epochs == t.scheduler_fitted == 4 and t.scheduler.last_epoch == 0 and not t.stop
    t.epoch = 3
    tc._fresh_cap(t)
    assert t.stop
    t = _Trainer(tc, epochs=3, epoch=1)  # the deadline comes first: time mode's fit is kept
    tc._fresh_cap(t)
    assert t.epochs == 3 and t.scheduler_fitted is None and not t.stop
