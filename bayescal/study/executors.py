"""Where the cells of a study run: in this process, local processes or Dask.

Each executor is a context manager that yields a function mapping the task
list to an iterator of results (one list of :class:`~bayescal.cube.CellResult`
per task, in completion order):

* :func:`sequential` — in the calling process (``n_jobs=1``);
* :func:`local_processes` — joblib's ``loky`` backend, one BLAS thread per
  worker (:func:`bayescal.threads.limit_blas_threads`);
* :func:`dask` — an existing scheduler's address, or ``"local"`` to start a
  :class:`dask.distributed.LocalCluster` listening on 127.0.0.1 only. The
  scheduler is reached (within :data:`SCHEDULER_TIMEOUT` seconds) when the
  context is entered, before the runner touches the store.

:func:`terminate_on_signals` turns SIGTERM into an exception while a study
runs, so that SIGTERM, like SIGINT (``KeyboardInterrupt``), unwinds the
executor's context: joblib aborts and kills its loky workers, Dask closes its
client and local cluster. No worker outlives the main process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

from bayescal.cube.store import CellResult
from bayescal.study.cells import Task, run_task
from bayescal.study.data import PreparedData

__all__ = ["SCHEDULER_TIMEOUT", "SchedulerUnreachableError", "StudyTerminated", "dask",
           "local_processes", "sequential", "terminate_on_signals"]

#: Seconds allowed to reach a remote Dask scheduler.
SCHEDULER_TIMEOUT = 5

Tasks = list[tuple[Task, Any, Any]]
Executor = Callable[[Any, Tasks, list[PreparedData]], Iterator[list[CellResult]]]


class SchedulerUnreachableError(ConnectionError):
    """The Dask scheduler given to the runner cannot be reached."""


class StudyTerminated(SystemExit):
    """Raised in the main thread when the study receives SIGTERM."""


@contextlib.contextmanager
def terminate_on_signals() -> Iterator[None]:
    """While active, SIGTERM raises :class:`StudyTerminated` (exit status 143).

    Only installed from the main thread (signal handlers can only be set
    there); elsewhere it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise StudyTerminated(128 + signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _sequential(spec: Any, tasks: Tasks, datasets: list[PreparedData]
                ) -> Iterator[list[CellResult]]:
    from bayescal.threads import limit_blas_threads

    # one BLAS limit for the whole loop (setting it per task costs a library scan)
    with limit_blas_threads(1):
        for task, train, test in tasks:
            yield run_task(spec, task, datasets[task.dataset], train, test, blas_threads=None)


@contextlib.contextmanager
def sequential() -> Iterator[Executor]:
    """Run every task in the calling process."""
    yield _sequential


@contextlib.contextmanager
def local_processes(n_jobs: int) -> Iterator[Executor]:
    """Run tasks on ``n_jobs`` loky worker processes (killed if the run is interrupted)."""
    def execute(spec: Any, tasks: Tasks, datasets: list[PreparedData]
                ) -> Iterator[list[CellResult]]:
        from joblib import Parallel, delayed

        if len(tasks) <= 1:
            yield from _sequential(spec, tasks, datasets)
            return
        parallel = Parallel(n_jobs=min(n_jobs, len(tasks)), backend="loky",
                            return_as="generator_unordered")
        results = parallel(delayed(run_task)(spec, task, datasets[task.dataset], train, test, 1)
                           for task, train, test in tasks)
        try:
            yield from results
        finally:
            results.close()  # on an interruption joblib aborts and kills the workers

    try:
        yield execute
    except BaseException:
        _kill_loky_workers()
        raise


def _kill_loky_workers() -> None:
    """Terminate the reusable loky executor (its workers) after an interruption."""
    try:
        from joblib.externals.loky import get_reusable_executor
    except ImportError:  # pragma: no cover
        return
    with contextlib.suppress(Exception):
        get_reusable_executor().shutdown(wait=False, kill_workers=True)


@contextlib.contextmanager
def dask(scheduler: str, n_jobs: int | None) -> Iterator[Executor]:
    """Run tasks on Dask: ``"local"`` (a LocalCluster on 127.0.0.1) or an address.

    Raises
    ------
    SchedulerUnreachableError
        If a remote scheduler does not answer within :data:`SCHEDULER_TIMEOUT`
        seconds.
    """
    from dask.distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler == "local":
            cluster = stack.enter_context(LocalCluster(
                n_workers=n_jobs or os.cpu_count() or 1, threads_per_worker=1,
                processes=True, host="127.0.0.1", dashboard_address=None))
            client = stack.enter_context(Client(cluster))
        else:
            try:
                client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                detail = " ".join(str(exc).split()) or type(exc).__name__
                raise SchedulerUnreachableError(
                    f"cannot reach the Dask scheduler {scheduler!r} within "
                    f"{SCHEDULER_TIMEOUT} s ({detail}); check the address and that the "
                    "scheduler runs, or leave out --scheduler to run locally") from None
            stack.enter_context(client)

        def execute(spec: Any, tasks: Tasks, datasets: list[PreparedData]
                    ) -> Iterator[list[CellResult]]:
            from dask.distributed import as_completed

            shared = {d: client.scatter(datasets[d], broadcast=True)
                      for d in sorted({t.dataset for t, _, _ in tasks})}
            futures = [client.submit(run_task, spec, task, shared[task.dataset], train, test,
                                     1, pure=False) for task, train, test in tasks]
            try:
                for future in as_completed(futures):
                    yield future.result()
                    future.release()
            finally:
                client.cancel(futures)

        yield execute
