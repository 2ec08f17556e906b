"""Tests of bayescal.study.executors: the calling process computes beside its workers."""

from __future__ import annotations

import threading

import pytest

from bayescal.study import executors, parse_spec, run, workers

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
    started: list[workers.WorkerProcess] = []
    real_process = workers.WorkerProcess

    def counting_process():
        started.append(real_process())
        return started[-1]

    monkeypatch.setattr(workers, "WorkerProcess", counting_process)
    two = run(spec, tmp_path / "two", n_jobs=2, progress=False)
    assert_same_cube(one, two)
    assert len(started) == 1  # -j 2: this process and one worker process
    assert started[0].join(timeout=30)  # which exits when the run ends
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
