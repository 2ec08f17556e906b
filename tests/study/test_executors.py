"""Tests of bayescal.study.executors: the calling process computes beside its workers."""

from __future__ import annotations

import threading

import pytest

from bayescal.study import executors, parse_spec, run

from .test_runner import assert_same_cube
from .test_schedule import SKEWED_SPEC


@pytest.mark.slow
def test_calling_process_computes_beside_one_worker_process(tmp_path, monkeypatch):
    spec = parse_spec(SKEWED_SPEC)
    one = run(spec, tmp_path / "one", n_jobs=1, progress=False)
    here: list[str] = []
    original = executors.run_task

    def spy(*args, **kwargs):
        here.append(threading.current_thread().name)
        return original(*args, **kwargs)

    monkeypatch.setattr(executors, "run_task", spy)  # seen in this process only
    pools: list[int] = []
    from joblib.externals import loky

    real_pool = loky.ProcessPoolExecutor

    def counting_pool(*args, **kwargs):
        pools.append(kwargs["max_workers"])
        return real_pool(*args, **kwargs)

    monkeypatch.setattr(loky, "ProcessPoolExecutor", counting_pool)
    two = run(spec, tmp_path / "two", n_jobs=2, progress=False)
    assert_same_cube(one, two)
    assert pools == [1]  # -j 2: this process and one worker process
    n_tasks = 12
    # the calling process took some tasks (on its thread), the worker process the one
    # handed to it at once and possibly more
    assert 1 <= len(here) <= n_tasks - 1
    assert set(here) == {"bayescal-local-worker"}


def test_failure_in_the_calling_process_stops_the_run(tmp_path, monkeypatch):
    spec = parse_spec(SKEWED_SPEC)

    def broken(*args, **kwargs):
        raise MemoryError("no memory left for this task")

    monkeypatch.setattr(executors, "run_task", broken)
    with pytest.raises(MemoryError, match="no memory left"):
        run(spec, tmp_path / "two", n_jobs=2, progress=False)
    for thread in threading.enumerate():  # the thread stopped at its failure
        if thread.name == "bayescal-local-worker":
            thread.join(timeout=30)
            assert not thread.is_alive()
