"""`datasets/reader_pool.py`: jobs read in spawned processes come back as if read here, in job order."""
from __future__ import annotations

import operator

import pytest

reader_pool = pytest.importorskip("reader_pool")


@pytest.mark.parametrize("workers", [1, 2])
def test_each_job_is_worked_with_the_state_built_once_per_process_in_job_order(workers):
    jobs = [f"-{i}" for i in range(7)]
    # state = str("tile"), work(state, job) = state + job: module-level callables, pickled by name
    with reader_pool.job_map(str, ("tile",), operator.add, workers) as run:
        assert list(run(jobs)) == [f"tile-{i}" for i in range(7)]
        assert list(run(jobs[:2])) == ["tile-0", "tile-1"]  # one pool serves several batches


def test_in_process_work_is_lazy_so_a_dump_can_write_as_it_reads():
    seen = []

    def work(state, job):
        seen.append(job)
        return state * job

    with reader_pool.job_map(int, ("3",), work, 1) as run:
        results = run([1, 2, 3])
        assert seen == []
        assert next(results) == 3 and seen == [1]


def test_a_failing_job_raises_in_the_caller():
    with reader_pool.job_map(str, ("x",), operator.truediv, 2) as run, pytest.raises(TypeError):
        list(run(["a"]))
